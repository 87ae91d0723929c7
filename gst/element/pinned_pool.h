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

/* The pool the element offers upstream: a new pool (full reference) of
 * pinned blocks on `device`'s context, configured for frames of `caps`:
 * buffers of one frame, at least `min_buffers` of them (those the element
 * holds) and no most, with GstVideoMeta. nullptr when `caps` are not video
 * or the pool refuses that config. */
GstBufferPool* waldboost_pinned_pool_new_for_frames(std::shared_ptr<waldboost::opencl::SharedDevice> device,
                                                    GstCaps* caps, guint min_buffers);
