/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker's motion model: a Kalman filter with constant velocity on a
 * box's centre and size (three independent axes: x, y, width; the height
 * keeps the last measured aspect ratio). Its noises are relative to the
 * box's size, as in SORT's successors (ByteTrack, OC-SORT), so one set of
 * constants suits a 24-pixel face and a 400-pixel one. A track that no
 * measurement places (hidden, missed) coasts on the prediction, and its
 * velocity decays by MotionConfig::damping each such frame: a lost object
 * slows to a stop instead of sliding away with its last motion. Its size
 * stays: the boxes of an object being covered shrink, and a hidden one
 * does not go on shrinking.
 */
#pragma once

#include "core/detection/types.h"

namespace waldboost::tracking {

struct MotionConfig {
    /* Standard deviations, as a share of the box's width: of a measured
     * position, of the position's and the velocity's change per frame. */
    double measurement = 1.0 / 20;
    double position_noise = 1.0 / 20;
    double velocity_noise = 1.0 / 160;
    /* Velocity kept per frame without a measurement. */
    double damping = 0.95;
};

/* One coordinate: position and velocity (per frame), their covariance. */
struct KalmanAxis {
    double x = 0, v = 0;
    double p00 = 0, p01 = 0, p11 = 0;
    void start(double position, double position_variance, double velocity_variance);
    /* One frame on: x += v, then v *= damping. */
    void predict(double position_variance, double velocity_variance, double damping);
    void correct(double measured, double measurement_variance);
    /* Coordinates multiplied by `s`: the state by s, its covariance by s^2. */
    void rescale(double s);
};

class BoxMotion {
public:
    BoxMotion() = default;
    BoxMotion(const Rect& box, const MotionConfig& config);
    /* One frame on; `measured_last` says whether the last frame placed the
     * box (no damping then). */
    void predict(bool measured_last);
    /* A detection's box. */
    void correct(const Rect& box);
    /* A centre alone (the template search): the size is not measured. */
    void correct_centre(double cx, double cy);
    /* The frames are now scaled by `sx` across and `sy` down (a new
     * resolution of the same scene): positions, velocities, the width and
     * their spreads scale with them, and the aspect by sy / sx. */
    void rescale(double sx, double sy);
    /* The filtered (or predicted) box, rounded. */
    Rect box() const;
    double velocity_x() const { return cx_.v; }
    double velocity_y() const { return cy_.v; }

private:
    double scale() const; /* the width the noises are relative to */
    MotionConfig config_;
    KalmanAxis cx_, cy_, w_;
    double aspect_ = 1; /* height / width of the last detection */
};

}  // namespace waldboost::tracking
