/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the publish elements' stats say of their own cost, in the terms of
 * the detector's host-total-ms, so that waldboost-pipeline-bench can set
 * the two side by side. Written by the streaming and worker threads, read
 * from any; kept after the element stops, reset when it starts.
 */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <chrono>

namespace waldboost_publish {

struct HostCost {
    std::atomic<guint64> frames{0};
    std::atomic<gint64> streaming_ns{0}; /* the streaming thread, not what downstream does in it */
    std::atomic<gint64> worker_ns{0};    /* the publisher's workers that have stopped */

    void reset()
    {
        frames = 0;
        streaming_ns = 0;
        worker_ns = 0;
    }
    static double ms(gint64 ns) { return static_cast<double>(ns) * 1e-6; }
};

/* Times the streaming thread's part of one buffer into `cost`. That part
 * never waits, so its time on the monotonic clock is its CPU time (plus
 * any preemption, which only makes the figure larger): a read of that
 * clock costs tens of nanoseconds, where the thread's CPU clock is a
 * system call costing microseconds, as much as what it would measure. */
class StreamingTime {
public:
    explicit StreamingTime(HostCost& cost) : cost_(cost), start_(std::chrono::steady_clock::now()) {}
    ~StreamingTime()
    {
        cost_.streaming_ns +=
            std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start_).count();
        ++cost_.frames;
    }
    StreamingTime(const StreamingTime&) = delete;
    StreamingTime& operator=(const StreamingTime&) = delete;

private:
    HostCost& cost_;
    const std::chrono::steady_clock::time_point start_;
};

}  // namespace waldboost_publish
