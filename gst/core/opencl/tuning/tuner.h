/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Auto-tuning of the reduction parameters per device and classifier: a
 * coordinate search over the parameters (in the spirit of the thesis' sweep
 * of synchronisation counts), scored by throughput with frames in flight on
 * real frames (throughput.h, the bench's figure).
 * Results are cached (tuning_cache.h, included here for the callers that
 * save them); the engine uses a cached result by default.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/opencl/engine/engine.h"
#include "core/opencl/engine/tuning_cache.h"

namespace waldboost::opencl {

struct TuningTrial {
    ReductionParams params;
    /* Steady-state ms per frame: frames in flight, profiling off, the median
     * of the streams' wall time per frame. */
    double ms = 0;
};

struct TuningResult {
    ReductionParams best;
    double best_ms = 0;
    double default_ms = 0;
    std::vector<TuningTrial> trials;
};

/* Times candidate parameters on `frames` with `params` and returns the
 * fastest, by steady-state throughput with `in_flight` frames in flight and
 * profiling off (what a pipeline sees): a coordinate search from the
 * defaults, where a trial must beat the best so far by more than 1% to
 * replace it, then a confirmation where the winner, timed again right after
 * the defaults, must still beat them by more than 1% (else the defaults are
 * returned; best_ms and default_ms are then those last timings). `runs`
 * streams per trial (about 120 frames each, fewer on slow devices);
 * max_trials > 0 stops the search early. Every frame of every trial is
 * checked to give the same windows as the defaults (a sanity check: the
 * engine is exact for any parameters). `progress` sees the search's trials,
 * not the unscored warm-up and confirmation passes. */
TuningResult tune_reduction(const Classifier& classifier, const std::string& device,
                            const std::vector<GrayView>& frames, const DetectParams& params, int runs = 3,
                            const std::function<void(const TuningTrial&)>& progress = {}, int max_trials = 0,
                            int in_flight = 3);

}  // namespace waldboost::opencl
