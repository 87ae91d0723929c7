/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/classifier_pack.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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

/* A weak classifier's response values: an LBP table or a Haar tree's leaves. */
struct Values {
    const float* data;
    size_t size;
    const float* begin() const { return data; }
    const float* end() const { return data + size; }
};

Values values_of(const WeakClassifier& w)
{
    if (const HaarTree* tree = std::get_if<HaarTree>(&w.feature))
        return {tree->leaves.data(), tree->leaves.size()};
    const LbpFeature& f = std::get<LbpFeature>(w.feature);
    return {f.responses.data(), f.responses.size()};
}

/* The trees' nodes in the kernels' form (kernels/shared.h), and the leaves
 * in fixed point after the responses' other uses: weak classifier t's root
 * goes into features[t].x. Stumps are node t each (HAAR_STUMPS). */
void pack_haar_trees(const Classifier& classifier, PackedClassifier& p)
{
    p.haar = true;
    p.haar_stumps = true;
    p.responses.clear();
    p.window_width = classifier.window_width;
    p.window_height = classifier.window_height;
    /* Every integral image is 32 bits for Haar (haar.cl). */
    p.largest_block = int64_t{classifier.window_width} * classifier.window_height;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        const HaarTree& tree = std::get<HaarTree>(classifier.weak[t].feature);
        const int root = static_cast<int>(p.nodes.size());
        const int first_leaf = static_cast<int>(p.responses.size());
        p.haar_stumps = p.haar_stumps && tree.nodes.size() == 1;
        p.features[t] = {{root, static_cast<cl_int>(tree.nodes.size()), first_leaf, 0}};
        const auto side = [&](const waldboost::HaarNode::Child& child) {
            return child.leaf ? -1 - (first_leaf + child.index) : root + child.index;
        };
        for (const waldboost::HaarNode& node : tree.nodes) {
            shared::HaarNode packed{};
            for (size_t i = 0; i < node.feature.rects.size(); ++i) {
                const HaarRect& r = node.feature.rects[i];
                packed.rects[4 * i + 0] = r.x;
                packed.rects[4 * i + 1] = r.y;
                packed.rects[4 * i + 2] = r.width;
                packed.rects[4 * i + 3] = r.height;
                packed.weights[i] = r.weight;
            }
            packed.threshold = node.threshold;
            packed.left = side(node.left);
            packed.right = side(node.right);
            packed.tilted = node.feature.tilted ? 1 : 0;
            p.tilted = p.tilted || node.feature.tilted;
            p.nodes.push_back(packed);
        }
        for (float leaf : tree.leaves) /* exact: a whole number of units */
            p.responses.push_back(p.fixed_ceil(leaf));
    }
    if (!p.haar_stumps)
        return;
    /* Stumps: stump t's left and right values at 2t and 2t + 1, so that
     * the row scan picks one by adding the comparison to the index
     * (haar_response() in kernels/waldboost.cl): a choice between two
     * loaded values became a branch, mispredicted about as often as a stump
     * answers either way. */
    std::vector<cl_long> pairs(2 * p.nodes.size());
    for (size_t t = 0; t < p.nodes.size(); ++t) {
        shared::HaarNode& node = p.nodes[t];
        pairs[2 * t] = p.responses[-1 - node.left];
        pairs[2 * t + 1] = p.responses[-1 - node.right];
        node.left = -1 - static_cast<cl_int>(2 * t);
        node.right = -2 - static_cast<cl_int>(2 * t);
        p.features[t].s[2] = static_cast<cl_int>(2 * t); /* the first leaf */
    }
    p.responses = std::move(pairs);
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

    /* The scale: the least power of two, at least 1, that makes every
     * response a whole number of units. A power of two changes no float and
     * no comparison, only where the binary point lies. */
    double worst_sum = 0;
    int finest = std::numeric_limits<int>::max();
    size_t finest_weak = 0;
    float finest_response = 0;
    for (size_t t = 0; t < n; ++t) {
        float largest = 0;
        for (float r : values_of(classifier.weak[t])) {
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
    if (std::ldexp(worst_sum, p.scale_shift) >= kFixedLimit) {
        if (p.scale_shift == 0)
            throw Error(ErrorKind::UnsupportedClassifier,
                        "classifier responses are too large for the OpenCL engine (the sum of the largest "
                        "responses must stay below 2^22)");
        throw Error(ErrorKind::UnsupportedClassifier,
                    "classifier responses span too wide a range for the OpenCL engine's 64-bit fixed point: the "
                    "sum of the largest responses (" + format_float(static_cast<float>(worst_sum)) +
                        ") must stay below 2^62 times the finest bit of any response (2^" + std::to_string(finest) +
                        ", in weak classifier " + std::to_string(finest_weak) + "'s response " +
                        format_float(finest_response) + ")");
    }

    if (classifier.is_haar())
        pack_haar_trees(classifier, p);
    for (size_t t = 0; t < n; ++t) {
        const WeakClassifier& w = classifier.weak[t];
        if (const LbpFeature* f = std::get_if<LbpFeature>(&w.feature)) {
            p.features[t] = {{f->x, f->y, f->block_width, f->block_height}};
            p.largest_block = std::max(p.largest_block, int64_t{f->block_width} * f->block_height);
            for (int code = 0; code < 256; ++code) /* exact: a whole number of units */
                p.responses[t * 256 + code] = p.fixed_ceil(f->responses[code]);
        }
        if (w.reject_threshold == kNoRejection) {
            p.thresholds[t] = std::numeric_limits<cl_long>::min();
        } else {
            if (std::ldexp(std::fabs(w.reject_threshold), p.scale_shift) >= kFixedLimit)
                throw Error(ErrorKind::UnsupportedClassifier,
                            "classifier threshold " + format_float(w.reject_threshold) +
                                " is beyond the OpenCL engine's range (|threshold| < 2^22" +
                                (p.scale_shift ? " / 2^" + std::to_string(p.scale_shift) +
                                                     ": its finest response needs a scale of 2^" +
                                                     std::to_string(p.scale_shift)
                                               : std::string()) +
                                ")");
            p.thresholds[t] = p.fixed_ceil(w.reject_threshold);
            if (p.first_test == static_cast<int>(n))
                p.first_test = static_cast<int>(t);
        }
        p.resets[t] = w.reset_sum_after ? 1 : 0;
    }
    /* Haar: features[t].w is where the segment of weak classifier t ends,
     * the first weak classifier from t on that has a rejection test or
     * resets the sum (or the last): the reduction's segments (waldboost.cl)
     * read it instead of scanning up to 211 thresholds per stage. */
    if (p.haar) {
        cl_int end = static_cast<cl_int>(n) - 1;
        for (size_t t = n; t-- > 0;) {
            if (p.thresholds[t] != std::numeric_limits<cl_long>::min() || p.resets[t])
                end = static_cast<cl_int>(t);
            p.features[t].s[3] = end;
            p.segments += static_cast<size_t>(end) == t;
        }
    }
    /* Haar stumps are HAAR_STUMPS; the stump records are LBP tables'. */
    p.stumps = !p.haar && append_stump_records(p);
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
