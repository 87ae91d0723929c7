/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reduction tuner: saved parameters are used by default and damaged
 * files ignored, and the search keeps only faster parameters and never
 * changes detections. Run alone (meson.build): the search times launches.
 */
#include <glib.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "core/embedded/default_classifier.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/reduction.h"
#include "core/opencl/tuning/tuner.h"
#include "core/opencl/engine/tuning_cache.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;

TEST(Tuner, SavedParametersAreUsedByDefaultAndDamagedFilesIgnored)
{
    char dir_template[] = "/tmp/waldboost-tuning-XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    setenv("WALDBOOST_CACHE_DIR", dir_template, 1);
    unsetenv("WALDBOOST_TUNING_DISABLE"); /* this test is about the cache in use */
    const Classifier& c = default_classifier();
    const auto device = waldboost::opencl::select_device(test_device());
    const std::string key = waldboost::opencl::tuning_key(device.info, c);

    EXPECT_FALSE(waldboost::opencl::load_tuned_reduction(key, device.info));
    bool tuned = true;
    EXPECT_TRUE(waldboost::opencl::preferred_reduction(c, device.info, &tuned) ==
                waldboost::opencl::default_reduction(device.info, c));
    EXPECT_FALSE(tuned);

    ReductionParams p;
    p.group_size = 32;
    p.step1_unsync = 7;
    p.step1_divisor = 16;
    p.step2_repeats = 1;
    p.step4_group_size = 8;
    const std::string file = waldboost::opencl::save_tuned_reduction(key, p);
    ASSERT_TRUE(waldboost::opencl::load_tuned_reduction(key, device.info));
    EXPECT_TRUE(*waldboost::opencl::load_tuned_reduction(key, device.info) == p);
    EXPECT_TRUE(waldboost::opencl::preferred_reduction(c, device.info, &tuned) == p);
    EXPECT_TRUE(tuned);
    Engine engine(c, EngineConfig{test_device(), std::nullopt, 1});
    EXPECT_TRUE(engine.reduction() == p) << "the engine must use the tuned parameters by default";

    /* Another classifier has another key. */
    std::mt19937 rng(1);
    EXPECT_NE(waldboost::opencl::tuning_key(device.info, random_classifier(rng, 16, 16, 5, true)), key);

    /* A damaged or invalid file is ignored, never trusted. */
    {
        FILE* f = std::fopen(file.c_str(), "w");
        ASSERT_NE(f, nullptr);
        std::fputs("[reduction]\ngroup-size=100\nstep1-unsync=4\n", f);
        std::fclose(f);
    }
    /* Quietly: a GLib warning (e.g. an error set over another) aborts. */
    const GLogLevelFlags fatal = g_log_set_always_fatal(
        static_cast<GLogLevelFlags>(G_LOG_LEVEL_WARNING | G_LOG_LEVEL_CRITICAL | G_LOG_FLAG_FATAL));
    EXPECT_FALSE(waldboost::opencl::load_tuned_reduction(key, device.info));
    g_log_set_always_fatal(fatal);
    EXPECT_TRUE(Engine(c, EngineConfig{test_device(), std::nullopt, 1}).reduction() ==
                waldboost::opencl::default_reduction(device.info, c));
    std::remove(file.c_str());
    unsetenv("WALDBOOST_CACHE_DIR");
}

TEST(Tuner, SearchKeepsOnlyFasterParametersAndNeverChangesDetections)
{
    std::mt19937 rng(9);
    const Classifier c = random_classifier(rng, 16, 16, 12, true);
    const GrayImage img = random_image(rng, 96, 72);
    DetectParams params;
    params.min_neighbors = 0;
    int trials = 0;
    /* Eight trials: every build compiles the kernels, which is slow on PoCL. */
    const auto result = waldboost::opencl::tune_reduction(
        c, test_device(), {img.view()}, params, 1,
        [&](const auto&) {
            ++trials;
        },
        8);
    EXPECT_EQ(trials, 8);
    ASSERT_EQ(result.trials.size(), static_cast<size_t>(trials));
    /* The result is the defaults or one of the trials, and no slower than
     * the defaults (the search and its confirmation only keep a trial more
     * than 1% faster). */
    const ReductionParams defaults =
        waldboost::opencl::default_reduction(waldboost::opencl::select_device(test_device()).info, c);
    bool among_trials = result.best == defaults;
    for (const auto& t : result.trials)
        among_trials = among_trials || t.params == result.best;
    EXPECT_TRUE(among_trials);
    EXPECT_LE(result.best_ms, result.default_ms);
}
