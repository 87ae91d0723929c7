/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/reduction.h"

#include <algorithm>
#include <string>

namespace waldboost::opencl {

bool ReductionParams::operator==(const ReductionParams& o) const
{
    return group_size == o.group_size && step1_unsync == o.step1_unsync && step1_divisor == o.step1_divisor &&
           step2_unsync == o.step2_unsync && step2_divisor == o.step2_divisor && step2_repeats == o.step2_repeats &&
           step4_group_size == o.step4_group_size;
}

ReductionParams default_reduction(const DeviceInfo& device)
{
    ReductionParams p;
    if (device.type == "CPU") {
        /* PoCL and other CPU drivers run a work-group as loops between
         * barriers, so every synchronised round costs a pass over the group:
         * small groups, and long unsynchronised runs, so that on a CPU the
         * reduction mostly happens in step 1 (measured with PoCL 3.1 at
         * 640x480: step 1 took 143 ms with 4 unsynchronised weak classifiers
         * and 76 ms with 40 or more). */
        p.group_size = 16;
        p.step1_unsync = 64;
        p.step1_divisor = 8;
        p.step2_unsync = 64;
        p.step2_repeats = 2;
        p.step4_group_size = 16;
    }
    const size_t max_group = std::max<size_t>(device.max_work_group_size, 1);
    while (static_cast<size_t>(p.group_size) > max_group)
        p.group_size /= 2;
    while (static_cast<size_t>(p.step4_group_size) > max_group)
        p.step4_group_size /= 2;
    return p;
}

ReductionParams default_reduction(const DeviceInfo& device, const Classifier& classifier)
{
    ReductionParams p = default_reduction(device);
    if (device.type == "CPU")
        return p;
    /* Step 1 runs through the classifier's second rejection test: most
     * windows die in the first two stages (7 weak classifiers in
     * lbpcascade_frontalface, 12 in lbpcascade_frontalface_improved, the
     * counts the H100 measurements favour), and what is left is a list short
     * enough for step 2. At least 4 for sequences with a test after every
     * weak classifier. */
    int tests = 0;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        if (classifier.weak[t].reject_threshold != kNoRejection && ++tests == 2) {
            p.step1_unsync = std::clamp(static_cast<int>(t) + 1, 4, 32);
            break;
        }
    }
    /* Divisor 1 sizes step 1's lists for every window (about 144 MB per
     * frame in flight at 1080p, 2.3 GB at 8K). Small and embedded GPUs get
     * lists an eighth of that; step 1 then compacts as in the thesis. */
    constexpr uint64_t kLargeDeviceMemory = uint64_t{4} << 30;
    if (device.global_memory < kLargeDeviceMemory)
        p.step1_divisor = 8;
    return p;
}

static bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

void validate(const ReductionParams& p, const DeviceInfo& device)
{
    auto fail = [](const std::string& what) { throw Error(ErrorKind::BadParameter, "reduction parameter " + what); };
    const int max_group = static_cast<int>(std::min<size_t>(device.max_work_group_size, 4096));
    if (!power_of_two(p.group_size) || p.group_size < 8 || p.group_size > max_group)
        fail("group size must be a power of two from 8 to " + std::to_string(max_group) + ", not " +
             std::to_string(p.group_size));
    if (!power_of_two(p.step4_group_size) || p.step4_group_size > max_group)
        fail("step-4 group size must be a power of two up to " + std::to_string(max_group) + ", not " +
             std::to_string(p.step4_group_size));
    if (p.step1_unsync < 0 || p.step1_unsync > 65535 || p.step2_unsync < 0 || p.step2_unsync > 65535)
        fail("unsynchronised weak classifier counts must be 0 to 65535");
    if (p.step1_divisor < 1 || p.step1_divisor > p.group_size || p.step2_divisor < 1 ||
        p.step2_divisor > p.group_size)
        fail("divisors must be 1 to the group size");
    if (p.step2_repeats < 0 || p.step2_repeats > 16)
        fail("step-2 repeats must be 0 to 16, not " + std::to_string(p.step2_repeats));
}

}  // namespace waldboost::opencl
