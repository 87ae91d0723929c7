/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The calling thread's CPU time: what the elements' stats count as their
 * host cost, without the time a thread waits (for the device, for another
 * thread, for a core).
 */
#pragma once

#include <cstdint>
#include <ctime>

namespace waldboost {

/* Nanoseconds of CPU time the calling thread has used. */
inline int64_t thread_cpu_ns()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace waldboost
