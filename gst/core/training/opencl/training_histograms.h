/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's feature values and weight sums per bin on an OpenCL device
 * (kernels/train.cl), a HistogramBackend (core/training/histograms.h) with
 * the CPU backend's sums bit for bit: the working set's windows go to the
 * device when it changes (the new samples only, or which samples stay),
 * their LBP codes or block ranks are computed there from integral images,
 * and each weak classifier uploads only its weights; the candidates' sums
 * come back in chunks of about 16 MiB, and Z is computed on the host.
 */
#pragma once

#include <memory>
#include <string>

#include "core/training/histograms.h"

namespace waldboost::opencl {

class SharedDevice;

/* kernels/train.cl (embedded, or from WALDBOOST_KERNEL_DIR). */
std::string train_program_source();

/* A backend for `set` on `device`, with `work_group_size` work-items per
 * group (0: 1 on a CPU device, where one work-item sums without atomics,
 * else 256 sharing the group's sums through local atomics; tests ask for
 * both on PoCL). Throws Error (NoDevice) for a device
 * without 64-bit integers (an embedded profile without cles_khr_int64),
 * Error (KernelBuild) when the program does not build, Error for a failed
 * OpenCL call (OutOfResources when the working set does not fit). */
std::unique_ptr<training::HistogramBackend>
make_opencl_histograms(training::CandidateSet set, std::shared_ptr<SharedDevice> device, size_t work_group_size = 0);

/* A factory for TrainerConfig::histograms on the device `device_spec`
 * picks (select_device(): "auto" the first GPU, else any device), chosen
 * now: throws Error (NoDevice) when there is none. *device_name: its name.
 * work_group_size: as make_opencl_histograms() takes it. */
std::function<std::unique_ptr<training::HistogramBackend>(const training::CandidateSet&)>
opencl_histograms(const std::string& device_spec, std::string* device_name = nullptr, size_t work_group_size = 0);

}  // namespace waldboost::opencl
