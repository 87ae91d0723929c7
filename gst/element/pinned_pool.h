/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A buffer pool whose memory the engine's device reads directly
 * (core/opencl/engine/pinned_memory.h), offered upstream in the allocation query:
 * a decoder writing its frames there saves the element its frame copy. */
#pragma once

#include <memory>

#include <gst/gst.h>

namespace waldboost::opencl {
class SharedDevice;
}

/* A new pool (full reference) of pinned blocks on `device`'s context. */
GstBufferPool* waldboost_pinned_pool_new(std::shared_ptr<waldboost::opencl::SharedDevice> device);
