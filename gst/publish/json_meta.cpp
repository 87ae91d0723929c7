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
    gst_structure_set(s, "source", G_TYPE_STRING, source.c_str(), nullptr);
    gst_structure_take_value(s, "documents", &array);
}

bool get_json_fields(const GstStructure* s, std::string* source, std::vector<std::string>* documents)
{
    if (!s || !gst_structure_has_name(s, WALDBOOST_JSON_STRUCTURE))
        return false;
    const gchar* src = gst_structure_get_string(s, "source");
    *source = src ? src : "";
    const GValue* array = gst_structure_get_value(s, "documents");
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
    GstCustomMeta* meta = gst_buffer_add_custom_meta(buffer, WALDBOOST_JSON_META_NAME);
    if (!meta)
        return;
    GstStructure* s = gst_custom_meta_get_structure(meta);
    gst_structure_set_name(s, WALDBOOST_JSON_STRUCTURE);
    set_json_fields(s, source, documents);
}

const GstStructure* json_meta_structure(GstBuffer* buffer)
{
    GstCustomMeta* meta = gst_buffer_get_custom_meta(buffer, WALDBOOST_JSON_META_NAME);
    return meta ? gst_custom_meta_get_structure(meta) : nullptr;
}

}  // namespace waldboost_publish
