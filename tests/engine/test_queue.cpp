/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's frame queue: repeated runs, detect() and the asynchronous
 * submit() and collect() give identical results, in order, and one thread
 * can submit while another waits for and collects the oldest frame (the
 * element's split). Run alone (meson.build): threads that wait and poll.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <exception>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::FrameResult;

TEST(Engine, RepeatedRunsAndTheAsynchronousQueueGiveIdenticalResults)
{
    std::mt19937 rng(11);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    std::vector<GrayImage> frames;
    for (int i = 0; i < 6; ++i)
        frames.push_back(random_image(rng, 120 + 17 * i, 90 + 5 * i)); /* a size change every frame */
    DetectParams params;
    params.min_neighbors = 0;

    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 3;
    Engine engine(c, config);
    std::vector<std::vector<RawWindow>> sync;
    for (const GrayImage& f : frames)
        sync.push_back(engine.detect(f.view(), params).windows);

    std::vector<uint64_t> ids;
    std::vector<std::vector<RawWindow>> async;
    for (const GrayImage& f : frames) {
        if (!engine.can_submit()) {
            auto r = engine.collect();
            ASSERT_TRUE(r);
            async.push_back(r->windows);
        }
        ids.push_back(engine.submit(f.view(), params));
        EXPECT_LE(engine.in_flight(), 3u);
    }
    EXPECT_THROW(
        {
            while (engine.can_submit())
                engine.submit(frames[0].view(), params);
            engine.submit(frames[0].view(), params);
        },
        std::logic_error);
    while (auto r = engine.collect())
        async.push_back(r->windows);
    ASSERT_GE(async.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        expect_same_windows(async[i], sync[i], "async frame " + std::to_string(i));
        expect_same_windows(sync[i], detect_raw(c, frames[i].view(), params), "frame " + std::to_string(i));
    }
    for (size_t i = 1; i < ids.size(); ++i)
        EXPECT_EQ(ids[i], ids[i - 1] + 1);
}

/* The element's split: one thread submits while another waits for and
 * collects the oldest frame. Frames of changing sizes, every result in
 * order and equal to the reference's. */
TEST(Engine, OneThreadSubmitsWhileAnotherCollects)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    std::vector<GrayImage> frames;
    std::vector<std::vector<RawWindow>> want;
    DetectParams params;
    params.min_neighbors = 0;
    for (int i = 0; i < 5; ++i) {
        frames.push_back(random_image(rng, 100 + 23 * i, 80 + 11 * i));
        want.push_back(detect_raw(c, frames.back().view(), params));
    }
    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 3;
    Engine engine(c, config);
    constexpr int kFrames = 60;
    std::atomic<bool> submit_failed{false};
    std::thread submitter([&] {
        try {
            for (int i = 0; i < kFrames; ++i) {
                while (!engine.can_submit())
                    std::this_thread::yield();
                EXPECT_EQ(engine.submit(frames[i % frames.size()].view(), params), static_cast<uint64_t>(i));
            }
        } catch (const std::exception& e) {
            ADD_FAILURE() << "submit: " << e.what();
            submit_failed = true;
        }
    });
    int collected = 0;
    while (collected < kFrames && !submit_failed) {
        engine.wait_for_oldest();
        std::optional<FrameResult> r = engine.collect();
        if (!r) {
            std::this_thread::yield();
            continue;
        }
        EXPECT_EQ(r->frame, static_cast<uint64_t>(collected));
        expect_same_windows(r->windows, want[collected % frames.size()], "frame " + std::to_string(collected));
        ++collected;
    }
    submitter.join();
    EXPECT_EQ(collected, kFrames);
    EXPECT_EQ(engine.in_flight(), 0u);
}
