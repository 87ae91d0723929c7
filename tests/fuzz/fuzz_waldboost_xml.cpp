/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target: the bytes are a classifier file handed to the public
 * entry point, load_classifier_memory, as a WaldBoost XML source. The seed
 * corpus is WaldBoost XML, so most of the effort goes into waldboost_xml.cpp
 * and the shared XML layer, but format detection sends any <opencv_storage>
 * the fuzzer makes to the cascade reader too.
 *
 * Properties: the loader returns a model that validate() accepts, or throws
 * waldboost::Error whose message starts with the source name; anything else
 * (another exception, a crash, a leak, undefined behaviour, a hang) is a
 * finding.
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
    const std::string source = "fuzz.xml";
    const std::string text(reinterpret_cast<const char*>(data), size);
    Classifier model;
    if (!completes(source, "load_classifier_memory", [&] {
            model = waldboost::load_classifier_memory(text, source);
        }))
        return 0;
    /* The loader validated it; validating again must agree. */
    if (!completes(source, "validate", [&] {
            waldboost::validate(model, source);
        }))
        finding("load_classifier_memory returned a model that validate() refuses");
    return 0;
}
