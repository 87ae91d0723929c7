/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/opencl/engine_miner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <type_traits>
#include <variant>

#include "core/error.h"
#include "core/opencl/device/device.h"

namespace waldboost::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/* A final threshold no running sum can be below: minus the sum of each
 * weak classifier's largest |response|, rounded down to a float. The
 * engine takes only finite thresholds; with this one, a window passes
 * exactly when it passes every rejection threshold, as the CPU miner's
 * final threshold of -inf says. (The double sums are rounded monotonically,
 * so no partial sum goes below the bound's.) */
float lowest_final_threshold(const Classifier& classifier)
{
    double bound = 0.0;
    for (const WeakClassifier& weak : classifier.weak) {
        float largest = 0.0f;
        for (float r : response_values(weak.feature))
            largest = std::max(largest, std::fabs(r));
        bound += largest;
    }
    float theta = static_cast<float>(-bound);
    if (static_cast<double>(theta) > -bound)
        theta = std::nextafter(theta, -std::numeric_limits<float>::infinity());
    return theta;
}

/* The engine compiles its kernels for a classifier's weak classifier
 * count (and first threshold): a new program for every mining call, 5 to 8
 * s each on PoCL on 2 cores. Padded to the next power of two (at least 16)
 * with weak classifiers that add 0 and test nothing, the classifiers of a
 * run share a handful of programs, which the engine's caches keep; the
 * windows that pass are the same. */
Classifier padded_for_engine(const Classifier& classifier)
{
    size_t count = 16;
    while (count < classifier.weak.size())
        count *= 2;
    Classifier padded = classifier;
    WeakClassifier nothing = classifier.weak.front();
    std::visit(
        [](auto& f) {
            using F = std::decay_t<decltype(f)>;
            if constexpr (std::is_same_v<F, LbpFeature> || std::is_same_v<F, RankFeature>)
                std::fill(f.responses.begin(), f.responses.end(), 0.0f);
        },
        nothing.feature);
    nothing.reject_threshold = kNoRejection;
    nothing.reset_sum_after = false;
    padded.weak.resize(count, nothing);
    return padded;
}

}  // namespace

EngineMiner::EngineMiner(std::vector<GrayImage> backgrounds, Size window, opencl::EngineConfig config, int stride,
                         int max_passes)
    : ScanningMiner(std::move(backgrounds), window, stride, max_passes), config_(std::move(config))
{
    /* The device now, so that a missing one is an error before training. */
    device_ = opencl::select_device(config_.device).info;
    config_.profiling = false;
    config_.max_in_flight = 1;
}

EngineMiner::~EngineMiner() = default;

void EngineMiner::prepare(const Classifier& classifier)
{
    const Clock::time_point started = Clock::now();
    on_cpu_ = false;
    /* Only the first level, the view's own size: the window's size as the
     * largest; positions `stride` apart; every window that passes. */
    params_ = DetectParams{};
    params_.scale_factor = 1.25;
    params_.max_size = window();
    params_.min_neighbors = 0;
    params_.max_windows = 0;
    params_.final_threshold = lowest_final_threshold(classifier);
    try {
        /* The new engine is made while the old one still holds the device,
         * so that the context and program are shared, not made again. */
        auto next = std::make_unique<opencl::Engine>(padded_for_engine(classifier), config_);
        engine_ = std::move(next);
        ++stats_.engines_built;
        const opencl::BuildReport& report = engine_->build_report();
        if (report.cache_hit)
            ++stats_.programs_from_cache;
        else if (report.milliseconds > 0)
            ++stats_.programs_compiled;
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::UnsupportedClassifier)
            throw;
        on_cpu_ = true;
        ++stats_.cpu_fallbacks;
    }
    stats_.build_seconds += seconds_since(started);
}

void EngineMiner::scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                              std::vector<std::vector<Position>>* passing)
{
    if (on_cpu_ || levels.empty()) {
        ScanningMiner::scan_levels(classifier, levels, stride, passing);
        return;
    }
    /* A detect() call costs about a millisecond on PoCL whatever the frame
     * (uploads, launches, read-back), and an image has 10 to 25 levels: the
     * levels go one under the other into one frame, each from a row that is
     * a multiple of the stride, so that its positions are the frame's. A
     * window's features read only its own pixels, so each window inside a
     * level passes or not as in the level alone; windows across two levels
     * or into the padding right of a narrower level are dropped. */
    const Clock::time_point started = Clock::now();
    std::vector<int> top(levels.size());
    int width = 0, height = 0;
    for (size_t k = 0; k < levels.size(); ++k) {
        top[k] = height;
        width = std::max(width, levels[k].width);
        height += (levels[k].height + stride - 1) / stride * stride;
    }
    GrayImage stack(width, height);
    for (size_t k = 0; k < levels.size(); ++k)
        for (int y = 0; y < levels[k].height; ++y)
            std::copy_n(levels[k].row(y), levels[k].width, stack.row(top[k] + y));
    params_.stride = stride;
    opencl::FrameResult r;
    try {
        r = engine_->detect(stack.view(), params_);
    } catch (const Error& e) {
        /* The final threshold beyond the engine's fixed-point range. */
        if (e.kind() != ErrorKind::BadParameter)
            throw;
        on_cpu_ = true;
        ++stats_.cpu_fallbacks;
        ScanningMiner::scan_levels(classifier, levels, stride, passing);
        return;
    }
    for (const RawWindow& w : r.windows) {
        const size_t k = static_cast<size_t>(std::upper_bound(top.begin(), top.end(), w.y) - top.begin()) - 1;
        const int y = w.y - top[k];
        if (w.x + window().width <= levels[k].width && y + window().height <= levels[k].height)
            (*passing)[k].push_back(Position{w.x, y});
    }
    ++stats_.detect_calls;
    stats_.levels_scanned += levels.size();
    stats_.scan_seconds += seconds_since(started);
}

void EngineMiner::scan_level(const Classifier& classifier, const GrayView& level, int stride,
                             std::vector<Position>* passing)
{
    if (!on_cpu_) {
        const Clock::time_point started = Clock::now();
        params_.stride = stride;
        try {
            const opencl::FrameResult r = engine_->detect(level, params_);
            ++stats_.levels_scanned;
            ++stats_.detect_calls;
            stats_.scan_seconds += seconds_since(started);
            for (const RawWindow& w : r.windows)
                passing->push_back(Position{w.x, w.y});
            return;
        } catch (const Error& e) {
            /* The final threshold beyond the engine's fixed-point range. */
            if (e.kind() != ErrorKind::BadParameter)
                throw;
            on_cpu_ = true;
            ++stats_.cpu_fallbacks;
        }
    }
    scan_with_reference(classifier, level, stride, passing);
}

}  // namespace waldboost::training
