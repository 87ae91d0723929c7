/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "settings.h"

#include <algorithm>
#include <cmath>

#include "core/opencl/tuner.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;

CoreConfig core_config(const Settings& s, const waldboost::Classifier& c, const wcl::DeviceInfo& device)
{
    CoreConfig out;
    const DetectionSettings& d = s.detection;
    waldboost::DetectParams& params = out.detect;
    params.scale_factor = d.scale_factor;
    params.stride = d.stride;
    params.min_neighbors = d.min_neighbors;
    params.nms_iou = static_cast<float>(d.nms_iou);
    params.max_windows = d.max_windows;
    params.grouping = d.grouping == GST_WALDBOOST_GROUPING_NMS    ? waldboost::Grouping::Nms
                      : d.grouping == GST_WALDBOOST_GROUPING_NONE ? waldboost::Grouping::None
                                                                  : waldboost::Grouping::OpenCv;
    /* Sizes are object widths; heights follow the window's aspect ratio. */
    auto size_for_width = [&](int width) {
        return waldboost::Size{width, static_cast<int>(std::lround(static_cast<double>(width) * c.window_height /
                                                                   c.window_width))};
    };
    if (d.min_size > 0)
        params.min_size = size_for_width(d.min_size);
    if (d.max_size > 0)
        params.max_size = size_for_width(d.max_size);
    if (d.threshold != 0.0)
        params.final_threshold = static_cast<float>(c.final_threshold + d.threshold);

    /* Without overrides the engine picks its scan (by rows on CPU devices,
     * the reduction elsewhere) and the reduction's tuned or default
     * parameters itself. Overrides apply on top of those and select the
     * reduction on every device: they would mean nothing to the row scan. */
    const EngineSettings& e = s.engine;
    wcl::EngineConfig& config = out.engine;
    config.device = e.device;
    config.max_in_flight = e.max_inflight;
    config.batching = e.batching;
    config.batch_wait_ns = e.batch_wait;
    config.profiling = e.profiling;
    if (!e.reduction.empty()) {
        config.reduction = wcl::apply(wcl::preferred_reduction(c, device), e.reduction);
        config.scan = wcl::ScanMethod::Reduction;
    }
    return out;
}

waldboost::Rect roi_in_frame(const std::vector<int>& roi, int width, int height)
{
    waldboost::Rect r{0, 0, width, height};
    if (roi.size() == 4) {
        r.x = std::clamp(roi[0], 0, width);
        r.y = std::clamp(roi[1], 0, height);
        r.width = std::clamp(roi[2], 0, width - r.x);
        r.height = std::clamp(roi[3], 0, height - r.y);
    }
    return r;
}

}  // namespace waldboost_element
