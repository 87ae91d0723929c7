/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenCV's Haar trees on the device (kernels/haar.cl).
 */
#include "core/opencl/features/feature_kinds.h"

#include <limits>

#include "core/opencl/features/classifier_pack.h"
#include "shared.h"

namespace waldboost::opencl {

extern const std::string_view kHaarKernels;

namespace {

/* The trees' nodes in the kernels' form (kernels/shared.h), and the leaves
 * in fixed point: weak classifier t's root goes into features[t].x. Stumps
 * are node t each (HAAR_STUMPS). */
void pack_trees(const Classifier& classifier, PackedClassifier& p)
{
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
     * (feature_response() in kernels/haar.cl): a choice between two loaded
     * values became a branch, mispredicted about as often as a stump
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

/* features[t].w is where the segment of weak classifier t ends, the first
 * weak classifier from t on that has a rejection test or resets the sum (or
 * the last): the reduction's segments (waldboost.cl) read it instead of
 * scanning up to 211 thresholds per stage. */
void pack_segment_ends(PackedClassifier& p)
{
    const size_t n = p.weak_count;
    cl_int end = static_cast<cl_int>(n) - 1;
    for (size_t t = n; t-- > 0;) {
        if (p.thresholds[t] != std::numeric_limits<cl_long>::min() || p.resets[t])
            end = static_cast<cl_int>(t);
        p.features[t].s[3] = end;
        p.segments += static_cast<size_t>(end) == t;
    }
}

class HaarKind final : public FeatureKind {
public:
    const char* name() const override { return feature_type_name(FeatureType::Haar); }
    const char* kernel_file() const override { return "haar.cl"; }
    std::string_view kernel_source() const override { return kHaarKernels; }
    size_t table_size() const override { return feature_type_info(FeatureType::Haar).table_size; /* 0: the leaves */ }
    ResponseValues responses(const WeakClassifier& weak) const override { return response_values(weak.feature); }

    void pack(const Classifier& classifier, PackedClassifier& p) const override
    {
        pack_trees(classifier, p);
        pack_segment_ends(p);
    }

    std::string build_defines(const PackedClassifier& p) const override
    {
        std::string defines;
        if (p.haar_stumps)
            defines += " -D HAAR_STUMPS";
        if (p.tilted)
            defines += " -D HAAR_TILTED";
        /* Stages of 16 or more weak classifiers on average (OpenCV's: 9 to
         * 211): step 4 reduces whole segments instead of scanning. */
        if (p.segments * 16 <= p.weak_count)
            defines += " -D STEP4_SEGMENTS";
        defines += " -D WINDOW_WIDTH=" + std::to_string(p.window_width);
        defines += " -D WINDOW_HEIGHT=" + std::to_string(p.window_height);
        return defines;
    }

    /* The squares for each window's variance (the norm factor). */
    IntegralNeeds integrals(const PackedClassifier& p) const override { return {true, p.tilted}; }
    /* Rectangles and the variance's sums cover whole windows. */
    bool narrow_sums_serve(const PackedClassifier&) const override { return false; }

    /* OpenCV's Haar norm factor is (float)(1 / sqrt(double)): only double
     * arithmetic on the device gives it bit for bit (kernels/haar.cl). */
    const char* required_extension() const override { return "cl_khr_fp64"; }
    std::string missing_extension_message(const std::string& device_name) const override
    {
        return "Haar cascades need double precision (cl_khr_fp64) on the OpenCL device to give OpenCV's "
               "detections, and " +
               device_name + " has none; choose another device (waldboost-devices lists them) or an LBP cascade";
    }
};

}  // namespace

const FeatureKind& haar_feature_kind()
{
    static const HaarKind kind;
    return kind;
}

}  // namespace waldboost::opencl
