/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the engine measures and decides for itself: the device's busy time
 * (the union of kernel intervals, bounded, one counter for the engines of
 * a device), each frame's statistics on both scans (counts, kernels and
 * transfers on one device clock), the scan picked automatically, a bad
 * configuration's error, and the reduction's GPU defaults. Run alone
 * (meson.build): kernel times are compared with the wall time.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/reduction.h"
#include "core/opencl/engine/shared_device.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::FrameResult;
using waldboost::opencl::ReductionParams;
using waldboost::opencl::ScanMethod;

/* The device's busy time is the union of kernel intervals, whatever order
 * they come in: overlapping and nested ones count once, disjoint ones add
 * up. */
TEST(Engine, BusyTimeIsTheUnionOfKernelIntervals)
{
    using waldboost::opencl::BusyTime;
    BusyTime busy;
    EXPECT_EQ(busy.total_ns(), 0u);
    busy.add(100, 200);
    EXPECT_EQ(busy.total_ns(), 100u);
    busy.add(150, 250); /* overlapping: 100-250 */
    EXPECT_EQ(busy.total_ns(), 150u);
    busy.add(120, 180); /* nested */
    EXPECT_EQ(busy.total_ns(), 150u);
    busy.add(400, 500); /* disjoint */
    EXPECT_EQ(busy.total_ns(), 250u);
    busy.add(50, 60); /* out of order, before everything */
    EXPECT_EQ(busy.total_ns(), 260u);
    busy.add(250, 400); /* touching both neighbours: 100-500 */
    EXPECT_EQ(busy.total_ns(), 410u);
    EXPECT_EQ(busy.recent_intervals(), 2u);
    busy.add(30, 600); /* covers everything */
    EXPECT_EQ(busy.total_ns(), 570u);
    busy.add(700, 700); /* empty */
    busy.add(800, 790); /* reversed: ignored */
    EXPECT_EQ(busy.total_ns(), 570u);

    /* Two "queues" whose kernels overlap: the union, not the plain sum. */
    BusyTime two;
    two.add({{0, 10}, {20, 30}, {40, 50}});
    two.add({{5, 15}, {25, 35}, {45, 55}});
    EXPECT_EQ(two.total_ns(), 45u) << "the plain sum would be 60";
}

/* Old intervals fold into a running total: memory stays bounded, the total
 * stays exact for intervals that arrive in time, and a very late one counts
 * only its part after the fold (an under-estimate, never more). */
TEST(Engine, BusyTimeFoldsOldIntervalsAndStaysBounded)
{
    using waldboost::opencl::BusyTime;
    BusyTime busy(1000, 8);
    for (uint64_t i = 0; i < 100; ++i)
        busy.add(i * 100, i * 100 + 10);
    EXPECT_EQ(busy.total_ns(), 1000u);
    EXPECT_LE(busy.recent_intervals(), 8u);
    busy.add(0, 10); /* long folded: no change */
    EXPECT_EQ(busy.total_ns(), 1000u);
    busy.add(9895, 9915); /* overlaps the last one (9900-9910) */
    EXPECT_EQ(busy.total_ns(), 1010u);

    BusyTime by_time(50, 1000);
    by_time.add(0, 10);
    by_time.add(100, 110); /* 0-10 ended more than 50 before 110: folded */
    EXPECT_EQ(by_time.recent_intervals(), 1u);
    by_time.add(5, 20); /* its part after 10 still counts */
    EXPECT_EQ(by_time.total_ns(), 30u);
}

/* Two engines on one device, frames in flight on both at once: each reports
 * its kernel intervals to the device's counter, which holds their union:
 * more than nothing, no more than the plain sum of the kernel times and no
 * more than the wall time that passed. */
TEST(Engine, EnginesOnOneDeviceReportBusyTime)
{
    std::mt19937 rng(15);
    const Classifier a = random_classifier(rng, 20, 20, 30, true);
    EngineConfig config = rows_config(2);
    const GrayImage image = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    const auto wall_start = std::chrono::steady_clock::now();
    Engine first(a, config);
    Engine second(a, config);
    EXPECT_EQ(first.device_busy_ns(), second.device_busy_ns());
    const uint64_t before = first.device_busy_ns();
    std::vector<std::pair<uint64_t, uint64_t>> intervals;
    uint64_t plain_sum = 0;
    auto keep = [&](const std::optional<FrameResult>& r) {
        ASSERT_TRUE(r);
        for (const auto& k : r->stats.kernels) {
            intervals.emplace_back(k.start_ns, k.end_ns);
            plain_sum += k.end_ns - k.start_ns;
        }
    };
    for (int round = 0; round < 4; ++round) {
        first.submit(image.view(), params);
        second.submit(image.view(), params);
        first.submit(image.view(), params);
        second.submit(image.view(), params);
        for (int i = 0; i < 2; ++i) {
            keep(first.collect());
            keep(second.collect());
        }
    }
    const double wall_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall_start).count();
    const uint64_t busy = first.device_busy_ns() - before;
    EXPECT_EQ(second.device_busy_ns() - before, busy) << "one counter for the device";
    /* The union computed here, independently. */
    std::sort(intervals.begin(), intervals.end());
    uint64_t expected = 0, reach = 0;
    for (const auto& [start, end] : intervals) {
        const uint64_t from = std::max(start, reach);
        if (end > from)
            expected += end - from;
        reach = std::max(reach, end);
    }
    EXPECT_GT(busy, 0u);
    EXPECT_EQ(busy, expected);
    EXPECT_LE(busy, plain_sum);
    EXPECT_LE(static_cast<double>(busy), wall_ns);
    std::printf("busy %.3f ms of %.3f ms wall; kernels' plain sum %.3f ms\n", busy * 1e-6, wall_ns * 1e-6,
                plain_sum * 1e-6);
    auto counter = first.device_busy_counter();
    EXPECT_EQ(counter.lock()->total_ns(), first.device_busy_ns());
}

TEST(Engine, StatisticsDescribeTheReduction)
{
    std::mt19937 rng(5);
    const Classifier c = random_classifier(rng, 24, 24, 40, true);
    const GrayImage img = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    DetectStats reference_stats;
    const auto reference = detect_raw(c, img.view(), params, &reference_stats);
    Engine engine(
        c, config_with(waldboost::opencl::default_reduction(waldboost::opencl::select_device(test_device()).info, c)));
    const auto result = engine.detect(img.view(), params);
    const auto& st = result.stats;
    EXPECT_EQ(st.discarded, 0u);
    EXPECT_EQ(st.accepted, reference.size());
    /* The engine evaluates every position (the reference skips some under
     * OpenCV's rule), so it scans at least as many windows. */
    EXPECT_GE(st.windows, reference_stats.windows);
    EXPECT_GE(st.weak_evaluated, reference_stats.weak_evaluated);
    EXPECT_GT(st.weak_per_window, 0.9);
    ASSERT_EQ(st.candidates_after_step.size(), 1u + engine.reduction().step2_repeats);
    for (size_t i = 1; i < st.candidates_after_step.size(); ++i)
        EXPECT_LE(st.candidates_after_step[i], st.candidates_after_step[i - 1]);
    EXPECT_LE(st.candidates_after_step[0],
              st.windows / engine.reduction().step1_divisor + engine.reduction().group_size);
    ASSERT_GE(st.kernels.size(), 7u);
    for (const auto& k : st.kernels)
        EXPECT_GE(k.milliseconds, 0.0) << k.name;
    EXPECT_GT(st.device_milliseconds, 0.0);

    /* Kernels and transfers on one device clock, in the queue's order: the
     * frame's upload ends before its first kernel starts, every kernel
     * starts after the one before it ended, and the results are read back
     * after the last. */
    ASSERT_FALSE(st.transfers.empty());
    EXPECT_EQ(st.transfers.front().name, "upload");
    EXPECT_EQ(st.transfers.back().name, "read accepted");
    for (const auto* list : {&st.kernels, &st.transfers})
        for (const auto& k : *list)
            EXPECT_LE(k.start_ns, k.end_ns) << k.name;
    EXPECT_LE(st.transfers.front().end_ns, st.kernels.front().start_ns);
    for (size_t i = 1; i < st.kernels.size(); ++i)
        EXPECT_LE(st.kernels[i - 1].end_ns, st.kernels[i].start_ns) << st.kernels[i].name;
    EXPECT_LE(st.kernels.back().end_ns, st.transfers.back().start_ns);
    EXPECT_NEAR(st.device_milliseconds, (st.kernels.back().end_ns - st.kernels.front().start_ns) * 1e-6, 1e-9);

    /* Without profiling there are no times at all. */
    EngineConfig quiet = config_with(engine.reduction());
    quiet.profiling = false;
    Engine unprofiled(c, quiet);
    const auto plain = unprofiled.detect(img.view(), params).stats;
    EXPECT_TRUE(plain.kernels.empty());
    EXPECT_TRUE(plain.transfers.empty());
}

/* The row scan's counts against the reference's: every position goes
 * through the first stage (on vectors); after it, exactly the windows
 * OpenCV visits go on, as in the reference. */
static void expect_row_scan_counts(const Classifier& c, bool first_test_codes)
{
    std::mt19937 rng(5);
    const GrayImage img = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    DetectStats reference_stats;
    const auto reference = detect_raw(c, img.view(), params, &reference_stats);
    ASSERT_EQ(waldboost::opencl::pack_classifier(c).first_test_codes, first_test_codes);
    Engine engine(c, rows_config(1));
    EXPECT_EQ(engine.scan_method(), ScanMethod::Rows);
    const auto result = engine.detect(img.view(), params);
    const auto& st = result.stats;
    EXPECT_EQ(st.accepted, reference.size());
    EXPECT_TRUE(st.candidates_after_step.empty()) << "the row scan keeps no candidate lists";
    int first_stage = 0;
    while (c.weak[first_stage].reject_threshold == waldboost::kNoRejection)
        ++first_stage;
    ++first_stage;
    ASSERT_GT(st.windows, reference_stats.windows) << "OpenCV's rule should skip some positions";
    EXPECT_EQ(st.weak_evaluated, reference_stats.weak_evaluated + (st.windows - reference_stats.windows) * first_stage);
    std::vector<std::string> names;
    for (const auto& k : st.kernels)
        names.push_back(k.name);
    EXPECT_NE(std::find(names.begin(), names.end(), "scan_rows"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "step1_scan"), names.end());
}

TEST(Engine, StatisticsDescribeTheRowScan)
{
    std::mt19937 rng(5);
    expect_row_scan_counts(random_classifier(rng, 24, 24, 40, true, true), false);
}

TEST(Engine, StatisticsDescribeTheRowScanOfASequence)
{
    /* A WaldBoost sequence of full tables, as the trainer writes: its first
     * test is decided by codes, and the windows that pass go on together
     * (kernels/scan_rows.cl). */
    std::mt19937 rng(6);
    expect_row_scan_counts(random_classifier(rng, 24, 24, 40, false), true);
}

TEST(Engine, AutomaticScanIsRowsOnCpuDevicesOnly)
{
    Engine engine(default_classifier(), EngineConfig{test_device(), std::nullopt, 1});
    EXPECT_EQ(engine.scan_method(), engine.device().type == "CPU" ? ScanMethod::Rows : ScanMethod::Reduction)
        << engine.device().type;
}

TEST(Engine, BadConfigurationIsAClearError)
{
    const Classifier& c = default_classifier();
    ReductionParams p;
    p.group_size = 100;
    try {
        Engine engine(c, config_with(p));
        FAIL() << "a group size of 100 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos) << e.what();
    }
    EngineConfig none;
    none.device = "no-such-device-anywhere";
    EXPECT_THROW(Engine(c, none), Error);
}

/* GPU defaults by device: step 1 through the second rejection test; lists
 * for every window only where memory is plentiful; two step-2 launches
 * for WaldBoost sequences. No device needed. */
TEST(Engine, GpuDefaultsFollowTheClassifierAndTheDeviceMemory)
{
    waldboost::opencl::DeviceInfo gpu;
    gpu.type = "GPU";
    gpu.max_work_group_size = 1024;
    gpu.global_memory = uint64_t{80} << 30;
    const Classifier& c = default_classifier();
    const ReductionParams large = waldboost::opencl::default_reduction(gpu, c);
    EXPECT_EQ(large.step1_divisor, 1);
    /* lbpcascade_frontalface: 3 weak classifiers in stage 0, 4 in stage 1. */
    EXPECT_EQ(large.step1_unsync, 7);
    gpu.global_memory = uint64_t{2} << 30;
    const ReductionParams small = waldboost::opencl::default_reduction(gpu, c);
    EXPECT_EQ(small.step1_divisor, 8);
    EXPECT_EQ(small.step1_unsync, 7);
    EXPECT_EQ(small.step2_repeats, 3);
    /* A WaldBoost sequence (no sum reset): step 1 through its fourth weak
     * classifier at least, two step-2 launches, also when most of its weak
     * classifiers have no test (a trained one's after its miss budget is
     * spent). */
    std::mt19937 rng(34);
    Classifier sequence = random_classifier(rng, 24, 24, 40, false);
    for (size_t t = 10; t + 1 < sequence.weak.size(); ++t)
        sequence.weak[t].reject_threshold = waldboost::kNoRejection;
    const ReductionParams trained = waldboost::opencl::default_reduction(gpu, sequence);
    EXPECT_EQ(trained.step1_unsync, 4);
    EXPECT_EQ(trained.step2_repeats, 2);
    EXPECT_EQ(trained.step2_rounds, 4);
    EXPECT_EQ(large.step2_rounds, ReductionParams{}.step2_rounds) << "stage cascades keep step 2 unbounded";
    gpu.type = "CPU";
    EXPECT_TRUE(waldboost::opencl::default_reduction(gpu, c) == waldboost::opencl::default_reduction(gpu));
    EXPECT_TRUE(waldboost::opencl::default_reduction(gpu, sequence) == waldboost::opencl::default_reduction(gpu));
}
