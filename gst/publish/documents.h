/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The JSON documents of waldboostmetaconvert (schema
 * "waldboost-metadata/1", data/waldboost-metadata.schema.json, described in
 * docs/user-guide.md): one per frame from the buffer's
 * GstVideoRegionOfInterestMetas and, with GStreamer 1.24 and later, the
 * ODMtds of its GstAnalyticsRelationMeta, one per track event from the
 * detector's events meta. Field names follow DL Streamer's gvametaconvert where they
 * mean the same. Written with JsonWriter (json_writer.h), which makes
 * strings valid UTF-8 and escapes them.
 */
#pragma once

#include <gst/gst.h>

#include <map>
#include <tuple>
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
    /* From the detectors' search metas (element/search_meta.h): 1 when one
     * passed the frame without detection, 0 when every one searched it,
     * -1 when none left a meta (frame documents only). */
    int detection_skipped = -1;
    bool pretty = false;
};

/* A track that appeared and has not left, as last seen. */
struct OpenTrack {
    std::string label;
    std::string detector; /* the detector's element name ("detector-name"), "" when unknown */
    int x = 0, y = 0, w = 0, h = 0;
};
/* By detector (the events meta's "detector", 0 where it has none), label
 * and track id: chained detectors count their ids apart, with one label
 * or two. */
using TrackKey = std::tuple<guint, std::string, int>;
using OpenTracks = std::map<TrackKey, OpenTrack>;

/* An object of a frame's document: a region-of-interest meta, an ODMtd,
 * or both for one object written twice (element/meta_objects.h). Points
 * into the buffer's metas: used while the buffer is not changed. */
struct FrameObject {
    GQuark label = 0;
    gint64 x = 0, y = 0, w = 0, h = 0;   /* an ODMtd's box clipped at 0, as the schema's */
    gint64 region_id = 0;                /* the meta's id, or one of the numbers after the largest */
    gint64 parent_id = -1;               /* the region_id of what it is part of, -1: none */
    gint64 analytics_id = -1;            /* its ODMtd's id, -1: a meta alone */
    gint64 track_id = -1;                /* for a track, its id */
    const GstStructure* param = nullptr; /* the meta's "detection" parameters */
    const char* detector = nullptr;      /* the param's "detector": the element that found it */
    bool has_track_fields = false;       /* param has the detector's age, hits, detected */
    double od_confidence = -1;           /* its ODMtd's confidence, -1: none in [0, 1] */
};

/* The frame's objects: its region-of-interest metas in order, then its
 * ODMtds that repeat none of them. An ODMtd alone gets the region_id after
 * the largest meta id of the frame (0 when it has none), in the relation
 * meta's order, so that region_id stays unique and parent_id names one. */
std::vector<FrameObject> frame_objects(GstBuffer* buffer);

/* The frame's document. */
std::string frame_document(const std::vector<FrameObject>& objects, const FrameContext& c);

/* One document per event of the events meta's structure (kind, id, box,
 * label), in order, but none for a track that appeared already or is not
 * open when it leaves (a repeated frame); then, when the structure has the
 * detector's "open" tracks, the events that make its tracks in `open`
 * agree with them (those of frames dropped on the way). Keeps `open` up to date: an
 * appeared track is added, a left one removed. */
std::vector<std::string> event_documents(const GstStructure* events, const FrameContext& c, OpenTracks* open);

/* The "left" documents of every open track (the end of the stream, a
 * flush), in id order; empties `open`. */
std::vector<std::string> left_documents(OpenTracks* open, const FrameContext& c);

/* Moves the open tracks' boxes to where the frame's objects are. */
void follow_open_tracks(const std::vector<FrameObject>& objects, OpenTracks* open);

/* UNIX ns as ISO 8601 in UTC with milliseconds: 2026-12-02T07:20:41.123Z. */
std::string iso8601_utc(gint64 unix_ns);

}  // namespace waldboost_publish
