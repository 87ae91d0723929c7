/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/boosting.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "core/error.h"

namespace waldboost::training {

namespace {

std::string describe(const Grid& g)
{
    return std::to_string(g.x) + "," + std::to_string(g.y) + " " + std::to_string(g.block_width) + "x" +
           std::to_string(g.block_height);
}

}  // namespace

std::vector<Grid> candidate_grids(const TrainerConfig& config)
{
    const Size w = config.window;
    std::vector<Grid> grids;
    std::vector<Size> sizes = config.block_sizes;
    if (sizes.empty() && config.feature_type == FeatureType::Lbp)
        for (int bw = 1; 3 * bw <= w.width; ++bw)
            for (int bh = 1; 3 * bh <= w.height; ++bh)
                sizes.push_back(Size{bw, bh});
    if (sizes.empty())
        sizes = {Size{1, 1}, Size{2, 2}, Size{2, 4}, Size{4, 2}};
    for (const Size& s : sizes) {
        if (s.width < 1 || s.height < 1)
            throw Error(ErrorKind::BadParameter,
                        "training: a block size of " + std::to_string(s.width) + "x" + std::to_string(s.height));
        for (int y = 0; y + 3 * s.height <= w.height; y += config.position_step)
            for (int x = 0; x + 3 * s.width <= w.width; x += config.position_step)
                grids.push_back(Grid{x, y, s.width, s.height});
    }
    if (grids.empty())
        throw Error(ErrorKind::BadParameter, "training: no 3x3 grid of the block sizes given fits a window of " +
                                                 std::to_string(w.width) + "x" + std::to_string(w.height));
    return grids;
}

std::vector<double> boosting_weights(const WorkingSet& set, size_t fitted, size_t negatives)
{
    /* Shifted by the largest exponent against overflow. */
    std::vector<double> weights(set.count(), 0.0);
    double top = -std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < set.count(); ++i)
        if (!set.calibrates(i))
            top = std::max(top, set.positive(i) ? -set.sum(i) : set.sum(i));
    double total = 0.0;
    for (size_t i = 0; i < set.count(); ++i) {
        if (set.calibrates(i))
            continue;
        const double e = (set.positive(i) ? -set.sum(i) : set.sum(i)) - top;
        weights[i] = std::exp(e) / static_cast<double>(set.positive(i) ? fitted : negatives);
        total += weights[i];
    }
    for (double& w : weights)
        w /= total;
    return weights;
}

Choice select_candidate(WorkingSet& set, const std::vector<double>& weights)
{
    /* The weights as fixed-point integers (histograms.h): the same sums,
     * and so the same choice, on every backend. */
    return set.backend().best(quantise_weights(weights));
}

Feature fit_feature(WorkingSet& set, const CandidateSet& candidates, size_t candidate,
                    const std::vector<double>& weights, std::vector<float>* responses)
{
    const FeatureLayout layout = candidates.layout();
    set.fetch_bins(candidate);
    std::vector<double> pos(layout.bins, 0.0), neg(layout.bins, 0.0);
    for (size_t i = 0; i < set.count(); ++i)
        (set.positive(i) ? pos : neg)[set.bin(i, candidate)] += weights[i];
    /* Smoothing of about a hundredth of a sample's mean weight: an empty
     * bin gets a response of 0, a bin of one class a bounded one. */
    const double eps = 1.0 / static_cast<double>(std::max<size_t>(set.count(), 1));
    responses->resize(layout.bins);
    for (size_t b = 0; b < layout.bins; ++b)
        (*responses)[b] = real_adaboost_response(pos[b], neg[b], eps);
    const Grid& g = candidates.grids[candidate / layout.per_grid];
    Feature feature = make_feature(layout.type);
    if (auto* lbp = std::get_if<LbpFeature>(&feature)) {
        lbp->x = g.x;
        lbp->y = g.y;
        lbp->block_width = g.block_width;
        lbp->block_height = g.block_height;
        std::copy(responses->begin(), responses->end(), lbp->responses.begin());
        return feature;
    }
    /* FeatureLayout takes no other type than LBP and the rank features. */
    RankFeature& rank = std::get<RankFeature>(feature);
    rank.x = g.x;
    rank.y = g.y;
    rank.block_width = g.block_width;
    rank.block_height = g.block_height;
    const BlockPair& p = block_pairs()[candidate % layout.per_grid];
    rank.block_a = p.a;
    rank.block_b = p.b;
    rank.responses = *responses;
    return feature;
}

std::string describe_candidate(const CandidateSet& candidates, size_t candidate)
{
    const FeatureLayout layout = candidates.layout();
    std::string text =
        std::string(feature_type_name(layout.type)) + " " + describe(candidates.grids[candidate / layout.per_grid]);
    if (layout.type != FeatureType::Lbp) {
        const BlockPair& p = block_pairs()[candidate % layout.per_grid];
        text += " blocks " + std::to_string(p.a) + "-" + std::to_string(p.b);
    }
    return text;
}

}  // namespace waldboost::training
