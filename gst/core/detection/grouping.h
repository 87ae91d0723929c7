/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * From accepted windows to detections: clipping, OpenCV's groupRectangles
 * and non-maximum suppression.
 */
#pragma once

#include <vector>

#include "core/detection/types.h"

namespace waldboost {

/* Clips windows to the image, as detectMultiScale does before grouping: a
 * window rounded out past the right or bottom edge loses the overhang. */
void clip_windows(std::vector<RawWindow>& windows, Size image);

float confidence_from_neighbors(int neighbors);

/* groupRectangles with OpenCV's semantics (eps = 0.2). */
std::vector<Detection> group_opencv(const std::vector<RawWindow>& windows, int min_neighbors, double eps = 0.2);

/* Greedy NMS: windows by descending score; each kept window absorbs those
 * with IoU > iou; detections with neighbors <= min_neighbors are dropped. */
std::vector<Detection> group_nms(const std::vector<RawWindow>& windows, float iou, int min_neighbors);

/* The grouping params.grouping selects. */
std::vector<Detection> group_windows(const std::vector<RawWindow>& windows, const DetectParams& params);

double intersection_over_union(const Rect& a, const Rect& b);

}  // namespace waldboost
