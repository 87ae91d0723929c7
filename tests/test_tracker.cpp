/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker (core/tracking/tracker.h) on synthetic scenes whose true boxes
 * are known: textured squares moving over a flat background, detections
 * given as the true boxes on chosen frames, searches by the CPU reference.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <set>

#include "core/tracking/tracker.h"

using namespace waldboost;
using namespace waldboost::tracking;

namespace {

constexpr uint8_t kBackground = 128;

/* A texture no offset of itself resembles (a hash of the position). */
uint8_t texture(int i, int j, int seed)
{
    uint32_t h = static_cast<uint32_t>(i) * 73856093u ^ static_cast<uint32_t>(j) * 19349663u ^
                 static_cast<uint32_t>(seed) * 83492791u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    return static_cast<uint8_t>(20 + h % 200);
}

struct Object {
    Rect box;
    int seed = 0;
};

/* Draws the objects in order (later ones cover earlier ones), clipped. */
GrayImage scene(int width, int height, const std::vector<Object>& objects)
{
    GrayImage img(width, height, kBackground);
    for (const Object& o : objects)
        for (int j = 0; j < o.box.height; ++j)
            for (int i = 0; i < o.box.width; ++i) {
                const int x = o.box.x + i, y = o.box.y + j;
                if (x >= 0 && y >= 0 && x < width && y < height)
                    img.at(x, y) = texture(i, j, o.seed);
            }
    return img;
}

Rect moved(const Rect& r, int dx, int dy) { return Rect{r.x + dx, r.y + dy, r.width, r.height}; }

/* The track whose box is `box`, or nullptr. */
const Track* track_at(const Tracker& tracker, const Rect& box)
{
    for (const Track& t : tracker.tracks())
        if (t.box == box)
            return &t;
    return nullptr;
}

int count(const std::vector<TrackEvent>& events, TrackEvent::Kind kind)
{
    return static_cast<int>(std::count_if(events.begin(), events.end(), [&](const TrackEvent& e) {
        return e.kind == kind;
    }));
}

}  // namespace

TEST(Tracker, OneIdWhileDetectedOnConsecutiveFrames)
{
    Tracker tracker;
    ReferenceSearcher searcher;
    const Rect start{20, 30, 48, 48};
    int appeared = 0, left = 0;
    for (int f = 0; f < 40; ++f) {
        const Rect box = moved(start, 3 * f, f);
        const GrayImage img = scene(320, 240, {{box, 1}});
        const auto events = tracker.update(img.view(), {{box, 0, 0.9f}}, searcher);
        appeared += count(events, TrackEvent::Kind::Appeared);
        left += count(events, TrackEvent::Kind::Left);
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        const Track& t = tracker.tracks()[0];
        EXPECT_EQ(t.id, 1);
        EXPECT_EQ(t.box, box);
        EXPECT_EQ(t.age, f);
        EXPECT_EQ(t.hits, f + 1);
        EXPECT_EQ(t.state, Track::State::Detected);
    }
    EXPECT_EQ(appeared, 1);
    EXPECT_EQ(left, 0);
}

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
            if (f % interval == 0)
                tracker.update(img.view(), {{box, 0, 0.5f}}, searcher);
            else
                tracker.follow(img.view(), searcher);
            ASSERT_EQ(tracker.tracks().size(), 1u) << "interval " << interval << ", frame " << f;
            const Track& t = tracker.tracks()[0];
            if (f == 0)
                id = t.id;
            EXPECT_EQ(t.id, id);
            EXPECT_EQ(t.box, box) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(t.state, f % interval == 0 ? Track::State::Detected : Track::State::Followed);
        }
    }
}

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
                tracker.update(img.view(), detections, searcher);
            else
                tracker.follow(img.view(), searcher);
            const Track* ta = track_at(tracker, a);
            const Track* tb = track_at(tracker, b);
            if (f % interval == 0) {
                ASSERT_TRUE(ta && tb) << "interval " << interval << ", frame " << f;
            } else if (!ta || !tb) {
                continue; /* a search may lose the covered object while they overlap */
            }
            if (f == 0) {
                id_a = ta->id;
                id_b = tb->id;
            }
            EXPECT_EQ(ta->id, id_a) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(tb->id, id_b) << "interval " << interval << ", frame " << f;
        }
        EXPECT_NE(id_a, id_b);
    }
}

TEST(Tracker, AnOcclusionShorterThanLostAfterKeepsTheId)
{
    TrackerConfig config;
    config.lost_after = 10;
    const Rect start{100, 60, 50, 50};
    for (const int hidden : {3, 9, 10, 14}) {
        Tracker tracker(config);
        ReferenceSearcher searcher;
        int64_t first_id = 0;
        std::vector<TrackEvent> all;
        for (int f = 0; f < 40; ++f) {
            const Rect box = moved(start, f, 0);
            const bool covered = f >= 12 && f < 12 + hidden;
            std::vector<Object> objects = {{box, 5}};
            if (covered)
                objects.push_back({Rect{box.x - 10, box.y - 10, box.width + 20, box.height + 20}, 99});
            const GrayImage img = scene(320, 200, objects);
            std::vector<TrackerInput> detections;
            if (!covered)
                detections.push_back({box, 0, 0.7f});
            const auto events = tracker.update(img.view(), detections, searcher);
            all.insert(all.end(), events.begin(), events.end());
            if (f == 0)
                first_id = tracker.tracks().at(0).id;
            if (covered && f - 12 + 1 < config.lost_after) {
                ASSERT_EQ(tracker.tracks().size(), 1u) << "hidden " << hidden << ", frame " << f;
                EXPECT_EQ(tracker.tracks()[0].state, Track::State::Coasting);
            }
        }
        ASSERT_EQ(tracker.tracks().size(), 1u);
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
                f % interval == 0 ? tracker.update(img.view(), detections, searcher) : tracker.follow(img.view(), searcher);
            if (count(events, TrackEvent::Kind::Left) == 1) {
                left_at = f;
                EXPECT_TRUE(tracker.tracks().empty());
                /* It ends once less than half of it is inside. */
                EXPECT_LT(img.width - box.x, box.width / 2 + 5 * interval + 1);
            }
        }
        EXPECT_GE(left_at, 0) << "interval " << interval;
    }
}

TEST(Tracker, TracksWithoutDetectionsEndAfterLostAfterFrames)
{
    TrackerConfig config;
    config.lost_after = 6;
    Tracker tracker(config);
    ReferenceSearcher searcher;
    const Rect box{50, 50, 30, 30};
    tracker.update(scene(200, 200, {{box, 1}}).view(), {{box, 0, 1.0f}}, searcher);
    const GrayImage empty = scene(200, 200, {});
    for (int f = 1; f < config.lost_after; ++f) {
        EXPECT_TRUE(tracker.update(empty.view(), {}, searcher).empty()) << f;
        EXPECT_EQ(tracker.tracks().size(), 1u);
    }
    const auto events = tracker.update(empty.view(), {}, searcher);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, TrackEvent::Kind::Left);
    EXPECT_EQ(events[0].id, 1);
    EXPECT_TRUE(tracker.tracks().empty());
}

TEST(Tracker, NewIdsNeverReuseOldOnes)
{
    TrackerConfig config;
    config.lost_after = 2;
    Tracker tracker(config);
    ReferenceSearcher searcher;
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
        for (const TrackEvent& e : tracker.update(img.view(), detections, searcher)) {
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
 * between frames): its detection matches no track by the last box, but the
 * search finds the track's object where the detection is. */
TEST(Tracker, FastMotionKeepsTheIdThroughTheSearch)
{
    TrackerConfig config;
    config.search_share = 1.0f;
    config.max_radius = 48;
    Tracker tracker(config);
    ReferenceSearcher searcher;
    const Rect start{10, 60, 40, 40};
    int appeared = 0;
    for (int f = 0; f < 10; ++f) {
        const Rect box = moved(start, 30 * f, 0);
        const GrayImage img = scene(400, 160, {{box, 6}});
        appeared += count(tracker.update(img.view(), {{box, 0, 0.9f}}, searcher), TrackEvent::Kind::Appeared);
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        EXPECT_EQ(tracker.tracks()[0].id, 1) << "frame " << f;
        EXPECT_EQ(tracker.tracks()[0].state, Track::State::Detected);
    }
    EXPECT_EQ(appeared, 1);
}

/* Two detections of one object start two tracks; once only one is
 * detected, the search takes the other onto the same object, and the
 * younger of the two ends. */
TEST(Tracker, TwoTracksOnOneObjectBecomeOne)
{
    Tracker tracker;
    ReferenceSearcher searcher;
    const Rect box{80, 40, 60, 60};
    const GrayImage img = scene(300, 200, {{box, 8}});
    tracker.update(img.view(), {{box, 0, 0.9f}}, searcher);
    /* The second detection overlaps the first by IoU 0.82: two objects for
     * the detector, so two tracks. */
    tracker.update(img.view(), {{box, 0, 0.9f}, {moved(box, 3, 3), 0, 0.5f}}, searcher);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    const auto events = tracker.update(img.view(), {{box, 0, 0.9f}}, searcher);
    ASSERT_EQ(tracker.tracks().size(), 1u);
    EXPECT_EQ(tracker.tracks()[0].id, 1);
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, TrackEvent::Kind::Left);
    EXPECT_EQ(events[0].id, 2);
}

TEST(Tracker, LabelsNeverMatchEachOther)
{
    Tracker tracker;
    ReferenceSearcher searcher;
    const Rect box{40, 40, 40, 40};
    const GrayImage img = scene(200, 200, {{box, 1}});
    tracker.update(img.view(), {{box, 0, 1.0f}}, searcher);
    const auto events = tracker.update(img.view(), {{box, 1, 1.0f}}, searcher);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 1);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_NE(tracker.tracks()[0].label, tracker.tracks()[1].label);
}

TEST(Tracker, ClearEndsEveryTrack)
{
    Tracker tracker;
    ReferenceSearcher searcher;
    const GrayImage img = scene(200, 100, {{Rect{10, 10, 30, 30}, 1}, {Rect{100, 10, 30, 30}, 2}});
    tracker.update(img.view(), {{Rect{10, 10, 30, 30}, 0, 1}, {Rect{100, 10, 30, 30}, 0, 1}}, searcher);
    const auto events = tracker.clear();
    EXPECT_EQ(count(events, TrackEvent::Kind::Left), 2);
    EXPECT_TRUE(tracker.tracks().empty());
}

/* max_tracks: detections that match no track start none while that many
 * are open, and refused() counts them; the open tracks still match. */
TEST(Tracker, MaxTracksBoundsTheOpenTracks)
{
    TrackerConfig config;
    config.max_tracks = 2;
    Tracker tracker(config);
    ReferenceSearcher searcher;
    const std::vector<Rect> boxes = {Rect{10, 10, 30, 30}, Rect{60, 10, 30, 30}, Rect{110, 10, 30, 30}};
    const GrayImage img = scene(200, 100, {{boxes[0], 1}, {boxes[1], 2}, {boxes[2], 3}});
    std::vector<TrackerInput> inputs;
    for (const Rect& b : boxes)
        inputs.push_back(TrackerInput{b, 0, 1.0f});
    auto events = tracker.update(img.view(), inputs, searcher);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 2);
    EXPECT_EQ(tracker.tracks().size(), 2u);
    EXPECT_EQ(tracker.refused(), 1u);
    events = tracker.update(img.view(), inputs, searcher);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 0);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_EQ(tracker.tracks()[0].hits, 2);
    EXPECT_EQ(tracker.refused(), 1u);
}

/* The reference search itself: a template cut from one frame is found where
 * the content moved to, with SAD 0, when the move is within the radius. */
TEST(TemplateSearchReference, FindsAShiftedTemplateWithinTheRadius)
{
    for (const Rect box : {Rect{60, 40, 20, 16}, Rect{50, 30, 90, 70}}) {
        const GrayImage before = scene(320, 240, {{box, 11}});
        Rect sampled;
        const Template t = sample_template(before.view(), box, &sampled);
        EXPECT_EQ(sampled, box);
        EXPECT_LE(t.columns, kTemplateSide);
        EXPECT_LE(t.rows, kTemplateSide);
        for (const auto& [dx, dy] : std::vector<std::pair<int, int>>{{0, 0}, {7, -3}, {-12, 5}, {13, 13}}) {
            const GrayImage after = scene(320, 240, {{moved(box, dx, dy), 11}});
            const SearchResult r = search_template(after.view(), SearchRequest{&t, box.x, box.y, 14});
            ASSERT_TRUE(r.found);
            EXPECT_EQ(r.x, box.x + dx) << box.width;
            EXPECT_EQ(r.y, box.y + dy) << box.width;
            EXPECT_EQ(r.sad, 0u);
            const SearchResult beyond = search_template(after.view(), SearchRequest{&t, box.x, box.y, 2});
            if (std::max(std::abs(dx), std::abs(dy)) > 2) {
                EXPECT_GT(beyond.sad, 0u);
            }
        }
    }
    /* A grid that cannot stay in the frame is not found. */
    const GrayImage small = scene(30, 30, {});
    const Template big = sample_template(scene(100, 100, {{Rect{0, 0, 60, 60}, 1}}).view(), Rect{0, 0, 60, 60});
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&big, 0, 0, 10}).found);
}
