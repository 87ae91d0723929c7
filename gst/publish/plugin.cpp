/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The plugin "waldboostpublish": waldboostmetaconvert and
 * waldboostmetapublish. A plugin of its own, apart from "waldboost", so
 * that it loads without OpenCL and the detector loads without
 * libmosquitto; they share only metas registered by name.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/gst.h>

#include "element/search_meta.h"
#include "element/track_events_meta.h"
#include "gstwaldboostmetaconvert.h"
#include "gstwaldboostmetapublish.h"
#include "json_meta.h"

static gboolean plugin_init(GstPlugin* plugin)
{
    waldboost_track_events_meta_register();
    waldboost_search_meta_register();
    waldboost_publish::json_meta_register();
    gboolean ok = GST_ELEMENT_REGISTER(waldboostmetaconvert, plugin);
    ok &= GST_ELEMENT_REGISTER(waldboostmetapublish, plugin);
    return ok;
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, waldboostpublish,
                  "Detections to JSON documents, files and MQTT brokers (waldboostmetaconvert, "
                  "waldboostmetapublish)",
                  plugin_init, PACKAGE_VERSION, "LGPL", "waldboost-gst", "Unknown package origin")
