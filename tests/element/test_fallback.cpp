/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, fallback: device lists under OpenCL faults (at start, on
 * enqueue or wait with frames in flight, with roi-list across a change of
 * frame size, every device failing, batched instances, max-inflight
 * shrinking when memory runs out), each fault in
 * element-fault-helper (run_fault_helper()), and a frame too large for the
 * engine, which is the stream's fault and no reason to fall back.
 */
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

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

/* A frame of two regions takes about six enqueues here (48 for the eight
 * frames): the 30th is about the change of frame size, with frames in
 * flight. */
GST_START_TEST(test_fallback_with_regions) { check_fault_mode("fallback-regions", "enqueue:30"); }
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
    teardown_with_bus(h, bus);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("fallback");
    tcase_add_test(tc, test_fallback_at_start);
    tcase_add_test(tc, test_fallback_on_enqueue);
    tcase_add_test(tc, test_fallback_on_wait);
    tcase_add_test(tc, test_fallback_with_regions);
    tcase_add_test(tc, test_fallback_exhausted);
    tcase_add_test(tc, test_fallback_start_exhausted);
    tcase_add_test(tc, test_inflight_shrinks_when_memory_runs_out);
    tcase_add_test(tc, test_fallback_not_for_too_large_frames);
    tcase_add_test(tc, test_fault_one_instance_of_a_batch);
    tcase_add_test(tc, test_fault_a_whole_batch_falls_back);
    return tc;
}
