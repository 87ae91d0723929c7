/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Multi-block LBP features on the device (kernels/lbp.cl).
 */
#include "core/opencl/features/feature_kinds.h"

#include <algorithm>
#include <cstring>

#include "core/opencl/features/classifier_pack.h"
#include "shared.h"

namespace waldboost::opencl {

extern const std::string_view kLbpKernels;

namespace {

/* Appends the stump records when every table holds at most two values. */
bool append_stump_records(PackedClassifier& p)
{
    const size_t n = p.weak_count;
    std::vector<cl_long> records(n * STUMP_LONGS);
    for (size_t t = 0; t < n; ++t) {
        const cl_long* table = &p.responses[t * LbpFeature::kTableSize];
        const cl_long first = table[0];
        cl_long second = first;
        uint32_t bits[8] = {};
        for (size_t code = 0; code < LbpFeature::kTableSize; ++code) {
            if (table[code] == first)
                continue;
            if (second == first)
                second = table[code];
            if (table[code] != second)
                return false;
            bits[code >> 5] |= uint32_t{1} << (code & 31);
        }
        std::memcpy(&records[t * STUMP_LONGS], bits, sizeof bits);
        records[t * STUMP_LONGS + 4] = first;
        records[t * STUMP_LONGS + 5] = second;
    }
    p.responses.insert(p.responses.end(), records.begin(), records.end());
    return true;
}

/* Appends, for a sequence whose first weak classifier has a rejection test
 * (the sum there is that weak classifier's response alone), the 256 bits of
 * the codes the test rejects, as the row scan reads them (kernels/lbp.cl,
 * FIRST_TEST_CODES). Stump tables are read without gathers already. */
bool append_first_test_codes(PackedClassifier& p)
{
    if (p.stumps || p.first_test != 0 || p.weak_count == 0)
        return false;
    uint32_t bits[8] = {};
    for (size_t code = 0; code < LbpFeature::kTableSize; ++code)
        if (p.responses[code] < p.thresholds[0])
            bits[code >> 5] |= uint32_t{1} << (code & 31);
    std::vector<cl_long> record(kFirstTestCodeLongs);
    static_assert(sizeof bits == kFirstTestCodeLongs * sizeof(cl_long));
    std::memcpy(record.data(), bits, sizeof bits);
    p.responses.insert(p.responses.end(), record.begin(), record.end());
    return true;
}

class LbpKind final : public FeatureKind {
public:
    const char* name() const override { return feature_type_name(FeatureType::Lbp); }
    const char* kernel_file() const override { return "lbp.cl"; }
    std::string_view kernel_source() const override { return kLbpKernels; }
    size_t table_size() const override { return feature_type_info(FeatureType::Lbp).table_size; }
    ResponseValues responses(const WeakClassifier& weak) const override { return response_values(weak.feature); }

    void pack(const Classifier& classifier, PackedClassifier& p) const override
    {
        p.responses.resize(p.weak_count * LbpFeature::kTableSize);
        for (size_t t = 0; t < p.weak_count; ++t) {
            const LbpFeature& f = std::get<LbpFeature>(classifier.weak[t].feature);
            p.features[t] = {{f.x, f.y, f.block_width, f.block_height}};
            p.largest_block = std::max(p.largest_block, int64_t{f.block_width} * f.block_height);
            for (size_t code = 0; code < LbpFeature::kTableSize; ++code) /* exact: a whole number of units */
                p.responses[t * LbpFeature::kTableSize + code] = p.fixed_ceil(f.responses[code]);
        }
        p.stumps = append_stump_records(p);
        p.first_test_codes = append_first_test_codes(p);
    }

    std::string build_defines(const PackedClassifier& p) const override
    {
        return std::string(p.stumps ? " -D STUMPS" : "") + (p.first_test_codes ? " -D FIRST_TEST_CODES" : "");
    }
    IntegralNeeds integrals(const PackedClassifier&) const override { return {}; }
    /* A block of at most 257 pixels sums to at most 257 x 255 < 2^16:
     * OpenCV's 24x24 and 45x45 face cascades qualify. */
    bool narrow_sums_serve(const PackedClassifier& p) const override { return p.largest_block * 255 <= 0xFFFF; }
};

}  // namespace

const FeatureKind& lbp_feature_kind()
{
    static const LbpKind kind;
    return kind;
}

}  // namespace waldboost::opencl
