/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, drawing: draw=none, burn, meta and auto, box-text, colour
 * and line width (burned outlines checked pixel by pixel, overlay metas
 * rectangle by rectangle), draw=meta without a renderer downstream, and a
 * classifier that accepts every window.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <glib/gstdio.h>
#include <gst/video/video-overlay-composition.h>

#include "core/model/classifier_io.h"
#include "harness.h"

using namespace element_test;

static std::vector<Rect> composition_rects(GstBuffer* b, guint expected_color)
{
    std::vector<Rect> rects;
    GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(b);
    if (!meta)
        return rects;
    for (guint i = 0; i < gst_video_overlay_composition_n_rectangles(meta->overlay); ++i) {
        GstVideoOverlayRectangle* r = gst_video_overlay_composition_get_rectangle(meta->overlay, i);
        gint x, y;
        guint w, h;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(r, &x, &y, &w, &h));
        rects.push_back(Rect{x, y, static_cast<int>(w), static_cast<int>(h)});
        GstBuffer* pixels = gst_video_overlay_rectangle_get_pixels_unscaled_raw(r, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        fail_unless(map.size >= w * h * 4);
        guint32 word;
        std::memcpy(&word, map.data, 4);
        fail_unless(word == expected_color, "rectangle %u has colour 0x%08x, expected 0x%08x", i, word, expected_color);
        gst_buffer_unmap(pixels, &map);
    }
    std::sort(rects.begin(), rects.end());
    return rects;
}

GST_START_TEST(test_draw_none)
{
    const GrayImage img = face_frame(0);
    for (GstVideoFormat f : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420}) {
        DrawRun r = run_draw({{"draw", "none"}}, img, f);
        fail_unless(!roi_boxes(r.out[0]).empty());
        fail_unless(bytes_of(r.out[0]) == r.sent[0].bytes, "draw=none changed pixels");
        fail_unless(gst_buffer_get_video_overlay_composition_meta(r.out[0]) == nullptr);
        unref_all(r.out);
    }
}
GST_END_TEST;

/* label-colors for a label none of the objects carries colours nothing:
 * one warning names it and the labels there are; none for the detector's
 * own label. */
GST_START_TEST(test_draw_label_colors_of_unknown_labels)
{
    const GrayImage img = face_frame(0);
    for (const char* colors : {"colors,faces=(uint)0xff0000ff", "colors,face=(uint)0xff0000ff"}) {
        GstHarness* h = harness_with({{"draw", "meta"}, {"label-colors", colors}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        for (int i = 0; i < 3; ++i)
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, i), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 3);
        const BusLog log = drain_bus(bus);
        const bool unknown = contains(colors, "faces");
        fail_unless_equals_int(log.warnings.size(), unknown ? 1 : 0);
        if (unknown)
            fail_unless(contains(log.warnings[0].message, "label-colors names \"faces\", which none") &&
                            contains(log.warnings[0].message, "Its label is \"face\""),
                        "%s", log.warnings[0].message.c_str());
        unref_all(out);
        teardown_with_bus(h, bus);
    }
}
GST_END_TEST;

GST_START_TEST(test_draw_burn)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    for (GstVideoFormat f : {GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_NV12,
                             GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY}) {
        DrawRun r = run_draw({{"draw", "burn"}}, img, f);
        CHECK_BOXES(r.out[0], want, "burn");
        fail_unless(gst_buffer_get_video_overlay_composition_meta(r.out[0]) == nullptr);
        check_burn(r.sent[0], r.out[0], want, 2, gst_video_format_to_string(f));
        unref_all(r.out);
    }
}
GST_END_TEST;

/* RGB frames take the colour itself in each of red, green and blue; an
 * alpha component keeps its value, and nothing off the outlines changes. */
GST_START_TEST(test_draw_burn_rgb)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    const std::vector<bool> mask = outline_mask(outline_rects(want, img.width, img.height, 2), img.width, img.height);
    for (GstVideoFormat f :
         {GST_VIDEO_FORMAT_RGB, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xBGR, GST_VIDEO_FORMAT_ARGB}) {
        const char* name = gst_video_format_to_string(f);
        DrawRun r = run_draw({{"draw", "burn"}, {"color", "0xff2080c0"}}, img, f);
        CHECK_BOXES(r.out[0], want, name);
        for (guint c = 0; c < GST_VIDEO_INFO_N_COMPONENTS(&r.sent[0].info); ++c) {
            const int colour = c == GST_VIDEO_COMP_R ? 0x20 : c == GST_VIDEO_COMP_G ? 0x80 : 0xc0;
            const PlanePair p = component(r.sent[0], r.out[0], c);
            for (size_t i = 0; i < mask.size(); ++i) {
                const int expected = mask[i] && c != GST_VIDEO_COMP_A ? colour : p.before[i];
                fail_unless(p.after[i] == expected, "%s: component %u of pixel %zu is %d, not %d", name, c, i,
                            p.after[i], expected);
            }
        }
        unref_all(r.out);
    }
}
GST_END_TEST;

GST_START_TEST(test_draw_meta)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img, params_mn(0)), "face");
    fail_unless(want.size() > 1);
    DrawRun r = run_draw({{"draw", "meta"}, {"min-neighbors", "0"}, {"line-width", "3"}, {"color", "0x80ff0000"}}, img,
                         GST_VIDEO_FORMAT_I420);
    CHECK_BOXES(r.out[0], want, "meta");
    fail_unless(bytes_of(r.out[0]) == r.sent[0].bytes, "draw=meta changed pixels");
    const std::vector<Rect> rects = composition_rects(r.out[0], 0x80ff0000u);
    const std::vector<Rect> expected = outline_rects(want, img.width, img.height, 3);
    fail_unless_equals_int(rects.size(), 4 * want.size());
    fail_unless(rects == expected, "overlay rectangles differ from the box outlines");
    unref_all(r.out);
}
GST_END_TEST;

GST_START_TEST(test_draw_auto)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    /* Downstream (the harness) does not take the overlay meta: burn. */
    DrawRun burned = run_draw({}, img, GST_VIDEO_FORMAT_I420, false);
    fail_unless(gst_buffer_get_video_overlay_composition_meta(burned.out[0]) == nullptr,
                "draw=auto attached a meta downstream cannot take");
    check_burn(burned.sent[0], burned.out[0], want, 2, "auto without overlay meta support");
    unref_all(burned.out);
    /* It does: meta, pixels untouched. */
    DrawRun meta = run_draw({}, img, GST_VIDEO_FORMAT_I420, true);
    fail_unless(bytes_of(meta.out[0]) == meta.sent[0].bytes, "draw=auto burned although downstream takes the meta");
    const std::vector<Rect> rects = composition_rects(meta.out[0], 0xff00ff00u);
    fail_unless(rects == outline_rects(want, img.width, img.height, 2));
    unref_all(meta.out);
}
GST_END_TEST;

/* box-text: a tag above each box in the box's colour, with the text drawn
 * on it (not a flat fill); burned, it changes the pixels above the box and
 * nothing else that the boxes alone leave. label-colors overrides color. */
GST_START_TEST(test_draw_box_text)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless_equals_int(want.size(), 1);
    const Box& face = want[0];
    DrawRun r = run_draw(
        {{"draw", "meta"}, {"box-text", "label+id+confidence"}, {"label-colors", "colors,face=(uint)0xff0000ff"}}, img,
        GST_VIDEO_FORMAT_I420);
    const std::vector<Rect> rects = composition_rects(r.out[0], 0xff0000ffu); /* label-colors, not color */
    fail_unless_equals_int(rects.size(), 5);
    const std::vector<Rect> bars = outline_rects(want, img.width, img.height, 2);
    std::vector<Rect> tags;
    for (const Rect& rect : rects)
        if (std::find(bars.begin(), bars.end(), rect) == bars.end())
            tags.push_back(rect);
    fail_unless_equals_int(tags.size(), 1);
    const Rect& tag = tags[0];
    fail_unless(tag.h >= 10 && tag.h <= 48 && tag.w > tag.h, "tag %dx%d", tag.w, tag.h);
    fail_unless(tag.x == face.x && (tag.y + tag.h == face.y || (face.y < tag.h && tag.y == face.y)),
                "the tag (%d,%d %dx%d) is not above the box (%d,%d)", tag.x, tag.y, tag.w, tag.h, face.x, face.y);
    /* The glyphs: some of the tag's pixels are not the fill. */
    GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(r.out[0]);
    int drawn = 0;
    for (guint i = 0; i < gst_video_overlay_composition_n_rectangles(meta->overlay); ++i) {
        GstVideoOverlayRectangle* rect = gst_video_overlay_composition_get_rectangle(meta->overlay, i);
        GstBuffer* pixels =
            gst_video_overlay_rectangle_get_pixels_unscaled_raw(rect, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        for (gsize k = 0; k + 4 <= map.size; k += 4) {
            guint32 word;
            std::memcpy(&word, map.data + k, 4);
            drawn += word != 0xff0000ffu;
        }
        gst_buffer_unmap(pixels, &map);
    }
    fail_unless(drawn > 20, "only %d pixels of text", drawn);
    unref_all(r.out);

    /* Burned: the same boxes as without text, and the tag's pixels above. */
    DrawRun plain = run_draw({{"draw", "burn"}}, img, GST_VIDEO_FORMAT_I420);
    DrawRun text = run_draw({{"draw", "burn"}, {"box-text", "label"}}, img, GST_VIDEO_FORMAT_I420);
    const std::vector<uint8_t> a = bytes_of(plain.out[0]), b = bytes_of(text.out[0]);
    fail_unless_equals_int(a.size(), b.size());
    int changed_above = 0, changed_elsewhere = 0;
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x) {
            const size_t k = static_cast<size_t>(y) * img.width + x; /* the luma plane comes first */
            if (a[k] == b[k])
                continue;
            const bool above = y < face.y + 48 && y >= std::max(0, face.y - 48) && x >= face.x;
            (above ? changed_above : changed_elsewhere)++;
        }
    fail_unless(changed_above > 20 && changed_elsewhere == 0, "%d luma pixels changed near the box, %d elsewhere",
                changed_above, changed_elsewhere);
    unref_all(plain.out);
    unref_all(text.out);
}
GST_END_TEST;

/* draw=meta with nothing downstream that takes the overlay composition
 * meta: the boxes would not show anywhere, so an INFO message says so,
 * once; not when downstream takes the meta, nor with draw=burn. */
static int draw_info_messages(const Props& props, bool downstream_overlay_meta)
{
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    if (downstream_overlay_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    set_caps(h, GST_VIDEO_FORMAT_I420, 200, 160);
    for (int k = 0; k < 3; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_I420, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    unref_all(out);
    int infos = 0;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_INFO)) {
        GError* error = nullptr;
        gchar* debug = nullptr;
        gst_message_parse_info(m, &error, &debug);
        /* gst-launch-1.0 prints the debug text of INFO messages. */
        fail_unless(contains(error->message, "draw=meta") && contains(error->message, "draw=burn") && debug &&
                        contains(debug, "draw=meta") && contains(debug, "draw=burn"),
                    "INFO message: %s | %s", error->message, debug ? debug : "");
        g_error_free(error);
        g_free(debug);
        gst_message_unref(m);
        ++infos;
    }
    teardown_with_bus(h, bus);
    return infos;
}

GST_START_TEST(test_draw_meta_without_renderer)
{
    fail_unless_equals_int(draw_info_messages({{"draw", "meta"}}, false), 1);
    fail_unless_equals_int(draw_info_messages({{"draw", "meta"}}, true), 0);
    fail_unless_equals_int(draw_info_messages({{"draw", "burn"}}, false), 0);
    fail_unless_equals_int(draw_info_messages({}, false), 0);
    GstElement* e = make_element({});
    GEnumClass* draw = G_ENUM_CLASS(
        g_type_class_ref(G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "draw"))));
    const GEnumValue* meta = g_enum_get_value_by_nick(draw, "meta");
    fail_unless(meta && contains(meta->value_name, "only where an element renders"),
                "draw=meta's description does not say who shows the boxes: %s", meta ? meta->value_name : "");
    g_type_class_unref(draw);
    gst_object_unref(e);
}
GST_END_TEST;

GST_START_TEST(test_draw_color_and_line_width)
{
    const GrayImage img = face_frame(2);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    DrawRun white =
        run_draw({{"draw", "burn"}, {"color", "0xffffffff"}, {"line-width", "5"}}, img, GST_VIDEO_FORMAT_GRAY8);
    const int vw = check_burn(white.sent[0], white.out[0], want, 5, "white, line-width 5");
    DrawRun black =
        run_draw({{"draw", "burn"}, {"color", "0xff000000"}, {"line-width", "1"}}, img, GST_VIDEO_FORMAT_GRAY8);
    const int vb = check_burn(black.sent[0], black.out[0], want, 1, "black, line-width 1");
    fail_unless(vw >= 200 && vb <= 40, "white burns as %d, black as %d", vw, vb);
    /* Colour reaches chroma in I420: red and blue differ. */
    DrawRun red = run_draw({{"draw", "burn"}, {"color", "0xffff0000"}}, img, GST_VIDEO_FORMAT_I420);
    DrawRun blue = run_draw({{"draw", "burn"}, {"color", "0xff0000ff"}}, img, GST_VIDEO_FORMAT_I420);
    check_burn(red.sent[0], red.out[0], want, 2, "red");
    check_burn(blue.sent[0], blue.out[0], want, 2, "blue");
    const PlanePair vr = component(red.sent[0], red.out[0], 2), vbl = component(blue.sent[0], blue.out[0], 2);
    const Box& b = want[0];
    /* A chroma sample whose (even) luma row lies in the top bar. */
    const size_t i = static_cast<size_t>((b.y + 1) / 2) * vr.w + (b.x + b.w / 2) / 2;
    fail_unless(vr.after[i] > 200 && vbl.after[i] < 128, "V of red %d, of blue %d", vr.after[i], vbl.after[i]);
    for (DrawRun* r : {&white, &black, &red, &blue})
        unref_all(r->out);
}
GST_END_TEST;

/* A classifier that accepts every window: 585,373 windows on a 640x480
 * frame. They used to take minutes to group, and gigabytes to draw with
 * grouping=none (a buffer per box edge). Now a frame keeps the first
 * max-windows of them, draws them straight into the frame, and one warning
 * per stream says so. */
static std::string accept_all_classifier_file() { return uniform_classifier_file("everything", 1, 0.0f); }

/* Pops every message of the bus: the max-windows warnings (counted, each
 * checked for what it must say, their texts kept in `texts`) and the
 * per-frame element messages' windows-cut fields. */
static int count_max_windows_warnings(GstBus* bus, std::vector<guint64>* cuts = nullptr,
                                      std::vector<std::string>* texts = nullptr)
{
    int warnings = 0;
    while (GstMessage* m = gst_bus_pop(bus)) {
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            GError* error = nullptr;
            gchar* debug = nullptr;
            gst_message_parse_warning(m, &error, &debug);
            const std::string text = error->message;
            fail_unless(contains(text, "max-windows") && contains(text, "threshold") && contains(text, "min-size"),
                        "warning: %s", text.c_str());
            if (texts)
                texts->push_back(text);
            g_error_free(error);
            g_free(debug);
            ++warnings;
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "waldboostdetect") && cuts) {
            guint64 cut = 0;
            fail_unless(gst_structure_get_uint64(gst_message_get_structure(m), "windows-cut", &cut));
            cuts->push_back(cut);
        }
        gst_message_unref(m);
    }
    return warnings;
}

GST_START_TEST(test_draw_accept_all_classifier)
{
    const std::string path = accept_all_classifier_file();
    GrayImage img(640, 480);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < img.width; ++x)
            img.at(x, y) = static_cast<uint8_t>((x * 7 + y * 13) % 251);
    DetectParams params;
    params.grouping = waldboost::Grouping::None;
    params.max_windows = 0;
    const Classifier classifier = waldboost::load_classifier_file(path);
    waldboost::DetectStats all;
    waldboost::detect_raw(classifier, img.view(), params, &all);
    const guint64 accepted = all.accepted;
    fail_unless(accepted > static_cast<guint64>(waldboost::kDefaultMaxWindows), "only %" G_GUINT64_FORMAT " windows",
                accepted);

    /* draw=burn, grouping=none, the default cap: every frame leaves with
     * max-windows boxes burnt in, one warning for the three frames. */
    {
        GstHarness* h = harness_with({{"classifier", path}, {"draw", "burn"}, {"grouping", "none"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        std::vector<Sent> sent;
        for (int k = 0; k < 3; ++k)
            fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, k, &sent), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 3);
        params.max_windows = waldboost::kDefaultMaxWindows;
        const std::vector<Box> want = expected_boxes(waldboost::detect(classifier, img.view(), params), "everything");
        fail_unless_equals_int(want.size(), waldboost::kDefaultMaxWindows);
        const std::vector<Box> got = roi_boxes(out[2]);
        fail_unless(got == want, "the boxes are not the first max-windows windows (%zu boxes)", got.size());
        check_burn(sent[2], out[2], want, 2, "accept-all, burn");
        std::vector<guint64> cuts;
        std::vector<std::string> texts;
        fail_unless_equals_int(count_max_windows_warnings(bus, &cuts, &texts), 1);
        fail_unless(!contains(texts[0], "privacy"), "privacy is off, yet: %s", texts[0].c_str());
        fail_unless_equals_int(cuts.size(), 3);
        for (guint64 cut : cuts)
            fail_unless_equals_uint64(cut, accepted - waldboost::kDefaultMaxWindows);
        GstStructure* stats = nullptr;
        g_object_get(h->element, "stats", &stats, nullptr);
        guint64 total_cut = 0;
        fail_unless(gst_structure_get_uint64(stats, "windows-cut", &total_cut));
        fail_unless_equals_uint64(total_cut, 3 * (accepted - waldboost::kDefaultMaxWindows));
        gst_structure_free(stats);
        unref_all(out);
        teardown_with_bus(h, bus);
    }

    /* draw=meta with a smaller cap: the boxes' outlines in one overlay
     * rectangle, not four per box; max-windows=0 keeps every window (and
     * warns about nothing). */
    {
        GstHarness* h = harness_with({{"classifier", path},
                                      {"draw", "meta"},
                                      {"grouping", "none"},
                                      {"max-windows", "500"},
                                      {"color", "0xff0000ff"},
                                      {"max-inflight", "1"}});
        GstBus* bus = attach_bus(h);
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        std::vector<Sent> sent;
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 0, &sent), GST_FLOW_OK);
        /* The worker pushes it when detection is done: wait for it. */
        std::vector<GstBuffer*> out{gst_harness_pull(h)};
        fail_unless(out[0] != nullptr);
        fail_unless(bytes_of(out[0]) == sent[0].bytes, "draw=meta changed pixels");
        const std::vector<Box> boxes = roi_boxes(out[0]);
        fail_unless_equals_int(boxes.size(), 500);
        GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(out[0]);
        fail_unless(meta != nullptr);
        fail_unless_equals_int(gst_video_overlay_composition_n_rectangles(meta->overlay), 1);
        GstVideoOverlayRectangle* r = gst_video_overlay_composition_get_rectangle(meta->overlay, 0);
        gint rx, ry;
        guint rw, rh;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(r, &rx, &ry, &rw, &rh));
        GstBuffer* pixels = gst_video_overlay_rectangle_get_pixels_unscaled_raw(r, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
        GstMapInfo map;
        fail_unless(gst_buffer_map(pixels, &map, GST_MAP_READ));
        fail_unless(map.size >= static_cast<gsize>(rw) * rh * 4);
        /* Painted exactly where the outlines are, in the colour. */
        const std::vector<bool> mask =
            outline_mask(outline_rects(boxes, img.width, img.height, 2), img.width, img.height);
        for (int y = 0; y < img.height; ++y)
            for (int x = 0; x < img.width; ++x) {
                const bool inside =
                    x >= rx && y >= ry && x < rx + static_cast<int>(rw) && y < ry + static_cast<int>(rh);
                guint32 word = 0;
                if (inside)
                    std::memcpy(&word, map.data + (static_cast<gsize>(y - ry) * rw + (x - rx)) * 4, 4);
                const bool outline = mask[static_cast<size_t>(y) * img.width + x];
                fail_unless(word == (outline ? 0xff0000ffu : 0u), "overlay pixel (%d,%d) is 0x%08x, outline %d", x, y,
                            word, outline);
            }
        gst_buffer_unmap(pixels, &map);
        fail_unless_equals_int(count_max_windows_warnings(bus), 1);
        unref_all(out);

        g_object_set(h->element, "max-windows", 0, nullptr);
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 1), GST_FLOW_OK);
        push_eos(h);
        out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        fail_unless_equals_uint64(roi_boxes(out[0]).size(), accepted);
        fail_unless_equals_int(count_max_windows_warnings(bus), 0);
        unref_all(out);
        teardown_with_bus(h, bus);
    }

    /* With privacy the windows left out are not hidden either: the warning
     * says so, naming the mode. */
    {
        GstHarness* h = harness_with({{"classifier", path},
                                      {"grouping", "none"},
                                      {"max-windows", "500"},
                                      {"privacy", "pixelate"},
                                      {"max-inflight", "1"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_I420, img.width, img.height);
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 0), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        std::vector<std::string> texts;
        fail_unless_equals_int(count_max_windows_warnings(bus, nullptr, &texts), 1);
        fail_unless(contains(texts[0], "privacy=pixelate does not hide"), "warning: %s", texts[0].c_str());
        unref_all(out);
        teardown_with_bus(h, bus);
    }
    g_unlink(path.c_str());
}
GST_END_TEST;

/* One face frame through "waldboostdetect PROPS ! videoscale" to a sink
 * (the harness) that takes the overlay meta and wants half the size. */
static GstBuffer* through_scaler(const std::string& props, const GrayImage& img)
{
    GstHarness* h = gst_harness_new_parse(("waldboostdetect " + props + " ! videoscale").c_str());
    gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    GstCaps* in = caps_for(GST_VIDEO_FORMAT_I420, img.width, img.height);
    GstCaps* out = caps_for(GST_VIDEO_FORMAT_I420, img.width / 2, img.height / 2);
    gst_harness_set_caps(h, in, out);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_I420, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> buffers = pull_all(h);
    fail_unless_equals_int(buffers.size(), 1);
    gst_harness_teardown(h);
    return buffers[0];
}

/* draw=auto with a scaler between the element and a sink that takes the
 * overlay meta: GStreamer copies the meta through the scaler unscaled (the
 * boxes would show in the top-left quarter), so the boxes are burned in
 * before the scaler and scale with the frame. */
GST_START_TEST(test_draw_auto_before_a_scaler)
{
    const GrayImage img = face_frame(0);
    fail_unless(!core(img).empty(), "the reference finds no face: the test needs one");
    GstBuffer* drawn = through_scaler("draw=auto", img);
    GstBuffer* plain = through_scaler("draw=none", img);
    fail_unless(gst_buffer_get_video_overlay_composition_meta(drawn) == nullptr,
                "draw=auto attached an overlay meta that the scaler passes on unscaled");
    fail_unless(bytes_of(drawn) != bytes_of(plain), "draw=auto drew nothing before the scaler");
    gst_buffer_unref(drawn);
    gst_buffer_unref(plain);
}
GST_END_TEST;

/* Tags in a crowd (an accept-all classifier, grouping=none: thousands of
 * overlapping 24-pixel boxes on a 96x96 frame): no tag covers another, each
 * lies in the frame, no wider than its box where its shortest text allows,
 * and some are drawn. */
GST_START_TEST(test_draw_box_text_in_a_crowd)
{
    const std::string path = accept_all_classifier_file();
    const GrayImage img = crop(face_frame(0), 50, 30, 96, 96);
    DrawRun r = run_draw({{"classifier", path}, {"grouping", "none"}, {"draw", "meta"}, {"box-text", "label+id"}}, img,
                         GST_VIDEO_FORMAT_GRAY8);
    GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(r.out[0]);
    fail_unless(meta != nullptr);
    std::vector<Rect> tags;
    for (guint i = 0; i < gst_video_overlay_composition_n_rectangles(meta->overlay); ++i) {
        Rect t{0, 0, 0, 0};
        guint w = 0, h = 0;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(
            gst_video_overlay_composition_get_rectangle(meta->overlay, i), &t.x, &t.y, &w, &h));
        t.w = static_cast<int>(w);
        t.h = static_cast<int>(h);
        if (t.w < img.width || t.h < img.height) /* the outlines are one frame-sized image */
            tags.push_back(t);
    }
    fail_unless(tags.size() >= 4, "only %zu tags drawn", tags.size());
    for (size_t i = 0; i < tags.size(); ++i) {
        const Rect& a = tags[i];
        fail_unless(a.x >= 0 && a.y >= 0 && a.x + a.w <= img.width && a.y + a.h <= img.height,
                    "tag %d,%d %dx%d outside the frame", a.x, a.y, a.w, a.h);
        fail_unless(a.h <= 24 / 3 + 2 * 2 + 4, "a %d-pixel tag on 24-pixel boxes", a.h);
        for (size_t j = 0; j < i; ++j) {
            const Rect& b = tags[j];
            fail_if(a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h,
                    "tags %d,%d %dx%d and %d,%d %dx%d cover each other", a.x, a.y, a.w, a.h, b.x, b.y, b.w, b.h);
        }
    }
    unref_all(r.out);
}
GST_END_TEST;

/* Labels are drawn as text, never read as Pango markup: "<b>a</b>" makes a
 * wider tag than "a" (its brackets are drawn), and "&", an unbalanced tag
 * or emoji still give a tag. */
GST_START_TEST(test_draw_box_text_is_never_markup)
{
    const GrayImage img = face_frame(0);
    fail_unless_equals_int(core(img).size(), 1);
    auto tag_width = [&](const std::string& label) {
        DrawRun r = run_draw({{"draw", "meta"}, {"box-text", "label"}, {"label", label}}, img, GST_VIDEO_FORMAT_I420);
        GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(r.out[0]);
        fail_unless(meta != nullptr, "label %s: nothing drawn", label.c_str());
        /* The four outline bars, then the tag. */
        const guint n = gst_video_overlay_composition_n_rectangles(meta->overlay);
        fail_unless_equals_int(n, 5);
        gint x, y;
        guint w, h;
        fail_unless(gst_video_overlay_rectangle_get_render_rectangle(
            gst_video_overlay_composition_get_rectangle(meta->overlay, n - 1), &x, &y, &w, &h));
        unref_all(r.out);
        return static_cast<int>(w);
    };
    const int plain = tag_width("a"), marked = tag_width("<b>a</b>");
    fail_unless(marked > plain + 10, "\"<b>a</b>\" made a %d-pixel tag, \"a\" %d: read as markup", marked, plain);
    for (const char* label : {"a & b", "<i>open", "\xF0\x9F\x98\x80 face"})
        fail_unless(tag_width(label) > 0);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("drawing");
    tcase_add_test(tc, test_draw_none);
    tcase_add_test(tc, test_draw_burn);
    tcase_add_test(tc, test_draw_burn_rgb);
    tcase_add_test(tc, test_draw_label_colors_of_unknown_labels);
    tcase_add_test(tc, test_draw_meta);
    tcase_add_test(tc, test_draw_auto);
    tcase_add_test(tc, test_draw_meta_without_renderer);
    tcase_add_test(tc, test_draw_box_text);
    tcase_add_test(tc, test_draw_color_and_line_width);
    tcase_add_test(tc, test_draw_accept_all_classifier);
    tcase_add_test(tc, test_draw_auto_before_a_scaler);
    tcase_add_test(tc, test_draw_box_text_in_a_crowd);
    tcase_add_test(tc, test_draw_box_text_is_never_markup);
    return tc;
}
