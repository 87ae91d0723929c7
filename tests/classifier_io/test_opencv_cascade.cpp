/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenCV's LBP cascades (gst/core/model/opencv_cascade.cpp): Debian's five
 * against an independent plain-text reading of their files, their labels,
 * their round trip through WaldBoost XML, and the kinds and malformed
 * cascades refused.
 */
#include <gtest/gtest.h>

#include <cstdint>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

namespace {

/* ---- An independent plain-text reading of an OpenCV cascade ----------- */

std::vector<std::string> raw_elements(const std::string& text, const std::string& tag)
{
    std::vector<std::string> result;
    const std::string open = "<" + tag + ">";
    const std::string close = "</" + tag + ">";
    size_t pos = 0;
    while ((pos = text.find(open, pos)) != std::string::npos) {
        const size_t start = pos + open.size();
        const size_t end = text.find(close, start);
        result.push_back(text.substr(start, end - start));
        pos = end;
    }
    return result;
}

template <typename T>
std::vector<T> numbers(const std::string& text)
{
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    std::vector<T> values;
    T v;
    while (in >> v)
        values.push_back(v);
    return values;
}

struct RawCascade {
    int width = 0;
    int height = 0;
    std::vector<double> stage_thresholds;
    std::vector<size_t> trees_per_stage;
    std::vector<std::vector<long long>> nodes;
    std::vector<std::vector<double>> leaves;
    std::vector<std::vector<int>> rects;
};

RawCascade read_raw(const std::string& text)
{
    RawCascade raw;
    raw.width = std::stoi(raw_elements(text, "width").at(0));
    raw.height = std::stoi(raw_elements(text, "height").at(0));
    for (const auto& s : raw_elements(text, "stageThreshold"))
        raw.stage_thresholds.push_back(numbers<double>(s).at(0));
    for (const auto& s : raw_elements(text, "internalNodes"))
        raw.nodes.push_back(numbers<long long>(s));
    for (const auto& s : raw_elements(text, "leafValues"))
        raw.leaves.push_back(numbers<double>(s));
    for (const auto& s : raw_elements(text, "rect"))
        raw.rects.push_back(numbers<int>(s));
    /* Trees of stage k lie between its threshold and the next one. */
    size_t pos = text.find("<stageThreshold>");
    while (pos != std::string::npos) {
        const size_t next = text.find("<stageThreshold>", pos + 1);
        const std::string part = text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        raw.trees_per_stage.push_back(count_of(part, "<internalNodes>"));
        pos = next;
    }
    return raw;
}

}  // namespace

TEST(OpenCvCascade, AllFiveRealCascadesMatchThePlainText)
{
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string path = cascade_path(known.stem);
        const std::string text = read_text(path);
        ASSERT_FALSE(text.empty()) << path;
        const RawCascade raw = read_raw(text);
        const Classifier c = load_classifier_file(path);

        EXPECT_EQ(c.label, known.label);
        EXPECT_EQ(c.window_width, raw.width);
        EXPECT_EQ(c.window_height, raw.height);
        EXPECT_EQ(c.window_width, known.width);
        EXPECT_EQ(c.window_height, known.height);
        EXPECT_EQ(c.stage_count(), count_of(text, "<stageThreshold>"));
        EXPECT_EQ(c.stage_count(), known.stages);
        EXPECT_EQ(c.weak.size(), count_of(text, "<internalNodes>"));
        EXPECT_EQ(c.weak.size(), known.trees);
        ASSERT_EQ(raw.nodes.size(), c.weak.size());
        ASSERT_EQ(raw.leaves.size(), c.weak.size());

        /* Stage ends: threshold, reset, and nothing inside a stage. */
        size_t tree = 0;
        for (size_t s = 0; s < raw.stage_thresholds.size(); ++s) {
            for (size_t t = 0; t < raw.trees_per_stage[s]; ++t, ++tree) {
                const bool last = t + 1 == raw.trees_per_stage[s];
                EXPECT_EQ(c.weak[tree].reset_sum_after, last) << tree;
                if (last) {
                    const float expected = static_cast<float>(raw.stage_thresholds[s]) - 1e-5f;
                    EXPECT_EQ(bits(c.weak[tree].reject_threshold), bits(expected)) << "stage " << s;
                } else {
                    EXPECT_EQ(c.weak[tree].reject_threshold, kNoRejection) << tree;
                }
            }
        }
        EXPECT_EQ(tree, c.weak.size());
        EXPECT_EQ(bits(c.final_threshold), bits(static_cast<float>(raw.stage_thresholds.back()) - 1e-5f));

        /* Every tree's table from the subset bits, and its rectangle. */
        for (size_t i = 0; i < c.weak.size(); ++i) {
            const auto& n = raw.nodes[i];
            ASSERT_EQ(n.size(), 11u);
            ASSERT_EQ(raw.leaves[i].size(), 2u);
            const auto& rect = raw.rects.at(static_cast<size_t>(n[2]));
            EXPECT_EQ(lbp(c.weak[i]).x, rect[0]);
            EXPECT_EQ(lbp(c.weak[i]).y, rect[1]);
            EXPECT_EQ(lbp(c.weak[i]).block_width, rect[2]);
            EXPECT_EQ(lbp(c.weak[i]).block_height, rect[3]);
            int mismatches = 0;
            for (int code = 0; code < 256; ++code) {
                const uint32_t word = static_cast<uint32_t>(static_cast<int32_t>(n[3 + code / 32]));
                const bool bit = (word >> (code % 32)) & 1u;
                const float expected = static_cast<float>(raw.leaves[i][bit ? 0 : 1]);
                mismatches += bits(lbp_table(c.weak[i])[code]) != bits(expected);
            }
            EXPECT_EQ(mismatches, 0) << "tree " << i;
        }
    }
}

TEST(OpenCvCascade, RoundTripThroughWaldBoostXml)
{
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const Classifier original = load_classifier_file(cascade_path(known.stem));
        const std::string xml = write_waldboost_xml(original);
        EXPECT_EQ(detect_classifier_format(xml, "x"), ClassifierFormat::WaldBoostXml);
        expect_identical(original, load_classifier_memory(xml, "converted.xml"));
    }
}

TEST(OpenCvCascade, FormatDetectionAndLabels)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    EXPECT_EQ(detect_classifier_format(text, "f.xml"), ClassifierFormat::OpenCvCascade);
    EXPECT_EQ(detect_classifier_format(valid_waldboost(), "w.xml"), ClassifierFormat::WaldBoostXml);
    expect_error(
        [&] {
            detect_classifier_format("<html/>", "page.html");
        },
        {"page.html: not a classifier file: root element <html> is neither WaldBoostClassifier nor opencv_storage"});
    EXPECT_EQ(load_classifier_memory(text, "/some/dir/lbpcascade_foo.xml").label, "foo");
    EXPECT_EQ(load_classifier_memory(text, "cascade.xml").label, "cascade");
    EXPECT_EQ(load_classifier_memory(text, "/x/").label, "object");
}

/* Debian's cascades read from OpenCV's files carry the labels of their
 * converted copies (classifiers/meson.build), the embedded default's
 * among them: the same cascade never detects two different labels. */
TEST(OpenCvCascade, DebianCascadesHaveTheirConvertedCopiesLabels)
{
    EXPECT_EQ(default_classifier().label, "face");
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string converted =
            env_or("WALDBOOST_CONVERTED_DIR", "build/classifiers") + "/" + known.stem + ".xml";
        EXPECT_EQ(load_classifier_file(cascade_path(known.stem)).label, load_classifier_file(converted).label);
    }
    /* The rule is the file name, wherever the file is. */
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    EXPECT_EQ(load_classifier_memory(text, "/elsewhere/lbpcascade_frontalface.xml").label, "face");
    EXPECT_EQ(load_classifier_memory(text, "lbpcascade_frontalcatface.xml").label, "cat-face");
    EXPECT_EQ(load_classifier_memory(text, "lbpcascade_frontalface_v2.xml").label, "frontalface_v2");
}

TEST(OpenCvCascade, CommentsAndWhitespaceInsideValues)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const Classifier original = load_classifier_memory(text, "lbpcascade_frontalface.xml");
    std::string commented = replace_once(text, "0 -1 46 -67130709", "0 -1 <!-- split -->46\n\t -67130709");
    commented = replace_once(commented, "<stageThreshold>-0.7520892024040222",
                             "<stageThreshold><!-- c -->\n  -0.7520892024040222<!-- d -->");
    expect_identical(original, load_classifier_memory(commented, "lbpcascade_frontalface.xml"));
}

TEST(OpenCvCascade, UnsupportedKindsAreRefused)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";
    const std::string hog = replace_once(text, "<featureType>LBP", "<featureType>HOG");
    expect_error(
        [&] {
            load_classifier_memory(hog, name);
        },
        {at_line(name, hog, "<featureType>"), "HOG", "not supported"});
    const std::string gab = replace_once(text, "<stageType>BOOST", "<stageType>CASCADE");
    expect_error(
        [&] {
            load_classifier_memory(gab, name);
        },
        {at_line(name, gab, "<stageType>"), "CASCADE", "not supported"});
    const std::string cats = replace_once(text, "<maxCatCount>256", "<maxCatCount>0");
    expect_error(
        [&] {
            load_classifier_memory(cats, name);
        },
        {at_line(name, cats, "<maxCatCount>"), "maxCatCount", "not supported"});

    /* A depth-2 tree: two nodes of 11 integers and three leaves. */
    const std::string first_nodes =
        "0 -1 46 -67130709 -21569 -1426120013 -1275125205 -21585\r\n            -16385 587145899 -24005";
    const std::string deep = replace_once(text, first_nodes, "1 -1 46 1 2 3 4 5 6 7 8\n 0 -2 13 1 2 3 4 5 6 7 8");
    expect_error(
        [&] {
            load_classifier_memory(deep, name);
        },
        {at_line(name, deep, "<internalNodes>"), "internalNodes", "stage 0, tree 0", "2 nodes", "not supported"});
    const std::string three_leaves = replace_once(text, "-0.6543210148811340 0.8888888955116272", "-0.65 0.88 0.5");
    expect_error(
        [&] {
            load_classifier_memory(three_leaves, name);
        },
        {"leafValues", "not supported"});
}

TEST(OpenCvCascade, MalformedCascades)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";

    const std::string bad_index = replace_once(text, "0 -1 46 -67130709", "0 -1 4600 -67130709");
    expect_error(
        [&] {
            load_classifier_memory(bad_index, name);
        },
        {at_line(name, bad_index, "<internalNodes>"), "featureIndex 4600 is out of range", "136 features"});
    const std::string ten = replace_once(text, "0 -1 46 -67130709", "0 -1 46");
    expect_error(
        [&] {
            load_classifier_memory(ten, name);
        },
        {"internalNodes", "expected 11 integers", "found 10"});
    const std::string garbage = replace_once(text, "-67130709", "-67130709x");
    expect_error(
        [&] {
            load_classifier_memory(garbage, name);
        },
        {"internalNodes", "'-67130709x' is not an integer"});
    const std::string big = replace_once(text, "-67130709", "4294967296");
    expect_error(
        [&] {
            load_classifier_memory(big, name);
        },
        {"internalNodes", "out of range"});
    const std::string nan_leaf = replace_once(text, "-0.6543210148811340 ", "nan ");
    expect_error(
        [&] {
            load_classifier_memory(nan_leaf, name);
        },
        {"leafValues", "not a finite number"});

    /* Feature 0 is "0 0 3 5"; make it stick out of the 24x24 window. */
    const std::string outside =
        replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        16 0 3 5</rect>");
    expect_error(
        [&] {
            load_classifier_memory(outside, name);
        },
        {at_line(name, outside, "<rect>"), "feature 0",
         "feature (x=16, y=0, 3 blocks of 3x5) does not fit the 24x24 window"});
    const std::string zero = replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        0 0 0 5</rect>");
    expect_error(
        [&] {
            load_classifier_memory(zero, name);
        },
        {"rect", "feature 0", "empty"});
    const std::string negative =
        replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        -1 0 3 5</rect>");
    expect_error(
        [&] {
            load_classifier_memory(negative, name);
        },
        {"rect", "-1 is out of range"});

    /* Stage 0 without trees. */
    const size_t begin = text.find("<weakClassifiers>");
    const size_t end = text.find("</weakClassifiers>");
    std::string empty_stage = text;
    empty_stage.replace(begin, end - begin, "<weakClassifiers>");
    expect_error(
        [&] {
            load_classifier_memory(empty_stage, name);
        },
        {name + ":", "stage 0", "no trees"});

    const std::string unknown = replace_once(text, "<stageThreshold>", "<bogus/><stageThreshold>");
    expect_error(
        [&] {
            load_classifier_memory(unknown, name);
        },
        {at_line(name, unknown, "<bogus/>"), "bogus", "unknown element"});
    const std::string no_width = replace_once(text, "<width>24</width>", "");
    expect_error(
        [&] {
            load_classifier_memory(no_width, name);
        },
        {name + ":", "cascade", "missing element <width>"});
    const std::string huge = replace_once(text, "<width>24</width>", "<width>5000</width>");
    expect_error(
        [&] {
            load_classifier_memory(huge, name);
        },
        {"width", "5000 is out of range"});
}
