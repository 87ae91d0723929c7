/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, streaming: in-order delivery with frames in flight
 * (max-inflight), frames leaving as soon as they are done, the bound on
 * frames held while downstream stalls, EOS, flush, renegotiation, and the
 * ALLOCATION query with upstream buffer pools.
 */
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "harness.h"

using namespace element_test;

/* N frames, max-inflight 1..4: all out, once each, in PTS order, each with
 * the core's detections for its own content. */
GST_START_TEST(test_in_order_delivery)
{
    const int N = 7;
    std::vector<GrayImage> frames;
    std::vector<std::vector<Box>> want;
    for (int k = 0; k < N; ++k) {
        frames.push_back(face_frame(k));
        want.push_back(expected_boxes(core(frames.back()), "face"));
        fail_unless(!want.back().empty());
    }
    fail_if(want[0] == want[N - 1], "the frames should differ in their detections");
    for (int mi = 1; mi <= 4; ++mi) {
        Recorder rec;
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}, {"draw", "none"}});
        record(h, &rec);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        for (int k = 0; k < N; ++k)
            fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        std::vector<GstClockTime> expected_pts;
        for (int k = 0; k < N; ++k)
            expected_pts.push_back(pts_of(k));
        const std::vector<GstClockTime> got = buffer_pts(rec.snapshot());
        fail_unless(got == expected_pts, "max-inflight=%d: frames left as %s", mi, describe_pts(got).c_str());
        fail_unless_equals_int(out.size(), N);
        for (int k = 0; k < N; ++k) {
            char what[80];
            g_snprintf(what, sizeof what, "max-inflight=%d frame %d", mi, k);
            CHECK_BOXES(out[k], want[k], what);
        }
        unref_all(out);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* Frames leave from the element's worker as soon as their detection is
 * done, in order, whatever max-inflight: no frame waits for later frames
 * (before the worker, a frame left only once max-inflight - 1 later frames
 * had arrived). */
GST_START_TEST(test_frames_leave_when_done)
{
    for (int mi = 1; mi <= 4; ++mi) {
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}, {"draw", "none"}});
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        for (int k = 0; k < 4; ++k) {
            fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
            /* Blocks until the frame is out (the harness gives up after a minute). */
            GstBuffer* b = gst_harness_pull(h);
            fail_unless(b != nullptr, "max-inflight=%d: frame %d did not leave before the next one came", mi, k);
            fail_unless_equals_int(frame_index(b), k);
            CHECK_BOXES(b, expected_boxes(core(face_frame(k)), "face"), "frame " + std::to_string(k));
            gst_buffer_unref(b);
        }
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* Stops the element's pushes at its source pad until released: a
 * downstream that does not take frames. */
struct Gate {
    std::mutex lock;
    std::condition_variable opened;
    bool open = false;
};

static GstPadProbeReturn wait_at_gate(GstPad*, GstPadProbeInfo*, gpointer data)
{
    auto* gate = static_cast<Gate*>(data);
    std::unique_lock<std::mutex> lock(gate->lock);
    gate->opened.wait(lock, [gate] {
        return gate->open;
    });
    return GST_PAD_PROBE_OK;
}

/* With downstream stalled, the streaming thread stops once max-inflight
 * frames are with the element (the worker holds one, max-inflight - 1 wait
 * behind it), so memory and latency stay bounded; when downstream takes
 * frames again, every frame leaves in order. */
GST_START_TEST(test_inflight_bounds_frames_held)
{
    constexpr int kFrames = 6;
    for (int mi : {1, 3}) {
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}, {"draw", "none"}});
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        Gate gate;
        GstPad* src = gst_element_get_static_pad(h->element, "src");
        const gulong probe = gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, wait_at_gate, &gate, nullptr);
        std::atomic<int> returned{0};
        std::thread pusher([&] {
            for (int k = 0; k < kFrames; ++k) {
                push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k);
                ++returned;
            }
        });
        /* Waits for the pushes that must return, then gives a push that
         * should not return the time to do so anyway. */
        for (int i = 0; i < 2000 && returned.load() < mi; ++i)
            g_usleep(10000);
        g_usleep(300000);
        const int held_back = returned.load();
        {
            std::lock_guard<std::mutex> lock(gate.lock);
            gate.open = true;
        }
        gate.opened.notify_all();
        pusher.join();
        fail_unless_equals_int(held_back, mi);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), kFrames);
        for (int k = 0; k < kFrames; ++k)
            fail_unless_equals_int(frame_index(out[k]), k);
        unref_all(out);
        gst_pad_remove_probe(src, probe);
        gst_object_unref(src);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

GST_START_TEST(test_eos_drains)
{
    Recorder rec;
    GstHarness* h = harness_with({{"max-inflight", "4"}, {"draw", "none"}});
    record(h, &rec);
    set_caps(h, GST_VIDEO_FORMAT_I420, 200, 160);
    std::vector<std::vector<Box>> want;
    for (int k = 0; k < 3; ++k) {
        const GrayImage img = face_frame(k);
        want.push_back(expected_boxes(core(img), "face"));
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, k), GST_FLOW_OK);
    }
    push_eos(h);
    const std::vector<Item> items = rec.snapshot();
    /* Three buffers, then EOS, nothing after. */
    std::vector<std::string> seq;
    for (const Item& i : items)
        if (i.buffer || i.event == GST_EVENT_EOS)
            seq.push_back(i.buffer ? "buffer" + std::to_string(i.pts / kFrameDuration) : "EOS");
    const std::vector<std::string> expected = {"buffer0", "buffer1", "buffer2", "EOS"};
    std::string got;
    for (const std::string& s : seq)
        got += s + " ";
    fail_unless(seq == expected, "after EOS the element sent: %s", got.c_str());
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    for (int k = 0; k < 3; ++k)
        CHECK_BOXES(out[k], want[k], "drained frame " + std::to_string(k));
    unref_all(out);
    /* The EOS event itself reached the harness. */
    bool eos = false;
    while (GstEvent* e = gst_harness_try_pull_event(h)) {
        eos |= GST_EVENT_TYPE(e) == GST_EVENT_EOS;
        gst_event_unref(e);
    }
    fail_unless(eos);
    gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_flush)
{
    for (int mi = 2; mi <= 4; ++mi) {
        Recorder rec;
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}, {"draw", "none"}});
        GstBus* bus = attach_bus(h);
        record(h, &rec);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        /* Frames 0.. mi-2 stay in flight. */
        for (int k = 0; k < mi - 1; ++k)
            fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        push_flush(h);
        std::vector<std::vector<Box>> want;
        for (int k = 10; k < 13; ++k) {
            const GrayImage img = face_frame(k - 5);
            want.push_back(expected_boxes(core(img), "face"));
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        }
        push_eos(h);
        const std::vector<Item> items = rec.snapshot();
        bool after_stop = false;
        std::vector<GstClockTime> after;
        for (const Item& i : items) {
            if (i.event == GST_EVENT_FLUSH_STOP)
                after_stop = true;
            if (i.buffer && after_stop)
                after.push_back(i.pts);
        }
        fail_unless(after_stop, "FLUSH_STOP did not reach downstream");
        const std::vector<GstClockTime> expected = {pts_of(10), pts_of(11), pts_of(12)};
        fail_unless(after == expected,
                    "max-inflight=%d: after the flush the element sent frames %s (expected 10 11 "
                    "12: nothing from before the flush)",
                    mi, describe_pts(after).c_str());
        std::vector<GstBuffer*> out = pull_all(h);
        /* Frames from before the flush may only have left before it. */
        std::vector<GstBuffer*> kept;
        for (GstBuffer* b : out) {
            if (frame_index(b) >= 10)
                kept.push_back(b);
            else
                gst_buffer_unref(b);
        }
        fail_unless_equals_int(kept.size(), 3);
        for (int k = 0; k < 3; ++k)
            CHECK_BOXES(kept[k], want[k], "frame after the flush");
        unref_all(kept);
        fail_if(pop_error(bus).found, "error around the flush");
        teardown_with_bus(h, bus);
    }
}
GST_END_TEST;

/* Caps changes with frames in flight: each frame is detected at its own
 * size and leaves before the caps of the next size. */
GST_START_TEST(test_renegotiation)
{
    struct Step {
        GstVideoFormat format;
        int w, h, frames;
    };
    const Step steps[] = {{GST_VIDEO_FORMAT_GRAY8, 320, 240, 3},
                          {GST_VIDEO_FORMAT_GRAY8, 640, 360, 2},
                          {GST_VIDEO_FORMAT_I420, 320, 240, 2},
                          {GST_VIDEO_FORMAT_NV12, 200, 160, 2},
                          {GST_VIDEO_FORMAT_Y444, 100, 90, 0} /* caps after caps, no frame between */,
                          {GST_VIDEO_FORMAT_I420, 641, 361, 1}};
    Recorder rec;
    GstHarness* h = harness_with({{"max-inflight", "3"}, {"draw", "none"}});
    record(h, &rec);
    std::vector<std::vector<Box>> want;
    std::vector<std::pair<int, int>> sizes;
    int index = 0;
    for (const Step& s : steps) {
        set_caps(h, s.format, s.w, s.h);
        for (int k = 0; k < s.frames; ++k, ++index) {
            /* Centred on the face (171,64 104x104), moved by k; grey outside the photo. */
            const GrayImage img = crop(astronaut(), 223 - s.w / 2 + 3 * k, 116 - s.h / 2 + 2 * k, s.w, s.h);
            want.push_back(expected_boxes(core(img), "face"));
            fail_unless(!want.back().empty());
            sizes.emplace_back(s.w, s.h);
            fail_unless_equals_int(push_frame(h, img, s.format, index), GST_FLOW_OK);
        }
    }
    push_eos(h);
    /* Each buffer after the caps of its own size. */
    fail_unless_equals_int(check_buffers_under_their_caps(rec.snapshot(), sizes), index);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), index);
    for (int k = 0; k < index; ++k)
        CHECK_BOXES(out[k], want[k],
                    "frame " + std::to_string(k) + " at " + std::to_string(sizes[k].first) + "x" +
                        std::to_string(sizes[k].second));
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* The ALLOCATION query: the element keeps up to max-inflight input buffers,
 * so it asks upstream's pool for that many more than its minimum. */
GST_START_TEST(test_allocation_asks_for_held_buffers)
{
    for (int mi : {1, 5, 16}) {
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}});
        GstCaps* caps = caps_for(GST_VIDEO_FORMAT_GRAY8, 160, 120);
        gst_harness_set_src_caps(h, gst_caps_ref(caps));
        GstQuery* q = gst_query_new_allocation(caps, TRUE);
        fail_unless(gst_pad_peer_query(h->srcpad, q), "max-inflight=%d: the ALLOCATION query failed", mi);
        fail_unless(gst_query_get_n_allocation_pools(q) >= 1, "max-inflight=%d: no pool proposed", mi);
        guint size, min, max;
        gst_query_parse_nth_allocation_pool(q, 0, nullptr, &size, &min, &max);
        fail_unless(min >= static_cast<guint>(mi), "max-inflight=%d: the pool's minimum is %u", mi, min);
        fail_unless(max == 0 || max >= min);
        gst_query_unref(q);
        gst_caps_unref(caps);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* Caps every pool in an answered ALLOCATION query at `cap` buffers, as a
 * camera or a hardware decoder with a fixed pool would. */
static GstPadProbeReturn cap_pool_probe(GstPad*, GstPadProbeInfo* info, gpointer data)
{
    GstQuery* q = GST_PAD_PROBE_INFO_QUERY(info);
    if (GST_QUERY_TYPE(q) != GST_QUERY_ALLOCATION || !(GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_PULL))
        return GST_PAD_PROBE_OK;
    const guint cap = GPOINTER_TO_UINT(data);
    if (gst_query_get_n_allocation_pools(q) == 0) {
        GstCaps* caps = nullptr;
        GstVideoInfo vi;
        gst_query_parse_allocation(q, &caps, nullptr);
        if (caps && gst_video_info_from_caps(&vi, caps))
            gst_query_add_allocation_pool(q, nullptr, static_cast<guint>(GST_VIDEO_INFO_SIZE(&vi)), 0, cap);
    }
    for (guint i = 0; i < gst_query_get_n_allocation_pools(q); ++i) {
        GstBufferPool* pool = nullptr;
        guint size, min, max;
        gst_query_parse_nth_allocation_pool(q, i, &pool, &size, &min, &max);
        gst_query_set_nth_allocation_pool(q, i, pool, size, std::min(min, cap), cap);
        if (pool)
            gst_object_unref(pool);
    }
    return GST_PAD_PROBE_OK;
}

/* A sink that answers the ALLOCATION query (as video sinks do), without
 * proposing anything. */
static GstPadProbeReturn answer_allocation_probe(GstPad*, GstPadProbeInfo* info, gpointer)
{
    GstQuery* q = GST_PAD_PROBE_INFO_QUERY(info);
    return GST_QUERY_TYPE(q) == GST_QUERY_ALLOCATION ? GST_PAD_PROBE_HANDLED : GST_PAD_PROBE_OK;
}

static GstPadProbeReturn count_buffers_probe(GstPad*, GstPadProbeInfo* info, gpointer data)
{
    auto* pts = static_cast<std::vector<GstClockTime>*>(data);
    pts->push_back(GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info)));
    return GST_PAD_PROBE_OK;
}

/* A source whose pool has fewer buffers than the element keeps
 * (max-inflight): before, the element held every buffer of the pool and the
 * source waited for a free one forever after `pool` frames. Now the stream
 * runs to EOS, every frame once and in order. */
GST_START_TEST(test_fixed_upstream_pool)
{
    struct Case {
        guint pool;
        int max_inflight;
        bool sink_answers; /* the sink answers the ALLOCATION query (fakesink does not) */
    };
    for (const Case& c : {Case{4, 5, true}, Case{2, 16, true}, Case{1, 3, true}, Case{8, 5, true}, Case{4, 5, false},
                          Case{1, 16, false}}) {
        constexpr int kFrames = 50;
        gchar* launch = g_strdup_printf("videotestsrc name=src num-buffers=%d ! "
                                        "video/x-raw,format=GRAY8,width=160,height=120,framerate=30/1 ! "
                                        "waldboostdetect max-inflight=%d ! fakesink name=sink sync=false",
                                        kFrames, c.max_inflight);
        GError* error = nullptr;
        GstElement* pipeline = gst_parse_launch(launch, &error);
        fail_unless(pipeline && !error, "%s: %s", launch, error ? error->message : "");
        GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
        GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
        GstPad* srcpad = gst_element_get_static_pad(src, "src");
        GstPad* sinkpad = gst_element_get_static_pad(sink, "sink");
        gst_pad_add_probe(srcpad, GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM, cap_pool_probe, GUINT_TO_POINTER(c.pool),
                          nullptr);
        if (c.sink_answers)
            gst_pad_add_probe(
                sinkpad, static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_QUERY_DOWNSTREAM | GST_PAD_PROBE_TYPE_PUSH),
                answer_allocation_probe, nullptr, nullptr);
        std::vector<GstClockTime> pts;
        gst_pad_add_probe(sinkpad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers_probe, &pts, nullptr);
        fail_if(gst_element_set_state(pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE);
        GstBus* bus = gst_element_get_bus(pipeline);
        GstMessage* m = gst_bus_timed_pop_filtered(bus, 60 * GST_SECOND,
                                                   static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
        const bool eos = m && GST_MESSAGE_TYPE(m) == GST_MESSAGE_EOS;
        const char* why = m ? "an error" : "stalled";
        if (m)
            gst_message_unref(m);
        gst_element_set_state(pipeline, GST_STATE_NULL);
        const size_t got = pts.size();
        fail_unless(eos, "pool of %u, max-inflight=%d, the sink %s: no EOS within 60 s after %zu of %d frames (%s)",
                    c.pool, c.max_inflight, c.sink_answers ? "answers" : "does not answer", got, kFrames, why);
        fail_unless_equals_int(got, kFrames);
        for (int k = 1; k < kFrames; ++k)
            fail_unless(pts[k] > pts[k - 1], "frame %d left out of order", k);
        g_free(launch);
        gst_object_unref(bus);
        gst_object_unref(srcpad);
        gst_object_unref(sinkpad);
        gst_object_unref(src);
        gst_object_unref(sink);
        gst_object_unref(pipeline);
    }
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("streaming");
    tcase_add_test(tc, test_in_order_delivery);
    tcase_add_test(tc, test_frames_leave_when_done);
    tcase_add_test(tc, test_inflight_bounds_frames_held);
    tcase_add_test(tc, test_eos_drains);
    tcase_add_test(tc, test_flush);
    tcase_add_test(tc, test_renegotiation);
    tcase_add_test(tc, test_allocation_asks_for_held_buffers);
    tcase_add_test(tc, test_fixed_upstream_pool);
    return tc;
}
