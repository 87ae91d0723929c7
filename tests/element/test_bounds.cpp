/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, per-frame bounds (gst/element/frame_bounds.h): with a
 * classifier that accepts every window (grouping=none), tracking, the
 * nested cascades and box-text each stop at their bound, and one warning
 * per stream says so; privacy still hides what tracking left out. Before the bounds such frames took 13 to 178 s and
 * 1 to 3.4 GB; the tests count what comes out (not times).
 */
#include <set>
#include <string>
#include <vector>

#include <gst/video/gstvideometa.h>
#include <gst/video/video-overlay-composition.h>

#include "core/model/classifier_io.h"
#include "element/frame_bounds.h"
#include "harness.h"

using namespace element_test;
namespace wel = waldboost_element;

/* One weak classifier whose every response passes: every window. */
static std::string accept_everything() { return uniform_classifier_file("thing", 1, 0.0f); }

/* The windows the classifier accepts on `img` (grouping=none, no cap). */
static size_t accepted_windows(const std::string& path, const GrayImage& img, int min_width = 0)
{
    const Classifier c = waldboost::load_classifier_file(path);
    DetectParams params;
    params.grouping = waldboost::Grouping::None;
    params.max_windows = 0;
    if (min_width > 0)
        params.min_size = size_for_width(c, min_width);
    return waldboost::detect(c, img.view(), params).size();
}

struct Run {
    std::vector<GstBuffer*> out;
    std::vector<std::string> warnings;
};

static Run run(const Props& props, const GrayImage& img, int frames)
{
    Run r;
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    for (int k = 0; k < frames; ++k)
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    r.out = pull_all(h);
    fail_unless_equals_int(r.out.size(), frames);
    for (const ErrorInfo& w : drain_bus(bus).warnings)
        r.warnings.push_back(w.message);
    teardown_with_bus(h, bus);
    return r;
}

static int count_containing(const std::vector<std::string>& texts, const char* needle)
{
    int n = 0;
    for (const std::string& t : texts)
        n += contains(t, needle);
    return n;
}

/* Region-of-interest metas of a label, with their ids and parents. */
/* The metas of a label: the objects, or with `parts` the parts (the
 * nested cascade here is the same file, so of the same label). */
static std::vector<GstVideoRegionOfInterestMeta*> rois(GstBuffer* b, const char* label, bool parts = false)
{
    std::vector<GstVideoRegionOfInterestMeta*> out;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        if (g_strcmp0(g_quark_to_string(roi->roi_type), label) == 0 && (roi->parent_id != -1) == parts)
            out.push_back(roi);
    }
    return out;
}

/* Tracking: tracks x detections. The tracker takes the first kMaxTracks
 * detections and keeps at most kMaxTracks tracks. */
GST_START_TEST(test_bounds_tracks)
{
    const std::string path = accept_everything();
    const GrayImage img = synthetic(96, 72);
    const size_t windows = accepted_windows(path, img);
    fail_unless(windows > wel::kMaxTracks, "only %zu windows", windows);
    Run r = run({{"classifier", path}, {"grouping", "none"}, {"tracking", "true"}, {"draw", "none"}}, img, 3);
    /* Tentative on the first frame, confirmed on the second. */
    fail_unless_equals_int(rois(r.out.at(0), "thing").size(), 0);
    for (size_t k = 1; k < r.out.size(); ++k)
        fail_unless_equals_int(rois(r.out[k], "thing").size(), wel::kMaxTracks);
    fail_unless_equals_int(count_containing(r.warnings, "Tracking follows at most 1000 objects"), 1);
    fail_unless(contains(r.warnings.at(0), "tracking=false"), "%s", r.warnings.at(0).c_str());
    unref_all(r.out);
}
GST_END_TEST;

/* The 8x8 cells of a rectangle (multiples of 8) of a GRAY8 output frame
 * (rows of img.width bytes) in which no pixel differs from `img`. */
static int unchanged_cells(GstBuffer* b, const GrayImage& img, int x0, int y0, int w, int h)
{
    GstMapInfo map;
    fail_unless(gst_buffer_map(b, &map, GST_MAP_READ));
    int unchanged = 0;
    for (int cy = y0; cy < y0 + h; cy += 8)
        for (int cx = x0; cx < x0 + w; cx += 8) {
            bool changed = false;
            for (int y = cy; y < cy + 8; ++y)
                for (int x = cx; x < cx + 8; ++x)
                    changed |= map.data[static_cast<size_t>(y) * img.width + x] != img.at(x, y);
            unchanged += !changed;
        }
    gst_buffer_unmap(b, &map);
    return unchanged;
}

/* Tracking with privacy: what the tracker does not take is not reported,
 * but it is hidden. Frame 0 searches the left half: more windows than
 * kMaxTracks, the rest past the bound, and the tracks are full (confirmed
 * at once). Frame 1 searches a corner on the right, fewer windows than
 * kMaxTracks, every one of which the full tracker refuses. Nothing there is
 * reported on frame 1, and all of it is hidden. */
GST_START_TEST(test_bounds_tracks_privacy)
{
    const std::string path = accept_everything();
    const GrayImage img = synthetic(160, 120);
    fail_unless(accepted_windows(path, crop(img, 0, 0, 80, 120)) > wel::kMaxTracks);
    const size_t corner = accepted_windows(path, crop(img, 112, 0, 48, 56));
    fail_unless(corner > 0 && corner < wel::kMaxTracks, "%zu windows in the corner", corner);
    const Props props = {{"classifier", path},      {"grouping", "none"},    {"tracking", "true"},
                         {"confirm-hits", "1"},     {"privacy", "pixelate"}, {"draw", "none"},
                         {"roi", "<0, 0, 80, 120>"}};
    GstHarness* h = harness_with(props);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    gst_util_set_object_arg(G_OBJECT(h->element), "roi", "<112, 0, 48, 56>");
    fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, 1), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 2);
    fail_unless_equals_int(rois(out[0], "thing").size(), wel::kMaxTracks);
    for (GstVideoRegionOfInterestMeta* roi : rois(out[1], "thing"))
        fail_unless(roi->x + roi->w <= 80, "a box at x %u-%u reported", roi->x, roi->x + roi->w);
    /* Everything searched is hidden: the left half on frame 0 (its rows
     * past the first kMaxTracks windows too), the corner on frame 1. */
    fail_unless_equals_int(unchanged_cells(out[0], img, 0, 0, 80, 120), 0);
    fail_unless_equals_int(unchanged_cells(out[1], img, 112, 0, 48, 56), 0);
    std::vector<std::string> warnings;
    for (const ErrorInfo& w : drain_bus(bus).warnings)
        warnings.push_back(w.message);
    fail_unless_equals_int(count_containing(warnings, "Tracking follows at most 1000 objects"), 1);
    fail_unless(contains(warnings.at(0), "privacy still hides them"), "%s", warnings.at(0).c_str());
    teardown_with_bus(h, bus);
    unref_all(out);
}
GST_END_TEST;

/* Nested cascades: a search per object. Parts are searched in the first
 * kMaxPartSearches objects, up to kMaxParts parts. */
GST_START_TEST(test_bounds_parts)
{
    const std::string path = accept_everything();
    const GrayImage img = synthetic(160, 120);
    fail_unless(accepted_windows(path, img, 48) > wel::kMaxPartSearches);
    Run r =
        run({{"classifier", path}, {"grouping", "none"}, {"min-size", "48"}, {"eyes-profile", path}, {"draw", "none"}},
            img, 2);
    for (GstBuffer* b : r.out) {
        const std::vector<GstVideoRegionOfInterestMeta*> objects = rois(b, "thing");
        const std::vector<GstVideoRegionOfInterestMeta*> parts = rois(b, "thing", true);
        fail_unless(objects.size() > wel::kMaxPartSearches);
        fail_unless_equals_int(parts.size(), wel::kMaxParts);
        std::set<gint> first;
        for (size_t i = 0; i < wel::kMaxPartSearches; ++i)
            first.insert(objects[i]->id);
        for (GstVideoRegionOfInterestMeta* p : parts)
            fail_unless(first.count(p->parent_id), "a part of object %d, past the first %zu", p->parent_id,
                        wel::kMaxPartSearches);
    }
    fail_unless_equals_int(count_containing(r.warnings, "Parts (eyes-profile"), 1);
    unref_all(r.out);
}
GST_END_TEST;

/* box-text: a Pango tag per box. Only the first kMaxTextTags boxes are
 * tried (where tags of these overlapping boxes would cover each other,
 * fewer are drawn). */
GST_START_TEST(test_bounds_text_tags)
{
    const std::string path = accept_everything();
    const GrayImage img = synthetic(96, 72);
    const size_t windows = accepted_windows(path, img);
    fail_unless(windows > wel::kMaxTextTags);
    Run r = run({{"classifier", path}, {"grouping", "none"}, {"draw", "meta"}, {"box-text", "label"}}, img, 2);
    for (GstBuffer* b : r.out) {
        fail_unless_equals_int(rois(b, "thing").size(), windows);
        GstVideoOverlayCompositionMeta* meta = gst_buffer_get_video_overlay_composition_meta(b);
        fail_unless(meta != nullptr);
        /* The outlines of more than 64 boxes are one rectangle; then the tags. */
        const guint tags = gst_video_overlay_composition_n_rectangles(meta->overlay) - 1;
        fail_unless(tags >= 1 && tags <= wel::kMaxTextTags, "%u tags", tags);
    }
    fail_unless_equals_int(count_containing(r.warnings, "box-text puts a tag on at most 256 boxes"), 1);
    unref_all(r.out);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("bounds");
    tcase_add_test(tc, test_bounds_tracks);
    tcase_add_test(tc, test_bounds_tracks_privacy);
    tcase_add_test(tc, test_bounds_parts);
    tcase_add_test(tc, test_bounds_text_tags);
    return tc;
}
