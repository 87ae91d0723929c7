/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/model/model.h"

#include <cmath>
#include <functional>

#include "core/model/feature_types.h"
#include "core/model/formats.h"
#include "core/text.h"

namespace waldboost {

size_t Classifier::stage_count() const
{
    /* A stage ends at each sum reset; a tail without a reset (every
     * WaldBoost sequence) is one more stage. */
    size_t stages = 0;
    for (const auto& w : weak) {
        if (w.reset_sum_after)
            ++stages;
    }
    if (!weak.empty() && !weak.back().reset_sum_after)
        ++stages;
    return stages;
}

bool Classifier::has_tilted_features() const
{
    for (const auto& w : weak)
        if (const HaarTree* tree = std::get_if<HaarTree>(&w.feature))
            for (const HaarNode& node : tree->nodes)
                if (node.feature.tilted)
                    return true;
    return false;
}

namespace {

std::string describe(const LbpFeature& f)
{
    return "feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
           std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ")";
}

std::string describe(const RankFeature& f)
{
    return "feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
           std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ", blocks " +
           std::to_string(f.block_a) + " and " + std::to_string(f.block_b) + ")";
}

std::string describe(const HaarRect& r, bool tilted)
{
    return std::string(tilted ? "tilted " : "") + "rectangle (x=" + std::to_string(r.x) + ", y=" + std::to_string(r.y) +
           ", " + std::to_string(r.width) + "x" + std::to_string(r.height) + ")";
}

/* The window pixels a rectangle covers, in 64-bit so that huge values
 * cannot overflow: an upright one spans x..x+w, y..y+h of the integral; a
 * tilted one reaches left to x-h, right to x+w and down to y+w+h. */
bool fits_window(const HaarRect& r, bool tilted, int w, int h)
{
    const long long x = r.x, y = r.y, rw = r.width, rh = r.height;
    if (tilted)
        return x - rh >= 0 && y >= 0 && x + rw <= w && y + rw + rh <= h;
    return x >= 0 && y >= 0 && x + rw <= w && y + rh <= h;
}

}  // namespace

std::string haar_feature_problem(const HaarFeature& f, int w, int h)
{
    if (f.rects.empty() || f.rects.size() > HaarFeature::kMaxRects)
        return "a Haar feature has " + std::to_string(f.rects.size()) + " rectangles (1 to 3 are allowed)";
    for (const HaarRect& r : f.rects) {
        if (r.width < 1 || r.height < 1)
            return describe(r, f.tilted) + " is empty";
        if (!fits_window(r, f.tilted, w, h))
            return describe(r, f.tilted) + " does not fit the " + std::to_string(w) + "x" + std::to_string(h) +
                   " window";
        if (!std::isfinite(r.weight))
            return "the weight of " + describe(r, f.tilted) + " is not a finite number";
    }
    return {};
}

std::string haar_tree_problem(const HaarTree& tree, int w, int h)
{
    if (tree.nodes.empty() || tree.nodes.size() > ModelLimits::kMaxTreeNodes)
        return "a Haar tree has " + std::to_string(tree.nodes.size()) + " nodes (1 to " +
               std::to_string(ModelLimits::kMaxTreeNodes) + " are allowed)";
    if (tree.leaves.size() != tree.nodes.size() + 1)
        return "a Haar tree of " + std::to_string(tree.nodes.size()) + " nodes has " +
               std::to_string(tree.leaves.size()) + " leaves (a binary tree has one more leaf than nodes)";
    for (size_t l = 0; l < tree.leaves.size(); ++l)
        if (!std::isfinite(tree.leaves[l]))
            return "leaf " + std::to_string(l) + " is not a finite number";
    std::vector<int> node_parents(tree.nodes.size(), 0), leaf_parents(tree.leaves.size(), 0);
    for (size_t n = 0; n < tree.nodes.size(); ++n) {
        const HaarNode& node = tree.nodes[n];
        const std::string where = "node " + std::to_string(n) + ": ";
        const std::string feature = haar_feature_problem(node.feature, w, h);
        if (!feature.empty())
            return where + feature;
        if (!std::isfinite(node.threshold))
            return where + "the threshold is not a finite number";
        for (const HaarNode::Child& child : {node.left, node.right}) {
            if (child.leaf) {
                if (child.index < 0 || static_cast<size_t>(child.index) >= tree.leaves.size())
                    return where + "leaf " + std::to_string(child.index) + " does not exist (the tree has " +
                           std::to_string(tree.leaves.size()) + " leaves)";
                ++leaf_parents[static_cast<size_t>(child.index)];
            } else {
                if (child.index <= static_cast<int>(n) || static_cast<size_t>(child.index) >= tree.nodes.size())
                    return where + "child node " + std::to_string(child.index) +
                           " must come after its parent and exist (the tree has " + std::to_string(tree.nodes.size()) +
                           " nodes)";
                ++node_parents[static_cast<size_t>(child.index)];
            }
        }
    }
    for (size_t n = 1; n < tree.nodes.size(); ++n)
        if (node_parents[n] != 1)
            return "node " + std::to_string(n) + " is reached from " + std::to_string(node_parents[n]) +
                   " parents (a tree needs exactly one)";
    for (size_t l = 0; l < tree.leaves.size(); ++l)
        if (leaf_parents[l] != 1)
            return "leaf " + std::to_string(l) + " is reached from " + std::to_string(leaf_parents[l]) +
                   " parents (a tree needs exactly one)";
    return {};
}

const char* feature_type_name(const Feature& feature) { return feature_type_name(feature_type(feature)); }

ResponseValues response_values(const Feature& feature)
{
    struct Values {
        ResponseValues operator()(const LbpFeature& f) const { return {f.responses.data(), f.responses.size()}; }
        ResponseValues operator()(const HaarTree& tree) const { return {tree.leaves.data(), tree.leaves.size()}; }
        ResponseValues operator()(const RankFeature& f) const { return {f.responses.data(), f.responses.size()}; }
    };
    return std::visit(Values{}, feature);
}

std::string label_problem(const std::string& label)
{
    if (label.empty())
        return "the label is empty";
    if (label.size() > ModelLimits::kMaxLabelLength) {
        return "the label is " + std::to_string(label.size()) + " bytes long (the limit is " +
               std::to_string(ModelLimits::kMaxLabelLength) + ")";
    }
    for (size_t i = 0; i < label.size();) {
        const Utf8Char ch = decode_utf8(label, i);
        const uint32_t code = ch.code;
        /* Control characters cannot be written to XML 1.0 and read back. */
        if (ch.length == 1 && (code < 0x20 || code == 0x7f))
            return "the label contains a control character";
        if (ch.length == 0)
            return "the label is not valid UTF-8";
        /* Nor can U+FFFE and U+FFFF, which XML 1.0 excludes (found by
         * fuzzing). */
        if (code == 0xfffe || code == 0xffff)
            return "the label contains U+FFFE or U+FFFF, which XML cannot hold";
        /* C1 controls (U+009B is a terminal CSI) and the bidi embeddings,
         * overrides and isolates, which reorder or hide what a terminal or
         * log shows around the label. */
        if (code >= 0x80 && code <= 0x9f)
            return "the label contains a C1 control character (U+0080 to U+009F)";
        if ((code >= 0x202a && code <= 0x202e) || (code >= 0x2066 && code <= 0x2069))
            return "the label contains a bidi embedding, override or isolate character (U+202A to U+202E, "
                   "U+2066 to U+2069)";
        i += ch.length;
    }
    return {};
}

void validate(const Classifier& classifier, const std::string& source)
{
    const std::function<void(const std::string&)> fail = [&](const std::string& problem) {
        throw Error(ErrorKind::ClassifierFile, printable(source) + ": " + problem);
    };

    const std::string label = label_problem(classifier.label);
    if (!label.empty())
        fail(label);

    const int w = classifier.window_width;
    const int h = classifier.window_height;
    if (w < 1 || h < 1 || w > ModelLimits::kMaxWindowSide || h > ModelLimits::kMaxWindowSide) {
        fail("window size " + std::to_string(w) + "x" + std::to_string(h) + " is outside 1x1 to " +
             std::to_string(ModelLimits::kMaxWindowSide) + "x" + std::to_string(ModelLimits::kMaxWindowSide));
    }
    if (classifier.weak.empty())
        fail("the classifier has no weak classifiers");
    if (classifier.weak.size() > ModelLimits::kMaxWeakClassifiers) {
        fail("the classifier has " + std::to_string(classifier.weak.size()) + " weak classifiers (the limit is " +
             std::to_string(ModelLimits::kMaxWeakClassifiers) + ")");
    }
    if (!std::isfinite(classifier.final_threshold))
        fail("the final threshold is not a finite number");

    /* The name tells LRD from LRP, which share a feature type. */
    const std::string kind = feature_type_name(classifier.weak.front().feature);
    /* The variance is taken over the window less a one-pixel border. */
    if (classifier.is_haar() && (w < 3 || h < 3))
        fail("window size " + std::to_string(w) + "x" + std::to_string(h) +
             " is too small for Haar features (at least 3x3)");
    for (size_t i = 0; i < classifier.weak.size(); ++i) {
        const WeakClassifier& weak = classifier.weak[i];
        const std::string where = "weak classifier " + std::to_string(i) + ": ";
        if (feature_type_name(weak.feature) != kind)
            fail(where + "it uses " + feature_type_name(weak.feature) + " features, the first one " +
                 feature_type_name(classifier.weak.front().feature) + " (a classifier uses one feature type)");
        struct Check {
            const std::function<void(const std::string&)>& fail;
            const std::string& where;
            int w, h;
            void operator()(const HaarTree& tree) const
            {
                const std::string problem = haar_tree_problem(tree, w, h);
                if (!problem.empty())
                    fail(where + problem);
            }
            /* The 3x3 grid of blocks LBP and rank features share;
             * `feature` names it in messages. */
            void check_grid(int x, int y, int block_width, int block_height, const std::string& feature) const
            {
                if (block_width < 1 || block_height < 1)
                    fail(where + feature + " has an empty block (block sizes must be at least 1)");
                if (x < 0 || y < 0)
                    fail(where + feature + " has a negative position");
                /* 64-bit so that huge values cannot overflow. */
                if (static_cast<long long>(x) + 3LL * block_width > w ||
                    static_cast<long long>(y) + 3LL * block_height > h) {
                    fail(where + feature + " does not fit the " + std::to_string(w) + "x" + std::to_string(h) +
                         " window");
                }
            }
            void operator()(const LbpFeature& f) const
            {
                check_grid(f.x, f.y, f.block_width, f.block_height, describe(f));
                for (size_t code = 0; code < f.responses.size(); ++code) {
                    if (!std::isfinite(f.responses[code]))
                        fail(where + "the response for LBP code " + std::to_string(code) + " is not a finite number");
                }
            }
            void operator()(const RankFeature& f) const
            {
                const std::string name = f.kind == RankFeature::Kind::Difference ? "LRD" : "LRP";
                check_grid(f.x, f.y, f.block_width, f.block_height, describe(f));
                for (const int block : {f.block_a, f.block_b})
                    if (block < 0 || block >= RankFeature::kBlocks)
                        fail(where + describe(f) + ": block " + std::to_string(block) +
                             " does not exist (blocks are numbered 0 to 8)");
                if (f.block_a == f.block_b)
                    fail(where + describe(f) + " compares a block with itself (the two blocks must differ)");
                if (f.responses.size() != f.table_size())
                    fail(where + "an " + name + " feature has " + std::to_string(f.responses.size()) +
                         " responses (it needs " + std::to_string(f.table_size()) + ")");
                for (size_t i = 0; i < f.responses.size(); ++i) {
                    if (!std::isfinite(f.responses[i]))
                        fail(where + "response " + std::to_string(i) + " of the " + name +
                             " table is not a finite number");
                }
            }
        };
        std::visit(Check{fail, where, w, h}, weak.feature);
        const float t = weak.reject_threshold;
        if (std::isnan(t) || t == std::numeric_limits<float>::infinity())
            fail(where + "the reject threshold is NaN or +infinity (only -infinity, no rejection, is allowed)");
        /* Files use such values to mean "no rejection", so a model holding
         * one could not be written and read back unchanged. */
        if (std::isfinite(t) && t <= kNoRejectionBelow)
            fail(where + "the reject threshold is at or below -1e30; use kNoRejection for no rejection");
    }
}

}  // namespace waldboost
