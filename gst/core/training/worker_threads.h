/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tasks spread over a few threads, for the trainer's parallel loops
 * (choosing a weak classifier, making and scanning the mining levels).
 */
#pragma once

#include <cstddef>
#include <functional>
#include <string>

namespace waldboost::training {

/* Calls task(i) for every i from 0 to count - 1 on up to `threads` threads
 * (the caller's and up to threads - 1 started here), each taking the next
 * index as it frees up, and returns when every task has ended. The first
 * exception a task throws comes back from here once all threads are joined
 * (the remaining tasks are skipped). A thread that cannot start throws
 * Error(OutOfResources), saying "... thread N of M <what> ...". */
void run_tasks(size_t count, unsigned threads, const std::function<void(size_t)>& task, const std::string& what);

}  // namespace waldboost::training
