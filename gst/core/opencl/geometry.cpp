/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace waldboost::opencl {

Geometry make_geometry(Size size, const Classifier& classifier, const DetectParams& params, bool band_layout)
{
    Geometry g;
    g.image = size;
    g.scale_factor = params.scale_factor;
    g.min_size = params.min_size;
    g.max_size = params.max_size;
    g.stride = params.stride;
    g.levels = plan_scales(size, classifier, params);
    if (g.levels.empty())
        return g;

    /* Shelf packing: levels left to right, a new shelf when one is full. */
    g.canvas_width = g.levels.front().image_size.width;
    int x = 0, y = 0, shelf_height = 0;
    std::vector<std::pair<int, int>> placement;
    std::vector<int> shelf_of_level, shelf_top;
    for (const ScaleLevel& level : g.levels) {
        if (x + level.image_size.width > g.canvas_width) {
            x = 0;
            y += shelf_height;
            shelf_height = 0;
        }
        if (x == 0)
            shelf_top.push_back(y);
        placement.emplace_back(x, y);
        shelf_of_level.push_back(static_cast<int>(shelf_top.size()) - 1);
        x += level.image_size.width;
        shelf_height = std::max(shelf_height, level.image_size.height);
    }
    g.canvas_height = y + shelf_height;
    if (band_layout) {
        /* Row pitch a multiple of 32 values (128 bytes) with room for the
         * last item's 4 columns; column 1 of row 0 at value 4. */
        g.integral_origin = 3;
        g.integral_pitch = static_cast<int>(round_up(static_cast<size_t>(g.canvas_width) + 4, 32));
    } else {
        g.integral_pitch = g.canvas_width + 1;
    }
    const auto too_large = [&](const std::string& what) {
        return Error(ErrorKind::FrameTooLarge,
                     "a frame of " + std::to_string(size.width) + "x" + std::to_string(size.height) + " has " + what +
                         ", beyond the OpenCL engine's 32-bit indices: raise the scale factor, the minimum size or "
                         "the stride, or scale the frame down");
    };
    /* Before any offset into the canvas or the integral image is computed
     * in 32 bits (the canvas is smaller than the integral image). */
    const uint64_t integral_size =
        static_cast<uint64_t>(g.integral_origin) + static_cast<uint64_t>(g.integral_pitch) * (g.canvas_height + 1);
    if (integral_size > std::numeric_limits<cl_int>::max())
        throw too_large("a pyramid of " + std::to_string(integral_size) + " integral-image values (at most 2^31)");
    g.row_shelf.resize(static_cast<size_t>(g.canvas_height));
    for (size_t s = 0; s < shelf_top.size(); ++s) {
        const int end = s + 1 < shelf_top.size() ? shelf_top[s + 1] : g.canvas_height;
        std::fill(g.row_shelf.begin() + shelf_top[s], g.row_shelf.begin() + end, static_cast<cl_int>(s));
    }
    g.level_map.assign(shelf_top.size() * static_cast<size_t>(g.canvas_width), -1);
    for (size_t i = 0; i < g.levels.size(); ++i) {
        const size_t row = static_cast<size_t>(shelf_of_level[i]) * g.canvas_width;
        std::fill(g.level_map.begin() + row + placement[i].first,
                  g.level_map.begin() + row + placement[i].first + g.levels[i].image_size.width,
                  static_cast<cl_int>(i));
    }

    uint64_t positions = 0, rows = 0, scan_rows = 0;
    for (size_t i = 0; i < g.levels.size(); ++i) {
        const ScaleLevel& level = g.levels[i];
        const auto [cx, cy] = placement[i];
        shared::ResizeLevel r{};
        r.first = static_cast<cl_uint>(rows);
        r.width = level.image_size.width;
        r.height = level.image_size.height;
        r.canvas_offset = cy * g.canvas_width + cx;
        r.canvas_x = cx;
        r.canvas_y = cy;
        r.xtap = static_cast<cl_int>(g.taps.size());
        for (const LinearTap& t : linear_taps(size.width, level.image_size.width))
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        r.ytap = static_cast<cl_int>(g.taps.size());
        for (const LinearTap& t : linear_taps(size.height, level.image_size.height))
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        g.resize_levels.push_back(r);
        rows += static_cast<uint64_t>(r.height);

        const int span_x = level.image_size.width - classifier.window_width + 1;
        const int span_y = level.image_size.height - classifier.window_height + 1;
        if (span_x <= 0 || span_y <= 0)
            continue;
        shared::ScanLevel s{};
        s.first = static_cast<cl_uint>(positions);
        s.columns = (span_x + level.step - 1) / level.step;
        s.rows = (span_y + level.step - 1) / level.step;
        s.step = level.step;
        s.origin = g.integral_origin + cy * g.integral_pitch + cx;
        s.skip_rule = level.skip_after_first_stage_rejection ? 1 : 0;
        s.first_row = static_cast<cl_int>(scan_rows);
        scan_rows += static_cast<uint64_t>(s.rows);
        g.scan_levels.push_back(s);
        g.scan_to_level.push_back(static_cast<int>(i));
        positions += static_cast<uint64_t>(s.columns) * static_cast<uint64_t>(s.rows);
    }
    if (band_layout) {
        /* A level at (cx, cy) of size w x h reads integral rows cy to cy + h,
         * columns up to cx + w: integral row y + 1 is canvas row y's. */
        g.row_widths.assign(static_cast<size_t>(g.canvas_height), 0);
        for (size_t i = 0; i < g.levels.size(); ++i) {
            const auto [cx, cy] = placement[i];
            const int right = static_cast<int>(round_up(static_cast<size_t>(cx + g.levels[i].image_size.width), 4));
            for (int row = std::max(cy - 1, 0); row < cy + g.levels[i].image_size.height; ++row)
                g.row_widths[static_cast<size_t>(row)] = std::max(g.row_widths[static_cast<size_t>(row)], right);
        }
    }
    if (positions > std::numeric_limits<cl_uint>::max() / 2)
        throw too_large(std::to_string(positions) + " window positions (at most 2^31)");
    g.pyramid_rows = static_cast<cl_uint>(rows);
    g.positions = static_cast<cl_uint>(positions);
    g.scan_rows = static_cast<cl_uint>(scan_rows);
    return g;
}

RawWindow window_at(const Geometry& g, cl_uint index, float score)
{
    const auto it = std::upper_bound(g.scan_levels.begin(), g.scan_levels.end(), index,
                                     [](cl_uint i, const shared::ScanLevel& s) { return i < s.first; });
    const size_t scan = static_cast<size_t>(it - g.scan_levels.begin()) - 1;
    const shared::ScanLevel& s = g.scan_levels[scan];
    const int level_index = g.scan_to_level[scan];
    const ScaleLevel& level = g.levels[static_cast<size_t>(level_index)];
    const int local = static_cast<int>(index - s.first);
    RawWindow w;
    w.level = level_index;
    w.x = (local % s.columns) * s.step;
    w.y = (local / s.columns) * s.step;
    w.rect = {cv_round(static_cast<float>(w.x) * level.scale), cv_round(static_cast<float>(w.y) * level.scale),
              level.window_size.width, level.window_size.height};
    w.score = score;
    return w;
}

std::vector<cl_int> group_first_levels(const Geometry& g, int group_size)
{
    const size_t groups = (g.positions + static_cast<size_t>(group_size) - 1) / static_cast<size_t>(group_size);
    std::vector<cl_int> levels(groups, 0);
    for (size_t i = 0; i < groups; ++i) {
        const cl_uint first = static_cast<cl_uint>(i * static_cast<size_t>(group_size));
        const auto it = std::upper_bound(g.scan_levels.begin(), g.scan_levels.end(), first,
                                         [](cl_uint index, const shared::ScanLevel& s) { return index < s.first; });
        levels[i] = static_cast<cl_int>(it - g.scan_levels.begin()) - 1;
    }
    return levels;
}

size_t integral_buffer_values(const Geometry& g)
{
    /* The row scan reads 16 windows' corners at once, up to 16 steps past a
     * row's last window (31 values at step 2). */
    int max_step = 1;
    for (const shared::ScanLevel& s : g.scan_levels)
        max_step = std::max(max_step, static_cast<int>(s.step));
    const size_t padding = SCAN_LANES * (static_cast<size_t>(max_step) + 1);
    return static_cast<size_t>(g.integral_origin) +
           static_cast<size_t>(g.integral_pitch) * (static_cast<size_t>(g.canvas_height) + 1) + padding;
}

int canvas_pitch(const Geometry& g, bool band_layout)
{
    return band_layout ? static_cast<int>(round_up(static_cast<size_t>(g.canvas_width), 4)) : g.canvas_width;
}

}  // namespace waldboost::opencl
