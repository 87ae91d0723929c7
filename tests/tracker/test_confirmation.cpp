/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Confirmation (TrackerConfig::confirm_hits, confirm_window, report_misses):
 * what a track must show before it is reported with an id, and when it
 * stops being reported.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/tracking/tracker.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

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
            const auto events =
                f % interval == 0 ? tracker.update(img.view(), detections) : tracker.follow(img.view(), searcher);
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
        EXPECT_EQ(appeared_at, c.appears_at) << "hits " << c.hits << ", window " << c.window << ", period " << c.period;
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
            const std::string what =
                "report_misses " + std::to_string(report_misses) + ", misses " + std::to_string(misses);
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
