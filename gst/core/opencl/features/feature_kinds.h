/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The feature kinds of the model's feature types (feature_kind.h), one per
 * FeatureType (core/model/feature_types.h), which also gives each kind its
 * name and table size. Only here are they all known: feature_kind(),
 * declared with the seam so that the engine picks a classifier's kind
 * without naming any, is defined in feature_kinds.cpp.
 */
#pragma once

#include "core/model/feature_types.h"
#include "core/opencl/features/feature_kind.h"

namespace waldboost::opencl {

const FeatureKind& lbp_feature_kind();                  /* lbp_kind.cpp, kernels/lbp.cl */
const FeatureKind& haar_feature_kind();                 /* haar_kind.cpp, kernels/haar.cl */
const FeatureKind& rank_feature_kind(FeatureType type); /* LRD, LRP: rank_kind.cpp, kernels/rank.cl */

}  // namespace waldboost::opencl
