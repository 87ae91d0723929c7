/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's weight sums per bin on an OpenCL device (core/opencl/
 * training_histograms.h) and on the CPU (core/training/histograms.h),
 * against a plain computation written here from the features'
 * definitions (pixel sums of the nine blocks, the LBP bit order, the
 * ranks), for LBP, LRD and LRP on random windows of odd sizes, with random
 * weights (carries between the 32-bit halves included), as the working set
 * shrinks and grows; and training with either backend writes the same XML.
 * WALDBOOST_TEST_DEVICE picks the device (default "auto"; PoCL here).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/model/classifier_io.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/training/opencl/training_histograms.h"
#include "core/training/histograms.h"
#include "core/training/trainer.h"
#include "test_support.h"

using namespace waldboost;
using namespace waldboost::training;

namespace {

/* The device under test: WALDBOOST_TEST_DEVICE, else "auto". */
using waldboost_test::test_device;

/* Random windows: most uniform noise, some of few grey levels, so that
 * blocks tie (equal ranks, LBP bits set on equality). */
GrayImage random_window(Size size, std::mt19937_64& rng)
{
    GrayImage w(size.width, size.height);
    const int levels = rng() % 3 == 0 ? 2 : 256;
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
            w.at(x, y) = static_cast<uint8_t>(levels == 2 ? (rng() % 2) * 200 : rng() % 256);
    return w;
}

/* The plain definitions. */
int64_t block_sum(const GrayImage& w, int x, int y, int bw, int bh)
{
    int64_t s = 0;
    for (int v = y; v < y + bh; ++v)
        for (int u = x; u < x + bw; ++u)
            s += w.at(u, v);
    return s;
}

size_t plain_bin(FeatureType family, const Grid& g, int a, int b, const GrayImage& w)
{
    int64_t sums[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
            sums[3 * r + c] =
                block_sum(w, g.x + c * g.block_width, g.y + r * g.block_height, g.block_width, g.block_height);
    if (family == FeatureType::Lbp) {
        /* Bit 7 the top-left block, then clockwise; set when >= the centre. */
        const int clockwise[8] = {0, 1, 2, 5, 8, 7, 6, 3};
        size_t code = 0;
        for (int k = 0; k < 8; ++k)
            if (sums[clockwise[k]] >= sums[4])
                code |= size_t{1} << (7 - k);
        return code;
    }
    int rank_a = 0, rank_b = 0;
    for (int j = 0; j < 9; ++j) {
        rank_a += sums[j] < sums[a];
        rank_b += sums[j] < sums[b];
    }
    return family == FeatureType::Lrd ? static_cast<size_t>(rank_a - rank_b + 8)
                                      : static_cast<size_t>(9 * rank_a + rank_b);
}

struct Sample {
    GrayImage window;
    bool positive;
};

/* Every candidate in the order the trainer numbers them: grid by grid,
 * and per grid of a rank family the 36 pairs a < b. */
struct PlainCandidate {
    Grid grid;
    int a = 0, b = 0;
};
std::vector<PlainCandidate> plain_candidates(const CandidateSet& set)
{
    std::vector<PlainCandidate> out;
    for (const Grid& g : set.grids) {
        if (set.feature_type == FeatureType::Lbp) {
            out.push_back({g, 0, 0});
            continue;
        }
        for (int a = 0; a < 9; ++a)
            for (int b = a + 1; b < 9; ++b)
                out.push_back({g, a, b});
    }
    return out;
}

/* Per candidate: the negatives' sums per bin, then the positives'. */
std::vector<uint64_t> plain_sums(const CandidateSet& set, const std::vector<Sample>& samples,
                                 const std::vector<uint64_t>& weights)
{
    const std::vector<PlainCandidate> candidates = plain_candidates(set);
    const size_t bins = set.layout().bins;
    std::vector<uint64_t> sums(candidates.size() * 2 * bins, 0);
    for (size_t c = 0; c < candidates.size(); ++c)
        for (size_t i = 0; i < samples.size(); ++i) {
            const size_t bin =
                plain_bin(set.feature_type, candidates[c].grid, candidates[c].a, candidates[c].b, samples[i].window);
            sums[c * 2 * bins + (samples[i].positive ? bins : 0) + bin] += weights[i];
        }
    return sums;
}

CandidateSet candidate_set(FeatureType family, Size window)
{
    CandidateSet set;
    set.feature_type = family;
    set.window = window;
    for (int bw = 1; 3 * bw <= window.width; ++bw)
        for (int bh = 1; 3 * bh <= window.height; ++bh)
            for (int y = 0; y + 3 * bh <= window.height; ++y)
                for (int x = 0; x + 3 * bw <= window.width; ++x)
                    if (family == FeatureType::Lbp || (x + y) % 3 == 0) /* fewer rank grids: time */
                        set.grids.push_back(Grid{x, y, bw, bh});
    return set;
}

/* Random weights: zeros (calibrating positives), small ones, and ones near
 * 2^32 and above, whose low halves carry. */
std::vector<uint64_t> random_weights(size_t n, std::mt19937_64& rng)
{
    std::vector<uint64_t> w(n);
    for (uint64_t& v : w)
        switch (rng() % 4) {
        case 0: v = 0; break;
        case 1: v = rng() % 1000; break;
        case 2: v = 0xffffffffull - rng() % 16; break;
        default: v = rng() % (uint64_t{1} << 40); break;
        }
    return w;
}

/* A family, and the work-items per group: 0 the device's default (1 on
 * PoCL: plain additions), 64 the GPUs' way (local atomics on halves). */
class TrainingHistograms : public ::testing::TestWithParam<std::tuple<FeatureType, size_t>> {};

}  // namespace

TEST_P(TrainingHistograms, DeviceAndCpuSumsEqualThePlainComputation)
{
    const FeatureType family = std::get<0>(GetParam());
    const size_t group_size = std::get<1>(GetParam());
    const Size window{13, 11};
    const CandidateSet set = candidate_set(family, window);
    std::unique_ptr<HistogramBackend> device;
    try {
        device = opencl::opencl_histograms(test_device(), nullptr, group_size)(set);
    } catch (const Error& e) {
        GTEST_SKIP() << "no OpenCL device: " << e.what();
    }
    std::unique_ptr<HistogramBackend> cpu = make_cpu_histograms(set, 2);
    std::mt19937_64 rng(static_cast<uint64_t>(family) + 5);
    std::vector<Sample> samples;
    auto add = [&](size_t n) {
        for (size_t k = 0; k < n; ++k) {
            samples.push_back({random_window(window, rng), rng() % 3 == 0});
            device->add(samples.back().window, samples.back().positive);
            cpu->add(samples.back().window, samples.back().positive);
        }
    };
    auto check = [&](const char* when) {
        SCOPED_TRACE(when);
        ASSERT_EQ(device->count(), samples.size());
        const std::vector<uint64_t> weights = random_weights(samples.size(), rng);
        const std::vector<uint64_t> expected = plain_sums(set, samples, weights);
        const size_t bins = set.layout().bins, total = set.count();
        std::vector<uint64_t> got(total * 2 * bins), from_cpu(total * 2 * bins);
        device->histograms(weights, 0, total, got.data());
        cpu->histograms(weights, 0, total, from_cpu.data());
        size_t wrong = 0;
        for (size_t k = 0; k < expected.size(); ++k)
            wrong += got[k] != expected[k];
        EXPECT_EQ(wrong, 0u) << "device sums differ from the plain ones";
        EXPECT_EQ(from_cpu, expected) << "CPU sums differ from the plain ones";
        /* A range that starts inside a work-group's candidates. */
        const size_t first = total / 3 + 1, n = std::min<size_t>(total - first, 50);
        std::vector<uint64_t> part(n * 2 * bins);
        device->histograms(weights, first, n, part.data());
        EXPECT_TRUE(
            std::equal(part.begin(), part.end(), expected.begin() + static_cast<std::ptrdiff_t>(first * 2 * bins)));
        /* The choice: the lowest Z of the plain sums, ties to the lowest index. */
        Choice plain;
        for (size_t c = 0; c < total; ++c) {
            const Choice z{real_adaboost_z(&expected[c * 2 * bins], &expected[c * 2 * bins + bins], bins), c};
            if (z.better_than(plain))
                plain = z;
        }
        const Choice d = device->best(weights), h = cpu->best(weights);
        EXPECT_EQ(d.candidate, plain.candidate);
        EXPECT_EQ(d.z, plain.z);
        EXPECT_EQ(h.candidate, plain.candidate);
        EXPECT_EQ(h.z, plain.z);
        /* Every sample's bin of a few candidates. */
        const std::vector<PlainCandidate> candidates = plain_candidates(set);
        for (size_t c : {size_t{0}, total / 2, total - 1}) {
            const std::vector<uint8_t> bins_of = device->bins(c);
            ASSERT_EQ(bins_of.size(), samples.size());
            size_t off = 0;
            for (size_t i = 0; i < samples.size(); ++i)
                off += bins_of[i] !=
                       plain_bin(family, candidates[c].grid, candidates[c].a, candidates[c].b, samples[i].window);
            EXPECT_EQ(off, 0u) << "candidate " << c;
            EXPECT_EQ(cpu->bins(c), bins_of);
        }
    };
    add(700);
    check("first working set");
    /* Shrink: keep a random two thirds, as after a rejection threshold. */
    std::vector<bool> kept(samples.size());
    std::vector<Sample> left;
    for (size_t i = 0; i < samples.size(); ++i) {
        kept[i] = rng() % 3 != 0;
        if (kept[i])
            left.push_back(samples[i]);
    }
    device->keep(kept);
    cpu->keep(kept);
    samples = left;
    check("after removing a third");
    /* Grow past the device's first capacity (1024), as after mining. */
    add(900);
    check("after adding more");
    device->clear();
    cpu->clear();
    samples.clear();
    add(5);
    check("cleared, then a few");
}

INSTANTIATE_TEST_SUITE_P(Families, TrainingHistograms,
                         ::testing::Combine(::testing::Values(FeatureType::Lbp, FeatureType::Lrd, FeatureType::Lrp),
                                            ::testing::Values(size_t{0}, size_t{64})),
                         [](const ::testing::TestParamInfo<std::tuple<FeatureType, size_t>>& info) {
                             const size_t group = std::get<1>(info.param);
                             return std::string(feature_type_name(std::get<0>(info.param))) +
                                    (group ? "_groups_of_" + std::to_string(group) : "_default_groups");
                         });

namespace {

/* Synthetic backgrounds: smooth random blobs over gradients, and
 * positives: a bright square with a dark bar over such a patch. */
GrayImage synthetic_background(int width, int height, std::mt19937_64& rng)
{
    GrayImage image(width, height);
    const double gx = std::uniform_real_distribution<double>(-1, 1)(rng),
                 gy = std::uniform_real_distribution<double>(-1, 1)(rng);
    std::vector<std::array<double, 4>> blobs(40);
    for (auto& b : blobs)
        b = {static_cast<double>(rng() % width), static_cast<double>(rng() % height),
             static_cast<double>(3 + rng() % 12), std::uniform_real_distribution<double>(-80, 80)(rng)};
    std::normal_distribution<double> noise(0.0, 8.0);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            double v = 128 + gx * x + gy * y + noise(rng);
            for (const auto& b : blobs) {
                const double d = std::hypot(x - b[0], y - b[1]);
                if (d < b[2])
                    v += b[3];
            }
            image.at(x, y) = static_cast<uint8_t>(std::clamp(v, 0.0, 255.0));
        }
    return image;
}

std::vector<GrayImage> synthetic_positives(const std::vector<GrayImage>& backgrounds, Size window, size_t count,
                                           std::mt19937_64& rng)
{
    std::vector<GrayImage> out;
    std::normal_distribution<double> noise(0.0, 10.0);
    for (size_t k = 0; k < count; ++k) {
        const GrayImage& bg = backgrounds[rng() % backgrounds.size()];
        const int ox = static_cast<int>(rng() % (bg.width - window.width)),
                  oy = static_cast<int>(rng() % (bg.height - window.height));
        GrayImage w(window.width, window.height);
        const int dx = static_cast<int>(rng() % 3) - 1, dy = static_cast<int>(rng() % 3) - 1;
        for (int y = 0; y < window.height; ++y)
            for (int x = 0; x < window.width; ++x) {
                double v = bg.at(ox + x, oy + y);
                const int u = x - dx, t = y - dy;
                if (u >= 3 && u < window.width - 3 && t >= 3 && t < window.height - 3)
                    v = (t >= window.height / 2 - 1 && t <= window.height / 2 + 1) ? 50 : 190;
                w.at(x, y) = static_cast<uint8_t>(std::clamp(v + noise(rng), 0.0, 255.0));
            }
        out.push_back(std::move(w));
    }
    return out;
}

}  // namespace

TEST(TrainingOnDevice, WritesTheSameClassifierAsTheCpu)
{
    std::function<std::unique_ptr<HistogramBackend>(const CandidateSet&)> device;
    try {
        device = opencl::opencl_histograms(test_device());
    } catch (const Error& e) {
        GTEST_SKIP() << "no OpenCL device: " << e.what();
    }
    std::mt19937_64 rng(17);
    std::vector<GrayImage> backgrounds;
    for (int k = 0; k < 6; ++k)
        backgrounds.push_back(synthetic_background(160, 120, rng));
    const Size window{16, 16};
    const std::vector<GrayImage> positives = synthetic_positives(backgrounds, window, 400, rng);
    for (FeatureType family : {FeatureType::Lbp, FeatureType::Lrd, FeatureType::Lrp}) {
        SCOPED_TRACE(feature_type_name(family));
        TrainerConfig config;
        config.window = window;
        config.feature_type = family;
        config.weak_count = 10;
        config.negatives = 400;
        config.position_step = 2;
        config.seed = 3;
        config.threads = 2;
        auto train = [&](bool on_device) {
            TrainerConfig c = config;
            if (on_device)
                c.histograms = device;
            Trainer trainer(c, positives, std::make_shared<CpuMiner>(backgrounds, window));
            return write_waldboost_xml(trainer.train());
        };
        const std::string on_cpu = train(false), on_device = train(true);
        EXPECT_EQ(on_device, on_cpu);
        const Classifier c = load_classifier_memory(on_cpu, "trained");
        EXPECT_GE(c.weak.size(), 3u) << "too short a training to compare";
    }
}

TEST(TrainingHistogramsInput, MismatchedCallsAreRefusedOnEitherBackend)
{
    const CandidateSet set = candidate_set(FeatureType::Lrd, Size{9, 9});
    std::vector<std::unique_ptr<HistogramBackend>> backends;
    backends.push_back(make_cpu_histograms(set, 1));
    try {
        backends.push_back(opencl::opencl_histograms(test_device())(set));
    } catch (const Error& e) {
        std::cout << "[ skipped   ] the OpenCL backend: " << e.what() << std::endl;
    }
    std::mt19937_64 rng(9);
    for (auto& backend : backends) {
        SCOPED_TRACE(backend->name());
        for (int k = 0; k < 3; ++k)
            backend->add(random_window(Size{9, 9}, rng), k == 1);
        auto kind_of = [](const std::function<void()>& call) {
            try {
                call();
            } catch (const Error& e) {
                return e.kind();
            }
            return ErrorKind::Io; /* nothing thrown */
        };
        std::vector<uint64_t> sums(2 * set.layout().bins);
        EXPECT_EQ(kind_of([&] {
                      backend->add(random_window(Size{8, 9}, rng), true);
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(kind_of([&] {
                      backend->best({1, 2});
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(kind_of([&] {
                      backend->histograms({1, 2, 3}, set.count(), 1, sums.data());
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(kind_of([&] {
                      backend->bins(set.count());
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(kind_of([&] {
                      backend->keep({true});
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(backend->count(), 3u);
        EXPECT_EQ(kind_of([&] {
                      quantise_weights({0.5, -0.1});
                  }),
                  ErrorKind::BadParameter);
        EXPECT_EQ(kind_of([&] {
                      quantise_weights({std::nan("")});
                  }),
                  ErrorKind::BadParameter);
    }
}

/* Candidate sets of many chunks (the device's sums come back about 16 MiB
 * at a time, two chunks in flight): every LBP grid of a 24x24 window, and
 * LRP's default grids. The choice equals the lowest Z of the sums the CPU
 * backend gives, and every sum the device's; with the winning grid moved
 * into the second chunk and into the last, the choice moves with it. */
TEST(TrainingHistogramsInput, ManyChunksChooseAsTheCpu)
{
    for (FeatureType family : {FeatureType::Lbp, FeatureType::Lrp}) {
        SCOPED_TRACE(feature_type_name(family));
        CandidateSet set;
        set.feature_type = family;
        set.window = Size{24, 24};
        std::vector<Size> sizes;
        if (family == FeatureType::Lbp)
            for (int bw = 1; bw <= 8; ++bw)
                for (int bh = 1; bh <= 8; ++bh)
                    sizes.push_back(Size{bw, bh});
        else
            sizes = {Size{1, 1}, Size{2, 2}, Size{2, 4}, Size{4, 2}};
        for (const Size& s : sizes)
            for (int y = 0; y + 3 * s.height <= 24; ++y)
                for (int x = 0; x + 3 * s.width <= 24; ++x)
                    set.grids.push_back(Grid{x, y, s.width, s.height});
        const size_t bins = set.layout().bins, total = set.count(), per_grid = set.layout().per_grid;
        ASSERT_GT(total * 2 * bins * sizeof(uint64_t), size_t{32} << 20) << "fewer than three chunks";
        std::function<std::unique_ptr<HistogramBackend>(const CandidateSet&)> on_device;
        try {
            on_device = opencl::opencl_histograms(test_device());
        } catch (const Error& e) {
            GTEST_SKIP() << "no OpenCL device: " << e.what();
        }
        std::mt19937_64 rng(21);
        std::vector<GrayImage> windows;
        /* Enough samples that no two candidates tie (a tie goes to the lower index). */
        for (int k = 0; k < 400; ++k)
            windows.push_back(random_window(set.window, rng));
        const std::vector<uint64_t> weights = random_weights(windows.size(), rng);
        /* The plain choice, the device's and the CPU backend's for `grids`. */
        auto choose = [&](const std::vector<Grid>& grids, Choice* device_choice, Choice* cpu_choice) {
            CandidateSet moved = set;
            moved.grids = grids;
            std::unique_ptr<HistogramBackend> device = on_device(moved), cpu = make_cpu_histograms(moved, 2);
            for (size_t k = 0; k < windows.size(); ++k) {
                device->add(windows[k], k % 2 == 0);
                cpu->add(windows[k], k % 2 == 0);
            }
            std::vector<uint64_t> from_cpu(total * 2 * bins), from_device(total * 2 * bins);
            cpu->histograms(weights, 0, total, from_cpu.data());
            device->histograms(weights, 0, total, from_device.data());
            EXPECT_TRUE(from_cpu == from_device);
            Choice plain;
            for (size_t c = 0; c < total; ++c) {
                const Choice z{real_adaboost_z(&from_cpu[c * 2 * bins], &from_cpu[c * 2 * bins + bins], bins), c};
                if (z.better_than(plain))
                    plain = z;
            }
            *device_choice = device->best(weights);
            *cpu_choice = cpu->best(weights);
            return plain;
        };
        Choice d, h;
        const Choice plain = choose(set.grids, &d, &h);
        EXPECT_EQ(d.candidate, plain.candidate);
        EXPECT_EQ(d.z, plain.z);
        EXPECT_EQ(h.candidate, plain.candidate);
        EXPECT_EQ(h.z, plain.z);
        const size_t winner = plain.candidate / per_grid;
        for (size_t target : {set.grids.size() / 2 + 7, set.grids.size() - 1}) {
            SCOPED_TRACE("the winning grid moved to " + std::to_string(target));
            std::vector<Grid> grids = set.grids;
            std::swap(grids[winner], grids[target]);
            const Choice moved = choose(grids, &d, &h);
            EXPECT_EQ(moved.candidate, target * per_grid + plain.candidate % per_grid);
            EXPECT_EQ(d.candidate, moved.candidate);
            EXPECT_EQ(d.z, moved.z);
            EXPECT_EQ(h.candidate, moved.candidate);
        }
    }
}

/* Whatever the weights, a trained classifier runs on the OpenCL engine: a
 * bin whose classes nearly balance gets a response of about 1e-10 from the
 * plain formula, whose finest bit is too far below the largest responses
 * for the engine's fixed point (it refused such a classifier, trained on
 * pedestrians); the trainer's rounded responses pack. */
TEST(TrainedResponses, NearlyBalancedBinsStillRunOnTheEngine)
{
    const double eps = 1e-4;
    std::vector<std::pair<double, double>> bins; /* (W+, W-) */
    for (int k = 0; k < 256; ++k)
        bins.emplace_back(0.001 * (k % 7), 0.001 * (k % 7) * (1.0 + 1e-9 * k)); /* nearly balanced */
    bins[3] = {0.2, 0.0};                                                       /* a strong positive bin */
    bins[4] = {0.0, 0.3};                                                       /* a strong negative bin */
    auto classifier_of = [&](const std::function<float(double, double)>& response) {
        Classifier c;
        c.label = "balanced";
        c.window_width = c.window_height = 24;
        for (int t = 0; t < 40; ++t) {
            LbpFeature f;
            f.x = t % 10;
            f.y = t % 7;
            f.block_width = f.block_height = 2;
            for (size_t b = 0; b < f.responses.size(); ++b)
                f.responses[b] = response(bins[b].first, bins[b].second);
            WeakClassifier w;
            w.feature = f;
            c.weak.push_back(w);
        }
        c.final_threshold = 0.0f;
        validate(c, "<test>");
        return c;
    };
    const Classifier plain = classifier_of([&](double p, double n) {
        return static_cast<float>(0.5 * std::log((p + eps) / (n + eps)));
    });
    EXPECT_THROW(waldboost::opencl::pack_classifier(plain), Error) << "the plain responses should be refused";
    const Classifier rounded = classifier_of([&](double p, double n) {
        return real_adaboost_response(p, n, eps);
    });
    EXPECT_NO_THROW(waldboost::opencl::pack_classifier(rounded));
    /* The rounding moves no response by more than 2^-24 beyond a float's
     * own rounding (half a unit in the last place). */
    for (const auto& [p, n] : bins) {
        const double exact = 0.5 * std::log((p + eps) / (n + eps));
        EXPECT_NEAR(real_adaboost_response(p, n, eps), exact,
                    std::ldexp(1.0, -24) + std::fabs(exact) * std::ldexp(1.0, -24));
    }
}
