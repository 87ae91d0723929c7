/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/parts/nested.h"

#include <algorithm>

#include "core/reference/detector.h"

namespace waldboost {

Rect part_area(PartArea area, const Rect& d)
{
    switch (area) {
    case PartArea::UpperHalf: return Rect{d.x, d.y, d.width, d.height / 2};
    case PartArea::Centre: return Rect{d.x + d.width / 4, d.y + d.height / 4, d.width / 2, d.height / 2};
    case PartArea::LowerHalf: break;
    }
    return Rect{d.x, d.y + d.height / 2, d.width, d.height / 2};
}

std::vector<Detection> detect_in_area(const Classifier& classifier, const GrayView& image, const Rect& area,
                                      const DetectParams& params)
{
    const int x0 = std::clamp(area.x, 0, image.width), y0 = std::clamp(area.y, 0, image.height);
    const int x1 = std::clamp(area.x + std::max(area.width, 0), x0, image.width);
    const int y1 = std::clamp(area.y + std::max(area.height, 0), y0, image.height);
    if (x1 - x0 < classifier.window_width || y1 - y0 < classifier.window_height)
        return {};
    const GrayView part{image.row(y0) + x0, x1 - x0, y1 - y0, image.stride};
    std::vector<Detection> found = detect(classifier, part, params);
    for (Detection& d : found) {
        d.rect.x += x0;
        d.rect.y += y0;
    }
    return found;
}

}  // namespace waldboost
