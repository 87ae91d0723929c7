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

/* Length of the UTF-8 sequence starting at s[i], 0 when invalid. */
size_t utf8_sequence_length(const std::string& s, size_t i)
{
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char c = byte(i);
    size_t length = 0;
    unsigned int code = 0;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        length = 2;
        code = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        length = 3;
        code = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        length = 4;
        code = c & 0x07;
    } else {
        return 0;
    }
    if (i + length > s.size())
        return 0;
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80)
            return 0;
        code = (code << 6) | (byte(i + k) & 0x3f);
    }
    static const unsigned int kMinCode[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinCode[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return 0;
    return length;
}

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
        const unsigned char c = static_cast<unsigned char>(label[i]);
        /* Control characters cannot be written to XML 1.0 and read back. */
        if (c < 0x20 || c == 0x7f)
            return "the label contains a control character";
        const size_t n = utf8_sequence_length(label, i);
        if (n == 0)
            return "the label is not valid UTF-8";
        /* Nor can U+FFFE and U+FFFF (EF BF BE/BF), which XML 1.0 excludes
         * (found by fuzzing). */
        if (n == 3 && c == 0xef && static_cast<unsigned char>(label[i + 1]) == 0xbf &&
            (static_cast<unsigned char>(label[i + 2]) & 0xfe) == 0xbe)
            return "the label contains U+FFFE or U+FFFF, which XML cannot hold";
        /* C1 controls (U+0080-U+009F, C2 80 to C2 9F; U+009B is a terminal
         * CSI) and the bidi embeddings, overrides and isolates (U+202A-U+202E,
         * E2 80 AA-AE; U+2066-U+2069, E2 81 A6-A9), which reorder or hide
         * what a terminal or log shows around the label. */
        if (n == 2 && c == 0xc2 && static_cast<unsigned char>(label[i + 1]) <= 0x9f)
            return "the label contains a C1 control character (U+0080 to U+009F)";
        if (n == 3 && c == 0xe2) {
            const unsigned char c1 = static_cast<unsigned char>(label[i + 1]);
            const unsigned char c2 = static_cast<unsigned char>(label[i + 2]);
            if ((c1 == 0x80 && c2 >= 0xaa && c2 <= 0xae) || (c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9))
                return "the label contains a bidi embedding, override or isolate character (U+202A to U+202E, "
                       "U+2066 to U+2069)";
        }
        i += n;
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
