/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Internal: the per-format readers behind classifier_io.h. Each converts a
 * parsed document to the model; classifier_io validates the result.
 */
#pragma once

#include <string>

#include "core/model/model.h"
#include "core/model/xml_document.h"

namespace waldboost {

/* Root element <WaldBoostClassifier>. */
Classifier parse_waldboost_xml(const xml::Document& doc);

/* Root element <opencv_storage> holding a traincascade LBP cascade. */
Classifier parse_opencv_cascade(const xml::Document& doc);

/* The label an OpenCV cascade gets from its file name: one of Debian's
 * five LBP cascades the label of its converted copy (classifiers/meson.build:
 * "/a/lbpcascade_frontalface.xml" -> "face", as the embedded default);
 * another name without directory, ".xml" and a leading "lbpcascade_"
 * ("/a/lbpcascade_cars.xml" -> "cars"); "object" when nothing usable is
 * left. */
std::string label_from_source(const std::string& source);

/* Empty when the Haar feature fits a width x height window with 1 to 3
 * non-empty rectangles of finite weight, else the problem. */
std::string haar_feature_problem(const HaarFeature& feature, int width, int height);

/* Empty when `tree` is a proper tree (see HaarTree) of valid features and
 * finite values for a width x height window, else the problem. */
std::string haar_tree_problem(const HaarTree& tree, int width, int height);

/* Empty when `label` is acceptable, else what is wrong with it. */
std::string label_problem(const std::string& label);

/* Finite reject thresholds at or below this mean "no rejection" in files. */
constexpr double kNoRejectionBelow = -1e30;
/* Acceptance thresholds (posT) must be at least this: early acceptance is
 * not supported. */
constexpr double kNoAcceptanceAbove = 1e30;

}  // namespace waldboost
