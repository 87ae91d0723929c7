/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, tracking: stable ids across frames, interval=N with the
 * face followed by template search between detections, updates=events,
 * and one snapshot per track (snapshot-folder, snapshot-message).
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <glib/gstdio.h>
#include <gst/video/gstvideometa.h>

#include "harness.h"
#include "tools/common/image_file.h"

using namespace element_test;

/* A region-of-interest meta of the detector's label with its track fields
 * (-1 where the parameter structure lacks them). */
struct TrackedBox {
    gint id = -1;
    Box box;
    int age = -1, hits = -1;
    gboolean detected = TRUE;
};

std::vector<TrackedBox> tracked_boxes(GstBuffer* buffer, const char* label = "face")
{
    std::vector<TrackedBox> out;
    gpointer state = nullptr;
    GstMeta* meta;
    while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        if (std::strcmp(g_quark_to_string(roi->roi_type), label) != 0)
            continue;
        TrackedBox t;
        t.id = roi->id;
        t.box.label = label;
        t.box.x = static_cast<int>(roi->x);
        t.box.y = static_cast<int>(roi->y);
        t.box.w = static_cast<int>(roi->w);
        t.box.h = static_cast<int>(roi->h);
        if (const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "detection")) {
            gint id = -2;
            fail_unless(gst_structure_get_int(s, "id", &id) && id == roi->id, "the parameter's id is the meta's");
            gst_structure_get_int(s, "age", &t.age);
            gst_structure_get_int(s, "hits", &t.hits);
            gst_structure_get_boolean(s, "detected", &t.detected);
        }
        out.push_back(t);
    }
    return out;
}

double iou_of(const Box& a, const Box& b)
{
    const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const int x1 = std::min(a.x + a.w, b.x + b.w), y1 = std::min(a.y + a.h, b.y + b.h);
    const double both = x1 > x0 && y1 > y0 ? static_cast<double>(x1 - x0) * (y1 - y0) : 0.0;
    return both / (static_cast<double>(a.w) * a.h + static_cast<double>(b.w) * b.h - both);
}

/* With detections on every frame, each face keeps its id; age counts the
 * frames since the track began, hits the detections. A new face is
 * reported once confirmed (confirm-hits=2: from its second detection on),
 * or at once with confirm-hits=1. */
GST_START_TEST(test_tracking_ids_stable_across_frames)
{
    std::vector<GrayImage> frames;
    for (int k = 0; k < 8; ++k)
        frames.push_back(face_frame(k));
    std::vector<GstBuffer*> out = run_frames({{"tracking", "true"}, {"draw", "none"}}, frames);
    gint id = -1;
    fail_unless_equals_int(tracked_boxes(out[0]).size(), 0); /* tentative on its first frame */
    for (size_t k = 1; k < frames.size(); ++k) {
        const std::vector<Box> want = expected_boxes(core(frames[k]), "face");
        fail_unless_equals_int(want.size(), 1);
        const std::vector<TrackedBox> got = tracked_boxes(out[k]);
        fail_unless_equals_int(got.size(), 1);
        fail_unless(got[0].box.x == want[0].x && got[0].box.y == want[0].y && got[0].box.w == want[0].w,
                    "frame %zu: the tracked box is the detection's", k);
        if (k == 1)
            id = got[0].id;
        fail_unless_equals_int(got[0].id, id);
        fail_unless_equals_int(got[0].age, static_cast<int>(k));
        fail_unless_equals_int(got[0].hits, static_cast<int>(k) + 1);
        fail_unless(got[0].detected, "frame %zu was detected", k);
    }
    unref_all(out);
    out = run_frames({{"tracking", "true"}, {"confirm-hits", "1"}, {"draw", "none"}}, frames);
    const std::vector<TrackedBox> first = tracked_boxes(out[0]);
    fail_unless(first.size() == 1 && first[0].hits == 1, "confirm-hits=1 reports the first detection");
    unref_all(out);

    /* Without tracking the ids are the detections' indexes, with no track
     * fields. */
    out = run_frames({{"draw", "none"}}, frames);
    for (GstBuffer* b : out) {
        const std::vector<TrackedBox> got = tracked_boxes(b);
        fail_unless(got.size() == 1 && got[0].id == 0 && got[0].age == -1 && got[0].hits == -1);
    }
    unref_all(out);
}
GST_END_TEST;

/* interval=3 detects on frames 0, 3, 6...: without tracking the frames in
 * between have no detections; with it the face is followed there, with its
 * id, by template search. */
GST_START_TEST(test_tracking_interval)
{
    std::vector<GrayImage> frames;
    for (int k = 0; k < 8; ++k)
        frames.push_back(face_frame(k));
    std::vector<GstBuffer*> out = run_frames({{"interval", "3"}, {"draw", "none"}}, frames);
    for (size_t k = 0; k < frames.size(); ++k) {
        const std::vector<Box> want = k % 3 == 0 ? expected_boxes(core(frames[k]), "face") : std::vector<Box>{};
        CHECK_BOXES(out[k], want, "interval=3, frame " + std::to_string(k));
    }
    unref_all(out);

    out = run_frames({{"interval", "3"}, {"tracking", "true"}, {"draw", "none"}}, frames);
    gint id = -1;
    for (size_t k = 0; k < frames.size(); ++k) {
        const std::vector<Box> detected = expected_boxes(core(frames[k]), "face");
        const std::vector<TrackedBox> got = tracked_boxes(out[k]);
        if (k < 3) { /* confirmed by the second detection, on frame 3 */
            fail_unless(got.empty(), "frame %zu: a tentative track is reported", k);
            continue;
        }
        fail_unless(got.size() == 1 && detected.size() == 1, "frame %zu: %zu tracked", k, got.size());
        if (k == 3)
            id = got[0].id;
        fail_unless_equals_int(got[0].id, id);
        fail_unless_equals_int(got[0].detected, k % 3 == 0);
        fail_unless_equals_int(got[0].age, static_cast<int>(k));
        fail_unless_equals_int(got[0].hits, static_cast<int>(k) / 3 + 1);
        /* Followed boxes keep the size of the last detection and move with
         * the face, so they overlap what detection would have found. */
        const double iou = iou_of(got[0].box, detected[0]);
        fail_unless(iou >= 0.7, "frame %zu: IoU %.2f with the detection the frame would have had", k, iou);
    }
    unref_all(out);
}
GST_END_TEST;

/* The ids of a buffer's events meta's "open" tracks; false: no "open". */
bool meta_open(GstBuffer* b, std::set<gint>* open)
{
    open->clear();
    GstCustomMeta* meta = gst_buffer_get_custom_meta(b, "WaldboostTrackEventsMeta");
    const GValue* list = meta ? gst_structure_get_value(gst_custom_meta_get_structure(meta), "open") : nullptr;
    if (!list)
        return false;
    fail_unless(GST_VALUE_HOLDS_LIST(list));
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        gint id = -1, w = 0;
        const GstStructure* t = gst_value_get_structure(gst_value_list_get_value(list, i));
        fail_unless(gst_structure_get_int(t, "id", &id) && gst_structure_get_int(t, "width", &w) && w > 0);
        open->insert(id);
    }
    return true;
}

/* updates=events: one "waldboostdetect-events" message when the face
 * appears (is confirmed, on its second detection), one when it has been
 * missing for lost-after frames, and a new id when it comes back; no
 * per-frame messages. */
GST_START_TEST(test_tracking_events)
{
    const GrayImage blank(200, 160, 90);
    const std::vector<GrayImage> frames = {face_frame(0), face_frame(1), face_frame(2), blank,
                                           blank,         blank,         face_frame(3), face_frame(4)};
    GstBus* bus = nullptr;
    std::vector<GstBuffer*> out =
        run_frames({{"tracking", "true"}, {"updates", "events"}, {"lost-after", "2"}, {"draw", "none"}}, frames, &bus);
    struct Seen {
        guint64 frame;
        std::string kind;
        gint id;
    };
    std::vector<Seen> seen;
    int per_frame = 0;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
        per_frame += gst_message_has_name(m, "waldboostdetect");
        if (!gst_message_has_name(m, "waldboostdetect-events")) {
            gst_message_unref(m);
            continue;
        }
        const GstStructure* s = gst_message_get_structure(m);
        guint64 frame = 0;
        fail_unless(gst_structure_get_uint64(s, "frame", &frame));
        const GValue* events = gst_structure_get_value(s, "events");
        fail_unless(events && GST_VALUE_HOLDS_LIST(events));
        for (guint i = 0; i < gst_value_list_get_size(events); ++i) {
            const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(events, i));
            gint id = -1, w = 0;
            fail_unless(gst_structure_get_int(e, "id", &id) && gst_structure_get_int(e, "width", &w) && w > 0);
            seen.push_back({frame, gst_structure_get_string(e, "kind"), id});
        }
        gst_message_unref(m);
    }
    fail_unless_equals_int(per_frame, 0);
    fail_unless_equals_int(seen.size(), 4);
    fail_unless(seen[0].frame == 1 && seen[0].kind == "appeared", "appeared on frame 1");
    /* Blank frames 3 and 4 have no detection; lost-after=2 ends it on 4. */
    fail_unless(seen[1].frame == 4 && seen[1].kind == "left" && seen[1].id == seen[0].id,
                "left on frame %" G_GUINT64_FORMAT, seen[1].frame);
    fail_unless(seen[2].frame == 7 && seen[2].kind == "appeared" && seen[2].id > seen[0].id,
                "back on frame 6, confirmed on 7 with a new id");
    /* Every track that appeared also leaves: at EOS, on the last frame. */
    fail_unless(seen[3].frame == 7 && seen[3].kind == "left" && seen[3].id == seen[2].id,
                "the open track leaves at EOS (frame %" G_GUINT64_FORMAT ")", seen[3].frame);
    /* On blank frame 3 the track is not reported, but open (it coasts):
     * its buffer's meta says so, and on frame 4 that it is not. */
    std::set<gint> open;
    fail_unless(tracked_boxes(out[3]).empty());
    fail_unless(meta_open(out[3], &open) && open == std::set<gint>{seen[0].id}, "frame 3: %zu open", open.size());
    fail_unless(meta_open(out[4], &open) && open.empty(), "frame 4: %zu open", open.size());
    unref_all(out);
    gst_object_unref(bus);

    /* Without tracking there are no events to post, and a warning says so,
     * once. */
    out = run_frames({{"updates", "events"}, {"draw", "none"}}, frames, &bus);
    int event_messages = 0, warnings = 0;
    while (GstMessage* m = gst_bus_pop(bus)) {
        event_messages += gst_message_has_name(m, "waldboostdetect-events");
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            GError* error = nullptr;
            gst_message_parse_warning(m, &error, nullptr);
            fail_unless(strstr(error->message, "tracking") != nullptr, "%s", error->message);
            g_error_free(error);
            ++warnings;
        }
        gst_message_unref(m);
    }
    fail_unless_equals_int(event_messages, 0);
    fail_unless_equals_int(warnings, 1); /* updates=events without tracking says so, once */
    unref_all(out);
    gst_object_unref(bus);
}
GST_END_TEST;

/* The track events of a buffer's events meta (track_events_meta.h), in
 * order: kind and id. */
std::vector<std::pair<std::string, gint>> meta_events(GstBuffer* b, std::vector<std::string>* labels = nullptr)
{
    std::vector<std::pair<std::string, gint>> events;
    GstCustomMeta* meta = gst_buffer_get_custom_meta(b, "WaldboostTrackEventsMeta");
    if (!meta)
        return events;
    const GValue* list = gst_structure_get_value(gst_custom_meta_get_structure(meta), "events");
    fail_unless(list && GST_VALUE_HOLDS_LIST(list));
    for (guint i = 0; i < gst_value_list_get_size(list); ++i) {
        const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(list, i));
        gint id = -1;
        fail_unless(gst_structure_get_int(e, "id", &id));
        events.emplace_back(gst_structure_get_string(e, "kind"), id);
        if (labels) {
            const char* label = gst_structure_get_string(e, "label");
            labels->push_back(label ? label : "");
        }
    }
    return events;
}

/* Track ids never come back in a stream: not when tracking is switched off
 * and on again, not when lost-after changes (each starts the tracker
 * afresh); the tracks open then leave first, on the bus and
 * on the next buffer. */
GST_START_TEST(test_tracking_ids_never_come_back)
{
    GstHarness* h = harness_with({{"tracking", "true"}, {"updates", "events"}, {"draw", "none"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    std::vector<gint> first_ids;
    std::map<gint, int> meta_appeared, meta_left; /* the buffers' events metas */
    /* What the metas' events opened and did not close: each buffer's
     * "open" says the same (empty on the frame tracking=false ends them),
     * and holds every track reported on it. */
    std::set<gint> running, open;
    int k = 0;
    auto push = [&](int count) {
        std::vector<gint> ids;
        for (int i = 0; i < count; ++i, ++k) {
            fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
            GstBuffer* b = gst_harness_pull(h);
            for (const auto& [kind, id] : meta_events(b)) {
                ++(kind == "appeared" ? meta_appeared : meta_left)[id];
                if (kind == "appeared")
                    running.insert(id);
                else
                    running.erase(id);
            }
            fail_unless(meta_open(b, &open), "frame %d has no open tracks in its meta", k);
            fail_unless(open == running, "frame %d: %zu tracks open in the meta, %zu by its events", k, open.size(),
                        running.size());
            for (const TrackedBox& t : tracked_boxes(b)) {
                ids.push_back(t.id);
                fail_unless(t.age < 0 || open.count(t.id), "frame %d: track %d reported, not open", k, t.id);
            }
            gst_buffer_unref(b);
        }
        return ids;
    };
    const std::vector<gint> before = push(3);
    g_object_set(h->element, "tracking", FALSE, nullptr);
    push(1);
    g_object_set(h->element, "tracking", TRUE, nullptr);
    const std::vector<gint> after_toggle = push(3);
    g_object_set(h->element, "lost-after", 5, nullptr);
    const std::vector<gint> after_lost_after = push(3);
    push_eos(h);
    fail_unless(!before.empty() && !after_toggle.empty() && !after_lost_after.empty(), "no tracked face");
    const gint last_before = *std::max_element(before.begin(), before.end());
    const gint first_toggle = *std::min_element(after_toggle.begin(), after_toggle.end());
    fail_unless(first_toggle > last_before, "id %d came back after tracking=false and true", first_toggle);
    const gint last_toggle = *std::max_element(after_toggle.begin(), after_toggle.end());
    const gint first_lost = *std::min_element(after_lost_after.begin(), after_lost_after.end());
    fail_unless(first_lost > last_toggle, "id %d came back after lost-after changed", first_lost);
    /* Every track that appeared left, once. */
    std::map<gint, int> appeared, left;
    for (GstMessage* m : pop_element_messages(bus, "waldboostdetect-events")) {
        const GValue* events = gst_structure_get_value(gst_message_get_structure(m), "events");
        for (guint i = 0; i < gst_value_list_get_size(events); ++i) {
            const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(events, i));
            gint id = -1;
            gst_structure_get_int(e, "id", &id);
            ++(std::strcmp(gst_structure_get_string(e, "kind"), "appeared") == 0 ? appeared : left)[id];
        }
        gst_message_unref(m);
    }
    fail_unless(appeared == left && appeared.size() >= 3, "%zu tracks appeared, %zu left", appeared.size(),
                left.size());
    for (const auto& [id, n] : appeared)
        fail_unless_equals_int(n, 1);
    /* The buffers say the same, for what reads them (waldboostmetaconvert):
     * the tracks that tracking=false and the lost-after change ended leave
     * in the next frame's meta; the last ones leave at EOS, on the bus
     * only (no buffer follows). */
    fail_unless(meta_appeared.size() == appeared.size(), "%zu tracks appeared on the buffers, %zu on the bus",
                meta_appeared.size(), appeared.size());
    for (const auto& [id, n] : meta_appeared) {
        fail_unless_equals_int(n, 1);
        const bool ended_mid_stream = id <= last_toggle;
        fail_unless_equals_int(meta_left[id], ended_mid_stream ? 1 : 0);
    }
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* Tracking with parts and box text through what demuxers and cameras send
 * (the hostile streams): a flushing seek, a resolution change
 * mid-stream, timestamps going backwards, GAP events. Every frame leaves,
 * no error is posted, no buffer has two metas of one id, every track that
 * appeared leaves (by EOS), and no track id comes back after it left. */
GST_START_TEST(test_tracking_through_hostile_streams)
{
    GstHarness* h = harness_with({{"tracking", "true"},
                                  {"interval", "2"},
                                  {"lost-after", "3"},
                                  {"updates", "events"},
                                  {"box-text", "label+id"},
                                  {"draw", "burn"},
                                  {"eyes-profile", haar_cascade("haarcascade_eye")}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    int pushed = 0;
    std::vector<GstBuffer*> out;
    auto push = [&](const GrayImage& img, int pts_index) {
        fail_unless_equals_int(push_frame(h, img, GST_VIDEO_FORMAT_GRAY8, pts_index), GST_FLOW_OK);
        ++pushed;
    };
    for (int k = 0; k < 6; ++k)
        push(face_frame(k), k);
    /* A flushing seek back to the start. */
    push_flush(h);
    std::vector<GstBuffer*> before_seek = pull_all(h); /* what left before the flush */
    const int flushed = pushed - static_cast<int>(before_seek.size());
    out.insert(out.end(), before_seek.begin(), before_seek.end());
    for (int k = 0; k < 4; ++k)
        push(face_frame(k), k);
    /* A resolution change, then timestamps going backwards and GAP events. */
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 320, 240);
    for (int k = 0; k < 4; ++k)
        push(crop(astronaut(), 10 + 3 * k, 5, 320, 240), 20 - k);
    for (int k = 0; k < 3; ++k) {
        fail_unless(gst_harness_push_event(h, gst_event_new_gap(pts_of(30 + k), kFrameDuration)));
        push(crop(astronaut(), 22 + 3 * k, 5, 320, 240), 30 + k);
    }
    push_eos(h);
    std::vector<GstBuffer*> rest = pull_all(h);
    out.insert(out.end(), rest.begin(), rest.end());
    fail_unless_equals_int(static_cast<int>(out.size()), pushed - flushed);
    for (GstBuffer* b : out) {
        std::vector<gint> ids;
        gpointer state = nullptr;
        while (GstMeta* m = gst_buffer_iterate_meta_filtered(b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
            ids.push_back(reinterpret_cast<GstVideoRegionOfInterestMeta*>(m)->id);
        std::sort(ids.begin(), ids.end());
        fail_unless(std::adjacent_find(ids.begin(), ids.end()) == ids.end(), "two metas of one id on a buffer");
    }
    std::map<gint, int> open; /* id: appeared - left */
    std::map<gint, bool> left;
    int appeared = 0;
    while (GstMessage* m = gst_bus_pop(bus)) {
        fail_if(GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR, "an error was posted");
        if (gst_message_has_name(m, "waldboostdetect-events")) {
            const GValue* events = gst_structure_get_value(gst_message_get_structure(m), "events");
            for (guint i = 0; i < gst_value_list_get_size(events); ++i) {
                const GstStructure* e = gst_value_get_structure(gst_value_list_get_value(events, i));
                gint id = -1;
                fail_unless(gst_structure_get_int(e, "id", &id));
                const std::string kind = gst_structure_get_string(e, "kind");
                if (kind == "appeared") {
                    fail_if(left[id], "track %d appeared again after it left", id);
                    ++open[id];
                    ++appeared;
                } else {
                    --open[id];
                    left[id] = true;
                }
            }
        }
        gst_message_unref(m);
    }
    fail_unless(appeared >= 2, "only %d tracks appeared: the test would see nothing", appeared);
    for (const auto& [id, count] : open)
        fail_unless_equals_int(count, 0);
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* The astronaut's face zoomed: a w x 0.8w window around it, scaled to
 * 200x160, so that a smaller w gives a larger face. */
GrayImage zoomed_face(int w)
{
    const int h = w * 4 / 5;
    const GrayImage window = crop(astronaut(), 210 - w / 2, 105 - h * 2 / 5, w, h);
    return waldboost::resize_bilinear(window.view(), {200, 160});
}

/* A PNG snapshot against the frame it was cut from (GRAY8 in: every
 * channel is the luma), pixel by pixel. */
void check_snapshot_pixels(const std::string& png_path, const GrayImage& frame, const Box& box)
{
    const GrayImage got = waldboost::tools::load_gray_image(png_path);
    fail_unless(got.width == box.w && got.height == box.h, "the snapshot is %dx%d, the box %dx%d", got.width,
                got.height, box.w, box.h);
    int worst = 0;
    for (int y = 0; y < box.h; ++y)
        for (int x = 0; x < box.w; ++x)
            worst = std::max(worst, std::abs(int{got.at(x, y)} - int{frame.at(box.x + x, box.y + y)}));
    fail_unless(worst <= 2, "the snapshot differs from the frame's box by up to %d gray levels", worst);
}

/* The snapshot messages and the warning texts on a bus, in one pass
 * (gst_bus_pop_filtered drops what it does not keep). */
std::vector<GstMessage*> pop_snapshots(GstBus* bus, std::vector<std::string>* warnings)
{
    std::vector<GstMessage*> snapshots;
    while (GstMessage* m = gst_bus_pop(bus)) {
        if (gst_message_has_name(m, "waldboostdetect-snapshot")) {
            snapshots.push_back(m);
            continue;
        }
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            GError* error = nullptr;
            gst_message_parse_warning(m, &error, nullptr);
            warnings->push_back(error->message);
            g_error_free(error);
        }
        gst_message_unref(m);
    }
    return snapshots;
}

/* snapshot-folder and snapshot-message: one PNG per track when it leaves
 * (mid-stream after lost-after frames without it, and at EOS), of its
 * largest box on a detection frame, cut from the frame as it arrived
 * (privacy=blur does not reach it); without tracking a warning and none;
 * a folder that does not exist gives one warning and the messages still
 * come. */
GST_START_TEST(test_tracking_snapshots)
{
    /* A face that comes closer and goes back, three frames without it
     * (the track leaves), then the face again until EOS. */
    std::vector<GrayImage> frames;
    for (int w : {280, 260, 240, 220, 200, 240, 280})
        frames.push_back(zoomed_face(w));
    for (int k = 0; k < 3; ++k)
        frames.push_back(synthetic(200, 160, k));
    for (int k = 0; k < 4; ++k)
        frames.push_back(face_frame(k));
    gchar* folder = g_dir_make_tmp("waldboost-snapshots-XXXXXX", nullptr);
    fail_unless(folder != nullptr);
    GstBus* bus = nullptr;
    std::vector<GstBuffer*> out = run_frames({{"tracking", "true"},
                                              {"lost-after", "2"},
                                              {"confirm-hits", "1"},
                                              {"draw", "none"},
                                              {"privacy", "blur"},
                                              {"snapshot-folder", folder},
                                              {"snapshot-message", "true"}},
                                             frames, &bus);
    /* The element's own boxes: per track, the largest detected one. */
    std::map<gint, std::pair<Box, size_t>> largest;
    for (size_t k = 0; k < out.size(); ++k)
        for (const TrackedBox& t : tracked_boxes(out[k])) {
            if (!t.detected)
                continue;
            auto it = largest.find(t.id);
            if (it == largest.end() || t.box.w * t.box.h > it->second.first.w * it->second.first.h)
                largest[t.id] = {t.box, k};
        }
    fail_unless_equals_int(largest.size(), 2);
    fail_unless(largest.begin()->second.second == 4, "the first track is largest on frame 4, not %zu",
                largest.begin()->second.second);
    std::vector<std::string> warnings;
    std::vector<GstMessage*> messages = pop_snapshots(bus, &warnings);
    fail_unless_equals_int(messages.size(), 2);
    fail_unless(warnings.empty(), "no warning: %s", warnings.empty() ? "" : warnings[0].c_str());
    for (GstMessage* m : messages) {
        const GstStructure* st = gst_message_get_structure(m);
        gint id = -1, x = -1, y = -1, w = -1, h = -1;
        guint64 frame = G_MAXUINT64;
        fail_unless(gst_structure_get_int(st, "track-id", &id) && gst_structure_get_int(st, "x", &x) &&
                    gst_structure_get_int(st, "y", &y) && gst_structure_get_int(st, "width", &w) &&
                    gst_structure_get_int(st, "height", &h) && gst_structure_get_uint64(st, "frame", &frame));
        fail_unless(largest.count(id) == 1, "a snapshot of track %d, which no meta had", id);
        const Box& want = largest[id].first;
        fail_unless(x == want.x && y == want.y && w == want.w && h == want.h && frame == largest[id].second,
                    "track %d: snapshot of %dx%d+%d+%d on frame %" G_GUINT64_FORMAT ", largest box %dx%d+%d+%d on "
                    "frame %zu",
                    id, w, h, x, y, frame, want.w, want.h, want.x, want.y, largest[id].second);
        fail_unless_equals_string(gst_structure_get_string(st, "label"), "face");
        const gchar* location = gst_structure_get_string(st, "location");
        fail_unless(location != nullptr, "the message names the file");
        gchar* name = g_strdup_printf("track-%d-frame-%" G_GUINT64_FORMAT ".png", id, frame);
        gchar* expected = g_build_filename(folder, name, nullptr);
        fail_unless_equals_string(location, expected);
        check_snapshot_pixels(location, frames[frame], want);
        /* The message's PNG is the file's. */
        GstSample* sample = nullptr;
        fail_unless(gst_structure_get(st, "image", GST_TYPE_SAMPLE, &sample, nullptr));
        gchar* contents = nullptr;
        gsize length = 0;
        fail_unless(g_file_get_contents(location, &contents, &length, nullptr));
        GstBuffer* png = gst_sample_get_buffer(sample);
        fail_unless(gst_buffer_get_size(png) == length && gst_buffer_memcmp(png, 0, contents, length) == 0,
                    "the message's image is the file's");
        g_free(contents);
        gst_sample_unref(sample);
        g_unlink(location);
        g_free(expected);
        g_free(name);
        gst_message_unref(m);
    }
    gst_object_unref(bus);
    unref_all(out);

    /* Without tracking: a warning says why, and no snapshot. */
    out = run_frames({{"draw", "none"}, {"snapshot-message", "true"}}, frames, &bus);
    fail_unless(pop_snapshots(bus, &warnings).empty());
    fail_unless(warnings.size() == 1 && contains(warnings[0], "tracking=true"),
                "one warning names tracking=true: %zu warnings", warnings.size());
    gst_object_unref(bus);
    unref_all(out);

    /* A folder that is not there: one warning naming it, the messages come. */
    gchar* missing = g_build_filename(folder, "not-there", nullptr);
    out = run_frames({{"tracking", "true"},
                      {"lost-after", "2"},
                      {"confirm-hits", "1"},
                      {"draw", "none"},
                      {"snapshot-folder", missing},
                      {"snapshot-message", "true"}},
                     frames, &bus);
    warnings.clear();
    messages = pop_snapshots(bus, &warnings);
    fail_unless_equals_int(messages.size(), 2);
    for (GstMessage* m : messages) {
        fail_unless(gst_structure_get_string(gst_message_get_structure(m), "location") == nullptr);
        gst_message_unref(m);
    }
    fail_unless(warnings.size() == 1 && contains(warnings[0], missing), "one warning names the folder: %zu warnings",
                warnings.size());
    gst_object_unref(bus);
    unref_all(out);
    g_free(missing);
    fail_unless(g_rmdir(folder) == 0, "every snapshot was named in a message (the folder is empty)");
    g_free(folder);
}
GST_END_TEST;

/* Pushes `frames` (GRAY8) through a new element with `props`, with caps of
 * frame 0's size and, from frame `change` on, of that frame's size, and
 * returns the buffers that came out. */
std::vector<GstBuffer*> run_with_new_caps(const Props& props, const std::vector<GrayImage>& frames, size_t change)
{
    GstHarness* h = harness_with(props);
    for (size_t k = 0; k < frames.size(); ++k) {
        if (k == 0 || k == change)
            set_caps(h, GST_VIDEO_FORMAT_GRAY8, frames[k].width, frames[k].height);
        fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(k)), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames.size());
    gst_harness_teardown(h);
    return out;
}

/* New caps of another size in mid-stream (a camera or an adaptive stream
 * changing its resolution), with interval=3: the first frame at the new
 * size is searched whatever its number, and the track goes on with its id
 * and age, its box on the new frames where the detection there is (the
 * tracker's boxes scaled with the frames), rather than ending at a box in
 * the old frame's coordinates and starting again under a new id. Both
 * ways, smaller then larger. */
GST_START_TEST(test_tracking_across_a_new_resolution)
{
    for (const int factor : {2, -2}) {
        const auto at_size = [&](const GrayImage& img, bool after) {
            if (!after)
                return img;
            const waldboost::Size size = factor > 0 ? waldboost::Size{img.width / 2, img.height / 2}
                                                    : waldboost::Size{img.width * 2, img.height * 2};
            return waldboost::resize_bilinear(img.view(), size);
        };
        std::vector<GrayImage> frames;
        const int change = 8; /* not a multiple of 3: searched only for the new size */
        for (int k = 0; k < 14; ++k)
            frames.push_back(at_size(face_frame(k), k >= change));
        std::vector<GstBuffer*> out =
            run_with_new_caps({{"interval", "3"}, {"tracking", "true"}, {"draw", "none"}}, frames, change);
        gint id = -1;
        for (int k = 3; k < 14; ++k) {
            const std::string where = "factor " + std::to_string(factor) + ", frame " + std::to_string(k);
            const std::vector<Box> detected = expected_boxes(core(frames[k]), "face");
            const std::vector<TrackedBox> got = tracked_boxes(out[k]);
            fail_unless(detected.size() == 1, "%s: the reference finds %zu faces", where.c_str(), detected.size());
            fail_unless(got.size() == 1, "%s: %zu tracked", where.c_str(), got.size());
            if (k == 3)
                id = got[0].id;
            fail_unless_equals_int(got[0].id, id);
            fail_unless_equals_int(got[0].age, k);
            const bool searched = k < change ? k % 3 == 0 : (k - change) % 3 == 0;
            fail_unless(got[0].detected == searched, "%s: detected %d", where.c_str(), got[0].detected);
            const double iou = iou_of(got[0].box, detected[0]);
            fail_unless(iou >= 0.7, "%s: IoU %.2f with the detection there", where.c_str(), iou);
        }
        unref_all(out);
    }
}
GST_END_TEST;

/* New caps of another display aspect (videoflip rotating, a switch to
 * another source) are another picture, not the same one scaled: the track
 * ends on the first new frame, which is searched, and the face there gets
 * a new id once confirmed (interval=3: searched at the change, frame 8,
 * and at frame 11). */
GST_START_TEST(test_tracking_ends_at_a_new_aspect)
{
    std::vector<GrayImage> frames;
    const int change = 8;
    for (int k = 0; k < 13; ++k)
        frames.push_back(k < change ? face_frame(k) : crop(face_frame(k), 20, 0, 160, 160));
    std::vector<GstBuffer*> out =
        run_with_new_caps({{"interval", "3"}, {"tracking", "true"}, {"draw", "none"}}, frames, change);
    const std::vector<TrackedBox> before = tracked_boxes(out[change - 1]);
    fail_unless_equals_int(before.size(), 1);
    for (int k = change; k < 13; ++k) {
        fail_unless_equals_int(expected_boxes(core(frames[k]), "face").size(), 1);
        const std::vector<TrackedBox> got = tracked_boxes(out[k]);
        if (k < 11) {
            fail_unless(got.empty(), "frame %d: %zu tracked before the new track is confirmed", k, got.size());
            continue;
        }
        fail_unless_equals_int(got.size(), 1);
        fail_unless(got[0].id > before[0].id, "frame %d: id %d, the old track's %d", k, got[0].id, before[0].id);
        fail_unless_equals_int(got[0].age, k - change);
    }
    unref_all(out);
}
GST_END_TEST;

/* A track keeps one class for its life. A new label while tracking (set
 * while playing, or a classifier of another label) ends the tracks, as a
 * seek does: the track leaves with its old label on the first frame of the
 * new one (in the buffer's events meta, which the converter reads), that
 * frame is searched (interval=3, the change at frame 8), and the face gets
 * a new id under the new label once confirmed. Another file of the same
 * cascade and label (OpenCV's original for the embedded copy) keeps the
 * track and its id. */
GST_START_TEST(test_tracking_ends_at_a_new_label)
{
    const int change = 8;
    for (const bool new_label : {true, false}) {
        GstHarness* h = harness_with({{"tracking", "true"}, {"interval", "3"}, {"draw", "none"}});
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
        std::vector<GstBuffer*> out;
        for (int k = 0; k < 13; ++k) {
            if (k == change) {
                if (new_label)
                    g_object_set(h->element, "label", "person", nullptr);
                else
                    g_object_set(h->element, "classifier", cascade_path("lbpcascade_frontalface").c_str(), nullptr);
            }
            fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        }
        push_eos(h);
        out = pull_all(h);
        gst_harness_teardown(h);
        fail_unless_equals_int(out.size(), 13);
        const std::vector<TrackedBox> before = tracked_boxes(out[change - 1]);
        fail_unless_equals_int(before.size(), 1);
        std::vector<std::string> labels;
        const auto events = meta_events(out[change], &labels);
        bool left = false;
        for (size_t i = 0; i < events.size(); ++i)
            left = left || (events[i].first == "left" && events[i].second == before[0].id && labels[i] == "face");
        fail_unless(left == new_label, "new label %d: the old track %s on the first frame of the change", new_label,
                    left ? "left (with label face)" : "did not leave with label face");
        for (int k = change; k < 13; ++k) {
            const std::vector<TrackedBox> faces = tracked_boxes(out[k], "face");
            const std::vector<TrackedBox> persons = tracked_boxes(out[k], "person");
            if (!new_label) {
                fail_unless(faces.size() == 1 && faces[0].id == before[0].id && persons.empty(),
                            "frame %d: the same cascade and label keep the track", k);
                continue;
            }
            fail_unless(faces.empty(), "frame %d: a face track under the new label", k);
            if (k < change + 3) {
                fail_unless(persons.empty(), "frame %d: %zu tracked before the new track is confirmed", k,
                            persons.size());
                continue;
            }
            fail_unless_equals_int(persons.size(), 1);
            fail_unless(persons[0].id > before[0].id, "frame %d: id %d, the old track's %d", k, persons[0].id,
                        before[0].id);
            fail_unless_equals_int(persons[0].age, k - change);
        }
        unref_all(out);
    }
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("tracking");
    tcase_add_test(tc, test_tracking_ids_stable_across_frames);
    tcase_add_test(tc, test_tracking_interval);
    tcase_add_test(tc, test_tracking_events);
    tcase_add_test(tc, test_tracking_ids_never_come_back);
    tcase_add_test(tc, test_tracking_through_hostile_streams);
    tcase_add_test(tc, test_tracking_snapshots);
    tcase_add_test(tc, test_tracking_across_a_new_resolution);
    tcase_add_test(tc, test_tracking_ends_at_a_new_aspect);
    tcase_add_test(tc, test_tracking_ends_at_a_new_label);
    return tc;
}
