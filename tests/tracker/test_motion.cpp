/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The motion model (core/tracking/motion.h) on its own and in the tracker:
 * constant velocity learnt, coasting damped.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "core/tracking/motion.h"
#include "core/tracking/tracker.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using namespace waldboost_test;

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

/* A box that shrinks while it is measured (an object being covered) keeps
 * its size once it coasts: a hidden object does not shrink on. Carried
 * through 30 frames, the shrinking would take the box below the width the
 * object comes back with by more than the tracker's scale gate allows
 * (issue 55, item 14). Its centre still moves. */
TEST(TrackerMotion, CoastingKeepsTheSize)
{
    const Rect start{100, 100, 60, 60};
    BoxMotion motion(start, MotionConfig{});
    for (int k = 1; k <= 12; ++k) {
        motion.predict(true);
        motion.correct(Rect{100 + 4 * k + k, 100 + k, 60 - 2 * k, 60 - 2 * k});
    }
    motion.predict(true); /* the first frame without measurement */
    motion.predict(false);
    const Rect held = motion.box();
    EXPECT_GE(held.width, 30);
    for (int n = 1; n <= 30; ++n) {
        motion.predict(false);
        EXPECT_EQ(motion.box().width, held.width) << n;
        EXPECT_EQ(motion.box().height, held.height) << n;
    }
    EXPECT_GT(motion.box().x, held.x + 20);
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

/* A new resolution: a box learnt moving at constant velocity, then the
 * frames scaled by 1/2 across and 3/4 down, goes on at the scaled velocity
 * with the scaled size, measured at the scaled boxes as before. */
TEST(TrackerMotion, RescaleScalesPositionVelocityAndSize)
{
    const Rect start{400, 320, 64, 48};
    const int vx = 6, vy = -4;
    BoxMotion motion(start, MotionConfig{});
    for (int k = 1; k <= 40; ++k) {
        motion.predict(true);
        motion.correct(moved(start, vx * k, vy * k));
    }
    motion.rescale(0.5, 0.75);
    EXPECT_NEAR(motion.velocity_x(), vx * 0.5, 0.02);
    EXPECT_NEAR(motion.velocity_y(), vy * 0.75, 0.02);
    const auto scaled = [&](int k) {
        const Rect r = moved(start, vx * k, vy * k);
        return Rect{r.x / 2, r.y * 3 / 4, r.width / 2, r.height * 3 / 4};
    };
    for (int k = 41; k <= 60; ++k) {
        motion.predict(true);
        const Rect want = scaled(k), got = motion.box();
        EXPECT_LE(std::abs(got.x - want.x), 1) << "frame " << k;
        EXPECT_LE(std::abs(got.y - want.y), 1) << "frame " << k;
        EXPECT_EQ(got.width, want.width) << "frame " << k;
        EXPECT_EQ(got.height, want.height) << "frame " << k;
        motion.correct(want);
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
