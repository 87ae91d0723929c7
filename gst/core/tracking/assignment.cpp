/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/tracking/assignment.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <tuple>

namespace waldboost::tracking {

namespace {

bool allowed(double cost) { return cost < CostMatrix::kForbidden; }

/* rows <= cols: every row gets a column (a refused one where it must);
 * returns the column of each row. Potentials u (rows) and v (columns) keep
 * every reduced cost non-negative; each row joins along the shortest
 * augmenting path. Index 0 is the virtual start. */
std::vector<int> hungarian(const CostMatrix& m)
{
    const size_t n = m.rows, k = m.cols;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> u(n + 1, 0), v(k + 1, 0);
    std::vector<size_t> row_of(k + 1, 0), way(k + 1, 0);
    for (size_t i = 1; i <= n; ++i) {
        row_of[0] = i;
        size_t j0 = 0;
        std::vector<double> min_reduced(k + 1, inf);
        std::vector<bool> used(k + 1, false);
        do {
            used[j0] = true;
            const size_t i0 = row_of[j0];
            double delta = inf;
            size_t j1 = 0;
            for (size_t j = 1; j <= k; ++j) {
                if (used[j])
                    continue;
                const double reduced = m.at(i0 - 1, j - 1) - u[i0] - v[j];
                if (reduced < min_reduced[j]) {
                    min_reduced[j] = reduced;
                    way[j] = j0;
                }
                if (min_reduced[j] < delta) {
                    delta = min_reduced[j];
                    j1 = j;
                }
            }
            for (size_t j = 0; j <= k; ++j) {
                if (used[j]) {
                    u[row_of[j]] += delta;
                    v[j] -= delta;
                } else {
                    min_reduced[j] -= delta;
                }
            }
            j0 = j1;
        } while (row_of[j0] != 0);
        do {
            const size_t j1 = way[j0];
            row_of[j0] = row_of[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<int> col_of(n, -1);
    for (size_t j = 1; j <= k; ++j)
        if (row_of[j] != 0)
            col_of[row_of[j] - 1] = static_cast<int>(j - 1);
    return col_of;
}

/* The optimal assignment of any shape: a matrix with more rows than
 * columns is solved transposed. Refused pairs are dropped. */
std::vector<int> solve(const CostMatrix& m)
{
    std::vector<int> col_of(m.rows, -1);
    if (m.rows <= m.cols) {
        col_of = hungarian(m);
    } else {
        CostMatrix t(m.cols, m.rows);
        for (size_t r = 0; r < m.rows; ++r)
            for (size_t c = 0; c < m.cols; ++c)
                t.at(c, r) = m.at(r, c);
        const std::vector<int> row_of = hungarian(t);
        for (size_t c = 0; c < m.cols; ++c)
            if (row_of[c] >= 0)
                col_of[static_cast<size_t>(row_of[c])] = static_cast<int>(c);
    }
    for (size_t r = 0; r < m.rows; ++r)
        if (col_of[r] >= 0 && !allowed(m.at(r, static_cast<size_t>(col_of[r]))))
            col_of[r] = -1;
    return col_of;
}

/* Best pair first (ties: the earlier row, then the earlier column). */
std::vector<int> greedy(const CostMatrix& m)
{
    std::vector<std::tuple<double, size_t, size_t>> pairs;
    for (size_t r = 0; r < m.rows; ++r)
        for (size_t c = 0; c < m.cols; ++c)
            if (allowed(m.at(r, c)))
                pairs.emplace_back(m.at(r, c), r, c);
    std::sort(pairs.begin(), pairs.end());
    std::vector<int> col_of(m.rows, -1);
    std::vector<bool> taken(m.cols, false);
    for (const auto& [cost, r, c] : pairs)
        if (col_of[r] < 0 && !taken[c]) {
            col_of[r] = static_cast<int>(c);
            taken[c] = true;
        }
    return col_of;
}

size_t find(std::vector<size_t>& parent, size_t x)
{
    while (parent[x] != x)
        x = parent[x] = parent[parent[x]];
    return x;
}

}  // namespace

std::vector<int> assign_optimally(const CostMatrix& m, size_t optimal_limit)
{
    /* Groups: rows are nodes 0..rows-1, columns rows..rows+cols-1, joined
     * by every allowed pair. */
    std::vector<size_t> parent(m.rows + m.cols);
    std::iota(parent.begin(), parent.end(), size_t{0});
    for (size_t r = 0; r < m.rows; ++r)
        for (size_t c = 0; c < m.cols; ++c)
            if (allowed(m.at(r, c)))
                parent[find(parent, r)] = find(parent, m.rows + c);
    std::vector<std::vector<size_t>> group_rows(parent.size()), group_cols(parent.size());
    for (size_t r = 0; r < m.rows; ++r)
        group_rows[find(parent, r)].push_back(r);
    for (size_t c = 0; c < m.cols; ++c)
        group_cols[find(parent, m.rows + c)].push_back(c);

    std::vector<int> col_of(m.rows, -1);
    for (size_t g = 0; g < parent.size(); ++g) {
        const std::vector<size_t>&rows = group_rows[g], &cols = group_cols[g];
        if (rows.empty() || cols.empty())
            continue;
        CostMatrix sub(rows.size(), cols.size());
        /* Every refused value alike: the method must not weigh one refusal
         * against another, or against an allowed cost. */
        for (size_t r = 0; r < rows.size(); ++r)
            for (size_t c = 0; c < cols.size(); ++c)
                sub.at(r, c) = std::min(m.at(rows[r], cols[c]), CostMatrix::kForbidden);
        const bool small = rows.size() <= optimal_limit && cols.size() <= optimal_limit;
        const std::vector<int> sub_col = small ? solve(sub) : greedy(sub);
        for (size_t r = 0; r < rows.size(); ++r)
            if (sub_col[r] >= 0)
                col_of[rows[r]] = static_cast<int>(cols[static_cast<size_t>(sub_col[r])]);
    }
    return col_of;
}

}  // namespace waldboost::tracking
