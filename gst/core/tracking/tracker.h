/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Objects that keep their identity from frame to frame. On a frame with
 * detections, each detection continues the track it overlaps most (a
 * greedy assignment by IoU, below) or starts a new track with a new id;
 * tracks that no detection continues, and every track on frames without
 * detection, are followed by template search (template_search.h) around
 * the position their last motion predicts; a track whose template is not
 * found coasts (moves on with its last motion, unreported) so that it can
 * take its id back after an occlusion. A track ends when it has had no
 * matching detection for `lost_after` frames (checked on frames with
 * detections, so a track outlives the frames between two detections), when
 * less than half of it is left in the frame, or when it follows the same
 * object as an older track (TrackerConfig::duplicate_iou). A detection that
 * matches no track by its last box may still match one by the box the
 * search moved it to (an object that moved further than its box's size
 * allows for).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/detection/types.h"
#include "core/tracking/template_search.h"

namespace waldboost::tracking {

struct TrackerConfig {
    /* A detection continues a track when their boxes' intersection over
     * union is at least this (and their labels are equal). */
    float match_iou = 0.3f;
    /* Frames since a track's last matching detection after which it ends. */
    int lost_after = 15;
    /* The first track's id: a tracker that takes over from another in one
     * stream goes on from the other's next_id(), so that no id comes back. */
    int64_t first_id = 1;
    /* The search radius around the predicted position: this share of the
     * box's larger side, from min_radius to max_radius pixels (the search
     * tries (2 r + 1)^2 positions of up to kTemplateSide^2 samples each).
     * 15% and 16 pixels follow the faces as well as 25% and 32 for less
     * work (docs/history.md, tracking). */
    float search_share = 0.15f;
    int min_radius = 4;
    int max_radius = 16;
    /* The template is not found when its best position still differs from
     * it by more than this per sample on average (0-255). */
    int max_mean_difference = 48;
    /* A track whose box has less than this share of its area inside the
     * frame has left it. */
    float min_visible_share = 0.5f;
    /* Two tracks whose boxes overlap by this IoU or more, not both placed
     * by detections (which the detector says are two objects), follow one
     * object: the older goes on (with the younger's box where a detection
     * placed that), the younger ends. A detection that overlapped a track
     * too little to match it starts such a second track, and detections
     * would then jump between the two. */
    float duplicate_iou = 0.7f;
    /* At most this many tracks are open (0: no limit): a detection that
     * matches no track starts none while that many are open. Matching
     * costs tracks x detections, so a classifier that accepts nearly every
     * window would otherwise cost minutes and gigabytes per frame. */
    size_t max_tracks = 0;
};

/* What the tracker is given on a frame with detections. */
struct TrackerInput {
    Rect box;
    int label = 0;
    float confidence = 0;
};

struct Track {
    int64_t id = 0;       /* from 1; never reused */
    Rect box;
    int label = 0;
    float confidence = 0; /* of the last matching detection */
    int age = 0;          /* frames since the track started (0 on its first) */
    int hits = 0;         /* matching detections, the first included */
    int since_hit = 0;    /* frames since the last matching detection */
    /* Where this frame's box comes from: a matching detection, the
     * template search, or neither (the template was not found, say behind
     * an occlusion: the box moves on with the last motion until a
     * detection matches it again or the track ends). */
    enum class State { Detected, Followed, Coasting };
    State state = State::Detected;
    int vx = 0, vy = 0;   /* motion per frame, from the last two positions */
    Template appearance;  /* sampled at the last matching detection */
    /* Where the template's top-left sample lies relative to the box's
     * top-left corner (not 0 when the box was partly outside the frame). */
    int template_dx = 0, template_dy = 0;
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

    /* A frame on which detection ran: matches, follows the unmatched
     * tracks, starts tracks, ends lost ones. Returns this frame's events
     * (ends first, then starts). */
    std::vector<TrackEvent> update(const GrayView& frame, const std::vector<TrackerInput>& detections,
                                   TemplateSearcher& searcher);
    /* A frame without detection: every track is followed. */
    std::vector<TrackEvent> follow(const GrayView& frame, TemplateSearcher& searcher);
    /* Ends every track (end of stream, flush): their Left events. */
    std::vector<TrackEvent> clear();

    const std::vector<Track>& tracks() const { return tracks_; }
    /* The id the next new track gets. */
    int64_t next_id() const { return next_id_; }
    /* Detections of the last update() that started no track because
     * max_tracks were open. */
    size_t refused() const { return refused_; }
    const TrackerConfig& config() const { return config_; }

private:
    /* Moves `indexes` tracks by template search; returns those that left
     * the frame. */
    std::vector<bool> search(const GrayView& frame, const std::vector<size_t>& indexes, TemplateSearcher& searcher);
    void end_tracks(const std::vector<bool>& ending, std::vector<TrackEvent>& events);
    /* Matches `candidates` (track indexes) with the detections neither
     * matched yet, and moves the matched tracks onto their detections
     * (`searched`: this frame's search has moved them already). */
    void assign(const GrayView& frame, const std::vector<TrackerInput>& detections,
                const std::vector<size_t>& candidates, bool searched, std::vector<bool>& track_matched,
                std::vector<bool>& detection_matched);
    /* Ends the younger track of every duplicate pair; the older takes its
     * detection if a detection placed it. */
    void merge_duplicates(std::vector<bool>& ending);

    TrackerConfig config_;
    std::vector<Track> tracks_;
    int64_t next_id_ = 1;
    size_t refused_ = 0;
};

}  // namespace waldboost::tracking
