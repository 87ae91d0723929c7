/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's streams: one pipeline each, appsrc !
 * [waldboostdetect ! [--after's elements !]] fakesink, with the probes that count and check its
 * buffers and the bus handler that notes its EOS, errors and warnings; and
 * the two ways its source is given the frames.
 */
#pragma once

#include <gst/gst.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compare.h"
#include "frames.h"
#include "settings.h"
#include "timing.h"

namespace pipeline_bench {

/* What the streams of one part share; the streaming threads write to it. */
struct RunState {
    const FrameSet* set = nullptr;
    bool check = false;
    std::atomic<bool> timing{false};
    std::mutex lock;
    std::condition_variable cv;
    int eos = 0;
    std::string error;
    std::vector<std::string> warnings;
};

/* One stream: appsrc ! [waldboostdetect !] fakesink. Its counters are
 * written by its streaming thread and read after its EOS. */
struct Stream {
    RunState* run = nullptr;
    size_t index = 0;
    GstElement* pipeline = nullptr;
    GstElement* src = nullptr;
    GstElement* detect = nullptr;
    GstElement* after = nullptr; /* --after's bin, between the detector and the sink */
    uint64_t seen = 0;           /* buffers at the sink */
    uint64_t timed = 0;          /* buffers that left the source after the start */
    Mismatches mismatches;
    bool ended = false; /* its EOS came (under RunState::lock) */
    Clock::time_point eos_at;
};

/* Stream `index` of `run`, its probes and bus handler in place. Null when
 * its elements could not be made. `error` gets why, and why a stream that
 * was made cannot run (a property, the link). */
std::unique_ptr<Stream> make_stream(RunState& run, size_t index, GstCaps* caps, const Settings& s, bool with_detector,
                                    std::string* error);

/* The whole stream before the start, round-robin over the frames: new
 * buffers that share the frames' memory, each with its own timestamp, then
 * EOS. "" or why not. */
std::string feed_up_front(Stream& stream, const FrameSet& set, const Settings& s);

/* --source-writes: a decoder-like source on a thread of its own, writing
 * each frame during the run into a buffer of the pool downstream proposes
 * ("proposed") or of a video pool of its own. */
std::thread start_writer(Stream& stream, const FrameSet& set, const Settings& s);

}  // namespace pipeline_bench
