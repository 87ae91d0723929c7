/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * From accepted windows to detections: clipping, OpenCV's groupRectangles
 * and non-maximum suppression.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/detection/types.h"

namespace waldboost {

/* Clips windows to the image, as detectMultiScale clips what it returns
 * (with minNeighbors = 0, the raw windows): a window rounded out past the
 * right or bottom edge loses the overhang; one left empty is dropped. */
void clip_windows(std::vector<RawWindow>& windows, Size image);

/* Keeps the first `max_windows` windows in scan order (level, then row,
 * then column: how both detectors list them) and returns how many it cut;
 * 0 keeps every window. Applied before clipping and grouping. */
uint64_t cap_windows(std::vector<RawWindow>& windows, int max_windows);

float confidence_from_neighbors(int neighbors);

/* What a grouping did: the pairs of rectangles it compared. Both groupings
 * compare only pairs in neighbouring cells of a grid by size and position,
 * O(n log n) with a bounded number of pairs per window on a detector's
 * windows (n^2 / 2 before: minutes for an accept-all 640x480 frame). */
struct GroupingWork {
    uint64_t pairs_tested = 0;
};

/* groupRectangles with OpenCV's semantics (eps = 0.2). */
std::vector<Detection> group_opencv(const std::vector<RawWindow>& windows, int min_neighbors, double eps = 0.2,
                                    GroupingWork* work = nullptr);

/* Greedy NMS: windows by descending score; each kept window absorbs those
 * with IoU > iou; detections with neighbors <= min_neighbors are dropped. */
std::vector<Detection> group_nms(const std::vector<RawWindow>& windows, float iou, int min_neighbors,
                                 GroupingWork* work = nullptr);

/* The grouping params.grouping selects. */
std::vector<Detection> group_windows(const std::vector<RawWindow>& windows, const DetectParams& params);

/* A frame's detections from its windows as the scan found them (not
 * clipped): grouped, then clipped to the image, in detectMultiScale's
 * order (it groups, then clips the groups; a group whose members reach
 * past the edge by rounding keeps their full size in its mean). */
std::vector<Detection> detections_of(const std::vector<RawWindow>& unclipped, const DetectParams& params, Size image);

double intersection_over_union(const Rect& a, const Rect& b);

}  // namespace waldboost
