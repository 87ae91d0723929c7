/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Whether a detector looked at a frame: a GstCustomMeta named
 * "WaldboostSearchMeta" whose structure is "waldboostdetect-search" with
 * "detector-name" (the element's name, as the JSON documents give it) and
 * "skipped" (boolean: TRUE where interval or QoS passed the frame without
 * detection, or its buffer could not be read, so that its objects, if any,
 * are tracks followed from earlier detections, and an object without a
 * track is not known to be absent).
 * waldboostdetect attaches one to every frame it outputs; a chain of
 * detectors leaves one each. waldboostmetaconvert (another plugin) reads
 * them for the documents' "detection_skipped". Both register it by name
 * through this header alone, so neither links the other.
 */
#pragma once

#include <gst/gst.h>

#include "custom_meta_copy.h"

#define WALDBOOST_SEARCH_META_NAME "WaldboostSearchMeta"
#define WALDBOOST_SEARCH_STRUCTURE "waldboostdetect-search"

/* Nothing in it depends on the frame's pixels or size: every transform
 * (a copy, a scale, a conversion) keeps it as it is. */
static inline gboolean waldboost_search_meta_transform(GstBuffer* transbuf, GstCustomMeta* meta, GstBuffer*, GQuark,
                                                       gpointer, gpointer)
{
    return waldboost_custom_meta_copy(transbuf, meta, WALDBOOST_SEARCH_META_NAME) != nullptr;
}

/* Registers the meta unless the other plugin did: called from each
 * plugin_init, which GStreamer runs one at a time. No tags: elements that
 * change the pixels or the size keep it. */
static inline void waldboost_search_meta_register(void)
{
    if (gst_meta_get_info(WALDBOOST_SEARCH_META_NAME))
        return;
    static const gchar* tags[] = {nullptr};
    gst_meta_register_custom(WALDBOOST_SEARCH_META_NAME, tags, waldboost_search_meta_transform, nullptr, nullptr);
}
