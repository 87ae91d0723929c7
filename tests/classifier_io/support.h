/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the classifier file tests (tests/classifier_io/
 * test_*.cpp, one program per concern), beside tests/test_support.h's
 * (temporary folders, files, the environment): the expected error and its
 * line, bit-for-bit model comparison, WaldBoost XML built
 * piece by piece, the Debian LBP cascades counted by hand, and a small
 * model. Expected values come from the tests' own files or from a plain-text
 * reading of Debian's OpenCV cascades, never from the loaders. Compiled once
 * (support.cpp) for every program; helpers of one concern stay in its file.
 * The one table of programs is in meson.build beside this file.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "../test_support.h"

namespace waldboost_test {

/* Runs `fn`, expects waldboost::Error, and checks every fragment is in the
 * message. Returns the message. */
std::string expect_error(const std::function<void()>& fn, std::initializer_list<std::string> fragments);

uint32_t bits(float f);

/* Every field, floats compared bit for bit. */
void expect_identical(const waldboost::Classifier& a, const waldboost::Classifier& b, bool compare_label = true);

/* 1-based line of the first occurrence of `needle` in `text`. */
int line_of(const std::string& text, const std::string& needle);
/* "PATH:LINE:", the start of a message about the element at `needle`. */
std::string at_line(const std::string& path, const std::string& text, const std::string& needle);
std::string replace_once(std::string text, const std::string& from, const std::string& to);
/* How many times `needle` occurs in `text` (overlapping ones too). */
size_t count_of(const std::string& text, const std::string& needle);

/* No raw control character (C0, DEL, C1, bidi control) and at most
 * `limit` bytes: what a message made from a file's name or text may hold. */
void expect_printable(const std::string& message, size_t limit = 1024);

/* ---- WaldBoost XML, piece by piece ------------------------------------- */

/* n numbers, value i = base + step * i, written plainly. */
std::string number_list(size_t n, double base, double step);
std::string feature_xml(const std::string& x, const std::string& y, const std::string& w, const std::string& h);
std::string histogram_stage(const std::string& stage_attributes, const std::string& values, const std::string& feature);
std::string waldboost_doc(const std::string& root_attributes, const std::string& stages);

inline constexpr const char* kRoot24 =
    "classifierName=\"\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"";

/* A valid two-stage file used as the base for malformed variants. */
std::string valid_waldboost();

/* ---- Debian's LBP cascades ---------------------------------------------- */

struct KnownCascade {
    const char* stem;
    int width;
    int height;
    size_t stages;
    size_t trees;
    const char* label;
};

/* Counted by hand from Debian 12's opencv-data 4.6 (their files:
 * cascade_path(stem), tests/test_support.h). */
inline constexpr KnownCascade kCascades[] = {
    {"lbpcascade_frontalface", 24, 24, 20, 139, "face"},
    {"lbpcascade_frontalface_improved", 45, 45, 19, 149, "face"},
    {"lbpcascade_profileface", 20, 34, 16, 130, "profile-face"},
    {"lbpcascade_silverware", 12, 80, 16, 130, "silverware"},
    {"lbpcascade_frontalcatface", 24, 24, 20, 419, "cat-face"},
};

/* ---- A small model --------------------------------------------------------- */

/* An LBP weak classifier whose table is i * 0.25 - 3. */
waldboost::WeakClassifier make_weak(int x, int y, int w, int h);
/* "thing", 24x24, two weak classifiers, the first rejecting below -1.5. */
waldboost::Classifier make_model();

}  // namespace waldboost_test
