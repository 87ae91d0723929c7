/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The pyramid detectMultiScale scans: its scales, sizes and steps.
 */
#pragma once

#include <limits>
#include <vector>

#include "core/detection/types.h"
#include "core/model/model.h"

namespace waldboost {

/* One level of the pyramid, with OpenCV's geometry. */
struct ScaleLevel {
    float scale = 1.0f; /* original pixels per scaled pixel */
    Size image_size;    /* round(original size / scale) */
    Size window_size;   /* round(classifier window * scale), in original pixels */
    int step = 1;       /* distance between scanned positions, both axes */
    /* OpenCV's rule: a window rejected in the first stage also skips the
     * next position in its row. */
    bool skip_after_first_stage_rejection = false;
    /* Positions whose y (in scaled pixels) is below this are scanned.
     * OpenCV cuts every level's rows into as many stripes as its first
     * level has 32-pixel columns of positions, each stripe a whole number
     * of steps high, rounded down: when the stripes fall one step short,
     * the last row of positions is never scanned. Its rule, kept (it shows
     * on small images: areas searched by nested cascades); no limit with a
     * stride of our own. */
    int scan_height = std::numeric_limits<int>::max();
};

/* Throws Error (BadParameter) for a negative DetectParams::max_windows;
 * plan_scales checks it with the scan's parameters. */
void check_max_windows(const DetectParams& params);

/* The levels detectMultiScale would scan; throws Error for bad parameters. */
std::vector<ScaleLevel> plan_scales(Size image, const Classifier& classifier, const DetectParams& params);

}  // namespace waldboost
