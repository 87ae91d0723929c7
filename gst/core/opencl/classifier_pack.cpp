/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/classifier_pack.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "core/opencl/device.h"
#include "shared.h"

namespace waldboost::opencl {

double PackedClassifier::fixed_scale() const { return std::ldexp(1.0, kFixedShift + scale_shift); }

int64_t PackedClassifier::fixed_ceil(double value) const
{
    return static_cast<int64_t>(std::ceil(std::ldexp(value, kFixedShift + scale_shift)));
}

double PackedClassifier::from_fixed(int64_t fixed) const
{
    return std::ldexp(static_cast<double>(fixed), -(kFixedShift + scale_shift));
}

namespace {

/* Appends the stump records when every table holds at most two values. */
bool append_stump_records(PackedClassifier& p)
{
    const size_t n = p.weak_count;
    std::vector<cl_long> records(n * STUMP_LONGS);
    for (size_t t = 0; t < n; ++t) {
        const cl_long* table = &p.responses[t * 256];
        const cl_long first = table[0];
        cl_long second = first;
        uint32_t bits[8] = {};
        for (int code = 0; code < 256; ++code) {
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

}  // namespace

PackedClassifier pack_classifier(const Classifier& classifier)
{
    PackedClassifier p;
    const size_t n = classifier.weak.size();
    p.weak_count = n;
    p.features.resize(n);
    p.responses.resize(n * 256);
    p.thresholds.resize(n);
    p.resets.resize(n);
    p.first_test = static_cast<int>(n);
    double worst_sum = 0;
    for (size_t t = 0; t < n; ++t) {
        const WeakClassifier& w = classifier.weak[t];
        /* The kernels read LBP features (kernels/lbp.cl). */
        std::visit(
            [&](const LbpFeature& f) {
                p.features[t] = {{f.x, f.y, f.block_width, f.block_height}};
                p.largest_block = std::max(p.largest_block, int64_t{f.block_width} * f.block_height);
            },
            w.feature);
        float largest = 0;
        for (int code = 0; code < 256; ++code) {
            largest = std::max(largest, std::fabs(w.responses[code]));
            p.responses[t * 256 + code] = std::llround(std::ldexp(static_cast<double>(w.responses[code]), kFixedShift + p.scale_shift));
        }
        worst_sum += largest;
        if (w.reject_threshold == kNoRejection) {
            p.thresholds[t] = std::numeric_limits<cl_long>::min();
        } else {
            if (std::fabs(w.reject_threshold) >= kFixedLimit)
                throw Error(ErrorKind::UnsupportedClassifier,
                            "classifier threshold " + std::to_string(w.reject_threshold) +
                                " is beyond the OpenCL engine's range (|threshold| < 2^22)");
            p.thresholds[t] = p.fixed_ceil(w.reject_threshold);
            if (p.first_test == static_cast<int>(n))
                p.first_test = static_cast<int>(t);
        }
        p.resets[t] = w.reset_sum_after ? 1 : 0;
    }
    if (worst_sum >= kFixedLimit)
        throw Error(ErrorKind::UnsupportedClassifier,
                    "classifier responses are too large for the OpenCL engine (the sum of the largest responses "
                    "must stay below 2^22)");
    p.stumps = append_stump_records(p);
    return p;
}

DeviceClassifier upload_classifier(const cl::Context& context, const PackedClassifier& p)
{
    maybe_inject_fault("buffer-create");
    return DeviceClassifier{read_only_buffer(context, p.features), read_only_buffer(context, p.responses),
                            read_only_buffer(context, p.thresholds), read_only_buffer(context, p.resets)};
}

}  // namespace waldboost::opencl
