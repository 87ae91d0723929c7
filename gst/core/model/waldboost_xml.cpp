/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reader for WaldBoost XML (docs/classifiers.md). Strict on purpose: an
 * unknown element or attribute is an error, so that a typo cannot silently
 * change what a classifier does.
 */
#include <algorithm>
#include <array>
#include <optional>
#include <string>

#include "core/model/formats.h"

namespace waldboost {

namespace {

using xml::fail;

struct Reader {
    const std::string& src;
    bool haar = false;
    /* LRD and LRP classifiers: every feature is a <RankFeature> of this kind. */
    std::optional<RankFeature::Kind> rank = std::nullopt;
    int window_width = 0;
    int window_height = 0;

    int window_side(const xmlNode* root, const char* name, const char* alias) const
    {
        const auto value = xml::optional_attribute(root, name);
        const auto alias_value = xml::optional_attribute(root, alias);
        if (value && alias_value)
            fail(src, root, std::string("both ") + name + " and its alias " + alias + " are given");
        if (!value && !alias_value)
            fail(src, root, std::string("missing attribute ") + name + " (or " + alias + ")");
        return static_cast<int>(xml::parse_integer(src, root, std::string("attribute ") + (value ? name : alias),
                                                   value ? *value : *alias_value, 1, ModelLimits::kMaxWindowSide));
    }

    LbpFeature feature(const xmlNode* node) const
    {
        static const char* const kAttributes[] = {"positionX",   "positionY",      "blockWidth",
                                                  "blockHeight", "binMappingType", nullptr};
        xml::check_attributes(src, node, kAttributes);
        const auto children = xml::child_elements(src, node);
        if (!children.empty())
            fail(src, children[0], "unknown element (LBPFeature has no child elements)");
        const auto mapping = xml::optional_attribute(node, "binMappingType");
        if (mapping && *mapping != "NONE")
            fail(src, node, "attribute binMappingType: " + xml::quote(*mapping) + " is not supported (only NONE)",
                 ErrorKind::UnsupportedClassifier);

        const auto integer = [&](const char* name, long long min_value) {
            return static_cast<int>(xml::parse_integer(src, node, std::string("attribute ") + name,
                                                       xml::required_attribute(src, node, name), min_value,
                                                       ModelLimits::kMaxWindowSide));
        };
        LbpFeature f;
        f.x = integer("positionX", 0);
        f.y = integer("positionY", 0);
        f.block_width = integer("blockWidth", 1);
        f.block_height = integer("blockHeight", 1);
        if (f.x + 3 * f.block_width > window_width || f.y + 3 * f.block_height > window_height) {
            fail(src, node,
                 "feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
                     std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ") does not fit the " +
                     std::to_string(window_width) + "x" + std::to_string(window_height) + " window");
        }
        return f;
    }

    RankFeature rank_feature(const xmlNode* node) const
    {
        static const char* const kAttributes[] = {"positionX", "positionY", "blockWidth", "blockHeight",
                                                  "blockA",    "blockB",    nullptr};
        xml::check_attributes(src, node, kAttributes);
        const auto children = xml::child_elements(src, node);
        if (!children.empty())
            fail(src, children[0], "unknown element (RankFeature has no child elements)");
        const auto integer = [&](const char* name, long long min_value, long long max_value) {
            return static_cast<int>(xml::parse_integer(src, node, std::string("attribute ") + name,
                                                       xml::required_attribute(src, node, name), min_value, max_value));
        };
        RankFeature f;
        f.kind = *rank;
        f.x = integer("positionX", 0, ModelLimits::kMaxWindowSide);
        f.y = integer("positionY", 0, ModelLimits::kMaxWindowSide);
        f.block_width = integer("blockWidth", 1, ModelLimits::kMaxWindowSide);
        f.block_height = integer("blockHeight", 1, ModelLimits::kMaxWindowSide);
        f.block_a = integer("blockA", 0, RankFeature::kBlocks - 1);
        f.block_b = integer("blockB", 0, RankFeature::kBlocks - 1);
        if (f.x + 3 * f.block_width > window_width || f.y + 3 * f.block_height > window_height) {
            fail(src, node,
                 "feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
                     std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ") does not fit the " +
                     std::to_string(window_width) + "x" + std::to_string(window_height) + " window");
        }
        if (f.block_a == f.block_b)
            fail(src, node,
                 "attributes blockA and blockB are both " + std::to_string(f.block_a) +
                     " (a rank feature compares two different blocks)");
        return f;
    }

    /* <HistogramWeakHypothesis> of an LRD or LRP classifier: one response
     * per value of the feature, and one <RankFeature>. */
    void rank_hypothesis(const xmlNode* node, WeakClassifier& weak) const
    {
        static const char* const kHistogram[] = {"predictionValues", nullptr};
        xml::check_attributes(src, node, kHistogram);
        const size_t size = RankFeature::table_size(*rank);
        std::vector<float> values = xml::parse_float_list(src, node, "attribute predictionValues",
                                                          xml::required_attribute(src, node, "predictionValues"), size);
        const xmlNode* feature_node = nullptr;
        for (const xmlNode* child : xml::child_elements(src, node)) {
            if (xml::name_of(child) != "RankFeature")
                fail(src, child, "unknown element (expected <RankFeature> inside <HistogramWeakHypothesis>)");
            if (feature_node)
                fail(src, child, "duplicate element (a weak hypothesis has exactly one <RankFeature>)");
            feature_node = child;
        }
        if (!feature_node)
            fail(src, node, "missing element <RankFeature>");
        RankFeature f = rank_feature(feature_node);
        f.responses = std::move(values);
        weak.feature = std::move(f);
    }

    void hypothesis(const xmlNode* node, WeakClassifier& weak) const
    {
        const std::string name = xml::name_of(node);
        const bool tree = name == "DecisionTreeWeakHypothesis";
        static const char* const kHistogram[] = {"predictionValues", nullptr};
        static const char* const kTree[] = {"predictionValues", "binMap", nullptr};
        xml::check_attributes(src, node, tree ? kTree : kHistogram);

        const std::string values_text = xml::required_attribute(src, node, "predictionValues");
        std::array<float, LbpFeature::kTableSize> table{};
        if (!tree) {
            const auto values = xml::parse_float_list(src, node, "attribute predictionValues", values_text, 256);
            std::copy(values.begin(), values.end(), table.begin());
        } else {
            const size_t count = xml::split_tokens(values_text).size();
            if (count == 0)
                fail(src, node, "attribute predictionValues: no values");
            const auto values = xml::parse_float_list(src, node, "attribute predictionValues", values_text, count);
            const auto bins =
                xml::parse_integer_list(src, node, "attribute binMap", xml::required_attribute(src, node, "binMap"),
                                        256, 0, static_cast<long long>(count) - 1);
            for (size_t i = 0; i < 256; ++i)
                table[i] = values[static_cast<size_t>(bins[i])];
        }

        const xmlNode* feature_node = nullptr;
        for (const xmlNode* child : xml::child_elements(src, node)) {
            if (xml::name_of(child) != "LBPFeature")
                fail(src, child, "unknown element (expected <LBPFeature> inside <" + name + ">)");
            if (feature_node)
                fail(src, child, "duplicate element (a weak hypothesis has exactly one <LBPFeature>)");
            feature_node = child;
        }
        if (!feature_node)
            fail(src, node, "missing element <LBPFeature>");
        LbpFeature f = feature(feature_node);
        f.responses = table;
        weak.feature = f;
    }

    /* "leaf N" or "node N". */
    HaarNode::Child child(const xmlNode* node, const char* name) const
    {
        const std::string value = xml::required_attribute(src, node, name);
        const auto tokens = xml::split_tokens(value);
        if (tokens.size() != 2 || (tokens[0] != "leaf" && tokens[0] != "node"))
            fail(src, node,
                 std::string("attribute ") + name + ": " + xml::quote(value) + " is not \"leaf N\" or \"node N\"");
        return {tokens[0] == "leaf", static_cast<int>(xml::parse_integer(src, node, std::string("attribute ") + name,
                                                                         tokens[1], 0, ModelLimits::kMaxTreeNodes))};
    }

    HaarNode haar_node(const xmlNode* node, size_t index) const
    {
        static const char* const kAttributes[] = {"threshold", "left", "right", "tilted", nullptr};
        xml::check_attributes(src, node, kAttributes);
        HaarNode result;
        result.threshold =
            xml::parse_float(src, node, "attribute threshold", xml::required_attribute(src, node, "threshold"));
        result.left = child(node, "left");
        result.right = child(node, "right");
        if (const auto tilted = xml::optional_attribute(node, "tilted")) {
            if (*tilted != "0" && *tilted != "1")
                fail(src, node, "attribute tilted: " + xml::quote(*tilted) + " is not 0 or 1");
            result.feature.tilted = *tilted == "1";
        }
        for (const xmlNode* rect : xml::child_elements(src, node)) {
            if (xml::name_of(rect) != "rect")
                fail(src, rect, "unknown element (expected <rect> inside <HaarNode>)");
            if (result.feature.rects.size() == HaarFeature::kMaxRects)
                fail(src, rect, "more than 3 rectangles (a Haar feature has 1 to 3)");
            static const char* const kRect[] = {"x", "y", "width", "height", "weight", nullptr};
            xml::check_attributes(src, rect, kRect);
            const auto integer = [&](const char* name, long long min_value) {
                return static_cast<int>(xml::parse_integer(src, rect, std::string("attribute ") + name,
                                                           xml::required_attribute(src, rect, name), min_value,
                                                           ModelLimits::kMaxWindowSide));
            };
            HaarRect r;
            r.x = integer("x", 0);
            r.y = integer("y", 0);
            r.width = integer("width", 1);
            r.height = integer("height", 1);
            r.weight = xml::parse_float(src, rect, "attribute weight", xml::required_attribute(src, rect, "weight"));
            result.feature.rects.push_back(r);
        }
        const std::string problem = haar_feature_problem(result.feature, window_width, window_height);
        if (!problem.empty())
            fail(src, node, "node " + std::to_string(index) + ": " + problem);
        return result;
    }

    void haar_tree(const xmlNode* node, WeakClassifier& weak) const
    {
        static const char* const kAttributes[] = {"leafValues", nullptr};
        xml::check_attributes(src, node, kAttributes);
        HaarTree tree;
        for (const xmlNode* child_node : xml::child_elements(src, node)) {
            if (xml::name_of(child_node) != "HaarNode")
                fail(src, child_node, "unknown element (expected <HaarNode> inside <HaarTreeWeakHypothesis>)");
            if (tree.nodes.size() == ModelLimits::kMaxTreeNodes)
                fail(src, child_node,
                     "too many nodes (the limit is " + std::to_string(ModelLimits::kMaxTreeNodes) + ")");
            tree.nodes.push_back(haar_node(child_node, tree.nodes.size()));
        }
        if (tree.nodes.empty())
            fail(src, node, "no <HaarNode> elements (a tree has at least one)");
        tree.leaves = xml::parse_float_list(src, node, "attribute leafValues",
                                            xml::required_attribute(src, node, "leafValues"), tree.nodes.size() + 1);
        const std::string problem = haar_tree_problem(tree, window_width, window_height);
        if (!problem.empty())
            fail(src, node, problem);
        weak.feature = std::move(tree);
    }

    WeakClassifier stage(const xmlNode* node) const
    {
        static const char* const kAttributes[] = {"posT", "negT", "resetSum", nullptr};
        xml::check_attributes(src, node, kAttributes);
        WeakClassifier weak;

        if (const auto pos = xml::optional_attribute(node, "posT")) {
            const double value = xml::parse_double(src, node, "attribute posT", *pos);
            if (!(value >= kNoAcceptanceAbove)) {
                fail(src, node,
                     "attribute posT: early acceptance (posT=" + xml::printable(*pos) +
                         ") is not supported; posT must be at least 1e30 (write 1e+50)",
                     ErrorKind::UnsupportedClassifier);
            }
        }
        if (const auto neg = xml::optional_attribute(node, "negT")) {
            const double value = xml::parse_double(src, node, "attribute negT", *neg);
            weak.reject_threshold =
                value <= kNoRejectionBelow ? kNoRejection : xml::parse_float(src, node, "attribute negT", *neg);
        }
        if (const auto reset = xml::optional_attribute(node, "resetSum")) {
            if (*reset != "0" && *reset != "1")
                fail(src, node, "attribute resetSum: " + xml::quote(*reset) + " is not 0 or 1");
            weak.reset_sum_after = *reset == "1";
        }

        const char* const expected = haar   ? "<HaarTreeWeakHypothesis>"
                                     : rank ? "<HistogramWeakHypothesis>"
                                            : "<HistogramWeakHypothesis> or <DecisionTreeWeakHypothesis>";
        const char* const type = haar   ? "HAAR"
                                 : rank ? (*rank == RankFeature::Kind::Difference ? "LRD" : "LRP")
                                        : "LBP";
        const xmlNode* hypothesis_node = nullptr;
        for (const xmlNode* child_node : xml::child_elements(src, node)) {
            const std::string name = xml::name_of(child_node);
            const bool known = haar   ? name == "HaarTreeWeakHypothesis"
                               : rank ? name == "HistogramWeakHypothesis"
                                      : name == "HistogramWeakHypothesis" || name == "DecisionTreeWeakHypothesis";
            if (!known)
                fail(src, child_node,
                     std::string("unknown element (expected ") + expected + " inside <stage> of a " + type +
                         " classifier)");
            if (hypothesis_node)
                fail(src, child_node, "duplicate element (a stage holds exactly one weak hypothesis)");
            hypothesis_node = child_node;
        }
        if (!hypothesis_node)
            fail(src, node, std::string("missing weak hypothesis (") + expected + ")");
        if (haar)
            haar_tree(hypothesis_node, weak);
        else if (rank)
            rank_hypothesis(hypothesis_node, weak);
        else
            hypothesis(hypothesis_node, weak);
        return weak;
    }
};

}  // namespace

Classifier parse_waldboost_xml(const xml::Document& doc)
{
    const std::string& src = doc.source();
    const xmlNode* root = doc.root();
    static const char* const kAttributes[] = {"classifierName", "minStdDev", "imageSizeX",     "imageSizeY", "sizeX",
                                              "sizeY",          "type",      "finalThreshold", nullptr};
    xml::check_attributes(src, root, kAttributes);

    const std::string type = xml::required_attribute(src, root, "type");
    if (type != "LBP" && type != "HAAR" && type != "LRD" && type != "LRP")
        fail(src, root,
             "attribute type: " + xml::printable(type) + " features are not supported; only LBP, HAAR, LRD and LRP",
             ErrorKind::UnsupportedClassifier);
    if (const auto std_dev = xml::optional_attribute(root, "minStdDev")) {
        if (xml::parse_double(src, root, "attribute minStdDev", *std_dev) != 0.0) {
            fail(src, root,
                 "attribute minStdDev: " + xml::printable(*std_dev) +
                     " is not supported (it must be 0; HAAR classifiers always normalise windows by "
                     "their standard deviation, LBP, LRD and LRP ones never)",
                 ErrorKind::UnsupportedClassifier);
        }
    }

    Reader reader{src, type == "HAAR"};
    if (type == "LRD" || type == "LRP")
        reader.rank = type == "LRD" ? RankFeature::Kind::Difference : RankFeature::Kind::Pair;
    Classifier classifier;
    reader.window_width = classifier.window_width = reader.window_side(root, "imageSizeX", "sizeX");
    reader.window_height = classifier.window_height = reader.window_side(root, "imageSizeY", "sizeY");
    if (const auto final_threshold = xml::optional_attribute(root, "finalThreshold"))
        classifier.final_threshold = xml::parse_float(src, root, "attribute finalThreshold", *final_threshold);
    const auto name = xml::optional_attribute(root, "classifierName");
    classifier.label = name && !name->empty() ? *name : "object";

    for (const xmlNode* child : xml::child_elements(src, root)) {
        if (xml::name_of(child) != "stage")
            fail(src, child, "unknown element (expected <stage> inside <WaldBoostClassifier>)");
        if (classifier.weak.size() == ModelLimits::kMaxWeakClassifiers) {
            fail(src, child,
                 "too many stages (the limit is " + std::to_string(ModelLimits::kMaxWeakClassifiers) +
                     " weak classifiers)");
        }
        classifier.weak.push_back(reader.stage(child));
    }
    if (classifier.weak.empty())
        fail(src, root, "no <stage> elements (the classifier is empty)");
    return classifier;
}

}  // namespace waldboost
