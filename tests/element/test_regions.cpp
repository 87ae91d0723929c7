/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, inference-region=roi-list: detection only inside the
 * region-of-interest metas upstream attached. A frame holds two faces
 * side by side; the test attaches a meta over each (or over one). The
 * detections lie inside the named regions, with parent_id naming them; a
 * face outside every named region is not found although a whole-frame scan
 * finds it; what a region gives is what the element's own whole-frame scan
 * finds fully inside it; a frame without a named region gets nothing; and
 * a second waldboostdetect searches inside the first one's metas; a
 * frame's first 256 regions are searched.
 */
#include <algorithm>
#include <string>
#include <vector>

#include <gst/video/gstvideometa.h>

#include "harness.h"

using namespace element_test;

namespace {

constexpr int kWidth = 400, kHeight = 160;
/* The two halves of the frame, each a face. */
constexpr Rect kLeft{0, 0, 200, 160}, kRight{200, 0, 200, 160};
constexpr gint kLeftId = 7, kRightId = 9;

struct Region {
    const char* type;
    Rect rect;
    gint id;
};

/* A meta as read back: its box, type, id and parent_id. */
struct Found {
    std::string type;
    Rect rect;
    gint id, parent_id;
};

std::vector<Found> metas_of(GstBuffer* buffer)
{
    std::vector<Found> found;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        const auto* roi = reinterpret_cast<const GstVideoRegionOfInterestMeta*>(m);
        found.push_back(Found{g_quark_to_string(roi->roi_type),
                              Rect{static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w),
                                   static_cast<int>(roi->h)},
                              roi->id, roi->parent_id});
    }
    return found;
}

/* The metas of `type`, their boxes sorted. */
std::vector<Rect> boxes_of(const std::vector<Found>& metas, const std::string& type)
{
    std::vector<Rect> boxes;
    for (const Found& f : metas)
        if (f.type == type)
            boxes.push_back(f.rect);
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

bool inside(const Rect& r, const Rect& area)
{
    return r.x >= area.x && r.y >= area.y && r.x + r.w <= area.x + area.w && r.y + r.h <= area.y + area.h;
}

std::vector<Rect> inside_of(const std::vector<Rect>& boxes, const Rect& area)
{
    std::vector<Rect> kept;
    for (const Rect& r : boxes)
        if (inside(r, area))
            kept.push_back(r);
    return kept;
}

std::string describe_rects(const std::vector<Rect>& rects)
{
    std::string text;
    for (const Rect& r : rects)
        text += "[" + std::to_string(r.x) + "," + std::to_string(r.y) + " " + std::to_string(r.w) + "x" +
                std::to_string(r.h) + "] ";
    return text.empty() ? "(none)" : text;
}

/* The two-face frame, with these metas attached, through a new element
 * with `props`; the metas of the buffer that comes out, and the bus's
 * warnings in `warnings` when given. */
std::vector<Found> run_frame(const Props& props, const std::vector<Region>& regions,
                             std::vector<std::string>* warnings = nullptr)
{
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
    GstBuffer* b = make_frame(faces_side_by_side(), GST_VIDEO_FORMAT_GRAY8, pts_of(0));
    for (const Region& r : regions) {
        GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
            b, r.type, static_cast<guint>(r.rect.x), static_cast<guint>(r.rect.y), static_cast<guint>(r.rect.w),
            static_cast<guint>(r.rect.h));
        meta->id = r.id;
    }
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    std::vector<Found> metas = metas_of(out[0]);
    unref_all(out);
    for (const ErrorInfo& w : drain_bus(bus).warnings)
        if (warnings)
            warnings->push_back(w.message);
    teardown_with_bus(h, bus);
    return metas;
}

/* The element's own whole-frame detections (draw=none, no metas upstream). */
std::vector<Rect> whole_frame_faces()
{
    const std::vector<Rect> faces = boxes_of(run_frame({{"draw", "none"}}, {}), "face");
    fail_unless(!inside_of(faces, kLeft).empty() && !inside_of(faces, kRight).empty(),
                "the whole-frame scan finds no face inside each half: the test needs one in each; found %s",
                describe_rects(faces).c_str());
    return faces;
}

const Props kRoiList{{"draw", "none"}, {"inference-region", "roi-list"}};

Props with(Props props, const char* name, const char* value)
{
    props.emplace_back(name, value);
    return props;
}

}  // namespace

/* region-labels=pedestrian: the faces in the pedestrian region, each with
 * its id as parent_id, and nothing in the car region, where the
 * whole-frame scan finds a face. */
GST_START_TEST(test_regions_only_inside_named_boxes)
{
    whole_frame_faces();
    const std::vector<Found> metas = run_frame(with(kRoiList, "region-labels", "pedestrian"),
                                               {{"pedestrian", kLeft, kLeftId}, {"car", kRight, kRightId}});
    const std::vector<Rect> faces = boxes_of(metas, "face");
    fail_unless(!faces.empty(), "no face found inside the pedestrian region");
    for (const Found& f : metas) {
        if (f.type != "face")
            continue;
        fail_unless(inside(f.rect, kLeft), "a face outside the pedestrian region: %s",
                    describe_rects({f.rect}).c_str());
        fail_unless_equals_int(f.parent_id, kLeftId);
        fail_unless(f.id != kLeftId && f.id != kRightId, "a face took an upstream meta's id %d", f.id);
    }
    /* The upstream metas pass through as they were. */
    fail_unless(boxes_of(metas, "pedestrian") == std::vector<Rect>{kLeft});
    fail_unless(boxes_of(metas, "car") == std::vector<Rect>{kRight});
}
GST_END_TEST;

/* The part of a over b's area, for boxes that should be one object. */
double iou(const Rect& a, const Rect& b)
{
    const int w = std::min(a.x + a.w, b.x + b.w) - std::max(a.x, b.x);
    const int h = std::min(a.y + a.h, b.y + b.h) - std::max(a.y, b.y);
    if (w <= 0 || h <= 0)
        return 0;
    const double both = static_cast<double>(w) * h;
    return both / (static_cast<double>(a.w) * a.h + static_cast<double>(b.w) * b.h - both);
}

/* Each region is searched as a frame of its own: its detections are the
 * CPU reference's on the region cut out of the frame (moved by its
 * corner), and the objects the element's own whole-frame scan finds fully
 * inside it, one for one (the region's pyramid levels are of its own size,
 * so a box may differ by a few pixels). */
GST_START_TEST(test_regions_match_whole_frame)
{
    const std::vector<Rect> whole = whole_frame_faces();
    const std::vector<Found> metas = run_frame(kRoiList, {{"pedestrian", kLeft, kLeftId}, {"car", kRight, kRightId}});
    const GrayImage frame = faces_side_by_side();
    for (const auto& [area, id] : {std::pair<Rect, gint>{kLeft, kLeftId}, {kRight, kRightId}}) {
        std::vector<Rect> got;
        for (const Found& f : metas)
            if (f.type == "face" && f.parent_id == id)
                got.push_back(f.rect);
        std::sort(got.begin(), got.end());
        std::vector<Rect> reference;
        for (const Detection& d : core(crop(frame, area.x, area.y, area.w, area.h)))
            reference.push_back(Rect{d.rect.x + area.x, d.rect.y + area.y, d.rect.width, d.rect.height});
        std::sort(reference.begin(), reference.end());
        fail_unless(got == reference, "region %d: roi-list found %s, the CPU reference on the region %s", id,
                    describe_rects(got).c_str(), describe_rects(reference).c_str());
        const std::vector<Rect> want = inside_of(whole, area);
        fail_unless(got.size() == want.size(), "region %d: roi-list found %s, the whole-frame scan %s inside it", id,
                    describe_rects(got).c_str(), describe_rects(want).c_str());
        for (const Rect& w : want) {
            const bool matched = std::any_of(got.begin(), got.end(), [&](const Rect& g) {
                return iou(g, w) >= 0.8;
            });
            fail_unless(matched, "region %d: the whole-frame scan's %s has no match in roi-list's %s", id,
                        describe_rects({w}).c_str(), describe_rects(got).c_str());
        }
    }
}
GST_END_TEST;

/* A frame without a region that region-labels names is not searched. */
GST_START_TEST(test_regions_none_scans_nothing)
{
    whole_frame_faces();
    fail_unless(boxes_of(run_frame(kRoiList, {}), "face").empty(), "faces found in a frame without regions");
    const std::vector<Found> metas =
        run_frame(with(kRoiList, "region-labels", "person, pedestrian"), {{"car", kLeft, kLeftId}});
    fail_unless(boxes_of(metas, "face").empty(), "faces found in a region that region-labels does not name");
}
GST_END_TEST;

/* Two detectors in a chain: the second searches inside the first one's
 * boxes, found by their label. The first finds faces in the left half
 * (roi) and labels them "pedestrian"; the second finds faces inside those
 * boxes and only there. */
GST_START_TEST(test_regions_inside_chained_detector)
{
    GstHarness* h =
        gst_harness_new_parse("waldboostdetect draw=none label=pedestrian roi=<0,0,200,160> ! "
                              "waldboostdetect draw=none inference-region=roi-list region-labels=pedestrian");
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
    fail_unless_equals_int(gst_harness_push(h, make_frame(faces_side_by_side(), GST_VIDEO_FORMAT_GRAY8, pts_of(0))),
                           GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    const std::vector<Found> metas = metas_of(out[0]);
    unref_all(out);
    gst_harness_teardown(h);
    std::vector<Found> parents, faces;
    for (const Found& f : metas)
        (f.type == "pedestrian" ? parents : faces).push_back(f);
    fail_unless(!parents.empty(), "the first detector found nothing");
    fail_unless(!faces.empty(), "the second detector found nothing inside the first one's boxes");
    for (const Found& f : faces) {
        const auto parent = std::find_if(parents.begin(), parents.end(), [&](const Found& p) {
            return p.id == f.parent_id;
        });
        fail_unless(parent != parents.end(), "a face's parent_id %d names no pedestrian meta", f.parent_id);
        fail_unless(inside(f.rect, parent->rect), "a face %s outside its parent %s", describe_rects({f.rect}).c_str(),
                    describe_rects({parent->rect}).c_str());
        fail_unless(f.id != f.parent_id);
    }
}
GST_END_TEST;

/* With tracking, a track matched to a detection in a region keeps the
 * region's id as parent_id (tracks are reported from their second hit). */
GST_START_TEST(test_regions_with_tracking)
{
    GstHarness* h = harness_with(with(kRoiList, "tracking", "true"));
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, kWidth, kHeight);
    for (int i = 0; i < 3; ++i) {
        GstBuffer* b = make_frame(faces_side_by_side(), GST_VIDEO_FORMAT_GRAY8, pts_of(i));
        gst_buffer_add_video_region_of_interest_meta(b, "pedestrian", kLeft.x, kLeft.y, kLeft.w, kLeft.h)->id = kLeftId;
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    const std::vector<Found> metas = metas_of(out[2]);
    unref_all(out);
    gst_harness_teardown(h);
    int faces = 0;
    for (const Found& f : metas)
        if (f.type == "face") {
            ++faces;
            fail_unless_equals_int(f.parent_id, kLeftId);
        }
    fail_unless(faces > 0, "no tracked face on the third frame");
}
GST_END_TEST;

/* A frame's first 256 regions are searched (frame_bounds.h): with 255
 * regions too small for the window before the face's, the face is found;
 * with 256 before it, it is not, and a warning on the bus says so. */
GST_START_TEST(test_regions_bound)
{
    for (const int tiny : {255, 256}) {
        std::vector<Region> regions(static_cast<size_t>(tiny), Region{"pedestrian", Rect{300, 150, 2, 2}, 100});
        for (int i = 0; i < tiny; ++i)
            regions[static_cast<size_t>(i)].id = 100 + i;
        regions.push_back(Region{"pedestrian", kLeft, kLeftId});
        std::vector<std::string> warnings;
        const std::vector<Rect> faces = boxes_of(run_frame(kRoiList, regions, &warnings), "face");
        if (tiny == 255) {
            fail_unless(!faces.empty(), "the 256th region was not searched");
            fail_unless_equals_int(warnings.size(), 0);
        } else {
            fail_unless(faces.empty(), "the 257th region was searched: %s", describe_rects(faces).c_str());
            fail_unless_equals_int(warnings.size(), 1);
            fail_unless(contains(warnings[0], "at most 256 upstream regions") &&
                            contains(warnings[0], "1 of 257 were not searched"),
                        "%s", warnings[0].c_str());
        }
    }
}
GST_END_TEST;

/* The properties as gst-inspect and applications see them. */
GST_START_TEST(test_regions_properties)
{
    GstElement* e = make_element({});
    gint region = -1;
    gchar* labels = nullptr;
    g_object_get(e, "inference-region", &region, "region-labels", &labels, nullptr);
    fail_unless_equals_int(region, 0); /* full-frame */
    fail_unless_equals_string(labels, "");
    g_free(labels);
    gst_util_set_object_arg(G_OBJECT(e), "inference-region", "roi-list");
    gst_util_set_object_arg(G_OBJECT(e), "region-labels", " person , ,car ");
    g_object_get(e, "inference-region", &region, "region-labels", &labels, nullptr);
    fail_unless_equals_int(region, 1); /* roi-list */
    fail_unless_equals_string(labels, "person,car");
    g_free(labels);
    gst_object_unref(e);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("regions");
    tcase_add_test(tc, test_regions_only_inside_named_boxes);
    tcase_add_test(tc, test_regions_match_whole_frame);
    tcase_add_test(tc, test_regions_none_scans_nothing);
    tcase_add_test(tc, test_regions_inside_chained_detector);
    tcase_add_test(tc, test_regions_with_tracking);
    tcase_add_test(tc, test_regions_bound);
    tcase_add_test(tc, test_regions_properties);
    return tc;
}
