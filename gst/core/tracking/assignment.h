/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Optimal assignment of tracks to detections (the Hungarian method, in the
 * shortest-augmenting-path form with potentials): among the pairs a gate
 * allows, as many pairs as possible, and of those assignments the one of
 * least total cost. A greedy assignment (best pair first) can trade two
 * good pairs for one better one: two crossing objects then swap ids.
 */
#pragma once

#include <cstddef>
#include <vector>

namespace waldboost::tracking {

/* A rows x cols cost matrix, row after row; an entry of kForbidden (or any
 * value at or above it) is a pair the gate refuses. */
struct CostMatrix {
    static constexpr double kForbidden = 1e9;
    size_t rows = 0;
    size_t cols = 0;
    std::vector<double> cost;
    CostMatrix(size_t r, size_t c) : rows(r), cols(c), cost(r * c, kForbidden) {}
    double& at(size_t r, size_t c) { return cost[r * cols + c]; }
    double at(size_t r, size_t c) const { return cost[r * cols + c]; }
};

/* The column assigned to each row, or -1. The matrix is split into groups
 * that share no allowed pair, each solved on its own (O(n^3) in the
 * group's size); a group larger than `optimal_limit` rows or columns (a
 * classifier that accepts nearly every window) is assigned greedily, best
 * pair first, so that a frame's cost stays bounded. */
std::vector<int> assign_optimally(const CostMatrix& m, size_t optimal_limit = 128);

}  // namespace waldboost::tracking
