/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The OpenCL engine against the CPU reference on LBP classifiers: random
 * ones (plain WaldBoost and stage-reset cascades, full tables or stumps,
 * windows of 8 to 64 pixels, a first stage of one weak classifier) on
 * random images of many sizes and strides, a 4K frame and a pyramid wider
 * than 8192 pixels, responses finer than the fixed-point unit, the default cascade on a real photo, block sums near
 * 16 bits and an image tiled with hundreds of faces. The engine must return
 * exactly the reference's accepted windows with the same scores, on both
 * scans. meson.build runs it twice: as the device picks, and with the GPU
 * kernels' band layout (WALDBOOST_KERNEL_LAYOUT=bands).
 */
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;
using waldboost::opencl::ScanMethod;

TEST(Engine, RandomClassifiersMatchTheReferenceExactly)
{
    std::mt19937 rng(20261122);
    const std::vector<Size> windows = {{8, 8}, {24, 24}, {20, 34}, {64, 64}, {12, 40}};
    const std::vector<Size> images = {{1, 1}, {7, 5}, {23, 30}, {64, 64}, {97, 61}, {160, 121}, {333, 250}};
    const std::vector<ReductionParams> sets = parameter_sets();
    size_t compared = 0;
    for (size_t k = 0; k < windows.size(); ++k) {
        const bool stages = k % 2 == 1;
        const bool stumps = k >= 3;
        const Classifier c =
            random_classifier(rng, windows[k].width, windows[k].height, 12 + 9 * static_cast<int>(k), stages, stumps);
        const ReductionParams& p = sets[k % sets.size()];
        Engine engine(c, config_with(p));
        Engine rows(c, rows_config());
        for (const Size& s : images) {
            const GrayImage img = random_image(rng, s.width, s.height);
            for (int stride : {0, 1, 3, 17}) { /* 17: the row scan's gathered reads, far past a row's end */
                DetectParams params;
                params.stride = stride;
                params.min_neighbors = 0;
                params.scale_factor = 1.25;
                const auto reference = detect_raw(c, img.view(), params);
                const auto result = engine.detect(img.view(), params);
                std::ostringstream what;
                what << "classifier " << k << (stages ? " (stages" : " (waldboost") << (stumps ? ", stumps)" : ")")
                     << " window " << windows[k].width << "x" << windows[k].height << ", image " << s.width << "x"
                     << s.height << ", stride " << stride;
                expect_same_windows(result.windows, reference,
                                    what.str() + ", reduction " + std::to_string(k % sets.size()));
                EXPECT_EQ(result.stats.discarded, 0u);
                expect_same_windows(rows.detect(img.view(), params).windows, reference, what.str() + ", rows");
                compared += reference.size();
            }
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}

TEST(Engine, AFirstStageOfOneTableMatchesTheReference)
{
    /* Full tables, and a first stage of one weak classifier: its test comes
     * first, so the row scan takes it from the codes it rejects
     * (kernels/lbp.cl, FIRST_TEST_CODES), and its sum is reset after it. */
    std::mt19937 rng(54);
    Classifier c = random_classifier(rng, 24, 24, 30, true);
    c.weak[0].reject_threshold = grid_value(rng, -0.3f, 0.3f);
    c.weak[0].reset_sum_after = true;
    validate(c, "<one-weak first stage>");
    ASSERT_TRUE(waldboost::opencl::pack_classifier(c).first_test_codes);
    Engine engine(c, config_with(parameter_sets()[1]));
    Engine rows(c, rows_config());
    size_t compared = 0;
    for (const Size& s : {Size{160, 121}, Size{333, 250}}) {
        const GrayImage img = random_image(rng, s.width, s.height);
        for (int stride : {0, 1}) {
            DetectParams params;
            params.stride = stride;
            params.min_neighbors = 0;
            params.scale_factor = 1.25;
            const auto reference = detect_raw(c, img.view(), params);
            const std::string what =
                std::to_string(s.width) + "x" + std::to_string(s.height) + ", stride " + std::to_string(stride);
            expect_same_windows(engine.detect(img.view(), params).windows, reference, what + ", reduction");
            expect_same_windows(rows.detect(img.view(), params).windows, reference, what + ", rows");
            compared += reference.size();
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 50u) << "the classifier accepts too little for the comparison to mean much";
}

TEST(Engine, LargeFramesMatchTheReference)
{
    /* A pyramid wider than 8192 pixels, and a 4K frame (at the small size
     * of the sanitizer run only the former: the reference's 4K pyramid takes
     * a minute there). */
    std::mt19937 rng(4096);
    const Classifier c = random_classifier(rng, 24, 24, 30, true);
    std::vector<GrayImage> images;
    for (Size s : {Size{8400, 48}, Size{3840, 2160}})
        images.push_back(random_image(rng, s.width, s.height));
    for (const GrayImage& img : waldboost_test::sample(images, 1)) {
        const Size s{img.width, img.height};
        DetectParams params;
        params.min_neighbors = 0;
        const auto reference = detect_raw(c, img.view(), params);
        Engine engine(c, EngineConfig{test_device(), std::nullopt, 1});
        const auto result = engine.detect(img.view(), params);
        expect_same_windows(result.windows, reference, std::to_string(s.width) + "x" + std::to_string(s.height));
        EXPECT_GT(reference.size(), 0u);
    }
}

TEST(Engine, ResponsesFinerThanTheFixedPointUnitMatchTheReference)
{
    /* Values times 3e-13 in float: full mantissas reaching far below the
     * fixed-point unit of 2^-40, thresholds as near the sums as before.
     * The reference's double sums of them stay exact (under 53 bits). */
    std::mt19937 rng(1710);
    const GrayImage img = random_image(rng, 160, 121);
    size_t compared = 0;
    for (const bool stages : {false, true}) {
        const Classifier c = with_values(random_classifier(rng, 20, 20, 30, stages), [](float v) {
            return v * 3e-13f;
        });
        DetectParams params;
        params.min_neighbors = 0;
        const auto reference = scores_times(detect_raw(c, img.view(), params), 1 / 3e-13);
        const std::string what = stages ? "tiny stages" : "tiny waldboost";
        expect_same_windows(
            scores_times(Engine(c, config_with(parameter_sets()[0])).detect(img.view(), params).windows, 1 / 3e-13),
            reference, what + ", reduction");
        expect_same_windows(scores_times(Engine(c, rows_config()).detect(img.view(), params).windows, 1 / 3e-13),
                            reference, what + ", rows");
        std::printf("%s: %zu accepted windows compared\n", what.c_str(), reference.size());
        compared += reference.size();
    }
    EXPECT_GT(compared, 100u);
}

TEST(Engine, RealCascadeOnRealImagesMatchesTheReference)
{
    /* The default classifier (lbpcascade_frontalface) on a real photo. */
    const std::string path = waldboost_test::test_data("astronaut.png");
    WALDBOOST_REQUIRE_FILE(path);
    const GrayImage img = waldboost::tools::load_gray_image(path);
    const Classifier& c = default_classifier();
    DetectParams params;
    const auto reference = detect(c, img.view(), params);
    DetectParams raw_params = params;
    raw_params.min_neighbors = 0;
    const auto reference_raw = detect_raw(c, img.view(), raw_params);
    /* Both scans, whichever the device would pick: each reads the cascade
     * in its own form (tables or stump records, vectors or not). */
    for (const ScanMethod scan : {ScanMethod::Reduction, ScanMethod::Rows}) {
        SCOPED_TRACE(scan == ScanMethod::Rows ? "row scan" : "reduction");
        EngineConfig config{test_device(), std::nullopt, 2};
        config.scan = scan;
        Engine engine(c, config);
        expect_same_windows(engine.detect(img.view(), raw_params).windows, reference_raw, "astronaut raw");
        const auto result = engine.detect(img.view(), params);
        ASSERT_EQ(result.detections.size(), reference.size());
        for (size_t i = 0; i < reference.size(); ++i) {
            EXPECT_EQ(result.detections[i].rect, reference[i].rect);
            EXPECT_EQ(result.detections[i].neighbors, reference[i].neighbors);
        }
    }
    EXPECT_GE(reference.size(), 1u);
}

TEST(Engine, BlockSumsNearSixteenBitsStayExact)
{
    /* GPUs keep 16-bit integral values when no block can sum to 2^16 (at
     * most 257 pixels) and 32 bits otherwise. Bright noise puts 17x17 block
     * sums (289 pixels) on both sides of 2^16, where 16-bit values would
     * flip comparisons; 16x16 blocks come close to it and stay exact. */
    std::mt19937 rng(65536);
    for (const int side : {16, 17}) {
        /* Lenient thresholds: many windows are accepted, and their scores
         * (from 256-entry tables) show any code that came out different. */
        Classifier c = random_classifier(rng, 3 * side + 2, 3 * side + 2, 12, true);
        for (WeakClassifier& w : c.weak) {
            lbp(w).block_width = lbp(w).block_height = side;
            lbp(w).x = static_cast<int>(rng() % 3);
            lbp(w).y = static_cast<int>(rng() % 3);
            if (w.reject_threshold != waldboost::kNoRejection)
                w.reject_threshold -= 2.0f;
        }
        c.final_threshold = c.weak.back().reject_threshold;
        GrayImage img(150, 110);
        std::uniform_int_distribution<int> bright(200, 255);
        for (uint8_t& v : img.pixels)
            v = static_cast<uint8_t>(bright(rng));
        DetectParams params;
        params.min_neighbors = 0;
        params.scale_factor = 1.05;
        const auto reference = detect_raw(c, img.view(), params);
        const std::vector<ReductionParams> sets = parameter_sets();
        for (const ReductionParams& p : {sets[0], sets[2]}) {
            Engine engine(c, config_with(p));
            expect_same_windows(engine.detect(img.view(), params).windows, reference,
                                "blocks " + std::to_string(side) + "x" + std::to_string(side));
        }
        EXPECT_GT(reference.size(), 100u) << "blocks " << side;
    }
}

TEST(Engine, LosesNothingOnAnImageTiledWithHundredsOfFaces)
{
    const std::string path = waldboost_test::test_data("astronaut.png");
    WALDBOOST_REQUIRE_FILE(path);
    const GrayImage photo = waldboost::tools::load_gray_image(path);
    /* The astronaut's face (about 100 pixels) shrunk to 48x48 and tiled. */
    const GrayImage face_region = [&] {
        GrayImage crop(120, 120);
        for (int y = 0; y < 120; ++y)
            for (int x = 0; x < 120; ++x)
                crop.at(x, y) = photo.at(163 + x, 56 + y);
        return resize_bilinear(crop.view(), {48, 48});
    }();
    GrayImage tiled(48 * 24, 48 * 16);
    for (int y = 0; y < tiled.height; ++y)
        for (int x = 0; x < tiled.width; ++x)
            tiled.at(x, y) = face_region.at(x % 48, y % 48);

    const Classifier& c = default_classifier();
    DetectParams params;
    params.min_neighbors = 0;
    params.max_size = {60, 60};
    const auto reference = detect_raw(c, tiled.view(), params);
    for (const ReductionParams& p : parameter_sets()) {
        Engine engine(c, config_with(p));
        expect_same_windows(engine.detect(tiled.view(), params).windows, reference,
                            "tiled faces, group " + std::to_string(p.group_size));
    }
    expect_same_windows(Engine(c, rows_config()).detect(tiled.view(), params).windows, reference, "tiled faces, rows");
    DetectParams grouped = params;
    grouped.min_neighbors = 3;
    const auto faces = group_windows(reference, grouped);
    std::printf("tiled image: %zu raw windows, %zu faces\n", reference.size(), faces.size());
    EXPECT_GE(faces.size(), 200u) << "the tiled image should hold hundreds of detected faces";
}
