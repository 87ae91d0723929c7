/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * OpenCV's Haar cascades, in both of OpenCV's formats and in WaldBoost
 * XML's Haar form: every Debian cascade loaded with the structure of its
 * text and round-tripped, the largest the loader reads written, fields as
 * written, and hostile files refused naming the file and line.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

namespace {

std::vector<std::string> debian_haar_cascades()
{
    std::vector<std::string> paths;
    for (const auto& e : std::filesystem::directory_iterator(haar_dir())) {
        const std::string name = e.path().filename().string();
        if (name.rfind("haarcascade_", 0) == 0 && e.path().extension() == ".xml")
            paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

const HaarTree& tree_of(const Classifier& c, size_t i) { return std::get<HaarTree>(c.weak.at(i).feature); }

}  // namespace

/* Trees and stages as the files' own text counts them; the window as
 * written; every tree a proper tree (validate() ran in the loader). */
TEST(HaarCascade, EveryDebianCascadeLoadsWithTheStructureOfItsText)
{
    const auto cascades = debian_haar_cascades();
    ASSERT_EQ(cascades.size(), 17u) << haar_dir();
    size_t tilted = 0, deep_trees = 0;
    for (const std::string& path : cascades) {
        SCOPED_TRACE(path);
        const std::string text = read_text(path);
        const Classifier c = load_classifier_file(path);
        EXPECT_TRUE(c.is_haar());
        const bool old_format = text.find("opencv-haar-classifier") != std::string::npos;
        const size_t trees = old_format ? count_of(text, "<!-- tree ") : count_of(text, "<internalNodes>");
        const size_t stages = old_format ? count_of(text, "<stage_threshold>") : count_of(text, "<stageThreshold>");
        EXPECT_EQ(c.weak.size(), trees);
        EXPECT_EQ(c.stage_count(), stages);
        if (!old_format) {
            EXPECT_NE(text.find("<width>" + std::to_string(c.window_width) + "</width>"), std::string::npos);
            EXPECT_NE(text.find("<height>" + std::to_string(c.window_height) + "</height>"), std::string::npos);
        }
        for (const WeakClassifier& w : c.weak) {
            const HaarTree& t = std::get<HaarTree>(w.feature);
            deep_trees += t.nodes.size() > 1;
            for (const HaarNode& n : t.nodes)
                tilted += n.feature.tilted;
        }
        EXPECT_NE(c.label, "object");
    }
    /* Tree cascades (alt2, eye_tree_eyeglasses, the 2splits eyes) and tilted
     * features are among them. */
    EXPECT_GT(deep_trees, 1000u);
    EXPECT_GT(tilted, 1000u);
}

/* A Haar cascade the loader reads is one the writer can write: OpenCV's
 * files store each value in 23 characters and a feature once, and the
 * writer's indented XML took about 1.16 times their bytes, so cascades from
 * 8.6 MB to the 10 MB limit loaded but could not be converted. Here 11
 * copies of haarcascade_frontalface_default (each with its own features, as
 * opencv_traincascade writes them): 9.8 MB. */
TEST(HaarCascade, LargeCascadesTheLoaderReadsCanBeWritten)
{
    const std::string text = read_text(haar_dir() + "/haarcascade_frontalface_default.xml");
    const auto inner = [&](const std::string& tag) {
        const size_t open = text.find("<" + tag + ">"), close = text.rfind("</" + tag + ">");
        EXPECT_NE(open, std::string::npos);
        EXPECT_NE(close, std::string::npos);
        const size_t start = open + tag.size() + 2;
        return std::make_pair(start, close);
    };
    const auto [stages_begin, stages_end] = inner("stages");
    const auto [features_begin, features_end] = inner("features");
    const std::string stages = text.substr(stages_begin, stages_end - stages_begin);
    const std::string features = text.substr(features_begin, features_end - features_begin);
    const Classifier one = load_classifier_memory(text, "one.xml");
    size_t feature_count = 0;
    for (size_t at = 0; (at = features.find("<rects>", at)) != std::string::npos; ++at)
        ++feature_count;
    ASSERT_EQ(feature_count, one.weak.size()); /* stumps, a feature each */

    /* Copy k's stumps name copy k's features: "0 -1 INDEX THRESHOLD". */
    const auto stages_copy = [&](size_t k) {
        std::string out;
        size_t at = 0;
        const std::string tag = "<internalNodes>";
        for (size_t open; (open = stages.find(tag, at)) != std::string::npos;) {
            const size_t close = stages.find("</internalNodes>", open);
            std::istringstream tokens(stages.substr(open + tag.size(), close - open - tag.size()));
            std::string left, right, threshold;
            size_t index = 0;
            tokens >> left >> right >> index >> threshold;
            out += stages.substr(at, open - at) + tag + left + " " + right + " " +
                   std::to_string(index + k * feature_count) + " " + threshold;
            at = close;
        }
        return out + stages.substr(at);
    };
    constexpr size_t kCopies = 11;
    std::string big_text = text.substr(0, stages_begin);
    for (size_t k = 0; k < kCopies; ++k)
        big_text += stages_copy(k);
    big_text += text.substr(stages_end, features_begin - stages_end);
    for (size_t k = 0; k < kCopies; ++k)
        big_text += features;
    big_text += text.substr(features_end);
    ASSERT_GT(big_text.size(), 9500000u);
    ASSERT_LE(big_text.size(), ModelLimits::kMaxFileBytes);

    const Classifier big = load_classifier_memory(big_text, "big.xml");
    ASSERT_EQ(big.weak.size(), kCopies * one.weak.size());
    std::string written;
    try {
        written = write_waldboost_xml(big);
    } catch (const Error& e) {
        FAIL() << "a " << big_text.size() << "-byte cascade the loader reads could not be written: " << e.what();
    }
    EXPECT_LE(written.size(), ModelLimits::kMaxFileBytes);
    expect_identical(load_classifier_memory(written, "big-converted.xml"), big);
    /* Small files keep their indentation, for readers. */
    EXPECT_NE(write_waldboost_xml(one).find("\n  <stage"), std::string::npos);
}

TEST(HaarCascade, FieldsDecodeAsWritten)
{
    /* Stump: "0 -1 0 -3.1511999666690826e-02", leaves 2.0875... -2.2172...,
     * feature 0 = "6 4 12 9 -1." and "6 7 12 3 3.". */
    const Classifier d = load_classifier_file(haar_dir() + "/haarcascade_frontalface_default.xml");
    EXPECT_EQ(d.window_width, 24);
    EXPECT_EQ(d.label, "face");
    const HaarTree& stump = tree_of(d, 0);
    ASSERT_EQ(stump.nodes.size(), 1u);
    EXPECT_EQ(bits(stump.nodes[0].threshold), bits(static_cast<float>(-3.1511999666690826e-02)));
    EXPECT_EQ(stump.leaves, (std::vector<float>{static_cast<float>(2.0875380039215088e+00),
                                                static_cast<float>(-2.2172100543975830e+00)}));
    EXPECT_EQ(stump.nodes[0].feature.rects, (std::vector<HaarRect>{{6, 4, 12, 9, -1.0f}, {6, 7, 12, 3, 3.0f}}));
    EXPECT_FALSE(stump.nodes[0].feature.tilted);

    /* Tree: "2 1 0 t0  0 -1 1 t1  -2 -3 2 t2": the root goes left to node 2
     * and right to node 1; node 1 to leaves 0 and 1; node 2 to 2 and 3. */
    const Classifier e = load_classifier_file(haar_dir() + "/haarcascade_eye_tree_eyeglasses.xml");
    const HaarTree& tree = tree_of(e, 0);
    ASSERT_EQ(tree.nodes.size(), 3u);
    ASSERT_EQ(tree.leaves.size(), 4u);
    EXPECT_TRUE((tree.nodes[0].left == HaarNode::Child{false, 2}) &&
                (tree.nodes[0].right == HaarNode::Child{false, 1}));
    EXPECT_TRUE((tree.nodes[1].left == HaarNode::Child{true, 0}) && (tree.nodes[1].right == HaarNode::Child{true, 1}));
    EXPECT_TRUE((tree.nodes[2].left == HaarNode::Child{true, 2}) && (tree.nodes[2].right == HaarNode::Child{true, 3}));
    EXPECT_EQ(bits(tree.nodes[2].threshold), bits(static_cast<float>(-1.2915390729904175e-01)));

    /* The old format: window "64 16", tree 0's two rectangles, threshold
     * and values. */
    const Classifier p = load_classifier_file(waldboost_test::licence_plate_cascade());
    EXPECT_EQ(p.window_width, 64);
    EXPECT_EQ(p.window_height, 16);
    EXPECT_EQ(p.label, "licence-plate");
    const HaarTree& old = tree_of(p, 0);
    EXPECT_EQ(old.nodes[0].feature.rects, (std::vector<HaarRect>{{32, 2, 8, 6, -1.0f}, {32, 4, 8, 2, 3.0f}}));
    EXPECT_EQ(bits(old.nodes[0].threshold), bits(static_cast<float>(1.6915600746870041e-002)));
    EXPECT_EQ(old.leaves, (std::vector<float>{static_cast<float>(-9.5547717809677124e-001),
                                              static_cast<float>(8.9129137992858887e-001)}));
    /* The stage threshold, in float less OpenCV's 1e-5 epsilon. */
    EXPECT_TRUE(p.weak[0].reject_threshold == kNoRejection);
}

TEST(HaarCascade, EveryDebianCascadeRoundTripsThroughWaldBoostXml)
{
    /* 5 of the 17, spread over the list, at the small size (the sanitizer
     * run). */
    for (const std::string& path : waldboost_test::sample(debian_haar_cascades(), 5)) {
        SCOPED_TRACE(path);
        const Classifier original = load_classifier_file(path);
        const std::string xml = write_waldboost_xml(original);
        EXPECT_EQ(detect_classifier_format(xml, "x"), ClassifierFormat::WaldBoostXml);
        const Classifier back = load_classifier_memory(xml, "converted.xml");
        expect_identical(original, back);
        EXPECT_EQ(write_waldboost_xml(back), xml);
    }
}

TEST(HaarCascade, HostileFilesGetAClearErrorNamingTheFileAndLine)
{
    const std::string name = "haarcascade_frontalface_default.xml";
    const std::string text = read_text(haar_dir() + "/" + name);
    const std::string rect = "<_>\n          6 4 12 9 -1.</_>";
    ASSERT_NE(text.find(rect), std::string::npos);
    const auto with_rect = [&](const std::string& replacement) {
        return replace_once(text, rect, replacement);
    };

    const std::string outside = with_rect("<_>\n          16 4 12 9 -1.</_>");
    expect_error(
        [&] {
            load_classifier_memory(outside, name);
        },
        {at_line(name, outside, "<_>\n      <rects>"), "feature 0",
         "rectangle (x=16, y=4, 12x9) does not fit the 24x24 window"});
    const std::string not_finite = with_rect("<_>\n          6 4 12 9 nan</_>");
    expect_error(
        [&] {
            load_classifier_memory(not_finite, name);
        },
        {name + ":", "feature 0, rectangle 0: weight", "'nan' is not a finite number"});
    const std::string infinite = with_rect("<_>\n          6 4 12 9 inf</_>");
    expect_error(
        [&] {
            load_classifier_memory(infinite, name);
        },
        {name + ":", "weight", "'inf' is not a finite number"});
    const std::string huge = with_rect("<_>\n          6 4 12 9 1e308</_>");
    expect_error(
        [&] {
            load_classifier_memory(huge, name);
        },
        {name + ":", "weight", "'1e308' is outside the range of a float"});
    const std::string huge_threshold = replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 0 1e308");
    expect_error(
        [&] {
            load_classifier_memory(huge_threshold, name);
        },
        {name + ":", "stage 0, tree 0, node 0: threshold", "'1e308' is outside the range of a float"});
    const std::string four = with_rect(rect + rect + rect + rect);
    expect_error(
        [&] {
            load_classifier_memory(four, name);
        },
        {name + ":", "feature 0", "more than 3 rectangles"});
    const std::string short_rect = with_rect("<_>\n          6 4 12 -1.</_>");
    expect_error(
        [&] {
            load_classifier_memory(short_rect, name);
        },
        {name + ":", "expected 5 values"});
    const std::string bad_feature =
        replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 99999 -3.1511999666690826e-02");
    expect_error(
        [&] {
            load_classifier_memory(bad_feature, name);
        },
        {at_line(name, bad_feature, "<internalNodes>"), "stage 0, tree 0, node 0",
         "featureIndex 99999 is out of range"});
    const std::string no_threshold = replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 0");
    expect_error(
        [&] {
            load_classifier_memory(no_threshold, name);
        },
        {name + ":", "groups of 4 values"});
    const std::string one_leaf =
        replace_once(text, "2.0875380039215088e+00 -2.2172100543975830e+00", "2.0875380039215088e+00");
    expect_error(
        [&] {
            load_classifier_memory(one_leaf, name);
        },
        {name + ":", "leafValues", "expected 2 numbers, found 1"});
    const std::string truncated = text.substr(0, text.size() / 2);
    try {
        load_classifier_memory(truncated, name);
        ADD_FAILURE() << "a truncated file loaded";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ClassifierFile);
        EXPECT_EQ(std::string(e.what()).rfind(name + ":", 0), 0u) << e.what();
    }

    /* Trees whose nodes loop or point outside (eye_tree_eyeglasses' tree 0:
     * "2 1 0 t  0 -1 1 t  -2 -3 2 t"). */
    const std::string tree_name = "haarcascade_eye_tree_eyeglasses.xml";
    const std::string tree_text = read_text(haar_dir() + "/" + tree_name);
    const std::string first = "2 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02";
    ASSERT_NE(tree_text.find(first), std::string::npos);
    for (const auto& [nodes, fragment] : std::vector<std::pair<std::string, std::string>>{
             {"2 1 0 -2.6987109333276749e-02 1 -1 1 5.0670530647039413e-02",
              "node 1: child node 1 must come after its parent"},
             {"2 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02 -2 -3 2 -1.29e-01 -3", "groups of 4 values"},
             {"7 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02",
              "node 0: child node 7 must come after its parent and exist"},
             {"2 2 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02", "node 1 is reached from 0 parents"},
             {"2 1 0 -2.6987109333276749e-02 0 -2 1 5.0670530647039413e-02", "leaf 1 is reached from 0 parents"},
             {"2 1 0 -2.6987109333276749e-02 0 -9 1 5.0670530647039413e-02", "leaf 9 does not exist"},
         }) {
        SCOPED_TRACE(nodes);
        const std::string bad = replace_once(tree_text, first, nodes);
        expect_error(
            [&] {
                load_classifier_memory(bad, tree_name);
            },
            {at_line(tree_name, bad, "<internalNodes>"), "stage 0, tree 0", fragment});
    }

    /* A tilted rectangle sticking out on the left (x - height < 0). */
    const std::string body_name = "haarcascade_fullbody.xml";
    const std::string body = read_text(haar_dir() + "/" + body_name);
    const std::string tilted = "<_>\n          8 14 3 4 2.</_></rects>\n      <tilted>1</tilted>";
    ASSERT_NE(body.find(tilted), std::string::npos);
    const std::string left =
        replace_once(body, tilted, "<_>\n          3 14 3 4 2.</_></rects>\n      <tilted>1</tilted>");
    expect_error(
        [&] {
            load_classifier_memory(left, body_name);
        },
        {body_name + ":", "tilted rectangle (x=3, y=14, 3x4) does not fit the 14x28 window"});

    /* The old format: a node with neither a value nor a node on one side,
     * and one pointing back at the root. */
    const std::string old_path = waldboost_test::licence_plate_cascade();
    const std::string old_name = old_path.substr(old_path.rfind('/') + 1);
    const std::string old_text = read_text(old_path);
    const std::string left_value = "<left_val>-9.5547717809677124e-001</left_val>";
    ASSERT_NE(old_text.find(left_value), std::string::npos);
    expect_error(
        [&] {
            load_classifier_memory(replace_once(old_text, left_value, ""), old_name);
        },
        {old_name + ":", "stage 0, tree 0, node 0", "missing <left_val> or <left_node>"});
    expect_error(
        [&] {
            load_classifier_memory(replace_once(old_text, left_value, "<left_node>0</left_node>"), old_name);
        },
        {old_name + ":", "left_node", "0 is out of range"});
    expect_error(
        [&] {
            load_classifier_memory(replace_once(old_text, left_value, "<left_node>1</left_node>"), old_name);
        },
        {old_name + ":", "stage 0, tree 0", "a Haar tree of 1 nodes has 1 leaves"});
    expect_error(
        [&] {
            load_classifier_memory(replace_once(old_text, "64 16</size>", "64</size>"), old_name);
        },
        {old_name + ":", "size", "expected 2"});
}

TEST(HaarCascade, WaldBoostXmlHaarFormIsStrict)
{
    const Classifier stump = load_classifier_file(haar_dir() + "/haarcascade_frontalface_default.xml");
    const std::string xml = write_waldboost_xml(stump);
    const std::string name = "wb.xml";
    const std::string node = "<HaarNode threshold=\"-0.031512\" left=\"leaf 0\" right=\"leaf 1\">";
    ASSERT_NE(xml.find(node), std::string::npos) << xml.substr(0, 600);
    for (const auto& [from, to, fragment] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"left=\"leaf 0\"", "left=\"leaf0\"", "is not \"leaf N\" or \"node N\""},
             {"left=\"leaf 0\"", "left=\"node 0\"", "child node 0 must come after its parent"},
             {"left=\"leaf 0\"", "left=\"leaf 1\"", "leaf 0 is reached from 0 parents"},
             {"<rect x=\"6\"", "<rect x=\"16\"", "does not fit the 24x24 window"},
             {"weight=\"-1\"", "weight=\"inf\"", "not a finite number"},
             {"<rect x=\"6\"", "<box/><rect x=\"6\"", "unknown element (expected <rect> inside <HaarNode>)"},
             {"threshold=\"-0.031512\"", "threshold=\"-0.03\" tilted=\"2\"", "attribute tilted: '2' is not 0 or 1"},
             {"<HaarTreeWeakHypothesis leafValues=\"2.087538 -2.21721\">",
              "<HaarTreeWeakHypothesis leafValues=\"2.087538\">", "expected 2 numbers, found 1"},
         }) {
        SCOPED_TRACE(from + " -> " + to);
        const std::string bad = replace_once(xml, from, to);
        expect_error(
            [&] {
                load_classifier_memory(bad, name);
            },
            {name + ":", fragment});
    }
}
