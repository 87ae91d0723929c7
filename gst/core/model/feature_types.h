/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The feature types as one list, which detection and training both read:
 * each type's name in files and messages, its tag on waldboost-train's
 * command line, its table size and its alternative of the model's Feature
 * (with a rank feature's kind). The engine picks its FeatureKind by
 * FeatureType (core/opencl/features/feature_kinds.cpp), the trainer names
 * the type to train by it (TrainerConfig::feature_type), and the tool
 * parses --feature from the tags here; docs/engine.md, "Adding a feature
 * type", says what else a new type needs.
 */
#pragma once

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

#include "core/model/model.h"

namespace waldboost {

/* The values are hashed into the trainer's checkpoints (their settings
 * fingerprint): a new type takes the next value, none is renumbered. */
enum class FeatureType {
    Lbp = 0,  /* multi-block LBP (LbpFeature) */
    Lrd = 1,  /* local rank difference (RankFeature, Kind::Difference) */
    Lrp = 2,  /* local rank pattern (RankFeature, Kind::Pair) */
    Haar = 3, /* OpenCV's Haar trees (HaarTree) */
};

struct FeatureTypeInfo {
    FeatureType type;
    const char* name;    /* in files and messages: "LBP" */
    const char* tag;     /* waldboost-train --feature: "lbp"; nullptr: the trainer cannot make it */
    const char* summary; /* for --help: "multi-block LBP" */
    size_t table_size;   /* responses per weak classifier; 0: it varies (a Haar tree's leaves) */
};

/* Every feature type, in FeatureType's order. */
const std::array<FeatureTypeInfo, 4>& feature_types();
const FeatureTypeInfo& feature_type_info(FeatureType type);
const char* feature_type_name(FeatureType type);

/* The type of a feature: its Feature alternative and, for a rank feature,
 * its kind. */
FeatureType feature_type(const Feature& feature);
/* A feature of the type with its table's responses all 0 and its grid at
 * (0, 0) with 1x1 blocks (a Haar tree without nodes). */
Feature make_feature(FeatureType type);

/* The type of `name` ("LBP") or of command-line `tag` ("lbp"); nullptr for
 * none. */
const FeatureTypeInfo* find_feature_type_by_name(std::string_view name);
const FeatureTypeInfo* find_feature_type_by_tag(std::string_view tag);
/* The tags the trainer takes, for messages: "lbp, lrd or lrp". */
std::string trainable_feature_tags();

}  // namespace waldboost
