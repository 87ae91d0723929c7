/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, detections: the region-of-interest metas on astronaut.png
 * against the core library's CPU reference detector, in every format, with
 * padded rows (GstVideoMeta strides) and odd widths.
 */
#include <string>
#include <vector>

#include <gst/video/gstvideometa.h>

#include "harness.h"

using namespace element_test;

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

TCase* element_case()
{
    TCase* tc = tcase_create("detections");
    tcase_add_test(tc, test_rois_astronaut_gray8);
    tcase_add_test(tc, test_rois_astronaut_i420);
    tcase_add_test(tc, test_rois_padded_rows);
    tcase_add_test(tc, test_rois_every_format);
    tcase_add_test(tc, test_rois_odd_width);
    return tc;
}
