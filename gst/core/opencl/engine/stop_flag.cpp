/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/stop_flag.h"

#include "core/opencl/engine/queue_waits.h"

namespace waldboost::opencl {

namespace {

/* The values written into a device's buffer: static, since a write that
 * does not block reads its source after the call returns. */
const cl_int kLowered = 0;
const cl_int kRaised = 1;

bool is_cpu(const cl::Device& device) { return (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0; }

}  // namespace

StopFlag::StopFlag(const cl::Context& context, const cl::Device& device) : queue_(context, device)
{
    if (is_cpu(device)) {
        buffer_ = cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, sizeof(cl_int));
        data_ = static_cast<volatile cl_int*>(map_and_wait(queue_, buffer_, CL_MAP_WRITE, 0, sizeof(cl_int)));
        *data_ = 0;
        std::atomic_thread_fence(std::memory_order_seq_cst);
    } else {
        buffer_ = cl::Buffer(context, CL_MEM_READ_ONLY, sizeof(cl_int));
        queue_.enqueueWriteBuffer(buffer_, CL_FALSE, 0, sizeof(cl_int), &kLowered);
        /* Before any frame's kernel reads it. */
        wait_for_enqueued(queue_);
    }
}

StopFlag::~StopFlag()
{
    try {
        if (data_)
            unmap_and_wait(queue_, buffer_, const_cast<cl_int*>(data_));
        else
            wait_for_enqueued(queue_);
    } catch (const cl::Error&) {
        /* The device is gone: the buffer is released with it. */
    }
}

void StopFlag::raise()
{
    if (raised_.exchange(true))
        return;
    if (data_) {
        *data_ = 1;
        std::atomic_thread_fence(std::memory_order_seq_cst);
        return;
    }
    try {
        queue_.enqueueWriteBuffer(buffer_, CL_FALSE, 0, sizeof(cl_int), &kRaised);
        queue_.flush();
    } catch (const cl::Error&) {
        /* The device failed: its frames end with an error of their own. */
    }
}

}  // namespace waldboost::opencl
