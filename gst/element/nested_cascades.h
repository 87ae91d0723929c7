/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's nested cascades (eyes-profile, nose-profile, mouth-profile):
 * searched inside each detection on the CPU, as facedetect does (output.h
 * attaches and posts what they find).
 */
#pragma once

#include <gst/gst.h>

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/parts/nested.h"

namespace waldboost_element {

struct NestedPart {
    const char* name;     /* the ROI meta's type and the message's field */
    const char* property; /* the element property naming its cascade */
    waldboost::PartArea area;
};

/* In property order: eyes, nose, mouth. */
inline constexpr std::array<NestedPart, 3> kNestedParts{{
    {"eyes", "eyes-profile", waldboost::PartArea::UpperHalf},
    {"nose", "nose-profile", waldboost::PartArea::Centre},
    {"mouth", "mouth-profile", waldboost::PartArea::LowerHalf},
}};

using NestedPaths = std::array<std::string, kNestedParts.size()>;

/* The loaded cascades of one set of paths (an empty path: none). Shared
 * by the frames in flight, so that a property change never reaches them. */
struct NestedCascades {
    NestedPaths paths;
    std::array<std::optional<waldboost::Classifier>, kNestedParts.size()> classifiers;
};

/* Loads every non-empty path. On failure throws what the loader threw and
 * sets `*failed` to the index of the part whose file it was. */
std::shared_ptr<const NestedCascades> load_nested_cascades(const NestedPaths& paths, size_t* failed);

/* The search parameters of the parts, from the detections': facedetect's
 * minimum size (an eighth of the detections' minimum; 0 = the window) and
 * no maximum, the rest as they are. */
waldboost::DetectParams nested_params(const waldboost::DetectParams& detection_params);

struct FoundPart {
    size_t parent;                  /* index of the detection it was found in */
    size_t part;                    /* index into kNestedParts */
    waldboost::Detection detection; /* in frame coordinates */
    gint id = 0;                    /* the ROI meta's id (FrameFinisher gives it) */
};

/* Every part of every detection (with `first_only`, each cascade's first
 * in each detection), in detection then part order; at most `max_parts`
 * (0: no limit), the search stopping there (*cut: true when it stopped
 * with parts possibly left). */
std::vector<FoundPart> find_parts(const NestedCascades& cascades, const waldboost::DetectParams& params,
                                  const waldboost::GrayView& frame, const std::vector<waldboost::Detection>& detections,
                                  bool first_only, size_t max_parts = 0, bool* cut = nullptr);

/* A part's label: its cascade's (eye, smile, licence-plate...), which the
 * part's metas, message items, tags and colours use. */
const std::string& part_label(const NestedCascades& cascades, size_t part);

}  // namespace waldboost_element
