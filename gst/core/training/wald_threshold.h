/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Wald's sequential test as the trainer applies it: the rejection
 * threshold after each weak classifier, set on calibrating positives that
 * boosting does not fit, within a miss budget of alpha of them over the
 * whole classifier, and the final threshold that spends what is left of
 * that budget (../shared/design/training.md; docs/training.md).
 */
#pragma once

#include <cstddef>
#include <vector>

namespace waldboost::training {

/* Wald's rejection threshold after a weak classifier, from the running
 * sums of the working set, as Sochman and Matas estimate it: from the
 * distributions of the sums over the samples that reach this weak
 * classifier. The region rejected is {H < theta}; a threshold is
 * admissible when the region holds at least 1/alpha times more of the
 * negatives' distribution than of the positives' (Wald's A = (1 - beta) /
 * alpha with beta = 0, nothing accepted early):
 *   (negatives below) / n_neg >= (1 / alpha) * (positives below + 1) / (n_pos + 1),
 * the positives counted with one added, so that a region none of the
 * sampled positives fell in is not taken as empty of positives (with 400
 * positives and alpha 0.05 it must hold 5% of the negatives), and the
 * region may hold at most `positives_allowed` of the sampled positives:
 * the trainer passes what is left of alpha times the calibrating positives
 * it started with, so that the thresholds together never reject more than
 * that share of them (per-step ratios alone let the losses add up well
 * beyond alpha; docs/history.md, "Figures behind the code's
 * choices").
 * Returns the largest admissible threshold (the running sum of some
 * sample, rounded down to a float), or kNoRejection when none is. The miss
 * rate on held-out positives is measured, not guaranteed (test-training
 * prints it; docs/training.md). */
float estimate_threshold(const std::vector<double>& positive_sums, const std::vector<double>& negative_sums,
                         double alpha, size_t positives_allowed);

/* Whether positive `index` calibrates the thresholds instead of being
 * fitted: every k-th one, so that `share` of them do (0: none). */
bool calibrates(size_t index, double share);

/* How many of the `initial` calibrating positives a threshold may still
 * reject: `share` of alpha of them, less the `left`-to-`initial` already
 * lost (0 when the budget is spent). */
size_t positives_allowed(double share, double alpha, size_t initial, size_t left);

/* The classifier's final threshold: the running sum below which at most
 * alpha of the `initial` calibrating positives are lost in all, the last
 * weak classifier's rejection threshold (`last_rejection`, which it never
 * lowers) included; `positive_sums` are the running sums of those left.
 * With no rejection at all, the lowest float: every window that reaches
 * the end is accepted. */
float final_threshold(std::vector<double> positive_sums, size_t initial, double alpha, float last_rejection);

}  // namespace waldboost::training
