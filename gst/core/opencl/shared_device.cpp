/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/shared_device.h"

#include <map>

namespace waldboost::opencl {

namespace {

/* The registry holds weak references: a device's shared state lives as long
 * as an engine holds it, and a later engine makes it again. */
std::mutex registry_lock;
std::map<cl_device_id, std::weak_ptr<SharedDevice>>& registry()
{
    static auto* devices = new std::map<cl_device_id, std::weak_ptr<SharedDevice>>();
    return *devices;
}

template <typename T, typename Make>
std::shared_ptr<const T> find_or_make(std::unordered_map<std::string, std::weak_ptr<const T>>& table,
                                      const std::string& key, const Make& make, bool* shared)
{
    if (std::shared_ptr<const T> existing = table[key].lock()) {
        *shared = true;
        return existing;
    }
    /* Entries of objects gone stay as empty weak pointers until reused;
     * drop them so the table does not grow with every classifier tried. */
    for (auto it = table.begin(); it != table.end();)
        it = it->second.expired() && it->first != key ? table.erase(it) : std::next(it);
    auto made = std::make_shared<const T>(make());
    table[key] = made;
    *shared = false;
    return made;
}

}  // namespace

std::shared_ptr<SharedDevice> SharedDevice::of(const cl::Device& device, bool* existed)
{
    std::lock_guard<std::mutex> guard(registry_lock);
    std::weak_ptr<SharedDevice>& slot = registry()[device()];
    std::shared_ptr<SharedDevice> shared = slot.lock();
    if (existed)
        *existed = shared != nullptr;
    if (!shared) {
        shared = std::make_shared<SharedDevice>(device);
        slot = shared;
    }
    return shared;
}

SharedDevice::SharedDevice(const cl::Device& device) : device_(device), context_(device) {}

SharedDevice::~SharedDevice() = default;

std::shared_ptr<const cl::Program> SharedDevice::program(const std::string& source, const std::string& options,
                                                         const std::function<cl::Program()>& build, bool* shared)
{
    /* Held while building: a second engine asking for the same program waits
     * for the first build instead of compiling it again. */
    std::lock_guard<std::mutex> guard(lock_);
    return find_or_make(programs_, options + '\n' + source, build, shared);
}

std::shared_ptr<const DeviceClassifier> SharedDevice::classifier(const std::string& key,
                                                                 const PackedClassifier& packed, bool* shared)
{
    std::lock_guard<std::mutex> guard(lock_);
    return find_or_make(classifiers_, key, [&] { return upload_classifier(context_, packed); }, shared);
}

long SharedDevice::users() const
{
    std::lock_guard<std::mutex> guard(registry_lock);
    auto it = registry().find(device_());
    return it == registry().end() ? 0 : it->second.use_count();
}

}  // namespace waldboost::opencl
