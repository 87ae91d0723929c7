/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's figures: a part's wall time and frame rates
 * from its streams' end times, and the element's own from its stats (host
 * time per frame, device busy time).
 */
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <cstdint>
#include <vector>

#include "row.h"

namespace pipeline_bench {

using Clock = std::chrono::steady_clock;

inline double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

/* One stream's frames timed and when its last one was done. */
struct StreamEnd {
    uint64_t frames = 0;
    Clock::time_point at;
};

/* Each stream's frames over its own time from `start`, the frames of all,
 * and the wall time from `start` to the last stream's end. */
void record_rates(Part& part, Clock::time_point start, const std::vector<StreamEnd>& ends);

/* The element's host time and frames (stats host-total-ms, frames), and
 * those of the frames it searched (host-detected-total-ms,
 * detected-frames), summed over instances. */
struct HostTime {
    double total_ms = 0, detected_ms = 0;
    uint64_t frames = 0, detected = 0;

    void add(GstElement* detect);
    /* Per frame into the part; -1 where there are no frames of a kind. */
    void record(Part& part) const;
};

/* The host time (ms) of --after's elements in `bin`: the host-total-ms and
 * worker-total-ms of the stats of those that have them
 * (waldboostmetaconvert, waldboostmetapublish). */
double after_host_ms(GstElement* bin);

/* The element's stats device-busy-ms (the device's, all instances), or -1. */
double device_busy_ms(GstElement* detect);

}  // namespace pipeline_bench
