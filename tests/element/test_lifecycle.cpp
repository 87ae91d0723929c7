/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, lifecycle: twenty cycles through every state, with frames
 * in flight dropped by the state change, each cycle's detections, messages
 * and stats counted afresh.
 */
#include <string>
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
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("lifecycle");
    tcase_add_test(tc, test_lifecycle_state_cycles);
    return tc;
}
