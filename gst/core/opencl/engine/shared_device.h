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

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/opencl/device/cl.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/device/program_cache.h"

namespace waldboost::opencl {

/* How long a device ran kernels: the length of the union of the kernel
 * intervals (device clock, nanoseconds) that the engines on it report as
 * they collect their frames, so that kernels of several engines running at
 * once count once. Thread-safe.
 *
 * Intervals arrive out of order (each engine reports a frame when it
 * collects it, engines collect at their own pace). The most recent ones are
 * kept merged in a window; those ending more than `window_ns` before the
 * newest end seen, or the oldest once more than `max_intervals` disjoint
 * intervals are kept, are folded into a running total, and time before the
 * end of the last folded interval no longer counts. The approximation: an
 * interval reported that late (a frame collected seconds after its kernels
 * ran, or after thousands of disjoint intervals of other frames) counts
 * only its part after that point, so the total may fall short, never
 * exceed the true union. Memory stays bounded by max_intervals. */
class BusyTime {
public:
    using Interval = std::pair<uint64_t, uint64_t>; /* [start, end) */

    explicit BusyTime(uint64_t window_ns = 2'000'000'000ull, size_t max_intervals = 4096);

    void add(uint64_t start_ns, uint64_t end_ns);
    void add(const std::vector<Interval>& intervals);
    /* The busy time so far: folded and recent. */
    uint64_t total_ns() const;
    /* Disjoint intervals kept in the window (for tests). */
    size_t recent_intervals() const;

private:
    void add_locked(uint64_t start, uint64_t end);
    void fold_locked();

    const uint64_t window_ns_;
    const size_t max_intervals_;
    mutable std::mutex lock_;
    std::map<uint64_t, uint64_t> recent_; /* start -> end, disjoint and not touching */
    uint64_t recent_ns_ = 0;              /* their total length */
    uint64_t folded_ns_ = 0;
    uint64_t horizon_ = 0; /* time before it is folded */
    uint64_t newest_end_ = 0;
};

class BatchQueue;

class SharedDevice {
public:
    /* The process's shared state for the device of `devices` that the
     * fewest engines hold (the first of those tied; with one device, that
     * one), made on first use; *chosen: its index. Devices are told apart
     * by their cl_device_id. Thread-safe: choosing and holding are one
     * step, so engines made at once in several threads spread evenly. */
    static std::shared_ptr<SharedDevice> least_used(const std::vector<cl::Device>& devices, size_t* chosen,
                                                    bool* existed = nullptr);

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

    /* The batch queue for `key` (a program, a classifier and a plan,
     * batch_queue.h): made by `make` the first time, then the same one
     * while an engine holds it. */
    std::shared_ptr<BatchQueue> batch_queue(const std::string& key,
                                            const std::function<std::shared_ptr<BatchQueue>()>& make);

    /* A command queue for one frame slot. Normally a new in-order queue
     * each time; on PoCL every slot of the process gets the same one, so
     * that kernels of two slots never run at once: PoCL (3.1 in Debian 12,
     * still in 5.0) keeps compiled work-group functions in a cache keyed by
     * kernel and local size but releases them by the first entry that
     * matches, so two commands of one kernel with different grid widths
     * running at once can release the wrong entry and abort the process
     * (`pocl_release_dlhandle_cache: Assertion 'found->ref_count > 0'`).
     * The shared queue has profiling on, which costs nothing there. */
    cl::CommandQueue slot_queue(bool profiling);

    /* Engines holding this device (the registry's own reference aside). */
    long users() const;

    /* The kernel time of every engine on the device (with profiling on),
     * since this shared state was made: while an engine holds the device. */
    BusyTime& busy() { return *busy_; }
    /* The same, for holders that must not keep the device alive (a weak
     * reference outlives it harmlessly). */
    std::shared_ptr<const BusyTime> busy_handle() const { return busy_; }
    /* For those that add to it without holding the device (batch_queue.h). */
    std::shared_ptr<BusyTime> busy_shared() { return busy_; }

private:
    cl::Device device_;
    cl::Context context_;
    const bool one_queue_;
    std::mutex queue_lock_;         /* not lock_: batch_queue() makes slots under it */
    cl::CommandQueue shared_queue_; /* when one_queue_, made on first use */
    std::shared_ptr<BusyTime> busy_ = std::make_shared<BusyTime>();
    mutable std::mutex lock_;
    std::unordered_map<std::string, std::weak_ptr<const cl::Program>> programs_;
    std::unordered_map<std::string, std::weak_ptr<const DeviceClassifier>> classifiers_;
    std::unordered_map<std::string, std::weak_ptr<BatchQueue>> batch_queues_;
};

}  // namespace waldboost::opencl
