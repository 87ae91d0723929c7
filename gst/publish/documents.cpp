/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "documents.h"

#include "config.h" /* HAVE_GST_ANALYTICS, for meta_objects.h */

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <string_view>

#include "element/meta_objects.h"
#include "json_writer.h"

namespace waldboost_publish {

namespace {

/* The detection parameters' field names, looked up once: a lookup by name
 * takes GLib's global quark lock, which 64 streams' converters and
 * detectors would take for every field of every object. */
struct Fields {
    GQuark label_id = g_quark_from_static_string("label_id");
    GQuark confidence = g_quark_from_static_string("confidence");
    GQuark neighbors = g_quark_from_static_string("neighbors");
    GQuark score = g_quark_from_static_string("score");
    GQuark id = g_quark_from_static_string("id");
    GQuark age = g_quark_from_static_string("age");
    GQuark hits = g_quark_from_static_string("hits");
    GQuark detected = g_quark_from_static_string("detected");
    GQuark detector = g_quark_from_static_string("detector");
};

const Fields& fields()
{
    static const Fields f;
    return f;
}

bool get_int(const GstStructure* s, GQuark field, int* value)
{
    const GValue* v = s ? gst_structure_id_get_value(s, field) : nullptr;
    if (!v || !G_VALUE_HOLDS_INT(v))
        return false;
    *value = g_value_get_int(v);
    return true;
}

bool get_double(const GstStructure* s, GQuark field, double* value)
{
    const GValue* v = s ? gst_structure_id_get_value(s, field) : nullptr;
    if (!v || !G_VALUE_HOLDS_DOUBLE(v))
        return false;
    *value = g_value_get_double(v);
    return true;
}

/* What every document starts with: the schema, the kind, the source and
 * the frame's times and size. */
void add_header(JsonWriter& w, const char* type, const FrameContext& c)
{
    w.member("schema", kSchemaName);
    w.member("type", type);
    w.member("source", c.source.c_str());
    w.member("frame", static_cast<gint64>(c.frame));
    if (GST_CLOCK_TIME_IS_VALID(c.stream_time))
        w.member("timestamp", static_cast<gint64>(c.stream_time));
    if (GST_CLOCK_TIME_IS_VALID(c.pts))
        w.member("pts", static_cast<gint64>(c.pts));
    if (c.system_time_ns >= 0)
        w.member("system_timestamp", iso8601_utc(c.system_time_ns).c_str());
    if (c.ntp_unix_ns >= 0) {
        w.key("rtp");
        w.begin_object();
        w.member("sender_ntp_unix_timestamp_ns", c.ntp_unix_ns);
        w.end_object();
    }
    if (c.width > 0 && c.height > 0) {
        w.key("resolution");
        w.begin_object();
        w.member("width", c.width);
        w.member("height", c.height);
        w.end_object();
    }
}

bool tracked(const GstStructure* param)
{
    int age = 0;
    return get_int(param, fields().age, &age);
}

void add_object(JsonWriter& w, const FrameObject& o, const FrameContext& c)
{
    const Fields& f = fields();
    w.begin_object();
    w.member("region_id", o.region_id);
    if (o.has_track_fields || o.track_id >= 0)
        w.member("id", o.track_id);
    if (o.parent_id >= 0)
        w.member("parent_id", o.parent_id);
    if (o.analytics_id >= 0)
        w.member("analytics_id", o.analytics_id);
    w.member("x", o.x);
    w.member("y", o.y);
    w.member("w", o.w);
    w.member("h", o.h);

    w.key("detection");
    w.begin_object();
    w.member("label", g_quark_to_string(o.label));
    int label_id = 0;
    if (get_int(o.param, f.label_id, &label_id))
        w.member("label_id", label_id);
    if (o.detector)
        w.member("detector", o.detector);
    double value = 0;
    if (get_double(o.param, f.confidence, &value))
        w.member_number("confidence", value);
    else if (o.od_confidence >= 0)
        w.member_number("confidence", o.od_confidence);
    int neighbors = 0;
    if (get_int(o.param, f.neighbors, &neighbors))
        w.member("neighbors", neighbors);
    if (get_double(o.param, f.score, &value))
        w.member_number("score", value);
    if (c.width > 0 && c.height > 0) {
        /* DL Streamer's bounding_box: the box as fractions of the frame. */
        w.key("bounding_box");
        w.begin_object();
        w.member_number("x_min", static_cast<double>(o.x) / c.width);
        w.member_number("y_min", static_cast<double>(o.y) / c.height);
        w.member_number("x_max", static_cast<double>(o.x + o.w) / c.width);
        w.member_number("y_max", static_cast<double>(o.y + o.h) / c.height);
        w.end_object();
    }
    w.end_object();

    if (o.has_track_fields) {
        int age = 0, hits = 0;
        get_int(o.param, f.age, &age);
        get_int(o.param, f.hits, &hits);
        const GValue* detected = gst_structure_id_get_value(o.param, f.detected);
        w.key("track");
        w.begin_object();
        w.member("age", age);
        w.member("hits", hits);
        w.member_boolean("detected", detected && G_VALUE_HOLDS_BOOLEAN(detected) && g_value_get_boolean(detected));
        w.end_object();
    }
    w.end_object();
}

#if HAVE_GST_ANALYTICS
/* The id of the TrackingMtd an ODMtd RELATE_TOs, -1 when none does (or
 * it is lost, or its id is 0, which the schema's track ids are not). */
gint64 analytics_track_id(GstAnalyticsRelationMeta* relations, gint od)
{
    gpointer state = nullptr;
    GstAnalyticsTrackingMtd track;
    while (gst_analytics_relation_meta_get_direct_related(relations, static_cast<guint>(od),
                                                          GST_ANALYTICS_REL_TYPE_RELATE_TO,
                                                          gst_analytics_tracking_mtd_get_mtd_type(), &state, &track)) {
        guint64 id = 0;
        GstClockTime first = 0, last = 0;
        gboolean lost = FALSE;
        if (gst_analytics_tracking_mtd_get_info(&track, &id, &first, &last, &lost) && !lost && id >= 1 &&
            id <= static_cast<guint64>(G_MAXINT64))
            return static_cast<gint64>(id);
    }
    return -1;
}

/* The id of the ODMtd that `od` IS_PART_OF, or that CONTAINs it (an
 * element may set one of the two), -1 when none. */
gint64 analytics_parent(GstAnalyticsRelationMeta* relations, gint od, const std::vector<FrameObject>& objects)
{
    gpointer state = nullptr;
    GstAnalyticsODMtd parent;
    while (gst_analytics_relation_meta_get_direct_related(relations, static_cast<guint>(od),
                                                          GST_ANALYTICS_REL_TYPE_IS_PART_OF,
                                                          gst_analytics_od_mtd_get_mtd_type(), &state, &parent))
        if (static_cast<gint>(parent.id) != od)
            return parent.id;
    for (const FrameObject& o : objects)
        if (o.analytics_id >= 0 && o.analytics_id != od &&
            (gst_analytics_relation_meta_get_relation(relations, static_cast<guint>(o.analytics_id),
                                                      static_cast<guint>(od)) &
             GST_ANALYTICS_REL_TYPE_CONTAIN))
            return o.analytics_id;
    return -1;
}

/* Parents and track ids from the relations of the objects' ODMtds. */
void relate_objects(GstBuffer* buffer, std::vector<FrameObject>* objects)
{
    GstAnalyticsRelationMeta* relations = gst_buffer_get_analytics_relation_meta(buffer);
    if (!relations)
        return;
    std::vector<gint64> region_of; /* by ODMtd id */
    for (const FrameObject& o : *objects)
        if (o.analytics_id >= 0) {
            if (region_of.size() <= static_cast<size_t>(o.analytics_id))
                region_of.resize(static_cast<size_t>(o.analytics_id) + 1, -1);
            region_of[static_cast<size_t>(o.analytics_id)] = o.region_id;
        }
    for (FrameObject& o : *objects) {
        if (o.analytics_id < 0)
            continue;
        if (!o.has_track_fields)
            o.track_id = analytics_track_id(relations, static_cast<gint>(o.analytics_id));
        if (o.parent_id >= 0)
            continue;
        const gint64 parent = analytics_parent(relations, static_cast<gint>(o.analytics_id), *objects);
        if (parent >= 0 && static_cast<size_t>(parent) < region_of.size())
            o.parent_id = region_of[static_cast<size_t>(parent)];
    }
}
#endif

std::string event_document(const char* kind, int id, const OpenTrack& t, const FrameContext& c)
{
    JsonWriter w(c.pretty);
    w.begin_object();
    add_header(w, "event", c);
    w.key("event");
    w.begin_object();
    w.member("kind", kind);
    w.member("id", id);
    w.member("label", t.label.c_str());
    if (!t.detector.empty())
        w.member("detector", t.detector.c_str());
    w.member("x", t.x);
    w.member("y", t.y);
    w.member("w", t.w);
    w.member("h", t.h);
    w.end_object();
    w.end_object();
    return w.take();
}

}  // namespace

std::string iso8601_utc(gint64 unix_ns)
{
    const gint64 seconds = unix_ns / 1000000000;
    const int millis = static_cast<int>((unix_ns % 1000000000) / 1000000);
    /* The date changes once a day: gmtime_r takes glibc's time zone lock,
     * which every stream's converter would take on every frame. */
    thread_local gint64 day = G_MININT64;
    thread_local char date[16];
    const gint64 today = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
    if (today != day) {
        const time_t t = static_cast<time_t>(today * 86400);
        struct tm utc;
        gmtime_r(&t, &utc);
        g_snprintf(date, sizeof date, "%04d-%02d-%02d", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday);
        day = today;
    }
    const int in_day = static_cast<int>(seconds - today * 86400);
    if (millis < 0) { /* before 1970: rare enough for the general way */
        char text[64];
        g_snprintf(text, sizeof text, "%sT%02d:%02d:%02d.%03dZ", date, in_day / 3600, in_day / 60 % 60, in_day % 60,
                   millis);
        return text;
    }
    /* The time of day by hand: a printf per frame cost more than the rest
     * of the header. */
    std::string text(date);
    char time_of_day[] = "T00:00:00.000Z";
    auto digits = [&](int at, int value, int count) {
        for (int i = count - 1; i >= 0; --i, value /= 10)
            time_of_day[at + i] = static_cast<char>('0' + value % 10);
    };
    digits(1, in_day / 3600, 2);
    digits(4, in_day / 60 % 60, 2);
    digits(7, in_day % 60, 2);
    digits(10, millis, 3);
    text += time_of_day;
    return text;
}

std::vector<FrameObject> frame_objects(GstBuffer* buffer)
{
    const std::vector<waldboost_metas::MetaObject> metas = waldboost_metas::meta_objects(buffer);
    std::vector<FrameObject> objects;
    objects.reserve(metas.size());
    gint64 next_region = 0;
    for (const waldboost_metas::MetaObject& m : metas)
        if (m.roi)
            next_region = std::max<gint64>(next_region, gint64{m.roi->id} + 1);
    for (const waldboost_metas::MetaObject& m : metas) {
        FrameObject o;
        o.label = m.type;
        /* The schema's boxes start at 0, as a meta's (unsigned) do. */
        o.x = std::max<gint64>(m.x, 0);
        o.y = std::max<gint64>(m.y, 0);
        o.w = std::max<gint64>(m.x + m.w - o.x, 0);
        o.h = std::max<gint64>(m.y + m.h - o.y, 0);
        o.analytics_id = m.analytics_id;
        if (m.analytics_id >= 0 && std::isfinite(m.od_confidence) && m.od_confidence >= 0 && m.od_confidence <= 1)
            o.od_confidence = m.od_confidence;
        if (m.roi) {
            o.region_id = m.roi->id;
            o.parent_id = m.roi->parent_id >= 0 ? m.roi->parent_id : -1;
            o.param = gst_video_region_of_interest_meta_get_param(m.roi, "detection");
            o.has_track_fields = tracked(o.param);
            const GValue* detector = o.param ? gst_structure_id_get_value(o.param, fields().detector) : nullptr;
            if (detector && G_VALUE_HOLDS_STRING(detector) && g_value_get_string(detector) &&
                *g_value_get_string(detector))
                o.detector = g_value_get_string(detector);
            if (o.has_track_fields) {
                /* Its detector's own id: the meta's may differ after a
                 * chain of detectors. */
                int id = m.roi->id;
                get_int(o.param, fields().id, &id);
                o.track_id = id;
            }
        } else {
            o.region_id = next_region++;
        }
        objects.push_back(o);
    }
#if HAVE_GST_ANALYTICS
    relate_objects(buffer, &objects);
#endif
    return objects;
}

std::string frame_document(const std::vector<FrameObject>& objects, const FrameContext& c)
{
    JsonWriter w(c.pretty);
    w.begin_object();
    add_header(w, "frame", c);
    if (c.detection_skipped >= 0)
        w.member_boolean("detection_skipped", c.detection_skipped > 0);
    w.key("objects");
    w.begin_array();
    for (const FrameObject& o : objects)
        add_object(w, o, c);
    w.end_array();
    w.end_object();
    return w.take();
}

namespace {

/* The box fields of an "event" or "track" structure. */
void get_box(const GstStructure* s, OpenTrack* t)
{
    gst_structure_get_int(s, "x", &t->x);
    gst_structure_get_int(s, "y", &t->y);
    gst_structure_get_int(s, "width", &t->w);
    gst_structure_get_int(s, "height", &t->h);
}

/* The events that make `open` what the detector's "open" list says, for
 * its label: lefts for the tracks it no longer has (at their last box),
 * appeareds for those it has that `open` lacks (at the list's box). They
 * follow an element that dropped the frames whose events said so. */
void reconcile_open(const GValue* list, guint detector, const std::string& label, const std::string& name,
                    const FrameContext& c, OpenTracks* open, std::vector<std::string>* docs)
{
    std::map<int, OpenTrack> listed;
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        const GValue* v = gst_value_list_get_value(list, i);
        int id = 0;
        if (!GST_VALUE_HOLDS_STRUCTURE(v) || !gst_structure_get_int(gst_value_get_structure(v), "id", &id))
            continue;
        OpenTrack t;
        t.label = label;
        t.detector = name;
        get_box(gst_value_get_structure(v), &t);
        listed[id] = t;
    }
    for (auto it = open->lower_bound({detector, label, G_MININT});
         it != open->end() && std::get<0>(it->first) == detector && std::get<1>(it->first) == label;) {
        const int id = std::get<2>(it->first);
        if (listed.count(id)) {
            ++it;
            continue;
        }
        docs->push_back(event_document("left", id, it->second, c));
        it = open->erase(it);
    }
    for (const auto& [id, t] : listed) {
        auto [it, added] = open->try_emplace({detector, label, id}, t);
        if (added)
            docs->push_back(event_document("appeared", id, t, c));
        else
            it->second = t;
    }
}

}  // namespace

std::vector<std::string> event_documents(const GstStructure* events, const FrameContext& c, OpenTracks* open)
{
    std::vector<std::string> docs;
    guint detector = 0;
    const char* name = nullptr;
    if (events) {
        gst_structure_get_uint(events, "detector", &detector);
        name = gst_structure_get_string(events, "detector-name");
    }
    const GValue* list = events ? gst_structure_get_value(events, "events") : nullptr;
    for (guint i = 0; list && GST_VALUE_HOLDS_LIST(list) && i < gst_value_list_get_size(list); ++i) {
        const GValue* v = gst_value_list_get_value(list, i);
        if (!GST_VALUE_HOLDS_STRUCTURE(v))
            continue;
        const GstStructure* e = gst_value_get_structure(v);
        const char* kind = gst_structure_get_string(e, "kind");
        const char* label = gst_structure_get_string(e, "label");
        int id = 0;
        OpenTrack t;
        if (!kind || !gst_structure_get_int(e, "id", &id))
            continue;
        t.label = label ? label : "";
        t.detector = name ? name : "";
        get_box(e, &t);
        /* A frame repeated (videorate) repeats its events: each track
         * appears and leaves once. */
        const TrackKey key{detector, t.label, id};
        if (g_str_equal(kind, "appeared")) {
            if (!open->try_emplace(key, t).second)
                continue;
        } else if (g_str_equal(kind, "left")) {
            if (!open->erase(key))
                continue;
        }
        docs.push_back(event_document(kind, id, t, c));
    }
    const GValue* tracks = events ? gst_structure_get_value(events, "open") : nullptr;
    const char* label = events ? gst_structure_get_string(events, "label") : nullptr;
    if (tracks && GST_VALUE_HOLDS_LIST(tracks) && label)
        reconcile_open(tracks, detector, label, name ? name : "", c, open, &docs);
    return docs;
}

std::vector<std::string> left_documents(OpenTracks* open, const FrameContext& c)
{
    std::vector<std::string> docs;
    for (const auto& [key, t] : *open)
        docs.push_back(event_document("left", std::get<2>(key), t, c));
    open->clear();
    return docs;
}

void follow_open_tracks(const std::vector<FrameObject>& objects, OpenTracks* open)
{
    if (open->empty())
        return;
    /* A track is the object of its label, id and detector's name; an
     * object without the name (an ODMtd alone, a meta of GStreamer 1.22's
     * videoscale) by label and id, whichever detector's. */
    using ObjectKey = std::tuple<GQuark, int, std::string_view>; /* the name in the object's meta */
    std::map<ObjectKey, const FrameObject*> tracked;
    for (const FrameObject& o : objects)
        if (o.track_id >= 0 && o.track_id <= G_MAXINT)
            tracked.emplace(ObjectKey{o.label, static_cast<int>(o.track_id), o.detector ? o.detector : ""}, &o);
    if (tracked.empty())
        return;
    for (auto& [key, t] : *open) {
        const GQuark label = g_quark_try_string(std::get<1>(key).c_str());
        auto it = tracked.find({label, std::get<2>(key), std::string_view(t.detector)});
        if (it == tracked.end() && !t.detector.empty())
            it = tracked.find({label, std::get<2>(key), std::string_view()});
        if (it == tracked.end())
            continue;
        const FrameObject& o = *it->second;
        t.x = static_cast<int>(std::min<gint64>(o.x, G_MAXINT));
        t.y = static_cast<int>(std::min<gint64>(o.y, G_MAXINT));
        t.w = static_cast<int>(std::min<gint64>(o.w, G_MAXINT));
        t.h = static_cast<int>(std::min<gint64>(o.h, G_MAXINT));
    }
}

}  // namespace waldboost_publish
