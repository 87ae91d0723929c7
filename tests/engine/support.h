/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the engine tests (tests/engine/test_*.cpp, one
 * program per concern): random classifiers (LBP, Haar) and images whose
 * values make every difference from the CPU reference a bug rather than
 * rounding, the comparison of the engine's
 * windows with the reference's, and the reduction parameter sets and
 * engine configurations the comparisons run. Compiled once (support.cpp)
 * for every program; helpers of one concern stay in its file. The one table
 * of programs, with how each runs, is in meson.build beside this file.
 */
#pragma once

#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/engine/reduction.h"
#include "../test_support.h"

namespace waldboost_test {

/* A value on a 2^-12 grid: exact in the reference's double sums and in the
 * engine's fixed point, so any difference is a bug, not rounding. */
float grid_value(std::mt19937& rng, float lo, float hi);

/* Random features, tables and thresholds. With stages, thresholds come only
 * at stage ends followed by a sum reset, as in OpenCV cascades; without,
 * every weak classifier has one (a WaldBoost sequence). Thresholds follow
 * the running sum's spread so that windows die at every depth. With stumps,
 * every table holds two values picked by a random subset of the codes, as
 * OpenCV's LBP stumps do (the row scan reads those in another form). */
waldboost::Classifier random_classifier(std::mt19937& rng, int width, int height, int weak_count, bool stages,
                                        bool stumps = false);

/* A random Haar tree of `nodes` nodes: each new node takes the place of a
 * random leaf of the tree so far, so children come after their parents.
 * Rectangles lie anywhere in the window (tilted ones too), weights and
 * thresholds are arbitrary floats: every float operation of OpenCV's
 * evaluation matters, and the engine must repeat each one. */
waldboost::HaarTree random_haar_tree(std::mt19937& rng, int width, int height, int nodes, bool tilted);

/* An OpenCV-like Haar cascade: stages of 2 to `longest_stage` trees ending
 * in a threshold and a sum reset; `max_nodes` 1 gives stumps; every
 * `tilted_every`-th tree tilted (0: none). */
waldboost::Classifier random_haar_classifier(std::mt19937& rng, int width, int height, int weak_count, int max_nodes,
                                             int tilted_every, int longest_stage = 6);

/* A w x h image of smooth blobs plus noise: LBP codes vary, unlike on pure
 * noise. */
waldboost::GrayImage random_image(std::mt19937& rng, int w, int h);

/* A window's level, position, rectangle and score, for failure messages. */
std::string describe(const waldboost::RawWindow& w);

/* The engine's windows must be the reference's, in the same order. */
void expect_same_windows(const std::vector<waldboost::RawWindow>& engine,
                         const std::vector<waldboost::RawWindow>& reference, const std::string& what);

/* The classifier with f applied to every response and threshold. */
waldboost::Classifier with_values(waldboost::Classifier c, float (*f)(float));

/* Scores brought to the size of the unscaled classifier's, so that the
 * tolerance of expect_same_windows means the same. */
std::vector<waldboost::RawWindow> scores_times(std::vector<waldboost::RawWindow> windows, double factor);

/* The reduction parameter sets the comparisons run, four of them: the
 * thesis' divisors; synchronised from the start, no step 2; a long
 * unsynchronised start, several step 2; no reduction at all. */
std::vector<waldboost::opencl::ReductionParams> parameter_sets();

/* The reduction with these parameters (on any device). */
waldboost::opencl::EngineConfig config_with(const waldboost::opencl::ReductionParams& p);

/* The row scan (on any device). */
waldboost::opencl::EngineConfig rows_config(int max_in_flight = 2);

}  // namespace waldboost_test
