/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference template search (core/tracking/template_search.h) on
 * its own, on hand-checkable shifts; the OpenCL search is compared with it
 * in test-template-search.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <utility>
#include <vector>

#include "core/tracking/template_search.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

/* The reference search itself: a template cut from one frame is found where
 * the content moved to, with SAD 0, when the move is within the radius. */
TEST(TemplateSearchReference, FindsAShiftedTemplateWithinTheRadius)
{
    for (const Rect box : {Rect{60, 40, 20, 16}, Rect{50, 30, 90, 70}}) {
        const GrayImage before = scene(320, 240, {{box, 11}});
        Rect sampled;
        const Template t = sample_template(before.view(), box, &sampled);
        EXPECT_EQ(sampled, box);
        EXPECT_LE(t.columns, kTemplateSide);
        EXPECT_LE(t.rows, kTemplateSide);
        for (const auto& [dx, dy] : std::vector<std::pair<int, int>>{{0, 0}, {7, -3}, {-12, 5}, {13, 13}}) {
            const GrayImage after = scene(320, 240, {{moved(box, dx, dy), 11}});
            const SearchResult r = search_template(after.view(), SearchRequest{&t, box.x, box.y, 14});
            ASSERT_TRUE(r.found);
            EXPECT_EQ(r.x, box.x + dx) << box.width;
            EXPECT_EQ(r.y, box.y + dy) << box.width;
            EXPECT_EQ(r.sad, 0u);
            const SearchResult beyond = search_template(after.view(), SearchRequest{&t, box.x, box.y, 2});
            if (std::max(std::abs(dx), std::abs(dy)) > 2) {
                EXPECT_GT(beyond.sad, 0u);
            }
        }
    }
    /* A grid that cannot stay in the frame is not found. */
    const GrayImage small = scene(30, 30, {});
    const Template big = sample_template(scene(100, 100, {{Rect{0, 0, 60, 60}, 1}}).view(), Rect{0, 0, 60, 60});
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&big, 0, 0, 10}).found);
}
