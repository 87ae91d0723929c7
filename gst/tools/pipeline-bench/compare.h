/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's check: the boxes of every frame, from an
 * engine or from a buffer's metas, against those one engine gives for that
 * frame on its own.
 */
#pragma once

#include <gst/gst.h>

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "core/detection/types.h"

namespace pipeline_bench {

using Boxes = std::vector<std::array<int, 4>>;

/* Boxes in a canonical order, so that only the set of boxes counts. */
Boxes boxes_of(const std::vector<waldboost::Detection>& detections);

/* The objects' boxes: parts (eyes-profile, mouth-profile) name their object
 * as parent_id and are not the engine's to compare with. */
Boxes meta_boxes(GstBuffer* buffer);

/* "[x,y,wxh ...]" */
std::string boxes_text(const Boxes& boxes);

/* The frames that mismatched, and the first one described. */
struct Mismatches {
    uint64_t count = 0;
    std::string first;

    /* `describe` is called for the first one only. */
    template <typename Describe>
    void add(Describe describe)
    {
        if (!count++)
            first = describe();
    }

    /* Another's frames; its first one is kept when there is none yet. */
    void merge(const Mismatches& other)
    {
        count += other.count;
        if (first.empty())
            first = other.first;
    }
};

}  // namespace pipeline_bench
