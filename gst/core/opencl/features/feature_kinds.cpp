/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/features/feature_kinds.h"

#include <stdexcept>

namespace waldboost::opencl {

const FeatureKind& feature_kind(const Classifier& classifier)
{
    if (classifier.weak.empty())
        throw std::logic_error("feature_kind: a classifier without weak classifiers");
    /* A feature type without a kind does not compile. */
    struct Kind {
        const FeatureKind& operator()(const LbpFeature&) const { return lbp_feature_kind(); }
        const FeatureKind& operator()(const HaarTree&) const { return haar_feature_kind(); }
        const FeatureKind& operator()(const RankFeature& f) const { return rank_feature_kind(f.kind); }
    };
    return std::visit(Kind{}, classifier.weak.front().feature);
}

}  // namespace waldboost::opencl
