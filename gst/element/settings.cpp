/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "settings.h"

#include <algorithm>

namespace waldboost_element {

namespace wcl = waldboost::opencl;

CoreConfig core_config(const Settings& s, const waldboost::Classifier& c, const wcl::DeviceInfo& device)
{
    wcl::DetectorSettings ds;
    const DetectionSettings& d = s.detection;
    ds.scale_factor = d.scale_factor;
    ds.min_neighbors = d.min_neighbors;
    ds.min_size.width = d.min_size; /* heights follow the window's aspect ratio, */
    if (d.min_height > 0)           /* unless min-height gives one */
        ds.min_size.height = d.min_height;
    ds.max_size.width = d.max_size;
    ds.stride = d.stride;
    ds.grouping = d.grouping == GST_WALDBOOST_GROUPING_NMS    ? waldboost::Grouping::Nms
                  : d.grouping == GST_WALDBOOST_GROUPING_NONE ? waldboost::Grouping::None
                                                              : waldboost::Grouping::OpenCv;
    ds.nms_iou = d.nms_iou;
    ds.threshold_offset = d.threshold;
    ds.max_windows = d.max_windows;
    ds.min_confidence = d.min_confidence;

    const EngineSettings& e = s.engine;
    ds.device = e.device;
    ds.max_inflight = e.max_inflight;
    ds.batching = e.batching;
    ds.batch_wait_ns = e.batch_wait;
    ds.profiling = e.profiling;
    ds.reduction = e.reduction;
    return wcl::resolve_settings(ds, c, &device);
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
