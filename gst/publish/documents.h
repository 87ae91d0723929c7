/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The JSON documents of waldboostmetaconvert (schema
 * "waldboost-metadata/1", data/waldboost-metadata.schema.json, described in
 * docs/user-guide.md): one per frame from the buffer's
 * GstVideoRegionOfInterestMetas, one per track event from the detector's
 * events meta. Field names follow DL Streamer's gvametaconvert where they
 * mean the same. Written with JsonWriter (json_writer.h), which makes
 * strings valid UTF-8 and escapes them.
 */
#pragma once

#include <gst/gst.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace waldboost_publish {

inline constexpr const char* kSchemaName = "waldboost-metadata/1";

/* What every document of a frame shares. */
struct FrameContext {
    std::string source;
    guint64 frame = 0; /* the converter's frame number, from 0 per stream */
    GstClockTime pts = GST_CLOCK_TIME_NONE;
    GstClockTime stream_time = GST_CLOCK_TIME_NONE;
    gint64 system_time_ns = -1; /* UNIX time of the frame, -1: unknown */
    gint64 ntp_unix_ns = -1;    /* the sender's NTP time as UNIX ns, -1: none */
    int width = 0, height = 0;  /* the frame size, 0: unknown */
    bool pretty = false;
};

/* A track that appeared and has not left, as last seen. */
struct OpenTrack {
    std::string label;
    int x = 0, y = 0, w = 0, h = 0;
};
/* By label and track id: two chained detectors count their ids apart. */
using OpenTracks = std::map<std::pair<std::string, int>, OpenTrack>;

/* The frame's document; `objects` gets how many objects it holds. */
std::string frame_document(GstBuffer* buffer, const FrameContext& c, size_t* objects);

/* One document per event of the events meta's structure (kind, id, box,
 * label), in order. Keeps `open` up to date: an appeared track is added,
 * a left one removed. */
std::vector<std::string> event_documents(const GstStructure* events, const FrameContext& c, OpenTracks* open);

/* The "left" documents of every open track (the end of the stream, a
 * flush), in id order; empties `open`. */
std::vector<std::string> left_documents(OpenTracks* open, const FrameContext& c);

/* Moves the open tracks' boxes to where the frame's objects are. */
void follow_open_tracks(GstBuffer* buffer, OpenTracks* open);

/* UNIX ns as ISO 8601 in UTC with milliseconds: 2026-12-02T07:20:41.123Z. */
std::string iso8601_utc(gint64 unix_ns);

}  // namespace waldboost_publish
