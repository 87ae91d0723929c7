/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/model/model.h"

#include <cmath>

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

namespace {

std::string describe(const LbpFeature& f)
{
    return "feature (x=" + std::to_string(f.x) + ", y=" + std::to_string(f.y) + ", 3 blocks of " +
           std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + ")";
}

}  // namespace

const char* feature_type_name(const Feature& feature)
{
    return std::visit([](const LbpFeature&) { return "LBP"; }, feature);
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
    const auto fail = [&](const std::string& problem) {
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

    for (size_t i = 0; i < classifier.weak.size(); ++i) {
        const WeakClassifier& weak = classifier.weak[i];
        const std::string where = "weak classifier " + std::to_string(i) + ": ";
        std::visit(
            [&](const LbpFeature& f) {
                if (f.block_width < 1 || f.block_height < 1)
                    fail(where + describe(f) + " has an empty block (block sizes must be at least 1)");
                if (f.x < 0 || f.y < 0)
                    fail(where + describe(f) + " has a negative position");
                /* 64-bit so that huge values cannot overflow. */
                if (static_cast<long long>(f.x) + 3LL * f.block_width > w ||
                    static_cast<long long>(f.y) + 3LL * f.block_height > h) {
                    fail(where + describe(f) + " does not fit the " + std::to_string(w) + "x" +
                         std::to_string(h) + " window");
                }
            },
            weak.feature);
        for (size_t code = 0; code < weak.responses.size(); ++code) {
            if (!std::isfinite(weak.responses[code]))
                fail(where + "the response for LBP code " + std::to_string(code) + " is not a finite number");
        }
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
