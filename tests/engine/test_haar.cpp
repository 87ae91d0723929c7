/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Haar cascades on the engine against the CPU reference: random cascades
 * (stumps, trees, tilted features, short and long stages) on images with a
 * flat patch that OpenCV's variance cut skips, feature values equal to
 * their thresholds, and Debian's Haar cascades on real photos. The engine
 * repeats OpenCV's float operations, so no window may go the other way.
 * meson.build runs it twice: as the device picks, and with the GPU
 * kernels' band layout.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::FrameResult;
using waldboost::opencl::ReductionParams;
using waldboost::opencl::ScanMethod;

namespace {

/* A random image with a flat patch: windows there have a standard deviation
 * under OpenCV's cut (10) and are skipped before the first stage, without
 * the skip rule's effect on the next position. */
GrayImage image_with_flat_patch(std::mt19937& rng, int w, int h)
{
    GrayImage img = random_image(rng, w, h);
    for (int y = h / 4; y < h / 2; ++y)
        for (int x = w / 3; x < 2 * w / 3; ++x)
            img.at(x, y) = static_cast<uint8_t>(90 + (x + y) % 3);
    return img;
}

}  // namespace

TEST(EngineHaar, RandomHaarCascadesMatchTheReferenceExactly)
{
    std::mt19937 rng(15);
    struct Case {
        Size window;
        int weak_count, max_nodes, tilted_every, longest_stage;
        const char* what;
    };
    /* Stages of 16 or more weak classifiers on average take step 4's
     * reduction by segments (waldboost.cl), shorter ones its scan. Case k
     * runs parameter set k % 4: the long stages get sets 3 and 0, which
     * leave windows to step 4. */
    const std::vector<Case> cases = {{{24, 24}, 40, 1, 0, 6, "upright stumps"},
                                     {{20, 20}, 30, 3, 0, 6, "upright trees"},
                                     {{14, 28}, 30, 1, 3, 6, "stumps, a third tilted"},
                                     {{24, 24}, 400, 1, 0, 120, "long stages of stumps"},
                                     {{20, 20}, 300, 2, 4, 90, "long stages of trees, some tilted"},
                                     {{24, 24}, 25, 4, 2, 6, "trees, half tilted"},
                                     {{8, 8}, 20, 2, 1, 6, "small window, all tilted"}};
    const std::vector<Size> images = {{1, 1}, {23, 30}, {97, 61}, {160, 121}, {333, 250}};
    const std::vector<ReductionParams> sets = parameter_sets();
    size_t compared = 0;
    for (size_t k = 0; k < cases.size(); ++k) {
        const Case& cs = cases[k];
        const Classifier c = random_haar_classifier(rng, cs.window.width, cs.window.height, cs.weak_count, cs.max_nodes,
                                                    cs.tilted_every, cs.longest_stage);
        Engine engine(c, config_with(sets[k % sets.size()]));
        Engine rows(c, rows_config());
        for (const Size& s : images) {
            const GrayImage img = image_with_flat_patch(rng, s.width, s.height);
            for (int stride : {0, 3}) {
                DetectParams params;
                params.stride = stride;
                params.min_neighbors = 0;
                params.scale_factor = 1.25;
                const auto reference = detect_raw(c, img.view(), params);
                std::ostringstream what;
                what << cs.what << ", window " << cs.window.width << "x" << cs.window.height << ", image " << s.width
                     << "x" << s.height << ", stride " << stride;
                expect_same_windows(engine.detect(img.view(), params).windows, reference, what.str() + ", reduction");
                expect_same_windows(rows.detect(img.view(), params).windows, reference, what.str() + ", rows");
                compared += reference.size();
            }
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}

/* Ties: every node threshold is the exact value (feature times norm
 * factor, in the reference's float operations) that its feature takes at
 * some window of the image, and nothing is rejected, so every window's score
 * records every comparison. At the tied windows a value one bit off (a
 * fused multiply-add, a float square root for the norm factor) goes to the
 * other leaf, and the score shows it. */
TEST(EngineHaar, ValuesEqualToTheirThresholdsGoTheSameWay)
{
    std::mt19937 rng(1e6);
    const GrayImage img = random_image(rng, 120, 90);
    for (const bool tilted : {false, true}) {
        Classifier c = random_haar_classifier(rng, 20, 20, 150, 1, tilted ? 1 : 0);
        const LevelIntegrals integrals = level_integrals(c, img.view());
        std::uniform_int_distribution<int> wx(0, img.width - c.window_width), wy(0, img.height - c.window_height);
        for (WeakClassifier& w : c.weak) {
            HaarNode& node = std::get<HaarTree>(w.feature).nodes[0];
            float norm = 0.0f;
            int x = 0, y = 0;
            while (norm == 0.0f) {
                x = wx(rng);
                y = wy(rng);
                norm = haar_norm_factor(integrals, c.window_width, c.window_height, x, y);
            }
            node.threshold = haar_feature_sum(node.feature, integrals, x, y) * norm;
            w.reject_threshold = kNoRejection;
            w.reset_sum_after = false;
        }
        c.final_threshold = -1e4f;
        validate(c, "<tied>");
        DetectParams params;
        params.min_neighbors = 0;
        params.scale_factor = 1.5;
        const auto reference = detect_raw(c, img.view(), params);
        ASSERT_GT(reference.size(), 1000u);
        const std::string what = tilted ? "tilted ties" : "upright ties";
        expect_same_windows(Engine(c, config_with(parameter_sets()[0])).detect(img.view(), params).windows, reference,
                            what + ", reduction");
        expect_same_windows(Engine(c, rows_config()).detect(img.view(), params).windows, reference, what + ", rows");
    }
}

/* Debian's Haar cascades on real photos: stumps (frontalface_default),
 * two-node trees (frontalface_alt2), trees with tilted features
 * (eye_tree_eyeglasses), tilted stumps (fullbody) and the old format
 * (licence_plate). The engine repeats OpenCV's float operations, so no
 * window should land on the other side of a threshold; the test counts
 * those that would (windows in one result and not the other), prints them,
 * and allows at most one per million positions, with the grouped
 * detections equal. */
TEST(EngineHaar, DebianHaarCascadesOnRealImagesMatchTheReference)
{
    const std::vector<std::string> stems = {"frontalface_default", "frontalface_alt2", "eye_tree_eyeglasses",
                                            "fullbody", "licence_plate_rus_16stages"};
    std::vector<GrayImage> photos;
    for (const char* name : {"astronaut.png", "messi5.jpg"}) {
        const std::string path = waldboost_test::test_data(name);
        WALDBOOST_REQUIRE_FILE(path);
        photos.push_back(waldboost::tools::load_gray_image(path));
    }
    /* The small size (the sanitizer run) takes the first and the last:
     * stumps, and the old format's trees. */
    for (const std::string& stem : waldboost_test::sample(stems, 2)) {
        const std::string path = stem == "licence_plate_rus_16stages"
                                     ? waldboost_test::licence_plate_cascade()
                                     : waldboost_test::haar_cascade("haarcascade_" + stem);
        WALDBOOST_REQUIRE_FILE(path);
        const Classifier c = load_classifier_file(path);
        /* The reference once per photo: its windows clipped are the raw
         * windows, grouped before clipping they are the detections (as
         * detect_raw and detect make them). */
        std::vector<std::vector<RawWindow>> reference_windows;
        std::vector<std::vector<Detection>> reference_detections;
        for (const GrayImage& img : photos) {
            std::vector<RawWindow> windows = detect_unclipped(c, img.view(), DetectParams{});
            reference_detections.push_back(detections_of(windows, DetectParams{}, {img.width, img.height}));
            clip_windows(windows, {img.width, img.height});
            reference_windows.push_back(std::move(windows));
        }
        for (const ScanMethod scan : {ScanMethod::Reduction, ScanMethod::Rows}) {
            EngineConfig config{test_device(), std::nullopt, 2};
            config.scan = scan;
            Engine engine(c, config);
            for (size_t p = 0; p < photos.size(); ++p) {
                const GrayImage& img = photos[p];
                const std::string what = stem + (scan == ScanMethod::Rows ? ", row scan" : ", reduction") + ", " +
                                         std::to_string(img.width) + "x" + std::to_string(img.height);
                /* One frame gives both: min-neighbors only changes the grouping. */
                const FrameResult result = engine.detect(img.view(), DetectParams{});
                const std::vector<RawWindow>& reference = reference_windows[p];
                const auto key = [](const RawWindow& w) {
                    return std::make_tuple(w.level, w.x, w.y);
                };
                std::vector<std::tuple<int, int, int>> a, b, flipped;
                for (const RawWindow& w : result.windows)
                    a.push_back(key(w));
                for (const RawWindow& w : reference)
                    b.push_back(key(w));
                std::sort(a.begin(), a.end());
                std::sort(b.begin(), b.end());
                std::set_symmetric_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(flipped));
                std::printf("%s: %zu raw windows, %zu on the other side of a threshold, of %llu positions\n",
                            what.c_str(), reference.size(), flipped.size(),
                            static_cast<unsigned long long>(result.stats.windows));
                for (const auto& [level, x, y] : flipped)
                    std::printf("  level %d at %d,%d\n", level, x, y);
                EXPECT_LE(static_cast<double>(flipped.size()) * 1e6, static_cast<double>(result.stats.windows)) << what;
                if (flipped.empty())
                    expect_same_windows(result.windows, reference, what);
                const std::vector<Detection>& expected = reference_detections[p];
                ASSERT_EQ(result.detections.size(), expected.size()) << what;
                for (size_t i = 0; i < expected.size(); ++i)
                    EXPECT_EQ(result.detections[i].rect, expected[i].rect) << what;
            }
        }
    }
}
