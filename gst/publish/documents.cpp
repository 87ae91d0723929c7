/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "documents.h"

#include <gst/video/gstvideometa.h>

#include <algorithm>
#include <cmath>
#include <ctime>

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

/* The track id of a tracked object: its detector's own id (the meta's id
 * may differ after a chain of detectors). */
int track_id(const GstVideoRegionOfInterestMeta* roi, const GstStructure* param)
{
    int id = roi->id;
    get_int(param, fields().id, &id);
    return id;
}

void add_object(JsonWriter& w, const GstVideoRegionOfInterestMeta* roi, const FrameContext& c)
{
    const Fields& f = fields();
    const GstStructure* param =
        gst_video_region_of_interest_meta_get_param(const_cast<GstVideoRegionOfInterestMeta*>(roi), "detection");
    const bool is_track = tracked(param);
    w.begin_object();
    w.member("region_id", roi->id);
    if (is_track)
        w.member("id", track_id(roi, param));
    if (roi->parent_id >= 0)
        w.member("parent_id", roi->parent_id);
    w.member("x", roi->x);
    w.member("y", roi->y);
    w.member("w", roi->w);
    w.member("h", roi->h);

    w.key("detection");
    w.begin_object();
    w.member("label", g_quark_to_string(roi->roi_type));
    int label_id = 0;
    if (get_int(param, f.label_id, &label_id))
        w.member("label_id", label_id);
    double value = 0;
    if (get_double(param, f.confidence, &value))
        w.member_number("confidence", value);
    int neighbors = 0;
    if (get_int(param, f.neighbors, &neighbors))
        w.member("neighbors", neighbors);
    if (get_double(param, f.score, &value))
        w.member_number("score", value);
    if (c.width > 0 && c.height > 0) {
        /* DL Streamer's bounding_box: the box as fractions of the frame. */
        w.key("bounding_box");
        w.begin_object();
        w.member_number("x_min", static_cast<double>(roi->x) / c.width);
        w.member_number("y_min", static_cast<double>(roi->y) / c.height);
        w.member_number("x_max", static_cast<double>(roi->x + roi->w) / c.width);
        w.member_number("y_max", static_cast<double>(roi->y + roi->h) / c.height);
        w.end_object();
    }
    w.end_object();

    if (is_track) {
        int age = 0, hits = 0;
        get_int(param, f.age, &age);
        get_int(param, f.hits, &hits);
        const GValue* detected = gst_structure_id_get_value(param, f.detected);
        w.key("track");
        w.begin_object();
        w.member("age", age);
        w.member("hits", hits);
        w.member_boolean("detected", detected && G_VALUE_HOLDS_BOOLEAN(detected) && g_value_get_boolean(detected));
        w.end_object();
    }
    w.end_object();
}

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

std::string frame_document(GstBuffer* buffer, const FrameContext& c, size_t* objects)
{
    JsonWriter w(c.pretty);
    w.begin_object();
    add_header(w, "frame", c);
    w.key("objects");
    w.begin_array();
    size_t n = 0;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        add_object(w, reinterpret_cast<GstVideoRegionOfInterestMeta*>(m), c);
        ++n;
    }
    w.end_array();
    w.end_object();
    *objects = n;
    return w.take();
}

std::vector<std::string> event_documents(const GstStructure* events, const FrameContext& c, OpenTracks* open)
{
    std::vector<std::string> docs;
    const GValue* list = events ? gst_structure_get_value(events, "events") : nullptr;
    if (!list || !GST_VALUE_HOLDS_LIST(list))
        return docs;
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
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
        gst_structure_get_int(e, "x", &t.x);
        gst_structure_get_int(e, "y", &t.y);
        gst_structure_get_int(e, "width", &t.w);
        gst_structure_get_int(e, "height", &t.h);
        docs.push_back(event_document(kind, id, t, c));
        if (g_str_equal(kind, "appeared"))
            (*open)[{t.label, id}] = t;
        else if (g_str_equal(kind, "left"))
            open->erase({t.label, id});
    }
    return docs;
}

std::vector<std::string> left_documents(OpenTracks* open, const FrameContext& c)
{
    std::vector<std::string> docs;
    for (const auto& [key, t] : *open)
        docs.push_back(event_document("left", key.second, t, c));
    open->clear();
    return docs;
}

void follow_open_tracks(GstBuffer* buffer, OpenTracks* open)
{
    if (open->empty())
        return;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        const GstStructure* param = gst_video_region_of_interest_meta_get_param(roi, "detection");
        if (!tracked(param))
            continue;
        auto it = open->find({g_quark_to_string(roi->roi_type), track_id(roi, param)});
        if (it == open->end())
            continue;
        it->second.x = static_cast<int>(roi->x);
        it->second.y = static_cast<int>(roi->y);
        it->second.w = static_cast<int>(roi->w);
        it->second.h = static_cast<int>(roi->h);
    }
}

}  // namespace waldboost_publish
