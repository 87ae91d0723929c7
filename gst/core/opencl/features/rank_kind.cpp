/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rank features LRD and LRP on the device (kernels/rank.cl).
 */
#include "core/opencl/features/feature_kinds.h"

#include <algorithm>
#include <stdexcept>

#include "core/opencl/features/classifier_pack.h"
#include "shared.h"

namespace waldboost::opencl {

extern const std::string_view kRankKernels;

namespace {

class RankKind final : public FeatureKind {
public:
    explicit RankKind(FeatureType type) : type_(type) {}
    const char* name() const override { return feature_type_name(type_); }
    const char* kernel_file() const override { return "rank.cl"; }
    std::string_view kernel_source() const override { return kRankKernels; }
    size_t table_size() const override { return feature_type_info(type_).table_size; }
    ResponseValues responses(const WeakClassifier& weak) const override { return response_values(weak.feature); }

    void pack(const Classifier& classifier, PackedClassifier& p) const override
    {
        const size_t size = table_size();
        p.responses.resize(p.weak_count * size);
        for (size_t t = 0; t < p.weak_count; ++t) {
            const RankFeature& f = std::get<RankFeature>(classifier.weak[t].feature);
            /* The two block indices ride in the upper halves: block sizes
             * are at most 1024 / 3 and indices at most 8. */
            p.features[t] = {{f.x, f.y, f.block_width | f.block_a << 16, f.block_height | f.block_b << 16}};
            p.largest_block = std::max(p.largest_block, int64_t{f.block_width} * f.block_height);
            for (size_t i = 0; i < size; ++i) /* exact: a whole number of units */
                p.responses[t * size + i] = p.fixed_ceil(f.responses[i]);
        }
    }

    std::string build_defines(const PackedClassifier&) const override
    {
        return " -D RANK_TABLE=" + std::to_string(table_size()) + (type_ == FeatureType::Lrp ? " -D RANK_PAIRS" : "");
    }
    IntegralNeeds integrals(const PackedClassifier&) const override { return {}; }
    /* As for LBP: only block sums are compared. */
    bool narrow_sums_serve(const PackedClassifier& p) const override { return p.largest_block * 255 <= 0xFFFF; }

private:
    FeatureType type_;
};

}  // namespace

const FeatureKind& rank_feature_kind(FeatureType type)
{
    static const RankKind difference(FeatureType::Lrd);
    static const RankKind pair(FeatureType::Lrp);
    if (type != FeatureType::Lrd && type != FeatureType::Lrp)
        throw std::logic_error("rank_feature_kind: not a rank feature type");
    return type == FeatureType::Lrd ? difference : pair;
}

}  // namespace waldboost::opencl
