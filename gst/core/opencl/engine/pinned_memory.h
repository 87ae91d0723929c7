/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Host memory that the engine's device reads directly.
 *
 * A block is a CL_MEM_ALLOC_HOST_PTR buffer of the device's context, mapped
 * for as long as the block lives: on GPUs that memory is pinned, so a frame
 * written there (by a decoder, through the element's buffer pool) is
 * uploaded by DMA with no host copy. The engine asks `find_pinned` whether a
 * frame lies in such a block of its context. */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

class SharedDevice;

class PinnedBlock {
public:
    PinnedBlock(std::shared_ptr<SharedDevice> device, size_t bytes);
    ~PinnedBlock();
    PinnedBlock(const PinnedBlock&) = delete;
    PinnedBlock& operator=(const PinnedBlock&) = delete;

    uint8_t* data() const { return data_; }
    size_t size() const { return size_; }

private:
    std::shared_ptr<SharedDevice> device_; /* keeps the context alive */
    cl::CommandQueue queue_;
    cl::Buffer buffer_;
    uint8_t* data_ = nullptr;
    size_t size_ = 0;
};

/* True when [data, data + bytes) lies inside one live block of `context`. */
bool find_pinned(const cl::Context& context, const uint8_t* data, size_t bytes);

}  // namespace waldboost::opencl
