/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A flag the host raises while kernels run, so that a frame ends early: a
 * stop then waits for a step of the scan, not for the rest of a frame that
 * a hostile classifier can make last minutes. The row scan reads it between
 * steps of 16 windows; with the stop checks (kernels/waldboost.cl,
 * STOP_CHECKS) the reduction and the row scan read it every 16 weak
 * classifiers of a window too. Kernels read it through a volatile pointer,
 * so every read goes to memory.
 *
 * On CPU devices (PoCL) the flag is one int in a CL_MEM_ALLOC_HOST_PTR
 * buffer, mapped for as long as the flag lives: that memory is the
 * buffer's own, as the engine's staging copy relies on, and the kernels
 * read the host's write while they run. A device with memory of its own
 * (a GPU) would never see that write: there the buffer is the device's,
 * and raise() writes 1 into it through the flag's own queue without
 * waiting, which runs beside the frame's kernels (on NVIDIA GPUs a copy
 * engine does it while a kernel runs).
 */
#pragma once

#include <atomic>

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
    /* Raised for good: every kernel that reads it ends at its next check.
     * Any thread; only the first call writes. */
    void raise();
    bool raised() const { return raised_; }

private:
    cl::CommandQueue queue_; /* its own: a shared queue would run the write after others' frames */
    cl::Buffer buffer_;
    volatile cl_int* data_ = nullptr; /* mapped, on CPU devices; else null */
    std::atomic<bool> raised_{false};
};

}  // namespace waldboost::opencl
