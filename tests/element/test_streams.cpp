/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, streams (what cameras and demuxers send): buffers without
 * timestamps, GAP events, a resolution change every few frames, several
 * instances sharing one device with and without batched launches (tracking
 * included), and an 8K frame.
 */
#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "harness.h"

using namespace element_test;

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
    teardown_with_bus(h, bus);
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
            fail_unless(gst_harness_push_event(h, gst_event_new_gap(pts_of(gap_start), pts_of(k) - pts_of(gap_start))));
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
        CHECK_BOXES(out[i], expected_boxes(core(face_frame(frames[i])), "face"), "frame " + std::to_string(frames[i]));
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
                            {GST_VIDEO_FORMAT_GRAY8, 24, 24, 0},   {GST_VIDEO_FORMAT_YUY2, 143, 111, 2}};
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
    fail_unless_equals_int(check_buffers_under_their_caps(rec.snapshot(), sizes), index);
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
 * gives the boxes of the core detector on that frame alone (the one with a
 * roi: on its rectangle, moved to frame coordinates; with batching its
 * frames go with the whole frames of the other instances of its
 * classifier). `extra`: more
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
        waldboost::Rect roi{}; /* empty: the whole frame */
        GstHarness* h = nullptr;
    };
    std::vector<Instance> instances = {
        {{{"max-inflight", "2"}}, 200, 160, 110, &waldboost::default_classifier(), DetectParams{}},
        {{{"max-inflight", "3"}, {"roi", "<50, 20, 230, 200>"}},
         320,
         240,
         40,
         &waldboost::default_classifier(),
         DetectParams{},
         waldboost::Rect{50, 20, 230, 200}},
        {{{"classifier", profile_path}, {"min-neighbors", "0"}, {"max-inflight", "1"}},
         256,
         256,
         60,
         &profile,
         params_mn(0)},
        {{{"max-inflight", "2"}}, 160, 200, 150, &waldboost::default_classifier(), DetectParams{}},
    };
    auto frame_of = [](const Instance& in, int k) {
        return crop(astronaut(), in.x0 + 2 * k, 10 + k, in.width, in.height);
    };
    bool roi_changes_boxes = false;
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
            fail_unless(gst_harness_push_event(
                instances[i].h, gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new_empty("drain"))));
            std::vector<GstBuffer*> out = pull_all(instances[i].h);
            fail_unless_equals_int(out.size(), count);
            for (int k = 0; k < count; ++k) {
                const Instance& in = instances[i];
                const std::string what = "instance " + std::to_string(i) + " frame " + std::to_string(first + k);
                const waldboost::Rect& r = in.roi;
                const GrayImage searched =
                    r.width ? crop(frame_of(in, first + k), r.x, r.y, r.width, r.height) : frame_of(in, first + k);
                const std::vector<Box> want =
                    expected_boxes(core(searched, in.params, *in.classifier), in.classifier->label, r.x, r.y);
                CHECK_BOXES(out[k], want, what.c_str());
                if (r.width)
                    roi_changes_boxes |=
                        want !=
                        expected_boxes(core(frame_of(in, first + k), in.params, *in.classifier), in.classifier->label);
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
    /* Else the roi's boxes would pass for the whole frame's. */
    fail_unless(roi_changes_boxes, "the roi changed no frame's boxes");
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

/* Tracking with batched launches: two instances of one classifier with
 * tracking=true interval=2, their frames pushed in turns, report the same
 * objects (ids, boxes, detected or followed) with batching on (a wait
 * budget, so that their detection frames go to the device together) as
 * with it off. A batch hands each frame its own results, and the tracker
 * runs per stream in frame order either way. */
GST_START_TEST(test_streams_tracking_batched_and_not)
{
    struct Object {
        gint id;
        guint x, y, w, h;
        bool operator==(const Object& o) const { return id == o.id && x == o.x && y == o.y && w == o.w && h == o.h; }
    };
    const int frames = 10;
    auto frame_of = [](int instance, int k) {
        return crop(astronaut(), 110 + 40 * instance + 3 * k, 10 + 2 * k, 200, 160);
    };
    auto run = [&](const Props& batching, int* most_batched) {
        std::vector<GstHarness*> hs;
        for (int i = 0; i < 2; ++i) {
            Props props = {{"draw", "none"}, {"tracking", "true"}, {"interval", "2"}};
            props.insert(props.end(), batching.begin(), batching.end());
            hs.push_back(harness_with(props));
            set_caps(hs.back(), GST_VIDEO_FORMAT_GRAY8, 200, 160);
        }
        for (int k = 0; k < frames; ++k)
            for (int i = 0; i < 2; ++i)
                fail_unless_equals_int(push_frame(hs[i], frame_of(i, k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        std::vector<std::vector<std::vector<Object>>> objects(2);
        *most_batched = 0;
        for (int i = 0; i < 2; ++i) {
            push_eos(hs[i]);
            std::vector<GstBuffer*> out = pull_all(hs[i]);
            fail_unless_equals_int(out.size(), frames);
            for (GstBuffer* b : out) {
                std::vector<Object> here;
                gpointer state = nullptr;
                while (GstMeta* m =
                           gst_buffer_iterate_meta_filtered(b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
                    const auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
                    here.push_back({roi->id, roi->x, roi->y, roi->w, roi->h});
                }
                objects[i].push_back(here);
            }
            unref_all(out);
            GstStructure* stats = nullptr;
            g_object_get(hs[i]->element, "stats", &stats, nullptr);
            int batch_frames = 0;
            fail_unless(gst_structure_get_int(stats, "batch-frames", &batch_frames));
            *most_batched = std::max(*most_batched, batch_frames);
            gst_structure_free(stats);
            gst_harness_teardown(hs[i]);
        }
        return objects;
    };
    int alone = 0, together = 0;
    const auto unbatched = run({{"batching", "false"}}, &alone);
    const auto batched = run({{"batching", "true"}, {"batch-wait", "200000000"}}, &together);
    fail_unless_equals_int(alone, 1);
    fail_unless(together >= 2, "no frames were launched together");
    int tracked = 0;
    for (int i = 0; i < 2; ++i)
        for (int k = 0; k < frames; ++k) {
            fail_unless(batched[i][k] == unbatched[i][k], "instance %d frame %d: %zu objects batched, %zu not", i, k,
                        batched[i][k].size(), unbatched[i][k].size());
            tracked += !unbatched[i][k].empty();
        }
    /* The face is confirmed on the second detection frame (2) and then
     * reported on every frame, followed on the odd ones. */
    fail_unless(tracked >= 2 * (frames - 2), "only %d frames with a tracked face", tracked);
}
GST_END_TEST;

/* Two instances on one device, one streaming 640x480 frames without a
 * pause, the other starting, changing its classifier while playing and
 * stopping with frames in flight, 20 times: the second never waits for the
 * first's frames, and the first keeps streaming. On PoCL every instance
 * shares one command queue, where a blocking call (finish, a blocking map or
 * read: PoCL finishes the queue for those) waited for a queue that the busy
 * instance never let go empty: the stop hung for minutes. */
GST_START_TEST(test_streams_busy_neighbour_never_stalls_a_restart)
{
    constexpr int kW = 640, kH = 480, kRounds = 20;
    const std::string profile_path = converted_classifier("lbpcascade_profileface");
    const GrayImage busy_frame = crop(astronaut(), 0, 0, kW, kH);
    GstHarness* busy = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    set_caps(busy, GST_VIDEO_FORMAT_GRAY8, kW, kH);

    std::atomic<bool> stop{false};
    std::atomic<int> busy_out{0}, busy_bad{0};
    std::atomic<gint64> last_out_us{g_get_monotonic_time()}, longest_gap_us{0};
    std::thread feeder([&] {
        for (int k = 0; !stop.load(); ++k) {
            if (push_frame(busy, busy_frame, GST_VIDEO_FORMAT_GRAY8, k) != GST_FLOW_OK)
                ++busy_bad;
            while (GstBuffer* b = gst_harness_try_pull(busy)) {
                const gint64 now = g_get_monotonic_time();
                longest_gap_us = std::max<gint64>(longest_gap_us.load(), now - last_out_us.load());
                last_out_us = now;
                ++busy_out;
                gst_buffer_unref(b);
            }
        }
    });

    const gint64 start_us = g_get_monotonic_time();
    gint64 slowest_round_us = 0;
    for (int round = 0; round < kRounds; ++round) {
        const gint64 round_start = g_get_monotonic_time();
        GstHarness* h = harness_with({{"draw", "none"}});
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, kW, kH);
        fail_unless_equals_int(push_frame(h, busy_frame, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
        g_object_set(h->element, "classifier", profile_path.c_str(), nullptr);
        for (int k = 1; k < 3; ++k)
            fail_unless_equals_int(push_frame(h, busy_frame, GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        /* Stops with frames in flight. */
        gst_harness_teardown(h);
        slowest_round_us = std::max(slowest_round_us, g_get_monotonic_time() - round_start);
    }
    const double total_s = (g_get_monotonic_time() - start_us) / 1e6;
    stop = true;
    feeder.join();
    gst_harness_teardown(busy);

    /* A round is 3 frames and a classifier build (a few seconds on PoCL with
     * a cold kernel cache); the hang made one last minutes. */
    fail_unless(slowest_round_us < 30 * G_USEC_PER_SEC, "a restart took %.1f s beside a busy instance",
                slowest_round_us / 1e6);
    fail_unless(total_s < 120, "20 restarts took %.1f s beside a busy instance", total_s);
    fail_unless_equals_int(busy_bad.load(), 0);
    fail_unless(busy_out.load() >= kRounds, "the busy instance gave only %d frames in %.1f s", busy_out.load(),
                total_s);
    fail_unless(longest_gap_us.load() < 15 * G_USEC_PER_SEC, "the busy instance gave nothing for %.1f s",
                longest_gap_us.load() / 1e6);
}
GST_END_TEST;

/* A classifier that costs every window `weak` weak classifiers and accepts
 * none: frames as slow as a hostile classifier makes them, with nothing to
 * group. */
static std::string slow_classifier_file(int weak)
{
    return uniform_classifier_file("nothing", weak, static_cast<float>(weak) + 1.0f);
}

/* Frames that take a second or more on the device go to it one at a time:
 * a stop with more frames waiting waits for the one on the device, not for
 * max-inflight of them (a 150 s frame made a stop wait 258 s). Timed as a
 * ratio to the frames' own pace, which a loaded machine slows alike. */
GST_START_TEST(test_streams_stop_waits_for_one_slow_frame)
{
    constexpr int kFrames = 6;
    const std::string path = slow_classifier_file(12000);
    GstHarness* h = harness_with({{"classifier", path}, {"draw", "none"}, {"max-inflight", "3"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 448, 336);
    std::thread pusher([&] {
        for (int k = 0; k < kFrames; ++k)
            if (push_frame(h, synthetic(448, 336, k), GST_VIDEO_FORMAT_GRAY8, k) != GST_FLOW_OK)
                break; /* the stop below */
    });
    gint64 out_us[3] = {0, 0, 0};
    for (gint64& t : out_us) {
        GstBuffer* b = gst_harness_pull(h);
        fail_unless(b != nullptr, "no frame came out");
        t = g_get_monotonic_time();
        gst_buffer_unref(b);
    }
    /* Frames after the first (which waits for the program's build). */
    const double frame_s = (out_us[2] - out_us[0]) / 2e6;
    GstStructure* stats = nullptr;
    g_object_get(h->element, "stats", &stats, nullptr);
    const char* device_name = gst_structure_get_string(stats, "device");
    const std::string device = device_name ? device_name : "";
    gst_structure_free(stats);
    /* Half-way through the next frame. */
    g_usleep(static_cast<gulong>(frame_s * 0.5e6));
    const gint64 stop_start = g_get_monotonic_time();
    fail_unless(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    const double stop_s = (g_get_monotonic_time() - stop_start) / 1e6;
    pusher.join();
    gst_harness_teardown(h);
    /* A GPU runs these frames in milliseconds, where the rule does not
     * apply and a stop waits for nothing much anyway; on CPU devices
     * (PoCL, as CI runs) the frames must be slow enough to test it. */
    if (frame_s < 1.0 && !contains(device, "(CPU")) {
        g_print("test_streams_stop_waits_for_one_slow_frame: frames took %.3f s on %s: nothing to test there\n",
                frame_s, device.c_str());
        return;
    }
    fail_unless(frame_s >= 1.0, "frames took %.2f s on %s: too fast for the test (raise the classifier's length)",
                frame_s, device.c_str());
    g_print("test_streams_stop_waits_for_one_slow_frame: frames %.2f s, the stop %.2f s\n", frame_s, stop_s);
    /* The rest of the frame on the device: half a frame's time, and a whole
     * one more when the next frame had been put on the device behind it. */
    fail_unless(stop_s < frame_s, "the stop took %.2f s, frames %.2f s each: it waited for more than one", stop_s,
                frame_s);
}
GST_END_TEST;

/* A valid hostile cascade, within every model limit: Haar trees of 1,024
 * nodes that are chains (each node's left child is the next node, and every
 * feature value is below the nodes' threshold, so each window walks all of
 * them), and no rejection test. Every window costs `trees` x 1,024 Haar
 * features: a 320x240 frame takes minutes on PoCL with 2 cores. */
static std::string hostile_cascade_file(int trees)
{
    Classifier c;
    c.label = "hostile";
    c.window_width = 24;
    c.window_height = 24;
    c.final_threshold = 1.0f; /* every response is 0: nothing is accepted */
    waldboost::HaarTree tree;
    constexpr int kNodes = static_cast<int>(waldboost::ModelLimits::kMaxTreeNodes);
    for (int i = 0; i < kNodes; ++i) {
        waldboost::HaarNode node;
        node.feature.rects = {{2 + i % 8, 2, 8, 12, -1.0f}, {2 + i % 8, 8, 8, 6, 2.0f}};
        node.threshold = 1e30f;
        node.left = i + 1 < kNodes ? waldboost::HaarNode::Child{false, i + 1} : waldboost::HaarNode::Child{true, i};
        node.right = waldboost::HaarNode::Child{true, i == kNodes - 1 ? kNodes : i};
        tree.nodes.push_back(node);
    }
    tree.leaves.assign(kNodes + 1, 0.0f);
    waldboost::WeakClassifier w;
    w.feature = tree;
    w.reject_threshold = waldboost::kNoRejection;
    c.weak.assign(static_cast<size_t>(trees), w);
    return temporary_classifier_file(c);
}

/* The stats' field `name` as a string ("" without it). */
static std::string stats_field(GstHarness* h, const char* name)
{
    GstStructure* stats = nullptr;
    g_object_get(h->element, "stats", &stats, nullptr);
    const char* value = stats ? gst_structure_get_string(stats, name) : nullptr;
    const std::string text = value ? value : "";
    if (stats)
        gst_structure_free(stats);
    return text;
}

/* One window first, so that whatever the device compiles at a kernel's
 * first launch is done before the frame that is stopped. */
static void push_one_window(GstHarness* h)
{
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 24, 24);
    fail_unless_equals_int(push_frame(h, crop(astronaut(), 200, 100, 24, 24), GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    GstBuffer* first = gst_harness_pull(h);
    fail_unless(first != nullptr, "the one-window frame did not come out");
    gst_buffer_unref(first);
}

/* Pushes `frame` (a hostile classifier's), checks that it is still on the
 * device a second later (something to stop), then stops the element:
 * the stop's seconds. */
static double stop_during_hostile_frame(GstHarness* h, const GrayImage& frame)
{
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, frame.width, frame.height);
    fail_unless_equals_int(push_frame(h, frame, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
    g_usleep(G_USEC_PER_SEC);
    GstBuffer* early = gst_harness_try_pull(h);
    fail_unless(early == nullptr, "the hostile frame ended within a second: nothing to stop");
    const gint64 stop_start = g_get_monotonic_time();
    fail_unless(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    return (g_get_monotonic_time() - stop_start) / 1e6;
}

/* A stop while such a frame is on a CPU device ends within 2 s: the row
 * scan reads the engine's stop flag between steps of 16 windows, and the
 * frame's incomplete results are dropped with it. Before, the stop waited
 * for the whole frame (52 to 353 s for the 160x120 frames). */
GST_START_TEST(test_streams_stop_abandons_a_hostile_frame)
{
    if (!cpu_device_case(__func__))
        return;
    const std::string path = hostile_cascade_file(32);
    GstHarness* h = harness_with({{"classifier", path}, {"device", "cpu"}, {"draw", "none"}});
    GstBus* bus = attach_bus(h);
    push_one_window(h);
    const double stop_s = stop_during_hostile_frame(h, crop(astronaut(), 60, 20, 320, 240));
    g_print("test_streams_stop_abandons_a_hostile_frame: the stop took %.2f s\n", stop_s);
    fail_unless(stop_s < 2.0, "the stop took %.2f s with a hostile frame on the device", stop_s);
    fail_if(pop_error(bus).found, "the stop posted an error");
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* The same with the reduction, the GPUs' scan, on the CPU device: its
 * kernels read the stop flag every 16 weak classifiers when the classifier
 * is as costly as this one (STOP_CHECKS, kernels/waldboost.cl). Before,
 * the stop waited for the whole frame. */
GST_START_TEST(test_streams_stop_abandons_a_hostile_reduction)
{
    if (!cpu_device_case(__func__))
        return;
    const std::string path = hostile_cascade_file(32);
    /* Any field selects the reduction; this one is the CPU default. */
    GstHarness* h = harness_with(
        {{"classifier", path}, {"device", "cpu"}, {"draw", "none"}, {"reduction", "reduction, step2-repeats=(int)2"}});
    GstBus* bus = attach_bus(h);
    push_one_window(h);
    fail_unless(stats_field(h, "scan") == "reduction", "the scan is %s", stats_field(h, "scan").c_str());
    const double stop_s = stop_during_hostile_frame(h, crop(astronaut(), 60, 20, 320, 240));
    g_print("test_streams_stop_abandons_a_hostile_reduction: the stop took %.2f s\n", stop_s);
    fail_unless(stop_s < 2.0, "the stop took %.2f s with a hostile frame in the reduction", stop_s);
    fail_if(pop_error(bus).found, "the stop posted an error");
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* Two elements with batching on (and a wait so that their frames would go
 * to the device together): a classifier this costly launches each
 * element's frames alone, so the stop of one ends its frame within 2 s,
 * as without batching, and the other goes on. A batch's flag is never
 * raised (one engine may not end the others' frames): before, the first
 * stop waited for the whole batch. (20 trees, above the stop checks' 16: on one device queue, a's
 * frame starts once b's has ended.) */
GST_START_TEST(test_streams_stop_abandons_a_hostile_frame_with_batching)
{
    if (!cpu_device_case(__func__))
        return;
    const std::string path = hostile_cascade_file(20);
    const Props props = {{"classifier", path},       {"device", "cpu"},
                         {"draw", "none"},           {"batching", "true"},
                         {"batch-wait", "20000000"}, {"reduction", "reduction, step2-repeats=(int)2"}};
    GstHarness* a = harness_with(props);
    GstHarness* b = harness_with(props);
    GstBus* bus = attach_bus(a);
    push_one_window(a);
    push_one_window(b);
    const GrayImage frame = crop(astronaut(), 60, 20, 200, 160);
    set_caps(b, GST_VIDEO_FORMAT_GRAY8, frame.width, frame.height);
    fail_unless_equals_int(push_frame(b, frame, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
    const double stop_s = stop_during_hostile_frame(a, frame);
    g_print("test_streams_stop_abandons_a_hostile_frame_with_batching: the stop took %.2f s\n", stop_s);
    fail_unless(stop_s < 2.0, "the stop took %.2f s with batching on", stop_s);
    fail_if(pop_error(bus).found, "the stop posted an error");
    const gint64 stop_b = g_get_monotonic_time();
    fail_unless(gst_element_set_state(b->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS);
    fail_unless((g_get_monotonic_time() - stop_b) / 1e6 < 2.0, "the second element's stop took over 2 s");
    gst_element_set_bus(a->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(a);
    gst_harness_teardown(b);
}
GST_END_TEST;

/* The same on the default device, for GPUs (tests/device/run.sh
 * element-test): a 4K frame with 48 such trees (near the most a classifier
 * file may hold), so that even an H200 takes many seconds over it. The
 * flag reaches the GPU's memory through a write on the flag's own queue,
 * beside the kernel (engine/stop_flag.h). Nothing to test where the default
 * device is a CPU: the case above runs there. */
GST_START_TEST(test_streams_stop_abandons_a_hostile_frame_on_the_default_device)
{
    const std::string path = hostile_cascade_file(48);
    GstHarness* h = harness_with({{"classifier", path}, {"device", "auto"}, {"draw", "none"}});
    GstBus* bus = attach_bus(h);
    push_one_window(h);
    const std::string device = stats_field(h, "device");
    if (contains(device, "(CPU")) {
        g_print("test_streams_stop_abandons_a_hostile_frame_on_the_default_device: %s is a CPU: nothing to test "
                "there\n",
                device.c_str());
    } else {
        fail_unless(stats_field(h, "scan") == "reduction", "the scan is %s on %s", stats_field(h, "scan").c_str(),
                    device.c_str());
        const double stop_s = stop_during_hostile_frame(h, synthetic(3840, 2160, 1));
        g_print("test_streams_stop_abandons_a_hostile_frame_on_the_default_device: the stop took %.2f s on %s\n",
                stop_s, device.c_str());
        fail_unless(stop_s < 2.0, "the stop took %.2f s with a hostile frame on %s", stop_s, device.c_str());
    }
    fail_if(pop_error(bus).found, "the stop posted an error");
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* Batched instances of different sizes and classifiers while one of them
 * is given a classifier that cannot be loaded (a missing file, while
 * playing: a warning, and it goes on with its own) and another stops and
 * starts: every instance's frames keep their own detections. */
GST_START_TEST(test_streams_batched_neighbour_fails_and_restarts)
{
    const std::string profile_path = converted_classifier("lbpcascade_profileface");
    const Classifier profile = waldboost::load_classifier_file(profile_path);
    const Props batched = {{"batching", "true"}, {"batch-wait", "20000000"}, {"draw", "none"}};
    auto with = [&](Props extra) {
        Props p = batched;
        p.insert(p.end(), extra.begin(), extra.end());
        return harness_with(p);
    };
    GstHarness* a = with({});
    GstHarness* b = with({{"classifier", profile_path}, {"min-neighbors", "0"}});
    GstHarness* failing = with({});
    GstHarness* restarting = with({});
    GstBus* failing_bus = attach_bus(failing);
    set_caps(a, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    set_caps(b, GST_VIDEO_FORMAT_GRAY8, 256, 200);
    set_caps(failing, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    set_caps(restarting, GST_VIDEO_FORMAT_GRAY8, 160, 200);
    auto b_frame = [](int k) {
        return crop(astronaut(), 60 + 2 * k, 10 + k, 256, 200);
    };
    for (int k = 0; k < 8; ++k) {
        fail_unless_equals_int(push_frame(a, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        fail_unless_equals_int(push_frame(b, b_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        if (k == 3)
            g_object_set(failing->element, "classifier", "/nonexistent/waldboost-test/gone.xml", nullptr);
        fail_unless_equals_int(push_frame(failing, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        if (k == 4) {
            gst_harness_teardown(restarting);
            restarting = with({});
            set_caps(restarting, GST_VIDEO_FORMAT_GRAY8, 160, 200);
        }
        fail_unless_equals_int(
            push_frame(restarting, crop(astronaut(), 150, 10 + k, 160, 200), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    const BusLog failing_log = drain_bus(failing_bus);
    fail_unless(failing_log.errors.empty() && !failing_log.warnings.empty(),
                "the instance given a missing classifier: %zu errors, %zu warnings", failing_log.errors.size(),
                failing_log.warnings.size());
    push_eos(a);
    push_eos(b);
    push_eos(failing);
    std::vector<GstBuffer*> out_a = pull_all(a), out_b = pull_all(b), out_failing = pull_all(failing);
    fail_unless_equals_int(out_a.size(), 8);
    fail_unless_equals_int(out_b.size(), 8);
    fail_unless_equals_int(out_failing.size(), 8);
    for (int k = 0; k < 8; ++k) {
        CHECK_BOXES(out_a[k], expected_boxes(core(face_frame(k)), "face"), "instance a frame " + std::to_string(k));
        CHECK_BOXES(out_failing[k], expected_boxes(core(face_frame(k)), "face"),
                    "the instance given a missing classifier, frame " + std::to_string(k));
        CHECK_BOXES(out_b[k], expected_boxes(core(b_frame(k), params_mn(0), profile), profile.label),
                    "instance b frame " + std::to_string(k));
    }
    unref_all(out_a);
    unref_all(out_b);
    unref_all(out_failing);
    gst_element_set_bus(failing->element, nullptr);
    gst_object_unref(failing_bus);
    for (GstHarness* h : {a, b, failing, restarting})
        gst_harness_teardown(h);
}
GST_END_TEST;

/* An 8K (7680x4320) I420 frame with the astronaut in a corner and a textured
 * background: the core's detections. min-size keeps the CPU reference's
 * share of the test short; the engine still uploads and scales the whole
 * 8K frame. */
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
    teardown_with_bus(h, bus);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("streams");
    tcase_add_test(tc, test_streams_stop_abandons_a_hostile_frame);
    tcase_add_test(tc, test_streams_stop_abandons_a_hostile_reduction);
    tcase_add_test(tc, test_streams_stop_abandons_a_hostile_frame_on_the_default_device);
    tcase_add_test(tc, test_streams_stop_abandons_a_hostile_frame_with_batching);
    tcase_add_test(tc, test_streams_missing_timestamps);
    tcase_add_test(tc, test_streams_gap_events);
    tcase_add_test(tc, test_streams_resolution_every_few_frames);
    tcase_add_test(tc, test_streams_8k);
    tcase_add_test(tc, test_streams_instances_share_one_device);
    tcase_add_test(tc, test_streams_instances_batched_and_not);
    tcase_add_test(tc, test_streams_tracking_batched_and_not);
    tcase_add_test(tc, test_streams_busy_neighbour_never_stalls_a_restart);
    tcase_add_test(tc, test_streams_stop_waits_for_one_slow_frame);
    tcase_add_test(tc, test_streams_batched_neighbour_fails_and_restarts);
    return tc;
}
