/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/reference/detector.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <string>
#include <tuple>

namespace waldboost {

std::array<int64_t, 9> grid_block_sums(const IntegralImage& integral, int wx, int wy, int x, int y, int block_width,
                                       int block_height)
{
    std::array<int64_t, 9> sums{};
    for (int row = 0; row < 3; ++row)
        for (int col = 0; col < 3; ++col)
            /* Differences of wrapped sums are exact; the block sum fits easily. */
            sums[static_cast<size_t>(3 * row + col)] = static_cast<int64_t>(
                integral.block_sum(wx + x + col * block_width, wy + y + row * block_height, block_width, block_height));
    return sums;
}

std::array<int, 9> block_ranks(const std::array<int64_t, 9>& sums)
{
    std::array<int, 9> ranks{};
    for (size_t k = 0; k < sums.size(); ++k)
        for (size_t j = 0; j < sums.size(); ++j)
            ranks[k] += sums[j] < sums[k] ? 1 : 0; /* never true for j == k */
    return ranks;
}

int lbp_code(const IntegralImage& integral, int wx, int wy, const LbpFeature& f)
{
    const std::array<int64_t, 9> sums = grid_block_sums(integral, wx, wy, f.x, f.y, f.block_width, f.block_height);
    const int64_t centre = sums[4];
    /* Clockwise from the top-left block, most significant bit first. */
    static constexpr size_t kBlocks[8] = {0, 1, 2, 5, 8, 7, 6, 3};
    int code = 0;
    for (size_t i = 0; i < 8; ++i)
        code = (code << 1) | (sums[kBlocks[i]] >= centre ? 1 : 0);
    return code;
}

int rank_index(const IntegralImage& integral, int wx, int wy, const RankFeature& f)
{
    const std::array<int, 9> ranks =
        block_ranks(grid_block_sums(integral, wx, wy, f.x, f.y, f.block_width, f.block_height));
    return RankFeature::index(f.kind, ranks[static_cast<size_t>(f.block_a)], ranks[static_cast<size_t>(f.block_b)]);
}

LevelIntegrals level_integrals(const Classifier& classifier, const GrayView& scaled)
{
    LevelIntegrals integrals;
    integrals.sum = integral_image(scaled);
    if (classifier.is_haar()) {
        integrals.squares = squared_integral_image(scaled);
        if (classifier.has_tilted_features())
            integrals.tilted = tilted_integral_image(scaled);
    }
    return integrals;
}

float haar_norm_factor(const LevelIntegrals& integrals, int window_width, int window_height, int wx, int wy)
{
    const int w = window_width - 2, h = window_height - 2;
    /* Differences of wrapped sums, read back as OpenCV's int and unsigned. */
    const int32_t sum = static_cast<int32_t>(integrals.sum.block_sum(wx + 1, wy + 1, w, h));
    const uint32_t squares = integrals.squares.block_sum(wx + 1, wy + 1, w, h);
    const double area = static_cast<double>(w) * h;
    double nf = area * squares - static_cast<double>(sum) * sum;
    if (!(nf > 0.0))
        return 0.0f;
    nf = std::sqrt(nf);
    const float factor = static_cast<float>(1.0 / nf);
    return area * factor < 1e-1 ? factor : 0.0f;
}

float haar_feature_sum(const HaarFeature& feature, const LevelIntegrals& integrals, int wx, int wy)
{
    const auto rect_sum = [&](size_t i) -> int32_t {
        if (i >= feature.rects.size())
            return 0;
        const HaarRect& r = feature.rects[i];
        const int x = wx + r.x, y = wy + r.y;
        if (!feature.tilted)
            return static_cast<int32_t>(integrals.sum.block_sum(x, y, r.width, r.height));
        /* The corners (x, y), (x - h, y + h), (x + w, y + w) and
         * (x + w - h, y + w + h) of the 45-degree rectangle. */
        const IntegralImage& t = integrals.tilted;
        return static_cast<int32_t>(t.at(x, y) - t.at(x - r.height, y + r.height) - t.at(x + r.width, y + r.width) +
                                    t.at(x + r.width - r.height, y + r.width + r.height));
    };
    const auto weight = [&](size_t i) {
        return i < feature.rects.size() ? feature.rects[i].weight : 0.0f;
    };
    /* OpenCV: w0 * s0 + w1 * s1, then + w2 * s2 when w2 is not 0, each
     * sum converted to float. */
    float value = weight(0) * static_cast<float>(rect_sum(0)) + weight(1) * static_cast<float>(rect_sum(1));
    if (weight(2) != 0.0f)
        value += weight(2) * static_cast<float>(rect_sum(2));
    return value;
}

namespace {

/* The leaf a Haar tree reaches for the window. */
float tree_response(const HaarTree& tree, const LevelIntegrals& integrals, int wx, int wy, float norm_factor)
{
    const HaarNode* node = &tree.nodes[0];
    for (;;) {
        const float value = haar_feature_sum(node->feature, integrals, wx, wy) * norm_factor;
        const HaarNode::Child& next = value < node->threshold ? node->left : node->right;
        if (next.leaf)
            return tree.leaves[static_cast<size_t>(next.index)];
        node = &tree.nodes[static_cast<size_t>(next.index)];
    }
}

}  // namespace

WindowResult evaluate_window(const Classifier& classifier, const LevelIntegrals& integrals, int wx, int wy,
                             float final_threshold, const FeatureResponse* feature_response)
{
    WindowResult result;
    float norm_factor = 0.0f;
    if (classifier.is_haar()) {
        norm_factor = haar_norm_factor(integrals, classifier.window_width, classifier.window_height, wx, wy);
        if (norm_factor == 0.0f) {
            result.flat = true;
            return result;
        }
    }
    struct Response {
        const LevelIntegrals& integrals;
        int wx, wy;
        float norm_factor;
        float operator()(const LbpFeature& f) const { return f.responses[lbp_code(integrals.sum, wx, wy, f)]; }
        float operator()(const HaarTree& tree) const { return tree_response(tree, integrals, wx, wy, norm_factor); }
        float operator()(const RankFeature& f) const
        {
            return f.responses[static_cast<size_t>(rank_index(integrals.sum, wx, wy, f))];
        }
    };
    /* double, as OpenCV sums the float responses. */
    double sum = 0.0;
    double last_sum = 0.0;
    bool first_test = true;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        const WeakClassifier& weak = classifier.weak[t];
        sum += feature_response ? (*feature_response)(weak, integrals, wx, wy, norm_factor)
                                : std::visit(Response{integrals, wx, wy, norm_factor}, weak.feature);
        ++result.weak_evaluated;
        last_sum = sum;
        if (weak.reject_threshold != kNoRejection) {
            if (sum < weak.reject_threshold) {
                result.rejected_at = t;
                result.rejected_in_first_stage = first_test;
                result.score = sum;
                return result;
            }
            first_test = false;
        }
        if (weak.reset_sum_after)
            sum = 0.0;
    }
    result.rejected_at = classifier.weak.size();
    result.score = last_sum;
    result.accepted = last_sum >= final_threshold;
    return result;
}

WindowResult evaluate_window(const Classifier& classifier, const IntegralImage& integral, int wx, int wy,
                             float final_threshold)
{
    if (classifier.is_haar())
        throw std::logic_error("evaluate_window: a Haar classifier needs level_integrals()");
    LevelIntegrals integrals;
    integrals.sum = integral;
    return evaluate_window(classifier, integrals, wx, wy, final_threshold);
}

std::vector<RawWindow> detect_level(const Classifier& classifier, const GrayView& scaled, const ScaleLevel& level,
                                    int level_index, const DetectParams& params, DetectStats* stats,
                                    const FeatureResponse* feature_response)
{
    std::vector<RawWindow> windows;
    const int positions_x = scaled.width - classifier.window_width + 1;
    const int positions_y = std::min(scaled.height - classifier.window_height + 1, level.scan_height);
    if (positions_x <= 0 || positions_y <= 0)
        return windows;

    const LevelIntegrals integrals = level_integrals(classifier, scaled);
    const float final_threshold = params.final_threshold.value_or(classifier.final_threshold);
    for (int y = 0; y < positions_y; y += level.step) {
        for (int x = 0; x < positions_x; x += level.step) {
            const WindowResult r = evaluate_window(classifier, integrals, x, y, final_threshold, feature_response);
            if (stats) {
                ++stats->windows;
                stats->weak_evaluated += static_cast<uint64_t>(r.weak_evaluated);
            }
            if (r.accepted) {
                RawWindow w;
                w.rect = {cv_round(x * level.scale), cv_round(y * level.scale), level.window_size.width,
                          level.window_size.height};
                w.level = level_index;
                w.x = x;
                w.y = y;
                w.score = static_cast<float>(r.score - final_threshold);
                windows.push_back(w);
                if (stats)
                    ++stats->accepted;
            }
            if (level.skip_after_first_stage_rejection && r.rejected_in_first_stage)
                x += level.step;
        }
    }
    return windows;
}

std::vector<RawWindow> detect_unclipped(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                        DetectStats* stats, const FeatureResponse* feature_response)
{
    std::vector<RawWindow> all;
    const std::vector<ScaleLevel> levels = plan_scales({image.width, image.height}, classifier, params);
    for (size_t i = 0; i < levels.size(); ++i) {
        const GrayImage scaled = resize_bilinear(image, levels[i].image_size);
        std::vector<RawWindow> found =
            detect_level(classifier, scaled.view(), levels[i], static_cast<int>(i), params, stats, feature_response);
        all.insert(all.end(), found.begin(), found.end());
    }
    const uint64_t cut = cap_windows(all, params.max_windows);
    if (stats)
        stats->cut += cut;
    return all;
}

std::vector<RawWindow> detect_raw(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                  DetectStats* stats, const FeatureResponse* feature_response)
{
    std::vector<RawWindow> windows = detect_unclipped(classifier, image, params, stats, feature_response);
    clip_windows(windows, {image.width, image.height});
    return windows;
}

std::vector<Detection> detect(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                              DetectStats* stats)
{
    return detections_of(detect_unclipped(classifier, image, params, stats), params, {image.width, image.height});
}

}  // namespace waldboost
