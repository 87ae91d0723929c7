/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/detection/grouping.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace waldboost {

bool Rect::operator<(const Rect& o) const
{
    return std::tie(x, y, width, height) < std::tie(o.x, o.y, o.width, o.height);
}
/* Clips each item's rect to the image (OpenCV's clipObjects), dropping
 * those left empty. */
template <typename T>
static void clip_rects(std::vector<T>& items, Size image)
{
    std::vector<T> kept;
    kept.reserve(items.size());
    for (T item : items) {
        const Rect& r = item.rect;
        const int x0 = std::max(r.x, 0), y0 = std::max(r.y, 0);
        const int x1 = std::min(r.x + r.width, image.width);
        const int y1 = std::min(r.y + r.height, image.height);
        if (x1 <= x0 || y1 <= y0)
            continue;
        item.rect = {x0, y0, x1 - x0, y1 - y0};
        kept.push_back(item);
    }
    items.swap(kept);
}

void clip_windows(std::vector<RawWindow>& windows, Size image) { clip_rects(windows, image); }

uint64_t cap_windows(std::vector<RawWindow>& windows, int max_windows)
{
    if (max_windows <= 0 || windows.size() <= static_cast<size_t>(max_windows))
        return 0;
    auto scan_order = [](const RawWindow& a, const RawWindow& b) {
        return std::tie(a.level, a.y, a.x) < std::tie(b.level, b.y, b.x);
    };
    if (!std::is_sorted(windows.begin(), windows.end(), scan_order))
        std::stable_sort(windows.begin(), windows.end(), scan_order);
    const uint64_t cut = windows.size() - static_cast<size_t>(max_windows);
    windows.resize(static_cast<size_t>(max_windows));
    return cut;
}

float confidence_from_neighbors(int neighbors) { return 1.0f - std::exp(-static_cast<float>(neighbors) / 8.0f); }

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

int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* Rectangles bucketed by (size class, cell column, cell row). Only the
 * pairs in neighbouring buckets can satisfy the predicates below, so the
 * groupings test a bounded number of pairs per rectangle on a detector's
 * windows (one size per level, positions on a step grid) instead of all
 * n^2 / 2 pairs: an accept-all 640x480 frame took minutes. */
struct Grid {
    struct Key {
        int size_class;
        int64_t column, row;
        bool operator==(const Key& o) const { return size_class == o.size_class && column == o.column && row == o.row; }
    };
    struct Hash {
        size_t operator()(const Key& k) const
        {
            uint64_t h = static_cast<uint64_t>(k.size_class) * 0x9e3779b97f4a7c15ull;
            h ^= static_cast<uint64_t>(k.column) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
            h ^= static_cast<uint64_t>(k.row) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
            return static_cast<size_t>(h);
        }
    };
    std::unordered_map<Key, std::vector<size_t>, Hash> cells;

    void add(int size_class, int64_t column, int64_t row, size_t item)
    {
        cells[{size_class, column, row}].push_back(item);
    }
    std::vector<size_t>* at(int size_class, int64_t column, int64_t row)
    {
        const auto it = cells.find({size_class, column, row});
        return it == cells.end() ? nullptr : &it->second;
    }
};

/* The same bucketing for a set that does not change (join_similar's):
 * entries sorted by (size class, row, column, item), so a row's run of
 * neighbouring cells is one binary search and a contiguous scan, with no
 * hashing and no allocation per cell. The pairs met, and their order, are
 * Grid's. */
struct SortedCells {
    struct Entry {
        int size_class;
        int64_t row, column;
        size_t item;
        bool operator<(const Entry& o) const
        {
            return std::tie(size_class, row, column, item) < std::tie(o.size_class, o.row, o.column, o.item);
        }
    };
    std::vector<Entry> entries;

    void add(int size_class, int64_t column, int64_t row, size_t item)
    {
        entries.push_back({size_class, row, column, item});
    }
    void sort() { std::sort(entries.begin(), entries.end()); }
    /* The items of cells first_column .. last_column of one row. */
    template <typename Visit>
    void visit_row(int size_class, int64_t row, int64_t first_column, int64_t last_column, Visit&& visit) const
    {
        auto it = std::lower_bound(entries.begin(), entries.end(), Entry{size_class, row, first_column, 0});
        for (; it != entries.end() && it->size_class == size_class && it->row == row && it->column <= last_column; ++it)
            visit(it->item);
    }
};

bool positive_sizes(const std::vector<Rect>& rects)
{
    return std::all_of(rects.begin(), rects.end(), [](const Rect& r) {
        return r.width > 0 && r.height > 0;
    });
}

/* Joins every similar pair of `rects` (distinct rectangles) in `sets`.
 *
 * Similar rectangles a, b (delta = eps * (min w + min h) / 2) have
 * |s_a - s_b| <= 4 delta <= 2 eps min(s_a, s_b) for s = w + h, and corners
 * within delta < eps max(s) / 2. Size classes [L_k, L_k+1) with
 * L_k+1 > L_k (1 + 2 eps) put every similar pair in the same or adjacent
 * classes; class k's grid has cells wider than eps L_k+1 / 2, so the
 * partner lies in one of the 3x3 neighbouring cells, of its own class or
 * of the next one. */
void join_similar(const std::vector<Rect>& rects, double eps, DisjointSets& sets, uint64_t* tested)
{
    const size_t n = rects.size();
    if (n < 2)
        return;
    if (!(eps >= 0.0)) /* a negative delta (or NaN): nothing is similar */
        return;
    if (eps == 0.0) /* only equal rectangles, which the caller joined */
        return;
    if (!(eps >= 0.01 && eps <= 1.0) || !positive_sizes(rects)) {
        /* Outside what the bounds above assume (the groupings use eps = 0.2
         * on clipped, non-empty windows): every pair. */
        for (size_t i = 0; i < n; ++i)
            for (size_t j = i + 1; j < n; ++j) {
                if (tested)
                    ++*tested;
                if (similar_rects(rects[i], rects[j], eps))
                    sets.join(i, j);
            }
        return;
    }
    int64_t min_s = INT64_MAX, max_s = 0;
    for (const Rect& r : rects) {
        min_s = std::min<int64_t>(min_s, int64_t{r.width} + r.height);
        max_s = std::max<int64_t>(max_s, int64_t{r.width} + r.height);
    }
    /* Class bounds: integers, each at least 1 + the previous one times
     * (1 + 2 eps), which also covers rounding in delta. */
    std::vector<int64_t> bounds{min_s};
    while (bounds.back() <= max_s)
        bounds.push_back(static_cast<int64_t>(std::ceil(static_cast<double>(bounds.back()) * (1.0 + 2.0 * eps))) + 1);
    std::vector<int64_t> cell(bounds.size());
    for (size_t k = 0; k + 1 < bounds.size(); ++k)
        cell[k] = static_cast<int64_t>(eps * static_cast<double>(bounds[k + 1]) * 0.5) + 1;
    cell.back() = cell[cell.size() - 2];

    std::vector<int> size_class(n);
    SortedCells cells;
    cells.entries.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const int64_t s = int64_t{rects[i].width} + rects[i].height;
        const int k = static_cast<int>(std::upper_bound(bounds.begin(), bounds.end(), s) - bounds.begin()) - 1;
        size_class[i] = k;
        cells.add(k, floor_div(rects[i].x, cell[k]), floor_div(rects[i].y, cell[k]), i);
    }
    cells.sort();
    for (size_t i = 0; i < n; ++i) {
        size_t root = sets.find(i);
        for (int k = size_class[i]; k <= size_class[i] + 1 && k + 1 < static_cast<int>(bounds.size()); ++k) {
            const int64_t cx = floor_div(rects[i].x, cell[k]), cy = floor_div(rects[i].y, cell[k]);
            const bool own_class = k == size_class[i];
            for (int64_t row = cy - 1; row <= cy + 1; ++row)
                cells.visit_row(k, row, cx - 1, cx + 1, [&](size_t j) {
                    /* Each pair once: within a class from its lower index.
                     * Only the classes count, so a pair already joined
                     * through others needs no test. */
                    if ((own_class && j <= i) || sets.find(j) == root)
                        return;
                    if (tested)
                        ++*tested;
                    if (similar_rects(rects[i], rects[j], eps)) {
                        sets.join(i, j);
                        root = sets.find(i);
                    }
                });
        }
    }
}

struct Group {
    int64_t x = 0, y = 0, w = 0, h = 0;
    int count = 0;
    float best_score = -INFINITY;
    Rect mean;
};

/* OpenCV's rule: g1 sits inside the stronger g2 (expanded by eps). */
bool inside_stronger(const Group& g1, const Group& g2, double eps)
{
    const Rect& r1 = g1.mean;
    const Rect& r2 = g2.mean;
    const int dx = cv_round(r2.width * eps);
    const int dy = cv_round(r2.height * eps);
    return r1.x >= r2.x - dx && r1.y >= r2.y - dy && r1.x + r1.width <= r2.x + r2.width + dx &&
           r1.y + r1.height <= r2.y + r2.height + dy && (g2.count > std::max(3, g1.count) || g1.count < 3);
}

/* For each of the groups `strong` (indices into `groups`), whether it lies
 * inside another one of them. g1 inside g2 expanded needs max(w1, h1) <=
 * (1 + 2 eps) max(w2, h2) + 1 and g1's corner within max(w2, h2) (1 + eps)
 * + 1 of g2's: groups bucketed by the power of two of max(w, h), in cells
 * wider than that, are found in the 3x3 cells around g1's corner of each
 * class large enough. */
std::vector<bool> inside_any_stronger(const std::vector<Group>& groups, const std::vector<size_t>& strong, double eps,
                                      uint64_t* tested)
{
    const size_t n = strong.size();
    std::vector<bool> inside(n, false);
    std::vector<Rect> means;
    for (size_t i : strong)
        means.push_back(groups[i].mean);
    const bool bounded = eps >= 0.0 && eps <= 1.0 && positive_sizes(means);
    if (!bounded) {
        for (size_t i = 0; i < n; ++i)
            for (size_t j = 0; j < n && !inside[i]; ++j) {
                if (j == i)
                    continue;
                if (tested)
                    ++*tested;
                inside[i] = inside_stronger(groups[strong[i]], groups[strong[j]], eps);
            }
        return inside;
    }
    auto class_of = [](const Rect& r) {
        int k = 0;
        for (int64_t m = std::max(r.width, r.height); m > 1; m >>= 1)
            ++k;
        return k; /* max(w, h) in [2^k, 2^(k+1)) */
    };
    auto cell_of = [&](int k) {
        return static_cast<int64_t>(std::ldexp(1.0, k + 1) * (1.0 + eps)) + 2;
    };
    Grid grid;
    std::vector<bool> class_used(64, false);
    for (size_t j = 0; j < n; ++j) {
        const int k = class_of(means[j]);
        class_used[k] = true;
        grid.add(k, floor_div(means[j].x, cell_of(k)), floor_div(means[j].y, cell_of(k)), j);
    }
    for (size_t i = 0; i < n; ++i) {
        const int64_t m1 = std::max(means[i].width, means[i].height);
        for (int k = 0; k < 64 && !inside[i]; ++k) {
            /* The largest group of class k, expanded, cannot hold g1. */
            if (!class_used[k] || (std::ldexp(1.0, k + 1) - 1.0) * (1.0 + 2.0 * eps) + 2.0 < static_cast<double>(m1))
                continue;
            const int64_t c = cell_of(k);
            const int64_t cx = floor_div(means[i].x, c), cy = floor_div(means[i].y, c);
            for (int64_t row = cy - 1; row <= cy + 1 && !inside[i]; ++row)
                for (int64_t column = cx - 1; column <= cx + 1 && !inside[i]; ++column) {
                    const std::vector<size_t>* items = grid.at(k, column, row);
                    if (!items)
                        continue;
                    for (size_t j : *items) {
                        if (j == i)
                            continue;
                        if (tested)
                            ++*tested;
                        if (inside_stronger(groups[strong[i]], groups[strong[j]], eps)) {
                            inside[i] = true;
                            break;
                        }
                    }
                }
        }
    }
    return inside;
}

}  // namespace

std::vector<Detection> group_opencv(const std::vector<RawWindow>& windows, int min_neighbors, double eps,
                                    GroupingWork* work)
{
    std::vector<Detection> out;
    /* Like groupRectangles, a threshold of 0 means no grouping at all. */
    if (min_neighbors <= 0) {
        for (const RawWindow& w : windows)
            out.push_back(single_window_detection(w));
        return out;
    }

    /* Equal rectangles are similar (delta >= 0): pairs are searched among
     * distinct rectangles only, so repeated ones (levels that round to the
     * same window) cost nothing. */
    const size_t n = windows.size();
    const bool equal_are_similar = eps >= 0.0 && std::isfinite(eps);
    std::vector<Rect> distinct;
    std::vector<size_t> distinct_of(n);
    if (equal_are_similar) {
        std::vector<size_t> order(n);
        std::iota(order.begin(), order.end(), size_t{0});
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return windows[a].rect < windows[b].rect;
        });
        for (size_t k = 0; k < n; ++k) {
            if (k == 0 || !(windows[order[k]].rect == windows[order[k - 1]].rect))
                distinct.push_back(windows[order[k]].rect);
            distinct_of[order[k]] = distinct.size() - 1;
        }
    } else {
        /* Not even equal rectangles are similar (a negative or NaN delta). */
        for (size_t i = 0; i < n; ++i) {
            distinct.push_back(windows[i].rect);
            distinct_of[i] = i;
        }
    }
    DisjointSets sets(distinct.size());
    join_similar(distinct, eps, sets, work ? &work->pairs_tested : nullptr);

    /* Classes numbered by their first member, so the output order is stable. */
    std::vector<int> class_of_root(distinct.size(), -1);
    std::vector<Group> groups;
    for (size_t i = 0; i < n; ++i) {
        const size_t root = sets.find(distinct_of[i]);
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

    /* Drop a group that sits inside a stronger one; only groups with more
     * than min_neighbors windows take part, on either side. */
    std::vector<size_t> strong;
    for (size_t i = 0; i < groups.size(); ++i)
        if (groups[i].count > min_neighbors)
            strong.push_back(i);
    const std::vector<bool> inside = inside_any_stronger(groups, strong, eps, work ? &work->pairs_tested : nullptr);
    for (size_t k = 0; k < strong.size(); ++k) {
        const Group& g = groups[strong[k]];
        if (!inside[k])
            out.push_back(Detection{g.mean, g.count, g.best_score, confidence_from_neighbors(g.count)});
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

std::vector<Detection> group_nms(const std::vector<RawWindow>& windows, float iou, int min_neighbors,
                                 GroupingWork* work)
{
    const size_t n = windows.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return windows[a].score > windows[b].score;
    });

    std::vector<Rect> rects;
    for (const RawWindow& w : windows)
        rects.push_back(w.rect);
    /* IoU > t > 0 bounds both sides' ratio (min w > t max w: the overlap
     * is at least t of either side) and puts the corners less than max(w, h)
     * apart, so with windows bucketed by the power of two of max(w, h) in
     * cells of twice that, a kept window finds every window it may absorb
     * in the 3x3 cells around its corner, in the classes within a factor of
     * 1/t of its own. Windows leave their cells once taken, so each kept
     * window only meets windows still open. */
    /* IoU > 0 (nms-iou=0) is any overlap: every class, with as many cells
     * as the window spans; kept windows then do not overlap, so they visit
     * about the frame's area in cells of each class, in all. An IoU of 1
     * or more (or NaN) absorbs nothing; below 0 everything, which the
     * plain loop below does in one pass. */
    const bool absorbs_nothing = !(iou < 1.0f);
    const bool bounded = iou >= 0.0f && iou < 1.0f && positive_sizes(rects);
    auto class_of = [](const Rect& r) {
        int k = 0;
        for (int64_t m = std::max(r.width, r.height); m > 1; m >>= 1)
            ++k;
        return k;
    };
    auto cell_of = [](int k) {
        return int64_t{2} << k;
    }; /* >= max(w, h) of class k, plus one */
    Grid grid;
    std::vector<int> size_class(n, 0);
    if (bounded)
        for (size_t i = 0; i < n; ++i) {
            size_class[i] = class_of(rects[i]);
            grid.add(size_class[i], floor_div(rects[i].x, cell_of(size_class[i])),
                     floor_div(rects[i].y, cell_of(size_class[i])), i);
        }
    /* Classes k with 2^(k+1) > t 2^k1, i.e. within log2(1/t) + 1 of k1. */
    const int reach = !bounded ? 0 : iou > 0.0f ? static_cast<int>(std::ceil(std::log2(1.0 / iou))) + 1 : 64;

    std::vector<size_t> rank(n);
    for (size_t oi = 0; oi < n; ++oi)
        rank[order[oi]] = oi;
    std::vector<bool> absorbed(n, false);
    std::vector<Detection> out;
    auto try_absorb = [&](size_t i, size_t j, Detection& d) {
        if (j == i || absorbed[j] || rank[j] < rank[i])
            return;
        if (work)
            ++work->pairs_tested;
        if (intersection_over_union(rects[i], rects[j]) > iou) {
            absorbed[j] = true;
            ++d.neighbors;
        }
    };
    for (size_t oi = 0; oi < n; ++oi) {
        const size_t i = order[oi];
        if (absorbed[i])
            continue;
        Detection d = single_window_detection(windows[i]);
        if (absorbs_nothing) {
            /* no window's IoU exceeds it */
        } else if (!bounded) {
            for (size_t oj = oi + 1; oj < n; ++oj)
                try_absorb(i, order[oj], d);
        } else {
            /* max(w, h) < 2^31: classes 0 to 30. */
            for (int k = std::max(0, size_class[i] - reach); k <= size_class[i] + reach && k <= 30; ++k) {
                const int64_t c = cell_of(k);
                const int64_t cx = floor_div(rects[i].x, c), cy = floor_div(rects[i].y, c);
                /* The other window's corner is within max(w_i, h_i) of this
                 * one: cells up to that far. */
                const int64_t span = std::max<int64_t>(1, (std::max(rects[i].width, rects[i].height) + c - 1) / c);
                for (int64_t row = cy - span; row <= cy + span; ++row)
                    for (int64_t column = cx - span; column <= cx + span; ++column) {
                        std::vector<size_t>* items = grid.at(k, column, row);
                        if (!items)
                            continue;
                        for (size_t j : *items)
                            try_absorb(i, j, d);
                        /* Taken windows (and those ranked before this one)
                         * never absorb or get absorbed again. */
                        items->erase(std::remove_if(items->begin(), items->end(),
                                                    [&](size_t j) {
                                                        return absorbed[j] || rank[j] <= rank[i];
                                                    }),
                                     items->end());
                    }
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
    case Grouping::Nms: return group_nms(windows, params.nms_iou, params.min_neighbors);
    case Grouping::OpenCv: break;
    }
    return group_opencv(windows, params.min_neighbors);
}

std::vector<Detection> detections_of(const std::vector<RawWindow>& unclipped, const DetectParams& params, Size image)
{
    std::vector<Detection> detections = group_windows(unclipped, params);
    if (params.min_confidence > 0.0f)
        detections.erase(std::remove_if(detections.begin(), detections.end(),
                                        [&](const Detection& d) {
                                            return d.confidence < params.min_confidence;
                                        }),
                         detections.end());
    clip_rects(detections, image);
    return detections;
}
}  // namespace waldboost
