/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The classifier model shared by every loader, the CPU reference and the
 * OpenCL engine. One model covers both WaldBoost sequences (a rejection
 * threshold after every weak classifier) and OpenCV stage cascades (no
 * threshold inside a stage, a threshold and a reset of the running sum at
 * the end of each stage).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"

namespace waldboost {

/* Multi-block LBP feature: a 3x3 grid of equal blocks of block_width x
 * block_height pixels whose top-left corner is (x, y) inside the window. */
struct LbpFeature {
    int x = 0;
    int y = 0;
    int block_width = 1;
    int block_height = 1;
};

/* Sentinel for "no rejection after this weak classifier". */
constexpr float kNoRejection = -std::numeric_limits<float>::infinity();

/* A weak classifier's feature, as a tagged type. A new feature type is one
 * more alternative here; every std::visit over a Feature (validation, the
 * XML writer, the reference's evaluation, the engine's packing) then fails
 * to compile until it handles the new type. docs/engine.md lists the
 * places a feature type touches. */
using Feature = std::variant<LbpFeature>;

/* The name a feature type has in files and messages ("LBP"). */
const char* feature_type_name(const Feature& feature);

struct WeakClassifier {
    Feature feature;
    /* Response added to the running sum for each 8-bit LBP code. */
    std::array<float, 256> responses{};
    /* The window is rejected when the running sum, after adding this weak
     * classifier's response, is below this value (kNoRejection = never). */
    float reject_threshold = kNoRejection;
    /* Reset the running sum to 0 after the rejection test (OpenCV stage end). */
    bool reset_sum_after = false;
};

struct Classifier {
    std::string label = "object";
    int window_width = 0;
    int window_height = 0;
    /* An accepted window's score (the running sum after the last weak
     * classifier, before any reset) must reach this value. */
    float final_threshold = 0.0f;
    std::vector<WeakClassifier> weak;

    size_t stage_count() const;
};

/* Sane limits for untrusted files (docs/classifiers.md lists them). */
struct ModelLimits {
    static constexpr int kMaxWindowSide = 1024;
    static constexpr size_t kMaxWeakClassifiers = 65535;
    /* libxml2 refuses larger inputs unless XML_PARSE_HUGE is set, which the
     * loaders never set for untrusted files (a converted 419-weak-classifier
     * cascade is 1.4 MB). */
    static constexpr size_t kMaxFileBytes = 10000000;
    static constexpr size_t kMaxLabelLength = 256;
    /* libxml2 2.9 checks each attribute of a start tag against all the
     * others, and looks each namespace prefix up in a flat list of the
     * declarations in scope: its time grows with the square of these counts
     * (100,000 attributes on one element: about 15 s). Real files use a
     * handful of attributes and no namespace declarations; xml::Document
     * counts both before libxml2 sees the buffer. */
    static constexpr size_t kMaxXmlAttributesPerElement = 256;  // namespace declarations included
    static constexpr size_t kMaxXmlNamespaceDeclarations = 256;  // in the whole file
};

/* Throws Error (ErrorKind::ClassifierFile) naming `source` (a file name or
 * "<embedded>") and the first problem: an empty model, a non-finite value, a
 * feature outside the window, a block of size 0, a label too long, or a limit
 * exceeded. */
void validate(const Classifier& classifier, const std::string& source);

}  // namespace waldboost
