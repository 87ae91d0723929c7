/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pipelines.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <thread>
#include <vector>

#include "streams.h"

namespace pipeline_bench {

namespace {

using StreamList = std::vector<std::unique_ptr<Stream>>;

/* The part's first error is the one it reports. */
void fail(Part& part, const std::string& why)
{
    if (part.error.empty())
        part.error = why;
}

/* --timeout, for the preroll and the run together. */
struct Deadline {
    gint64 at;

    explicit Deadline(double timeout_s) : at(g_get_monotonic_time() + static_cast<gint64>(timeout_s * G_USEC_PER_SEC))
    {
    }
    GstClockTime left() const
    {
        return static_cast<GstClockTime>(std::max<gint64>(0, at - g_get_monotonic_time())) * 1000;
    }
};

/* The threads of --source-writes, joined however the part ends. */
struct Writers {
    std::vector<std::thread> threads;

    ~Writers() { join(); }
    void join()
    {
        for (std::thread& t : threads)
            if (t.joinable())
                t.join();
        threads.clear();
    }
};

/* The streams, up to the first that could not be made or set up. */
StreamList make_streams(RunState& run, const Settings& s, const FrameSet& set, int streams, bool with_detector,
                        Part& part)
{
    StreamList list;
    for (int i = 0; i < streams && part.error.empty(); ++i) {
        std::string why;
        std::unique_ptr<Stream> stream = make_stream(run, static_cast<size_t>(i), set.caps, s, with_detector, &why);
        if (!why.empty())
            fail(part, why);
        if (!stream)
            break;
        list.push_back(std::move(stream));
    }
    return list;
}

/* Each stream paused and given its frames, which starts its preroll. */
void give_frames(const StreamList& list, const Settings& s, const FrameSet& set, Writers& writers, Part& part)
{
    for (const auto& stream : list) {
        if (!part.error.empty())
            break;
        if (gst_element_set_state(stream->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
            fail(part, "stream " + std::to_string(stream->index) + " could not pause");
            break;
        }
        if (s.source_writes != "none") {
            writers.threads.push_back(start_writer(*stream, set, s));
            continue;
        }
        const std::string why = feed_up_front(*stream, set, s);
        if (!why.empty())
            fail(part, why);
    }
}

void wait_for_preroll(const StreamList& list, RunState& run, const Deadline& deadline, Part& part)
{
    for (const auto& stream : list) {
        if (!part.error.empty())
            break;
        const GstStateChangeReturn r = gst_element_get_state(stream->pipeline, nullptr, nullptr, deadline.left());
        if (r != GST_STATE_CHANGE_SUCCESS && r != GST_STATE_CHANGE_NO_PREROLL) {
            std::lock_guard<std::mutex> guard(run.lock);
            fail(part, !run.error.empty() ? run.error
                       : r == GST_STATE_CHANGE_ASYNC
                           ? "stream " + std::to_string(stream->index) + " did not preroll within the timeout"
                           : "stream " + std::to_string(stream->index) + " failed to preroll");
        }
    }
    std::lock_guard<std::mutex> guard(run.lock);
    if (!run.error.empty())
        fail(part, run.error);
}

/* All streams set to PLAYING at once, then waited for to the last EOS, an
 * error or the deadline. Returns the start. */
Clock::time_point play(const StreamList& list, RunState& run, const Settings& s, const Deadline& deadline, Part& part)
{
    const Clock::time_point start = Clock::now();
    run.timing = true;
    for (const auto& stream : list)
        if (gst_element_set_state(stream->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
            fail(part, "stream " + std::to_string(stream->index) + " could not play");
    std::unique_lock<std::mutex> guard(run.lock);
    const bool done = run.cv.wait_for(guard, std::chrono::microseconds(deadline.left() / 1000), [&] {
        return run.eos == static_cast<int>(list.size()) || !run.error.empty();
    });
    if (!run.error.empty()) {
        fail(part, run.error);
    } else if (!done) {
        char timeout[32];
        std::snprintf(timeout, sizeof timeout, "%.0f", s.timeout_s);
        fail(part, std::string("timed out after ") + timeout + " s (" + std::to_string(run.eos) + " of " +
                       std::to_string(list.size()) + " streams finished)");
    }
    return start;
}

/* The frames each stream sent after the start, over its time to its EOS;
 * the frames whose boxes differed, and those that never came out. */
void record_streams(const StreamList& list, const Settings& s, Clock::time_point start, Part& part)
{
    std::vector<StreamEnd> ends;
    for (const auto& stream : list)
        ends.push_back({stream->timed, stream->eos_at});
    record_rates(part, start, ends);
    /* A row of 0 fps is no measurement: say why instead. */
    if (part.error.empty() && part.frames == 0)
        fail(part, "no frame came after the preroll, which took all " + std::to_string(s.frames) +
                       " frames of each stream (max-inflight and more): give --frames more than that");
    for (const auto& stream : list) {
        Mismatches& m = stream->mismatches;
        const uint64_t lost =
            stream->seen < static_cast<uint64_t>(s.frames) ? static_cast<uint64_t>(s.frames) - stream->seen : 0;
        if (lost && m.first.empty())
            m.first = "stream " + std::to_string(stream->index) + ": " + std::to_string(lost) + " frames lost";
        m.count += lost;
        part.mismatches.merge(m);
    }
}

}  // namespace

Part run_pipelines(const Settings& s, const FrameSet& set, int streams, bool with_detector)
{
    Part part;
    part.ran = true;
    RunState run;
    run.set = &set;
    run.check = with_detector && s.compare_boxes;
    const StreamList list = make_streams(run, s, set, streams, with_detector, part);
    Writers writers;
    const Deadline deadline(s.timeout_s);
    give_frames(list, s, set, writers, part);
    wait_for_preroll(list, run, deadline, part);

    Clock::time_point start;
    if (part.error.empty()) {
        const double busy_before = with_detector ? device_busy_ms(list.front()->detect) : -1;
        start = play(list, run, s, deadline, part);
        if (part.error.empty() && with_detector && s.element.profiling) {
            const double busy_after = device_busy_ms(list.front()->detect);
            if (busy_before >= 0 && busy_after >= 0)
                part.busy_ms = busy_after - busy_before;
        }
    }
    for (const auto& stream : list)
        gst_element_set_state(stream->pipeline, GST_STATE_NULL);
    writers.join();
    if (part.error.empty() && with_detector) {
        HostTime host;
        double after_ms = 0;
        for (const auto& stream : list) {
            host.add(stream->detect);
            if (stream->after)
                after_ms += after_host_ms(stream->after);
        }
        host.record(part);
        if (!s.after.empty() && host.frames)
            part.after_host_ms = after_ms / static_cast<double>(host.frames);
    }
    {
        std::lock_guard<std::mutex> guard(run.lock);
        part.warnings = run.warnings;
    }
    if (part.error.empty())
        record_streams(list, s, start, part);
    for (const auto& stream : list)
        gst_object_unref(stream->pipeline);
    return part;
}

}  // namespace pipeline_bench
