/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Template search: where an object's image fragment (its template) fits best
 * in a new frame, near where it is expected. The score is the sum of
 * absolute differences (SAD) over the template's samples, an integer, so the
 * OpenCL search (core/opencl/search/template_search.h) and this CPU
 * reference find the same position bit for bit.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "core/detection/types.h"

namespace waldboost::tracking {

/* A template holds at most kTemplateSide x kTemplateSide samples: a large
 * object is sampled on a coarser grid, so a search costs the same for a
 * 40-pixel face and a 400-pixel one. 16 rather than 32: it follows faces
 * as well at a quarter of the cost (docs/history.md, "Figures behind the
 * code's choices"). */
constexpr int kTemplateSide = 16;

/* Pixels of a frame on a grid: sample (i, j) is the pixel
 * (x + i * step_x, y + j * step_y). */
struct Template {
    int step_x = 1;
    int step_y = 1;
    int columns = 0;
    int rows = 0;
    std::vector<uint8_t> samples; /* rows x columns, row after row */
    /* Extent of the sampled grid in frame pixels. */
    int span_x() const { return (columns - 1) * step_x + 1; }
    int span_y() const { return (rows - 1) * step_y + 1; }
    bool empty() const { return samples.empty(); }
};

/* The template of `box` clipped to the frame, whose top-left sample is the
 * clipped box's top-left pixel; empty when the box and the frame do not
 * overlap. The grid steps are the box's sides divided by kTemplateSide,
 * rounded up. */
Template sample_template(const GrayView& frame, const Rect& box, Rect* sampled = nullptr);

/* One search: the template's top-left sample is expected at (x, y); the
 * search tries every offset of at most `radius` pixels along each axis at
 * which the whole grid lies in the frame (an exhaustive search: a coarse
 * pass over a point-sampled grid misses textured objects whose offset is
 * not a multiple of the grid step). A tie goes to the smallest offset in
 * row order (dy, then dx). */
struct SearchRequest {
    const Template* appearance = nullptr;
    int x = 0;
    int y = 0;
    int radius = 0;
};

struct SearchResult {
    bool found = false; /* false when no offset keeps the grid in the frame */
    int x = 0;          /* the best position of the top-left sample */
    int y = 0;
    uint32_t sad = 0; /* its sum of absolute differences */
};

/* The searches of one frame; the tracker runs them through this interface
 * so that the CPU reference and the OpenCL device are interchangeable. */
class TemplateSearcher {
public:
    virtual ~TemplateSearcher() = default;
    virtual std::vector<SearchResult> search(const GrayView& frame, const std::vector<SearchRequest>& requests) = 0;
};

/* The CPU reference. */
class ReferenceSearcher final : public TemplateSearcher {
public:
    std::vector<SearchResult> search(const GrayView& frame, const std::vector<SearchRequest>& requests) override;
};

/* The work of a frame's searches: template samples compared, summed over
 * the offsets in range of every request (what search_template() runs). A
 * caller may run small ones on the CPU rather than pay a device's round
 * trip: both give the same results. */
uint64_t search_work(const GrayView& frame, const std::vector<SearchRequest>& requests);

/* One search on the CPU (what ReferenceSearcher runs for each request). */
SearchResult search_template(const GrayView& frame, const SearchRequest& request);

/* The SAD of the template with its top-left sample at (x, y); the grid must
 * lie in the frame. */
uint32_t template_sad(const GrayView& frame, const Template& appearance, int x, int y);

/* The offsets a search tries along one axis (shared with the OpenCL
 * search, so that both try the same positions): those in range keep a grid
 * of `span` pixels starting at `start + offset` inside [0, length) with
 * |offset| <= radius. */
struct AxisRange {
    int lo = 0;
    int hi = 0;
    bool empty() const { return lo > hi; }
};
AxisRange axis_range(int start, int span, int length, int radius);

}  // namespace waldboost::tracking
