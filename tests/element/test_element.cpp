/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tests of the waldboostdetect element with GstCheck and GstHarness: caps,
 * region-of-interest metas against the core library's CPU reference
 * detector, in-order delivery with frames in flight, EOS, flush,
 * renegotiation, bus messages, latency, every property, the error paths and
 * a state-change lifecycle. Every expected detection comes from
 * waldboost::detect() on the same gray image, never from the element itself.
 *
 * The tests are grouped in test cases (caps, detections, streaming,
 * messages, properties, drawing, live, errors, lifecycle); meson runs each
 * case as its own test with CK_RUN_CASE. Cases that need the real test
 * images (tests/fetch-test-data.sh) exit 77 (skip) when they are missing,
 * unless WALDBOOST_REQUIRE_TEST_DATA=1.
 *
 * OpenCL fault injection (WALDBOOST_CL_FAULT) is read once per process, so
 * those cases run a program of their own, element-fault-helper MODE
 * (fault_helper.cpp), with the variable set.
 *
 * The helpers the cases share (data, harness, frames, metas, the core's
 * boxes, bus and outline helpers, running the fault helper) are in
 * harness.h, compiled once.
 */
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <glib/gstdio.h>
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video-overlay-composition.h>
#include <gst/video/video.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/classifier_io.h"
#include "core/embedded/default_classifier.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "harness.h"

using namespace element_test;

/* ======================================================================== */
/* caps                                                                     */

GST_START_TEST(test_caps_template)
{
    GstElement* e = make_element({});
    GstPad* sink = gst_element_get_static_pad(e, "sink");
    GstPad* src = gst_element_get_static_pad(e, "src");
    for (GstVideoFormat f : kFormats) {
        GstCaps* caps = caps_for(f, 64, 48);
        fail_unless(gst_pad_query_accept_caps(sink, caps), "sink refuses %s", gst_video_format_to_string(f));
        fail_unless(gst_pad_query_accept_caps(src, caps), "src refuses %s", gst_video_format_to_string(f));
        gst_caps_unref(caps);
    }
    const GstVideoFormat refused[] = {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_RGBA,
                                      GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_GRAY16_LE, GST_VIDEO_FORMAT_AYUV};
    for (GstVideoFormat f : refused) {
        GstCaps* caps = caps_for(f, 64, 48);
        fail_if(gst_pad_query_accept_caps(sink, caps), "sink accepts %s", gst_video_format_to_string(f));
        GstCaps* result = gst_pad_query_caps(sink, caps);
        fail_unless(gst_caps_is_empty(result), "caps query with %s is not empty", gst_video_format_to_string(f));
        gst_caps_unref(result);
        gst_caps_unref(caps);
    }
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(e);
}
GST_END_TEST;

/* Every format passes with the same caps out, pixels untouched (no faces:
 * nothing drawn), at ordinary and odd sizes. */
GST_START_TEST(test_caps_formats_and_odd_sizes)
{
    const int sizes[][2] = {{64, 48}, {33, 17}, {35, 29}, {1, 1}};
    for (GstVideoFormat f : kFormats) {
        for (const auto& size : sizes) {
            const char* name = gst_video_format_to_string(f);
            GstHarness* h = harness_with();
            GstBus* bus = attach_bus(h);
            GstCaps* in_caps = caps_for(f, size[0], size[1]);
            gst_harness_set_src_caps(h, gst_caps_ref(in_caps));
            std::vector<Sent> sent;
            for (int i = 0; i < 3; ++i)
                fail_unless_equals_int(push_frame(h, synthetic(size[0], size[1], i), f, i, &sent), GST_FLOW_OK);
            push_eos(h);
            std::vector<GstBuffer*> out = pull_all(h);
            fail_unless_equals_int(out.size(), 3);
            GstCaps* out_caps = gst_pad_get_current_caps(h->sinkpad);
            fail_unless(out_caps && gst_caps_is_equal(out_caps, in_caps), "%s %dx%d: output caps %" GST_PTR_FORMAT
                        " differ from the input caps", name, size[0], size[1], out_caps);
            for (size_t i = 0; i < out.size(); ++i) {
                fail_unless_equals_uint64(GST_BUFFER_PTS(out[i]), sent[i].pts);
                fail_unless(bytes_of(out[i]) == sent[i].bytes, "%s %dx%d: frame %zu changed", name, size[0],
                            size[1], i);
                fail_unless(roi_boxes(out[i]).empty(), "%s %dx%d: a detection on a synthetic frame", name, size[0],
                            size[1]);
            }
            fail_if(pop_error(bus).found, "%s %dx%d: error", name, size[0], size[1]);
            unref_all(out);
            gst_caps_unref(in_caps);
            gst_caps_unref(out_caps);
            gst_element_set_bus(h->element, nullptr);
            gst_object_unref(bus);
            gst_harness_teardown(h);
        }
    }
}
GST_END_TEST;

GST_START_TEST(test_caps_rgb_refused)
{
    GstHarness* h = harness_with();
    GstCaps* rgb = gst_caps_from_string("video/x-raw,format=RGB,width=64,height=48,framerate=30/1");
    /* A sticky event is stored on the harness pad even when the element
     * refuses it, so check the element's pads instead of the return value. */
    gst_harness_push_event(h, gst_event_new_caps(rgb));
    GstPad* sink = gst_element_get_static_pad(h->element, "sink");
    GstCaps* current = gst_pad_get_current_caps(sink);
    fail_unless(current == nullptr, "the element took RGB caps: %" GST_PTR_FORMAT, current);
    gst_object_unref(sink);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    GstBuffer* b = gst_buffer_new_allocate(nullptr, 64 * 48 * 3, nullptr);
    gst_buffer_memset(b, 0, 100, 64 * 48 * 3);
    GST_BUFFER_PTS(b) = 0;
    const GstFlowReturn flow = gst_harness_push(h, b);
    fail_unless_equals_int(flow, GST_FLOW_NOT_NEGOTIATED);
    fail_unless(gst_harness_try_pull(h) == nullptr);
    GstCaps* out = gst_pad_get_current_caps(h->sinkpad);
    fail_unless(out == nullptr, "caps went downstream: %" GST_PTR_FORMAT, out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* detections                                                                */

static void check_astronaut(GstVideoFormat format, int pad_bytes)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty(), "the core finds no face in astronaut.png: the test needs one");
    GstHarness* h = harness_with({{"draw", "none"}});
    set_caps(h, format, img.width, img.height);
    std::vector<Sent> sent;
    fail_unless_equals_int(push_frame(h, img, format, 0, &sent, pad_bytes), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    char what[100];
    g_snprintf(what, sizeof what, "astronaut.png as %s, row padding %d", gst_video_format_to_string(format),
               pad_bytes);
    CHECK_BOXES(out[0], want, what);
    fail_unless(bytes_of(out[0]) == sent[0].bytes, "%s: draw=none changed the pixels", what);
    unref_all(out);
    gst_harness_teardown(h);
}

GST_START_TEST(test_rois_astronaut_gray8) { check_astronaut(GST_VIDEO_FORMAT_GRAY8, 0); }
GST_END_TEST;

GST_START_TEST(test_rois_astronaut_i420) { check_astronaut(GST_VIDEO_FORMAT_I420, 0); }
GST_END_TEST;

/* Rows longer than the width (GstVideoMeta strides), padding full of junk. */
GST_START_TEST(test_rois_padded_rows)
{
    check_astronaut(GST_VIDEO_FORMAT_GRAY8, 40);
    check_astronaut(GST_VIDEO_FORMAT_I420, 24);
}
GST_END_TEST;

/* Every format's luma plane is the image. */
GST_START_TEST(test_rois_every_format)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty());
    for (GstVideoFormat f : kFormats) {
        GstHarness* h = harness_with({{"draw", "none"}});
        set_caps(h, f, img.width, img.height);
        fail_unless_equals_int(push_frame(h, img, f, 0), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        CHECK_BOXES(out[0], want, gst_video_format_to_string(f));
        unref_all(out);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* Odd widths: the default strides are rounded up (GRAY8 171 -> 172, I420
 * chroma 86 -> 88), so rows are padded without a meta. */
GST_START_TEST(test_rois_odd_width)
{
    const GrayImage img = crop(astronaut(), 140, 40, 171, 133);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty());
    const GstVideoFormat formats[] = {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
                                      GST_VIDEO_FORMAT_Y444};
    for (GstVideoFormat f : formats) {
        GstHarness* h = harness_with({{"draw", "none"}});
        set_caps(h, f, img.width, img.height);
        std::vector<Sent> sent;
        fail_unless_equals_int(push_frame(h, img, f, 0, &sent), GST_FLOW_OK);
        fail_unless(GST_VIDEO_INFO_PLANE_STRIDE(&sent[0].info, 0) > img.width);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        CHECK_BOXES(out[0], want, std::string("171x133 ") + gst_video_format_to_string(f));
        unref_all(out);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* ======================================================================== */
/* streaming                                                                 */

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
    gate->opened.wait(lock, [gate] { return gate->open; });
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
        fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
        fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
        GstSegment segment;
        gst_segment_init(&segment, GST_FORMAT_TIME);
        fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)));
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
        fail_unless(after == expected, "max-inflight=%d: after the flush the element sent frames %s (expected 10 11 "
                    "12: nothing from before the flush)", mi, describe_pts(after).c_str());
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
        gst_element_set_bus(h->element, nullptr);
        gst_object_unref(bus);
        gst_harness_teardown(h);
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
    const Step steps[] = {{GST_VIDEO_FORMAT_GRAY8, 320, 240, 3}, {GST_VIDEO_FORMAT_GRAY8, 640, 360, 2},
                          {GST_VIDEO_FORMAT_I420, 320, 240, 2},  {GST_VIDEO_FORMAT_NV12, 200, 160, 2},
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
    int w = 0, hh = 0, seen = 0;
    for (const Item& i : rec.snapshot()) {
        if (i.event == GST_EVENT_CAPS) {
            w = i.width;
            hh = i.height;
        } else if (i.buffer) {
            const int k = static_cast<int>(i.pts / kFrameDuration);
            fail_unless_equals_int(k, seen);
            fail_unless(w == sizes[k].first && hh == sizes[k].second,
                        "frame %d (%dx%d) left under caps %dx%d", k, sizes[k].first, sizes[k].second, w, hh);
            ++seen;
        }
    }
    fail_unless_equals_int(seen, index);
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

/* ======================================================================== */
/* messages                                                                  */

GST_START_TEST(test_messages)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"min-neighbors", "1"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    segment.start = 0;
    segment.base = 5 * GST_SECOND;
    segment.time = 2 * GST_SECOND;
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)));
    const int N = 4;
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), N);
    std::vector<GstMessage*> messages = pop_element_messages(bus);
    fail_unless_equals_int(messages.size(), N);
    bool any = false;
    for (int k = 0; k < N; ++k) {
        const GstStructure* s = gst_message_get_structure(messages[k]);
        fail_unless(GST_MESSAGE_SRC(messages[k]) == GST_OBJECT(h->element));
        guint64 frame = 99, ts = 0, running = 0, stream = 0, duration = 0;
        fail_unless(gst_structure_get_uint64(s, "frame", &frame));
        fail_unless(gst_structure_get_uint64(s, "timestamp", &ts));
        fail_unless(gst_structure_get_uint64(s, "running-time", &running));
        fail_unless(gst_structure_get_uint64(s, "stream-time", &stream));
        fail_unless(gst_structure_get_uint64(s, "duration", &duration));
        fail_unless_equals_uint64(frame, k);
        fail_unless_equals_uint64(ts, GST_BUFFER_PTS(out[k]));
        fail_unless_equals_uint64(running, gst_segment_to_running_time(&segment, GST_FORMAT_TIME, ts));
        fail_unless_equals_uint64(stream, gst_segment_to_stream_time(&segment, GST_FORMAT_TIME, ts));
        fail_unless(running != ts && stream != ts, "the segment should make the times differ");
        fail_unless_equals_uint64(duration, GST_BUFFER_DURATION(out[k]));
        const GValue* list = gst_structure_get_value(s, "detections");
        fail_unless(list && GST_VALUE_HOLDS_LIST(list), "no detections list");
        std::vector<Box> boxes;
        for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
            const GstStructure* d = gst_value_get_structure(gst_value_list_get_value(list, i));
            Box b;
            fail_unless(gst_structure_has_name(d, "detection"));
            fail_unless(gst_structure_get_int(d, "x", &b.x) && gst_structure_get_int(d, "y", &b.y) &&
                        gst_structure_get_int(d, "width", &b.w) && gst_structure_get_int(d, "height", &b.h) &&
                        gst_structure_get_int(d, "neighbors", &b.neighbors) &&
                        gst_structure_get_double(d, "confidence", &b.confidence));
            b.label = gst_structure_get_string(d, "label") ? gst_structure_get_string(d, "label") : "";
            boxes.push_back(b);
        }
        std::sort(boxes.begin(), boxes.end());
        const std::vector<Box> metas = roi_boxes(out[k]);
        fail_unless(boxes == metas, "frame %d: message %s, metas %s", k, describe(boxes).c_str(),
                    describe(metas).c_str());
        CHECK_BOXES(out[k], expected_boxes(core(face_frame(k), params_mn(1)), "face"), "message frame");
        any |= !boxes.empty();
        gst_message_unref(messages[k]);
    }
    fail_unless(any, "no detections at all: the test needs some");
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_post_messages_false)
{
    GstHarness* h = harness_with({{"post-messages", "false"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    for (int k = 0; k < 3; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    fail_if(roi_boxes(out[0]).empty(), "metas are still expected");
    fail_unless(pop_element_messages(bus).empty(), "post-messages=false posted messages");
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

static GstClockTime query_min_latency(GstHarness* h, GstClockTime* max, gboolean* live)
{
    GstQuery* q = gst_query_new_latency();
    fail_unless(gst_pad_peer_query(h->sinkpad, q), "LATENCY query failed");
    GstClockTime min;
    gst_query_parse_latency(q, live, &min, max);
    gst_query_unref(q);
    return min;
}

GST_START_TEST(test_latency_query)
{
    const GstClockTime upstream = 10 * GST_MSECOND;
    for (int mi = 1; mi <= 4; ++mi) {
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}});
        gst_harness_set_upstream_latency(h, upstream);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48, 30, 1);
        GstClockTime max;
        gboolean live;
        const GstClockTime min = query_min_latency(h, &max, &live);
        const GstClockTime ours = gst_util_uint64_scale_int(static_cast<guint64>(mi - 1) * GST_SECOND, 1, 30);
        fail_unless_equals_uint64(min, upstream + ours);
        fail_unless(live);
        gst_harness_teardown(h);
    }
    /* The batch wait budget adds to it, with batching only. */
    for (const char* batching : {"true", "false"}) {
        GstHarness* h = harness_with({{"max-inflight", "2"}, {"batching", batching}, {"batch-wait", "5000000"}});
        gst_harness_set_upstream_latency(h, upstream);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48, 30, 1);
        GstClockTime max;
        gboolean live;
        const GstClockTime min = query_min_latency(h, &max, &live);
        const GstClockTime wait = std::string(batching) == "true" ? 5 * GST_MSECOND : 0;
        fail_unless_equals_uint64(min, upstream + gst_util_uint64_scale_int(GST_SECOND, 1, 30) + wait);
        gst_harness_teardown(h);
    }
    /* Unknown frame rate: no upper bound once frames are held. */
    GstHarness* h = harness_with({{"max-inflight", "3"}});
    gst_harness_set_upstream_latency(h, upstream);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48, 0, 1);
    GstClockTime max;
    gboolean live;
    const GstClockTime min = query_min_latency(h, &max, &live);
    fail_unless_equals_uint64(min, upstream);
    fail_unless(!GST_CLOCK_TIME_IS_VALID(max));
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* properties                                                                */

GST_START_TEST(test_property_defaults)
{
    GstElement* e = make_element({});
    gchar *classifier = nullptr, *label = nullptr, *device = nullptr;
    gdouble scale, iou, threshold;
    gint min_size, max_size, stride, mn, mi, lw, gs, s1u, s1d, s2u, s2d, s2r, s4;
    guint color;
    gboolean post;
    g_object_get(e, "classifier", &classifier, "label", &label, "device", &device, "scale-factor", &scale,
                 "nms-iou", &iou, "threshold", &threshold, "min-size", &min_size, "max-size", &max_size, "stride",
                 &stride, "min-neighbors", &mn, "max-inflight", &mi, "line-width", &lw, "group-size", &gs,
                 "step1-unsync", &s1u, "step1-divisor", &s1d, "step2-unsync", &s2u, "step2-divisor", &s2d,
                 "step2-repeats", &s2r, "step4-group-size", &s4, "color", &color, "post-messages", &post, nullptr);
    fail_unless_equals_string(classifier, "");
    fail_unless_equals_string(label, "");
    fail_unless_equals_string(device, "auto");
    fail_unless_equals_float(scale, 1.1);
    fail_unless_equals_float(iou, 0.3);
    fail_unless_equals_float(threshold, 0.0);
    fail_unless_equals_int(min_size, 0);
    fail_unless_equals_int(max_size, 0);
    fail_unless_equals_int(stride, 0);
    fail_unless_equals_int(mn, 3);
    fail_unless_equals_int(mi, 2);
    fail_unless_equals_int(lw, 2);
    fail_unless_equals_int(gs, 0);
    fail_unless_equals_int(s1u, -1);
    fail_unless_equals_int(s1d, -1);
    fail_unless_equals_int(s2u, -1);
    fail_unless_equals_int(s2d, -1);
    fail_unless_equals_int(s2r, -1);
    fail_unless_equals_int(s4, 0);
    fail_unless_equals_int(color, 0xff00ff00u);
    fail_unless(post);
    gint max_windows = -1, min_stddev = -1;
    g_object_get(e, "max-windows", &max_windows, "min-stddev", &min_stddev, nullptr);
    fail_unless_equals_int(max_windows, 100000);
    fail_unless_equals_int(min_stddev, 0);
    for (const char* name : {"eyes-profile", "nose-profile", "mouth-profile"}) {
        gchar* path = nullptr;
        g_object_get(e, name, &path, nullptr);
        fail_unless_equals_string(path, "");
        g_free(path);
    }
    g_free(classifier);
    g_free(label);
    g_free(device);

    /* Enums by nick. */
    GParamSpec* draw = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "draw");
    GParamSpec* grouping = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "grouping");
    fail_unless(G_IS_PARAM_SPEC_ENUM(draw) && G_IS_PARAM_SPEC_ENUM(grouping));
    GEnumClass* dk = G_PARAM_SPEC_ENUM(draw)->enum_class;
    GEnumClass* gk = G_PARAM_SPEC_ENUM(grouping)->enum_class;
    fail_unless_equals_string(g_enum_get_value(dk, G_PARAM_SPEC_ENUM(draw)->default_value)->value_nick, "auto");
    fail_unless_equals_string(g_enum_get_value(gk, G_PARAM_SPEC_ENUM(grouping)->default_value)->value_nick,
                              "opencv");
    for (const char* nick : {"auto", "meta", "burn", "none"})
        fail_unless(g_enum_get_value_by_nick(dk, nick) != nullptr, "draw has no \"%s\"", nick);
    for (const char* nick : {"opencv", "nms", "none"})
        fail_unless(g_enum_get_value_by_nick(gk, nick) != nullptr, "grouping has no \"%s\"", nick);
    /* updates: facedetect's modes with facedetect's numbers. */
    GParamSpec* updates = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "updates");
    fail_unless(G_IS_PARAM_SPEC_ENUM(updates));
    GEnumClass* uk = G_PARAM_SPEC_ENUM(updates)->enum_class;
    fail_unless_equals_int(G_PARAM_SPEC_ENUM(updates)->default_value, 0);
    const char* const update_nicks[] = {"every-frame", "on-change", "on-object", "none"};
    for (int v = 0; v < 4; ++v) {
        const GEnumValue* value = g_enum_get_value(uk, v);
        fail_unless(value != nullptr && std::strcmp(value->value_nick, update_nicks[v]) == 0,
                    "updates value %d should be \"%s\"", v, update_nicks[v]);
    }

    /* roi: empty; stats: zero frames. */
    GValue roi = G_VALUE_INIT;
    g_value_init(&roi, GST_TYPE_ARRAY);
    g_object_get_property(G_OBJECT(e), "roi", &roi);
    fail_unless_equals_int(gst_value_array_get_size(&roi), 0);
    g_value_unset(&roi);
    GstStructure* stats = nullptr;
    g_object_get(e, "stats", &stats, nullptr);
    fail_unless(stats != nullptr);
    guint64 frames = 99;
    fail_unless(gst_structure_get_uint64(stats, "frames", &frames));
    fail_unless_equals_uint64(frames, 0);
    gst_structure_free(stats);
    GParamSpec* sp = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "stats");
    fail_if(sp->flags & G_PARAM_WRITABLE, "stats must be read-only");
    gst_object_unref(e);
}
GST_END_TEST;

/* Ranges: the documented limits, and GObject refusing values outside them
 * (with a warning) so the value stays in range. */
GST_START_TEST(test_property_ranges)
{
    struct IntRange {
        const char* name;
        int min, max;
    };
    const IntRange ints[] = {{"min-size", 0, G_MAXINT},        {"max-size", 0, G_MAXINT},
                             {"stride", 0, 64},                {"min-neighbors", 0, 1000},
                             {"max-inflight", 1, 16},          {"line-width", 1, 32},
                             {"group-size", 0, 4096},          {"step1-unsync", -1, 65535},
                             {"step1-divisor", -1, 4096},      {"step2-unsync", -1, 65535},
                             {"step2-divisor", -1, 4096},      {"step2-repeats", -1, 16},
                             {"step4-group-size", 0, 4096},    {"max-windows", 0, G_MAXINT},
                             {"min-stddev", 0, 255}};
    GstElement* e = make_element({});
    for (const IntRange& r : ints) {
        GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), r.name);
        fail_unless(G_IS_PARAM_SPEC_INT(p), "%s is not an int property", r.name);
        fail_unless_equals_int(G_PARAM_SPEC_INT(p)->minimum, r.min);
        fail_unless_equals_int(G_PARAM_SPEC_INT(p)->maximum, r.max);
        fail_unless(p->flags & GST_PARAM_MUTABLE_PLAYING, "%s is not mutable in PLAYING", r.name);
        int before, after;
        g_object_get(e, r.name, &before, nullptr);
        ASSERT_WARNING(g_object_set(e, r.name, r.min - 1, nullptr));
        g_object_get(e, r.name, &after, nullptr);
        fail_unless(after == before, "%s: %d accepted below the minimum %d", r.name, after, r.min);
        if (r.max < G_MAXINT) {
            ASSERT_WARNING(g_object_set(e, r.name, r.max + 1, nullptr));
            g_object_get(e, r.name, &after, nullptr);
            fail_unless(after == before, "%s: %d accepted above the maximum", r.name, after);
        }
        g_object_set(e, r.name, r.max, nullptr);
        g_object_get(e, r.name, &after, nullptr);
        fail_unless_equals_int(after, r.max);
        g_object_set(e, r.name, before, nullptr);
    }
    struct DoubleRange {
        const char* name;
        double min, max;
    };
    const DoubleRange doubles[] = {{"scale-factor", 1.01, 10.0}, {"nms-iou", 0.0, 1.0}, {"threshold", -1000, 1000}};
    for (const DoubleRange& r : doubles) {
        GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), r.name);
        fail_unless(G_IS_PARAM_SPEC_DOUBLE(p));
        fail_unless_equals_float(G_PARAM_SPEC_DOUBLE(p)->minimum, r.min);
        fail_unless_equals_float(G_PARAM_SPEC_DOUBLE(p)->maximum, r.max);
        double before, after;
        g_object_get(e, r.name, &before, nullptr);
        ASSERT_WARNING(g_object_set(e, r.name, r.min - 0.5, nullptr));
        ASSERT_WARNING(g_object_set(e, r.name, r.max + 0.5, nullptr));
        g_object_get(e, r.name, &after, nullptr);
        fail_unless_equals_float(after, before);
    }
    /* scale-factor must stay above 1 (the pyramid needs it). */
    fail_unless(G_PARAM_SPEC_DOUBLE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "scale-factor"))->minimum >
                1.0);
    /* roi: only empty or four values with a positive size are taken. */
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<10, 20, 30, 40>");
    auto roi_values = [&]() {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, GST_TYPE_ARRAY);
        g_object_get_property(G_OBJECT(e), "roi", &v);
        std::vector<int> out;
        for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
            out.push_back(g_value_get_int(gst_value_array_get_value(&v, i)));
        g_value_unset(&v);
        return out;
    };
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}));
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<1, 2, 3>");
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}), "a 3-value roi was taken");
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<1, 2, 0, 5>");
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}), "a roi of width 0 was taken");
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<>");
    fail_unless(roi_values().empty(), "an empty roi was refused");
    /* device: empty means auto. */
    g_object_set(e, "device", "", nullptr);
    gchar* device;
    g_object_get(e, "device", &device, nullptr);
    fail_unless_equals_string(device, "auto");
    g_free(device);
    gst_object_unref(e);
}
GST_END_TEST;

/* The element's WARNING lines of the debug log. */
struct LogCapture {
    std::mutex lock;
    std::vector<std::string> lines;
};

static void capture_warnings(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint,
                             GObject*, GstDebugMessage* message, gpointer data)
{
    if (level != GST_LEVEL_WARNING || g_strcmp0(gst_debug_category_get_name(category), "waldboostdetect") != 0)
        return;
    auto* capture = static_cast<LogCapture*>(data);
    std::lock_guard<std::mutex> g(capture->lock);
    capture->lines.push_back(gst_debug_message_get(message));
}

/* A roi of another form is refused at set time, the previous value stays,
 * and the debug log says why; gst-inspect's blurb gives the form. */
GST_START_TEST(test_property_roi_refused)
{
    GstElement* e = make_element({});
    const gchar* blurb = g_param_spec_get_blurb(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "roi"));
    fail_unless(contains(blurb, "<x, y, width, height>") && contains(blurb, "refused") &&
                    contains(blurb, "previous value"),
                "the roi blurb does not give the form and what happens to others: %s", blurb);
    LogCapture capture;
    gst_debug_set_threshold_for_name("waldboostdetect", GST_LEVEL_WARNING);
    gst_debug_add_log_function(capture_warnings, &capture, nullptr);
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<10, 20, 30, 40>");
    struct Refused {
        const char* value;
        const char* why;
    };
    for (const Refused& r : {Refused{"<1, 2, 3>", "3 values"}, Refused{"<1, 2, 3, 4, 5>", "5 values"},
                             Refused{"<7>", "1 value"}, Refused{"<1, 2, 0, 5>", "at least 1"}}) {
        {
            std::lock_guard<std::mutex> g(capture.lock);
            capture.lines.clear();
        }
        gst_util_set_object_arg(G_OBJECT(e), "roi", r.value);
        GValue v = G_VALUE_INIT;
        g_value_init(&v, GST_TYPE_ARRAY);
        g_object_get_property(G_OBJECT(e), "roi", &v);
        std::vector<int> kept;
        for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
            kept.push_back(g_value_get_int(gst_value_array_get_value(&v, i)));
        g_value_unset(&v);
        fail_unless(kept == std::vector<int>({10, 20, 30, 40}), "roi=%s was taken", r.value);
        std::lock_guard<std::mutex> g(capture.lock);
        fail_unless(capture.lines.size() == 1, "roi=%s: %zu warnings in the log", r.value, capture.lines.size());
        fail_unless(contains(capture.lines[0], "refused") && contains(capture.lines[0], r.why) &&
                        contains(capture.lines[0], "previous value is kept"),
                    "roi=%s: the warning does not say why: %s", r.value, capture.lines[0].c_str());
    }
    gst_debug_remove_log_function(capture_warnings);
    gst_object_unref(e);
}
GST_END_TEST;

/* Runs one frame through a new element with `props` and compares its metas
 * with `want`. */
static void check_props(const Props& props, const GrayImage& img, const std::vector<Box>& want, const char* what,
                        GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8)
{
    Props all = props;
    all.emplace_back("draw", "none");
    GstHarness* h = harness_with(all);
    GstBus* bus = attach_bus(h);
    set_caps(h, format, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, format, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    const ErrorInfo err = pop_error(bus);
    fail_if(err.found, "%s: error %s", what, err.text().c_str());
    fail_unless_equals_int(out.size(), 1);
    CHECK_BOXES(out[0], want, what);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

GST_START_TEST(test_prop_classifier_files)
{
    const GrayImage& img = astronaut();
    /* A converted WaldBoost XML file from the build (non-square window). */
    const std::string profile = converted_classifier("lbpcascade_profileface");
    fail_unless(file_exists(profile), "%s is missing", profile.c_str());
    const Classifier pc = waldboost::load_classifier_file(profile);
    std::vector<Box> want = expected_boxes(core(img, params_mn(0), pc), pc.label);
    fail_unless(!want.empty() && pc.label == "profile-face");
    check_props({{"classifier", profile}, {"min-neighbors", "0"}}, img, want, "converted profile-face classifier");

    /* An OpenCV LBP cascade, read directly. */
    const std::string improved = opencv_cascade("lbpcascade_frontalface_improved");
    fail_unless(file_exists(improved), "%s is missing", improved.c_str());
    const Classifier ic = waldboost::load_classifier_file(improved);
    want = expected_boxes(core(img, DetectParams{}, ic), ic.label);
    fail_unless(!want.empty());
    fail_if(want == expected_boxes(core(img), ic.label), "the improved cascade should differ from the default");
    check_props({{"classifier", improved}}, img, want, "OpenCV lbpcascade_frontalface_improved.xml");

    /* The same default classifier as a file equals the embedded one. */
    const std::string frontal = opencv_cascade("lbpcascade_frontalface");
    const Classifier fc = waldboost::load_classifier_file(frontal);
    const std::vector<Box> from_file = expected_boxes(core(img, DetectParams{}, fc), fc.label);
    fail_unless(from_file == expected_boxes(core(img), fc.label));
    check_props({{"classifier", frontal}}, img, from_file, "OpenCV lbpcascade_frontalface.xml");
}
GST_END_TEST;

/* The same cascade gives the same label embedded and read from OpenCV's
 * file (before, "face" and "frontalface"): Debian's cascades carry their
 * converted copies' labels. */
GST_START_TEST(test_prop_classifier_file_labels)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> embedded = expected_boxes(core(img), "face");
    fail_unless(!embedded.empty());
    check_props({{"classifier", opencv_cascade("lbpcascade_frontalface")}}, img, embedded,
                "lbpcascade_frontalface.xml labels as the embedded classifier");
    const Classifier improved = waldboost::load_classifier_file(opencv_cascade("lbpcascade_frontalface_improved"));
    check_props({{"classifier", opencv_cascade("lbpcascade_frontalface_improved")}}, img,
                expected_boxes(core(img, DetectParams{}, improved), "face"),
                "lbpcascade_frontalface_improved.xml labels as its converted copy");
    const Classifier profile = waldboost::load_classifier_file(converted_classifier("lbpcascade_profileface"));
    check_props({{"classifier", opencv_cascade("lbpcascade_profileface")}, {"min-neighbors", "0"}}, img,
                expected_boxes(core(img, params_mn(0), profile), profile.label),
                "lbpcascade_profileface.xml labels as its converted copy");
    fail_unless_equals_string(profile.label.c_str(), "profile-face");
}
GST_END_TEST;

GST_START_TEST(test_prop_label_and_device)
{
    const GrayImage img = face_frame(1);
    const std::vector<Detection> d = core(img);
    fail_unless(!d.empty());
    check_props({{"label", "person"}}, img, expected_boxes(d, "person"), "label=person");
    check_props({{"label", ""}}, img, expected_boxes(d, "face"), "label empty");
    check_props({{"device", "cpu"}}, img, expected_boxes(d, "face"), "device=cpu");
}
GST_END_TEST;

/* Each detection parameter changes the metas exactly as the core with the
 * same DetectParams. */
GST_START_TEST(test_prop_detect_params)
{
    const GrayImage& img = astronaut();
    const Classifier& dc = waldboost::default_classifier();
    const Classifier pc = waldboost::load_classifier_file(converted_classifier("lbpcascade_profileface"));
    struct Case {
        Props props;
        DetectParams params;
        const Classifier* classifier;
        Props baseline_props; /* what it must differ from */
    };
    std::vector<Case> cases;
    auto add = [&](Props props, auto&& edit, const Classifier* c = nullptr) {
        Case cs;
        cs.props = std::move(props);
        edit(cs.params);
        cs.classifier = c ? c : &dc;
        cases.push_back(cs);
    };
    add({{"scale-factor", "1.25"}}, [](DetectParams& p) { p.scale_factor = 1.25; });
    add({{"scale-factor", "1.05"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.scale_factor = 1.05;
        p.min_neighbors = 0;
    });
    add({{"min-size", "110"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.min_size = size_for_width(dc, 110);
        p.min_neighbors = 0;
    });
    add({{"max-size", "60"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.max_size = size_for_width(dc, 60);
        p.min_neighbors = 0;
    });
    add({{"stride", "3"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.stride = 3;
        p.min_neighbors = 0;
    });
    add({{"stride", "1"}}, [](DetectParams& p) { p.stride = 1; });
    add({{"min-neighbors", "0"}}, [](DetectParams& p) { p.min_neighbors = 0; });
    add({{"min-neighbors", "20"}}, [](DetectParams& p) { p.min_neighbors = 20; });
    add({{"grouping", "nms"}}, [](DetectParams& p) { p.grouping = waldboost::Grouping::Nms; });
    add({{"grouping", "nms"}, {"nms-iou", "0.05"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.grouping = waldboost::Grouping::Nms;
        p.nms_iou = 0.05f;
        p.min_neighbors = 0;
    });
    add({{"grouping", "none"}}, [](DetectParams& p) { p.grouping = waldboost::Grouping::None; });
    add({{"threshold", "1.5"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.final_threshold = static_cast<float>(dc.final_threshold + 1.5);
        p.min_neighbors = 0;
    });
    add({{"threshold", "0.4"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.final_threshold = static_cast<float>(dc.final_threshold + 0.4);
        p.min_neighbors = 0;
    });
    /* min-size with a non-square window: the height follows 20x34. */
    const std::string profile = converted_classifier("lbpcascade_profileface");
    add({{"classifier", profile}, {"min-size", "50"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.min_size = size_for_width(pc, 50);
        p.min_neighbors = 0;
    }, &pc);
    fail_unless(size_for_width(pc, 50).height == 85);

    for (const Case& cs : cases) {
        std::string what;
        for (const auto& [k, v] : cs.props)
            what += k + "=" + (k == "classifier" ? "profileface" : v) + " ";
        const std::vector<Box> want = expected_boxes(core(img, cs.params, *cs.classifier), cs.classifier->label);
        /* The setting must matter, or the test would not see it ignored. */
        DetectParams base;
        base.min_neighbors = cs.params.min_neighbors != 3 && cs.props.size() > 1 ? cs.params.min_neighbors : 3;
        const std::vector<Box> baseline = expected_boxes(core(img, base, *cs.classifier), cs.classifier->label);
        fail_if(want == baseline, "%s: the core gives the same result as without it; pick another value",
                what.c_str());
        check_props(cs.props, img, want, what.c_str());
    }
}
GST_END_TEST;

static std::vector<Box> core_in_roi(const GrayImage& img, int x, int y, int w, int h)
{
    const int rx = std::clamp(x, 0, img.width), ry = std::clamp(y, 0, img.height);
    const int rw = std::clamp(w, 0, img.width - rx), rh = std::clamp(h, 0, img.height - ry);
    const Classifier& c = waldboost::default_classifier();
    if (rw < c.window_width || rh < c.window_height)
        return {};
    const GrayView view{img.pixels.data() + static_cast<size_t>(ry) * img.width + rx, rw, rh,
                        static_cast<size_t>(img.width)};
    return expected_boxes(core(view), "face", rx, ry);
}

GST_START_TEST(test_prop_roi)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> full = expected_boxes(core(img), "face");
    struct R {
        int x, y, w, h;
    };
    const R rois[] = {{100, 20, 250, 200}, {150, 40, 150, 150}, {0, 0, 512, 512},
                      {400, 300, 500, 500} /* clamped to the frame */, {0, 200, 512, 312} /* no face */,
                      {10, 10, 20, 20} /* smaller than the window */};
    bool some_differs = false;
    for (const R& r : rois) {
        const std::vector<Box> want = core_in_roi(img, r.x, r.y, r.w, r.h);
        some_differs |= want != full;
        char value[80];
        g_snprintf(value, sizeof value, "<%d, %d, %d, %d>", r.x, r.y, r.w, r.h);
        check_props({{"roi", value}}, img, want, (std::string("roi=") + value).c_str());
        for (const Box& b : want)
            fail_unless(b.x >= r.x && b.y >= r.y && b.x + b.w <= r.x + r.w && b.y + b.h <= r.y + r.h);
    }
    fail_unless(some_differs);
    /* The roi applies to the I420 luma plane the same way. */
    check_props({{"roi", "<100, 20, 250, 200>"}}, img, core_in_roi(img, 100, 20, 250, 200), "roi on I420",
                GST_VIDEO_FORMAT_I420);
}
GST_END_TEST;

/* The reduction parameters change how the device works, not the results. */
GST_START_TEST(test_prop_reduction)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    const std::vector<Box> want0 = expected_boxes(core(img, params_mn(0)), "face");
    const Props sets[] = {
        {{"group-size", "32"}, {"step1-unsync", "2"}, {"step1-divisor", "4"}, {"step2-unsync", "4"},
         {"step2-divisor", "2"}, {"step2-repeats", "1"}, {"step4-group-size", "8"}},
        {{"group-size", "8"}, {"step1-unsync", "0"}, {"step2-repeats", "0"}, {"step4-group-size", "4"}},
        /* The same through the reduction property, and mixed with an alias. */
        {{"reduction", "reduction, group-size=(int)32, step1-unsync=(int)2, step1-divisor=(int)4, "
                       "step2-unsync=(int)4, step2-divisor=(int)2, step2-repeats=(int)1, step4-group-size=(int)8"}},
        {{"reduction", "reduction, group-size=64, step1-unsync=0, step2-repeats=0"}, {"step4-group-size", "4"}},
    };
    for (const Props& s : sets) {
        check_props(s, img, want, "reduction overrides");
        Props s0 = s;
        s0.emplace_back("min-neighbors", "0");
        check_props(s0, img, want0, "reduction overrides, min-neighbors=0");
    }
}
GST_END_TEST;

/* Collects the waldboostdetect category's warnings in the debug log while
 * alive (the element reports refused settings there; GstCheck makes a
 * g_warning fatal, so a refusal must not use one). */
class DebugWarnings {
public:
    DebugWarnings()
    {
        GSList* all = gst_debug_get_all_categories();
        for (GSList* l = all; l; l = l->next)
            if (g_str_equal(gst_debug_category_get_name(static_cast<GstDebugCategory*>(l->data)), "waldboostdetect"))
                category_ = static_cast<GstDebugCategory*>(l->data);
        g_slist_free(all);
        fail_unless(category_ != nullptr, "no waldboostdetect debug category (create an element first)");
        before_ = gst_debug_category_get_threshold(category_);
        gst_debug_category_set_threshold(category_, std::max(before_, GST_LEVEL_WARNING));
        gst_debug_add_log_function(&DebugWarnings::log, this, nullptr);
    }
    ~DebugWarnings()
    {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_category_set_threshold(category_, before_);
    }
    /* The warnings since the last call, one per line. */
    std::string take()
    {
        std::lock_guard<std::mutex> guard(lock_);
        std::string text;
        text.swap(text_);
        return text;
    }

private:
    static void log(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint, GObject*,
                    GstDebugMessage* message, gpointer data)
    {
        auto* self = static_cast<DebugWarnings*>(data);
        if (category != self->category_ || level != GST_LEVEL_WARNING)
            return;
        std::lock_guard<std::mutex> guard(self->lock_);
        self->text_ += std::string(gst_debug_message_get(message)) + "\n";
    }
    GstDebugCategory* category_ = nullptr;
    GstDebugLevel before_ = GST_LEVEL_NONE;
    std::mutex lock_;
    std::string text_;
};

/* `reduction` as text ("" for NULL). */
static std::string reduction_text(GstElement* e)
{
    GstStructure* st = nullptr;
    g_object_get(e, "reduction", &st, nullptr);
    if (!st)
        return "";
    gchar* text = gst_structure_to_string(st);
    std::string out = text;
    g_free(text);
    gst_structure_free(st);
    return out;
}

#define CHECK_REDUCTION(e, want)                                                                        \
    do {                                                                                                \
        const std::string got_ = reduction_text(e);                                                     \
        fail_unless(got_ == (want), "reduction reads \"%s\", not \"%s\"", got_.c_str(),                 \
                    std::string(want).c_str());                                                         \
    } while (0)

/* The reduction property and the seven aliases read and write the same
 * setting; a field the table does not know, or a value out of its range, is
 * refused with a warning in the debug log and changes nothing. */
GST_START_TEST(test_prop_reduction_structure)
{
    GstElement* e = make_element({});
    DebugWarnings warnings;
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "reduction");
    fail_unless(spec && G_PARAM_SPEC_VALUE_TYPE(spec) == GST_TYPE_STRUCTURE, "reduction is not a GstStructure");
    fail_unless(spec->flags & GST_PARAM_MUTABLE_PLAYING, "reduction is not mutable in PLAYING");
    CHECK_REDUCTION(e, ""); /* NULL: nothing set */

    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction, group-size=(int)128, step2-unsync=(int)64");
    fail_unless_equals_int(int_property(e, "group-size"), 128);
    fail_unless_equals_int(int_property(e, "step2-unsync"), 64);
    fail_unless_equals_int(int_property(e, "step1-unsync"), -1);
    fail_unless_equals_int(int_property(e, "step1-divisor"), -1);
    fail_unless_equals_int(int_property(e, "step4-group-size"), 0);
    CHECK_REDUCTION(e, "reduction, group-size=(int)128, step2-unsync=(int)64;");

    /* Aliases write the same fields. */
    g_object_set(e, "step2-repeats", 2, "step1-unsync", 0, nullptr);
    CHECK_REDUCTION(e, "reduction, group-size=(int)128, step1-unsync=(int)0, step2-unsync=(int)64, "
                              "step2-repeats=(int)2;");
    g_object_set(e, "group-size", 0, "step1-unsync", -1, nullptr);
    CHECK_REDUCTION(e, "reduction, step2-unsync=(int)64, step2-repeats=(int)2;");
    /* 0 is "not set" for a divisor, as it was. */
    g_object_set(e, "step1-divisor", 0, nullptr);
    fail_unless_equals_int(int_property(e, "step1-divisor"), -1);
    CHECK_REDUCTION(e, "reduction, step2-unsync=(int)64, step2-repeats=(int)2;");
    fail_unless(warnings.take().empty());

    /* Refused: the previous setting stays, the debug log says why. */
    const std::string before = reduction_text(e);
    struct Bad {
        const char* text;
        const char* why;
    };
    const Bad bad[] = {
        {"reduction, group-sise=(int)128", "no field \"group-sise\""},
        {"reduction, group-size=(int)128, step2-repeats=(int)17", "step2-repeats"},
        {"reduction, step2-unsync=(int)-1", "step2-unsync"},
        {"reduction, group-size=(int)100", "power of two"},
        {"reduction, step4-group-size=(int)8192", "step4-group-size"},
        {"reduction, step1-divisor=(int)0", "step1-divisor"},
        {"reduction, group-size=(string)big", "group-size must be an int"},
    };
    for (const Bad& b : bad) {
        GstStructure* st = gst_structure_from_string(b.text, nullptr);
        fail_unless(st != nullptr, "%s does not parse", b.text);
        g_object_set(e, "reduction", st, nullptr);
        gst_structure_free(st);
        fail_unless(reduction_text(e) == before, "%s changed the setting to %s", b.text, reduction_text(e).c_str());
        const std::string log = warnings.take();
        fail_unless(contains(log, "refused") && contains(log, b.why), "%s: the debug log says \"%s\"", b.text,
                    log.c_str());
    }
    fail_unless_equals_int(int_property(e, "step2-repeats"), 2);

    /* Setting it replaces every field; an empty structure or NULL clears them. */
    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction, step4-group-size=(int)16");
    CHECK_REDUCTION(e, "reduction, step4-group-size=(int)16;");
    fail_unless_equals_int(int_property(e, "step2-repeats"), -1);
    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction");
    CHECK_REDUCTION(e, "");
    g_object_set(e, "step4-group-size", 16, nullptr);
    g_object_set(e, "reduction", nullptr, nullptr);
    fail_unless_equals_int(int_property(e, "step4-group-size"), 0);
    CHECK_REDUCTION(e, "");
    fail_unless(warnings.take().empty());
    gst_object_unref(e);
}
GST_END_TEST;

GST_START_TEST(test_prop_stats)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}, {"profiling", "true"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    const int N = 5;
    const gint64 started_us = g_get_monotonic_time();
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    const double wall_ms = static_cast<double>(g_get_monotonic_time() - started_us) * 1e-3;
    fail_unless_equals_int(out.size(), N);
    guint64 metas = 0;
    for (GstBuffer* b : out)
        metas += roi_boxes(b).size();
    GstStructure* st = nullptr;
    g_object_get(h->element, "stats", &st, nullptr);
    fail_unless(st && gst_structure_has_name(st, "waldboost-stats"));
    guint64 frames = 0, detections = 0, windows = 0, discarded = 99;
    double device_ms = -1, weak = -1;
    fail_unless(gst_structure_get_uint64(st, "frames", &frames));
    fail_unless(gst_structure_get_uint64(st, "detections", &detections));
    fail_unless(gst_structure_get_uint64(st, "windows", &windows));
    fail_unless(gst_structure_get_uint64(st, "discarded", &discarded));
    fail_unless(gst_structure_get_double(st, "device-ms", &device_ms));
    fail_unless(gst_structure_get_double(st, "weak-per-window", &weak));
    fail_unless_equals_uint64(frames, N);
    fail_unless_equals_uint64(detections, metas);
    fail_unless_equals_uint64(discarded, 0);
    fail_unless(windows > 0 && device_ms > 0 && weak >= 1.0, "windows %" G_GUINT64_FORMAT ", device-ms %f, weak %f",
                windows, device_ms, weak);
    /* The device's kernel time (all instances): some, while the engine runs. */
    double busy_ms = -1;
    fail_unless(gst_structure_get_double(st, "device-busy-ms", &busy_ms));
    fail_unless(busy_ms > 0, "device-busy-ms %f", busy_ms);
    /* Host (CPU) time: every frame's adds up (so more than the last one's),
     * and it is measured in the streaming thread and the worker, each at
     * most the whole run. */
    double host_ms = -1, host_total_ms = -1;
    fail_unless(gst_structure_get_double(st, "host-ms", &host_ms));
    fail_unless(gst_structure_get_double(st, "host-total-ms", &host_total_ms));
    fail_unless(host_ms > 0 && host_total_ms > host_ms && host_total_ms <= 2 * wall_ms,
                "host-ms %f, host-total-ms %f, run %f ms", host_ms, host_total_ms, wall_ms);
    /* The reduction reports its lists; the row scan (CPU devices) has none. */
    const GValue* cand = gst_structure_get_value(st, "candidates");
    const gchar* scan = gst_structure_get_string(st, "scan");
    fail_unless(scan && cand && GST_VALUE_HOLDS_ARRAY(cand));
    if (g_str_equal(scan, "reduction"))
        fail_unless(gst_value_array_get_size(cand) >= 2);
    else
        fail_unless(g_str_equal(scan, "rows") && gst_value_array_get_size(cand) == 0, "scan %s", scan);
    gst_structure_free(st);
    unref_all(out);
    gst_harness_teardown(h);

    /* Without profiling (the default): the same detections, no device time. */
    h = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    out = pull_all(h);
    fail_unless_equals_int(out.size(), N);
    for (int k = 0; k < N; ++k)
        CHECK_BOXES(out[k], expected_boxes(core(face_frame(k)), "face"), "profiling=false frame " + std::to_string(k));
    g_object_get(h->element, "stats", &st, nullptr);
    fail_unless(gst_structure_get_double(st, "device-ms", &device_ms));
    fail_unless(device_ms == 0, "device-ms %f without profiling", device_ms);
    gst_structure_free(st);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* drawing                                                                   */

static std::vector<Rect> composition_rects(GstBuffer* b, guint expected_color)
{
    std::vector<Rect> rects;
    GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(b);
    if (!meta)
        return rects;
    for (guint i = 0; i < gst_video_overlay_composition_n_rectangles(meta->overlay); ++i) {
        GstVideoOverlayRectangle* r = gst_video_overlay_composition_get_rectangle(meta->overlay, i);
        gint x, y;
        guint w, h;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(r, &x, &y, &w, &h));
        rects.push_back(Rect{x, y, static_cast<int>(w), static_cast<int>(h)});
        GstBuffer* pixels = gst_video_overlay_rectangle_get_pixels_unscaled_raw(r, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        fail_unless(map.size >= w * h * 4);
        guint32 word;
        std::memcpy(&word, map.data, 4);
        fail_unless(word == expected_color, "rectangle %u has colour 0x%08x, expected 0x%08x", i, word,
                    expected_color);
        gst_buffer_unmap(pixels, &map);
    }
    std::sort(rects.begin(), rects.end());
    return rects;
}

GST_START_TEST(test_draw_none)
{
    const GrayImage img = face_frame(0);
    for (GstVideoFormat f : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420}) {
        DrawRun r = run_draw({{"draw", "none"}}, img, f);
        fail_unless(!roi_boxes(r.out[0]).empty());
        fail_unless(bytes_of(r.out[0]) == r.sent[0].bytes, "draw=none changed pixels");
        fail_unless(gst_buffer_get_video_overlay_composition_meta(r.out[0]) == nullptr);
        unref_all(r.out);
    }
}
GST_END_TEST;

GST_START_TEST(test_draw_burn)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    for (GstVideoFormat f : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
                             GST_VIDEO_FORMAT_Y444}) {
        DrawRun r = run_draw({{"draw", "burn"}}, img, f);
        CHECK_BOXES(r.out[0], want, "burn");
        fail_unless(gst_buffer_get_video_overlay_composition_meta(r.out[0]) == nullptr);
        check_burn(r.sent[0], r.out[0], want, 2, gst_video_format_to_string(f));
        unref_all(r.out);
    }
}
GST_END_TEST;

GST_START_TEST(test_draw_meta)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img, params_mn(0)), "face");
    fail_unless(want.size() > 1);
    DrawRun r = run_draw({{"draw", "meta"}, {"min-neighbors", "0"}, {"line-width", "3"}, {"color", "0x80ff0000"}},
                         img, GST_VIDEO_FORMAT_I420);
    CHECK_BOXES(r.out[0], want, "meta");
    fail_unless(bytes_of(r.out[0]) == r.sent[0].bytes, "draw=meta changed pixels");
    const std::vector<Rect> rects = composition_rects(r.out[0], 0x80ff0000u);
    const std::vector<Rect> expected = outline_rects(want, img.width, img.height, 3);
    fail_unless_equals_int(rects.size(), 4 * want.size());
    fail_unless(rects == expected, "overlay rectangles differ from the box outlines");
    unref_all(r.out);
}
GST_END_TEST;

GST_START_TEST(test_draw_auto)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    /* Downstream (the harness) does not take the overlay meta: burn. */
    DrawRun burned = run_draw({}, img, GST_VIDEO_FORMAT_I420, false);
    fail_unless(gst_buffer_get_video_overlay_composition_meta(burned.out[0]) == nullptr,
                "draw=auto attached a meta downstream cannot take");
    check_burn(burned.sent[0], burned.out[0], want, 2, "auto without overlay meta support");
    unref_all(burned.out);
    /* It does: meta, pixels untouched. */
    DrawRun meta = run_draw({}, img, GST_VIDEO_FORMAT_I420, true);
    fail_unless(bytes_of(meta.out[0]) == meta.sent[0].bytes, "draw=auto burned although downstream takes the meta");
    const std::vector<Rect> rects = composition_rects(meta.out[0], 0xff00ff00u);
    fail_unless(rects == outline_rects(want, img.width, img.height, 2));
    unref_all(meta.out);
}
GST_END_TEST;

/* box-text: a tag above each box in the box's colour, with the text drawn
 * on it (not a flat fill); burned, it changes the pixels above the box and
 * nothing else that the boxes alone leave. label-colors overrides color. */
GST_START_TEST(test_draw_box_text)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless_equals_int(want.size(), 1);
    const Box& face = want[0];
    DrawRun r = run_draw({{"draw", "meta"}, {"box-text", "label+id+confidence"},
                          {"label-colors", "colors,face=(uint)0xff0000ff"}},
                         img, GST_VIDEO_FORMAT_I420);
    const std::vector<Rect> rects = composition_rects(r.out[0], 0xff0000ffu); /* label-colors, not color */
    fail_unless_equals_int(rects.size(), 5);
    const std::vector<Rect> bars = outline_rects(want, img.width, img.height, 2);
    std::vector<Rect> tags;
    for (const Rect& rect : rects)
        if (std::find(bars.begin(), bars.end(), rect) == bars.end())
            tags.push_back(rect);
    fail_unless_equals_int(tags.size(), 1);
    const Rect& tag = tags[0];
    fail_unless(tag.h >= 10 && tag.h <= 48 && tag.w > tag.h, "tag %dx%d", tag.w, tag.h);
    fail_unless(tag.x == face.x && (tag.y + tag.h == face.y || (face.y < tag.h && tag.y == face.y)),
                "the tag (%d,%d %dx%d) is not above the box (%d,%d)", tag.x, tag.y, tag.w, tag.h, face.x,
                face.y);
    /* The glyphs: some of the tag's pixels are not the fill. */
    GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(r.out[0]);
    int drawn = 0;
    for (guint i = 0; i < gst_video_overlay_composition_n_rectangles(meta->overlay); ++i) {
        GstVideoOverlayRectangle* rect = gst_video_overlay_composition_get_rectangle(meta->overlay, i);
        GstBuffer* pixels = gst_video_overlay_rectangle_get_pixels_unscaled_raw(rect, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        for (gsize k = 0; k + 4 <= map.size; k += 4) {
            guint32 word;
            std::memcpy(&word, map.data + k, 4);
            drawn += word != 0xff0000ffu;
        }
        gst_buffer_unmap(pixels, &map);
    }
    fail_unless(drawn > 20, "only %d pixels of text", drawn);
    unref_all(r.out);

    /* Burned: the same boxes as without text, and the tag's pixels above. */
    DrawRun plain = run_draw({{"draw", "burn"}}, img, GST_VIDEO_FORMAT_I420);
    DrawRun text = run_draw({{"draw", "burn"}, {"box-text", "label"}}, img, GST_VIDEO_FORMAT_I420);
    const std::vector<uint8_t> a = bytes_of(plain.out[0]), b = bytes_of(text.out[0]);
    fail_unless_equals_int(a.size(), b.size());
    int changed_above = 0, changed_elsewhere = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const size_t k = static_cast<size_t>(y) * img.width + x; /* the luma plane comes first */
            if (a[k] == b[k])
                continue;
            const bool above = y < face.y + 48 && y >= std::max(0, face.y - 48) && x >= face.x;
            (above ? changed_above : changed_elsewhere)++;
        }
    fail_unless(changed_above > 20 && changed_elsewhere == 0, "%d luma pixels changed near the box, %d elsewhere",
                changed_above, changed_elsewhere);
    unref_all(plain.out);
    unref_all(text.out);
}
GST_END_TEST;

/* draw=meta with nothing downstream that takes the overlay composition
 * meta: the boxes would not show anywhere, so an INFO message says so,
 * once; not when downstream takes the meta, nor with draw=burn. */
static int draw_info_messages(const Props& props, bool downstream_overlay_meta)
{
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    if (downstream_overlay_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    set_caps(h, GST_VIDEO_FORMAT_I420, 200, 160);
    for (int k = 0; k < 3; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_I420, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    unref_all(out);
    int infos = 0;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_INFO)) {
        GError* error = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_info(m, &error, &debug);
        /* gst-launch-1.0 prints the debug text of INFO messages. */
        fail_unless(contains(error->message, "draw=meta") && contains(error->message, "draw=burn") && debug &&
                        contains(debug, "draw=meta") && contains(debug, "draw=burn"),
                    "INFO message: %s | %s", error->message, debug ? debug : "");
        g_error_free(error);
        g_free(debug);
        gst_message_unref(m);
        ++infos;
    }
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    return infos;
}

GST_START_TEST(test_draw_meta_without_renderer)
{
    fail_unless_equals_int(draw_info_messages({{"draw", "meta"}}, false), 1);
    fail_unless_equals_int(draw_info_messages({{"draw", "meta"}}, true), 0);
    fail_unless_equals_int(draw_info_messages({{"draw", "burn"}}, false), 0);
    fail_unless_equals_int(draw_info_messages({}, false), 0);
    GstElement* e = make_element({});
    GEnumClass* draw = G_ENUM_CLASS(g_type_class_ref(G_PARAM_SPEC_VALUE_TYPE(
        g_object_class_find_property(G_OBJECT_GET_CLASS(e), "draw"))));
    const GEnumValue* meta = g_enum_get_value_by_nick(draw, "meta");
    fail_unless(meta && contains(meta->value_name, "only where an element renders"),
                "draw=meta's description does not say who shows the boxes: %s", meta ? meta->value_name : "");
    g_type_class_unref(draw);
    gst_object_unref(e);
}
GST_END_TEST;

GST_START_TEST(test_draw_color_and_line_width)
{
    const GrayImage img = face_frame(2);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    DrawRun white = run_draw({{"draw", "burn"}, {"color", "0xffffffff"}, {"line-width", "5"}}, img,
                             GST_VIDEO_FORMAT_GRAY8);
    const int vw = check_burn(white.sent[0], white.out[0], want, 5, "white, line-width 5");
    DrawRun black = run_draw({{"draw", "burn"}, {"color", "0xff000000"}, {"line-width", "1"}}, img,
                             GST_VIDEO_FORMAT_GRAY8);
    const int vb = check_burn(black.sent[0], black.out[0], want, 1, "black, line-width 1");
    fail_unless(vw >= 200 && vb <= 40, "white burns as %d, black as %d", vw, vb);
    /* Colour reaches chroma in I420: red and blue differ. */
    DrawRun red = run_draw({{"draw", "burn"}, {"color", "0xffff0000"}}, img, GST_VIDEO_FORMAT_I420);
    DrawRun blue = run_draw({{"draw", "burn"}, {"color", "0xff0000ff"}}, img, GST_VIDEO_FORMAT_I420);
    check_burn(red.sent[0], red.out[0], want, 2, "red");
    check_burn(blue.sent[0], blue.out[0], want, 2, "blue");
    const PlanePair vr = component(red.sent[0], red.out[0], 2), vbl = component(blue.sent[0], blue.out[0], 2);
    const Box& b = want[0];
    /* A chroma sample whose (even) luma row lies in the top bar. */
    const size_t i = static_cast<size_t>((b.y + 1) / 2) * vr.w + (b.x + b.w / 2) / 2;
    fail_unless(vr.after[i] > 200 && vbl.after[i] < 128, "V of red %d, of blue %d", vr.after[i], vbl.after[i]);
    for (DrawRun* r : {&white, &black, &red, &blue})
        unref_all(r->out);
}
GST_END_TEST;

/* A classifier that accepts every window: 585,373 windows on a 640x480
 * frame. They used to take minutes to group, and gigabytes to draw with
 * grouping=none (a buffer per box edge). Now a frame keeps the first
 * max-windows of them, draws them straight into the frame, and one warning
 * per stream says so. */
static std::string accept_all_classifier_file()
{
    Classifier c;
    c.label = "everything";
    c.window_width = 24;
    c.window_height = 24;
    c.final_threshold = 0.0f;
    waldboost::WeakClassifier w;
    w.feature = waldboost::LbpFeature{0, 0, 1, 1};
    std::get<waldboost::LbpFeature>(w.feature).responses.fill(1.0f);
    w.reject_threshold = waldboost::kNoRejection;
    c.weak.push_back(w);
    return temporary_classifier_file(c);
}

/* Pops every message of the bus: the max-windows warnings (counted, each
 * checked for what it must say) and the per-frame element messages'
 * windows-cut fields. */
static int count_max_windows_warnings(GstBus* bus, std::vector<guint64>* cuts = nullptr)
{
    int warnings = 0;
    while (GstMessage* m = gst_bus_pop(bus)) {
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            GError* error = nullptr;
            gchar* debug = nullptr;
            gst_message_parse_warning(m, &error, &debug);
            const std::string text = error->message;
            fail_unless(contains(text, "max-windows") && contains(text, "threshold") && contains(text, "min-size"),
                        "warning: %s", text.c_str());
            g_error_free(error);
            g_free(debug);
            ++warnings;
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "waldboostdetect") &&
                   cuts) {
            guint64 cut = 0;
            fail_unless(gst_structure_get_uint64(gst_message_get_structure(m), "windows-cut", &cut));
            cuts->push_back(cut);
        }
        gst_message_unref(m);
    }
    return warnings;
}

GST_START_TEST(test_draw_accept_all_classifier)
{
    const std::string path = accept_all_classifier_file();
    GrayImage img(640, 480);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            img.at(x, y) = static_cast<uint8_t>((x * 7 + y * 13) % 251);
    DetectParams params;
    params.grouping = waldboost::Grouping::None;
    params.max_windows = 0;
    const Classifier classifier = waldboost::load_classifier_file(path);
    waldboost::DetectStats all;
    waldboost::detect_raw(classifier, img.view(), params, &all);
    const guint64 accepted = all.accepted;
    fail_unless(accepted > static_cast<guint64>(waldboost::kDefaultMaxWindows), "only %" G_GUINT64_FORMAT " windows",
                accepted);

    /* draw=burn, grouping=none, the default cap: every frame leaves with
     * max-windows boxes burnt in, one warning for the three frames. */
    {
        GstHarness* h = harness_with({{"classifier", path}, {"draw", "burn"}, {"grouping", "none"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        std::vector<Sent> sent;
        for (int k = 0; k < 3; ++k)
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, k, &sent), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 3);
        params.max_windows = waldboost::kDefaultMaxWindows;
        const std::vector<Box> want = expected_boxes(waldboost::detect(classifier, img.view(), params), "everything");
        fail_unless_equals_int(want.size(), waldboost::kDefaultMaxWindows);
        const std::vector<Box> got = roi_boxes(out[2]);
        fail_unless(got == want, "the boxes are not the first max-windows windows (%zu boxes)", got.size());
        check_burn(sent[2], out[2], want, 2, "accept-all, burn");
        std::vector<guint64> cuts;
        fail_unless_equals_int(count_max_windows_warnings(bus, &cuts), 1);
        fail_unless_equals_int(cuts.size(), 3);
        for (guint64 cut : cuts)
            fail_unless_equals_uint64(cut, accepted - waldboost::kDefaultMaxWindows);
        GstStructure* stats = nullptr;
        g_object_get(h->element, "stats", &stats, nullptr);
        guint64 total_cut = 0;
        fail_unless(gst_structure_get_uint64(stats, "windows-cut", &total_cut));
        fail_unless_equals_uint64(total_cut, 3 * (accepted - waldboost::kDefaultMaxWindows));
        gst_structure_free(stats);
        unref_all(out);
        gst_element_set_bus(h->element, nullptr);
        gst_object_unref(bus);
        gst_harness_teardown(h);
    }

    /* draw=meta with a smaller cap: the boxes' outlines in one overlay
     * rectangle, not four per box; max-windows=0 keeps every window (and
     * warns about nothing). */
    {
        GstHarness* h = harness_with({{"classifier", path}, {"draw", "meta"}, {"grouping", "none"},
                                      {"max-windows", "500"}, {"color", "0xff0000ff"}, {"max-inflight", "1"}});
        GstBus* bus = attach_bus(h);
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        std::vector<Sent> sent;
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 0, &sent), GST_FLOW_OK);
        /* The worker pushes it when detection is done: wait for it. */
        std::vector<GstBuffer*> out{gst_harness_pull(h)};
        fail_unless(out[0] != nullptr);
        fail_unless(bytes_of(out[0]) == sent[0].bytes, "draw=meta changed pixels");
        const std::vector<Box> boxes = roi_boxes(out[0]);
        fail_unless_equals_int(boxes.size(), 500);
        GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(out[0]);
        fail_unless(meta != nullptr);
        fail_unless_equals_int(gst_video_overlay_composition_n_rectangles(meta->overlay), 1);
        GstVideoOverlayRectangle* r = gst_video_overlay_composition_get_rectangle(meta->overlay, 0);
        gint rx, ry;
        guint rw, rh;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(r, &rx, &ry, &rw, &rh));
        GstBuffer* pixels = gst_video_overlay_rectangle_get_pixels_unscaled_raw(r, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        fail_unless(map.size >= static_cast<gsize>(rw) * rh * 4);
        /* Painted exactly where the outlines are, in the colour. */
        const std::vector<bool> mask = outline_mask(outline_rects(boxes, img.width, img.height, 2), img.width,
                                                    img.height);
        for (int y = 0; y < img.height; ++y)
            for (int x = 0; x < img.width; ++x) {
                const bool inside =
                    x >= rx && y >= ry && x < rx + static_cast<int>(rw) && y < ry + static_cast<int>(rh);
                guint32 word = 0;
                if (inside)
                    std::memcpy(&word, map.data + (static_cast<gsize>(y - ry) * rw + (x - rx)) * 4, 4);
                const bool outline = mask[static_cast<size_t>(y) * img.width + x];
                fail_unless(word == (outline ? 0xff0000ffu : 0u), "overlay pixel (%d,%d) is 0x%08x, outline %d", x,
                            y, word, outline);
            }
        gst_buffer_unmap(pixels, &map);
        fail_unless_equals_int(count_max_windows_warnings(bus), 1);
        unref_all(out);

        g_object_set(h->element, "max-windows", 0, nullptr);
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 1), GST_FLOW_OK);
        push_eos(h);
        out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        fail_unless_equals_uint64(roi_boxes(out[0]).size(), accepted);
        fail_unless_equals_int(count_max_windows_warnings(bus), 0);
        unref_all(out);
        gst_element_set_bus(h->element, nullptr);
        gst_object_unref(bus);
        gst_harness_teardown(h);
    }
    g_unlink(path.c_str());
}
GST_END_TEST;

/* ======================================================================== */
/* live changes                                                             */

GST_START_TEST(test_live_min_neighbors)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    const GrayImage img = face_frame(0);
    const int values[] = {3, 0, 10, 0, 3};
    std::vector<std::vector<Box>> want;
    for (int k = 0; k < 5; ++k) {
        g_object_set(h->element, "min-neighbors", values[k], nullptr);
        want.push_back(expected_boxes(core(img, params_mn(values[k])), "face"));
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    fail_if(want[0] == want[1]);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 5);
    for (int k = 0; k < 5; ++k)
        CHECK_BOXES(out[k], want[k], "min-neighbors=" + std::to_string(values[k]) + " set before frame " +
                                         std::to_string(k));
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* Properties that decide the output (label, draw, post-messages) apply to
 * the frames pushed after the change, like the detection parameters. */
GST_START_TEST(test_live_output_properties_at_frame_boundary)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    std::vector<Sent> sent;
    fail_unless_equals_int(push_frame(h, face_frame(0), GST_VIDEO_FORMAT_GRAY8, 0, &sent), GST_FLOW_OK);
    g_object_set(h->element, "label", "changed", "post-messages", FALSE, nullptr);
    gst_util_set_object_arg(G_OBJECT(h->element), "draw", "burn");
    fail_unless_equals_int(push_frame(h, face_frame(1), GST_VIDEO_FORMAT_GRAY8, 1, &sent), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 2);
    const std::vector<Box> first = roi_boxes(out[0]);
    const std::vector<Box> second = roi_boxes(out[1]);
    fail_unless(!first.empty() && !second.empty());
    std::vector<std::string> problems;
    if (first[0].label != "face")
        problems.push_back("frame 0, pushed before label=changed, is labelled \"" + first[0].label + "\"");
    if (second[0].label != "changed")
        problems.push_back("frame 1 is labelled \"" + second[0].label + "\"");
    if (bytes_of(out[0]) != sent[0].bytes)
        problems.push_back("frame 0, pushed with draw=none, was drawn on");
    if (bytes_of(out[1]) == sent[1].bytes)
        problems.push_back("frame 1, pushed with draw=burn, was not drawn on");
    std::vector<GstMessage*> messages = pop_element_messages(bus);
    if (messages.size() != 1)
        problems.push_back("frame 0 was pushed with post-messages=true and frame 1 with false, but " +
                           std::to_string(messages.size()) + " messages were posted");
    for (GstMessage* m : messages)
        gst_message_unref(m);
    std::string report;
    for (const std::string& p : problems)
        report += p + "; ";
    fail_unless(problems.empty(), "%s", report.c_str());
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A new classifier while frames are in flight: nothing lost or reordered,
 * each frame detected with the classifier it was pushed under. */
GST_START_TEST(test_live_classifier_change)
{
    const std::string profile = converted_classifier("lbpcascade_profileface");
    const Classifier pc = waldboost::load_classifier_file(profile);
    Recorder rec;
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}, {"min-neighbors", "0"}});
    GstBus* bus = attach_bus(h);
    record(h, &rec);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    std::vector<std::vector<Box>> want;
    for (int k = 0; k < 3; ++k) {
        want.push_back(expected_boxes(core(face_frame(k), params_mn(0)), "face"));
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    g_object_set(h->element, "classifier", profile.c_str(), nullptr);
    for (int k = 3; k < 6; ++k) {
        want.push_back(expected_boxes(core(face_frame(k), params_mn(0), pc), "profile-face"));
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    g_object_set(h->element, "classifier", "", nullptr);
    want.push_back(expected_boxes(core(face_frame(6), params_mn(0)), "face"));
    fail_unless_equals_int(push_frame(h, face_frame(6), GST_VIDEO_FORMAT_GRAY8, 6), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstClockTime> expected_pts;
    for (int k = 0; k < 7; ++k)
        expected_pts.push_back(pts_of(k));
    const std::vector<GstClockTime> got = buffer_pts(rec.snapshot());
    fail_unless(got == expected_pts, "frames left as %s", describe_pts(got).c_str());
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 7);
    for (int k = 0; k < 7; ++k)
        CHECK_BOXES(out[k], want[k], "frame " + std::to_string(k) + " across classifier changes");
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* Changing the reduction while playing, through the property or an alias,
 * builds a new engine at the next frame (as the seven separate properties
 * did); the detections stay those of the core. */
GST_START_TEST(test_live_reduction_change)
{
    GstHarness* h =
        harness_with({{"draw", "none"}, {"max-inflight", "1"}, {"reduction", "reduction, step2-repeats=1"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    /* Step-2 launches of the last frame: the candidate lists less one. */
    auto step2_launches = [&]() {
        GstStructure* st = nullptr;
        g_object_get(h->element, "stats", &st, nullptr);
        fail_unless(st && g_str_equal(gst_structure_get_string(st, "scan"), "reduction"));
        const int n = static_cast<int>(gst_value_array_get_size(gst_structure_get_value(st, "candidates")));
        gst_structure_free(st);
        return n - 1;
    };
    std::vector<std::vector<Box>> want;
    std::vector<GstBuffer*> out;
    auto push = [&]() {
        const int k = static_cast<int>(want.size());
        want.push_back(expected_boxes(core(face_frame(k)), "face"));
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        /* The statistics are the frame's once it is out. */
        out.push_back(gst_harness_pull(h));
    };
    push();
    fail_unless_equals_int(step2_launches(), 1);
    g_object_set(h->element, "step2-repeats", 2, nullptr);
    push();
    fail_unless_equals_int(step2_launches(), 2);
    gst_util_set_object_arg(G_OBJECT(h->element), "reduction", "reduction, group-size=(int)32, step2-repeats=(int)0");
    push();
    fail_unless_equals_int(step2_launches(), 0);
    fail_unless_equals_int(int_property(h->element, "group-size"), 32);
    push_eos(h);
    fail_unless(pull_all(h).empty());
    fail_unless_equals_int(out.size(), want.size());
    for (size_t k = 0; k < out.size(); ++k)
        CHECK_BOXES(out[k], want[k], "frame " + std::to_string(k) + " across reduction changes");
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

struct Toggler {
    GstElement* element;
    std::atomic<int> done{0};
};

static gpointer toggle_thread(gpointer data)
{
    auto* t = static_cast<Toggler*>(data);
    for (int i = 0; i < 200; ++i) {
        g_object_set(t->element, "min-neighbors", (i & 1) ? 0 : 3, nullptr);
        g_object_set(t->element, "threshold", (i & 2) ? 0.5 : 0.0, nullptr);
        gst_util_set_object_arg(G_OBJECT(t->element), "draw", (i & 4) ? "burn" : "none");
        GstStructure* st = nullptr;
        g_object_get(t->element, "stats", &st, nullptr);
        gst_structure_free(st);
        g_usleep(500);
    }
    t->done = 1;
    return nullptr;
}

GST_START_TEST(test_live_property_thread)
{
    std::vector<GrayImage> frames;
    std::vector<std::vector<std::vector<Box>>> allowed; /* per frame: every combination */
    const Classifier& dc = waldboost::default_classifier();
    for (int k = 0; k < 3; ++k) {
        frames.push_back(crop(astronaut(), 140 + 2 * k, 35 + k, 160, 140));
        std::vector<std::vector<Box>> options;
        for (int mn : {0, 3})
            for (double t : {0.0, 0.5}) {
                DetectParams p = params_mn(mn);
                if (t != 0.0)
                    p.final_threshold = static_cast<float>(dc.final_threshold + t);
                options.push_back(expected_boxes(core(frames.back(), p), "face"));
            }
        allowed.push_back(options);
    }
    GstHarness* h = harness_with({{"max-inflight", "3"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 160, 140);
    Toggler t{h->element};
    GThread* thread = g_thread_new("toggler", toggle_thread, &t);
    const int N = 50;
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, frames[k % 3], GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    g_thread_join(thread);
    fail_unless(t.done == 1);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), N);
    for (int k = 0; k < N; ++k) {
        fail_unless_equals_int(frame_index(out[k]), k);
        const std::vector<Box> got = roi_boxes(out[k]);
        const auto& options = allowed[k % 3];
        fail_unless(std::find(options.begin(), options.end(), got) != options.end(),
                    "frame %d: %s matches no combination of the toggled settings", k, describe(got).c_str());
    }
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* errors                                                                    */

GST_START_TEST(test_error_missing_classifier)
{
    const std::string path = "/nonexistent/waldboost-test/no-such-classifier.xml";
    const ErrorInfo err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR, "domain %s", g_quark_to_string(err.domain));
    fail_unless(contains(err.message, path), "the message does not name the file: %s", err.text().c_str());
}
GST_END_TEST;

/* The classifier path went into the error verbatim: a newline forged a
 * second line in logs, ESC [31m coloured the terminal, a 3 KB path made a
 * 3 KB message. */
GST_START_TEST(test_error_classifier_path_escaped)
{
    const std::string long_path = "/nonexistent/" + std::string(3000, 'p') + ".xml";
    for (const std::string& path : {std::string("a\nb\x1b[31m.xml"), std::string("/tmp/\xc2\x9b\xe2\x80\xae.xml"),
                                    long_path}) {
        const ErrorInfo err = start_failure({{"classifier", path}});
        g_print("%s\n", err.message.c_str());
        fail_unless(err.domain == GST_RESOURCE_ERROR, "domain %s", g_quark_to_string(err.domain));
        /* The debug string is GStreamer's "file(line): function (): element:\n"
         * and then the core's message. */
        const size_t newline = err.debug.find('\n');
        const std::string detail = newline == std::string::npos ? err.debug : err.debug.substr(newline + 1);
        for (const std::string* text : {&err.message, &detail}) {
            for (size_t i = 0; i < text->size(); ++i) {
                const unsigned char c = static_cast<unsigned char>((*text)[i]);
                fail_unless(c >= 0x20 && c != 0x7f, "a raw control character (0x%02x) in: %s", c, text->c_str());
                fail_unless(!(c == 0xc2 && i + 1 < text->size() && static_cast<unsigned char>((*text)[i + 1]) <= 0x9f),
                            "a raw C1 control in: %s", text->c_str());
                fail_unless(!(c == 0xe2 && text->compare(i, 3, "\xe2\x80\xae") == 0), "a raw U+202E in: %s",
                            text->c_str());
            }
            fail_unless(text->size() < 1024, "a message of %zu bytes", text->size());
        }
    }
    const ErrorInfo err = start_failure({{"classifier", "a\nb\x1b[31m.xml"}});
    fail_unless(contains(err.message, "a\\x0ab\\x1b[31m.xml"), "the path is not shown escaped: %s",
                err.message.c_str());
}
GST_END_TEST;

GST_START_TEST(test_error_malformed_classifier)
{
    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-bad-XXXXXX.xml", &path, nullptr);
    fail_unless(fd >= 0);
    close(fd);
    const char* bad =
        "<?xml version=\"1.0\"?>\n<WaldBoostClassifier classifierName=\"x\" imageSizeX=\"24\" imageSizeY=\"24\" "
        "type=\"LBP\">\n  <stage negT=\"-1\">\n    <HistogramWeakHypothesis predictionValues=\"1 2 3\">\n";
    fail_unless(g_file_set_contents(path, bad, -1, nullptr));
    const ErrorInfo err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR);
    fail_unless(contains(err.message, path), "the message does not name the file: %s", err.text().c_str());
    fail_unless(!err.debug.empty(), "no detail on what is wrong");
    g_unlink(path);
    g_free(path);
}
GST_END_TEST;

/* OpenCV's Haar cascades run in the element as in the core's reference
 * (itself identical to OpenCV, test_opencv_agreement.cpp): facedetect's
 * default cascade, and one with trees and tilted features. */
GST_START_TEST(test_prop_haar_cascades)
{
    const GrayImage& img = astronaut();
    for (const char* stem : {"haarcascade_frontalface_default", "haarcascade_eye_tree_eyeglasses"}) {
        const std::string haar = haar_cascade(stem);
        fail_unless(file_exists(haar), "%s is missing (Debian's opencv-data)", haar.c_str());
        const Classifier hc = waldboost::load_classifier_file(haar);
        const std::vector<Box> want = expected_boxes(core(img, DetectParams{}, hc), hc.label);
        fail_unless(!want.empty(), "%s finds nothing in the astronaut photo", stem);
        check_props({{"classifier", haar}}, img, want, stem);
    }
}
GST_END_TEST;

GST_START_TEST(test_error_no_such_device)
{
    const ErrorInfo err = start_failure({{"device", "no-such-device"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, "no-such-device"), "the message does not name the device: %s",
                err.text().c_str());
}
GST_END_TEST;

GST_START_TEST(test_error_bad_reduction)
{
    const ErrorInfo err = start_failure({{"group-size", "48"}});
    fail_unless(contains(err.text(), "group size"), "the error does not name the parameter: %s", err.text().c_str());
}
GST_END_TEST;

/* The GError code follows the kind of the core's error, and the main
 * message (what a user sees) carries the core's reason, not only the debug
 * text. */
GST_START_TEST(test_error_kinds_of_classifier_errors)
{
    const std::string missing = "/nonexistent/waldboost-test/no-such-classifier.xml";
    ErrorInfo err = start_failure({{"classifier", missing}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, missing) && contains(err.message, "cannot open"), "no reason: %s",
                err.text().c_str());

    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-bad-XXXXXX.xml", &path, nullptr);
    fail_unless(fd >= 0);
    close(fd);
    fail_unless(g_file_set_contents(path, "<?xml version=\"1.0\"?>\n<WaldBoostClassifier imageSizeX=\"24\"", -1,
                                    nullptr));
    err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_OPEN_READ, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, path) && contains(err.message, "not well-formed XML"), "no reason: %s",
                err.text().c_str());
    g_unlink(path);
    g_free(path);

    /* A valid classifier the engine cannot run (responses beyond its fixed
     * point): the setting must change (RESOURCE SETTINGS), and the message
     * says why. */
    Classifier huge;
    huge.label = "huge";
    huge.window_width = huge.window_height = 24;
    waldboost::WeakClassifier w;
    w.feature = waldboost::LbpFeature{0, 0, 1, 1};
    std::get<waldboost::LbpFeature>(w.feature).responses.fill(5e6f);
    huge.weak.push_back(w);
    const std::string huge_path = temporary_classifier_file(huge);
    err = start_failure({{"classifier", huge_path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_SETTINGS, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, huge_path) && contains(err.message, "too large for the OpenCL engine"),
                "the main message does not say why the engine refuses it: %s", err.text().c_str());
    g_unlink(huge_path.c_str());
}
GST_END_TEST;

GST_START_TEST(test_error_kinds_of_device_and_settings_errors)
{
    ErrorInfo err = start_failure({{"device", "no-such-device"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    /* The core's reason (what there is) and the install hint. */
    fail_unless(contains(err.message, "no OpenCL device") && contains(err.message, "Install an OpenCL driver"),
                "no reason or hint: %s", err.text().c_str());

    err = start_failure({{"group-size", "48"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_SETTINGS, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, "group size"), "the main message does not name the parameter: %s",
                err.text().c_str());
}
GST_END_TEST;

static void check_fault(const char* mode)
{
    std::string output;
    const int status = run_fault_helper(mode, mode, &output);
    fail_unless(status == 0, "WALDBOOST_CL_FAULT=%s: the helper failed (status %d):\n%s", mode, status,
                output.c_str());
}

GST_START_TEST(test_error_kernel_build_fault) { check_fault("program-build"); }
GST_END_TEST;

GST_START_TEST(test_error_out_of_memory_fault) { check_fault("buffer-create"); }
GST_END_TEST;

GST_START_TEST(test_error_enqueue_fault) { check_fault("enqueue"); }
GST_END_TEST;

GST_START_TEST(test_error_map_fault) { check_fault("map"); }
GST_END_TEST;

GST_START_TEST(test_error_wait_fault) { check_fault("wait"); }
GST_END_TEST;

GST_START_TEST(test_error_buffer_before_caps)
{
    GstHarness* h = harness_with();
    GstBus* bus = attach_bus(h);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    const GstFlowReturn flow = gst_harness_push(h, make_frame(synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 0));
    fail_unless_equals_int(flow, GST_FLOW_NOT_NEGOTIATED);
    fail_unless(gst_harness_try_pull(h) == nullptr);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A buffer smaller than its caps: it passes without detections, with a
 * warning, in order. */
GST_START_TEST(test_error_short_buffer)
{
    GstHarness* h = harness_with({{"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    GstBuffer* small = gst_buffer_new_allocate(nullptr, 100, nullptr);
    gst_buffer_memset(small, 0, 7, 100);
    GST_BUFFER_PTS(small) = pts_of(1);
    fail_unless_equals_int(gst_harness_push(h, small), GST_FLOW_OK);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 2), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    for (int k = 0; k < 3; ++k)
        fail_unless_equals_int(frame_index(out[k]), k);
    fail_unless_equals_int(gst_buffer_get_size(out[1]), 100);
    const ErrorInfo warning = pop_message(bus, GST_MESSAGE_WARNING);
    fail_unless(warning.found, "no warning for the short buffer");
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A buffer whose GstVideoMeta claims planes larger than the buffer holds
 * (a buggy or hostile upstream): 4K caps and meta on a small buffer, a huge
 * stride, a plane offset near or past the end. The frame must pass
 * unchanged, without detections or drawing, with a warning, and nothing
 * may read or write past the buffer (before the fix the engine's copy read
 * past it and draw=burn wrote past it). */
struct BogusMeta {
    const char* what;
    GstVideoFormat format;
    int caps_w, caps_h;     /* the caps and the meta's size */
    gsize bytes;            /* what the buffer really holds */
    guint plane;            /* the plane whose layout is changed */
    gsize offset = G_MAXSIZE; /* unless G_MAXSIZE: that plane's offset */
    gint stride = 0;        /* unless 0: that plane's stride */
    int meta_w = 0, meta_h = 0; /* unless 0: the meta's size (else the caps') */
    GstVideoFormat meta_format = GST_VIDEO_FORMAT_UNKNOWN; /* unless UNKNOWN: the meta's format */
};

static void push_bogus_meta(const BogusMeta& c, const char* draw)
{
    GstHarness* h = harness_with({{"draw", draw}, {"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, c.format, c.caps_w, c.caps_h);
    const GstVideoFormat meta_format = c.meta_format != GST_VIDEO_FORMAT_UNKNOWN ? c.meta_format : c.format;
    const int meta_w = c.meta_w ? c.meta_w : c.caps_w, meta_h = c.meta_h ? c.meta_h : c.caps_h;
    GstVideoInfo info;
    gst_video_info_set_format(&info, meta_format, meta_w, meta_h);
    gsize offsets[GST_VIDEO_MAX_PLANES];
    gint strides[GST_VIDEO_MAX_PLANES];
    for (guint i = 0; i < GST_VIDEO_MAX_PLANES; ++i) {
        offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
        strides[i] = GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    }
    if (c.offset != G_MAXSIZE)
        offsets[c.plane] = c.offset;
    if (c.stride != 0)
        strides[c.plane] = c.stride;
    GstBuffer* b = gst_buffer_new_allocate(nullptr, c.bytes, nullptr);
    {
        GstMapInfo map;
        gst_buffer_map(b, &map, GST_MAP_WRITE);
        for (gsize i = 0; i < map.size; ++i)
            map.data[i] = static_cast<guint8>((i * 37 + 11) & 0xff);
        gst_buffer_unmap(b, &map);
    }
    gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, meta_format, meta_w, meta_h,
                                   GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
    GST_BUFFER_PTS(b) = pts_of(0);
    const std::vector<uint8_t> before = bytes_of(b);
    /* Three such frames: one warning, not three. */
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    for (int k = 1; k < 3; ++k) {
        GstBuffer* again = gst_buffer_copy_deep(b);
        GST_BUFFER_PTS(again) = pts_of(k);
        fail_unless_equals_int(gst_harness_push(h, again), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    for (int k = 0; k < 3; ++k) {
        fail_unless_equals_int(frame_index(out[k]), k);
        fail_unless(bytes_of(out[k]) == before, "%s, %s, draw=%s: the frame changed", c.what,
                    gst_video_format_to_string(c.format), draw);
        fail_unless(roi_boxes(out[k]).empty(), "%s: detections on an unreadable frame", c.what);
        fail_unless(gst_buffer_get_video_overlay_composition_meta(out[k]) == nullptr);
    }
    const BusLog log = drain_bus(bus);
    fail_unless_equals_int(log.errors.size(), 0);
    fail_unless(log.warnings.size() == 1, "%s, %s, draw=%s: %zu warnings, expected 1", c.what,
                gst_video_format_to_string(c.format), draw, log.warnings.size());
    fail_unless(log.warnings[0].domain == GST_STREAM_ERROR && log.warnings[0].code == GST_STREAM_ERROR_FORMAT &&
                    contains(log.warnings[0].message, "could not be read"),
                "%s: warning %s", c.what, log.warnings[0].text().c_str());
    g_print("%s, %s, draw=%s: %s\n", c.what, gst_video_format_to_string(c.format), draw,
            log.warnings[0].text().c_str());
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

GST_START_TEST(test_error_meta_beyond_buffer)
{
    GstVideoInfo i420;
    gst_video_info_set_format(&i420, GST_VIDEO_FORMAT_I420, 64, 48);
    const gsize i420_size = GST_VIDEO_INFO_SIZE(&i420);
    const BogusMeta cases[] = {
        {"4K caps and meta on a 64x48 buffer", GST_VIDEO_FORMAT_GRAY8, 3840, 2160, 64 * 48, 0},
        {"a stride of 1 MiB", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 1 << 20},
        {"the plane starting 64 bytes before the end", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, 64 * 47},
        {"the plane starting past the end", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, 1 << 30},
        {"a negative stride", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, -64},
        {"4K caps and meta on a 64x48 buffer", GST_VIDEO_FORMAT_I420, 3840, 2160, i420_size, 0},
        {"a U stride of 1 MiB", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 1, G_MAXSIZE, 1 << 20},
        {"the V plane starting 10 bytes before the end", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 2,
         i420_size - 10},
        {"the luma plane overlapping the end", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, i420_size - 64 * 40},
        {"a 4K meta on 64x48 caps", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 0, 3840, 2160},
        {"a 4K meta on 64x48 caps", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, G_MAXSIZE, 0, 3840, 2160},
        {"a meta smaller than the caps", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 0, 32, 24},
        {"a GRAY8 meta on I420 caps", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, G_MAXSIZE, 0, 0, 0,
         GST_VIDEO_FORMAT_GRAY8},
    };
    for (const BogusMeta& c : cases)
        for (const char* draw : {"burn", "meta"})
            push_bogus_meta(c, draw);
}
GST_END_TEST;

/* A classifier that cannot be loaded while PLAYING: a flow error and an
 * error message; restoring a good classifier must work again (or at least
 * fail cleanly), never crash. */
GST_START_TEST(test_error_classifier_while_playing)
{
    const std::string path = "/nonexistent/waldboost-test/live.xml";
    GstHarness* h = harness_with({{"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48, 0), GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    g_object_set(h->element, "classifier", path.c_str(), nullptr);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48, 1), GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_ERROR);
    const ErrorInfo err = pop_error(bus);
    fail_unless(err.found && contains(err.message, path), "error: %s", err.text().c_str());
    /* Back to the embedded classifier: streaming resumes (or fails cleanly). */
    g_object_set(h->element, "classifier", "", nullptr);
    const GstFlowReturn flow = push_frame(h, synthetic(64, 48, 2), GST_VIDEO_FORMAT_GRAY8, 2);
    fail_unless_equals_int(flow, GST_FLOW_OK);
    push_eos(h);
    /* The frame that was in flight before the change is not lost either. */
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 2);
    fail_unless_equals_int(frame_index(out[0]), 0);
    fail_unless_equals_int(frame_index(out[1]), 2);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* streams (what cameras and demuxers send)                                 */

/* Buffers without PTS, DTS or duration: all leave in order with their own
 * detections, and the messages say "no timestamp" (GST_CLOCK_TIME_NONE). */
GST_START_TEST(test_streams_missing_timestamps)
{
    constexpr int kFrames = 6;
    GstHarness* h = harness_with({{"max-inflight", "3"}, {"draw", "none"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_I420, 200, 160);
    std::vector<Sent> sent;
    for (int k = 0; k < kFrames; ++k) {
        Sent one;
        GstBuffer* b = make_frame(face_frame(k), GST_VIDEO_FORMAT_I420, GST_CLOCK_TIME_NONE, 0, &one);
        GST_BUFFER_DTS(b) = GST_CLOCK_TIME_NONE;
        GST_BUFFER_DURATION(b) = GST_CLOCK_TIME_NONE;
        sent.push_back(std::move(one));
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), kFrames);
    for (int k = 0; k < kFrames; ++k) {
        fail_unless(!GST_BUFFER_PTS_IS_VALID(out[k]));
        /* The bytes say which frame it is: order kept without timestamps. */
        fail_unless(bytes_of(out[k]) == sent[k].bytes, "frame %d is not the %d-th frame pushed", k, k);
        CHECK_BOXES(out[k], expected_boxes(core(face_frame(k)), "face"), "frame " + std::to_string(k));
    }
    std::vector<GstMessage*> messages = pop_element_messages(bus);
    fail_unless_equals_int(messages.size(), kFrames);
    for (int k = 0; k < kFrames; ++k) {
        const GstStructure* st = gst_message_get_structure(messages[k]);
        guint64 frame = 99, ts = 0, running = 0;
        gst_structure_get_uint64(st, "frame", &frame);
        gst_structure_get_uint64(st, "timestamp", &ts);
        gst_structure_get_uint64(st, "running-time", &running);
        fail_unless_equals_uint64(frame, static_cast<guint64>(k));
        fail_unless(ts == GST_CLOCK_TIME_NONE && running == GST_CLOCK_TIME_NONE);
        gst_message_unref(messages[k]);
    }
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* GAP events between frames with frames in flight: the frames before a gap
 * leave before it, the ones after it after it, each with its detections. */
GST_START_TEST(test_streams_gap_events)
{
    Recorder rec;
    GstHarness* h = harness_with({{"max-inflight", "3"}, {"draw", "none"}});
    record(h, &rec);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    /* frames 0 1, gap over 2 3, frame 4, gap over 5, frames 6 7 8 */
    const std::vector<int> frames = {0, 1, 4, 6, 7, 8};
    for (int k : frames) {
        if (k == 4 || k == 6) {
            const int gap_start = k == 4 ? 2 : 5;
            fail_unless(gst_harness_push_event(h, gst_event_new_gap(pts_of(gap_start),
                                                                    pts_of(k) - pts_of(gap_start))));
        }
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    push_eos(h);
    std::string order;
    for (const Item& i : rec.snapshot()) {
        if (i.buffer)
            order += std::to_string(i.pts / kFrameDuration);
        else if (i.event == GST_EVENT_GAP)
            order += "g";
        else if (i.event == GST_EVENT_EOS)
            order += "e";
    }
    fail_unless(order == "01g4g678e", "downstream saw %s, expected 01g4g678e", order.c_str());
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames.size());
    for (size_t i = 0; i < frames.size(); ++i)
        CHECK_BOXES(out[i], expected_boxes(core(face_frame(frames[i])), "face"),
                    "frame " + std::to_string(frames[i]));
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A resolution (and format) change every two or three frames for 40 frames,
 * through sizes smaller than the window, 1x1, odd and padded ones, with
 * frames in flight: every frame leaves under its own caps, in order, with
 * the core's detections for its own image. */
GST_START_TEST(test_streams_resolution_every_few_frames)
{
    struct Shape {
        GstVideoFormat format;
        int w, h, pad;
    };
    const Shape shapes[] = {{GST_VIDEO_FORMAT_GRAY8, 200, 160, 0}, {GST_VIDEO_FORMAT_I420, 1, 1, 0},
                            {GST_VIDEO_FORMAT_NV12, 161, 127, 3},  {GST_VIDEO_FORMAT_GRAY8, 23, 17, 0},
                            {GST_VIDEO_FORMAT_Y444, 131, 97, 0},   {GST_VIDEO_FORMAT_I420, 257, 201, 5},
                            {GST_VIDEO_FORMAT_GRAY8, 24, 24, 0}};
    Recorder rec;
    GstHarness* h = harness_with({{"max-inflight", "3"}, {"draw", "none"}});
    record(h, &rec);
    std::vector<std::vector<Box>> want;
    std::vector<std::pair<int, int>> sizes;
    int index = 0;
    for (int change = 0; index < 40; ++change) {
        const Shape& s = shapes[change % G_N_ELEMENTS(shapes)];
        set_caps(h, s.format, s.w, s.h);
        for (int k = 0; k < 2 + change % 2 && index < 40; ++k, ++index) {
            /* Around the face, moved a little each frame; grey outside the photo. */
            const GrayImage img = crop(astronaut(), 223 - s.w / 2 + index % 7, 116 - s.h / 2 + index % 5, s.w, s.h);
            want.push_back(expected_boxes(core(img), "face"));
            sizes.emplace_back(s.w, s.h);
            fail_unless_equals_int(push_frame(h, img, s.format, index, nullptr, s.pad), GST_FLOW_OK);
        }
    }
    push_eos(h);
    int w = 0, hh = 0, seen = 0;
    for (const Item& i : rec.snapshot()) {
        if (i.event == GST_EVENT_CAPS) {
            w = i.width;
            hh = i.height;
        } else if (i.buffer) {
            const int k = static_cast<int>(i.pts / kFrameDuration);
            fail_unless_equals_int(k, seen);
            fail_unless(w == sizes[k].first && hh == sizes[k].second, "frame %d (%dx%d) left under caps %dx%d", k,
                        sizes[k].first, sizes[k].second, w, hh);
            ++seen;
        }
    }
    fail_unless_equals_int(seen, index);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), index);
    int with_faces = 0;
    for (int k = 0; k < index; ++k) {
        CHECK_BOXES(out[k], want[k],
                    "frame " + std::to_string(k) + " at " + std::to_string(sizes[k].first) + "x" +
                        std::to_string(sizes[k].second));
        with_faces += !want[k].empty();
    }
    fail_unless(with_faces >= 10, "only %d frames with a face: the test would not see lost detections", with_faces);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* An 8K (7680x4320) I420 frame with the astronaut in a corner and a textured
 * background: the core's detections. min-size keeps the CPU reference's
 * share of the test short; the engine still uploads and scales the whole
 * 8K frame. */
/* Collects the element's INFO lines that say what its engine shares. */
static void collect_sharing_lines(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint,
                                  GObject*, GstDebugMessage* message, gpointer user_data)
{
    if (level != GST_LEVEL_INFO || std::strcmp(gst_debug_category_get_name(category), "waldboostdetect") != 0)
        return;
    const char* text = gst_debug_message_get(message);
    if (text && std::strstr(text, "engines in this process on this device")) {
        auto* lines = static_cast<std::pair<std::mutex, std::vector<std::string>>*>(user_data);
        std::lock_guard<std::mutex> guard(lines->first);
        lines->second.push_back(text);
    }
}

/* Several instances in one process (different frame sizes, classifiers and
 * max-inflight), frames interleaved: each gives the core's detections for
 * its own frames; they share one OpenCL context and, for equal classifiers,
 * the program and the classifier's upload, as the debug log says; one
 * instance stopping and restarting leaves the others streaming. */
/* Four instances of different sizes, classifiers and max-inflight run side
 * by side, one stops and starts again while the others stream: every frame
 * gives the boxes of the core detector on that frame alone. `extra`: more
 * properties for every instance. Returns the most frames any instance saw
 * launched together (stats batch-frames). */
static int run_side_by_side_instances(const Props& extra)
{
    int most_batched = 0;
    const std::string profile_path = converted_classifier("lbpcascade_profileface");
    const Classifier profile = waldboost::load_classifier_file(profile_path);
    struct Instance {
        Props props;
        int width, height, x0;
        const Classifier* classifier;
        DetectParams params;
        GstHarness* h = nullptr;
    };
    std::vector<Instance> instances = {
        {{{"max-inflight", "2"}}, 200, 160, 110, &waldboost::default_classifier(), DetectParams{}},
        {{{"max-inflight", "3"}}, 320, 240, 40, &waldboost::default_classifier(), DetectParams{}},
        {{{"classifier", profile_path}, {"min-neighbors", "0"}, {"max-inflight", "1"}}, 256, 256, 60, &profile,
         params_mn(0)},
        {{{"max-inflight", "2"}}, 160, 200, 150, &waldboost::default_classifier(), DetectParams{}},
    };
    auto frame_of = [](const Instance& in, int k) { return crop(astronaut(), in.x0 + 2 * k, 10 + k, in.width, in.height); };
    auto start = [&](Instance& in) {
        Props props = in.props;
        props.emplace_back("draw", "none");
        props.insert(props.end(), extra.begin(), extra.end());
        in.h = harness_with(props);
        set_caps(in.h, GST_VIDEO_FORMAT_GRAY8, in.width, in.height);
    };
    auto run_frames = [&](int first, int count, const std::vector<size_t>& which) {
        for (int k = first; k < first + count; ++k)
            for (size_t i : which)
                fail_unless_equals_int(push_frame(instances[i].h, frame_of(instances[i], k), GST_VIDEO_FORMAT_GRAY8, k),
                                       GST_FLOW_OK);
        for (size_t i : which) {
            /* A serialized event pushes out the frames in flight. */
            fail_unless(gst_harness_push_event(instances[i].h, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM,
                                                                                   gst_structure_new_empty("drain"))));
            std::vector<GstBuffer*> out = pull_all(instances[i].h);
            fail_unless_equals_int(out.size(), count);
            for (int k = 0; k < count; ++k) {
                const Instance& in = instances[i];
                const std::string what = "instance " + std::to_string(i) + " frame " + std::to_string(first + k);
                CHECK_BOXES(out[k], expected_boxes(core(frame_of(in, first + k), in.params, *in.classifier),
                                                   in.classifier->label),
                            what.c_str());
            }
            unref_all(out);
            GstStructure* stats = nullptr;
            g_object_get(instances[i].h->element, "stats", &stats, nullptr);
            int batch_frames = 0;
            fail_unless(gst_structure_get_int(stats, "batch-frames", &batch_frames));
            most_batched = std::max(most_batched, batch_frames);
            gst_structure_free(stats);
        }
    };
    for (Instance& in : instances)
        start(in);
    run_frames(0, 4, {0, 1, 2, 3});

    /* Instance 1 stops and starts again; the others keep streaming. */
    gst_harness_teardown(instances[1].h);
    run_frames(4, 2, {0, 2, 3});
    start(instances[1]);
    run_frames(6, 2, {0, 1, 2, 3});
    for (Instance& in : instances)
        gst_harness_teardown(in.h);
    return most_batched;
}

GST_START_TEST(test_streams_instances_share_one_device)
{
    std::pair<std::mutex, std::vector<std::string>> lines;
    const GstDebugLevel old_level = gst_debug_get_default_threshold();
    gst_debug_set_threshold_for_name("waldboostdetect", GST_LEVEL_INFO);
    gst_debug_add_log_function(collect_sharing_lines, &lines, nullptr);

    run_side_by_side_instances({});

    gst_debug_remove_log_function(collect_sharing_lines);
    gst_debug_set_threshold_for_name("waldboostdetect", old_level);
    std::lock_guard<std::mutex> guard(lines.first);
    fail_unless_equals_int(lines.second.size(), 5);
    fail_unless(contains(lines.second[0], "1 engines") && contains(lines.second[0], "context new"), "%s",
                lines.second[0].c_str());
    for (size_t i = 1; i < lines.second.size(); ++i)
        fail_unless(contains(lines.second[i], "context shared"), "instance %zu: %s", i, lines.second[i].c_str());
    fail_unless(contains(lines.second[1], "2 engines") && contains(lines.second[1], "program shared") &&
                    contains(lines.second[1], "classifier shared"),
                "%s", lines.second[1].c_str());
    fail_unless(contains(lines.second[2], "classifier uploaded here"), "%s", lines.second[2].c_str());
    fail_unless(contains(lines.second[3], "4 engines"), "%s", lines.second[3].c_str());
}
GST_END_TEST;

/* The same instances with and without batched launches: the same boxes;
 * with a wait budget the instances of one classifier go to the device
 * together. */
GST_START_TEST(test_streams_instances_batched_and_not)
{
    fail_unless_equals_int(run_side_by_side_instances({{"batching", "false"}}), 1);
    /* Frames wait up to 200 ms for the other instances' frames of their
     * classifier: the test pushes those right after. */
    fail_unless(run_side_by_side_instances({{"batching", "true"}, {"batch-wait", "200000000"}}) >= 2,
                "no frames were launched together");
}
GST_END_TEST;

GST_START_TEST(test_streams_8k)
{
    constexpr int kW = 7680, kH = 4320;
    GrayImage img = synthetic(kW, kH, 3);
    const GrayImage& photo = astronaut();
    for (int y = 0; y < photo.height; ++y)
        for (int x = 0; x < photo.width; ++x)
            img.at(kW - photo.width - 40 + x, kH - photo.height - 30 + y) = photo.at(x, y);
    const Classifier& c = waldboost::default_classifier();
    DetectParams params;
    params.min_size = size_for_width(c, 80);
    const std::vector<Box> want = expected_boxes(core(img, params), "face");
    fail_unless(!want.empty(), "the reference found no face at 8K");
    GstHarness* h = harness_with({{"min-size", "80"}, {"draw", "none"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_I420, kW, kH);
    for (int k = 0; k < 2; ++k)
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 2);
    for (GstBuffer* b : out)
        CHECK_BOXES(b, want, "8K frame");
    fail_if(pop_error(bus).found);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* fallback (device lists; each fault in a helper process)                  */

static void check_fault_mode(const char* mode, const char* fault)
{
    std::string output;
    const int status = run_fault_helper(mode, fault, &output);
    fail_unless(status == 0, "%s with WALDBOOST_CL_FAULT=%s: the helper failed (status %d):\n%s", mode, fault, status,
                output.c_str());
}

GST_START_TEST(test_fallback_at_start) { check_fault_mode("fallback-at-start", "buffer-create:1"); }
GST_END_TEST;

/* A frame takes one enqueue per kernel launch and upload (about 13 today):
 * the 30th is in the third frame or later, with earlier frames in flight. */
GST_START_TEST(test_fallback_on_enqueue) { check_fault_mode("fallback-on-enqueue", "enqueue:30"); }
GST_END_TEST;

/* The 2nd wait is collecting frame 1, with frames 2 and 3 in flight. */
GST_START_TEST(test_fallback_on_wait) { check_fault_mode("fallback-on-wait", "wait:2"); }
GST_END_TEST;

GST_START_TEST(test_fallback_exhausted) { check_fault_mode("fallback-exhausted", "enqueue:30+"); }
GST_END_TEST;

GST_START_TEST(test_fallback_start_exhausted) { check_fault_mode("fallback-start-exhausted", "program-build"); }
GST_END_TEST;

/* Batched instances: the 5th collect of the process fails (the second
 * round, with frames of the three instances launched together). */
GST_START_TEST(test_fault_one_instance_of_a_batch) { check_fault_mode("batch-one-fails", "wait:5"); }
GST_END_TEST;

/* A batch of three frames takes about 13 enqueues plus one upload per
 * frame: the 30th is a launch of the second or third batch. */
GST_START_TEST(test_fault_a_whole_batch_falls_back) { check_fault_mode("batch-falls-back", "enqueue:30"); }
GST_END_TEST;

GST_START_TEST(test_inflight_shrinks_when_memory_runs_out) { check_fault_mode("inflight-shrinks", "buffer-create:3"); }
GST_END_TEST;

/* A frame beyond the engine's 32-bit indices is the stream's fault, not
 * the device's: with a device list it must not fall back (every device
 * refuses it alike) nor be reported as a device failure. 8640x4000 GRAY8
 * (35 MB) at scale-factor 1.01 needs about 2.2e9 integral-image values
 * (more than 2^31), the cheapest frame found: a square one needs 6000x6000,
 * 16000x16000 a 256 MB buffer. */
GST_START_TEST(test_fallback_not_for_too_large_frames)
{
    constexpr int kWidth = 8640, kHeight = 4000;
    GstHarness* h = harness_with({{"device", "auto, auto"}, {"scale-factor", "1.01"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
    const GstFlowReturn flow = push_frame(h, synthetic(kWidth, kHeight), GST_VIDEO_FORMAT_GRAY8, 0);
    fail_unless(flow != GST_FLOW_OK, "a %dx%d frame at scale-factor 1.01 was accepted", kWidth, kHeight);
    std::vector<GstBuffer*> out = pull_all(h);
    unref_all(out);
    const BusLog log = drain_bus(bus);
    for (const ErrorInfo& w : log.warnings)
        g_print("warning: %s\n", w.text().c_str());
    fail_unless(log.warnings.empty(), "%zu warnings (a fallback?), expected none", log.warnings.size());
    fail_unless(log.errors.size() == 1, "%zu errors, expected 1", log.errors.size());
    const ErrorInfo& error = log.errors[0];
    g_print("error: %s\n", error.text().c_str());
    fail_unless(error.domain == GST_STREAM_ERROR && error.code == GST_STREAM_ERROR_FORMAT,
                "not a STREAM FORMAT error: %s/%d: %s", g_quark_to_string(error.domain), error.code,
                error.text().c_str());
    fail_unless(contains(error.message, "32-bit") && contains(error.message, "8640x4000"),
                "the message does not name the limit: %s", error.message.c_str());
    fail_unless(contains(error.message, "scale factor") && contains(error.message, "Scale the video down"),
                "the message does not say what to change: %s", error.message.c_str());
    fail_unless(!contains(error.message, "device"), "reported as a device failure: %s", error.message.c_str());
    fail_unless_equals_uint64(stats_uint64(h->element, "device-fallbacks"), 0);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ======================================================================== */
/* lifecycle                                                                 */

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
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* facedetect parity: nested cascades, updates, min-stddev                  */

/* A region-of-interest meta with its parent's box (all -1 without one). */
struct TreeBox {
    Box box;
    int parent_x = -1, parent_y = -1, parent_w = -1, parent_h = -1;
    auto key() const { return std::tie(box, parent_x, parent_y, parent_w, parent_h); }
    bool operator<(const TreeBox& o) const { return key() < o.key(); }
    bool operator==(const TreeBox& o) const { return key() == o.key(); }
};

std::string describe_tree(const std::vector<TreeBox>& boxes)
{
    std::string s;
    for (const TreeBox& t : boxes)
        s += describe({t.box}) + (t.parent_w < 0 ? "" : "in " + std::to_string(t.parent_x) + "," +
                                                           std::to_string(t.parent_y) + " ") + "; ";
    return s.empty() ? "(none)" : s;
}

/* The buffer's metas with their parents (found through parent_id), after
 * checking that the ids are distinct, that top-level metas have
 * parent_id -1 and that every other parent_id names a meta. */
std::vector<TreeBox> roi_tree(GstBuffer* buffer)
{
    std::map<int, GstVideoRegionOfInterestMeta*> by_id;
    std::vector<GstVideoRegionOfInterestMeta*> metas;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        fail_unless(by_id.emplace(roi->id, roi).second, "two metas have the id %d", roi->id);
        metas.push_back(roi);
    }
    std::vector<Box> boxes = roi_boxes(buffer); /* sorted; matched below by rect and type */
    std::vector<TreeBox> tree;
    for (GstVideoRegionOfInterestMeta* roi : metas) {
        TreeBox t;
        for (const Box& b : boxes)
            if (b.x == static_cast<int>(roi->x) && b.y == static_cast<int>(roi->y) &&
                b.w == static_cast<int>(roi->w) && b.h == static_cast<int>(roi->h) &&
                b.label == g_quark_to_string(roi->roi_type))
                t.box = b;
        if (roi->parent_id != -1) {
            const auto parent = by_id.find(roi->parent_id);
            fail_unless(parent != by_id.end(), "parent_id %d names no meta", roi->parent_id);
            t.parent_x = static_cast<int>(parent->second->x);
            t.parent_y = static_cast<int>(parent->second->y);
            t.parent_w = static_cast<int>(parent->second->w);
            t.parent_h = static_cast<int>(parent->second->h);
        }
        tree.push_back(t);
    }
    std::sort(tree.begin(), tree.end());
    return tree;
}

/* facedetect's areas, stated here from its source (gstfacedetect.cpp):
 * eyes in the upper half, the nose in the centre, the mouth in the lower
 * half, with integer halves and quarters. */
struct PartSpec {
    const char* property;
    const char* type;
    std::string cascade;
    Rect (*area)(const Rect& face);
};

std::vector<PartSpec> face_parts()
{
    return {{"eyes-profile", "eyes", haar_cascade("haarcascade_eye"),
             [](const Rect& f) { return Rect{f.x, f.y, f.w, f.h / 2}; }},
            /* Debian has no nose cascade; the eye cascade finds the inner
             * corners of the eyes in the centre area, which is what counts. */
            {"nose-profile", "nose", haar_cascade("haarcascade_eye"),
             [](const Rect& f) { return Rect{f.x + f.w / 4, f.y + f.h / 4, f.w / 2, f.h / 2}; }},
            {"mouth-profile", "mouth", haar_cascade("haarcascade_smile"),
             [](const Rect& f) { return Rect{f.x, f.y + f.h / 2, f.w, f.h / 2}; }}};
}

/* What the element should attach: the core's faces, and for each face each
 * part cascade run by the core on a copy of that area (parameters as the
 * faces', minimum size an eighth of the faces', no maximum). */
std::vector<TreeBox> expected_tree(const GrayImage& img, const Classifier& face, const DetectParams& params,
                                   const std::vector<PartSpec>& parts)
{
    std::vector<TreeBox> tree;
    DetectParams part_params = params;
    part_params.min_size = waldboost::Size{params.min_size.width / 8, params.min_size.height / 8};
    for (const Box& f : expected_boxes(core(img, params, face), face.label)) {
        tree.push_back(TreeBox{f});
        for (const PartSpec& part : parts) {
            const Classifier c = waldboost::load_classifier_file(part.cascade);
            const Rect a = part.area(Rect{f.x, f.y, f.w, f.h});
            for (Box b : expected_boxes(core(crop(img, a.x, a.y, a.w, a.h), part_params, c), part.type, a.x, a.y))
                tree.push_back(TreeBox{b, f.x, f.y, f.w, f.h});
        }
    }
    std::sort(tree.begin(), tree.end());
    return tree;
}

GST_START_TEST(test_nested_parts_match_the_reference)
{
    /* The astronaut at twice the size (a 190-pixel face) with min-size=176:
     * parts are then searched from 22 pixels up (176 / 8), above the eye
     * cascades' 20-pixel window, so the eighth is seen. */
    const GrayImage& small = astronaut();
    const GrayImage img = waldboost::resize_bilinear(small.view(), {small.width * 2, small.height * 2});
    const std::string face_path = haar_cascade("haarcascade_frontalface_default");
    const Classifier face = waldboost::load_classifier_file(face_path);
    DetectParams params;
    params.min_size = size_for_width(face, 176);
    const std::vector<PartSpec> parts = face_parts();
    const std::vector<TreeBox> want = expected_tree(img, face, params, parts);
    size_t found[3] = {0, 0, 0};
    for (const TreeBox& t : want)
        for (size_t k = 0; k < parts.size(); ++k)
            found[k] += t.box.label == parts[k].type;
    fail_unless(found[0] >= 2 && found[1] >= 1 && found[2] >= 1,
                "the test needs finds in all three areas in the reference: %s", describe_tree(want).c_str());

    Props props = {{"classifier", face_path}, {"min-size", "176"}, {"draw", "none"}};
    for (const PartSpec& part : parts)
        props.emplace_back(part.property, part.cascade);
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    const std::vector<TreeBox> got = roi_tree(out[0]);
    fail_unless(got == want, "metas differ from the reference\n  element: %s\n  core:    %s",
                describe_tree(got).c_str(), describe_tree(want).c_str());

    /* The message lists each face's parts under the part's name, with the
     * same boxes as the metas. */
    std::vector<GstMessage*> messages = pop_element_messages(bus);
    fail_unless_equals_int(messages.size(), 1);
    const GValue* list = gst_structure_get_value(gst_message_get_structure(messages[0]), "detections");
    std::vector<TreeBox> listed;
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        const GstStructure* d = gst_value_get_structure(gst_value_list_get_value(list, i));
        TreeBox f;
        gst_structure_get(d, "x", G_TYPE_INT, &f.box.x, "y", G_TYPE_INT, &f.box.y, "width", G_TYPE_INT, &f.box.w,
                          "height", G_TYPE_INT, &f.box.h, "neighbors", G_TYPE_INT, &f.box.neighbors, "confidence",
                          G_TYPE_DOUBLE, &f.box.confidence, nullptr);
        f.box.label = gst_structure_get_string(d, "label");
        listed.push_back(f);
        for (const PartSpec& part : parts) {
            const GValue* sub = gst_structure_get_value(d, part.type);
            fail_unless(sub && GST_VALUE_HOLDS_LIST(sub), "no \"%s\" list in a detection", part.type);
            for (guint j = 0; j < gst_value_list_get_size(sub); ++j) {
                const GstStructure* ps = gst_value_get_structure(gst_value_list_get_value(sub, j));
                TreeBox t{Box{}, f.box.x, f.box.y, f.box.w, f.box.h};
                gst_structure_get(ps, "x", G_TYPE_INT, &t.box.x, "y", G_TYPE_INT, &t.box.y, "width", G_TYPE_INT,
                                  &t.box.w, "height", G_TYPE_INT, &t.box.h, "neighbors", G_TYPE_INT,
                                  &t.box.neighbors, "confidence", G_TYPE_DOUBLE, &t.box.confidence, nullptr);
                t.box.label = gst_structure_get_string(ps, "label");
                listed.push_back(t);
            }
        }
    }
    std::sort(listed.begin(), listed.end());
    fail_unless(listed == want, "message differs from the reference\n  message: %s\n  core:    %s",
                describe_tree(listed).c_str(), describe_tree(want).c_str());
    for (GstMessage* m : messages)
        gst_message_unref(m);
    unref_all(out);
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* Off by default; set while playing, a profile applies from the next frame
 * on, and emptied it stops. Parts are drawn with the faces. */
GST_START_TEST(test_nested_profile_set_while_playing)
{
    const GrayImage& img = astronaut();
    const std::string face_path = haar_cascade("haarcascade_frontalface_default");
    const Classifier face = waldboost::load_classifier_file(face_path);
    const std::vector<PartSpec> eyes = {face_parts()[0]};
    const std::vector<TreeBox> faces_only = expected_tree(img, face, DetectParams{}, {});
    const std::vector<TreeBox> with_eyes = expected_tree(img, face, DetectParams{}, eyes);
    fail_unless(with_eyes.size() > faces_only.size(), "no eyes in the reference");

    GstHarness* h = harness_with({{"classifier", face_path}, {"draw", "none"}, {"max-inflight", "1"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    g_object_set(h->element, "eyes-profile", eyes[0].cascade.c_str(), nullptr);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
    g_object_set(h->element, "eyes-profile", "", nullptr);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 2), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    const std::vector<TreeBox> want[] = {faces_only, with_eyes, faces_only};
    for (int k = 0; k < 3; ++k) {
        const std::vector<TreeBox> got = roi_tree(out[k]);
        fail_unless(got == want[k], "frame %d\n  element: %s\n  core:    %s", k, describe_tree(got).c_str(),
                    describe_tree(want[k]).c_str());
    }
    unref_all(out);
    gst_harness_teardown(h);

    /* draw=burn outlines the eyes too: pixels on an eye's outline change
     * (in the faces' colour here, through label-colors). */
    DrawRun run = run_draw({{"classifier", face_path}, {"eyes-profile", eyes[0].cascade}, {"draw", "burn"},
                            {"label-colors", "colors,eyes=(uint)0xff00ff00"}},
                           img, GST_VIDEO_FORMAT_GRAY8);
    std::vector<Box> all;
    for (const TreeBox& t : with_eyes)
        all.push_back(t.box);
    const int face_luma = check_burn(run.sent[0], run.out[0], all, 2, "faces and eyes");
    unref_all(run.out);
    /* By default each label has its own colour: the eyes' outline is not
     * the faces'. */
    run = run_draw({{"classifier", face_path}, {"eyes-profile", eyes[0].cascade}, {"draw", "burn"}}, img,
                   GST_VIDEO_FORMAT_GRAY8);
    for (const TreeBox& t : with_eyes) {
        const PlanePair luma = component(run.sent[0], run.out[0], 0);
        const int corner = luma.after[static_cast<size_t>(t.box.y) * img.width + t.box.x];
        fail_unless((corner == face_luma) == (t.box.label == "face"), "%s outline luma %d, faces' %d",
                    t.box.label.c_str(), corner, face_luma);
    }
    unref_all(run.out);
}
GST_END_TEST;

GST_START_TEST(test_nested_profile_errors)
{
    const std::string missing = "/nonexistent/waldboost-test/no-such-eyes.xml";
    ErrorInfo err = start_failure({{"eyes-profile", missing}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s",
                err.text().c_str());
    fail_unless(contains(err.message, "eyes-profile") && contains(err.message, missing),
                "the message should name the property and the file: %s", err.text().c_str());

    const std::string bad = temporary_text_file("<opencv_storage><cascade>truncated");
    err = start_failure({{"mouth-profile", bad}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_OPEN_READ, "%s",
                err.text().c_str());
    fail_unless(contains(err.message, "mouth-profile") && contains(err.message, bad),
                "the message should name the property and the file: %s", err.text().c_str());
    g_unlink(bad.c_str());
}
GST_END_TEST;

/* Which frames get a message in each updates mode: facedetect's rules,
 * applied to whether the core finds faces in each frame. */
GST_START_TEST(test_updates_modes)
{
    const GrayImage blank(200, 160, 90);
    const std::vector<GrayImage> frames = {face_frame(0), face_frame(1), blank, blank, face_frame(2), blank};
    std::vector<bool> has_faces;
    for (const GrayImage& f : frames)
        has_faces.push_back(!core(f).empty());
    fail_unless(has_faces[0] && has_faces[1] && !has_faces[2] && !has_faces[3] && has_faces[4] && !has_faces[5],
                "the frames should alternate between faces and none");
    for (const char* mode : {"every-frame", "on-change", "on-object", "none"}) {
        std::vector<guint64> want;
        bool before = false;
        for (size_t k = 0; k < frames.size(); ++k) {
            const bool due = std::strcmp(mode, "every-frame") == 0   ? true
                             : std::strcmp(mode, "on-change") == 0   ? has_faces[k] != before
                             : std::strcmp(mode, "on-object") == 0   ? has_faces[k]
                                                                     : false;
            before = has_faces[k];
            if (due)
                want.push_back(k);
        }
        for (const char* post : {"true", "false"}) {
            GstHarness* h = harness_with({{"updates", mode}, {"post-messages", post}, {"draw", "none"}});
            GstBus* bus = attach_bus(h);
            set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
            for (size_t k = 0; k < frames.size(); ++k)
                fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(k)),
                                       GST_FLOW_OK);
            push_eos(h);
            std::vector<GstBuffer*> out = pull_all(h);
            fail_unless_equals_int(out.size(), frames.size());
            std::vector<guint64> got;
            for (GstMessage* m : pop_element_messages(bus)) {
                guint64 frame = 0;
                fail_unless(gst_structure_get_uint64(gst_message_get_structure(m), "frame", &frame));
                got.push_back(frame);
                gst_message_unref(m);
            }
            const std::vector<guint64> expected = std::strcmp(post, "true") == 0 ? want : std::vector<guint64>{};
            fail_unless(got == expected, "updates=%s post-messages=%s: %zu messages, expected %zu", mode, post,
                        got.size(), expected.size());
            /* Metas do not depend on messages. */
            for (size_t k = 0; k < frames.size(); ++k)
                fail_unless_equals_int(roi_boxes(out[k]).size(), core(frames[k]).size());
            unref_all(out);
            gst_element_set_bus(h->element, nullptr);
            gst_object_unref(bus);
            gst_harness_teardown(h);
        }
    }
}
GST_END_TEST;

/* ------------------------------------------------------------------------ */
/* Tracking                                                                 */

/* A region-of-interest meta of the detector's label with its track fields
 * (-1 where the parameter structure lacks them). */
struct TrackedBox {
    gint id = -1;
    Box box;
    int age = -1, hits = -1;
    gboolean detected = TRUE;
};

std::vector<TrackedBox> tracked_boxes(GstBuffer* buffer, const char* label = "face")
{
    std::vector<TrackedBox> out;
    gpointer state = nullptr;
    GstMeta* meta;
    while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        if (std::strcmp(g_quark_to_string(roi->roi_type), label) != 0)
            continue;
        TrackedBox t;
        t.id = roi->id;
        t.box.label = label;
        t.box.x = static_cast<int>(roi->x);
        t.box.y = static_cast<int>(roi->y);
        t.box.w = static_cast<int>(roi->w);
        t.box.h = static_cast<int>(roi->h);
        if (const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "detection")) {
            gint id = -2;
            fail_unless(gst_structure_get_int(s, "id", &id) && id == roi->id, "the parameter's id is the meta's");
            gst_structure_get_int(s, "age", &t.age);
            gst_structure_get_int(s, "hits", &t.hits);
            gst_structure_get_boolean(s, "detected", &t.detected);
        }
        out.push_back(t);
    }
    return out;
}

double iou_of(const Box& a, const Box& b)
{
    const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const int x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
    const double both = x1 > x0 && y1 > y0 ? static_cast<double>(x1 - x0) * (y1 - y0) : 0.0;
    return both / (static_cast<double>(a.w) * a.h + static_cast<double>(b.w) * b.h - both);
}

/* Pushes the frames (GRAY8 200x160) through a new element with `props`, and
 * returns the buffers that came out. */
std::vector<GstBuffer*> run_frames(const Props& props, const std::vector<GrayImage>& frames, GstBus** bus = nullptr)
{
    GstHarness* h = harness_with(props);
    GstBus* b = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, frames.at(0).width, frames.at(0).height);
    for (size_t k = 0; k < frames.size(); ++k)
        fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(k)), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames.size());
    gst_element_set_bus(h->element, nullptr);
    if (bus)
        *bus = b;
    else
        gst_object_unref(b);
    gst_harness_teardown(h);
    return out;
}

/* With detections on every frame, each face keeps its id; age counts the
 * frames since the track began, hits the detections. */
GST_START_TEST(test_tracking_ids_stable_across_frames)
{
    std::vector<GrayImage> frames;
    for (int k = 0; k < 8; ++k)
        frames.push_back(face_frame(k));
    std::vector<GstBuffer*> out = run_frames({{"tracking", "true"}, {"draw", "none"}}, frames);
    gint id = -1;
    for (size_t k = 0; k < frames.size(); ++k) {
        const std::vector<Box> want = expected_boxes(core(frames[k]), "face");
        fail_unless_equals_int(want.size(), 1);
        const std::vector<TrackedBox> got = tracked_boxes(out[k]);
        fail_unless_equals_int(got.size(), 1);
        fail_unless(got[0].box.x == want[0].x && got[0].box.y == want[0].y && got[0].box.w == want[0].w,
                    "frame %zu: the tracked box is the detection's", k);
        if (k == 0)
            id = got[0].id;
        fail_unless_equals_int(got[0].id, id);
        fail_unless_equals_int(got[0].age, static_cast<int>(k));
        fail_unless_equals_int(got[0].hits, static_cast<int>(k) + 1);
        fail_unless(got[0].detected, "frame %zu was detected", k);
    }
    unref_all(out);

    /* Without tracking the ids are the detections' indexes, with no track
     * fields. */
    out = run_frames({{"draw", "none"}}, frames);
    for (GstBuffer* b : out) {
        const std::vector<TrackedBox> got = tracked_boxes(b);
        fail_unless(got.size() == 1 && got[0].id == 0 && got[0].age == -1 && got[0].hits == -1);
    }
    unref_all(out);
}
GST_END_TEST;

/* interval=3 detects on frames 0, 3, 6...: without tracking the frames in
 * between have no detections; with it the face is followed there, with its
 * id, by template search. */
GST_START_TEST(test_tracking_interval)
{
    std::vector<GrayImage> frames;
    for (int k = 0; k < 8; ++k)
        frames.push_back(face_frame(k));
    std::vector<GstBuffer*> out = run_frames({{"interval", "3"}, {"draw", "none"}}, frames);
    for (size_t k = 0; k < frames.size(); ++k) {
        const std::vector<Box> want = k % 3 == 0 ? expected_boxes(core(frames[k]), "face") : std::vector<Box>{};
        CHECK_BOXES(out[k], want, "interval=3, frame " + std::to_string(k));
    }
    unref_all(out);

    out = run_frames({{"interval", "3"}, {"tracking", "true"}, {"draw", "none"}}, frames);
    gint id = -1;
    for (size_t k = 0; k < frames.size(); ++k) {
        const std::vector<Box> detected = expected_boxes(core(frames[k]), "face");
        const std::vector<TrackedBox> got = tracked_boxes(out[k]);
        fail_unless(got.size() == 1 && detected.size() == 1, "frame %zu: %zu tracked", k, got.size());
        if (k == 0)
            id = got[0].id;
        fail_unless_equals_int(got[0].id, id);
        fail_unless_equals_int(got[0].detected, k % 3 == 0);
        fail_unless_equals_int(got[0].age, static_cast<int>(k));
        fail_unless_equals_int(got[0].hits, static_cast<int>(k) / 3 + 1);
        /* Followed boxes keep the size of the last detection and move with
         * the face, so they overlap what detection would have found. */
        const double iou = iou_of(got[0].box, detected[0]);
        fail_unless(iou >= 0.7, "frame %zu: IoU %.2f with the detection the frame would have had", k, iou);
    }
    unref_all(out);
}
GST_END_TEST;

/* updates=events: one "waldboostdetect-events" message when the face
 * appears, one when it has been missing for lost-after frames, and a new id
 * when it comes back; no per-frame messages. */
GST_START_TEST(test_tracking_events)
{
    const GrayImage blank(200, 160, 90);
    const std::vector<GrayImage> frames = {face_frame(0), face_frame(1), face_frame(2), blank,
                                           blank,         blank,         face_frame(3), face_frame(4)};
    GstBus* bus = nullptr;
    std::vector<GstBuffer*> out =
        run_frames({{"tracking", "true"}, {"updates", "events"}, {"lost-after", "2"}, {"draw", "none"}}, frames, &bus);
    struct Seen {
        guint64 frame;
        std::string kind;
        gint id;
    };
    std::vector<Seen> seen;
    int per_frame = 0;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
        per_frame += gst_message_has_name(m, "waldboostdetect");
        if (!gst_message_has_name(m, "waldboostdetect-events")) {
            gst_message_unref(m);
            continue;
        }
        const GstStructure* s = gst_message_get_structure(m);
        guint64 frame = 0;
        fail_unless(gst_structure_get_uint64(s, "frame", &frame));
        const GValue* events = gst_structure_get_value(s, "events");
        fail_unless(events && GST_VALUE_HOLDS_LIST(events));
        for (guint i = 0; i < gst_value_list_get_size(events); ++i) {
            const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(events, i));
            gint id = -1, w = 0;
            fail_unless(gst_structure_get_int(e, "id", &id) && gst_structure_get_int(e, "width", &w) && w > 0);
            seen.push_back({frame, gst_structure_get_string(e, "kind"), id});
        }
        gst_message_unref(m);
    }
    fail_unless_equals_int(per_frame, 0);
    fail_unless_equals_int(seen.size(), 3);
    fail_unless(seen[0].frame == 0 && seen[0].kind == "appeared", "appeared on frame 0");
    /* Blank frames 3 and 4 have no detection; lost-after=2 ends it on 4. */
    fail_unless(seen[1].frame == 4 && seen[1].kind == "left" && seen[1].id == seen[0].id,
                "left on frame %" G_GUINT64_FORMAT, seen[1].frame);
    fail_unless(seen[2].frame == 6 && seen[2].kind == "appeared" && seen[2].id > seen[0].id,
                "back on frame 6 with a new id");
    unref_all(out);
    gst_object_unref(bus);

    /* Without tracking there are no events to post. */
    out = run_frames({{"updates", "events"}, {"draw", "none"}}, frames, &bus);
    fail_unless_equals_int(pop_element_messages(bus, "waldboostdetect-events").size(), 0);
    unref_all(out);
    gst_object_unref(bus);
}
GST_END_TEST;

static double stddev_of(const GrayImage& img)
{
    double sum = 0, squares = 0;
    for (uint8_t p : img.pixels) {
        sum += p;
        squares += static_cast<double>(p) * p;
    }
    const double n = static_cast<double>(img.pixels.size()), mean = sum / n;
    return std::sqrt(squares / n - mean * mean);
}

/* min-stddev: a frame flatter than it is not searched (no detections, as
 * facedetect); the same frame is searched with min-stddev below its
 * deviation, and with 0. */
GST_START_TEST(test_min_stddev)
{
    const GrayImage sharp = face_frame(0);
    GrayImage flat = sharp; /* the same picture at a quarter of the contrast */
    for (uint8_t& p : flat.pixels)
        p = static_cast<uint8_t>(96 + p / 4);
    const double sharp_dev = stddev_of(sharp), flat_dev = stddev_of(flat);
    fail_unless(sharp_dev > flat_dev + 4, "contrast %f vs %f", sharp_dev, flat_dev);
    fail_if(core(flat).empty() || core(sharp).empty(), "the test needs faces in both frames");
    const int between = static_cast<int>(std::ceil(flat_dev + 1));
    const int above_both = static_cast<int>(std::ceil(sharp_dev + 1));
    struct Case {
        int min_stddev;
        bool sharp_searched, flat_searched;
    };
    for (const Case& c : {Case{0, true, true}, Case{between, true, false}, Case{above_both, false, false},
                          Case{static_cast<int>(flat_dev) - 1, true, true}}) {
        GstHarness* h = harness_with({{"min-stddev", std::to_string(c.min_stddev)}, {"draw", "none"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, sharp.width, sharp.height);
        fail_unless_equals_int(push_frame(h, sharp, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
        fail_unless_equals_int(push_frame(h, flat, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 2);
        const std::string what = "min-stddev=" + std::to_string(c.min_stddev);
        CHECK_BOXES(out[0], c.sharp_searched ? expected_boxes(core(sharp), "face") : std::vector<Box>{}, what);
        CHECK_BOXES(out[1], c.flat_searched ? expected_boxes(core(flat), "face") : std::vector<Box>{}, what);
        /* Unsearched frames still get their (empty) message, and no warning. */
        std::vector<GstMessage*> messages = pop_element_messages(bus);
        fail_unless_equals_int(messages.size(), 2);
        for (GstMessage* m : messages)
            gst_message_unref(m);
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "%s: a warning", what.c_str());
        unref_all(out);
        gst_element_set_bus(h->element, nullptr);
        gst_object_unref(bus);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

GST_START_TEST(test_missing_test_data)
{
    fail("missing test data %s (run tests/fetch-test-data.sh); WALDBOOST_REQUIRE_TEST_DATA=1 requires it",
         data_file("astronaut.png").c_str());
}
GST_END_TEST;

struct NamedTest {
    TFun fn;
    const char* name;
};
#define NAMED(t) NamedTest{t, #t}

static Suite* waldboost_suite(bool data)
{
    Suite* s = suite_create("waldboostdetect");
    auto add_case = [&](const char* name, bool needs_data, std::initializer_list<NamedTest> tests) {
        if (needs_data && !data && !test_data_required())
            return;
        TCase* tc = tcase_create(name);
        if (needs_data && !data) {
            /* Only here when the data is required: the case fails. */
            _tcase_add_test(tc, test_missing_test_data, "test_missing_test_data", 0, 0, 0, 1);
            suite_add_tcase(s, tc);
            return;
        }
        /* Generous: a cold kernel cache builds each program once (seconds on PoCL). */
        tcase_set_timeout(tc, 240);
        for (const NamedTest& t : tests)
            _tcase_add_test(tc, t.fn, t.name, 0, 0, 0, 1);
        suite_add_tcase(s, tc);
    };
    add_case("caps", false,
             {NAMED(test_caps_template), NAMED(test_caps_formats_and_odd_sizes), NAMED(test_caps_rgb_refused)});
    add_case("detections", true,
             {NAMED(test_rois_astronaut_gray8), NAMED(test_rois_astronaut_i420), NAMED(test_rois_padded_rows),
              NAMED(test_rois_every_format), NAMED(test_rois_odd_width)});
    add_case("streaming", true,
             {NAMED(test_in_order_delivery), NAMED(test_frames_leave_when_done), NAMED(test_inflight_bounds_frames_held), NAMED(test_eos_drains),
              NAMED(test_flush), NAMED(test_renegotiation), NAMED(test_allocation_asks_for_held_buffers),
              NAMED(test_fixed_upstream_pool)});
    add_case("messages", true, {NAMED(test_messages), NAMED(test_post_messages_false), NAMED(test_latency_query)});
    add_case("properties", true,
             {NAMED(test_property_defaults), NAMED(test_property_ranges), NAMED(test_property_roi_refused),
              NAMED(test_prop_classifier_files), NAMED(test_prop_haar_cascades), NAMED(test_prop_classifier_file_labels),
              NAMED(test_prop_label_and_device), NAMED(test_prop_detect_params), NAMED(test_prop_roi),
              NAMED(test_prop_reduction), NAMED(test_prop_reduction_structure), NAMED(test_prop_stats)});
    add_case("drawing", true,
             {NAMED(test_draw_none), NAMED(test_draw_burn), NAMED(test_draw_meta), NAMED(test_draw_auto),
              NAMED(test_draw_meta_without_renderer), NAMED(test_draw_box_text),
              NAMED(test_draw_color_and_line_width), NAMED(test_draw_accept_all_classifier)});
    add_case("live", true,
             {NAMED(test_live_min_neighbors), NAMED(test_live_output_properties_at_frame_boundary),
              NAMED(test_live_classifier_change), NAMED(test_live_reduction_change),
              NAMED(test_live_property_thread)});
    add_case("errors", false,
             {NAMED(test_error_missing_classifier), NAMED(test_error_classifier_path_escaped),
              NAMED(test_error_malformed_classifier),
              NAMED(test_error_no_such_device), NAMED(test_error_bad_reduction),
              NAMED(test_error_kernel_build_fault), NAMED(test_error_out_of_memory_fault),
              NAMED(test_error_enqueue_fault), NAMED(test_error_map_fault), NAMED(test_error_wait_fault),
              NAMED(test_error_buffer_before_caps), NAMED(test_error_short_buffer),
              NAMED(test_error_meta_beyond_buffer),
              NAMED(test_error_classifier_while_playing), NAMED(test_error_kinds_of_classifier_errors),
              NAMED(test_error_kinds_of_device_and_settings_errors)});
    add_case("lifecycle", true, {NAMED(test_lifecycle_state_cycles)});
    add_case("fallback", true,
             {NAMED(test_fallback_at_start), NAMED(test_fallback_on_enqueue), NAMED(test_fallback_on_wait),
              NAMED(test_fallback_exhausted), NAMED(test_fallback_start_exhausted),
              NAMED(test_inflight_shrinks_when_memory_runs_out),
              NAMED(test_fallback_not_for_too_large_frames), NAMED(test_fault_one_instance_of_a_batch),
              NAMED(test_fault_a_whole_batch_falls_back)});
    add_case("parity", true,
             {NAMED(test_nested_parts_match_the_reference), NAMED(test_nested_profile_set_while_playing),
              NAMED(test_nested_profile_errors), NAMED(test_updates_modes), NAMED(test_min_stddev)});
    add_case("tracking", true,
             {NAMED(test_tracking_ids_stable_across_frames), NAMED(test_tracking_interval),
              NAMED(test_tracking_events)});
    add_case("streams", true,
             {NAMED(test_streams_missing_timestamps), NAMED(test_streams_gap_events),
              NAMED(test_streams_resolution_every_few_frames), NAMED(test_streams_8k),
              NAMED(test_streams_instances_share_one_device), NAMED(test_streams_instances_batched_and_not)});
    return s;
}

int main(int argc, char** argv)
{
    gst_check_init(&argc, &argv);
    const bool data = have_test_data();
    const char* only = g_getenv("CK_RUN_CASE");
    const std::set<std::string> data_cases = {"detections", "streaming", "messages", "properties", "drawing",
                                              "live",       "lifecycle", "parity",   "tracking"};
    if (!data && only && data_cases.count(only) && !test_data_required()) {
        g_print("SKIP: missing test data %s (run tests/fetch-test-data.sh)\n", data_file("astronaut.png").c_str());
        return 77;
    }
    if (!data && !test_data_required())
        g_print("note: %s missing; the cases that need it are left out\n", data_file("astronaut.png").c_str());
    Suite* s = waldboost_suite(data);
    return gst_check_run_suite(s, "waldboostdetect", __FILE__);
}
