/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * WaldBoost XML, the project's own classifier format: the fields its
 * elements and attributes give, and the writer's output read back
 * identical (gst/core/model/waldboost_xml.cpp).
 */
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

TEST(WaldBoostXml, HistogramFileGivesExactFields)
{
    TempDir dir;
    const std::string values0 = number_list(256, -1.0, 0.0078125);  // exact in float
    const std::string text = waldboost_doc(
        "classifierName=\"face\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"20\" type=\"LBP\"",
        histogram_stage("posT=\"1e+50\" negT=\"-0.0657414\"", values0, feature_xml("7", "5", "2", "3")) +
            histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(256, 0.1, 0.0),
                            feature_xml("0", "1", "8", "6")) +
            histogram_stage("posT=\"1e+50\"", number_list(256, -2.0, 0.0), feature_xml("21", "17", "1", "1")));
    const std::string path = dir.write("histogram.xml", text);
    const Classifier c = load_classifier_file(path);

    EXPECT_EQ(c.label, "face");
    EXPECT_EQ(c.window_width, 24);
    EXPECT_EQ(c.window_height, 20);
    EXPECT_EQ(c.final_threshold, 0.0f);
    ASSERT_EQ(c.weak.size(), 3u);
    EXPECT_EQ(c.stage_count(), 1u);

    EXPECT_EQ(lbp(c.weak[0]).x, 7);
    EXPECT_EQ(lbp(c.weak[0]).y, 5);
    EXPECT_EQ(lbp(c.weak[0]).block_width, 2);
    EXPECT_EQ(lbp(c.weak[0]).block_height, 3);
    EXPECT_EQ(c.weak[0].reject_threshold, -0.0657414f);
    EXPECT_FALSE(c.weak[0].reset_sum_after);
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[0])[i], static_cast<float>(-1.0 + 0.0078125 * i)) << i;

    EXPECT_EQ(c.weak[1].reject_threshold, kNoRejection);
    EXPECT_EQ(lbp(c.weak[1]).y, 1);
    EXPECT_EQ(lbp(c.weak[1]).block_height, 6);
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[1])[i], 0.1f);
    /* A missing negT means no rejection. */
    EXPECT_EQ(c.weak[2].reject_threshold, kNoRejection);
    EXPECT_EQ(lbp_table(c.weak[2])[255], -2.0f);
    EXPECT_EQ(lbp(c.weak[2]).x, 21);
}

TEST(WaldBoostXml, SizeAliasesAndDefaultLabel)
{
    const std::string text =
        waldboost_doc("classifierName=\"\" sizeX=\"20\" sizeY=\"30\" type=\"LBP\"",
                      histogram_stage("negT=\"1.25\"", number_list(256, 0, 1), feature_xml("2", "3", "6", "9")));
    const Classifier c = load_classifier_memory(text, "alias.xml");
    EXPECT_EQ(c.window_width, 20);
    EXPECT_EQ(c.window_height, 30);
    EXPECT_EQ(c.label, "object");
    EXPECT_EQ(c.weak.at(0).reject_threshold, 1.25f);
    EXPECT_EQ(lbp_table(c.weak.at(0))[200], 200.0f);

    const std::string both = replace_once(text, "sizeX=\"20\"", "sizeX=\"20\" imageSizeX=\"20\"");
    expect_error(
        [&] {
            load_classifier_memory(both, "both.xml");
        },
        {"both.xml:2:", "imageSizeX", "sizeX"});
    const std::string neither = replace_once(text, "sizeX=\"20\"", "");
    expect_error(
        [&] {
            load_classifier_memory(neither, "neither.xml");
        },
        {"neither.xml:2:", "missing attribute imageSizeX"});
}

TEST(WaldBoostXml, DecisionTreeUsesBinMap)
{
    std::string bin_map;
    for (int i = 0; i < 256; ++i)
        bin_map += (i ? " " : "") + std::to_string((i * 7) % 3);
    const std::string text =
        waldboost_doc(kRoot24, "  <stage posT=\"1e+50\" negT=\"-3\">\n    <DecisionTreeWeakHypothesis "
                               "predictionValues=\"1.5 -2.25 3\" binMap=\"" +
                                   bin_map + "\">\n      " + feature_xml("1", "2", "3", "4") +
                                   "\n    </DecisionTreeWeakHypothesis>\n  </stage>\n");
    const Classifier c = load_classifier_memory(text, "tree.xml");
    ASSERT_EQ(c.weak.size(), 1u);
    const float values[] = {1.5f, -2.25f, 3.0f};
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[0])[i], values[(i * 7) % 3]) << i;
    EXPECT_EQ(c.weak[0].reject_threshold, -3.0f);
    EXPECT_EQ(lbp(c.weak[0]).block_height, 4);

    const std::string bad = replace_once(text, "binMap=\"0 ", "binMap=\"3 ");
    expect_error(
        [&] {
            load_classifier_memory(bad, "tree.xml");
        },
        {"tree.xml:" + std::to_string(line_of(bad, "<DecisionTree")) + ":", "DecisionTreeWeakHypothesis", "binMap",
         "3 is out of range (0 to 2)"});
    const std::string short_map = replace_once(text, "binMap=\"0 ", "binMap=\"");
    expect_error(
        [&] {
            load_classifier_memory(short_map, "tree.xml");
        },
        {"binMap", "expected 256 integers, found 255"});
}

TEST(WaldBoostXml, ResetSumAndFinalThreshold)
{
    const std::string text = waldboost_doc(
        "classifierName=\"x\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\" finalThreshold=\"0.75\"",
        histogram_stage("posT=\"1e+50\" negT=\"-1e+50\" resetSum=\"0\"", number_list(256, 1, 0),
                        feature_xml("0", "0", "1", "1")) +
            histogram_stage("posT=\"1e+50\" negT=\"-0.5\" resetSum=\"1\"", number_list(256, 1, 0),
                            feature_xml("0", "0", "1", "1")) +
            histogram_stage("posT=\"1e+50\" negT=\"0.5\"", number_list(256, 1, 0), feature_xml("0", "0", "1", "1")));
    const Classifier c = load_classifier_memory(text, "reset.xml");
    EXPECT_EQ(c.final_threshold, 0.75f);
    ASSERT_EQ(c.weak.size(), 3u);
    EXPECT_FALSE(c.weak[0].reset_sum_after);
    EXPECT_TRUE(c.weak[1].reset_sum_after);
    EXPECT_FALSE(c.weak[2].reset_sum_after);
    EXPECT_EQ(c.weak[1].reject_threshold, -0.5f);
    EXPECT_EQ(c.stage_count(), 2u);

    expect_error(
        [&] {
            load_classifier_memory(replace_once(text, "resetSum=\"1\"", "resetSum=\"yes\""), "r.xml");
        },
        {"r.xml:", "stage", "resetSum"});
}

TEST(WaldBoostXml, RoundTripIsIdentical)
{
    std::string bin_map;
    for (int i = 0; i < 256; ++i)
        bin_map += (i ? " " : "") + std::to_string(i % 2);
    const std::string text = waldboost_doc(
        "classifierName=\"a &lt;&amp;&quot; b\" sizeX=\"31\" sizeY=\"17\" type=\"LBP\" finalThreshold=\"-0.333333343\"",
        histogram_stage("posT=\"1e+50\" negT=\"-0.1\" resetSum=\"1\"", number_list(256, 1.0 / 3.0, 1e-7),
                        feature_xml("1", "2", "3", "4")) +
            "  <stage negT=\"-1e+40\">\n    <DecisionTreeWeakHypothesis predictionValues=\"1e-30 -3.4e38\" binMap=\"" +
            bin_map + "\">\n      " + feature_xml("0", "0", "10", "5") +
            "\n    </DecisionTreeWeakHypothesis>\n  </stage>\n");
    const Classifier original = load_classifier_memory(text, "rt.xml");
    EXPECT_EQ(original.label, "a <&\" b");
    EXPECT_EQ(original.weak.at(1).reject_threshold, kNoRejection);
    const std::string written = write_waldboost_xml(original);
    const Classifier again = load_classifier_memory(written, "written.xml");
    expect_identical(original, again);
    EXPECT_EQ(write_waldboost_xml(again), written);
}

TEST(WaldBoostXml, WriterOutput)
{
    Classifier c = make_model();
    c.label = "<cat & \"dog\">";
    c.weak[1].reset_sum_after = true;
    c.weak[1].reject_threshold = 0.1f;
    c.final_threshold = 0.1f;
    const std::string xml = write_waldboost_xml(c);
    EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u) << xml.substr(0, 60);
    EXPECT_NE(xml.find("classifierName=\"&lt;cat &amp; &quot;dog&quot;&gt;\""), std::string::npos);
    /* The shortest text that reads back as the same float. */
    EXPECT_NE(xml.find("finalThreshold=\"0.1\""), std::string::npos);
    EXPECT_NE(xml.find("negT=\"-1.5\""), std::string::npos);
    EXPECT_EQ(count_of(xml, "posT=\"1e+50\""), 2u);
    EXPECT_EQ(count_of(xml, "resetSum=\"1\""), 1u);
    EXPECT_EQ(count_of(xml, "<HistogramWeakHypothesis"), 2u);
    c.weak[0].reject_threshold = kNoRejection;
    EXPECT_NE(write_waldboost_xml(c).find("negT=\"-1e+50\""), std::string::npos);
    expect_identical(load_classifier_memory(write_waldboost_xml(c), "w.xml"), c);

    /* Every float bit pattern class survives: subnormal, extremes, -0. */
    lbp_table(c.weak[0])[0] = std::numeric_limits<float>::denorm_min();
    lbp_table(c.weak[0])[1] = std::numeric_limits<float>::max();
    lbp_table(c.weak[0])[2] = -std::numeric_limits<float>::max();
    lbp_table(c.weak[0])[3] = -0.0f;
    lbp_table(c.weak[0])[4] = std::nextafter(1.0f, 2.0f);
    expect_identical(load_classifier_memory(write_waldboost_xml(c), "w.xml"), c);

    c.weak.clear();
    expect_error(
        [&] {
            write_waldboost_xml(c);
        },
        {"no weak classifiers"});
}
