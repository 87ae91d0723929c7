/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frame_queue.h"

#include "config.h" /* HAVE_GST_ANALYTICS, for meta_objects.h */

#include <gst/video/gstvideometa.h>
#include <gst/video/video-overlay-composition.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/scales.h"
#include "core/opencl/device/device.h"
#include "core/text.h"
#include "debug.h"
#include "frame_access.h"
#include "frame_bounds.h"
#include "label_ids.h"
#include "meta_objects.h"
#include "privacy.h"
#include "properties.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;

GstFlowReturn downstream_answer(GstPad* src, GstFlowReturn ret)
{
    if (ret >= GST_FLOW_EOS)
        return ret;
    GstPad* peer = gst_pad_get_peer(src);
    const bool peer_flushing = peer && GST_PAD_IS_FLUSHING(peer);
    if (peer)
        gst_object_unref(peer);
    return GST_PAD_IS_FLUSHING(src) || peer_flushing ? GST_FLOW_FLUSHING : ret;
}
using waldboost::ErrorKind;

FrameQueue::FrameQueue(GstBaseTransform* element, SettingsStore& settings, SharedStats& stats)
    : element_(element), settings_(settings), stats_(stats), setup_(GST_ELEMENT(element), stats),
      finisher_(element, stats)
{
    gst_video_info_init(&info_);
}

FrameQueue::~FrameQueue()
{
    std::lock_guard<std::mutex> guard(lock_);
    discard_all();
}

/* ------------------------------------------------------------------------ */
/* Quality of service                                                       */

/* When the sink got a frame late, the frames behind it are later still:
 * GStreamer's QoS design estimates the next frame that can be on time at
 * timestamp + 2 x diff + one frame, the rule GstVideoDecoder and
 * GstVideoEncoder use (GstBaseTransform's timestamp + diff suits a filter
 * whose own work is cheap). With it a video sink after a live 1080p Haar
 * search on 2 cores shows 1.3-3x the frames it showed (docs/history.md). */
void FrameQueue::qos(GstClockTimeDiff diff, GstClockTime timestamp)
{
    if (!GST_CLOCK_TIME_IS_VALID(timestamp))
        return;
    if (diff > 0) {
        int fps_n = 0, fps_d = 1;
        const GstClockTime frame =
            frame_rate(&fps_n, &fps_d) && fps_n > 0 ? gst_util_uint64_scale_int(GST_SECOND, fps_d, fps_n) : 0;
        qos_earliest_ = timestamp + 2 * static_cast<GstClockTime>(diff) + frame;
        return;
    }
    /* An early frame's negative diff may exceed its running time. */
    qos_earliest_ = static_cast<GstClockTime>(-diff) > timestamp ? 0 : timestamp + diff;
}

/* A frame that cannot reach the sink in time (above), with qos=true, passes
 * without a search, as an interval frame does (the tracker follows it),
 * so that a detector slower than a live stream stays in step with it
 * instead of falling further behind with every frame (the video sink would
 * drop those frames anyway). It passes all the same: nothing is lost for a
 * recording on another branch. Never with privacy: a frame without a
 * search would show what it should hide. */
bool FrameQueue::skip_late_frame(const PendingFrame& pending)
{
    const GstClockTime earliest = qos_earliest_;
    if (!GST_CLOCK_TIME_IS_VALID(earliest) || hides_objects(active_.output) ||
        !gst_base_transform_is_qos_enabled(element_) || element_->segment.format != GST_FORMAT_TIME)
        return false;
    const GstClockTime running_time =
        gst_segment_to_running_time(&element_->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(pending.buffer));
    if (!GST_CLOCK_TIME_IS_VALID(running_time) || running_time > earliest)
        return false;
    stats_.update([](Stats& st) {
        ++st.qos_skipped;
    });
    GST_DEBUG_OBJECT(element_,
                     "frame %" G_GUINT64_FORMAT " at %" GST_TIME_FORMAT " is late (QoS: up to %" GST_TIME_FORMAT
                     "): no search",
                     pending.frame, GST_TIME_ARGS(running_time), GST_TIME_ARGS(earliest));
    if (!qos_hinted_) {
        qos_hinted_ = true;
        GST_ELEMENT_INFO(
            element_, CORE, CLOCK,
            ("Detection is slower than the stream: frames that cannot reach the sink in time pass "
             "without a search (stats: qos-skipped). Set qos=false to search every frame, or make detection "
             "cheaper (min-size, interval, a faster device)."),
            ("QoS: frame %" G_GUINT64_FORMAT " at running time %" GST_TIME_FORMAT
             " is late (downstream wants %" GST_TIME_FORMAT " or later)",
             pending.frame, GST_TIME_ARGS(running_time), GST_TIME_ARGS(earliest)));
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Start, stop, caps                                                        */

bool FrameQueue::start()
{
    stats_.reset();
    frame_count_ = 0;
    interval_from_ = 0;
    restart_interval_ = false;
    unreadable_.reset();
    pool_copy_logged_ = false;
    inflight_limit_warned_ = 0;
    draw_meta_hinted_ = false;
    nothing_searched_checked_.clear();
    nothing_searched_warned_.clear();
    qos_hinted_ = false;
    qos_earliest_ = GST_CLOCK_TIME_NONE;
    finisher_.reset();
    Settings s;
    guint64 generation = 0;
    settings_.changed_since(0, &s, &generation);
    std::shared_ptr<wcl::Engine> engine = setup_.setup(s);
    if (!engine)
        return false;
    {
        std::lock_guard<std::mutex> guard(lock_);
        engine_ = std::move(engine);
        activate(s, generation);
    }
    start_worker();
    return true;
}

void FrameQueue::stop()
{
    stop_worker(true);
    {
        std::lock_guard<std::mutex> guard(lock_);
        discard_all();
        engine_.reset();
    }
    setup_.release();
    frame_settings_.reset();
    std::lock_guard<std::mutex> guard(info_lock_);
    have_info_ = false;
}

void FrameQueue::set_info(const GstVideoInfo& info)
{
    std::lock_guard<std::mutex> guard(info_lock_);
    /* A new size: its first frame is searched, as after a seek, so that the
     * tracks (scaled, FrameFinisher::track) and privacy meet the new frames
     * with a detection rather than with a template search only. */
    if (have_info_ && (GST_VIDEO_INFO_WIDTH(&info) != GST_VIDEO_INFO_WIDTH(&info_) ||
                       GST_VIDEO_INFO_HEIGHT(&info) != GST_VIDEO_INFO_HEIGHT(&info_)))
        restart_interval_ = true;
    info_ = info;
    have_info_ = true;
    overlay_meta_unknown_ = true;
}

bool FrameQueue::frame_rate(int* fps_n, int* fps_d) const
{
    std::lock_guard<std::mutex> guard(info_lock_);
    if (!have_info_)
        return false;
    *fps_n = GST_VIDEO_INFO_FPS_N(&info_);
    *fps_d = GST_VIDEO_INFO_FPS_D(&info_);
    return true;
}

/* ------------------------------------------------------------------------ */
/* Settings                                                                 */

/* Applies changed settings at a frame boundary. Holds `lock`. */
GstFlowReturn FrameQueue::apply_settings(std::unique_lock<std::mutex>& lock)
{
    Settings s;
    guint64 generation = active_generation_;
    if (!settings_.changed_since(active_generation_, &s, &generation)) {
        if (engine_)
            return GST_FLOW_OK;
        s = active_; /* the engine was dropped after a failure: build it again */
    }
    if (engine_ && s.engine == active_.engine) {
        if (!setup_.load_nested(s, true))
            keep_running_settings(&s);
        activate(s, generation);
        return GST_FLOW_OK;
    }
    /* A new classifier, device or reduction: the frames in flight on the
     * old engine leave first, so no frame is lost or reordered. */
    wait_until_drained(lock);
    if (flushing_)
        return GST_FLOW_FLUSHING;
    if (failed_)
        return GST_FLOW_ERROR;
    /* While an engine runs, the new one is set up beside it: when it cannot
     * be (a classifier that does not load, a device that is not there),
     * detection goes on as before rather than stopping the stream. */
    const bool replacing = engine_ != nullptr;
    std::shared_ptr<wcl::Engine> engine = setup_.setup(s, replacing);
    if (engine) {
        engine_.reset();
        engine_ = std::move(engine);
    } else if (replacing) {
        keep_running_settings(&s);
    } else {
        return GST_FLOW_ERROR;
    }
    activate(s, generation);
    return GST_FLOW_OK;
}

/* A change of the engine or of the nested cascades that could not be
 * applied (the warning is posted): `s` gets back what runs, and so do the
 * properties unless the application has set them again since, so that
 * they read back what detects. Holds lock_. */
void FrameQueue::keep_running_settings(Settings* s)
{
    Settings before, after;
    if (settings_.restore(*s, active_, &before, &after)) {
        if (restored_)
            restored_->second = after; /* not yet notified: from the first before */
        else
            restored_ = std::make_unique<std::pair<Settings, Settings>>(before, after);
    }
    s->engine = active_.engine;
    s->detection.nested_paths = active_.detection.nested_paths;
}

/* Whether going from `was` to `now` makes the finisher start the tracker
 * afresh (FrameFinisher::track): tracking switched on, or one of the
 * settings its tracker is made with changed. */
static bool restarts_tracker(const DetectionSettings& was, const DetectionSettings& now)
{
    return now.tracking && (!was.tracking || was.lost_after != now.lost_after || was.confirm_hits != now.confirm_hits ||
                            was.confirm_window != now.confirm_window);
}

/* The settings `s` (of `generation`) become the next frames'. Needs the
 * engine. */
void FrameQueue::activate(const Settings& s, guint64 generation)
{
    if (restarts_tracker(active_.detection, s.detection))
        restart_interval_ = true;
    active_ = s;
    active_generation_ = generation;
    auto frame = std::make_shared<FrameSettings>();
    frame->detection = s.detection;
    frame->output = s.output;
    const waldboost::Classifier& classifier = setup_.classifier();
    if (frame->output.label.empty())
        frame->output.label = classifier.label;
    if (frame->output.label_id == kLabelIdFromLabel)
        frame->output.label_id = label_id_for(frame->output.label);
    frame->params = core_config(s, classifier, engine_->device()).detect;
    frame->nested = setup_.nested();
    frame->nested_params = nested_params(frame->params);
    if (s.detection.part_min_neighbors >= 0)
        frame->nested_params.min_neighbors = s.detection.part_min_neighbors;
    frame->search_regions = s.detection.inference_region == GST_WALDBOOST_INFERENCE_REGION_ROI_LIST;
    /* Another class ends the tracks (FrameFinisher::track): its first frame
     * is searched, so that the new tracks start there. */
    if (s.detection.tracking && frame_settings_ &&
        (frame_settings_->output.label != frame->output.label ||
         frame_settings_->output.label_id != frame->output.label_id))
        restart_interval_ = true;
    frame_settings_ = std::move(frame);
}

/* The sink pad of the element that `src` feeds, through bins: a bin's
 * ghost pad leads to its target, the proxy of a bin's ghost source pad to
 * what the bin feeds. A new reference, or null. */
static GstPad* downstream_sink_pad(GstPad* src)
{
    GstPad* peer = gst_pad_get_peer(src);
    for (int hops = 0; peer && hops < 16; ++hops) {
        if (GST_IS_GHOST_PAD(peer)) {
            GstPad* target = gst_ghost_pad_get_target(GST_GHOST_PAD(peer));
            gst_object_unref(peer);
            peer = target;
            continue;
        }
        GstObject* parent = gst_object_get_parent(GST_OBJECT(peer));
        if (parent && GST_IS_GHOST_PAD(parent)) { /* the inside of a bin's source pad */
            gst_object_unref(peer);
            peer = gst_pad_get_peer(GST_PAD(parent));
            gst_object_unref(parent);
            continue;
        }
        if (parent)
            gst_object_unref(parent);
        return peer;
    }
    if (peer)
        gst_object_unref(peer);
    return nullptr;
}

/* The size of a pad's negotiated frames; false before negotiation. */
static bool frame_size(GstPad* pad, int* width, int* height)
{
    GstCaps* caps = gst_pad_get_current_caps(pad);
    GstVideoInfo info;
    const bool known = caps && gst_video_info_from_caps(&info, caps);
    if (caps)
        gst_caps_unref(caps);
    if (known) {
        *width = GST_VIDEO_INFO_WIDTH(&info);
        *height = GST_VIDEO_INFO_HEIGHT(&info);
    }
    return known;
}

/* Whether an element downstream of `src` changes the frame size: one whose
 * class says Scaler (videoscale, videoconvertscale) with other caps on its
 * two sides, or caps not yet known. GStreamer 1.22 copies an overlay
 * composition meta through a scaler unchanged, so boxes attached as one
 * land where they were in the unscaled frame (the top-left quarter after
 * halving the size). Every branch (tee) is followed, up to sinks. */
static bool scaled_downstream(GstPad* src, int depth = 0)
{
    GstPad* sink = downstream_sink_pad(src);
    if (!sink)
        return false;
    GstElement* element = gst_pad_get_parent_element(sink);
    bool scaled = false;
    if (element && depth < 32) {
        const char* klass = gst_element_get_metadata(element, GST_ELEMENT_METADATA_KLASS);
        GstIterator* pads = gst_element_iterate_src_pads(element);
        GValue item = G_VALUE_INIT;
        while (!scaled && gst_iterator_next(pads, &item) == GST_ITERATOR_OK) {
            GstPad* out = GST_PAD(g_value_get_object(&item));
            if (klass && std::strstr(klass, "Scaler")) {
                int in_w = 0, in_h = 0, out_w = 0, out_h = 0;
                scaled = !frame_size(sink, &in_w, &in_h) || !frame_size(out, &out_w, &out_h) || in_w != out_w ||
                         in_h != out_h;
            }
            scaled = scaled || scaled_downstream(out, depth + 1);
            g_value_reset(&item);
        }
        g_value_unset(&item);
        gst_iterator_free(pads);
    }
    if (element)
        gst_object_unref(element);
    gst_object_unref(sink);
    return scaled;
}

/* Asks downstream, once it has our caps, whether it takes
 * GstVideoOverlayCompositionMeta (as textoverlay does), so draw=auto can
 * attach rectangles instead of burning them in; not when a scaler between
 * would leave them at their unscaled place. */
void FrameQueue::query_overlay_meta_support()
{
    GstPad* srcpad = GST_BASE_TRANSFORM_SRC_PAD(element_);
    GstCaps* caps = gst_pad_get_current_caps(srcpad);
    if (!caps)
        return;
    GstQuery* query = gst_query_new_allocation(caps, FALSE);
    const bool answered = gst_pad_peer_query(srcpad, query);
    const bool takes =
        answered && gst_query_find_allocation_meta(query, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    const bool scaled = takes && scaled_downstream(srcpad);
    overlay_meta_downstream_ = takes && !scaled;
    overlay_meta_unknown_ = false;
    gst_query_unref(query);
    gst_caps_unref(caps);
    GST_DEBUG_OBJECT(element_, "downstream %s overlay composition meta%s", takes ? "takes" : "does not take",
                     scaled ? ", after a scaler that would leave it unscaled: draw=auto burns the boxes in" : "");
}

/* The boxes travel as a meta that only some elements render: say so once,
 * as an INFO message (gst-launch-1.0 prints its debug text, so that says
 * it too), since nothing fails and nothing shows. */
void FrameQueue::hint_draw_meta()
{
    if (active_.output.draw != GST_WALDBOOST_DRAW_META || overlay_meta_downstream_ || draw_meta_hinted_)
        return;
    draw_meta_hinted_ = true;
    GST_ELEMENT_INFO(element_, RESOURCE, SETTINGS,
                     ("draw=meta: nothing downstream says it renders GstVideoOverlayCompositionMeta, so the boxes "
                      "may not be shown; draw=burn draws them into the frames."),
                     ("draw=meta: downstream's ALLOCATION query does not list GstVideoOverlayCompositionMeta, so "
                      "the boxes may not be shown; draw=burn draws them into the frames"));
}

static std::string scale_factor_text(double factor)
{
    char text[32];
    g_snprintf(text, sizeof text, "%g", factor);
    return text;
}

/* "min-size 160 leaves", "min-height 90 leaves", "min-size 60 and
 * min-height 200 leave". */
static std::string minimum_text(const DetectionSettings& d)
{
    const std::string width = "min-size " + std::to_string(d.min_size);
    const std::string height = "min-height " + std::to_string(d.min_height);
    if (d.min_height <= 0)
        return width + " leaves";
    return d.min_size > 0 ? width + " and " + height + " leave" : height + " leaves";
}

/* Settings under which nothing can be detected (min-size above max-size, a
 * roi, min-size or min-height that leaves no window size in the frame) are
 * accepted, as OpenCV's detectMultiScale accepts them, but a user who sees no
 * detection should learn why: one warning per cause, again if it comes back
 * after going away. The core's scale plan decides; only a new generation of
 * settings or a new searched area is checked again. Holds lock_. */
void FrameQueue::hint_nothing_searched(const PendingFrame& pending)
{
    const DetectionSettings& d = active_.detection;
    const bool regions = d.inference_region == GST_WALDBOOST_INFERENCE_REGION_ROI_LIST;
    const std::string key = std::to_string(active_generation_) + " " + std::to_string(pending.roi.width) + "x" +
                            std::to_string(pending.roi.height) + (regions ? " regions" : "");
    if (key == nothing_searched_checked_)
        return;
    nothing_searched_checked_ = key;
    const waldboost::Classifier& c = setup_.classifier();
    std::string why;
    if (d.max_size > 0 && d.min_size > d.max_size) {
        why = "min-size " + std::to_string(d.min_size) + " is above max-size " + std::to_string(d.max_size);
    } else if (!regions) {
        std::vector<waldboost::ScaleLevel> levels;
        try {
            levels = waldboost::plan_scales({pending.roi.width, pending.roi.height}, c, frame_settings_->params);
        } catch (const std::exception&) {
            levels.push_back({}); /* the engine reports bad parameters */
        }
        const std::string area = std::string(d.roi.empty() ? "the frame" : "roi's area in the frame") + " (" +
                                 std::to_string(pending.roi.width) + "x" + std::to_string(pending.roi.height) + ")";
        const std::string window = std::to_string(c.window_width) + "x" + std::to_string(c.window_height);
        if (levels.empty()) {
            if (pending.roi.width < c.window_width || pending.roi.height < c.window_height)
                why = area + " is smaller than the classifier's window (" + window + ")";
            else if (d.max_size > 0 && d.max_size < c.window_width)
                why = "max-size " + std::to_string(d.max_size) + " is below the classifier's window (" + window + ")";
            else
                why = minimum_text(d) + " no window size of the pyramid (scale-factor " +
                      scale_factor_text(d.scale_factor) + ") that fits in " + area;
        }
    }
    if (why == nothing_searched_warned_)
        return;
    nothing_searched_warned_ = why;
    if (!why.empty())
        GST_ELEMENT_WARNING(
            element_, LIBRARY, SETTINGS, ("Nothing can be detected: %s.", why.c_str()),
            ("frame %" G_GUINT64_FORMAT ": no window size of the classifier is searched", pending.frame));
}

std::shared_ptr<wcl::Engine> FrameQueue::current_engine()
{
    std::lock_guard<std::mutex> guard(lock_);
    return engine_;
}

/* ------------------------------------------------------------------------ */
/* Submitting                                                               */

/* Upstream's buffer pool may have fewer buffers than this element keeps.
 * The element holds its input buffers until their frames leave (up to
 * max-inflight: they go out with their metadata, and a fallback device
 * runs them again from there). propose_allocation asks upstream for that
 * many more, but a camera or a hardware decoder often has a fixed pool (a
 * few buffers, a max the query cannot raise): holding every one of them
 * would make upstream wait forever for a free buffer. So when keeping
 * `input` would leave its pool without a free buffer (the buffers held here
 * from that pool, this one included, reaching the pool's max), the frame is
 * copied into memory of our own and the pool's buffer goes back at once, as
 * v4l2src copies when its own pool runs low. max-inflight and the latency
 * stay as set; only frames from such a pool cost a copy, and only while it
 * is short. Holding fewer frames instead (at most the pool's max minus one)
 * would need no copy but silently lower max-inflight and change the
 * latency the element reports; a max-inflight below the pool's max avoids
 * the copies. Holds lock_. */
GstBuffer* FrameQueue::keep_upstream_pool_free(GstBuffer* input)
{
    GstBufferPool* pool = input->pool;
    if (!pool)
        return input;
    GstStructure* config = gst_buffer_pool_get_config(pool);
    guint max = 0;
    const bool bounded =
        config && gst_buffer_pool_config_get_params(config, nullptr, nullptr, nullptr, &max) && max > 0;
    if (config)
        gst_structure_free(config);
    if (!bounded)
        return input;
    guint held = 1; /* this one */
    for (const PendingFrame& pending : pending_)
        held += pending.buffer->pool == pool;
    held += leaving_ && leaving_pool_ == pool;
    if (held < max)
        return input;
    GstBuffer* copy = gst_buffer_copy_deep(input);
    if (!copy)
        return input;
    if (!pool_copy_logged_) {
        GST_INFO_OBJECT(element_,
                        "upstream's pool has %u buffers and %u of them would be held here (max-inflight "
                        "%d): copying such frames so that upstream always has a free buffer",
                        max, held, active_.engine.max_inflight);
        pool_copy_logged_ = true;
    }
    GST_LOG_OBJECT(element_, "frame copied out of upstream's pool (%u of %u buffers held)", held, max);
    gst_buffer_unref(input);
    return copy;
}

/* The part of the frame that is shown: a GstVideoCropMeta's rectangle
 * (videocrop or a decoder attaches one instead of cropping when downstream
 * accepts it), clipped to the frame; else the whole frame. Only that part
 * is searched, and the results are in its coordinates, as if the frame had
 * been cropped: what a sink that honours the meta shows is what the boxes
 * describe, and nothing outside it is reported. Refusing the meta in the
 * ALLOCATION query instead would make upstream copy every frame, and a
 * decoder may attach it anyway. The crop is clipped to the frame's own
 * size, its GstVideoMeta's when it has one: videocrop's caps give the
 * cropped size while the buffer (and the crop's rectangle) is the whole
 * frame. */
static waldboost::Rect visible_rect(GstBuffer* buffer, int width, int height)
{
    waldboost::Rect r{0, 0, width, height};
    const GstVideoCropMeta* crop = gst_buffer_get_video_crop_meta(buffer);
    if (!crop)
        return r;
    /* A GstVideoMeta smaller than the caps leaves the frame unreadable
     * (map_checked_frame); one larger is the frame gst_video_frame_map()
     * maps. */
    if (const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer)) {
        width = static_cast<int>(std::clamp<guint>(meta->width, static_cast<guint>(width), G_MAXINT));
        height = static_cast<int>(std::clamp<guint>(meta->height, static_cast<guint>(height), G_MAXINT));
    }
    const gint64 x0 = std::min<gint64>(crop->x, width), y0 = std::min<gint64>(crop->y, height);
    const gint64 x1 = std::min<gint64>(gint64{crop->x} + crop->width, width);
    const gint64 y1 = std::min<gint64>(gint64{crop->y} + crop->height, height);
    r.x = static_cast<int>(x0);
    r.y = static_cast<int>(y0);
    r.width = static_cast<int>(std::max<gint64>(0, x1 - x0));
    r.height = static_cast<int>(std::max<gint64>(0, y1 - y0));
    return r;
}

/* The objects upstream attached to `buffer` (meta_objects.h: its
 * region-of-interest metas, then the ODMtds of its GstAnalytics relation
 * meta, as GStreamer 1.24's analytics elements attach them, an object
 * written both ways once) whose type `labels` names (every one when empty),
 * each clipped to `area` (in the visible frame's coordinates, as the boxes
 * are); those that miss it are left out. */
static std::vector<UpstreamRegion> upstream_regions(GstBuffer* buffer, const std::vector<std::string>& labels,
                                                    const waldboost::Rect& area)
{
    std::vector<UpstreamRegion> regions;
    for (const waldboost_metas::MetaObject& o : waldboost_metas::meta_objects(buffer)) {
        const char* type = g_quark_to_string(o.type);
        if (!labels.empty() && std::find(labels.begin(), labels.end(), type ? type : "") == labels.end())
            continue;
        const gint64 x0 = std::max<gint64>(o.x, area.x), y0 = std::max<gint64>(o.y, area.y);
        const gint64 x1 = std::min<gint64>(o.x + o.w, gint64{area.x} + area.width);
        const gint64 y1 = std::min<gint64>(o.y + o.h, gint64{area.y} + area.height);
        if (x1 <= x0 || y1 <= y0)
            continue;
        regions.push_back(UpstreamRegion{
            {static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0)},
            o.roi ? o.roi->id : -1,
            o.analytics_id});
    }
    return regions;
}

static_assert(kMaxRegionSearches <= wcl::Engine::kMaxAreas, "one submission holds a frame's regions");

GstFlowReturn FrameQueue::submit(GstBuffer* input)
{
    const GstFlowReturn ret = take_input(input);
    std::unique_ptr<std::pair<Settings, Settings>> restored;
    {
        std::lock_guard<std::mutex> guard(lock_);
        restored = std::move(restored_);
    }
    if (restored)
        notify_changed(G_OBJECT(element_), restored->first, restored->second);
    return ret;
}

GstFlowReturn FrameQueue::take_input(GstBuffer* input)
{
    if (!have_info_) {
        gst_buffer_unref(input);
        GST_ELEMENT_ERROR(element_, CORE, NEGOTIATION, (nullptr), ("received a buffer before caps"));
        return GST_FLOW_NOT_NEGOTIATED;
    }
    std::unique_lock<std::mutex> lock(lock_);
    if (failed_ || downstream_ != GST_FLOW_OK || flushing_) {
        gst_buffer_unref(input);
        return failed_ ? GST_FLOW_ERROR : flushing_ ? GST_FLOW_FLUSHING : downstream_;
    }
    const GstFlowReturn ret = apply_settings(lock);
    if (ret != GST_FLOW_OK) {
        gst_buffer_unref(input);
        return ret;
    }
    if (overlay_meta_unknown_)
        query_overlay_meta_support();
    hint_draw_meta();
    PendingFrame pending;
    pending.buffer = keep_upstream_pool_free(input);
    pending.frame = frame_count_++;
    pending.settings = frame_settings_;
    pending.draw = draw_mode(active_.output.draw, overlay_meta_downstream_);
    /* Frame numbers restart at 0 with the stream, so the first frame is
     * always searched; so is the first after the tracker starts afresh,
     * which would have nothing to follow (nor privacy to hide) until the
     * next search. */
    const DetectionSettings& d = active_.detection;
    if (restart_interval_.exchange(false))
        interval_from_ = pending.frame;
    pending.detect = d.interval <= 1 || (pending.frame - interval_from_) % static_cast<guint64>(d.interval) == 0;
    if (pending.detect && skip_late_frame(pending)) {
        pending.detect = false;
        restart_interval_ = true; /* the next frame in time is searched */
    }
    pending.visible = visible_rect(pending.buffer, GST_VIDEO_INFO_WIDTH(&info_), GST_VIDEO_INFO_HEIGHT(&info_));
    /* roi is in the visible frame's coordinates, as the results are. */
    pending.roi = roi_in_frame(d.roi, pending.visible.width, pending.visible.height);
    pending.roi.x += pending.visible.x;
    pending.roi.y += pending.visible.y;
    if (pending.detect)
        hint_nothing_searched(pending);
    if (d.inference_region == GST_WALDBOOST_INFERENCE_REGION_ROI_LIST) {
        /* Only inside the regions, all of them in one submission. */
        if (pending.detect) {
            const waldboost::Rect searched{pending.roi.x - pending.visible.x, pending.roi.y - pending.visible.y,
                                           pending.roi.width, pending.roi.height};
            pending.regions = upstream_regions(pending.buffer, d.region_labels, searched);
        }
        if (!pending.regions.empty())
            return submit_frame(lock, pending);
        pending_.push_back(pending);
        return wait_for_room(lock);
    }
    const waldboost::Classifier& classifier = setup_.classifier();
    if (pending.detect && pending.roi.width >= classifier.window_width &&
        pending.roi.height >= classifier.window_height)
        return submit_frame(lock, pending);
    /* A frame with nothing to scan passes in order, without detections. */
    pending_.push_back(pending);
    return wait_for_room(lock);
}

/* Puts a frame that is to be searched on the device and queues it. Holds
 * `lock` but while it submits. */
GstFlowReturn FrameQueue::submit_frame(std::unique_lock<std::mutex>& lock, PendingFrame& pending)
{
    /* The engine may hold fewer frames than the queue after a change. */
    changed_.wait(lock, [this] {
        return flushing_ || failed_ || worker_stop_ ||
               (engine_->can_submit() && (engine_->in_flight() == 0 || !one_frame_at_a_time()));
    });
    if (flushing_ || failed_ || worker_stop_) {
        gst_buffer_unref(pending.buffer);
        return failed_ ? GST_FLOW_ERROR : GST_FLOW_FLUSHING;
    }
    std::string unreadable;
    const std::shared_ptr<wcl::Engine> engine = engine_;
    std::exception_ptr failure;
    /* Without the lock: the worker collects meanwhile. */
    submitting_ = true;
    lock.unlock();
    const gint64 started = thread_cpu_ns();
    pending.submitted_us = g_get_monotonic_time();
    try {
        pending.submitted = submit_to_engine(*engine, pending, &unreadable);
    } catch (...) {
        failure = std::current_exception();
    }
    pending.host_ns += thread_cpu_ns() - started;
    lock.lock();
    submitting_ = false;
    changed_.notify_all();
    if (failure) {
        /* One fallback at a time: a collect under way may be failing too. */
        changed_.wait(lock, [this] {
            return !collecting_;
        });
        if (failed_) {
            gst_buffer_unref(pending.buffer);
            return GST_FLOW_ERROR;
        }
        /* Runs on the fallback device with the frames before it. */
        pending.submitted = true;
        pending_.push_back(pending);
        try {
            if (engine == engine_)
                std::rethrow_exception(failure);
            /* The worker fell back meanwhile, with the frames it had. */
            pending_.back().submitted = submit_to_engine(*engine_, pending);
        } catch (const std::exception& e) {
            if (!fall_back(e)) {
                drop_pending();
                failed_ = true;
                changed_.notify_all();
                return GST_FLOW_ERROR;
            }
        }
        return wait_for_room(lock);
    }
    if (!pending.submitted && !unreadable.empty()) {
        /* A buffer smaller than its caps claim, or whose GstVideoMeta
         * claims more than it holds: pass it on unchanged, without
         * results. */
        unreadable_.warn(GST_ELEMENT(element_), unreadable);
        pending.unreadable = true;
    }
    pending_.push_back(pending);
    return wait_for_room(lock);
}

/* Puts a frame on the device: its luma plane, cropped to its region of
 * interest. False when it did not: with the reason in `why` when the
 * buffer cannot be read (see map_checked_frame), with `why` empty when the
 * region's standard deviation is below min-stddev (facedetect's rule: such
 * a frame has no detections). Throws what the engine throws. */
bool FrameQueue::submit_to_engine(wcl::Engine& engine, const PendingFrame& pending, std::string* why)
{
    GstVideoFrame frame;
    std::string problem;
    if (!map_checked_frame(&frame, &info_, pending.buffer, GST_MAP_READ, &problem)) {
        if (why)
            *why = problem;
        return false;
    }
    const waldboost::GrayView luma = luma_of(&frame, &packed_luma_);
    const waldboost::Rect& roi = pending.roi;
    const waldboost::GrayView view{luma.data + static_cast<size_t>(roi.y) * luma.stride + roi.x, roi.width, roi.height,
                                   luma.stride};
    if (pending.settings->search_regions) {
        /* The first kMaxRegionSearches regions, from the visible frame's
         * pixels to the view's; min-stddev is a whole frame's rule. */
        std::vector<waldboost::Rect> areas;
        for (size_t i = 0; i < std::min(pending.regions.size(), kMaxRegionSearches); ++i) {
            waldboost::Rect r = pending.regions[i].rect;
            r.x -= roi.x - pending.visible.x;
            r.y -= roi.y - pending.visible.y;
            areas.push_back(r);
        }
        try {
            engine.submit_areas(view, areas, pending.settings->params);
        } catch (...) {
            gst_video_frame_unmap(&frame);
            throw;
        }
        gst_video_frame_unmap(&frame);
        return true;
    }
    const int min_stddev = pending.settings->detection.min_stddev;
    if (min_stddev > 0) {
        const double stddev = waldboost::standard_deviation(view);
        if (stddev < min_stddev) {
            GST_LOG_OBJECT(element_,
                           "frame %" G_GUINT64_FORMAT ": standard deviation %.2f is below min-stddev=%d, "
                           "not searched",
                           pending.frame, stddev, min_stddev);
            gst_video_frame_unmap(&frame);
            if (why)
                why->clear();
            return false;
        }
    }
    try {
        engine.submit(view, pending.settings->params);
    } catch (...) {
        gst_video_frame_unmap(&frame);
        throw;
    }
    gst_video_frame_unmap(&frame);
    return true;
}

/* Frames that may be in flight: max-inflight, or fewer when that many
 * frames of this size do not fit the device's memory (with one warning). */
size_t FrameQueue::inflight_limit()
{
    const int max_inflight = active_.engine.max_inflight;
    size_t limit = static_cast<size_t>(max_inflight);
    if (engine_ && engine_->in_flight_limit() < limit) {
        limit = engine_->in_flight_limit();
        if (inflight_limit_warned_ != limit) {
            inflight_limit_warned_ = limit;
            const int mib = static_cast<int>(engine_->frame_memory_bytes() >> 20);
            if (engine_->in_flight_limited_by_failure())
                GST_ELEMENT_WARNING(element_, RESOURCE, NO_SPACE_LEFT,
                                    ("The OpenCL device refused memory for one more frame in flight; %u frames are "
                                     "kept in flight instead of max-inflight=%d at this frame size.",
                                     static_cast<unsigned>(limit), max_inflight),
                                    ("an allocation for a frame in flight failed on %s (each frame takes about %d "
                                     "MiB); the queue shrank to the frames that have their buffers, and a new frame "
                                     "size tries max-inflight again. Other programs on the device may hold its "
                                     "memory; a lower max-inflight avoids the retry",
                                     waldboost::printable(engine_->device().device_name).c_str(), mib));
            else
                GST_ELEMENT_WARNING(element_, RESOURCE, NO_SPACE_LEFT,
                                    ("max-inflight=%d does not fit the device's memory at this frame size; %u frames "
                                     "are kept in flight instead.",
                                     max_inflight, static_cast<unsigned>(limit)),
                                    ("each frame in flight takes about %d MiB on %s; lower max-inflight, scale the "
                                     "frames down or raise min-size to silence this",
                                     mib, waldboost::printable(engine_->device().device_name).c_str()));
        }
    }
    return limit;
}

/* Frames that take a second or more on the device go to it one at a time,
 * and so do a new engine's frames until one has been timed: a stop or a
 * settings change then waits for at most one frame's work (a hostile
 * classifier can make that minutes), while frames in flight overlap only
 * the few milliseconds of upload and host work that frames so slow do not
 * miss. Holds lock_. */
static constexpr gint64 kSlowFrameUs = G_USEC_PER_SEC;

bool FrameQueue::one_frame_at_a_time() const { return !engine_ || timed_fast_.lock() != engine_; }

/* The worker saw the oldest frame done: its time on the device, from when
 * it was submitted or the frame before it was done, whichever came later
 * (frames queued behind another wait for it). Holds lock_. */
void FrameQueue::time_oldest_frame()
{
    const gint64 done = g_get_monotonic_time();
    const gint64 began = std::max(pending_.front().submitted_us, last_done_us_);
    last_done_us_ = done;
    if (done - began < kSlowFrameUs)
        timed_fast_ = engine_;
    else
        timed_fast_.reset();
}

/* The frame just queued is with the worker; the streaming thread goes on
 * once fewer than frames_held() frames are in flight (max-inflight, or with
 * interval > 1 up to kHeldPerDetectionFrame times as many, the frames on
 * the device staying at max-inflight), so upstream works while the device
 * does. */
GstFlowReturn FrameQueue::wait_for_room(std::unique_lock<std::mutex>& lock)
{
    changed_.notify_all();
    const size_t limit = frames_held(inflight_limit(), active_.detection.interval);
    changed_.wait(lock, [this, limit] {
        return pending_.size() < limit || flushing_ || failed_ || worker_stop_;
    });
    if (failed_)
        return GST_FLOW_ERROR;
    if (flushing_ || worker_stop_)
        return GST_FLOW_FLUSHING;
    return downstream_;
}

/* ------------------------------------------------------------------------ */
/* Device failures                                                          */

/* Drops the frames in flight after a failure that nothing could recover;
 * the next frame builds a new engine. Holds lock_. */
void FrameQueue::drop_pending()
{
    for (PendingFrame& pending : pending_)
        gst_buffer_unref(pending.buffer);
    pending_.clear();
    engine_.reset();
}

/* The engine failed while streaming: when another device may do better
 * (the failure is the device's, not the frame's or the settings'), moves on
 * to the next device of the list and runs every frame in flight again
 * there, in order, so that none is lost. Without a device left, or for a
 * failure no device would avoid (a frame too large), posts the error and
 * returns false. Holds lock_. */
bool FrameQueue::fall_back(const std::exception& failure)
{
    GstElement* self = GST_ELEMENT(element_);
    const std::vector<std::string> specs = wcl::split_device_list(active_.engine.device);
    std::string why = failure.what();
    ErrorKind kind = kind_of(failure, ErrorKind::Device);
    while (another_device_may_help(kind, Phase::Streaming) && setup_.device_position() + 1 < specs.size()) {
        const size_t failed = setup_.device_position();
        GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                            ("OpenCL device \"%s\" failed while streaming (%s); falling back to \"%s\".",
                             waldboost::printable(specs[failed]).c_str(), reason_of(why).c_str(),
                             waldboost::printable(specs[failed + 1]).c_str()),
                            ("%s", why.c_str()));
        engine_.reset();
        engine_ = setup_.build(active_, failed + 1);
        if (!engine_)
            return false; /* build posted the error */
        try {
            for (PendingFrame& pending : pending_)
                if (pending.submitted)
                    pending.submitted = submit_to_engine(*engine_, pending);
            return true;
        } catch (const std::exception& e) {
            why = e.what();
            kind = kind_of(e, ErrorKind::Device);
        }
    }
    const size_t position = setup_.device_position();
    const std::string device = position < specs.size() ? specs[position] : active_.engine.device;
    post_error(self, active_.engine.classifier_path, kind, why, device, Phase::Streaming);
    return false;
}

/* ------------------------------------------------------------------------ */
/* Draining and flushing                                                    */

/* Waits until every frame has left (the worker pushed it), a flush began,
 * or the device failed. Holds `lock` (on lock_). */
void FrameQueue::wait_until_drained(std::unique_lock<std::mutex>& lock)
{
    changed_.wait(lock, [this] {
        return (pending_.empty() && !leaving_) || flushing_ || worker_stop_;
    });
}

void FrameQueue::drain()
{
    std::unique_lock<std::mutex> lock(lock_);
    wait_until_drained(lock);
}

void FrameQueue::end_of_stream()
{
    {
        std::unique_lock<std::mutex> lock(lock_);
        wait_until_drained(lock);
        /* Flushing or stopping: the worker may still be finishing a frame,
         * and the tracks are dropped or left by the flush anyway. */
        if (flushing_ || worker_stop_)
            return;
    }
    /* Only this (the streaming) thread gives the worker frames: it stays
     * idle while the open tracks leave. */
    finisher_.end_of_stream();
}

/* Drops every frame in flight (flush, stop), the worker idle. Holds
 * lock_. */
void FrameQueue::discard_all()
{
    for (PendingFrame& pending : pending_) {
        if (pending.submitted && engine_) {
            try {
                engine_->collect();
            } catch (const std::exception& e) {
                GST_WARNING_OBJECT(element_, "discarding a frame in flight: %s", e.what());
            }
        }
        gst_buffer_unref(pending.buffer);
    }
    pending_.clear();
}

void FrameQueue::flush_start()
{
    /* Wakes the streaming thread; the worker stops taking frames, and its
     * push in progress returns once the flush reaches downstream. */
    std::lock_guard<std::mutex> guard(lock_);
    flushing_ = true;
    changed_.notify_all();
}

void FrameQueue::flush_stop()
{
    std::unique_lock<std::mutex> lock(lock_);
    changed_.wait(lock, [this] {
        return !leaving_ || worker_stop_;
    });
    discard_all();
    flushing_ = false;
    downstream_ = GST_FLOW_OK;
    finisher_.reset_tracker(); /* a seek: the objects of before are not the ones to come */
    restart_interval_ = true;
    qos_earliest_ = GST_CLOCK_TIME_NONE;
}

/* ------------------------------------------------------------------------ */
/* The worker                                                               */

void FrameQueue::start_worker()
{
    {
        std::lock_guard<std::mutex> guard(lock_);
        worker_stop_ = false;
        flushing_ = false;
        failed_ = false;
        downstream_ = GST_FLOW_OK;
    }
    gst_pad_start_task(GST_BASE_TRANSFORM_SRC_PAD(element_), &FrameQueue::worker_task, this, nullptr);
}

void FrameQueue::stop_worker(bool join)
{
    std::shared_ptr<wcl::Engine> engine;
    {
        std::lock_guard<std::mutex> guard(lock_);
        worker_stop_ = true;
        engine = engine_;
    }
    /* The frames in flight are dropped: they need not end. A frame a
     * hostile classifier makes last minutes would hold the stop as long. */
    if (engine)
        engine->abandon_frames();
    changed_.notify_all();
    if (join)
        gst_pad_stop_task(GST_BASE_TRANSFORM_SRC_PAD(element_));
}

void FrameQueue::worker_task(gpointer queue) { static_cast<FrameQueue*>(queue)->run_worker(); }

/* Takes the oldest frame out of `pending_` with its results (nullopt: it
 * was not on the device). Holds `lock` (on lock_) but while it collects,
 * so that the streaming thread submits meanwhile. When the device failed,
 * the frame goes back to the front and a fallback runs the frames again on
 * the next device (false: take again); without one the error is posted,
 * every frame dropped, `failed_` set and false returned. */
bool FrameQueue::take_oldest(std::unique_lock<std::mutex>& lock, PendingFrame* out,
                             std::optional<wcl::FrameResult>* result)
{
    *out = pending_.front();
    pending_.pop_front();
    leaving_ = true;
    leaving_pool_ = out->buffer->pool;
    if (!out->submitted)
        return true;
    const std::shared_ptr<wcl::Engine> engine = engine_;
    collecting_ = true;
    lock.unlock();
    std::exception_ptr failure;
    const gint64 started = thread_cpu_ns();
    try {
        *result = engine->collect();
    } catch (...) {
        failure = std::current_exception();
    }
    out->host_ns += thread_cpu_ns() - started;
    lock.lock();
    collecting_ = false;
    changed_.notify_all();
    if (!failure)
        return true;
    pending_.push_front(*out);
    leaving_ = false;
    leaving_pool_ = nullptr;
    /* One fallback at a time: a submit under way may be failing too. */
    changed_.wait(lock, [this] {
        return !submitting_;
    });
    if (failed_ || engine != engine_)
        return false; /* the streaming thread has dealt with it */
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        if (!fall_back(e)) {
            drop_pending();
            failed_ = true;
        }
    }
    return false;
}

/* One run of the source pad's task (so applications get its STREAM_STATUS
 * messages, as for queue's): waits (without the lock) until the oldest
 * frame is done on the device, takes it with its results, finishes it and
 * pushes it downstream, so that the streaming thread never waits for the
 * device unless max-inflight frames are with the element. */
void FrameQueue::run_worker()
{
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(element_);
    std::unique_lock<std::mutex> lock(lock_);
    changed_.wait(lock, [this] {
        return worker_stop_ || (!pending_.empty() && !flushing_);
    });
    if (worker_stop_) {
        lock.unlock();
        gst_pad_pause_task(src);
        return;
    }
    if (pending_.front().submitted) {
        const std::shared_ptr<wcl::Engine> engine = engine_;
        lock.unlock();
        engine->wait_for_oldest();
        lock.lock();
        /* A flush, a stop or a fallback may have come meanwhile. */
        if (worker_stop_ || flushing_ || pending_.empty() || engine != engine_)
            return;
        time_oldest_frame();
    }
    PendingFrame pending;
    std::optional<wcl::FrameResult> result;
    if (!take_oldest(lock, &pending, &result)) {
        changed_.notify_all();
        return;
    }
    changed_.notify_all(); /* room for the next frame */
    /* The tracker's search runs on the engine's device. */
    const std::shared_ptr<wcl::Engine> engine = engine_;
    lock.unlock();
    GstBuffer* buffer = finisher_.finish(pending, result ? &*result : nullptr, info_, engine);
    const GstFlowReturn ret = downstream_answer(src, gst_pad_push(src, buffer));
    lock.lock();
    leaving_ = false;
    leaving_pool_ = nullptr;
    if (ret != GST_FLOW_OK) {
        GST_DEBUG_OBJECT(element_, "downstream answered %s", gst_flow_get_name(ret));
        if (downstream_ == GST_FLOW_OK)
            downstream_ = ret;
    }
    changed_.notify_all();
}

}  // namespace waldboost_element
