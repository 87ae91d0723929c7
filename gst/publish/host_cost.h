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

#include "core/thread_time.h"

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

/* Counts the streaming thread's CPU time on one buffer into `cost`, as the
 * detector counts its own: a clock on the wall would count the time the
 * thread waits for a core, which many streams on few cores make larger
 * than the work itself. */
class StreamingTime {
public:
    explicit StreamingTime(HostCost& cost) : cost_(cost), start_(waldboost::thread_cpu_ns()) {}
    ~StreamingTime()
    {
        cost_.streaming_ns += waldboost::thread_cpu_ns() - start_;
        ++cost_.frames;
    }
    StreamingTime(const StreamingTime&) = delete;
    StreamingTime& operator=(const StreamingTime&) = delete;

private:
    HostCost& cost_;
    const gint64 start_;
};

}  // namespace waldboost_publish
