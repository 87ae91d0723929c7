/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, detections: the region-of-interest metas on astronaut.png
 * against the core library's CPU reference detector, in every format, with
 * padded rows (GstVideoMeta strides) and odd widths; a GstVideoCropMeta
 * against the same frame cropped for real, with caps of the frame's size
 * and, as videocrop sends it, of the crop's; frames from the pool of pinned
 * memory the element proposes upstream, that pool's config, and the switch
 * that stops the element proposing it.
 */
#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gst/video/gstvideometa.h>

#include "core/detection/image.h"
#include "core/model/classifier_io.h"
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
    g_snprintf(what, sizeof what, "astronaut.png as %s, row padding %d", gst_video_format_to_string(format), pad_bytes);
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

/* The pool the element proposes upstream for `caps` (full reference), with
 * the size and minimum it proposes; checked to be its pool of pinned memory,
 * with GstVideoMeta. */
static GstBufferPool* proposed_pool(GstHarness* h, GstCaps* caps, guint* size, guint* min)
{
    GstQuery* query = gst_query_new_allocation(caps, TRUE);
    fail_unless(gst_pad_peer_query(h->srcpad, query), "the element did not answer the allocation query");
    fail_unless(gst_query_get_n_allocation_pools(query) > 0);
    GstBufferPool* pool = nullptr;
    guint max = 0;
    gst_query_parse_nth_allocation_pool(query, 0, &pool, size, min, &max);
    fail_unless(pool != nullptr, "no pool proposed");
    fail_unless_equals_string(G_OBJECT_TYPE_NAME(pool), "WaldboostPinnedPool");
    fail_unless(gst_query_find_allocation_meta(query, GST_VIDEO_META_API_TYPE, nullptr));
    gst_query_unref(query);
    return pool;
}

/* Upstream that allocates from the pool the element proposes (as decoders
 * and videotestsrc do) gets memory the device reads directly; frames written
 * there give the reference's detections, the same as frames of its own. */
GST_START_TEST(test_rois_from_the_proposed_pool)
{
    const GrayImage img = face_frame(0);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty());
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    GstCaps* caps = caps_for(GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    guint size = 0, min = 0;
    GstBufferPool* pool = proposed_pool(h, caps, &size, &min);
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, min, 0);
    fail_unless(gst_buffer_pool_set_config(pool, config));
    fail_unless(gst_buffer_pool_set_active(pool, TRUE));
    constexpr int kFrames = 6; /* more than max-inflight: buffers go back to the pool and come again */
    for (int k = 0; k < kFrames; ++k) {
        GstBuffer* b = nullptr;
        fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &b, nullptr), GST_FLOW_OK);
        GstVideoInfo info;
        fail_unless(gst_video_info_from_caps(&info, caps));
        GstVideoFrame frame;
        fail_unless(gst_video_frame_map(&frame, &info, b, GST_MAP_WRITE));
        for (int y = 0; y < img.height; ++y)
            std::copy(img.view().row(y), img.view().row(y) + img.width,
                      static_cast<uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)) +
                          static_cast<size_t>(y) * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
        gst_video_frame_unmap(&frame);
        GST_BUFFER_PTS(b) = pts_of(k);
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), kFrames);
    for (int k = 0; k < kFrames; ++k)
        CHECK_BOXES(out[k], want, ("frame " + std::to_string(k) + " from the proposed pool").c_str());
    unref_all(out);
    gst_harness_teardown(h);
    /* The pool outlives the element: its blocks keep the device's context. */
    fail_unless(gst_buffer_pool_set_active(pool, FALSE));
    gst_object_unref(pool);
    gst_caps_unref(caps);
}
GST_END_TEST;

/* The size upstream sets on the proposed pool (issue 55, item 3). More than
 * a frame (padding, trailing data) is accepted only if the buffers hold it:
 * upstream writes that much once told TRUE. Less than a frame is refused,
 * with the config raised to a frame's, which validates against the request
 * and is then accepted, as GstVideoDecoder and GstBaseSrc retry. */
GST_START_TEST(test_proposed_pool_honours_the_size_asked)
{
    GstHarness* h = harness_with({{"draw", "none"}});
    const int width = 171, height = 133; /* odd: the rows are padded to 172 */
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, width, height);
    GstCaps* caps = caps_for(GST_VIDEO_FORMAT_GRAY8, width, height);
    GstVideoInfo info;
    fail_unless(gst_video_info_from_caps(&info, caps));
    const auto frame_size = static_cast<guint>(GST_VIDEO_INFO_SIZE(&info));
    guint size = 0, min = 0;
    GstBufferPool* pool = proposed_pool(h, caps, &size, &min);
    fail_unless_equals_int(size, frame_size);

    const guint larger = frame_size + 4096;
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, larger, min, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    fail_unless(gst_buffer_pool_set_config(pool, config), "a size larger than a frame was refused");
    config = gst_buffer_pool_get_config(pool);
    guint accepted = 0;
    fail_unless(gst_buffer_pool_config_get_params(config, nullptr, &accepted, nullptr, nullptr));
    gst_structure_free(config);
    fail_unless_equals_int(accepted, larger);
    fail_unless(gst_buffer_pool_set_active(pool, TRUE));
    GstBuffer* b = nullptr;
    fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &b, nullptr), GST_FLOW_OK);
    fail_unless(gst_buffer_get_size(b) >= larger, "the pool accepted %u bytes a buffer and gave %" G_GSIZE_FORMAT,
                larger, gst_buffer_get_size(b));
    GstMapInfo map;
    fail_unless(gst_buffer_map(b, &map, GST_MAP_WRITE));
    std::fill(map.data, map.data + larger, uint8_t{128}); /* the frame and the trailing bytes upstream asked for */
    gst_buffer_unmap(b, &map);
    /* Such a buffer is a frame to the element like any other. */
    GST_BUFFER_PTS(b) = pts_of(0);
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    unref_all(out);
    fail_unless(gst_buffer_pool_set_active(pool, FALSE));

    const guint smaller = frame_size - 1;
    config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, smaller, min, 0);
    fail_if(gst_buffer_pool_set_config(pool, config), "a size smaller than a frame was accepted");
    config = gst_buffer_pool_get_config(pool);
    fail_unless(gst_buffer_pool_config_get_params(config, nullptr, &accepted, nullptr, nullptr));
    fail_unless_equals_int(accepted, frame_size);
    fail_unless(gst_buffer_pool_config_validate_params(config, caps, smaller, min, 0),
                "the refused config, raised to a frame, does not validate");
    /* The pool was configured before (the larger size), so GstBufferPool
     * takes this config, equal to the one it kept, without asking the pool:
     * the buffers must be a frame long all the same. */
    fail_unless(gst_buffer_pool_set_config(pool, config), "the raised config was refused");
    fail_unless(gst_buffer_pool_set_active(pool, TRUE));
    fail_unless_equals_int(gst_buffer_pool_acquire_buffer(pool, &b, nullptr), GST_FLOW_OK);
    fail_unless_equals_int(gst_buffer_get_size(b), frame_size);
    gst_buffer_unref(b);
    fail_unless(gst_buffer_pool_set_active(pool, FALSE));

    gst_harness_teardown(h);
    gst_object_unref(pool);
    gst_caps_unref(caps);
}
GST_END_TEST;

/* Whether the element proposes a pool of its own for frames of `format`
 * (it always proposes its minimum of buffers). */
static bool proposes_a_pool(GstVideoFormat format)
{
    GstHarness* h = harness_with({{"draw", "none"}});
    set_caps(h, format, 160, 120);
    GstCaps* caps = caps_for(format, 160, 120);
    GstQuery* query = gst_query_new_allocation(caps, TRUE);
    fail_unless(gst_pad_peer_query(h->srcpad, query), "the element did not answer the allocation query");
    fail_unless_equals_int(gst_query_get_n_allocation_pools(query), 1);
    GstBufferPool* pool = nullptr;
    gst_query_parse_nth_allocation_pool(query, 0, &pool, nullptr, nullptr, nullptr);
    const bool proposed = pool != nullptr;
    if (pool)
        gst_object_unref(pool);
    gst_query_unref(query);
    gst_caps_unref(caps);
    gst_harness_teardown(h);
    return proposed;
}

/* WALDBOOST_NO_PINNED_POOL: the element proposes its minimum without a
 * pool of its own, and upstream makes its own. */
GST_START_TEST(test_no_pinned_pool_switch)
{
    g_setenv("WALDBOOST_NO_PINNED_POOL", "1", TRUE);
    fail_if(proposes_a_pool(GST_VIDEO_FORMAT_GRAY8), "a pool was proposed with WALDBOOST_NO_PINNED_POOL set");
    g_unsetenv("WALDBOOST_NO_PINNED_POOL");
}
GST_END_TEST;

/* Packed 4:2:2 gets no pool of pinned memory (its luma is copied out of
 * the frame, so the device never reads the frame itself); GRAY8 of the
 * same size does. */
GST_START_TEST(test_no_pinned_pool_for_packed_formats)
{
    fail_unless(proposes_a_pool(GST_VIDEO_FORMAT_GRAY8), "no pool of pinned memory was proposed for GRAY8");
    for (GstVideoFormat f : {GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY})
        fail_if(proposes_a_pool(f), "a pool of pinned memory was proposed for %s", gst_video_format_to_string(f));
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

/* OpenCV's gray of a colour (opencv-agreement holds it to cvtColor). */
static int opencv_gray(int r, int g, int b)
{
    return waldboost::rgb_to_gray(static_cast<uint8_t>(r), static_cast<uint8_t>(g), static_cast<uint8_t>(b));
}

/* RGB frames are searched in OpenCV's gray of their colours, as
 * facedetect searches them. The frame's gray is a face of low contrast
 * (100 to 140), and its colours are chosen so that the gray with red and
 * blue swapped is that face inverted: a frame read with its colours in the
 * wrong places (red for blue, or the alpha or padding byte, random here,
 * for a colour) shows the detector no face. */
GST_START_TEST(test_rois_rgb_formats_search_the_gray_of_the_colours)
{
    GrayImage img = face_frame(0);
    for (uint8_t& p : img.pixels)
        p = static_cast<uint8_t>(100 + p * 40 / 255);
    const std::vector<Box> want = expected_boxes(core(img), "face");
    fail_unless(!want.empty(), "no face in the frame of low contrast");
    std::mt19937 rng(5);
    const size_t n = img.pixels.size();
    std::vector<uint8_t> red(n), green(n), blue(n);
    GrayImage swapped(img.width, img.height);
    for (size_t i = 0; i < n; ++i) {
        const int v = img.pixels[i];
        /* Gray is (9798 r + 19235 g + 3735 b + 16384) >> 15, so the swap
         * moves it by (9798 - 3735) (b - r) / 32768: to 240 - v. */
        const int d = (v - 120) * 2 * 32768 / (9798 - 3735);
        const int r = 128 + d / 2, b = r - d;
        /* The least green whose gray is v. */
        const int g = (32768 * v - 16384 - 9798 * r - 3735 * b + 19234) / 19235;
        fail_unless(g >= 0 && g <= 255 && opencv_gray(r, g, b) == v, "no colour of gray %d (%d, %d, %d)", v, r, g, b);
        red[i] = static_cast<uint8_t>(r), green[i] = static_cast<uint8_t>(g), blue[i] = static_cast<uint8_t>(b);
        swapped.pixels[i] = static_cast<uint8_t>(opencv_gray(b, g, r));
    }
    fail_unless(expected_boxes(core(swapped), "face").empty(),
                "the frame with red and blue swapped has faces: the test cannot tell them apart");
    int formats = 0;
    for (GstVideoFormat f : kFormats) {
        GstVideoInfo info;
        gst_video_info_set_format(&info, f, img.width, img.height);
        if (!GST_VIDEO_INFO_IS_RGB(&info))
            continue;
        ++formats;
        GstBuffer* frame_buffer = make_frame(img, f, pts_of(0));
        GstVideoFrame frame;
        fail_unless(gst_video_frame_map(&frame, &info, frame_buffer, GST_MAP_WRITE));
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); ++c) {
            const std::vector<uint8_t>* colour = c == GST_VIDEO_COMP_R   ? &red
                                                 : c == GST_VIDEO_COMP_G ? &green
                                                 : c == GST_VIDEO_COMP_B ? &blue
                                                                         : nullptr;
            for (int y = 0; y < img.height; ++y)
                for (int x = 0; x < img.width; ++x) {
                    const size_t i = static_cast<size_t>(y) * img.width + x;
                    static_cast<guint8*>(GST_VIDEO_FRAME_COMP_DATA(
                        &frame, c))[static_cast<size_t>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c) +
                                    static_cast<size_t>(x) * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c)] =
                        colour ? (*colour)[i] : static_cast<guint8>(rng()); /* alpha: anything */
                }
        }
        gst_video_frame_unmap(&frame);
        GstHarness* h = harness_with({{"draw", "none"}});
        set_caps(h, f, img.width, img.height);
        fail_unless_equals_int(gst_harness_push(h, frame_buffer), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        CHECK_BOXES(out[0], want, std::string("colours in ") + gst_video_format_to_string(f));
        unref_all(out);
        gst_harness_teardown(h);
    }
    fail_unless_equals_int(formats, 10);
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
                                      GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YUY2};
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

/* The metas' ids and parents, as (label, id, parent_id, x, y). */
using IdRow = std::tuple<std::string, int, int, int, int>;
static std::vector<IdRow> roi_ids(GstBuffer* buffer)
{
    std::vector<IdRow> rows;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        rows.emplace_back(g_quark_to_string(roi->roi_type), roi->id, roi->parent_id, static_cast<int>(roi->x),
                          static_cast<int>(roi->y));
    }
    return rows;
}

/* Two detectors chained (faces, then profile faces with their eyes: the
 * documented way to find two classes), with and without tracking: every
 * meta of a buffer has its own id, each part's parent is an object of its
 * own detector, and each detector's boxes are still its reference's. */
GST_START_TEST(test_rois_chained_detectors_unique_ids)
{
    const std::string profile_path = converted_classifier("lbpcascade_profileface");
    const Classifier profile = waldboost::load_classifier_file(profile_path);
    const std::string eyes = haar_cascade("haarcascade_eye");
    for (const char* tracking : {"false", "true"}) {
        /* confirm-hits=1: every profile face (min-neighbors=0 finds them
         * on scattered frames) is a track at once, with its eyes. */
        const std::string launch =
            std::string("waldboostdetect name=first draw=none tracking=") + tracking +
            " ! waldboostdetect name=second draw=none min-neighbors=0 confirm-hits=1 tracking=" + tracking +
            " classifier=\"" + profile_path + "\" eyes-profile=\"" + eyes + "\"";
        GstHarness* h = gst_harness_new_parse(launch.c_str());
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        int shared_before = 0, parts = 0;
        for (int k = 0; k < 6; ++k)
            fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 6);
        for (int k = 0; k < 6; ++k) {
            const std::vector<IdRow> rows = roi_ids(out[k]);
            std::set<int> ids;
            std::map<int, std::string> label_of;
            for (const IdRow& r : rows) {
                fail_unless(ids.insert(std::get<1>(r)).second, "tracking=%s frame %d: id %d on two metas", tracking, k,
                            std::get<1>(r));
                label_of[std::get<1>(r)] = std::get<0>(r);
            }
            /* Each meta names the detector that found it (the faces the
             * first, the profile faces and their eyes the second): what
             * tells their track ids apart downstream. */
            gpointer state = nullptr;
            while (GstMeta* m =
                       gst_buffer_iterate_meta_filtered(out[k], &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
                auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
                const GstStructure* param = gst_video_region_of_interest_meta_get_param(roi, "detection");
                const char* detector = param ? gst_structure_get_string(param, "detector") : nullptr;
                const char* want = roi->roi_type == g_quark_from_string("face") ? "first" : "second";
                fail_unless(detector && g_str_equal(detector, want), "tracking=%s frame %d: a %s meta of detector %s",
                            tracking, k, g_quark_to_string(roi->roi_type), detector ? detector : "(none)");
            }
            for (const IdRow& r : rows)
                if (std::get<2>(r) >= 0) {
                    ++parts;
                    fail_unless(label_of.count(std::get<2>(r)) && label_of[std::get<2>(r)] == profile.label,
                                "tracking=%s frame %d: the part at %d,%d names parent %d, not a %s", tracking, k,
                                std::get<3>(r), std::get<4>(r), std::get<2>(r), profile.label.c_str());
                }
            /* Both detectors found something here: their ids would clash. */
            std::vector<Box> faces = expected_boxes(core(face_frame(k)), "face");
            std::vector<Box> profiles = expected_boxes(core(face_frame(k), params_mn(0), profile), profile.label);
            shared_before += !faces.empty() && !profiles.empty();
            if (std::string(tracking) == "false") {
                std::vector<Box> want = faces;
                want.insert(want.end(), profiles.begin(), profiles.end());
                std::sort(want.begin(), want.end());
                std::vector<Box> got;
                for (const Box& b : roi_boxes(out[k]))
                    if (b.label == "face" || b.label == profile.label)
                        got.push_back(b);
                fail_unless(got == want, "frame %d: %s against %s", k, describe(got).c_str(), describe(want).c_str());
            }
        }
        fail_unless(shared_before >= 3, "only %d frames with both classes: the test would not see a clash",
                    shared_before);
        fail_unless(parts > 0, "no eyes were found: the parts' parents go unchecked");
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

/* As videocrop attaches a crop when downstream takes the meta: the caps
 * are the crop's size, the buffer holds the whole frame (its GstVideoMeta
 * says so) and the crop meta's rectangle is in that frame. A left and top
 * crop that keeps a face near the right and bottom edges: the boxes and
 * the burnt pixels must be those of the frame cropped for real. Before,
 * the crop was clipped to the caps' (cropped) size, so only the columns
 * and rows from the crop's left and top edges up to the caps' width and
 * height were searched, and the face near the right edge was lost. */
/* Two faces, the second near the bottom right corner. */
static GrayImage faces_to_the_corner()
{
    GrayImage canvas(420, 300);
    for (int y = 0; y < canvas.height; ++y)
        for (int x = 0; x < canvas.width; ++x)
            canvas.at(x, y) = 128;
    const GrayImage left = face_frame(0), right = face_frame(4);
    for (int y = 0; y < left.height; ++y)
        for (int x = 0; x < left.width; ++x) {
            canvas.at(x + 4, y + 10) = left.at(x, y);
            canvas.at(x + 214, y + 134) = right.at(x, y);
        }
    return canvas;
}

static GstBuffer* run_cropped_by_meta(const Props& props, const GrayImage& img, const GstVideoCropMeta& shown)
{
    GstHarness* h = harness_with(props);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, static_cast<int>(shown.width), static_cast<int>(shown.height));
    GstBuffer* b = make_frame(img, GST_VIDEO_FORMAT_GRAY8, pts_of(0));
    gsize offset[GST_VIDEO_MAX_PLANES] = {0};
    gint stride[GST_VIDEO_MAX_PLANES] = {GST_ROUND_UP_4(img.width)};
    gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8, img.width, img.height, 1,
                                   offset, stride);
    GstVideoCropMeta* meta = gst_buffer_add_video_crop_meta(b);
    meta->x = shown.x;
    meta->y = shown.y;
    meta->width = shown.width;
    meta->height = shown.height;
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    gst_harness_teardown(h);
    return out[0];
}

GST_START_TEST(test_rois_crop_meta_with_cropped_caps)
{
    const GrayImage canvas = faces_to_the_corner();
    /* Crops from the left and the top, to the frame's right and bottom
     * edges: the second face (x 214 to 414, y 134 to 294) lies past the
     * caps' width and height. */
    const int crops[][2] = {{150, 100}, {200, 120}, {60, 40}};
    for (const auto& c : crops) {
        GstVideoCropMeta shown{};
        shown.x = static_cast<guint>(c[0]);
        shown.y = static_cast<guint>(c[1]);
        shown.width = static_cast<guint>(canvas.width - c[0]);
        shown.height = static_cast<guint>(canvas.height - c[1]);
        const GrayImage visible =
            crop(canvas, c[0], c[1], static_cast<int>(shown.width), static_cast<int>(shown.height));
        const std::vector<Box> want = expected_boxes(core(visible), "face");
        fail_unless(std::any_of(want.begin(), want.end(),
                                [&](const Box& b) {
                                    return b.x + c[0] > 210 && b.y + c[1] > 130;
                                }),
                    "the test needs the right face near the bottom right corner: %s", describe(want).c_str());
        char what[100];
        g_snprintf(what, sizeof what, "crop meta left=%d top=%d, caps of the crop's size", c[0], c[1]);

        GstBuffer* out = run_cropped_by_meta({{"draw", "none"}}, canvas, shown);
        CHECK_BOXES(out, want, what);
        gst_buffer_unref(out);

        const Props burn = {{"draw", "burn"}, {"box-text", "label"}};
        out = run_cropped_by_meta(burn, canvas, shown);
        GstBuffer* real = run_one(burn, visible, nullptr);
        CHECK_BOXES(out, want, what);
        const std::vector<uint8_t> got = bytes_of(out), real_bytes = bytes_of(real);
        int differ = 0, hidden_changed = 0;
        for (int y = 0; y < canvas.height; ++y)
            for (int x = 0; x < canvas.width; ++x) {
                const uint8_t g = got[static_cast<size_t>(y) * GST_ROUND_UP_4(canvas.width) + x];
                const int vx = x - c[0], vy = y - c[1];
                if (vx >= 0 && vy >= 0 && vx < visible.width && vy < visible.height)
                    differ += g != real_bytes[static_cast<size_t>(vy) * GST_ROUND_UP_4(visible.width) + vx];
                else
                    hidden_changed += g != canvas.at(x, y);
            }
        fail_unless(differ == 0 && hidden_changed == 0,
                    "%s, burn: %d visible pixels differ from the real crop's, %d hidden pixels changed", what, differ,
                    hidden_changed);
        gst_buffer_unref(out);
        gst_buffer_unref(real);
    }
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("detections");
    tcase_add_test(tc, test_rois_crop_meta);
    tcase_add_test(tc, test_rois_crop_meta_with_cropped_caps);
    tcase_add_test(tc, test_rois_astronaut_gray8);
    tcase_add_test(tc, test_rois_astronaut_i420);
    tcase_add_test(tc, test_rois_padded_rows);
    tcase_add_test(tc, test_rois_every_format);
    tcase_add_test(tc, test_rois_rgb_formats_search_the_gray_of_the_colours);
    tcase_add_test(tc, test_rois_from_the_proposed_pool);
    tcase_add_test(tc, test_proposed_pool_honours_the_size_asked);
    tcase_add_test(tc, test_no_pinned_pool_switch);
    tcase_add_test(tc, test_no_pinned_pool_for_packed_formats);
    tcase_add_test(tc, test_rois_odd_width);
    tcase_add_test(tc, test_rois_chained_detectors_unique_ids);
    return tc;
}
