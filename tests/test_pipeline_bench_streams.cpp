/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's streams: what their bus handler counts. The
 * runs themselves are pipeline-bench-smoke's (tests/pipeline_bench_smoke.sh).
 */
#include <gst/gst.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "streams.h"

namespace {

using pipeline_bench::Clock;
using pipeline_bench::RunState;
using pipeline_bench::Settings;
using pipeline_bench::Stream;

/* A stream without the detector: appsrc ! fakesink, its handler in place. */
std::unique_ptr<Stream> plain_stream(RunState& run, size_t index)
{
    GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, 64,
                                        "height", G_TYPE_INT, 48, "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
    std::string why;
    std::unique_ptr<Stream> stream = pipeline_bench::make_stream(run, index, caps, Settings{}, false, &why);
    gst_caps_unref(caps);
    EXPECT_EQ(why, "");
    return stream;
}

/* What GstBin posts when all its sinks are at EOS. */
void post_eos(const Stream& stream)
{
    gst_element_post_message(stream.pipeline, gst_message_new_eos(GST_OBJECT(stream.pipeline)));
}

/* GstBin looks for EOS both when it reaches PLAYING and when a sink's EOS
 * comes, and when the two meet both can post: CI's sanitizer run once saw a
 * one-stream run wait to its timeout with "2 of 1 streams finished". A
 * stream ends once: its second EOS neither counts nor moves its end. */
TEST(PipelineBenchStreams, AStreamsSecondEosNeitherCountsNorMovesItsEnd)
{
    RunState run;
    std::unique_ptr<Stream> first = plain_stream(run, 0);
    std::unique_ptr<Stream> second = plain_stream(run, 1);
    ASSERT_TRUE(first && second);

    post_eos(*first);
    Clock::time_point ended;
    {
        std::lock_guard<std::mutex> guard(run.lock);
        EXPECT_EQ(run.eos, 1);
        ended = first->eos_at;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    post_eos(*first);
    {
        std::lock_guard<std::mutex> guard(run.lock);
        EXPECT_EQ(run.eos, 1);
        EXPECT_EQ(first->eos_at, ended);
    }
    /* Another stream's EOS still counts. */
    post_eos(*second);
    {
        std::lock_guard<std::mutex> guard(run.lock);
        EXPECT_EQ(run.eos, 2);
        EXPECT_GT(second->eos_at, ended);
    }
    gst_object_unref(first->pipeline);
    gst_object_unref(second->pipeline);
}

}  // namespace

int main(int argc, char** argv)
{
    gst_init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
