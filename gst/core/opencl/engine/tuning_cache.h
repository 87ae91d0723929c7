/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tuning cache: reduction parameters tuned per device and classifier
 * (tuner.h), kept on disk and read back when an engine is built. Apart from
 * the search, which builds and times engines, so that the engine reads
 * its parameters without depending on anything above it.
 */
#pragma once

#include <optional>
#include <string>

#include "core/model/model.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/reduction.h"

namespace waldboost::opencl {

/* Identifies a (device, driver, classifier) combination. */
std::string tuning_key(const DeviceInfo& device, const Classifier& classifier);

/* Where tuned parameters live: $WALDBOOST_CACHE_DIR/tuning, else
 * $XDG_CACHE_HOME/waldboost-gst/tuning. */
std::string tuning_directory();

/* The cached parameters for this key, if any (and still valid). */
std::optional<ReductionParams> load_tuned_reduction(const std::string& key, const DeviceInfo& device);

/* Stores parameters for this key; returns the file written. */
std::string save_tuned_reduction(const std::string& key, const ReductionParams& params);

/* What the engine uses when no parameters are given: the cached tuned
 * parameters for this device and classifier, else
 * default_reduction(device, classifier).
 * WALDBOOST_TUNING_DISABLE=1 ignores tuned parameters. */
ReductionParams preferred_reduction(const Classifier& classifier, const DeviceInfo& device,
                                    bool* from_tuning = nullptr);

}  // namespace waldboost::opencl
