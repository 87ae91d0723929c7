/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/shared_device.h"

#include <algorithm>
#include <iterator>
#include <limits>
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

BusyTime::BusyTime(uint64_t window_ns, size_t max_intervals)
    : window_ns_(window_ns), max_intervals_(std::max<size_t>(1, max_intervals))
{
}

void BusyTime::add(uint64_t start_ns, uint64_t end_ns)
{
    std::lock_guard<std::mutex> guard(lock_);
    add_locked(start_ns, end_ns);
    fold_locked();
}

void BusyTime::add(const std::vector<Interval>& intervals)
{
    std::lock_guard<std::mutex> guard(lock_);
    for (const Interval& i : intervals)
        add_locked(i.first, i.second);
    fold_locked();
}

uint64_t BusyTime::total_ns() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return folded_ns_ + recent_ns_;
}

size_t BusyTime::recent_intervals() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return recent_.size();
}

/* Merges [start, end) into the disjoint intervals of the window. */
void BusyTime::add_locked(uint64_t start, uint64_t end)
{
    start = std::max(start, horizon_);
    if (end <= start)
        return;
    newest_end_ = std::max(newest_end_, end);
    auto next = recent_.upper_bound(start);
    if (next != recent_.begin()) {
        auto before = std::prev(next);
        if (before->second >= start) {
            if (before->second >= end)
                return; /* inside one already counted */
            start = before->first;
            end = std::max(end, before->second);
            recent_ns_ -= before->second - before->first;
            recent_.erase(before);
        }
    }
    while (next != recent_.end() && next->first <= end) {
        end = std::max(end, next->second);
        recent_ns_ -= next->second - next->first;
        next = recent_.erase(next);
    }
    recent_.emplace(start, end);
    recent_ns_ += end - start;
}

void BusyTime::fold_locked()
{
    while (!recent_.empty() &&
           (recent_.size() > max_intervals_ || recent_.begin()->second + window_ns_ < newest_end_)) {
        const auto oldest = recent_.begin();
        const uint64_t length = oldest->second - oldest->first;
        recent_ns_ -= length;
        folded_ns_ += length;
        horizon_ = std::max(horizon_, oldest->second);
        recent_.erase(oldest);
    }
}

std::shared_ptr<SharedDevice> SharedDevice::least_used(const std::vector<cl::Device>& devices, size_t* chosen,
                                                       bool* existed)
{
    std::lock_guard<std::mutex> guard(registry_lock);
    size_t best = 0;
    long best_users = std::numeric_limits<long>::max();
    for (size_t i = 0; i < devices.size(); ++i) {
        const auto it = registry().find(devices[i]());
        const long users = it == registry().end() ? 0 : it->second.use_count();
        if (users < best_users) {
            best = i;
            best_users = users;
        }
    }
    *chosen = best;
    const cl::Device& device = devices.at(best);
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

SharedDevice::SharedDevice(const cl::Device& device)
    : device_(device), context_(device),
      one_queue_(device.getInfo<CL_DEVICE_VERSION>().find("PoCL") != std::string::npos)
{
}

cl::CommandQueue SharedDevice::slot_queue(bool profiling)
{
    if (!one_queue_)
        return cl::CommandQueue(context_, device_,
                                profiling ? CL_QUEUE_PROFILING_ENABLE : cl_command_queue_properties{0});
    std::lock_guard<std::mutex> guard(queue_lock_);
    if (!shared_queue_())
        shared_queue_ = cl::CommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE);
    return shared_queue_;
}

SharedDevice::~SharedDevice() = default;

std::shared_ptr<const cl::Program> SharedDevice::program(const std::string& source, const std::string& options,
                                                         const std::function<cl::Program()>& build, bool* shared)
{
    /* Held while building: a second engine asking for the same program waits
     * for the first build instead of compiling it again. */
    std::lock_guard<std::mutex> guard(lock_);
    return find_or_make(programs_, options + '\n' + source, build, shared);
}

std::shared_ptr<const DeviceClassifier> SharedDevice::classifier(const std::string& key, const PackedClassifier& packed,
                                                                 bool* shared)
{
    std::lock_guard<std::mutex> guard(lock_);
    return find_or_make(
        classifiers_, key,
        [&] {
            return upload_classifier(context_, packed);
        },
        shared);
}

std::shared_ptr<BatchQueue> SharedDevice::batch_queue(const std::string& key,
                                                      const std::function<std::shared_ptr<BatchQueue>()>& make)
{
    std::lock_guard<std::mutex> guard(lock_);
    if (std::shared_ptr<BatchQueue> existing = batch_queues_[key].lock())
        return existing;
    for (auto it = batch_queues_.begin(); it != batch_queues_.end();)
        it = it->second.expired() && it->first != key ? batch_queues_.erase(it) : std::next(it);
    std::shared_ptr<BatchQueue> made = make();
    batch_queues_[key] = made;
    return made;
}

long SharedDevice::users() const
{
    std::lock_guard<std::mutex> guard(registry_lock);
    auto it = registry().find(device_());
    return it == registry().end() ? 0 : it->second.use_count();
}

}  // namespace waldboost::opencl
