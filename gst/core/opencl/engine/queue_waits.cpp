/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/queue_waits.h"

namespace waldboost::opencl {

void wait_for_enqueued(cl::CommandQueue& queue)
{
    /* A marker without a wait list completes after every command enqueued
     * before it (OpenCL 1.2, clEnqueueMarkerWithWaitList). */
    cl::Event marker;
    queue.enqueueMarkerWithWaitList(nullptr, &marker);
    marker.wait();
}

void read_and_wait(cl::CommandQueue& queue, const cl::Buffer& buffer, size_t offset, size_t size, void* host)
{
    cl::Event read;
    queue.enqueueReadBuffer(buffer, CL_FALSE, offset, size, host, nullptr, &read);
    read.wait();
}

void* map_and_wait(cl::CommandQueue& queue, const cl::Buffer& buffer, cl_map_flags flags, size_t offset, size_t size)
{
    cl::Event map;
    void* mapped = queue.enqueueMapBuffer(buffer, CL_FALSE, flags, offset, size, nullptr, &map);
    map.wait();
    return mapped;
}

void unmap_and_wait(cl::CommandQueue& queue, const cl::Memory& memory, void* mapped)
{
    cl::Event unmap;
    queue.enqueueUnmapMemObject(memory, mapped, nullptr, &unmap);
    unmap.wait();
}

}  // namespace waldboost::opencl
