/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker (core/tracking/tracker.h) on synthetic scenes whose true boxes
 * are known: ids kept while detected, between detections and through the
 * distance gate, tracks that end, merge, never cross labels, and the bounds
 * on them; what follow() searches.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/detection/grouping.h"
#include "core/tracking/tracker.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

namespace {

/* The reference search, counting what it is asked. */
class CountingSearcher final : public TemplateSearcher {
public:
    std::vector<SearchResult> search(const GrayView& frame, const std::vector<SearchRequest>& requests) override
    {
        ++calls;
        this->requests += requests.size();
        return reference.search(frame, requests);
    }
    int calls = 0;
    size_t requests = 0;
    ReferenceSearcher reference;
};

}  // namespace

/* One object detected on every frame keeps one id: tentative (id 0,
 * unreported) on its first frame, confirmed by the second detection, and
 * one Appeared event in all. */
TEST(Tracker, OneIdWhileDetectedOnConsecutiveFrames)
{
    Tracker tracker;
    const Rect start{20, 30, 48, 48};
    int appeared = 0, left = 0;
    for (int f = 0; f < 40; ++f) {
        const Rect box = moved(start, 3 * f, f);
        const GrayImage img = scene(320, 240, {{box, 1}});
        const auto events = tracker.update(img.view(), {{box, 0, 0.9f}});
        appeared += count(events, TrackEvent::Kind::Appeared);
        left += count(events, TrackEvent::Kind::Left);
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        const Track& t = tracker.tracks()[0];
        EXPECT_EQ(t.id, f == 0 ? 0 : 1) << "frame " << f;
        EXPECT_EQ(t.reported(), f > 0) << "frame " << f;
        EXPECT_EQ(t.box, box);
        EXPECT_EQ(t.age, f);
        EXPECT_EQ(t.hits, f + 1);
        EXPECT_EQ(t.state, Track::State::Detected);
    }
    EXPECT_EQ(appeared, 1);
    EXPECT_EQ(left, 0);
}

/* Between detections the template search places the box exactly; the track
 * is confirmed on its second frame with detection however many frames lie
 * between (confirm_window counts frames with detection). */
TEST(Tracker, FollowsTheObjectBetweenDetections)
{
    for (const int interval : {2, 3, 5}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        const Rect start{10, 50, 60, 40};
        int64_t id = 0;
        for (int f = 0; f < 45; ++f) {
            const Rect box = moved(start, 4 * f, f % 7 == 0 ? 2 : 1); /* not quite constant motion */
            const GrayImage img = scene(400, 200, {{box, 7}});
            std::vector<TrackEvent> events;
            if (f % interval == 0)
                events = tracker.update(img.view(), {{box, 0, 0.5f}});
            else
                events = tracker.follow(img.view(), searcher);
            ASSERT_EQ(tracker.tracks().size(), 1u) << "interval " << interval << ", frame " << f;
            const Track& t = tracker.tracks()[0];
            EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), f == interval ? 1 : 0) << "frame " << f;
            if (f == interval)
                id = t.id;
            EXPECT_EQ(t.id, f < interval ? 0 : id);
            EXPECT_EQ(t.reported(), f >= interval) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(t.box, box) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(t.state, f % interval == 0 ? Track::State::Detected : Track::State::Followed);
        }
        EXPECT_EQ(id, 1);
    }
}

/* Two objects passing each other, both detected throughout (A partly
 * behind B, their boxes overlapping by up to IoU 0.6), keep their ids. */
TEST(Tracker, CrossingObjectsKeepTheirIds)
{
    for (const int interval : {1, 2}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        const Rect a0{10, 40, 40, 40}, b0{250, 50, 40, 40}; /* overlapping by up to 60% */
        int64_t id_a = 0, id_b = 0;
        for (int f = 0; f < 60; ++f) {
            const Rect a = moved(a0, 4 * f, 0), b = moved(b0, -4 * f, 0);
            /* A passes behind B while they overlap. */
            const GrayImage img = scene(320, 160, {{a, 3}, {b, 4}});
            std::vector<TrackerInput> detections = {{a, 0, 0.8f}, {b, 0, 0.8f}};
            if (f % 2)
                std::swap(detections[0], detections[1]); /* the order must not matter */
            if (f % interval == 0)
                tracker.update(img.view(), detections);
            else
                tracker.follow(img.view(), searcher);
            const Track* ta = track_at(tracker, a);
            const Track* tb = track_at(tracker, b);
            if (f % interval == 0) {
                ASSERT_TRUE(ta && tb) << "interval " << interval << ", frame " << f;
            } else if (!ta || !tb) {
                continue; /* a search may lose the covered object while they overlap */
            }
            if (f < interval)
                continue; /* tentative yet */
            if (f == interval) {
                id_a = ta->id;
                id_b = tb->id;
            }
            EXPECT_TRUE(ta->reported() && tb->reported()) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(ta->id, id_a) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(tb->id, id_b) << "interval " << interval << ", frame " << f;
        }
        EXPECT_NE(id_a, 0);
        EXPECT_NE(id_b, 0);
        EXPECT_NE(id_a, id_b);
    }
}

/* lost_after (explicit here): an object hidden (no detections, covered by
 * another texture) for fewer frames takes its id back with no event;
 * hidden for lost_after frames or more, its track ends (Left) and it comes
 * back as a new object (Appeared, a new id once confirmed again). */
TEST(Tracker, AnOcclusionShorterThanLostAfterKeepsTheId)
{
    TrackerConfig config;
    config.lost_after = 10;
    const Rect start{100, 60, 50, 50};
    for (const int hidden : {3, 9, 10, 14}) {
        Tracker tracker(config);
        int64_t first_id = 0;
        std::vector<TrackEvent> all;
        for (int f = 0; f < 40; ++f) {
            const Rect box = moved(start, f, 0);
            const bool covered = f >= 12 && f < 12 + hidden;
            std::vector<Object> objects = {{box, 5}};
            if (covered)
                objects.push_back({grown(box, 10), 99});
            const GrayImage img = scene(320, 200, objects);
            std::vector<TrackerInput> detections;
            if (!covered)
                detections.push_back({box, 0, 0.7f});
            const auto events = tracker.update(img.view(), detections);
            all.insert(all.end(), events.begin(), events.end());
            if (f == 1)
                first_id = tracker.tracks().at(0).id;
            if (covered && f - 12 + 1 < config.lost_after) {
                ASSERT_EQ(tracker.tracks().size(), 1u) << "hidden " << hidden << ", frame " << f;
                EXPECT_EQ(tracker.tracks()[0].state, Track::State::Coasting);
                EXPECT_FALSE(tracker.tracks()[0].reported());
            }
        }
        EXPECT_EQ(first_id, 1);
        ASSERT_EQ(tracker.tracks().size(), 1u);
        EXPECT_TRUE(tracker.tracks()[0].reported());
        if (hidden < config.lost_after) {
            EXPECT_EQ(tracker.tracks()[0].id, first_id) << "hidden " << hidden;
            EXPECT_EQ(count(all, TrackEvent::Kind::Appeared), 1);
            EXPECT_EQ(count(all, TrackEvent::Kind::Left), 0);
        } else {
            /* Ended after lost_after frames without a detection; back as a
             * new object. */
            EXPECT_GT(tracker.tracks()[0].id, first_id) << "hidden " << hidden;
            EXPECT_EQ(count(all, TrackEvent::Kind::Appeared), 2);
            EXPECT_EQ(count(all, TrackEvent::Kind::Left), 1);
        }
    }
}

/* An object leaving the frame ends (Left) once less than half of it is
 * inside, followed by the search at interval 3. */
TEST(Tracker, AnObjectLeavingTheFrameEnds)
{
    for (const int interval : {1, 3}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        const Rect start{100, 70, 40, 40};
        int left_at = -1;
        for (int f = 0; f < 60 && left_at < 0; ++f) {
            const Rect box = moved(start, 5 * f, 0);
            const GrayImage img = scene(300, 200, {{box, 2}});
            /* The detector finds the object while it is wholly inside. */
            const bool inside = box.x + box.width <= img.width;
            std::vector<TrackerInput> detections;
            if (inside)
                detections.push_back({box, 0, 0.7f});
            const auto events =
                f % interval == 0 ? tracker.update(img.view(), detections) : tracker.follow(img.view(), searcher);
            if (count(events, TrackEvent::Kind::Left) == 1) {
                left_at = f;
                EXPECT_EQ(events[0].id, 1);
                EXPECT_TRUE(tracker.tracks().empty());
                /* It ends once less than half of it is inside. */
                EXPECT_LT(img.width - box.x, box.width / 2 + 5 * interval + 1);
            }
        }
        EXPECT_GE(left_at, 0) << "interval " << interval;
    }
}

/* lost_after (explicit here) counts frames since the last detection, the
 * frames between detections included: a confirmed track nothing detects any
 * more ends on the first frame with detection at lost_after frames or more,
 * with a Left event; no event before. */
TEST(Tracker, TracksWithoutDetectionsEndAfterLostAfterFrames)
{
    for (const int interval : {1, 3}) {
        TrackerConfig config;
        config.lost_after = 6;
        Tracker tracker(config);
        ReferenceSearcher searcher;
        const Rect box{50, 50, 30, 30};
        const GrayImage img = scene(200, 200, {{box, 1}});
        /* Detected on two frames with detection: confirmed. */
        int last_hit = 0;
        for (int f = 0; f <= interval; ++f) {
            if (f % interval == 0) {
                tracker.update(img.view(), {{box, 0, 1.0f}});
                last_hit = f;
            } else {
                tracker.follow(img.view(), searcher);
            }
        }
        ASSERT_EQ(tracker.tracks().size(), 1u);
        ASSERT_EQ(tracker.tracks()[0].id, 1);
        const GrayImage empty = scene(200, 200, {});
        for (int f = last_hit + 1; f < last_hit + config.lost_after; ++f) {
            const auto events =
                f % interval == 0 ? tracker.update(empty.view(), {}) : tracker.follow(empty.view(), searcher);
            EXPECT_TRUE(events.empty()) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(tracker.tracks().size(), 1u) << "interval " << interval << ", frame " << f;
        }
        /* lost_after is a multiple of both intervals: a frame with detection. */
        const auto events = tracker.update(empty.view(), {});
        ASSERT_EQ(events.size(), 1u) << "interval " << interval;
        EXPECT_EQ(events[0].kind, TrackEvent::Kind::Left);
        EXPECT_EQ(events[0].id, 1);
        EXPECT_TRUE(tracker.tracks().empty());
    }
}

/* Objects coming and going (lost_after explicit): ids only grow, none comes
 * back. */
TEST(Tracker, NewIdsNeverReuseOldOnes)
{
    TrackerConfig config;
    config.lost_after = 2;
    Tracker tracker(config);
    std::set<int64_t> seen;
    int64_t last = 0;
    for (int f = 0; f < 60; ++f) {
        /* Objects come and go: on each frame those whose slot is "on". */
        std::vector<Object> objects;
        std::vector<TrackerInput> detections;
        for (int k = 0; k < 4; ++k) {
            if ((f / (k + 2)) % 2 == 0)
                continue;
            const Rect box{10 + 70 * k, 20, 40, 40};
            objects.push_back({box, k});
            detections.push_back({box, 0, 0.6f});
        }
        const GrayImage img = scene(300, 100, objects);
        for (const TrackEvent& e : tracker.update(img.view(), detections)) {
            if (e.kind != TrackEvent::Kind::Appeared)
                continue;
            EXPECT_TRUE(seen.insert(e.id).second) << "id " << e.id << " reused";
            EXPECT_GT(e.id, last);
            last = e.id;
        }
    }
    EXPECT_GT(seen.size(), 10u);
}

/* An object that moves further per frame than its box overlaps (IoU 0.14
 * between frames, and no velocity known yet): its detection matches no
 * track by IoU, but the second round's distance gate (widened here to one
 * box width) gives it to the missed track; then the learnt velocity keeps
 * it. */
TEST(Tracker, FastMotionKeepsTheIdThroughTheDistanceGate)
{
    TrackerConfig config;
    config.confirm_hits = 1; /* about the matching, not the confirmation */
    config.reid_gate = 1.0f;
    Tracker tracker(config);
    const Rect start{10, 60, 40, 40};
    int appeared = 0;
    for (int f = 0; f < 10; ++f) {
        const Rect box = moved(start, 30 * f, 0);
        const GrayImage img = scene(400, 160, {{box, 6}});
        appeared += count(tracker.update(img.view(), {{box, 0, 0.9f}}), TrackEvent::Kind::Appeared);
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        EXPECT_EQ(tracker.tracks()[0].id, 1) << "frame " << f;
        EXPECT_EQ(tracker.tracks()[0].state, Track::State::Detected);
    }
    EXPECT_EQ(appeared, 1);
}

/* Two confirmed tracks on one object (the detector put two boxes on it,
 * IoU 0.82, from its first frame, so both were confirmed). On a frame with
 * one detection, the other track is predicted only: it is not reported, and
 * not merged (a predicted box on a detected one may be a hidden object
 * passing behind it, TrackerOcclusion below). On a frame without detection
 * both are followed onto the object: the younger ends (Left) and the older
 * id goes on. */
TEST(Tracker, TwoTracksOnOneObjectBecomeOne)
{
    Tracker tracker;
    ReferenceSearcher searcher;
    const Rect box{80, 40, 60, 60}, second = moved(box, 3, 3);
    const GrayImage img = scene(300, 200, {{box, 8}});
    tracker.update(img.view(), {{box, 0, 0.9f}, {second, 0, 0.5f}});
    const auto confirmed = tracker.update(img.view(), {{box, 0, 0.9f}, {second, 0, 0.5f}});
    ASSERT_EQ(count(confirmed, TrackEvent::Kind::Appeared), 2);
    ASSERT_EQ(tracker.tracks().size(), 2u);

    auto events = tracker.update(img.view(), {{box, 0, 0.9f}});
    EXPECT_TRUE(events.empty());
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_TRUE(tracker.tracks()[0].reported());
    EXPECT_EQ(tracker.tracks()[0].box, box);
    EXPECT_FALSE(tracker.tracks()[1].reported());

    /* Both seen by the last detection frame again, then followed. */
    tracker.update(img.view(), {{box, 0, 0.9f}, {second, 0, 0.5f}});
    tracker.update(img.view(), {{box, 0, 0.9f}, {second, 0, 0.5f}});
    ASSERT_EQ(tracker.tracks().size(), 2u);
    events = tracker.follow(img.view(), searcher);
    ASSERT_EQ(tracker.tracks().size(), 1u);
    EXPECT_EQ(tracker.tracks()[0].id, 1);
    EXPECT_EQ(tracker.tracks()[0].box, box);
    EXPECT_EQ(tracker.tracks()[0].state, Track::State::Followed);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, TrackEvent::Kind::Left);
    EXPECT_EQ(events[0].id, 2);
}

/* A detection of another label on a track's box starts its own track. */
TEST(Tracker, LabelsNeverMatchEachOther)
{
    TrackerConfig config;
    config.confirm_hits = 1; /* about the labels, not the confirmation */
    Tracker tracker(config);
    const Rect box{40, 40, 40, 40};
    const GrayImage img = scene(200, 200, {{box, 1}});
    tracker.update(img.view(), {{box, 0, 1.0f}});
    const auto events = tracker.update(img.view(), {{box, 1, 1.0f}});
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 1);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_NE(tracker.tracks()[0].label, tracker.tracks()[1].label);
}

/* The duplicate merge keeps labels apart: a coasting track of one label on
 * the box of a detected track of another never takes that detection (a
 * detection of label 1 would then continue a track of label 0). */
TEST(Tracker, LabelsNeverMergeWithEachOther)
{
    TrackerConfig config;
    config.confirm_hits = 1;
    Tracker tracker(config);
    const Rect box{40, 40, 40, 40};
    const GrayImage img = scene(200, 200, {{box, 1}});
    tracker.update(img.view(), {{box, 0, 1.0f}});
    tracker.update(img.view(), {{box, 1, 1.0f}}); /* label 0 missed, label 1 starts */
    const auto events = tracker.update(img.view(), {{box, 1, 1.0f}});
    EXPECT_EQ(count(events, TrackEvent::Kind::Left), 0);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    for (const Track& t : tracker.tracks())
        EXPECT_EQ(t.state == Track::State::Detected, t.label == 1) << "track " << t.id << ", label " << t.label;
}

/* clear() ends every track: Left events for the confirmed ones only. */
TEST(Tracker, ClearEndsEveryTrack)
{
    Tracker tracker;
    const Rect a{10, 10, 30, 30}, b{100, 10, 30, 30}, c{160, 60, 30, 30};
    const GrayImage img = scene(200, 100, {{a, 1}, {b, 2}, {c, 3}});
    tracker.update(img.view(), {{a, 0, 1}, {b, 0, 1}});
    tracker.update(img.view(), {{a, 0, 1}, {b, 0, 1}, {c, 0, 1}}); /* c tentative */
    ASSERT_EQ(tracker.tracks().size(), 3u);
    const auto events = tracker.clear();
    EXPECT_EQ(count(events, TrackEvent::Kind::Left), 2);
    EXPECT_EQ(events.size(), 2u);
    EXPECT_TRUE(tracker.tracks().empty());
}

/* max_tracks: detections that match no track start none while that many
 * are open (tentative ones count), and refused() gives their boxes; the
 * open tracks still match and are confirmed. */
TEST(Tracker, MaxTracksBoundsTheOpenTracks)
{
    TrackerConfig config;
    config.max_tracks = 2;
    Tracker tracker(config);
    const std::vector<Rect> boxes = {Rect{10, 10, 30, 30}, Rect{60, 10, 30, 30}, Rect{110, 10, 30, 30}};
    const GrayImage img = scene(200, 100, {{boxes[0], 1}, {boxes[1], 2}, {boxes[2], 3}});
    std::vector<TrackerInput> inputs;
    for (const Rect& b : boxes)
        inputs.push_back(TrackerInput{b, 0, 1.0f});
    auto events = tracker.update(img.view(), inputs);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 0);
    EXPECT_EQ(tracker.tracks().size(), 2u);
    EXPECT_EQ(tracker.refused(), std::vector<Rect>{boxes[2]});
    events = tracker.update(img.view(), inputs);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 2);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_EQ(tracker.tracks()[0].hits, 2);
    EXPECT_EQ(tracker.tracks()[1].hits, 2);
    EXPECT_EQ(tracker.refused(), std::vector<Rect>{boxes[2]});
}

/* follow() searches only the tracks the
 * last frame with detection matched (misses == 0): one that the detector
 * missed there coasts, even where its object is plainly visible. */
TEST(Tracker, FollowSearchesOnlyWhatTheLastDetectionSaw)
{
    Tracker tracker;
    CountingSearcher searcher;
    const Rect a{20, 40, 40, 40}, b{140, 40, 40, 40};
    const GrayImage img = scene(240, 160, {{a, 1}, {b, 2}});
    const auto at = [&](const Rect& box) {
        return track_at(tracker, box);
    };
    tracker.update(img.view(), {{a, 0, 1}, {b, 0, 1}});
    tracker.update(img.view(), {{a, 0, 1}, {b, 0, 1}});
    tracker.follow(img.view(), searcher);
    EXPECT_EQ(searcher.requests, 2u);
    ASSERT_TRUE(at(a) && at(b));
    EXPECT_EQ(at(a)->state, Track::State::Followed);
    EXPECT_EQ(at(b)->state, Track::State::Followed);
    tracker.update(img.view(), {{a, 0, 1}}); /* b missed */
    EXPECT_EQ(searcher.calls, 1);
    tracker.follow(img.view(), searcher);
    EXPECT_EQ(searcher.requests, 3u);
    ASSERT_TRUE(at(a) && at(b));
    EXPECT_EQ(at(a)->state, Track::State::Followed);
    EXPECT_EQ(at(b)->state, Track::State::Coasting);
    EXPECT_FALSE(at(b)->reported());
}

/* A new resolution of the same scene (a camera or an adaptive stream that
 * changes its size): after rescale() the track keeps its id, the template
 * search follows the object in the smaller frames, and a detection there
 * is assigned to it. Without the rescale the boxes stay in the old frame's
 * coordinates, twice where the object is. */
TEST(Tracker, RescaleKeepsTheTracksOnANewResolution)
{
    const Rect start{40, 60, 80, 80};
    const auto box_at = [&](int f) {
        return moved(start, 6 * f, 3 * f);
    };
    const auto halved = [](const Rect& r) {
        return Rect{r.x / 2, r.y / 2, r.width / 2, r.height / 2};
    };
    for (const bool detect_after : {false, true}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        for (int f = 0; f < 6; ++f)
            tracker.update(scene(480, 320, {{box_at(f), 5}}).view(), {{box_at(f), 0, 0.9f}});
        ASSERT_EQ(tracker.tracks().size(), 1u);
        ASSERT_EQ(tracker.tracks()[0].id, 1);
        for (int f = 6; f < 16; ++f) {
            /* The whole frame drawn at full size, then halved. */
            const GrayImage full = scene(480, 320, {{box_at(f), 5}});
            const GrayImage half = resize_bilinear(full.view(), Size{240, 160});
            if (f == 6)
                tracker.rescale(half.view(), 0.5, 0.5);
            const Rect want = halved(box_at(f));
            const auto events = detect_after && f % 3 == 0 ? tracker.update(half.view(), {{want, 0, 0.9f}})
                                                           : tracker.follow(half.view(), searcher);
            EXPECT_TRUE(events.empty()) << "frame " << f;
            ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
            const Track& t = tracker.tracks()[0];
            EXPECT_EQ(t.id, 1) << "frame " << f;
            EXPECT_TRUE(t.reported()) << "frame " << f;
            EXPECT_GE(intersection_over_union(t.box, want), 0.8)
                << "frame " << f << (detect_after ? " (detections)" : " (search)") << ": box " << t.box.x << ","
                << t.box.y << " " << t.box.width << "x" << t.box.height << " for " << want.x << "," << want.y << " "
                << want.width << "x" << want.height;
        }
    }
}
