/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the tracker tests (tests/tracker/test_*.cpp, one
 * program per concern): synthetic scenes whose true boxes are known
 * (textured squares moving over a flat background, the detections given as
 * the true boxes on chosen frames), boxes moved and grown, and the tracks
 * and events read back. Compiled once (support.cpp) for every program;
 * helpers of one concern stay in its file. The one table of programs is in
 * meson.build beside this file.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/detection/image.h"
#include "core/tracking/tracker.h"

namespace waldboost_test {

inline constexpr uint8_t kBackground = 128;

/* A textured square, or with `flat` >= 0 a bar of that one value (an
 * occluder with nothing for the template search to find). */
struct Object {
    waldboost::Rect box;
    int seed = 0;
    int flat = -1;
};

/* Draws the objects in order (later ones cover earlier ones), clipped, on
 * kBackground; each square's texture (a hash of the position and its seed)
 * resembles no offset of itself. */
waldboost::GrayImage scene(int width, int height, const std::vector<Object>& objects);

waldboost::Rect moved(const waldboost::Rect& r, int dx, int dy);
waldboost::Rect grown(const waldboost::Rect& r, int margin);

/* The track whose box is `box`, or nullptr. */
const waldboost::tracking::Track* track_at(const waldboost::tracking::Tracker& tracker, const waldboost::Rect& box);
/* The events of one kind. */
int count(const std::vector<waldboost::tracking::TrackEvent>& events, waldboost::tracking::TrackEvent::Kind kind);
/* How many tracks Track::reported() shows. */
int reported_count(const waldboost::tracking::Tracker& tracker);

}  // namespace waldboost_test
