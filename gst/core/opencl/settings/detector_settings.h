/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What a user sets for detection (the element's properties, the tools'
 * options) and the one function that turns it into the detection
 * parameters and the engine's configuration, so that the same settings
 * mean the same detection in the element and in every tool.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/engine/reduction.h"

namespace waldboost::opencl {

/* An object size as the user gives it: a whole size (waldboost-detect's
 * WxH), or a width alone whose height follows the classifier window's
 * aspect ratio (the element's min-size and max-size). */
struct ObjectSize {
    int width = 0;             /* 0 without a height: unset (DetectParams' default) */
    std::optional<int> height; /* unset: width x window height / window width, rounded */
};

/* Defaults are the element's property defaults. */
struct DetectorSettings {
    /* Detection */
    double scale_factor = 1.1;
    int min_neighbors = 3;
    ObjectSize min_size; /* unset: the classifier window */
    ObjectSize max_size; /* unset: the image */
    int stride = 0;      /* 0: OpenCV's rule */
    Grouping grouping = Grouping::OpenCv;
    double nms_iou = 0.3;
    /* The final threshold: final_threshold when set (waldboost-detect's
     * --threshold), else the classifier's plus threshold_offset when that
     * is not 0 (the element's threshold), else the classifier's. */
    std::optional<double> final_threshold;
    double threshold_offset = 0;
    int max_windows = kDefaultMaxWindows;
    double min_confidence = 0; /* 0 to 1; 0 keeps every detection */

    /* The engine */
    std::string device = "auto";
    int max_inflight = 2;
    bool batching = true;
    uint64_t batch_wait_ns = 0;
    bool profiling = false;
    /* Unset: the reduction when there are reduction overrides (they would
     * mean nothing to the row scan), else the engine's choice. */
    std::optional<ScanMethod> scan;
    /* Applied on top of the tuned or default parameters of the device and
     * classifier; none: the engine picks those itself. */
    ReductionOverrides reduction;
};

struct DetectorParameters {
    DetectParams detect;
    EngineConfig engine;
};

/* The detection parameters and the engine configuration for `classifier`.
 * `device` is the device the engine will run on (select_device() of
 * settings.device, or of one entry of its fallback list): its tuned or
 * default reduction parameters are what reduction overrides apply to. When
 * null and there are overrides, the device settings.device selects is
 * used. Without overrides no device is looked at, so the detection
 * parameters alone need no OpenCL; with them it reads the tuning cache
 * (and may select a device), so resolve once per change of settings, not
 * per frame. Values are not checked here: the detectors and the engine
 * refuse what they cannot run. */
DetectorParameters resolve_settings(const DetectorSettings& settings, const Classifier& classifier,
                                    const DeviceInfo* device = nullptr);

}  // namespace waldboost::opencl
