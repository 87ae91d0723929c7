/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Bit-for-bit comparison of two weak classifiers' features (LBP, Haar
 * trees, LRD or LRP), shared by the fuzzers' round-trip property and the unit tests.
 */
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <variant>

#include "core/model/model.h"

namespace waldboost_compare {

inline uint32_t float_bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

/* What differs between the features of `x` and `y` (floats bit for bit:
 * -0 and 0 differ), or an empty string when nothing does. */
inline std::string feature_difference(const waldboost::WeakClassifier& x, const waldboost::WeakClassifier& y)
{
    using namespace waldboost;
    if (x.feature.index() != y.feature.index())
        return std::string("feature type (") + feature_type_name(x.feature) + " vs " + feature_type_name(y.feature) +
               ")";
    if (const LbpFeature* a = std::get_if<LbpFeature>(&x.feature)) {
        const LbpFeature& b = std::get<LbpFeature>(y.feature);
        const bool same =
            a->x == b.x && a->y == b.y && a->block_width == b.block_width && a->block_height == b.block_height;
        if (!same)
            return "feature";
        for (size_t c = 0; c < a->responses.size(); ++c)
            if (float_bits(a->responses[c]) != float_bits(b.responses[c]))
                return "response " + std::to_string(c);
        return {};
    }
    if (const RankFeature* a = std::get_if<RankFeature>(&x.feature)) {
        const RankFeature& b = std::get<RankFeature>(y.feature);
        const bool same = a->kind == b.kind && a->x == b.x && a->y == b.y && a->block_width == b.block_width &&
                          a->block_height == b.block_height && a->block_a == b.block_a && a->block_b == b.block_b;
        if (!same)
            return "feature";
        if (a->responses.size() != b.responses.size())
            return "table size";
        for (size_t c = 0; c < a->responses.size(); ++c)
            if (float_bits(a->responses[c]) != float_bits(b.responses[c]))
                return "response " + std::to_string(c);
        return {};
    }
    const HaarTree& a = std::get<HaarTree>(x.feature);
    const HaarTree& b = std::get<HaarTree>(y.feature);
    if (a.nodes.size() != b.nodes.size() || a.leaves.size() != b.leaves.size())
        return "tree size";
    for (size_t i = 0; i < a.leaves.size(); ++i)
        if (float_bits(a.leaves[i]) != float_bits(b.leaves[i]))
            return "leaf " + std::to_string(i);
    for (size_t n = 0; n < a.nodes.size(); ++n) {
        const HaarNode& p = a.nodes[n];
        const HaarNode& q = b.nodes[n];
        const std::string where = "node " + std::to_string(n) + ": ";
        if (float_bits(p.threshold) != float_bits(q.threshold))
            return where + "threshold";
        if (!(p.left == q.left) || !(p.right == q.right))
            return where + "children";
        if (p.feature.tilted != q.feature.tilted || p.feature.rects.size() != q.feature.rects.size())
            return where + "feature";
        for (size_t r = 0; r < p.feature.rects.size(); ++r) {
            const HaarRect& s = p.feature.rects[r];
            const HaarRect& t = q.feature.rects[r];
            if (s.x != t.x || s.y != t.y || s.width != t.width || s.height != t.height ||
                float_bits(s.weight) != float_bits(t.weight))
                return where + "rectangle " + std::to_string(r);
        }
    }
    return {};
}

}  // namespace waldboost_compare
