/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The track events of a frame on its buffer: a GstCustomMeta named
 * "WaldboostTrackEventsMeta" whose structure is "waldboostdetect-events"
 * with "frame", "label", "detector" (a number no other detector of the
 * process has), "detector-name" (the element's name, which the JSON
 * documents give), "events", a GstValueList of "event" structures as in the
 * bus message of that name (kind "appeared" or "left", id, x, y, width,
 * height, label), and "open", a GstValueList of "track" structures (id, x,
 * y, width, height): the tracks open after the frame. With tracking,
 * waldboostdetect attaches it to every frame; otherwise only to the frame
 * that carries the left events of the tracks tracking=false ended (its
 * "open" empty). waldboostmetaconvert (another plugin) reads it: "open"
 * lets it see every track appear and leave once when an element between
 * the two drops or repeats frames. Both register it by name through this
 * header alone, so neither links the other.
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/gstvideometa.h>

#include "custom_meta_copy.h"

#define WALDBOOST_TRACK_EVENTS_META_NAME "WaldboostTrackEventsMeta"
#define WALDBOOST_TRACK_EVENTS_STRUCTURE "waldboostdetect-events"

/* The list `name` of `s` with its structures' boxes scaled. */
static inline void waldboost_track_events_scale_list(GstStructure* s, const char* name, gint64 in_width,
                                                     gint64 out_width, gint64 in_height, gint64 out_height)
{
    const GValue* from = gst_structure_get_value(s, name);
    if (!from || !GST_VALUE_HOLDS_LIST(from) || in_width <= 0 || in_height <= 0)
        return;
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (guint i = 0; i < gst_value_list_get_size(from); ++i) {
        const GValue* v = gst_value_list_get_value(from, i);
        GValue item = G_VALUE_INIT;
        g_value_init(&item, G_VALUE_TYPE(v));
        g_value_copy(v, &item);
        if (GST_VALUE_HOLDS_STRUCTURE(&item)) {
            GstStructure* box = gst_structure_copy(gst_value_get_structure(&item));
            /* x and width across, y and height down. */
            const char* fields[] = {"x", "width", "y", "height"};
            for (int f = 0; f < 4; ++f) {
                gint value = 0;
                if (!gst_structure_get_int(box, fields[f], &value))
                    continue;
                const gint64 scaled = f < 2 ? value * out_width / in_width : value * out_height / in_height;
                gst_structure_set(box, fields[f], G_TYPE_INT, static_cast<gint>(CLAMP(scaled, G_MININT, G_MAXINT)),
                                  nullptr);
            }
            g_value_take_boxed(&item, box);
        }
        gst_value_list_append_and_take_value(&list, &item);
    }
    gst_structure_take_value(s, name, &list);
}

/* The boxes are in the frame's pixels, as a region-of-interest meta's: a
 * copy keeps them, a scale (videoscale) scales them as GStreamer scales
 * those metas, and any other transform drops the meta, as it drops them. */
static inline gboolean waldboost_track_events_meta_transform(GstBuffer* transbuf, GstCustomMeta* meta, GstBuffer*,
                                                             GQuark type, gpointer data, gpointer)
{
    const bool scale = GST_VIDEO_META_TRANSFORM_IS_SCALE(type);
    if (!GST_META_TRANSFORM_IS_COPY(type) && !scale)
        return FALSE;
    GstStructure* to = waldboost_custom_meta_copy(transbuf, meta, WALDBOOST_TRACK_EVENTS_META_NAME);
    if (!to)
        return FALSE;
    const auto* trans = static_cast<const GstVideoMetaTransform*>(data);
    if (scale && trans && trans->in_info && trans->out_info) {
        const gint64 in_width = GST_VIDEO_INFO_WIDTH(trans->in_info), out_width = GST_VIDEO_INFO_WIDTH(trans->out_info);
        const gint64 in_height = GST_VIDEO_INFO_HEIGHT(trans->in_info);
        const gint64 out_height = GST_VIDEO_INFO_HEIGHT(trans->out_info);
        waldboost_track_events_scale_list(to, "events", in_width, out_width, in_height, out_height);
        waldboost_track_events_scale_list(to, "open", in_width, out_width, in_height, out_height);
    }
    return TRUE;
}

/* Registers the meta unless the other plugin did: called from each
 * plugin_init, which GStreamer runs one at a time. */
static inline void waldboost_track_events_meta_register(void)
{
    if (gst_meta_get_info(WALDBOOST_TRACK_EVENTS_META_NAME))
        return;
    /* A region-of-interest meta's tags: the elements that keep, scale or
     * drop those (videoconvert, videoscale, encoders) do the same with
     * this one, so its boxes stay where the frame's objects are. */
    static const gchar* tags[] = {GST_META_TAG_VIDEO_STR, GST_META_TAG_VIDEO_ORIENTATION_STR,
                                  GST_META_TAG_VIDEO_SIZE_STR, nullptr};
    gst_meta_register_custom(WALDBOOST_TRACK_EVENTS_META_NAME, tags, waldboost_track_events_meta_transform, nullptr,
                             nullptr);
}
