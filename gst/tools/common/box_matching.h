/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Annotated boxes and detections paired one to one, the rule by which
 * waldboost-evaluate and waldboost-bench-dlib count an object as found, so
 * that both count alike.
 */
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "core/detection/types.h"
#include "core/error.h"

namespace waldboost::tools {

inline double iou(const waldboost::Rect& a, const waldboost::Rect& b)
{
    const double w = std::min(a.x + a.width, b.x + b.width) - std::max(a.x, b.x);
    const double h = std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y);
    if (w <= 0 || h <= 0)
        return 0.0;
    const double both = w * h;
    return both / (static_cast<double>(a.width) * a.height + static_cast<double>(b.width) * b.height - both);
}

/* The most box-detection pairs at or above the IoU threshold that one
 * annotated image may give to match_one_to_one(), 16 bytes each: every pair used to be
 * kept, and many duplicated boxes under an accept-all classifier at a low
 * --iou took gigabytes. Real annotations pair each box with a few dozen
 * windows at most. */
constexpr size_t kMaxPairs = size_t{1} << 24;

/* Pairs boxes and detections one to one, the pairs of highest IoU first,
 * each at or above `threshold`; returns the IoUs of the pairs. Throws Error
 * (BadParameter, naming `where`) when more than kMaxPairs pairs reach the
 * threshold. */
inline std::vector<double> match_one_to_one(const std::vector<waldboost::Rect>& boxes,
                                            const std::vector<waldboost::Rect>& detections, double threshold,
                                            const std::string& where)
{
    struct Pair {
        double overlap;
        uint32_t box, detection;
    };
    /* Only detections that overlap a box in x can reach an IoU above 0:
     * those starting less than the widest detection to its left. */
    std::vector<uint32_t> by_x(detections.size());
    int widest = 0;
    for (size_t d = 0; d < detections.size(); ++d) {
        by_x[d] = static_cast<uint32_t>(d);
        widest = std::max(widest, detections[d].width);
    }
    std::sort(by_x.begin(), by_x.end(), [&](uint32_t a, uint32_t b) {
        return detections[a].x < detections[b].x;
    });
    std::vector<Pair> pairs;
    for (size_t b = 0; b < boxes.size(); ++b) {
        const waldboost::Rect& box = boxes[b];
        const long long from = static_cast<long long>(box.x) - widest;
        auto d = std::upper_bound(by_x.begin(), by_x.end(), from, [&](long long x, uint32_t i) {
            return x < detections[i].x;
        });
        for (; d != by_x.end() && detections[*d].x < static_cast<long long>(box.x) + box.width; ++d) {
            const double overlap = iou(box, detections[*d]);
            if (overlap < threshold)
                continue;
            if (pairs.size() == kMaxPairs) {
                char at[32];
                std::snprintf(at, sizeof at, "%g", threshold);
                throw Error(ErrorKind::BadParameter,
                            where + ": its " + std::to_string(boxes.size()) + " boxes and " +
                                std::to_string(detections.size()) + " detections make more than " +
                                std::to_string(kMaxPairs) + " pairs at IoU >= " + at +
                                ", too many to match: remove duplicated boxes, or raise --iou or "
                                "--min-neighbors");
            }
            pairs.push_back(Pair{overlap, static_cast<uint32_t>(b), *d});
        }
    }
    /* Highest IoU first; ties by index, so the result does not depend on the sort. */
    std::sort(pairs.begin(), pairs.end(), [](const Pair& p, const Pair& q) {
        if (p.overlap != q.overlap)
            return p.overlap > q.overlap;
        return std::make_pair(p.box, p.detection) < std::make_pair(q.box, q.detection);
    });
    std::vector<bool> box_used(boxes.size()), detection_used(detections.size());
    std::vector<double> matched;
    for (const Pair& p : pairs) {
        if (box_used[p.box] || detection_used[p.detection])
            continue;
        box_used[p.box] = detection_used[p.detection] = true;
        matched.push_back(p.overlap);
    }
    return matched;
}

}  // namespace waldboost::tools
