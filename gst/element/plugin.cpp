/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "gstwaldboostdetect.h"
#include "search_meta.h"
#include "track_events_meta.h"

static gboolean plugin_init(GstPlugin* plugin)
{
    waldboost_track_events_meta_register();
    waldboost_search_meta_register();
    return GST_ELEMENT_REGISTER(waldboostdetect, plugin);
}

GST_PLUGIN_DEFINE(
    GST_VERSION_MAJOR, GST_VERSION_MINOR, waldboost,
    "Object detection (faces by default) with WaldBoost and OpenCV LBP and Haar cascades on OpenCL devices",
    plugin_init, PACKAGE_VERSION, "LGPL", "waldboost-gst", "Unknown package origin")
