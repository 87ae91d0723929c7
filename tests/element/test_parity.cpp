/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, facedetect parity: nested part cascades (eyes, nose,
 * mouth) against the core run on facedetect's areas of each face, part
 * profiles set while playing and their errors, the updates modes, and
 * min-stddev.
 */
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <glib/gstdio.h>
#include <gst/video/gstvideometa.h>

#include "core/model/classifier_io.h"
#include "harness.h"

using namespace element_test;

/* A region-of-interest meta with its parent's box (all -1 without one). */
struct TreeBox {
    Box box;
    int parent_x = -1, parent_y = -1, parent_w = -1, parent_h = -1;
    auto key() const { return std::tie(box, parent_x, parent_y, parent_w, parent_h); }
    bool operator<(const TreeBox& o) const { return key() < o.key(); }
    bool operator==(const TreeBox& o) const { return key() == o.key(); }
};

std::string describe_tree(const std::vector<TreeBox>& boxes)
{
    std::string s;
    for (const TreeBox& t : boxes)
        s += describe({t.box}) +
             (t.parent_w < 0 ? "" : "in " + std::to_string(t.parent_x) + "," + std::to_string(t.parent_y) + " ") + "; ";
    return s.empty() ? "(none)" : s;
}

/* The buffer's metas with their parents (found through parent_id), after
 * checking that the ids are distinct, that top-level metas have
 * parent_id -1 and that every other parent_id names a meta. */
std::vector<TreeBox> roi_tree(GstBuffer* buffer)
{
    std::map<int, GstVideoRegionOfInterestMeta*> by_id;
    std::vector<GstVideoRegionOfInterestMeta*> metas;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        fail_unless(by_id.emplace(roi->id, roi).second, "two metas have the id %d", roi->id);
        metas.push_back(roi);
    }
    std::vector<Box> boxes = roi_boxes(buffer); /* sorted; matched below by rect and type */
    std::vector<TreeBox> tree;
    for (GstVideoRegionOfInterestMeta* roi : metas) {
        TreeBox t;
        for (const Box& b : boxes)
            if (b.x == static_cast<int>(roi->x) && b.y == static_cast<int>(roi->y) && b.w == static_cast<int>(roi->w) &&
                b.h == static_cast<int>(roi->h) && b.label == g_quark_to_string(roi->roi_type))
                t.box = b;
        if (roi->parent_id != -1) {
            const auto parent = by_id.find(roi->parent_id);
            fail_unless(parent != by_id.end(), "parent_id %d names no meta", roi->parent_id);
            t.parent_x = static_cast<int>(parent->second->x);
            t.parent_y = static_cast<int>(parent->second->y);
            t.parent_w = static_cast<int>(parent->second->w);
            t.parent_h = static_cast<int>(parent->second->h);
        }
        tree.push_back(t);
    }
    std::sort(tree.begin(), tree.end());
    return tree;
}

/* facedetect's areas, stated here from its source (gstfacedetect.cpp):
 * eyes in the upper half, the nose in the centre, the mouth in the lower
 * half, with integer halves and quarters. */
/* `field`: the message's list of the property's parts; the metas' type
 * and the items' label are the cascade's own label (its loader's). */
struct PartSpec {
    const char* property;
    const char* field;
    std::string cascade;
    Rect (*area)(const Rect& face);
    std::string type() const { return waldboost::load_classifier_file(cascade).label; }
};

std::vector<PartSpec> face_parts()
{
    return {{"eyes-profile", "eyes", haar_cascade("haarcascade_eye"),
             [](const Rect& f) {
                 return Rect{f.x, f.y, f.w, f.h / 2};
             }},
            /* Debian has no nose cascade; the eye cascade finds the inner
             * corners of the eyes in the centre area, which is what counts. */
            {"nose-profile", "nose", haar_cascade("haarcascade_eye"),
             [](const Rect& f) {
                 return Rect{f.x + f.w / 4, f.y + f.h / 4, f.w / 2, f.h / 2};
             }},
            {"mouth-profile", "mouth", haar_cascade("haarcascade_smile"), [](const Rect& f) {
                 return Rect{f.x, f.y + f.h / 2, f.w, f.h / 2};
             }}};
}

/* What the element should attach: the core's faces, and for each face each
 * part cascade run by the core on a copy of that area (parameters as the
 * faces', minimum size an eighth of the faces', no maximum; min-neighbors
 * `part_min_neighbors` unless -1); with `first_only` the first part the
 * core returns per face and cascade. */
std::vector<TreeBox> expected_tree(const GrayImage& img, const Classifier& face, const DetectParams& params,
                                   const std::vector<PartSpec>& parts, bool first_only = false,
                                   int part_min_neighbors = -1)
{
    std::vector<TreeBox> tree;
    DetectParams part_params = params;
    part_params.min_size = waldboost::Size{params.min_size.width / 8, params.min_size.height / 8};
    if (part_min_neighbors >= 0)
        part_params.min_neighbors = part_min_neighbors;
    for (const Box& f : expected_boxes(core(img, params, face), face.label)) {
        tree.push_back(TreeBox{f});
        for (const PartSpec& part : parts) {
            const Classifier c = waldboost::load_classifier_file(part.cascade);
            const Rect a = part.area(Rect{f.x, f.y, f.w, f.h});
            std::vector<Detection> found = core(crop(img, a.x, a.y, a.w, a.h), part_params, c);
            if (first_only && found.size() > 1)
                found.resize(1);
            for (Box b : expected_boxes(found, c.label, a.x, a.y))
                tree.push_back(TreeBox{b, f.x, f.y, f.w, f.h});
        }
    }
    std::sort(tree.begin(), tree.end());
    return tree;
}

/* The astronaut at twice the size (a 190-pixel face) with min-size=176:
 * parts are then searched from 22 pixels up (176 / 8), above the eye
 * cascades' 20-pixel window, so the eighth is seen. The element's
 * properties for it: the face cascade, the size and the three parts. */
struct BigFace {
    GrayImage img;
    std::string face_path = haar_cascade("haarcascade_frontalface_default");
    Classifier face = waldboost::load_classifier_file(face_path);
    DetectParams params;
    std::vector<PartSpec> parts = face_parts();
    Props props;

    BigFace() : img(waldboost::resize_bilinear(astronaut().view(), {astronaut().width * 2, astronaut().height * 2}))
    {
        params.min_size = size_for_width(face, 176);
        props = {{"classifier", face_path}, {"min-size", "176"}, {"draw", "none"}};
        for (const PartSpec& part : parts)
            props.emplace_back(part.property, part.cascade);
    }
};

GST_START_TEST(test_nested_parts_match_the_reference)
{
    const BigFace scene;
    const GrayImage& img = scene.img;
    const std::vector<PartSpec>& parts = scene.parts;
    const std::vector<TreeBox> want = expected_tree(img, scene.face, scene.params, parts);
    /* The eye cascade serves eyes and nose ("eye"), the smile one the
     * mouth ("smile"). */
    const std::string eye_label = parts[0].type(), mouth_label = parts[2].type();
    fail_unless_equals_string(eye_label.c_str(), "eye");
    fail_unless_equals_string(mouth_label.c_str(), "smile");
    size_t eyes = 0, smiles = 0;
    for (const TreeBox& t : want) {
        eyes += t.box.label == "eye";
        smiles += t.box.label == "smile";
    }
    fail_unless(eyes >= 3 && smiles >= 1, "the test needs finds in all three areas in the reference: %s",
                describe_tree(want).c_str());

    GstHarness* h = harness_with(scene.props);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    const std::vector<TreeBox> got = roi_tree(out[0]);
    fail_unless(got == want, "metas differ from the reference\n  element: %s\n  core:    %s",
                describe_tree(got).c_str(), describe_tree(want).c_str());

    /* The message lists each face's parts under the part's name, with the
     * same boxes as the metas. */
    std::vector<GstMessage*> messages = pop_element_messages(bus);
    fail_unless_equals_int(messages.size(), 1);
    const GValue* list = gst_structure_get_value(gst_message_get_structure(messages[0]), "detections");
    std::vector<TreeBox> listed;
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        const GstStructure* d = gst_value_get_structure(gst_value_list_get_value(list, i));
        TreeBox f;
        gst_structure_get(d, "x", G_TYPE_INT, &f.box.x, "y", G_TYPE_INT, &f.box.y, "width", G_TYPE_INT, &f.box.w,
                          "height", G_TYPE_INT, &f.box.h, "neighbors", G_TYPE_INT, &f.box.neighbors, "confidence",
                          G_TYPE_DOUBLE, &f.box.confidence, nullptr);
        f.box.label = gst_structure_get_string(d, "label");
        listed.push_back(f);
        for (const PartSpec& part : parts) {
            const GValue* sub = gst_structure_get_value(d, part.field);
            fail_unless(sub && GST_VALUE_HOLDS_LIST(sub), "no \"%s\" list in a detection", part.field);
            for (guint j = 0; j < gst_value_list_get_size(sub); ++j) {
                const GstStructure* ps = gst_value_get_structure(gst_value_list_get_value(sub, j));
                TreeBox t{Box{}, f.box.x, f.box.y, f.box.w, f.box.h};
                gst_structure_get(ps, "x", G_TYPE_INT, &t.box.x, "y", G_TYPE_INT, &t.box.y, "width", G_TYPE_INT,
                                  &t.box.w, "height", G_TYPE_INT, &t.box.h, "neighbors", G_TYPE_INT, &t.box.neighbors,
                                  "confidence", G_TYPE_DOUBLE, &t.box.confidence, nullptr);
                t.box.label = gst_structure_get_string(ps, "label");
                listed.push_back(t);
            }
        }
    }
    std::sort(listed.begin(), listed.end());
    fail_unless(listed == want, "message differs from the reference\n  message: %s\n  core:    %s",
                describe_tree(listed).c_str(), describe_tree(want).c_str());
    for (GstMessage* m : messages)
        gst_message_unref(m);
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* Off by default; set while playing, a profile applies from the next frame
 * on, and emptied it stops. Parts are drawn with the faces. */
/* With tracking, parts never take an id that a track has or will have,
 * no two parts of a stream share one, and each carries its id in its
 * parameters. */
GST_START_TEST(test_nested_part_ids_apart_from_tracks)
{
    const GrayImage& small = astronaut();
    const GrayImage img = waldboost::resize_bilinear(small.view(), {small.width * 2, small.height * 2});
    const std::string face_path = haar_cascade("haarcascade_frontalface_default");
    Props props = {{"classifier", face_path}, {"min-size", "176"}, {"draw", "none"}, {"tracking", "true"}};
    for (const PartSpec& part : face_parts())
        props.emplace_back(part.property, part.cascade);
    GstHarness* h = harness_with(props);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    const int frames = 3;
    for (int k = 0; k < frames; ++k)
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames);
    std::set<gint> tracks, parts;
    size_t part_count = 0;
    for (GstBuffer* b : out) {
        gpointer state = nullptr;
        std::set<gint> buffer_tracks;
        while (GstMeta* m = gst_buffer_iterate_meta_filtered(b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
            const auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
            if (roi->parent_id == -1) {
                tracks.insert(roi->id);
                buffer_tracks.insert(roi->id);
                continue;
            }
            ++part_count;
            parts.insert(roi->id);
            fail_unless(buffer_tracks.count(roi->parent_id) == 1, "part %d names no track of its buffer", roi->id);
            gint param_id = -1;
            const GstStructure* param = gst_video_region_of_interest_meta_get_param(
                const_cast<GstVideoRegionOfInterestMeta*>(roi), "detection");
            fail_unless(param && gst_structure_get_int(param, "id", &param_id) && param_id == roi->id,
                        "part %d: its parameters carry id %d", roi->id, param_id);
        }
    }
    fail_unless(part_count >= 3 && !tracks.empty(), "%zu parts, %zu tracks: nothing to compare", part_count,
                tracks.size());
    fail_unless_equals_int(parts.size(), part_count); /* no two parts of the stream share an id */
    for (gint id : parts)
        fail_unless(tracks.count(id) == 0 && id > *tracks.rbegin(), "part id %d is (or may become) a track's", id);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

GST_START_TEST(test_nested_profile_set_while_playing)
{
    const GrayImage& img = astronaut();
    const std::string face_path = haar_cascade("haarcascade_frontalface_default");
    const Classifier face = waldboost::load_classifier_file(face_path);
    const std::vector<PartSpec> eyes = {face_parts()[0]};
    const std::vector<TreeBox> faces_only = expected_tree(img, face, DetectParams{}, {});
    const std::vector<TreeBox> with_eyes = expected_tree(img, face, DetectParams{}, eyes);
    fail_unless(with_eyes.size() > faces_only.size(), "no eyes in the reference");

    GstHarness* h = harness_with({{"classifier", face_path}, {"draw", "none"}, {"max-inflight", "1"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    g_object_set(h->element, "eyes-profile", eyes[0].cascade.c_str(), nullptr);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
    g_object_set(h->element, "eyes-profile", "", nullptr);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 2), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    const std::vector<TreeBox> want[] = {faces_only, with_eyes, faces_only};
    for (int k = 0; k < 3; ++k) {
        const std::vector<TreeBox> got = roi_tree(out[k]);
        fail_unless(got == want[k], "frame %d\n  element: %s\n  core:    %s", k, describe_tree(got).c_str(),
                    describe_tree(want[k]).c_str());
    }
    unref_all(out);
    gst_harness_teardown(h);

    /* draw=burn outlines the eyes too: pixels on an eye's outline change
     * (in the faces' colour here, through label-colors). */
    DrawRun run = run_draw({{"classifier", face_path},
                            {"eyes-profile", eyes[0].cascade},
                            {"draw", "burn"},
                            {"label-colors", "colors,eye=(uint)0xff00ff00"}},
                           img, GST_VIDEO_FORMAT_GRAY8);
    std::vector<Box> all;
    for (const TreeBox& t : with_eyes)
        all.push_back(t.box);
    const int face_luma = check_burn(run.sent[0], run.out[0], all, 2, "faces and eyes");
    unref_all(run.out);
    /* By default each label has its own colour: the eyes' outline is not
     * the faces'. */
    run = run_draw({{"classifier", face_path}, {"eyes-profile", eyes[0].cascade}, {"draw", "burn"}}, img,
                   GST_VIDEO_FORMAT_GRAY8);
    for (const TreeBox& t : with_eyes) {
        const PlanePair luma = component(run.sent[0], run.out[0], 0);
        const int corner = luma.after[static_cast<size_t>(t.box.y) * img.width + t.box.x];
        fail_unless((corner == face_luma) == (t.box.label == "face"), "%s outline luma %d, faces' %d",
                    t.box.label.c_str(), corner, face_luma);
    }
    unref_all(run.out);
}
GST_END_TEST;

GST_START_TEST(test_nested_profile_errors)
{
    const std::string missing = "/nonexistent/waldboost-test/no-such-eyes.xml";
    ErrorInfo err = start_failure({{"eyes-profile", missing}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s", err.text().c_str());
    fail_unless(contains(err.message, "eyes-profile") && contains(err.message, missing),
                "the message should name the property and the file: %s", err.text().c_str());

    const std::string bad = temporary_text_file("<opencv_storage><cascade>truncated");
    err = start_failure({{"mouth-profile", bad}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_OPEN_READ, "%s", err.text().c_str());
    fail_unless(contains(err.message, "mouth-profile") && contains(err.message, bad),
                "the message should name the property and the file: %s", err.text().c_str());
    g_unlink(bad.c_str());
}
GST_END_TEST;

/* Which frames get a message in each updates mode: facedetect's rules,
 * applied to whether the core finds faces in each frame. */
GST_START_TEST(test_updates_modes)
{
    const GrayImage blank(200, 160, 90);
    const std::vector<GrayImage> frames = {face_frame(0), face_frame(1), blank, blank, face_frame(2), blank};
    std::vector<bool> has_faces;
    for (const GrayImage& f : frames)
        has_faces.push_back(!core(f).empty());
    fail_unless(has_faces[0] && has_faces[1] && !has_faces[2] && !has_faces[3] && has_faces[4] && !has_faces[5],
                "the frames should alternate between faces and none");
    for (const char* mode : {"every-frame", "on-change", "on-object", "none"}) {
        std::vector<guint64> want;
        bool before = false;
        for (size_t k = 0; k < frames.size(); ++k) {
            const bool due = std::strcmp(mode, "every-frame") == 0 ? true
                             : std::strcmp(mode, "on-change") == 0 ? has_faces[k] != before
                             : std::strcmp(mode, "on-object") == 0 ? has_faces[k]
                                                                   : false;
            before = has_faces[k];
            if (due)
                want.push_back(k);
        }
        for (const char* post : {"true", "false"}) {
            GstHarness* h = harness_with({{"updates", mode}, {"post-messages", post}, {"draw", "none"}});
            GstBus* bus = attach_bus(h);
            set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
            for (size_t k = 0; k < frames.size(); ++k)
                fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(k)),
                                       GST_FLOW_OK);
            push_eos(h);
            std::vector<GstBuffer*> out = pull_all(h);
            fail_unless_equals_int(out.size(), frames.size());
            std::vector<guint64> got;
            for (GstMessage* m : pop_element_messages(bus)) {
                guint64 frame = 0;
                fail_unless(gst_structure_get_uint64(gst_message_get_structure(m), "frame", &frame));
                got.push_back(frame);
                gst_message_unref(m);
            }
            const std::vector<guint64> expected = std::strcmp(post, "true") == 0 ? want : std::vector<guint64>{};
            fail_unless(got == expected, "updates=%s post-messages=%s: %zu messages, expected %zu", mode, post,
                        got.size(), expected.size());
            /* Metas do not depend on messages. */
            for (size_t k = 0; k < frames.size(); ++k)
                fail_unless_equals_int(roi_boxes(out[k]).size(), core(frames[k]).size());
            unref_all(out);
            teardown_with_bus(h, bus);
        }
    }
}
GST_END_TEST;

static double stddev_of(const GrayImage& img)
{
    double sum = 0, squares = 0;
    for (uint8_t p : img.pixels) {
        sum += p;
        squares += static_cast<double>(p) * p;
    }
    const double n = static_cast<double>(img.pixels.size()), mean = sum / n;
    return std::sqrt(squares / n - mean * mean);
}

/* min-stddev: a frame flatter than it is not searched (no detections, as
 * facedetect); the same frame is searched with min-stddev below its
 * deviation, and with 0. */
GST_START_TEST(test_min_stddev)
{
    const GrayImage sharp = face_frame(0);
    GrayImage flat = sharp; /* the same picture at a quarter of the contrast */
    for (uint8_t& p : flat.pixels)
        p = static_cast<uint8_t>(96 + p / 4);
    const double sharp_dev = stddev_of(sharp), flat_dev = stddev_of(flat);
    fail_unless(sharp_dev > flat_dev + 4, "contrast %f vs %f", sharp_dev, flat_dev);
    fail_if(core(flat).empty() || core(sharp).empty(), "the test needs faces in both frames");
    const int between = static_cast<int>(std::ceil(flat_dev + 1));
    const int above_both = static_cast<int>(std::ceil(sharp_dev + 1));
    struct Case {
        int min_stddev;
        bool sharp_searched, flat_searched;
    };
    for (const Case& c : {Case{0, true, true}, Case{between, true, false}, Case{above_both, false, false},
                          Case{static_cast<int>(flat_dev) - 1, true, true}}) {
        GstHarness* h = harness_with({{"min-stddev", std::to_string(c.min_stddev)}, {"draw", "none"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, sharp.width, sharp.height);
        fail_unless_equals_int(push_frame(h, sharp, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
        fail_unless_equals_int(push_frame(h, flat, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 2);
        const std::string what = "min-stddev=" + std::to_string(c.min_stddev);
        CHECK_BOXES(out[0], c.sharp_searched ? expected_boxes(core(sharp), "face") : std::vector<Box>{}, what);
        CHECK_BOXES(out[1], c.flat_searched ? expected_boxes(core(flat), "face") : std::vector<Box>{}, what);
        /* Unsearched frames still get their (empty) message, and no warning. */
        std::vector<GstMessage*> messages = pop_element_messages(bus);
        fail_unless_equals_int(messages.size(), 2);
        for (GstMessage* m : messages)
            gst_message_unref(m);
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "%s: a warning", what.c_str());
        unref_all(out);
        teardown_with_bus(h, bus);
    }
}
GST_END_TEST;

/* parts=first keeps the first part each cascade finds in a face (what
 * facedetect reports), part-min-neighbors groups the parts apart from the
 * faces: both as the core gives them. */
GST_START_TEST(test_nested_parts_first_and_min_neighbors)
{
    const BigFace scene;
    struct Case {
        Props props;
        bool first_only;
        int part_min_neighbors;
    };
    const Case cases[] = {{{{"parts", "first"}}, true, -1},
                          {{{"part-min-neighbors", "0"}}, false, 0},
                          {{{"parts", "first"}, {"part-min-neighbors", "8"}}, true, 8}};
    const size_t all_parts = expected_tree(scene.img, scene.face, scene.params, scene.parts).size();
    for (const Case& c : cases) {
        const std::vector<TreeBox> want =
            expected_tree(scene.img, scene.face, scene.params, scene.parts, c.first_only, c.part_min_neighbors);
        Props props = scene.props;
        props.insert(props.end(), c.props.begin(), c.props.end());
        GstHarness* h = harness_with(props);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, scene.img.width, scene.img.height);
        fail_unless_equals_int(push_frame(h, scene.img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 1);
        const std::vector<TreeBox> got = roi_tree(out[0]);
        fail_unless(got == want, "%s=%s: metas differ from the reference\n  element: %s\n  core:    %s",
                    c.props[0].first.c_str(), c.props[0].second.c_str(), describe_tree(got).c_str(),
                    describe_tree(want).c_str());
        /* Each setting changes what is found, so the test sees it. */
        fail_unless(want.size() != all_parts, "%s=%s finds what the defaults find", c.props[0].first.c_str(),
                    c.props[0].second.c_str());
        unref_all(out);
        gst_harness_teardown(h);
    }
}
GST_END_TEST;

/* With tracking and interval=3, frames without detection carry each
 * track's parts of its last detection frame along with the track (the same
 * ids, the same place relative to the track's box) instead of searching
 * again; detection frames search anew. The face is confirmed on its second
 * detection (frame 3): before, nothing is reported, parts included. */
GST_START_TEST(test_nested_parts_follow_their_track)
{
    const BigFace scene;
    const int w = scene.img.width - 40, h = scene.img.height - 20;
    Props props = scene.props;
    props.emplace_back("tracking", "true");
    props.emplace_back("interval", "3");
    GstHarness* harness = harness_with(props);
    set_caps(harness, GST_VIDEO_FORMAT_GRAY8, w, h);
    const int frames = 10;
    for (int k = 0; k < frames; ++k)
        fail_unless_equals_int(
            push_frame(harness, crop(scene.img, 40 - 4 * k, 20 - 2 * k, w, h), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(harness);
    std::vector<GstBuffer*> out = pull_all(harness);
    fail_unless_equals_int(out.size(), frames);
    struct Part {
        gint parent;
        double x, y, w, h; /* relative to the parent's box */
    };
    std::map<gint, Part> searched; /* the last detection frame's parts by id */
    int followed = 0;
    for (int k = 0; k < frames; ++k) {
        std::map<gint, GstVideoRegionOfInterestMeta*> objects;
        std::vector<GstVideoRegionOfInterestMeta*> parts;
        gpointer state = nullptr;
        while (GstMeta* m =
                   gst_buffer_iterate_meta_filtered(out[k], &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
            auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
            if (roi->parent_id == -1)
                objects[roi->id] = roi;
            else
                parts.push_back(roi);
        }
        std::map<gint, Part> here;
        for (const GstVideoRegionOfInterestMeta* p : parts) {
            fail_unless(objects.count(p->parent_id), "frame %d: part %d names no object", k, p->id);
            const GstVideoRegionOfInterestMeta* o = objects[p->parent_id];
            here[p->id] = {p->parent_id, (double(p->x) - o->x) / o->w, (double(p->y) - o->y) / o->h,
                           double(p->w) / o->w, double(p->h) / o->h};
        }
        if (k < 3) {
            fail_unless(objects.empty() && parts.empty(), "frame %d: %zu objects and %zu parts before confirmation", k,
                        objects.size(), parts.size());
            continue;
        }
        if (k % 3 == 0) {
            fail_unless(!here.empty(), "detection frame %d: no parts found (the test needs some)", k);
            searched = here;
            continue;
        }
        /* A followed frame: the detection frame's parts, carried along. */
        fail_unless_equals_int(here.size(), searched.size());
        for (const auto& [id, p] : here) {
            fail_unless(searched.count(id), "frame %d: part %d is not one of the last detection frame's", k, id);
            const Part& was = searched[id];
            const GstVideoRegionOfInterestMeta* o = objects[p.parent];
            fail_unless(p.parent == was.parent, "frame %d: part %d moved to object %d", k, id, p.parent);
            /* Within a pixel of the carried place (rounding). */
            fail_unless(std::abs((p.x - was.x) * o->w) <= 1 && std::abs((p.y - was.y) * o->h) <= 1 &&
                            std::abs((p.w - was.w) * o->w) <= 1 && std::abs((p.h - was.h) * o->h) <= 1,
                        "frame %d: part %d is not where its track carried it", k, id);
        }
        ++followed;
    }
    fail_unless_equals_int(followed, 4);
    unref_all(out);
    gst_harness_teardown(harness);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("parity");
    tcase_add_test(tc, test_nested_parts_match_the_reference);
    tcase_add_test(tc, test_nested_part_ids_apart_from_tracks);
    tcase_add_test(tc, test_nested_parts_first_and_min_neighbors);
    tcase_add_test(tc, test_nested_parts_follow_their_track);
    tcase_add_test(tc, test_nested_profile_set_while_playing);
    tcase_add_test(tc, test_nested_profile_errors);
    tcase_add_test(tc, test_updates_modes);
    tcase_add_test(tc, test_min_stddev);
    return tc;
}
