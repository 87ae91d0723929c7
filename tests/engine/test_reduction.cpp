/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reduction's parameters and the limits of the engine's fixed point,
 * against the CPU reference: every parameter set gives the same windows, so
 * does a classifier scaled by 2^-50, responses spanning more than a double
 * are refused or exact, nothing is lost when every window is accepted, the
 * window cap keeps the reference's first windows, any finite final
 * threshold gives the reference's windows, bounded step-2 rounds only
 * move work, and the stop checks of costly classifiers change no window.
 * Exactness only: these may share the machine.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;

TEST(Engine, EveryReductionParameterSetGivesTheSameWindows)
{
    std::mt19937 rng(7);
    const Classifier c = random_classifier(rng, 16, 16, 40, true);
    const GrayImage img = random_image(rng, 301, 203);
    DetectParams params;
    params.min_neighbors = 0;
    const auto reference = detect_raw(c, img.view(), params);
    for (const ReductionParams& p : parameter_sets()) {
        Engine engine(c, config_with(p));
        expect_same_windows(engine.detect(img.view(), params).windows, reference,
                            "group " + std::to_string(p.group_size));
    }
    EXPECT_GT(reference.size(), 10u);
}

TEST(Engine, AClassifierScaledByTwoToTheMinus50GivesTheSameWindows)
{
    /* Scaling by a power of two changes no comparison, so neither may the
     * engine's answer change (2^-62 is the finest bit then). */
    std::mt19937 rng(250);
    const Classifier c = random_classifier(rng, 16, 16, 40, true);
    const Classifier small = with_values(c, [](float v) {
        return std::ldexp(v, -50);
    });
    const GrayImage img = random_image(rng, 301, 203);
    DetectParams params;
    params.min_neighbors = 0;
    for (const EngineConfig& config : {config_with(parameter_sets()[2]), rows_config()}) {
        const auto unscaled = Engine(c, config).detect(img.view(), params).windows;
        const auto result = Engine(small, config).detect(img.view(), params).windows;
        expect_same_windows(scores_times(result, std::ldexp(1.0, 50)), unscaled, "scaled by 2^-50");
        expect_same_windows(result, detect_raw(small, img.view(), params), "scaled by 2^-50, reference");
        EXPECT_GT(unscaled.size(), 10u);
    }
}

/* Responses spanning 53 bits or more: the reference's double sums round
 * (2^H + 2^L - 2^H is 0 in double for H - L > 52) where the engine's
 * integers do not. The engine either refuses the classifier or gives the
 * reference's windows, never others; spans the reference sums exactly run. */
TEST(Engine, ResponsesSpanningMoreThanADoubleAreRefusedOrMatchTheReference)
{
    std::mt19937 rng(36);
    const GrayImage img = random_image(rng, 48, 40);
    DetectParams params;
    params.min_neighbors = 0;
    struct Span {
        int high, low;
    };
    /* L = -40 needs no scale, L = -45 a scale of 2^5. */
    for (const Span span : {Span{10, -40}, Span{11, -40}, Span{13, -40}, Span{16, -40}, Span{20, -40}, Span{5, -45},
                            Span{8, -45}, Span{15, -45}}) {
        const int bits = span.high - span.low;
        SCOPED_TRACE("responses 2^" + std::to_string(span.high) + " and 2^" + std::to_string(span.low));
        Classifier c = random_classifier(rng, 16, 16, 3, false);
        const float values[3] = {std::ldexp(1.0f, span.high), std::ldexp(1.0f, span.low), -std::ldexp(1.0f, span.high)};
        for (size_t t = 0; t < 3; ++t) {
            lbp_table(c.weak[t]).fill(values[t]);
            c.weak[t].reject_threshold = kNoRejection;
        }
        c.final_threshold = std::ldexp(1.0f, span.low);
        validate(c, "<wide>");
        const std::vector<RawWindow> reference = detect_raw(c, img.view(), params);
        std::optional<Engine> engine;
        try {
            engine.emplace(c, rows_config());
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::UnsupportedClassifier) << e.what();
            EXPECT_NE(std::string(e.what()).find("2^53"), std::string::npos) << e.what();
            /* Only where the double sums could round. */
            EXPECT_GE(bits + 1, 53) << e.what();
            continue;
        }
        EXPECT_LE(bits + 1, 52) << "a span the reference rounds was run";
        expect_same_windows(engine->detect(img.view(), params).windows, reference, std::to_string(bits) + "-bit span");
    }
}

TEST(Engine, LosesNothingWhenEveryWindowIsAccepted)
{
    /* A classifier that accepts every window, with a threshold after every
     * weak classifier so every step has to carry everything. */
    std::mt19937 rng(3);
    Classifier c = random_classifier(rng, 12, 12, 20, false);
    for (WeakClassifier& w : c.weak) {
        lbp_table(w).fill(0.25f);
        w.reject_threshold = -1.0f;
    }
    c.final_threshold = 0.0f;
    const GrayImage img = random_image(rng, 257, 190);
    DetectParams params;
    params.min_neighbors = 0;
    params.stride = 1;
    params.max_windows = 0; /* every window, past the default cap */
    const auto reference = detect_raw(c, img.view(), params);
    for (const ReductionParams& p : parameter_sets()) {
        Engine engine(c, config_with(p));
        const auto result = engine.detect(img.view(), params);
        expect_same_windows(result.windows, reference, "accept-all, group " + std::to_string(p.group_size));
        EXPECT_EQ(result.stats.cut, 0u);
        EXPECT_EQ(result.stats.accepted, result.stats.windows);
    }
    expect_same_windows(Engine(c, rows_config()).detect(img.view(), params).windows, reference, "accept-all, rows");
    EXPECT_GT(reference.size(), static_cast<size_t>(kDefaultMaxWindows)) << "past the default cap";
}

/* Any finite final threshold runs, as the loader, the reference and the
 * tools accept it (the trainer writes -FLT_MAX for "whatever survives the
 * stages"): beyond the fixed point's range the engine accepts every
 * surviving window or none, with the reference's scores. Before, the
 * engine refused |threshold| x 2^scale >= 2^22 at every frame, so a file
 * the loader took failed at the element's first frame. Also with a scaled
 * classifier, whose range is 2^22 / 2^scale. */
TEST(Engine, AnyFiniteFinalThresholdGivesTheReferencesWindows)
{
    std::mt19937 rng(41);
    const Classifier plain = random_classifier(rng, 12, 12, 10, true);
    const Classifier scaled = with_values(plain, [](float v) {
        return std::ldexp(v, -50);
    });
    const GrayImage img = random_image(rng, 96, 80);
    DetectParams params;
    params.min_neighbors = 0;
    const float max = std::numeric_limits<float>::max();
    const float thresholds[] = {-max, -1e30f, -4194304.0f, -4194303.5f, -8.0f, 4194304.0f, 1e30f, max};
    for (const Classifier* c : {&plain, &scaled}) {
        const std::string name = c == &scaled ? "scaled by 2^-50" : "plain";
        size_t all_survivors = 0;
        for (const EngineConfig& config : {config_with(parameter_sets().front()), rows_config()}) {
            Engine engine(*c, config);
            for (const float threshold : thresholds) {
                const float final = c == &scaled ? std::ldexp(threshold, -50) : threshold;
                const std::string what = name + ", final threshold " + std::to_string(final);
                params.final_threshold = final;
                const std::vector<RawWindow> reference = detect_raw(*c, img.view(), params);
                if (final < 0)
                    all_survivors = std::max(all_survivors, reference.size());
                std::vector<RawWindow> windows;
                try {
                    windows = engine.detect(img.view(), params).windows;
                } catch (const Error& e) {
                    ADD_FAILURE() << what << ": " << e.what();
                    continue;
                }
                expect_same_windows(windows, reference, what);
            }
        }
        EXPECT_GT(all_survivors, 100u) << name << ": the low thresholds should accept what survives the stages";
    }
}

/* max_windows keeps the first windows in scan order on both detectors:
 * the same windows, the same count cut, the same detections. The skip rule
 * hides some accepted windows, which must not count. */
TEST(Engine, CapKeepsTheReferencesFirstWindows)
{
    std::mt19937 rng(11);
    Classifier c = random_classifier(rng, 12, 12, 12, true, true);
    c.final_threshold = -100.0f; /* whatever survives the stages is accepted */
    const GrayImage img = random_image(rng, 200, 150);
    DetectParams params;
    params.max_windows = 0;
    DetectStats all_stats;
    const std::vector<RawWindow> all = detect_raw(c, img.view(), params, &all_stats);
    ASSERT_GT(all.size(), 1000u);
    ASSERT_EQ(all_stats.cut, 0u);
    EXPECT_LT(all.size(), all_stats.windows) << "the classifier should reject some windows";
    Engine reduction(c, config_with(parameter_sets().front()));
    Engine rows(c, rows_config());
    const int n = static_cast<int>(all.size());
    for (int cap : {1, 7, 1000, n - 1, n, n + 1, 0}) {
        params.max_windows = cap;
        DetectStats stats;
        const std::vector<RawWindow> reference = detect_raw(c, img.view(), params, &stats);
        const uint64_t want_cut = cap > 0 && cap < n ? static_cast<uint64_t>(n - cap) : 0;
        EXPECT_EQ(stats.cut, want_cut) << "cap " << cap;
        ASSERT_EQ(reference.size(), std::min<size_t>(all.size(), cap > 0 ? cap : all.size())) << "cap " << cap;
        EXPECT_TRUE(std::equal(reference.begin(), reference.end(), all.begin(),
                               [](const RawWindow& a, const RawWindow& b) {
                                   return a.rect == b.rect && a.level == b.level && a.x == b.x && a.y == b.y;
                               }))
            << "cap " << cap << ": not the first windows";
        for (Grouping grouping : {Grouping::OpenCv, Grouping::None}) {
            params.grouping = grouping;
            const std::vector<Detection> detections = detect(c, img.view(), params);
            for (Engine* engine : {&reduction, &rows}) {
                const std::string what =
                    std::string(engine == &rows ? "rows" : "reduction") + ", cap " + std::to_string(cap);
                const auto result = engine->detect(img.view(), params);
                expect_same_windows(result.windows, reference, what);
                EXPECT_EQ(result.stats.cut, want_cut) << what;
                ASSERT_EQ(result.detections.size(), detections.size()) << what;
                for (size_t i = 0; i < detections.size(); ++i)
                    EXPECT_EQ(result.detections[i].rect, detections[i].rect) << what << ", detection " << i;
            }
        }
    }
    params.max_windows = -1;
    EXPECT_THROW(reduction.detect(img.view(), params), Error);
    EXPECT_THROW(detect_raw(c, img.view(), params), Error);
}

/* step2-rounds only moves work: a bounded step-2 launch passes on windows
 * an unbounded one would have walked further (more candidates after it),
 * and the windows found stay the reference's, for a WaldBoost sequence (a
 * round per weak classifier) and a stage cascade (a round per stage), with
 * one launch and with several. (Its own test rather than a row of
 * parameter_sets(): most windows then reach step 4, slow on PoCL.) */
TEST(Engine, BoundedStep2RoundsPassWindowsOnAndFindTheSame)
{
    std::mt19937 rng(15);
    for (const bool stages : {false, true}) {
        for (const int repeats : {1, 3}) {
            SCOPED_TRACE(std::string(stages ? "stage cascade" : "sequence") + ", step-2 launches " +
                         std::to_string(repeats));
            const Classifier c = random_classifier(rng, 24, 24, 60, stages);
            const GrayImage img = random_image(rng, 320 - 37 * repeats, 240);
            DetectParams params;
            params.min_neighbors = 0;
            const auto reference = detect_raw(c, img.view(), params);
            ReductionParams p;
            p.group_size = 32;
            p.step1_unsync = 1;
            p.step2_unsync = 0;
            p.step2_divisor = 32; /* unbounded, a group walks until one window is left */
            p.step2_repeats = repeats;
            const auto unbounded = Engine(c, config_with(p)).detect(img.view(), params);
            p.step2_rounds = 1;
            const auto bounded = Engine(c, config_with(p)).detect(img.view(), params);
            expect_same_windows(unbounded.windows, reference, "unbounded");
            expect_same_windows(bounded.windows, reference, "one round per launch");
            ASSERT_EQ(bounded.stats.candidates_after_step.size(), 1u + repeats);
            EXPECT_EQ(bounded.stats.candidates_after_step[0], unbounded.stats.candidates_after_step[0]);
            EXPECT_GT(bounded.stats.candidates_after_step[1], unbounded.stats.candidates_after_step[1]);
            std::printf("%s, %d launches: candidates after step 1 %u, after the first step 2: %u bounded, %u "
                        "unbounded\n",
                        stages ? "stages" : "sequence", repeats,
                        static_cast<unsigned>(bounded.stats.candidates_after_step[0]),
                        static_cast<unsigned>(bounded.stats.candidates_after_step[1]),
                        static_cast<unsigned>(unbounded.stats.candidates_after_step[1]));
        }
    }
}

TEST(Engine, StopChecksGiveTheReferencesWindows)
{
    /* Weak classifiers of no weight and no test after the last make a window
     * cost more than 16,384 evaluations at most, which builds the kernels
     * with the stop checks (STOP_CHECKS, kernels/waldboost.cl: segments end
     * every 16 weak classifiers, steps read the stop flag); never raised,
     * they change no window, in the reduction and in the row scan. */
    std::mt19937 rng(55);
    /* A stage cascade: its resets and sums reach every segment end (the
     * other tests cover sequences; each variant costs kernel builds). */
    {
        Classifier c = random_classifier(rng, 16, 16, 40, true);
        WeakClassifier none;
        none.feature = LbpFeature{};
        none.reject_threshold = kNoRejection;
        c.weak.resize(16400, none);
        const GrayImage img = random_image(rng, 131, 97);
        DetectParams params;
        params.min_neighbors = 0;
        const auto reference = detect_raw(c, img.view(), params);
        for (const ReductionParams& p : parameter_sets())
            expect_same_windows(Engine(c, config_with(p)).detect(img.view(), params).windows, reference,
                                "group " + std::to_string(p.group_size));
        expect_same_windows(Engine(c, rows_config()).detect(img.view(), params).windows, reference, "row scan");
        EXPECT_GT(reference.size(), 10u);
    }
}

/* Left to the engine (no reduction in the config), the step-2 launches
 * follow the lists: a frame after one whose step-1 list was empty goes
 * straight to step 4, a frame after a long list gets them all, the first
 * frame gets them all, and every frame's windows stay the reference's.
 * Parameters the caller set keep their launches. */
TEST(Engine, Step2LaunchesFollowTheLastListAndFindTheSame)
{
    std::mt19937 rng(54);
    Classifier c = random_classifier(rng, 16, 16, 120, false);
    /* A flat image gives every window the same LBP code (255: each block
     * sum equals the centre's; 0 too, for safety): the first weak classifier
     * rejects exactly those, so a flat frame leaves an empty list. */
    WeakClassifier& first = c.weak.front();
    lbp_table(first).fill(0.0f);
    lbp_table(first)[0] = lbp_table(first)[255] = -100.0f;
    first.reject_threshold = -50.0f;
    /* About 700,000 window positions: on a GPU step 1's list (the windows
     * alive after its first few weak classifiers) is several hundred
     * thousand long, eight waves of step 4 and more on GPUs of up to 512
     * compute units, so every launch is needed. */
    const GrayImage busy = random_image(rng, 960, 540);
    const GrayImage flat(960, 540, 128);
    DetectParams params;
    params.min_neighbors = 0;
    const auto busy_reference = detect_raw(c, busy.view(), params);
    ASSERT_GT(busy_reference.size(), 10u);
    ASSERT_TRUE(detect_raw(c, flat.view(), params).empty());

    EngineConfig config;
    config.device = test_device();
    config.scan = waldboost::opencl::ScanMethod::Reduction;
    Engine engine(c, config);
    const int all = engine.reduction().step2_repeats;
    ASSERT_GT(all, 0);
    auto launches = [](const waldboost::opencl::FrameResult& r) {
        return static_cast<int>(r.stats.candidates_after_step.size()) - 1;
    };
    const auto first_busy = engine.detect(busy.view(), params);
    expect_same_windows(first_busy.windows, busy_reference, "first frame");
    EXPECT_EQ(launches(first_busy), all) << "nothing seen yet";

    const auto flat_result = engine.detect(flat.view(), params);
    EXPECT_EQ(launches(flat_result), all) << "after a long list";
    EXPECT_EQ(flat_result.stats.candidates_after_step[0], 0u);
    EXPECT_TRUE(flat_result.windows.empty());

    const auto after_flat = engine.detect(busy.view(), params);
    expect_same_windows(after_flat.windows, busy_reference, "after an empty list");
    EXPECT_EQ(launches(after_flat), 0) << "after an empty list";

    const auto after_busy = engine.detect(busy.view(), params);
    expect_same_windows(after_busy.windows, busy_reference, "after a long list again");
    EXPECT_EQ(launches(after_busy), all) << "after a step-1 list of " << first_busy.stats.candidates_after_step[0];

    /* The same parameters set by the caller: every frame gets them all. */
    Engine fixed(c, config_with(engine.reduction()));
    fixed.detect(flat.view(), params);
    const auto fixed_after_flat = fixed.detect(busy.view(), params);
    expect_same_windows(fixed_after_flat.windows, busy_reference, "set parameters");
    EXPECT_EQ(launches(fixed_after_flat), all);
}
