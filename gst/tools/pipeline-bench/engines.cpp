/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "engines.h"

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "core/opencl/engine/engine.h"
#include "timing.h"

namespace pipeline_bench {

namespace wcl = waldboost::opencl;

Part run_engines(const Settings& s, const waldboost::Classifier& classifier, const FrameSet& set, int streams)
{
    Part part;
    part.ran = true;
    std::mutex lock;
    std::condition_variable cv;
    int ready = 0, finished = 0;
    bool go = false, stop = false, release = false;
    std::weak_ptr<const wcl::BusyTime> busy;
    std::vector<std::string> errors(static_cast<size_t>(streams));
    std::vector<Mismatches> mismatches(static_cast<size_t>(streams));
    std::vector<StreamEnd> ends(static_cast<size_t>(streams));
    Clock::time_point start;
    const size_t distinct = set.images.size();
    const uint64_t frames = static_cast<uint64_t>(s.frames);

    auto worker = [&](size_t i) {
        std::unique_ptr<wcl::Engine> engine;
        auto check = [&](const wcl::FrameResult& r, uint64_t n) {
            if (boxes_of(r.detections) != set.expected[n % distinct])
                mismatches[i].add([&] {
                    return "engine " + std::to_string(i) + " frame " + std::to_string(n) + ": " +
                           boxes_text(boxes_of(r.detections)) + " instead of " + boxes_text(set.expected[n % distinct]);
                });
        };
        try {
            engine = std::make_unique<wcl::Engine>(classifier, s.engine);
            for (size_t k = 0; k < distinct; ++k)
                check(engine->detect(set.images[k].view(), s.params), k);
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
        {
            std::unique_lock<std::mutex> guard(lock);
            if (engine && busy.expired())
                busy = engine->device_busy_counter();
            ++ready;
            cv.notify_all();
            cv.wait(guard, [&] {
                return go || stop;
            });
        }
        if (engine && !stop) {
            try {
                uint64_t submitted = 0, collected = 0;
                while (collected < frames) {
                    const size_t limit = std::max<size_t>(
                        1, std::min(engine->in_flight_limit(), static_cast<size_t>(s.engine.max_in_flight)));
                    if (submitted < frames && engine->in_flight() < limit) {
                        engine->submit(set.images[submitted % distinct].view(), s.params);
                        ++submitted;
                    } else {
                        const std::optional<wcl::FrameResult> r = engine->collect();
                        check(*r, collected);
                        ++collected;
                    }
                }
                ends[i].frames = collected;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
            ends[i].at = Clock::now();
        }
        std::unique_lock<std::mutex> guard(lock);
        ++finished;
        cv.notify_all();
        /* The engines stay until the device's busy time is read. */
        cv.wait(guard, [&] {
            return release;
        });
    };

    std::vector<std::thread> threads;
    for (int i = 0; i < streams; ++i)
        threads.emplace_back(worker, static_cast<size_t>(i));
    double busy_before = 0;
    {
        std::unique_lock<std::mutex> guard(lock);
        cv.wait(guard, [&] {
            return ready == streams;
        });
        for (const std::string& e : errors)
            if (!e.empty())
                stop = true;
        if (const auto counter = busy.lock())
            busy_before = static_cast<double>(counter->total_ns()) * 1e-6;
        start = Clock::now();
        go = true;
        cv.notify_all();
        cv.wait(guard, [&] {
            return finished == streams;
        });
        const auto counter = busy.lock();
        if (counter && !stop && s.element.profiling)
            part.busy_ms = static_cast<double>(counter->total_ns()) * 1e-6 - busy_before;
        release = true;
        cv.notify_all();
    }
    for (std::thread& t : threads)
        t.join();

    for (size_t i = 0; i < errors.size(); ++i)
        if (!errors[i].empty() && part.error.empty())
            part.error = "engine " + std::to_string(i) + ": " + errors[i];
    for (const Mismatches& m : mismatches)
        part.mismatches.merge(m);
    if (!part.error.empty())
        return part;
    record_rates(part, start, ends);
    return part;
}

}  // namespace pipeline_bench
