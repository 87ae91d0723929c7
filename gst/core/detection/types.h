/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The detection parameters and results shared by every detector (the CPU
 * reference and the OpenCL engine), the tools and the element.
 */
#pragma once

#include <cmath>
#include <optional>

#include "core/detection/image.h"

namespace waldboost {

/* OpenCV's cvRound: to nearest, ties to even (the FPU default). */
inline int cv_round(double v) { return static_cast<int>(std::lrint(v)); }
inline int cv_round(float v) { return static_cast<int>(std::lrint(v)); }

struct Rect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    bool operator==(const Rect& o) const { return x == o.x && y == o.y && width == o.width && height == o.height; }
    bool operator<(const Rect& o) const;
};

enum class Grouping {
    None,   /* every accepted window is a detection */
    OpenCv, /* groupRectangles(eps = 0.2) with min_neighbors, as detectMultiScale */
    Nms,    /* greedy IoU non-maximum suppression by score, then min_neighbors */
};

/* Far above what real cascades accept: lbpcascade_frontalface accepts 223
 * windows on messi5.jpg scaled to 3840x2160 (scale factor 1.1), while a
 * 24x24 classifier that accepts everything gives 585,373 on 640x480. */
constexpr int kDefaultMaxWindows = 100000;

struct DetectParams {
    double scale_factor = 1.1; /* > 1 */
    Size min_size{};           /* 0 = the classifier window */
    Size max_size{};           /* 0 = the image size */
    int stride = 0;            /* 0 = OpenCV's rule, else every stride-th position */
    int min_neighbors = 3;     /* a group needs more than this many windows */
    Grouping grouping = Grouping::OpenCv;
    float nms_iou = 0.3f;                 /* IoU above which NMS merges two windows */
    std::optional<float> final_threshold; /* overrides the classifier's */
    /* The most accepted windows a frame keeps, the first in scan order
     * (level, row, column); 0 = no limit. A classifier that accepts nearly
     * everything would otherwise make a frame's windows (and their grouping
     * and drawing) grow without bound; real cascades stay far below. */
    int max_windows = kDefaultMaxWindows;
    /* Detections whose confidence (Detection::confidence) is below this are
     * dropped after grouping; 0 keeps them all. */
    float min_confidence = 0.0f;
};

/* An accepted window. */
struct RawWindow {
    Rect rect;     /* in original-image pixels */
    int level = 0; /* index into plan_scales() */
    int x = 0;     /* position in the scaled image */
    int y = 0;
    float score = 0; /* WindowResult::score minus the final threshold (>= 0) */
};

struct Detection {
    Rect rect;
    int neighbors = 1; /* raw windows merged into this detection */
    float score = 0;   /* best member's score minus the final threshold */
    /* 1 - exp(-neighbors / 8): 0.39 for 4 windows, 0.63 for 8, 0.86 for 16. */
    float confidence = 0;
};

}  // namespace waldboost
