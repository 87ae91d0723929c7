/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Batched launches of the engines that share a classifier on one device:
 * frames of engines of different sizes and classifiers give the reference's
 * windows, a frame that overflows runs again alone, the wait budget for
 * companions, the window limits per batch and per engine attached. Run
 * alone (meson.build): the cases time their waits.
 */
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/opencl/engine/batch_queue.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/geometry.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::FrameResult;
using waldboost::opencl::ScanMethod;

namespace {

/* A classifier that accepts every window of a flat image and none of a
 * textured one: every weak classifier answers 1 for the codes of a flat
 * neighbourhood (all 0 or all 1 bits) only. */
Classifier flat_detector(std::mt19937& rng)
{
    Classifier c = random_classifier(rng, 12, 12, 6, true);
    for (WeakClassifier& w : c.weak) {
        lbp_table(w).fill(0.0f);
        lbp_table(w)[0] = lbp_table(w)[255] = 1.0f;
        w.reject_threshold = waldboost::kNoRejection;
        w.reset_sum_after = false;
    }
    c.final_threshold = static_cast<float>(c.weak.size()) - 0.5f;
    validate(c, "<flat>");
    return c;
}

/* A random classifier, a 120x90 frame of it and its reference windows,
 * and a batching engine configuration waiting `wait` for companions. */
struct BatchingCase {
    Classifier c;
    GrayImage frame;
    DetectParams params;
    std::vector<RawWindow> want;
    EngineConfig config;
};

static BatchingCase batching_case(unsigned seed, std::chrono::nanoseconds wait)
{
    std::mt19937 rng(seed);
    BatchingCase t{random_classifier(rng, 20, 20, 20, true), {}, {}, {}, {}};
    t.frame = random_image(rng, 120, 90);
    t.params.min_neighbors = 0;
    t.want = detect_raw(t.c, t.frame.view(), t.params);
    t.config.device = test_device();
    t.config.batching = true;
    t.config.batch_wait_ns = static_cast<uint64_t>(wait.count());
    return t;
}

}  // namespace

/* Batching engines: frames of engines of different sizes, scan parameters
 * and classifiers give the reference's windows, the engines sharing a
 * classifier are launched together, and one alone on its queue never is. */
TEST(EngineBatching, EnginesOfDifferentSizesAndClassifiersMatchTheReference)
{
    std::mt19937 rng(41);
    const Classifier shared_model = random_classifier(rng, 20, 20, 30, true);
    const Classifier other_model = random_classifier(rng, 24, 18, 25, false);
    struct Stream {
        const Classifier* model;
        DetectParams params;
        std::vector<GrayImage> frames;
        std::vector<std::vector<RawWindow>> want;
    };
    std::vector<Stream> streams(3);
    streams[0].model = &shared_model;
    streams[1].model = &shared_model;
    streams[1].params.scale_factor = 1.25;
    streams[1].params.stride = 1;
    streams[2].model = &other_model;
    const Size sizes[3] = {{160, 120}, {211, 97}, {180, 140}};
    for (size_t k = 0; k < streams.size(); ++k) {
        streams[k].params.min_neighbors = 0;
        for (int i = 0; i < 3; ++i) {
            streams[k].frames.push_back(random_image(rng, sizes[k].width + 7 * i, sizes[k].height + 5 * i));
            streams[k].want.push_back(
                detect_raw(*streams[k].model, streams[k].frames.back().view(), streams[k].params));
        }
    }
    for (const ScanMethod scan : {ScanMethod::Auto, ScanMethod::Reduction}) {
        EngineConfig config;
        config.scan = scan;
        config.device = test_device();
        config.batching = true;
        config.batch_wait_ns = 2'000'000'000; /* companions always come: the test submits them */
        std::vector<std::unique_ptr<Engine>> engines;
        for (const Stream& s : streams)
            engines.push_back(std::make_unique<Engine>(*s.model, config));
        int batched = 0;
        constexpr int kRounds = 6;
        for (int round = 0; round < kRounds; ++round) {
            for (size_t k = 0; k < streams.size(); ++k)
                engines[k]->submit(streams[k].frames[round % 3].view(), streams[k].params);
            for (size_t k = 0; k < streams.size(); ++k) {
                const std::optional<FrameResult> r = engines[k]->collect();
                ASSERT_TRUE(r);
                expect_same_windows(r->windows, streams[k].want[round % 3],
                                    "stream " + std::to_string(k) + " frame " + std::to_string(round));
                if (k == 2)
                    EXPECT_EQ(r->stats.batch_frames, 1) << "alone on its classifier's queue";
                else
                    batched += r->stats.batch_frames == 2 ? 1 : 0;
            }
        }
        EXPECT_EQ(batched, 2 * kRounds) << "the two engines of one classifier went together every time";
    }
}

/* A batch where one frame's windows outgrow the accepted list: that frame
 * runs again, the frame whose windows all fit does not, and both give the
 * reference's windows. */
TEST(EngineBatching, AFrameThatOverflowsRunsAgainAloneNotTheBatch)
{
    std::mt19937 rng(5);
    const Classifier c = flat_detector(rng);
    GrayImage flat(300, 200);
    for (int y = 0; y < flat.height; ++y)
        for (int x = 0; x < flat.width; ++x)
            flat.at(x, y) = 90;
    const GrayImage textured = random_image(rng, 240, 180);
    DetectParams params;
    params.min_neighbors = 0;
    params.stride = 1;
    params.max_windows = 0;
    const auto flat_want = detect_raw(c, flat.view(), params);
    const auto textured_want = detect_raw(c, textured.view(), params);
    ASSERT_GT(flat_want.size(), 5000u) << "more than the batch's accepted list holds";
    ASSERT_TRUE(textured_want.empty());
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    config.batch_wait_ns = 2'000'000'000;
    Engine a(c, config), b(c, config);
    for (int round = 0; round < 2; ++round) {
        a.submit(flat.view(), params);
        b.submit(textured.view(), params);
        const FrameResult ra = *a.collect();
        const FrameResult rb = *b.collect();
        EXPECT_EQ(ra.stats.batch_frames, 2);
        EXPECT_EQ(rb.stats.batch_frames, 2);
        expect_same_windows(ra.windows, flat_want, "flat frame, round " + std::to_string(round));
        expect_same_windows(rb.windows, textured_want, "textured frame, round " + std::to_string(round));
        EXPECT_EQ(ra.stats.reruns, round == 0 ? 1 : 0) << "the list grew on the first round";
        EXPECT_EQ(rb.stats.reruns, 0) << "its windows all fitted: it must not run again";
    }
}

/* The wait budget: a frame with companions due waits for them at most that
 * long, then goes alone; with no budget it goes at once; an engine going
 * away takes its waiting frame back and leaves the others working. */
TEST(EngineBatching, AFrameWaitsForCompanionsAtMostItsBudget)
{
    BatchingCase t = batching_case(8, std::chrono::milliseconds(300));
    const Classifier& c = t.c;
    const GrayImage& img = t.frame;
    const DetectParams& params = t.params;
    const auto& want = t.want;
    EngineConfig& config = t.config;
    Engine waiting(c, config);
    auto idle = std::make_unique<Engine>(c, config); /* a companion that never submits */
    const auto start = std::chrono::steady_clock::now();
    waiting.submit(img.view(), params);
    const FrameResult r = *waiting.collect();
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, std::chrono::milliseconds(290)) << "launched before its budget without its companion";
    EXPECT_EQ(r.stats.batch_frames, 1);
    expect_same_windows(r.windows, want, "after waiting");

    /* The companion's frame waits for `waiting`, which never submits: the
     * companion goes away with it still waiting. */
    idle->submit(img.view(), params);
    idle.reset();
    waiting.submit(img.view(), params);
    expect_same_windows(waiting.collect()->windows, want, "after the companion left");

    config.batch_wait_ns = 0;
    Engine eager(c, config), other(c, config);
    const auto eager_start = std::chrono::steady_clock::now();
    eager.submit(img.view(), params);
    expect_same_windows(eager.collect()->windows, want, "without a budget");
    EXPECT_LT(std::chrono::steady_clock::now() - eager_start, std::chrono::milliseconds(250))
        << "a frame without a wait budget waited for a companion";
}

/* batch_max_windows: frames of more window positions are launched alone,
 * and an engine with such frames leaves the queue, so that a companion's
 * small frame does not wait for it; when its frames shrink it joins again
 * and batches from its next frame. The windows are the reference's
 * throughout. */
TEST(EngineBatching, FramesAboveTheWindowLimitGoAloneAndNobodyWaitsForThem)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 20, true);
    const GrayImage small = random_image(rng, 120, 90), large = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    const auto small_want = detect_raw(c, small.view(), params);
    const auto large_want = detect_raw(c, large.view(), params);
    const uint64_t small_positions = opencl::make_geometry({small.width, small.height}, c, params, false).positions;
    const uint64_t large_positions = opencl::make_geometry({large.width, large.height}, c, params, false).positions;
    ASSERT_LT(small_positions * 2, large_positions);
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    /* A companion on the queue is waited for, this long: a frame that
     * waited for one took at least this, and a first launch (kernels
     * compiled on a cold cache) well under half of it. */
    constexpr auto kBudget = std::chrono::seconds(4);
    config.batch_wait_ns = std::chrono::nanoseconds(kBudget).count();
    config.batch_max_windows = (small_positions + large_positions) / 2;
    Engine a(c, config), b(c, config), other(c, config);
    Engine* engines[3] = {&a, &b, &other};
    /* Each engine submits a frame, then all are collected. want: each
     * frame's batch size; empty: only the windows are checked (the warm-up,
     * and the round after a rejoin, whose first frame may go alone). */
    auto round = [&](std::vector<const GrayImage*> frames, std::vector<int> want, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < 3; ++k)
            engines[k]->submit(frames[k]->view(), params);
        for (int k = 0; k < 3; ++k) {
            const FrameResult r = *engines[k]->collect();
            const std::string which = what + ", engine " + std::to_string(k);
            expect_same_windows(r.windows, frames[k] == &small ? small_want : large_want, which);
            if (!want.empty()) {
                EXPECT_EQ(r.stats.batch_frames, want[k]) << which;
            }
        }
        if (!want.empty()) {
            EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2)
                << what << ": a frame waited for a companion";
        }
    };
    const GrayImage *S = &small, *L = &large;
    round({S, S, S}, {}, "warm-up"); /* first launches: buffers, and on PoCL the kernels' code */
    round({S, S, S}, {3, 3, 3}, "all small");
    round({L, S, S}, {1, 2, 2}, "a large"); /* b and c neither wait for a nor take its frame */
    round({L, L, S}, {1, 1, 1}, "c alone small");
    round({S, S, S}, {}, "all small again");
    round({S, S, S}, {3, 3, 3}, "all small, all joined");

    /* The default: a GPU's limit scales with its compute units and, up to
     * kBatchWindowsPerComputeUnit, with the engines on the queue; a CPU's is
     * none. */
    opencl::DeviceInfo gpu, cpu;
    gpu.type = "GPU";
    gpu.compute_units = 132;
    cpu.type = "CPU";
    cpu.compute_units = 2;
    EXPECT_EQ(opencl::default_batch_max_windows(gpu, 64), 132 * opencl::kBatchWindowsPerComputeUnit);
    /* Where it was measured (docs/history.md, "Figures behind the code's
     * choices"): on the H200, with the default classifier and parameters,
     * batching gained for 2 streams of 640x480, 4 of 720p, 16 and 64 of
     * 1080p, and lost for 2 of 720p and 1080p, 4 of 1080p and any number of
     * 4K frames. */
    const DetectParams defaults;
    auto batched = [&](Size size, long engines) {
        return uint64_t{opencl::make_geometry(size, default_classifier(), defaults, true).positions} <=
               opencl::default_batch_max_windows(gpu, engines);
    };
    EXPECT_TRUE(batched({640, 480}, 2));
    EXPECT_FALSE(batched({1280, 720}, 2));
    EXPECT_TRUE(batched({1280, 720}, 4));
    EXPECT_FALSE(batched({1920, 1080}, 2));
    EXPECT_FALSE(batched({1920, 1080}, 4));
    EXPECT_TRUE(batched({1920, 1080}, 16));
    EXPECT_TRUE(batched({1920, 1080}, 64));
    EXPECT_FALSE(batched({3840, 2160}, 64));
    EXPECT_EQ(opencl::default_batch_max_windows(cpu, 2), UINT64_MAX);
    EXPECT_EQ(opencl::default_batch_windows(gpu), 132 * opencl::kBatchWindowsPerBatchPerComputeUnit);
    EXPECT_EQ(opencl::default_batch_windows(cpu), UINT64_MAX);
}

/* The default limit's rule (a GPU's): positions per engine attached to the
 * queue, looked up per frame. With a rate of a third of a frame, three
 * engines batch their frames; when one goes, the two left launch theirs
 * alone, without waiting for companions; when a third attaches again,
 * they batch again. The windows are the reference's throughout. */
TEST(EngineBatching, TheLimitFollowsTheEnginesAttached)
{
    std::mt19937 rng(14);
    const Classifier c = random_classifier(rng, 20, 20, 20, true);
    const GrayImage frame = random_image(rng, 240, 180);
    DetectParams params;
    params.min_neighbors = 0;
    const auto want = detect_raw(c, frame.view(), params);
    const uint64_t positions = opencl::make_geometry({frame.width, frame.height}, c, params, false).positions;
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    constexpr auto kBudget = std::chrono::seconds(4);
    config.batch_wait_ns = std::chrono::nanoseconds(kBudget).count();
    config.batch_windows_per_engine = (positions + 2) / 3; /* 2 engines: below a frame; 3: a frame or more */
    ASSERT_LT(2 * config.batch_windows_per_engine, positions);
    std::vector<std::unique_ptr<Engine>> engines;
    for (int k = 0; k < 3; ++k)
        engines.push_back(std::make_unique<Engine>(c, config));
    /* Every engine submits a frame, then all are collected. */
    auto round = [&](int want_batch, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        for (auto& e : engines)
            e->submit(frame.view(), params);
        for (size_t k = 0; k < engines.size(); ++k) {
            const FrameResult r = *engines[k]->collect();
            const std::string which = what + ", engine " + std::to_string(k);
            expect_same_windows(r.windows, want, which);
            if (want_batch) {
                EXPECT_EQ(r.stats.batch_frames, want_batch) << which;
            }
        }
        if (want_batch) {
            EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2) << what << ": a frame waited";
        }
    };
    round(0, "warm-up");
    round(3, "three engines");
    engines.pop_back();
    round(1, "two engines");
    engines.push_back(std::make_unique<Engine>(c, config));
    round(0, "a third again"); /* the new engine's first frame may go alone */
    round(3, "three engines again");
}

/* A batch holds frames of at most batch_windows positions, or two frames,
 * whichever is more: four engines' frames go as three and one with room
 * for three, as two and two with room for half a frame; the frames left
 * out of the first batch go without waiting for companions again. */
TEST(EngineBatching, ABatchHoldsItsWindowsOrTwoFramesAndNothingLeftOutWaits)
{
    constexpr auto kBudget = std::chrono::seconds(4);
    BatchingCase t = batching_case(13, kBudget);
    const uint64_t frame_positions =
        opencl::make_geometry({t.frame.width, t.frame.height}, t.c, t.params, false).positions;
    auto check = [&](uint64_t batch_windows, std::vector<int> want, const std::string& what) {
        EngineConfig config = t.config;
        config.batch_windows = batch_windows;
        std::vector<std::unique_ptr<Engine>> engines;
        for (int k = 0; k < 4; ++k)
            engines.push_back(std::make_unique<Engine>(t.c, config));
        for (int round = 0; round < 3; ++round) { /* the first warms up (buffers, kernels' code) */
            const auto start = std::chrono::steady_clock::now();
            for (auto& e : engines)
                e->submit(t.frame.view(), t.params);
            for (size_t k = 0; k < engines.size(); ++k) {
                const FrameResult r = *engines[k]->collect();
                const std::string which = what + ", round " + std::to_string(round) + ", engine " + std::to_string(k);
                expect_same_windows(r.windows, t.want, which);
                if (round > 0) {
                    EXPECT_EQ(r.stats.batch_frames, want[k]) << which;
                }
            }
            if (round > 0) {
                EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2)
                    << what << ", round " << round << ": the frames left out of the first batch waited";
            }
        }
    };
    check(3 * frame_positions, {3, 3, 3, 1}, "room for three frames");
    check(frame_positions / 2, {2, 2, 2, 2}, "room for half a frame");
}
