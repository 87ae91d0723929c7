/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, detections: the region-of-interest metas on astronaut.png
 * against the core library's CPU reference detector, in every format, with
 * padded rows (GstVideoMeta strides) and odd widths; a GstVideoCropMeta
 * against the same frame cropped for real.
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

/* Two faces side by side; a GstVideoCropMeta shows only the right one (as
 * videocrop attaches when downstream takes the meta, instead of cropping).
 * The boxes must be those of the frame cropped for real: in the visible
 * frame's coordinates, none from the hidden face; with draw=burn the
 * visible pixels are those of the real crop's output (the outlines drawn
 * where the visible boxes lie), the hidden ones untouched. Before, the
 * element searched the whole buffer: both faces, in the buffer's
 * coordinates. The roi property is in the visible frame's coordinates too. */
static GrayImage two_faces()
{
    GrayImage canvas(420, 180);
    for (int y = 0; y < canvas.height; ++y)
        for (int x = 0; x < canvas.width; ++x)
            canvas.at(x, y) = 128;
    const GrayImage left = face_frame(0), right = face_frame(4);
    for (int y = 0; y < left.height; ++y)
        for (int x = 0; x < left.width; ++x) {
            canvas.at(x + 4, y + 10) = left.at(x, y);
            canvas.at(x + 214, y + 14) = right.at(x, y);
        }
    return canvas;
}

static GstBuffer* run_one(const Props& props, const GrayImage& img, const GstVideoCropMeta* crop)
{
    GstHarness* h = harness_with(props);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    GstBuffer* b = make_frame(img, GST_VIDEO_FORMAT_GRAY8, pts_of(0));
    if (crop) {
        GstVideoCropMeta* meta = gst_buffer_add_video_crop_meta(b);
        meta->x = crop->x;
        meta->y = crop->y;
        meta->width = crop->width;
        meta->height = crop->height;
    }
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    gst_harness_teardown(h);
    return out[0];
}

GST_START_TEST(test_rois_crop_meta)
{
    const GrayImage canvas = two_faces();
    GstVideoCropMeta shown{};
    shown.x = 210;
    shown.y = 6;
    shown.width = 206;
    shown.height = 172;
    const GrayImage visible = crop(canvas, static_cast<int>(shown.x), static_cast<int>(shown.y),
                                   static_cast<int>(shown.width), static_cast<int>(shown.height));
    const std::vector<Box> whole = expected_boxes(core(canvas), "face");
    const std::vector<Box> want = expected_boxes(core(visible), "face");
    fail_unless(whole.size() >= 2 && !want.empty() && want.size() < whole.size(),
                "the test needs a face on each side: %s", describe(whole).c_str());

    GstBuffer* out = run_one({{"draw", "none"}}, canvas, &shown);
    CHECK_BOXES(out, want, "crop meta");
    gst_buffer_unref(out);

    /* roi in the visible frame's coordinates: its right half. */
    const Props roi = {{"draw", "none"}, {"roi", "<100, 0, 106, 172>"}};
    out = run_one(roi, canvas, &shown);
    GstBuffer* real = run_one(roi, visible, nullptr);
    CHECK_BOXES(out, roi_boxes(real), "crop meta and roi");
    gst_buffer_unref(out);
    gst_buffer_unref(real);

    /* draw=burn: the visible part as the real crop's output. */
    out = run_one({{"draw", "burn"}, {"box-text", "label+id"}}, canvas, &shown);
    real = run_one({{"draw", "burn"}, {"box-text", "label+id"}}, visible, nullptr);
    CHECK_BOXES(out, want, "crop meta, burn");
    const std::vector<uint8_t> got = bytes_of(out), real_bytes = bytes_of(real);
    int differ = 0, hidden_changed = 0;
    for (int y = 0; y < canvas.height; ++y)
        for (int x = 0; x < canvas.width; ++x) {
            const uint8_t g = got[static_cast<size_t>(y) * GST_ROUND_UP_4(canvas.width) + x];
            const int vx = x - static_cast<int>(shown.x), vy = y - static_cast<int>(shown.y);
            if (vx >= 0 && vy >= 0 && vx < visible.width && vy < visible.height)
                differ += g != real_bytes[static_cast<size_t>(vy) * GST_ROUND_UP_4(visible.width) + vx];
            else
                hidden_changed += g != canvas.at(x, y);
        }
    fail_unless(differ == 0 && hidden_changed == 0,
                "burn with a crop meta: %d visible pixels differ from the real crop's, %d hidden pixels changed",
                differ, hidden_changed);
    gst_buffer_unref(out);
    gst_buffer_unref(real);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("detections");
    tcase_add_test(tc, test_rois_crop_meta);
    tcase_add_test(tc, test_rois_astronaut_gray8);
    tcase_add_test(tc, test_rois_astronaut_i420);
    tcase_add_test(tc, test_rois_padded_rows);
    tcase_add_test(tc, test_rois_every_format);
    tcase_add_test(tc, test_rois_odd_width);
    return tc;
}
