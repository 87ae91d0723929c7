/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/embedded/default_classifier.h"

#include <string_view>

#include "core/model/classifier_io.h"

namespace waldboost {

/* Generated at build time by build-aux/embed.py (classifiers/meson.build). */
extern const std::string_view kDefaultClassifierXml;

const std::string& default_classifier_xml()
{
    static const std::string xml(kDefaultClassifierXml);
    return xml;
}

const Classifier& default_classifier()
{
    /* Thread-safe one-time parse (C++11 static initialisation). */
    static const Classifier classifier =
        load_classifier_memory(default_classifier_xml(), "<embedded default classifier>");
    return classifier;
}

}  // namespace waldboost
