/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "publish_worker.h"

#include <pthread.h>
#include <time.h>

#include <algorithm>
#include <chrono>

#include "core/thread_time.h"

namespace waldboost_publish {

PublishWorker::PublishWorker(std::unique_ptr<Output> output, size_t capacity, std::function<void(guint64)> on_drop,
                             std::atomic<gint64>* cpu_ns)
    : output_(std::move(output)), round_ms_(output_->round_ms()), capacity_(capacity), on_drop_(std::move(on_drop)),
      cpu_ns_(cpu_ns)
{
    thread_ = std::thread([this] {
        run();
    });
}

PublishWorker::~PublishWorker()
{
    {
        std::lock_guard<std::mutex> guard(lock_);
        stop_ = true;
    }
    changed_.notify_all();
    thread_.join();
}

void PublishWorker::push(Document d)
{
    guint64 dropped = 0;
    bool wake = false;
    {
        std::lock_guard<std::mutex> guard(lock_);
        /* A sidecar's switch is no document: never dropped (the documents
         * after it would go to the sidecar before), never counted. */
        const bool document = d.rotate_to.empty();
        if (document)
            ++documents_;
        else
            ++switches_;
        if (document && queue_.size() + taken_ - switches_ >= capacity_) {
            ++dropped_;
            if (!dropping_) {
                dropping_ = true;
                dropped = dropped_;
            }
        } else {
            queue_.push_back(std::move(d));
        }
        wake = queue_.size() + taken_ - switches_ >= (capacity_ + 1) / 2;
    }
    /* The worker comes round at least every round_ms() for what is queued:
     * waking it for each document would cost a wake of a thread per frame
     * (more than the document costs to write). Half a queue wakes it. */
    if (wake)
        changed_.notify_all();
    if (dropped && on_drop_)
        on_drop_(dropped);
}

size_t PublishWorker::drain(guint timeout_ms)
{
    std::unique_lock<std::mutex> lock(lock_);
    changed_.notify_all(); /* the worker, for what is queued */
    changed_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [this] {
        return queue_.empty() && taken_ == 0 && in_flight_ == 0;
    });
    return queue_.size() + taken_ + in_flight_;
}

PublishWorker::Counts PublishWorker::counts()
{
    Counts c;
    std::lock_guard<std::mutex> guard(lock_);
    c.documents = documents_;
    c.dropped = dropped_ + lost_ + output_lost_;
    c.queued = std::count_if(queue_.begin(), queue_.end(), [](const Document& d) {
        return d.rotate_to.empty();
    });
    c.published = published_;
    c.in_flight = in_flight_;
    c.connected = connected_;
    c.connections = connections_;
    return c;
}

void PublishWorker::read_output_counts()
{
    in_flight_ = output_->in_flight();
    published_ = output_->confirmed();
    output_lost_ = output_->lost();
}

void PublishWorker::deliver_batch(std::deque<Document>& batch, std::unique_lock<std::mutex>& lock)
{
    lock.unlock();
    guint64 lost = 0;
    size_t done = 0, switches = 0;
    for (; done < batch.size(); ++done) {
        if (!output_->ready())
            break;
        const Document& d = batch[done];
        if (!output_->deliver(d) && d.rotate_to.empty())
            ++lost;
        switches += d.rotate_to.empty() ? 0 : 1;
    }
    read_output_counts();
    lock.lock();
    lost_ += lost;
    switches_ -= switches;
    /* Kept in order ahead of what came meanwhile. */
    for (size_t i = batch.size(); i > done; --i)
        queue_.push_front(std::move(batch[i - 1]));
    taken_ = 0;
    batch.clear();
}

void PublishWorker::run()
{
    std::deque<Document> batch;
    std::unique_lock<std::mutex> lock(lock_);
    while (!stop_) {
        lock.unlock();
        /* The output's network work waits on its socket; without any, the
         * worker waits for documents. */
        const bool serviced = output_->service(20);
        read_output_counts();
        connected_ = output_->connected();
        connections_ = output_->connections();
        lock.lock();
        if (!serviced && queue_.empty() && !stop_) {
            changed_.notify_all();
            changed_.wait_for(lock, std::chrono::milliseconds(round_ms_));
        }
        /* The whole queue at once: one lock for a round's documents, not
         * two per document. */
        while (!stop_ && !queue_.empty()) {
            const size_t before = queue_.size();
            batch.swap(queue_);
            taken_ = batch.size();
            deliver_batch(batch, lock);
            if (queue_.size() >= before)
                break; /* the output took none: not ready */
        }
        if (queue_.empty()) {
            dropping_ = false;
            lock.unlock();
            output_->idle();
            read_output_counts();
            lock.lock();
            changed_.notify_all();
        }
    }
    lock.unlock();
    /* The thread's CPU clock started with it: what it used in all. */
    if (cpu_ns_)
        *cpu_ns_ += waldboost::thread_cpu_ns();
}

gint64 PublishWorker::cpu_ns()
{
    std::lock_guard<std::mutex> guard(lock_);
    if (stop_)
        return 0; /* counted into cpu_ns_ as it ends */
    clockid_t clock;
    timespec t{};
    if (pthread_getcpuclockid(thread_.native_handle(), &clock) != 0 || clock_gettime(clock, &t) != 0)
        return 0;
    return static_cast<gint64>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

}  // namespace waldboost_publish
