/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/settings/detector_settings.h"

#include <cmath>
#include <optional>

#include "core/opencl/engine/tuning_cache.h"

namespace waldboost::opencl {

namespace {

Size object_size(const ObjectSize& size, const Classifier& classifier)
{
    if (size.height)
        return Size{size.width, *size.height};
    if (size.width <= 0)
        return Size{};
    return Size{size.width, static_cast<int>(std::lround(static_cast<double>(size.width) * classifier.window_height /
                                                         classifier.window_width))};
}

}  // namespace

DetectorParameters resolve_settings(const DetectorSettings& s, const Classifier& classifier, const DeviceInfo* device)
{
    DetectorParameters out;
    DetectParams& params = out.detect;
    params.scale_factor = s.scale_factor;
    params.min_neighbors = s.min_neighbors;
    params.min_size = object_size(s.min_size, classifier);
    params.max_size = object_size(s.max_size, classifier);
    params.stride = s.stride;
    params.grouping = s.grouping;
    params.nms_iou = static_cast<float>(s.nms_iou);
    if (s.final_threshold)
        params.final_threshold = static_cast<float>(*s.final_threshold);
    else if (s.threshold_offset != 0.0)
        params.final_threshold = static_cast<float>(classifier.final_threshold + s.threshold_offset);
    params.max_windows = s.max_windows;
    params.min_confidence = static_cast<float>(s.min_confidence);

    EngineConfig& config = out.engine;
    config.device = s.device;
    config.max_in_flight = s.max_inflight;
    config.batching = s.batching;
    config.batch_wait_ns = s.batch_wait_ns;
    config.profiling = s.profiling;
    if (!s.reduction.empty()) {
        std::optional<SelectedDevice> selected;
        if (!device) {
            selected = select_device(s.device);
            device = &selected->info;
        }
        config.reduction = apply(preferred_reduction(classifier, *device), s.reduction);
        config.scan = ScanMethod::Reduction;
    }
    if (s.scan)
        config.scan = *s.scan;
    return out;
}

}  // namespace waldboost::opencl
