/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/geometry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace waldboost::opencl {

namespace {

/* What passed the engine's 32-bit indices, for FrameTooLarge messages. */
struct TooLarge {
    std::string subject; /* "a frame of WxH", "a batch of N frames" */
    std::string remedy;

    Error operator()(const std::string& what) const
    {
        return Error(ErrorKind::FrameTooLarge,
                     subject + " has " + what + ", beyond the OpenCL engine's 32-bit indices: " + remedy);
    }
};

const char* const kFrameRemedy = "raise the scale factor, the minimum size or the stride, or scale the frame down";

/* The integral image's layout for g.canvas_width. */
void set_integral_layout(Geometry& g, bool band_layout)
{
    if (band_layout) {
        /* Row pitch a multiple of 32 values (128 bytes) with room for the
         * last item's 4 columns; column 1 of row 0 at value 4. */
        g.integral_origin = 3;
        g.integral_pitch = static_cast<int>(round_up(static_cast<size_t>(g.canvas_width) + 4, 32));
    } else {
        g.integral_origin = 0;
        g.integral_pitch = g.canvas_width + 1;
    }
}

/* Before any offset into the canvas or the integral image is computed in
 * 32 bits (the canvas is smaller than the integral image). canvas_height
 * in 64 bits: a batch's stack may not fit an int. */
void check_integral_size(const Geometry& g, uint64_t canvas_height, const TooLarge& too_large)
{
    const uint64_t integral_size =
        static_cast<uint64_t>(g.integral_origin) + static_cast<uint64_t>(g.integral_pitch) * (canvas_height + 1);
    if (integral_size > static_cast<uint64_t>(std::numeric_limits<cl_int>::max()))
        throw too_large("a pyramid of " + std::to_string(integral_size) + " integral-image values (at most 2^31)");
}

void check_positions(uint64_t positions, const TooLarge& too_large)
{
    if (positions > std::numeric_limits<cl_uint>::max() / 2)
        throw too_large(std::to_string(positions) + " window positions (at most 2^31)");
}

/* level_map from the levels' places and row_shelf (a level's top row is
 * its shelf's). */
void fill_level_map(Geometry& g)
{
    const size_t shelves = g.row_shelf.empty() ? 0 : static_cast<size_t>(g.row_shelf.back()) + 1;
    g.level_map.assign(shelves * static_cast<size_t>(g.canvas_width), -1);
    for (size_t i = 0; i < g.resize_levels.size(); ++i) {
        const shared::ResizeLevel& r = g.resize_levels[i];
        const size_t row = static_cast<size_t>(g.row_shelf[static_cast<size_t>(r.canvas_y)]) * g.canvas_width;
        std::fill(g.level_map.begin() + row + r.canvas_x, g.level_map.begin() + row + r.canvas_x + r.width,
                  static_cast<cl_int>(i));
    }
}

/* A level at (cx, cy) of size w x h reads integral rows cy to cy + h,
 * columns up to cx + w: integral row y + 1 is canvas row y's. */
void fill_row_widths(Geometry& g, bool band_layout)
{
    g.row_widths.clear();
    if (!band_layout)
        return;
    g.row_widths.assign(static_cast<size_t>(g.canvas_height), 0);
    for (const shared::ResizeLevel& r : g.resize_levels) {
        const int right = static_cast<int>(round_up(static_cast<size_t>(r.canvas_x + r.width), 4));
        for (int row = std::max(r.canvas_y - 1, 0); row < r.canvas_y + r.height; ++row)
            g.row_widths[static_cast<size_t>(row)] = std::max(g.row_widths[static_cast<size_t>(row)], right);
    }
}

}  // namespace

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
    std::vector<int> shelf_top;
    for (const ScaleLevel& level : g.levels) {
        if (x + level.image_size.width > g.canvas_width) {
            x = 0;
            y += shelf_height;
            shelf_height = 0;
        }
        if (x == 0)
            shelf_top.push_back(y);
        placement.emplace_back(x, y);
        x += level.image_size.width;
        shelf_height = std::max(shelf_height, level.image_size.height);
    }
    g.canvas_height = y + shelf_height;
    set_integral_layout(g, band_layout);
    const TooLarge too_large{"a frame of " + std::to_string(size.width) + "x" + std::to_string(size.height),
                             kFrameRemedy};
    check_integral_size(g, static_cast<uint64_t>(g.canvas_height), too_large);
    g.row_shelf.resize(static_cast<size_t>(g.canvas_height));
    for (size_t s = 0; s < shelf_top.size(); ++s) {
        const int end = s + 1 < shelf_top.size() ? shelf_top[s + 1] : g.canvas_height;
        std::fill(g.row_shelf.begin() + shelf_top[s], g.row_shelf.begin() + end, static_cast<cl_int>(s));
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
        r.copy = level.image_size.width == size.width && level.image_size.height == size.height ? 1 : 0;
        r.xtap = static_cast<cl_int>(g.taps.size());
        for (LinearTap t : linear_taps(size.width, level.image_size.width)) {
            /* The right border's tap, (last, last) with no weight on the
             * second, as (last - 1, last) with all of it there: the same
             * pixel, and every column tap's second index its first plus one,
             * which the CPU pyramid loads as one pair (kernels/pyramid.cl). */
            if (t.index1 == t.index0 && t.index0 > 0)
                t = {t.index0 - 1, t.index0, 0, 256};
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        }
        r.ytap = static_cast<cl_int>(g.taps.size());
        for (const LinearTap& t : linear_taps(size.height, level.image_size.height))
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        g.resize_levels.push_back(r);
        rows += static_cast<uint64_t>(r.height);

        const int span_x = level.image_size.width - classifier.window_width + 1;
        const int span_y = std::min(level.image_size.height - classifier.window_height + 1, level.scan_height);
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
    fill_level_map(g);
    fill_row_widths(g, band_layout);
    check_positions(positions, too_large);
    g.pyramid_rows = static_cast<cl_uint>(rows);
    g.positions = static_cast<cl_uint>(positions);
    g.scan_rows = static_cast<cl_uint>(scan_rows);
    return g;
}

namespace {

/* The sums and maxima of a stack of frames that its 32-bit limits depend on. */
struct StackSizes {
    int source_pitch = 0, canvas_width = 0;
    uint64_t source_rows = 0, canvas_rows = 0, positions = 0;
    size_t level_count = 0;
};

StackSizes stack_sizes(const std::vector<std::shared_ptr<const Geometry>>& members)
{
    StackSizes s;
    for (const auto& m : members) {
        s.source_pitch = std::max(s.source_pitch, m->image.width);
        s.source_rows += static_cast<uint64_t>(m->image.height);
        s.canvas_width = std::max(s.canvas_width, m->canvas_width);
        s.canvas_rows += static_cast<uint64_t>(m->canvas_height);
        s.positions += m->positions;
        s.level_count += m->levels.size();
    }
    return s;
}

}  // namespace

bool batch_fits(const std::vector<std::shared_ptr<const Geometry>>& members, bool band_layout)
{
    if (members.empty() || members.size() > static_cast<size_t>(kMaxBatchMembers))
        return false;
    const StackSizes stack = stack_sizes(members);
    Geometry layout;
    layout.canvas_width = stack.canvas_width;
    set_integral_layout(layout, band_layout);
    const uint64_t limit = static_cast<uint64_t>(std::numeric_limits<cl_int>::max());
    const uint64_t integral = static_cast<uint64_t>(layout.integral_origin) +
                              static_cast<uint64_t>(layout.integral_pitch) * (stack.canvas_rows + 1);
    return stack.source_rows * static_cast<uint64_t>(stack.source_pitch) <= limit &&
           (stack.level_count == 0 || integral <= limit) && stack.positions <= std::numeric_limits<cl_uint>::max() / 2;
}

BatchGeometry combine_geometries(const std::vector<std::shared_ptr<const Geometry>>& members, bool band_layout)
{
    if (members.empty() || members.size() > static_cast<size_t>(kMaxBatchMembers))
        throw std::logic_error("a batch holds 1 to " + std::to_string(kMaxBatchMembers) + " frames, not " +
                               std::to_string(members.size()));
    BatchGeometry b;
    b.members = members;
    Geometry& c = b.combined;
    /* Not used for launches: each member keeps its own. */
    c.scale_factor = members.front()->scale_factor;
    c.min_size = members.front()->min_size;
    c.max_size = members.front()->max_size;
    c.stride = members.front()->stride;

    /* The stack's sizes first: every 32-bit check before any offset. */
    for (const auto& m : members) {
        if (!m)
            throw std::logic_error("a batch member without a geometry");
        if (!m->levels.empty() && m->row_widths.empty() == band_layout)
            throw std::logic_error("a batch member of the other pyramid layout");
    }
    const StackSizes stack = stack_sizes(members);
    b.source_pitch = stack.source_pitch;
    c.canvas_width = stack.canvas_width;
    const uint64_t source_rows = stack.source_rows, canvas_rows = stack.canvas_rows, positions = stack.positions;
    const TooLarge too_large{"a batch of " + std::to_string(members.size()) + " frames",
                             std::string("batch fewer frames, or ") + kFrameRemedy};
    /* The kernels index the source as row * src_pitch in an int. */
    const uint64_t source_size = source_rows * static_cast<uint64_t>(b.source_pitch);
    if (source_size > static_cast<uint64_t>(std::numeric_limits<cl_int>::max()))
        throw too_large("a source of " + std::to_string(source_size) + " bytes (at most 2^31)");
    c.image = {b.source_pitch, static_cast<int>(source_rows)};
    if (stack.level_count > 0) {
        set_integral_layout(c, band_layout);
        check_integral_size(c, canvas_rows, too_large);
    }
    check_positions(positions, too_large);
    c.canvas_height = static_cast<int>(canvas_rows);

    /* Where member m starts in each index space: the sums over those before. */
    int source_row = 0, canvas_row = 0, shelves = 0;
    cl_uint first_position = 0, pyramid_rows = 0, scan_rows = 0;
    for (size_t m = 0; m < members.size(); ++m) {
        const Geometry& g = *members[m];
        b.first_position.push_back(first_position);
        b.positions.push_back(g.positions);
        b.source_offset.push_back(static_cast<size_t>(source_row) * static_cast<size_t>(b.source_pitch));

        const int levels_before = static_cast<int>(c.levels.size());
        const cl_int taps_before = static_cast<cl_int>(c.taps.size());
        c.levels.insert(c.levels.end(), g.levels.begin(), g.levels.end());
        c.taps.insert(c.taps.end(), g.taps.begin(), g.taps.end());
        for (shared::ResizeLevel r : g.resize_levels) {
            r.first += pyramid_rows;
            r.canvas_y += canvas_row;
            r.canvas_offset = r.canvas_y * c.canvas_width + r.canvas_x;
            r.xtap += taps_before;
            r.ytap += taps_before;
            /* The kernels read src + row * src_pitch: y taps move to the
             * member's rows, x taps stay. make_geometry gives every level
             * taps of its own, so none is moved twice. */
            for (int y = 0; y < r.height; ++y) {
                cl_int4& t = c.taps[static_cast<size_t>(r.ytap + y)];
                t.s[0] += source_row;
                t.s[1] += source_row;
            }
            c.resize_levels.push_back(r);
        }
        for (const cl_int shelf : g.row_shelf)
            c.row_shelf.push_back(shelf + shelves);
        for (size_t k = 0; k < g.scan_levels.size(); ++k) {
            shared::ScanLevel s = g.scan_levels[k];
            const int level = g.scan_to_level[k] + levels_before;
            const shared::ResizeLevel& r = c.resize_levels[static_cast<size_t>(level)];
            s.first += first_position;
            s.origin = c.integral_origin + r.canvas_y * c.integral_pitch + r.canvas_x;
            s.first_row += static_cast<cl_int>(scan_rows);
            s.frame = static_cast<cl_int>(m);
            c.scan_levels.push_back(s);
            c.scan_to_level.push_back(level);
        }

        source_row += g.image.height;
        canvas_row += g.canvas_height;
        shelves += g.row_shelf.empty() ? 0 : g.row_shelf.back() + 1;
        first_position += g.positions;
        pyramid_rows += g.pyramid_rows;
        scan_rows += g.scan_rows;
    }
    /* Rebuilt, not concatenated: level_map for the combined width, and the
     * canvas row above a member's first shelf (the previous member's last)
     * must be written as wide as that shelf reads its top integral row. */
    fill_level_map(c);
    fill_row_widths(c, band_layout);
    c.pyramid_rows = pyramid_rows;
    c.positions = first_position;
    c.scan_rows = scan_rows;
    return b;
}

size_t batch_member_of(const BatchGeometry& batch, cl_uint index)
{
    /* The last member starting at or before index: a member with no
     * positions shares its start with the next one, so is never it. */
    const auto it = std::upper_bound(batch.first_position.begin(), batch.first_position.end(), index);
    const size_t member = static_cast<size_t>(it - batch.first_position.begin());
    if (member == 0 || index - batch.first_position[member - 1] >= batch.positions[member - 1])
        throw std::out_of_range("scan index " + std::to_string(index) + " is past the batch's " +
                                std::to_string(batch.combined.positions) + " positions");
    return member - 1;
}

RawWindow window_at(const Geometry& g, cl_uint index, float score)
{
    const auto it =
        std::upper_bound(g.scan_levels.begin(), g.scan_levels.end(), index, [](cl_uint i, const shared::ScanLevel& s) {
            return i < s.first;
        });
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
                                         [](cl_uint index, const shared::ScanLevel& s) {
                                             return index < s.first;
                                         });
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

int rows_band_count(const Geometry& g) { return (g.canvas_height + ROWS_INTEGRAL_BAND - 1) / ROWS_INTEGRAL_BAND; }

int rows_band_pitch(const Geometry& g, bool squares) { return 1 + g.canvas_width * (squares ? 2 : 1); }

}  // namespace waldboost::opencl
