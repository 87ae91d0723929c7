/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * validate(): the models it accepts, boundaries included, each problem it
 * rejects, and the stage count.
 */
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

TEST(Validate, AcceptsAValidModelAndBoundaries)
{
    Classifier c = make_model();
    EXPECT_NO_THROW(validate(c, "m"));
    /* x + 3 * width == window width fits exactly. */
    c.weak[0].feature = waldboost::LbpFeature{0, 0, 8, 8};
    c.weak[1].feature = waldboost::LbpFeature{21, 21, 1, 1};
    EXPECT_NO_THROW(validate(c, "m"));
    /* Neighbours of the refused ranges stay valid. */
    for (const char* label :
         {"\xc2\xa0", "\xe2\x80\xa9x", "\xe2\x80\xaf", "\xe2\x81\xa5", "\xe2\x81\xaa", "visage \xc3\xa9"}) {
        c.label = label;
        EXPECT_NO_THROW(validate(c, "m")) << label;
    }
    c.label = std::string(ModelLimits::kMaxLabelLength, 'a');
    c.window_width = ModelLimits::kMaxWindowSide;
    c.weak[1].reject_threshold = kNoRejection;
    EXPECT_NO_THROW(validate(c, "m"));
}

TEST(Validate, RejectsEachProblem)
{
    const auto expect_invalid = [](const std::function<void(Classifier&)>& change, const std::string& fragment) {
        Classifier c = make_model();
        change(c);
        SCOPED_TRACE(fragment);
        expect_error(
            [&] {
                validate(c, "model.xml");
            },
            {"model.xml: ", fragment});
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    expect_invalid(
        [](Classifier& c) {
            c.weak.clear();
        },
        "no weak classifiers");
    expect_invalid(
        [](Classifier& c) {
            c.window_width = 0;
        },
        "window size 0x24");
    expect_invalid(
        [](Classifier& c) {
            c.window_height = ModelLimits::kMaxWindowSide + 1;
        },
        "window size 24x1025");
    expect_invalid(
        [](Classifier& c) {
            c.weak.resize(ModelLimits::kMaxWeakClassifiers + 1, c.weak[0]);
        },
        "65536 weak classifiers (the limit is 65535)");
    expect_invalid(
        [](Classifier& c) {
            c.label = std::string(ModelLimits::kMaxLabelLength + 1, 'a');
        },
        "label");
    expect_invalid(
        [](Classifier& c) {
            c.label = "a\nb";
        },
        "control character");
    expect_invalid(
        [](Classifier& c) {
            c.label = "\xff";
        },
        "UTF-8");
    /* C1 controls (U+009B is a terminal CSI) and bidi controls, which
     * waldboost-convert and logs would otherwise show raw. */
    expect_invalid(
        [](Classifier& c) {
            c.label = "face\xc2\x9b"
                      "31m";
        },
        "C1 control character");
    expect_invalid(
        [](Classifier& c) {
            c.label = "\xc2\x80";
        },
        "C1 control character");
    expect_invalid(
        [](Classifier& c) {
            c.label = "eca\xe2\x80\xae"
                      "f";
        },
        "bidi");
    expect_invalid(
        [](Classifier& c) {
            c.label = "\xe2\x80\xaa";
        },
        "bidi");
    expect_invalid(
        [](Classifier& c) {
            c.label = "a\xe2\x81\xa6"
                      "b";
        },
        "bidi");
    expect_invalid(
        [](Classifier& c) {
            c.label = "\xe2\x81\xa9";
        },
        "bidi");
    expect_invalid(
        [](Classifier& c) {
            c.label = "face\xef\xbf\xbe";
        },
        "U+FFFE or U+FFFF");
    expect_invalid(
        [](Classifier& c) {
            c.label = "\xef\xbf\xbf";
        },
        "U+FFFE or U+FFFF");
    expect_invalid(
        [](Classifier& c) {
            c.label.clear();
        },
        "label is empty");
    {
        /* Valid, but too large to write as a file the loaders would accept. */
        Classifier big = make_model();
        lbp_table(big.weak[0]).fill(0.123456789f); /* 12 characters each when written */
        big.weak.resize(4000, big.weak[0]);        /* about 12 MB of XML */
        ASSERT_NO_THROW(validate(big, "<big>"));
        try {
            write_waldboost_xml(big);
            FAIL() << "a model over the file-size limit was written";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("limit for classifier files"), std::string::npos) << e.what();
        }
    }
    expect_invalid(
        [nan](Classifier& c) {
            lbp_table(c.weak[1])[77] = nan;
        },
        "weak classifier 1: the response for LBP code 77");
    expect_invalid(
        [inf](Classifier& c) {
            lbp_table(c.weak[0])[0] = -inf;
        },
        "weak classifier 0: the response for LBP code 0");
    expect_invalid(
        [nan](Classifier& c) {
            c.weak[0].reject_threshold = nan;
        },
        "weak classifier 0: the reject threshold");
    expect_invalid(
        [inf](Classifier& c) {
            c.weak[0].reject_threshold = inf;
        },
        "weak classifier 0: the reject threshold");
    expect_invalid(
        [](Classifier& c) {
            c.weak[0].reject_threshold = -1e35f;
        },
        "-1e30");
    expect_invalid(
        [nan](Classifier& c) {
            c.final_threshold = nan;
        },
        "final threshold");
    expect_invalid(
        [inf](Classifier& c) {
            c.final_threshold = -inf;
        },
        "final threshold");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[0]).block_width = 0;
        },
        "weak classifier 0: feature (x=0, y=0, 3 blocks of 0x8)");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[0]).block_height = -2;
        },
        "empty block");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[1]).x = -1;
        },
        "negative position");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[1]).y = -5;
        },
        "negative position");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[0]).block_height = 9;
        },
        "does not fit the 24x24 window");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[0]).x = 1000000000;
        },
        "does not fit");
    expect_invalid(
        [](Classifier& c) {
            lbp(c.weak[0]).block_width = 1000000000;
        },
        "does not fit");

    Classifier c = make_model();
    c.weak[1].feature = waldboost::LbpFeature{20, 3, 4, 2};
    try {
        validate(c, "face.xml");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "face.xml: weak classifier 1: feature (x=20, y=3, 3 blocks of 4x2) does not fit the 24x24 window");
    }
}

TEST(Validate, StageCount)
{
    Classifier c = make_model();
    EXPECT_EQ(c.stage_count(), 1u);
    c.weak[0].reset_sum_after = true;
    EXPECT_EQ(c.stage_count(), 2u);
    c.weak[1].reset_sum_after = true;
    EXPECT_EQ(c.stage_count(), 2u);
    c.weak.clear();
    EXPECT_EQ(c.stage_count(), 0u);
}
