/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A flag the host raises while kernels run, so that a frame's row scan on a
 * CPU device ends early: a stop then waits for at most the 16 windows each
 * row is walking, not for the rest of a frame that a hostile classifier can
 * make last minutes.
 *
 * The flag is one int in a CL_MEM_ALLOC_HOST_PTR buffer, mapped for as long
 * as the flag lives. On CPU devices (PoCL) that memory is the buffer's own,
 * as the engine's staging copy relies on: the kernels read the host's write
 * while they run (kernels/scan_rows.cl reads it through a volatile pointer
 * between steps of 16 windows). Only the row scan reads it, and the engine
 * uses the row scan on CPU devices only; a device with memory of its own
 * would never see the write, and its frames end as they would have.
 */
#pragma once

#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

class StopFlag {
public:
    StopFlag(const cl::Context& context, const cl::Device& device);
    ~StopFlag();
    StopFlag(const StopFlag&) = delete;
    StopFlag& operator=(const StopFlag&) = delete;

    /* The buffer the kernels read (0 until raise()). */
    const cl::Buffer& buffer() const { return buffer_; }
    /* Raised for good: every row scan that reads it ends at its next step. */
    void raise();
    bool raised() const;

private:
    cl::CommandQueue queue_; /* its own: a map on a shared queue would wait for others' frames */
    cl::Buffer buffer_;
    volatile cl_int* data_ = nullptr;
};

}  // namespace waldboost::opencl
