/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the tracker tests (support.h says what is in it).
 */
#include "support.h"

#include <algorithm>

using namespace waldboost;
using namespace waldboost::tracking;

namespace waldboost_test {

namespace {

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

}  // namespace

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
    return static_cast<int>(std::count_if(tracker.tracks().begin(), tracker.tracks().end(), [](const Track& t) {
        return t.reported();
    }));
}

}  // namespace waldboost_test
