/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/reference/detector.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

namespace waldboost {

bool Rect::operator<(const Rect& o) const
{
    return std::tie(x, y, width, height) < std::tie(o.x, o.y, o.width, o.height);
}

/* OpenCV rounds with cvRound: to nearest, ties to even (the FPU default). */
static int round_float(float v) { return static_cast<int>(std::lrint(v)); }
static int round_double(double v) { return static_cast<int>(std::lrint(v)); }

std::vector<ScaleLevel> plan_scales(Size image, const Classifier& classifier, const DetectParams& params)
{
    if (!(params.scale_factor > 1.0) || !std::isfinite(params.scale_factor))
        throw Error("scale factor must be a finite number above 1, not " + std::to_string(params.scale_factor));
    if (params.stride < 0)
        throw Error("stride must be 0 (OpenCV's rule) or a positive number of pixels");

    const Size window{classifier.window_width, classifier.window_height};
    const Size min_size = params.min_size.width > 0 || params.min_size.height > 0 ? params.min_size : window;
    const Size max_size = params.max_size.width > 0 && params.max_size.height > 0 ? params.max_size : image;

    std::vector<ScaleLevel> levels;
    /* The same loop as detectMultiScale: the factor grows in double, the
     * level geometry then uses it as a float. */
    for (double factor = 1.0;; factor *= params.scale_factor) {
        const Size window_at_factor{round_double(window.width * factor), round_double(window.height * factor)};
        if (window_at_factor.width > max_size.width || window_at_factor.height > max_size.height ||
            window_at_factor.width > image.width || window_at_factor.height > image.height)
            break;
        if (window_at_factor.width < min_size.width || window_at_factor.height < min_size.height)
            continue;

        ScaleLevel level;
        level.scale = static_cast<float>(factor);
        level.image_size = {round_float(image.width / level.scale), round_float(image.height / level.scale)};
        level.window_size = {round_float(window.width * level.scale), round_float(window.height * level.scale)};
        if (params.stride == 0) {
            level.step = level.scale >= 2.0f ? 1 : 2;
            level.skip_after_first_stage_rejection = true;
        } else {
            level.step = params.stride;
        }
        levels.push_back(level);
    }
    return levels;
}

int lbp_code(const IntegralImage& integral, int wx, int wy, const LbpFeature& f)
{
    const int x0 = wx + f.x;
    const int y0 = wy + f.y;
    auto block = [&](int col, int row) {
        /* Differences of wrapped sums are exact; the block sum fits easily. */
        return static_cast<int64_t>(
            integral.block_sum(x0 + col * f.block_width, y0 + row * f.block_height, f.block_width, f.block_height));
    };
    const int64_t centre = block(1, 1);
    /* Clockwise from the top-left block, most significant bit first. */
    static constexpr int kCols[8] = {0, 1, 2, 2, 2, 1, 0, 0};
    static constexpr int kRows[8] = {0, 0, 0, 1, 2, 2, 2, 1};
    int code = 0;
    for (int i = 0; i < 8; ++i)
        code = (code << 1) | (block(kCols[i], kRows[i]) >= centre ? 1 : 0);
    return code;
}

WindowResult evaluate_window(const Classifier& classifier, const IntegralImage& integral, int wx, int wy,
                             float final_threshold)
{
    WindowResult result;
    /* double, as OpenCV sums the float responses. */
    double sum = 0.0;
    double last_sum = 0.0;
    bool first_test = true;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        const WeakClassifier& weak = classifier.weak[t];
        sum += weak.responses[lbp_code(integral, wx, wy, weak.feature)];
        ++result.weak_evaluated;
        last_sum = sum;
        if (weak.reject_threshold != kNoRejection) {
            if (sum < weak.reject_threshold) {
                result.rejected_at = t;
                result.rejected_in_first_stage = first_test;
                result.score = sum;
                return result;
            }
            first_test = false;
        }
        if (weak.reset_sum_after)
            sum = 0.0;
    }
    result.rejected_at = classifier.weak.size();
    result.score = last_sum;
    result.accepted = last_sum >= final_threshold;
    return result;
}

std::vector<RawWindow> detect_level(const Classifier& classifier, const GrayView& scaled, const ScaleLevel& level,
                                    int level_index, const DetectParams& params, DetectStats* stats)
{
    std::vector<RawWindow> windows;
    const int positions_x = scaled.width - classifier.window_width + 1;
    const int positions_y = scaled.height - classifier.window_height + 1;
    if (positions_x <= 0 || positions_y <= 0)
        return windows;

    const IntegralImage integral = integral_image(scaled);
    const float final_threshold = params.final_threshold.value_or(classifier.final_threshold);
    for (int y = 0; y < positions_y; y += level.step) {
        for (int x = 0; x < positions_x; x += level.step) {
            const WindowResult r = evaluate_window(classifier, integral, x, y, final_threshold);
            if (stats) {
                ++stats->windows;
                stats->weak_evaluated += static_cast<uint64_t>(r.weak_evaluated);
            }
            if (r.accepted) {
                RawWindow w;
                w.rect = {round_float(x * level.scale), round_float(y * level.scale), level.window_size.width,
                          level.window_size.height};
                w.level = level_index;
                w.x = x;
                w.y = y;
                w.score = static_cast<float>(r.score - final_threshold);
                windows.push_back(w);
                if (stats)
                    ++stats->accepted;
            }
            if (level.skip_after_first_stage_rejection && r.rejected_in_first_stage)
                x += level.step;
        }
    }
    return windows;
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

std::vector<RawWindow> detect_raw(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                  DetectStats* stats)
{
    std::vector<RawWindow> all;
    const std::vector<ScaleLevel> levels = plan_scales({image.width, image.height}, classifier, params);
    for (size_t i = 0; i < levels.size(); ++i) {
        const GrayImage scaled = resize_bilinear(image, levels[i].image_size);
        std::vector<RawWindow> found = detect_level(classifier, scaled.view(), levels[i], static_cast<int>(i), params, stats);
        all.insert(all.end(), found.begin(), found.end());
    }
    clip_windows(all, {image.width, image.height});
    return all;
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
        g.mean = {round_float(static_cast<float>(g.x) * s), round_float(static_cast<float>(g.y) * s),
                  round_float(static_cast<float>(g.w) * s), round_float(static_cast<float>(g.h) * s)};
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
            const int dx = round_double(r2.width * eps);
            const int dy = round_double(r2.height * eps);
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

std::vector<Detection> detect(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                              DetectStats* stats)
{
    return group_windows(detect_raw(classifier, image, params, stats), params);
}

}  // namespace waldboost
