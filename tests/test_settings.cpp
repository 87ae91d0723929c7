/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * resolve_settings() (core/opencl/settings/detector_settings.h): the
 * settings users give the element and the tools, turned into detection
 * parameters and an engine configuration. The expectations are what the
 * element (detect_params(), engine_config()), waldboost-detect,
 * waldboost-bench and waldboost-pipeline-bench each computed by hand before
 * they shared the function. No OpenCL device needed, except by the last
 * test.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "core/embedded/default_classifier.h"
#include "core/error.h"
#include "core/opencl/settings/detector_settings.h"
#include "core/opencl/engine/tuning_cache.h"

using namespace waldboost;
using namespace waldboost::opencl;

namespace {

/* The embedded face classifier (24x24) with another window: only its
 * proportions matter to the sizes. */
Classifier with_window(int width, int height)
{
    Classifier c = default_classifier();
    c.window_width = width;
    c.window_height = height;
    return c;
}

DeviceInfo device_of_type(const std::string& type)
{
    DeviceInfo d;
    d.type = type;
    d.max_work_group_size = type == "GPU" ? 1024 : 4096;
    d.global_memory = uint64_t{16} << 30;
    return d;
}

/* The tuned parameters of a developer's cache must not leak into the
 * expectations: every override is then on top of the defaults. */
class Settings : public ::testing::Test {
protected:
    void SetUp() override { setenv("WALDBOOST_TUNING_DISABLE", "1", 1); }
    void TearDown() override { unsetenv("WALDBOOST_TUNING_DISABLE"); }
};

void expect_same_detection(const DetectParams& a, const DetectParams& b)
{
    EXPECT_EQ(a.scale_factor, b.scale_factor);
    EXPECT_EQ(a.min_size.width, b.min_size.width);
    EXPECT_EQ(a.min_size.height, b.min_size.height);
    EXPECT_EQ(a.max_size.width, b.max_size.width);
    EXPECT_EQ(a.max_size.height, b.max_size.height);
    EXPECT_EQ(a.stride, b.stride);
    EXPECT_EQ(a.min_neighbors, b.min_neighbors);
    EXPECT_EQ(a.grouping, b.grouping);
    EXPECT_EQ(a.nms_iou, b.nms_iou);
    EXPECT_EQ(a.final_threshold, b.final_threshold);
    EXPECT_EQ(a.max_windows, b.max_windows);
}

}  // namespace

/* Unset settings are the detectors' own defaults (waldboost-detect and the
 * benches started from DetectParams{}), and the element's engine: two
 * frames in flight, batching (no wait), profiling off, the engine's own scan and
 * reduction parameters. */
TEST_F(Settings, DefaultsAreTheDetectorsAndTheElements)
{
    const DetectorParameters p = resolve_settings(DetectorSettings{}, default_classifier());
    expect_same_detection(p.detect, DetectParams{});
    EXPECT_FALSE(p.detect.final_threshold);
    EXPECT_EQ(p.detect.min_size.width, 0); /* 0: the classifier window, in plan_scales() */
    EXPECT_EQ(p.detect.max_windows, kDefaultMaxWindows);
    EXPECT_EQ(p.engine.device, "auto");
    EXPECT_EQ(p.engine.max_in_flight, 2);
    EXPECT_TRUE(p.engine.batching);
    EXPECT_EQ(p.engine.batch_wait_ns, 0u);
    EXPECT_FALSE(p.engine.profiling);
    EXPECT_EQ(p.engine.scan, ScanMethod::Auto);
    EXPECT_FALSE(p.engine.reduction);
    EXPECT_EQ(p.engine.memory_budget, EngineConfig{}.memory_budget);
}

TEST_F(Settings, DetectionSettingsPassThrough)
{
    DetectorSettings s;
    s.scale_factor = 1.25;
    s.min_neighbors = 0;
    s.stride = 2;
    s.grouping = Grouping::Nms;
    s.nms_iou = 0.45;
    s.max_windows = 0;
    DetectParams p = resolve_settings(s, default_classifier()).detect;
    EXPECT_EQ(p.scale_factor, 1.25);
    EXPECT_EQ(p.min_neighbors, 0);
    EXPECT_EQ(p.stride, 2);
    EXPECT_EQ(p.grouping, Grouping::Nms);
    EXPECT_EQ(p.nms_iou, 0.45f);
    EXPECT_EQ(p.max_windows, 0);
    s.grouping = Grouping::None;
    EXPECT_EQ(resolve_settings(s, default_classifier()).detect.grouping, Grouping::None);
}

/* The element's min-size and max-size are widths; heights follow the
 * window, rounded half away from zero (std::lround). */
TEST_F(Settings, WidthsTakeTheWindowsAspectRatio)
{
    DetectorSettings s;
    s.min_size.width = 48;
    s.max_size.width = 200;
    DetectParams p = resolve_settings(s, default_classifier()).detect; /* 24x24 */
    EXPECT_EQ(p.min_size.width, 48);
    EXPECT_EQ(p.min_size.height, 48);
    EXPECT_EQ(p.max_size.width, 200);
    EXPECT_EQ(p.max_size.height, 200);

    const Classifier wide = with_window(24, 20);
    s.min_size.width = 30; /* 25 */
    s.max_size.width = 33; /* 27.5: 28 */
    p = resolve_settings(s, wide).detect;
    EXPECT_EQ(p.min_size.width, 30);
    EXPECT_EQ(p.min_size.height, 25);
    EXPECT_EQ(p.max_size.width, 33);
    EXPECT_EQ(p.max_size.height, 28);
    s.max_size.width = 100; /* 83.33: 83 */
    EXPECT_EQ(resolve_settings(s, wide).detect.max_size.height, 83);

    /* 0 (the element's default) leaves the size unset. */
    s.min_size.width = 0;
    s.max_size.width = 0;
    p = resolve_settings(s, wide).detect;
    EXPECT_EQ(p.min_size.width, 0);
    EXPECT_EQ(p.min_size.height, 0);
    EXPECT_EQ(p.max_size.width, 0);
    EXPECT_EQ(p.max_size.height, 0);
}

/* waldboost-detect's --min-size and --max-size are whole sizes, kept as
 * given, a side of 0 included. */
TEST_F(Settings, WholeSizesAreKept)
{
    DetectorSettings s;
    s.min_size = {30, 0};
    s.max_size = {0, 90};
    DetectParams p = resolve_settings(s, with_window(24, 20)).detect;
    EXPECT_EQ(p.min_size.width, 30);
    EXPECT_EQ(p.min_size.height, 0);
    EXPECT_EQ(p.max_size.width, 0);
    EXPECT_EQ(p.max_size.height, 90);
    s.min_size = {64, 32};
    s.max_size = {0, 0};
    p = resolve_settings(s, with_window(24, 20)).detect;
    EXPECT_EQ(p.min_size.width, 64);
    EXPECT_EQ(p.min_size.height, 32);
    EXPECT_EQ(p.max_size.width, 0);
    EXPECT_EQ(p.max_size.height, 0);
}

/* The element's threshold is added to the classifier's (0: the
 * classifier's as it is); waldboost-detect's --threshold replaces it. */
TEST_F(Settings, Thresholds)
{
    Classifier c = default_classifier();
    c.final_threshold = 1.5f;
    DetectorSettings s;
    s.threshold_offset = 0.25;
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold, std::optional<float>(1.75f));
    s.threshold_offset = -2.0;
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold, std::optional<float>(-0.5f));
    /* In double, then to float, as the element did. */
    s.threshold_offset = 0.1;
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold,
              std::optional<float>(static_cast<float>(static_cast<double>(1.5f) + 0.1)));
    s.threshold_offset = 0;
    EXPECT_FALSE(resolve_settings(s, c).detect.final_threshold);

    s.final_threshold = -1.25;
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold, std::optional<float>(-1.25f));
    s.threshold_offset = 3; /* the absolute threshold wins */
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold, std::optional<float>(-1.25f));
    s.final_threshold = 0.0;
    EXPECT_EQ(resolve_settings(s, c).detect.final_threshold, std::optional<float>(0.0f));
}

TEST_F(Settings, EngineSettingsPassThrough)
{
    DetectorSettings s;
    s.device = "gpu,cpu";
    s.max_inflight = 5;
    s.batching = true;
    s.batch_wait_ns = 2000000;
    s.profiling = true;
    EngineConfig e = resolve_settings(s, default_classifier()).engine;
    EXPECT_EQ(e.device, "gpu,cpu");
    EXPECT_EQ(e.max_in_flight, 5);
    EXPECT_TRUE(e.batching);
    EXPECT_EQ(e.batch_wait_ns, 2000000u);
    EXPECT_TRUE(e.profiling);
    EXPECT_EQ(e.scan, ScanMethod::Auto);
    EXPECT_FALSE(e.reduction);
    /* waldboost-bench's --scan. */
    for (ScanMethod scan : {ScanMethod::Rows, ScanMethod::Reduction, ScanMethod::Auto}) {
        s.scan = scan;
        EXPECT_EQ(resolve_settings(s, default_classifier()).engine.scan, scan);
    }
}

/* Overrides apply on top of the device's tuned or default parameters (here
 * the defaults: tuning is off) and select the reduction, unless a scan is
 * given (waldboost-bench's --scan rows with --reduction). */
TEST_F(Settings, ReductionOverridesApplyToTheDevicesParameters)
{
    const Classifier& c = default_classifier();
    DetectorSettings s;
    s.reduction = parse_reduction_overrides("group-size=128,step2-unsync=64");
    for (const char* type : {"GPU", "CPU"}) {
        SCOPED_TRACE(type);
        const DeviceInfo device = device_of_type(type);
        const EngineConfig e = resolve_settings(s, c, &device).engine;
        ASSERT_TRUE(e.reduction);
        ReductionParams expected = default_reduction(device, c);
        expected.group_size = 128;
        expected.step2_unsync = 64;
        EXPECT_TRUE(*e.reduction == expected) << to_string(*e.reduction);
        EXPECT_TRUE(*e.reduction == apply(preferred_reduction(c, device), s.reduction));
        EXPECT_EQ(e.scan, ScanMethod::Reduction);
    }
    const DeviceInfo gpu = device_of_type("GPU"), cpu = device_of_type("CPU");
    EXPECT_FALSE(*resolve_settings(s, c, &gpu).engine.reduction == *resolve_settings(s, c, &cpu).engine.reduction);
    s.scan = ScanMethod::Rows;
    const EngineConfig rows = resolve_settings(s, c, &gpu).engine;
    EXPECT_EQ(rows.scan, ScanMethod::Rows);
    EXPECT_TRUE(rows.reduction);
}

/* Without a device, overrides apply to the parameters of the device that
 * settings.device selects (waldboost-bench's --reduction). */
TEST_F(Settings, OverridesWithoutADeviceUseTheSelectedOne)
{
    const Classifier& c = default_classifier();
    DetectorSettings s;
    s.reduction = parse_reduction_overrides("step2-repeats=1");
    /* Without overrides no device is looked at, so any spec will do. */
    s.device = "no-such-device";
    DetectorSettings plain;
    plain.device = "no-such-device";
    EXPECT_NO_THROW(resolve_settings(plain, c));
    EXPECT_THROW(resolve_settings(s, c), Error);

    s.device = "auto";
    std::optional<SelectedDevice> selected;
    try {
        selected = select_device(s.device);
    } catch (const Error& e) {
        GTEST_SKIP() << "no OpenCL device: " << e.what();
    }
    const EngineConfig e = resolve_settings(s, c).engine;
    ASSERT_TRUE(e.reduction);
    EXPECT_TRUE(*e.reduction == apply(default_reduction(selected->info, c), s.reduction));
    EXPECT_EQ(e.reduction->step2_repeats, 1);
}
