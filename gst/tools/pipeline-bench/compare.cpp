/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "compare.h"

#include <gst/video/video.h>

#include <algorithm>

namespace pipeline_bench {

Boxes boxes_of(const std::vector<waldboost::Detection>& detections)
{
    Boxes boxes;
    for (const waldboost::Detection& d : detections)
        boxes.push_back({d.rect.x, d.rect.y, d.rect.width, d.rect.height});
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

Boxes meta_boxes(GstBuffer* buffer)
{
    Boxes boxes;
    gpointer state = nullptr;
    while (GstMeta* meta =
               gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        const auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        if (roi->parent_id >= 0)
            continue;
        boxes.push_back(
            {static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w), static_cast<int>(roi->h)});
    }
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

std::string boxes_text(const Boxes& boxes)
{
    std::string text = "[";
    for (const auto& b : boxes)
        text += (text.size() > 1 ? " " : "") + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," +
                std::to_string(b[2]) + "x" + std::to_string(b[3]);
    return text + "]";
}

}  // namespace pipeline_bench
