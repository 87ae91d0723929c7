/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Engine::submit_areas(), the areas of one frame in one set of launches,
 * against the CPU reference searching each area on its own
 * (detect_in_area(), as nested cascades do): random LBP and Haar
 * classifiers, areas that overlap, cross the frame's edges, are smaller
 * than the window or empty, more areas than a batch of frames holds, an
 * accepted list that overflows, and area frames in flight between whole
 * frames. Both scans; meson.build runs it with both pyramid layouts.
 */
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "core/opencl/engine/geometry.h"
#include "core/parts/nested.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::FrameResult;

namespace {

/* What the reference gives for `areas`, area after area: each area's raw
 * windows (in the image's pixels) and its grouped detections, with the
 * area's place for each detection. */
struct Expected {
    std::vector<RawWindow> windows;
    std::vector<Detection> detections;
    std::vector<int> detection_areas;
};

Expected reference_of(const Classifier& c, const GrayImage& img, const std::vector<Rect>& areas,
                      const DetectParams& params)
{
    Expected e;
    for (size_t i = 0; i < areas.size(); ++i) {
        const Rect& a = areas[i];
        const int x0 = std::clamp(a.x, 0, img.width), y0 = std::clamp(a.y, 0, img.height);
        const int x1 = std::clamp(a.x + std::max(a.width, 0), x0, img.width);
        const int y1 = std::clamp(a.y + std::max(a.height, 0), y0, img.height);
        if (x1 - x0 >= c.window_width && y1 - y0 >= c.window_height) {
            const GrayView part{img.view().row(y0) + x0, x1 - x0, y1 - y0, img.view().stride};
            for (RawWindow w : detect_raw(c, part, params)) {
                w.rect.x += x0;
                w.rect.y += y0;
                e.windows.push_back(w);
            }
        }
        for (const Detection& d : detect_in_area(c, img.view(), a, params)) {
            e.detections.push_back(d);
            e.detection_areas.push_back(static_cast<int>(i));
        }
    }
    return e;
}

void expect_matches(const FrameResult& got, const Expected& want, size_t areas, const std::string& what)
{
    expect_same_windows(got.windows, want.windows, what);
    ASSERT_EQ(got.detections.size(), want.detections.size()) << what;
    for (size_t i = 0; i < want.detections.size(); ++i) {
        EXPECT_EQ(got.detections[i].rect, want.detections[i].rect) << what << ", detection " << i;
        EXPECT_EQ(got.detections[i].neighbors, want.detections[i].neighbors) << what << ", detection " << i;
    }
    EXPECT_EQ(got.detection_areas, want.detection_areas) << what;
    EXPECT_EQ(got.areas_searched, areas) << what;
}

/* Overlapping areas, areas across each edge, one smaller than the window,
 * an empty one, one wholly outside, and the whole frame. */
std::vector<Rect> mixed_areas(int w, int h)
{
    return {{10, 12, 90, 70}, {60, 40, 100, 90},  {-20, -15, 70, 60}, {w - 50, h - 40, 80, 70}, {30, 30, 8, 40},
            {40, 40, 0, 50},  {w + 5, 0, 40, 40}, {0, 0, w, h},       {w / 2, 5, 45, 45},       {5, h / 2, 120, 33}};
}

Classifier accept_all(Classifier c)
{
    for (WeakClassifier& w : c.weak) {
        w.reject_threshold = kNoRejection;
        w.reset_sum_after = false;
    }
    c.final_threshold = -1e6f;
    validate(c, "<accept-all>");
    return c;
}

}  // namespace

TEST(EngineAreas, EachAreaGivesTheReferenceOfItsOwnSearch)
{
    std::mt19937 rng(20261204);
    const std::vector<Classifier> classifiers = {
        random_classifier(rng, 20, 20, 25, true),
        random_classifier(rng, 16, 24, 30, false, true),
        random_haar_classifier(rng, 18, 18, 30, 3, 4),
    };
    const GrayImage img = random_image(rng, 333, 250);
    const std::vector<Rect> areas = mixed_areas(img.width, img.height);
    size_t compared = 0;
    for (size_t k = 0; k < classifiers.size(); ++k) {
        const Classifier& c = classifiers[k];
        Engine reduction(c, config_with(parameter_sets()[k % parameter_sets().size()]));
        Engine rows(c, rows_config());
        for (int stride : {0, 1}) {
            DetectParams params;
            params.stride = stride;
            params.min_neighbors = 2;
            params.scale_factor = 1.2;
            const Expected want = reference_of(c, img, areas, params);
            const std::string what = "classifier " + std::to_string(k) + ", stride " + std::to_string(stride);
            for (Engine* engine : {&reduction, &rows}) {
                engine->submit_areas(img.view(), areas, params);
                const std::optional<FrameResult> got = engine->collect();
                ASSERT_TRUE(got);
                expect_matches(*got, want, areas.size(), what + (engine == &rows ? ", rows" : ", reduction"));
            }
            compared += want.windows.size();
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}

/* 256 areas, more than a batch of frames (64): every area's windows are
 * counted and decoded as its own; one more area is refused. */
TEST(EngineAreas, TheMostAreasOfAFrameGoTogether)
{
    std::mt19937 rng(7);
    const Classifier c = random_classifier(rng, 12, 12, 15, true);
    const GrayImage img = random_image(rng, 320, 240);
    std::vector<Rect> areas;
    std::uniform_int_distribution<int> x(-10, 300), y(-10, 220), side(4, 60);
    while (areas.size() < Engine::kMaxAreas)
        areas.push_back({x(rng), y(rng), side(rng), side(rng)});
    DetectParams params;
    params.min_neighbors = 1;
    const Expected want = reference_of(c, img, areas, params);
    ASSERT_GT(want.detections.size(), 100u);
    ASSERT_GT(want.detection_areas.back(), opencl::kMaxBatchFrames) << "areas past a batch's frames found something";
    Engine engine(c, rows_config());
    Engine reduction(c, config_with(parameter_sets()[0]));
    for (Engine* e : {&engine, &reduction}) {
        e->submit_areas(img.view(), areas, params);
        expect_matches(*e->collect(), want, areas.size(), e == &engine ? "rows" : "reduction");
    }
    areas.push_back({0, 0, 50, 50});
    try {
        engine.submit_areas(img.view(), areas, params);
        FAIL() << "257 areas were taken";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
        EXPECT_NE(std::string(e.what()).find("at most 256 areas"), std::string::npos) << e.what();
    }
    EXPECT_EQ(engine.in_flight(), 0u);
}

/* Every window accepted: the accepted list overflows, the frame runs again
 * with a larger one, and nothing is lost. */
TEST(EngineAreas, AnOverflowingListRunsAgainAndLosesNothing)
{
    std::mt19937 rng(11);
    const Classifier c = accept_all(random_classifier(rng, 12, 12, 6, false));
    const GrayImage img = random_image(rng, 300, 200);
    const std::vector<Rect> areas = {{0, 0, 300, 200}, {50, 50, 120, 100}, {200, 20, 100, 180}};
    DetectParams params;
    params.min_neighbors = 0;
    params.stride = 1;
    params.max_windows = 0;
    const Expected want = reference_of(c, img, areas, params);
    ASSERT_GT(want.windows.size(), 5000u) << "more than the accepted list first holds";
    /* The rerun is the host's, the same for both scans. */
    Engine engine(c, rows_config());
    engine.submit_areas(img.view(), areas, params);
    const FrameResult got = *engine.collect();
    expect_same_windows(got.windows, want.windows, "every window");
    EXPECT_EQ(got.stats.reruns, 1);
}

/* Area frames in flight between whole frames, and frames with no area to
 * scan: each leaves collect() in order with its own results. */
TEST(EngineAreas, AreaFramesQueueWithWholeFrames)
{
    std::mt19937 rng(13);
    const Classifier c = random_classifier(rng, 16, 16, 20, true);
    const GrayImage a = random_image(rng, 200, 150), b = random_image(rng, 160, 120);
    DetectParams params;
    params.min_neighbors = 1;
    const std::vector<Rect> areas = {{20, 10, 100, 90}, {90, 60, 110, 90}};
    const std::vector<Rect> too_small = {{0, 0, 10, 100}, {500, 500, 40, 40}};
    const Expected want_areas = reference_of(c, a, areas, params);
    const auto want_whole = detect_raw(c, b.view(), params);
    ASSERT_FALSE(want_areas.windows.empty());
    EngineConfig config = rows_config(3);
    Engine engine(c, config);
    for (int round = 0; round < 2; ++round) {
        engine.submit_areas(a.view(), areas, params);
        engine.submit(b.view(), params);
        engine.submit_areas(a.view(), too_small, params);
        expect_matches(*engine.collect(), want_areas, areas.size(), "areas, round " + std::to_string(round));
        expect_same_windows(engine.collect()->windows, want_whole, "whole frame, round " + std::to_string(round));
        const FrameResult none = *engine.collect();
        EXPECT_TRUE(none.windows.empty() && none.detections.empty());
        EXPECT_EQ(none.areas_searched, too_small.size());
    }
}

/* A slot keeps the buffers of a larger frame of areas for the next, smaller
 * one (their layout changes every frame): what the larger one left in them
 * must not reach the smaller one's sums. */
TEST(EngineAreas, AFrameInBuffersOfALargerOneMatchesTheReference)
{
    std::mt19937 rng(17);
    const Classifier c = random_classifier(rng, 14, 14, 20, true);
    const GrayImage img = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 1;
    const std::vector<std::vector<Rect>> frames = {
        {{0, 0, 320, 240}, {10, 10, 200, 150}},
        {{100, 20, 40, 200}, {5, 150, 90, 30}},
        {{30, 30, 150, 100}},
        {{200, 0, 16, 240}, {0, 220, 320, 20}, {60, 60, 33, 47}},
    };
    for (const EngineConfig& config : {rows_config(1), config_with(parameter_sets()[0])}) {
        Engine engine(c, config);
        for (size_t f = 0; f < frames.size(); ++f) {
            engine.submit_areas(img.view(), frames[f], params);
            expect_matches(*engine.collect(), reference_of(c, img, frames[f], params), frames[f].size(),
                           "frame " + std::to_string(f));
        }
    }
}

/* With other engines on the batch queue, a frame of areas goes with their
 * frames, whole or of areas, in one set of launches (a layout nested in the
 * batch's), and each gets its own results. */
TEST(EngineAreas, AreaFramesGoInBatchesWithOtherStreams)
{
    std::mt19937 rng(19);
    const Classifier c = random_classifier(rng, 16, 16, 20, true);
    const GrayImage a = random_image(rng, 240, 180), b = random_image(rng, 200, 150);
    DetectParams params;
    params.min_neighbors = 1;
    const std::vector<Rect> areas_a = {{10, 10, 120, 90}, {100, 60, 130, 110}, {0, 150, 60, 30}};
    const std::vector<Rect> areas_b = {{40, 20, 90, 100}};
    const Expected want_a = reference_of(c, a, areas_a, params), want_b = reference_of(c, b, areas_b, params);
    const auto want_whole = detect_raw(c, b.view(), params);
    ASSERT_FALSE(want_a.windows.empty());
    ASSERT_FALSE(want_b.windows.empty());
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    config.batch_wait_ns = 2'000'000'000; /* the test submits the companions */
    Engine first(c, config), second(c, config);
    for (int round = 0; round < 2; ++round) {
        const std::string r = ", round " + std::to_string(round);
        first.submit_areas(a.view(), areas_a, params);
        second.submit(b.view(), params);
        const FrameResult ra = *first.collect(), rb = *second.collect();
        EXPECT_EQ(ra.stats.batch_frames, 2);
        EXPECT_EQ(rb.stats.batch_frames, 2);
        expect_matches(ra, want_a, areas_a.size(), "areas beside a whole frame" + r);
        expect_same_windows(rb.windows, want_whole, "a whole frame beside areas" + r);

        first.submit_areas(a.view(), areas_a, params);
        second.submit_areas(b.view(), areas_b, params);
        const FrameResult ra2 = *first.collect(), rb2 = *second.collect();
        EXPECT_EQ(ra2.stats.batch_frames, 2);
        expect_matches(ra2, want_a, areas_a.size(), "areas beside areas" + r);
        expect_matches(rb2, want_b, areas_b.size(), "the other areas" + r);
    }
}
