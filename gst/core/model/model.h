/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The classifier model shared by every loader, the CPU reference and the
 * OpenCL engine. One model covers both WaldBoost sequences (a rejection
 * threshold after every weak classifier) and OpenCV stage cascades (no
 * threshold inside a stage, a threshold and a reset of the running sum at
 * the end of each stage).
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "core/error.h"

namespace waldboost {

/* Multi-block LBP feature: a 3x3 grid of equal blocks of block_width x
 * block_height pixels whose top-left corner is (x, y) inside the window,
 * and the response added to the running sum for each of its 8-bit codes. */
struct LbpFeature {
    static constexpr size_t kTableSize = 256;
    int x = 0;
    int y = 0;
    int block_width = 1;
    int block_height = 1;
    std::array<float, kTableSize> responses{};
};

/* One weighted rectangle of a Haar feature. Upright: the pixels x..x+width-1,
 * y..y+height-1 of the window. Tilted (rotated 45 degrees, OpenCV's tilted
 * features): the rectangle whose top corner is the pixel corner (x, y), with
 * sides of width and height pixels going down-right and down-left. */
struct HaarRect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    float weight = 0.0f;
    bool operator==(const HaarRect& o) const
    {
        return x == o.x && y == o.y && width == o.width && height == o.height && weight == o.weight;
    }
};

/* A Haar feature: the weighted sum of up to three rectangle sums (OpenCV's
 * RECT_NUM), all upright or all tilted. */
struct HaarFeature {
    static constexpr size_t kMaxRects = 3;
    std::vector<HaarRect> rects;
    bool tilted = false;
    bool operator==(const HaarFeature& o) const { return rects == o.rects && tilted == o.tilted; }
};

/* One decision of a Haar tree: go to `left` when the feature's normalised
 * value is below `threshold`, else to `right`. A child is another node of
 * the same tree or a leaf (see HaarTree). */
struct HaarNode {
    struct Child {
        bool leaf = true;
        int index = 0; /* into HaarTree::nodes or HaarTree::leaves */
        bool operator==(const Child& o) const { return leaf == o.leaf && index == o.index; }
    };
    HaarFeature feature;
    float threshold = 0.0f;
    Child left;
    Child right{true, 1};
    bool operator==(const HaarNode& o) const
    {
        return feature == o.feature && threshold == o.threshold && left == o.left && right == o.right;
    }
};

/* A Haar weak classifier: a binary decision tree evaluated from node 0; the
 * leaf reached is the response added to the running sum. A stump is one
 * node and two leaves. validate() insists on a proper tree: every node but
 * the root and every leaf is reached from exactly one parent, and a child
 * node comes after its parent (so no walk can loop). */
struct HaarTree {
    std::vector<HaarNode> nodes;
    std::vector<float> leaves;
    bool operator==(const HaarTree& o) const { return nodes == o.nodes && leaves == o.leaves; }
};

/* A local rank feature (LRD or LRP): the 3x3 grid of blocks of an LBP
 * feature, numbered 0 to 8 in row order (0 top-left, 4 the centre, 8
 * bottom-right). The rank R_k of block k is the number of the other eight
 * block sums strictly smaller than block k's, so blocks of equal sums share
 * a rank. LRD(a, b) = R_a - R_b indexes a table of 17 responses at
 * R_a - R_b + 8; LRP(a, b) = 9 R_a + R_b one of 81. Ranks do not change
 * under monotonic grey-level changes, so no window is normalised. */
struct RankFeature {
    enum class Kind { Difference, Pair }; /* LRD, LRP */
    static constexpr int kBlocks = 9;
    static constexpr size_t kDifferenceTableSize = 17;
    static constexpr size_t kPairTableSize = 81;
    static constexpr size_t table_size(Kind kind)
    {
        return kind == Kind::Difference ? kDifferenceTableSize : kPairTableSize;
    }
    /* The table index of ranks rank_a and rank_b (each 0 to 8). */
    static constexpr int index(Kind kind, int rank_a, int rank_b)
    {
        return kind == Kind::Difference ? rank_a - rank_b + 8 : 9 * rank_a + rank_b;
    }
    Kind kind = Kind::Difference;
    int x = 0;
    int y = 0;
    int block_width = 1;
    int block_height = 1;
    int block_a = 0;
    int block_b = 1;
    /* table_size(kind) responses (validate() checks the count). */
    std::vector<float> responses;
    size_t table_size() const { return table_size(kind); }
};

/* Sentinel for "no rejection after this weak classifier". */
constexpr float kNoRejection = -std::numeric_limits<float>::infinity();

/* What a weak classifier computes from the window, with its responses, as
 * a tagged type: an LBP feature whose code picks one of its `responses`, a
 * Haar tree whose leaves are its responses, or a rank feature whose ranks
 * pick one of its `responses`. A new feature type is one
 * more alternative here; every std::visit over a Feature (validation, the
 * XML writer, the reference's evaluation, the engine's feature kinds) then
 * fails to compile until it handles the new type. docs/engine.md lists the
 * places a feature type touches. A classifier uses one feature type
 * throughout. */
using Feature = std::variant<LbpFeature, HaarTree, RankFeature>;

/* The name a feature type has in files and messages ("LBP", "HAAR", "LRD",
 * "LRP"). A classifier's weak classifiers all have the same name. */
const char* feature_type_name(const Feature& feature);

/* Every response value a feature can add to the running sum: an LBP or
 * rank feature's table, a Haar tree's leaves. */
struct ResponseValues {
    const float* data = nullptr;
    size_t size = 0;
    const float* begin() const { return data; }
    const float* end() const { return data + size; }
};
ResponseValues response_values(const Feature& feature);

struct WeakClassifier {
    Feature feature;
    /* The window is rejected when the running sum, after adding this weak
     * classifier's response, is below this value (kNoRejection = never). */
    float reject_threshold = kNoRejection;
    /* Reset the running sum to 0 after the rejection test (OpenCV stage end). */
    bool reset_sum_after = false;
};

struct Classifier {
    std::string label = "object";
    int window_width = 0;
    int window_height = 0;
    /* An accepted window's score (the running sum after the last weak
     * classifier, before any reset) must reach this value. */
    float final_threshold = 0.0f;
    std::vector<WeakClassifier> weak;

    size_t stage_count() const;
    /* Haar classifiers normalise each window by its standard deviation
     * (OpenCV's variance normalisation) and may need the tilted integral. */
    bool is_haar() const { return !weak.empty() && std::holds_alternative<HaarTree>(weak.front().feature); }
    bool has_tilted_features() const;
};

/* Sane limits for untrusted files (docs/classifiers.md lists them). */
struct ModelLimits {
    static constexpr int kMaxWindowSide = 1024;
    static constexpr size_t kMaxWeakClassifiers = 65535;
    /* libxml2 refuses larger inputs unless XML_PARSE_HUGE is set, which the
     * loaders never set for untrusted files (a converted 419-weak-classifier
     * cascade is 1.4 MB). */
    static constexpr size_t kMaxFileBytes = 10000000;
    static constexpr size_t kMaxLabelLength = 256;
    /* Debian's deepest Haar trees have 3 nodes; OpenCV trains up to depth
     * 16 in theory, far beyond what cascades use. */
    static constexpr size_t kMaxTreeNodes = 1024;
    /* libxml2 2.9 checks each attribute of a start tag against all the
     * others, and looks each namespace prefix up in a flat list of the
     * declarations in scope: its time grows with the square of these counts
     * (slow even for a file under the size limit; docs/history.md,
     * "Figures behind the code's choices"). Real files use a
     * handful of attributes and no namespace declarations; xml::Document
     * counts both before libxml2 sees the buffer. */
    static constexpr size_t kMaxXmlAttributesPerElement = 256;   // namespace declarations included
    static constexpr size_t kMaxXmlNamespaceDeclarations = 256;  // in the whole file
};

/* Throws Error (ErrorKind::ClassifierFile) naming `source` (a file name or
 * "<embedded>") and the first problem: an empty model, a non-finite value, a
 * feature outside the window, a block of size 0, a label too long, or a limit
 * exceeded. */
void validate(const Classifier& classifier, const std::string& source);

}  // namespace waldboost
