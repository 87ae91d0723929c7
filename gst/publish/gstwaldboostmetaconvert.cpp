/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-waldboostmetaconvert
 *
 * Turns the objects of each frame (waldboostdetect's objects, parts and
 * tracks, or another element's: its region-of-interest metas and, with
 * GStreamer 1.24 and later, the ODMtds of its GstAnalyticsRelationMeta,
 * each object once) and the detector's track events into JSON documents
 * (schema "waldboost-metadata/1"): one per frame, one per event.
 * The video passes unchanged; the documents go on as a meta on the frame
 * (for waldboostmetapublish), as element messages (post-messages) and on
 * the json_src pad, one document per buffer.
 *
 * gst-launch-1.0 videotestsrc ! waldboostdetect tracking=true ! waldboostmetaconvert source-id=cam1
 *     ! waldboostmetapublish file-path=cam1.jsonl ! fakesink
 */
#include "gstwaldboostmetaconvert.h"

#include <gst/video/video.h>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "documents.h"
#include "element/search_meta.h"
#include "element/track_events_meta.h"
#include "host_cost.h"
#include "json_meta.h"
#include "pad_walk.h"

using namespace waldboost_publish;

GST_DEBUG_CATEGORY_STATIC(gst_waldboost_meta_convert_debug);
#define GST_CAT_DEFAULT gst_waldboost_meta_convert_debug

enum {
    PROP_0,
    PROP_SOURCE_ID,
    PROP_FORMAT,
    PROP_SKIP_EMPTY_FRAMES,
    PROP_POST_MESSAGES,
    PROP_STATS,
};

struct _GstWaldboostMetaConvert {
    GstElement parent;
    GstPad* sinkpad;
    GstPad* srcpad;
    GstPad* jsonpad;

    /* Properties, under the object lock. */
    std::string* source_id;
    GstWaldboostJsonFormat format;
    gboolean skip_empty;
    gboolean post_messages;

    /* Streaming state (the streaming thread's). */
    GstSegment segment;
    GstVideoInfo info;
    gboolean have_info;
    guint64 frames;
    OpenTracks* open;
    FrameContext* last_context; /* the last frame's, for the tracks left at EOS */
    gboolean json_started;
    HostCost* cost;                   /* for stats, read from any thread */
    std::atomic<guint64>* documents;  /* made, for stats */
    GstCaps* ntp_caps;                /* timestamp/x-ntp, made once */
    GstCaps* unix_caps;               /* timestamp/x-unix */
    gboolean base_time_stale;         /* a flush reset the running time: the base time in */
    GstClockTimeDiff stale_base_time; /* ... stale_base_time is the last play's (object lock) */
    const GstMetaInfo* events_info;   /* the detector's events meta, once registered */
    const GstMetaInfo* search_info;   /* the detector's search meta, once registered */
    gboolean placement_checked;       /* since the start */
};

G_DEFINE_TYPE(GstWaldboostMetaConvert, gst_waldboost_meta_convert, GST_TYPE_ELEMENT);
GST_ELEMENT_REGISTER_DEFINE(waldboostmetaconvert, "waldboostmetaconvert", GST_RANK_NONE,
                            GST_TYPE_WALDBOOST_META_CONVERT);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("video/x-raw(ANY)"));
static GstStaticPadTemplate json_template =
    GST_STATIC_PAD_TEMPLATE("json_src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS("application/x-json"));

static GType gst_waldboost_json_format_get_type()
{
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_WALDBOOST_JSON_COMPACT, "One line per document (JSON lines, MQTT)", "compact"},
        {GST_WALDBOOST_JSON_PRETTY, "Indented over several lines, for people to read", "pretty"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstWaldboostJsonFormat", values));
    return type;
}

/* The frame's UNIX time: the sender's from a reference timestamp meta
 * (timestamp/x-unix, or timestamp/x-ntp as rtspsrc adds with
 * add-reference-timestamp-meta=true), else in PLAYING the pipeline clock's time of
 * the frame moved onto the wall clock, else now. */
static constexpr gint64 kNtpToUnixNs = G_GINT64_CONSTANT(2208988800) * GST_SECOND;

static gint64 reference_time(GstBuffer* buffer, GstCaps* caps)
{
    GstReferenceTimestampMeta* meta = gst_buffer_get_reference_timestamp_meta(buffer, caps);
    if (!meta || !GST_CLOCK_TIME_IS_VALID(meta->timestamp))
        return -1;
    return static_cast<gint64>(meta->timestamp);
}

static void frame_times(GstWaldboostMetaConvert* self, GstBuffer* buffer, FrameContext* c)
{
    c->pts = GST_BUFFER_PTS(buffer);
    GstClockTime running = GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID(c->pts) && self->segment.format == GST_FORMAT_TIME) {
        c->stream_time = gst_segment_to_stream_time(&self->segment, GST_FORMAT_TIME, c->pts);
        running = gst_segment_to_running_time(&self->segment, GST_FORMAT_TIME, c->pts);
    }
    const gint64 ntp = reference_time(buffer, self->ntp_caps);
    if (ntp >= kNtpToUnixNs)
        c->ntp_unix_ns = ntp - kNtpToUnixNs;
    const gint64 unix_time = reference_time(buffer, self->unix_caps);
    if (unix_time >= 0) {
        c->system_time_ns = unix_time;
        return;
    }
    if (c->ntp_unix_ns >= 0) {
        c->system_time_ns = c->ntp_unix_ns;
        return;
    }
    const gint64 now_ns = g_get_real_time() * 1000;
    c->system_time_ns = now_ns;
    if (!GST_CLOCK_TIME_IS_VALID(running))
        return;
    /* The clock and the base time under one lock (what
     * gst_element_get_clock and gst_element_get_base_time take apiece).
     * Only once the base time is this play's:
     * - in PLAYING: a bin gives its children the clock before their base
     *   time, and frames that pass while prerolling (before an encoder or a
     *   muxer fills) would be placed at the clock's start, hours back;
     * - after a flush that reset the running time, once the pipeline has
     *   given a new base time: the frames before it (this element stays
     *   PLAYING while the sinks preroll again) would be placed at the
     *   first play's start. */
    GstElement* element = GST_ELEMENT(self);
    GST_OBJECT_LOCK(element);
    if (self->base_time_stale && element->base_time != self->stale_base_time)
        self->base_time_stale = FALSE;
    GstClock* clock = element->clock && GST_STATE(element) == GST_STATE_PLAYING && !self->base_time_stale
                          ? GST_CLOCK(gst_object_ref(element->clock))
                          : nullptr;
    const GstClockTime base_time = element->base_time;
    GST_OBJECT_UNLOCK(element);
    if (!clock)
        return;
    /* The frame's clock time against the clock's now: how long before
     * (or after) the wall clock's now it is due. */
    const GstClockTime clock_now = gst_clock_get_time(clock);
    const GstClockTime frame_clock = running + base_time;
    c->system_time_ns = now_ns + (static_cast<gint64>(frame_clock) - static_cast<gint64>(clock_now));
    gst_object_unref(clock);
}

/* The properties a frame reads, under one lock. */
struct FrameSettings {
    bool skip_empty = false;
    bool post = false;
};

/* Whether a detector upstream passed the frame without detection: 1 when
 * one of them did, 0 when each searched it, -1 when none says (no
 * waldboostdetect upstream). */
static int detection_skipped(GstWaldboostMetaConvert* self, GstBuffer* buffer)
{
    /* Looked up by name until the detector's plugin has registered it. */
    if (!self->search_info)
        self->search_info = gst_meta_get_info(WALDBOOST_SEARCH_META_NAME);
    if (!self->search_info)
        return -1;
    int skipped = -1;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta(buffer, &state)) {
        if (m->info != self->search_info)
            continue;
        gboolean one = FALSE;
        gst_structure_get_boolean(gst_custom_meta_get_structure(reinterpret_cast<GstCustomMeta*>(m)), "skipped", &one);
        skipped = std::max(skipped, one ? 1 : 0);
    }
    return skipped;
}

static FrameContext context_of(GstWaldboostMetaConvert* self, GstBuffer* buffer, FrameSettings* settings)
{
    FrameContext c;
    GST_OBJECT_LOCK(self);
    c.source = *self->source_id;
    c.pretty = self->format == GST_WALDBOOST_JSON_PRETTY;
    settings->skip_empty = self->skip_empty;
    settings->post = self->post_messages;
    GST_OBJECT_UNLOCK(self);
    c.frame = self->frames;
    if (self->have_info) {
        c.width = GST_VIDEO_INFO_WIDTH(&self->info);
        c.height = GST_VIDEO_INFO_HEIGHT(&self->info);
    }
    frame_times(self, buffer, &c);
    c.detection_skipped = detection_skipped(self, buffer);
    return c;
}

/* The json_src pad's sticky events, before its first buffer. */
static void start_json_stream(GstWaldboostMetaConvert* self)
{
    if (self->json_started)
        return;
    self->json_started = TRUE;
    gchar* id = gst_pad_create_stream_id(self->jsonpad, GST_ELEMENT(self), "json");
    gst_pad_push_event(self->jsonpad, gst_event_new_stream_start(id));
    g_free(id);
    GstCaps* caps = gst_caps_new_empty_simple("application/x-json");
    gst_pad_push_event(self->jsonpad, gst_event_new_caps(caps));
    gst_caps_unref(caps);
    gst_pad_push_event(self->jsonpad, gst_event_new_segment(&self->segment));
}

/* Each document on json_src, with the frame's times; an unlinked pad is
 * not an error. */
static void push_json(GstWaldboostMetaConvert* self, const std::vector<std::string>& docs, GstClockTime pts,
                      const std::string& source)
{
    if (docs.empty() || !gst_pad_is_linked(self->jsonpad))
        return;
    start_json_stream(self);
    for (const std::string& d : docs) {
        GstBuffer* out = gst_buffer_new_memdup(d.data(), d.size());
        GST_BUFFER_PTS(out) = pts;
        add_json_meta(out, source, {d});
        const GstFlowReturn ret = gst_pad_push(self->jsonpad, out);
        if (ret != GST_FLOW_OK && ret != GST_FLOW_NOT_LINKED && ret != GST_FLOW_FLUSHING)
            GST_DEBUG_OBJECT(self, "json_src: %s", gst_flow_get_name(ret));
    }
}

static void post_json_messages(GstWaldboostMetaConvert* self, const std::vector<std::string>& docs,
                               const FrameContext& c, bool post)
{
    if (!post)
        return;
    for (const std::string& d : docs) {
        GstStructure* s = gst_structure_new("waldboostmetaconvert", "frame", G_TYPE_UINT64, c.frame, "timestamp",
                                            G_TYPE_UINT64, c.stream_time, "json", G_TYPE_STRING, d.c_str(), nullptr);
        gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
    }
}

/* Every events meta of the buffer: one per detector of a chain. */
static std::vector<std::string> events_of(GstWaldboostMetaConvert* self, GstBuffer* buffer, const FrameContext& c)
{
    std::vector<std::string> docs;
    /* Looked up by name (a registry lock) until the detector's plugin has
     * registered it, then kept. */
    if (!self->events_info)
        self->events_info = gst_meta_get_info(WALDBOOST_TRACK_EVENTS_META_NAME);
    const GstMetaInfo* info = self->events_info;
    if (!info)
        return docs;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta(buffer, &state)) {
        if (m->info != info)
            continue;
        std::vector<std::string> more =
            event_documents(gst_custom_meta_get_structure(reinterpret_cast<GstCustomMeta*>(m)), c, self->open);
        docs.insert(docs.end(), more.begin(), more.end());
    }
    return docs;
}

/* The frame's documents, attached to it and posted: the element's own
 * work on a buffer, which its stats time (the pushes after it run what is
 * downstream). */
static std::vector<std::string> convert_frame(GstWaldboostMetaConvert* self, GstBuffer** buffer, FrameContext* c)
{
    StreamingTime timed(*self->cost);
    FrameSettings settings;
    *c = context_of(self, *buffer, &settings);
    std::vector<std::string> docs;
    {
        /* Read before the buffer is made writable: they point into it. */
        const std::vector<FrameObject> objects = frame_objects(*buffer);
        if (!settings.skip_empty || !objects.empty())
            docs.push_back(frame_document(objects, *c));
        follow_open_tracks(objects, self->open);
    }
    std::vector<std::string> events = events_of(self, *buffer, *c);
    docs.insert(docs.end(), std::make_move_iterator(events.begin()), std::make_move_iterator(events.end()));
    ++self->frames;
    *self->last_context = *c;

    if (!docs.empty()) {
        *buffer = gst_buffer_make_writable(*buffer);
        add_json_meta(*buffer, c->source, docs);
    }
    post_json_messages(self, docs, *c, settings.post);
    *self->documents += docs.size();
    return docs;
}

/* Placed before the detector (`waldboostmetaconvert ! waldboostdetect !
 * waldboostmetapublish`), the converter makes a document of every frame
 * with none of that detector's objects, and the publisher, which has a
 * converter upstream, cannot tell. Said once per start, at the first
 * frame; a waldboostdetect on both sides (chained detectors) is fine. */
static void check_placement(GstWaldboostMetaConvert* self)
{
    if (self->placement_checked)
        return;
    self->placement_checked = TRUE;
    auto is_detector = [](GstElement* element) {
        return made_by(element, "waldboostdetect");
    };
    std::string detector;
    const bool downstream = element_along(self->srcpad, GST_PAD_SRC, [&](GstElement* element) {
        if (!is_detector(element))
            return false;
        detector = GST_OBJECT_NAME(element);
        return true;
    });
    if (!downstream || element_along(self->sinkpad, GST_PAD_SINK, is_detector))
        return;
    const gchar* name = GST_OBJECT_NAME(self);
    GST_ELEMENT_WARNING(self, STREAM, WRONG_TYPE,
                        ("%s is before %s, so its documents have none of %s's detections. Put the converter after "
                         "the detector: ... ! waldboostdetect ! waldboostmetaconvert ! waldboostmetapublish ...",
                         name, detector.c_str(), detector.c_str()),
                        ("a waldboostdetect downstream and none upstream"));
}

static GstFlowReturn convert_chain(GstPad*, GstObject* parent, GstBuffer* buffer)
{
    auto* self = GST_WALDBOOST_META_CONVERT(parent);
    check_placement(self);
    FrameContext c;
    const std::vector<std::string> docs = convert_frame(self, &buffer, &c);
    push_json(self, docs, c.pts, c.source);
    return gst_pad_push(self->srcpad, buffer);
}

/* The tracks still open leave at the end of the stream, at the
 * last frame's times, as the detector's own last events message says: no
 * frame carries them, so a custom event does, ahead of the EOS. */
static void close_open_tracks(GstWaldboostMetaConvert* self)
{
    if (self->open->empty())
        return;
    FrameContext c = *self->last_context;
    GST_OBJECT_LOCK(self);
    c.pretty = self->format == GST_WALDBOOST_JSON_PRETTY;
    GST_OBJECT_UNLOCK(self);
    std::vector<std::string> docs = left_documents(self->open, c);
    GST_OBJECT_LOCK(self);
    const bool post = self->post_messages;
    GST_OBJECT_UNLOCK(self);
    post_json_messages(self, docs, c, post);
    push_json(self, docs, c.pts, c.source);
    GstStructure* s = gst_structure_new_empty(WALDBOOST_JSON_STRUCTURE);
    set_json_fields(s, c.source, docs);
    gst_pad_push_event(self->srcpad, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, s));
}

static gboolean convert_sink_event(GstPad* pad, GstObject* parent, GstEvent* event)
{
    auto* self = GST_WALDBOOST_META_CONVERT(parent);
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_CAPS: {
        GstCaps* caps = nullptr;
        gst_event_parse_caps(event, &caps);
        self->have_info = gst_video_info_from_caps(&self->info, caps);
        break;
    }
    case GST_EVENT_SEGMENT:
        gst_event_copy_segment(event, &self->segment);
        if (self->json_started && gst_pad_is_linked(self->jsonpad))
            gst_pad_push_event(self->jsonpad, gst_event_new_segment(&self->segment));
        break;
    case GST_EVENT_FLUSH_STOP:
        /* The open tracks stay open: the detector ends its tracks at the
         * next frame, whose events meta says they left (a consumer that
         * saw them appear must see them go), and what is still open at
         * EOS leaves there. */
        {
            gboolean reset_time = FALSE;
            gst_event_parse_flush_stop(event, &reset_time);
            GST_OBJECT_LOCK(self);
            if (reset_time) {
                self->base_time_stale = TRUE;
                self->stale_base_time = GST_ELEMENT(self)->base_time;
            }
            GST_OBJECT_UNLOCK(self);
        }
        gst_segment_init(&self->segment, GST_FORMAT_UNDEFINED);
        if (self->json_started)
            gst_pad_push_event(self->jsonpad, gst_event_ref(event));
        break;
    case GST_EVENT_FLUSH_START:
        if (self->json_started)
            gst_pad_push_event(self->jsonpad, gst_event_ref(event));
        break;
    case GST_EVENT_EOS:
        close_open_tracks(self);
        if (self->json_started)
            gst_pad_push_event(self->jsonpad, gst_event_ref(event));
        break;
    default: break;
    }
    /* The video's events go on with the video only: json_src has its own
     * stream, caps and segment (start_json_stream). */
    (void)pad;
    const bool eos = GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    const gboolean passed = gst_pad_push_event(self->srcpad, event);
    /* Where a stream's end went, for a pipeline that never ends. */
    if (eos)
        GST_INFO_OBJECT(self, "end of stream %s downstream", passed ? "passed" : "not taken");
    return passed;
}

/* sink and src are the video's path; json_src stands apart, so that the
 * default handlers never send video caps or queries there. */
static GstIterator* convert_internal_links(GstPad* pad, GstObject* parent)
{
    auto* self = GST_WALDBOOST_META_CONVERT(parent);
    GstPad* other = pad == self->sinkpad ? self->srcpad : pad == self->srcpad ? self->sinkpad : nullptr;
    if (!other)
        return gst_iterator_new_single(GST_TYPE_PAD, nullptr);
    GValue v = G_VALUE_INIT;
    g_value_init(&v, GST_TYPE_PAD);
    g_value_set_object(&v, other);
    GstIterator* it = gst_iterator_new_single(GST_TYPE_PAD, &v);
    g_value_unset(&v);
    return it;
}

static void convert_reset(GstWaldboostMetaConvert* self)
{
    gst_segment_init(&self->segment, GST_FORMAT_UNDEFINED);
    self->have_info = FALSE;
    self->frames = 0;
    self->open->clear();
    *self->last_context = FrameContext();
    GST_OBJECT_LOCK(self);
    self->base_time_stale = FALSE;
    GST_OBJECT_UNLOCK(self);
    self->json_started = FALSE;
    self->placement_checked = FALSE;
    self->cost->reset();
    *self->documents = 0;
}

static GstStateChangeReturn convert_change_state(GstElement* element, GstStateChange transition)
{
    auto* self = GST_WALDBOOST_META_CONVERT(element);
    if (transition == GST_STATE_CHANGE_READY_TO_PAUSED)
        convert_reset(self);
    return GST_ELEMENT_CLASS(gst_waldboost_meta_convert_parent_class)->change_state(element, transition);
}

static void convert_set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec)
{
    auto* self = GST_WALDBOOST_META_CONVERT(object);
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_SOURCE_ID: {
        /* Documents are UTF-8: invalid bytes become U+FFFD here, once. */
        gchar* valid = g_utf8_make_valid(g_value_get_string(value) ? g_value_get_string(value) : "", -1);
        *self->source_id = valid;
        g_free(valid);
        break;
    }
    case PROP_FORMAT: self->format = static_cast<GstWaldboostJsonFormat>(g_value_get_enum(value)); break;
    case PROP_SKIP_EMPTY_FRAMES: self->skip_empty = g_value_get_boolean(value); break;
    case PROP_POST_MESSAGES: self->post_messages = g_value_get_boolean(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void convert_get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec)
{
    auto* self = GST_WALDBOOST_META_CONVERT(object);
    if (id == PROP_STATS) {
        g_value_take_boxed(value,
                           gst_structure_new("stats", "frames", G_TYPE_UINT64, self->cost->frames.load(), "documents",
                                             G_TYPE_UINT64, self->documents->load(), "host-total-ms", G_TYPE_DOUBLE,
                                             HostCost::ms(self->cost->streaming_ns.load()), nullptr));
        return;
    }
    GST_OBJECT_LOCK(self);
    switch (id) {
    case PROP_SOURCE_ID: g_value_set_string(value, self->source_id->c_str()); break;
    case PROP_FORMAT: g_value_set_enum(value, self->format); break;
    case PROP_SKIP_EMPTY_FRAMES: g_value_set_boolean(value, self->skip_empty); break;
    case PROP_POST_MESSAGES: g_value_set_boolean(value, self->post_messages); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void convert_finalize(GObject* object)
{
    auto* self = GST_WALDBOOST_META_CONVERT(object);
    delete self->source_id;
    delete self->open;
    delete self->last_context;
    delete self->cost;
    delete self->documents;
    gst_caps_unref(self->ntp_caps);
    gst_caps_unref(self->unix_caps);
    G_OBJECT_CLASS(gst_waldboost_meta_convert_parent_class)->finalize(object);
}

static void gst_waldboost_meta_convert_class_init(GstWaldboostMetaConvertClass* klass)
{
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    gobject_class->set_property = convert_set_property;
    gobject_class->get_property = convert_get_property;
    gobject_class->finalize = convert_finalize;
    element_class->change_state = convert_change_state;

    const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS);
    g_object_class_install_property(
        gobject_class, PROP_SOURCE_ID,
        g_param_spec_string("source-id", "Source id",
                            "The camera or stream these frames come from, as every document's \"source\" (and "
                            "waldboostmetapublish's {source-id} in MQTT topics)",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_FORMAT,
        g_param_spec_enum("format", "Format", "How documents are written: compact (one line each) or pretty",
                          gst_waldboost_json_format_get_type(), GST_WALDBOOST_JSON_COMPACT, flags));
    g_object_class_install_property(
        gobject_class, PROP_SKIP_EMPTY_FRAMES,
        g_param_spec_boolean("skip-empty-frames", "Skip empty frames",
                             "Make no document for frames without objects (their events are still sent)", FALSE,
                             flags));
    g_object_class_install_property(
        gobject_class, PROP_POST_MESSAGES,
        g_param_spec_boolean("post-messages", "Post messages",
                             "Also post each document on the bus, as a \"waldboostmetaconvert\" element message "
                             "with the fields frame, timestamp and json",
                             FALSE, flags));
    g_object_class_install_property(
        gobject_class, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "Since the element last started: frames (buffers converted), documents (made), "
                           "host-total-ms (the streaming thread's CPU time converting them, as waldboostdetect's "
                           "host-total-ms; not what runs downstream)",
                           GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_add_static_pad_template(element_class, &json_template);
    gst_element_class_set_static_metadata(
        element_class, "WaldBoost metadata to JSON", "Filter/Metadata",
        "Turns each frame's detections, parts, tracks and track events (region-of-interest metas and "
        "GstAnalytics ODMtds) into JSON documents (schema waldboost-metadata/1, DL Streamer's field names): "
        "attached to the frame for waldboostmetapublish, on the json_src pad and, when asked, on the bus",
        "waldboost-gst developers");
    gst_type_mark_as_plugin_api(gst_waldboost_json_format_get_type(), static_cast<GstPluginAPIFlags>(0));
    GST_DEBUG_CATEGORY_INIT(gst_waldboost_meta_convert_debug, "waldboostmetaconvert", 0, "WaldBoost metadata to JSON");
}

static void gst_waldboost_meta_convert_init(GstWaldboostMetaConvert* self)
{
    self->sinkpad = gst_pad_new_from_static_template(&sink_template, "sink");
    gst_pad_set_chain_function(self->sinkpad, convert_chain);
    gst_pad_set_event_function(self->sinkpad, convert_sink_event);
    GST_PAD_SET_PROXY_CAPS(self->sinkpad);
    GST_PAD_SET_PROXY_ALLOCATION(self->sinkpad);
    gst_pad_set_iterate_internal_links_function(self->sinkpad, convert_internal_links);
    gst_element_add_pad(GST_ELEMENT(self), self->sinkpad);
    self->srcpad = gst_pad_new_from_static_template(&src_template, "src");
    GST_PAD_SET_PROXY_CAPS(self->srcpad);
    gst_pad_set_iterate_internal_links_function(self->srcpad, convert_internal_links);
    gst_element_add_pad(GST_ELEMENT(self), self->srcpad);
    self->jsonpad = gst_pad_new_from_static_template(&json_template, "json_src");
    gst_pad_use_fixed_caps(self->jsonpad);
    gst_pad_set_iterate_internal_links_function(self->jsonpad, convert_internal_links);
    gst_element_add_pad(GST_ELEMENT(self), self->jsonpad);

    self->source_id = new std::string();
    self->format = GST_WALDBOOST_JSON_COMPACT;
    self->skip_empty = FALSE;
    self->post_messages = FALSE;
    self->open = new OpenTracks();
    self->last_context = new FrameContext();
    self->cost = new HostCost();
    self->ntp_caps = gst_caps_new_empty_simple("timestamp/x-ntp");
    self->unix_caps = gst_caps_new_empty_simple("timestamp/x-unix");
    self->documents = new std::atomic<guint64>(0);
    convert_reset(self);
}
