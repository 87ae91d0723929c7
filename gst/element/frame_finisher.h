/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Finishing a frame on the worker, in frame order: its detections become
 * the frame's report (tracked, parts searched inside them), which is drawn,
 * attached and posted; the frame is mapped once for all of it.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "core/opencl/engine/engine.h"
#include "drawing.h"
#include "frame_access.h"
#include "output.h"
#include "settings.h"
#include "snapshots.h"
#include "stats.h"
#include "tracking.h"

namespace waldboost_element {

/* A box upstream attached, searched with inference-region=roi-list: a
 * region-of-interest meta or a GstAnalytics ODMtd, its box in the visible
 * frame's coordinates, clipped to the frame and to roi. `id` is the meta's
 * id (the parent_id of what is found in it), -1 for an ODMtd; `od_id` the
 * ODMtd's id in the buffer's relation meta (what is found in it is related
 * to it there), -1 for a region-of-interest meta. */
struct UpstreamRegion {
    waldboost::Rect rect;
    gint id = -1;
    gint od_id = -1;
};

/* A frame on its way through the engine. It keeps its input buffer and its
 * settings until it leaves, so that a fallback device can run it again. */
struct PendingFrame {
    GstBuffer* buffer = nullptr;
    std::shared_ptr<const FrameSettings> settings;
    DrawMode draw = DrawMode::None; /* draw, resolved when the frame entered */
    bool submitted = false;         /* false: not on the device (unreadable, flat, or smaller than the window) */
    bool detect = true;             /* false: `interval` skips detection on this frame */
    bool unreadable = false;        /* the buffer could not be read: passed on unsearched */
    waldboost::Rect roi;            /* the part of the frame searched, in the buffer's pixels */
    /* The visible frame: a GstVideoCropMeta's rectangle (inside the
     * buffer), else the whole frame. Results are in its coordinates. */
    waldboost::Rect visible;
    guint64 frame = 0;
    /* With inference-region=roi-list, the regions searched (the first
     * kMaxRegionSearches of them; the frame is not searched whole). */
    std::vector<UpstreamRegion> regions;
    /* CPU time spent on the frame so far (stats host-ms), in ns:
     * submitting it and collecting its results. */
    gint64 host_ns = 0;
    gint64 submitted_us = 0; /* monotonic time it went on the device */
};

/* A number no other detector of the process has. */
guint next_detector_number();

class FrameFinisher {
public:
    FrameFinisher(GstBaseTransform* element, SharedStats& stats) : element_(element), stats_(stats) {}

    /* A new stream: no earlier frame counts. */
    void reset();
    /* The tracker starts afresh at the next frame (a seek). Any thread. */
    void reset_tracker() { tracker_reset_ = true; }
    /* End of stream: every open track leaves ("left" events with
     * updates=events). Only while no frame is being finished (after a
     * drain). */
    void end_of_stream()
    {
        close_tracks();
        closed_.clear(); /* no frame follows: the bus message is all */
        closed_lost_.clear();
    }

    /* Attaches the results of one frame (and draws them), `result` null
     * when it was not on the device; returns the buffer to push. `engine`:
     * the device the tracker's search runs on. */
    GstBuffer* finish(PendingFrame& pending, const waldboost::opencl::FrameResult* result, const GstVideoInfo& info,
                      const std::shared_ptr<waldboost::opencl::Engine>& engine);

private:
    std::vector<ReportedObject> track(const PendingFrame& pending, FrameAccess& frame, const GstVideoInfo& info,
                                      const std::vector<waldboost::Detection>& detections,
                                      std::vector<waldboost::tracking::TrackEvent>* events,
                                      const std::shared_ptr<waldboost::opencl::Engine>& engine,
                                      std::vector<waldboost::Rect>* untracked);
    void region_parents(const PendingFrame& pending, const waldboost::opencl::FrameResult* result,
                        std::vector<UpstreamRegion>* parents);
    std::vector<FoundPart> find_nested_parts(const PendingFrame& pending, FrameAccess& frame,
                                             const std::vector<ReportedObject>& objects, bool* cut);
    std::vector<FoundPart> parts_of_frame(const PendingFrame& pending, FrameAccess& frame,
                                          const std::vector<ReportedObject>& objects, bool* cut);
    void warn_caps(const PendingFrame& pending, size_t untracked, size_t objects, bool parts_cut, size_t tags_cut,
                   size_t analytics_cut);
    void warn_windows_cut(const PendingFrame& pending, guint64 windows_cut);
    void warn_events_without_tracking(const FrameSettings& fs);
    void warn_snapshots_without_tracking(const FrameSettings& fs);
    void warn_privacy_between_searches(const FrameSettings& fs);
    void warn_unknown_labels(const FrameSettings& fs);
    /* Ends the tracker's open tracks, posting their "left" events at the
     * last finished frame's times, keeps the events in closed_ for the
     * frame being finished, and drops the tracker. */
    void close_tracks();

    GstBaseTransform* element_;
    SharedStats& stats_;
    /* This element's number in the process, from 1: the events meta's
     * "detector", which tells the tracks of chained detectors apart. */
    const guint detector_ = next_detector_number();
    std::string name_;                       /* the element's, taken at each start (reset()) */
    std::unique_ptr<StreamTracker> tracker_; /* tracking=true */
    /* The caps' frame size and display aspect the tracks' boxes are in: new
     * caps of another size scale them, or of another aspect end them (0:
     * none yet). */
    int tracked_width_ = 0, tracked_height_ = 0;
    double tracked_aspect_ = 1;
    /* The last finished frame: where close_tracks() posts. */
    std::shared_ptr<const FrameSettings> last_settings_;
    MessageTimes last_times_;
    guint64 last_frame_ = 0;
    std::atomic<bool> tracker_reset_{true};
    /* The left events of the tracks close_tracks() ended while finishing
     * a frame (a seek, a tracker setting changed, tracking=false), and
     * when those tracks were seen: that frame's buffer carries them too
     * (FrameReport::closed, and lost TrackingMtds in FrameReport::lost). */
    std::vector<waldboost::tracking::TrackEvent> closed_;
    std::string closed_label_; /* the label closed_'s tracks had */
    std::vector<LostTrack> closed_lost_;
    UpdatesFilter updates_;
    guint32 parts_given_ = 0; /* with tracking: part ids given in this stream */
    /* With tracking, the parts found in each track on its last detection
     * frame, placed relative to the track's box then (x and y from its
     * corner, all four in units of its width and height), with their ids:
     * frames without detection (interval) carry them along with the track
     * instead of searching again. */
    struct FollowedPart {
        size_t part;
        waldboost::Detection detection;
        double x, y, width, height;
        gint id;
    };
    std::map<gint, std::vector<FollowedPart>> followed_parts_;
    TrackSnapshots snapshots_;          /* snapshot-folder, snapshot-message */
    int64_t next_track_id_ = 1;         /* a new tracker's first id: ids never come back in a stream */
    bool max_windows_warned_ = false;   /* the max-windows warning was posted */
    bool events_warned_ = false;        /* the updates=events-without-tracking warning was posted */
    bool snapshots_warned_ = false;     /* the snapshots-without-tracking warning was posted */
    bool privacy_warned_ = false;       /* the privacy-between-searches warning was posted */
    std::string privacy_labels_warned_; /* the unknown privacy-labels last warned of ("": none) */
    std::string label_colors_warned_;   /* the same for label-colors */
    bool tracks_warned_ = false;        /* the bounds of frame_bounds.h: their warnings were posted */
    bool parts_warned_ = false;
    bool tags_warned_ = false;
    bool analytics_warned_ = false;
    bool regions_warned_ = false; /* more upstream regions than kMaxRegionSearches */
};

}  // namespace waldboost_element
