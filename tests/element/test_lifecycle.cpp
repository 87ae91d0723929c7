/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, lifecycle: twenty cycles through every state, with frames
 * in flight dropped by the state change, each cycle's detections, messages
 * and stats counted afresh; a storm of state changes on four pipelines, and
 * the events refused while the element or downstream stops that turned
 * into errors.
 */
#include <gst/base/gstbasesink.h>

#include <condition_variable>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "harness.h"

using namespace element_test;

GST_START_TEST(test_lifecycle_state_cycles)
{
    const GrayImage img = crop(astronaut(), 150, 45, 128, 128);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty());
    GstHarness* h = harness_with({{"draw", "burn"}});
    GstBus* bus = attach_bus(h);
    const GstState order[] = {GST_STATE_NULL, GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING};
    for (int cycle = 0; cycle < 20; ++cycle) {
        for (GstState s : order) {
            fail_unless_equals_int(gst_element_set_state(h->element, s), GST_STATE_CHANGE_SUCCESS);
            if (s == GST_STATE_NULL) {
                /* What left before the state change (the worker pushes
                 * frames as they are done) is not this cycle's. */
                std::vector<GstBuffer*> earlier = pull_all(h);
                unref_all(earlier);
                for (GstMessage* m : pop_element_messages(bus))
                    gst_message_unref(m);
            }
        }
        gchar* id = g_strdup_printf("cycle-%d", cycle);
        gst_harness_push_event(h, gst_event_new_stream_start(id));
        g_free(id);
        const GstVideoFormat f = (cycle & 1) ? GST_VIDEO_FORMAT_I420 : GST_VIDEO_FORMAT_GRAY8;
        set_caps(h, f, img.width, img.height);
        for (int k = 0; k < 2; ++k)
            fail_unless_equals_int(push_frame(h, img, f, k), GST_FLOW_OK);
        if (cycle % 3 == 2) {
            /* Leave frames in flight: the state change must drop them. */
            fail_unless_equals_int(push_frame(h, img, f, 2), GST_FLOW_OK);
            std::vector<GstBuffer*> some = pull_all(h);
            unref_all(some);
            for (GstMessage* m : pop_element_messages(bus))
                gst_message_unref(m);
            continue;
        }
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 2);
        for (GstBuffer* b : out)
            CHECK_BOXES(b, want, "cycle " + std::to_string(cycle));
        std::vector<GstMessage*> messages = pop_element_messages(bus);
        fail_unless_equals_int(messages.size(), 2);
        guint64 frame = 99;
        gst_structure_get_uint64(gst_message_get_structure(messages[0]), "frame", &frame);
        fail_unless_equals_uint64(frame, 0);
        for (GstMessage* m : messages)
            gst_message_unref(m);
        GstStructure* st = nullptr;
        g_object_get(h->element, "stats", &st, nullptr);
        guint64 frames = 0;
        gst_structure_get_uint64(st, "frames", &frames);
        fail_unless_equals_uint64(frames, 2);
        gst_structure_free(st);
        unref_all(out);
        fail_if(pop_error(bus).found);
        while (GstEvent* e = gst_harness_try_pull_event(h))
            gst_event_unref(e);
    }
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* While the element stops, its source pad is deactivated (flushing) first
 * and the worker joined; only then the sink pad. An event upstream sends
 * in between cannot go on downstream. Refused by an event function, it
 * becomes GST_FLOW_ERROR for the pad that pushes the next buffer
 * (GStreamer resends sticky events before it), and a source posts
 * "Internal data stream error" with nothing from this element. The answer
 * must be FLUSHING, as for a buffer at that moment. Here the source pad is
 * deactivated by hand: the state the element passes through. */
GST_START_TEST(test_lifecycle_event_while_stopping_is_flushing)
{
    const GrayImage img = synthetic(96, 96);
    GstHarness* h = harness_with({{"draw", "none"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    unref_all(out);
    /* A new stream's events reach the element while its source pad is
     * already flushing. */
    GstPad* src = gst_element_get_static_pad(h->element, "src");
    fail_unless(gst_pad_set_active(src, FALSE));
    gst_harness_push_event(h, gst_event_new_flush_start());
    gst_harness_push_event(h, gst_event_new_flush_stop(TRUE));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    /* The harness' pad resends the refused segment before the buffer. */
    const GstFlowReturn ret = push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 1);
    fail_unless(ret == GST_FLOW_FLUSHING, "a frame after an event refused while stopping: %s, not flushing",
                gst_flow_get_name(ret));
    gst_object_unref(src);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A pipeline stops from its sink: fakesink's sink pad is deactivated while
 * this element still streams. When the worker's buffer push resends a
 * sticky event (one refused earlier stays pending on the source pad) in
 * that moment, basesink refuses it with FALSE once its own flushing flag is
 * set, and GStreamer makes that GST_FLOW_ERROR for the push. Passed on to
 * upstream as it is, the source posts "Internal data stream error" with
 * nothing from this element (the storm below, once in about 300 changes
 * under ASan with batching). Downstream's pad is flushing by then: the
 * answer upstream must be FLUSHING, as for a buffer. Here the moment is
 * made exact: on the element's source pad a probe drops every segment the
 * streaming thread pushes (it stays pending there), so that the worker's
 * first buffer push resends it; fakesink holds that one until, set to
 * READY meanwhile, it has set its flushing flags. */
struct DownstreamStop {
    std::mutex lock;
    std::condition_variable changed;
    GThread* streaming = nullptr;
    bool held = false, released = false, refused_while_flushing = false;
    GstElement* sink = nullptr;
};

static GstPadProbeReturn note_streaming_thread(GstPad*, GstPadProbeInfo*, gpointer data)
{
    auto* stop = static_cast<DownstreamStop*>(data);
    std::lock_guard<std::mutex> guard(stop->lock);
    stop->streaming = g_thread_self();
    return GST_PAD_PROBE_OK;
}

static GstPadProbeReturn keep_segment_pending(GstPad*, GstPadProbeInfo* info, gpointer data)
{
    auto* stop = static_cast<DownstreamStop*>(data);
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) != GST_EVENT_SEGMENT)
        return GST_PAD_PROBE_OK;
    std::lock_guard<std::mutex> guard(stop->lock);
    return g_thread_self() == stop->streaming ? GST_PAD_PROBE_DROP : GST_PAD_PROBE_OK;
}

static GstPadProbeReturn hold_resent_segment(GstPad* pad, GstPadProbeInfo* info, gpointer data)
{
    auto* stop = static_cast<DownstreamStop*>(data);
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) != GST_EVENT_SEGMENT)
        return GST_PAD_PROBE_OK;
    {
        std::lock_guard<std::mutex> guard(stop->lock);
        if (stop->held)
            return GST_PAD_PROBE_OK;
        stop->held = true;
    }
    stop->changed.notify_all();
    /* fakesink's deactivation sets the pad's flag, then basesink's own,
     * then waits for this (the worker's) thread to leave. */
    GstBaseSink* sink = GST_BASE_SINK(stop->sink);
    bool flushing = false;
    for (int waited = 0; waited < 5000 && !flushing; ++waited) {
        GST_BASE_SINK_PREROLL_LOCK(sink);
        flushing = GST_PAD_IS_FLUSHING(pad) && sink->flushing;
        GST_BASE_SINK_PREROLL_UNLOCK(sink);
        if (!flushing)
            g_usleep(1000);
    }
    std::lock_guard<std::mutex> guard(stop->lock);
    stop->refused_while_flushing = flushing;
    stop->released = true;
    return GST_PAD_PROBE_OK;
}

GST_START_TEST(test_lifecycle_downstream_stopping_is_flushing)
{
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch("videotestsrc name=in ! video/x-raw,format=GRAY8,width=96,height=96 ! "
                                            "waldboostdetect name=detect draw=none post-messages=false ! "
                                            "fakesink name=out sync=false async=false",
                                            &error);
    fail_unless(pipeline != nullptr, "%s", error ? error->message : "");
    DownstreamStop stop;
    stop.sink = gst_bin_get_by_name(GST_BIN(pipeline), "out");
    GstElement* detect = gst_bin_get_by_name(GST_BIN(pipeline), "detect");
    GstElement* in = gst_bin_get_by_name(GST_BIN(pipeline), "in");
    GstPad* detect_sink = gst_element_get_static_pad(detect, "sink");
    GstPad* detect_src = gst_element_get_static_pad(detect, "src");
    GstPad* sink_pad = gst_element_get_static_pad(stop.sink, "sink");
    GstPad* in_src = gst_element_get_static_pad(in, "src");
    gst_pad_add_probe(detect_sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, note_streaming_thread, &stop, nullptr);
    gst_pad_add_probe(detect_src, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, keep_segment_pending, &stop, nullptr);
    gst_pad_add_probe(sink_pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, hold_resent_segment, &stop, nullptr);
    GstBus* bus = gst_element_get_bus(pipeline);
    fail_if(gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
    {
        std::unique_lock<std::mutex> lock(stop.lock);
        fail_unless(stop.changed.wait_for(lock, std::chrono::seconds(20),
                                          [&] {
                                              return stop.held;
                                          }),
                    "the worker's buffer push never resent the dropped segment");
    }
    /* The sink stops, as the pipeline's stop begins; the held segment
     * goes on once basesink is flushing. The sink's state is locked so
     * that nothing sets it going again meanwhile (the pipeline does not
     * wait for a preroll: async=false). */
    gst_element_set_locked_state(stop.sink, TRUE);
    gst_element_set_state(stop.sink, GST_STATE_READY);
    {
        std::lock_guard<std::mutex> guard(stop.lock);
        fail_unless(stop.released && stop.refused_while_flushing, "fakesink never became flushing");
    }
    /* Upstream's next push gets the element's answer, and stops on it. */
    GstFlowReturn upstream = GST_FLOW_OK;
    for (int waited = 0; waited < 500 && upstream == GST_FLOW_OK; ++waited) {
        g_usleep(10000);
        upstream = gst_pad_get_last_flow_return(in_src);
    }
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    std::string text;
    if (m) {
        GError* e = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_error(m, &e, &debug);
        text = std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + e->message + " | " + (debug ? debug : "");
        g_error_free(e);
        g_free(debug);
        gst_message_unref(m);
    }
    fail_unless(text.empty(), "an error while downstream stopped: %s", text.c_str());
    fail_unless(upstream == GST_FLOW_FLUSHING, "upstream got %s, not flushing", gst_flow_get_name(upstream));
    gst_element_set_locked_state(stop.sink, FALSE);
    fail_unless(gst_element_set_state(pipeline, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    gst_object_unref(bus);
    gst_object_unref(in_src);
    gst_object_unref(sink_pad);
    gst_object_unref(detect_src);
    gst_object_unref(detect_sink);
    gst_object_unref(in);
    gst_object_unref(detect);
    gst_object_unref(stop.sink);
    gst_object_unref(pipeline);
}
GST_END_TEST;

/* The storm of the issue "What trying to break it found": four pipelines
 * in one process, each videotestsrc ! waldboostdetect ! fakesink, their
 * states changed at random from another thread. Every error posted is a
 * failure. The error needs a stream's first events to reach the element in
 * the moment of a stop in which its source pad is already flushing (its
 * worker being joined) and its sink pad is not yet; on 2 loaded cores
 * (PoCL busy) that happened about once in 1,500 changes. So that a few
 * hundred changes show it, a probe holds each segment event before the
 * element for up to 20 ms while the element's source pad is active: when a
 * stop comes meanwhile, the event goes on in that moment, as it would on a
 * slow machine; it changes no event and decides nothing. */
struct StormErrors {
    std::mutex lock;
    std::vector<std::string> texts;
};

static GstBusSyncReply storm_bus_handler(GstBus*, GstMessage* m, gpointer data)
{
    if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
        GError* error = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_error(m, &error, &debug);
        auto* errors = static_cast<StormErrors*>(data);
        std::lock_guard<std::mutex> g(errors->lock);
        errors->texts.push_back(std::string(GST_OBJECT_NAME(GST_MESSAGE_SRC(m))) + ": " + error->message + " | " +
                                (debug ? debug : ""));
        g_error_free(error);
        g_free(debug);
    }
    return GST_BUS_DROP;
}

static GstPadProbeReturn storm_slow_segment(GstPad*, GstPadProbeInfo* info, gpointer element_src)
{
    if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) != GST_EVENT_SEGMENT)
        return GST_PAD_PROBE_OK;
    GstPad* src = GST_PAD(element_src);
    for (int waited = 0; waited < 200 && !GST_PAD_IS_FLUSHING(src); ++waited)
        g_usleep(100);
    return GST_PAD_PROBE_OK;
}

GST_START_TEST(test_lifecycle_state_storm)
{
    constexpr int kPipelines = 4;
    const int changes = std::stoi(env_or("WALDBOOST_STORM_CHANGES", "300"));
    const std::string element = env_or("WALDBOOST_STORM_ELEMENT", "waldboostdetect draw=none post-messages=false");
    StormErrors errors;
    std::vector<GstElement*> pipelines;
    for (int i = 0; i < kPipelines; ++i) {
        GError* error = nullptr;
        /* No capsfilter: videotestsrc takes the element's first format
         * (GRAY8) at its own default size. A capsfilter is a
         * GstBaseTransform with a plain event function: when a stop
         * reaches it while a stream's first segment goes through, it
         * refuses the segment, and its refusal became GST_FLOW_ERROR for
         * videotestsrc with nothing from this element (under ASan, about
         * once in 7,000 changes with batching; this element logged no
         * refusal and no downstream error then). That race is
         * GStreamer's, not this element's. */
        const std::string launch = "videotestsrc pattern=ball ! " + element + " name=detect ! fakesink sync=false";
        GstElement* p = gst_parse_launch(launch.c_str(), &error);
        fail_unless(p != nullptr, "%s", error ? error->message : "");
        GstBus* bus = gst_element_get_bus(p);
        gst_bus_set_sync_handler(bus, storm_bus_handler, &errors, nullptr);
        gst_object_unref(bus);
        GstElement* detect = gst_bin_get_by_name(GST_BIN(p), "detect");
        GstPad* sink = gst_element_get_static_pad(detect, "sink");
        GstPad* src = gst_element_get_static_pad(detect, "src");
        gst_pad_add_probe(sink, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, storm_slow_segment, src,
                          reinterpret_cast<GDestroyNotify>(gst_object_unref));
        gst_object_unref(sink);
        gst_object_unref(detect);
        pipelines.push_back(p);
    }
    std::thread storm([&] {
        std::mt19937 rng(36);
        const GstState states[] = {GST_STATE_PLAYING, GST_STATE_PLAYING, GST_STATE_PAUSED, GST_STATE_READY,
                                   GST_STATE_NULL};
        for (int n = 0; n < changes; ++n) {
            gst_element_set_state(pipelines[rng() % kPipelines], states[rng() % 5]);
            g_usleep(rng() % 3000);
        }
    });
    storm.join();
    for (GstElement* p : pipelines) {
        fail_unless(gst_element_set_state(p, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
        gst_object_unref(p);
    }
    std::string all;
    for (size_t i = 0; i < errors.texts.size() && i < 3; ++i) /* the first few: check's messages are short */
        all += "\n  " + errors.texts[i].substr(0, 300);
    fail_unless(errors.texts.empty(), "%zu errors in %d state changes:%s", errors.texts.size(), changes, all.c_str());
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("lifecycle");
    tcase_add_test(tc, test_lifecycle_state_cycles);
    tcase_add_test(tc, test_lifecycle_event_while_stopping_is_flushing);
    tcase_add_test(tc, test_lifecycle_downstream_stopping_is_flushing);
    tcase_add_test(tc, test_lifecycle_state_storm);
    return tc;
}
