/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's seam for feature types: one FeatureKind per type of
 * waldboost::Feature says everything the engine needs to run it, and its
 * kernels/<feature>.cl defines the entry points that the reduction
 * (waldboost.cl) and the row scan (scan_rows.cl) call, declared in
 * kernels/cascade.cl. Nothing else in the engine or the kernels depends on
 * the feature type (docs/engine.md, "Adding a feature type").
 */
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/model/model.h"

namespace waldboost::opencl {

struct PackedClassifier;

/* The integral images a feature reads besides the plain one, all with the
 * plain one's layout (kernels/pyramid.cl builds them). */
struct IntegralNeeds {
    bool squares = false; /* of the squared pixels (a window's variance) */
    bool tilted = false;  /* OpenCV's 45-degree integral */
};

class FeatureKind {
public:
    virtual ~FeatureKind() = default;
    /* The name in files and messages ("LBP", "HAAR"); it also keeps apart
     * the device classifiers of different kinds packed from one model. */
    virtual const char* name() const = 0;
    /* kernels/<feature>.cl: the file's name (for build logs) and its text. */
    virtual const char* kernel_file() const = 0;
    virtual std::string_view kernel_source() const = 0;
    /* Responses per weak classifier in the model's table (LBP: 256 codes),
     * or 0 where the count varies (a Haar tree's leaves). */
    virtual size_t table_size() const = 0;
    /* Every response value of one weak classifier: the fixed-point scale
     * (classifier_pack.h) is chosen over them. */
    virtual ResponseValues responses(const WeakClassifier& weak) const = 0;
    /* Fills the packed classifier's features, responses (in its fixed point,
     * PackedClassifier::fixed_ceil), nodes and largest_block, and whatever
     * the kind's build defines read; the thresholds, resets and scale are
     * set before it runs. */
    virtual void pack(const Classifier& classifier, PackedClassifier& packed) const = 0;
    /* The kernels' -D options for this packed classifier (with a leading
     * space each). */
    virtual std::string build_defines(const PackedClassifier& packed) const = 0;
    virtual IntegralNeeds integrals(const PackedClassifier& packed) const = 0;
    /* Whether 16-bit integral values serve: every block sum the feature
     * takes stays below 2^16 (kernels/common.cl). */
    virtual bool narrow_sums_serve(const PackedClassifier& packed) const = 0;
    /* An OpenCL extension the device must have ("" for none), and what to
     * tell the user when the device named has not. */
    virtual const char* required_extension() const { return ""; }
    virtual std::string missing_extension_message(const std::string& device_name) const
    {
        return std::string(name()) + " features need " + required_extension() + " on the OpenCL device, and " +
               device_name + " has none; choose another device (waldboost-devices lists them)";
    }
};

/* The kind of the classifier's features (a classifier uses one type). */
const FeatureKind& feature_kind(const Classifier& classifier);

}  // namespace waldboost::opencl
