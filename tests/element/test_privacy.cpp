/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, privacy: blur and pixelate in every format the element
 * takes (odd sizes, padded rows, textured chroma). The boxes come from the
 * core's reference detector; in each box nearly every sample of every
 * component changes, no other byte of the buffer does (padding included),
 * and the core no longer finds the face it found; privacy-labels selects;
 * between searches (interval) only tracking hides, and a warning says so;
 * tracking hides through the detector's misses.
 */
#include <algorithm>
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

namespace {

/* An odd-sized view of the astronaut's face: the chroma samples on the
 * boxes' and the frame's last odd column and row are covered. */
GrayImage odd_face() { return crop(astronaut(), 110, 25, 201, 161); }

/* A frame as make_frame() makes it, with a texture in its chroma too, so
 * that hiding shows there (RGB's colours are the image's texture already,
 * and other colours would change its gray). */
GstBuffer* textured_frame(const GrayImage& img, GstVideoFormat format, Sent* sent)
{
    GstBuffer* b = make_frame(img, format, pts_of(0), 8, sent);
    if (GST_VIDEO_INFO_IS_RGB(&sent->info))
        return b;
    GstVideoFrame frame;
    fail_unless(gst_video_frame_map(&frame, &sent->info, b, GST_MAP_WRITE));
    for (guint c = 1; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); ++c)
        for (int y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c); ++y)
            for (int x = 0; x < GST_VIDEO_FRAME_COMP_WIDTH(&frame, c); ++x)
                static_cast<guint8*>(GST_VIDEO_FRAME_COMP_DATA(
                    &frame, c))[static_cast<size_t>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c) +
                                static_cast<size_t>(x) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c)] =
                    static_cast<guint8>(96 + (x * 7 + y * 13 + c * 29) % 64);
    gst_video_frame_unmap(&frame);
    gst_buffer_extract(b, 0, sent->bytes.data(), sent->bytes.size());
    return b;
}

/* One frame through a new element with `props`. */
GstBuffer* run_one(const Props& props, const GrayImage& img, GstVideoFormat format, Sent* sent)
{
    GstHarness* h = harness_with(props);
    set_caps(h, format, img.width, img.height);
    fail_unless_equals_int(gst_harness_push(h, textured_frame(img, format, sent)), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    gst_harness_teardown(h);
    return out[0];
}

/* Checks that in every component the samples whose pixels all lie in a
 * box mostly changed (at least `min_changed` of them in each box), and
 * that no other byte of the buffer did. Returns the output's luma. */
GrayImage check_hidden(const Sent& sent, GstBuffer* out, const std::vector<Box>& boxes, double min_changed,
                       const char* what)
{
    std::vector<uint8_t> restored = bytes_of(out);
    fail_unless_equals_int(restored.size(), sent.bytes.size());
    const GstVideoInfo& info = sent.info;
    const int fw = GST_VIDEO_INFO_WIDTH(&info), fh = GST_VIDEO_INFO_HEIGHT(&info);
    GrayImage luma(fw, fh);
    for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&info); ++c) {
        const int ws = GST_VIDEO_FORMAT_INFO_W_SUB(info.finfo, c), hs = GST_VIDEO_FORMAT_INFO_H_SUB(info.finfo, c);
        const size_t base = GST_VIDEO_INFO_COMP_OFFSET(&info, c);
        const int stride = GST_VIDEO_INFO_COMP_STRIDE(&info, c), pstride = GST_VIDEO_INFO_COMP_PSTRIDE(&info, c);
        for (const Box& b : boxes) {
            int inside = 0, changed = 0;
            for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, c); ++y)
                for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, c); ++x) {
                    /* The sample's pixels, within the frame. */
                    const int px0 = x << ws, py0 = y << hs;
                    const int px1 = std::min(fw, (x + 1) << ws), py1 = std::min(fh, (y + 1) << hs);
                    if (px0 < b.x || py0 < b.y || px1 > b.x + b.w || py1 > b.y + b.h)
                        continue;
                    const size_t at = base + static_cast<size_t>(y) * stride + static_cast<size_t>(x) * pstride;
                    ++inside;
                    changed += restored[at] != sent.bytes[at];
                }
            /* make_frame's alpha is opaque everywhere: hiding keeps it. */
            const bool alpha = GST_VIDEO_INFO_HAS_ALPHA(&info) && c == GST_VIDEO_COMP_A;
            fail_unless(inside > 0 && (alpha || changed >= min_changed * inside),
                        "%s: component %u of box %d,%d %dx%d: %d of %d samples changed", what, c, b.x, b.y, b.w, b.h,
                        changed, inside);
        }
        for (int y = 0; y < GST_VIDEO_INFO_COMP_HEIGHT(&info, c); ++y)
            for (int x = 0; x < GST_VIDEO_INFO_COMP_WIDTH(&info, c); ++x) {
                const size_t at = base + static_cast<size_t>(y) * stride + static_cast<size_t>(x) * pstride;
                if (c == 0)
                    luma.at(x, y) = restored[at];
                const int px0 = x << ws, py0 = y << hs;
                const int px1 = std::min(fw, (x + 1) << ws), py1 = std::min(fh, (y + 1) << hs);
                for (const Box& b : boxes)
                    if (px0 >= b.x && py0 >= b.y && px1 <= b.x + b.w && py1 <= b.y + b.h)
                        restored[at] = sent.bytes[at];
            }
    }
    fail_unless(restored == sent.bytes, "%s: bytes outside the boxes changed", what);
    return luma;
}

bool overlaps(const Detection& d, const Box& b)
{
    return d.rect.x < b.x + b.w && b.x < d.rect.x + d.rect.width && d.rect.y < b.y + b.h &&
           b.y < d.rect.y + d.rect.height;
}

}  // namespace

GST_START_TEST(test_privacy_every_format)
{
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty(), "the core finds no face in the test image");
    for (const char* mode : {"blur", "pixelate"})
        for (GstVideoFormat f : kFormats) {
            const std::string what = std::string(mode) + " " + gst_video_format_to_string(f);
            Sent sent;
            GstBuffer* out = run_one({{"privacy", mode}, {"draw", "none"}}, img, f, &sent);
            CHECK_BOXES(out, want, what);
            const GrayImage luma = check_hidden(sent, out, want, 0.8, what.c_str());
            /* Hidden: the detector no longer finds a face where it did. */
            for (const Detection& d : core(luma))
                for (const Box& b : want)
                    fail_unless(!overlaps(d, b), "%s: a face is still found at %d,%d %dx%d", what.c_str(), d.rect.x,
                                d.rect.y, d.rect.width, d.rect.height);
            gst_buffer_unref(out);
        }
}
GST_END_TEST;

GST_START_TEST(test_privacy_labels)
{
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    Sent sent;
    /* Another label only: the frame goes out as it came. */
    GstBuffer* out = run_one({{"privacy", "pixelate"}, {"privacy-labels", "eye"}, {"draw", "none"}}, img,
                             GST_VIDEO_FORMAT_I420, &sent);
    CHECK_BOXES(out, want, "privacy-labels=eye");
    fail_unless(bytes_of(out) == sent.bytes, "privacy-labels=eye changed the frame of a face detector");
    gst_buffer_unref(out);
    /* The list names the label among others (blanks ignored). */
    out = run_one({{"privacy", "pixelate"}, {"privacy-labels", "eye, face"}, {"draw", "none"}}, img,
                  GST_VIDEO_FORMAT_I420, &sent);
    check_hidden(sent, out, want, 0.8, "privacy-labels=eye, face");
    gst_buffer_unref(out);
}
GST_END_TEST;

GST_START_TEST(test_privacy_under_burned_boxes)
{
    /* The outlines go over the hidden area: burned after hiding, they are
     * the colour burning alone gives them. */
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    Sent plain, hidden;
    GstBuffer* burned = run_one({{"draw", "burn"}}, img, GST_VIDEO_FORMAT_GRAY8, &plain);
    GstBuffer* both = run_one({{"draw", "burn"}, {"privacy", "blur"}}, img, GST_VIDEO_FORMAT_GRAY8, &hidden);
    const std::vector<bool> mask = outline_mask(outline_rects(want, img.width, img.height, 2), img.width, img.height);
    const PlanePair a = component(plain, burned, 0), b = component(hidden, both, 0);
    for (size_t i = 0; i < mask.size(); ++i)
        if (mask[i])
            fail_unless_equals_int(a.after[i], b.after[i]);
    gst_buffer_unref(burned);
    gst_buffer_unref(both);
}
GST_END_TEST;

/* Hiding between searches (interval): without tracking the frames between
 * go out as they came, and a warning says so once, naming the remedy; with
 * tracking they hide the tracked face too, from its first detection on
 * (before its track is confirmed and reported), and nothing is said. */
/* A privacy-labels name that none of the element's objects carries hides
 * nothing: one warning names it and the labels there are, again when the
 * unknown names change, none for names the objects carry (the label
 * property's included) or with privacy off. */
GST_START_TEST(test_privacy_unknown_labels)
{
    const GrayImage img = odd_face();
    const std::string eyes = haar_cascade("haarcascade_eye");
    struct Case {
        Props props;
        std::vector<std::string> later; /* privacy-labels set after frames 1 and 3 */
        std::vector<std::string> warned;
        std::string labels; /* as the warning lists them */
    };
    const Case cases[] = {
        {{{"privacy", "blur"}, {"privacy-labels", "eyes"}, {"eyes-profile", eyes}},
         {},
         {"\"eyes\""},
         "labels are \"face\", \"eye\""},
        {{{"privacy", "blur"}, {"privacy-labels", "face, eye"}, {"eyes-profile", eyes}}, {}, {}, ""},
        {{{"privacy", "none"}, {"privacy-labels", "faces"}}, {}, {}, ""},
        {{{"privacy", "blur"}, {"privacy-labels", "person"}, {"label", "person"}}, {}, {}, ""},
        {{{"privacy", "pixelate"}, {"privacy-labels", "faces"}},
         {"face", "bodies, face"},
         {"\"faces\"", "\"bodies\""},
         "label is \"face\""},
    };
    for (const Case& c : cases) {
        Props props = c.props;
        props.push_back({"draw", "none"});
        GstHarness* h = harness_with(props);
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
        for (int i = 0; i < 6; ++i) {
            if ((i == 2 || i == 4) && c.later.size() > static_cast<size_t>(i / 2 - 1))
                g_object_set(h->element, "privacy-labels", c.later[i / 2 - 1].c_str(), nullptr);
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, i), GST_FLOW_OK);
        }
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 6);
        std::string what;
        for (const auto& [name, value] : c.props)
            what += name + "=" + value + " ";
        const BusLog log = drain_bus(bus);
        fail_unless_equals_int(log.warnings.size(), c.warned.size());
        for (size_t i = 0; i < c.warned.size(); ++i) {
            const std::string& text = log.warnings[i].message;
            fail_unless(contains(text, "privacy-labels names " + c.warned[i] + ", which none") &&
                            contains(text, c.labels),
                        "%s: %s", what.c_str(), text.c_str());
        }
        unref_all(out);
        teardown_with_bus(h, bus);
    }
}
GST_END_TEST;

GST_START_TEST(test_privacy_between_searches)
{
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty(), "the core finds no face in the test image");
    constexpr int kFrames = 7;
    for (const bool tracking : {false, true}) {
        GstHarness* h = harness_with(
            {{"privacy", "blur"}, {"draw", "none"}, {"interval", "3"}, {"tracking", tracking ? "true" : "false"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
        std::vector<Sent> sent;
        for (int i = 0; i < kFrames; ++i)
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, i, &sent), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), kFrames);
        for (int i = 0; i < kFrames; ++i) {
            const std::string what =
                std::string(tracking ? "tracking" : "no tracking") + ", frame " + std::to_string(i);
            if (!tracking && i % 3 == 0)
                CHECK_BOXES(out[i], want, what);
            if (tracking || i % 3 == 0) {
                /* Before its track is confirmed (confirm-hits=2: the second
                 * search, frame 3) the face is hidden where it was found. */
                const std::vector<Box> reported = roi_boxes(out[i]);
                fail_unless(reported.empty() == (tracking && i < 3), "%s: %zu faces reported", what.c_str(),
                            reported.size());
                check_hidden(sent[i], out[i], reported.empty() ? want : reported, 0.8, what.c_str());
            } else {
                fail_unless(bytes_of(out[i]) == sent[i].bytes, "%s: changed between searches", what.c_str());
            }
        }
        const BusLog log = drain_bus(bus);
        if (tracking) {
            fail_unless(log.warnings.empty(), "a warning with tracking: %s", log.warnings[0].text().c_str());
        } else {
            fail_unless_equals_int(log.warnings.size(), 1);
            fail_unless(contains(log.warnings[0].message, "interval=3") &&
                            contains(log.warnings[0].message, "tracking=true"),
                        "%s", log.warnings[0].text().c_str());
        }
        unref_all(out);
        gst_object_unref(bus);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* With tracking and interval=3, the tracker starting afresh (a seek's
 * flush, a new lost-after) makes the next frame a search, whatever its
 * place in the interval: else the frames up to the next search would have
 * no track to hide, and the face would go out as it came. */
GST_START_TEST(test_privacy_after_the_tracker_restarts)
{
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty(), "the core finds no face in the test image");
    GstHarness* h = harness_with({{"privacy", "blur"}, {"draw", "none"}, {"interval", "3"}, {"tracking", "true"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    std::vector<Sent> sent;
    int pts = 0;
    auto push = [&](int count) {
        for (int i = 0; i < count; ++i)
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, pts++, &sent), GST_FLOW_OK);
    };
    push(2); /* frames 0 (searched) and 1 */
    push_flush(h);
    std::vector<GstBuffer*> out = pull_all(h); /* what left before the flush */
    unref_all(out);
    sent.clear();
    push(2); /* frames 2 and 3: 2 would not be searched by its number */
    g_object_set(h->element, "lost-after", 7, nullptr);
    push(2); /* frames 4 and 5: 4 neither */
    push_eos(h);
    out = pull_all(h);
    fail_unless_equals_int(out.size(), sent.size());
    for (size_t i = 0; i < out.size(); ++i)
        check_hidden(
            sent[i], out[i], want, 0.8,
            (std::string(i < 2 ? "after the flush" : "after lost-after changed") + ", frame " + std::to_string(i % 2))
                .c_str());
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A detector's miss with tracking: on one frame noise covers the face, and
 * the core finds no face there. The confirmed track coasts through that
 * frame unreported, and is hidden where it was. */
GST_START_TEST(test_privacy_through_a_miss)
{
    const GrayImage img = odd_face();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless_equals_int(want.size(), 1);
    const Box& face = want[0];
    GrayImage covered = img;
    uint32_t state = 12345;
    for (int y = face.y; y < face.y + face.h; ++y)
        for (int x = face.x; x < face.x + face.w; ++x) {
            state = state * 1664525u + 1013904223u;
            covered.at(x, y) = static_cast<uint8_t>(state >> 24);
        }
    for (const Detection& d : core(covered))
        fail_unless(!overlaps(d, face), "the core finds the covered face at %d,%d", d.rect.x, d.rect.y);
    const std::vector<const GrayImage*> frames = {&img, &img, &img, &covered, &img};
    GstHarness* h = harness_with({{"privacy", "blur"}, {"draw", "none"}, {"tracking", "true"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    std::vector<Sent> sent;
    for (size_t i = 0; i < frames.size(); ++i)
        fail_unless_equals_int(push_frame(h, *frames[i], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(i), &sent),
                               GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames.size());
    fail_unless(roi_boxes(out[2]) == want, "the face is reported before the miss");
    fail_unless(roi_boxes(out[3]).empty(), "the missed face is reported: %s", describe(roi_boxes(out[3])).c_str());
    check_hidden(sent[3], out[3], want, 0.8, "the frame the detector missed");
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("privacy");
    tcase_add_test(tc, test_privacy_every_format);
    tcase_add_test(tc, test_privacy_labels);
    tcase_add_test(tc, test_privacy_under_burned_boxes);
    tcase_add_test(tc, test_privacy_between_searches);
    tcase_add_test(tc, test_privacy_unknown_labels);
    tcase_add_test(tc, test_privacy_after_the_tracker_restarts);
    tcase_add_test(tc, test_privacy_through_a_miss);
    return tc;
}
