/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target for the round-trip property on files: whatever loads
 * (either format, through load_classifier_memory) must be written by
 * write_waldboost_xml, read back to an identical model (every field, floats
 * bit for bit) and written again to the same text. Seeds: both corpora.
 * A difference is a real bug: docs/classifiers.md promises that a written
 * model reads back identical.
 */
#include <cstddef>
#include <cstdint>
#include <string>

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
    const std::string source = "lbpcascade_fuzz.xml";
    const std::string text(reinterpret_cast<const char*>(data), size);
    Classifier model;
    if (!completes(source, "load_classifier_memory", [&] {
            model = waldboost::load_classifier_memory(text, source);
        }))
        return 0;
    require_round_trip(model, "file round trip");
    return 0;
}
