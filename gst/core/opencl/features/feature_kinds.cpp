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
    /* By the one list of feature types (core/model/feature_types.h): a
     * type without a case here is a -Wswitch warning, an error in CI. */
    switch (feature_type(classifier.weak.front().feature)) {
    case FeatureType::Lbp: return lbp_feature_kind();
    case FeatureType::Lrd:
    case FeatureType::Lrp: return rank_feature_kind(feature_type(classifier.weak.front().feature));
    case FeatureType::Haar: return haar_feature_kind();
    }
    throw std::logic_error("feature_kind: a feature type without a kind");
}

}  // namespace waldboost::opencl
