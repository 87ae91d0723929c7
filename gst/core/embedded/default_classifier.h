/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string>

#include "core/model/model.h"

namespace waldboost {

/* The default frontal-face classifier ("face"): Debian's
 * lbpcascade_frontalface.xml, converted to WaldBoost XML at build time and
 * embedded in the library, so detecting faces needs no file. Parsed once. */
const Classifier& default_classifier();

/* The embedded WaldBoost XML text itself. */
const std::string& default_classifier_xml();

}  // namespace waldboost
