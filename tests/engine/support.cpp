/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the engine tests (support.h says what each does),
 * compiled once for every program of tests/engine.
 */
#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>

using namespace waldboost;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;
using waldboost::opencl::ScanMethod;

namespace waldboost_test {

float grid_value(std::mt19937& rng, float lo, float hi)
{
    std::uniform_real_distribution<float> u(lo, hi);
    return std::round(u(rng) * 4096.0f) / 4096.0f;
}

Classifier random_classifier(std::mt19937& rng, int width, int height, int weak_count, bool stages, bool stumps)
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
                r.height = std::uniform_int_distribution<int>(
                    1, std::max(1, std::min(width - r.width, height - r.width) / 2))(rng);
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
            others += node.feature.rects[i].weight *
                      static_cast<float>(node.feature.rects[i].width * node.feature.rects[i].height);
        last.weight = -others / static_cast<float>(last.width * last.height);
        if (!std::isfinite(last.weight) || last.weight == 0.0f)
            last.weight = 1.0f;
        node.threshold = threshold(rng);
        if (n > 0) {
            const size_t pick = rng() % free_slots.size();
            const Slot slot = free_slots[pick];
            free_slots.erase(free_slots.begin() + static_cast<ptrdiff_t>(pick));
            (slot.left ? tree.nodes[static_cast<size_t>(slot.node)].left
                       : tree.nodes[static_cast<size_t>(slot.node)].right) = {false, n};
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

Classifier random_haar_classifier(std::mt19937& rng, int width, int height, int weak_count, int max_nodes,
                                  int tilted_every, int longest_stage)
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

EngineConfig config_with(const ReductionParams& p)
{
    EngineConfig config;
    config.device = test_device();
    config.reduction = p;
    config.scan = ScanMethod::Reduction;
    return config;
}

EngineConfig rows_config(int max_in_flight)
{
    EngineConfig config;
    config.device = test_device();
    config.scan = ScanMethod::Rows;
    config.max_in_flight = max_in_flight;
    return config;
}

}  // namespace waldboost_test
