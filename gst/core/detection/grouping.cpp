/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/detection/grouping.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

namespace waldboost {

bool Rect::operator<(const Rect& o) const
{
    return std::tie(x, y, width, height) < std::tie(o.x, o.y, o.width, o.height);
}
void clip_windows(std::vector<RawWindow>& windows, Size image)
{
    std::vector<RawWindow> kept;
    kept.reserve(windows.size());
    for (RawWindow w : windows) {
        const int x0 = std::max(w.rect.x, 0), y0 = std::max(w.rect.y, 0);
        const int x1 = std::min(w.rect.x + w.rect.width, image.width);
        const int y1 = std::min(w.rect.y + w.rect.height, image.height);
        if (x1 <= x0 || y1 <= y0)
            continue;
        w.rect = {x0, y0, x1 - x0, y1 - y0};
        kept.push_back(w);
    }
    windows.swap(kept);
}

float confidence_from_neighbors(int neighbors)
{
    return 1.0f - std::exp(-static_cast<float>(neighbors) / 8.0f);
}

static Detection single_window_detection(const RawWindow& w)
{
    return Detection{w.rect, 1, w.score, confidence_from_neighbors(1)};
}

namespace {

/* OpenCV's similarity for groupRectangles: all four edges within delta. */
bool similar_rects(const Rect& a, const Rect& b, double eps)
{
    const double delta = eps * (std::min(a.width, b.width) + std::min(a.height, b.height)) * 0.5;
    return std::abs(a.x - b.x) <= delta && std::abs(a.y - b.y) <= delta &&
           std::abs(a.x + a.width - b.x - b.width) <= delta && std::abs(a.y + a.height - b.y - b.height) <= delta;
}

/* Union-find: the classes of the transitive closure of a relation. */
struct DisjointSets {
    std::vector<size_t> parent;
    explicit DisjointSets(size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), size_t{0}); }
    size_t find(size_t i)
    {
        while (parent[i] != i)
            i = parent[i] = parent[parent[i]];
        return i;
    }
    void join(size_t a, size_t b) { parent[find(a)] = find(b); }
};

}  // namespace

std::vector<Detection> group_opencv(const std::vector<RawWindow>& windows, int min_neighbors, double eps)
{
    std::vector<Detection> out;
    /* Like groupRectangles, a threshold of 0 means no grouping at all. */
    if (min_neighbors <= 0) {
        for (const RawWindow& w : windows)
            out.push_back(single_window_detection(w));
        return out;
    }

    const size_t n = windows.size();
    DisjointSets sets(n);
    for (size_t i = 0; i < n; ++i)
        for (size_t j = i + 1; j < n; ++j)
            if (similar_rects(windows[i].rect, windows[j].rect, eps))
                sets.join(i, j);

    /* Classes numbered by their first member, so the output order is stable. */
    std::vector<int> class_of_root(n, -1);
    struct Group {
        int64_t x = 0, y = 0, w = 0, h = 0;
        int count = 0;
        float best_score = -INFINITY;
        Rect mean;
    };
    std::vector<Group> groups;
    for (size_t i = 0; i < n; ++i) {
        const size_t root = sets.find(i);
        if (class_of_root[root] < 0) {
            class_of_root[root] = static_cast<int>(groups.size());
            groups.emplace_back();
        }
        Group& g = groups[class_of_root[root]];
        g.x += windows[i].rect.x;
        g.y += windows[i].rect.y;
        g.w += windows[i].rect.width;
        g.h += windows[i].rect.height;
        ++g.count;
        g.best_score = std::max(g.best_score, windows[i].score);
    }
    /* The mean rectangle, with OpenCV's float arithmetic and rounding. */
    for (Group& g : groups) {
        const float s = 1.0f / static_cast<float>(g.count);
        g.mean = {cv_round(static_cast<float>(g.x) * s), cv_round(static_cast<float>(g.y) * s),
                  cv_round(static_cast<float>(g.w) * s), cv_round(static_cast<float>(g.h) * s)};
    }

    for (size_t i = 0; i < groups.size(); ++i) {
        const Group& g1 = groups[i];
        if (g1.count <= min_neighbors)
            continue;
        /* Drop a group that sits inside a stronger one. */
        bool inside_stronger = false;
        for (size_t j = 0; j < groups.size() && !inside_stronger; ++j) {
            const Group& g2 = groups[j];
            if (j == i || g2.count <= min_neighbors)
                continue;
            const Rect& r1 = g1.mean;
            const Rect& r2 = g2.mean;
            const int dx = cv_round(r2.width * eps);
            const int dy = cv_round(r2.height * eps);
            inside_stronger = r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx &&
                              r1.y + r1.height <= r2.y + r2.height + dy &&
                              (g2.count > std::max(3, g1.count) || g1.count < 3);
        }
        if (!inside_stronger)
            out.push_back(Detection{g1.mean, g1.count, g1.best_score, confidence_from_neighbors(g1.count)});
    }
    return out;
}

double intersection_over_union(const Rect& a, const Rect& b)
{
    const int64_t ix = std::max(0, std::min(a.x + a.width, b.x + b.width) - std::max(a.x, b.x));
    const int64_t iy = std::max(0, std::min(a.y + a.height, b.y + b.height) - std::max(a.y, b.y));
    const int64_t inter = ix * iy;
    const int64_t uni = int64_t{a.width} * a.height + int64_t{b.width} * b.height - inter;
    return uni > 0 ? static_cast<double>(inter) / static_cast<double>(uni) : 0.0;
}

std::vector<Detection> group_nms(const std::vector<RawWindow>& windows, float iou, int min_neighbors)
{
    std::vector<size_t> order(windows.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return windows[a].score > windows[b].score; });

    std::vector<bool> absorbed(windows.size(), false);
    std::vector<Detection> out;
    for (size_t oi = 0; oi < order.size(); ++oi) {
        const size_t i = order[oi];
        if (absorbed[i])
            continue;
        Detection d = single_window_detection(windows[i]);
        for (size_t oj = oi + 1; oj < order.size(); ++oj) {
            const size_t j = order[oj];
            if (!absorbed[j] && intersection_over_union(windows[i].rect, windows[j].rect) > iou) {
                absorbed[j] = true;
                ++d.neighbors;
            }
        }
        if (d.neighbors > min_neighbors) {
            d.confidence = confidence_from_neighbors(d.neighbors);
            out.push_back(d);
        }
    }
    return out;
}

std::vector<Detection> group_windows(const std::vector<RawWindow>& windows, const DetectParams& params)
{
    switch (params.grouping) {
    case Grouping::None: {
        std::vector<Detection> out;
        for (const RawWindow& w : windows)
            out.push_back(single_window_detection(w));
        return out;
    }
    case Grouping::Nms:
        return group_nms(windows, params.nms_iou, params.min_neighbors);
    case Grouping::OpenCv:
        break;
    }
    return group_opencv(windows, params.min_neighbors);
}
}  // namespace waldboost
