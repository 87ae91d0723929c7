/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tools' --grouping option: its names, as the element's grouping
 * property spells them.
 */
#pragma once

#include <optional>
#include <string>

#include "core/detection/types.h"

namespace waldboost::tools {

/* "opencv", "nms" or "none"; nothing for another name. */
inline std::optional<waldboost::Grouping> parse_grouping(const std::string& name)
{
    if (name == "opencv")
        return waldboost::Grouping::OpenCv;
    if (name == "nms")
        return waldboost::Grouping::Nms;
    if (name == "none")
        return waldboost::Grouping::None;
    return std::nullopt;
}

inline const char* grouping_name(waldboost::Grouping grouping)
{
    switch (grouping) {
    case waldboost::Grouping::OpenCv: return "opencv";
    case waldboost::Grouping::Nms: return "nms";
    case waldboost::Grouping::None: break;
    }
    return "none";
}

}  // namespace waldboost::tools
