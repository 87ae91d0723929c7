/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Batched launches: the frames that engines sharing a device, a program
 * and a classifier submit at about the same moment go to the device as one
 * set of launches (their pyramids stacked in one canvas, geometry.h's
 * BatchGeometry). Dozens of small launches per frame become one set for
 * many frames: the device fills up at the small pyramid levels, and the
 * per-launch cost is paid once.
 *
 * A dispatcher thread per queue launches a batch whenever one of its
 * batch slots is free: the frames waiting then go together. A frame may
 * also wait for companions up to its own wait budget while fewer frames
 * wait than engines use the queue; with one engine nothing waits. The same
 * thread reads a finished batch back and hands each frame its accepted
 * windows. A frame whose windows outgrew the accepted list runs again
 * alone (with its fellow overflowing frames), never the whole batch.
 *
 * A second thread, the watcher, waits on the launched batches' last
 * commands in launch order and tells the dispatcher when each is done. It
 * replaced an event callback (clSetEventCallback): on an NVIDIA H200, with
 * 16 streams and nested parts, the driver stopped delivering callbacks and
 * running the queued batches, while the dispatcher sat in its next launch,
 * and most runs hung (docs/history.md, "Figures behind the code's
 * choices"). Waiting on an event is the path every unbatched
 * frame takes.
 */
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/frame_slot.h"
#include "core/opencl/engine/geometry.h"
#include "core/opencl/engine/shared_device.h"
#include "core/opencl/engine/stop_flag.h"

namespace waldboost::opencl {

/* Window positions per compute unit above which a GPU frame is launched
 * alone rather than batched: such a frame fills the device by itself. On
 * the H200 (132 compute units) 1920x1080 frames (34,200 per unit) gained
 * in pairs at 16 and 64 streams once batches were capped, and 4K frames
 * (137,000) lost batched (docs/history.md, "Figures behind the code's
 * choices"). */
inline constexpr uint64_t kBatchWindowsPerComputeUnit = 36000;

/* The window positions per compute unit a GPU batch holds at most, or two
 * frames, whichever is more: on the H200 batches of up to 64 frames left
 * the device idle between them; capped at 48,000 per unit, many streams of
 * small frames made far more frames than uncapped, and higher caps less;
 * two 1080p frames (68,400) together gained over one (docs/history.md,
 * "Figures behind the code's choices"). */
inline constexpr uint64_t kBatchWindowsPerBatchPerComputeUnit = 48000;

/* Below that, a GPU frame is batched only while its window positions per
 * compute unit are at most this many times the engines using its queue:
 * a few engines' own launches overlap well on the device. On the H200,
 * two streams of 640x480 (4,600 per unit) gained from batching and two of
 * 720p (14,500) and 1080p lost; four of 720p gained and four of 1080p
 * lost; 16 and 64 of 1080p gained (docs/history.md, "Figures behind the
 * code's choices"). */
inline constexpr uint64_t kBatchWindowsPerEnginePerComputeUnit = 5000;

/* EngineConfig::batch_max_windows's and batch_windows's defaults on
 * `device` with `engines` engines using the queue: on a GPU, the constants
 * above per compute unit; elsewhere no limit, as before (on 2 CPU cores
 * batching neither gained nor lost at 320x240 and 640x480). */
uint64_t default_batch_max_windows(const DeviceInfo& device, long engines);
uint64_t default_batch_windows(const DeviceInfo& device);

/* One frame handed to a BatchQueue. The engine fills the inputs, keeps the
 * pixels alive until `done`, and reads the results after. */
struct BatchRequest {
    std::shared_ptr<const Geometry> geometry;
    const uint8_t* pixels = nullptr;                /* the frame's tight copy (pinned staging) */
    int64_t final_threshold = 0;                    /* fixed point, as the kernels compare */
    uint64_t memory_bytes = 0;                      /* slot_sizes() of its geometry */
    uint64_t batch_max_positions = UINT64_MAX;      /* window positions a batch led by this frame may hold */
    std::chrono::steady_clock::time_point deadline; /* launched by then even without companions */

    /* Results, set by the dispatcher before `done`. */
    bool done = false;
    std::exception_ptr error;
    std::vector<shared::Accepted> accepted; /* indices in the frame's own scan order */
    int batch_frames = 0;
    int reruns = 0;
    std::vector<cl_uint> counters;                                                         /* the batch's counters */
    std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> kernels, transfers; /* batch's, with profiling */
};

class BatchQueue {
public:
    /* `slots`: batches in flight at once, each with its own device queue. */
    /* Holds the device's context, not the SharedDevice: SharedDevice::users()
     * counts engines. */
    BatchQueue(SharedDevice& device, std::shared_ptr<const cl::Program> program,
               std::shared_ptr<const DeviceClassifier> classifier, const EnginePlan& plan, uint64_t memory_budget,
               int slots);
    ~BatchQueue();
    BatchQueue(const BatchQueue&) = delete;
    BatchQueue& operator=(const BatchQueue&) = delete;

    /* Engines using the queue: a frame waits for companions only while
     * fewer frames wait than there are engines. */
    void join();
    void leave();
    long engines() const;
    /* Engines holding the queue, using it or not (their frames too large
     * for it for now): what the default batch_max_windows scales with. */
    void attach();
    void detach();
    long attached() const;

    void submit(const std::shared_ptr<BatchRequest>& request);
    /* Blocks until `request` is done. */
    void wait(const BatchRequest& request);
    /* Takes a frame not yet launched back (its engine is going away);
     * false when it was launched: wait() for it then. */
    bool withdraw(const std::shared_ptr<BatchRequest>& request);

    /* Batches launched and frames in them so far (for tests and stats). */
    uint64_t batches_launched() const;
    uint64_t frames_launched() const;

private:
    struct Batch;
    void run();
    void watch_launched();
    std::vector<std::shared_ptr<BatchRequest>> take_batch();
    void launch(Batch& batch, size_t min_accepted = 0);
    void finish(Batch& batch);
    template <typename Step>
    std::exception_ptr attempt(Batch& batch, const char* what, const Step& step);
    void hand_back(Batch& batch, const std::exception_ptr& error);
    void rerun_overflowing(Batch& batch, const std::vector<size_t>& members);
    std::shared_ptr<const BatchGeometry> geometry_for(const std::vector<std::shared_ptr<BatchRequest>>& requests);

    cl::Context context_;
    /* The stop flag of the batches' slots (EnginePlan::reads_stop_flag):
     * never raised, since a batch holds other engines' frames too. */
    std::unique_ptr<StopFlag> stop_flag_;
    std::shared_ptr<BusyTime> busy_;
    std::shared_ptr<const cl::Program> program_;
    std::shared_ptr<const DeviceClassifier> classifier_;
    EnginePlan plan_;
    uint64_t slot_budget_ = 0;  /* bytes one batch may take */
    size_t accepted_floor_ = 0; /* accepted windows of the largest batch that overflowed (dispatcher only) */

    mutable std::mutex lock_;
    std::condition_variable wake_;     /* the dispatcher: a frame, a finished batch, stop */
    std::condition_variable launched_; /* the watcher: a batch launched, stop */
    std::condition_variable finished_; /* engines waiting for their frames */
    std::deque<std::shared_ptr<BatchRequest>> pending_;
    std::vector<std::unique_ptr<Batch>> batches_; /* one per slot */
    std::deque<Batch*> watched_;                  /* launched and not yet complete, in launch order */
    bool stop_watching_ = false;
    long engines_ = 0;
    long attached_ = 0;
    bool stop_ = false;
    uint64_t batches_launched_ = 0, frames_launched_ = 0;
    /* Recently used layouts, newest last: a batch of the same frame shapes
     * reuses one. */
    std::vector<std::shared_ptr<const BatchGeometry>> layouts_;
    std::thread dispatcher_;
    std::thread watcher_;
};

}  // namespace waldboost::opencl
