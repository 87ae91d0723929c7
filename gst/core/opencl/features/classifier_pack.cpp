/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/features/classifier_pack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>

#include "core/opencl/device/device.h"
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

int64_t PackedClassifier::fixed_final_threshold(float value) const
{
    const double scaled = std::ldexp(static_cast<double>(value), scale_shift);
    if (scaled <= -kFixedLimit)
        return fixed_ceil(std::ldexp(-kFixedLimit, -scale_shift));
    if (scaled >= kFixedLimit)
        return fixed_ceil(std::ldexp(kFixedLimit, -scale_shift));
    return fixed_ceil(value);
}

namespace {

/* The exponent of the lowest set bit of a nonzero finite value. */
int lowest_bit(double value)
{
    int exponent = 0;
    const double mantissa = std::frexp(std::fabs(value), &exponent); /* in [0.5, 1) */
    uint64_t bits = static_cast<uint64_t>(std::ldexp(mantissa, 53));
    exponent -= 53;
    for (; (bits & 1) == 0; bits >>= 1)
        ++exponent;
    return exponent;
}

/* std::to_string writes 1e-30 as 0.000000. */
std::string format_float(float value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.9g", value);
    return text;
}

}  // namespace

PackedClassifier pack_classifier(const Classifier& classifier, const FeatureKind* kind)
{
    PackedClassifier p;
    p.kind = kind ? kind : &feature_kind(classifier);
    const size_t n = classifier.weak.size();
    p.weak_count = n;
    p.features.resize(n);
    p.thresholds.resize(n);
    p.resets.resize(n);
    p.first_test = static_cast<int>(n);

    /* The scale: the least power of two, at least 1, that makes every
     * response a whole number of units. A power of two changes no float and
     * no comparison, only where the binary point lies. */
    double worst_sum = 0;
    int finest = std::numeric_limits<int>::max();
    size_t finest_weak = 0;
    float finest_response = 0;
    for (size_t t = 0; t < n; ++t) {
        float largest = 0;
        for (float r : p.kind->responses(classifier.weak[t])) {
            largest = std::max(largest, std::fabs(r));
            if (r != 0 && lowest_bit(r) < finest) {
                finest = lowest_bit(r);
                finest_weak = t;
                finest_response = r;
            }
        }
        worst_sum += largest;
    }
    if (finest != std::numeric_limits<int>::max())
        p.scale_shift = std::max(0, -kFixedShift - finest);
    if (p.scale_shift == 0 && worst_sum >= kFixedLimit)
        throw Error(ErrorKind::UnsupportedClassifier,
                    "classifier responses are too large for the OpenCL engine (the sum of the largest "
                    "responses must stay below 2^22)");
    /* The CPU reference (and OpenCV) sum in double: from 2^53 finest bits
     * on, its sums round where the engine's integers do not, and the two
     * accept different windows. Refused rather than run differently. */
    if (finest != std::numeric_limits<int>::max() && std::ldexp(worst_sum, -finest) >= kExactSumLimit)
        throw Error(ErrorKind::UnsupportedClassifier,
                    "classifier responses span too wide a range for the OpenCL engine's fixed point to agree with "
                    "the double sums of the CPU reference and OpenCV: the sum of the largest responses (" +
                        format_float(static_cast<float>(worst_sum)) +
                        ") must stay below 2^53 times the finest bit of any response (2^" + std::to_string(finest) +
                        ", in weak classifier " + std::to_string(finest_weak) + "'s response " +
                        format_float(finest_response) + ")");

    for (size_t t = 0; t < n; ++t) {
        const WeakClassifier& w = classifier.weak[t];
        if (w.reject_threshold == kNoRejection) {
            p.thresholds[t] = std::numeric_limits<cl_long>::min();
        } else {
            if (std::ldexp(std::fabs(w.reject_threshold), p.scale_shift) >= kFixedLimit)
                throw Error(ErrorKind::UnsupportedClassifier,
                            "classifier threshold " + format_float(w.reject_threshold) +
                                " is beyond the OpenCL engine's range (|threshold| < 2^22" +
                                (p.scale_shift
                                     ? " / 2^" + std::to_string(p.scale_shift) +
                                           ": its finest response needs a scale of 2^" + std::to_string(p.scale_shift)
                                     : std::string()) +
                                ")");
            p.thresholds[t] = p.fixed_ceil(w.reject_threshold);
            if (p.first_test == static_cast<int>(n))
                p.first_test = static_cast<int>(t);
        }
        p.resets[t] = w.reset_sum_after ? 1 : 0;
    }
    p.kind->pack(classifier, p);
    return p;
}

DeviceClassifier upload_classifier(const cl::Context& context, const PackedClassifier& p)
{
    maybe_inject_fault("buffer-create");
    /* LBP kernels take a node table too, and never read it. */
    const std::vector<shared::HaarNode> nodes = p.nodes.empty() ? std::vector<shared::HaarNode>(1) : p.nodes;
    return DeviceClassifier{read_only_buffer(context, p.features), read_only_buffer(context, p.responses),
                            read_only_buffer(context, p.thresholds), read_only_buffer(context, p.resets),
                            read_only_buffer(context, nodes)};
}

}  // namespace waldboost::opencl
