/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gst/video/gstvideofilter.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_WALDBOOST_DETECT (gst_waldboost_detect_get_type())
G_DECLARE_FINAL_TYPE(GstWaldboostDetect, gst_waldboost_detect, GST, WALDBOOST_DETECT, GstVideoFilter)

/* The types of the enum and flags properties (plugin API). */
#define GST_TYPE_WALDBOOST_DRAW (gst_waldboost_draw_get_type())
GType gst_waldboost_draw_get_type(void);
#define GST_TYPE_WALDBOOST_BOX_TEXT (gst_waldboost_box_text_get_type())
GType gst_waldboost_box_text_get_type(void);
#define GST_TYPE_WALDBOOST_GROUPING (gst_waldboost_grouping_get_type())
GType gst_waldboost_grouping_get_type(void);
#define GST_TYPE_WALDBOOST_UPDATES (gst_waldboost_updates_get_type())
GType gst_waldboost_updates_get_type(void);
#define GST_TYPE_WALDBOOST_PARTS (gst_waldboost_parts_get_type())
GType gst_waldboost_parts_get_type(void);
#define GST_TYPE_WALDBOOST_METADATA (gst_waldboost_metadata_get_type())
GType gst_waldboost_metadata_get_type(void);
#define GST_TYPE_WALDBOOST_PRIVACY (gst_waldboost_privacy_get_type())
GType gst_waldboost_privacy_get_type(void);
#define GST_TYPE_WALDBOOST_INFERENCE_REGION (gst_waldboost_inference_region_get_type())
GType gst_waldboost_inference_region_get_type(void);

typedef enum {
    GST_WALDBOOST_DRAW_AUTO,
    GST_WALDBOOST_DRAW_META,
    GST_WALDBOOST_DRAW_BURN,
    GST_WALDBOOST_DRAW_NONE,
} GstWaldboostDraw;

/* What the text on each box says (box-text; none by default). */
typedef enum {
    GST_WALDBOOST_BOX_TEXT_LABEL = 1 << 0,
    GST_WALDBOOST_BOX_TEXT_ID = 1 << 1,
    GST_WALDBOOST_BOX_TEXT_CONFIDENCE = 1 << 2,
} GstWaldboostBoxText;

typedef enum {
    GST_WALDBOOST_GROUPING_OPENCV,
    GST_WALDBOOST_GROUPING_NMS,
    GST_WALDBOOST_GROUPING_NONE,
} GstWaldboostGrouping;

/* When the element posts its "waldboostdetect" message; the values are
 * facedetect's "updates" values. */
typedef enum {
    GST_WALDBOOST_UPDATES_EVERY_FRAME,
    GST_WALDBOOST_UPDATES_ON_CHANGE,
    GST_WALDBOOST_UPDATES_ON_OBJECT,
    GST_WALDBOOST_UPDATES_NONE,
    /* Ours: "waldboostdetect-events" messages when a tracked object
     * appears or leaves (tracking=true). */
    GST_WALDBOOST_UPDATES_EVENTS,
} GstWaldboostUpdates;

/* Which parts of each object a nested cascade reports (parts). */
typedef enum {
    GST_WALDBOOST_PARTS_ALL,
    GST_WALDBOOST_PARTS_FIRST,
} GstWaldboostParts;

/* Which metadata each buffer gets (metadata). Builds without GstAnalytics
 * (GStreamer before 1.24) register roi alone: the other values are
 * refused there. */
typedef enum {
    GST_WALDBOOST_METADATA_ROI,
    GST_WALDBOOST_METADATA_ANALYTICS,
    GST_WALDBOOST_METADATA_BOTH,
} GstWaldboostMetadata;
/* How the objects of privacy-labels are hidden in the frame (privacy). */
typedef enum {
    GST_WALDBOOST_PRIVACY_NONE,
    GST_WALDBOOST_PRIVACY_BLUR,
    GST_WALDBOOST_PRIVACY_PIXELATE,
} GstWaldboostPrivacy;

/* Where the element searches (inference-region): the frame (within roi),
 * or only inside the region-of-interest metas upstream attached. */
typedef enum {
    GST_WALDBOOST_INFERENCE_REGION_FULL_FRAME,
    GST_WALDBOOST_INFERENCE_REGION_ROI_LIST,
} GstWaldboostInferenceRegion;

GST_ELEMENT_REGISTER_DECLARE(waldboostdetect);

G_END_DECLS
