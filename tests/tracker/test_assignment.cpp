/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The optimal assignment (core/tracking/assignment.h) against a brute force,
 * its refusals and greedy fallback, and the ids it keeps where greedy would
 * not.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/tracking/assignment.h"
#include "core/tracking/tracker.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

namespace {

/* What a one-to-one assignment of a cost matrix achieves. */
struct Matching {
    size_t pairs = 0;
    double cost = 0;
};

bool allowed(const CostMatrix& m, size_t r, size_t c) { return m.at(r, c) < CostMatrix::kForbidden; }

/* Checks that `col_of` is a one-to-one assignment of allowed pairs, and
 * returns its size and cost. */
Matching checked_matching(const CostMatrix& m, const std::vector<int>& col_of)
{
    Matching result;
    EXPECT_EQ(col_of.size(), m.rows);
    std::vector<bool> taken(m.cols, false);
    for (size_t r = 0; r < col_of.size(); ++r) {
        if (col_of[r] < 0) {
            EXPECT_EQ(col_of[r], -1);
            continue;
        }
        const auto c = static_cast<size_t>(col_of[r]);
        if (c >= m.cols) {
            ADD_FAILURE() << "row " << r << " got column " << c << " of " << m.cols;
            continue;
        }
        EXPECT_FALSE(taken[c]) << "column " << c << " assigned twice";
        EXPECT_TRUE(allowed(m, r, c)) << "row " << r << " got the refused column " << c;
        taken[c] = true;
        ++result.pairs;
        result.cost += m.at(r, c);
    }
    return result;
}

/* Every partial one-to-one assignment, rows from `row` on: the most pairs,
 * then the least cost. */
void brute_force(const CostMatrix& m, size_t row, std::vector<bool>& taken, Matching so_far, Matching& best)
{
    if (row == m.rows) {
        if (so_far.pairs > best.pairs || (so_far.pairs == best.pairs && so_far.cost < best.cost))
            best = so_far;
        return;
    }
    brute_force(m, row + 1, taken, so_far, best);
    for (size_t c = 0; c < m.cols; ++c) {
        if (taken[c] || !allowed(m, row, c))
            continue;
        taken[c] = true;
        brute_force(m, row + 1, taken, Matching{so_far.pairs + 1, so_far.cost + m.at(row, c)}, best);
        taken[c] = false;
    }
}

Matching best_matching(const CostMatrix& m)
{
    std::vector<bool> taken(m.cols, false);
    Matching best;
    best.cost = std::numeric_limits<double>::infinity();
    brute_force(m, 0, taken, Matching{}, best);
    return best;
}

/* A random matrix of up to max_side x max_side: costs 0 to 9.99 in steps of
 * 0.01 (ties happen), about `forbidden_percent` of the entries refused, by
 * `forbidden` (kForbidden or more). */
CostMatrix random_costs(std::mt19937& rng, size_t max_side, unsigned forbidden_percent, double forbidden)
{
    CostMatrix m(1 + rng() % max_side, 1 + rng() % max_side);
    for (double& c : m.cost)
        c = rng() % 100 < forbidden_percent ? forbidden : static_cast<double>(rng() % 1000) / 100;
    return m;
}

}  // namespace

/* Two tracks T1 (x 100) and T2 (x 115) whose objects both moved 13 pixels
 * left. The best single pair is T1 with T2's detection (IoU 0.9); greedy
 * takes it, and T2 is left with no detection it may take (T1's is at IoU
 * 0.18, too far for the distance gate too): T2 missed and a new track on
 * T1's detection. The optimal assignment pairs both (IoU 0.5 each). */
TEST(TrackerAssignment, TheOptimalAssignmentKeepsIdsWhereGreedyWouldNot)
{
    TrackerConfig config;
    config.confirm_hits = 1;
    Tracker tracker(config);
    const Rect t1{100, 50, 40, 40}, t2{115, 50, 40, 40};
    const Rect d1 = moved(t1, -13, 0), d2 = moved(t2, -13, 0);
    const GrayImage before = scene(240, 140, {{t1, 1}, {t2, 2}});
    const GrayImage after = scene(240, 140, {{d1, 1}, {d2, 2}});
    tracker.update(before.view(), {{t1, 0, 1}, {t2, 0, 1}});
    const auto events = tracker.update(after.view(), {{d1, 0, 1}, {d2, 0, 1}});
    EXPECT_TRUE(events.empty());
    ASSERT_EQ(tracker.tracks().size(), 2u);
    ASSERT_NE(track_at(tracker, d1), nullptr);
    ASSERT_NE(track_at(tracker, d2), nullptr);
    EXPECT_EQ(track_at(tracker, d1)->id, 1);
    EXPECT_EQ(track_at(tracker, d2)->id, 2);

    /* The same choice on the costs (1 - IoU) themselves; a limit of one
     * row makes the group greedy, which takes the best pair. */
    CostMatrix m(2, 2);
    m.at(0, 0) = 0.5;
    m.at(0, 1) = 0.1;
    m.at(1, 1) = 0.5;
    EXPECT_EQ(assign_optimally(m), (std::vector<int>{0, 1}));
    EXPECT_EQ(assign_optimally(m, 1), (std::vector<int>{1, -1}));
}

/* assign_optimally on a few hundred random matrices up to 6 x 6 with refused
 * entries (some at kForbidden, some above it, both refused): a one-to-one
 * assignment of allowed pairs, with as many pairs as any, and of those the
 * least total cost, as a brute force over every assignment finds. */
TEST(TrackerAssignment, OptimalAgainstBruteForce)
{
    std::mt19937 rng(32);
    for (int n = 0; n < 400; ++n) {
        const double forbidden = n % 2 ? CostMatrix::kForbidden : 4 * CostMatrix::kForbidden;
        const CostMatrix m = random_costs(rng, 6, static_cast<unsigned>(n % 8) * 10, forbidden);
        const Matching got = checked_matching(m, assign_optimally(m));
        const Matching best = best_matching(m);
        EXPECT_EQ(got.pairs, best.pairs) << "case " << n << ", " << m.rows << " x " << m.cols;
        EXPECT_NEAR(got.cost, best.cost, 1e-9) << "case " << n << ", " << m.rows << " x " << m.cols;
    }
    /* No rows, no columns, nothing allowed. */
    EXPECT_TRUE(assign_optimally(CostMatrix(0, 3)).empty());
    EXPECT_EQ(assign_optimally(CostMatrix(2, 0)), (std::vector<int>{-1, -1}));
    EXPECT_EQ(assign_optimally(CostMatrix(2, 2)), (std::vector<int>{-1, -1}));
}

/* Every value at or above kForbidden is a refused pair alike: which refused
 * pairs the solver's full assignment goes through must not change the real
 * pairs it keeps. Row 0 may take column 1 (cost 0) or column 2 (cost 5);
 * rows 1 and 2 both take only column 0, so one of them is left with the
 * other column, refused in both: at kForbidden for column 1 and at
 * 4 kForbidden for column 2. The best real pairs are row 0 with column 1.
 * (Unclamped, the Hungarian weighed the refused values against the real
 * costs and gave row 0 column 2.) */
TEST(TrackerAssignment, EveryValueAtOrAboveForbiddenIsRefusedAlike)
{
    const double refused = CostMatrix::kForbidden;
    CostMatrix m(3, 3);
    m.at(0, 0) = 0;
    m.at(0, 1) = 0;
    m.at(0, 2) = 5;
    m.at(1, 0) = 0;
    m.at(2, 0) = 0;
    m.at(1, 1) = m.at(2, 1) = refused;
    m.at(1, 2) = m.at(2, 2) = 4 * refused;
    const std::vector<int> col_of = assign_optimally(m);
    const Matching got = checked_matching(m, col_of);
    EXPECT_EQ(got.pairs, 2u);
    EXPECT_EQ(got.cost, 0);
    EXPECT_EQ(col_of[0], 1);
}

/* Above optimal_limit the group is assigned greedily: still one-to-one and
 * of allowed pairs only, maximal (no allowed pair left with both its row
 * and its column free), and each pair the best left when it was taken
 * (best first; a limit of 0 makes every group greedy); at the default limit
 * these matrices are solved optimally, which differs. */
TEST(TrackerAssignment, TheGreedyFallbackIsAValidAssignment)
{
    std::mt19937 rng(64);
    int differs = 0;
    for (int n = 0; n < 300; ++n) {
        const CostMatrix m = random_costs(rng, 8, static_cast<unsigned>(n % 6) * 10, CostMatrix::kForbidden);
        const std::vector<int> col_of = assign_optimally(m, 0);
        const Matching got = checked_matching(m, col_of);
        std::vector<bool> row_free(m.rows), col_free(m.cols, true);
        for (size_t r = 0; r < m.rows; ++r) {
            row_free[r] = col_of[r] < 0;
            if (col_of[r] >= 0)
                col_free[static_cast<size_t>(col_of[r])] = false;
        }
        for (size_t r = 0; r < m.rows; ++r)
            for (size_t c = 0; c < m.cols; ++c) {
                EXPECT_FALSE(row_free[r] && col_free[c] && allowed(m, r, c)) << "case " << n;
                /* Best first: a pair cheaper than a taken one had its row
                 * or column taken by a pair no dearer. */
                if (col_of[r] >= 0 && static_cast<size_t>(col_of[r]) != c && allowed(m, r, c) &&
                    m.at(r, c) < m.at(r, static_cast<size_t>(col_of[r]))) {
                    bool column_taken_cheaper = false;
                    for (size_t o = 0; o < m.rows; ++o)
                        column_taken_cheaper |= o != r && col_of[o] == static_cast<int>(c) && m.at(o, c) <= m.at(r, c);
                    EXPECT_TRUE(column_taken_cheaper) << "case " << n << ", row " << r << ", column " << c;
                }
            }
        const Matching optimal = checked_matching(m, assign_optimally(m));
        EXPECT_LE(got.pairs, optimal.pairs) << "case " << n;
        if (got.pairs == optimal.pairs) {
            EXPECT_GE(got.cost, optimal.cost - 1e-9) << "case " << n;
        }
        differs += got.pairs != optimal.pairs || std::abs(got.cost - optimal.cost) > 1e-9;
    }
    EXPECT_GT(differs, 0); /* the limit was in force */
    /* A large group (more than the default limit of 128), nearly all pairs
     * allowed: greedy, valid. */
    CostMatrix big(150, 140);
    for (double& c : big.cost)
        c = rng() % 10 == 0 ? CostMatrix::kForbidden : static_cast<double>(rng() % 1000) / 1000;
    const Matching got = checked_matching(big, assign_optimally(big));
    EXPECT_EQ(got.pairs, 140u);
}
