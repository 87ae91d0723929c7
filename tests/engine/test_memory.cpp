/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's device memory: frames in flight follow the memory budget, a
 * frame beyond it is refused, engines on one device share the context, the
 * program and the classifier, and a failed allocation shrinks the queue
 * instead of failing the frame (a death test: fault injection is read once
 * per process). Run alone (meson.build): device memory and threads.
 */
#include <glib.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <random>
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
using waldboost::opencl::ScanMethod;

/* A memory budget for fewer frames than max_in_flight: the engine says how
 * many frames of the size submitted last fit, a larger frame lowers that
 * and a smaller one raises it again; a caller that keeps more in flight
 * still gets every frame right. */
TEST(Engine, FramesInFlightFollowTheMemoryBudget)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    const GrayImage small = random_image(rng, 320, 240);
    const GrayImage large = random_image(rng, 640, 480);
    DetectParams params;
    params.min_neighbors = 0;
    const std::vector<RawWindow> small_expected = detect_raw(c, small.view(), params);
    const std::vector<RawWindow> large_expected = detect_raw(c, large.view(), params);

    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 4;
    uint64_t small_bytes = 0, large_bytes = 0;
    {
        Engine roomy(c, config);
        EXPECT_EQ(roomy.frame_memory_bytes(), 0u);
        EXPECT_EQ(roomy.in_flight_limit(), 4u);
        roomy.detect(small.view(), params);
        small_bytes = roomy.frame_memory_bytes();
        EXPECT_EQ(roomy.in_flight_limit(), 4u);
        roomy.detect(large.view(), params);
        large_bytes = roomy.frame_memory_bytes();
    }
    /* At least the frame, its pyramid (the frame and more) and its integral
     * image (2 or 4 bytes a pixel). */
    EXPECT_GE(small_bytes, 4u * 320 * 240);
    EXPECT_GE(large_bytes, 3 * small_bytes);

    /* One large frame fits, and a few small ones (a frame beyond the
     * budget is refused: AFrameBeyondTheMemoryBudgetIsRefused). */
    config.max_in_flight = 8;
    config.memory_budget = large_bytes;
    const size_t small_fit = static_cast<size_t>(large_bytes / small_bytes);
    ASSERT_LT(small_fit, 8u);
    Engine tight(c, config);
    auto check = [&](const GrayImage& frame, size_t limit, const std::vector<RawWindow>& expected,
                     const std::string& what) {
        while (tight.in_flight() >= limit) {
            const auto r = tight.collect();
            ASSERT_TRUE(r);
        }
        tight.submit(frame.view(), params);
        EXPECT_EQ(tight.in_flight_limit(), limit) << what;
        std::optional<FrameResult> r;
        while (tight.in_flight())
            r = tight.collect();
        ASSERT_TRUE(r);
        expect_same_windows(r->windows, expected, what);
    };
    check(small, small_fit, small_expected, "320x240, room for " + std::to_string(small_fit));
    check(large, 1, large_expected, "640x480, room for 1");
    check(small, small_fit, small_expected, "320x240 again");

    /* Beyond the limit: submit() still takes max_in_flight frames. */
    for (int i = 0; i < 8; ++i)
        tight.submit(small.view(), params);
    for (int i = 0; i < 8; ++i) {
        const auto r = tight.collect();
        ASSERT_TRUE(r);
        expect_same_windows(r->windows, small_expected, "over the limit, frame " + std::to_string(i));
    }
    EXPECT_FALSE(tight.collect());
}

/* A frame that alone needs more than the memory budget is refused before
 * anything is allocated for it (a 16384x16384 frame needing 9.7 GB ran on
 * a 5.3 GiB device, from the host's memory on PoCL); frames that fit run
 * on in the same engine. */
TEST(Engine, AFrameBeyondTheMemoryBudgetIsRefused)
{
    std::mt19937 rng(37);
    const Classifier c = random_classifier(rng, 20, 20, 10, true);
    const GrayImage small = random_image(rng, 80, 60);
    const GrayImage large = random_image(rng, 640, 480);
    DetectParams params;
    params.min_neighbors = 0;
    EngineConfig config;
    config.device = test_device();
    uint64_t small_bytes = 0, large_bytes = 0;
    {
        Engine roomy(c, config);
        roomy.detect(small.view(), params);
        small_bytes = roomy.frame_memory_bytes();
        roomy.detect(large.view(), params);
        large_bytes = roomy.frame_memory_bytes();
    }
    ASSERT_GT(large_bytes, 2 * small_bytes);
    config.memory_budget = (small_bytes + large_bytes) / 2;
    Engine tight(c, config);
    expect_same_windows(tight.detect(small.view(), params).windows, detect_raw(c, small.view(), params),
                        "80x60 within the budget");
    try {
        tight.detect(large.view(), params);
        ADD_FAILURE() << "a 640x480 frame of " << large_bytes << " bytes ran on a budget of " << config.memory_budget;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::OutOfResources) << e.what();
        const std::string what = e.what();
        EXPECT_NE(what.find("640x480"), std::string::npos) << what;
        EXPECT_NE(what.find("memory budget"), std::string::npos) << what;
    }
    EXPECT_EQ(tight.in_flight(), 0u);
    /* The refused size leaves nothing behind: the small frame runs again. */
    expect_same_windows(tight.detect(small.view(), params).windows, detect_raw(c, small.view(), params),
                        "80x60 after the refusal");
    EXPECT_EQ(tight.frame_memory_bytes(), small_bytes);
}

/* Engines of one process on one device share the context, the program and,
 * for equal classifiers, the uploaded classifier; what is shared goes away
 * with the last engine holding it. Frames of several engines, of different
 * sizes and classifiers, interleaved and from several threads, give each
 * engine the reference's windows. */
TEST(Engine, EnginesOnOneDeviceShareContextProgramAndClassifier)
{
    std::mt19937 rng(14);
    const Classifier a = random_classifier(rng, 20, 20, 30, true);
    const Classifier b = random_classifier(rng, 24, 24, 40, false);
    EngineConfig config = rows_config(2);
    config.scan = ScanMethod::Auto;
    {
        Engine first(a, config);
        EXPECT_FALSE(first.sharing().context_shared);
        EXPECT_FALSE(first.sharing().program_shared);
        EXPECT_FALSE(first.sharing().classifier_shared);
        EXPECT_EQ(first.sharing().engines_on_device, 1);
        Engine same(a, config);
        EXPECT_TRUE(same.sharing().context_shared);
        EXPECT_TRUE(same.sharing().program_shared);
        EXPECT_TRUE(same.sharing().classifier_shared);
        EXPECT_EQ(same.sharing().engines_on_device, 2);
        Engine other(b, config);
        EXPECT_TRUE(other.sharing().context_shared);
        EXPECT_FALSE(other.sharing().classifier_shared);
        EXPECT_FALSE(other.sharing().program_shared) << "another weak classifier count is another program";
        EXPECT_EQ(first.sharing().engines_on_device, 3);

        DetectParams params;
        params.min_neighbors = 0;
        const GrayImage small = random_image(rng, 160, 120), large = random_image(rng, 333, 201);
        const auto a_small = detect_raw(a, small.view(), params), a_large = detect_raw(a, large.view(), params);
        const auto b_large = detect_raw(b, large.view(), params);
        for (int round = 0; round < 3; ++round) {
            first.submit(small.view(), params);
            same.submit(large.view(), params);
            other.submit(large.view(), params);
            expect_same_windows(first.collect()->windows, a_small, "first engine");
            expect_same_windows(same.collect()->windows, a_large, "second engine, same classifier");
            expect_same_windows(other.collect()->windows, b_large, "third engine, another classifier");
        }

        /* From several threads at once: set-up and frames. */
        std::vector<std::thread> threads;
        std::atomic<int> mismatches{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                try {
                    Engine engine(t % 2 ? b : a, config);
                    for (int i = 0; i < 3; ++i) {
                        const auto r = engine.detect(large.view(), params);
                        const auto& want = t % 2 ? b_large : a_large;
                        if (r.windows.size() != want.size())
                            ++mismatches;
                    }
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "thread %d: %s\n", t, e.what());
                    ++mismatches;
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        EXPECT_EQ(mismatches.load(), 0);
    }
    Engine later(a, config);
    EXPECT_FALSE(later.sharing().context_shared) << "the last engine's context outlived it";
    EXPECT_EQ(later.sharing().engines_on_device, 1);
}

/* A failed allocation for a second frame in flight (WALDBOOST_CL_FAULT,
 * read once per process: a fresh one) shrinks the queue to the slot that
 * has its buffers instead of failing the frame; every frame comes back in
 * order with the reference's windows. */
TEST(EngineDeathTest, AFailedAllocationShrinksTheQueueInsteadOfFailing)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            /* buffer-create faults: the classifier's upload, then each
             * slot's first frame (slot 1's is the third). */
            g_setenv("WALDBOOST_CL_FAULT", "buffer-create:3", TRUE);
            std::mt19937 rng(13);
            const Classifier c = random_classifier(rng, 20, 20, 30, true);
            std::vector<GrayImage> frames;
            for (int i = 0; i < 5; ++i)
                frames.push_back(random_image(rng, 200, 150));
            DetectParams params;
            params.min_neighbors = 0;
            EngineConfig config;
            config.device = test_device();
            config.max_in_flight = 3;
            Engine engine(c, config);
            std::vector<std::vector<RawWindow>> results;
            for (const GrayImage& f : frames) {
                while (engine.in_flight() >= engine.in_flight_limit())
                    results.push_back(engine.collect()->windows);
                engine.submit(f.view(), params);
            }
            while (engine.in_flight())
                results.push_back(engine.collect()->windows);
            if (engine.in_flight_limit() != 1)
                std::_Exit(2);
            if (results.size() != frames.size())
                std::_Exit(3);
            for (size_t i = 0; i < frames.size(); ++i)
                expect_same_windows(results[i], detect_raw(c, frames[i].view(), params), "frame " + std::to_string(i));
            if (::testing::Test::HasFailure())
                std::_Exit(4);
            std::fprintf(stderr, "shrunk to 1\n");
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "shrunk to 1");
}
