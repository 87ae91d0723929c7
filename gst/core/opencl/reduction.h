/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parameters of the multi-kernel reduction (kernels/waldboost.cl): their
 * defaults per device class and their valid ranges.
 */
#pragma once

#include "core/model/model.h"
#include "core/opencl/device.h"

namespace waldboost::opencl {

/* The reduction's parameters (algorithm.md). Each step stops once at most
 * 1/divisor of a work-group's windows are left and compacts the survivors. */
struct ReductionParams {
    /* GPU defaults, measured on an H100 at 1920x1080 and 3840x2160 with both
     * OpenCV LBP face cascades (docs/performance.md): step 1 runs the first
     * weak classifiers of every window without synchronising and compacts
     * its survivors at once (divisor 1); the synchronised rounds of the
     * thesis' settings (4/8, 8/4 x2) cost more there than they save. */
    int group_size = 256;     /* work-items per group in steps 1 and 2 (a power of two) */
    int step1_unsync = 7;     /* weak classifiers before step 1's first synchronisation
                                 (on GPUs: through the second stage, see below) */
    int step1_divisor = 1;
    int step2_unsync = 16;
    int step2_divisor = 4;
    int step2_repeats = 3;    /* launches of step 2 */
    int step4_group_size = 32; /* work-items per candidate in step 4 (a power of two) */

    bool operator==(const ReductionParams& o) const;
};

/* Defaults by device class: GPUs want wide groups; a CPU device runs a
 * work-group as a loop, where small groups and short steps cost less. */
ReductionParams default_reduction(const DeviceInfo& device);
/* The same, with step 1's unsynchronised count fitted to the classifier's
 * stages on GPUs. What the engine uses when nothing was tuned. */
ReductionParams default_reduction(const DeviceInfo& device, const Classifier& classifier);

/* Throws Error naming the first parameter out of range. */
void validate(const ReductionParams& params, const DeviceInfo& device);

}  // namespace waldboost::opencl
