/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/worker_threads.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "core/error.h"

namespace waldboost::training {

void run_tasks(size_t count, unsigned threads, const std::function<void(size_t)>& task, const std::string& what)
{
    if (count == 0)
        return;
    std::atomic<size_t> next{0};
    std::mutex failure_lock;
    std::exception_ptr failure;
    /* A failure in a thread (memory) comes back to the caller, not
     * std::terminate. */
    auto work = [&] {
        for (size_t i = next++; i < count; i = next++) {
            try {
                task(i);
            } catch (...) {
                const std::lock_guard<std::mutex> hold(failure_lock);
                if (!failure)
                    failure = std::current_exception();
                next = count;
            }
        }
    };
    const unsigned wanted = static_cast<unsigned>(std::min<size_t>(std::max(threads, 1u), count));
    {
        std::vector<std::thread> pool;
        /* Joined however the block is left: a std::thread destroyed
         * unjoined ends the program. */
        struct JoinAll {
            std::vector<std::thread>& pool;
            ~JoinAll()
            {
                for (std::thread& t : pool)
                    t.join();
            }
        } join_all{pool};
        for (unsigned t = 1; t < wanted; ++t) {
            try {
                pool.emplace_back(work);
            } catch (const std::system_error& e) {
                next = count; /* the started threads stop at their next task */
                throw Error(ErrorKind::OutOfResources, "training: cannot start thread " + std::to_string(t + 1) +
                                                           " of " + std::to_string(wanted) + " " + what + " (" +
                                                           e.what() + "): ask for fewer threads");
            }
        }
        work();
    }
    if (failure)
        std::rethrow_exception(failure);
}

}  // namespace waldboost::training
