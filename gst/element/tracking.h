/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's tracking (`tracking`, `interval`, `lost-after`): the core
 * tracker run on the worker, frame after frame in order, and what it gives
 * the frame's report (ids, age, hits, appeared and left events).
 */
#pragma once

#include <gst/gst.h>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/tracking/tracker.h"

namespace waldboost_element {

/* With tracking, ROI meta ids below this are track ids (1, 2, ... never
 * reused in a stream, wrapping after 2^30 tracks) and parts take the ids
 * from it up (one new id per part in a stream, wrapping after 2^30 parts),
 * so that a part never has an id that a track has or will have. */
inline constexpr gint kFirstPartId = 1 << 30;

/* One object reported on a frame: its detection (for a track followed by
 * search: its box, the confidence of its last detection) and, with
 * tracking, its track. */
struct ReportedObject {
    waldboost::Detection detection;
    gint id = 0;            /* the ROI meta's id: the track id, or the index without tracking */
    gint parent_id = -1;    /* inference-region=roi-list: the id of the upstream meta it was found in */
    gint parent_od_id = -1; /* ... or of the upstream ODMtd (in the buffer's GstAnalytics relation meta) */
    bool tracked = false;
    int age = 0;
    int hits = 0;
    bool detected = true; /* false: followed by template search on this frame */
    /* With tracking, the running time of the first frame the track was
     * reported on (StreamTracker::stamp). */
    GstClockTime first_seen = GST_CLOCK_TIME_NONE;
};

/* A track that left on a frame, with the running times of the first and
 * last frames it was reported on: the analytics metadata's lost tracks. */
struct LostTrack {
    gint id = 0;
    GstClockTime first_seen = GST_CLOCK_TIME_NONE;
    GstClockTime last_seen = GST_CLOCK_TIME_NONE;
};

/* A track that appeared and has not left: its id and its box on this
 * frame (the motion model's while the detector misses it). */
struct OpenTrack {
    gint id = 0;
    waldboost::Rect box;
};

/* The searches of a frame that run on the CPU rather than the device: two
 * 16 x 16 templates with radius 8 take 148k comparisons, which one core
 * does in less time than an OpenCL round trip takes; a crowd of ten goes
 * to the device (docs/history.md, "Figures behind the code's choices"). */
inline constexpr uint64_t kHostSearchWork = uint64_t{1} << 18;

/* The objects of a frame without tracking: its detections, ids 0..n-1. */
std::vector<ReportedObject> untracked_objects(const std::vector<waldboost::Detection>& detections);

/* The tracker and the searcher it uses, for one stream. */
class StreamTracker {
public:
    /* `searcher`: the device's search; null: the CPU reference. */
    StreamTracker(const waldboost::tracking::TrackerConfig& config,
                  std::unique_ptr<waldboost::tracking::TemplateSearcher> searcher);

    /* A frame on which detection ran (`detections` in frame coordinates,
     * possibly none) or, with `detected` false, one it skipped. Returns the
     * objects to report (tracks that a detection or the search placed on
     * this frame, oldest track first) and this frame's events. */
    std::vector<ReportedObject> frame(const waldboost::GrayView& luma, bool detected,
                                      const std::vector<waldboost::Detection>& detections,
                                      std::vector<waldboost::tracking::TrackEvent>* events);
    /* When the tracks were seen, for the analytics metadata: sets the
     * objects' first_seen (this frame's running time `now` for a new one),
     * records `now` as their last, and returns the tracks that `events`
     * ended, with their times, forgetting them. */
    std::vector<LostTrack> stamp(std::vector<ReportedObject>& objects,
                                 const std::vector<waldboost::tracking::TrackEvent>& events, GstClockTime now);
    const waldboost::tracking::TrackerConfig& config() const { return tracker_.config(); }
    /* The frames from `luma` on are scaled by sx, sy: Tracker::rescale. */
    void rescale(const waldboost::GrayView& luma, double sx, double sy) { tracker_.rescale(luma, sx, sy); }
    /* Ends every track: their "left" events. */
    std::vector<waldboost::tracking::TrackEvent> clear() { return tracker_.clear(); }
    int64_t next_id() const { return tracker_.next_id(); }
    /* The boxes of the last frame's detections that started no track:
     * max_tracks open. */
    const std::vector<waldboost::Rect>& refused() const { return tracker_.refused(); }
    /* The boxes on this frame of the open tracks that are not reported: new
     * ones short of confirm_hits detections, lost ones found again and
     * waiting to be confirmed again, and confirmed ones the detector missed
     * (coasting until lost_after). privacy hides them too, so that a face is
     * hidden from its first detection and through the detector's misses. */
    std::vector<waldboost::Rect> unreported_boxes() const;
    /* The tracks that appeared and have not left, after this frame's
     * events, oldest first. */
    std::vector<OpenTrack> open_tracks() const;
    /* Why the device's search failed and the CPU reference took over, once
     * (empty otherwise, and after the first call). */
    std::string take_search_failure();

private:
    /* The device's search for a frame's searches of more than
     * kHostSearchWork sample comparisons, the CPU reference for smaller ones
     * (the same results: a few faces take a fraction of a device's round
     * trip on the CPU, and the worker does not wait for the device); the
     * device is replaced by the CPU reference for good when it throws (the
     * frame's searches are then run again on the CPU, so the tracker never
     * sees the failure). */
    class FallbackSearcher final : public waldboost::tracking::TemplateSearcher {
    public:
        explicit FallbackSearcher(std::unique_ptr<waldboost::tracking::TemplateSearcher> device);
        std::vector<waldboost::tracking::SearchResult>
        search(const waldboost::GrayView& frame,
               const std::vector<waldboost::tracking::SearchRequest>& requests) override;
        std::unique_ptr<waldboost::tracking::TemplateSearcher> device;
        waldboost::tracking::ReferenceSearcher reference;
        std::string failure;
    };

    struct SeenTimes {
        GstClockTime first = GST_CLOCK_TIME_NONE;
        GstClockTime last = GST_CLOCK_TIME_NONE;
    };

    waldboost::tracking::Tracker tracker_;
    FallbackSearcher searcher_;
    std::unordered_map<gint, SeenTimes> seen_; /* by ReportedObject::id */
};

}  // namespace waldboost_element
