/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Rank features (LRD, LRP) in WaldBoost XML: exact fields, round trips, the
 * malformed files refused naming the problem, and validate() on each
 * problem.
 */
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "core/model/classifier_io.h"
#include "../fuzz/model_difference.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

namespace {

std::string rank_feature_xml(const std::string& x, const std::string& y, const std::string& w, const std::string& h,
                             const std::string& a, const std::string& b)
{
    return "<RankFeature positionX=\"" + x + "\" positionY=\"" + y + "\" blockWidth=\"" + w + "\" blockHeight=\"" + h +
           "\" blockA=\"" + a + "\" blockB=\"" + b + "\"/>";
}

/* A valid two-stage LRD (17 values) or LRP (81 values) file. */
std::string valid_rank(const std::string& type)
{
    const size_t n = type == "LRD" ? 17 : 81;
    return waldboost_doc("classifierName=\"eye\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"20\" type=\"" + type +
                             "\"",
                         histogram_stage("posT=\"1e+50\" negT=\"-0.5\"", number_list(n, -1.0, 0.0078125),
                                         rank_feature_xml("7", "5", "2", "3", "0", "8")) +
                             histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(n, 0.25, 0.125),
                                             rank_feature_xml("21", "11", "1", "3", "4", "3")));
}

const RankFeature& rank_of(const Classifier& c, size_t i) { return std::get<RankFeature>(c.weak.at(i).feature); }

}  // namespace

TEST(RankFeatures, ValidFilesGiveExactFields)
{
    for (const std::string type : {"LRD", "LRP"}) {
        SCOPED_TRACE(type);
        const size_t n = type == "LRD" ? 17 : 81;
        const Classifier c = load_classifier_memory(valid_rank(type), "rank.xml");
        EXPECT_EQ(c.label, "eye");
        EXPECT_EQ(c.window_width, 24);
        EXPECT_EQ(c.window_height, 20);
        ASSERT_EQ(c.weak.size(), 2u);
        EXPECT_STREQ(feature_type_name(c.weak[0].feature), type.c_str());
        const RankFeature& f = rank_of(c, 0);
        EXPECT_EQ(f.kind, type == "LRD" ? RankFeature::Kind::Difference : RankFeature::Kind::Pair);
        EXPECT_EQ(f.x, 7);
        EXPECT_EQ(f.y, 5);
        EXPECT_EQ(f.block_width, 2);
        EXPECT_EQ(f.block_height, 3);
        EXPECT_EQ(f.block_a, 0);
        EXPECT_EQ(f.block_b, 8);
        ASSERT_EQ(f.responses.size(), n);
        for (size_t i = 0; i < n; ++i)
            EXPECT_EQ(f.responses[i], static_cast<float>(-1.0 + 0.0078125 * static_cast<double>(i))) << i;
        EXPECT_EQ(c.weak[0].reject_threshold, -0.5f);
        EXPECT_EQ(c.weak[1].reject_threshold, kNoRejection);
        /* A grid that ends exactly at the window's edge fits. */
        EXPECT_EQ(rank_of(c, 1).x + 3 * rank_of(c, 1).block_width, 24);
        EXPECT_EQ(rank_of(c, 1).y + 3 * rank_of(c, 1).block_height, 20);
        EXPECT_EQ(rank_of(c, 1).block_a, 4);
        EXPECT_EQ(rank_of(c, 1).block_b, 3);
        EXPECT_EQ(rank_of(c, 1).responses.back(), static_cast<float>(0.25 + 0.125 * static_cast<double>(n - 1)));
    }
}

TEST(RankFeatures, RoundTripIsIdentical)
{
    for (const std::string type : {"LRD", "LRP"}) {
        SCOPED_TRACE(type);
        Classifier original = load_classifier_memory(valid_rank(type), "rank.xml");
        /* Values that need every digit, a stage reset and a final threshold. */
        std::get<RankFeature>(original.weak[1].feature).responses[3] = 1.0f / 3.0f;
        std::get<RankFeature>(original.weak[1].feature).responses[5] = -3.4e38f;
        original.weak[0].reset_sum_after = true;
        original.final_threshold = -0.333333343f;
        const std::string written = write_waldboost_xml(original);
        EXPECT_NE(written.find("type=\"" + type + "\""), std::string::npos) << written.substr(0, 300);
        EXPECT_NE(written.find("<RankFeature positionX=\"7\" positionY=\"5\" blockWidth=\"2\" blockHeight=\"3\" "
                               "blockA=\"0\" blockB=\"8\"/>"),
                  std::string::npos)
            << written;
        const Classifier again = load_classifier_memory(written, "written.xml");
        expect_identical(original, again);
        EXPECT_EQ(write_waldboost_xml(again), written);
    }
    /* The comparison the round trips rely on sees each field. */
    const Classifier base = load_classifier_memory(valid_rank("LRP"), "rank.xml");
    for (const auto& change : std::vector<std::function<void(RankFeature&)>>{[](RankFeature& f) {
                                                                                 f.block_a = 1;
                                                                             },
                                                                             [](RankFeature& f) {
                                                                                 f.block_b = 1;
                                                                             },
                                                                             [](RankFeature& f) {
                                                                                 f.x = 1;
                                                                             },
                                                                             [](RankFeature& f) {
                                                                                 f.block_height = 1;
                                                                             },
                                                                             [](RankFeature& f) {
                                                                                 f.kind = RankFeature::Kind::Difference;
                                                                             },
                                                                             [](RankFeature& f) {
                                                                                 f.responses[80] = 0.0f;
                                                                             }}) {
        Classifier other = base;
        change(std::get<RankFeature>(other.weak[0].feature));
        EXPECT_NE(waldboost_compare::feature_difference(base.weak[0], other.weak[0]), "");
    }
}

TEST(RankFeatures, MalformedFilesAreRefusedNamingTheProblem)
{
    const std::string name = "rank.xml";
    struct Case {
        std::string type;
        std::string from;
        std::string to;
        std::vector<std::string> fragments;
        std::string line_needle;  // the element whose line the message names
    };
    const std::string lrd = number_list(17, 0.25, 0.125);
    const std::string lrp = number_list(81, 0.25, 0.125);
    const std::string lbp = number_list(256, 0.25, 0.125);
    const std::vector<Case> cases = {
        {"LRD",
         lrd,
         number_list(16, 0.25, 0.125),
         {"HistogramWeakHypothesis", "predictionValues", "expected 17 numbers, found 16"},
         "predictionValues=\"0.25"},
        {"LRD",
         lrd,
         number_list(18, 0.25, 0.125),
         {"predictionValues", "expected 17 numbers, found 18"},
         "predictionValues=\"0.25"},
        {"LRD", lrd, lrp, {"predictionValues", "expected 17 numbers, found 81"}, "predictionValues=\"0.25"},
        {"LRP", lrp, lrd, {"predictionValues", "expected 81 numbers, found 17"}, "predictionValues=\"0.25"},
        {"LRP", lrp, lbp, {"predictionValues", "expected 81 numbers, found 256"}, "predictionValues=\"0.25"},
        {"LRD",
         lrd,
         number_list(16, 0.25, 0.125) + " nan",
         {"predictionValues", "value 16", "'nan' is not a finite number"},
         "predictionValues=\"0.25"},
        {"LRP",
         lrp,
         "inf " + number_list(80, 0.25, 0.125),
         {"predictionValues", "value 0", "'inf' is not a finite number"},
         "predictionValues=\"inf"},
        {"LRD",
         "blockA=\"4\"",
         "blockA=\"9\"",
         {"RankFeature", "blockA", "9 is out of range (0 to 8)"},
         "blockA=\"9\""},
        {"LRP",
         "blockB=\"3\"",
         "blockB=\"-1\"",
         {"RankFeature", "blockB", "-1 is out of range (0 to 8)"},
         "blockB=\"-1\""},
        {"LRD",
         "blockA=\"4\"",
         "blockA=\"3\"",
         {"RankFeature", "blockA and blockB are both 3", "two different blocks"},
         "blockA=\"3\""},
        {"LRP", "blockA=\"4\"", "blockA=\"x\"", {"blockA", "'x' is not an integer"}, "blockA=\"x\""},
        {"LRD", "blockB=\"3\"", "", {"RankFeature", "missing attribute blockB"}, "<RankFeature positionX=\"21\""},
        {"LRP", "blockA=\"4\" ", "", {"RankFeature", "missing attribute blockA"}, "<RankFeature positionX=\"21\""},
        {"LRD",
         "positionX=\"21\"",
         "positionX=\"22\"",
         {"feature (x=22, y=11, 3 blocks of 1x3) does not fit the 24x20 window"},
         "positionX=\"22\""},
        {"LRP",
         "blockHeight=\"3\" blockA=\"4\"",
         "blockHeight=\"4\" blockA=\"4\"",
         {"feature (x=21, y=11, 3 blocks of 1x4) does not fit the 24x20 window"},
         "blockHeight=\"4\""},
        {"LRD",
         "blockWidth=\"1\"",
         "blockWidth=\"0\"",
         {"blockWidth", "0 is out of range (1 to 1024)"},
         "blockWidth=\"0\""},
        {"LRP", "positionY=\"11\"", "positionY=\"-2\"", {"positionY", "-2 is out of range"}, "positionY=\"-2\""},
        {"LRD",
         "blockB=\"3\"",
         "blockB=\"3\" binMappingType=\"NONE\"",
         {"RankFeature", "unknown attribute 'binMappingType'"},
         "<RankFeature positionX=\"21\""},
        {"LRP",
         "blockB=\"3\"/>",
         "blockB=\"3\"><x/></RankFeature>",
         {"unknown element (RankFeature has no child elements)"},
         "<x/>"},
        {"LRD",
         "<RankFeature positionX=\"21\"",
         "<LBPFeature positionX=\"21\"",
         {"LBPFeature", "unknown element (expected <RankFeature> inside <HistogramWeakHypothesis>)"},
         "<LBPFeature"},
        {"LRP",
         "</HistogramWeakHypothesis>\n  </stage>\n</Wald",
         rank_feature_xml("0", "0", "1", "1", "0", "1") + "</HistogramWeakHypothesis>\n  </stage>\n</Wald",
         {"duplicate element (a weak hypothesis has exactly one <RankFeature>)"},
         "<RankFeature positionX=\"0\""},
        {"LRD",
         rank_feature_xml("21", "11", "1", "3", "4", "3"),
         "",
         {"missing element <RankFeature>"},
         "predictionValues=\"0.25"},
        {"LRP",
         "<HistogramWeakHypothesis predictionValues=\"0.25",
         "<DecisionTreeWeakHypothesis/><HistogramWeakHypothesis predictionValues=\"0.25",
         {"unknown element (expected <HistogramWeakHypothesis> inside <stage> of a LRP classifier)"},
         "<DecisionTreeWeakHypothesis"},
        {"LRD",
         "minStdDev=\"0\"",
         "minStdDev=\"2\"",
         {"minStdDev", "not supported", "LRD and LRP ones never"},
         "<WaldBoostClassifier"},
        {"LRD",
         "type=\"LRD\"",
         "type=\"LRX\"",
         {"LRX features are not supported; only LBP, HAAR, LRD and LRP"},
         "<WaldBoostClassifier"},
        {"LRD", "type=\"LRD\"", "type=\"LBP\"", {"expected 256 numbers, found 17"}, "predictionValues="},
        /* LRD and LRP are two families: an LRP file with LRD tables is refused. */
        {"LRD", "type=\"LRD\"", "type=\"LRP\"", {"expected 81 numbers, found 17"}, "predictionValues="},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.type + ": " + c.from.substr(0, 40) + " -> " + c.to.substr(0, 40));
        const std::string text = replace_once(valid_rank(c.type), c.from, c.to);
        const std::string message = expect_error(
            [&] {
                load_classifier_memory(text, name);
            },
            {});
        for (const auto& f : c.fragments)
            EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
        const std::string where = at_line(name, text, c.line_needle);
        EXPECT_EQ(message.rfind(where, 0), 0u) << "expected to start with " << where << ": " << message;
    }
}

TEST(RankFeatures, ValidateRejectsEachProblem)
{
    const Classifier base = load_classifier_memory(valid_rank("LRD"), "rank.xml");
    const auto expect_invalid = [&](const std::function<void(Classifier&)>& change, const std::string& fragment) {
        Classifier c = base;
        change(c);
        SCOPED_TRACE(fragment);
        expect_error(
            [&] {
                validate(c, "model.xml");
            },
            {"model.xml: ", fragment});
        /* Nor is it written. */
        expect_error(
            [&] {
                write_waldboost_xml(c);
            },
            {fragment});
    };
    const auto feature = [](Classifier& c, size_t i) -> RankFeature& {
        return std::get<RankFeature>(c.weak[i].feature);
    };
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 1).block_a = 9;
        },
        "weak classifier 1: feature (x=21, y=11, 3 blocks of 1x3, blocks 9 and 3): block 9 does not exist");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).block_b = -1;
        },
        "block -1 does not exist (blocks are numbered 0 to 8)");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).block_b = 0;
        },
        "compares a block with itself");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).responses.pop_back();
        },
        "weak classifier 0: an LRD feature has 16 responses (it needs 17)");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).responses.resize(81);
        },
        "an LRD feature has 81 responses (it needs 17)");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 1).kind = RankFeature::Kind::Pair;
        },
        "weak classifier 1: it uses LRP features, the first one LRD");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 1).responses[16] = std::numeric_limits<float>::quiet_NaN();
        },
        "weak classifier 1: response 16 of the LRD table is not a finite number");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).block_width = 0;
        },
        "has an empty block");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 0).y = -1;
        },
        "has a negative position");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 1).x = 22;
        },
        "does not fit the 24x20 window");
    expect_invalid(
        [&](Classifier& c) {
            feature(c, 1).block_height = 1000000000;
        },
        "does not fit the 24x20 window");
    expect_invalid(
        [&](Classifier& c) {
            c.weak[1].feature = waldboost::LbpFeature{0, 0, 1, 1};
        },
        "weak classifier 1: it uses LBP features, the first one LRD");
}
