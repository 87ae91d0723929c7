/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Rank features (LRD, LRP) on the engine against the CPU reference: random
 * classifiers on random images and on images of a few grey levels (ties
 * between block sums everywhere), and classifiers calibrated on a real
 * image to reject like trained ones, on real photos: the raw windows and
 * the grouped detections. meson.build runs it twice: as the device picks,
 * and with the GPU kernels' band layout.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::ReductionParams;

namespace {

/* Random rank features (blocks mostly small, where ties between block sums
 * are common), tables and thresholds as random_classifier()'s: a threshold
 * after every weak classifier, or at stage ends with a sum reset. */
Classifier random_rank_classifier(std::mt19937& rng, RankFeature::Kind kind, int width, int height, int weak_count,
                                  bool stages)
{
    Classifier c;
    c.label = kind == RankFeature::Kind::Difference ? "random-lrd" : "random-lrp";
    c.window_width = width;
    c.window_height = height;
    std::uniform_int_distribution<int> stage_length(2, 6);
    int in_stage = 0, next_stage_end = stage_length(rng);
    for (int t = 0; t < weak_count; ++t) {
        RankFeature f;
        f.kind = kind;
        const int largest_w = std::max(1, width / 3), largest_h = std::max(1, height / 3);
        const bool small = rng() % 4 != 0;
        f.block_width = std::uniform_int_distribution<int>(1, small ? std::min(2, largest_w) : largest_w)(rng);
        f.block_height = std::uniform_int_distribution<int>(1, small ? std::min(2, largest_h) : largest_h)(rng);
        f.x = std::uniform_int_distribution<int>(0, width - 3 * f.block_width)(rng);
        f.y = std::uniform_int_distribution<int>(0, height - 3 * f.block_height)(rng);
        f.block_a = static_cast<int>(rng() % 9);
        f.block_b = (f.block_a + 1 + static_cast<int>(rng() % 8)) % 9;
        f.responses.resize(f.table_size());
        for (float& r : f.responses)
            r = grid_value(rng, -1.0f, 1.2f);
        WeakClassifier w;
        w.feature = std::move(f);
        ++in_stage;
        if (!stages) {
            w.reject_threshold = grid_value(rng, -0.6f, 0.1f) * std::sqrt(static_cast<float>(t + 1));
        } else if (in_stage == next_stage_end || t + 1 == weak_count) {
            w.reject_threshold = grid_value(rng, -0.5f, 0.4f) * static_cast<float>(in_stage) * 0.5f;
            w.reset_sum_after = true;
            in_stage = 0;
            next_stage_end = stage_length(rng);
        }
        c.weak.push_back(std::move(w));
    }
    c.final_threshold = stages ? c.weak.back().reject_threshold : grid_value(rng, -1.0f, 0.5f);
    validate(c, "<random rank>");
    return c;
}

/* An image of a few grey levels: equal block sums (ties) everywhere. */
GrayImage few_levels_image(std::mt19937& rng, int w, int h)
{
    GrayImage img = random_image(rng, w, h);
    for (uint8_t& v : img.pixels)
        v = static_cast<uint8_t>(v / 64 * 64);
    return img;
}

/* Sets every rejection threshold of a WaldBoost sequence so that each weak
 * classifier rejects about `reject` of the windows of `img` (scale 1, every
 * position) that reach it, as a trained classifier does: windows die at
 * every depth and a few are accepted. */
void calibrate_thresholds(Classifier& c, const GrayImage& img, double reject)
{
    const IntegralImage ii = integral_image(img.view());
    std::vector<std::pair<int, int>> alive;
    for (int y = 0; y + c.window_height <= img.height; ++y)
        for (int x = 0; x + c.window_width <= img.width; ++x)
            alive.emplace_back(x, y);
    std::vector<double> sums(alive.size(), 0.0);
    for (WeakClassifier& w : c.weak) {
        const RankFeature& f = std::get<RankFeature>(w.feature);
        std::vector<double> sorted;
        for (size_t i = 0; i < alive.size(); ++i) {
            sums[i] += f.responses[static_cast<size_t>(rank_index(ii, alive[i].first, alive[i].second, f))];
            sorted.push_back(sums[i]);
        }
        std::sort(sorted.begin(), sorted.end());
        w.reject_threshold =
            static_cast<float>(sorted[static_cast<size_t>(reject * static_cast<double>(sorted.size()))]);
        w.reset_sum_after = false;
        size_t kept = 0;
        for (size_t i = 0; i < alive.size(); ++i)
            if (!(sums[i] < w.reject_threshold)) {
                alive[kept] = alive[i];
                sums[kept++] = sums[i];
            }
        alive.resize(kept);
        sums.resize(kept);
    }
    c.final_threshold = c.weak.back().reject_threshold;
    validate(c, "<calibrated>");
}

}  // namespace

TEST(EngineRank, RandomLrdAndLrpClassifiersMatchTheReferenceExactly)
{
    std::mt19937 rng(20261127);
    const std::vector<Size> windows = {{8, 8}, {24, 24}, {20, 34}, {12, 40}};
    const std::vector<Size> images = {{1, 1}, {23, 30}, {97, 61}, {160, 120}, {333, 250}};
    const std::vector<ReductionParams> sets = parameter_sets();
    size_t compared = 0;
    for (const auto kind : {RankFeature::Kind::Difference, RankFeature::Kind::Pair}) {
        for (size_t k = 0; k < windows.size(); ++k) {
            const bool stages = k % 2 == 1;
            const Classifier c = random_rank_classifier(rng, kind, windows[k].width, windows[k].height,
                                                        12 + 6 * static_cast<int>(k), stages);
            const ReductionParams& p = sets[k % sets.size()];
            Engine engine(c, config_with(p));
            Engine rows(c, rows_config());
            for (const Size& s : images) {
                const bool ties = s.width % 2 == 1;
                const GrayImage img =
                    ties ? few_levels_image(rng, s.width, s.height) : random_image(rng, s.width, s.height);
                for (int stride : {0, 17}) {
                    DetectParams params;
                    params.stride = stride;
                    params.min_neighbors = 0;
                    params.scale_factor = 1.25;
                    const auto reference = detect_raw(c, img.view(), params);
                    std::ostringstream what;
                    what << c.label << " " << k << (stages ? " (stages)" : " (waldboost)") << " window "
                         << windows[k].width << "x" << windows[k].height << ", image " << s.width << "x" << s.height
                         << (ties ? " (few grey levels)" : "") << ", stride " << stride;
                    const auto result = engine.detect(img.view(), params);
                    expect_same_windows(result.windows, reference,
                                        what.str() + ", reduction " + std::to_string(k % sets.size()));
                    EXPECT_EQ(result.stats.discarded, 0u);
                    expect_same_windows(rows.detect(img.view(), params).windows, reference, what.str() + ", rows");
                    compared += reference.size();
                }
            }
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}

TEST(EngineRank, RealImagesMatchTheReference)
{
    std::mt19937 rng(34);
    size_t compared = 0;
    for (const auto kind : {RankFeature::Kind::Difference, RankFeature::Kind::Pair}) {
        Classifier c = random_rank_classifier(rng, kind, 24, 24, 24, false);
        const std::string calibration = waldboost_test::test_data("building.jpg");
        WALDBOOST_REQUIRE_FILE(calibration);
        calibrate_thresholds(c, waldboost::tools::load_gray_image(calibration), 0.2);
        Engine reduction(c, config_with(parameter_sets()[0]));
        Engine rows(c, rows_config());
        for (const char* name : {"astronaut.png", "messi5.jpg", "fruits.jpg"}) {
            const std::string path = waldboost_test::test_data(name);
            WALDBOOST_REQUIRE_FILE(path);
            const GrayImage img = waldboost::tools::load_gray_image(path);
            /* One reference scan gives both the raw windows and the grouped
             * detections (detect_raw and detect are these two steps): the
             * reference is the slow side of this test, all the more under
             * the sanitizers. */
            DetectParams params;
            params.min_neighbors = 0;
            DetectStats stats;
            const auto unclipped = detect_unclipped(c, img.view(), params, &stats);
            std::vector<RawWindow> reference = unclipped;
            clip_windows(reference, Size{img.width, img.height});
            /* Shows that the classifier keeps a fair share of windows for
             * several weak classifiers, so that the comparison means something. */
            std::printf("%s on %s: %llu windows, %.2f weak classifiers per window, %llu accepted\n", c.label.c_str(),
                        name, static_cast<unsigned long long>(stats.windows),
                        static_cast<double>(stats.weak_evaluated) /
                            static_cast<double>(std::max<uint64_t>(stats.windows, 1)),
                        static_cast<unsigned long long>(stats.accepted));
            const std::string what = c.label + " on " + name;
            expect_same_windows(reduction.detect(img.view(), params).windows, reference, what + ", reduction");
            expect_same_windows(rows.detect(img.view(), params).windows, reference, what + ", rows");
            /* Grouped detections too, as the element reports them. */
            DetectParams grouped;
            const auto detections = detections_of(unclipped, grouped, Size{img.width, img.height});
            const auto result = rows.detect(img.view(), grouped);
            ASSERT_EQ(result.detections.size(), detections.size()) << what;
            for (size_t i = 0; i < detections.size(); ++i)
                EXPECT_EQ(result.detections[i].rect, detections[i].rect) << what;
            compared += reference.size();
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}
