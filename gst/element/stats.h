/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's `stats` property: what the engine set-up and the worker
 * count, read from any thread.
 */
#pragma once

#include <gst/gst.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/opencl/engine/engine.h"
#include "core/thread_time.h"

namespace waldboost_element {

struct Stats {
    guint64 frames = 0;
    double device_ms = 0;
    double weak_per_window = 0;
    guint64 windows = 0;
    std::vector<guint64> candidates;
    std::string scan; /* "rows" or "reduction" */
    guint64 discarded = 0;
    guint64 windows_cut = 0; /* accepted windows past max-windows, all frames */
    guint64 detections = 0;
    std::string device;                /* the device detection runs on */
    guint64 fallbacks = 0;             /* moves to a later device of the list */
    int batch_frames = 0;              /* frames launched with the last one (batching) */
    double host_ms = 0;                /* CPU time of the last frame (PendingFrame::host_ns) */
    double host_total_ms = 0;          /* of every frame */
    guint64 detected_frames = 0;       /* frames the engine searched */
    double host_detected_total_ms = 0; /* their host time: the rest is that of frames that skipped detection */
    guint64 qos_skipped = 0; /* due for a search, passed without one: they could not reach the sink in time (QoS) */
    /* The device's kernel time, all engines of the process (device-busy-ms). */
    std::weak_ptr<const waldboost::opencl::BusyTime> device_busy;
};

class SharedStats {
public:
    void reset();
    /* Runs `update` on the stats under their lock. */
    template <typename Update>
    void update(Update&& update)
    {
        std::lock_guard<std::mutex> guard(lock_);
        update(stats_);
    }
    /* The "waldboost-stats" structure of the stats property. */
    GstStructure* structure() const;

private:
    mutable std::mutex lock_;
    Stats stats_;
};

/* The element's host cost of a frame is its threads' CPU time. */
using waldboost::thread_cpu_ns;

}  // namespace waldboost_element
