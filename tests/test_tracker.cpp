/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker (core/tracking/tracker.h) on synthetic scenes whose true boxes
 * are known: textured squares moving over a flat background, detections
 * given as the true boxes on chosen frames, searches by the CPU reference.
 * Its parts on their own: the motion model (motion.h) and the optimal
 * assignment (assignment.h), the latter against a brute force.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>

#include "core/tracking/assignment.h"
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

/* A textured square, or with `flat` >= 0 a bar of that one value (an
 * occluder with nothing for the template search to find). */
struct Object {
    Rect box;
    int seed = 0;
    int flat = -1;
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
                    img.at(x, y) = o.flat >= 0 ? static_cast<uint8_t>(o.flat) : texture(i, j, o.seed);
            }
    return img;
}

Rect moved(const Rect& r, int dx, int dy) { return Rect{r.x + dx, r.y + dy, r.width, r.height}; }

Rect grown(const Rect& r, int margin)
{
    return Rect{r.x - margin, r.y - margin, r.width + 2 * margin, r.height + 2 * margin};
}

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

int reported_count(const Tracker& tracker)
{
    return static_cast<int>(std::count_if(tracker.tracks().begin(), tracker.tracks().end(),
                                          [](const Track& t) { return t.reported(); }));
}

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

/* What a one-to-one assignment of a cost matrix achieves. */
struct Matching {
    size_t pairs = 0;
    double cost = 0;
};

bool allowed(const CostMatrix& m, size_t r, size_t c) { return m.at(r, c) < CostMatrix::kForbidden; }

/* Checks that `col_of` is a one-to-one assignment of allowed pairs, and
 * returns its size and cost. */
Matching checked_matching(const CostMatrix& m, const std::vector<int>& col_of)
{
    Matching result;
    EXPECT_EQ(col_of.size(), m.rows);
    std::vector<bool> taken(m.cols, false);
    for (size_t r = 0; r < col_of.size(); ++r) {
        if (col_of[r] < 0) {
            EXPECT_EQ(col_of[r], -1);
            continue;
        }
        const auto c = static_cast<size_t>(col_of[r]);
        if (c >= m.cols) {
            ADD_FAILURE() << "row " << r << " got column " << c << " of " << m.cols;
            continue;
        }
        EXPECT_FALSE(taken[c]) << "column " << c << " assigned twice";
        EXPECT_TRUE(allowed(m, r, c)) << "row " << r << " got the refused column " << c;
        taken[c] = true;
        ++result.pairs;
        result.cost += m.at(r, c);
    }
    return result;
}

/* Every partial one-to-one assignment, rows from `row` on: the most pairs,
 * then the least cost. */
void brute_force(const CostMatrix& m, size_t row, std::vector<bool>& taken, Matching so_far, Matching& best)
{
    if (row == m.rows) {
        if (so_far.pairs > best.pairs || (so_far.pairs == best.pairs && so_far.cost < best.cost))
            best = so_far;
        return;
    }
    brute_force(m, row + 1, taken, so_far, best);
    for (size_t c = 0; c < m.cols; ++c) {
        if (taken[c] || !allowed(m, row, c))
            continue;
        taken[c] = true;
        brute_force(m, row + 1, taken, Matching{so_far.pairs + 1, so_far.cost + m.at(row, c)}, best);
        taken[c] = false;
    }
}

Matching best_matching(const CostMatrix& m)
{
    std::vector<bool> taken(m.cols, false);
    Matching best;
    best.cost = std::numeric_limits<double>::infinity();
    brute_force(m, 0, taken, Matching{}, best);
    return best;
}

/* A random matrix of up to max_side x max_side: costs 0 to 9.99 in steps of
 * 0.01 (ties happen), about `forbidden_percent` of the entries refused, by
 * `forbidden` (kForbidden or more). */
CostMatrix random_costs(std::mt19937& rng, size_t max_side, unsigned forbidden_percent, double forbidden)
{
    CostMatrix m(1 + rng() % max_side, 1 + rng() % max_side);
    for (double& c : m.cost)
        c = rng() % 100 < forbidden_percent ? forbidden : static_cast<double>(rng() % 1000) / 100;
    return m;
}

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
            const auto events = f % interval == 0 ? tracker.update(empty.view(), {})
                                                  : tracker.follow(empty.view(), searcher);
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
 * are open (tentative ones count), and refused() counts them; the open
 * tracks still match and are confirmed. */
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
    EXPECT_EQ(tracker.refused(), 1u);
    events = tracker.update(img.view(), inputs);
    EXPECT_EQ(count(events, TrackEvent::Kind::Appeared), 2);
    ASSERT_EQ(tracker.tracks().size(), 2u);
    EXPECT_EQ(tracker.tracks()[0].hits, 2);
    EXPECT_EQ(tracker.tracks()[1].hits, 2);
    EXPECT_EQ(tracker.refused(), 1u);
}

/* Confirmation: a detection on one frame only is never reported, gives no
 * event (neither Appeared nor Left) and no id, and its tentative track ends
 * after confirm_window frames with detection (the frames between
 * detections, where it is followed, do not count). */
TEST(TrackerConfirmation, ADetectionOnOneFrameNeverAppears)
{
    for (const int interval : {1, 3}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        const Rect box{60, 40, 40, 40};
        const GrayImage img = scene(200, 160, {{box, 4}}); /* the object stays; only the detector saw it once */
        for (int f = 0; f < 8 * interval; ++f) {
            std::vector<TrackerInput> detections;
            if (f == 0)
                detections.push_back({box, 0, 0.9f});
            const auto events = f % interval == 0 ? tracker.update(img.view(), detections)
                                                  : tracker.follow(img.view(), searcher);
            EXPECT_TRUE(events.empty()) << "interval " << interval << ", frame " << f;
            EXPECT_EQ(reported_count(tracker), 0) << "interval " << interval << ", frame " << f;
            /* Frames with detection 0 and 1 may still confirm it; on the
             * third (frame 2 * interval) it cannot be and ends. */
            EXPECT_EQ(tracker.tracks().size(), f < 2 * interval ? 1u : 0u)
                << "interval " << interval << ", frame " << f;
            for (const Track& t : tracker.tracks())
                EXPECT_EQ(t.id, 0);
        }
        EXPECT_EQ(tracker.next_id(), 1);
    }
}

/* Confirmation: a false detection that recurs at one place, but less often
 * than confirm_hits in confirm_window frames with detection, is never
 * reported; as often or more, it is (the cases where it is confirmed check
 * that the window is counted exactly, neither wider nor narrower). */
TEST(TrackerConfirmation, ARecurringDetectionAppearsOnlyAsOftenAsTheRule)
{
    struct Case {
        int hits, window, period; /* detected on the frames that are multiples of period */
        int appears_at;           /* -1: never */
    };
    for (const Case c : {Case{2, 3, 3, -1}, Case{2, 3, 2, 2}, Case{3, 4, 2, -1}, Case{3, 5, 2, 4}, Case{3, 4, 1, 2},
                         Case{2, 2, 2, -1}, Case{2, 2, 1, 1}}) {
        TrackerConfig config;
        config.confirm_hits = c.hits;
        config.confirm_window = c.window;
        Tracker tracker(config);
        const Rect box{60, 40, 40, 40};
        const GrayImage img = scene(200, 160, {{box, 4}});
        int appeared_at = -1;
        for (int f = 0; f < 30; ++f) {
            std::vector<TrackerInput> detections;
            if (f % c.period == 0)
                detections.push_back({box, 0, 0.4f});
            const auto events = tracker.update(img.view(), detections);
            const std::string what = "hits " + std::to_string(c.hits) + ", window " + std::to_string(c.window) +
                                     ", period " + std::to_string(c.period) + ", frame " + std::to_string(f);
            EXPECT_EQ(count(events, TrackEvent::Kind::Left), 0) << what;
            if (count(events, TrackEvent::Kind::Appeared) > 0) {
                EXPECT_EQ(appeared_at, -1) << what;
                appeared_at = f;
                EXPECT_EQ(events.back().id, 1) << what;
            }
            if (appeared_at < 0) {
                EXPECT_EQ(reported_count(tracker), 0) << what;
                EXPECT_LE(tracker.tracks().size(), 1u) << what;
            }
        }
        EXPECT_EQ(appeared_at, c.appears_at) << "hits " << c.hits << ", window " << c.window << ", period "
                                             << c.period;
        if (c.appears_at < 0) {
            EXPECT_EQ(tracker.next_id(), 1);
        }
    }
}

/* Confirmation: ids are given at confirmation, so tentative tracks that
 * never confirm (false detections before and beside the object, the
 * latter started first) consume none: the object gets id 1, on its second
 * detection, with its Appeared event then and not before. */
TEST(TrackerConfirmation, TheIdIsGivenAtConfirmation)
{
    Tracker tracker;
    const Rect object{120, 60, 40, 40};
    int appeared = 0;
    for (int f = 0; f < 14; ++f) {
        const GrayImage img = scene(320, 200, f >= 9 ? std::vector<Object>{{object, 2}} : std::vector<Object>{});
        std::vector<TrackerInput> detections;
        if (f % 3 == 0)
            detections.push_back({Rect{10 + 20 * f, 10, 30, 30}, 0, 0.3f}); /* once at each place */
        if (f >= 9)
            detections.push_back({object, 0, 0.9f});
        const auto events = tracker.update(img.view(), detections);
        const int now = count(events, TrackEvent::Kind::Appeared);
        appeared += now;
        EXPECT_EQ(count(events, TrackEvent::Kind::Left), 0) << "frame " << f;
        if (f == 10) {
            ASSERT_EQ(events.size(), 1u);
            EXPECT_EQ(events[0].kind, TrackEvent::Kind::Appeared);
            EXPECT_EQ(events[0].id, 1);
            EXPECT_EQ(events[0].box, object);
        } else {
            EXPECT_EQ(now, 0) << "frame " << f;
        }
        const Track* t = track_at(tracker, object);
        if (f == 9) {
            ASSERT_NE(t, nullptr);
            EXPECT_EQ(t->id, 0);
            EXPECT_FALSE(t->reported());
        }
        if (f >= 10) {
            ASSERT_NE(t, nullptr) << "frame " << f;
            EXPECT_EQ(t->id, 1);
            EXPECT_TRUE(t->reported());
        }
        EXPECT_EQ(reported_count(tracker), f >= 10 ? 1 : 0) << "frame " << f;
    }
    EXPECT_EQ(appeared, 1);
    EXPECT_EQ(tracker.next_id(), 2);
}

/* Confirmation: a second box the detector puts on a reported object at
 * another scale (most of it within the object's box), on every frame, is
 * never confirmed: its hits on a reported track's box do not count. */
TEST(TrackerConfirmation, ASecondBoxOnAReportedObjectNeverAppears)
{
    Tracker tracker;
    const Rect object{60, 40, 60, 60}, inner{70, 50, 40, 40};
    const GrayImage img = scene(240, 160, {{object, 5}});
    tracker.update(img.view(), {{object, 0, 0.9f}});
    ASSERT_EQ(count(tracker.update(img.view(), {{object, 0, 0.9f}}), TrackEvent::Kind::Appeared), 1);
    for (int f = 2; f < 10; ++f) {
        const auto events = tracker.update(img.view(), {{inner, 0, 0.6f}, {object, 0, 0.9f}});
        EXPECT_TRUE(events.empty()) << "frame " << f;
        EXPECT_EQ(reported_count(tracker), 1) << "frame " << f;
        ASSERT_NE(track_at(tracker, object), nullptr);
        EXPECT_EQ(track_at(tracker, object)->id, 1);
    }
    EXPECT_EQ(tracker.next_id(), 2);
}

/* A new object faster than its box's overlap allows (100-pixel box, 54
 * pixels per frame: IoU 0.30 below match_iou, centres 0.54 widths apart)
 * is confirmed all the same: tentative tracks are matched by distance too,
 * having no velocity yet to predict with. */
TEST(TrackerConfirmation, AFastNewObjectIsConfirmed)
{
    Tracker tracker;
    std::vector<TrackEvent> all;
    for (int f = 0; f < 3; ++f) {
        const Rect box{10 + 54 * f, 60, 100, 100};
        const GrayImage img = scene(400, 240, {{box, 5}});
        const auto events = tracker.update(img.view(), {{box, 0, 1.0f}});
        all.insert(all.end(), events.begin(), events.end());
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        EXPECT_EQ(tracker.tracks()[0].reported(), f >= 1) << "frame " << f;
    }
    EXPECT_EQ(count(all, TrackEvent::Kind::Appeared), 1);
    EXPECT_EQ(count(all, TrackEvent::Kind::Left), 0);
}

/* Confirmation: confirm_hits = 1 reports every new detection at once, with
 * its id and Appeared event on its first frame. */
TEST(TrackerConfirmation, OneHitReportsAtOnce)
{
    TrackerConfig config;
    config.confirm_hits = 1;
    Tracker tracker(config);
    const Rect a{20, 20, 40, 40}, b{120, 20, 40, 40};
    const GrayImage img = scene(200, 100, {{a, 1}, {b, 2}});
    auto events = tracker.update(img.view(), {{a, 0, 0.5f}});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, TrackEvent::Kind::Appeared);
    EXPECT_EQ(events[0].id, 1);
    ASSERT_EQ(tracker.tracks().size(), 1u);
    EXPECT_TRUE(tracker.tracks()[0].reported());
    events = tracker.update(img.view(), {{a, 0, 0.5f}, {b, 0, 0.5f}});
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].id, 2);
    EXPECT_EQ(events[0].box, b);
    EXPECT_EQ(reported_count(tracker), 2);
}

/* A confirmed track lost (missed on more than report_misses frames with
 * detection) is not reported; found again, it is reported only once
 * re-confirmed (confirm_hits within confirm_window), with its id and no new
 * event. A re-confirmation that fails leaves it lost, not ended, and a
 * later one still gives its id back. */
TEST(TrackerConfirmation, ReconfirmationAfterALossKeepsTheId)
{
    TrackerConfig config;
    config.report_misses = 0;
    config.lost_after = 40;
    Tracker tracker(config);
    const Rect start{40, 50, 40, 40};
    /* Frames the detector finds the object on, and whether it is reported
     * after each frame. */
    const std::string detected = "11111000110001001111";
    const std::string reported = "01111000010000000111";
    std::vector<TrackEvent> all;
    for (int f = 0; f < static_cast<int>(detected.size()); ++f) {
        const Rect box = moved(start, f, 0); /* slowly, the object stays drawn */
        const GrayImage img = scene(240, 160, {{box, 3}});
        std::vector<TrackerInput> detections;
        if (detected[f] == '1')
            detections.push_back({box, 0, 0.8f});
        const auto events = tracker.update(img.view(), detections);
        all.insert(all.end(), events.begin(), events.end());
        ASSERT_EQ(tracker.tracks().size(), 1u) << "frame " << f;
        const Track& t = tracker.tracks()[0];
        EXPECT_EQ(t.id, f == 0 ? 0 : 1) << "frame " << f;
        EXPECT_EQ(t.reported(), reported[f] == '1') << "frame " << f;
        EXPECT_EQ(t.state, detected[f] == '1' ? Track::State::Detected : Track::State::Coasting) << "frame " << f;
    }
    ASSERT_EQ(all.size(), 1u);
    EXPECT_EQ(all[0].kind, TrackEvent::Kind::Appeared);
    EXPECT_EQ(tracker.next_id(), 2);
}

/* report_misses (explicit, 0 to 2): a confirmed track missed on that many
 * frames with detection is still reported, at its prediction (Predicted);
 * missed on more, it is lost. Found again before it was lost it is reported
 * at once, after, once re-confirmed. */
TEST(TrackerConfirmation, ReportMissesBridgesThatManyMisses)
{
    for (const int report_misses : {0, 1, 2})
        for (const int misses : {1, 2, 3}) {
            TrackerConfig config;
            config.report_misses = report_misses;
            Tracker tracker(config);
            const Rect start{40, 50, 40, 40};
            const std::string what = "report_misses " + std::to_string(report_misses) + ", misses " +
                                     std::to_string(misses);
            int f = 0;
            const auto frame = [&](bool detect) {
                const Rect box = moved(start, 2 * f, 0);
                const GrayImage img = scene(240, 160, {{box, 3}});
                std::vector<TrackerInput> detections;
                if (detect)
                    detections.push_back({box, 0, 0.8f});
                const auto events = tracker.update(img.view(), detections);
                ++f;
                return events;
            };
            frame(true);
            EXPECT_EQ(count(frame(true), TrackEvent::Kind::Appeared), 1) << what;
            for (int k = 1; k <= misses; ++k) {
                EXPECT_TRUE(frame(false).empty()) << what;
                ASSERT_EQ(tracker.tracks().size(), 1u) << what;
                const Track& t = tracker.tracks()[0];
                EXPECT_EQ(t.reported(), k <= report_misses) << what << ", miss " << k;
                EXPECT_EQ(t.state, k <= report_misses ? Track::State::Predicted : Track::State::Coasting)
                    << what << ", miss " << k;
            }
            EXPECT_TRUE(frame(true).empty()) << what;
            ASSERT_EQ(tracker.tracks().size(), 1u) << what;
            EXPECT_EQ(tracker.tracks()[0].id, 1) << what;
            EXPECT_EQ(tracker.tracks()[0].reported(), misses <= report_misses) << what;
            EXPECT_TRUE(frame(true).empty()) << what;
            EXPECT_TRUE(tracker.tracks()[0].reported()) << what;
            EXPECT_EQ(tracker.tracks()[0].id, 1) << what;
        }
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
    const auto at = [&](const Rect& box) { return track_at(tracker, box); };
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

/* Occlusion with the default configuration: an object moving at constant
 * velocity, hidden for 10, 20 or 30 frames (no detections, covered by a
 * flat bar the template search cannot mistake for it), comes back with its
 * id, and nothing else appears or leaves; at interval 1 and 3 (the search
 * on the frames between). While hidden it is not reported past
 * report_misses frames with detection. */
TEST(TrackerOcclusion, AnObjectHiddenUpToThirtyFramesKeepsItsId)
{
    for (const int interval : {1, 3})
        for (const int hidden : {10, 20, 30}) {
            Tracker tracker;
            ReferenceSearcher searcher;
            const Rect start{20, 60, 40, 40};
            const int hide_from = 12, hide_to = hide_from + hidden;
            const int last = (hide_to + 12 + interval - 1) / interval * interval; /* a frame with detection */
            const std::string what = "interval " + std::to_string(interval) + ", hidden " + std::to_string(hidden);
            std::vector<TrackEvent> all;
            int64_t id = 0;
            int misses = 0;
            for (int f = 0; f <= last; ++f) {
                const Rect box = moved(start, 3 * f, f);
                const bool covered = f >= hide_from && f < hide_to;
                std::vector<Object> objects = {{box, 5}};
                if (covered)
                    objects.push_back({grown(box, 10), 0, 0});
                const GrayImage img = scene(320, 200, objects);
                std::vector<TrackEvent> events;
                if (f % interval == 0) {
                    std::vector<TrackerInput> detections;
                    if (!covered)
                        detections.push_back({box, 0, 0.8f});
                    events = tracker.update(img.view(), detections);
                    misses = covered ? misses + 1 : 0;
                } else {
                    events = tracker.follow(img.view(), searcher);
                }
                for (const TrackEvent& e : events)
                    if (e.kind == TrackEvent::Kind::Appeared && id == 0)
                        id = e.id;
                all.insert(all.end(), events.begin(), events.end());
                for (const Track& t : tracker.tracks())
                    if (t.reported()) {
                        EXPECT_EQ(t.id, id) << what << ", frame " << f;
                        EXPECT_FALSE(covered && misses > tracker.config().report_misses) << what << ", frame " << f;
                    }
            }
            EXPECT_EQ(id, 1) << what;
            EXPECT_EQ(count(all, TrackEvent::Kind::Appeared), 1) << what;
            EXPECT_EQ(count(all, TrackEvent::Kind::Left), 0) << what;
            ASSERT_EQ(tracker.tracks().size(), 1u) << what;
            EXPECT_EQ(tracker.tracks()[0].id, id) << what;
            EXPECT_TRUE(tracker.tracks()[0].reported()) << what;
            EXPECT_EQ(tracker.tracks()[0].box, moved(start, 3 * last, last)) << what;
        }
}

namespace {

/* Two objects crossing head-on, A 4 pixels a frame right, B 4 left, B's
 * line `dy` pixels below A's: B is drawn over A while they overlap, and A
 * gets no detection then (the detector cannot see it, for 9 frames). Both
 * must keep their ids, at interval 1 and 3, with no other event. */
void cross_head_on(int dy)
{
    for (const int interval : {1, 3}) {
        Tracker tracker;
        ReferenceSearcher searcher;
        const Rect a0{20, 60, 40, 40}, b0{260, 60 + dy, 40, 40};
        const std::string what = "dy " + std::to_string(dy) + ", interval " + std::to_string(interval);
        int64_t id_a = 0, id_b = 0;
        std::vector<TrackEvent> all;
        for (int f = 0; f < 58; ++f) { /* 57: a frame with detection at both intervals */
            const Rect a = moved(a0, 4 * f, 0), b = moved(b0, -4 * f, 0);
            const bool a_hidden = std::abs(a.x - b.x) < a.width;
            const GrayImage img = scene(320, 160, {{a, 3}, {b, 4}});
            std::vector<TrackEvent> events;
            if (f % interval == 0) {
                std::vector<TrackerInput> detections = {{b, 0, 0.8f}};
                if (!a_hidden)
                    detections.insert(f % 2 ? detections.end() : detections.begin(), TrackerInput{a, 0, 0.8f});
                events = tracker.update(img.view(), detections);
            } else {
                events = tracker.follow(img.view(), searcher);
            }
            for (const TrackEvent& e : events)
                if (e.kind == TrackEvent::Kind::Appeared) {
                    (e.box == a ? id_a : id_b) = e.id;
                    EXPECT_TRUE(e.box == a || e.box == b) << what << ", frame " << f;
                }
            all.insert(all.end(), events.begin(), events.end());
            if (f % interval != 0)
                continue;
            const Track* tb = track_at(tracker, b);
            ASSERT_NE(tb, nullptr) << what << ", frame " << f;
            if (f >= interval) {
                EXPECT_EQ(tb->id, id_b) << what << ", frame " << f;
            }
            const Track* ta = track_at(tracker, a);
            if (!a_hidden) {
                ASSERT_NE(ta, nullptr) << what << ", frame " << f;
                if (f >= interval) {
                    EXPECT_EQ(ta->id, id_a) << what << ", frame " << f;
                }
            }
        }
        EXPECT_NE(id_a, 0) << what;
        EXPECT_NE(id_b, 0) << what;
        EXPECT_NE(id_a, id_b) << what;
        EXPECT_EQ(count(all, TrackEvent::Kind::Appeared), 2) << what;
        EXPECT_EQ(count(all, TrackEvent::Kind::Left), 0) << what;
        EXPECT_EQ(reported_count(tracker), 2) << what;
    }
}

}  // namespace

/* Crossing on lines 10 pixels apart (the boxes overlap by at most IoU
 * 0.6): the hidden one coasts and takes its id back; the visible one keeps
 * its id throughout. */
TEST(TrackerOcclusion, ObjectsCrossingOnNearbyLinesKeepTheirIds) { cross_head_on(10); }

/* Crossing on one line: the hidden object's coasting track overlaps the
 * visible one's detected box by IoU >= duplicate_iou (0.7) mid-crossing;
 * the duplicate merge must not take them for one object (the older track
 * taking the detection, the younger ending, the hidden object coming back
 * with a new id): a predicted box is never merged. */
TEST(TrackerOcclusion, ObjectsCrossingHeadOnKeepTheirIds) { cross_head_on(0); }

/* Two tracks T1 (x 100) and T2 (x 115) whose objects both moved 13 pixels
 * left. The best single pair is T1 with T2's detection (IoU 0.9); greedy
 * takes it, and T2 is left with no detection it may take (T1's is at IoU
 * 0.18, too far for the distance gate too): T2 missed and a new track on
 * T1's detection. The optimal assignment pairs both (IoU 0.5 each). */
TEST(TrackerAssignment, TheOptimalAssignmentKeepsIdsWhereGreedyWouldNot)
{
    TrackerConfig config;
    config.confirm_hits = 1;
    Tracker tracker(config);
    const Rect t1{100, 50, 40, 40}, t2{115, 50, 40, 40};
    const Rect d1 = moved(t1, -13, 0), d2 = moved(t2, -13, 0);
    const GrayImage before = scene(240, 140, {{t1, 1}, {t2, 2}});
    const GrayImage after = scene(240, 140, {{d1, 1}, {d2, 2}});
    tracker.update(before.view(), {{t1, 0, 1}, {t2, 0, 1}});
    const auto events = tracker.update(after.view(), {{d1, 0, 1}, {d2, 0, 1}});
    EXPECT_TRUE(events.empty());
    ASSERT_EQ(tracker.tracks().size(), 2u);
    ASSERT_NE(track_at(tracker, d1), nullptr);
    ASSERT_NE(track_at(tracker, d2), nullptr);
    EXPECT_EQ(track_at(tracker, d1)->id, 1);
    EXPECT_EQ(track_at(tracker, d2)->id, 2);

    /* The same choice on the costs (1 - IoU) themselves; a limit of one
     * row makes the group greedy, which takes the best pair. */
    CostMatrix m(2, 2);
    m.at(0, 0) = 0.5;
    m.at(0, 1) = 0.1;
    m.at(1, 1) = 0.5;
    EXPECT_EQ(assign_optimally(m), (std::vector<int>{0, 1}));
    EXPECT_EQ(assign_optimally(m, 1), (std::vector<int>{1, -1}));
}

/* assign_optimally on a few hundred random matrices up to 6 x 6 with refused
 * entries (some at kForbidden, some above it, both refused): a one-to-one
 * assignment of allowed pairs, with as many pairs as any, and of those the
 * least total cost, as a brute force over every assignment finds. */
TEST(TrackerAssignment, OptimalAgainstBruteForce)
{
    std::mt19937 rng(32);
    for (int n = 0; n < 400; ++n) {
        const double forbidden = n % 2 ? CostMatrix::kForbidden : 4 * CostMatrix::kForbidden;
        const CostMatrix m = random_costs(rng, 6, static_cast<unsigned>(n % 8) * 10, forbidden);
        const Matching got = checked_matching(m, assign_optimally(m));
        const Matching best = best_matching(m);
        EXPECT_EQ(got.pairs, best.pairs) << "case " << n << ", " << m.rows << " x " << m.cols;
        EXPECT_NEAR(got.cost, best.cost, 1e-9) << "case " << n << ", " << m.rows << " x " << m.cols;
    }
    /* No rows, no columns, nothing allowed. */
    EXPECT_TRUE(assign_optimally(CostMatrix(0, 3)).empty());
    EXPECT_EQ(assign_optimally(CostMatrix(2, 0)), (std::vector<int>{-1, -1}));
    EXPECT_EQ(assign_optimally(CostMatrix(2, 2)), (std::vector<int>{-1, -1}));
}

/* Every value at or above kForbidden is a refused pair alike: which refused
 * pairs the solver's full assignment goes through must not change the real
 * pairs it keeps. Row 0 may take column 1 (cost 0) or column 2 (cost 5);
 * rows 1 and 2 both take only column 0, so one of them is left with the
 * other column, refused in both: at kForbidden for column 1 and at
 * 4 kForbidden for column 2. The best real pairs are row 0 with column 1.
 * (Unclamped, the Hungarian weighed the refused values against the real
 * costs and gave row 0 column 2.) */
TEST(TrackerAssignment, EveryValueAtOrAboveForbiddenIsRefusedAlike)
{
    const double refused = CostMatrix::kForbidden;
    CostMatrix m(3, 3);
    m.at(0, 0) = 0;
    m.at(0, 1) = 0;
    m.at(0, 2) = 5;
    m.at(1, 0) = 0;
    m.at(2, 0) = 0;
    m.at(1, 1) = m.at(2, 1) = refused;
    m.at(1, 2) = m.at(2, 2) = 4 * refused;
    const std::vector<int> col_of = assign_optimally(m);
    const Matching got = checked_matching(m, col_of);
    EXPECT_EQ(got.pairs, 2u);
    EXPECT_EQ(got.cost, 0);
    EXPECT_EQ(col_of[0], 1);
}

/* Above optimal_limit the group is assigned greedily: still one-to-one and
 * of allowed pairs only, maximal (no allowed pair left with both its row
 * and its column free), and each pair the best left when it was taken
 * (best first; a limit of 0 makes every group greedy); at the default limit
 * these matrices are solved optimally, which differs. */
TEST(TrackerAssignment, TheGreedyFallbackIsAValidAssignment)
{
    std::mt19937 rng(64);
    int differs = 0;
    for (int n = 0; n < 300; ++n) {
        const CostMatrix m = random_costs(rng, 8, static_cast<unsigned>(n % 6) * 10, CostMatrix::kForbidden);
        const std::vector<int> col_of = assign_optimally(m, 0);
        const Matching got = checked_matching(m, col_of);
        std::vector<bool> row_free(m.rows), col_free(m.cols, true);
        for (size_t r = 0; r < m.rows; ++r) {
            row_free[r] = col_of[r] < 0;
            if (col_of[r] >= 0)
                col_free[static_cast<size_t>(col_of[r])] = false;
        }
        for (size_t r = 0; r < m.rows; ++r)
            for (size_t c = 0; c < m.cols; ++c) {
                EXPECT_FALSE(row_free[r] && col_free[c] && allowed(m, r, c)) << "case " << n;
                /* Best first: a pair cheaper than a taken one had its row
                 * or column taken by a pair no dearer. */
                if (col_of[r] >= 0 && static_cast<size_t>(col_of[r]) != c && allowed(m, r, c) &&
                    m.at(r, c) < m.at(r, static_cast<size_t>(col_of[r]))) {
                    bool column_taken_cheaper = false;
                    for (size_t o = 0; o < m.rows; ++o)
                        column_taken_cheaper |= o != r && col_of[o] == static_cast<int>(c) && m.at(o, c) <= m.at(r, c);
                    EXPECT_TRUE(column_taken_cheaper) << "case " << n << ", row " << r << ", column " << c;
                }
            }
        const Matching optimal = checked_matching(m, assign_optimally(m));
        EXPECT_LE(got.pairs, optimal.pairs) << "case " << n;
        if (got.pairs == optimal.pairs) {
            EXPECT_GE(got.cost, optimal.cost - 1e-9) << "case " << n;
        }
        differs += got.pairs != optimal.pairs || std::abs(got.cost - optimal.cost) > 1e-9;
    }
    EXPECT_GT(differs, 0); /* the limit was in force */
    /* A large group (more than the default limit of 128), nearly all pairs
     * allowed: greedy, valid. */
    CostMatrix big(150, 140);
    for (double& c : big.cost)
        c = rng() % 10 == 0 ? CostMatrix::kForbidden : static_cast<double>(rng() % 1000) / 1000;
    const Matching got = checked_matching(big, assign_optimally(big));
    EXPECT_EQ(got.pairs, 140u);
}

/* The motion model coasting: after a measured frame the velocity is kept
 * for one prediction, then each prediction without measurement multiplies
 * it by MotionConfig::damping (v0 * damping^N after N), the displacement
 * shrinking alike; with damping 1 it stays constant. */
TEST(TrackerMotion, CoastingVelocityDecaysByDamping)
{
    for (const double damping : {0.8, 0.95, 1.0}) {
        MotionConfig config;
        config.damping = damping;
        const Rect start{100, 100, 40, 40};
        BoxMotion motion(start, config);
        for (int k = 1; k <= 30; ++k) {
            motion.predict(true);
            motion.correct(moved(start, 4 * k, -2 * k));
        }
        const double vx = motion.velocity_x(), vy = motion.velocity_y();
        EXPECT_NEAR(vx, 4, 0.2);
        EXPECT_NEAR(vy, -2, 0.2);
        motion.predict(true); /* the first frame without measurement: undamped */
        EXPECT_DOUBLE_EQ(motion.velocity_x(), vx);
        const Rect from = motion.box();
        double travelled = 0;
        for (int n = 1; n <= 20; ++n) {
            motion.predict(false);
            travelled += vx * std::pow(damping, n - 1);
            EXPECT_NEAR(motion.velocity_x(), vx * std::pow(damping, n), 1e-9) << "damping " << damping << ", " << n;
            EXPECT_NEAR(motion.velocity_y(), vy * std::pow(damping, n), 1e-9) << "damping " << damping << ", " << n;
            /* The box (rounded) moved by the sum of the damped steps. */
            EXPECT_NEAR(motion.box().x - from.x, travelled, 1.0) << "damping " << damping << ", " << n;
            EXPECT_EQ(motion.box().width, 40);
        }
    }
}

/* The Kalman filter: a box moving at constant velocity, measured every
 * frame, converges to that velocity, and its prediction to where the box
 * goes next. */
TEST(TrackerMotion, ConstantVelocityIsLearnt)
{
    for (const auto& [vx, vy] : std::vector<std::pair<int, int>>{{3, -2}, {0, 5}, {-7, 0}}) {
        const Rect start{300, 300, 48, 32};
        BoxMotion motion(start, MotionConfig{});
        EXPECT_EQ(motion.box(), start);
        for (int k = 1; k <= 60; ++k) {
            motion.predict(true);
            if (k > 30) {
                EXPECT_EQ(motion.box(), moved(start, vx * k, vy * k)) << vx << ", " << vy << ", frame " << k;
            }
            motion.correct(moved(start, vx * k, vy * k));
        }
        EXPECT_NEAR(motion.velocity_x(), vx, 0.02);
        EXPECT_NEAR(motion.velocity_y(), vy, 0.02);
        EXPECT_EQ(motion.box().width, 48);
        EXPECT_EQ(motion.box().height, 32);
    }
}

/* The tracker coasts with its configuration's damping, from the second
 * frame without measurement on (the first keeps the velocity). */
TEST(TrackerMotion, ACoastingTrackSlowsDown)
{
    for (const double damping : {0.7, 0.95, 1.0}) {
        TrackerConfig config;
        config.confirm_hits = 1;
        config.lost_after = 100;
        config.motion.damping = damping;
        Tracker tracker(config);
        const Rect start{20, 80, 40, 40};
        for (int f = 0; f < 20; ++f) {
            const Rect box = moved(start, 3 * f, 0);
            tracker.update(scene(400, 200, {{box, 1}}).view(), {{box, 0, 1}});
        }
        ASSERT_EQ(tracker.tracks().size(), 1u);
        const double v0 = tracker.tracks()[0].motion.velocity_x();
        EXPECT_NEAR(v0, 3, 0.1);
        const GrayImage empty = scene(400, 200, {});
        for (int n = 1; n <= 10; ++n) {
            tracker.update(empty.view(), {});
            ASSERT_EQ(tracker.tracks().size(), 1u);
            EXPECT_NEAR(tracker.tracks()[0].motion.velocity_x(), v0 * std::pow(damping, n - 1), 1e-9)
                << "damping " << damping << ", frame " << n;
        }
    }
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
