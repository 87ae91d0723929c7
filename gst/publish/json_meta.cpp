/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "json_meta.h"

namespace waldboost_publish {

void json_meta_register()
{
    if (gst_meta_get_info(WALDBOOST_JSON_META_NAME))
        return;
    /* No tags: converters and scalers keep it. */
    static const gchar* tags[] = {nullptr};
    gst_meta_register_custom(WALDBOOST_JSON_META_NAME, tags, nullptr, nullptr, nullptr);
}

namespace {

/* Looked up once: a lookup by name takes GLib's global quark lock, or
 * GStreamer's meta registry lock, which every stream's converter and
 * publisher would take on every frame. */
struct Names {
    GQuark structure = g_quark_from_static_string(WALDBOOST_JSON_STRUCTURE);
    GQuark source = g_quark_from_static_string("source");
    GQuark documents = g_quark_from_static_string("documents");
    GQuark meta = g_quark_from_static_string(WALDBOOST_JSON_META_NAME);
};

const Names& names()
{
    static const Names n;
    return n;
}

/* Registered by the plugin before any element exists. */
const GstMetaInfo* meta_info()
{
    static const GstMetaInfo* info = gst_meta_get_info(WALDBOOST_JSON_META_NAME);
    return info;
}

}  // namespace

void set_json_fields(GstStructure* s, const std::string& source, const std::vector<std::string>& documents)
{
    GValue array = G_VALUE_INIT;
    g_value_init(&array, GST_TYPE_ARRAY);
    for (const std::string& d : documents) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, G_TYPE_STRING);
        g_value_set_string(&item, d.c_str());
        gst_value_array_append_and_take_value(&array, &item);
    }
    GValue text = G_VALUE_INIT;
    g_value_init(&text, G_TYPE_STRING);
    g_value_set_string(&text, source.c_str());
    gst_structure_id_take_value(s, names().source, &text);
    gst_structure_id_take_value(s, names().documents, &array);
}

bool get_json_fields(const GstStructure* s, std::string* source, std::vector<std::string>* documents)
{
    if (!s || (gst_structure_get_name_id(s) != names().structure && gst_structure_get_name_id(s) != names().meta))
        return false;
    const GValue* src = gst_structure_id_get_value(s, names().source);
    *source = src && G_VALUE_HOLDS_STRING(src) && g_value_get_string(src) ? g_value_get_string(src) : "";
    const GValue* array = gst_structure_id_get_value(s, names().documents);
    if (!array || !GST_VALUE_HOLDS_ARRAY(array))
        return false;
    for (guint i = 0; i < gst_value_array_get_size(array); ++i) {
        const GValue* v = gst_value_array_get_value(array, i);
        if (G_VALUE_HOLDS_STRING(v) && g_value_get_string(v))
            documents->emplace_back(g_value_get_string(v));
    }
    return true;
}

void add_json_meta(GstBuffer* buffer, const std::string& source, const std::vector<std::string>& documents)
{
    const GstMetaInfo* info = meta_info();
    GstCustomMeta* meta = info ? reinterpret_cast<GstCustomMeta*>(gst_buffer_add_meta(buffer, info, nullptr)) : nullptr;
    if (!meta)
        return;
    /* The structure keeps the meta's name: renaming it would look the
     * name up again behind GLib's process-wide quark lock. */
    set_json_fields(gst_custom_meta_get_structure(meta), source, documents);
}

const GstStructure* json_meta_structure(GstBuffer* buffer)
{
    const GstMetaInfo* info = meta_info();
    GstMeta* meta = info ? gst_buffer_get_meta(buffer, info->api) : nullptr;
    return meta ? gst_custom_meta_get_structure(reinterpret_cast<GstCustomMeta*>(meta)) : nullptr;
}

}  // namespace waldboost_publish
