/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Waiting for one's own commands, never for a whole queue. On PoCL every
 * engine of the process shares one command queue (shared_device.h says
 * why), and PoCL implements clFinish, and every blocking read, write or map,
 * by waiting until that queue is empty. While another engine keeps feeding
 * it, the queue may never be empty: a stop or a classifier change beside a
 * busy instance waited for minutes. These enqueue the command without
 * blocking and wait for its event, which completes once the commands before
 * it have (the queues are in order).
 */
#pragma once

#include <cstddef>

#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

/* Everything enqueued on `queue` so far, by this caller or before it, has
 * completed; later commands are not waited for. */
void wait_for_enqueued(cl::CommandQueue& queue);

/* clEnqueueReadBuffer, waiting for this read only. */
void read_and_wait(cl::CommandQueue& queue, const cl::Buffer& buffer, size_t offset, size_t size, void* host);

/* clEnqueueMapBuffer, waiting for this map only. */
void* map_and_wait(cl::CommandQueue& queue, const cl::Buffer& buffer, cl_map_flags flags, size_t offset, size_t size);

/* clEnqueueUnmapMemObject, waiting for this unmap only. */
void unmap_and_wait(cl::CommandQueue& queue, const cl::Memory& memory, void* mapped);

}  // namespace waldboost::opencl
