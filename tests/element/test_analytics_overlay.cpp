/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, GstAnalytics metadata drawn by GStreamer's own
 * objectdetectionoverlay (gst-plugins-bad, 1.24 and later; built only
 * there): `waldboostdetect ! videoconvert ! objectdetectionoverlay` outlines
 * the boxes the core library's CPU reference detector finds, and nothing
 * else.
 */
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

namespace {

/* Opaque red (ARGB) outlines on a grey frame: no grey pixel is red. */
constexpr guint kOutline = 0xffff0000;

struct Rgba {
    std::vector<uint8_t> pixels;
    int width = 0, height = 0, stride = 0;

    const uint8_t* at(int x, int y) const
    {
        return &pixels[static_cast<size_t>(y) * stride + static_cast<size_t>(x) * 4];
    }
    bool red(int x, int y) const
    {
        const uint8_t* p = at(x, y);
        return p[0] > 200 && p[1] < 60 && p[2] < 60;
    }
    bool grey(int x, int y) const
    {
        const uint8_t* p = at(x, y);
        return p[0] == p[1] && p[1] == p[2];
    }
};

/* One GRAY8 frame through the detector and the overlay, as RGBA. */
Rgba overlaid(const GrayImage& image)
{
    const std::string pipeline = "waldboostdetect draw=none ! videoconvert ! video/x-raw,format=RGBA ! "
                                 "objectdetectionoverlay draw-labels=false object-detection-outline-color=" +
                                 std::to_string(kOutline) + " ! capsfilter caps=video/x-raw,format=RGBA";
    GstHarness* h = gst_harness_new_parse(pipeline.c_str());
    fail_unless(h != nullptr, "no pipeline %s (objectdetectionoverlay is in gstreamer1.0-plugins-bad)",
                pipeline.c_str());
    gst_harness_play(h);
    GstCaps* caps = caps_for(GST_VIDEO_FORMAT_GRAY8, image.width, image.height);
    gst_harness_set_src_caps(h, caps);
    fail_unless_equals_int(push_frame(h, image, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    GstCaps* out_caps = gst_pad_get_current_caps(h->sinkpad);
    GstVideoInfo info;
    fail_unless(out_caps && gst_video_info_from_caps(&info, out_caps));
    gst_caps_unref(out_caps);
    fail_unless_equals_int(GST_VIDEO_INFO_FORMAT(&info), GST_VIDEO_FORMAT_RGBA);
    GstVideoFrame frame;
    fail_unless(gst_video_frame_map(&frame, &info, out[0], GST_MAP_READ));
    Rgba rgba;
    rgba.width = GST_VIDEO_FRAME_WIDTH(&frame);
    rgba.height = GST_VIDEO_FRAME_HEIGHT(&frame);
    rgba.stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    const auto* data = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    rgba.pixels.assign(data, data + static_cast<size_t>(rgba.stride) * rgba.height);
    gst_video_frame_unmap(&frame);
    unref_all(out);
    gst_harness_teardown(h);
    return rgba;
}

}  // namespace

/* The astronaut's face: the overlay's 2-pixel stroke is centred on the
 * box's edges, so the pixels just inside each edge (at a quarter, half and
 * three quarters of its length) are red; the box's middle and the frame's
 * corners stay grey. */
GST_START_TEST(test_analytics_overlay_draws_boxes)
{
    const GrayImage image = face_frame(0);
    const std::vector<Box> boxes = expected_boxes(core(image), "face");
    fail_unless_equals_int(boxes.size(), 1);
    const Rgba out = overlaid(image);
    fail_unless(out.width == image.width && out.height == image.height);
    for (const Box& b : boxes) {
        for (int i = 1; i <= 3; ++i) {
            const int x = b.x + b.w * i / 4, y = b.y + b.h * i / 4;
            fail_unless(out.red(x, b.y), "no outline on the top edge at %d,%d", x, b.y);
            fail_unless(out.red(x, b.y + b.h - 1), "no outline on the bottom edge at %d,%d", x, b.y + b.h - 1);
            fail_unless(out.red(b.x, y), "no outline on the left edge at %d,%d", b.x, y);
            fail_unless(out.red(b.x + b.w - 1, y), "no outline on the right edge at %d,%d", b.x + b.w - 1, y);
        }
        fail_unless(out.grey(b.x + b.w / 2, b.y + b.h / 2), "the box's middle is drawn over");
        fail_unless(out.grey(b.x + 4, b.y + 4), "inside the box's corner is drawn over");
    }
    fail_unless(out.grey(0, 0) && out.grey(out.width - 1, out.height - 1), "the frame's corners are drawn over");

    /* Without detections nothing is red. */
    fail_unless(core(synthetic(200, 160)).empty());
    const Rgba none = overlaid(synthetic(200, 160));
    for (int y = 0; y < none.height; ++y)
        for (int x = 0; x < none.width; ++x)
            fail_unless(!none.red(x, y), "a red pixel at %d,%d of a frame without detections", x, y);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("analytics-overlay");
    tcase_add_test(tc, test_analytics_overlay_draws_boxes);
    return tc;
}
