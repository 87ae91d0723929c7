/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "core/opencl/engine/pinned_memory.h"

#include <map>
#include <mutex>

#include "core/opencl/engine/queue_waits.h"
#include "core/opencl/engine/shared_device.h"

namespace waldboost::opencl {
namespace {

struct Range {
    uintptr_t end;
    cl_context context;
};

std::mutex registry_lock;
std::map<uintptr_t, Range>& registry()
{
    static std::map<uintptr_t, Range> blocks; /* by first byte */
    return blocks;
}

}  // namespace

PinnedBlock::PinnedBlock(std::shared_ptr<SharedDevice> device, size_t bytes) : device_(std::move(device)), size_(bytes)
{
    const cl::Context& context = device_->context();
    queue_ = cl::CommandQueue(context, context.getInfo<CL_CONTEXT_DEVICES>().at(0));
    buffer_ = cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_ALLOC_HOST_PTR, std::max<size_t>(bytes, 1));
    data_ = static_cast<uint8_t*>(map_and_wait(queue_, buffer_, CL_MAP_WRITE, 0, std::max<size_t>(bytes, 1)));
    std::lock_guard<std::mutex> guard(registry_lock);
    registry()[reinterpret_cast<uintptr_t>(data_)] = Range{reinterpret_cast<uintptr_t>(data_) + size_, context()};
}

PinnedBlock::~PinnedBlock()
{
    {
        std::lock_guard<std::mutex> guard(registry_lock);
        registry().erase(reinterpret_cast<uintptr_t>(data_));
    }
    try {
        unmap_and_wait(queue_, buffer_, data_);
    } catch (const cl::Error&) {
        /* The device is gone: the buffer is released with it. */
    }
}

bool find_pinned(const cl::Context& context, const uint8_t* data, size_t bytes)
{
    const uintptr_t start = reinterpret_cast<uintptr_t>(data);
    std::lock_guard<std::mutex> guard(registry_lock);
    auto it = registry().upper_bound(start);
    if (it == registry().begin())
        return false;
    --it;
    return it->second.context == context() && start + bytes <= it->second.end;
}

}  // namespace waldboost::opencl
