/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Occlusion with the default configuration: objects hidden for up to 30
 * frames, and objects crossing, keep their ids, at detection intervals 1
 * and 3.
 */
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "core/tracking/tracker.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

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
