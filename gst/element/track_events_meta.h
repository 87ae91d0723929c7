/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The track events of a frame on its buffer: a GstCustomMeta named
 * "WaldboostTrackEventsMeta" whose structure is "waldboostdetect-events"
 * with "frame", "label", "detector" (a number no other detector of the
 * process has), "events", a GstValueList of "event" structures as in the
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

#define WALDBOOST_TRACK_EVENTS_META_NAME "WaldboostTrackEventsMeta"
#define WALDBOOST_TRACK_EVENTS_STRUCTURE "waldboostdetect-events"

/* Registers the meta unless the other plugin did: called from each
 * plugin_init, which GStreamer runs one at a time. */
static inline void waldboost_track_events_meta_register(void)
{
    if (gst_meta_get_info(WALDBOOST_TRACK_EVENTS_META_NAME))
        return;
    /* No tags: the meta is about the whole frame, not its pixels, so
     * converters and scalers keep it. */
    static const gchar* tags[] = {nullptr};
    gst_meta_register_custom(WALDBOOST_TRACK_EVENTS_META_NAME, tags, nullptr, nullptr, nullptr);
}
