/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Hard-negative mining on the OpenCL engine (core/training/engine_miner):
 * for the same classifier, backgrounds and seed, the engine miner mines the
 * same windows as the CPU miner, each of them a window the CPU reference
 * lets through, and a whole training run gives the same classifier with
 * either. Runs on whatever device "auto" picks (PoCL here).
 */
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/reference/detector.h"
#include "core/training/opencl/engine_miner.h"
#include "core/training/samples.h"
#include "core/training/trainer.h"
#include "test_support.h"
#include "tools/common/image_file.h"

using namespace waldboost;
using namespace waldboost::training;

namespace {

/* The device under test: WALDBOOST_TEST_DEVICE, else "auto". */
using waldboost_test::test_device;

opencl::EngineConfig engine_config()
{
    opencl::EngineConfig config;
    config.device = test_device();
    return config;
}

bool have_data()
{
    for (const char* f : {"building.jpg", "fruits.jpg", "astronaut.png", "board.jpg"})
        if (!waldboost_test::file_exists(waldboost_test::test_data(f)))
            return false;
    return true;
}

/* Halved, for speed. */
GrayImage halved(const char* file)
{
    const GrayImage full = tools::load_gray_image(waldboost_test::test_data(file));
    return resize_bilinear(full.view(), Size{full.width / 2, full.height / 2});
}

/* A classifier with weak classifiers and rejection thresholds as the trainer
 * makes them: astronaut.png's face, varied, against building.jpg and
 * board.jpg (trained with the CPU miner). */
Classifier trained_classifier(FeatureType family, int weak_count)
{
    const GrayImage astronaut = tools::load_gray_image(waldboost_test::test_data("astronaut.png"));
    Augmentation vary;
    vary.shift = 0.05;
    vary.scale = 0.1;
    vary.rotation_deg = 8;
    vary.brightness = 20;
    vary.contrast = 0.2;
    std::mt19937_64 rng(5);
    std::vector<GrayImage> positives;
    for (int k = 0; k < 300; ++k)
        positives.push_back(crop_window(astronaut.view(), Rect{171, 64, 104, 104}, Size{24, 24}, vary, k > 0, rng));
    TrainerConfig config;
    config.feature_type = family;
    config.weak_count = weak_count;
    config.negatives = 400;
    config.position_step = 2;
    config.threads = 2;
    if (family == FeatureType::Lbp)
        config.block_sizes = {Size{1, 1}, Size{2, 2}, Size{3, 3}};
    Trainer trainer(
        config, positives,
        std::make_shared<CpuMiner>(std::vector<GrayImage>{halved("building.jpg"), halved("board.jpg")}, config.window));
    return trainer.train();
}

bool same_pixels(const GrayImage& a, const GrayImage& b)
{
    return a.width == b.width && a.height == b.height && a.pixels == b.pixels;
}

}  // namespace

TEST(EngineMiner, MinesTheSameWindowsAsTheCpuMiner)
{
    if (!have_data())
        WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("building.jpg"));
    if (!have_data())
        GTEST_SKIP() << "test images missing";
    const std::vector<GrayImage> backgrounds = {halved("building.jpg"), halved("fruits.jpg"),
                                                tools::load_gray_image(waldboost_test::test_data("board.jpg"))};
    for (FeatureType family : {FeatureType::Lbp, FeatureType::Lrd}) {
        Classifier full = trained_classifier(family, 8);
        size_t thresholds = 0;
        for (const WeakClassifier& w : full.weak)
            thresholds += w.reject_threshold != kNoRejection;
        ASSERT_GE(thresholds, 2u) << feature_type_name(family) << ": too few thresholds to test the mining";
        /* The classifier as the trainer holds it while mining: the last
         * weak classifier keeps its rejection threshold. */
        for (size_t weak : {size_t{0}, size_t{2}, full.weak.size()}) {
            Classifier c = full;
            c.weak.resize(weak);
            const std::string what = std::string(feature_type_name(family)) + ", " + std::to_string(weak) + " weak";
            for (int stride : {1, 3}) {
                CpuMiner cpu(backgrounds, Size{24, 24}, stride);
                EngineMiner engine(backgrounds, Size{24, 24}, engine_config(), stride);
                std::mt19937_64 rng_cpu(11 + stride), rng_engine(11 + stride);
                auto started = std::chrono::steady_clock::now();
                const auto a = cpu.mine(c, 600, rng_cpu);
                const double cpu_seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                started = std::chrono::steady_clock::now();
                const auto b = engine.mine(c, 600, rng_engine);
                const double seconds =
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
                EXPECT_EQ(a.scanned, b.scanned) << what;
                EXPECT_EQ(a.passed, b.passed) << what;
                ASSERT_EQ(a.windows.size(), b.windows.size()) << what;
                EXPECT_GT(a.windows.size(), 0u) << what;
                for (size_t k = 0; k < a.windows.size(); ++k)
                    ASSERT_TRUE(same_pixels(a.windows[k], b.windows[k])) << what << ", window " << k;
                EXPECT_TRUE(rng_cpu == rng_engine) << what << ": the random streams went apart";
                /* Each mined window, on its own, passes every threshold. */
                for (const GrayImage& w : b.windows) {
                    LevelIntegrals li;
                    li.sum = integral_image(w.view());
                    ASSERT_TRUE(evaluate_window(c, li, 0, 0, -std::numeric_limits<float>::infinity()).accepted) << what;
                }
                if (weak > 0) {
                    EXPECT_EQ(engine.stats().engines_built, 1u) << what;
                    EXPECT_EQ(engine.stats().cpu_fallbacks, 0u) << what << ": the engine did not scan";
                    EXPECT_GT(engine.stats().levels_scanned, 0u) << what;
                }
                std::cout << "[ mining    ] " << what << ", stride " << stride << ": " << b.windows.size() << " mined, "
                          << b.passed << " of " << b.scanned << " windows pass; CPU " << cpu_seconds << " s, engine "
                          << seconds << " s (build " << engine.stats().build_seconds << " s, "
                          << engine.stats().programs_compiled << " compiled, " << engine.stats().programs_from_cache
                          << " from the cache; " << engine.stats().levels_scanned << " levels in "
                          << engine.stats().detect_calls << " calls, " << engine.stats().scan_seconds << " s) on "
                          << engine.device().device_name << std::endl;
            }
        }
    }
}

/* Training with either miner gives the same classifier, byte for byte. */
TEST(EngineMiner, TrainingGivesTheSameClassifierWithEitherMiner)
{
    if (!have_data())
        WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("building.jpg"));
    if (!have_data())
        GTEST_SKIP() << "test images missing";
    const std::vector<GrayImage> backgrounds = {halved("building.jpg"), halved("fruits.jpg")};
    const GrayImage astronaut = tools::load_gray_image(waldboost_test::test_data("astronaut.png"));
    Augmentation vary;
    vary.shift = 0.05;
    vary.scale = 0.1;
    std::mt19937_64 rng(9);
    std::vector<GrayImage> positives;
    for (int k = 0; k < 200; ++k)
        positives.push_back(crop_window(astronaut.view(), Rect{171, 64, 104, 104}, Size{24, 24}, vary, k > 0, rng));
    TrainerConfig config;
    config.weak_count = 10;
    config.negatives = 300;
    config.position_step = 2;
    config.block_sizes = {Size{1, 1}, Size{2, 2}, Size{3, 3}};
    config.threads = 2;
    uint64_t mined_cpu = 0;
    Trainer on_cpu(config, positives, std::make_shared<CpuMiner>(backgrounds, config.window));
    const std::string expected = write_waldboost_xml(on_cpu.train([&](const Progress& p) {
        mined_cpu += p.mined;
    }));
    ASSERT_GT(mined_cpu, 0u) << "no mining round after the first: the engine would not be used";
    auto engine = std::make_shared<EngineMiner>(backgrounds, config.window, engine_config());
    Trainer on_engine(config, positives, engine);
    EXPECT_EQ(write_waldboost_xml(on_engine.train()), expected);
    EXPECT_GT(engine->stats().engines_built, 0u);
    EXPECT_EQ(engine->stats().cpu_fallbacks, 0u);
    std::cout << "[ mining    ] training: " << engine->stats().engines_built << " engines built in "
              << engine->stats().build_seconds << " s, " << engine->stats().levels_scanned << " levels scanned in "
              << engine->stats().detect_calls << " calls, " << engine->stats().scan_seconds << " s" << std::endl;
}

TEST(EngineMiner, NoSuchDeviceIsAClearError)
{
    try {
        EngineMiner miner({GrayImage(64, 64)}, Size{24, 24}, [] {
            opencl::EngineConfig c;
            c.device = "no-such-device-anywhere";
            return c;
        }());
        FAIL() << "a device that does not exist was taken";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NoDevice);
        EXPECT_NE(std::string(e.what()).find("no-such-device-anywhere"), std::string::npos) << e.what();
    }
}
