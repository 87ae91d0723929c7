/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Auto-tuning of the reduction parameters per device and classifier: a
 * coordinate search over the parameters (in the spirit of the thesis' sweep
 * of synchronisation counts), scored by throughput with frames in flight on
 * real frames.
 * Results are cached; the engine uses a cached result by default.
 */
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/opencl/engine.h"

namespace waldboost::opencl {

/* Identifies a (device, driver, classifier) combination. */
std::string tuning_key(const DeviceInfo& device, const Classifier& classifier);

/* Where tuned parameters live: $WALDBOOST_CACHE_DIR/tuning, else
 * $XDG_CACHE_HOME/waldboost-gst/tuning. */
std::string tuning_directory();

/* The cached parameters for this key, if any (and still valid). */
std::optional<ReductionParams> load_tuned_reduction(const std::string& key, const DeviceInfo& device);

/* Stores parameters for this key; returns the file written. */
std::string save_tuned_reduction(const std::string& key, const ReductionParams& params);

/* What the engine uses when no parameters are given: the cached tuned
 * parameters for this device and classifier, else
 * default_reduction(device, classifier).
 * WALDBOOST_TUNING_DISABLE=1 ignores tuned parameters. */
ReductionParams preferred_reduction(const Classifier& classifier, const DeviceInfo& device,
                                    bool* from_tuning = nullptr);

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
