/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Throughput with frames in flight, as a pipeline runs the engine: the
 * figure waldboost-bench reports and the one the tuner (tuner.h) scores,
 * measured by the same loop so that the two always mean the same thing.
 */
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/opencl/engine/engine.h"

namespace waldboost::opencl {

/* Sees every frame that comes back: its position in `frames` and its
 * result (which it may take apart). */
using FrameCheck = std::function<void(size_t frame, FrameResult& result)>;

/* One pass over `frames`, one at a time: the first frames of an engine pay
 * for allocations and clocks. Returns the wall time per frame in ms. */
double warm_up(Engine& engine, const std::vector<GrayView>& frames, const DetectParams& params,
               const FrameCheck& check = {});

/* How long each run of measure_throughput() lasts: it submits frames until
 * it has submitted at least `frames` and `milliseconds` have passed. */
struct RunLength {
    size_t frames = 0;
    double milliseconds = 0;
};

struct ThroughputRuns {
    std::vector<double> ms_per_frame; /* per run: its wall time divided by its frames */
    double submit_ms = 0;             /* host time per frame in submit() (copy, enqueue), all runs */
};

/* `runs` runs (at least one) over `frames` in turn, each keeping as many
 * frames in flight as the engine takes (its max_in_flight) and collecting
 * every frame it submitted. `check` sees every collected frame with its
 * run (from 0). Warm the engine up first (warm_up()). */
ThroughputRuns measure_throughput(Engine& engine, const std::vector<GrayView>& frames, const DetectParams& params,
                                  int runs, const RunLength& length,
                                  const std::function<void(int run, size_t frame, FrameResult& result)>& check = {});

}  // namespace waldboost::opencl
