/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The OpenCL engine against the CPU reference: for random classifiers (plain
 * WaldBoost and stage-reset cascades, windows of 8 to 64 pixels) on random
 * and real images of many sizes, and for several reduction parameter sets,
 * the engine must return exactly the reference's accepted windows with the
 * same scores, lose nothing however dense the detections, and give the same
 * answer every time. Runs on whatever device "auto" picks (PoCL in CI);
 * WALDBOOST_TEST_DEVICE selects another.
 */
#include <glib.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <sstream>
#include <thread>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "core/opencl/device.h"
#include "core/opencl/classifier_pack.h"
#include "core/opencl/engine.h"
#include "core/opencl/batch_queue.h"
#include "core/opencl/geometry.h"
#include "core/opencl/pinned_memory.h"
#include "core/opencl/shared_device.h"
#include "core/opencl/tuner.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "test_support.h"

using namespace waldboost;
using waldboost_test::lbp;
using waldboost_test::lbp_table;
using waldboost::opencl::Engine;
using waldboost::opencl::FrameResult;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;
using waldboost::opencl::ScanMethod;

namespace {

std::string test_device() { return waldboost_test::env_or("WALDBOOST_TEST_DEVICE", "auto"); }

/* A value on a 2^-12 grid: exact in the reference's double sums and in the
 * engine's fixed point, so any difference is a bug, not rounding. */
float grid_value(std::mt19937& rng, float lo, float hi)
{
    std::uniform_real_distribution<float> u(lo, hi);
    return std::round(u(rng) * 4096.0f) / 4096.0f;
}

/* Random features, tables and thresholds. With stages, thresholds come only
 * at stage ends followed by a sum reset, as in OpenCV cascades; without,
 * every weak classifier has one (a WaldBoost sequence). Thresholds follow
 * the running sum's spread so that windows die at every depth. With stumps,
 * every table holds two values picked by a random subset of the codes, as
 * OpenCV's LBP stumps do (the row scan reads those in another form). */
Classifier random_classifier(std::mt19937& rng, int width, int height, int weak_count, bool stages,
                             bool stumps = false)
{
    Classifier c;
    c.label = "random";
    c.window_width = width;
    c.window_height = height;
    std::uniform_int_distribution<int> stage_length(2, 6);
    int in_stage = 0, next_stage_end = stage_length(rng);
    for (int t = 0; t < weak_count; ++t) {
        WeakClassifier w;
        std::uniform_int_distribution<int> bw(1, std::max(1, width / 3)), bh(1, std::max(1, height / 3));
        lbp(w).block_width = bw(rng);
        lbp(w).block_height = bh(rng);
        lbp(w).x = std::uniform_int_distribution<int>(0, width - 3 * lbp(w).block_width)(rng);
        lbp(w).y = std::uniform_int_distribution<int>(0, height - 3 * lbp(w).block_height)(rng);
        if (stumps) {
            const float values[2] = {grid_value(rng, -1.0f, 1.2f), grid_value(rng, -1.0f, 1.2f)};
            for (float& r : lbp_table(w))
                r = values[rng() & 1];
        } else {
            for (float& r : lbp_table(w))
                r = grid_value(rng, -1.0f, 1.2f);
        }
        ++in_stage;
        if (!stages) {
            w.reject_threshold = grid_value(rng, -0.6f, 0.1f) * std::sqrt(static_cast<float>(t + 1));
        } else if (in_stage == next_stage_end || t + 1 == weak_count) {
            w.reject_threshold = grid_value(rng, -0.5f, 0.4f) * static_cast<float>(in_stage) * 0.5f;
            w.reset_sum_after = true;
            in_stage = 0;
            next_stage_end = stage_length(rng);
        }
        c.weak.push_back(w);
    }
    c.final_threshold = stages ? c.weak.back().reject_threshold : grid_value(rng, -1.0f, 0.5f);
    validate(c, "<random>");
    return c;
}

/* A random Haar tree of `nodes` nodes: each new node takes the place of a
 * random leaf of the tree so far, so children come after their parents.
 * Rectangles lie anywhere in the window (tilted ones too), weights and
 * thresholds are arbitrary floats: every float operation of OpenCV's
 * evaluation matters, and the engine must repeat each one. */
HaarTree random_haar_tree(std::mt19937& rng, int width, int height, int nodes, bool tilted)
{
    /* Feature values (normalised by the window's spread) mostly lie within
     * half a unit of 0 for these weights. */
    std::uniform_real_distribution<float> weight(-3.0f, 3.0f), threshold(-0.5f, 0.5f);
    HaarTree tree;
    struct Slot {
        int node;
        bool left;
    };
    std::vector<Slot> free_slots;
    for (int n = 0; n < nodes; ++n) {
        HaarNode node;
        node.feature.tilted = tilted;
        const int rects = 2 + static_cast<int>(rng() % 2);
        for (int i = 0; i < rects; ++i) {
            HaarRect r;
            if (tilted) { /* inside the window: x - h >= 0, x + w <= W, y + w + h <= H */
                r.width = std::uniform_int_distribution<int>(1, std::max(1, std::min(width, height) / 3))(rng);
                r.height = std::uniform_int_distribution<int>(1, std::max(1, std::min(width - r.width, height - r.width) / 2))(rng);
                r.x = std::uniform_int_distribution<int>(r.height, width - r.width)(rng);
                r.y = std::uniform_int_distribution<int>(0, height - r.width - r.height)(rng);
            } else {
                r.width = std::uniform_int_distribution<int>(1, width)(rng);
                r.height = std::uniform_int_distribution<int>(1, height)(rng);
                r.x = std::uniform_int_distribution<int>(0, width - r.width)(rng);
                r.y = std::uniform_int_distribution<int>(0, height - r.height)(rng);
            }
            r.weight = weight(rng);
            node.feature.rects.push_back(r);
        }
        /* As in trained cascades, the weights nearly cancel over a flat
         * patch: the value follows the image's structure, not its mean. */
        HaarRect& last = node.feature.rects.back();
        float others = 0.0f;
        for (size_t i = 0; i + 1 < node.feature.rects.size(); ++i)
            others += node.feature.rects[i].weight * static_cast<float>(node.feature.rects[i].width * node.feature.rects[i].height);
        last.weight = -others / static_cast<float>(last.width * last.height);
        if (!std::isfinite(last.weight) || last.weight == 0.0f)
            last.weight = 1.0f;
        node.threshold = threshold(rng);
        if (n > 0) {
            const size_t pick = rng() % free_slots.size();
            const Slot slot = free_slots[pick];
            free_slots.erase(free_slots.begin() + static_cast<ptrdiff_t>(pick));
            (slot.left ? tree.nodes[static_cast<size_t>(slot.node)].left : tree.nodes[static_cast<size_t>(slot.node)].right) =
                {false, n};
        }
        tree.nodes.push_back(node);
        free_slots.push_back({n, true});
        free_slots.push_back({n, false});
    }
    /* The remaining slots are the leaves, numbered in tree order. */
    int leaf = 0;
    for (HaarNode& node : tree.nodes)
        for (HaarNode::Child* child : {&node.left, &node.right})
            if (child->leaf) {
                child->index = leaf++;
                tree.leaves.push_back(grid_value(rng, -1.0f, 1.2f));
            }
    return tree;
}

/* An OpenCV-like Haar cascade: stages of 2 to `longest_stage` trees ending
 * in a threshold and a sum reset; `max_nodes` 1 gives stumps; every
 * `tilted_every`-th tree tilted (0: none). */
Classifier random_haar_classifier(std::mt19937& rng, int width, int height, int weak_count, int max_nodes,
                                  int tilted_every, int longest_stage = 6)
{
    Classifier c;
    c.label = "random-haar";
    c.window_width = width;
    c.window_height = height;
    std::uniform_int_distribution<int> stage_length(2, longest_stage), nodes(1, max_nodes);
    int in_stage = 0, next_stage_end = stage_length(rng);
    for (int t = 0; t < weak_count; ++t) {
        WeakClassifier w;
        w.feature = random_haar_tree(rng, width, height, nodes(rng), tilted_every > 0 && t % tilted_every == 0);
        if (++in_stage == next_stage_end || t + 1 == weak_count) {
            w.reject_threshold = grid_value(rng, -0.5f, 0.4f) * static_cast<float>(in_stage) * 0.5f;
            w.reset_sum_after = true;
            in_stage = 0;
            next_stage_end = stage_length(rng);
        }
        c.weak.push_back(std::move(w));
    }
    c.final_threshold = c.weak.back().reject_threshold;
    validate(c, "<random Haar>");
    return c;
}

GrayImage random_image(std::mt19937& rng, int w, int h)
{
    /* Smooth blobs plus noise: LBP codes vary, unlike on pure noise. */
    GrayImage img(w, h);
    std::uniform_int_distribution<int> noise(-20, 20);
    const float fx = std::uniform_real_distribution<float>(0.02f, 0.2f)(rng);
    const float fy = std::uniform_real_distribution<float>(0.02f, 0.2f)(rng);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const float v = 128 + 80 * std::sin(fx * x) * std::cos(fy * y + 0.3f * std::sin(0.05f * x));
            img.at(x, y) = static_cast<uint8_t>(std::clamp(static_cast<int>(v) + noise(rng), 0, 255));
        }
    return img;
}

std::string describe(const RawWindow& w)
{
    std::ostringstream s;
    s << "level " << w.level << " at " << w.x << "," << w.y << " rect " << w.rect.x << "," << w.rect.y << " "
      << w.rect.width << "x" << w.rect.height << " score " << w.score;
    return s.str();
}

/* The engine's windows must be the reference's, in the same order. */
void expect_same_windows(const std::vector<RawWindow>& engine, const std::vector<RawWindow>& reference,
                         const std::string& what)
{
    ASSERT_EQ(engine.size(), reference.size()) << what;
    for (size_t i = 0; i < engine.size(); ++i) {
        const RawWindow& a = engine[i];
        const RawWindow& b = reference[i];
        ASSERT_TRUE(a.level == b.level && a.x == b.x && a.y == b.y && a.rect == b.rect)
            << what << ": window " << i << ": engine " << describe(a) << ", reference " << describe(b);
        ASSERT_NEAR(a.score, b.score, 1e-5 * std::max(1.0f, std::fabs(b.score))) << what << ": " << describe(b);
    }
}

/* The classifier with f applied to every response and threshold. */
Classifier with_values(Classifier c, float (*f)(float))
{
    for (WeakClassifier& w : c.weak) {
        for (float& r : lbp_table(w))
            r = f(r);
        if (w.reject_threshold != kNoRejection)
            w.reject_threshold = f(w.reject_threshold);
    }
    c.final_threshold = f(c.final_threshold);
    validate(c, "<scaled>");
    return c;
}

/* Scores brought to the size of the unscaled classifier's, so that the
 * tolerance of expect_same_windows means the same. */
std::vector<RawWindow> scores_times(std::vector<RawWindow> windows, double factor)
{
    for (RawWindow& w : windows)
        w.score = static_cast<float>(w.score * factor);
    return windows;
}

std::vector<ReductionParams> parameter_sets()
{
    std::vector<ReductionParams> sets;
    ReductionParams p;
    p.group_size = 64;
    sets.push_back(p); /* the thesis' divisors 8, 4 */
    p = {};
    p.group_size = 32;
    p.step1_unsync = 0;
    p.step1_divisor = 2;
    p.step2_unsync = 1;
    p.step2_divisor = 2;
    p.step2_repeats = 0;
    p.step4_group_size = 8;
    sets.push_back(p); /* synchronise from the start, no step 2 */
    p = {};
    p.group_size = 128;
    p.step1_unsync = 20;
    p.step1_divisor = 64;
    p.step2_unsync = 0;
    p.step2_divisor = 16;
    p.step2_repeats = 3;
    p.step4_group_size = 64;
    sets.push_back(p); /* long unsynchronised start, several step 2 */
    p = {};
    p.group_size = 8;
    p.step1_divisor = 1;
    p.step2_divisor = 1;
    p.step2_repeats = 1;
    p.step4_group_size = 1;
    sets.push_back(p); /* no reduction at all: every window goes on */
    return sets;
}

/* The reduction with these parameters (on any device). */
EngineConfig config_with(const ReductionParams& p)
{
    EngineConfig config;
    config.device = test_device();
    config.reduction = p;
    config.scan = ScanMethod::Reduction;
    return config;
}

/* The row scan (on any device). */
EngineConfig rows_config(int max_in_flight = 2)
{
    EngineConfig config;
    config.device = test_device();
    config.scan = ScanMethod::Rows;
    config.max_in_flight = max_in_flight;
    return config;
}

}  // namespace

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
        const Classifier c = random_classifier(rng, windows[k].width, windows[k].height, 12 + 9 * static_cast<int>(k),
                                               stages, stumps);
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
                expect_same_windows(result.windows, reference, what.str() + ", reduction " + std::to_string(k % sets.size()));
                EXPECT_EQ(result.stats.discarded, 0u);
                expect_same_windows(rows.detect(img.view(), params).windows, reference, what.str() + ", rows");
                compared += reference.size();
            }
        }
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 200u) << "the classifiers accept too little for the comparison to mean much";
}

/* ===================== the feature seam ===================== */

namespace {

/* A feature type the model does not have, plugged in as the engine's seam
 * allows (gst/core/opencl/feature_kind.h, kernels/cascade.cl): the centre
 * block of an LBP feature's grid against a constant mean, whose bit picks
 * response 0 or 1 of the table. It shows that a feature type is a kind and
 * one kernel file: the reduction and the row scan run it unchanged. */
constexpr int kCentreMean = 128;

const char* const kCentreBlockKernels = R"CL(
#define FEATURE_NORMALISES 0
#define FEATURE_UNROLLS 1

/* features[t]: the centre block's x, y, width and height. */
static int centre_bit(const Cascade* c, int origin, int4 f)
{
    __global const integral_t* p = c->integral + origin + f.y * c->pitch + f.x;
    const uint sum = (p[0] - p[f.z] - p[f.w * c->pitch] + p[f.w * c->pitch + f.z]) & INTEGRAL_MASK;
    return sum >= (uint)(CENTRE_MEAN * f.z * f.w) ? 1 : 0;
}

static float feature_window_norm(const Cascade* c, int origin) { return 1.0f; }

static long feature_response(const Cascade* c, int origin, int t)
{
    return c->responses[2 * t + centre_bit(c, origin, c->features[t])];
}

static int feature_segment_end(const Cascade* c, int t, int stop) { return threshold_segment_end(c, t, stop); }

#ifdef ROW_SCAN
static float16 feature_window_norms(const Cascade* c, int origin, int step) { return (float16)1.0f; }

static long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
{
    return responses_window_by_window(c, origin, step, t, norm);
}
#endif
)CL";

class CentreBlockKind : public waldboost::opencl::FeatureKind {
public:
    const char* name() const override { return "CENTRE"; }
    const char* kernel_file() const override { return "centre_block.cl (test)"; }
    std::string_view kernel_source() const override { return kCentreBlockKernels; }
    size_t table_size() const override { return 2; }
    waldboost::ResponseValues responses(const WeakClassifier& weak) const override
    {
        return {lbp_table(weak).data(), table_size()};
    }
    void pack(const Classifier& classifier, waldboost::opencl::PackedClassifier& p) const override
    {
        for (size_t t = 0; t < p.weak_count; ++t) {
            const LbpFeature& f = std::get<LbpFeature>(classifier.weak[t].feature);
            p.features[t] = {{f.x + f.block_width, f.y + f.block_height, f.block_width, f.block_height}};
            p.largest_block = std::max(p.largest_block, int64_t{f.block_width} * f.block_height);
            for (size_t i = 0; i < table_size(); ++i)
                p.responses.push_back(p.fixed_ceil(f.responses[i]));
        }
    }
    std::string build_defines(const waldboost::opencl::PackedClassifier&) const override
    {
        return " -D CENTRE_MEAN=" + std::to_string(kCentreMean);
    }
    waldboost::opencl::IntegralNeeds integrals(const waldboost::opencl::PackedClassifier&) const override
    {
        return {};
    }
    bool narrow_sums_serve(const waldboost::opencl::PackedClassifier& p) const override
    {
        return p.largest_block * 255 <= 0xFFFF;
    }
};

/* The same feature in the reference's terms. */
float centre_block_response(const WeakClassifier& weak, const waldboost::LevelIntegrals& integrals, int wx, int wy,
                            float /*norm_factor*/)
{
    const LbpFeature& f = std::get<LbpFeature>(weak.feature);
    const int64_t sum = integrals.sum.block_sum(wx + f.x + f.block_width, wy + f.y + f.block_height, f.block_width,
                                                f.block_height);
    return lbp_table(weak)[sum >= int64_t{kCentreMean} * f.block_width * f.block_height ? 1 : 0];
}

}  // namespace

TEST(EngineFeatureSeam, AFeatureKindOfATestMatchesItsReferenceExactly)
{
    const CentreBlockKind kind;
    const waldboost::FeatureResponse reference_response = centre_block_response;
    std::mt19937 rng(20261126);
    const std::vector<Size> windows = {{24, 24}, {9, 9}, {20, 34}};
    const std::vector<Size> images = {{23, 30}, {97, 61}, {333, 250}};
    const std::vector<ReductionParams> sets = parameter_sets();
    size_t compared = 0;
    for (size_t k = 0; k < windows.size(); ++k) {
        const bool stages = k % 2 == 1;
        Classifier c = random_classifier(rng, windows[k].width, windows[k].height, 8 + 4 * static_cast<int>(k),
                                         stages);
        EngineConfig reduction = config_with(sets[k % sets.size()]);
        reduction.feature_kind = &kind;
        EngineConfig rows = rows_config();
        rows.feature_kind = &kind;
        Engine reduction_engine(c, reduction);
        Engine rows_engine(c, rows);
        bool differs_from_lbp = false;
        for (const Size& s : images) {
            const GrayImage img = random_image(rng, s.width, s.height);
            for (int stride : {0, 2}) {
                DetectParams params;
                params.stride = stride;
                params.min_neighbors = 0;
                params.scale_factor = 1.25;
                const auto reference = detect_raw(c, img.view(), params, nullptr, &reference_response);
                std::ostringstream what;
                what << "classifier " << k << ", image " << s.width << "x" << s.height << ", stride " << stride;
                expect_same_windows(reduction_engine.detect(img.view(), params).windows, reference,
                                    what.str() + ", reduction");
                expect_same_windows(rows_engine.detect(img.view(), params).windows, reference, what.str() + ", rows");
                /* Not the LBP feature's windows: the test's feature is another. */
                differs_from_lbp = differs_from_lbp || detect_raw(c, img.view(), params).size() != reference.size();
                compared += reference.size();
            }
        }
        EXPECT_TRUE(differs_from_lbp) << "classifier " << k << ": the test kind found what the LBP kind finds";
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 100u) << "the classifiers accept too little for the comparison to mean much";
}

/* A feature kind the device cannot run (an extension it lacks, as Haar's
 * fp64 on Intel's Xe GPUs) is a device problem: NoDevice, which a fallback
 * list answers with its next device. */
TEST(EngineFeatureSeam, AnExtensionTheDeviceLacksIsADeviceProblem)
{
    class NeedsAnExtension final : public CentreBlockKind {
    public:
        const char* required_extension() const override { return "cl_waldboost_no_such_extension"; }
    };
    const NeedsAnExtension kind;
    std::mt19937 rng(7);
    EngineConfig config = rows_config();
    config.feature_kind = &kind;
    try {
        Engine engine(random_classifier(rng, 24, 24, 4, false), config);
        FAIL() << "an engine started without the extension its feature kind needs";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NoDevice) << e.what();
        EXPECT_NE(std::string(e.what()).find("cl_waldboost_no_such_extension"), std::string::npos) << e.what();
    }
}

/* ===================== rank features (LRD, LRP) ===================== */

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
        w.reject_threshold = static_cast<float>(sorted[static_cast<size_t>(reject * static_cast<double>(sorted.size()))]);
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
                const GrayImage img = ties ? few_levels_image(rng, s.width, s.height)
                                           : random_image(rng, s.width, s.height);
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
            std::printf("%s on %s: %llu windows, %.2f weak classifiers per window, %llu accepted\n",
                        c.label.c_str(), name,
                        static_cast<unsigned long long>(stats.windows),
                        static_cast<double>(stats.weak_evaluated) / static_cast<double>(std::max<uint64_t>(stats.windows, 1)),
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
        const Classifier c =
            random_haar_classifier(rng, cs.window.width, cs.window.height, cs.weak_count, cs.max_nodes, cs.tilted_every,
                                   cs.longest_stage);
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
    const std::vector<std::string> stems = {"frontalface_default", "frontalface_alt2", "eye_tree_eyeglasses", "fullbody",
                                            "licence_plate_rus_16stages"};
    std::vector<GrayImage> photos;
    for (const char* name : {"astronaut.png", "messi5.jpg"}) {
        const std::string path = waldboost_test::test_data(name);
        WALDBOOST_REQUIRE_FILE(path);
        photos.push_back(waldboost::tools::load_gray_image(path));
    }
    for (const std::string& stem : stems) {
        const std::string path = waldboost_test::haar_dir() + "/haarcascade_" + stem + ".xml";
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
                const auto key = [](const RawWindow& w) { return std::make_tuple(w.level, w.x, w.y); };
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

TEST(Engine, LargeFramesMatchTheReference)
{
    /* A 4K frame, and a pyramid wider than 8192 pixels. */
    std::mt19937 rng(4096);
    const Classifier c = random_classifier(rng, 24, 24, 30, true);
    for (Size s : {Size{3840, 2160}, Size{8400, 48}}) {
        const GrayImage img = random_image(rng, s.width, s.height);
        DetectParams params;
        params.min_neighbors = 0;
        const auto reference = detect_raw(c, img.view(), params);
        Engine engine(c, EngineConfig{test_device(), std::nullopt, 1});
        const auto result = engine.detect(img.view(), params);
        expect_same_windows(result.windows, reference, std::to_string(s.width) + "x" + std::to_string(s.height));
        EXPECT_GT(reference.size(), 0u);
    }
}

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

TEST(Engine, ResponsesFinerThanTheFixedPointUnitMatchTheReference)
{
    /* Values times 3e-13 in float: full mantissas reaching far below the
     * fixed-point unit of 2^-40, thresholds as near the sums as before.
     * The reference's double sums of them stay exact (under 53 bits). */
    std::mt19937 rng(1710);
    const GrayImage img = random_image(rng, 160, 121);
    size_t compared = 0;
    for (const bool stages : {false, true}) {
        const Classifier c = with_values(random_classifier(rng, 20, 20, 30, stages), [](float v) { return v * 3e-13f; });
        DetectParams params;
        params.min_neighbors = 0;
        const auto reference = scores_times(detect_raw(c, img.view(), params), 1 / 3e-13);
        const std::string what = stages ? "tiny stages" : "tiny waldboost";
        expect_same_windows(scores_times(Engine(c, config_with(parameter_sets()[0])).detect(img.view(), params).windows,
                                         1 / 3e-13),
                            reference, what + ", reduction");
        expect_same_windows(scores_times(Engine(c, rows_config()).detect(img.view(), params).windows, 1 / 3e-13),
                            reference, what + ", rows");
        std::printf("%s: %zu accepted windows compared\n", what.c_str(), reference.size());
        compared += reference.size();
    }
    EXPECT_GT(compared, 100u);
}

TEST(Engine, AClassifierScaledByTwoToTheMinus50GivesTheSameWindows)
{
    /* Scaling by a power of two changes no comparison, so neither may the
     * engine's answer change (2^-62 is the finest bit then). */
    std::mt19937 rng(250);
    const Classifier c = random_classifier(rng, 16, 16, 40, true);
    const Classifier small = with_values(c, [](float v) { return std::ldexp(v, -50); });
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
    for (const Span span : {Span{10, -40}, Span{11, -40}, Span{13, -40}, Span{16, -40}, Span{20, -40},
                            Span{5, -45}, Span{8, -45}, Span{15, -45}}) {
        const int bits = span.high - span.low;
        SCOPED_TRACE("responses 2^" + std::to_string(span.high) + " and 2^" + std::to_string(span.low));
        Classifier c = random_classifier(rng, 16, 16, 3, false);
        const float values[3] = {std::ldexp(1.0f, span.high), std::ldexp(1.0f, span.low),
                                 -std::ldexp(1.0f, span.high)};
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
        expect_same_windows(engine->detect(img.view(), params).windows, reference,
                            std::to_string(bits) + "-bit span");
    }
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
                const std::string what = std::string(engine == &rows ? "rows" : "reduction") + ", cap " +
                                         std::to_string(cap);
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

TEST(Engine, RepeatedRunsAndTheAsynchronousQueueGiveIdenticalResults)
{
    std::mt19937 rng(11);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    std::vector<GrayImage> frames;
    for (int i = 0; i < 6; ++i)
        frames.push_back(random_image(rng, 120 + 17 * i, 90 + 5 * i)); /* a size change every frame */
    DetectParams params;
    params.min_neighbors = 0;

    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 3;
    Engine engine(c, config);
    std::vector<std::vector<RawWindow>> sync;
    for (const GrayImage& f : frames)
        sync.push_back(engine.detect(f.view(), params).windows);

    std::vector<uint64_t> ids;
    std::vector<std::vector<RawWindow>> async;
    for (const GrayImage& f : frames) {
        if (!engine.can_submit()) {
            auto r = engine.collect();
            ASSERT_TRUE(r);
            async.push_back(r->windows);
        }
        ids.push_back(engine.submit(f.view(), params));
        EXPECT_LE(engine.in_flight(), 3u);
    }
    EXPECT_THROW(
        {
            while (engine.can_submit())
                engine.submit(frames[0].view(), params);
            engine.submit(frames[0].view(), params);
        },
        std::logic_error);
    while (auto r = engine.collect())
        async.push_back(r->windows);
    ASSERT_GE(async.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        expect_same_windows(async[i], sync[i], "async frame " + std::to_string(i));
        expect_same_windows(sync[i], detect_raw(c, frames[i].view(), params), "frame " + std::to_string(i));
    }
    for (size_t i = 1; i < ids.size(); ++i)
        EXPECT_EQ(ids[i], ids[i - 1] + 1);
}

/* The element's split: one thread submits while another waits for and
 * collects the oldest frame. Frames of changing sizes, every result in
 * order and equal to the reference's. */
/* Frames written into the engine's pinned blocks (what the element's pool
 * hands upstream): on a GPU they are uploaded from there without a copy,
 * alone or batched; on CPU devices they are copied like any frame. Either
 * way the windows are the reference's. A view with a stride is copied. */
TEST(Engine, FramesInPinnedBlocksMatchTheReference)
{
    std::mt19937 rng(35);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    DetectParams params;
    params.min_neighbors = 0;
    for (const bool batching : {false, true}) {
        EngineConfig config;
        config.device = test_device();
        config.max_in_flight = 3;
        config.batching = batching;
        config.batch_wait_ns = batching ? 2'000'000'000 : 0; /* the test submits the companions */
        Engine a(c, config), b(c, config);
        std::vector<GrayImage> frames;
        std::vector<std::shared_ptr<waldboost::opencl::PinnedBlock>> blocks;
        std::vector<GrayView> views;
        for (int i = 0; i < 6; ++i) {
            frames.push_back(random_image(rng, 120 + 16 * (i % 3), 90 + 6 * (i % 3)));
            const GrayImage& f = frames.back();
            const bool strided = i == 5;
            const int stride = strided ? f.width + 8 : f.width;
            blocks.push_back(a.allocate_pinned(static_cast<size_t>(stride) * f.height));
            uint8_t* data = blocks.back()->data();
            for (int y = 0; y < f.height; ++y)
                std::copy(f.view().row(y), f.view().row(y) + f.width, data + static_cast<size_t>(y) * stride);
            views.push_back(GrayView{data, f.width, f.height, stride});
        }
        const std::string what = batching ? "batched" : "alone";
        /* Pairs: a's frame and b's frame in flight together. */
        for (size_t i = 0; i + 1 < views.size(); i += 2) {
            a.submit(views[i], params);
            b.submit(views[i + 1], params);
            const auto ra = a.collect(), rb = b.collect();
            ASSERT_TRUE(ra && rb);
            expect_same_windows(ra->windows, detect_raw(c, frames[i].view(), params), what + ", frame " + std::to_string(i));
            expect_same_windows(rb->windows, detect_raw(c, frames[i + 1].view(), params),
                                what + ", frame " + std::to_string(i + 1));
        }
    }
}

TEST(PinnedMemory, BlocksAreFoundByContextAndRange)
{
    std::mt19937 rng(36);
    const Classifier c = random_classifier(rng, 20, 20, 10, false);
    EngineConfig config;
    config.device = test_device();
    Engine engine(c, config);
    const cl::Context& context = engine.shared_device()->context();
    std::vector<uint8_t> plain(4096);
    const uint8_t* first;
    {
        const auto block = engine.allocate_pinned(4096);
        first = block->data();
        EXPECT_TRUE(waldboost::opencl::find_pinned(context, block->data(), 4096));
        EXPECT_TRUE(waldboost::opencl::find_pinned(context, block->data() + 1000, 3096));
        EXPECT_FALSE(waldboost::opencl::find_pinned(context, block->data() + 1000, 3097)) << "past its end";
        EXPECT_FALSE(waldboost::opencl::find_pinned(context, plain.data(), plain.size())) << "not a block";
        const cl::Context other(context.getInfo<CL_CONTEXT_DEVICES>());
        EXPECT_FALSE(waldboost::opencl::find_pinned(other, block->data(), 4096)) << "another context";
    }
    EXPECT_FALSE(waldboost::opencl::find_pinned(context, first, 1)) << "a block that is gone";
}

TEST(Engine, OneThreadSubmitsWhileAnotherCollects)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    std::vector<GrayImage> frames;
    std::vector<std::vector<RawWindow>> want;
    DetectParams params;
    params.min_neighbors = 0;
    for (int i = 0; i < 5; ++i) {
        frames.push_back(random_image(rng, 100 + 23 * i, 80 + 11 * i));
        want.push_back(detect_raw(c, frames.back().view(), params));
    }
    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 3;
    Engine engine(c, config);
    constexpr int kFrames = 60;
    std::atomic<bool> submit_failed{false};
    std::thread submitter([&] {
        try {
            for (int i = 0; i < kFrames; ++i) {
                while (!engine.can_submit())
                    std::this_thread::yield();
                EXPECT_EQ(engine.submit(frames[i % frames.size()].view(), params), static_cast<uint64_t>(i));
            }
        } catch (const std::exception& e) {
            ADD_FAILURE() << "submit: " << e.what();
            submit_failed = true;
        }
    });
    int collected = 0;
    while (collected < kFrames && !submit_failed) {
        engine.wait_for_oldest();
        std::optional<FrameResult> r = engine.collect();
        if (!r) {
            std::this_thread::yield();
            continue;
        }
        EXPECT_EQ(r->frame, static_cast<uint64_t>(collected));
        expect_same_windows(r->windows, want[collected % frames.size()], "frame " + std::to_string(collected));
        ++collected;
    }
    submitter.join();
    EXPECT_EQ(collected, kFrames);
    EXPECT_EQ(engine.in_flight(), 0u);
}

/* Batching engines: frames of engines of different sizes, scan parameters
 * and classifiers give the reference's windows, the engines sharing a
 * classifier are launched together, and one alone on its queue never is. */
TEST(EngineBatching, EnginesOfDifferentSizesAndClassifiersMatchTheReference)
{
    std::mt19937 rng(41);
    const Classifier shared_model = random_classifier(rng, 20, 20, 30, true);
    const Classifier other_model = random_classifier(rng, 24, 18, 25, false);
    struct Stream {
        const Classifier* model;
        DetectParams params;
        std::vector<GrayImage> frames;
        std::vector<std::vector<RawWindow>> want;
    };
    std::vector<Stream> streams(3);
    streams[0].model = &shared_model;
    streams[1].model = &shared_model;
    streams[1].params.scale_factor = 1.25;
    streams[1].params.stride = 1;
    streams[2].model = &other_model;
    const Size sizes[3] = {{160, 120}, {211, 97}, {180, 140}};
    for (size_t k = 0; k < streams.size(); ++k) {
        streams[k].params.min_neighbors = 0;
        for (int i = 0; i < 3; ++i) {
            streams[k].frames.push_back(random_image(rng, sizes[k].width + 7 * i, sizes[k].height + 5 * i));
            streams[k].want.push_back(detect_raw(*streams[k].model, streams[k].frames.back().view(), streams[k].params));
        }
    }
    for (const ScanMethod scan : {ScanMethod::Auto, ScanMethod::Reduction}) {
        EngineConfig config;
        config.scan = scan;
        config.device = test_device();
        config.batching = true;
        config.batch_wait_ns = 2'000'000'000; /* companions always come: the test submits them */
        std::vector<std::unique_ptr<Engine>> engines;
        for (const Stream& s : streams)
            engines.push_back(std::make_unique<Engine>(*s.model, config));
        int batched = 0;
        constexpr int kRounds = 6;
        for (int round = 0; round < kRounds; ++round) {
            for (size_t k = 0; k < streams.size(); ++k)
                engines[k]->submit(streams[k].frames[round % 3].view(), streams[k].params);
            for (size_t k = 0; k < streams.size(); ++k) {
                const std::optional<FrameResult> r = engines[k]->collect();
                ASSERT_TRUE(r);
                expect_same_windows(r->windows, streams[k].want[round % 3],
                                    "stream " + std::to_string(k) + " frame " + std::to_string(round));
                if (k == 2)
                    EXPECT_EQ(r->stats.batch_frames, 1) << "alone on its classifier's queue";
                else
                    batched += r->stats.batch_frames == 2 ? 1 : 0;
            }
        }
        EXPECT_EQ(batched, 2 * kRounds) << "the two engines of one classifier went together every time";
    }
}

/* A classifier that accepts every window of a flat image and none of a
 * textured one: every weak classifier answers 1 for the codes of a flat
 * neighbourhood (all 0 or all 1 bits) only. */
Classifier flat_detector(std::mt19937& rng)
{
    Classifier c = random_classifier(rng, 12, 12, 6, true);
    for (WeakClassifier& w : c.weak) {
        lbp_table(w).fill(0.0f);
        lbp_table(w)[0] = lbp_table(w)[255] = 1.0f;
        w.reject_threshold = waldboost::kNoRejection;
        w.reset_sum_after = false;
    }
    c.final_threshold = static_cast<float>(c.weak.size()) - 0.5f;
    validate(c, "<flat>");
    return c;
}

/* A batch where one frame's windows outgrow the accepted list: that frame
 * runs again, the frame whose windows all fit does not, and both give the
 * reference's windows. */
TEST(EngineBatching, AFrameThatOverflowsRunsAgainAloneNotTheBatch)
{
    std::mt19937 rng(5);
    const Classifier c = flat_detector(rng);
    GrayImage flat(300, 200);
    for (int y = 0; y < flat.height; ++y)
        for (int x = 0; x < flat.width; ++x)
            flat.at(x, y) = 90;
    const GrayImage textured = random_image(rng, 240, 180);
    DetectParams params;
    params.min_neighbors = 0;
    params.stride = 1;
    params.max_windows = 0;
    const auto flat_want = detect_raw(c, flat.view(), params);
    const auto textured_want = detect_raw(c, textured.view(), params);
    ASSERT_GT(flat_want.size(), 5000u) << "more than the batch's accepted list holds";
    ASSERT_TRUE(textured_want.empty());
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    config.batch_wait_ns = 2'000'000'000;
    Engine a(c, config), b(c, config);
    for (int round = 0; round < 2; ++round) {
        a.submit(flat.view(), params);
        b.submit(textured.view(), params);
        const FrameResult ra = *a.collect();
        const FrameResult rb = *b.collect();
        EXPECT_EQ(ra.stats.batch_frames, 2);
        EXPECT_EQ(rb.stats.batch_frames, 2);
        expect_same_windows(ra.windows, flat_want, "flat frame, round " + std::to_string(round));
        expect_same_windows(rb.windows, textured_want, "textured frame, round " + std::to_string(round));
        EXPECT_EQ(ra.stats.reruns, round == 0 ? 1 : 0) << "the list grew on the first round";
        EXPECT_EQ(rb.stats.reruns, 0) << "its windows all fitted: it must not run again";
    }
}

/* The wait budget: a frame with companions due waits for them at most that
 * long, then goes alone; with no budget it goes at once; an engine going
 * away takes its waiting frame back and leaves the others working. */
/* A random classifier, a 120x90 frame of it and its reference windows,
 * and a batching engine configuration waiting `wait` for companions. */
struct BatchingCase {
    Classifier c;
    GrayImage frame;
    DetectParams params;
    std::vector<RawWindow> want;
    EngineConfig config;
};

static BatchingCase batching_case(unsigned seed, std::chrono::nanoseconds wait)
{
    std::mt19937 rng(seed);
    BatchingCase t{random_classifier(rng, 20, 20, 20, true), {}, {}, {}, {}};
    t.frame = random_image(rng, 120, 90);
    t.params.min_neighbors = 0;
    t.want = detect_raw(t.c, t.frame.view(), t.params);
    t.config.device = test_device();
    t.config.batching = true;
    t.config.batch_wait_ns = static_cast<uint64_t>(wait.count());
    return t;
}

TEST(EngineBatching, AFrameWaitsForCompanionsAtMostItsBudget)
{
    BatchingCase t = batching_case(8, std::chrono::milliseconds(300));
    const Classifier& c = t.c;
    const GrayImage& img = t.frame;
    const DetectParams& params = t.params;
    const auto& want = t.want;
    EngineConfig& config = t.config;
    Engine waiting(c, config);
    auto idle = std::make_unique<Engine>(c, config); /* a companion that never submits */
    const auto start = std::chrono::steady_clock::now();
    waiting.submit(img.view(), params);
    const FrameResult r = *waiting.collect();
    const auto waited = std::chrono::steady_clock::now() - start;
    EXPECT_GE(waited, std::chrono::milliseconds(290)) << "launched before its budget without its companion";
    EXPECT_EQ(r.stats.batch_frames, 1);
    expect_same_windows(r.windows, want, "after waiting");

    /* The companion's frame waits for `waiting`, which never submits: the
     * companion goes away with it still waiting. */
    idle->submit(img.view(), params);
    idle.reset();
    waiting.submit(img.view(), params);
    expect_same_windows(waiting.collect()->windows, want, "after the companion left");

    config.batch_wait_ns = 0;
    Engine eager(c, config), other(c, config);
    const auto eager_start = std::chrono::steady_clock::now();
    eager.submit(img.view(), params);
    expect_same_windows(eager.collect()->windows, want, "without a budget");
    EXPECT_LT(std::chrono::steady_clock::now() - eager_start, std::chrono::milliseconds(250))
        << "a frame without a wait budget waited for a companion";
}

/* batch_max_windows: frames of more window positions are launched alone,
 * and an engine with such frames leaves the queue, so that a companion's
 * small frame does not wait for it; when its frames shrink it joins again
 * and batches from its next frame. The windows are the reference's
 * throughout. */
TEST(EngineBatching, FramesAboveTheWindowLimitGoAloneAndNobodyWaitsForThem)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 20, true);
    const GrayImage small = random_image(rng, 120, 90), large = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    const auto small_want = detect_raw(c, small.view(), params);
    const auto large_want = detect_raw(c, large.view(), params);
    const uint64_t small_positions = opencl::make_geometry({small.width, small.height}, c, params, false).positions;
    const uint64_t large_positions = opencl::make_geometry({large.width, large.height}, c, params, false).positions;
    ASSERT_LT(small_positions * 2, large_positions);
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    /* A companion on the queue is waited for, this long: a frame that
     * waited for one took at least this, and a first launch (kernels
     * compiled on a cold cache) well under half of it. */
    constexpr auto kBudget = std::chrono::seconds(4);
    config.batch_wait_ns = std::chrono::nanoseconds(kBudget).count();
    config.batch_max_windows = (small_positions + large_positions) / 2;
    Engine a(c, config), b(c, config), other(c, config);
    Engine* engines[3] = {&a, &b, &other};
    /* Each engine submits a frame, then all are collected. want: each
     * frame's batch size; empty: only the windows are checked (the warm-up,
     * and the round after a rejoin, whose first frame may go alone). */
    auto round = [&](std::vector<const GrayImage*> frames, std::vector<int> want, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        for (int k = 0; k < 3; ++k)
            engines[k]->submit(frames[k]->view(), params);
        for (int k = 0; k < 3; ++k) {
            const FrameResult r = *engines[k]->collect();
            const std::string which = what + ", engine " + std::to_string(k);
            expect_same_windows(r.windows, frames[k] == &small ? small_want : large_want, which);
            if (!want.empty()) {
                EXPECT_EQ(r.stats.batch_frames, want[k]) << which;
            }
        }
        if (!want.empty()) {
            EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2)
                << what << ": a frame waited for a companion";
        }
    };
    const GrayImage *S = &small, *L = &large;
    round({S, S, S}, {}, "warm-up"); /* first launches: buffers, and on PoCL the kernels' code */
    round({S, S, S}, {3, 3, 3}, "all small");
    round({L, S, S}, {1, 2, 2}, "a large"); /* b and c neither wait for a nor take its frame */
    round({L, L, S}, {1, 1, 1}, "c alone small");
    round({S, S, S}, {}, "all small again");
    round({S, S, S}, {3, 3, 3}, "all small, all joined");

    /* The default: a GPU's limit scales with its compute units and, up to
     * kBatchWindowsPerComputeUnit, with the engines on the queue; a CPU's is
     * none. */
    opencl::DeviceInfo gpu, cpu;
    gpu.type = "GPU";
    gpu.compute_units = 132;
    cpu.type = "CPU";
    cpu.compute_units = 2;
    EXPECT_EQ(opencl::default_batch_max_windows(gpu, 64), 132 * opencl::kBatchWindowsPerComputeUnit);
    /* Where it was measured (docs/performance.md, Batched launches): on the
     * H200, with the default classifier and parameters, batching gained for
     * 2 streams of 640x480, 4 of 720p, 16 and 64 of 1080p, and lost for 2
     * of 720p and 1080p, 4 of 1080p and any number of 4K frames. */
    const DetectParams defaults;
    auto batched = [&](Size size, long engines) {
        return uint64_t{opencl::make_geometry(size, default_classifier(), defaults, true).positions} <=
               opencl::default_batch_max_windows(gpu, engines);
    };
    EXPECT_TRUE(batched({640, 480}, 2));
    EXPECT_FALSE(batched({1280, 720}, 2));
    EXPECT_TRUE(batched({1280, 720}, 4));
    EXPECT_FALSE(batched({1920, 1080}, 2));
    EXPECT_FALSE(batched({1920, 1080}, 4));
    EXPECT_TRUE(batched({1920, 1080}, 16));
    EXPECT_TRUE(batched({1920, 1080}, 64));
    EXPECT_FALSE(batched({3840, 2160}, 64));
    EXPECT_EQ(opencl::default_batch_max_windows(cpu, 2), UINT64_MAX);
    EXPECT_EQ(opencl::default_batch_windows(gpu), 132 * opencl::kBatchWindowsPerBatchPerComputeUnit);
    EXPECT_EQ(opencl::default_batch_windows(cpu), UINT64_MAX);
}

/* The default limit's rule (a GPU's): positions per engine attached to the
 * queue, looked up per frame. With a rate of a third of a frame, three
 * engines batch their frames; when one goes, the two left launch theirs
 * alone, without waiting for companions; when a third attaches again,
 * they batch again. The windows are the reference's throughout. */
TEST(EngineBatching, TheLimitFollowsTheEnginesAttached)
{
    std::mt19937 rng(14);
    const Classifier c = random_classifier(rng, 20, 20, 20, true);
    const GrayImage frame = random_image(rng, 240, 180);
    DetectParams params;
    params.min_neighbors = 0;
    const auto want = detect_raw(c, frame.view(), params);
    const uint64_t positions = opencl::make_geometry({frame.width, frame.height}, c, params, false).positions;
    EngineConfig config;
    config.device = test_device();
    config.batching = true;
    constexpr auto kBudget = std::chrono::seconds(4);
    config.batch_wait_ns = std::chrono::nanoseconds(kBudget).count();
    config.batch_windows_per_engine = (positions + 2) / 3; /* 2 engines: below a frame; 3: a frame or more */
    ASSERT_LT(2 * config.batch_windows_per_engine, positions);
    std::vector<std::unique_ptr<Engine>> engines;
    for (int k = 0; k < 3; ++k)
        engines.push_back(std::make_unique<Engine>(c, config));
    /* Every engine submits a frame, then all are collected. */
    auto round = [&](int want_batch, const std::string& what) {
        const auto start = std::chrono::steady_clock::now();
        for (auto& e : engines)
            e->submit(frame.view(), params);
        for (size_t k = 0; k < engines.size(); ++k) {
            const FrameResult r = *engines[k]->collect();
            const std::string which = what + ", engine " + std::to_string(k);
            expect_same_windows(r.windows, want, which);
            if (want_batch) {
                EXPECT_EQ(r.stats.batch_frames, want_batch) << which;
            }
        }
        if (want_batch) {
            EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2) << what << ": a frame waited";
        }
    };
    round(0, "warm-up");
    round(3, "three engines");
    engines.pop_back();
    round(1, "two engines");
    engines.push_back(std::make_unique<Engine>(c, config));
    round(0, "a third again"); /* the new engine's first frame may go alone */
    round(3, "three engines again");
}

/* A batch holds frames of at most batch_windows positions, or two frames,
 * whichever is more: four engines' frames go as three and one with room
 * for three, as two and two with room for half a frame; the frames left
 * out of the first batch go without waiting for companions again. */
TEST(EngineBatching, ABatchHoldsItsWindowsOrTwoFramesAndNothingLeftOutWaits)
{
    constexpr auto kBudget = std::chrono::seconds(4);
    BatchingCase t = batching_case(13, kBudget);
    const uint64_t frame_positions =
        opencl::make_geometry({t.frame.width, t.frame.height}, t.c, t.params, false).positions;
    auto check = [&](uint64_t batch_windows, std::vector<int> want, const std::string& what) {
        EngineConfig config = t.config;
        config.batch_windows = batch_windows;
        std::vector<std::unique_ptr<Engine>> engines;
        for (int k = 0; k < 4; ++k)
            engines.push_back(std::make_unique<Engine>(t.c, config));
        for (int round = 0; round < 3; ++round) { /* the first warms up (buffers, kernels' code) */
            const auto start = std::chrono::steady_clock::now();
            for (auto& e : engines)
                e->submit(t.frame.view(), t.params);
            for (size_t k = 0; k < engines.size(); ++k) {
                const FrameResult r = *engines[k]->collect();
                const std::string which = what + ", round " + std::to_string(round) + ", engine " + std::to_string(k);
                expect_same_windows(r.windows, t.want, which);
                if (round > 0) {
                    EXPECT_EQ(r.stats.batch_frames, want[k]) << which;
                }
            }
            if (round > 0) {
                EXPECT_LT(std::chrono::steady_clock::now() - start, kBudget / 2)
                    << what << ", round " << round << ": the frames left out of the first batch waited";
            }
        }
    };
    check(3 * frame_positions, {3, 3, 3, 1}, "room for three frames");
    check(frame_positions / 2, {2, 2, 2, 2}, "room for half a frame");
}

/* A memory budget for fewer frames than max_in_flight: the engine says how
 * many frames of the size submitted last fit, a larger frame lowers that
 * and a smaller one raises it again; a caller that keeps more in flight
 * still gets every frame right. */
TEST(Engine, FramesInFlightFollowTheMemoryBudget)
{
    std::mt19937 rng(12);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    const GrayImage small = random_image(rng, 320, 240);
    const GrayImage large = random_image(rng, 640, 480);
    DetectParams params;
    params.min_neighbors = 0;
    const std::vector<RawWindow> small_expected = detect_raw(c, small.view(), params);
    const std::vector<RawWindow> large_expected = detect_raw(c, large.view(), params);

    EngineConfig config;
    config.device = test_device();
    config.max_in_flight = 4;
    uint64_t small_bytes = 0, large_bytes = 0;
    {
        Engine roomy(c, config);
        EXPECT_EQ(roomy.frame_memory_bytes(), 0u);
        EXPECT_EQ(roomy.in_flight_limit(), 4u);
        roomy.detect(small.view(), params);
        small_bytes = roomy.frame_memory_bytes();
        EXPECT_EQ(roomy.in_flight_limit(), 4u);
        roomy.detect(large.view(), params);
        large_bytes = roomy.frame_memory_bytes();
    }
    /* At least the frame, its pyramid (the frame and more) and its integral
     * image (2 or 4 bytes a pixel). */
    EXPECT_GE(small_bytes, 4u * 320 * 240);
    EXPECT_GE(large_bytes, 3 * small_bytes);

    /* One large frame fits, and a few small ones (a frame beyond the
     * budget is refused: AFrameBeyondTheMemoryBudgetIsRefused). */
    config.max_in_flight = 8;
    config.memory_budget = large_bytes;
    const size_t small_fit = static_cast<size_t>(large_bytes / small_bytes);
    ASSERT_LT(small_fit, 8u);
    Engine tight(c, config);
    auto check = [&](const GrayImage& frame, size_t limit, const std::vector<RawWindow>& expected,
                     const std::string& what) {
        while (tight.in_flight() >= limit) {
            const auto r = tight.collect();
            ASSERT_TRUE(r);
        }
        tight.submit(frame.view(), params);
        EXPECT_EQ(tight.in_flight_limit(), limit) << what;
        std::optional<FrameResult> r;
        while (tight.in_flight())
            r = tight.collect();
        ASSERT_TRUE(r);
        expect_same_windows(r->windows, expected, what);
    };
    check(small, small_fit, small_expected, "320x240, room for " + std::to_string(small_fit));
    check(large, 1, large_expected, "640x480, room for 1");
    check(small, small_fit, small_expected, "320x240 again");

    /* Beyond the limit: submit() still takes max_in_flight frames. */
    for (int i = 0; i < 8; ++i)
        tight.submit(small.view(), params);
    for (int i = 0; i < 8; ++i) {
        const auto r = tight.collect();
        ASSERT_TRUE(r);
        expect_same_windows(r->windows, small_expected, "over the limit, frame " + std::to_string(i));
    }
    EXPECT_FALSE(tight.collect());
}

/* A frame that alone needs more than the memory budget is refused before
 * anything is allocated for it (a 16384x16384 frame needing 9.7 GB ran on
 * a 5.3 GiB device, from the host's memory on PoCL); frames that fit run
 * on in the same engine. */
TEST(Engine, AFrameBeyondTheMemoryBudgetIsRefused)
{
    std::mt19937 rng(37);
    const Classifier c = random_classifier(rng, 20, 20, 10, true);
    const GrayImage small = random_image(rng, 80, 60);
    const GrayImage large = random_image(rng, 640, 480);
    DetectParams params;
    params.min_neighbors = 0;
    EngineConfig config;
    config.device = test_device();
    uint64_t small_bytes = 0, large_bytes = 0;
    {
        Engine roomy(c, config);
        roomy.detect(small.view(), params);
        small_bytes = roomy.frame_memory_bytes();
        roomy.detect(large.view(), params);
        large_bytes = roomy.frame_memory_bytes();
    }
    ASSERT_GT(large_bytes, 2 * small_bytes);
    config.memory_budget = (small_bytes + large_bytes) / 2;
    Engine tight(c, config);
    expect_same_windows(tight.detect(small.view(), params).windows, detect_raw(c, small.view(), params),
                        "80x60 within the budget");
    try {
        tight.detect(large.view(), params);
        ADD_FAILURE() << "a 640x480 frame of " << large_bytes << " bytes ran on a budget of "
                      << config.memory_budget;
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::OutOfResources) << e.what();
        const std::string what = e.what();
        EXPECT_NE(what.find("640x480"), std::string::npos) << what;
        EXPECT_NE(what.find("memory budget"), std::string::npos) << what;
    }
    EXPECT_EQ(tight.in_flight(), 0u);
    /* The refused size leaves nothing behind: the small frame runs again. */
    expect_same_windows(tight.detect(small.view(), params).windows, detect_raw(c, small.view(), params),
                        "80x60 after the refusal");
    EXPECT_EQ(tight.frame_memory_bytes(), small_bytes);
}

/* Engines of one process on one device share the context, the program and,
 * for equal classifiers, the uploaded classifier; what is shared goes away
 * with the last engine holding it. Frames of several engines, of different
 * sizes and classifiers, interleaved and from several threads, give each
 * engine the reference's windows. */
TEST(Engine, EnginesOnOneDeviceShareContextProgramAndClassifier)
{
    std::mt19937 rng(14);
    const Classifier a = random_classifier(rng, 20, 20, 30, true);
    const Classifier b = random_classifier(rng, 24, 24, 40, false);
    EngineConfig config = rows_config(2);
    config.scan = ScanMethod::Auto;
    {
        Engine first(a, config);
        EXPECT_FALSE(first.sharing().context_shared);
        EXPECT_FALSE(first.sharing().program_shared);
        EXPECT_FALSE(first.sharing().classifier_shared);
        EXPECT_EQ(first.sharing().engines_on_device, 1);
        Engine same(a, config);
        EXPECT_TRUE(same.sharing().context_shared);
        EXPECT_TRUE(same.sharing().program_shared);
        EXPECT_TRUE(same.sharing().classifier_shared);
        EXPECT_EQ(same.sharing().engines_on_device, 2);
        Engine other(b, config);
        EXPECT_TRUE(other.sharing().context_shared);
        EXPECT_FALSE(other.sharing().classifier_shared);
        EXPECT_FALSE(other.sharing().program_shared) << "another weak classifier count is another program";
        EXPECT_EQ(first.sharing().engines_on_device, 3);

        DetectParams params;
        params.min_neighbors = 0;
        const GrayImage small = random_image(rng, 160, 120), large = random_image(rng, 333, 201);
        const auto a_small = detect_raw(a, small.view(), params), a_large = detect_raw(a, large.view(), params);
        const auto b_large = detect_raw(b, large.view(), params);
        for (int round = 0; round < 3; ++round) {
            first.submit(small.view(), params);
            same.submit(large.view(), params);
            other.submit(large.view(), params);
            expect_same_windows(first.collect()->windows, a_small, "first engine");
            expect_same_windows(same.collect()->windows, a_large, "second engine, same classifier");
            expect_same_windows(other.collect()->windows, b_large, "third engine, another classifier");
        }

        /* From several threads at once: set-up and frames. */
        std::vector<std::thread> threads;
        std::atomic<int> mismatches{0};
        for (int t = 0; t < 4; ++t)
            threads.emplace_back([&, t] {
                try {
                    Engine engine(t % 2 ? b : a, config);
                    for (int i = 0; i < 3; ++i) {
                        const auto r = engine.detect(large.view(), params);
                        const auto& want = t % 2 ? b_large : a_large;
                        if (r.windows.size() != want.size())
                            ++mismatches;
                    }
                } catch (const std::exception& e) {
                    std::fprintf(stderr, "thread %d: %s\n", t, e.what());
                    ++mismatches;
                }
            });
        for (std::thread& thread : threads)
            thread.join();
        EXPECT_EQ(mismatches.load(), 0);
    }
    Engine later(a, config);
    EXPECT_FALSE(later.sharing().context_shared) << "the last engine's context outlived it";
    EXPECT_EQ(later.sharing().engines_on_device, 1);
}

/* "all-gpus" ("all-cpus" when the test device is a CPU) puts each engine on
 * the device of that type the fewest engines of the process use. Needs two
 * such devices: the meson test engine-two-devices gets two CPU devices from
 * PoCL (POCL_DEVICES="pthread pthread") and sets
 * WALDBOOST_REQUIRE_TWO_DEVICES, so that there it fails rather than skips;
 * on a host with two GPUs, WALDBOOST_TEST_DEVICE=gpu runs it there. Frames run one at a time: PoCL releases cached kernel
 * code wrongly when launches of one kernel with different sizes run at once
 * (shared_device.h), and two devices would be two queues. */
TEST(EngineSpread, EnginesOnAllOfATypeTakeTheLeastUsedDevice)
{
    using waldboost::opencl::select_devices;
    const std::string type = waldboost::opencl::select_device(test_device()).info.type;
    const std::string kind = type == "GPU" ? "gpu" : type == "CPU" ? "cpu" : "accelerator";
    const auto devices = select_devices("all-" + kind + "s");
    if (devices.size() < 2) {
        if (!waldboost_test::env_or("WALDBOOST_REQUIRE_TWO_DEVICES", "").empty())
            FAIL() << "WALDBOOST_REQUIRE_TWO_DEVICES is set but there are " << devices.size() << " " << type
                   << " devices";
        GTEST_SKIP() << "one " << type << " device; the meson test engine-two-devices runs this with two CPU devices";
    }
    auto index_of = [&](const Engine& e) {
        for (size_t i = 0; i < devices.size(); ++i)
            if (devices[i].info.platform_index == e.device().platform_index &&
                devices[i].info.device_index == e.device().device_index)
                return static_cast<int>(i);
        return -1;
    };
    std::mt19937 rng(41);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    EngineConfig config = rows_config(2);
    config.device = " ALL-" + kind + "s "; /* any case, spaces ignored */

    /* Made at once in four threads: two on each device. */
    std::vector<std::unique_ptr<Engine>> engines(4);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (size_t t = 0; t < engines.size(); ++t)
        threads.emplace_back([&, t] {
            try {
                engines[t] = std::make_unique<Engine>(c, config);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "thread %zu: %s\n", t, e.what());
                ++failures;
            }
        });
    for (std::thread& thread : threads)
        thread.join();
    ASSERT_EQ(failures.load(), 0);
    std::vector<int> per_device(devices.size(), 0);
    for (const auto& e : engines) {
        const int i = index_of(*e);
        ASSERT_GE(i, 0) << "an engine on a device that is not a CPU: " << e->device().device_name;
        ++per_device[static_cast<size_t>(i)];
        EXPECT_EQ(e->sharing().engines_on_device, 2);
    }
    EXPECT_EQ(per_device[0], 2);
    EXPECT_EQ(per_device[1], 2);

    /* Every engine finds the reference's windows on its device. */
    DetectParams params;
    params.min_neighbors = 0;
    const GrayImage image = random_image(rng, 200, 150);
    const auto want = detect_raw(c, image.view(), params);
    for (const auto& e : engines)
        expect_same_windows(e->detect(image.view(), params).windows, want, e->device().device_name.c_str());

    /* Two engines of device 1 go: the next engine takes device 1. */
    const int first_on_0 = index_of(*engines[0]);
    for (auto& e : engines)
        if (e && index_of(*e) != first_on_0)
            e.reset();
    Engine next(c, config);
    EXPECT_NE(index_of(next), first_on_0);
    EXPECT_EQ(next.sharing().engines_on_device, 1);
    expect_same_windows(next.detect(image.view(), params).windows, want, "the engine made after two left");

    /* A fixed device is never spread. */
    config.device = kind;
    Engine fixed(c, config);
    EXPECT_EQ(index_of(fixed), 0);
}

TEST(EngineSpread, AllOfATypeThatIsNotThereIsAClearError)
{
    using waldboost::opencl::select_devices;
    EXPECT_EQ(waldboost::opencl::spread_type(" ALL-gpus"), "GPU");
    EXPECT_EQ(waldboost::opencl::spread_type("all-accelerators"), "accelerator");
    EXPECT_EQ(waldboost::opencl::spread_type("gpu"), "");
    EXPECT_EQ(waldboost::opencl::spread_type("all-gpu"), "") << "only the plural is a spread spec";
    for (const char* spec : {"all-gpus", "all-cpus", "all-accelerators"}) {
        const std::string type = waldboost::opencl::spread_type(spec);
        bool any = false;
        for (const auto& info : waldboost::opencl::list_devices())
            any = any || info.type == type;
        if (any) {
            const auto devices = select_devices(spec);
            ASSERT_FALSE(devices.empty());
            for (const auto& d : devices)
                EXPECT_EQ(d.info.type, type);
            EXPECT_EQ(devices.front().info.device_name, waldboost::opencl::select_device(spec).info.device_name);
            continue;
        }
        try {
            select_devices(spec);
            ADD_FAILURE() << spec << " selected a device on a host without one";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::NoDevice);
            EXPECT_NE(std::string(e.what()).find("there is no " + type + " device"), std::string::npos) << e.what();
        }
    }
}

/* The device's busy time is the union of kernel intervals, whatever order
 * they come in: overlapping and nested ones count once, disjoint ones add
 * up. */
TEST(Engine, BusyTimeIsTheUnionOfKernelIntervals)
{
    using waldboost::opencl::BusyTime;
    BusyTime busy;
    EXPECT_EQ(busy.total_ns(), 0u);
    busy.add(100, 200);
    EXPECT_EQ(busy.total_ns(), 100u);
    busy.add(150, 250); /* overlapping: 100-250 */
    EXPECT_EQ(busy.total_ns(), 150u);
    busy.add(120, 180); /* nested */
    EXPECT_EQ(busy.total_ns(), 150u);
    busy.add(400, 500); /* disjoint */
    EXPECT_EQ(busy.total_ns(), 250u);
    busy.add(50, 60);   /* out of order, before everything */
    EXPECT_EQ(busy.total_ns(), 260u);
    busy.add(250, 400); /* touching both neighbours: 100-500 */
    EXPECT_EQ(busy.total_ns(), 410u);
    EXPECT_EQ(busy.recent_intervals(), 2u);
    busy.add(30, 600);  /* covers everything */
    EXPECT_EQ(busy.total_ns(), 570u);
    busy.add(700, 700); /* empty */
    busy.add(800, 790); /* reversed: ignored */
    EXPECT_EQ(busy.total_ns(), 570u);

    /* Two "queues" whose kernels overlap: the union, not the plain sum. */
    BusyTime two;
    two.add({{0, 10}, {20, 30}, {40, 50}});
    two.add({{5, 15}, {25, 35}, {45, 55}});
    EXPECT_EQ(two.total_ns(), 45u) << "the plain sum would be 60";
}

/* Old intervals fold into a running total: memory stays bounded, the total
 * stays exact for intervals that arrive in time, and a very late one counts
 * only its part after the fold (an under-estimate, never more). */
TEST(Engine, BusyTimeFoldsOldIntervalsAndStaysBounded)
{
    using waldboost::opencl::BusyTime;
    BusyTime busy(1000, 8);
    for (uint64_t i = 0; i < 100; ++i)
        busy.add(i * 100, i * 100 + 10);
    EXPECT_EQ(busy.total_ns(), 1000u);
    EXPECT_LE(busy.recent_intervals(), 8u);
    busy.add(0, 10); /* long folded: no change */
    EXPECT_EQ(busy.total_ns(), 1000u);
    busy.add(9895, 9915); /* overlaps the last one (9900-9910) */
    EXPECT_EQ(busy.total_ns(), 1010u);

    BusyTime by_time(50, 1000);
    by_time.add(0, 10);
    by_time.add(100, 110); /* 0-10 ended more than 50 before 110: folded */
    EXPECT_EQ(by_time.recent_intervals(), 1u);
    by_time.add(5, 20); /* its part after 10 still counts */
    EXPECT_EQ(by_time.total_ns(), 30u);
}

/* Two engines on one device, frames in flight on both at once: each reports
 * its kernel intervals to the device's counter, which holds their union:
 * more than nothing, no more than the plain sum of the kernel times and no
 * more than the wall time that passed. */
TEST(Engine, EnginesOnOneDeviceReportBusyTime)
{
    std::mt19937 rng(15);
    const Classifier a = random_classifier(rng, 20, 20, 30, true);
    EngineConfig config = rows_config(2);
    const GrayImage image = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    const auto wall_start = std::chrono::steady_clock::now();
    Engine first(a, config);
    Engine second(a, config);
    EXPECT_EQ(first.device_busy_ns(), second.device_busy_ns());
    const uint64_t before = first.device_busy_ns();
    std::vector<std::pair<uint64_t, uint64_t>> intervals;
    uint64_t plain_sum = 0;
    auto keep = [&](const std::optional<FrameResult>& r) {
        ASSERT_TRUE(r);
        for (const auto& k : r->stats.kernels) {
            intervals.emplace_back(k.start_ns, k.end_ns);
            plain_sum += k.end_ns - k.start_ns;
        }
    };
    for (int round = 0; round < 4; ++round) {
        first.submit(image.view(), params);
        second.submit(image.view(), params);
        first.submit(image.view(), params);
        second.submit(image.view(), params);
        for (int i = 0; i < 2; ++i) {
            keep(first.collect());
            keep(second.collect());
        }
    }
    const double wall_ns =
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - wall_start).count();
    const uint64_t busy = first.device_busy_ns() - before;
    EXPECT_EQ(second.device_busy_ns() - before, busy) << "one counter for the device";
    /* The union computed here, independently. */
    std::sort(intervals.begin(), intervals.end());
    uint64_t expected = 0, reach = 0;
    for (const auto& [start, end] : intervals) {
        const uint64_t from = std::max(start, reach);
        if (end > from)
            expected += end - from;
        reach = std::max(reach, end);
    }
    EXPECT_GT(busy, 0u);
    EXPECT_EQ(busy, expected);
    EXPECT_LE(busy, plain_sum);
    EXPECT_LE(static_cast<double>(busy), wall_ns);
    std::printf("busy %.3f ms of %.3f ms wall; kernels' plain sum %.3f ms\n", busy * 1e-6, wall_ns * 1e-6,
                plain_sum * 1e-6);
    auto counter = first.device_busy_counter();
    EXPECT_EQ(counter.lock()->total_ns(), first.device_busy_ns());
}

/* A failed allocation for a second frame in flight (WALDBOOST_CL_FAULT,
 * read once per process: a fresh one) shrinks the queue to the slot that
 * has its buffers instead of failing the frame; every frame comes back in
 * order with the reference's windows. */
TEST(EngineDeathTest, AFailedAllocationShrinksTheQueueInsteadOfFailing)
{
    GTEST_FLAG_SET(death_test_style, "threadsafe");
    EXPECT_EXIT(
        {
            /* buffer-create faults: the classifier's upload, then each
             * slot's first frame (slot 1's is the third). */
            g_setenv("WALDBOOST_CL_FAULT", "buffer-create:3", TRUE);
            std::mt19937 rng(13);
            const Classifier c = random_classifier(rng, 20, 20, 30, true);
            std::vector<GrayImage> frames;
            for (int i = 0; i < 5; ++i)
                frames.push_back(random_image(rng, 200, 150));
            DetectParams params;
            params.min_neighbors = 0;
            EngineConfig config;
            config.device = test_device();
            config.max_in_flight = 3;
            Engine engine(c, config);
            std::vector<std::vector<RawWindow>> results;
            for (const GrayImage& f : frames) {
                while (engine.in_flight() >= engine.in_flight_limit())
                    results.push_back(engine.collect()->windows);
                engine.submit(f.view(), params);
            }
            while (engine.in_flight())
                results.push_back(engine.collect()->windows);
            if (engine.in_flight_limit() != 1)
                std::_Exit(2);
            if (results.size() != frames.size())
                std::_Exit(3);
            for (size_t i = 0; i < frames.size(); ++i)
                expect_same_windows(results[i], detect_raw(c, frames[i].view(), params), "frame " + std::to_string(i));
            if (::testing::Test::HasFailure())
                std::_Exit(4);
            std::fprintf(stderr, "shrunk to 1\n");
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "shrunk to 1");
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

TEST(Engine, StatisticsDescribeTheReduction)
{
    std::mt19937 rng(5);
    const Classifier c = random_classifier(rng, 24, 24, 40, true);
    const GrayImage img = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    DetectStats reference_stats;
    const auto reference = detect_raw(c, img.view(), params, &reference_stats);
    Engine engine(c, config_with(waldboost::opencl::default_reduction(waldboost::opencl::select_device(test_device()).info, c)));
    const auto result = engine.detect(img.view(), params);
    const auto& st = result.stats;
    EXPECT_EQ(st.discarded, 0u);
    EXPECT_EQ(st.accepted, reference.size());
    /* The engine evaluates every position (the reference skips some under
     * OpenCV's rule), so it scans at least as many windows. */
    EXPECT_GE(st.windows, reference_stats.windows);
    EXPECT_GE(st.weak_evaluated, reference_stats.weak_evaluated);
    EXPECT_GT(st.weak_per_window, 0.9);
    ASSERT_EQ(st.candidates_after_step.size(), 1u + engine.reduction().step2_repeats);
    for (size_t i = 1; i < st.candidates_after_step.size(); ++i)
        EXPECT_LE(st.candidates_after_step[i], st.candidates_after_step[i - 1]);
    EXPECT_LE(st.candidates_after_step[0], st.windows / engine.reduction().step1_divisor + engine.reduction().group_size);
    ASSERT_GE(st.kernels.size(), 7u);
    for (const auto& k : st.kernels)
        EXPECT_GE(k.milliseconds, 0.0) << k.name;
    EXPECT_GT(st.device_milliseconds, 0.0);

    /* Kernels and transfers on one device clock, in the queue's order: the
     * frame's upload ends before its first kernel starts, every kernel
     * starts after the one before it ended, and the results are read back
     * after the last. */
    ASSERT_FALSE(st.transfers.empty());
    EXPECT_EQ(st.transfers.front().name, "upload");
    EXPECT_EQ(st.transfers.back().name, "read accepted");
    for (const auto* list : {&st.kernels, &st.transfers})
        for (const auto& k : *list)
            EXPECT_LE(k.start_ns, k.end_ns) << k.name;
    EXPECT_LE(st.transfers.front().end_ns, st.kernels.front().start_ns);
    for (size_t i = 1; i < st.kernels.size(); ++i)
        EXPECT_LE(st.kernels[i - 1].end_ns, st.kernels[i].start_ns) << st.kernels[i].name;
    EXPECT_LE(st.kernels.back().end_ns, st.transfers.back().start_ns);
    EXPECT_NEAR(st.device_milliseconds, (st.kernels.back().end_ns - st.kernels.front().start_ns) * 1e-6, 1e-9);

    /* Without profiling there are no times at all. */
    EngineConfig quiet = config_with(engine.reduction());
    quiet.profiling = false;
    Engine unprofiled(c, quiet);
    const auto plain = unprofiled.detect(img.view(), params).stats;
    EXPECT_TRUE(plain.kernels.empty());
    EXPECT_TRUE(plain.transfers.empty());
}

TEST(Engine, StatisticsDescribeTheRowScan)
{
    std::mt19937 rng(5);
    const Classifier c = random_classifier(rng, 24, 24, 40, true, true);
    const GrayImage img = random_image(rng, 320, 240);
    DetectParams params;
    params.min_neighbors = 0;
    DetectStats reference_stats;
    const auto reference = detect_raw(c, img.view(), params, &reference_stats);
    Engine engine(c, rows_config(1));
    EXPECT_EQ(engine.scan_method(), ScanMethod::Rows);
    const auto result = engine.detect(img.view(), params);
    const auto& st = result.stats;
    EXPECT_EQ(st.accepted, reference.size());
    EXPECT_TRUE(st.candidates_after_step.empty()) << "the row scan keeps no candidate lists";
    /* Every position goes through the first stage (on vectors); after it,
     * exactly the windows OpenCV visits go on, as in the reference. */
    int first_stage = 0;
    while (c.weak[first_stage].reject_threshold == waldboost::kNoRejection)
        ++first_stage;
    ++first_stage;
    ASSERT_GT(st.windows, reference_stats.windows) << "OpenCV's rule should skip some positions";
    EXPECT_EQ(st.weak_evaluated,
              reference_stats.weak_evaluated + (st.windows - reference_stats.windows) * first_stage);
    std::vector<std::string> names;
    for (const auto& k : st.kernels)
        names.push_back(k.name);
    EXPECT_NE(std::find(names.begin(), names.end(), "scan_rows"), names.end());
    EXPECT_EQ(std::find(names.begin(), names.end(), "step1_scan"), names.end());
}

TEST(Engine, AutomaticScanIsRowsOnCpuDevicesOnly)
{
    Engine engine(default_classifier(), EngineConfig{test_device(), std::nullopt, 1});
    EXPECT_EQ(engine.scan_method(), engine.device().type == "CPU" ? ScanMethod::Rows : ScanMethod::Reduction)
        << engine.device().type;
}

TEST(Engine, BadConfigurationIsAClearError)
{
    const Classifier& c = default_classifier();
    ReductionParams p;
    p.group_size = 100;
    try {
        Engine engine(c, config_with(p));
        FAIL() << "a group size of 100 was accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("power of two"), std::string::npos) << e.what();
    }
    EngineConfig none;
    none.device = "no-such-device-anywhere";
    EXPECT_THROW(Engine(c, none), Error);
}

/* GPU defaults by device: step 1 through the second rejection test; lists
 * for every window only where memory is plentiful; two step-2 launches
 * for WaldBoost sequences. No device needed. */
TEST(Engine, GpuDefaultsFollowTheClassifierAndTheDeviceMemory)
{
    waldboost::opencl::DeviceInfo gpu;
    gpu.type = "GPU";
    gpu.max_work_group_size = 1024;
    gpu.global_memory = uint64_t{80} << 30;
    const Classifier& c = default_classifier();
    const ReductionParams large = waldboost::opencl::default_reduction(gpu, c);
    EXPECT_EQ(large.step1_divisor, 1);
    /* lbpcascade_frontalface: 3 weak classifiers in stage 0, 4 in stage 1. */
    EXPECT_EQ(large.step1_unsync, 7);
    gpu.global_memory = uint64_t{2} << 30;
    const ReductionParams small = waldboost::opencl::default_reduction(gpu, c);
    EXPECT_EQ(small.step1_divisor, 8);
    EXPECT_EQ(small.step1_unsync, 7);
    EXPECT_EQ(small.step2_repeats, 3);
    /* A WaldBoost sequence (no sum reset): step 1 through its fourth weak
     * classifier at least, two step-2 launches, also when most of its weak
     * classifiers have no test (a trained one's after its miss budget is
     * spent). */
    std::mt19937 rng(34);
    Classifier sequence = random_classifier(rng, 24, 24, 40, false);
    for (size_t t = 10; t + 1 < sequence.weak.size(); ++t)
        sequence.weak[t].reject_threshold = waldboost::kNoRejection;
    const ReductionParams trained = waldboost::opencl::default_reduction(gpu, sequence);
    EXPECT_EQ(trained.step1_unsync, 4);
    EXPECT_EQ(trained.step2_repeats, 2);
    EXPECT_EQ(trained.step2_rounds, 4);
    EXPECT_EQ(large.step2_rounds, ReductionParams{}.step2_rounds) << "stage cascades keep step 2 unbounded";
    gpu.type = "CPU";
    EXPECT_TRUE(waldboost::opencl::default_reduction(gpu, c) == waldboost::opencl::default_reduction(gpu));
    EXPECT_TRUE(waldboost::opencl::default_reduction(gpu, sequence) == waldboost::opencl::default_reduction(gpu));
}

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
    const auto result = waldboost::opencl::tune_reduction(c, test_device(), {img.view()}, params, 1,
                                                          [&](const auto&) { ++trials; }, 8);
    EXPECT_EQ(trials, 8);
    ASSERT_EQ(result.trials.size(), static_cast<size_t>(trials));
    /* The result is the defaults or one of the trials, and no slower than
     * the defaults (the search and its confirmation only keep a trial more
     * than 1% faster). */
    const ReductionParams defaults = waldboost::opencl::default_reduction(
        waldboost::opencl::select_device(test_device()).info, c);
    bool among_trials = result.best == defaults;
    for (const auto& t : result.trials)
        among_trials = among_trials || t.params == result.best;
    EXPECT_TRUE(among_trials);
    EXPECT_LE(result.best_ms, result.default_ms);
}
