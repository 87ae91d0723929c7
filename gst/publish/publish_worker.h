/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What keeps waldboostmetapublish off the video path: a bounded queue the
 * streaming thread puts documents in (dropping them, counted, when it is
 * full; it never waits), and a worker thread that hands them to the output
 * (a file, an MQTT broker) at its own pace.
 */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace waldboost_publish {

/* One item of the queue: a document and where it goes, or (rotate_to set)
 * the file to write from now on. */
struct Document {
    std::string topic;
    std::string payload;
    std::string rotate_to;
};

/* Where the worker delivers documents. Every call comes from the worker
 * thread. */
class Output {
public:
    virtual ~Output() = default;
    /* Network work (connection, acknowledgements), waiting at most
     * `wait_ms` for the socket; false when there is none to do. */
    virtual bool service(int wait_ms) = 0;
    /* Whether it takes a document now (connected, window not full). */
    virtual bool ready() = 0;
    /* Delivers one; false when it is lost (counted as dropped). */
    virtual bool deliver(const Document& d) = 0;
    /* Documents delivered but not confirmed yet (MQTT QoS 1 and 2, or a
     * file's lines not written yet). */
    virtual size_t in_flight() = 0;
    /* Confirmed deliveries so far. */
    virtual guint64 confirmed() = 0;
    /* Documents deliver() took but lost later (a file's buffered lines
     * that could not be written), counted as dropped. */
    virtual guint64 lost() { return 0; }
    /* The queue ran empty: a good time to flush. */
    virtual void idle() {}
    virtual bool connected() { return true; }
    virtual guint64 connections() { return 0; }
    /* How long a document may wait in the queue for the worker (ms). */
    virtual int round_ms() { return 100; }
};

/* The worker comes round for the queued documents every
 * Output::round_ms() (the MQTT client's network work sooner), or at once
 * when the queue is half full, at the end of the stream (drain) and at a
 * stop: a document waits at most that long while the output takes them. */
class PublishWorker {
public:
    /* `on_drop` runs on the streaming thread at the first drop after the
     * queue last ran empty: the element warns there. The worker thread adds
     * the CPU time it used to `cpu_ns` (when given, which outlives it) as it
     * ends. */
    PublishWorker(std::unique_ptr<Output> output, size_t capacity, std::function<void(guint64)> on_drop,
                  std::atomic<gint64>* cpu_ns = nullptr);
    ~PublishWorker(); /* stops the worker; what is queued is lost */

    /* From the streaming thread: never waits for the output. */
    void push(Document d);
    /* Waits until every document is delivered and confirmed, at most
     * `timeout_ms`; returns how many were left. */
    size_t drain(guint timeout_ms);

    struct Counts {
        guint64 documents = 0, published = 0, dropped = 0, queued = 0, in_flight = 0, connections = 0;
        bool connected = false;
    };
    Counts counts();
    /* The CPU time the worker thread has used so far (ns). */
    gint64 cpu_ns();

private:
    void run();
    /* Hands `batch` to the output in order, without the lock; what the
     * output is not ready for goes back to the front of the queue. */
    void deliver_batch(std::deque<Document>& batch, std::unique_lock<std::mutex>& lock);
    /* The output's counters, read on the worker thread. */
    void read_output_counts();

    std::unique_ptr<Output> output_;
    const int round_ms_;
    const size_t capacity_;
    std::function<void(guint64)> on_drop_;
    std::atomic<gint64>* cpu_ns_;
    std::mutex lock_;
    std::condition_variable changed_;
    std::deque<Document> queue_;
    bool stop_ = false;
    bool dropping_ = false;
    size_t taken_ = 0;    /* documents the worker took out of the queue and holds */
    size_t switches_ = 0; /* sidecars' switches in the queue and taken: no documents */
    guint64 documents_ = 0, dropped_ = 0;
    std::atomic<guint64> lost_{0}, output_lost_{0}, in_flight_{0}, published_{0}, connections_{0};
    std::atomic<bool> connected_{false};
    std::thread thread_;
};

}  // namespace waldboost_publish
