/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, quality of service: a QOS event from downstream (a video
 * sink that gets frames late) makes the frames that cannot be on time pass
 * without a search; none is lost, and the frames in time keep the
 * reference's detections. Which frames those are is GStreamer's QoS design
 * (its QoS design document, and GstVideoDecoder's rule): after a frame late
 * by `diff`, every frame up to its time + 2 x `diff` + one frame period.
 * qos=false and privacy search every frame; a flush forgets the lateness.
 */
#include <set>
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

namespace {

/* A frame period at the harness's 30 fps, in nanoseconds. */
const GstClockTimeDiff kPeriod = GST_CLOCK_DIFF(pts_of(0), pts_of(1));

/* Frames 0 to `frames` - 1 of face_frame(0) (30 fps, running time =
 * PTS), with a QOS event after frame 2 saying that the sink got frame 2
 * late by `late_by`. By the rule above the default, 1.25 frame periods,
 * makes frames 3 to 5 late (up to frame 5.5); GstBaseTransform's rule,
 * timestamp + diff, would make only frame 3 late. Returns what left, in
 * order. */
std::vector<GstBuffer*> stream_with_qos(GstHarness* h, int frames = 9, GstClockTimeDiff late_by = kPeriod * 5 / 4)
{
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    for (int k = 0; k < frames; ++k) {
        if (k == 3)
            fail_unless(
                gst_harness_push_upstream_event(h, gst_event_new_qos(GST_QOS_TYPE_UNDERFLOW, 0.5, late_by, pts_of(2))));
        fail_unless_equals_int(push_frame(h, face_frame(0), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames);
    for (int k = 0; k < frames; ++k)
        fail_unless_equals_int(frame_index(out[k]), k);
    return out;
}

/* The INFO messages on `bus` that say detection is slower than the stream. */
int slower_than_stream_messages(GstBus* bus)
{
    int found = 0;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_INFO)) {
        GError* error = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_info(m, &error, &debug);
        if (contains(error->message, "slower than the stream")) {
            fail_unless(contains(error->message, "qos=false") && debug && contains(debug, "late"),
                        "INFO message: %s | %s", error->message, debug ? debug : "");
            ++found;
        }
        g_error_free(error);
        g_free(debug);
        gst_message_unref(m);
    }
    return found;
}

/* What the detector's search meta on a frame says (by its documented name,
 * "WaldboostSearchMeta"): whether the frame passed without detection. Fails
 * where the meta is missing or names another element. */
bool detection_skipped(GstBuffer* b, GstElement* element)
{
    GstCustomMeta* meta = gst_buffer_get_custom_meta(b, "WaldboostSearchMeta");
    fail_unless(meta != nullptr, "a frame without the search meta");
    const GstStructure* s = gst_custom_meta_get_structure(meta);
    fail_unless(gst_structure_has_name(s, "waldboostdetect-search"));
    fail_unless_equals_string(gst_structure_get_string(s, "detector-name"), GST_OBJECT_NAME(element));
    gboolean skipped = FALSE;
    fail_unless(gst_structure_get_boolean(s, "skipped", &skipped));
    return skipped;
}

/* The per-frame messages' detection-skipped fields, in frame order. */
std::vector<bool> messages_detection_skipped(GstBus* bus)
{
    std::vector<bool> skipped;
    for (GstMessage* m : pop_element_messages(bus)) {
        gboolean one = FALSE;
        fail_unless(gst_structure_get_boolean(gst_message_get_structure(m), "detection-skipped", &one));
        skipped.push_back(one);
        gst_message_unref(m);
    }
    return skipped;
}

}  // namespace

/* The late frames pass without a search, in order; the frames before and
 * after have the reference's boxes; the stats count them; one INFO
 * message says why. */
GST_START_TEST(test_qos_late_frames_pass_unsearched)
{
    GstHarness* h = harness_with({{"draw", "none"}});
    GstBus* bus = attach_bus(h);
    std::vector<GstBuffer*> out = stream_with_qos(h);
    const std::vector<Box> want = expected_boxes(core(face_frame(0)), "face");
    fail_if(want.empty());
    for (int k = 0; k < 9; ++k) {
        CHECK_BOXES(out[k], (k >= 3 && k <= 5) ? std::vector<Box>{} : want, "frame " + std::to_string(k));
        /* What reads the buffers (the JSON documents) can tell "no face"
         * from "not searched". */
        fail_unless_equals_int(detection_skipped(out[k], h->element), k >= 3 && k <= 5);
    }
    fail_unless_equals_uint64(stats_uint64(h->element, "qos-skipped"), 3);
    fail_unless_equals_uint64(stats_uint64(h->element, "detected-frames"), 6);
    fail_unless_equals_int(slower_than_stream_messages(bus), 1);
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* qos=false searches every frame, whatever downstream says; so does
 * privacy, which would otherwise let a late frame show what it hides. */
GST_START_TEST(test_qos_off_and_privacy_search_every_frame)
{
    const std::vector<Box> want = expected_boxes(core(face_frame(0)), "face");
    for (const Props& props :
         {Props{{"draw", "none"}, {"qos", "false"}}, Props{{"draw", "none"}, {"privacy", "blur"}}}) {
        GstHarness* h = harness_with(props);
        std::vector<GstBuffer*> out = stream_with_qos(h);
        for (int k = 0; k < 9; ++k)
            CHECK_BOXES(out[k], want, props.back().first + " frame " + std::to_string(k));
        fail_unless_equals_uint64(stats_uint64(h->element, "qos-skipped"), 0);
        fail_unless_equals_uint64(stats_uint64(h->element, "detected-frames"), 9);
        unref_all(out);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* With tracking the late frames are followed by the tracker, as interval
 * frames are: the face stays reported, placed by the template search. */
GST_START_TEST(test_qos_tracking_follows_late_frames)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"tracking", "true"}});
    std::vector<GstBuffer*> out = stream_with_qos(h);
    for (int k = 1; k < 9; ++k) {
        int objects = 0;
        gboolean detected = TRUE;
        gpointer state = nullptr;
        while (GstMeta* m =
                   gst_buffer_iterate_meta_filtered(out[k], &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
            const GstStructure* param = gst_video_region_of_interest_meta_get_param(
                reinterpret_cast<GstVideoRegionOfInterestMeta*>(m), "detection");
            fail_unless(param && gst_structure_get_boolean(param, "detected", &detected));
            ++objects;
        }
        fail_unless(objects > 0, "frame %d: the tracked face is not reported", k);
        fail_unless_equals_int(detected, !(k >= 3 && k <= 5));
    }
    fail_unless_equals_uint64(stats_uint64(h->element, "qos-skipped"), 3);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* With interval=3 the frame due for a search that was late (frame 3;
 * frame 2 late by three quarters of a period makes frames 3 and 4 late, up
 * to frame 4.5) hands the search to the next frame in time: frames 0, 5
 * and 8 are searched, not 0, 6 and 9. Each frame's search meta and message
 * say which were not. */
GST_START_TEST(test_qos_interval_searches_the_next_frame_in_time)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"interval", "3"}});
    GstBus* bus = attach_bus(h);
    std::vector<GstBuffer*> out = stream_with_qos(h, 10, kPeriod * 3 / 4);
    std::set<int> searched;
    std::string list;
    for (int k = 0; k < 10; ++k)
        if (!roi_boxes(out[k]).empty()) {
            searched.insert(k);
            list += " " + std::to_string(k);
        }
    fail_unless(searched == (std::set<int>{0, 5, 8}), "frames with boxes:%s, not 0 5 8", list.c_str());
    std::vector<bool> passed;
    for (int k = 0; k < 10; ++k) {
        passed.push_back(searched.count(k) == 0);
        fail_unless_equals_int(detection_skipped(out[k], h->element), passed.back());
    }
    fail_unless(messages_detection_skipped(bus) == passed, "the messages' detection-skipped are not the frames'");
    fail_unless_equals_uint64(stats_uint64(h->element, "qos-skipped"), 2);
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* A flush (a seek) forgets the lateness: the new segment's frames are
 * searched even where their running times repeat the late ones. */
GST_START_TEST(test_qos_flush_forgets_lateness)
{
    GstHarness* h = harness_with({{"draw", "none"}});
    std::vector<GstBuffer*> first = stream_with_qos(h, 5);
    unref_all(first);
    push_flush(h);
    const std::vector<Box> want = expected_boxes(core(face_frame(0)), "face");
    for (int k = 0; k < 6; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(0), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 6);
    for (int k = 0; k < 6; ++k)
        CHECK_BOXES(out[k], want, "after the flush, frame " + std::to_string(k));
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("qos");
    tcase_add_test(tc, test_qos_late_frames_pass_unsearched);
    tcase_add_test(tc, test_qos_off_and_privacy_search_every_frame);
    tcase_add_test(tc, test_qos_tracking_follows_late_frames);
    tcase_add_test(tc, test_qos_interval_searches_the_next_frame_in_time);
    tcase_add_test(tc, test_qos_flush_forgets_lateness);
    return tc;
}
