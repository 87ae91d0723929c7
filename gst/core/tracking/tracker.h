/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Objects that keep their identity from frame to frame, in the manner of
 * SORT and its successors, with a template search for the frames between
 * detections:
 * - Motion: each track's box has a constant-velocity Kalman filter
 *   (motion.h); every frame starts with its prediction.
 * - Assignment, on a frame with detections, in rounds, each optimal
 *   (assignment.h): first by the overlap of the predicted boxes of the
 *   tracks the last frame with detection saw with the detections (IoU >=
 *   match_iou, same label); then the tracks left over
 *   (missed, hidden, fast) against the detections left over by the
 *   distance of their centres, within a gate that widens with the frames
 *   since the track was last detected, so that an object hidden for up to
 *   lost_after frames takes its id back. Confirmed tracks go first, then
 *   the tentative ones (below) the same way.
 * - Confirmation: a detection that continues no track starts a tentative
 *   one, which gets an id and is reported ("appeared") only once
 *   confirm_hits detections have matched it within its first confirm_window
 *   frames with detection; otherwise it ends unreported. A false detection
 *   on one frame never becomes a track, nor does a second box that the
 *   detector puts on a reported object at another scale (most of it on the
 *   object's box). A lost track found again is confirmed again the same way
 *   before it is reported, with its id.
 * - Between detections, a track that the last detection frame saw is
 *   followed by template search (template_search.h) around its predicted
 *   box, the search's position correcting the filter.
 * - A track that no detection supports is kept silently (coasting, damped;
 *   reported on its prediction for report_misses frames with detection,
 *   none by default) until lost_after frames have passed since its last
 *   detection, or until less than min_visible_share of it is in the frame.
 * Ids go from first_id up, are given at confirmation and never reused.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/detection/types.h"
#include "core/tracking/motion.h"
#include "core/tracking/template_search.h"

namespace waldboost::tracking {

struct TrackerConfig {
    /* A detection continues a track (first round) when their boxes'
     * intersection over union is at least this (and their labels are
     * equal). */
    float match_iou = 0.3f;
    /* Frames since a track's last matching detection after which it ends:
     * a hidden object that reappears within them takes its id back. */
    int lost_after = 40;
    /* A new track is confirmed (given an id, reported, "appeared") when
     * confirm_hits detections have matched it within its first
     * confirm_window frames with detection (its first included). 1: every
     * detection that continues no track is reported at once. */
    int confirm_hits = 2;
    int confirm_window = 3;
    /* Frames with detection on which a confirmed track that no detection
     * matched is still reported (at its predicted box); then it coasts
     * unreported. 0: a frame with detection shows exactly the detections
     * that continue confirmed tracks (1 would bridge a detector's single
     * miss, at the price of a stale box when the object is gone, and on
     * real video it showed many boxes beyond the detections;
     * docs/history.md, "Figures behind the code's choices"). */
    int report_misses = 0;
    /* Second round: a track missed for k frames reaches a detection whose
     * centre lies within (reid_gate + reid_growth * k) times the track's
     * width of its predicted centre, and whose width is within a factor
     * reid_scale of the track's. */
    float reid_gate = 0.5f;
    float reid_growth = 0.05f;
    float reid_scale = 1.5f;
    /* The first track's id: a tracker that takes over from another in one
     * stream goes on from the other's next_id(), so that no id comes back. */
    int64_t first_id = 1;
    /* The search radius around the predicted position: this share of the
     * box's larger side, from min_radius to max_radius pixels (the search
     * tries (2 r + 1)^2 positions of up to kTemplateSide^2 samples each).
     * Around the Kalman prediction 8% and 8 pixels keep every ground-truth
     * measure of 15% and 16 (around the last motion) at a quarter of the
     * work, the followed boxes a little looser (docs/history.md, "Figures
     * behind the code's choices"). */
    float search_share = 0.08f;
    int min_radius = 4;
    int max_radius = 8;
    /* The template is not found when its best position still differs from
     * it by more than this per sample on average (0-255). */
    int max_mean_difference = 48;
    /* A track whose box has less than this share of its area inside the
     * frame has left it. */
    float min_visible_share = 0.5f;
    /* Two confirmed tracks whose boxes overlap by this IoU or more, not
     * both placed by detections (which the detector says are two objects),
     * follow one object: the older goes on (with the younger's box where a
     * detection placed that), the younger ends. */
    float duplicate_iou = 0.7f;
    /* At most this many tracks are open, tentative ones included (0: no
     * limit): a detection that matches no track starts none while that
     * many are open. */
    size_t max_tracks = 0;
    MotionConfig motion;
};

/* What the tracker is given on a frame with detections. */
struct TrackerInput {
    Rect box;
    int label = 0;
    float confidence = 0;
};

struct Track {
    int64_t id = 0; /* from first_id once confirmed; 0 while tentative */
    bool confirmed = false;
    /* Collecting confirm_hits detections within confirm_window frames with
     * detection: a new track (tentative, no id yet), or a confirmed one a
     * detection found again after it was lost (kept unreported until then,
     * so a false detection that recurs now and then is not shown each time). */
    bool pending = false;
    int pending_hits = 0;
    int pending_frames = 0;
    Rect box; /* this frame's */
    int label = 0;
    float confidence = 0; /* of the last matching detection */
    int age = 0;          /* frames since the track started (0 on its first) */
    int hits = 0;         /* matching detections, the first included */
    int since_hit = 0;    /* frames since the last matching detection */
    int misses = 0;       /* frames with detection since the last match */
    /* Where this frame's box comes from: a matching detection, the
     * template search, the motion model on a frame with detection that
     * missed it (reported for report_misses such frames), or the motion
     * model unreported (hidden, lost, tentative between detections). */
    enum class State { Detected, Followed, Predicted, Coasting };
    State state = State::Detected;
    BoxMotion motion;
    Template appearance; /* sampled at the last matching detection */
    /* Where the template's top-left sample lies relative to the box's
     * top-left corner (not 0 when the box was partly outside the frame). */
    int template_dx = 0, template_dy = 0;
    int template_width = 0, template_height = 0; /* the box it was sampled at */
    /* Whether this frame's box is one to report. */
    bool reported() const { return confirmed && !pending && state != State::Coasting; }
};

struct TrackEvent {
    enum class Kind { Appeared, Left };
    Kind kind = Kind::Appeared;
    int64_t id = 0;
    Rect box;
    int label = 0;
};

class Tracker {
public:
    explicit Tracker(const TrackerConfig& config = {});

    /* A frame on which detection ran: assigns the detections, confirms,
     * starts and ends tracks. Returns this frame's events (ends first, then
     * appearances). It runs no search: a track the detections miss is
     * predicted, as a search would stick to whatever hides it. */
    std::vector<TrackEvent> update(const GrayView& frame, const std::vector<TrackerInput>& detections);
    /* A frame without detection: the tracks the last detection saw are
     * followed by template search, the others coast. */
    std::vector<TrackEvent> follow(const GrayView& frame, TemplateSearcher& searcher);
    /* Ends every track (end of stream, flush): the confirmed ones' Left
     * events. */
    std::vector<TrackEvent> clear();
    /* The frames from `frame` on are the same scene at another resolution,
     * scaled by `sx` across and `sy` down (a camera or an adaptive stream
     * that changes its size): every track keeps its id, its box and motion
     * scale, and its template is sampled again from `frame` at the scaled
     * box (a template is a grid of a frame's pixels). Call it before
     * update() or follow() of `frame`. */
    void rescale(const GrayView& frame, double sx, double sy);

    /* Open tracks, tentative ones included (Track::reported() says which
     * to show). */
    const std::vector<Track>& tracks() const { return tracks_; }
    /* The id the next confirmed track gets. */
    int64_t next_id() const { return next_id_; }
    /* The boxes of the detections of the last update() that started no
     * track because max_tracks were open (privacy hides them still). */
    const std::vector<Rect>& refused() const { return refused_; }
    const TrackerConfig& config() const { return config_; }

private:
    /* Every track one frame on (its prediction). */
    void predict();
    /* Moves `indexes` tracks by template search around their predictions;
     * those not found coast. */
    void search(const GrayView& frame, const std::vector<size_t>& indexes, TemplateSearcher& searcher);
    /* One round of assignment between `candidates` (track indexes) and the
     * detections not matched yet; `second`: by distance, else by IoU. */
    void assign(const GrayView& frame, const std::vector<TrackerInput>& detections,
                const std::vector<size_t>& candidates, bool second, std::vector<bool>& detection_matched);
    /* After a frame's assignment: counts a pending track's frame and hit;
     * confirms it (an id and an Appeared event for a new one) or gives up
     * (true: a new track that ends unreported). */
    bool settle_pending(Track& t, bool hit, std::vector<TrackEvent>& appeared);
    void confirm(Track& t, std::vector<TrackEvent>& events);
    /* The boxes of the reported tracks a detection placed on this frame,
     * and whether one of them covers most of `box`: the
     * detector's second box on one object, at another scale. */
    std::vector<Rect> reported_detected() const;
    bool covers(const std::vector<Rect>& shown, const Rect& box) const;
    /* Ends the younger confirmed track of every duplicate pair; the older
     * takes its detection if a detection placed it. */
    void merge_duplicates(std::vector<bool>& ending);
    /* Ends the marked tracks: Left events for the confirmed ones. */
    void end_tracks(const std::vector<bool>& ending, std::vector<TrackEvent>& events);
    bool visible(const Rect& box, const GrayView& frame) const;

    TrackerConfig config_;
    std::vector<Track> tracks_;
    int64_t next_id_ = 1;
    std::vector<Rect> refused_;
};

}  // namespace waldboost::tracking
