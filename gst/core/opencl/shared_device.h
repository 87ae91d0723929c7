/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What the engines of one process share on one OpenCL device: one context,
 * each program built once (per source and build options) and each
 * classifier uploaded once (per model). Dozens of cameras on one GPU then
 * cost one context and one compile instead of one each, and their frames
 * can meet on the same device queues' context. Everything is kept alive by
 * the engines that use it and goes away with the last of them.
 */
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/opencl/cl.h"
#include "core/opencl/classifier_pack.h"
#include "core/opencl/program_cache.h"

namespace waldboost::opencl {

class SharedDevice {
public:
    /* The process's shared state for `device`, made on first use. Devices
     * are told apart by their cl_device_id. Thread-safe. */
    static std::shared_ptr<SharedDevice> of(const cl::Device& device, bool* existed = nullptr);

    explicit SharedDevice(const cl::Device& device);
    ~SharedDevice();
    SharedDevice(const SharedDevice&) = delete;
    SharedDevice& operator=(const SharedDevice&) = delete;

    const cl::Context& context() const { return context_; }
    const cl::Device& device() const { return device_; }

    /* The program for `source` built with `options`: built by `build` the
     * first time, then the same object. *shared: it was built before. */
    std::shared_ptr<const cl::Program> program(const std::string& source, const std::string& options,
                                               const std::function<cl::Program()>& build, bool* shared);

    /* The classifier's device buffers for `key` (a hash of the model):
     * uploaded the first time, then the same buffers. */
    std::shared_ptr<const DeviceClassifier> classifier(const std::string& key, const PackedClassifier& packed,
                                                       bool* shared);

    /* Engines holding this device (the registry's own reference aside). */
    long users() const;

private:
    cl::Device device_;
    cl::Context context_;
    mutable std::mutex lock_;
    std::unordered_map<std::string, std::weak_ptr<const cl::Program>> programs_;
    std::unordered_map<std::string, std::weak_ptr<const DeviceClassifier>> classifiers_;
};

}  // namespace waldboost::opencl
