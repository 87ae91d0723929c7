/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target for the OpenCV cascade reader (opencv_cascade.cpp). The
 * bytes are parsed with the hardened XML layer and then always handed to
 * parse_opencv_cascade, whatever the root element is called: a mutation of
 * the root's name cannot divert the input to the WaldBoost reader, so every
 * execution reaches the cascade code. The result is validated as
 * load_classifier_memory does. Seeds: small cascades derived from Debian's
 * LBP and Haar cascades plus hand-written ones.
 *
 * Properties: Error (message starting with the source name) or a valid
 * model with the cascade shape: one sum reset per stage, the last weak
 * classifier ends a stage, and the final threshold is its reject threshold.
 */
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/model/formats.h"
#include "core/model/xml_document.h"
#include "fuzz_common.h"

using namespace waldboost_fuzz;

extern "C" int LLVMFuzzerInitialize(int*, char***)
{
    waldboost::xml::ensure_initialized();
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    /* The label comes from the source name: "lbpcascade_fuzz.xml" -> "fuzz". */
    const std::string source = "lbpcascade_fuzz.xml";
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    Classifier model;
    const bool parsed = completes(source, "parse_opencv_cascade", [&] {
        const waldboost::xml::Document doc = waldboost::xml::Document::parse(text, source);
        model = waldboost::parse_opencv_cascade(doc);
    });
    if (!parsed)
        return 0;
    if (model.label != "fuzz")
        finding("the label is '" + model.label + "', expected 'fuzz' from the source name");
    if (model.weak.empty() || !model.weak.back().reset_sum_after)
        finding("a parsed cascade does not end with a stage end");
    if (bits(model.final_threshold) != bits(model.weak.back().reject_threshold))
        finding("the final threshold is not the last stage's threshold");
    for (const WeakClassifier& weak : model.weak) {
        if (!weak.reset_sum_after && weak.reject_threshold != waldboost::kNoRejection)
            finding("a weak classifier inside a stage has a reject threshold");
    }
    if (!completes(source, "validate", [&] {
            waldboost::validate(model, source);
        }))
        return 0;
    return 0;
}
