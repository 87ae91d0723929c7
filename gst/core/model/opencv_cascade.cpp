/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reader for OpenCV cascades as Debian's opencv-data ships them: the
 * opencv_traincascade format with LBP features and depth-1 trees (stumps) or
 * Haar features and trees of any depth, and the older opencv-haar-classifier
 * format (Haar only) that OpenCV 4 still reads. A stage cascade becomes a
 * WaldBoost sequence: no rejection inside a stage, the stage threshold and a
 * sum reset after its last tree.
 */
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "core/model/formats.h"

namespace waldboost {

namespace {

using xml::fail;

/* OpenCV subtracts this from every stage threshold, in float
 * (cascadedetect.cpp: stage.threshold = (float)value - THRESHOLD_EPS). */
constexpr float kThresholdEps = 1e-5f;

/* Ends a stage after the weak classifier just added, with the threshold
 * computed in float exactly as OpenCV does. */
void end_stage(Classifier& classifier, float threshold)
{
    const float stage_threshold = threshold - kThresholdEps;
    classifier.weak.back().reject_threshold = stage_threshold;
    classifier.weak.back().reset_sum_after = true;
    classifier.final_threshold = stage_threshold;
}

/* left, right, featureIndex and the 256-bit category subset. */
constexpr size_t kStumpIntegers = 3 + 8;

std::string trimmed_text(const std::string& src, const xmlNode* node)
{
    const std::string text = xml::element_text(src, node);
    const auto tokens = xml::split_tokens(text);
    if (tokens.size() != 1)
        fail(src, node, "expected one value, found " + std::to_string(tokens.size()));
    return std::string(tokens[0]);
}

int integer_element(const std::string& src, const xmlNode* parent, const char* name, long long min_value,
                    long long max_value)
{
    const xmlNode* node = xml::required_child(src, parent, name);
    return static_cast<int>(xml::parse_integer(src, node, "value", trimmed_text(src, node), min_value, max_value));
}

void check_children(const std::string& src, const xmlNode* node, const char* const* allowed, const std::string& where)
{
    for (const xmlNode* child : xml::child_elements(src, node)) {
        const std::string name = xml::name_of(child);
        bool known = false;
        for (const char* const* a = allowed; *a && !known; ++a)
            known = name == *a;
        if (!known)
            fail(src, child, "unknown element in " + where);
    }
}

std::vector<LbpFeature> read_features(const std::string& src, const xmlNode* features, int width, int height)
{
    std::vector<LbpFeature> result;
    size_t index = 0;
    for (const xmlNode* item : xml::child_elements(src, features)) {
        const std::string where = "feature " + std::to_string(index);
        if (xml::name_of(item) != "_")
            fail(src, item, "unknown element in <features> (expected <_>)");
        static const char* const kItem[] = {"rect", nullptr};
        check_children(src, item, kItem, where);
        const xmlNode* rect = xml::required_child(src, item, "rect");
        const auto v =
            xml::parse_integer_list(src, rect, where, xml::element_text(src, rect), 4, 0, ModelLimits::kMaxWindowSide);
        LbpFeature f;
        f.x = static_cast<int>(v[0]);
        f.y = static_cast<int>(v[1]);
        f.block_width = static_cast<int>(v[2]);
        f.block_height = static_cast<int>(v[3]);
        if (f.block_width < 1 || f.block_height < 1)
            fail(src, rect,
                 where + ": block size " + std::to_string(f.block_width) + "x" + std::to_string(f.block_height) +
                     " is empty");
        if (f.x + 3 * f.block_width > width || f.y + 3 * f.block_height > height) {
            fail(src, rect,
                 where + ": feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
                     std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ") does not fit the " +
                     std::to_string(width) + "x" + std::to_string(height) + " window");
        }
        result.push_back(f);
        ++index;
    }
    if (result.empty())
        fail(src, features, "no features");
    return result;
}

WeakClassifier read_lbp_tree(const std::string& src, const xmlNode* tree, const std::string& where,
                             const std::vector<LbpFeature>& features)
{
    static const char* const kTree[] = {"internalNodes", "leafValues", nullptr};
    check_children(src, tree, kTree, where);

    const xmlNode* nodes = xml::required_child(src, tree, "internalNodes");
    const std::string nodes_text = xml::element_text(src, nodes);
    const size_t count = xml::split_tokens(nodes_text).size();
    if (count != kStumpIntegers) {
        if (count > kStumpIntegers && count % kStumpIntegers == 0) {
            fail(src, nodes,
                 where + ": trees with " + std::to_string(count / kStumpIntegers) +
                     " nodes are not supported (only depth-1 trees, maxDepth 1)",
                 ErrorKind::UnsupportedClassifier);
        }
        fail(src, nodes,
             where + ": expected " + std::to_string(kStumpIntegers) +
                 " integers (left right featureIndex and 8 subset words), found " + std::to_string(count));
    }
    /* Subset words are written as signed 32-bit ints; unsigned spellings are
     * accepted too. Left and right are ignored for a stump, as in OpenCV. */
    const auto v = xml::parse_integer_list(src, nodes, where, nodes_text, kStumpIntegers, INT32_MIN, UINT32_MAX);
    const long long feature_index = v[2];
    if (feature_index < 0 || feature_index >= static_cast<long long>(features.size())) {
        fail(src, nodes,
             where + ": featureIndex " + std::to_string(feature_index) + " is out of range (the cascade has " +
                 std::to_string(features.size()) + " features)");
    }

    const xmlNode* leaves = xml::required_child(src, tree, "leafValues");
    const std::string leaves_text = xml::element_text(src, leaves);
    const size_t leaf_count = xml::split_tokens(leaves_text).size();
    if (leaf_count > 2)
        fail(src, leaves,
             where + ": " + std::to_string(leaf_count) +
                 " leaf values: deeper trees are not supported (only depth-1 trees, 2 leaves)",
             ErrorKind::UnsupportedClassifier);
    const auto leaf = xml::parse_float_list(src, leaves, where, leaves_text, 2);

    WeakClassifier weak;
    LbpFeature feature = features[static_cast<size_t>(feature_index)];
    uint32_t subset[8];
    for (size_t i = 0; i < 8; ++i)
        subset[i] = static_cast<uint32_t>(v[3 + i]);
    for (unsigned c = 0; c < 256; ++c)
        feature.responses[c] = (subset[c >> 5] & (1u << (c & 31))) ? leaf[0] : leaf[1];
    weak.feature = feature;
    return weak;
}

/* One rectangle of a Haar feature: "x y width height weight". */
HaarRect read_haar_rect(const std::string& src, const xmlNode* node, const std::string& where)
{
    const std::string text = xml::element_text(src, node);
    const auto tokens = xml::split_tokens(text);
    if (tokens.size() != 5)
        fail(src, node,
             where + ": expected 5 values (x y width height weight), found " + std::to_string(tokens.size()));
    const auto integer = [&](size_t i, const char* name, long long min_value) {
        return static_cast<int>(
            xml::parse_integer(src, node, where + ": " + name, tokens[i], min_value, ModelLimits::kMaxWindowSide));
    };
    HaarRect r;
    r.x = integer(0, "x", 0);
    r.y = integer(1, "y", 0);
    r.width = integer(2, "width", 1);
    r.height = integer(3, "height", 1);
    r.weight = xml::parse_float(src, node, where + ": weight", tokens[4]);
    return r;
}

/* The rectangles of one feature (<rects> holding <_> items) and its
 * optional <tilted> flag, from either format. */
HaarFeature read_haar_feature(const std::string& src, const xmlNode* node, const std::string& where, int width,
                              int height)
{
    static const char* const kFeature[] = {"rects", "tilted", nullptr};
    check_children(src, node, kFeature, where);
    HaarFeature f;
    const xmlNode* rects = xml::required_child(src, node, "rects");
    for (const xmlNode* rect : xml::child_elements(src, rects)) {
        if (xml::name_of(rect) != "_")
            fail(src, rect, "unknown element in <rects> (expected <_>)");
        if (f.rects.size() == HaarFeature::kMaxRects)
            fail(src, rect, where + ": more than 3 rectangles (a Haar feature has 1 to 3)");
        f.rects.push_back(read_haar_rect(src, rect, where + ", rectangle " + std::to_string(f.rects.size())));
    }
    if (f.rects.empty())
        fail(src, rects, where + ": no rectangles");
    if (const xmlNode* tilted = xml::optional_child(src, node, "tilted"))
        f.tilted = xml::parse_integer(src, tilted, "tilted", trimmed_text(src, tilted), INT32_MIN, INT32_MAX) != 0;
    const std::string problem = haar_feature_problem(f, width, height);
    if (!problem.empty())
        fail(src, node, where + ": " + problem);
    return f;
}

std::vector<HaarFeature> read_haar_features(const std::string& src, const xmlNode* features, int width, int height)
{
    std::vector<HaarFeature> result;
    for (const xmlNode* item : xml::child_elements(src, features)) {
        if (xml::name_of(item) != "_")
            fail(src, item, "unknown element in <features> (expected <_>)");
        result.push_back(read_haar_feature(src, item, "feature " + std::to_string(result.size()), width, height));
    }
    if (result.empty())
        fail(src, features, "no features");
    return result;
}

/* A child as OpenCV writes it: > 0 a node of the same tree, <= 0 the leaf
 * of index -value. */
HaarNode::Child child_of(long long value)
{
    return value > 0 ? HaarNode::Child{false, static_cast<int>(value)}
                     : HaarNode::Child{true, static_cast<int>(-value)};
}

void check_tree(const std::string& src, const xmlNode* node, const std::string& where, const HaarTree& tree, int width,
                int height)
{
    const std::string problem = haar_tree_problem(tree, width, height);
    if (!problem.empty())
        fail(src, node, where + ": " + problem);
}

/* A traincascade Haar tree: groups of "left right featureIndex threshold"
 * and one leaf more than nodes. */
HaarTree read_haar_tree(const std::string& src, const xmlNode* tree, const std::string& where,
                        const std::vector<HaarFeature>& features, int width, int height)
{
    static const char* const kTree[] = {"internalNodes", "leafValues", nullptr};
    check_children(src, tree, kTree, where);
    const xmlNode* nodes = xml::required_child(src, tree, "internalNodes");
    const std::string nodes_text = xml::element_text(src, nodes);
    const auto tokens = xml::split_tokens(nodes_text);
    if (tokens.empty() || tokens.size() % 4 != 0)
        fail(src, nodes,
             where + ": expected groups of 4 values (left right featureIndex threshold), found " +
                 std::to_string(tokens.size()) + " values");
    if (tokens.size() / 4 > ModelLimits::kMaxTreeNodes)
        fail(src, nodes,
             where + ": " + std::to_string(tokens.size() / 4) + " nodes (the limit is " +
                 std::to_string(ModelLimits::kMaxTreeNodes) + ")");
    constexpr long long kMaxChild = ModelLimits::kMaxTreeNodes + 1;
    HaarTree result;
    for (size_t i = 0; i < tokens.size(); i += 4) {
        const std::string node_where = where + ", node " + std::to_string(i / 4);
        HaarNode node;
        node.left = child_of(xml::parse_integer(src, nodes, node_where + ": left", tokens[i], -kMaxChild, kMaxChild));
        node.right =
            child_of(xml::parse_integer(src, nodes, node_where + ": right", tokens[i + 1], -kMaxChild, kMaxChild));
        const long long feature_index =
            xml::parse_integer(src, nodes, node_where + ": featureIndex", tokens[i + 2], INT32_MIN, INT32_MAX);
        if (feature_index < 0 || feature_index >= static_cast<long long>(features.size()))
            fail(src, nodes,
                 node_where + ": featureIndex " + std::to_string(feature_index) + " is out of range (the cascade has " +
                     std::to_string(features.size()) + " features)");
        node.feature = features[static_cast<size_t>(feature_index)];
        node.threshold = xml::parse_float(src, nodes, node_where + ": threshold", tokens[i + 3]);
        result.nodes.push_back(std::move(node));
    }
    const xmlNode* leaves = xml::required_child(src, tree, "leafValues");
    result.leaves = xml::parse_float_list(src, leaves, where + ": leafValues", xml::element_text(src, leaves),
                                          result.nodes.size() + 1);
    check_tree(src, nodes, where, result, width, height);
    return result;
}

/* OpenCV runs a cascade whose trees all have one node as stumps: leaf 0
 * when the value is below the threshold, leaf 1 otherwise, whatever the
 * node's left and right say. */
void apply_stump_rule(std::vector<WeakClassifier>& weak)
{
    for (const WeakClassifier& w : weak)
        if (std::get<HaarTree>(w.feature).nodes.size() != 1)
            return;
    for (WeakClassifier& w : weak) {
        HaarNode& node = std::get<HaarTree>(w.feature).nodes[0];
        node.left = {true, 0};
        node.right = {true, 1};
    }
}

/* The format before opencv_traincascade (type_id opencv-haar-classifier):
 * <size>, then stages of trees whose nodes carry their feature, threshold
 * and left/right values or node indexes. OpenCV 4 reads it by converting to
 * the newer form: leaves are numbered in the order the values appear, and
 * the stage tree links (<parent>, <next>) are ignored. */
Classifier parse_old_haar(const std::string& src, const xmlNode* cascade)
{
    static const char* const kCascade[] = {"size", "stages", nullptr};
    check_children(src, cascade, kCascade, "the cascade");
    Classifier classifier;
    classifier.label = label_from_source(src);
    const xmlNode* size = xml::required_child(src, cascade, "size");
    const auto side =
        xml::parse_integer_list(src, size, "size", xml::element_text(src, size), 2, 1, ModelLimits::kMaxWindowSide);
    classifier.window_width = static_cast<int>(side[0]);
    classifier.window_height = static_cast<int>(side[1]);
    const int width = classifier.window_width, height = classifier.window_height;

    const xmlNode* stages = xml::required_child(src, cascade, "stages");
    size_t stage_index = 0;
    for (const xmlNode* stage : xml::child_elements(src, stages)) {
        const std::string where = "stage " + std::to_string(stage_index);
        if (xml::name_of(stage) != "_")
            fail(src, stage, "unknown element in <stages> (expected <_>)");
        static const char* const kStage[] = {"trees", "stage_threshold", "parent", "next", nullptr};
        check_children(src, stage, kStage, where);
        const xmlNode* threshold_node = xml::required_child(src, stage, "stage_threshold");
        const float threshold =
            xml::parse_float(src, threshold_node, where + ": stage_threshold", trimmed_text(src, threshold_node));
        size_t tree_index = 0;
        for (const xmlNode* tree : xml::child_elements(src, xml::required_child(src, stage, "trees"))) {
            const std::string tree_where = where + ", tree " + std::to_string(tree_index);
            if (xml::name_of(tree) != "_")
                fail(src, tree, "unknown element in <trees> (expected <_>)");
            if (classifier.weak.size() == ModelLimits::kMaxWeakClassifiers)
                fail(src, tree,
                     tree_where + ": too many trees (the limit is " + std::to_string(ModelLimits::kMaxWeakClassifiers) +
                         " weak classifiers)");
            HaarTree result;
            for (const xmlNode* node : xml::child_elements(src, tree)) {
                const std::string node_where = tree_where + ", node " + std::to_string(result.nodes.size());
                if (xml::name_of(node) != "_")
                    fail(src, node, "unknown element in a tree (expected <_>)");
                if (result.nodes.size() == ModelLimits::kMaxTreeNodes)
                    fail(src, node,
                         node_where + ": too many nodes (the limit is " + std::to_string(ModelLimits::kMaxTreeNodes) +
                             ")");
                static const char* const kNode[] = {"feature",   "threshold",  "left_val", "left_node",
                                                    "right_val", "right_node", nullptr};
                check_children(src, node, kNode, node_where);
                HaarNode n;
                n.feature =
                    read_haar_feature(src, xml::required_child(src, node, "feature"), node_where, width, height);
                /* The converter drops a third rectangle of (nearly) no weight. */
                if (n.feature.rects.size() == 3 &&
                    std::fabs(n.feature.rects[2].weight) < std::numeric_limits<float>::epsilon())
                    n.feature.rects.pop_back();
                const xmlNode* t = xml::required_child(src, node, "threshold");
                n.threshold = xml::parse_float(src, t, node_where + ": threshold", trimmed_text(src, t));
                const auto child = [&](const char* value_name, const char* node_name) {
                    const xmlNode* value = xml::optional_child(src, node, value_name);
                    if (value) {
                        result.leaves.push_back(
                            xml::parse_float(src, value, node_where + ": " + value_name, trimmed_text(src, value)));
                        return HaarNode::Child{true, static_cast<int>(result.leaves.size() - 1)};
                    }
                    const xmlNode* index = xml::optional_child(src, node, node_name);
                    if (!index)
                        fail(src, node, node_where + ": missing <" + value_name + "> or <" + node_name + ">");
                    return HaarNode::Child{false, integer_element(src, node, node_name, 1,
                                                                  static_cast<long long>(ModelLimits::kMaxTreeNodes))};
                };
                n.left = child("left_val", "left_node");
                n.right = child("right_val", "right_node");
                result.nodes.push_back(std::move(n));
            }
            if (result.nodes.empty())
                fail(src, tree, tree_where + ": the tree has no nodes");
            check_tree(src, tree, tree_where, result, width, height);
            WeakClassifier weak;
            weak.feature = std::move(result);
            classifier.weak.push_back(std::move(weak));
            ++tree_index;
        }
        if (tree_index == 0)
            fail(src, stage, where + ": the stage has no trees");
        end_stage(classifier, threshold);
        ++stage_index;
    }
    if (stage_index == 0)
        fail(src, stages, "no stages");
    apply_stump_rule(classifier.weak);
    return classifier;
}

}  // namespace

/* Debian's OpenCV cascades (package opencv-data) by file stem, with the
 * labels they detect; the LBP ones as their converted copies are labelled
 * (the table in classifiers/meson.build, the embedded default among them),
 * so that a cascade detects the same label read from OpenCV's file as
 * converted or embedded. */
constexpr std::pair<const char*, const char*> kDebianCascadeLabels[] = {
    {"lbpcascade_frontalface", "face"},
    {"lbpcascade_frontalface_improved", "face"},
    {"lbpcascade_profileface", "profile-face"},
    {"lbpcascade_silverware", "silverware"},
    {"lbpcascade_frontalcatface", "cat-face"},
    {"haarcascade_eye", "eye"},
    {"haarcascade_eye_tree_eyeglasses", "eye"},
    {"haarcascade_frontalcatface", "cat-face"},
    {"haarcascade_frontalcatface_extended", "cat-face"},
    {"haarcascade_frontalface_alt", "face"},
    {"haarcascade_frontalface_alt2", "face"},
    {"haarcascade_frontalface_alt_tree", "face"},
    {"haarcascade_frontalface_default", "face"},
    {"haarcascade_fullbody", "full-body"},
    {"haarcascade_lefteye_2splits", "left-eye"},
    {"haarcascade_licence_plate_rus_16stages", "licence-plate"},
    {"haarcascade_license_plate_rus_16stages", "licence-plate"}, /* its name from OpenCV 4.10 (Debian 13) on */
    {"haarcascade_lowerbody", "lower-body"},
    {"haarcascade_profileface", "profile-face"},
    {"haarcascade_righteye_2splits", "right-eye"},
    {"haarcascade_russian_plate_number", "licence-plate"},
    {"haarcascade_smile", "smile"},
    {"haarcascade_upperbody", "upper-body"},
    {"haarcascade_mcs_nose", "nose"},
    {"haarcascade_mcs_mouth", "mouth"},
};

std::string label_from_source(const std::string& source)
{
    std::string label = source.substr(source.find_last_of('/') + 1);
    const std::string suffix = ".xml";
    if (label.size() >= suffix.size() && label.compare(label.size() - suffix.size(), suffix.size(), suffix) == 0)
        label.resize(label.size() - suffix.size());
    for (const auto& [stem, known] : kDebianCascadeLabels)
        if (label == stem)
            return known;
    for (const std::string prefix : {"lbpcascade_", "haarcascade_"})
        if (label.compare(0, prefix.size(), prefix) == 0)
            label.erase(0, prefix.size());
    return label_problem(label).empty() ? label : "object";
}

Classifier parse_opencv_cascade(const xml::Document& doc)
{
    const std::string& src = doc.source();
    const xmlNode* root = doc.root();

    const auto top = xml::child_elements(src, root);
    if (top.empty())
        fail(src, root, "no cascade inside <opencv_storage>");
    /* OpenCV reads the first top-level node. */
    const xmlNode* cascade = top[0];
    const std::string name = xml::name_of(cascade);
    const auto type_id = xml::optional_attribute(cascade, "type_id");
    if (top.size() > 1)
        fail(src, top[1], "unexpected element after the cascade (one cascade per file)");
    if (name != "cascade") {
        /* OpenCV falls back to the old format for any other element. */
        if ((type_id && *type_id == "opencv-haar-classifier") ||
            (!type_id && xml::optional_child(src, cascade, "size")))
            return parse_old_haar(src, cascade);
        fail(src, cascade,
             "unknown element (expected <cascade>, or an opencv-haar-classifier cascade, inside "
             "<opencv_storage>)");
    }
    if (type_id && *type_id != "opencv-cascade-classifier")
        fail(src, cascade, "type_id " + xml::quote(*type_id) + " is not supported (expected opencv-cascade-classifier)",
             ErrorKind::UnsupportedClassifier);

    const xmlNode* stage_type = xml::required_child(src, cascade, "stageType");
    const std::string stage_type_value = trimmed_text(src, stage_type);
    if (stage_type_value != "BOOST")
        fail(src, stage_type, "stage type " + xml::printable(stage_type_value) + " is not supported (only BOOST)",
             ErrorKind::UnsupportedClassifier);
    const xmlNode* feature_type = xml::required_child(src, cascade, "featureType");
    const std::string feature_type_value = trimmed_text(src, feature_type);
    const bool haar = feature_type_value == "HAAR";
    if (!haar && feature_type_value != "LBP")
        fail(src, feature_type,
             xml::printable(feature_type_value) + " cascades are not supported (only LBP and HAAR features)",
             ErrorKind::UnsupportedClassifier);

    Classifier classifier;
    classifier.label = label_from_source(src);
    classifier.window_height = integer_element(src, cascade, "height", 1, ModelLimits::kMaxWindowSide);
    classifier.window_width = integer_element(src, cascade, "width", 1, ModelLimits::kMaxWindowSide);
    const int width = classifier.window_width, height = classifier.window_height;

    const xmlNode* feature_params = xml::required_child(src, cascade, "featureParams");
    const xmlNode* cat_count = xml::required_child(src, feature_params, "maxCatCount");
    const std::string cat_count_value = trimmed_text(src, cat_count);
    const long long expected_cats = haar ? 0 : 256;
    if (xml::parse_integer(src, cat_count, "value", cat_count_value, INT32_MIN, INT32_MAX) != expected_cats)
        fail(src, cat_count,
             "maxCatCount " + xml::printable(cat_count_value) + " is not supported (" + feature_type_value +
                 " cascades have " + std::to_string(expected_cats) + ")",
             ErrorKind::UnsupportedClassifier);

    const xmlNode* features_node = xml::required_child(src, cascade, "features");
    std::vector<LbpFeature> lbp_features;
    std::vector<HaarFeature> haar_features;
    if (haar)
        haar_features = read_haar_features(src, features_node, width, height);
    else
        lbp_features = read_features(src, features_node, width, height);

    const xmlNode* stages = xml::required_child(src, cascade, "stages");
    size_t stage_index = 0;
    for (const xmlNode* stage : xml::child_elements(src, stages)) {
        const std::string where = "stage " + std::to_string(stage_index);
        if (xml::name_of(stage) != "_")
            fail(src, stage, "unknown element in <stages> (expected <_>)");
        static const char* const kStage[] = {"maxWeakCount", "stageThreshold", "weakClassifiers", nullptr};
        check_children(src, stage, kStage, where);

        const xmlNode* threshold_node = xml::required_child(src, stage, "stageThreshold");
        const float threshold =
            xml::parse_float(src, threshold_node, where + ": stageThreshold", trimmed_text(src, threshold_node));

        const xmlNode* trees = xml::required_child(src, stage, "weakClassifiers");
        size_t tree_index = 0;
        for (const xmlNode* tree : xml::child_elements(src, trees)) {
            const std::string tree_where = where + ", tree " + std::to_string(tree_index);
            if (xml::name_of(tree) != "_")
                fail(src, tree, "unknown element in <weakClassifiers> (expected <_>)");
            if (classifier.weak.size() == ModelLimits::kMaxWeakClassifiers) {
                fail(src, tree,
                     tree_where + ": too many trees (the limit is " + std::to_string(ModelLimits::kMaxWeakClassifiers) +
                         " weak classifiers)");
            }
            if (haar) {
                WeakClassifier weak;
                weak.feature = read_haar_tree(src, tree, tree_where, haar_features, width, height);
                classifier.weak.push_back(std::move(weak));
            } else {
                classifier.weak.push_back(read_lbp_tree(src, tree, tree_where, lbp_features));
            }
            ++tree_index;
        }
        if (tree_index == 0)
            fail(src, trees, where + ": the stage has no trees");
        end_stage(classifier, threshold);
        ++stage_index;
    }
    if (stage_index == 0)
        fail(src, stages, "no stages");
    if (haar)
        apply_stump_rule(classifier.weak);
    return classifier;
}

}  // namespace waldboost
