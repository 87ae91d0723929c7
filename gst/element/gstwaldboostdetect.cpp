/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-waldboostdetect
 * @title: waldboostdetect
 *
 * Detects objects (faces with the embedded default classifier) in video with
 * a WaldBoost, LBP or Haar cascade on an OpenCL device, and attaches the
 * results to each buffer: one #GstVideoRegionOfInterestMeta per detection
 * (and per part found inside it with eyes-profile, nose-profile or
 * mouth-profile, its parent_id naming the detection's id), optionally
 * the rectangles as a #GstVideoOverlayCompositionMeta or drawn into the
 * frame, and an element message per frame.
 *
 * Detection runs asynchronously: the streaming thread puts a frame on the
 * device and returns; the element's worker thread pushes each frame on when
 * its detection is done, in order, each with its own detections. Up to
 * #GstWaldboostDetect:max-inflight frames are with the element at once.
 *
 * With #GstWaldboostDetect:inference-region=roi-list the element searches
 * only inside the region-of-interest metas an element upstream attached
 * (filtered by #GstWaldboostDetect:region-labels), on the OpenCL device, and each
 * detection's meta names its region's id as parent_id.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=Megamind.avi ! decodebin ! videoconvert ! waldboostdetect ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstwaldboostdetect.h"

#include <atomic>
#include <mutex>
#include <vector>

#include "core/opencl/device/environment.h"
#include "debug.h"
#include "frame_queue.h"
#include "pinned_pool.h"
#include "properties.h"
#include "property_table.h"
#include "settings.h"
#include "stats.h"

namespace wel = waldboost_element;

GST_DEBUG_CATEGORY(gst_waldboost_detect_debug);

/* The enum and flags types; the value names are the descriptions
 * gst-inspect shows. */
#define WALDBOOST_VALUE(value, nick, description) \
    {                                             \
        value, description, nick                  \
    }

G_DEFINE_ENUM_TYPE(
    GstWaldboostDraw, gst_waldboost_draw,
    WALDBOOST_VALUE(GST_WALDBOOST_DRAW_AUTO, "auto",
                    "Overlay composition meta when downstream supports it and no scaler changes the size before "
                    "it, else burn"),
    WALDBOOST_VALUE(GST_WALDBOOST_DRAW_META, "meta",
                    "Attach a GstVideoOverlayCompositionMeta with the rectangles; they show only where an element "
                    "renders that meta (e.g. glimagesink), else nothing is drawn (an INFO message says so once)"),
    WALDBOOST_VALUE(GST_WALDBOOST_DRAW_BURN, "burn", "Draw the rectangles into the frame"),
    WALDBOOST_VALUE(GST_WALDBOOST_DRAW_NONE, "none", "Do not draw; metadata and messages only"))

G_DEFINE_ENUM_TYPE(GstWaldboostGrouping, gst_waldboost_grouping,
                   WALDBOOST_VALUE(GST_WALDBOOST_GROUPING_OPENCV, "opencv",
                                   "OpenCV's groupRectangles (as detectMultiScale)"),
                   WALDBOOST_VALUE(GST_WALDBOOST_GROUPING_NMS, "nms", "Non-maximum suppression by score and IoU"),
                   WALDBOOST_VALUE(GST_WALDBOOST_GROUPING_NONE, "none", "Every accepted window"))

G_DEFINE_ENUM_TYPE(
    GstWaldboostUpdates, gst_waldboost_updates,
    WALDBOOST_VALUE(GST_WALDBOOST_UPDATES_EVERY_FRAME, "every-frame", "A message for every frame"),
    WALDBOOST_VALUE(GST_WALDBOOST_UPDATES_ON_CHANGE, "on-change",
                    "A message for a frame with detections after one without, and for one without after one with"),
    WALDBOOST_VALUE(GST_WALDBOOST_UPDATES_ON_OBJECT, "on-object", "A message for every frame with detections"),
    WALDBOOST_VALUE(GST_WALDBOOST_UPDATES_NONE, "none", "No messages"),
    WALDBOOST_VALUE(GST_WALDBOOST_UPDATES_EVENTS, "events",
                    "A \"waldboostdetect-events\" message for a frame on which tracked objects appeared or left "
                    "(with tracking=true), instead of the per-frame messages"))

G_DEFINE_ENUM_TYPE(GstWaldboostParts, gst_waldboost_parts,
                   WALDBOOST_VALUE(GST_WALDBOOST_PARTS_ALL, "all", "Every part each nested cascade finds in an object"),
                   WALDBOOST_VALUE(GST_WALDBOOST_PARTS_FIRST, "first",
                                   "The first part each nested cascade finds in an object, as facedetect reports"))

#if HAVE_GST_ANALYTICS
G_DEFINE_ENUM_TYPE(GstWaldboostMetadata, gst_waldboost_metadata,
                   WALDBOOST_VALUE(GST_WALDBOOST_METADATA_ROI, "roi",
                                   "GstVideoRegionOfInterestMeta per object and part"),
                   WALDBOOST_VALUE(GST_WALDBOOST_METADATA_ANALYTICS, "analytics",
                                   "GstAnalyticsRelationMeta: ODMtd, ClsMtd and TrackingMtd with their relations"),
                   WALDBOOST_VALUE(GST_WALDBOOST_METADATA_BOTH, "both",
                                   "Both the region-of-interest and the analytics metadata"))
#else
/* Built without GstAnalytics (GStreamer before 1.24): ROI metas only. */
G_DEFINE_ENUM_TYPE(GstWaldboostMetadata, gst_waldboost_metadata,
                   WALDBOOST_VALUE(GST_WALDBOOST_METADATA_ROI, "roi",
                                   "GstVideoRegionOfInterestMeta per object and part (the only metadata of a build "
                                   "for GStreamer before 1.24)"))
#endif
G_DEFINE_ENUM_TYPE(GstWaldboostPrivacy, gst_waldboost_privacy,
                   WALDBOOST_VALUE(GST_WALDBOOST_PRIVACY_NONE, "none", "The frame is left as it is"),
                   WALDBOOST_VALUE(GST_WALDBOOST_PRIVACY_BLUR, "blur", "Blur the inside of each box"),
                   WALDBOOST_VALUE(GST_WALDBOOST_PRIVACY_PIXELATE, "pixelate",
                                   "Replace the inside of each box by a mosaic, four cells across its smaller side"))

G_DEFINE_ENUM_TYPE(GstWaldboostInferenceRegion, gst_waldboost_inference_region,
                   WALDBOOST_VALUE(GST_WALDBOOST_INFERENCE_REGION_FULL_FRAME, "full-frame",
                                   "The whole frame (within roi)"),
                   WALDBOOST_VALUE(GST_WALDBOOST_INFERENCE_REGION_ROI_LIST, "roi-list",
                                   "Inside each region-of-interest meta upstream attached that region-labels names"))

G_DEFINE_FLAGS_TYPE(GstWaldboostBoxText, gst_waldboost_box_text,
                    WALDBOOST_VALUE(GST_WALDBOOST_BOX_TEXT_LABEL, "label",
                                    "The label (the detector's, or the part's: eyes, nose, mouth)"),
                    WALDBOOST_VALUE(GST_WALDBOOST_BOX_TEXT_ID, "id", "The id (the track's with tracking=true)"),
                    WALDBOOST_VALUE(GST_WALDBOOST_BOX_TEXT_CONFIDENCE, "confidence", "The confidence (0 to 1)"))

struct WaldboostDetectPrivate {
    explicit WaldboostDetectPrivate(GstBaseTransform* element) : queue(element, settings, stats) {}

    wel::SettingsStore settings;
    wel::SharedStats stats;
    wel::FrameQueue queue;
    /* The warning about a format upstream offers that the element cannot
     * take, posted once per start. */
    std::atomic<bool> format_warned{false};
    GstPadActivateModeFunction parent_src_activate_mode = nullptr;
    GstPadEventFunction parent_sink_event = nullptr;
};

struct _GstWaldboostDetect {
    GstVideoFilter parent;
    WaldboostDetectPrivate* priv;
};

G_DEFINE_TYPE(GstWaldboostDetect, gst_waldboost_detect, GST_TYPE_VIDEO_FILTER)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(waldboostdetect, "waldboostdetect", GST_RANK_NONE, GST_TYPE_WALDBOOST_DETECT,
                                      GST_DEBUG_CATEGORY_INIT(gst_waldboost_detect_debug, "waldboostdetect", 0,
                                                              "WaldBoost OpenCL object detection"))

/* The luma of these formats is the grayscale image (read in place, or
 * copied out of packed 4:2:2), and for RGB OpenCV's gray of the colours
 * (frame_access.h). */
#define WALDBOOST_FORMATS                                                                                         \
    "GRAY8, I420, YV12, NV12, NV21, Y42B, Y444, YUY2, UYVY, YVYU, RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, " \
    "ARGB, ABGR"
#define WALDBOOST_CAPS GST_VIDEO_CAPS_MAKE("{ " WALDBOOST_FORMATS " }")

/* ------------------------------------------------------------------------ */
/* GstBaseTransform                                                         */

static gboolean gst_waldboost_detect_start(GstBaseTransform* trans)
{
    WaldboostDetectPrivate* p = GST_WALDBOOST_DETECT(trans)->priv;
    p->format_warned = false;
    /* Values refused before the element had a bus (gst-launch's parser
     * sets them): their warnings now, where the application sees them. */
    std::vector<wel::RefusedValue> refused;
    {
        std::lock_guard<std::mutex> guard(p->settings.lock);
        refused.swap(p->settings.unposted);
    }
    for (const wel::RefusedValue& r : refused)
        wel::post_refused(GST_ELEMENT(trans), r);
    return p->queue.start();
}

static gboolean gst_waldboost_detect_stop(GstBaseTransform* trans)
{
    GST_WALDBOOST_DETECT(trans)->priv->queue.stop();
    return TRUE;
}

static gboolean gst_waldboost_detect_set_info(GstVideoFilter* filter, GstCaps* /*incaps*/, GstVideoInfo* in_info,
                                              GstCaps* /*outcaps*/, GstVideoInfo* /*out_info*/)
{
    GST_WALDBOOST_DETECT(filter)->priv->queue.set_info(*in_info);
    return TRUE;
}

static GstFlowReturn gst_waldboost_detect_submit_input_buffer(GstBaseTransform* trans, gboolean /*is_discont*/,
                                                              GstBuffer* input)
{
    return GST_WALDBOOST_DETECT(trans)->priv->queue.submit(input);
}

/* Frames leave from the worker (frame_queue.h), never from here. */
static GstFlowReturn gst_waldboost_detect_generate_output(GstBaseTransform* /*trans*/, GstBuffer** outbuf)
{
    *outbuf = nullptr;
    return GST_FLOW_OK;
}

/* QOS events reach the queue too: it does GstBaseTransform's QoS itself,
 * since it takes the frames (submit_input_buffer) where the base class
 * would have checked them. */
static gboolean gst_waldboost_detect_src_event(GstBaseTransform* trans, GstEvent* event)
{
    if (GST_EVENT_TYPE(event) == GST_EVENT_QOS) {
        GstClockTimeDiff diff = 0;
        GstClockTime timestamp = GST_CLOCK_TIME_NONE;
        gst_event_parse_qos(event, nullptr, nullptr, &diff, &timestamp);
        GST_WALDBOOST_DETECT(trans)->priv->queue.qos(diff, timestamp);
    }
    return GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->src_event(trans, event);
}

static gboolean gst_waldboost_detect_sink_event(GstBaseTransform* trans, GstEvent* event)
{
    wel::FrameQueue& queue = GST_WALDBOOST_DETECT(trans)->priv->queue;
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_START: queue.flush_start(); break;
    case GST_EVENT_FLUSH_STOP: queue.flush_stop(); break;
    case GST_EVENT_EOS: queue.end_of_stream(); break;
    default:
        /* Frames in flight go out before any serialized event (EOS, caps,
         * segment, gap...), so order is kept and EOS drains the queue. */
        if (GST_EVENT_IS_SERIALIZED(event))
            queue.drain();
        break;
    }
    const bool eos = GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    const gboolean passed = GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->sink_event(trans, event);
    /* Where a stream's end went, for a pipeline that never ends. */
    if (eos)
        GST_INFO_OBJECT(trans, "end of stream %s downstream", passed ? "passed" : "not taken");
    return passed;
}

/* The formats of `offered` when every structure of it is raw video in
 * system memory with a format (a string or a list of them) and none of
 * them is one the element takes; "" otherwise. */
static std::string formats_that_need_converting(const GstCaps* offered)
{
    if (!offered || gst_caps_is_any(offered) || gst_caps_is_empty(offered))
        return "";
    GstCaps* ours = gst_caps_from_string(WALDBOOST_CAPS);
    const GstStructure* taken = gst_caps_get_structure(ours, 0);
    std::string formats;
    bool convertible = true;
    for (guint i = 0; convertible && i < gst_caps_get_size(offered); ++i) {
        const GstStructure* st = gst_caps_get_structure(offered, i);
        const GstCapsFeatures* features = gst_caps_get_features(offered, i);
        const GValue* format = gst_structure_get_value(st, "format");
        if (!gst_structure_has_name(st, "video/x-raw") || !format ||
            (features && !gst_caps_features_is_equal(features, GST_CAPS_FEATURES_MEMORY_SYSTEM_MEMORY))) {
            convertible = false;
            break;
        }
        std::vector<const GValue*> values;
        if (GST_VALUE_HOLDS_LIST(format))
            for (guint k = 0; k < gst_value_list_get_size(format); ++k)
                values.push_back(gst_value_list_get_value(format, k));
        else
            values.push_back(format);
        for (const GValue* v : values) {
            /* gst_value_can_intersect() compares only the types. */
            if (!G_VALUE_HOLDS_STRING(v) || gst_value_intersect(nullptr, v, gst_structure_get_value(taken, "format"))) {
                convertible = false;
                break;
            }
            const std::string name = g_value_get_string(v);
            if (formats.find(name) == std::string::npos)
                formats += (formats.empty() ? "" : ", ") + name;
        }
    }
    gst_caps_unref(ours);
    return convertible ? formats : "";
}

/* Negotiation fails with GStreamer's bare "not-negotiated", which names
 * neither this element nor the remedy, when upstream sends caps of a
 * format the element cannot take (RGB from pngdec, whose output format is
 * the PNG's). A warning says both, once per start. */
static void warn_unconvertible(GstWaldboostDetect* self, GstCaps* offered)
{
    if (self->priv->format_warned)
        return;
    const std::string formats = formats_that_need_converting(offered);
    if (formats.empty() || self->priv->format_warned.exchange(true))
        return;
    GST_ELEMENT_WARNING(self, CORE, NEGOTIATION,
                        ("%s cannot take %s video: it reads " WALDBOOST_FORMATS ". Insert videoconvert before it.",
                         GST_ELEMENT_NAME(self), formats.c_str()),
                        ("upstream offered %" GST_PTR_FORMAT, offered));
}

/* An ACCEPT_CAPS query on the sink pad, answered. Such queries may be
 * probes that upstream follows with other caps (videoconvert asks before
 * it chooses), so only refused caps that upstream has already set on its
 * pad count: the caps event being pushed, which GStreamer checks with
 * this query before it delivers the event. */
static void check_offered_caps(GstWaldboostDetect* self, GstQuery* query)
{
    if (GST_QUERY_TYPE(query) != GST_QUERY_ACCEPT_CAPS)
        return;
    gboolean accepted = TRUE;
    gst_query_parse_accept_caps_result(query, &accepted);
    if (accepted)
        return;
    GstCaps* caps = nullptr;
    gst_query_parse_accept_caps(query, &caps);
    GstPad* peer = gst_pad_get_peer(GST_BASE_TRANSFORM_SINK_PAD(self));
    if (!peer)
        return;
    GstCaps* sent = gst_pad_get_current_caps(peer);
    if (sent && caps && gst_caps_is_equal(sent, caps))
        warn_unconvertible(self, caps);
    if (sent)
        gst_caps_unref(sent);
    gst_object_unref(peer);
}

/* A frame leaves when its detection is done, behind at most frames_held()
 * - 1 others (max-inflight - 1 with interval=1), after waiting at most
 * batch-wait for companions: the latency the element adds to upstream's. */
static gboolean gst_waldboost_detect_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query))
            return FALSE;
        gboolean live;
        GstClockTime min, max;
        gst_query_parse_latency(query, &live, &min, &max);
        const wel::Settings all = self->priv->settings.copy();
        const wel::EngineSettings& s = all.engine;
        int fps_n = 0, fps_d = 1;
        self->priv->queue.frame_rate(&fps_n, &fps_d);
        GstClockTime ours = s.batching ? s.batch_wait : 0;
        const guint64 held = wel::frames_held(static_cast<size_t>(s.max_inflight), all.detection.interval);
        if (fps_n > 0)
            ours += gst_util_uint64_scale_int((held - 1) * GST_SECOND, fps_d, fps_n);
        else if (held > 1)
            max = GST_CLOCK_TIME_NONE; /* unknown frame rate: no upper bound */
        min += ours;
        if (GST_CLOCK_TIME_IS_VALID(max))
            max += ours;
        GST_DEBUG_OBJECT(self, "latency: adding %" GST_TIME_FORMAT, GST_TIME_ARGS(ours));
        gst_query_set_latency(query, live, min, max);
        return TRUE;
    }
    const gboolean answered =
        GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->query(trans, direction, query);
    if (answered && direction == GST_PAD_SINK)
        check_offered_caps(self, query);
    return answered;
}

/* The ALLOCATION query from upstream. The element works in place (its
 * input buffers leave as they are, with metadata added), so GstBaseTransform
 * passes the query on to downstream as a passthrough element would, and
 * downstream's pool, minimum and metas reach upstream. To that minimum the
 * element adds the buffers it keeps, as decoders add their reference
 * frames: up to max-inflight input buffers are held until their frames
 * leave. When downstream does not answer (fakesink), the element
 * answers alone: a pool entry without a pool (upstream makes its own) of
 * that minimum, and no metas (the buffers still go downstream, which said
 * nothing about GstVideoMeta). An upstream pool that cannot grow that far is
 * handled frame by frame (FrameQueue::keep_upstream_pool_free). */
static gboolean gst_waldboost_detect_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query,
                                                        GstQuery* query)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    GstCaps* caps = nullptr;
    GstVideoInfo info;
    gst_query_parse_allocation(query, &caps, nullptr);
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return FALSE;
    const gboolean answered =
        GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->propose_allocation(trans, decide_query, query);
    const wel::Settings settings = self->priv->settings.copy();
    const auto held = static_cast<guint>(
        wel::frames_held(static_cast<size_t>(settings.engine.max_inflight), settings.detection.interval));
    const guint n = gst_query_get_n_allocation_pools(query);
    if (n == 0) {
        /* Memory the device reads directly: on a GPU upstream's frames then
         * need no copy here (pinned_pool.h); on CPU devices they are copied
         * as any frame is. Not for packed 4:2:2 and RGB, whose gray is
         * made on the host anyway. */
        GstBufferPool* pinned = nullptr;
        const auto engine = self->priv->queue.current_engine();
        const bool luma_in_place = GST_VIDEO_INFO_COMP_PSTRIDE(&info, 0) == 1;
        if (engine && luma_in_place && !waldboost::opencl::environment::pinned_pool_disabled())
            pinned = waldboost_pinned_pool_new_for_frames(engine->shared_device(), caps, held);
        gst_query_add_allocation_pool(query, pinned, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), held, 0);
        if (pinned) {
            gst_query_add_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr);
            GST_DEBUG_OBJECT(self, "allocation: offering a pool of pinned memory on %s",
                             engine->device().device_name.c_str());
            gst_object_unref(pinned);
        }
    }
    for (guint i = 0; i < n; ++i) {
        GstBufferPool* pool = nullptr;
        guint size, min, max;
        gst_query_parse_nth_allocation_pool(query, i, &pool, &size, &min, &max);
        min += held;
        if (max != 0 && max < min)
            max = min;
        gst_query_set_nth_allocation_pool(query, i, pool, size, min, max);
        if (pool)
            gst_object_unref(pool);
    }
    GST_DEBUG_OBJECT(self, "allocation: downstream %s; %u more buffers for the frames held here",
                     answered ? "answered" : "did not answer", held);
    return TRUE;
}

/* The source pad's deactivation takes its stream lock, which the worker's
 * run holds: wake the worker first, then stop its task. */
static gboolean src_activate_mode(GstPad* pad, GstObject* parent, GstPadMode mode, gboolean active)
{
    WaldboostDetectPrivate* p = GST_WALDBOOST_DETECT(parent)->priv;
    if (!active)
        p->queue.stop_worker(false);
    const gboolean ok = p->parent_src_activate_mode ? p->parent_src_activate_mode(pad, parent, mode, active) : TRUE;
    if (!active)
        gst_pad_stop_task(pad);
    return ok;
}

/* An event that cannot go on downstream because the source pad is
 * flushing (a flush, or a stop: the source pad is deactivated, and the
 * worker joined, before the sink pad), or because downstream's pad is
 * flushing (downstream stops first), is answered FLUSHING, as a buffer is
 * at that moment (downstream_answer). Through a plain event function the
 * refusal would become GST_FLOW_ERROR for upstream (GStreamer resends
 * sticky events before the next buffer, and a refused one is an error
 * there), and a source would stop the pipeline with "Internal data stream
 * error" while nothing was wrong: a state-change storm did that. */
static GstFlowReturn sink_event_full(GstPad* pad, GstObject* parent, GstEvent* event)
{
    WaldboostDetectPrivate* p = GST_WALDBOOST_DETECT(parent)->priv;
    const GstEventType type = GST_EVENT_TYPE(event);
    if (p->parent_sink_event(pad, parent, event))
        return GST_FLOW_OK;
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(parent);
    const GstFlowReturn ret =
        wel::downstream_answer(src, type == GST_EVENT_CAPS ? GST_FLOW_NOT_NEGOTIATED : GST_FLOW_ERROR);
    GST_DEBUG_OBJECT(parent, "%s refused: %s (source pad %sflushing)", gst_event_type_get_name(type),
                     gst_flow_get_name(ret), GST_PAD_IS_FLUSHING(src) ? "" : "not ");
    return ret;
}

/* ------------------------------------------------------------------------ */
/* GObject                                                                  */

/* A change reaches the stream at the next frame boundary. */
static void gst_waldboost_detect_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec)
{
    wel::SettingsStore& store = GST_WALDBOOST_DETECT(object)->priv->settings;
    std::lock_guard<std::mutex> guard(store.lock);
    if (!wel::set_setting(object, store.settings, prop_id, value, &store.unposted))
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
    ++store.generation;
}

static void gst_waldboost_detect_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec)
{
    WaldboostDetectPrivate* p = GST_WALDBOOST_DETECT(object)->priv;
    if (prop_id == wel::PROP_STATS) {
        g_value_take_boxed(value, p->stats.structure());
        return;
    }
    std::lock_guard<std::mutex> guard(p->settings.lock);
    if (!wel::get_setting(p->settings.settings, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
}

static void gst_waldboost_detect_finalize(GObject* object)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(object);
    delete self->priv; /* drops any frame still in flight */
    self->priv = nullptr;
    G_OBJECT_CLASS(gst_waldboost_detect_parent_class)->finalize(object);
}

static void gst_waldboost_detect_init(GstWaldboostDetect* self)
{
    self->priv = new WaldboostDetectPrivate(GST_BASE_TRANSFORM(self));
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(self);
    self->priv->parent_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC(src);
    gst_pad_set_activatemode_function(src, src_activate_mode);
    GstPad* sink = GST_BASE_TRANSFORM_SINK_PAD(self);
    self->priv->parent_sink_event = GST_PAD_EVENTFUNC(sink);
    gst_pad_set_event_full_function(sink, sink_event_full);
}

static void gst_waldboost_detect_class_init(GstWaldboostDetectClass* klass)
{
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass* filter_class = GST_VIDEO_FILTER_CLASS(klass);

    gobject_class->set_property = gst_waldboost_detect_set_property;
    gobject_class->get_property = gst_waldboost_detect_get_property;
    gobject_class->finalize = gst_waldboost_detect_finalize;
    /* Every property, with its documentation: property_table.cpp. */
    wel::install_properties(gobject_class);

    gst_element_class_set_static_metadata(element_class, "WaldBoost object detection", "Filter/Analyzer/Video",
                                          "Detects objects (faces by default) with an LBP or Haar cascade on an "
                                          "OpenCL device and attaches region-of-interest metadata",
                                          "waldboost-gst developers");
    GstCaps* caps = gst_caps_from_string(WALDBOOST_CAPS);
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);

    trans_class->start = GST_DEBUG_FUNCPTR(gst_waldboost_detect_start);
    trans_class->stop = GST_DEBUG_FUNCPTR(gst_waldboost_detect_stop);
    trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR(gst_waldboost_detect_submit_input_buffer);
    trans_class->generate_output = GST_DEBUG_FUNCPTR(gst_waldboost_detect_generate_output);
    trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_waldboost_detect_sink_event);
    trans_class->src_event = GST_DEBUG_FUNCPTR(gst_waldboost_detect_src_event);
    trans_class->query = GST_DEBUG_FUNCPTR(gst_waldboost_detect_query);
    trans_class->propose_allocation = GST_DEBUG_FUNCPTR(gst_waldboost_detect_propose_allocation);
    trans_class->passthrough_on_same_caps = FALSE;
    trans_class->transform_ip_on_passthrough = FALSE;
    filter_class->set_info = GST_DEBUG_FUNCPTR(gst_waldboost_detect_set_info);

    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_DRAW, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_GROUPING, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_UPDATES, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_PARTS, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_METADATA, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_PRIVACY, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_BOX_TEXT, static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(GST_TYPE_WALDBOOST_INFERENCE_REGION, static_cast<GstPluginAPIFlags>(0));
}
