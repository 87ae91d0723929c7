/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "documents.h"

#include <gst/video/gstvideometa.h>
#include <json-glib/json-glib.h>

#include <algorithm>
#include <cmath>
#include <ctime>

namespace waldboost_publish {

namespace {

/* json-glib copies strings as they are: text from metas (labels, source
 * ids) may be any bytes, and a document must be valid UTF-8. */
void add_string_member(JsonBuilder* b, const char* name, const char* value)
{
    json_builder_set_member_name(b, name);
    value = value ? value : "";
    if (g_utf8_validate(value, -1, nullptr)) {
        json_builder_add_string_value(b, value); /* the usual case: no copy to make */
        return;
    }
    gchar* valid = g_utf8_make_valid(value, -1);
    json_builder_add_string_value(b, valid);
    g_free(valid);
}

void add_int_member(JsonBuilder* b, const char* name, gint64 value)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, value);
}

/* JSON has no NaN nor infinity (json-glib would write "nan.0", which no
 * parser takes): such a value, from another element's metas, is left out. */
void add_double_member(JsonBuilder* b, const char* name, double value)
{
    if (!std::isfinite(value))
        return;
    json_builder_set_member_name(b, name);
    json_builder_add_double_value(b, value);
}

std::string to_text(JsonBuilder* b, bool pretty)
{
    JsonNode* root = json_builder_get_root(b);
    JsonGenerator* g = json_generator_new();
    json_generator_set_root(g, root);
    json_generator_set_pretty(g, pretty);
    json_generator_set_indent(g, 2);
    gchar* text = json_generator_to_data(g, nullptr);
    /* json-glib escapes the control characters below 0x1f but writes 0x1f
     * itself raw, which JSON forbids in a string (Python's json refuses
     * it). A raw 0x1f can only be inside a string, and is never part of a
     * longer UTF-8 character. */
    std::string out(text);
    for (size_t at = out.find('\x1f'); at != std::string::npos; at = out.find('\x1f', at + 6))
        out.replace(at, 1, "\\u001f");
    g_free(text);
    g_object_unref(g);
    json_node_unref(root);
    return out;
}

/* What every document starts with: the schema, the kind, the source and
 * the frame's times and size. */
void add_header(JsonBuilder* b, const char* type, const FrameContext& c)
{
    add_string_member(b, "schema", kSchemaName);
    add_string_member(b, "type", type);
    add_string_member(b, "source", c.source.c_str());
    add_int_member(b, "frame", static_cast<gint64>(c.frame));
    if (GST_CLOCK_TIME_IS_VALID(c.stream_time))
        add_int_member(b, "timestamp", static_cast<gint64>(c.stream_time));
    if (GST_CLOCK_TIME_IS_VALID(c.pts))
        add_int_member(b, "pts", static_cast<gint64>(c.pts));
    if (c.system_time_ns >= 0)
        add_string_member(b, "system_timestamp", iso8601_utc(c.system_time_ns).c_str());
    if (c.ntp_unix_ns >= 0) {
        json_builder_set_member_name(b, "rtp");
        json_builder_begin_object(b);
        add_int_member(b, "sender_ntp_unix_timestamp_ns", c.ntp_unix_ns);
        json_builder_end_object(b);
    }
    if (c.width > 0 && c.height > 0) {
        json_builder_set_member_name(b, "resolution");
        json_builder_begin_object(b);
        add_int_member(b, "width", c.width);
        add_int_member(b, "height", c.height);
        json_builder_end_object(b);
    }
}

bool tracked(const GstStructure* param) { return param && gst_structure_has_field_typed(param, "age", G_TYPE_INT); }

/* The track id of a tracked object: its detector's own id (the meta's id
 * may differ after a chain of detectors). */
int track_id(const GstVideoRegionOfInterestMeta* roi, const GstStructure* param)
{
    int id = roi->id;
    if (param)
        gst_structure_get_int(param, "id", &id);
    return id;
}

void add_object(JsonBuilder* b, const GstVideoRegionOfInterestMeta* roi, const FrameContext& c)
{
    const GstStructure* param =
        gst_video_region_of_interest_meta_get_param(const_cast<GstVideoRegionOfInterestMeta*>(roi), "detection");
    json_builder_begin_object(b);
    add_int_member(b, "region_id", roi->id);
    if (tracked(param))
        add_int_member(b, "id", track_id(roi, param));
    if (roi->parent_id >= 0)
        add_int_member(b, "parent_id", roi->parent_id);
    add_int_member(b, "x", roi->x);
    add_int_member(b, "y", roi->y);
    add_int_member(b, "w", roi->w);
    add_int_member(b, "h", roi->h);

    json_builder_set_member_name(b, "detection");
    json_builder_begin_object(b);
    add_string_member(b, "label", g_quark_to_string(roi->roi_type));
    int label_id = 0;
    if (param && gst_structure_get_int(param, "label_id", &label_id))
        add_int_member(b, "label_id", label_id);
    double value = 0;
    if (param && gst_structure_get_double(param, "confidence", &value))
        add_double_member(b, "confidence", value);
    int neighbors = 0;
    if (param && gst_structure_get_int(param, "neighbors", &neighbors))
        add_int_member(b, "neighbors", neighbors);
    if (param && gst_structure_get_double(param, "score", &value))
        add_double_member(b, "score", value);
    if (c.width > 0 && c.height > 0) {
        /* DL Streamer's bounding_box: the box as fractions of the frame. */
        json_builder_set_member_name(b, "bounding_box");
        json_builder_begin_object(b);
        add_double_member(b, "x_min", static_cast<double>(roi->x) / c.width);
        add_double_member(b, "y_min", static_cast<double>(roi->y) / c.height);
        add_double_member(b, "x_max", static_cast<double>(roi->x + roi->w) / c.width);
        add_double_member(b, "y_max", static_cast<double>(roi->y + roi->h) / c.height);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);

    if (tracked(param)) {
        int age = 0, hits = 0;
        gboolean detected = FALSE;
        gst_structure_get_int(param, "age", &age);
        gst_structure_get_int(param, "hits", &hits);
        gst_structure_get_boolean(param, "detected", &detected);
        json_builder_set_member_name(b, "track");
        json_builder_begin_object(b);
        add_int_member(b, "age", age);
        add_int_member(b, "hits", hits);
        json_builder_set_member_name(b, "detected");
        json_builder_add_boolean_value(b, detected);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
}

std::string event_document(const char* kind, int id, const OpenTrack& t, const FrameContext& c)
{
    JsonBuilder* b = json_builder_new();
    json_builder_begin_object(b);
    add_header(b, "event", c);
    json_builder_set_member_name(b, "event");
    json_builder_begin_object(b);
    add_string_member(b, "kind", kind);
    add_int_member(b, "id", id);
    add_string_member(b, "label", t.label.c_str());
    add_int_member(b, "x", t.x);
    add_int_member(b, "y", t.y);
    add_int_member(b, "w", t.w);
    add_int_member(b, "h", t.h);
    json_builder_end_object(b);
    json_builder_end_object(b);
    std::string text = to_text(b, c.pretty);
    g_object_unref(b);
    return text;
}

}  // namespace

std::string iso8601_utc(gint64 unix_ns)
{
    const gint64 seconds = unix_ns / 1000000000;
    const int millis = static_cast<int>((unix_ns % 1000000000) / 1000000);
    const time_t t = static_cast<time_t>(seconds);
    struct tm utc;
    gmtime_r(&t, &utc);
    char text[64];
    size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &utc);
    g_snprintf(text + n, sizeof text - n, ".%03dZ", millis);
    return text;
}

std::string frame_document(GstBuffer* buffer, const FrameContext& c, size_t* objects)
{
    JsonBuilder* b = json_builder_new();
    json_builder_begin_object(b);
    add_header(b, "frame", c);
    json_builder_set_member_name(b, "objects");
    json_builder_begin_array(b);
    size_t n = 0;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        add_object(b, reinterpret_cast<GstVideoRegionOfInterestMeta*>(m), c);
        ++n;
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    std::string text = to_text(b, c.pretty);
    g_object_unref(b);
    *objects = n;
    return text;
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
