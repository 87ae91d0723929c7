/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, live changes: properties set while playing (min-neighbors,
 * the output properties, the classifier, the reduction) apply from a frame
 * boundary on, and setting them from another thread while streaming.
 */
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "harness.h"

using namespace element_test;

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
        CHECK_BOXES(out[k], want[k],
                    "min-neighbors=" + std::to_string(values[k]) + " set before frame " + std::to_string(k));
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
    teardown_with_bus(h, bus);
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
    teardown_with_bus(h, bus);
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
    teardown_with_bus(h, bus);
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
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* 200 changes of every kind of property from another thread while frames
 * stream with tracking, parts and box text (the hostile run):
 * every frame leaves, in order, no error is posted, and once the
 * properties are back at their defaults the next frames give the
 * reference's boxes again. */
GST_START_TEST(test_live_property_storm)
{
    const std::string eyes = haar_cascade("haarcascade_eye");
    const std::string profile = converted_classifier("lbpcascade_profileface");
    const std::vector<std::pair<const char*, std::vector<std::string>>> changes = {
        {"min-neighbors", {"0", "3", "7"}},
        {"threshold", {"0", "0.5", "-0.5"}},
        {"scale-factor", {"1.1", "1.3", "2"}},
        {"min-size", {"0", "40", "90"}},
        {"stride", {"0", "2"}},
        {"grouping", {"opencv", "nms", "none"}},
        {"min-confidence", {"0", "0.5"}},
        {"max-windows", {"100000", "10", "0"}},
        {"roi", {"<>", "<10, 10, 120, 100>"}},
        {"tracking", {"true", "false"}},
        {"interval", {"1", "3"}},
        {"lost-after", {"1", "15"}},
        {"eyes-profile", {"", eyes}},
        {"parts", {"all", "first"}},
        {"part-min-neighbors", {"-1", "0"}},
        {"draw", {"none", "burn", "meta"}},
        {"box-text", {"", "label+id+confidence"}},
        {"label", {"", "<b>a &amp; b", "x"}},
        {"label-colors", {"colors", "colors,face=(uint)0xff00ff00"}},
        {"updates", {"every-frame", "events", "none"}},
        {"classifier", {"", profile}},
        {"max-inflight", {"2", "1", "3"}},
    };
    GstHarness* h = harness_with({{"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    std::atomic<bool> stop{false};
    std::thread storm([&] {
        guint32 seed = 12345;
        for (int i = 0; i < 200; ++i) {
            seed = seed * 1664525u + 1013904223u;
            const auto& [name, values] = changes[(seed >> 8) % changes.size()];
            gst_util_set_object_arg(G_OBJECT(h->element), name, values[(seed >> 20) % values.size()].c_str());
            g_usleep(1000);
        }
        stop = true;
    });
    int pushed = 0;
    while (!stop.load() || pushed < 20) {
        fail_unless_equals_int(push_frame(h, face_frame(pushed % 8), GST_VIDEO_FORMAT_GRAY8, pushed), GST_FLOW_OK);
        ++pushed;
        /* A message per frame: keep the bus short, but no error passes. */
        while (GstMessage* m = gst_bus_pop(bus)) {
            fail_if(GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR, "an error during the storm (frame %d)", pushed);
            gst_message_unref(m);
        }
    }
    storm.join();
    std::vector<GstBuffer*> out = pull_all(h);
    /* Back to the defaults: the next frame is the reference's. */
    for (const auto& [name, values] : changes) {
        GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(h->element), name);
        GValue value = G_VALUE_INIT;
        g_value_init(&value, spec->value_type);
        g_param_value_set_default(spec, &value);
        g_object_set_property(G_OBJECT(h->element), name, &value);
        g_value_unset(&value);
    }
    gst_util_set_object_arg(G_OBJECT(h->element), "draw", "none");
    fail_unless_equals_int(push_frame(h, face_frame(0), GST_VIDEO_FORMAT_GRAY8, pushed), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> last = pull_all(h);
    out.insert(out.end(), last.begin(), last.end());
    fail_unless_equals_int(out.size(), pushed + 1);
    for (int k = 0; k <= pushed; ++k)
        fail_unless_equals_int(frame_index(out[k]), k);
    CHECK_BOXES(out[pushed], expected_boxes(core(face_frame(0)), "face"), "after the storm");
    const ErrorInfo error = pop_error(bus);
    fail_if(error.found, "an error after the storm: %s", error.text().c_str());
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("live");
    tcase_add_test(tc, test_live_min_neighbors);
    tcase_add_test(tc, test_live_output_properties_at_frame_boundary);
    tcase_add_test(tc, test_live_classifier_change);
    tcase_add_test(tc, test_live_reduction_change);
    tcase_add_test(tc, test_live_property_thread);
    tcase_add_test(tc, test_live_property_storm);
    return tc;
}
