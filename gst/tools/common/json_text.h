/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A JSON string literal for the tools' JSON output, as the documents'
 * (core/json_string.h).
 */
#pragma once

#include <string>

#include "core/json_string.h"

namespace waldboost::tools {

inline std::string json_string(const std::string& s)
{
    std::string out;
    append_json_string(out, s);
    return out;
}

}  // namespace waldboost::tools
