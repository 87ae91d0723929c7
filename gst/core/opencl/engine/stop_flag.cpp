/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/stop_flag.h"

#include <atomic>

#include "core/opencl/engine/queue_waits.h"

namespace waldboost::opencl {

StopFlag::StopFlag(const cl::Context& context, const cl::Device& device)
    : queue_(context, device), buffer_(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, sizeof(cl_int))
{
    data_ = static_cast<volatile cl_int*>(map_and_wait(queue_, buffer_, CL_MAP_WRITE, 0, sizeof(cl_int)));
    *data_ = 0;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

StopFlag::~StopFlag()
{
    try {
        unmap_and_wait(queue_, buffer_, const_cast<cl_int*>(data_));
    } catch (const cl::Error&) {
        /* The device is gone: the buffer is released with it. */
    }
}

void StopFlag::raise()
{
    *data_ = 1;
    std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool StopFlag::raised() const { return *data_ != 0; }

}  // namespace waldboost::opencl
