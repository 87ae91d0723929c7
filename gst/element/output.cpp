/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "output.h"

#include <gst/video/gstvideometa.h>
#if HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include "label_ids.h"
#include "search_meta.h"
#include "track_events_meta.h"

#include <algorithm>
#include <unordered_set>

#include "debug.h"
#include "frame_bounds.h"

namespace waldboost_element {

namespace wt = waldboost::tracking;

namespace {

/* The "detection" structures of objects and parts alike: the ROI meta's
 * parameter and the message's item. */
GstStructure* detection_meta_param(const waldboost::Detection& d)
{
    return gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence), "neighbors",
                             G_TYPE_INT, d.neighbors, "score", G_TYPE_DOUBLE, static_cast<double>(d.score), nullptr);
}

GstStructure* detection_message_item(const waldboost::Detection& d, const char* label)
{
    return gst_structure_new("detection", "x", G_TYPE_INT, d.rect.x, "y", G_TYPE_INT, d.rect.y, "width", G_TYPE_INT,
                             d.rect.width, "height", G_TYPE_INT, d.rect.height, "label", G_TYPE_STRING, label,
                             "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence), "neighbors", G_TYPE_INT,
                             d.neighbors, nullptr);
}

/* The object's id and, for a track, its age, hits and whether a detection
 * placed it on this frame. */
void add_track_fields(GstStructure* detection, const ReportedObject& object)
{
    gst_structure_set(detection, "id", G_TYPE_INT, object.id, nullptr);
    if (object.tracked)
        gst_structure_set(detection, "age", G_TYPE_INT, object.age, "hits", G_TYPE_INT, object.hits, "detected",
                          G_TYPE_BOOLEAN, object.detected, nullptr);
}

/* One list per part searched (empty when none was found): "eyes", "nose",
 * "mouth", of the parts found in object `parent`, in the detector's order,
 * OpenCV's on one thread (facedetect reports the first). */
void add_part_lists(GstStructure* detection, size_t parent, const NestedCascades& cascades,
                    const std::vector<FoundPart>& parts)
{
    for (size_t part = 0; part < kNestedParts.size(); ++part) {
        if (!cascades.classifiers[part])
            continue;
        GValue list = G_VALUE_INIT;
        g_value_init(&list, GST_TYPE_LIST);
        for (const FoundPart& f : parts) {
            if (f.parent != parent || f.part != part)
                continue;
            GValue item = G_VALUE_INIT;
            g_value_init(&item, GST_TYPE_STRUCTURE);
            GstStructure* s = detection_message_item(f.detection, part_label(cascades, part).c_str());
            gst_structure_set(s, "id", G_TYPE_INT, f.id, nullptr);
            g_value_take_boxed(&item, s);
            gst_value_list_append_and_take_value(&list, &item);
        }
        gst_structure_take_value(detection, kNestedParts[part].name, &list);
    }
}

}  // namespace

MessageTimes message_times(GstBaseTransform* element, GstBuffer* buffer)
{
    MessageTimes t{GST_BUFFER_PTS(buffer)};
    const GstSegment* segment = &element->segment;
    if (GST_CLOCK_TIME_IS_VALID(t.timestamp) && segment->format == GST_FORMAT_TIME) {
        t.stream_time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, t.timestamp);
        t.running_time = gst_segment_to_running_time(segment, GST_FORMAT_TIME, t.timestamp);
    }
    return t;
}

namespace {

/* "waldboostdetect": the frame's objects, each with its track fields and
 * its parts. */
GstStructure* detections_structure(const FrameReport& report, const MessageTimes& t, GstClockTime duration)
{
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (size_t i = 0; i < report.objects.size(); ++i) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, GST_TYPE_STRUCTURE);
        GstStructure* s = detection_message_item(report.objects[i].detection, report.label.c_str());
        add_track_fields(s, report.objects[i]);
        if (report.nested)
            add_part_lists(s, i, *report.nested, report.parts);
        g_value_take_boxed(&item, s);
        gst_value_list_append_and_take_value(&list, &item);
    }
    GstStructure* s =
        gst_structure_new("waldboostdetect", "timestamp", G_TYPE_UINT64, t.timestamp, "stream-time", G_TYPE_UINT64,
                          t.stream_time, "running-time", G_TYPE_UINT64, t.running_time, "duration", G_TYPE_UINT64,
                          duration, "frame", G_TYPE_UINT64, report.frame, "windows-cut", G_TYPE_UINT64,
                          report.windows_cut, "detection-skipped", G_TYPE_BOOLEAN, report.detection_skipped, nullptr);
    gst_structure_take_value(s, "detections", &list);
    return s;
}

/* The "event" structures (kind "appeared" or "left", id, x, y, width,
 * height, label) of the message and of the buffer's meta: `report.events`,
 * after `report.closed` (with their own label) with `with_closed`. */
void take_events_list(GstStructure* s, const FrameReport& report, bool with_closed)
{
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    const auto append_as = [&](const wt::TrackEvent& e, const std::string& label) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, GST_TYPE_STRUCTURE);
        g_value_take_boxed(&item, gst_structure_new("event", "kind", G_TYPE_STRING,
                                                    e.kind == wt::TrackEvent::Kind::Appeared ? "appeared" : "left",
                                                    "id", G_TYPE_INT, static_cast<gint>(e.id & (kFirstPartId - 1)), "x",
                                                    G_TYPE_INT, e.box.x, "y", G_TYPE_INT, e.box.y, "width", G_TYPE_INT,
                                                    e.box.width, "height", G_TYPE_INT, e.box.height, "label",
                                                    G_TYPE_STRING, label.c_str(), nullptr));
        gst_value_list_append_and_take_value(&list, &item);
    };
    if (with_closed)
        for (const wt::TrackEvent& e : report.closed)
            append_as(e, report.closed_label.empty() ? report.label : report.closed_label);
    for (const wt::TrackEvent& e : report.events)
        append_as(e, report.label);
    gst_structure_take_value(s, "events", &list);
}

/* "waldboostdetect-events": "frame", the timestamps and "events". */
GstStructure* events_structure(const FrameReport& report, const MessageTimes& t)
{
    GstStructure* s = gst_structure_new("waldboostdetect-events", "timestamp", G_TYPE_UINT64, t.timestamp,
                                        "stream-time", G_TYPE_UINT64, t.stream_time, "running-time", G_TYPE_UINT64,
                                        t.running_time, "frame", G_TYPE_UINT64, report.frame, nullptr);
    take_events_list(s, report, false);
    return s;
}

/* The "track" structures (id, x, y, width, height) of the open tracks. */
void take_open_list(GstStructure* s, const FrameReport& report)
{
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (const OpenTrack& t : report.open) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, GST_TYPE_STRUCTURE);
        g_value_take_boxed(&item, gst_structure_new("track", "id", G_TYPE_INT, t.id, "x", G_TYPE_INT, t.box.x, "y",
                                                    G_TYPE_INT, t.box.y, "width", G_TYPE_INT, t.box.width, "height",
                                                    G_TYPE_INT, t.box.height, nullptr));
        gst_value_list_append_and_take_value(&list, &item);
    }
    gst_structure_take_value(s, "open", &list);
}

/* The frame's track events on the buffer too (track_events_meta.h), so
 * that elements downstream (waldboostmetaconvert) see them with the frame,
 * whatever `updates` says about messages; with tracking on every frame,
 * with the tracks open after it. */
void attach_track_events_meta(GstBuffer* buffer, const FrameReport& report)
{
    if (!report.tracking && report.events.empty() && report.closed.empty())
        return;
    GstCustomMeta* meta = gst_buffer_add_custom_meta(buffer, WALDBOOST_TRACK_EVENTS_META_NAME);
    if (!meta)
        return;
    GstStructure* s = gst_custom_meta_get_structure(meta);
    gst_structure_set_name(s, WALDBOOST_TRACK_EVENTS_STRUCTURE);
    gst_structure_set(s, "frame", G_TYPE_UINT64, report.frame, "label", G_TYPE_STRING, report.label.c_str(), "detector",
                      G_TYPE_UINT, report.detector, "detector-name", G_TYPE_STRING, report.detector_name.c_str(),
                      nullptr);
    take_events_list(s, report, true);
    take_open_list(s, report); /* empty after tracking=false */
}

/* Whether the detector looked at the frame (search_meta.h), on every
 * frame, so that what reads the buffers can tell a frame without objects
 * from one that was not searched. */
void attach_search_meta(GstBuffer* buffer, const FrameReport& report)
{
    GstCustomMeta* meta = gst_buffer_add_custom_meta(buffer, WALDBOOST_SEARCH_META_NAME);
    if (!meta)
        return;
    GstStructure* s = gst_custom_meta_get_structure(meta);
    gst_structure_set_name(s, WALDBOOST_SEARCH_STRUCTURE);
    gst_structure_set(s, "detector-name", G_TYPE_STRING, report.detector_name.c_str(), "skipped", G_TYPE_BOOLEAN,
                      report.detection_skipped, nullptr);
}

}  // namespace

/* The ids of the region-of-interest metas already on a buffer: an element
 * upstream (another detector of a chain) put them there. */
static std::unordered_set<gint> ids_on(GstBuffer* buffer)
{
    std::unordered_set<gint> taken;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
        taken.insert(reinterpret_cast<GstVideoRegionOfInterestMeta*>(m)->id);
    return taken;
}

/* A meta id for `wanted` that no meta of the buffer has: `wanted` itself,
 * unless an element upstream took it; then the next free one above every
 * id taken (the detection's parameters keep `wanted` as its `id`). */
static gint unique_id(std::unordered_set<gint>& taken, gint* next_free, gint wanted)
{
    gint id = wanted;
    if (taken.count(id)) {
        if (*next_free < 0) {
            gint64 above = 0;
            for (gint t : taken)
                above = std::max<gint64>(above, static_cast<gint64>(t) + 1);
            *next_free = static_cast<gint>(std::min<gint64>(above, G_MAXINT));
        }
        while (taken.count(*next_free) && *next_free < G_MAXINT)
            ++*next_free;
        id = (*next_free)++;
    }
    taken.insert(id);
    return id;
}

void attach_roi_metas(GstBuffer* buffer, const FrameReport& report)
{
    /* Ids are unique on a buffer even after another detector of a chain
     * (the way to find two classes): one with the same id (0 to n-1
     * without tracking, track ids from 1 with) gets another. */
    std::unordered_set<gint> taken = ids_on(buffer);
    gint next_free = -1;
    std::vector<gint> ids;
    for (const ReportedObject& o : report.objects) {
        const waldboost::Rect& r = o.detection.rect;
        GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
            buffer, report.label.c_str(), static_cast<guint>(r.x), static_cast<guint>(r.y), static_cast<guint>(r.width),
            static_cast<guint>(r.height));
        /* Distinct ids let applications (and PyGObject, which can only look
         * metas up by id) address each detection; with tracking an object
         * keeps its id from frame to frame. */
        meta->id = unique_id(taken, &next_free, o.id);
        /* -1 but for inference-region=roi-list: the upstream region's id. */
        meta->parent_id = o.parent_id;
        GstStructure* param = detection_meta_param(o.detection);
        gst_structure_set(param, "label", G_TYPE_STRING, report.label.c_str(), "label_id", G_TYPE_INT, report.label_id,
                          "detector", G_TYPE_STRING, report.detector_name.c_str(), nullptr);
        add_track_fields(param, o);
        gst_video_region_of_interest_meta_add_param(meta, param);
        ids.push_back(meta->id);
    }
    /* The parts, with the ids the finisher gave them. */
    for (const FoundPart& f : report.parts) {
        const waldboost::Rect& r = f.detection.rect;
        GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
            buffer, part_label(*report.nested, f.part).c_str(), static_cast<guint>(r.x), static_cast<guint>(r.y),
            static_cast<guint>(r.width), static_cast<guint>(r.height));
        meta->id = unique_id(taken, &next_free, f.id);
        meta->parent_id = ids.at(f.parent);
        GstStructure* param = detection_meta_param(f.detection);
        const std::string& label = part_label(*report.nested, f.part);
        gst_structure_set(param, "id", G_TYPE_INT, f.id, "label", G_TYPE_STRING, label.c_str(), "label_id", G_TYPE_INT,
                          label_id_for(label), "detector", G_TYPE_STRING, report.detector_name.c_str(), nullptr);
        gst_video_region_of_interest_meta_add_param(meta, param);
    }
}

#if HAVE_GST_ANALYTICS
namespace {

/* Room for one Mtd in a relation meta: the largest of ours (a TrackingMtd)
 * with the meta's own header per Mtd, rounded up. */
constexpr size_t kMtdBytes = 64;

/* An ODMtd with its ClsMtd, related; false when the meta refused one. */
bool add_labelled_box(GstAnalyticsRelationMeta* relations, const std::string& label, const waldboost::Detection& d,
                      GstAnalyticsODMtd* od)
{
    const waldboost::Rect& r = d.rect;
    const GQuark type = g_quark_from_string(label.c_str());
    GstAnalyticsClsMtd cls;
    return gst_analytics_relation_meta_add_od_mtd(relations, type, r.x, r.y, r.width, r.height, d.confidence, od) &&
           gst_analytics_relation_meta_add_one_cls_mtd(relations, d.confidence, type, &cls) &&
           gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_RELATE_TO, od->id, cls.id);
}

/* An object's ODMtd and ClsMtd and, for a track, its TrackingMtd, seen from
 * its first frame to this one. */
bool add_object(GstAnalyticsRelationMeta* relations, const FrameReport& report, const ReportedObject& o,
                GstAnalyticsODMtd* od)
{
    if (!add_labelled_box(relations, report.label, o.detection, od))
        return false;
    if (!o.tracked)
        return true;
    GstAnalyticsTrackingMtd track;
    return gst_analytics_relation_meta_add_tracking_mtd(relations, static_cast<guint64>(o.id), o.first_seen, &track) &&
           gst_analytics_tracking_mtd_update_last_seen(&track, report.running_time) &&
           gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_RELATE_TO, od->id, track.id);
}

/* `parent` CONTAINs `child`, which IS_PART_OF it. */
bool relate_part(GstAnalyticsRelationMeta* relations, guint parent, guint child)
{
    return gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_CONTAIN, parent, child) &&
           gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_IS_PART_OF, child, parent);
}

/* A part's ODMtd and ClsMtd, which the object's ODMtd `parent` CONTAINs. */
bool add_part(GstAnalyticsRelationMeta* relations, const FrameReport& report, const FoundPart& f, guint parent)
{
    GstAnalyticsODMtd od;
    return add_labelled_box(relations, part_label(*report.nested, f.part), f.detection, &od) &&
           relate_part(relations, parent, od.id);
}

/* An object found with inference-region=roi-list inside an upstream ODMtd
 * is part of it, as a part is of its object. The ODMtd is looked up first:
 * a relation meta made here (the buffer had none) does not hold it. */
bool relate_to_region(GstAnalyticsRelationMeta* relations, const ReportedObject& o, guint od)
{
    GstAnalyticsMtd region;
    if (o.parent_od_id < 0 || !gst_analytics_relation_meta_get_mtd(relations, static_cast<guint>(o.parent_od_id),
                                                                   gst_analytics_od_mtd_get_mtd_type(), &region))
        return true;
    return relate_part(relations, region.id, od);
}

bool add_lost_track(GstAnalyticsRelationMeta* relations, const LostTrack& t)
{
    GstAnalyticsTrackingMtd track;
    return gst_analytics_relation_meta_add_tracking_mtd(relations, static_cast<guint64>(t.id), t.first_seen, &track) &&
           gst_analytics_tracking_mtd_update_last_seen(&track, t.last_seen) &&
           gst_analytics_tracking_mtd_set_lost(&track);
}

}  // namespace

void attach_analytics_metas(GstBuffer* buffer, const FrameReport& report)
{
    if (report.objects.empty() && report.lost.empty())
        return;
    const size_t objects = std::min(report.objects.size(), kMaxAnalyticsObjects);
    GstAnalyticsRelationMeta* relations = gst_buffer_get_analytics_relation_meta(buffer);
    if (!relations) {
        /* Sized for the frame: the meta grows its relation matrix by its
         * initial order, copying it each time (cubic in a crowd). */
        size_t mtds = report.lost.size();
        for (size_t i = 0; i < objects; ++i)
            mtds += report.objects[i].tracked ? 3 : 2;
        for (const FoundPart& f : report.parts)
            mtds += f.parent < objects ? 2 : 0;
        GstAnalyticsRelationMetaInitParams params = {mtds, mtds * kMtdBytes};
        relations = gst_buffer_add_analytics_relation_meta_full(buffer, &params);
    }
    bool ok = relations != nullptr;
    std::vector<guint> object_ids;
    for (size_t i = 0; ok && i < objects; ++i) {
        GstAnalyticsODMtd od{};
        ok = add_object(relations, report, report.objects[i], &od) &&
             relate_to_region(relations, report.objects[i], od.id);
        object_ids.push_back(od.id);
    }
    for (size_t i = 0; ok && i < report.parts.size(); ++i)
        if (report.parts[i].parent < objects)
            ok = add_part(relations, report, report.parts[i], object_ids.at(report.parts[i].parent));
    for (size_t i = 0; ok && i < report.lost.size(); ++i)
        ok = add_lost_track(relations, report.lost[i]);
    /* GstAnalyticsRelationMeta grows as needed: only memory runs out. */
    if (!ok)
        GST_WARNING("frame %" G_GUINT64_FORMAT ": the GstAnalyticsRelationMeta refused an Mtd; its analytics "
                    "metadata is incomplete",
                    report.frame);
}
#endif

void attach_report_metas(GstBuffer* buffer, const FrameReport& report, const OutputSettings& s, DrawMode draw,
                         const GstVideoInfo& info)
{
    if (s.metadata != GST_WALDBOOST_METADATA_ANALYTICS)
        attach_roi_metas(buffer, report);
#if HAVE_GST_ANALYTICS
    if (s.metadata != GST_WALDBOOST_METADATA_ROI)
        attach_analytics_metas(buffer, report);
#endif
    attach_track_events_meta(buffer, report);
    attach_search_meta(buffer, report);
    if (draw != DrawMode::Meta)
        return;
    if (GstVideoOverlayComposition* composition = overlay_composition(report, s, info)) {
        gst_buffer_add_video_overlay_composition_meta(buffer, composition);
        gst_video_overlay_composition_unref(composition);
    }
}

bool UpdatesFilter::due(GstWaldboostUpdates updates, bool has_objects)
{
    const bool changed = has_objects != last_had_objects_;
    last_had_objects_ = has_objects;
    switch (updates) {
    case GST_WALDBOOST_UPDATES_EVERY_FRAME: return true;
    case GST_WALDBOOST_UPDATES_ON_CHANGE: return changed;
    case GST_WALDBOOST_UPDATES_ON_OBJECT: return has_objects;
    case GST_WALDBOOST_UPDATES_NONE:
    case GST_WALDBOOST_UPDATES_EVENTS: break;
    }
    return false;
}

void post_report_messages(GstBaseTransform* element, GstBuffer* buffer, const FrameReport& report,
                          const OutputSettings& s, bool due)
{
    if (!s.post_messages)
        return;
    const bool events = s.updates == GST_WALDBOOST_UPDATES_EVENTS && !report.events.empty();
    if (!due && !events)
        return;
    const MessageTimes times = message_times(element, buffer);
    GstElement* e = GST_ELEMENT(element);
    if (due)
        gst_element_post_message(
            e,
            gst_message_new_element(GST_OBJECT(e), detections_structure(report, times, GST_BUFFER_DURATION(buffer))));
    if (events)
        post_events_message(element, report, s, times);
}

void post_events_message(GstBaseTransform* element, const FrameReport& report, const OutputSettings& s,
                         const MessageTimes& times)
{
    if (!s.post_messages || s.updates != GST_WALDBOOST_UPDATES_EVENTS || report.events.empty())
        return;
    GstElement* e = GST_ELEMENT(element);
    gst_element_post_message(e, gst_message_new_element(GST_OBJECT(e), events_structure(report, times)));
}

}  // namespace waldboost_element
