/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer (core/training): annotation files and crops, Wald's
 * threshold against a brute-force reading of its rule, and training on a
 * synthetic object over real backgrounds (Debian's opencv-doc images):
 * what it learns is measured on held-out samples and backgrounds, runs in
 * the CPU reference after a round trip through the XML writer and loader,
 * and does not depend on the seed's replay or the number of threads.
 */
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <cmath>
#include <iostream>
#include <limits>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"
#include "core/model/classifier_io.h"
#include "core/model/feature_types.h"
#include "core/reference/detector.h"
#include "core/training/checkpoint.h"
#include "core/training/samples.h"
#include "core/training/trainer.h"
#include "core/training/wald_threshold.h"
#include "test_support.h"
#include "tools/common/image_file.h"

using namespace waldboost;
using namespace waldboost::training;

namespace {

/* ------------------------------------------------------------------ */
/* A synthetic object: a light oval with two dark eyes and a dark mouth,
 * drawn at any size over a background patch, with noise. Nothing in the
 * trainer knows it. */
void draw_object(GrayImage& image, const Rect& box, std::mt19937_64& rng)
{
    std::normal_distribution<double> noise(0.0, 6.0);
    const double gain = std::uniform_real_distribution<double>(0.7, 1.2)(rng);
    const double cx = box.x + box.width / 2.0, cy = box.y + box.height / 2.0;
    for (int y = box.y; y < box.y + box.height; ++y)
        for (int x = box.x; x < box.x + box.width; ++x) {
            const double u = (x + 0.5 - cx) / (box.width / 2.0), v = (y + 0.5 - cy) / (box.height / 2.0);
            if (u * u / 0.8 + v * v > 1.0)
                continue; /* outside the oval: the background shows */
            double value = 175;
            const double eye_l = (u + 0.38) * (u + 0.38) + (v + 0.25) * (v + 0.25);
            const double eye_r = (u - 0.38) * (u - 0.38) + (v + 0.25) * (v + 0.25);
            if (eye_l < 0.03 || eye_r < 0.03)
                value = 40;
            if (std::abs(v - 0.45) < 0.08 && std::abs(u) < 0.35)
                value = 60;
            value = 128 + gain * (value - 128) + noise(rng);
            image.at(x, y) = static_cast<uint8_t>(std::clamp(value, 0.0, 255.0));
        }
}

/* Face-free photographs from opencv-doc (tests/fetch-test-data.sh). */
std::vector<std::string> background_files()
{
    return {"brick.png",  "gravel.png", "building.jpg", "board.jpg",
            "coffee.png", "fruits.jpg", "aero3.jpg",    "leuvenA.jpg"};
}

bool have_backgrounds()
{
    for (const std::string& f : background_files())
        if (!waldboost_test::file_exists(waldboost_test::test_data(f)))
            return false;
    return true;
}

/* In a test body: fails where the suite requires its test data
 * (WALDBOOST_REQUIRE_TEST_DATA), else skips, when the backgrounds are
 * missing. */
#define SKIP_WITHOUT_BACKGROUNDS()                                          \
    do {                                                                    \
        if (!have_backgrounds())                                            \
            WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("brick.png")); \
        if (!have_backgrounds())                                            \
            GTEST_SKIP() << "background images missing";                    \
    } while (0)

/* The backgrounds halved (smaller images, faster mining); `held_out`:
 * the last two, never seen in training. */
std::vector<GrayImage> backgrounds(bool held_out)
{
    std::vector<std::string> files = background_files();
    std::vector<GrayImage> images;
    for (size_t i = 0; i < files.size(); ++i) {
        if ((i + 2 >= files.size()) != held_out)
            continue;
        const GrayImage full = tools::load_gray_image(waldboost_test::test_data(files[i]));
        images.push_back(resize_bilinear(full.view(), Size{full.width / 2, full.height / 2}));
    }
    return images;
}

/* Window-sized positives: the object over a random patch of a background. */
std::vector<GrayImage> synthetic_positives(const std::vector<GrayImage>& from, size_t count, uint64_t seed)
{
    std::mt19937_64 rng(seed);
    std::vector<GrayImage> out;
    for (size_t k = 0; k < count; ++k) {
        const GrayImage& bg = from[rng() % from.size()];
        GrayImage canvas(48, 48);
        const int ox = static_cast<int>(rng() % (bg.width - 48)), oy = static_cast<int>(rng() % (bg.height - 48));
        for (int y = 0; y < 48; ++y)
            for (int x = 0; x < 48; ++x)
                canvas.at(x, y) = bg.at(ox + x, oy + y);
        const Rect box{8, 8, 32, 32};
        draw_object(canvas, box, rng);
        /* Varied as a detector's scan sees objects: shifted by up to a
         * sixth of the box, scaled by up to 10%. */
        Augmentation vary;
        vary.shift = 1.0 / 6;
        vary.scale = 0.1;
        out.push_back(crop_window(canvas.view(), box, Size{24, 24}, vary, true, rng));
    }
    return out;
}

/* What a trained classifier does on held-out data: the share of positives
 * it rejects, and the raw windows of the backgrounds it accepts. */
struct HeldOut {
    double miss_rate = 0;
    uint64_t accepted = 0, windows = 0;
    double fp_rate() const { return static_cast<double>(accepted) / static_cast<double>(windows); }
};

HeldOut measure(const Classifier& c, const std::vector<GrayImage>& positives, const std::vector<GrayImage>& backgrounds)
{
    HeldOut m;
    size_t missed = 0;
    for (const GrayImage& p : positives) {
        LevelIntegrals li;
        li.sum = integral_image(p.view());
        missed += !evaluate_window(c, li, 0, 0, c.final_threshold).accepted;
    }
    m.miss_rate = static_cast<double>(missed) / static_cast<double>(positives.size());
    DetectParams params;
    params.min_neighbors = 0;
    params.max_windows = 0;
    for (const GrayImage& bg : backgrounds) {
        DetectStats st;
        detect_raw(c, bg.view(), params, &st);
        m.accepted += st.accepted;
        m.windows += st.windows;
    }
    return m;
}

TrainerConfig small_config(uint64_t seed = 7)
{
    TrainerConfig c;
    c.window = Size{24, 24};
    c.label = "blob";
    c.weak_count = 24;
    c.alpha = 0.05;
    c.negatives = 2000;
    c.block_sizes = {Size{1, 1}, Size{2, 2}, Size{3, 3}, Size{2, 4}, Size{4, 2}};
    c.position_step = 2;
    c.seed = seed;
    c.threads = 2;
    return c;
}

}  // namespace

/* ===================== annotation files and crops ===================== */

TEST(TrainingSamples, ParsesOpenCvAnnotations)
{
    const std::string text = "# made by hand\n"
                             "img/a.png 2 10 20 30 40 1 2 3 4\r\n"
                             "\n"
                             "/abs/b.jpg 0\n"
                             "c.png 1 -5 0 8 9\n";
    const std::vector<Annotation> a = parse_annotations(text, "list.txt", "/data");
    ASSERT_EQ(a.size(), 3u);
    EXPECT_EQ(a[0].path, "/data/img/a.png");
    EXPECT_EQ(a[0].line, 2);
    ASSERT_EQ(a[0].boxes.size(), 2u);
    EXPECT_EQ(a[0].boxes[0], (Rect{10, 20, 30, 40}));
    EXPECT_EQ(a[0].boxes[1], (Rect{1, 2, 3, 4}));
    EXPECT_EQ(a[1].path, "/abs/b.jpg");
    EXPECT_TRUE(a[1].boxes.empty());
    EXPECT_EQ(a[2].boxes[0], (Rect{-5, 0, 8, 9})); /* outside: check_box() says so once the image is read */
}

TEST(TrainingSamples, RefusesMalformedAnnotationsNamingTheLine)
{
    const struct {
        const char* text;
        const char* says;
    } cases[] = {
        {"a.png\n", "count is missing"},
        {"ok.png 1 0 0 5 5\na.png two 1 2 3 4\n", ":2: "},
        {"a.png 2 0 0 5 5\n", "says 2 boxes"},
        {"a.png 1 0 0 5\n", "says 1 boxes"},
        {"a.png 1 0 0 0 5\n", "size of 0x5"},
        {"a.png 1 0 0 5 -1\n", "size of 5x-1"},
        {"a.png 1 0 0 5 5.5\n", "'5.5' is not an integer"},
        {"a.png -1\n", "count is missing or not a number"},
    };
    for (const auto& c : cases) {
        try {
            parse_annotations(c.text, "pos.txt");
            ADD_FAILURE() << "accepted: " << c.text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
            EXPECT_NE(std::string(e.what()).find(c.says), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("pos.txt:"), std::string::npos) << e.what();
        }
    }
}

TEST(TrainingSamples, BoxesOutsideTheImageOrEmptyAreRefused)
{
    EXPECT_NO_THROW(check_box(Rect{0, 0, 10, 10}, Size{10, 10}, "x"));
    EXPECT_THROW(check_box(Rect{1, 0, 10, 10}, Size{10, 10}, "x"), Error);
    EXPECT_THROW(check_box(Rect{-1, 0, 5, 5}, Size{10, 10}, "x"), Error);
    EXPECT_THROW(check_box(Rect{0, 6, 5, 5}, Size{10, 10}, "x"), Error);
    EXPECT_THROW(check_box(Rect{0, 0, 0, 5}, Size{10, 10}, "x"), Error);
}

TEST(TrainingSamples, AnUnvariedCropOfTheWindowsSizeIsThePixelsThemselves)
{
    std::mt19937_64 rng(3);
    GrayImage image(40, 30);
    for (uint8_t& p : image.pixels)
        p = static_cast<uint8_t>(rng());
    const GrayImage crop = crop_window(image.view(), Rect{7, 5, 24, 20}, Size{24, 20}, Augmentation{}, false, rng);
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 24; ++x)
            ASSERT_EQ(crop.at(x, y), image.at(7 + x, 5 + y)) << x << "," << y;
    const GrayImage m = mirrored(crop.view());
    for (int y = 0; y < 20; ++y)
        for (int x = 0; x < 24; ++x)
            ASSERT_EQ(m.at(x, y), crop.at(23 - x, y));
    /* Augmentation: copies and mirrors, the first copy unvaried, the
     * others different. */
    Augmentation a;
    a.copies = 3;
    a.mirror = true;
    a.shift = 0.1;
    a.brightness = 20;
    const std::vector<GrayImage> s = positive_samples(image.view(), Rect{7, 5, 24, 20}, Size{24, 20}, a, rng);
    ASSERT_EQ(s.size(), 6u);
    EXPECT_EQ(s[0].pixels, crop.pixels);
    EXPECT_EQ(s[1].pixels, m.pixels);
    EXPECT_NE(s[2].pixels, crop.pixels);
}

/* ===================== Wald's threshold ===================== */

namespace {

/* The rule of estimate_threshold() read literally: every candidate value,
 * every sample counted again. */
double brute_force_threshold(const std::vector<double>& pos, const std::vector<double>& neg, double alpha,
                             size_t allowed)
{
    std::vector<double> values = pos;
    values.insert(values.end(), neg.begin(), neg.end());
    double best = -std::numeric_limits<double>::infinity();
    for (double v : values) {
        const double np = static_cast<double>(std::count_if(pos.begin(), pos.end(), [&](double h) {
            return h < v;
        }));
        const double nn = static_cast<double>(std::count_if(neg.begin(), neg.end(), [&](double h) {
            return h < v;
        }));
        if (nn > 0 && np <= allowed && nn / neg.size() >= (1.0 / alpha) * (np + 1) / (pos.size() + 1))
            best = std::max(best, v);
    }
    return best;
}

}  // namespace

TEST(WaldThreshold, IsTheLargestAdmissibleValueOfTheRule)
{
    std::mt19937_64 rng(11);
    int finite = 0;
    for (int round = 0; round < 300; ++round) {
        std::normal_distribution<double> pos_d(1.0 + (round % 5) * 0.3, 1.0), neg_d(-1.0, 1.0 + (round % 3) * 0.2);
        std::vector<double> pos(20 + rng() % 300), neg(20 + rng() % 300);
        for (double& h : pos)
            h = std::round(pos_d(rng) * 8) / 8; /* ties */
        for (double& h : neg)
            h = std::round(neg_d(rng) * 8) / 8;
        const double alpha = 0.01 + (rng() % 20) / 100.0;
        const size_t allowed = round % 4 == 0 ? pos.size() : rng() % 10;
        const float got = estimate_threshold(pos, neg, alpha, allowed);
        const double want = brute_force_threshold(pos, neg, alpha, allowed);
        if (!std::isfinite(want)) {
            EXPECT_EQ(got, kNoRejection) << "round " << round;
            continue;
        }
        ++finite;
        /* The float at or just below the value, and the same samples below it. */
        EXPECT_LE(static_cast<double>(got), want);
        EXPECT_GT(static_cast<double>(std::nextafter(got, std::numeric_limits<float>::infinity())), want);
    }
    EXPECT_GT(finite, 100);
    /* Nothing to reject without negatives; everything separable is cut
     * between the classes when the positives are plenty. */
    EXPECT_EQ(estimate_threshold({1, 2}, {}, 0.05, 2), kNoRejection);
    std::vector<double> pos(1000, 5.0), neg(1000, -5.0);
    EXPECT_EQ(estimate_threshold(pos, neg, 0.05, 0), 5.0f);
    /* 100 positives: a region must hold at least 1/alpha / 101 of the
     * negatives even with no positive in it. */
    std::vector<double> few(100, 5.0), spread;
    for (int k = 0; k < 1000; ++k)
        spread.push_back(k < 250 ? -1.0 : 6.0);
    EXPECT_EQ(estimate_threshold(few, spread, 0.05, 0), 5.0f); /* 25% of the negatives below 5, 20 / 101 needed */
    EXPECT_EQ(estimate_threshold(few, spread, 0.035, 0), kNoRejection); /* 28.6 / 101 = 28% needed */
}

/* Held out, a threshold loses about alpha of the positives: calibrated on
 * 400 positives and 2,000 negatives drawn from overlapping normal score
 * distributions, each threshold is measured on 200,000 fresh positives of
 * the same distribution. The rule lets the region below hold at most
 * alpha of the calibrating positives, so the held-out rate must not exceed
 * alpha by more than the sampling error of 400 positives; and where the
 * classes are far enough apart for the miss budget, not the ratio of
 * Wald's test, to bind, the rate must come near alpha (a threshold far
 * too cautious would reject few negatives). */
TEST(WaldThreshold, HeldOutMissRateStaysNearAlpha)
{
    std::mt19937_64 rng(2026);
    double worst_over = -1.0, spent = 0.0;
    int separated = 0;
    for (int round = 0; round < 40; ++round) {
        const double alpha = 0.02 + 0.02 * (round % 5);    /* 0.02 to 0.10 */
        const double separation = 0.5 + 0.5 * (round % 8); /* distance of the means, in standard deviations */
        std::normal_distribution<double> pos_d(separation, 1.0), neg_d(0.0, 1.0);
        std::vector<double> pos(400), neg(2000);
        for (double& h : pos)
            h = pos_d(rng);
        for (double& h : neg)
            h = neg_d(rng);
        const size_t budget = static_cast<size_t>(alpha * static_cast<double>(pos.size()));
        const float theta = estimate_threshold(pos, neg, alpha, budget);
        if (theta == kNoRejection)
            continue;
        size_t missed = 0;
        const size_t held_out = 200000;
        for (size_t k = 0; k < held_out; ++k)
            missed += pos_d(rng) < static_cast<double>(theta);
        const double rate = static_cast<double>(missed) / static_cast<double>(held_out);
        /* The empirical alpha-quantile of 400 samples has a standard
         * error of sqrt(alpha (1 - alpha) / 400), at most 0.015 here. */
        EXPECT_LE(rate, alpha + 0.035) << "alpha " << alpha << ", separation " << separation;
        worst_over = std::max(worst_over, rate - alpha);
        if (separation >= 2.5) {
            ++separated;
            spent += rate / alpha;
        }
    }
    ASSERT_GT(separated, 10);
    const double mean_spent = spent / separated;
    EXPECT_GT(mean_spent, 0.6) << "the thresholds spend too little of alpha where the classes are apart";
    EXPECT_LT(mean_spent, 1.15) << "the thresholds lose more than alpha on average";
    std::printf("held-out miss rate at most %+.4f from alpha; %.2f of alpha spent on average where the classes "
                "are 2.5 or more standard deviations apart\n",
                worst_over, mean_spent);
}

/* ===================== training ===================== */

TEST(Trainer, RefusesBadTrainingInput)
{
    std::vector<GrayImage> bg{GrayImage(100, 100, 50)};
    auto miner = std::make_shared<CpuMiner>(bg, Size{24, 24});
    const auto says = [](const std::function<void()>& f, const std::string& text) {
        try {
            f();
            ADD_FAILURE() << "no error, expected one saying " << text;
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
            EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
        }
    };
    says(
        [&] {
            Trainer(small_config(), {}, miner);
        },
        "no positive");
    says(
        [&] {
            Trainer(small_config(), {GrayImage(20, 24)}, miner);
        },
        "not the window's 24x24");
    says(
        [&] {
            Trainer(small_config(), {GrayImage(24, 24)}, nullptr);
        },
        "no source of negatives");
    TrainerConfig c = small_config();
    c.alpha = 0;
    says(
        [&] {
            Trainer(c, {GrayImage(24, 24)}, miner);
        },
        "alpha");
    for (double share : {0.0, 1.5}) {
        c = small_config();
        c.first_share = share;
        says(
            [&] {
                Trainer(c, {GrayImage(24, 24)}, miner);
            },
            "share of alpha");
    }
    c = small_config();
    c.block_sizes = {Size{9, 9}};
    says(
        [&] {
            Trainer(c, {GrayImage(24, 24)}, miner);
        },
        "no 3x3 grid");
    /* Backgrounds smaller than the window give no negative at all, one
     * small one too few. */
    says(
        [&] {
            Trainer(small_config(), {GrayImage(24, 24)},
                    std::make_shared<CpuMiner>(std::vector<GrayImage>{GrayImage(20, 20)}, Size{24, 24}))
                .train();
        },
        "gave 0 windows");
    says(
        [&] {
            Trainer(small_config(), {GrayImage(24, 24)},
                    std::make_shared<CpuMiner>(std::vector<GrayImage>{GrayImage(30, 30)}, Size{24, 24}))
                .train();
        },
        "needs 2000 negatives");
}

/* Threads that cannot start (here, no address space left for their
 * stacks; in a container, a pids limit) are an error the caller gets, with
 * the threads that started joined, not std::terminate. */
TEST(Trainer, ThreadsThatCannotStartAreAnError)
{
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "ASan reserves terabytes of address space, so a limit on it cannot leave room for threads only";
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    GTEST_SKIP() << "ASan reserves terabytes of address space, so a limit on it cannot leave room for threads only";
#endif
#endif
    std::vector<GrayImage> bg{GrayImage(120, 120, 50)};
    for (int y = 0; y < 120; ++y)
        for (int x = 0; x < 120; ++x)
            bg[0].row(y)[x] = static_cast<uint8_t>((x * 7 + y * 13) % 256);
    std::vector<GrayImage> positives(40, GrayImage(24, 24, 200));
    TrainerConfig c = small_config();
    c.negatives = 100;
    c.weak_count = 2;
    c.threads = 4096; /* 32 GiB of stacks */
    Trainer trainer(c, positives, std::make_shared<CpuMiner>(bg, c.window));
    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_AS, &saved), 0);
    long pages = 0;
    std::ifstream("/proc/self/statm") >> pages;
    ASSERT_GT(pages, 0);
    rlimit tight = saved;
    tight.rlim_cur = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGESIZE)) + (512u << 20);
    ASSERT_EQ(setrlimit(RLIMIT_AS, &tight), 0);
    std::string error;
    ErrorKind kind = ErrorKind::Io;
    try {
        trainer.train();
    } catch (const Error& e) {
        error = e.what();
        kind = e.kind();
    }
    ASSERT_EQ(setrlimit(RLIMIT_AS, &saved), 0);
    EXPECT_EQ(kind, ErrorKind::OutOfResources) << error;
    EXPECT_NE(error.find("cannot start thread"), std::string::npos) << error;
}

/* The one list of feature types (core/model/feature_types.h) against what
 * the model says of each feature itself: the name, the table size and the
 * alternative agree, and the trainer takes the tagged types only. */
TEST(FeatureTypes, TheListAgreesWithTheModelAndTheTrainer)
{
    ASSERT_EQ(feature_types().size(), 4u);
    for (size_t i = 0; i < feature_types().size(); ++i) {
        const FeatureTypeInfo& t = feature_types()[i];
        SCOPED_TRACE(t.name);
        EXPECT_EQ(static_cast<size_t>(t.type), i);
        const Feature f = make_feature(t.type);
        EXPECT_EQ(feature_type(f), t.type);
        EXPECT_STREQ(feature_type_name(f), t.name);
        EXPECT_EQ(response_values(f).size, t.table_size);
        EXPECT_EQ(find_feature_type_by_name(t.name), &t);
        if (t.tag) {
            EXPECT_EQ(find_feature_type_by_tag(t.tag), &t);
        }
    }
    /* The values are hashed into checkpoints: they must not move. */
    EXPECT_EQ(static_cast<int>(FeatureType::Lbp), 0);
    EXPECT_EQ(static_cast<int>(FeatureType::Lrd), 1);
    EXPECT_EQ(static_cast<int>(FeatureType::Lrp), 2);
    EXPECT_EQ(feature_type_info(FeatureType::Lbp).table_size, 256u);
    EXPECT_EQ(feature_type_info(FeatureType::Lrd).table_size, 17u);
    EXPECT_EQ(feature_type_info(FeatureType::Lrp).table_size, 81u);
    EXPECT_EQ(trainable_feature_tags(), "lbp, lrd or lrp");
    EXPECT_EQ(find_feature_type_by_tag("haar"), nullptr);
    EXPECT_EQ(find_feature_type_by_tag("LBP"), nullptr);
    EXPECT_EQ(find_feature_type_by_name("lbp"), nullptr);

    TrainerConfig c = small_config();
    c.feature_type = FeatureType::Haar;
    try {
        Trainer(c, {GrayImage(24, 24)},
                std::make_shared<CpuMiner>(std::vector<GrayImage>{GrayImage(100, 100)}, Size{24, 24}));
        ADD_FAILURE() << "a trainer of Haar features";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
        EXPECT_NE(std::string(e.what()).find("HAAR features cannot be trained"), std::string::npos) << e.what();
    }
}

TEST(Trainer, LearnsASyntheticObjectOverRealBackgrounds)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> train_bg = backgrounds(false), test_bg = backgrounds(true);
    const std::vector<GrayImage> positives = synthetic_positives(train_bg, 2000, 1);
    const std::vector<GrayImage> held_out = synthetic_positives(test_bg, 400, 2);
    TrainerConfig config = small_config();
    Trainer trainer(config, positives, std::make_shared<CpuMiner>(train_bg, config.window));
    std::vector<Progress> steps;
    const Classifier c = trainer.train([&](const Progress& p) {
        steps.push_back(p);
        if (p.weak <= 3 || p.weak % 8 == 0)
            std::cout << "[ training  ] " << p.weak << " " << p.feature << ": rejects " << p.negatives_rejected
                      << " of the negatives, " << p.positives_rejected << " of the positives, " << p.mined << " mined"
                      << std::endl;
    });
    ASSERT_EQ(steps.size(), c.weak.size());
    ASSERT_GE(c.weak.size(), 1u);
    ASSERT_LE(c.weak.size(), static_cast<size_t>(config.weak_count));
    /* Training stops early only when no background window passes any more. */
    if (c.weak.size() < static_cast<size_t>(config.weak_count)) {
        EXPECT_EQ(steps.back().negatives, 0u);
    }
    EXPECT_EQ(c.label, "blob");
    /* The first weak classifiers already reject most background windows. */
    EXPECT_GT(steps[0].negatives_rejected, 0.2) << steps[0].feature;
    size_t mined = 0;
    for (const Progress& p : steps)
        mined += p.mined;
    EXPECT_GT(mined, 0u) << "no hard negative was ever mined";

    /* The XML round trip gives the same classifier. */
    const Classifier loaded = load_classifier_memory(write_waldboost_xml(c), "trained");
    ASSERT_EQ(loaded.weak.size(), c.weak.size());
    EXPECT_EQ(write_waldboost_xml(loaded), write_waldboost_xml(c));

    /* Held-out positives: the miss rate stays near alpha; held-out
     * backgrounds: windows accepted per window scanned. */
    const HeldOut h = measure(loaded, held_out, test_bg);
    std::cout << "[ training  ] " << c.weak.size() << " weak classifiers, held-out miss rate " << h.miss_rate
              << " (alpha " << config.alpha << "), held-out background windows accepted " << h.accepted << " of "
              << h.windows << std::endl;
    EXPECT_LE(h.miss_rate, 2 * config.alpha + 0.02);
    /* 24 weak classifiers from 1,500 fitted positives: a few percent of
     * the windows of unseen backgrounds still pass (a detector needs
     * hundreds; the first weak classifier alone passes about 70%). */
    EXPECT_LT(h.fp_rate(), 0.05);
    /* Found where it was drawn in a held-out background, at twice the
     * size: some window of the scan covers it (IoU 0.5 or more). */
    GrayImage scene = test_bg[0];
    std::mt19937_64 rng(5);
    const Rect drawn{60, 40, 48, 48};
    draw_object(scene, drawn, rng);
    DetectParams find;
    find.min_neighbors = 0;
    bool found = false;
    for (const Detection& d : detect(loaded, scene.view(), find)) {
        const int ix =
            std::max(0, std::min(d.rect.x + d.rect.width, drawn.x + drawn.width) - std::max(d.rect.x, drawn.x));
        const int iy =
            std::max(0, std::min(d.rect.y + d.rect.height, drawn.y + drawn.height) - std::max(d.rect.y, drawn.y));
        const double inter = static_cast<double>(ix) * iy;
        found = found || inter / (d.rect.width * d.rect.height + drawn.width * drawn.height - inter) >= 0.5;
    }
    if (!found) {
        std::mt19937_64 r2(1);
        const GrayImage crop = crop_window(scene.view(), drawn, Size{24, 24}, Augmentation{}, false, r2);
        LevelIntegrals li;
        li.sum = integral_image(crop.view());
        const WindowResult wr = evaluate_window(loaded, li, 0, 0, loaded.final_threshold);
        std::cout << "direct crop accepted " << wr.accepted << " at " << wr.rejected_at << " score " << wr.score
                  << std::endl;
        for (const Detection& d : detect(loaded, scene.view(), find))
            if (std::abs(d.rect.x - 60) < 40 && std::abs(d.rect.y - 40) < 40)
                std::cout << d.rect.x << "," << d.rect.y << " " << d.rect.width << std::endl;
    }
    EXPECT_TRUE(found) << "the object drawn at 60,40 48x48 was not detected";
}

/* The rank features learn the same object; what they make runs in the
 * reference after the XML round trip (the engine's exactness on rank
 * classifiers is tests/engine/test_rank.cpp). */
/* Background windows from a fixed pool: those that pass the classifier so
 * far, in the pool's order (the test's own miner, no images to scan). */
class PoolMiner final : public NegativeMiner {
public:
    explicit PoolMiner(std::vector<GrayImage> pool) : pool_(std::move(pool)) {}
    Result mine(const Classifier& classifier, size_t wanted, std::mt19937_64&) override
    {
        Result r;
        for (const GrayImage& w : pool_) {
            if (r.windows.size() >= wanted)
                break;
            ++r.scanned;
            LevelIntegrals li;
            li.sum = integral_image(w.view());
            if (evaluate_window(classifier, li, 0, 0, -std::numeric_limits<float>::infinity()).accepted) {
                ++r.passed;
                r.windows.push_back(w);
            }
        }
        return r;
    }
    uint64_t capacity() const override { return pool_.size(); }

private:
    std::vector<GrayImage> pool_;
};

/* --first-share: the first weak classifier spends at most that share of
 * the miss budget, so it rejects fewer positives (and windows) than with
 * the whole budget, and the next one gets the rest. */
TEST(Trainer, FirstShareLimitsTheFirstWeakClassifiersMisses)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 1200, 3);
    const auto first_steps = [&](double share) {
        TrainerConfig config = small_config();
        config.alpha = 0.2;
        config.first_share = share;
        config.weak_count = 2;
        std::vector<Progress> steps;
        Trainer(config, positives, std::make_shared<CpuMiner>(bg, config.window)).train([&](const Progress& p) {
            steps.push_back(p);
        });
        return steps;
    };
    const std::vector<Progress> all = first_steps(1.0), quarter = first_steps(0.25);
    ASSERT_EQ(all.size(), 2u);
    ASSERT_EQ(quarter.size(), 2u);
    std::cout << "[ training  ] first weak classifier, share 1: rejects " << all[0].positives_rejected
              << " of the positives, " << all[0].negatives_rejected
              << " of the negatives; share 0.25: " << quarter[0].positives_rejected << ", "
              << quarter[0].negatives_rejected << std::endl;
    /* The same feature (the choice does not depend on thresholds), a
     * lower threshold. Fitted positives are rejected less often than the
     * calibrating ones that set the budget, so the share of all positives
     * stays under the budget's. */
    EXPECT_EQ(all[0].feature, quarter[0].feature);
    EXPECT_LE(quarter[0].positives_rejected, 0.25 * 0.2 + 0.005);
    EXPECT_GT(all[0].positives_rejected, quarter[0].positives_rejected);
    EXPECT_GT(all[0].negatives_rejected, quarter[0].negatives_rejected);
    /* The second weak classifier may spend what the first left. */
    EXPECT_GT(quarter[1].positives_rejected, 0.0);
}

/* Separable data: positives are noise with a bright square in the middle,
 * negatives the same noise with a dark one, so one LBP code around the
 * square tells them apart. Boosting must reach zero training error: every
 * positive's running sum above every negative's, every positive accepted
 * and every negative rejected by the classifier it writes. */
TEST(Trainer, SeparableDataReachesZeroTrainingError)
{
    std::mt19937_64 rng(5);
    auto window = [&](bool bright) {
        GrayImage w(24, 24);
        std::uniform_int_distribution<int> noise(60, 140);
        for (int y = 0; y < 24; ++y)
            for (int x = 0; x < 24; ++x)
                w.at(x, y) = static_cast<uint8_t>(noise(rng));
        for (int y = 8; y < 16; ++y)
            for (int x = 8; x < 16; ++x)
                w.at(x, y) = static_cast<uint8_t>(bright ? 230 : 10);
        return w;
    };
    std::vector<GrayImage> positives, negatives;
    for (int k = 0; k < 300; ++k)
        positives.push_back(window(true));
    for (int k = 0; k < 600; ++k)
        negatives.push_back(window(false));
    TrainerConfig config;
    config.window = Size{24, 24};
    config.label = "square";
    config.weak_count = 4;
    config.alpha = 0.001;           /* a budget of no positive */
    config.calibration_share = 0.0; /* every positive fitted: the training error is on all of them */
    config.negatives = 500;
    config.block_sizes = {Size{8, 8}};
    config.threads = 2;
    Trainer trainer(config, positives, std::make_shared<PoolMiner>(negatives));
    const Classifier c = trainer.train();
    ASSERT_GE(c.weak.size(), 1u);
    double lowest_positive = std::numeric_limits<double>::infinity();
    double highest_negative = -std::numeric_limits<double>::infinity();
    size_t positives_accepted = 0, negatives_accepted = 0;
    for (const auto* set : {&positives, &negatives})
        for (const GrayImage& w : *set) {
            LevelIntegrals li;
            li.sum = integral_image(w.view());
            const WindowResult all = evaluate_window(c, li, 0, 0, -std::numeric_limits<float>::infinity());
            const bool accepted = evaluate_window(c, li, 0, 0, c.final_threshold).accepted;
            if (set == &positives) {
                lowest_positive = std::min(lowest_positive, all.score);
                positives_accepted += accepted;
            } else {
                /* A negative stopped by a rejection threshold scores below it. */
                highest_negative = std::max(highest_negative, all.score);
                negatives_accepted += accepted;
            }
        }
    EXPECT_GT(lowest_positive, highest_negative);
    EXPECT_EQ(positives_accepted, positives.size());
    EXPECT_EQ(negatives_accepted, 0u);
}

TEST(Trainer, RankFeaturesLearnTheObjectToo)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> train_bg = backgrounds(false), test_bg = backgrounds(true);
    const std::vector<GrayImage> positives = synthetic_positives(train_bg, 2000, 11);
    const std::vector<GrayImage> held_out = synthetic_positives(test_bg, 300, 12);
    for (FeatureType family : {FeatureType::Lrd, FeatureType::Lrp}) {
        TrainerConfig config = small_config();
        config.feature_type = family;
        config.block_sizes = {};
        config.negatives = 2000;
        config.weak_count = 40;
        Trainer trainer(config, positives, std::make_shared<CpuMiner>(train_bg, config.window));
        EXPECT_EQ(trainer.candidate_count() % 36, 0u);
        const Classifier trained = trainer.train([](const Progress& p) {
            if (p.weak <= 3 || p.weak % 10 == 0)
                std::cout << "[ training  ] " << p.weak << " " << p.feature << ": rejects " << p.negatives_rejected
                          << " of the negatives, " << p.mined << " mined" << std::endl;
        });
        const Classifier c = load_classifier_memory(write_waldboost_xml(trained), "trained");
        ASSERT_TRUE(std::holds_alternative<RankFeature>(c.weak[0].feature));
        EXPECT_EQ(std::get<RankFeature>(c.weak[0].feature).kind,
                  family == FeatureType::Lrd ? RankFeature::Kind::Difference : RankFeature::Kind::Pair);
        const HeldOut h = measure(c, held_out, test_bg);
        std::cout << "[ training  ] " << feature_type_name(family) << ": held-out miss rate " << h.miss_rate
                  << ", held-out background windows accepted " << h.accepted << " of " << h.windows << std::endl;
        EXPECT_LE(h.miss_rate, 2 * config.alpha + 0.02) << feature_type_name(family);
        EXPECT_LT(h.fp_rate(), 0.05) << feature_type_name(family);
    }
}

TEST(Trainer, TheSameSeedGivesTheSameClassifierWhateverTheThreads)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 200, 3);
    auto run = [&](uint64_t seed, unsigned threads) {
        TrainerConfig c = small_config(seed);
        c.weak_count = 8;
        c.negatives = 300;
        c.threads = threads;
        /* The miner's threads too: levels made and scanned in bands. */
        auto miner = std::make_shared<CpuMiner>(bg, c.window);
        miner->set_threads(threads);
        Trainer t(c, positives, miner);
        return write_waldboost_xml(t.train());
    };
    const std::string a = run(1, 1), b = run(1, 2), c = run(1, 5), other = run(2, 2);
    EXPECT_EQ(a, b);
    EXPECT_EQ(a, c);
    EXPECT_NE(a, other) << "another seed mined the same negatives";
}

/* ============================ checkpoints ============================ */

namespace {

std::string read_file_bytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void write_file_bytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string temporary_path(const std::string& name)
{
    return ::testing::TempDir() + "waldboost-" + std::to_string(::getpid()) + "-" + name;
}

/* The error message resume() gives for a checkpoint file of these bytes
 * ("" when it takes it). */
std::string resume_error(const TrainerConfig& config, const std::vector<GrayImage>& positives,
                         const std::vector<GrayImage>& bg, const std::string& bytes)
{
    const std::string path = temporary_path("hostile.ckpt");
    write_file_bytes(path, bytes);
    Trainer t(config, positives, std::make_shared<CpuMiner>(bg, config.window));
    try {
        t.resume(path);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter) << e.what();
        std::remove(path.c_str());
        return e.what();
    }
    std::remove(path.c_str());
    return "";
}

}  // namespace

/* A run stopped after k weak classifiers and resumed in a new Trainer
 * writes the same XML, byte for byte, as a run that never stopped: for LBP
 * and a rank family, stopping before and after a mining round. */
TEST(TrainerCheckpoint, AResumedRunGivesTheSameClassifier)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 200, 5);
    for (FeatureType family : {FeatureType::Lbp, FeatureType::Lrd}) {
        TrainerConfig c = small_config(4);
        c.feature_type = family;
        if (family != FeatureType::Lbp)
            c.block_sizes = {};
        c.weak_count = family == FeatureType::Lbp ? 8 : 12;
        c.negatives = 300;
        Trainer whole(c, positives, std::make_shared<CpuMiner>(bg, c.window));
        std::vector<uint64_t> mined;
        const std::string expected = write_waldboost_xml(whole.train([&](const Progress& p) {
            mined.push_back(p.mined);
        }));
        ASSERT_TRUE(std::any_of(mined.begin(), mined.end(), [](uint64_t n) {
            return n > 0;
        })) << "no mining round: the test would not cover the miner's random state";
        const std::string path = temporary_path(std::string(feature_type_name(family)) + ".ckpt");
        for (int stop_at : {1, 3, 7}) {
            Trainer first(c, positives, std::make_shared<CpuMiner>(bg, c.window));
            first.set_checkpoint(path, 2);
            const Classifier partial = first.train([&](const Progress& p) {
                if (p.weak == stop_at)
                    first.request_stop();
            });
            EXPECT_TRUE(first.stopped());
            EXPECT_TRUE(partial.weak.empty());
            Trainer second(c, positives, std::make_shared<CpuMiner>(bg, c.window));
            second.resume(path);
            EXPECT_EQ(second.resumed_weak(), static_cast<size_t>(stop_at));
            int first_reported = 0;
            const Classifier resumed = second.train([&](const Progress& p) {
                if (first_reported == 0)
                    first_reported = p.weak;
            });
            EXPECT_FALSE(second.stopped());
            EXPECT_EQ(first_reported, stop_at + 1);
            EXPECT_EQ(write_waldboost_xml(resumed), expected) << feature_type_name(family) << " stopped at " << stop_at;
        }
        std::remove(path.c_str());
    }
}

/* Few backgrounds: a refill that comes back short (the backgrounds have few
 * windows left that pass) is followed by the next one only when half of
 * what it left is gone. Refilling whenever the set is below half of the
 * working negatives scanned every background after every weak classifier
 * for a handful of windows: 72 frames of vtest.avi trained in 414 s
 * instead of 63. Each weak classifier's report must follow that rule,
 * with at least one short refill and a weak classifier after it that the
 * old rule would have refilled at. A run stopped after a short refill and
 * resumed gives the same classifier (the level is in the checkpoint). */
TEST(Trainer, AShortRefillWaitsUntilHalfOfWhatItLeftIsGone)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 200, 5);
    GrayImage few(240, 180); /* a corner of one background */
    for (int y = 0; y < few.height; ++y)
        for (int x = 0; x < few.width; ++x)
            few.at(x, y) = bg[0].at(x, y);
    TrainerConfig c = small_config(4);
    c.weak_count = 60;
    c.negatives = 300;
    const auto miner = [&] {
        return std::make_shared<CpuMiner>(std::vector<GrayImage>{few}, c.window);
    };
    std::vector<Progress> reports;
    Trainer whole(c, positives, miner());
    const std::string expected = write_waldboost_xml(whole.train([&](const Progress& p) {
        reports.push_back(p);
    }));
    size_t level = static_cast<size_t>(c.negatives);
    int short_refill_at = 0, waited = 0;
    for (const Progress& p : reports) {
        const bool refilled = p.windows_scanned > 0;
        const size_t before = p.negatives - p.mined;
        if (p.weak < c.weak_count) {
            EXPECT_EQ(refilled, before * 2 < level)
                << "weak " << p.weak << ": " << before << " negatives left, " << level << " after the last refill";
        }
        if (!refilled && before * 2 < static_cast<size_t>(c.negatives))
            ++waited;
        if (refilled) {
            level = p.negatives;
            if (level * 2 < static_cast<size_t>(c.negatives) && short_refill_at == 0)
                short_refill_at = p.weak;
        }
    }
    ASSERT_GT(short_refill_at, 0) << "no refill came back short: the test needs fewer backgrounds";
    EXPECT_GT(waited, 0) << "no weak classifier waited after a short refill";
    std::printf("first short refill after weak %d; %d weak classifiers waited\n", short_refill_at, waited);

    const std::string path = temporary_path("short-refill.ckpt");
    Trainer first(c, positives, miner());
    first.set_checkpoint(path, 1);
    first.train([&](const Progress& p) {
        if (p.weak == short_refill_at)
            first.request_stop();
    });
    ASSERT_TRUE(first.stopped());
    Trainer second(c, positives, miner());
    second.resume(path);
    std::remove(path.c_str());
    EXPECT_EQ(write_waldboost_xml(second.train()), expected);
}

/* Truncated, corrupted, foreign and mismatched checkpoints are refused
 * with a message that says which, never taken and never a crash. */
TEST(TrainerCheckpoint, RefusesDamagedOrForeignCheckpoints)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 120, 6);
    TrainerConfig c = small_config(9);
    c.weak_count = 4;
    c.negatives = 150;
    const std::string path = temporary_path("good.ckpt");
    {
        Trainer t(c, positives, std::make_shared<CpuMiner>(bg, c.window));
        t.set_checkpoint(path);
        t.train([&](const Progress& p) {
            if (p.weak == 2)
                t.request_stop();
        });
    }
    const std::string good = read_file_bytes(path);
    std::remove(path.c_str());
    ASSERT_GT(good.size(), 1000u);
    ASSERT_EQ(resume_error(c, positives, bg, good), "");

    /* Truncation anywhere: all of the header, then every 97th byte. */
    for (size_t length = 0; length < good.size(); length += length < 40 ? 1 : 97) {
        const std::string e = resume_error(c, positives, bg, good.substr(0, length));
        EXPECT_NE(e.find("truncated"), std::string::npos) << length << ": " << e;
    }
    /* One flipped byte anywhere. */
    for (size_t at = 0; at < good.size(); at += at < 40 ? 1 : 89) {
        std::string bad = good;
        bad[at] = static_cast<char>(bad[at] ^ 0x10);
        const std::string e = resume_error(c, positives, bg, bad);
        EXPECT_FALSE(e.empty()) << "a flipped byte at " << at << " was taken";
        if (at >= 20) {
            EXPECT_NE(e.find("corrupted"), std::string::npos) << at << ": " << e;
        }
    }
    std::string foreign = good;
    foreign.replace(0, 8, "<?xml ve");
    EXPECT_NE(resume_error(c, positives, bg, foreign).find("not a waldboost-train checkpoint"), std::string::npos);
    std::string newer = good;
    newer[8] = 3;
    EXPECT_NE(resume_error(c, positives, bg, newer).find("version 3, this build reads version 2"), std::string::npos);
    EXPECT_NE(resume_error(c, positives, bg, good + "x").find("bytes after its end"), std::string::npos);
    EXPECT_NE(resume_error(c, positives, bg, good + std::string(1 << 24, 'x')).find("more than this run's state"),
              std::string::npos);

    /* Sound files from another run. */
    TrainerConfig other_seed = c;
    other_seed.seed = c.seed + 1;
    EXPECT_NE(resume_error(other_seed, positives, bg, good).find("other settings"), std::string::npos);
    std::vector<GrayImage> other_positives = positives;
    other_positives[7].pixels[3] ^= 1;
    EXPECT_NE(resume_error(c, other_positives, bg, good).find("other positives"), std::string::npos);
    std::vector<GrayImage> other_bg = bg;
    other_bg.pop_back();
    EXPECT_NE(resume_error(c, positives, other_bg, good).find("background images"), std::string::npos);

    /* A checksum that matches over contents that do not fit: re-encoded. */
    CheckpointState state = decode_checkpoint(good, c.window, "good");
    ASSERT_EQ(state.classifier.weak.size(), 2u);
    size_t first_positive = 0, first_negative = 0;
    while (state.samples[first_positive].kind != CheckpointSample::Kind::Positive)
        ++first_positive;
    while (state.samples[first_negative].kind != CheckpointSample::Kind::Negative)
        ++first_negative;
    CheckpointState s = state;
    s.samples[first_positive].positive_index = positives.size();
    EXPECT_NE(resume_error(c, positives, bg, encode_checkpoint(s)).find("names positive 120 of 120"),
              std::string::npos);
    s = state;
    s.samples[first_negative].running_sum = std::nextafter(s.samples[first_negative].running_sum, 1e9);
    EXPECT_NE(resume_error(c, positives, bg, encode_checkpoint(s)).find("recomputes"), std::string::npos);
    for (uint64_t level : {static_cast<uint64_t>(c.negatives) + 1, ~uint64_t{0}}) {
        s = state;
        s.refill_level = level;
        EXPECT_NE(
            resume_error(c, positives, bg, encode_checkpoint(s)).find("a refill level of " + std::to_string(level)),
            std::string::npos);
    }
    s = state;
    s.rng = "not numbers";
    EXPECT_NE(resume_error(c, positives, bg, encode_checkpoint(s)).find("random state"), std::string::npos);
    /* A random state of zeros parses, and the generator then gives 0
     * forever: std::shuffle in the miner never returned. Refused however
     * the words not in the state are set (word 0's low bits, drawn first
     * at position 0), while one bit that is state is taken. */
    const auto mt_state = [](uint64_t first, size_t position) {
        std::string text = std::to_string(first);
        for (size_t i = 1; i < std::mt19937_64::state_size; ++i)
            text += " 0";
        return text + " " + std::to_string(position);
    };
    for (const auto& [first, position] : {std::pair<uint64_t, size_t>{0, 312}, {0, 0}, {0x7fffffffu, 0}}) {
        s = state;
        s.rng = mt_state(first, position);
        EXPECT_NE(resume_error(c, positives, bg, encode_checkpoint(s)).find("random state is all zero"),
                  std::string::npos)
            << first << " at " << position;
    }
    s = state;
    s.rng = mt_state(uint64_t{1} << 63, 312);
    EXPECT_EQ(resume_error(c, positives, bg, encode_checkpoint(s)), "");
    s = state;
    std::get<LbpFeature>(s.classifier.weak[1].feature).x = 100;
    EXPECT_NE(resume_error(c, positives, bg, encode_checkpoint(s)).find("malformed"), std::string::npos);
}

/* The running sums resume() recomputes with evaluate_window are the ones
 * training accumulated, bit for bit (what the check above relies on): a
 * sample's stored sum against an independent sum of its responses. */
TEST(TrainerCheckpoint, StoredSumsAreTheReferencesSums)
{
    SKIP_WITHOUT_BACKGROUNDS();
    const std::vector<GrayImage> bg = backgrounds(false);
    const std::vector<GrayImage> positives = synthetic_positives(bg, 120, 8);
    TrainerConfig c = small_config(3);
    c.weak_count = 6;
    c.negatives = 150;
    const std::string path = temporary_path("sums.ckpt");
    Trainer t(c, positives, std::make_shared<CpuMiner>(bg, c.window));
    t.set_checkpoint(path);
    t.train([&](const Progress& p) {
        if (p.weak == 5)
            t.request_stop();
    });
    const CheckpointState state = decode_checkpoint(read_file_bytes(path), c.window, path);
    std::remove(path.c_str());
    ASSERT_EQ(state.classifier.weak.size(), 5u);
    for (const CheckpointSample& s : state.samples) {
        const GrayImage& window = s.kind == CheckpointSample::Kind::Positive ? positives[s.positive_index] : s.window;
        double sum = 0.0;
        for (const WeakClassifier& weak : state.classifier.weak) {
            const LbpFeature& f = std::get<LbpFeature>(weak.feature);
            /* The LBP code from the pixels: block means against the centre's. */
            auto block = [&](int bx, int by) {
                int total = 0;
                for (int y = 0; y < f.block_height; ++y)
                    for (int x = 0; x < f.block_width; ++x)
                        total += window.at(f.x + bx * f.block_width + x, f.y + by * f.block_height + y);
                return total;
            };
            const int centre = block(1, 1);
            const int order[8][2] = {{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}};
            int code = 0;
            for (int k = 0; k < 8; ++k)
                code |= (block(order[k][0], order[k][1]) >= centre) << (7 - k);
            sum += f.responses[static_cast<size_t>(code)];
            EXPECT_GE(sum, weak.reject_threshold) << "a working-set sample below a threshold";
        }
        EXPECT_EQ(sum, s.running_sum);
    }
}

namespace {

/* A checkpoint file built by hand from docs/training.md's format, with
 * its own FNV-1a, independent of the encoder. */
void put_le(std::string& out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; ++i)
        out.push_back(static_cast<char>(v >> (8 * i)));
}

std::string framed_by_hand(const std::string& payload, uint64_t announced_length)
{
    uint64_t hash = 0xcbf29ce484222325ull;
    for (const char c : payload) {
        hash ^= static_cast<uint8_t>(c);
        hash *= 0x100000001b3ull;
    }
    std::string file = "WBTRAIN\n";
    put_le(file, 2, 4);
    put_le(file, announced_length, 8);
    file += payload;
    put_le(file, hash, 8);
    return file;
}

/* The payload up to the weak classifier count: fingerprints 1, 2, 3 and a
 * 12x12 window. */
std::string payload_head(uint32_t weak_count)
{
    std::string p;
    for (uint64_t fingerprint : {1, 2, 3})
        put_le(p, fingerprint, 8);
    put_le(p, 12, 4);
    put_le(p, 12, 4);
    put_le(p, weak_count, 4);
    return p;
}

std::string decode_error(const std::string& bytes)
{
    try {
        decode_checkpoint(bytes, Size{12, 12}, "hostile.ckpt");
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter) << e.what();
        return e.what();
    }
    return "";
}

}  // namespace

/* frame_checkpoint_payload writes the documented framing. */
TEST(TrainerCheckpoint, FramingIsTheDocumentedOne)
{
    for (const std::string& payload : {std::string(), std::string("abc"), std::string(1000, '\xfe')})
        EXPECT_EQ(frame_checkpoint_payload(payload), framed_by_hand(payload, payload.size()));
    /* The smallest sound state: no weak classifier, no random state, no sample. */
    std::string empty = payload_head(0);
    put_le(empty, 0, 4);                     /* random state: 0 bytes */
    put_le(empty, 0x3ff0000000000000ull, 8); /* negative survival 1.0 */
    put_le(empty, 500, 8);                   /* refill level */
    put_le(empty, 0, 8);                     /* no sample */
    const CheckpointState state = decode_checkpoint(framed_by_hand(empty, empty.size()), Size{12, 12}, "empty");
    EXPECT_EQ(state.settings, 1u);
    EXPECT_EQ(state.positives, 2u);
    EXPECT_EQ(state.backgrounds, 3u);
    EXPECT_TRUE(state.classifier.weak.empty());
    EXPECT_EQ(state.negative_survival, 1.0);
    EXPECT_EQ(state.refill_level, 500u);
    EXPECT_TRUE(state.samples.empty());
}

/* Lengths and counts that claim gigabytes are refused, against the header
 * or the bytes left, before anything of that size is allocated (the
 * messages name the claim; allocating first would fail later with another
 * message, or with std::bad_alloc instead of Error). */
TEST(TrainerCheckpoint, RefusesHugeLengthsBeforeAllocating)
{
    /* The header's payload length: 6 GB and 2^62 with 8 bytes after it. */
    for (uint64_t claimed : {6000000000ull, 1ull << 62, ~0ull}) {
        const std::string e = decode_error(framed_by_hand("", claimed));
        EXPECT_NE(e.find("checkpoint hostile.ckpt: truncated"), std::string::npos) << claimed << ": " << e;
        EXPECT_NE(e.find(std::to_string(claimed)), std::string::npos) << e;
    }
    /* A weak classifier count over the model limit. */
    std::string p = payload_head(65536);
    EXPECT_NE(decode_error(framed_by_hand(p, p.size())).find("65536 weak classifiers"), std::string::npos);
    /* A random state of 4 GiB - 1 bytes. */
    p = payload_head(0);
    put_le(p, 0xffffffffu, 4);
    EXPECT_NE(decode_error(framed_by_hand(p, p.size())).find("a random state of 4294967295 bytes"), std::string::npos);
    /* 2^60 samples, and 2^32 samples in 9 bytes (each takes at least 9). */
    for (uint64_t count : {1ull << 60, 1ull << 32}) {
        p = payload_head(0);
        put_le(p, 0, 4);
        put_le(p, 0x3ff0000000000000ull, 8);
        put_le(p, 500, 8); /* refill level */
        put_le(p, count, 8);
        p += std::string(9, '\0');
        EXPECT_NE(decode_error(framed_by_hand(p, p.size())).find(std::to_string(count) + " samples in 9 bytes"),
                  std::string::npos)
            << count;
    }
}
