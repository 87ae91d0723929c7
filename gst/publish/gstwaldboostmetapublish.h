/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_WALDBOOST_META_PUBLISH (gst_waldboost_meta_publish_get_type())
G_DECLARE_FINAL_TYPE(GstWaldboostMetaPublish, gst_waldboost_meta_publish, GST, WALDBOOST_META_PUBLISH, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE(waldboostmetapublish);

/* method */
typedef enum {
    GST_WALDBOOST_PUBLISH_FILE = 0,
    GST_WALDBOOST_PUBLISH_MQTT = 1,
} GstWaldboostPublishMethod;

G_END_DECLS
