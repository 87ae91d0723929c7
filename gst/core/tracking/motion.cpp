/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/tracking/motion.h"

#include <algorithm>
#include <cmath>

namespace waldboost::tracking {

void KalmanAxis::start(double position, double position_variance, double velocity_variance)
{
    x = position;
    v = 0;
    p00 = position_variance;
    p01 = 0;
    p11 = velocity_variance;
}

void KalmanAxis::predict(double position_variance, double velocity_variance, double damping)
{
    /* F = [1 1; 0 d], P = F P F' + diag(q_x, q_v). */
    x += v;
    v *= damping;
    const double q00 = p00 + 2 * p01 + p11, q01 = damping * (p01 + p11), q11 = damping * damping * p11;
    p00 = q00 + position_variance;
    p01 = q01;
    p11 = q11 + velocity_variance;
}

void KalmanAxis::correct(double measured, double measurement_variance)
{
    /* H = [1 0]: the gain K = P H' / (H P H' + r). */
    const double s = p00 + measurement_variance;
    const double k0 = p00 / s, k1 = p01 / s;
    const double innovation = measured - x;
    x += k0 * innovation;
    v += k1 * innovation;
    const double n00 = (1 - k0) * p00, n01 = (1 - k0) * p01, n11 = p11 - k1 * p01;
    p00 = n00;
    p01 = n01;
    p11 = n11;
}

BoxMotion::BoxMotion(const Rect& box, const MotionConfig& config) : config_(config)
{
    const double w = std::max(1, box.width);
    aspect_ = static_cast<double>(std::max(1, box.height)) / w;
    /* As ByteTrack starts its tracks: twice the measurement's spread for
     * the position, ten times the process's for the velocity. */
    const double sp = 2 * config_.position_noise * w, sv = 10 * config_.velocity_noise * w;
    cx_.start(box.x + box.width / 2.0, sp * sp, sv * sv);
    cy_.start(box.y + box.height / 2.0, sp * sp, sv * sv);
    w_.start(w, sp * sp, sv * sv);
}

double BoxMotion::scale() const { return std::max(1.0, w_.x); }

void BoxMotion::predict(bool measured_last)
{
    const double sp = config_.position_noise * scale(), sv = config_.velocity_noise * scale();
    const double damping = measured_last ? 1.0 : config_.damping;
    cx_.predict(sp * sp, sv * sv, damping);
    cy_.predict(sp * sp, sv * sv, damping);
    /* An unseen object keeps its size: the last boxes before it is hidden
     * are those of a partly covered object, which shrink, and that change
     * carried through a long occlusion shrinks the box until the object
     * that comes back fails the scale gate (issue 55, item 14). */
    w_.predict(sp * sp, sv * sv, measured_last ? 1.0 : 0.0);
    if (w_.x < 1)
        w_.x = 1;
}

void BoxMotion::correct(const Rect& box)
{
    const double r = config_.measurement * scale();
    cx_.correct(box.x + box.width / 2.0, r * r);
    cy_.correct(box.y + box.height / 2.0, r * r);
    w_.correct(std::max(1, box.width), r * r);
    if (w_.x < 1)
        w_.x = 1;
    aspect_ = static_cast<double>(std::max(1, box.height)) / std::max(1, box.width);
}

void BoxMotion::correct_centre(double cx, double cy)
{
    const double r = config_.measurement * scale();
    cx_.correct(cx, r * r);
    cy_.correct(cy, r * r);
}

void KalmanAxis::rescale(double s)
{
    x *= s;
    v *= s;
    p00 *= s * s;
    p01 *= s * s;
    p11 *= s * s;
}

void BoxMotion::rescale(double sx, double sy)
{
    cx_.rescale(sx);
    cy_.rescale(sy);
    w_.rescale(sx);
    if (w_.x < 1)
        w_.x = 1;
    aspect_ *= sy / sx;
}

Rect BoxMotion::box() const
{
    const int w = std::max(1, static_cast<int>(std::lround(w_.x)));
    const int h = std::max(1, static_cast<int>(std::lround(w_.x * aspect_)));
    return Rect{static_cast<int>(std::lround(cx_.x - w / 2.0)), static_cast<int>(std::lround(cy_.x - h / 2.0)), w, h};
}

}  // namespace waldboost::tracking
