/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target for the writer, structure-aware: the bytes build a model
 * directly (FuzzedDataProvider), so the writer sees what the XML readers can
 * never produce but the API and waldboost-convert --label can: any label
 * bytes, any float bit pattern (subnormals, -0, FLT_MAX, NaN, infinities),
 * features (LBP, Haar, LRD, LRP) on and off the window's edges.
 *
 * Properties: validate() accepts the model exactly when write_waldboost_xml
 * does (every model validate() accepts, up to ModelLimits, must be
 * writable and readable); an accepted model reads back identical (every field, floats bit for
 * bit) and writes the same text again; label_from_source always gives a
 * label that label_problem accepts. Any other exception than Error, or a
 * crash, is a finding.
 */
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/model/formats.h"
#include "core/model/xml_document.h"
#include "fuzz_common.h"

using namespace waldboost_fuzz;

namespace {

float raw_float(FuzzedDataProvider& in)
{
    const uint32_t u = in.ConsumeIntegral<uint32_t>();
    float f;
    std::memcpy(&f, &u, sizeof f);
    return f;
}

/* Mostly ordinary values, sometimes the edge cases by name, sometimes any
 * bit pattern. */
float some_float(FuzzedDataProvider& in)
{
    switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return raw_float(in);
    case 1: return std::numeric_limits<float>::denorm_min() * static_cast<float>(in.ConsumeIntegral<uint16_t>());
    case 2: return in.ConsumeBool() ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
    case 3: return -0.0f;
    case 4: return std::numeric_limits<float>::infinity() * (in.ConsumeBool() ? 1.0f : -1.0f);
    case 5: return std::numeric_limits<float>::quiet_NaN();
    default: return static_cast<float>(in.ConsumeIntegralInRange<int>(-1000, 1000)) / 64.0f;
    }
}

std::string some_label(FuzzedDataProvider& in)
{
    switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 0: return "object";
    case 1: {
        /* OpenCV cascades get their label from the file name. */
        const std::string source = in.ConsumeRandomLengthString(300);
        const std::string label = waldboost::label_from_source(source);
        const std::string problem = waldboost::label_problem(label);
        if (!problem.empty())
            finding("label_from_source gave a label that label_problem refuses: " + problem);
        return label;
    }
    default: return in.ConsumeRandomLengthString(300);
    }
}

/* A rectangle that fits a w x h window (upright or tilted) as often as
 * not, else anything. */
waldboost::HaarRect some_rect(FuzzedDataProvider& in, int w, int h, bool tilted)
{
    waldboost::HaarRect r;
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
        r = {in.ConsumeIntegral<int>(), in.ConsumeIntegral<int>(), in.ConsumeIntegral<int>(), in.ConsumeIntegral<int>(),
             some_float(in)};
        return r;
    }
    r.weight = some_float(in);
    if (!tilted) {
        r.width = in.ConsumeIntegralInRange<int>(1, w);
        r.height = in.ConsumeIntegralInRange<int>(1, h);
        r.x = in.ConsumeIntegralInRange<int>(0, w - r.width);
        r.y = in.ConsumeIntegralInRange<int>(0, h - r.height);
        return r;
    }
    /* Tilted: reaches x - height to x + width, y to y + width + height. */
    r.width = in.ConsumeIntegralInRange<int>(1, std::max(1, std::min(w - 1, h - 1)));
    r.height = in.ConsumeIntegralInRange<int>(1, std::max(1, std::min(w - r.width, h - r.width)));
    r.x = in.ConsumeIntegralInRange<int>(r.height, std::max(r.height, w - r.width));
    r.y = in.ConsumeIntegralInRange<int>(0, std::max(0, h - r.width - r.height));
    return r;
}

/* A Haar tree of 1 to 4 nodes: a proper tree (each node's left child the
 * next node or a leaf) nearly always, else children chosen at random. */
waldboost::HaarTree some_tree(FuzzedDataProvider& in, int w, int h)
{
    waldboost::HaarTree tree;
    const int nodes = in.ConsumeIntegralInRange<int>(1, 4);
    const bool random_links = in.ConsumeIntegralInRange<int>(0, 15) == 0;
    int next_leaf = 0;
    for (int n = 0; n < nodes; ++n) {
        waldboost::HaarNode node;
        node.feature.tilted = in.ConsumeBool();
        const int rects = in.ConsumeIntegralInRange<int>(0, 15) == 0 ? in.ConsumeIntegralInRange<int>(0, 4)
                                                                     : in.ConsumeIntegralInRange<int>(1, 3);
        for (int r = 0; r < rects; ++r)
            node.feature.rects.push_back(some_rect(in, w, h, node.feature.tilted));
        node.threshold = some_float(in);
        if (random_links) {
            node.left = {in.ConsumeBool(), in.ConsumeIntegralInRange<int>(-1, 5)};
            node.right = {in.ConsumeBool(), in.ConsumeIntegralInRange<int>(-1, 5)};
        } else {
            node.left = n + 1 < nodes ? waldboost::HaarNode::Child{false, n + 1}
                                      : waldboost::HaarNode::Child{true, next_leaf++};
            node.right = {true, next_leaf++};
        }
        tree.nodes.push_back(node);
    }
    const int leaves = random_links ? in.ConsumeIntegralInRange<int>(0, 6) : nodes + 1;
    for (int l = 0; l < leaves; ++l)
        tree.leaves.push_back(some_float(in));
    return tree;
}

/* A rank feature of `kind` that fits a w x h window with two different
 * blocks and a table of the right length nearly always, else any grid,
 * block indices from -1 to 9 (equal ones too) and 0 to 90 responses. */
waldboost::RankFeature some_rank(FuzzedDataProvider& in, waldboost::RankFeature::Kind kind, int w, int h)
{
    waldboost::RankFeature f;
    f.kind = kind;
    const bool anything = in.ConsumeIntegralInRange<int>(0, 15) == 0;
    if (anything) {
        f.x = in.ConsumeIntegral<int>();
        f.y = in.ConsumeIntegral<int>();
        f.block_width = in.ConsumeIntegral<int>();
        f.block_height = in.ConsumeIntegral<int>();
        f.block_a = in.ConsumeIntegralInRange<int>(-1, 9);
        f.block_b = in.ConsumeIntegralInRange<int>(-1, 9);
        f.responses.resize(in.ConsumeIntegralInRange<size_t>(0, 90));
        return f;
    }
    f.block_width = in.ConsumeIntegralInRange<int>(1, std::max(1, w / 3));
    f.block_height = in.ConsumeIntegralInRange<int>(1, std::max(1, h / 3));
    f.x = in.ConsumeIntegralInRange<int>(0, std::max(0, w - 3 * f.block_width));
    f.y = in.ConsumeIntegralInRange<int>(0, std::max(0, h - 3 * f.block_height));
    f.block_a = in.ConsumeIntegralInRange<int>(0, 8);
    f.block_b = (f.block_a + in.ConsumeIntegralInRange<int>(1, 8)) % 9;
    f.responses.resize(f.table_size());
    return f;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    waldboost::xml::ensure_initialized();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    FuzzedDataProvider in(data, size);
    /* Rarely (1 in 4096 inputs: each costs a second) the weak classifiers
     * are repeated to 2,000 to 3,000: written files of several megabytes,
     * towards the size limits of the reader. */
    const bool bulk = in.ConsumeIntegralInRange<uint16_t>(0, 4095) == 4095;
    const size_t bulk_count = bulk ? in.ConsumeIntegralInRange<size_t>(2000, 3000) : 0;
    Classifier model;
    model.label = some_label(in);
    model.window_width = in.ConsumeIntegralInRange<int>(-1, waldboost::ModelLimits::kMaxWindowSide + 1);
    model.window_height = in.ConsumeIntegralInRange<int>(-1, waldboost::ModelLimits::kMaxWindowSide + 1);
    model.final_threshold = in.ConsumeBool() ? 0.0f : some_float(in);

    const int count = in.ConsumeIntegralInRange<int>(0, 12);
    const int w = std::max(model.window_width, 1);
    const int h = std::max(model.window_height, 1);
    /* Haar models half of the time, LBP ones a quarter, LRD and LRP ones an
     * eighth each (and now and then a model whose last weak classifier has
     * another type, or the other rank kind). */
    enum Family { Lbp, Haar, Lrd, Lrp };
    Family family = Haar;
    if (!in.ConsumeBool()) {
        const int pick = in.ConsumeIntegralInRange<int>(0, 3);
        family = pick < 2 ? Lbp : pick == 2 ? Lrd : Lrp;
    }
    const bool mixed = in.ConsumeIntegralInRange<int>(0, 31) == 0;
    const Family odd_one = static_cast<Family>(in.ConsumeIntegralInRange<int>(0, 3));
    for (int i = 0; i < count; ++i) {
        WeakClassifier weak;
        const Family type = mixed && i == count - 1 ? odd_one : family;
        if (type == Haar) {
            weak.feature = some_tree(in, w, h);
        } else if (type == Lrd || type == Lrp) {
            weak.feature = some_rank(
                in, type == Lrd ? waldboost::RankFeature::Kind::Difference : waldboost::RankFeature::Kind::Pair, w, h);
        } else if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
            /* Anything, mostly refused by validate(). */
            weak.feature = waldboost::LbpFeature{in.ConsumeIntegral<int>(), in.ConsumeIntegral<int>(),
                                                 in.ConsumeIntegral<int>(), in.ConsumeIntegral<int>()};
        } else {
            /* A feature that fits, on the edges as often as not. */
            lbp(weak).block_width = in.ConsumeIntegralInRange<int>(1, std::max(1, w / 3));
            lbp(weak).block_height = in.ConsumeIntegralInRange<int>(1, std::max(1, h / 3));
            lbp(weak).x = in.ConsumeIntegralInRange<int>(0, std::max(0, w - 3 * lbp(weak).block_width));
            lbp(weak).y = in.ConsumeIntegralInRange<int>(0, std::max(0, h - 3 * lbp(weak).block_height));
        }
        /* A short pattern of values repeated over the table (LBP, rank). */
        std::vector<float> pattern(static_cast<size_t>(in.ConsumeIntegralInRange<int>(1, 8)));
        for (float& v : pattern)
            v = some_float(in);
        if (waldboost::LbpFeature* f = std::get_if<waldboost::LbpFeature>(&weak.feature))
            for (size_t c = 0; c < f->responses.size(); ++c)
                f->responses[c] = pattern[c % pattern.size()];
        if (waldboost::RankFeature* f = std::get_if<waldboost::RankFeature>(&weak.feature))
            for (size_t c = 0; c < f->responses.size(); ++c)
                f->responses[c] = pattern[c % pattern.size()];
        switch (in.ConsumeIntegralInRange<int>(0, 3)) {
        case 0: weak.reject_threshold = waldboost::kNoRejection; break;
        case 1:
            /* Near the "no rejection" boundary of the file format. */
            weak.reject_threshold = std::nextafter(-1e30f, in.ConsumeBool() ? 0.0f : -1e31f);
            break;
        default: weak.reject_threshold = some_float(in); break;
        }
        weak.reset_sum_after = in.ConsumeBool();
        model.weak.push_back(weak);
    }
    for (size_t i = 0; bulk && !model.weak.empty() && model.weak.size() < bulk_count; ++i) {
        const WeakClassifier copy = model.weak[i];
        model.weak.push_back(copy);
    }

    const std::string source = "model";
    const bool valid = completes(source, "validate", [&] {
        waldboost::validate(model, source);
    });
    if (!valid) {
        /* The writer validates first and must refuse with Error. */
        if (completes("classifier to write", "write_waldboost_xml", [&] {
                waldboost::write_waldboost_xml(model);
            }))
            finding("write_waldboost_xml wrote a model that validate() refuses");
        return 0;
    }
    require_round_trip(model, "model round trip");
    return 0;
}
