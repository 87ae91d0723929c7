/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What a frame's report becomes: its region-of-interest metas (with their
 * "detection" parameter structures), the overlay composition drawing.h
 * makes, and its bus messages. Every metadata and message format of the
 * element is written here, from the report alone: attach_roi_metas and,
 * where GStreamer has it (1.24 on), attach_analytics_metas.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include "config.h" /* HAVE_GST_ANALYTICS */
#include "drawing.h"
#include "frame_report.h"
#include "settings.h"

namespace waldboost_element {

/* Attaches the frame's metas to `buffer` (writable): attach_roi_metas',
 * attach_analytics_metas' or both as the metadata setting says, the track
 * events (track_events_meta.h) when tracks appeared or left, and with
 * DrawMode::Meta the drawing's GstVideoOverlayCompositionMeta. */
void attach_report_metas(GstBuffer* buffer, const FrameReport& report, const OutputSettings& s, DrawMode draw,
                         const GstVideoInfo& info);

/* One GstVideoRegionOfInterestMeta per object (type: the label, id: the
 * object's, parent_id -1, or with inference-region=roi-list the upstream
 * region's id) and then per part (type: the part's name, id:
 * the part's (FoundPart::id), parent_id: its object's id), each with a
 * "detection" parameter: confidence, neighbors, score, id, label,
 * label_id (the class id, label_ids.h), detector (the element's name)
 * and, for a track, age, hits and detected. */
void attach_roi_metas(GstBuffer* buffer, const FrameReport& report);

#if HAVE_GST_ANALYTICS
/* The report as GstAnalytics metadata, in the buffer's
 * GstAnalyticsRelationMeta (added, or the one an element upstream added):
 * per object and per part an ODMtd (type: the label's quark, the ROI
 * meta's box, the confidence) that RELATE_TOs its ClsMtd, one class at
 * index 0 (the label's quark, the confidence: objectdetectionoverlay
 * labels a box with index 0 of its ClsMtd); per
 * tracked object a TrackingMtd (the track id, first and last seen as
 * running times) that its ODMtd RELATE_TOs; a part's object CONTAINs it
 * and it IS_PART_OF the object, as an object found with
 * inference-region=roi-list inside an upstream ODMtd is part of that
 * ODMtd; and per track that left on this frame a
 * TrackingMtd marked lost, with the times it was last seen. Only the
 * first kMaxAnalyticsObjects objects (frame_bounds.h) and their parts. */
void attach_analytics_metas(GstBuffer* buffer, const FrameReport& report);
#endif

/* Which frames get a "waldboostdetect" message (updates, facedetect's
 * rules); follows the frames in order, messages posted or not. */
class UpdatesFilter {
public:
    void reset() { last_had_objects_ = false; }
    bool due(GstWaldboostUpdates updates, bool has_objects);

private:
    bool last_had_objects_ = false;
};

/* The timestamps of the messages: the buffer's PTS and its stream and
 * running times (GST_CLOCK_TIME_NONE outside a time segment). */
struct MessageTimes {
    GstClockTime timestamp = GST_CLOCK_TIME_NONE;
    GstClockTime stream_time = GST_CLOCK_TIME_NONE;
    GstClockTime running_time = GST_CLOCK_TIME_NONE;
};
MessageTimes message_times(GstBaseTransform* element, GstBuffer* buffer);

/* Posts the frame's messages as post-messages and updates ask: the
 * "waldboostdetect" message when `due` (timestamps, frame, windows-cut and
 * a "detection" structure per object with its parts' lists), and with
 * updates=events a "waldboostdetect-events" message when tracks appeared
 * or left. */
void post_report_messages(GstBaseTransform* element, GstBuffer* buffer, const FrameReport& report,
                          const OutputSettings& s, bool due);

/* The "waldboostdetect-events" message of the report's events alone (with
 * post-messages and updates=events; none when there are no events): the
 * tracks that left at the end of a stream, a seek or a change of the
 * tracker, at the times of the last frame they were seen on. */
void post_events_message(GstBaseTransform* element, const FrameReport& report, const OutputSettings& s,
                         const MessageTimes& times);

}  // namespace waldboost_element
