/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_TYPE_WALDBOOST_META_CONVERT (gst_waldboost_meta_convert_get_type())
G_DECLARE_FINAL_TYPE(GstWaldboostMetaConvert, gst_waldboost_meta_convert, GST, WALDBOOST_META_CONVERT, GstElement)

GST_ELEMENT_REGISTER_DECLARE(waldboostmetaconvert);

/* format */
typedef enum {
    GST_WALDBOOST_JSON_COMPACT = 0,
    GST_WALDBOOST_JSON_PRETTY = 1,
} GstWaldboostJsonFormat;

G_END_DECLS
