/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One frame's results, built on the worker: what output.h attaches and
 * posts and drawing.h draws, and nothing else does.
 */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "core/tracking/tracker.h"
#include "nested_cascades.h"
#include "tracking.h"

namespace waldboost_element {

struct FrameReport {
    guint64 frame = 0; /* the element's frame number, from 0 each start */
    /* interval or QoS passed the frame without detection, or it could not
     * be read (search_meta.h). */
    bool detection_skipped = false;
    std::string label;  /* the detections' (the property or the classifier's) */
    gint label_id = 0;  /* its class id (label-id, or label_ids.h's) */
    guint detector = 0; /* the element's number in the process (FrameFinisher) */
    /* The element's name: in each object's and the events meta's
     * "detector", so that what reads them downstream tells apart the
     * tracks of chained detectors of one label (their ids are the same
     * numbers). */
    std::string detector_name;
    /* The objects (detections, or tracks with their fields), their meta
     * ids in ReportedObject::id. */
    std::vector<ReportedObject> objects;
    /* The parts the nested cascades found inside the objects, and which
     * cascades were searched (null: none). */
    std::vector<FoundPart> parts;
    const NestedCascades* nested = nullptr;
    /* Tracks that appeared or left on this frame (tracking=true). */
    std::vector<waldboost::tracking::TrackEvent> events;
    /* Tracks the tracker's restart ended before this frame (a seek, a
     * tracker setting changed, tracking=false): their left events, posted
     * on the bus at the last frame's times, and in this frame's events
     * meta ahead of `events` (and their TrackingMtds in `lost`), so that
     * what reads the buffers sees every track that appeared leave. */
    std::vector<waldboost::tracking::TrackEvent> closed;
    /* Their label: the frame's before a new label ended them. */
    std::string closed_label;
    /* With tracking, the tracks open after this frame's events: in the
     * events meta of every frame, so that what reads the buffers through
     * an element that drops or repeats frames (videorate) still sees
     * each track appear and leave once. */
    bool tracking = false;
    std::vector<OpenTrack> open;
    /* With tracking and privacy: the boxes of the open tracks not reported
     * (StreamTracker::unreported_boxes) and of the detections the tracker
     * did not take (kMaxTracks), hidden and not otherwise shown. */
    std::vector<waldboost::Rect> unreported;
    /* The tracks those events and `closed` ended, with when they were
     * seen, and this frame's running time (the reported tracks' last
     * seen): the analytics metadata's TrackingMtds. */
    std::vector<LostTrack> lost;
    GstClockTime running_time = GST_CLOCK_TIME_NONE;
    guint64 windows_cut = 0; /* accepted windows past max-windows */
    /* Where the visible (cropped) frame lies in the buffer: the boxes above
     * are in its coordinates, drawing moves them by its offset. */
    waldboost::Rect visible;
};

}  // namespace waldboost_element
