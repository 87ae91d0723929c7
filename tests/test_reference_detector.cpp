/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference on inputs small enough to work out by hand: LBP codes,
 * the ranks of LRD and LRP features (and against a brute-force ranking),
 * the cascade's rejection, reset and final-threshold semantics, the scan
 * geometry and grouping. OpenCV agreement on real images is elsewhere.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>

#include "core/embedded/default_classifier.h"
#include "core/reference/detector.h"
#include "test_support.h"

using namespace waldboost;
using waldboost_test::lbp_table;

namespace {

GrayImage image_from_rows(std::initializer_list<std::initializer_list<int>> rows)
{
    const int h = static_cast<int>(rows.size());
    const int w = static_cast<int>(rows.begin()->size());
    GrayImage img(w, h);
    int y = 0;
    for (const auto& row : rows) {
        int x = 0;
        for (int v : row)
            img.at(x++, y) = static_cast<uint8_t>(v);
        ++y;
    }
    return img;
}

/* A weak classifier whose response is `value` for every LBP code. */
WeakClassifier constant_weak(float value, float reject = kNoRejection, bool reset = false)
{
    WeakClassifier w;
    w.feature = waldboost::LbpFeature{0, 0, 1, 1};
    lbp_table(w).fill(value);
    w.reject_threshold = reject;
    w.reset_sum_after = reset;
    return w;
}

Classifier classifier_of(std::vector<WeakClassifier> weak, int window = 3, float final_threshold = 0.0f)
{
    Classifier c;
    c.window_width = window;
    c.window_height = window;
    c.final_threshold = final_threshold;
    c.weak = std::move(weak);
    return c;
}

RawWindow raw(int x, int y, int w, int h, float score = 1.0f)
{
    RawWindow r;
    r.rect = {x, y, w, h};
    r.score = score;
    return r;
}

}  // namespace

TEST(LbpCode, OnePixelBlocksWorkedByHand)
{
    const GrayImage img = image_from_rows({{10, 20, 30}, {40, 25, 60}, {5, 25, 90}});
    const IntegralImage ii = integral_image(img.view());
    /* Centre 25. Clockwise from the top-left: 10 20 30 60 90 25 5 40
     * >= 25 ?                                   0  0  1  1  1  1 0  1  */
    EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 1, 1}), 0b00111101);
}

TEST(LbpCode, EqualBlocksSetEveryBit)
{
    const GrayImage img(9, 9, 77);
    const IntegralImage ii = integral_image(img.view());
    EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 3, 3}), 255);
    EXPECT_EQ(lbp_code(ii, 2, 1, {1, 1, 2, 2}), 255);
}

TEST(LbpCode, RectangularBlocksAndOffsetsWorkedByHand)
{
    /* Blocks of 2x1 pixels; the feature sits at (1, 1) inside a window whose
     * top-left pixel is (1, 0), so the grid starts at pixel (2, 1). */
    const GrayImage img = image_from_rows({
        {0, 0, 0, 0, 0, 0, 0, 0, 0},
        {0, 0, 1, 2, 9, 9, 0, 0, 0},   /* TL = 3,  T = 18, TR = 0  */
        {0, 0, 5, 5, 4, 6, 7, 3, 0},   /* L  = 10, C = 10, R  = 10 */
        {0, 0, 0, 0, 20, 0, 11, 0, 0}, /* BL = 0, B = 20, BR = 11 */
    });
    const IntegralImage ii = integral_image(img.view());
    /* TL T TR R BR B BL L  >= 10 ?  0 1 0 1 1 1 0 1 */
    EXPECT_EQ(lbp_code(ii, 1, 0, {1, 1, 2, 1}), 0b01011101);
}

TEST(LbpCode, EachNeighbourDrivesItsOwnBit)
{
    /* Raising one neighbour above a bright centre sets exactly its bit. */
    const int cols[8] = {0, 1, 2, 2, 2, 1, 0, 0};
    const int rows[8] = {0, 0, 0, 1, 2, 2, 2, 1};
    for (int i = 0; i < 8; ++i) {
        GrayImage img(3, 3, 0);
        img.at(1, 1) = 100;
        img.at(cols[i], rows[i]) = 200;
        const IntegralImage ii = integral_image(img.view());
        EXPECT_EQ(lbp_code(ii, 0, 0, {0, 0, 1, 1}), 1 << (7 - i)) << "neighbour " << i;
    }
}

/* ===================== rank features (LRD, LRP) ===================== */

namespace {

RankFeature rank_feature(RankFeature::Kind kind, int x, int y, int bw, int bh, int a, int b)
{
    RankFeature f;
    f.kind = kind;
    f.x = x;
    f.y = y;
    f.block_width = bw;
    f.block_height = bh;
    f.block_a = a;
    f.block_b = b;
    f.responses.assign(RankFeature::table_size(kind), 0.0f);
    return f;
}

constexpr auto kLrd = RankFeature::Kind::Difference;
constexpr auto kLrp = RankFeature::Kind::Pair;

}  // namespace

TEST(RankFeature, OnePixelBlocksWorkedByHand)
{
    /* Blocks in row order: 10 20 30 40 25 60 5 25 90. Blocks 4 and 7 tie
     * at 25: each has three smaller sums (10, 20, 5), so both rank 3. */
    const GrayImage img = image_from_rows({{10, 20, 30}, {40, 25, 60}, {5, 25, 90}});
    const IntegralImage ii = integral_image(img.view());
    const std::array<int64_t, 9> sums = grid_block_sums(ii, 0, 0, 0, 0, 1, 1);
    EXPECT_EQ(sums, (std::array<int64_t, 9>{10, 20, 30, 40, 25, 60, 5, 25, 90}));
    EXPECT_EQ(block_ranks(sums), (std::array<int, 9>{1, 2, 5, 6, 3, 7, 0, 3, 8}));
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrd, 0, 0, 1, 1, 8, 6)), 16); /* 8 - 0 + 8 */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrd, 0, 0, 1, 1, 6, 8)), 0);  /* 0 - 8 + 8 */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrd, 0, 0, 1, 1, 4, 7)), 8);  /* the tie */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrd, 0, 0, 1, 1, 0, 3)), 3);  /* 1 - 6 + 8 */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrp, 0, 0, 1, 1, 5, 2)), 68); /* 9 * 7 + 5 */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrp, 0, 0, 1, 1, 7, 4)), 30); /* 9 * 3 + 3 */
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrp, 0, 0, 1, 1, 6, 8)), 8);  /* 9 * 0 + 8 */
}

TEST(RankFeature, EqualBlocksAllRankZero)
{
    const GrayImage img(9, 9, 77);
    const IntegralImage ii = integral_image(img.view());
    EXPECT_EQ(rank_index(ii, 0, 0, rank_feature(kLrd, 0, 0, 3, 3, 0, 8)), 8);
    EXPECT_EQ(rank_index(ii, 2, 1, rank_feature(kLrp, 1, 1, 2, 2, 4, 1)), 0);
}

TEST(RankFeature, MatchesABruteForceRankingOnRandomGrids)
{
    /* Block sums straight from the pixels and ranks as the position of a
     * sum's first occurrence in the sorted sums (the count of strictly
     * smaller ones): another way to the same numbers. Few grey levels and
     * small blocks make ties common. */
    std::mt19937 rng(34);
    size_t with_ties = 0, checked = 0;
    for (int trial = 0; trial < 400; ++trial) {
        const int levels = trial % 2 ? 3 : 256;
        GrayImage img(20, 17);
        for (uint8_t& v : img.pixels)
            v = static_cast<uint8_t>(rng() % static_cast<unsigned>(levels) * (255 / (levels - 1)));
        const IntegralImage ii = integral_image(img.view());
        const int bw = 1 + static_cast<int>(rng() % 4), bh = 1 + static_cast<int>(rng() % 3);
        const int wx = static_cast<int>(rng() % 5), wy = static_cast<int>(rng() % 5);
        const int x = static_cast<int>(rng() % static_cast<unsigned>(20 - wx - 3 * bw + 1));
        const int y = static_cast<int>(rng() % static_cast<unsigned>(17 - wy - 3 * bh + 1));
        int64_t sums[9] = {};
        for (int k = 0; k < 9; ++k)
            for (int py = 0; py < bh; ++py)
                for (int px = 0; px < bw; ++px)
                    sums[k] += img.at(wx + x + (k % 3) * bw + px, wy + y + (k / 3) * bh + py);
        std::vector<int64_t> sorted(sums, sums + 9);
        std::sort(sorted.begin(), sorted.end());
        int ranks[9];
        for (int k = 0; k < 9; ++k)
            ranks[k] = static_cast<int>(std::lower_bound(sorted.begin(), sorted.end(), sums[k]) - sorted.begin());
        with_ties += std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end();
        for (int a = 0; a < 9; ++a)
            for (int b = 0; b < 9; ++b) {
                if (a == b)
                    continue;
                SCOPED_TRACE("trial " + std::to_string(trial) + ", blocks " + std::to_string(a) + " and " +
                             std::to_string(b));
                ASSERT_EQ(rank_index(ii, wx, wy, rank_feature(kLrd, x, y, bw, bh, a, b)), ranks[a] - ranks[b] + 8);
                ASSERT_EQ(rank_index(ii, wx, wy, rank_feature(kLrp, x, y, bw, bh, a, b)), 9 * ranks[a] + ranks[b]);
                ++checked;
            }
    }
    EXPECT_GT(with_ties, 100u) << "too few grids with equal block sums to test the tie rule";
    EXPECT_EQ(checked, 400u * 72u);
}

TEST(RankFeature, ResponseIsLookedUpByTheWindowsRanks)
{
    const GrayImage img = image_from_rows({{10, 20, 30}, {40, 25, 60}, {5, 25, 90}});
    const IntegralImage ii = integral_image(img.view());
    for (const auto kind : {kLrd, kLrp}) {
        WeakClassifier w;
        RankFeature f = rank_feature(kind, 0, 0, 1, 1, 5, 2); /* ranks 7 and 5 */
        for (size_t i = 0; i < f.responses.size(); ++i)
            f.responses[i] = static_cast<float>(i);
        w.feature = f;
        const Classifier c = classifier_of({w});
        ASSERT_NO_THROW(validate(c, "rank"));
        const WindowResult r = evaluate_window(c, ii, 0, 0, 0.0f);
        EXPECT_DOUBLE_EQ(r.score, kind == kLrd ? 10.0 : 68.0);
    }
}

TEST(EvaluateWindow, RejectsAtTheFirstThresholdTheSumFallsBelow)
{
    const GrayImage img(3, 3, 0);
    const IntegralImage ii = integral_image(img.view());
    const Classifier c = classifier_of({constant_weak(1.0f, 0.5f), constant_weak(-2.0f, -0.5f), constant_weak(5.0f)});
    const WindowResult r = evaluate_window(c, ii, 0, 0, 0.0f);
    EXPECT_FALSE(r.accepted);
    EXPECT_EQ(r.rejected_at, 1u); /* 1 - 2 = -1 < -0.5 */
    EXPECT_EQ(r.weak_evaluated, 2);
    EXPECT_FALSE(r.rejected_in_first_stage);
    EXPECT_DOUBLE_EQ(r.score, -1.0);
}

TEST(EvaluateWindow, FirstStageRejectionIsFlagged)
{
    const GrayImage img(3, 3, 0);
    const IntegralImage ii = integral_image(img.view());
    /* A stage of two weak classifiers without thresholds, then the test. */
    const Classifier c = classifier_of({constant_weak(0.25f), constant_weak(0.25f, 0.6f, true), constant_weak(1.0f)});
    const WindowResult r = evaluate_window(c, ii, 0, 0, 0.0f);
    EXPECT_FALSE(r.accepted);
    EXPECT_TRUE(r.rejected_in_first_stage);
    EXPECT_EQ(r.rejected_at, 1u);
}

TEST(EvaluateWindow, SumResetsAtStageEnds)
{
    const GrayImage img(3, 3, 0);
    const IntegralImage ii = integral_image(img.view());
    /* Stage 1 sums to 3 and passes; after the reset stage 2 sums to -0.5,
     * which its threshold of -1 allows; without the reset it would be 2.5. */
    const Classifier c = classifier_of(
        {constant_weak(1.0f), constant_weak(2.0f, 2.0f, true), constant_weak(-0.5f, -1.0f, true)}, 3, -1.0f);
    const WindowResult r = evaluate_window(c, ii, 0, 0, -1.0f);
    EXPECT_TRUE(r.accepted);
    EXPECT_EQ(r.weak_evaluated, 3);
    EXPECT_DOUBLE_EQ(r.score, -0.5);
}

TEST(EvaluateWindow, FinalThresholdDecidesAcceptance)
{
    const GrayImage img(3, 3, 0);
    const IntegralImage ii = integral_image(img.view());
    const Classifier c = classifier_of({constant_weak(0.5f), constant_weak(0.25f)});
    EXPECT_TRUE(evaluate_window(c, ii, 0, 0, 0.75f).accepted); /* equal is enough */
    EXPECT_FALSE(evaluate_window(c, ii, 0, 0, 0.76f).accepted);
    EXPECT_EQ(evaluate_window(c, ii, 0, 0, 0.76f).rejected_at, 2u);
}

TEST(EvaluateWindow, ResponseIsLookedUpByTheWindowsCode)
{
    const GrayImage img = image_from_rows({{10, 20, 30}, {40, 25, 60}, {5, 25, 90}});
    const IntegralImage ii = integral_image(img.view());
    WeakClassifier w = constant_weak(-1.0f);
    lbp_table(w)[0b00111101] = 3.0f;
    const WindowResult r = evaluate_window(classifier_of({w}), ii, 0, 0, 0.0f);
    EXPECT_TRUE(r.accepted);
    EXPECT_DOUBLE_EQ(r.score, 3.0);
}

TEST(PlanScales, FollowsTheWindowGrowthUntilTheImageIsFull)
{
    Classifier c = classifier_of({constant_weak(1.0f)}, 24);
    const std::vector<ScaleLevel> levels = plan_scales({200, 100}, c, DetectParams{});
    ASSERT_FALSE(levels.empty());
    EXPECT_FLOAT_EQ(levels[0].scale, 1.0f);
    EXPECT_EQ(levels[0].image_size, (Size{200, 100}));
    EXPECT_EQ(levels[0].step, 2);
    double factor = 1.0;
    for (size_t i = 0; i < levels.size(); ++i, factor *= 1.1) {
        EXPECT_NEAR(levels[i].scale, factor, 1e-5 * factor);
        EXPECT_LE(levels[i].window_size.height, 100);
        EXPECT_EQ(levels[i].step, levels[i].scale >= 2.0f ? 1 : 2);
        EXPECT_TRUE(levels[i].skip_after_first_stage_rejection);
    }
    /* The next factor's window would no longer fit the 100-pixel height. */
    EXPECT_GT(std::lrint(24 * factor), 100);
}

TEST(PlanScales, MinMaxSizeAndStride)
{
    Classifier c = classifier_of({constant_weak(1.0f)}, 20);
    DetectParams p;
    p.min_size = {40, 40};
    p.max_size = {80, 80};
    p.stride = 3;
    const std::vector<ScaleLevel> levels = plan_scales({640, 480}, c, p);
    ASSERT_FALSE(levels.empty());
    for (const ScaleLevel& l : levels) {
        EXPECT_GE(std::lrint(20 * static_cast<double>(l.scale)), 40);
        EXPECT_LE(l.window_size.width, 81);
        EXPECT_EQ(l.step, 3);
        EXPECT_FALSE(l.skip_after_first_stage_rejection);
    }
}

TEST(PlanScales, ImageSmallerThanTheWindowHasNoLevels)
{
    Classifier c = classifier_of({constant_weak(1.0f)}, 24);
    EXPECT_TRUE(plan_scales({23, 100}, c, DetectParams{}).empty());
    EXPECT_TRUE(plan_scales({1, 1}, c, DetectParams{}).empty());
    EXPECT_TRUE(plan_scales({0, 0}, c, DetectParams{}).empty());
}

TEST(PlanScales, RejectsBadParameters)
{
    Classifier c = classifier_of({constant_weak(1.0f)}, 24);
    DetectParams p;
    p.scale_factor = 1.0;
    EXPECT_THROW(plan_scales({100, 100}, c, p), Error);
    p.scale_factor = NAN;
    EXPECT_THROW(plan_scales({100, 100}, c, p), Error);
    p.scale_factor = 1.2;
    p.stride = -1;
    EXPECT_THROW(plan_scales({100, 100}, c, p), Error);
}

/* Huge factors used to overflow the rounded window size and loop forever;
 * a factor a hair above 1 would plan billions of levels. Each ends at once. */
TEST(PlanScales, ExtremeScaleFactorsEndQuickly)
{
    Classifier c = classifier_of({constant_weak(1.0f)}, 24);
    DetectParams p;
    for (double factor : {1e8, 1e9, 1e300, std::numeric_limits<double>::max()}) {
        SCOPED_TRACE(factor);
        p.scale_factor = factor;
        const auto start = std::chrono::steady_clock::now();
        const std::vector<ScaleLevel> levels = plan_scales({640, 480}, c, p);
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
        /* Only the first level: the next window is far past the image. */
        ASSERT_EQ(levels.size(), 1u);
        EXPECT_FLOAT_EQ(levels[0].scale, 1.0f);
        EXPECT_EQ(levels[0].window_size, (Size{24, 24}));
    }
    /* Also with a frame as large as an int allows: 24e8 is past it. */
    const Size largest{std::numeric_limits<int>::max(), std::numeric_limits<int>::max()};
    p.scale_factor = 1e8;
    EXPECT_EQ(plan_scales(largest, c, p).size(), 1u);
    p.scale_factor = 1e9;
    EXPECT_EQ(plan_scales(largest, c, p).size(), 1u);

    p.scale_factor = std::numeric_limits<double>::infinity();
    EXPECT_THROW(plan_scales({640, 480}, c, p), Error);

    p.scale_factor = 1 + 1e-12;
    const auto start = std::chrono::steady_clock::now();
    try {
        plan_scales({640, 480}, c, p);
        ADD_FAILURE() << "a factor of 1 + 1e-12 was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
        EXPECT_NE(std::string(e.what()).find("too close to 1"), std::string::npos) << e.what();
    }
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));

    /* The element's extremes still plan every level. */
    p.scale_factor = 1.01;
    EXPECT_EQ(plan_scales({1920, 1080}, c, p).size(), 383u);
    p.scale_factor = 10.0;
    EXPECT_EQ(plan_scales({1920, 1080}, c, p).size(), 2u);
}

TEST(DetectLevel, AcceptEverythingVisitsEveryStridePosition)
{
    const Classifier c = classifier_of({constant_weak(1.0f, 0.0f)}, 4);
    const GrayImage img(11, 8, 9);
    ScaleLevel level;
    level.image_size = {11, 8};
    level.window_size = {4, 4};
    level.step = 2;
    DetectStats stats;
    const std::vector<RawWindow> w = detect_level(c, img.view(), level, 0, DetectParams{}, &stats);
    /* x in {0,2,4,6} (positions 0..7), y in {0,2,4} (positions 0..4). */
    EXPECT_EQ(w.size(), 12u);
    EXPECT_EQ(stats.windows, 12u);
    EXPECT_EQ(stats.weak_evaluated, 12u);
    EXPECT_EQ(w.back().rect, (Rect{6, 4, 4, 4}));
}

TEST(DetectLevel, FirstStageRejectionSkipsTheNextPosition)
{
    /* Code 255 (flat image) is rejected at once; any other code passes. */
    WeakClassifier w = constant_weak(1.0f, 0.0f);
    lbp_table(w)[255] = -1.0f;
    const Classifier c = classifier_of({w}, 3);
    /* One row of window positions; only the window at x = 4 has a centre
     * brighter than its neighbours (code 0). */
    GrayImage img(12, 3, 50);
    img.at(5, 1) = 90;
    ScaleLevel level;
    level.image_size = {12, 3};
    level.window_size = {3, 3};
    level.step = 1;
    level.skip_after_first_stage_rejection = true;
    DetectStats stats;
    const std::vector<RawWindow> found = detect_level(c, img.view(), level, 0, DetectParams{}, &stats);
    /* Visits x = 0 (rejected, skips 1), 2 (rejected, skips 3), 4 (accepted),
     * 5 (rejected: the bright pixel is its left neighbour, skips 6), 7
     * (rejected, skips 8) and 9: six windows of ten. */
    EXPECT_EQ(stats.windows, 6u);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].x, 4);

    level.skip_after_first_stage_rejection = false;
    DetectStats all;
    detect_level(c, img.view(), level, 0, DetectParams{}, &all);
    EXPECT_EQ(all.windows, 10u);
}

TEST(DetectLevel, RectanglesAreMappedBackToTheOriginalImage)
{
    const Classifier c = classifier_of({constant_weak(1.0f)}, 4);
    const GrayImage img(5, 4, 0);
    ScaleLevel level;
    level.scale = 1.5f;
    level.image_size = {5, 4};
    level.window_size = {6, 6};
    level.step = 1;
    const std::vector<RawWindow> w = detect_level(c, img.view(), level, 3, DetectParams{});
    ASSERT_EQ(w.size(), 2u);
    EXPECT_EQ(w[1].rect, (Rect{2, 0, 6, 6})); /* round(1 * 1.5) = 2 (ties to even) */
    EXPECT_EQ(w[1].level, 3);
}

TEST(GroupOpenCv, ClusterNeedsMoreThanMinNeighbors)
{
    std::vector<RawWindow> w = {raw(10, 10, 20, 20), raw(11, 10, 20, 20), raw(10, 11, 20, 20)};
    EXPECT_TRUE(group_opencv(w, 3).empty());
    w.push_back(raw(12, 12, 21, 21));
    const std::vector<Detection> d = group_opencv(w, 3);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].neighbors, 4);
    /* mean of x = (10+11+10+12)/4 = 10.75 -> 11; y = 10.75 -> 11;
     * w = 81/4 = 20.25 -> 20; h = 20.25 -> 20 */
    EXPECT_EQ(d[0].rect, (Rect{11, 11, 20, 20}));
    EXPECT_FLOAT_EQ(d[0].confidence, 1.0f - std::exp(-0.5f));
}

TEST(GroupOpenCv, SeparateObjectsStaySeparate)
{
    std::vector<RawWindow> w;
    for (int i = 0; i < 4; ++i) {
        w.push_back(raw(10 + i, 10, 20, 20));
        w.push_back(raw(100 + i, 50, 30, 30));
    }
    const std::vector<Detection> d = group_opencv(w, 2);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].rect.x, 12);  /* (10+11+12+13)/4 = 11.5 -> 12 (ties to even) */
    EXPECT_EQ(d[1].rect.x, 102); /* 101.5 -> 102 */
}

TEST(GroupOpenCv, SmallGroupInsideAStrongerOneIsDropped)
{
    std::vector<RawWindow> w;
    for (int i = 0; i < 10; ++i)
        w.push_back(raw(100, 100, 100, 100));
    for (int i = 0; i < 4; ++i)
        w.push_back(raw(130, 130, 30, 30));
    const std::vector<Detection> d = group_opencv(w, 2);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].neighbors, 10);
}

TEST(GroupOpenCv, ZeroMinNeighborsKeepsEveryWindow)
{
    const std::vector<RawWindow> w = {raw(1, 1, 5, 5), raw(1, 1, 5, 5), raw(50, 1, 5, 5)};
    const std::vector<Detection> d = group_opencv(w, 0);
    ASSERT_EQ(d.size(), 3u);
    for (const Detection& x : d)
        EXPECT_EQ(x.neighbors, 1);
}

TEST(GroupOpenCv, SimilarityIsTransitive)
{
    /* Neighbours 4 pixels apart chain into one group although the ends are
     * 16 pixels apart (delta = 0.2 * 20 = 4). */
    std::vector<RawWindow> w;
    for (int i = 0; i < 5; ++i)
        w.push_back(raw(4 * i, 0, 20, 20));
    const std::vector<Detection> d = group_opencv(w, 4);
    ASSERT_EQ(d.size(), 1u);
    EXPECT_EQ(d[0].neighbors, 5);
}

TEST(GroupNms, KeepsTheBestScoringWindowOfEachCluster)
{
    const std::vector<RawWindow> w = {raw(0, 0, 10, 10, 0.5f), raw(1, 0, 10, 10, 2.0f), raw(0, 1, 10, 10, 1.0f),
                                      raw(50, 50, 10, 10, 0.1f)};
    const std::vector<Detection> d = group_nms(w, 0.3f, 0);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].rect, (Rect{1, 0, 10, 10}));
    EXPECT_EQ(d[0].neighbors, 3);
    EXPECT_FLOAT_EQ(d[0].score, 2.0f);
    EXPECT_EQ(d[1].neighbors, 1);
    /* min_neighbors applies to the cluster size */
    EXPECT_EQ(group_nms(w, 0.3f, 1).size(), 1u);
}

/* ---- Grouping at scale: the grid's candidate pairs against all pairs ---- */

namespace {

/* The groupings written the plain way, every pair compared: what the grid
 * versions must reproduce exactly. */
std::vector<Detection> all_pairs_opencv(const std::vector<RawWindow>& w, int min_neighbors, double eps = 0.2)
{
    std::vector<Detection> out;
    if (min_neighbors <= 0) {
        for (const RawWindow& x : w)
            out.push_back({x.rect, 1, x.score, confidence_from_neighbors(1)});
        return out;
    }
    const size_t n = w.size();
    std::vector<size_t> label(n);
    for (size_t i = 0; i < n; ++i)
        label[i] = i;
    std::function<size_t(size_t)> root = [&](size_t i) {
        return label[i] == i ? i : label[i] = root(label[i]);
    };
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j) {
            const Rect& a = w[i].rect;
            const Rect& b = w[j].rect;
            const double d = eps * (std::min(a.width, b.width) + std::min(a.height, b.height)) * 0.5;
            if (std::abs(a.x - b.x) <= d && std::abs(a.y - b.y) <= d && std::abs(a.x + a.width - b.x - b.width) <= d &&
                std::abs(a.y + a.height - b.y - b.height) <= d)
                label[root(i)] = root(j);
        }
    struct Sum {
        int64_t x = 0, y = 0, w = 0, h = 0;
        int n = 0;
        float best = -INFINITY;
        Rect mean;
    };
    std::vector<Sum> sums;
    std::vector<int> index_of_root(n, -1);
    for (size_t i = 0; i < n; ++i) {
        const size_t r = root(i);
        if (index_of_root[r] < 0) {
            index_of_root[r] = static_cast<int>(sums.size());
            sums.emplace_back();
        }
        Sum& s = sums[index_of_root[r]];
        s.x += w[i].rect.x;
        s.y += w[i].rect.y;
        s.w += w[i].rect.width;
        s.h += w[i].rect.height;
        ++s.n;
        s.best = std::max(s.best, w[i].score);
    }
    for (Sum& s : sums) {
        const float f = 1.0f / static_cast<float>(s.n);
        s.mean = {cv_round(static_cast<float>(s.x) * f), cv_round(static_cast<float>(s.y) * f),
                  cv_round(static_cast<float>(s.w) * f), cv_round(static_cast<float>(s.h) * f)};
    }
    for (size_t i = 0; i < sums.size(); ++i) {
        if (sums[i].n <= min_neighbors)
            continue;
        bool dropped = false;
        for (size_t j = 0; j < sums.size(); ++j) {
            if (j == i || sums[j].n <= min_neighbors)
                continue;
            const Rect& a = sums[i].mean;
            const Rect& b = sums[j].mean;
            const int dx = cv_round(b.width * eps), dy = cv_round(b.height * eps);
            if (a.x >= b.x - dx && a.y >= b.y - dy && a.x + a.width <= b.x + b.width + dx &&
                a.y + a.height <= b.y + b.height + dy && (sums[j].n > std::max(3, sums[i].n) || sums[i].n < 3))
                dropped = true;
        }
        if (!dropped)
            out.push_back({sums[i].mean, sums[i].n, sums[i].best, confidence_from_neighbors(sums[i].n)});
    }
    return out;
}

std::vector<Detection> all_pairs_nms(const std::vector<RawWindow>& w, float iou, int min_neighbors)
{
    std::vector<size_t> order(w.size());
    for (size_t i = 0; i < order.size(); ++i)
        order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return w[a].score > w[b].score;
    });
    std::vector<bool> taken(w.size(), false);
    std::vector<Detection> out;
    for (size_t a = 0; a < order.size(); ++a) {
        if (taken[order[a]])
            continue;
        Detection d{w[order[a]].rect, 1, w[order[a]].score, 0};
        for (size_t b = a + 1; b < order.size(); ++b)
            if (!taken[order[b]] && intersection_over_union(w[order[a]].rect, w[order[b]].rect) > iou) {
                taken[order[b]] = true;
                ++d.neighbors;
            }
        if (d.neighbors > min_neighbors) {
            d.confidence = confidence_from_neighbors(d.neighbors);
            out.push_back(d);
        }
    }
    return out;
}

void expect_same(const std::vector<Detection>& got, const std::vector<Detection>& want, const std::string& what)
{
    ASSERT_EQ(got.size(), want.size()) << what;
    for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i].rect, want[i].rect) << what << ", detection " << i;
        ASSERT_EQ(got[i].neighbors, want[i].neighbors) << what << ", detection " << i;
        ASSERT_EQ(got[i].score, want[i].score) << what << ", detection " << i;
        ASSERT_EQ(got[i].confidence, want[i].confidence) << what << ", detection " << i;
    }
}

/* Every window the reference scans on a WxH frame, all accepted; scores
 * vary (and tie) so that NMS's order matters. */
std::vector<RawWindow> accept_all_scan(int width, int height)
{
    const Classifier c = classifier_of({constant_weak(1.0f)}, 24);
    DetectParams params;
    params.max_windows = 0; /* all of them */
    const GrayImage img(width, height, 77);
    std::vector<RawWindow> w = detect_raw(c, img.view(), params);
    for (size_t i = 0; i < w.size(); ++i)
        w[i].score = static_cast<float>((i * 7919) % 101) / 8.0f;
    return w;
}

/* Random windows: clusters of jittered boxes and loose ones, of any size
 * from 1 pixel, some cut by the frame's edges as clip_windows cuts them. */
std::vector<RawWindow> random_windows(unsigned seed, size_t count)
{
    std::srand(seed);
    auto uniform = [](int lo, int hi) {
        return lo + std::rand() % (hi - lo + 1);
    };
    std::vector<RawWindow> w;
    while (w.size() < count) {
        const int size = uniform(0, 3) == 0 ? uniform(1, 12) : uniform(12, 300);
        const int cx = uniform(-40, 680), cy = uniform(-40, 520);
        const int members = uniform(1, 12);
        for (int m = 0; m < members && w.size() < count; ++m) {
            const int j = std::max(1, size / 6);
            const int bw = std::max(1, size + uniform(-j, j)), bh = std::max(1, bw * uniform(8, 12) / 10);
            w.push_back(
                raw(cx + uniform(-j, j), cy + uniform(-j, j), bw, bh, static_cast<float>(uniform(0, 40)) / 4.0f));
            if (uniform(0, 9) == 0)
                w.push_back(w.back()); /* the same rectangle twice */
        }
    }
    w.resize(count);
    clip_windows(w, {640, 480});
    return w;
}

}  // namespace

TEST(GroupingAtScale, OpenCvMatchesAllPairsOnDenseAndRandomWindows)
{
    /* A dense accept-all scan (every window of a 160x120 frame: all pairs
     * of a larger one take too long) and random windows, some clipped by
     * the edges. */
    const std::vector<RawWindow> dense = accept_all_scan(160, 120);
    ASSERT_GT(dense.size(), 15000u);
    for (int mn : {1, 3})
        expect_same(group_opencv(dense, mn), all_pairs_opencv(dense, mn), "dense, min_neighbors " + std::to_string(mn));
    for (unsigned seed = 1; seed <= 6; ++seed) {
        const std::vector<RawWindow> w = random_windows(seed, 3000);
        for (int mn : {1, 2, 3, 5})
            expect_same(group_opencv(w, mn), all_pairs_opencv(w, mn),
                        "random seed " + std::to_string(seed) + ", min_neighbors " + std::to_string(mn));
        /* Other tolerances, through the same grid. */
        for (double eps : {0.05, 0.5, 1.0})
            expect_same(group_opencv(w, 2, eps), all_pairs_opencv(w, 2, eps),
                        "random seed " + std::to_string(seed) + ", eps " + std::to_string(eps));
    }
}

TEST(GroupingAtScale, NmsMatchesAllPairsOnDenseAndRandomWindows)
{
    const std::vector<RawWindow> dense = accept_all_scan(160, 120);
    for (float iou : {0.1f, 0.3f, 0.7f})
        expect_same(group_nms(dense, iou, 2), all_pairs_nms(dense, iou, 2), "dense, iou " + std::to_string(iou));
    for (unsigned seed = 1; seed <= 6; ++seed) {
        const std::vector<RawWindow> w = random_windows(seed, 3000);
        for (float iou : {0.0f, 0.05f, 0.3f, 0.5f, 0.95f, 1.0f, -0.5f, std::numeric_limits<float>::quiet_NaN()})
            for (int mn : {0, 3})
                expect_same(group_nms(w, iou, mn), all_pairs_nms(w, iou, mn),
                            "random seed " + std::to_string(seed) + ", iou " + std::to_string(iou));
    }
}

/* Every window of a 640x480 frame accepted: 585,373 windows, whose n^2 / 2
 * pairs (290,000 per window) took minutes. The groupings compare a number of
 * pairs per window that does not grow with the frame (each window here is
 * similar to a few hundred others). */
TEST(GroupingAtScale, AcceptAllFrameComparesABoundedNumberOfPairsPerWindow)
{
    const std::vector<RawWindow> w = accept_all_scan(640, 480);
    ASSERT_GT(w.size(), 100000u);
    GroupingWork opencv;
    const std::vector<Detection> grouped = group_opencv(w, 3, 0.2, &opencv);
    EXPECT_FALSE(grouped.empty());
    EXPECT_LT(opencv.pairs_tested, 2000 * w.size()) << w.size() << " windows";
    GroupingWork nms, any_overlap;
    group_nms(w, 0.3f, 3, &nms);
    EXPECT_LT(nms.pairs_tested, 2000 * w.size()) << w.size() << " windows";
    group_nms(w, 0.0f, 3, &any_overlap); /* nms-iou=0: every size class may overlap */
    EXPECT_LT(any_overlap.pairs_tested, 2000 * w.size()) << w.size() << " windows";
    std::printf("%zu windows: %llu pairs compared by group_opencv, %llu by group_nms (%llu with IoU 0)\n", w.size(),
                static_cast<unsigned long long>(opencv.pairs_tested), static_cast<unsigned long long>(nms.pairs_tested),
                static_cast<unsigned long long>(any_overlap.pairs_tested));
}

TEST(DetectRaw, MaxWindowsKeepsTheFirstWindowsInScanOrder)
{
    const Classifier c = classifier_of({constant_weak(1.0f)}, 8);
    const GrayImage img(64, 48, 9);
    DetectParams params;
    params.max_windows = 0;
    DetectStats all_stats;
    const std::vector<RawWindow> all = detect_raw(c, img.view(), params, &all_stats);
    ASSERT_GT(all.size(), 500u);
    EXPECT_EQ(all_stats.cut, 0u);
    params.max_windows = 500;
    DetectStats stats;
    const std::vector<RawWindow> capped = detect_raw(c, img.view(), params, &stats);
    ASSERT_EQ(capped.size(), 500u);
    EXPECT_EQ(stats.cut, all.size() - 500);
    EXPECT_EQ(stats.accepted, all.size()) << "accepted counts the cut windows too";
    for (size_t i = 0; i < capped.size(); ++i)
        ASSERT_TRUE(capped[i].rect == all[i].rect && capped[i].level == all[i].level) << i;
    EXPECT_EQ(detect(c, img.view(), params).size(), group_windows(capped, params).size());

    /* Out of order, cap_windows sorts by level, row and column first. */
    std::vector<RawWindow> shuffled(all.rbegin(), all.rend());
    EXPECT_EQ(cap_windows(shuffled, 3), all.size() - 3);
    ASSERT_EQ(shuffled.size(), 3u);
    for (size_t i = 0; i < 3; ++i)
        EXPECT_TRUE(shuffled[i].level == all[i].level && shuffled[i].x == all[i].x && shuffled[i].y == all[i].y);

    params.max_windows = -1;
    EXPECT_THROW(detect_raw(c, img.view(), params), Error);
}

TEST(Iou, KnownOverlaps)
{
    EXPECT_DOUBLE_EQ(intersection_over_union({0, 0, 10, 10}, {0, 0, 10, 10}), 1.0);
    EXPECT_DOUBLE_EQ(intersection_over_union({0, 0, 10, 10}, {5, 0, 10, 10}), 50.0 / 150.0);
    EXPECT_DOUBLE_EQ(intersection_over_union({0, 0, 10, 10}, {10, 0, 10, 10}), 0.0);
}

TEST(Detect, DefaultClassifierFindsNothingOnFlatAndNoiseImages)
{
    const Classifier& c = default_classifier();
    EXPECT_EQ(c.label, "face");
    const GrayImage flat(160, 120, 128);
    EXPECT_TRUE(detect(c, flat.view(), DetectParams{}).empty());
    const GrayImage tiny(10, 10, 0);
    EXPECT_TRUE(detect(c, tiny.view(), DetectParams{}).empty());
}

/* ===================== the tools' numeric options ===================== */

namespace {

/* A tool's path from the test environment (tests/meson.build). */
std::string tool_path(const char* variable) { return waldboost_test::env_or(variable, ""); }

using waldboost_test::run_status;
using waldboost_test::shell_quote;

class ToolOptions : public ::testing::Test {
protected:
    void SetUp() override
    {
        /* A small grey PGM: the detect tool reads it through gdk-pixbuf. */
        image_ = dir_.write("image.pgm", "P5\n64 48\n255\n" + std::string(64 * 48, '\x80'));
    }
    /* `timeout`: a tool that hangs fails the test instead of hanging it. */
    int run_tool(const std::string& tool, const std::string& args, std::string* messages)
    {
        const std::string log = dir_.file("log.txt");
        const int status =
            run_status("timeout 20 " + shell_quote(tool) + " " + args + " >/dev/null 2>" + shell_quote(log));
        *messages = waldboost_test::read_text(log);
        return status;
    }
    waldboost_test::TempDir dir_; /* removed with its files after each test */
    std::string image_;
};

struct BadOption {
    const char* args;
    const char* named; /* what the message must name */
};

}  // namespace

TEST_F(ToolOptions, DetectRefusesBadNumbersAsUsageErrors)
{
    const std::string tool = tool_path("WALDBOOST_DETECT");
    if (tool.empty())
        GTEST_SKIP() << "WALDBOOST_DETECT is not set";
    const BadOption bad[] = {
        {"--nms-iou nan", "--nms-iou"},
        {"--nms-iou inf", "--nms-iou"},
        {"--nms-iou -0.5", "--nms-iou"},
        {"--nms-iou 1.5", "--nms-iou"},
        {"--min-neighbors -5", "--min-neighbors"},
        {"--min-size 99999999999x5", "--min-size"},
        {"--min-size 5x99999999999", "--min-size"},
        {"--max-size 2147483648x5", "--max-size"},
        {"--min-size -1x5", "--min-size"},
        {"--min-size 48x", "--min-size"},
        {"--min-size x48", "--min-size"},
        {"--min-size 48x48x", "--min-size"},
        {"--min-size +48x48", "--min-size"},
        {"--min-size ' 48x48'", "--min-size"},
        {"--scale-factor 1", "--scale-factor"},
        {"--scale-factor 0.5", "--scale-factor"},
        {"--scale-factor nan", "--scale-factor"},
        {"--scale-factor inf", "--scale-factor"},
        {"--scale-factor 1.000000000001", "too close to 1"},
        {"--stride -1", "--stride"},
        {"--repeat 0", "--repeat"},
        {"--repeat -3", "--repeat"},
        {"--threshold nan", "--threshold"},
        {"--threshold 1e300", "--threshold"},
        {"--max-windows -1", "--max-windows"},
        {"--max-windows 99999999999", "max-windows"},
    };
    for (const BadOption& option : bad) {
        SCOPED_TRACE(option.args);
        std::string messages;
        EXPECT_EQ(run_tool(tool, std::string(option.args) + " " + shell_quote(image_), &messages), 2) << messages;
        EXPECT_EQ(messages.rfind("waldboost-detect: ", 0), 0u) << messages;
        EXPECT_NE(messages.find(option.named), std::string::npos) << messages;
    }
}

/* --scale-factor 1e9 used to hang (the rounded window overflowed an int):
 * now it scans the one level that fits. */
TEST_F(ToolOptions, DetectWithAHugeScaleFactorEnds)
{
    const std::string tool = tool_path("WALDBOOST_DETECT");
    if (tool.empty())
        GTEST_SKIP() << "WALDBOOST_DETECT is not set";
    for (const char* factor : {"1e8", "1e9", "1e300"}) {
        SCOPED_TRACE(factor);
        std::string messages;
        const auto start = std::chrono::steady_clock::now();
        EXPECT_EQ(run_tool(tool, std::string("--scale-factor ") + factor + " " + shell_quote(image_), &messages), 0)
            << messages;
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
    }
}

/* The JSON on stdout is whole or absent: a run that fails half way (a
 * device fault at the first frame) prints nothing there, and an image
 * that cannot be read leaves out its entry, not the document's syntax.
 * A final threshold beyond the engine's fixed point (the trainer's
 * -FLT_MAX) runs on the device as on the CPU. Before, the header went
 * out before the first frame, so a failing run left half a document, a
 * failed first image put a comma before the first entry, and -d cpu
 * refused the threshold the CPU took, half way through the document. */
TEST_F(ToolOptions, DetectWritesItsJsonWholeOrNotAtAll)
{
    const std::string tool = tool_path("WALDBOOST_DETECT");
    if (tool.empty())
        GTEST_SKIP() << "WALDBOOST_DETECT is not set";
    const std::string out = dir_.file("out.json"), log = dir_.file("log.txt");
    auto run = [&](const std::string& env, const std::string& args) {
        return run_status(env + " timeout 60 " + shell_quote(tool) + " " + args + " >" + shell_quote(out) + " 2>" +
                          shell_quote(log));
    };
    auto parses = [&] {
        return run_status("python3 -c 'import json, sys; json.load(open(sys.argv[1]))' " + shell_quote(out)) == 0;
    };

    EXPECT_NE(run("WALDBOOST_CL_FAULT=enqueue:1", "-d cpu " + shell_quote(image_)), 0)
        << waldboost_test::read_text(log);
    EXPECT_EQ(waldboost_test::read_text(out), "") << "a failing run printed part of its JSON";

    for (const char* device : {"", "-d cpu "}) {
        SCOPED_TRACE(device);
        EXPECT_EQ(run("", std::string(device) + "--threshold -3.4e38 " + shell_quote(image_)), 0)
            << waldboost_test::read_text(log);
        EXPECT_TRUE(parses()) << waldboost_test::read_text(out);
    }

    EXPECT_EQ(run("", shell_quote(dir_.file("missing.png")) + " " + shell_quote(image_)), 1)
        << waldboost_test::read_text(log);
    EXPECT_TRUE(parses()) << waldboost_test::read_text(out);
    EXPECT_NE(waldboost_test::read_text(out).find("image.pgm"), std::string::npos) << waldboost_test::read_text(out);
}

TEST_F(ToolOptions, BenchRefusesBadNumbersAsUsageErrors)
{
    const std::string tool = tool_path("WALDBOOST_BENCH");
    if (tool.empty())
        GTEST_SKIP() << "WALDBOOST_BENCH is not set";
    const BadOption bad[] = {
        {"--runs 0", "--runs"},
        {"--runs -2", "--runs"},
        {"--inflight 0", "--inflight"},
        {"--inflight -1", "--inflight"},
        {"--inflight 17", "--inflight"},
        {"--sizes 99999999999x5", "--sizes"},
        {"--sizes 640x480junk", "--sizes"},
        {"--sizes 0x480", "--sizes"},
        {"--sizes 640x-480", "--sizes"},
        {"--sizes 640x480,", "--sizes"},
        {"--sizes ''", "--sizes"},
        {"--stride -1", "--stride"},
    };
    /* The options are checked before the image is read: a missing one
     * must not be what fails. */
    const std::string missing = shell_quote(dir_.file("missing.png"));
    for (const BadOption& option : bad) {
        SCOPED_TRACE(option.args);
        std::string messages;
        EXPECT_EQ(run_tool(tool, std::string(option.args) + " --no-opencv " + missing, &messages), 2) << messages;
        EXPECT_EQ(messages.rfind("waldboost-bench: ", 0), 0u) << messages;
        EXPECT_NE(messages.find(option.named), std::string::npos) << messages;
    }
}
