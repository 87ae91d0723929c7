/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference detector: the oracle every faster path is checked
 * against. It follows OpenCV's CascadeClassifier::detectMultiScale (scales,
 * window positions, LBP bit order, stage semantics, groupRectangles) and is
 * written to be read, not to be fast.
 */
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/detection/grouping.h"
#include "core/detection/image.h"
#include "core/detection/scales.h"
#include "core/detection/types.h"
#include "core/model/model.h"

namespace waldboost {

/* The outcome of running the classifier on one window. */
struct WindowResult {
    bool accepted = false;
    /* Haar only: skipped before the first stage because the standard
     * deviation of its inner area is 10 or less (OpenCV's rule); such a
     * window does not make the scan skip the next position. */
    bool flat = false;
    /* Index of the weak classifier that rejected the window, or the number of
     * weak classifiers when it survived them all. */
    size_t rejected_at = 0;
    /* Whether the rejection came at the first rejection test. */
    bool rejected_in_first_stage = false;
    int weak_evaluated = 0;
    /* Running sum after the last weak classifier evaluated, before any reset. */
    double score = 0.0;
};

/* The 8-bit LBP code of `feature` for the window whose top-left pixel is
 * (wx, wy). Bits, from the most significant: top-left, top, top-right,
 * right, bottom-right, bottom, bottom-left, left block; a bit is set when
 * that block's sum is >= the centre block's sum. */
int lbp_code(const IntegralImage& integral, int wx, int wy, const LbpFeature& feature);

/* The sums of the nine blocks of block_width x block_height pixels of the
 * 3x3 grid at (x, y) in the window whose top-left pixel is (wx, wy), in row
 * order: 0 top-left, 4 the centre, 8 bottom-right. LBP and rank features
 * both take their blocks from here. */
std::array<int64_t, 9> grid_block_sums(const IntegralImage& integral, int wx, int wy, int x, int y, int block_width,
                                       int block_height);

/* The rank of each sum: how many of the other eight are strictly smaller
 * (equal sums share a rank). */
std::array<int, 9> block_ranks(const std::array<int64_t, 9>& sums);

/* The table index of a rank feature for the window at (wx, wy):
 * R_a - R_b + 8 (LRD) or 9 R_a + R_b (LRP), RankFeature in model.h. */
int rank_index(const IntegralImage& integral, int wx, int wy, const RankFeature& feature);

/* The integral images one scaled image's windows are evaluated on: the
 * sums, and for Haar classifiers the squared sums and, when a feature is
 * tilted, the tilted sums (both empty otherwise). */
struct LevelIntegrals {
    IntegralImage sum;
    IntegralImage squares;
    IntegralImage tilted;
};
LevelIntegrals level_integrals(const Classifier& classifier, const GrayView& scaled);

/* 1 / (area * standard deviation) of the window's inner area (the window
 * less a one-pixel border) as OpenCV's Haar detector computes it in float,
 * or 0 when OpenCV skips the window (a standard deviation of 10 or less). */
float haar_norm_factor(const LevelIntegrals& integrals, int window_width, int window_height, int wx, int wy);

/* A Haar feature's weighted rectangle sums, in OpenCV's float operations
 * and order, before normalisation. */
float haar_feature_sum(const HaarFeature& feature, const LevelIntegrals& integrals, int wx, int wy);

/* A weak classifier's response for the window at (wx, wy), given the
 * window's Haar norm factor (0 for other classifiers). The reference
 * evaluates the model's own feature types itself; tests of the engine's
 * feature seam (gst/core/opencl/features/feature_kind.h) give one for a feature
 * type the model does not have. */
using FeatureResponse = std::function<float(const WeakClassifier& weak, const LevelIntegrals& integrals, int wx, int wy,
                                            float norm_factor)>;

WindowResult evaluate_window(const Classifier& classifier, const LevelIntegrals& integrals, int wx, int wy,
                             float final_threshold, const FeatureResponse* feature_response = nullptr);

/* LBP and rank classifiers need only the sums; throws std::logic_error for
 * Haar. It copies `integral` into a LevelIntegrals on every call: for a few
 * windows only, a scan builds the LevelIntegrals once (whole images through
 * this spend most of their time in the copies; docs/history.md, "Figures
 * behind the code's choices"). */
WindowResult evaluate_window(const Classifier& classifier, const IntegralImage& integral, int wx, int wy,
                             float final_threshold);

struct DetectStats {
    uint64_t windows = 0;        /* windows evaluated */
    uint64_t weak_evaluated = 0; /* weak classifiers evaluated, over all windows */
    uint64_t accepted = 0;       /* windows accepted, the cut ones included */
    uint64_t cut = 0;            /* accepted windows past DetectParams::max_windows, dropped */
};

/* Scans one pyramid level given its already scaled image. Tests use this to
 * feed the exact images another implementation scanned. */
std::vector<RawWindow> detect_level(const Classifier& classifier, const GrayView& scaled, const ScaleLevel& level,
                                    int level_index, const DetectParams& params, DetectStats* stats = nullptr,
                                    const FeatureResponse* feature_response = nullptr);

/* All levels' accepted windows (plan_scales, resize_bilinear, detect_level,
 * cap_windows), before clipping: what detections_of groups. */
std::vector<RawWindow> detect_unclipped(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                        DetectStats* stats = nullptr,
                                        const FeatureResponse* feature_response = nullptr);

/* detect_unclipped's windows clipped to the image (clip_windows). */
std::vector<RawWindow> detect_raw(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                  DetectStats* stats = nullptr, const FeatureResponse* feature_response = nullptr);

/* The whole detector: the windows of detect_raw, grouped before they are
 * clipped (detections_of), as detectMultiScale. */
std::vector<Detection> detect(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                              DetectStats* stats = nullptr);

}  // namespace waldboost
