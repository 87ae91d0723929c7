/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Real AdaBoost with table weak classifiers, as the trainer runs it after
 * every weak classifier (OpenCV's traincascade keeps its in boost.cpp):
 * the candidate features, the samples' weights from their running sums,
 * the choice of the candidate of the lowest Z (histograms.h sums the
 * weights per bin) and the chosen candidate's table of responses.
 */
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/training/histograms.h"
#include "core/training/samples.h"
#include "core/training/trainer.h"

namespace waldboost::training {

/* Every 3x3 grid of the configured block sizes (or the feature type's
 * default ones) at every position step that fits the window. Throws Error
 * (BadParameter) for a block size below 1x1 or when no grid fits. */
std::vector<Grid> candidate_grids(const TrainerConfig& config);

/* Real AdaBoost's weights from the running sums, w = exp(-y H), each
 * class's mean weight taken over its own share of the working set
 * (`fitted` positives that do not calibrate, `negatives`), adding up to 1;
 * 0 for a calibrating positive. */
std::vector<double> boosting_weights(const WorkingSet& set, size_t fitted, size_t negatives);

/* The candidate of the lowest Z for `weights`, the same on every backend. */
Choice select_candidate(WorkingSet& set, const std::vector<double>& weights);

/* Candidate `candidate` of `candidates` as a weak classifier's feature,
 * with Real AdaBoost's responses for `weights` (also into `responses`);
 * leaves the candidate's bins fetched in `set`. */
Feature fit_feature(WorkingSet& set, const CandidateSet& candidates, size_t candidate,
                    const std::vector<double>& weights, std::vector<float>* responses);

/* e.g. "LBP 3,5 2x2", "LRD 0,4 2x2 blocks 1-7". */
std::string describe_candidate(const CandidateSet& candidates, size_t candidate);

}  // namespace waldboost::training
