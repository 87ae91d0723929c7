/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/batch_queue.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "core/opencl/device/device.h"
#include "core/opencl/engine/launches.h"
#include "core/opencl/engine/queue_waits.h"

namespace waldboost::opencl {

namespace {

/* Frames of one shape (size and scan parameters) have the same geometry;
 * a frame of areas has a shape of its own. */
auto shape_of(const Geometry& g)
{
    return std::make_tuple(g.image.width, g.image.height, g.scale_factor, g.min_size.width, g.min_size.height,
                           g.max_size.width, g.max_size.height, g.stride, g.areas_id);
}

bool same_shapes(const BatchGeometry& a, const BatchGeometry& b, size_t count)
{
    if (a.members.size() < count || b.members.size() < count)
        return false;
    for (size_t i = 0; i < count; ++i)
        if (shape_of(*a.members[i]) != shape_of(*b.members[i]))
            return false;
    return true;
}

}  // namespace

uint64_t default_batch_max_windows(const DeviceInfo& device, long engines)
{
    if (device.type != "GPU")
        return UINT64_MAX;
    const uint64_t per_unit =
        std::min<uint64_t>(kBatchWindowsPerComputeUnit,
                           kBatchWindowsPerEnginePerComputeUnit * static_cast<uint64_t>(std::max(engines, 1L)));
    return per_unit * std::max(device.compute_units, 1u);
}

uint64_t default_batch_windows(const DeviceInfo& device)
{
    if (device.type != "GPU")
        return UINT64_MAX;
    return kBatchWindowsPerBatchPerComputeUnit * std::max(device.compute_units, 1u);
}

struct BatchQueue::Batch {
    std::unique_ptr<FrameSlot> slot;
    std::vector<std::shared_ptr<BatchRequest>> requests;
    std::shared_ptr<const BatchGeometry> layout; /* this batch's */
    std::shared_ptr<const BatchGeometry> tables; /* whose tables the slot's buffers hold */
    bool busy = false;                           /* launched and not finished */
    bool complete = false;                       /* its last read-back is done (the watcher) */
};

BatchQueue::BatchQueue(SharedDevice& device, std::shared_ptr<const cl::Program> program,
                       std::shared_ptr<const DeviceClassifier> classifier, const EnginePlan& plan,
                       uint64_t memory_budget, int slots)
    : context_(device.context()), busy_(device.busy_shared()), program_(std::move(program)),
      classifier_(std::move(classifier)), plan_(plan)
{
    slots = std::max(slots, 1);
    slot_budget_ = memory_budget / static_cast<uint64_t>(slots);
    for (int i = 0; i < slots; ++i) {
        auto batch = std::make_unique<Batch>();
        batch->slot = std::make_unique<FrameSlot>(device.slot_queue(plan_.profiling), *program_, plan_);
        if (plan_.reads_stop_flag()) {
            if (!stop_flag_)
                stop_flag_ = std::make_unique<StopFlag>(context_, context_.getInfo<CL_CONTEXT_DEVICES>().at(0));
            batch->slot->stop = stop_flag_->buffer();
        }
        batches_.push_back(std::move(batch));
    }
    watcher_ = std::thread([this] {
        watch_launched();
    });
    dispatcher_ = std::thread([this] {
        run();
    });
}

BatchQueue::~BatchQueue()
{
    {
        std::lock_guard<std::mutex> guard(lock_);
        stop_ = true;
        wake_.notify_all();
    }
    /* The dispatcher finishes the batches in flight first: the watcher
     * must see them complete. */
    dispatcher_.join();
    {
        std::lock_guard<std::mutex> guard(lock_);
        stop_watching_ = true;
        launched_.notify_all();
    }
    watcher_.join();
}

void BatchQueue::join()
{
    std::lock_guard<std::mutex> guard(lock_);
    ++engines_;
}

void BatchQueue::leave()
{
    std::lock_guard<std::mutex> guard(lock_);
    --engines_;
    wake_.notify_all(); /* a frame waiting for this engine's companion need not */
}

long BatchQueue::engines() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return engines_;
}

void BatchQueue::attach()
{
    std::lock_guard<std::mutex> guard(lock_);
    ++attached_;
}

void BatchQueue::detach()
{
    std::lock_guard<std::mutex> guard(lock_);
    --attached_;
}

long BatchQueue::attached() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return attached_;
}

void BatchQueue::submit(const std::shared_ptr<BatchRequest>& request)
{
    std::lock_guard<std::mutex> guard(lock_);
    pending_.push_back(request);
    wake_.notify_all();
}

void BatchQueue::wait(const BatchRequest& request)
{
    std::unique_lock<std::mutex> guard(lock_);
    finished_.wait(guard, [&] {
        return request.done;
    });
}

bool BatchQueue::withdraw(const std::shared_ptr<BatchRequest>& request)
{
    std::lock_guard<std::mutex> guard(lock_);
    const auto it = std::find(pending_.begin(), pending_.end(), request);
    if (it == pending_.end())
        return false;
    pending_.erase(it);
    return true;
}

uint64_t BatchQueue::batches_launched() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return batches_launched_;
}

uint64_t BatchQueue::frames_launched() const
{
    std::lock_guard<std::mutex> guard(lock_);
    return frames_launched_;
}

/* The oldest waiting frame and those after it with the same final
 * threshold (a kernel argument of the whole batch), as many as fit one
 * slot's share of the memory budget and the oldest frame's
 * batch_max_positions; sorted by shape, so that batches of the same
 * streams reuse a layout. A frame left out goes with the next batch
 * without waiting for companions again. Holds lock_. */
std::vector<std::shared_ptr<BatchRequest>> BatchQueue::take_batch()
{
    std::vector<std::shared_ptr<BatchRequest>> taken;
    std::vector<std::shared_ptr<const Geometry>> members;
    uint64_t bytes = 0, positions = 0;
    const int64_t threshold = pending_.front()->final_threshold;
    const uint64_t max_positions = pending_.front()->batch_max_positions;
    const auto now = std::chrono::steady_clock::now();
    for (auto it = pending_.begin(); it != pending_.end() && taken.size() < kMaxBatchFrames;) {
        BatchRequest& r = **it;
        members.push_back(r.geometry);
        /* The first frame always goes (alone it fits: it was checked). */
        if (!taken.empty() &&
            (r.final_threshold != threshold || bytes + r.memory_bytes > slot_budget_ ||
             r.geometry->positions > max_positions - positions || !batch_fits(members, plan_.band_layout()))) {
            members.pop_back();
            r.deadline = std::min(r.deadline, now);
            ++it;
            continue;
        }
        bytes += r.memory_bytes;
        positions += std::min<uint64_t>(r.geometry->positions, max_positions - positions);
        taken.push_back(*it);
        it = pending_.erase(it);
    }
    std::stable_sort(taken.begin(), taken.end(), [](const auto& a, const auto& b) {
        return shape_of(*a->geometry) < shape_of(*b->geometry);
    });
    return taken;
}

std::shared_ptr<const BatchGeometry>
BatchQueue::geometry_for(const std::vector<std::shared_ptr<BatchRequest>>& requests)
{
    std::vector<std::shared_ptr<const Geometry>> members;
    for (const auto& r : requests)
        members.push_back(r->geometry);
    for (auto it = layouts_.begin(); it != layouts_.end(); ++it) {
        const auto& layout = *it;
        if (layout->members.size() != members.size())
            continue;
        bool same = true;
        for (size_t i = 0; same && i < members.size(); ++i)
            same = shape_of(*layout->members[i]) == shape_of(*members[i]);
        if (same) {
            auto found = *it;
            layouts_.erase(it);
            layouts_.push_back(found);
            return found;
        }
    }
    auto layout = std::make_shared<const BatchGeometry>(combine_geometries(members, plan_.band_layout()));
    constexpr size_t kLayoutsKept = 16;
    if (layouts_.size() == kLayoutsKept)
        layouts_.erase(layouts_.begin());
    layouts_.push_back(layout);
    return layout;
}

/* Enqueues the batch's uploads and launches on its slot. The slot keeps its
 * buffers and tables while the batch's layout is a prefix of theirs (the
 * same shapes first, the same canvas width): a batch of n frames of the
 * streams that last filled it with more. */
void BatchQueue::launch(Batch& batch, size_t min_accepted)
{
    batch.layout = geometry_for(batch.requests);
    const BatchGeometry& layout = *batch.layout;
    const size_t count = batch.requests.size();
    const bool reuse = batch.tables && same_shapes(*batch.tables, layout, count) &&
                       batch.tables->combined.canvas_width == layout.combined.canvas_width &&
                       batch.tables->source_pitch == layout.source_pitch;
    if (!reuse)
        batch.tables = batch.layout;
    std::vector<FrameSlot::Upload> uploads;
    for (size_t m = 0; m < count; ++m) {
        const Geometry& g = *layout.members[m];
        uploads.push_back(
            {batch.requests[m]->pixels, g.image.width, g.image.height, layout.source_offset[m], layout.source_pitch});
    }
    FrameSlot& slot = *batch.slot;
    slot.final_threshold = batch.requests.front()->final_threshold;
    slot.reruns = 0;
    slot.step2_launches = plan_.reduction.step2_repeats;
    /* Aliases: the geometries live as long as their BatchGeometry. */
    slot.prepare_batch(context_, plan_, std::shared_ptr<const Geometry>(batch.tables, &batch.tables->combined),
                       std::shared_ptr<const Geometry>(batch.layout, &batch.layout->combined), std::move(uploads));
    min_accepted = std::max(min_accepted, accepted_floor_);
    if (slot.accepted_capacity < min_accepted)
        slot.grow_accepted(context_, min_accepted);
    enqueue_frame(slot, plan_, *classifier_);
}

/* The accepted windows of a finished launch, per member of `layout`, with
 * indices in each member's own scan order; and each member's count, which
 * is short of the kernels' when the list overflowed. */
static void split_windows(FrameSlot& slot, const BatchGeometry& layout,
                          std::vector<std::vector<shared::Accepted>>& windows, std::vector<size_t>& counted)
{
    slot.done.wait();
    const size_t stored = std::min<size_t>(slot.host_counters[COUNT_ACCEPTED], slot.accepted_capacity);
    if (stored > slot.host_accepted.size()) {
        const size_t have = slot.host_accepted.size();
        slot.host_accepted.resize(stored);
        read_and_wait(slot.queue, slot.accepted, sizeof(shared::Accepted) * have,
                      sizeof(shared::Accepted) * (stored - have), slot.host_accepted.data() + have);
    }
    slot.host_accepted.resize(stored);
    const size_t members = layout.members.size();
    windows.assign(members, {});
    counted.assign(members, 0);
    for (size_t m = 0; m < members; ++m)
        counted[m] = slot.host_counters[COUNT_FRAMES + m];
    for (shared::Accepted a : slot.host_accepted) {
        const size_t m = batch_member_of(layout, a.index);
        a.index -= layout.first_position[m];
        windows[m].push_back(a);
    }
}

/* The frames whose windows did not all fit run again, together, with an
 * accepted list that holds them all: their counts are exact. */
void BatchQueue::rerun_overflowing(Batch& batch, const std::vector<size_t>& members)
{
    std::vector<std::shared_ptr<BatchRequest>> again;
    size_t needed = 0;
    for (size_t m : members) {
        again.push_back(batch.requests[m]);
        needed += batch.requests[m]->accepted.size();
    }
    Batch rerun;
    rerun.requests = again;
    rerun.slot = std::move(batch.slot);
    rerun.tables = batch.tables;
    try {
        launch(rerun, needed);
        FrameSlot& slot = *rerun.slot;
        std::vector<std::vector<shared::Accepted>> windows;
        std::vector<size_t> counted;
        split_windows(slot, *rerun.layout, windows, counted);
        for (size_t i = 0; i < again.size(); ++i) {
            if (windows[i].size() != counted[i])
                throw Error(ErrorKind::Device, "a batch's accepted list overflowed on its rerun");
            again[i]->accepted = std::move(windows[i]);
            again[i]->reruns += 1;
        }
    } catch (...) {
        batch.slot = std::move(rerun.slot);
        batch.tables = rerun.tables;
        throw;
    }
    batch.slot = std::move(rerun.slot);
    batch.tables = rerun.tables;
}

void BatchQueue::finish(Batch& batch)
{
    FrameSlot& slot = *batch.slot;
    std::vector<std::vector<shared::Accepted>> windows;
    std::vector<size_t> counted;
    split_windows(slot, *batch.layout, windows, counted);
    const std::vector<cl_uint> counters = slot.host_counters;
    std::vector<std::pair<std::string, std::pair<uint64_t, uint64_t>>> kernels, transfers;
    auto timed = [](std::pair<std::string, cl::Event>& e) {
        e.second.wait();
        return std::make_pair(
            e.first, std::make_pair<uint64_t, uint64_t>(e.second.getProfilingInfo<CL_PROFILING_COMMAND_START>(),
                                                        e.second.getProfilingInfo<CL_PROFILING_COMMAND_END>()));
    };
    std::vector<BusyTime::Interval> busy;
    for (auto& e : slot.kernel_events) {
        kernels.push_back(timed(e));
        busy.push_back(kernels.back().second);
    }
    for (auto& e : slot.transfer_events)
        transfers.push_back(timed(e));
    if (!busy.empty())
        busy_->add(busy);

    std::vector<size_t> overflowing;
    size_t total = 0;
    for (size_t m = 0; m < batch.requests.size(); ++m) {
        total += counted[m];
        BatchRequest& r = *batch.requests[m];
        r.batch_frames = static_cast<int>(batch.requests.size());
        r.counters = counters;
        r.kernels = kernels;
        r.transfers = transfers;
        if (windows[m].size() == counted[m]) {
            r.accepted = std::move(windows[m]);
        } else {
            r.accepted.resize(counted[m]); /* the size the rerun needs */
            overflowing.push_back(m);
        }
    }
    if (!overflowing.empty()) {
        /* Later batches start with a list this batch would have fitted: a
         * stream that accepts that much does so again. */
        accepted_floor_ = std::max(accepted_floor_, total);
        rerun_overflowing(batch, overflowing);
    }
}

/* Runs `step` for a batch; a failure is returned for its frames, and the
 * slot is drained and emptied so that the next batch starts afresh. */
template <typename Step>
std::exception_ptr BatchQueue::attempt(Batch& batch, const char* what, const Step& step)
{
    std::exception_ptr error;
    try {
        step();
    } catch (const cl::Error& e) {
        error = std::make_exception_ptr(to_error(e, what));
    } catch (...) {
        error = std::current_exception();
    }
    if (error) {
        try {
            wait_for_enqueued(batch.slot->queue);
        } catch (const cl::Error&) {
        }
        batch.slot->release_buffers();
        batch.tables.reset();
    }
    return error;
}

/* The batch's frames are done (with `error`, if any) and its slot free.
 * Holds lock_. */
void BatchQueue::hand_back(Batch& batch, const std::exception_ptr& error)
{
    for (auto& r : batch.requests) {
        r->error = error;
        r->done = true;
    }
    batch.requests.clear();
    batch.busy = batch.complete = false;
    finished_.notify_all();
}

void BatchQueue::run()
{
    std::unique_lock<std::mutex> guard(lock_);
    for (;;) {
        /* Finished batches first: they free a slot and their frames. */
        bool finished_one = false;
        for (auto& batch : batches_) {
            if (!batch->busy || !batch->complete)
                continue;
            guard.unlock();
            const std::exception_ptr error = attempt(*batch, "collecting a batch of frames", [&] {
                finish(*batch);
            });
            guard.lock();
            hand_back(*batch, error);
            finished_one = true;
        }
        if (finished_one)
            continue;

        Batch* free_batch = nullptr;
        bool any_busy = false;
        for (auto& batch : batches_) {
            any_busy |= batch->busy;
            if (!batch->busy && !free_batch)
                free_batch = batch.get();
        }
        if (stop_ && pending_.empty() && !any_busy)
            return;
        if (pending_.empty() || !free_batch) {
            wake_.wait(guard);
            continue;
        }
        /* Wait for companions while fewer frames wait than engines use the
         * queue and the oldest frame's budget lasts. */
        const auto deadline = pending_.front()->deadline;
        const bool everyone =
            pending_.size() >= static_cast<size_t>(std::max(engines_, 1L)) || pending_.size() >= kMaxBatchFrames;
        if (!everyone && !stop_ && std::chrono::steady_clock::now() < deadline) {
            wake_.wait_until(guard, deadline);
            continue;
        }
        free_batch->requests = take_batch();
        free_batch->busy = true;
        free_batch->complete = false;
        ++batches_launched_;
        frames_launched_ += free_batch->requests.size();
        guard.unlock();
        const std::exception_ptr error = attempt(*free_batch, "launching a batch of frames", [&] {
            launch(*free_batch);
        });
        guard.lock();
        if (error) {
            hand_back(*free_batch, error);
        } else {
            watched_.push_back(free_batch);
            launched_.notify_all();
        }
    }
}

/* The watcher: marks each launched batch complete once its last command
 * (the read-back of its accepted windows) is done, or failed: finish()
 * then waits on it again and reports the failure. */
void BatchQueue::watch_launched()
{
    std::unique_lock<std::mutex> guard(lock_);
    for (;;) {
        launched_.wait(guard, [this] {
            return !watched_.empty() || stop_watching_;
        });
        if (watched_.empty())
            return;
        Batch* batch = watched_.front();
        /* The dispatcher leaves the slot alone until `complete`. */
        cl::Event done = batch->slot->done;
        guard.unlock();
        try {
            done.wait();
        } catch (const cl::Error&) {
        }
        guard.lock();
        watched_.pop_front();
        batch->complete = true;
        wake_.notify_all();
    }
}

}  // namespace waldboost::opencl
