/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/tracking/template_search.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>

namespace waldboost::tracking {

namespace {

int ceil_div(int a, int b) { return (a + b - 1) / b; }

struct Best {
    bool found = false;
    int dx = 0, dy = 0;
    uint32_t sad = 0;
    /* Lower SAD wins; a tie goes to the smaller offset in row order. */
    void offer(int x, int y, uint32_t s)
    {
        if (!found || s < sad || (s == sad && (y < dy || (y == dy && x < dx)))) {
            found = true;
            dx = x;
            dy = y;
            sad = s;
        }
    }
};

/* template_sad(), but it stops once the sum exceeds `bound` and returns
 * that partial sum: such an offset can neither beat nor tie the best so
 * far, so the search's winner is the same as with every sum complete. */
uint32_t sad_up_to(const GrayView& frame, const Template& t, int x, int y, uint32_t bound)
{
    uint32_t sad = 0;
    for (int j = 0; j < t.rows && sad <= bound; ++j) {
        const uint8_t* row = frame.row(y + j * t.step_y);
        const uint8_t* samples = t.samples.data() + static_cast<size_t>(j) * t.columns;
        for (int i = 0; i < t.columns; ++i)
            sad += static_cast<uint32_t>(std::abs(int{row[x + i * t.step_x]} - int{samples[i]}));
    }
    return sad;
}

}  // namespace

Template sample_template(const GrayView& frame, const Rect& box, Rect* sampled)
{
    const int x0 = std::max(box.x, 0), y0 = std::max(box.y, 0);
    const int x1 = std::min(box.x + box.width, frame.width), y1 = std::min(box.y + box.height, frame.height);
    Template t;
    if (x1 <= x0 || y1 <= y0)
        return t;
    const int w = x1 - x0, h = y1 - y0;
    t.step_x = ceil_div(w, kTemplateSide);
    t.step_y = ceil_div(h, kTemplateSide);
    t.columns = ceil_div(w, t.step_x);
    t.rows = ceil_div(h, t.step_y);
    t.samples.resize(static_cast<size_t>(t.columns) * t.rows);
    for (int j = 0; j < t.rows; ++j)
        for (int i = 0; i < t.columns; ++i)
            t.samples[static_cast<size_t>(j) * t.columns + i] = frame.at(x0 + i * t.step_x, y0 + j * t.step_y);
    if (sampled)
        *sampled = Rect{x0, y0, w, h};
    return t;
}

uint32_t template_sad(const GrayView& frame, const Template& t, int x, int y)
{
    uint32_t sad = 0;
    for (int j = 0; j < t.rows; ++j) {
        const uint8_t* row = frame.row(y + j * t.step_y);
        const uint8_t* samples = t.samples.data() + static_cast<size_t>(j) * t.columns;
        for (int i = 0; i < t.columns; ++i)
            sad += static_cast<uint32_t>(std::abs(int{row[x + i * t.step_x]} - int{samples[i]}));
    }
    return sad;
}

uint64_t search_work(const GrayView& frame, const std::vector<SearchRequest>& requests)
{
    uint64_t work = 0;
    for (const SearchRequest& r : requests) {
        const Template* t = r.appearance;
        if (!t || t->empty() || t->step_x < 1 || t->step_y < 1 || t->columns < 1 || t->rows < 1)
            continue;
        const AxisRange rx = axis_range(r.x, t->span_x(), frame.width, r.radius);
        const AxisRange ry = axis_range(r.y, t->span_y(), frame.height, r.radius);
        if (!rx.empty() && !ry.empty())
            work += uint64_t{t->samples.size()} * static_cast<uint64_t>(int64_t{rx.hi} - rx.lo + 1) *
                    static_cast<uint64_t>(int64_t{ry.hi} - ry.lo + 1);
    }
    return work;
}

AxisRange axis_range(int start, int span, int length, int radius)
{
    return AxisRange{std::max(-radius, -start), std::min(radius, length - span - start)};
}

SearchResult search_template(const GrayView& frame, const SearchRequest& request)
{
    SearchResult result;
    const Template* t = request.appearance;
    /* Templates come from sample_template(); one whose fields disagree
     * (made by hand) is never found rather than read out of bounds. */
    if (!t || t->empty() || t->step_x < 1 || t->step_y < 1 || t->columns < 1 || t->rows < 1 ||
        t->samples.size() != static_cast<size_t>(t->columns) * static_cast<size_t>(t->rows))
        return result;
    const AxisRange rx = axis_range(request.x, t->span_x(), frame.width, request.radius);
    const AxisRange ry = axis_range(request.y, t->span_y(), frame.height, request.radius);
    if (rx.empty() || ry.empty())
        return result;
    Best best;
    /* The expected position first: the best is usually near it, so its SAD
     * lets most other offsets stop after a few rows, which makes a search on
     * real video much faster (docs/history.md, "Figures behind the code's
     * choices"). Offer() keeps the tie rule. */
    const bool expected_in_range = rx.lo <= 0 && 0 <= rx.hi && ry.lo <= 0 && 0 <= ry.hi;
    if (expected_in_range)
        best.offer(0, 0, template_sad(frame, *t, request.x, request.y));
    for (int dy = ry.lo; dy <= ry.hi; ++dy)
        for (int dx = rx.lo; dx <= rx.hi; ++dx) {
            if (expected_in_range && dx == 0 && dy == 0)
                continue;
            const uint32_t bound = best.found ? best.sad : UINT32_MAX;
            best.offer(dx, dy, sad_up_to(frame, *t, request.x + dx, request.y + dy, bound));
        }
    result.found = true;
    result.x = request.x + best.dx;
    result.y = request.y + best.dy;
    result.sad = best.sad;
    return result;
}

std::vector<SearchResult> ReferenceSearcher::search(const GrayView& frame, const std::vector<SearchRequest>& requests)
{
    std::vector<SearchResult> results;
    results.reserve(requests.size());
    for (const SearchRequest& r : requests)
        results.push_back(search_template(frame, r));
    return results;
}

}  // namespace waldboost::tracking
