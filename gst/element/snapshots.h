/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One snapshot per track (snapshot-folder, snapshot-message): with
 * tracking, the best view of each track, kept as a colour crop while the
 * track lasts and delivered as a PNG when it leaves.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/tracking/tracker.h"
#include "frame_access.h"
#include "frame_report.h"
#include "settings.h"

namespace waldboost_element {

/* A snapshot's longer side at most: larger boxes are scaled down, so that
 * a track costs at most 256 KiB while it lasts. */
inline constexpr int kSnapshotMaxSide = 256;
/* What the kept views of one stream may hold in all; past it, tracks that
 * have no view yet get none (a warning says so). */
inline constexpr size_t kSnapshotBudgetBytes = size_t{64} << 20;

inline bool takes_snapshots(const OutputSettings& s) { return s.snapshot_message || !s.snapshot_folder.empty(); }

class TrackSnapshots {
public:
    /* Keeps a view of each object of `report` that a detection placed on
     * this frame (not the template search), when its box is larger than
     * the track's best so far, or as large and more confident. Reads the
     * frame as it arrived: call it before privacy and drawing change it. */
    void offer(GstElement* element, FrameAccess& frame, const FrameReport& report, const GstVideoInfo& info,
               GstClockTime pts);
    /* Delivers the views of the tracks that `events` ended, as s asks (a
     * PNG in the folder, an element message), and forgets them. */
    void deliver(GstElement* element, const std::vector<waldboost::tracking::TrackEvent>& events,
                 const FrameReport& report, const OutputSettings& s);
    /* A new stream: nothing kept, warnings may come again. */
    void clear();

private:
    struct View {
        waldboost::Rect box; /* in the buffer's pixels */
        double confidence = 0;
        GstClockTime pts = GST_CLOCK_TIME_NONE;
        guint64 frame = 0;
        int width = 0, height = 0;   /* the crop, scaled to kSnapshotMaxSide */
        std::vector<uint8_t> pixels; /* cairo's RGB24: 4 bytes a pixel, rows of width * 4 */
    };

    bool copy_view(GstElement* element, const GstVideoFrame* frame, const waldboost::Rect& box, View* view);

    std::unordered_map<gint, View> views_; /* by track id */
    size_t bytes_ = 0;
    bool budget_warned_ = false;
    bool write_warned_ = false;
    bool convert_warned_ = false;
};

}  // namespace waldboost_element
