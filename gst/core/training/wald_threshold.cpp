/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/wald_threshold.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "core/model/model.h"

namespace waldboost::training {

namespace {

/* `value` as a float not above it, so that no sample at `value` falls
 * below the threshold. */
float round_down_to_float(double value)
{
    float theta = static_cast<float>(value);
    if (static_cast<double>(theta) > value)
        theta = std::nextafter(theta, -std::numeric_limits<float>::infinity());
    return theta;
}

}  // namespace

float estimate_threshold(const std::vector<double>& positive_sums, const std::vector<double>& negative_sums,
                         double alpha, size_t positives_allowed)
{
    const size_t n_pos = positive_sums.size(), n_neg = negative_sums.size();
    if (n_neg == 0 || alpha <= 0)
        return kNoRejection;
    std::vector<std::pair<double, bool>> all; /* (sum, positive) */
    all.reserve(n_pos + n_neg);
    for (double h : positive_sums)
        all.emplace_back(h, true);
    for (double h : negative_sums)
        all.emplace_back(h, false);
    std::sort(all.begin(), all.end());
    const double a = 1.0 / alpha;
    double best = -std::numeric_limits<double>::infinity();
    size_t below_pos = 0, below_neg = 0;
    for (size_t i = 0; i < all.size();) {
        const double v = all[i].first;
        /* The region {H < v}. */
        const double neg_share = static_cast<double>(below_neg) / static_cast<double>(n_neg);
        const double pos_share = static_cast<double>(below_pos + 1) / static_cast<double>(n_pos + 1);
        if (below_neg > 0 && below_pos <= positives_allowed && neg_share >= a * pos_share)
            best = v;
        for (; i < all.size() && all[i].first == v; ++i)
            ++(all[i].second ? below_pos : below_neg);
    }
    if (!std::isfinite(best))
        return kNoRejection;
    /* Rounded down to a float, so that no sample at `best` is rejected. */
    return round_down_to_float(best);
}

bool calibrates(size_t index, double share)
{
    return std::floor(static_cast<double>(index + 1) * share) > std::floor(static_cast<double>(index) * share);
}

size_t positives_allowed(double share, double alpha, size_t initial, size_t left)
{
    const size_t budget = static_cast<size_t>(share * alpha * static_cast<double>(initial));
    const size_t lost = initial - left;
    return budget > lost ? budget - lost : 0;
}

float final_threshold(std::vector<double> positive_sums, size_t initial, double alpha, float last_rejection)
{
    std::sort(positive_sums.begin(), positive_sums.end());
    const size_t budget = static_cast<size_t>(alpha * static_cast<double>(initial));
    const size_t lost = initial - positive_sums.size();
    float threshold = last_rejection;
    if (!positive_sums.empty()) {
        const double at = positive_sums[std::min(budget > lost ? budget - lost : 0, positive_sums.size() - 1)];
        threshold = std::max(threshold, round_down_to_float(at));
    }
    return threshold != kNoRejection ? threshold : -std::numeric_limits<float>::max();
}

}  // namespace waldboost::training
