/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, GstAnalytics metadata (GStreamer 1.24 and later; built
 * only there): every Mtd read back through the GstAnalytics API and checked
 * against the region-of-interest metas of the same frame (ODMtd, ClsMtd,
 * TrackingMtd, the part relations, the tracks that left), the metadata
 * property, a relation meta from upstream kept, and inference-region=roi-list
 * inside upstream ODMtds.
 */
#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <gst/analytics/analytics.h>
#include <gst/video/gstvideometa.h>

#include "harness.h"

using namespace element_test;

namespace {

/* A region-of-interest meta with its "detection" parameter's fields. */
struct Roi {
    std::string label;
    int x = 0, y = 0, w = 0, h = 0;
    double confidence = -1;
    gint meta_id = -1, parent_id = -1;
    gint id = -1; /* the parameter's: the track id with tracking */
};

std::vector<Roi> rois_of(GstBuffer* buffer)
{
    std::vector<Roi> out;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        Roi r;
        r.label = g_quark_to_string(roi->roi_type);
        r.x = static_cast<int>(roi->x);
        r.y = static_cast<int>(roi->y);
        r.w = static_cast<int>(roi->w);
        r.h = static_cast<int>(roi->h);
        r.meta_id = roi->id;
        r.parent_id = roi->parent_id;
        const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "detection");
        fail_unless(s != nullptr, "a ROI meta without its detection parameter");
        fail_unless(gst_structure_get_double(s, "confidence", &r.confidence) && gst_structure_get_int(s, "id", &r.id));
        out.push_back(r);
    }
    return out;
}

/* An ODMtd as the GstAnalytics API reads it. */
struct Od {
    GstAnalyticsODMtd mtd;
    std::string label;
    gint x = 0, y = 0, w = 0, h = 0;
    gfloat confidence = 0;
};

std::vector<Od> ods_of(GstAnalyticsRelationMeta* rmeta)
{
    std::vector<Od> out;
    if (!rmeta)
        return out;
    gpointer state = nullptr;
    GstAnalyticsMtd mtd;
    while (gst_analytics_relation_meta_iterate(rmeta, &state, gst_analytics_od_mtd_get_mtd_type(), &mtd)) {
        Od od;
        od.mtd = mtd;
        od.label = g_quark_to_string(gst_analytics_od_mtd_get_obj_type(&od.mtd));
        fail_unless(gst_analytics_od_mtd_get_location(&od.mtd, &od.x, &od.y, &od.w, &od.h, &od.confidence));
        out.push_back(od);
    }
    return out;
}

/* The Mtds of `type` that `from` has a direct `relation` to. */
std::vector<GstAnalyticsMtd> related(GstAnalyticsRelationMeta* rmeta, guint from, GstAnalyticsRelTypes relation,
                                     GstAnalyticsMtdType type)
{
    std::vector<GstAnalyticsMtd> out;
    gpointer state = nullptr;
    GstAnalyticsMtd mtd;
    while (gst_analytics_relation_meta_get_direct_related(rmeta, from, relation, type, &state, &mtd))
        out.push_back(mtd);
    return out;
}

struct TrackInfo {
    guint64 id = 0;
    GstClockTime first_seen = GST_CLOCK_TIME_NONE, last_seen = GST_CLOCK_TIME_NONE;
    gboolean lost = FALSE;
    guint mtd_id = 0;
};

TrackInfo track_info(GstAnalyticsMtd mtd)
{
    TrackInfo t;
    t.mtd_id = mtd.id;
    fail_unless(gst_analytics_tracking_mtd_get_info(&mtd, &t.id, &t.first_seen, &t.last_seen, &t.lost));
    return t;
}

std::vector<TrackInfo> tracks_of(GstAnalyticsRelationMeta* rmeta)
{
    std::vector<TrackInfo> out;
    if (!rmeta)
        return out;
    gpointer state = nullptr;
    GstAnalyticsMtd mtd;
    while (gst_analytics_relation_meta_iterate(rmeta, &state, gst_analytics_tracking_mtd_get_mtd_type(), &mtd))
        out.push_back(track_info(mtd));
    return out;
}

/* The ids of the "left" events of each frame's "waldboostdetect-events"
 * message (updates=events). */
std::map<guint64, std::set<gint>> left_events(GstBus* bus)
{
    std::map<guint64, std::set<gint>> left;
    for (GstMessage* m : pop_element_messages(bus, "waldboostdetect-events")) {
        const GstStructure* s = gst_message_get_structure(m);
        guint64 frame = 0;
        fail_unless(gst_structure_get_uint64(s, "frame", &frame));
        const GValue* events = gst_structure_get_value(s, "events");
        for (guint i = 0; i < gst_value_list_get_size(events); ++i) {
            const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(events, i));
            gint id = -1;
            fail_unless(gst_structure_get_int(e, "id", &id));
            if (g_strcmp0(gst_structure_get_string(e, "kind"), "left") == 0)
                left[frame].insert(id);
        }
        gst_message_unref(m);
    }
    return left;
}

const Od& od_for(const std::vector<Od>& ods, const Roi& r, size_t frame)
{
    const Od* found = nullptr;
    for (const Od& od : ods) {
        if (od.label == r.label && od.x == r.x && od.y == r.y && od.w == r.w && od.h == r.h &&
            od.confidence == static_cast<gfloat>(r.confidence)) {
            fail_unless(found == nullptr, "frame %zu: two ODMtds for the ROI meta %s at %d,%d", frame, r.label.c_str(),
                        r.x, r.y);
            found = &od;
        }
    }
    fail_unless(found != nullptr, "frame %zu: no ODMtd for the ROI meta %s at %d,%d %dx%d confidence %.3f", frame,
                r.label.c_str(), r.x, r.y, r.w, r.h, r.confidence);
    return *found;
}

constexpr const char* kEyeLabel = "test-eye";
constexpr const char* kMouthLabel = "test-mouth";

using Boxes = std::vector<std::tuple<int, int, int, int>>;

/* The faces of the CPU reference in the frame's left half. */
Boxes reference_left_faces(const GrayImage& frame)
{
    Boxes faces;
    for (const Detection& d : core(crop(frame, 0, 0, 200, 160)))
        faces.emplace_back(d.rect.x, d.rect.y, d.rect.width, d.rect.height);
    std::sort(faces.begin(), faces.end());
    fail_unless(!faces.empty(), "the reference finds no face in the left half: the test needs one");
    return faces;
}

/* faces_side_by_side() through `launch` (one element, or a chain), with the
 * upstream boxes `attach` attaches. */
template <typename Attach>
GstBuffer* run_two_faces(const char* launch, Attach attach)
{
    GstHarness* h = gst_harness_new_parse(launch);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 400, 160);
    GstBuffer* in = make_frame(faces_side_by_side(), GST_VIDEO_FORMAT_GRAY8, pts_of(0));
    attach(in);
    fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    gst_harness_teardown(h);
    return out[0];
}

constexpr const char* kRegionSearch = "waldboostdetect draw=none inference-region=roi-list region-labels=pedestrian";

/* The face ROI metas' boxes, sorted, each with parent_id `parent_id`. */
Boxes face_boxes(GstBuffer* buffer, gint parent_id)
{
    Boxes faces;
    gpointer state = nullptr;
    /* Not rois_of(): the upstream metas have no detection parameter. */
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        const auto* r = reinterpret_cast<const GstVideoRegionOfInterestMeta*>(m);
        if (g_strcmp0(g_quark_to_string(r->roi_type), "face") == 0) {
            fail_unless_equals_int(r->parent_id, parent_id);
            faces.emplace_back(r->x, r->y, r->w, r->h);
        }
    }
    std::sort(faces.begin(), faces.end());
    return faces;
}

/* Every face ODMtd IS_PART_OF the pedestrian ODMtd `region` (with
 * GStreamer 1.24's analytics elements upstream there is no ROI meta to
 * name as parent_id), which CONTAINs it, and lies inside it. */
void check_faces_part_of(GstBuffer* buffer, guint region, size_t faces)
{
    GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(buffer);
    size_t related = 0;
    Od parent;
    for (const Od& od : ods_of(rmeta))
        if (od.mtd.id == region)
            parent = od;
    fail_unless(parent.label == "pedestrian", "the upstream ODMtd is gone");
    for (const Od& od : ods_of(rmeta)) {
        if (od.label != "face")
            continue;
        fail_unless(gst_analytics_relation_meta_get_relation(rmeta, od.mtd.id, region) &
                        GST_ANALYTICS_REL_TYPE_IS_PART_OF,
                    "a face ODMtd is not part of the pedestrian it was found in");
        fail_unless(gst_analytics_relation_meta_get_relation(rmeta, region, od.mtd.id) & GST_ANALYTICS_REL_TYPE_CONTAIN,
                    "the pedestrian ODMtd does not contain a face found in it");
        fail_unless(od.x >= parent.x && od.y >= parent.y && od.x + od.w <= parent.x + parent.w &&
                        od.y + od.h <= parent.y + parent.h,
                    "a face ODMtd outside its pedestrian");
        ++related;
    }
    fail_unless_equals_int(related, faces);
}

}  // namespace

/* A face that is tracked, leaves and comes back, with two part cascades
 * that accept every window (parts=first: one part of each per face). On
 * every frame each ROI meta has one ODMtd of its label, box and confidence,
 * which RELATE_TOs one ClsMtd (its label and confidence at index 0); a
 * face's ODMtd RELATE_TOs one TrackingMtd (the ROI's id, first seen on the
 * first frame a ROI meta had that id, last seen on this one, not lost);
 * a face CONTAINs its parts and they are IS_PART_OF it; and each track the
 * events message says left on a frame has a TrackingMtd marked lost there,
 * seen from its first ROI meta to its last. */
GST_START_TEST(test_analytics_matches_roi_metas)
{
    const std::string eye = uniform_classifier_file(kEyeLabel, 1, 0.0f);
    const std::string mouth = uniform_classifier_file(kMouthLabel, 1, 0.0f);
    const GrayImage blank(200, 160, 90);
    const std::vector<GrayImage> frames = {face_frame(0), face_frame(1), face_frame(2), face_frame(3), blank,
                                           blank,         blank,         face_frame(4), face_frame(5), face_frame(6)};
    GstBus* bus = nullptr;
    std::vector<GstBuffer*> out = run_frames({{"tracking", "true"},
                                              {"lost-after", "2"},
                                              {"updates", "events"},
                                              {"eyes-profile", eye},
                                              {"mouth-profile", mouth},
                                              {"parts", "first"},
                                              {"draw", "none"}},
                                             frames, &bus);
    const std::map<guint64, std::set<gint>> left = left_events(bus);
    gst_object_unref(bus);

    std::map<gint, GstClockTime> first_pts, last_pts;
    size_t tracked = 0, parts = 0, lost = 0;
    for (size_t k = 0; k < out.size(); ++k) {
        const GstClockTime pts = GST_BUFFER_PTS(out[k]);
        fail_unless_equals_uint64(pts, pts_of(static_cast<int>(k)));
        const std::vector<Roi> rois = rois_of(out[k]);
        GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out[k]);
        const std::vector<Od> ods = ods_of(rmeta);
        fail_unless_equals_int(ods.size(), rois.size());
        std::map<gint, const Od*> od_of_meta;
        for (const Roi& r : rois)
            od_of_meta[r.meta_id] = &od_for(ods, r, k);

        size_t related_tracks = 0;
        for (const Roi& r : rois) {
            const Od& od = *od_of_meta.at(r.meta_id);
            std::vector<GstAnalyticsMtd> cls =
                related(rmeta, od.mtd.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_cls_mtd_get_mtd_type());
            fail_unless_equals_int(cls.size(), 1);
            fail_unless_equals_int(gst_analytics_cls_mtd_get_length(&cls[0]), 1);
            fail_unless_equals_string(g_quark_to_string(gst_analytics_cls_mtd_get_quark(&cls[0], 0)), r.label.c_str());
            fail_unless(gst_analytics_cls_mtd_get_level(&cls[0], 0) == static_cast<gfloat>(r.confidence),
                        "frame %zu: the ClsMtd's level is the confidence", k);
            std::vector<GstAnalyticsMtd> trk =
                related(rmeta, od.mtd.id, GST_ANALYTICS_REL_TYPE_RELATE_TO, gst_analytics_tracking_mtd_get_mtd_type());
            if (r.parent_id != -1) {
                /* A part: its face contains it, it is part of its face. */
                ++parts;
                fail_unless(r.label == kEyeLabel || r.label == kMouthLabel, "a part labelled %s", r.label.c_str());
                fail_unless_equals_int(trk.size(), 0);
                const Od& face = *od_of_meta.at(r.parent_id);
                fail_unless(gst_analytics_relation_meta_get_relation(rmeta, face.mtd.id, od.mtd.id) &
                                GST_ANALYTICS_REL_TYPE_CONTAIN,
                            "frame %zu: the face does not CONTAIN its %s", k, r.label.c_str());
                fail_unless(gst_analytics_relation_meta_get_relation(rmeta, od.mtd.id, face.mtd.id) &
                                GST_ANALYTICS_REL_TYPE_IS_PART_OF,
                            "frame %zu: the %s is not IS_PART_OF its face", k, r.label.c_str());
                continue;
            }
            fail_unless_equals_string(r.label.c_str(), "face");
            fail_unless_equals_int(trk.size(), 1);
            ++tracked;
            ++related_tracks;
            if (!first_pts.count(r.id))
                first_pts[r.id] = pts;
            last_pts[r.id] = pts;
            const TrackInfo t = track_info(trk[0]);
            fail_unless_equals_uint64(t.id, static_cast<guint64>(r.id));
            fail_unless_equals_uint64(t.first_seen, first_pts[r.id]);
            fail_unless_equals_uint64(t.last_seen, pts);
            fail_unless(!t.lost, "frame %zu: a track on the frame is lost", k);
        }

        /* The tracks that left: lost, related to no ODMtd. */
        std::set<gint> lost_here;
        for (const TrackInfo& t : tracks_of(rmeta)) {
            if (!t.lost)
                continue;
            ++lost;
            const gint id = static_cast<gint>(t.id);
            lost_here.insert(id);
            fail_unless(first_pts.count(id), "frame %zu: lost track %d never had a ROI meta", k, id);
            fail_unless_equals_uint64(t.first_seen, first_pts[id]);
            fail_unless_equals_uint64(t.last_seen, last_pts[id]);
            fail_unless(t.last_seen < pts, "frame %zu: track %d lost on a frame it was seen on", k, id);
            for (const Od& od : ods)
                fail_unless_equals_int(gst_analytics_relation_meta_get_relation(rmeta, od.mtd.id, t.mtd_id),
                                       GST_ANALYTICS_REL_TYPE_NONE);
        }
        fail_unless_equals_int(tracks_of(rmeta).size(), related_tracks + lost_here.size());
        /* Left at EOS (the last frame's open tracks): on the bus only. */
        std::set<gint> want = left.count(k) ? left.at(k) : std::set<gint>{};
        if (k + 1 == out.size())
            for (const Roi& r : rois)
                want.erase(r.id);
        fail_unless(lost_here == want, "frame %zu: %zu lost TrackingMtds, %zu tracks left", k, lost_here.size(),
                    want.size());
    }
    /* Not vacuous: the face was tracked, had parts, and left once. */
    fail_unless(tracked >= 5 && parts >= 2 * tracked && lost == 1, "tracked %zu, parts %zu, lost %zu", tracked, parts,
                lost);
    unref_all(out);
}
GST_END_TEST;

/* A seek's flush starts the tracker afresh: the tracks of before leave on
 * the first frame after it, as TrackingMtds marked lost (seen from their
 * first ROI meta to their last, related to no ODMtd), as on the frame a
 * track is lost; the tracks of after are new ones. */
GST_START_TEST(test_analytics_tracks_lost_at_a_flush)
{
    GstHarness* h = harness_with({{"tracking", "true"}, {"draw", "none"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    constexpr int kBefore = 4, kAfter = 3;
    std::map<gint, GstClockTime> first_pts, last_pts;
    for (int k = 0; k < kBefore; ++k) {
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        GstBuffer* b = gst_harness_pull(h); /* every frame out before the flush */
        for (const Roi& r : rois_of(b)) {
            if (!first_pts.count(r.id))
                first_pts[r.id] = GST_BUFFER_PTS(b);
            last_pts[r.id] = GST_BUFFER_PTS(b);
        }
        gst_buffer_unref(b);
    }
    fail_unless(!first_pts.empty(), "no face tracked before the flush");
    push_flush(h);
    for (int k = 0; k < kAfter; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), kAfter);
    for (size_t k = 0; k < out.size(); ++k) {
        GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out[k]);
        std::set<gint> lost;
        for (const TrackInfo& t : tracks_of(rmeta)) {
            if (!t.lost)
                continue;
            const gint id = static_cast<gint>(t.id);
            lost.insert(id);
            fail_unless(first_pts.count(id), "frame %zu after the flush: lost track %d never had a ROI meta", k, id);
            fail_unless_equals_uint64(t.first_seen, first_pts[id]);
            fail_unless_equals_uint64(t.last_seen, last_pts[id]);
            for (const Od& od : ods_of(rmeta))
                fail_unless_equals_int(gst_analytics_relation_meta_get_relation(rmeta, od.mtd.id, t.mtd_id),
                                       GST_ANALYTICS_REL_TYPE_NONE);
        }
        std::set<gint> before;
        for (const auto& [id, pts] : first_pts)
            before.insert(id);
        fail_unless(lost == (k == 0 ? before : std::set<gint>{}), "frame %zu after the flush: %zu lost TrackingMtds", k,
                    lost.size());
        for (const Roi& r : rois_of(out[k]))
            fail_if(first_pts.count(r.id), "frame %zu after the flush: track %d of before goes on", k, r.id);
    }
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* metadata: both by default; roi attaches no relation meta; analytics no
 * ROI metas, and ODMtds of the boxes roi gives; without tracking no
 * TrackingMtd. */
GST_START_TEST(test_analytics_metadata_property)
{
    GstElement* e = make_element({});
    gint metadata = -1;
    g_object_get(e, "metadata", &metadata, nullptr);
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "metadata");
    GEnumValue* value = g_enum_get_value(G_PARAM_SPEC_ENUM(spec)->enum_class, metadata);
    fail_unless(value != nullptr);
    fail_unless_equals_string(value->value_nick, "both");
    gst_object_unref(e);

    std::vector<GrayImage> frames;
    for (int k = 0; k < 3; ++k)
        frames.push_back(face_frame(k));
    std::vector<GstBuffer*> roi = run_frames({{"metadata", "roi"}, {"draw", "none"}}, frames);
    std::vector<GstBuffer*> analytics = run_frames({{"metadata", "analytics"}, {"draw", "none"}}, frames);
    for (size_t k = 0; k < frames.size(); ++k) {
        fail_unless(gst_buffer_get_analytics_relation_meta(roi[k]) == nullptr, "metadata=roi added analytics");
        fail_unless(rois_of(analytics[k]).empty(), "metadata=analytics added ROI metas");
        const std::vector<Roi> want = rois_of(roi[k]);
        fail_unless(!want.empty());
        GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(analytics[k]);
        const std::vector<Od> ods = ods_of(rmeta);
        fail_unless_equals_int(ods.size(), want.size());
        for (const Roi& r : want)
            od_for(ods, r, k);
        fail_unless_equals_int(tracks_of(rmeta).size(), 0);
    }
    unref_all(roi);
    unref_all(analytics);
}
GST_END_TEST;

/* A relation meta from upstream (another analyser's objects) is the one
 * the element adds to: one meta, its ODMtd kept, ours beside it. */
GST_START_TEST(test_analytics_joins_upstream_relation_meta)
{
    GstHarness* h = harness_with({{"draw", "none"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    GstBuffer* in = make_frame(face_frame(0), GST_VIDEO_FORMAT_GRAY8, pts_of(0));
    GstAnalyticsODMtd car;
    fail_unless(gst_analytics_relation_meta_add_od_mtd(gst_buffer_add_analytics_relation_meta(in),
                                                       g_quark_from_string("car"), 1, 2, 30, 20, 0.5f, &car));
    fail_unless_equals_int(gst_harness_push(h, in), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 1);
    size_t metas = 0;
    gpointer state = nullptr;
    while (gst_buffer_iterate_meta_filtered(out[0], &state, GST_ANALYTICS_RELATION_META_API_TYPE))
        ++metas;
    fail_unless_equals_int(metas, 1);
    const std::vector<Od> ods = ods_of(gst_buffer_get_analytics_relation_meta(out[0]));
    const std::vector<Roi> rois = rois_of(out[0]);
    fail_unless_equals_int(ods.size(), rois.size() + 1);
    fail_unless(std::any_of(ods.begin(), ods.end(),
                            [](const Od& od) {
                                return od.label == "car" && od.w == 30;
                            }),
                "the upstream ODMtd is gone");
    for (const Roi& r : rois)
        od_for(ods, r, 0);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A classifier that accepts every window, grouping=none: the ROI metas
 * carry every object, the analytics metadata the first 256 (the ROI metas'
 * first, in order), in a meta sized once for them. */
GST_START_TEST(test_analytics_bounded_in_a_crowd)
{
    const std::string all = uniform_classifier_file("thing", 1, 0.0f);
    std::vector<GstBuffer*> out = run_frames({{"classifier", all}, {"grouping", "none"}, {"draw", "none"}},
                                             {synthetic(160, 120), synthetic(160, 120, 1)});
    constexpr size_t kBound = 256;
    for (size_t k = 0; k < out.size(); ++k) {
        const std::vector<Roi> rois = rois_of(out[k]);
        fail_unless(rois.size() > 2 * kBound, "frame %zu: only %zu objects", k, rois.size());
        GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out[k]);
        const std::vector<Od> ods = ods_of(rmeta);
        fail_unless_equals_int(ods.size(), kBound);
        for (size_t i = 0; i < kBound; ++i)
            od_for(ods, rois[i], k);
        /* Sized once for the frame: the ODMtds and their ClsMtds. */
        fail_unless_equals_int(gst_analytics_relation_get_length(rmeta), 2 * kBound);
    }
    unref_all(out);
}
GST_END_TEST;

/* inference-region=roi-list with only GstAnalytics ODMtds upstream (as
 * GStreamer 1.24's analytics elements attach them): the faces are the CPU
 * reference's inside the named ODMtd, none inside the other, each ODMtd of
 * ours part of the region's. */
GST_START_TEST(test_analytics_regions_inside_upstream_odmtds)
{
    const Boxes want = reference_left_faces(faces_side_by_side());
    guint pedestrian = 0;
    GstBuffer* out = run_two_faces(kRegionSearch, [&](GstBuffer* in) {
        GstAnalyticsRelationMeta* rmeta = gst_buffer_add_analytics_relation_meta(in);
        GstAnalyticsODMtd od;
        fail_unless(
            gst_analytics_relation_meta_add_od_mtd(rmeta, g_quark_from_string("car"), 200, 0, 200, 160, 0.9f, &od));
        fail_unless(gst_analytics_relation_meta_add_od_mtd(rmeta, g_quark_from_string("pedestrian"), 0, 0, 200, 160,
                                                           0.8f, &od));
        pedestrian = od.id;
    });
    fail_unless(face_boxes(out, -1) == want, "the faces inside the pedestrian ODMtd are not the reference's");
    check_faces_part_of(out, pedestrian, want.size());
    gst_buffer_unref(out);
}
GST_END_TEST;

/* An object upstream as both a ROI meta and an ODMtd of the same type and
 * box (a detector with metadata=both) is searched once: the faces are
 * those of the ROI meta alone, with its id as parent_id, and their ODMtds
 * are part of its ODMtd. */
GST_START_TEST(test_analytics_regions_searched_once)
{
    const Boxes want = reference_left_faces(faces_side_by_side());
    guint pedestrian = 0;
    GstBuffer* out = run_two_faces(kRegionSearch, [&](GstBuffer* in) {
        gst_buffer_add_video_region_of_interest_meta(in, "pedestrian", 0, 0, 200, 160)->id = 7;
        GstAnalyticsODMtd od;
        fail_unless(gst_analytics_relation_meta_add_od_mtd(
            gst_buffer_add_analytics_relation_meta(in), g_quark_from_string("pedestrian"), 0, 0, 200, 160, 0.8f, &od));
        pedestrian = od.id;
    });
    fail_unless(face_boxes(out, 7) == want, "the faces of a box given twice are not the reference's once");
    check_faces_part_of(out, pedestrian, want.size());
    gst_buffer_unref(out);
}
GST_END_TEST;

/* Two detectors chained with metadata=analytics on the first (no ROI
 * metas): the second searches inside the first one's ODMtds, and each face
 * it finds is part of exactly one of them and inside it. */
GST_START_TEST(test_analytics_regions_chained)
{
    GstBuffer* out = run_two_faces(
        "waldboostdetect draw=none metadata=analytics label=pedestrian roi=<0,0,200,160> ! waldboostdetect "
        "draw=none inference-region=roi-list region-labels=pedestrian",
        [](GstBuffer*) {});
    GstAnalyticsRelationMeta* rmeta = gst_buffer_get_analytics_relation_meta(out);
    const std::vector<Od> ods = ods_of(rmeta);
    size_t pedestrians = 0, faces = 0;
    for (const Od& face : ods) {
        pedestrians += face.label == "pedestrian";
        if (face.label != "face")
            continue;
        ++faces;
        size_t parents = 0;
        for (const Od& p : ods)
            if (p.label == "pedestrian" && (gst_analytics_relation_meta_get_relation(rmeta, face.mtd.id, p.mtd.id) &
                                            GST_ANALYTICS_REL_TYPE_IS_PART_OF)) {
                ++parents;
                fail_unless(face.x >= p.x && face.y >= p.y && face.x + face.w <= p.x + p.w &&
                                face.y + face.h <= p.y + p.h,
                            "a face ODMtd outside its pedestrian");
            }
        fail_unless_equals_int(parents, 1);
    }
    fail_unless(pedestrians > 0, "the first detector gave no ODMtd");
    fail_unless(faces > 0, "no face found inside the first detector's ODMtds");
    fail_unless_equals_int(face_boxes(out, -1).size(), faces);
    gst_buffer_unref(out);
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("analytics");
    tcase_add_test(tc, test_analytics_matches_roi_metas);
    tcase_add_test(tc, test_analytics_tracks_lost_at_a_flush);
    tcase_add_test(tc, test_analytics_metadata_property);
    tcase_add_test(tc, test_analytics_joins_upstream_relation_meta);
    tcase_add_test(tc, test_analytics_bounded_in_a_crowd);
    tcase_add_test(tc, test_analytics_regions_inside_upstream_odmtds);
    tcase_add_test(tc, test_analytics_regions_searched_once);
    tcase_add_test(tc, test_analytics_regions_chained);
    return tc;
}
