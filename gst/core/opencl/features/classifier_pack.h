/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The classifier as the kernels read it: features, response tables in fixed
 * point, rejection thresholds and sum resets, and for OpenCV's stumps
 * compact stump records. Packing is pure (tested without a device); the
 * upload makes the device's read-only buffers of one packed classifier.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/model.h"
#include "core/opencl/device/cl.h"
#include "core/opencl/features/feature_kind.h"
#include "shared.h"

namespace waldboost::opencl {

/* Running sums are int64 with this many fraction bits, after the classifier's
 * values are scaled by 2^scale_shift (PackedClassifier): exact, and so
 * order-independent, for every response that is then a multiple of 2^-40.
 * Sums stay below 2^22 (headroom below 2^23). */
constexpr int kFixedShift = 40;
constexpr double kFixedLimit = 4194304.0; /* 2^22 */
/* Sums the CPU reference computes exactly in double: below 2^53 units of
 * the classifier's finest response bit (pack_classifier refuses wider). */
constexpr double kExactSumLimit = 9007199254740992.0; /* 2^53 */
/* 256 bits: the record of the codes an LBP sequence's first test rejects. */
constexpr size_t kFirstTestCodeLongs = 4;

struct PackedClassifier {
    /* The feature kind that packed it (feature_kind.h). */
    const FeatureKind* kind = nullptr;
    size_t weak_count = 0;
    /* Four ints per weak classifier, the kind's: LBP x, y, block width,
     * block height; Haar the tree's root in `nodes`, its node count, its
     * first leaf in `responses`, the end of its segment. */
    std::vector<cl_int4> features;
    /* The kind's response tables in fixed point. LBP: weak_count tables of
     * 256 responses; with stumps, then one stump record (STUMP_LONGS longs,
     * kernels/shared.h) per weak classifier; with first_test_codes, then
     * kFirstTestCodeLongs longs of 256 bits, a set bit meaning that the
     * first weak classifier's response to that code is below the first
     * threshold. Haar: every tree's leaves, tree after tree. */
    std::vector<cl_long> responses;
    std::vector<cl_long> thresholds; /* LONG_MIN: no rejection test */
    std::vector<cl_uchar> resets;
    /* Index of the first weak classifier with a rejection test (weak_count
     * when none has). */
    int first_test = 0;
    /* LBP: every weak classifier has at most two response values (OpenCV's
     * stumps), so the stump records follow the tables. */
    bool stumps = false;
    /* LBP: not stumps, and the first weak classifier has a rejection test,
     * so the codes it rejects follow the tables (the row scan decides that
     * test from them, kernels/lbp.cl). */
    bool first_test_codes = false;
    /* Pixels in the largest feature block: bounds every block sum. */
    int64_t largest_block = 0;
    /* Haar (kernels/haar.cl): every tree's nodes; stumps only; some feature
     * is tilted; the window the norm factor is taken over; how many
     * segments features[t].w divides the sequence into. */
    std::vector<shared::HaarNode> nodes;
    bool haar_stumps = false;
    bool tilted = false;
    int window_width = 0, window_height = 0;
    size_t segments = 0;
    /* Values are multiplied by 2^scale_shift before they go into fixed
     * point, so that responses finer than 2^-40 are represented exactly;
     * 0 for every classifier whose responses are multiples of 2^-40. */
    int scale_shift = 0;

    /* The fixed-point unit is 1 / fixed_scale() in the classifier's terms. */
    double fixed_scale() const;
    /* The smallest fixed-point value >= value: `sum < threshold` on the
     * integer sums then decides exactly what it decides on the values. */
    int64_t fixed_ceil(double value) const;
    /* A fixed-point value in the classifier's terms (exact below 2^53). */
    double from_fixed(int64_t fixed) const;
    /* A final threshold in fixed point, for any finite value: every sum the
     * packed classifier can reach lies strictly between -2^22 and 2^22
     * (scaled; pack_classifier refuses larger responses), so a threshold
     * beyond that range accepts every window or none, as the range's edge
     * does, and is clamped to it. The sum minus the threshold (a window's
     * score) then stays within 64 bits. */
    int64_t fixed_final_threshold(float value) const;
};

/* Chooses scale_shift, the least k >= 0 that makes every response times 2^k
 * a multiple of 2^-40, packs the thresholds and resets, then lets the
 * feature kind (the classifier's own unless `kind` is given: tests plug in
 * kinds of their own) pack the features and responses. Throws Error
 * (UnsupportedClassifier) when the scaled sum of the weak classifiers'
 * largest responses, or a scaled rejection threshold, reaches 2^22, or when
 * that sum reaches 2^53 times the finest response bit: responses span too
 * many binades for the reference's double sums to be exact. */
PackedClassifier pack_classifier(const Classifier& classifier, const FeatureKind* kind = nullptr);

/* A packed classifier in the device's memory. */
struct DeviceClassifier {
    cl::Buffer features, responses, thresholds, resets, nodes;
};

DeviceClassifier upload_classifier(const cl::Context& context, const PackedClassifier& packed);

}  // namespace waldboost::opencl
