/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reader for OpenCV cascades in the opencv_traincascade format with LBP
 * features and depth-1 trees (stumps), as shipped in Debian's opencv-data.
 * A stage cascade becomes a WaldBoost sequence: no rejection inside a stage,
 * the stage threshold and a sum reset after its last tree.
 */
#include <cstdint>
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

void check_children(const std::string& src, const xmlNode* node, const char* const* allowed,
                    const std::string& where)
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
        const auto v = xml::parse_integer_list(src, rect, where, xml::element_text(src, rect), 4, 0,
                                               ModelLimits::kMaxWindowSide);
        LbpFeature f;
        f.x = static_cast<int>(v[0]);
        f.y = static_cast<int>(v[1]);
        f.block_width = static_cast<int>(v[2]);
        f.block_height = static_cast<int>(v[3]);
        if (f.block_width < 1 || f.block_height < 1)
            fail(src, rect, where + ": block size " + std::to_string(f.block_width) + "x" +
                                std::to_string(f.block_height) + " is empty");
        if (f.x + 3 * f.block_width > width || f.y + 3 * f.block_height > height) {
            fail(src, rect, where + ": feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) +
                                ", 3 blocks of " + std::to_string(f.block_width) + "x" +
                                std::to_string(f.block_height) + ") does not fit the " + std::to_string(width) +
                                "x" + std::to_string(height) + " window");
        }
        result.push_back(f);
        ++index;
    }
    if (result.empty())
        fail(src, features, "no features");
    return result;
}

WeakClassifier read_tree(const std::string& src, const xmlNode* tree, const std::string& where,
                         const std::vector<LbpFeature>& features)
{
    static const char* const kTree[] = {"internalNodes", "leafValues", nullptr};
    check_children(src, tree, kTree, where);

    const xmlNode* nodes = xml::required_child(src, tree, "internalNodes");
    const std::string nodes_text = xml::element_text(src, nodes);
    const size_t count = xml::split_tokens(nodes_text).size();
    if (count != kStumpIntegers) {
        if (count > kStumpIntegers && count % kStumpIntegers == 0) {
            fail(src, nodes, where + ": trees with " + std::to_string(count / kStumpIntegers) +
                                 " nodes are not supported (only depth-1 trees, maxDepth 1)",
                 ErrorKind::UnsupportedClassifier);
        }
        fail(src, nodes, where + ": expected " + std::to_string(kStumpIntegers) +
                             " integers (left right featureIndex and 8 subset words), found " + std::to_string(count));
    }
    /* Subset words are written as signed 32-bit ints; unsigned spellings are
     * accepted too. Left and right are ignored for a stump, as in OpenCV. */
    const auto v = xml::parse_integer_list(src, nodes, where, nodes_text, kStumpIntegers, INT32_MIN, UINT32_MAX);
    const long long feature_index = v[2];
    if (feature_index < 0 || feature_index >= static_cast<long long>(features.size())) {
        fail(src, nodes, where + ": featureIndex " + std::to_string(feature_index) +
                             " is out of range (the cascade has " + std::to_string(features.size()) + " features)");
    }

    const xmlNode* leaves = xml::required_child(src, tree, "leafValues");
    const std::string leaves_text = xml::element_text(src, leaves);
    const size_t leaf_count = xml::split_tokens(leaves_text).size();
    if (leaf_count > 2)
        fail(src, leaves, where + ": " + std::to_string(leaf_count) +
                              " leaf values: deeper trees are not supported (only depth-1 trees, 2 leaves)",
             ErrorKind::UnsupportedClassifier);
    const auto leaf = xml::parse_float_list(src, leaves, where, leaves_text, 2);

    WeakClassifier weak;
    weak.feature = features[static_cast<size_t>(feature_index)];
    uint32_t subset[8];
    for (size_t i = 0; i < 8; ++i)
        subset[i] = static_cast<uint32_t>(v[3 + i]);
    for (unsigned c = 0; c < 256; ++c)
        weak.responses[c] = (subset[c >> 5] & (1u << (c & 31))) ? leaf[0] : leaf[1];
    return weak;
}

}  // namespace

/* Debian's OpenCV LBP cascades (package opencv-data) by file stem, with the
 * labels their converted copies get (the table in classifiers/meson.build,
 * the embedded default among them): a cascade detects the same label read
 * from OpenCV's file as converted or embedded. */
constexpr std::pair<const char*, const char*> kDebianCascadeLabels[] = {
    {"lbpcascade_frontalface", "face"},         {"lbpcascade_frontalface_improved", "face"},
    {"lbpcascade_profileface", "profile-face"}, {"lbpcascade_silverware", "silverware"},
    {"lbpcascade_frontalcatface", "cat-face"},
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
    const std::string prefix = "lbpcascade_";
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
    if ((type_id && *type_id == "opencv-haar-classifier") || name.compare(0, 11, "haarcascade") == 0) {
        fail(src, cascade,
             "old-format Haar cascades are not supported (only LBP cascades in the opencv_traincascade format)",
             ErrorKind::UnsupportedClassifier);
    }
    if (name != "cascade")
        fail(src, cascade, "unknown element (expected <cascade> inside <opencv_storage>)");
    if (type_id && *type_id != "opencv-cascade-classifier")
        fail(src, cascade,
             "type_id " + xml::quote(*type_id) + " is not supported (expected opencv-cascade-classifier)",
             ErrorKind::UnsupportedClassifier);
    if (top.size() > 1)
        fail(src, top[1], "unexpected element after the cascade (one cascade per file)");

    const xmlNode* stage_type = xml::required_child(src, cascade, "stageType");
    const std::string stage_type_value = trimmed_text(src, stage_type);
    if (stage_type_value != "BOOST")
        fail(src, stage_type, "stage type " + xml::printable(stage_type_value) + " is not supported (only BOOST)",
             ErrorKind::UnsupportedClassifier);
    const xmlNode* feature_type = xml::required_child(src, cascade, "featureType");
    const std::string feature_type_value = trimmed_text(src, feature_type);
    if (feature_type_value != "LBP")
        fail(src, feature_type, xml::printable(feature_type_value) + " cascades are not supported (only LBP features)",
             ErrorKind::UnsupportedClassifier);

    Classifier classifier;
    classifier.label = label_from_source(src);
    classifier.window_height = integer_element(src, cascade, "height", 1, ModelLimits::kMaxWindowSide);
    classifier.window_width = integer_element(src, cascade, "width", 1, ModelLimits::kMaxWindowSide);

    const xmlNode* feature_params = xml::required_child(src, cascade, "featureParams");
    const xmlNode* cat_count = xml::required_child(src, feature_params, "maxCatCount");
    const std::string cat_count_value = trimmed_text(src, cat_count);
    if (xml::parse_integer(src, cat_count, "value", cat_count_value, INT32_MIN, INT32_MAX) != 256)
        fail(src, cat_count,
             "maxCatCount " + xml::printable(cat_count_value) + " is not supported (LBP cascades have 256)",
             ErrorKind::UnsupportedClassifier);

    const std::vector<LbpFeature> features = read_features(
        src, xml::required_child(src, cascade, "features"), classifier.window_width, classifier.window_height);

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
                fail(src, tree, tree_where + ": too many trees (the limit is " +
                                    std::to_string(ModelLimits::kMaxWeakClassifiers) + " weak classifiers)");
            }
            classifier.weak.push_back(read_tree(src, tree, tree_where, features));
            ++tree_index;
        }
        if (tree_index == 0)
            fail(src, trees, where + ": the stage has no trees");
        /* Computed in float exactly as OpenCV does. */
        const float stage_threshold = threshold - kThresholdEps;
        classifier.weak.back().reject_threshold = stage_threshold;
        classifier.weak.back().reset_sum_after = true;
        classifier.final_threshold = stage_threshold;
        ++stage_index;
    }
    if (stage_index == 0)
        fail(src, stages, "no stages");
    return classifier;
}

}  // namespace waldboost
