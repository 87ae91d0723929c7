/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The frames in flight and the worker. The streaming thread submits a frame
 * to the engine and returns; the worker (the source pad's task) waits for
 * the device, finishes each frame (frame_finisher.h) and pushes it
 * downstream, in order. Serialized events drain the queue, a flush empties
 * it, and a device that fails hands the frames in flight to the next one.
 */
#pragma once

#include <gst/base/gstbasetransform.h>
#include <gst/video/video.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/opencl/engine/engine.h"
#include "engine_setup.h"
#include "errors.h"
#include "frame_finisher.h"
#include "settings.h"
#include "stats.h"

namespace waldboost_element {

/* Downstream's answer to what the source pad `src` sent (a buffer, or an
 * event upstream sent on): an error class answer (NOT_NEGOTIATED, ERROR,
 * NOT_SUPPORTED) becomes FLUSHING while `src` or its peer is flushing.
 * A pipeline stops from its sink: basesink refuses a serialized event with
 * FALSE once it is flushing, and GStreamer makes that an error for the
 * push that carried the event (a sticky event resent before a buffer).
 * Passed upstream as it is, a source would stop the pipeline with
 * "Internal data stream error" while nothing was wrong. The peer's flag
 * stays set until the pipeline's stop has passed this element, which
 * joins the worker first, so the check after the push is not too late. */
GstFlowReturn downstream_answer(GstPad* src, GstFlowReturn ret);

class FrameQueue {
public:
    FrameQueue(GstBaseTransform* element, SettingsStore& settings, SharedStats& stats);
    ~FrameQueue();
    FrameQueue(const FrameQueue&) = delete;
    FrameQueue& operator=(const FrameQueue&) = delete;

    /* GstBaseTransform start and stop: the engine set up (false after
     * posting the error) and the worker started; the worker stopped and
     * every frame dropped. */
    bool start();
    void stop();
    /* The engine frames go to now (null when stopped), for the pool that
     * propose_allocation offers (pinned_pool.h). */
    std::shared_ptr<waldboost::opencl::Engine> current_engine();
    /* The negotiated caps (streaming thread). */
    void set_info(const GstVideoInfo& info);
    /* The stream's frame rate, once negotiated (any thread). */
    bool frame_rate(int* fps_n, int* fps_d) const;

    /* Takes a frame: applies changed settings, puts the frame on the device
     * and returns once fewer than max-inflight frames are in flight, with
     * downstream's last answer. */
    GstFlowReturn submit(GstBuffer* input);
    /* Waits until every frame in flight has left (before a serialized
     * event), a flush began or the element stopped. */
    void drain();
    /* EOS: drain, then every open track leaves (tracking). */
    void end_of_stream();
    /* FLUSH_START: the streaming thread and the worker stop waiting;
     * FLUSH_STOP: the frames in flight are dropped, the tracker restarts. */
    void flush_start();
    void flush_stop();
    /* Wakes the worker so that its run ends; with `join`, waits for it. */
    void stop_worker(bool join);
    /* A QOS event from downstream (any thread): frames whose running time
     * is at most `timestamp` + `diff` are late already, and when `diff` is
     * positive (late) up to `timestamp` + 2 x `diff` + one frame (GStreamer's
     * estimate for the next frame that can be on time, the video decoders'
     * rule); with qos=true they pass without a search. */
    void qos(GstClockTimeDiff diff, GstClockTime timestamp);

private:
    GstFlowReturn apply_settings(std::unique_lock<std::mutex>& lock);
    void activate(const Settings& s, guint64 generation);
    void keep_running_settings(Settings* s);
    /* submit() but for the notifications of restored properties. */
    GstFlowReturn take_input(GstBuffer* input);
    void query_overlay_meta_support();
    void hint_draw_meta();
    void hint_nothing_searched(const PendingFrame& pending);
    bool skip_late_frame(const PendingFrame& pending);
    GstBuffer* keep_upstream_pool_free(GstBuffer* input);
    GstFlowReturn submit_frame(std::unique_lock<std::mutex>& lock, PendingFrame& pending);
    bool submit_to_engine(waldboost::opencl::Engine& engine, const PendingFrame& pending, std::string* why = nullptr);
    bool fall_back(const std::exception& failure);
    void drop_pending();
    size_t inflight_limit();
    GstFlowReturn wait_for_room(std::unique_lock<std::mutex>& lock);
    void wait_until_drained(std::unique_lock<std::mutex>& lock);
    void discard_all();
    void start_worker();
    static void worker_task(gpointer queue);
    void run_worker();
    bool one_frame_at_a_time() const;
    void time_oldest_frame();
    bool take_oldest(std::unique_lock<std::mutex>& lock, PendingFrame* out,
                     std::optional<waldboost::opencl::FrameResult>* result);

    GstBaseTransform* element_;
    SettingsStore& settings_; /* written back only when a change cannot be applied */
    SharedStats& stats_;
    EngineSetup setup_;
    FrameFinisher finisher_; /* worker state */

    /* Streaming-thread state. */
    Settings active_;
    guint64 active_generation_ = 0;                       /* SettingsStore::generation of active_ */
    std::shared_ptr<const FrameSettings> frame_settings_; /* of active_, for the frames */
    GstVideoInfo info_;
    bool have_info_ = false;
    mutable std::mutex info_lock_; /* the LATENCY query reads the frame rate from another thread */
    bool overlay_meta_downstream_ = false;
    bool overlay_meta_unknown_ = true; /* ask downstream at the next frame */
    /* Packed 4:2:2's luma or RGB's gray, made for the engine, which copies it again:
     * kept from frame to frame, as fresh memory for every frame cost more
     * than the copy. submit_to_engine() alone uses it, and its calls never
     * overlap (see lock_). */
    std::vector<uint8_t> packed_luma_;
    guint64 frame_count_ = 0;
    /* interval counts from this frame, which is searched: the first, and
     * the first after the tracker starts afresh (set by a flush from
     * another thread, hence atomic; by a settings change) */
    guint64 interval_from_ = 0;
    std::atomic<bool> restart_interval_{false};
    bool draw_meta_hinted_ = false;        /* the draw=meta hint was posted */
    std::string nothing_searched_checked_; /* settings and area hint_nothing_searched checked last */
    std::string nothing_searched_warned_;  /* its last warning's cause; empty: none */
    bool qos_hinted_ = false;              /* the first late frame's INFO message was posted */
    /* The running time up to which frames cannot reach the sink in time
     * (QOS events, from the sink's thread; qos()); GST_CLOCK_TIME_NONE:
     * none. */
    std::atomic<GstClockTime> qos_earliest_{GST_CLOCK_TIME_NONE};
    bool pool_copy_logged_ = false;    /* keep_upstream_pool_free said why it copies */
    size_t inflight_limit_warned_ = 0; /* the engine's in-flight limit last warned about */
    UnreadableWarnings unreadable_;

    /* lock_ guards the engine pointer, the frames in flight and the flags
     * below. The streaming thread's submit and the worker's wait and
     * collect run without it, at the same time (the engine allows one
     * submitter and one collector); anything else that uses the engine (a
     * fallback, a flush, a new engine) holds it and waits until neither is
     * under way. */
    std::mutex lock_;
    std::condition_variable changed_;
    std::shared_ptr<waldboost::opencl::Engine> engine_;
    std::deque<PendingFrame> pending_; /* in submission order */
    bool worker_stop_ = false;
    bool flushing_ = false;                 /* between FLUSH_START and FLUSH_STOP */
    GstBufferPool* leaving_pool_ = nullptr; /* of the frame the worker is finishing or pushing */
    bool leaving_ = false;                  /* the worker holds a frame out of `pending_` */
    bool submitting_ = false;               /* the streaming thread is in Engine::submit */
    bool collecting_ = false;               /* the worker is in Engine::collect */
    /* Downstream's answer to a push, when not OK: returned to upstream
     * from then on, until a flush or a restart (as queue does). */
    GstFlowReturn downstream_ = GST_FLOW_OK;
    bool failed_ = false; /* the device failed beyond fallback: GST_FLOW_ERROR was posted */
    /* The properties' values before and after keep_running_settings()
     * restored some, until submit() notifies them (without lock_, since a
     * handler may read or set properties). */
    std::unique_ptr<std::pair<Settings, Settings>> restored_;
    /* The engine whose last frame took less than kSlowFrameUs on the
     * device, and when the device last finished a frame (one_frame_at_a_time). */
    std::weak_ptr<waldboost::opencl::Engine> timed_fast_;
    gint64 last_done_us_ = 0;
};

}  // namespace waldboost_element
