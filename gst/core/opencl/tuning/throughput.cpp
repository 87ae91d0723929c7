/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/tuning/throughput.h"

#include <algorithm>
#include <chrono>

#include "core/error.h"

namespace waldboost::opencl {

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace

double warm_up(Engine& engine, const std::vector<GrayView>& frames, const DetectParams& params, const FrameCheck& check)
{
    const auto start = Clock::now();
    for (size_t i = 0; i < frames.size(); ++i) {
        FrameResult result = engine.detect(frames[i], params);
        if (check)
            check(i, result);
    }
    return frames.empty() ? 0 : ms_since(start) / static_cast<double>(frames.size());
}

ThroughputRuns measure_throughput(Engine& engine, const std::vector<GrayView>& frames, const DetectParams& params,
                                  int runs, const RunLength& length,
                                  const std::function<void(int run, size_t frame, FrameResult& result)>& check)
{
    if (frames.empty())
        throw Error(ErrorKind::BadParameter, "a throughput measurement needs at least one frame");
    ThroughputRuns result;
    size_t all_frames = 0;
    double all_submit_ms = 0;
    for (int run = 0; run < std::max(1, runs); ++run) {
        const auto start = Clock::now();
        size_t submitted = 0, collected = 0;
        for (;;) {
            const bool more = submitted < length.frames || ms_since(start) < length.milliseconds;
            if (more && engine.can_submit()) {
                const auto submit_start = Clock::now();
                engine.submit(frames[submitted % frames.size()], params);
                all_submit_ms += ms_since(submit_start);
                ++submitted;
            } else if (collected < submitted) {
                std::optional<FrameResult> done = engine.collect();
                if (check)
                    check(run, collected % frames.size(), *done);
                ++collected;
            } else {
                break;
            }
        }
        result.ms_per_frame.push_back(ms_since(start) / static_cast<double>(std::max<size_t>(collected, 1)));
        all_frames += collected;
    }
    result.submit_ms = all_submit_ms / static_cast<double>(std::max<size_t>(all_frames, 1));
    return result;
}

}  // namespace waldboost::opencl
