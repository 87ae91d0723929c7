/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, messages: the "waldboostdetect" element messages on the
 * bus, post-messages=false, and the LATENCY query.
 */
#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "harness.h"

using namespace element_test;

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
    teardown_with_bus(h, bus);
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
    teardown_with_bus(h, bus);
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
    /* With interval > 1 the frames that skip detection queue between the
     * frames on the device, up to 4 per frame there: max-inflight x
     * min(interval, 4) frames held in all. */
    for (const auto& [mi, interval, held] : {std::tuple{2, 3, 6}, std::tuple{1, 2, 2}, std::tuple{2, 10, 8}}) {
        GstHarness* h = harness_with({{"max-inflight", std::to_string(mi)}, {"interval", std::to_string(interval)}});
        gst_harness_set_upstream_latency(h, upstream);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48, 30, 1);
        GstClockTime max;
        gboolean live;
        const GstClockTime min = query_min_latency(h, &max, &live);
        fail_unless_equals_uint64(
            min, upstream + gst_util_uint64_scale_int(static_cast<guint64>(held - 1) * GST_SECOND, 1, 30));
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

TCase* element_case()
{
    TCase* tc = tcase_create("messages");
    tcase_add_test(tc, test_messages);
    tcase_add_test(tc, test_post_messages_false);
    tcase_add_test(tc, test_latency_query);
    return tc;
}
