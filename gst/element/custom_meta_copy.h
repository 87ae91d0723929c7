/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A copy of one of the detector's GstCustomMetas (track_events_meta.h,
 * search_meta.h) on another buffer, for their transform functions: header
 * only, as they are, so that neither plugin links the other.
 */
#pragma once

#include <gst/gst.h>

static inline gboolean waldboost_custom_meta_copy_field(GQuark field, const GValue* value, gpointer to)
{
    gst_structure_id_set_value(static_cast<GstStructure*>(to), field, value);
    return TRUE;
}

/* The structure of a new meta `name` on `transbuf` with the name and fields
 * of `meta`'s; null where it cannot be added. */
static inline GstStructure* waldboost_custom_meta_copy(GstBuffer* transbuf, GstCustomMeta* meta, const char* name)
{
    GstCustomMeta* copy = gst_buffer_add_custom_meta(transbuf, name);
    if (!copy)
        return nullptr;
    const GstStructure* from = gst_custom_meta_get_structure(meta);
    GstStructure* to = gst_custom_meta_get_structure(copy);
    gst_structure_set_name(to, gst_structure_get_name(from));
    gst_structure_foreach(from, waldboost_custom_meta_copy_field, to);
    return to;
}
