/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's parts on their own: the frame geometry (pure arithmetic,
 * checked against plan_scales and its own invariants), the classifier
 * packing (checked against the model), and the kernels' parameter lists
 * the host binds by name (checked against the OpenCL compiler's own
 * argument information, on the device "auto" picks: PoCL in CI).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/features/feature_kinds.h"
#include "core/opencl/engine/geometry.h"
#include "core/opencl/device/kernel_args.h"
#include "core/opencl/search/template_search.h"
#include "core/training/opencl/training_histograms.h"
#include "core/opencl/engine/tuning_cache.h"
#include "test_support.h"

using namespace waldboost;
using waldboost_test::lbp;
using waldboost_test::lbp_table;
using namespace waldboost::opencl;

namespace {

struct GeometryCase {
    Size size;
    double scale_factor;
    int stride;
    bool band_layout;
};

const GeometryCase kGeometryCases[] = {
    {{640, 480}, 1.1, 0, true},     {{640, 480}, 1.1, 0, false}, {{1920, 1080}, 1.1, 0, true},
    {{1920, 1080}, 1.25, 3, false}, {{333, 97}, 1.05, 1, true},  {{24, 24}, 1.1, 0, true},
    {{25, 400}, 1.2, 2, false},
};

}  // namespace

TEST(Geometry, LevelsArePackedInsideTheCanvasWithoutOverlap)
{
    const Classifier& classifier = default_classifier();
    for (const GeometryCase& c : kGeometryCases) {
        DetectParams params;
        params.scale_factor = c.scale_factor;
        params.stride = c.stride;
        const Geometry g = make_geometry(c.size, classifier, params, c.band_layout);
        const std::vector<ScaleLevel> levels = plan_scales(c.size, classifier, params);
        ASSERT_EQ(g.resize_levels.size(), levels.size());
        std::vector<int> owner(static_cast<size_t>(g.canvas_width) * g.canvas_height, -1);
        uint32_t rows = 0;
        for (size_t i = 0; i < levels.size(); ++i) {
            const shared::ResizeLevel& r = g.resize_levels[i];
            EXPECT_EQ(r.width, levels[i].image_size.width);
            EXPECT_EQ(r.height, levels[i].image_size.height);
            EXPECT_EQ(r.first, rows);
            EXPECT_EQ(r.canvas_offset, r.canvas_y * g.canvas_width + r.canvas_x);
            rows += static_cast<uint32_t>(r.height);
            ASSERT_GE(r.canvas_x, 0);
            ASSERT_LE(r.canvas_x + r.width, g.canvas_width);
            ASSERT_LE(r.canvas_y + r.height, g.canvas_height);
            for (int y = r.canvas_y; y < r.canvas_y + r.height; ++y) {
                for (int x = r.canvas_x; x < r.canvas_x + r.width; ++x) {
                    int& o = owner[static_cast<size_t>(y) * g.canvas_width + x];
                    ASSERT_EQ(o, -1) << "levels " << o << " and " << i << " overlap";
                    o = static_cast<int>(i);
                }
                if (c.band_layout) {
                    /* The GPU pass finds a pixel's level through its shelf. */
                    const int shelf = g.row_shelf[static_cast<size_t>(y)];
                    for (int x = r.canvas_x; x < r.canvas_x + r.width; ++x)
                        ASSERT_EQ(g.level_map[static_cast<size_t>(shelf) * g.canvas_width + x], static_cast<int>(i));
                    /* Integral row y + 1 is written as far as the level reads. */
                    ASSERT_GE(g.row_widths[static_cast<size_t>(y)], r.canvas_x + r.width);
                }
            }
        }
        EXPECT_EQ(g.pyramid_rows, rows);
        if (c.band_layout && !levels.empty()) {
            /* Column 1 of every integral row on a 16-byte boundary. */
            EXPECT_EQ((g.integral_origin + 1) % 4, 0);
            EXPECT_EQ(g.integral_pitch % 32, 0);
            EXPECT_GE(g.integral_pitch, g.canvas_width + 1);
        }
    }
}

TEST(Geometry, ScanIndicesDecodeToTheReferencesWindowPositions)
{
    const Classifier& classifier = default_classifier();
    for (const GeometryCase& c : kGeometryCases) {
        DetectParams params;
        params.scale_factor = c.scale_factor;
        params.stride = c.stride;
        const Geometry g = make_geometry(c.size, classifier, params, c.band_layout);
        const std::vector<ScaleLevel> levels = plan_scales(c.size, classifier, params);
        /* The reference scans x = 0, step, ... while the window fits. */
        uint32_t index = 0;
        size_t scanned = 0;
        for (size_t l = 0; l < levels.size(); ++l) {
            const ScaleLevel& level = levels[l];
            const int span_x = level.image_size.width - classifier.window_width + 1;
            const int span_y = level.image_size.height - classifier.window_height + 1;
            if (span_x <= 0 || span_y <= 0)
                continue;
            const shared::ScanLevel& s = g.scan_levels.at(scanned);
            EXPECT_EQ(g.scan_to_level[scanned], static_cast<int>(l));
            EXPECT_EQ(s.first, index);
            EXPECT_EQ(s.step, level.step);
            ++scanned;
            for (int y = 0; y < span_y; y += level.step) {
                for (int x = 0; x < span_x; x += level.step, ++index) {
                    if (index % 97 != 0 && x != 0 && y != 0 && x + level.step < span_x)
                        continue; /* a sample, edges always */
                    const RawWindow w = window_at(g, index, 1.5f);
                    ASSERT_EQ(w.level, static_cast<int>(l));
                    ASSERT_EQ(w.x, x);
                    ASSERT_EQ(w.y, y);
                    ASSERT_EQ(w.rect.x, cv_round(static_cast<float>(x) * level.scale));
                    ASSERT_EQ(w.rect.y, cv_round(static_cast<float>(y) * level.scale));
                    ASSERT_EQ(w.rect.width, level.window_size.width);
                    ASSERT_EQ(w.score, 1.5f);
                }
            }
        }
        EXPECT_EQ(g.scan_levels.size(), scanned);
        EXPECT_EQ(g.positions, index);

        /* Every step-1 group starts in the level that holds its first window. */
        const std::vector<cl_int> group_levels = group_first_levels(g, 64);
        EXPECT_EQ(group_levels.size(), (g.positions + 63) / 64);
        for (size_t i = 0; i < group_levels.size(); ++i) {
            const shared::ScanLevel& s = g.scan_levels[static_cast<size_t>(group_levels[i])];
            const uint32_t first = static_cast<uint32_t>(i * 64);
            ASSERT_LE(s.first, first);
            ASSERT_LT(first, s.first + static_cast<uint32_t>(s.columns * s.rows));
        }
    }
}

TEST(Geometry, FramesBeyondThe32BitIndicesAreRefusedWithTheLimitNamed)
{
    DetectParams params;
    params.scale_factor = 1.01;
    try {
        make_geometry({16000, 16000}, default_classifier(), params, true);
        FAIL() << "a 16000x16000 frame at scale 1.01 was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::FrameTooLarge);
        EXPECT_NE(std::string(e.what()).find("16000x16000"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("scale factor"), std::string::npos) << e.what();
    }
    params.scale_factor = 0.5;
    try {
        make_geometry({640, 480}, default_classifier(), params, true);
        FAIL() << "scale factor 0.5 was accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter);
    }
}

/* ===================== batches of frames ===================== */

namespace {

struct BatchMember {
    Size size;
    double scale_factor;
    int stride;
    Size min_size;
};

/* One frame alone, and batches with frames below the 24x24 window (no
 * levels) first, between and last, one at the window's size, and one whose
 * first level is scaled down (min size): its canvas is narrower than its
 * frame. */
const std::vector<BatchMember> kBatches[] = {
    {{{640, 480}, 1.1, 0, {}}},
    {{{640, 480}, 1.1, 0, {}},
     {{20, 16}, 1.1, 0, {}},
     {{333, 97}, 1.05, 1, {}},
     {{800, 200}, 1.2, 2, {48, 48}},
     {{25, 400}, 1.2, 2, {}}},
    {{{10, 10}, 1.1, 0, {}},
     {{24, 24}, 1.1, 0, {}},
     {{1280, 720}, 1.25, 3, {}},
     {{30, 30}, 1.3, 0, {}},
     {{5, 5}, 1.1, 0, {}}},
};

std::vector<std::shared_ptr<const Geometry>> member_geometries(const std::vector<BatchMember>& batch, bool band_layout)
{
    std::vector<std::shared_ptr<const Geometry>> members;
    for (const BatchMember& m : batch) {
        DetectParams params;
        params.scale_factor = m.scale_factor;
        params.stride = m.stride;
        params.min_size = m.min_size;
        members.push_back(
            std::make_shared<const Geometry>(make_geometry(m.size, default_classifier(), params, band_layout)));
    }
    return members;
}

/* resize_pixel of kernels/pyramid.cl; at() also catches taps outside the source. */
uint8_t resize_pixel(const std::vector<uint8_t>& src, int src_pitch, const cl_int4& xt, const cl_int4& yt)
{
    auto at = [&](int y, int x) -> int {
        return src.at(static_cast<size_t>(y) * src_pitch + x);
    };
    const int h0 = at(yt.s[0], xt.s[0]) * xt.s[2] + at(yt.s[0], xt.s[1]) * xt.s[3];
    const int h1 = at(yt.s[1], xt.s[0]) * xt.s[2] + at(yt.s[1], xt.s[1]) * xt.s[3];
    return static_cast<uint8_t>((h0 * yt.s[2] + h1 * yt.s[3] + (1 << 15)) >> 16);
}

}  // namespace

TEST(Geometry, BatchScanIndicesDecodeToTheMembersOwnWindows)
{
    for (const std::vector<BatchMember>& batch : kBatches) {
        for (const bool band_layout : {true, false}) {
            const auto members = member_geometries(batch, band_layout);
            const BatchGeometry b = combine_geometries(members, band_layout);
            const Geometry& c = b.combined;
            ASSERT_EQ(b.members.size(), members.size());
            ASSERT_EQ(b.first_position.size(), members.size());
            ASSERT_EQ(b.positions.size(), members.size());
            uint32_t member_first = 0, scan_rows = 0;
            int canvas_row = 0;
            size_t scanned = 0, levels_before = 0;
            for (size_t m = 0; m < members.size(); ++m) {
                const Geometry& g = *members[m];
                EXPECT_EQ(b.first_position[m], member_first);
                EXPECT_EQ(b.positions[m], g.positions);
                for (size_t k = 0; k < g.scan_levels.size(); ++k, ++scanned) {
                    const shared::ScanLevel& own = g.scan_levels[k];
                    const shared::ScanLevel& s = c.scan_levels.at(scanned);
                    EXPECT_EQ(s.first, member_first + own.first);
                    EXPECT_EQ(s.columns, own.columns);
                    EXPECT_EQ(s.rows, own.rows);
                    EXPECT_EQ(s.step, own.step);
                    EXPECT_EQ(s.skip_rule, own.skip_rule);
                    EXPECT_EQ(s.frame, static_cast<cl_int>(m));
                    EXPECT_EQ(s.first_row, static_cast<cl_int>(scan_rows) + own.first_row);
                    EXPECT_EQ(c.scan_to_level.at(scanned), g.scan_to_level[k] + static_cast<int>(levels_before));
                    /* The member's canvas place, moved down by the canvases above it. */
                    const int local = own.origin - g.integral_origin;
                    const int y = local / g.integral_pitch, x = local % g.integral_pitch;
                    EXPECT_EQ(s.origin, c.integral_origin + (canvas_row + y) * c.integral_pitch + x);

                    const uint32_t count = static_cast<uint32_t>(own.columns * own.rows);
                    for (uint32_t i = 0; i < count; ++i) {
                        if (i >= 2 && i + 2 < count && i % 31 != 0)
                            continue; /* a sample, each level's ends always */
                        const uint32_t index = s.first + i;
                        const RawWindow want = window_at(g, own.first + i, 2.5f);
                        const size_t member = batch_member_of(b, index);
                        ASSERT_EQ(member, m) << "index " << index;
                        const RawWindow got = window_at(*b.members[member], index - b.first_position[member], 2.5f);
                        ASSERT_EQ(got.level, want.level);
                        ASSERT_EQ(got.x, want.x);
                        ASSERT_EQ(got.y, want.y);
                        ASSERT_EQ(got.rect.x, want.rect.x);
                        ASSERT_EQ(got.rect.y, want.rect.y);
                        ASSERT_EQ(got.rect.width, want.rect.width);
                        /* The scan kernels see only the combined tables. */
                        const RawWindow combined = window_at(c, index, 2.5f);
                        ASSERT_EQ(combined.level, want.level + static_cast<int>(levels_before));
                        ASSERT_EQ(combined.x, want.x);
                        ASSERT_EQ(combined.y, want.y);
                        ASSERT_EQ(combined.rect.x, want.rect.x);
                        ASSERT_EQ(combined.rect.y, want.rect.y);
                    }
                }
                member_first += g.positions;
                scan_rows += g.scan_rows;
                canvas_row += g.canvas_height;
                levels_before += g.levels.size();
            }
            EXPECT_EQ(c.scan_levels.size(), scanned);
            EXPECT_EQ(c.levels.size(), levels_before);
            EXPECT_EQ(c.positions, member_first);
            EXPECT_EQ(c.scan_rows, scan_rows);
            EXPECT_THROW(batch_member_of(b, c.positions), std::out_of_range);

            /* Group tables work on the combined geometry as on one frame's. */
            const std::vector<cl_int> group_levels = group_first_levels(c, 64);
            EXPECT_EQ(group_levels.size(), (c.positions + 63) / 64);
            for (size_t i = 0; i < group_levels.size(); ++i) {
                const shared::ScanLevel& s = c.scan_levels[static_cast<size_t>(group_levels[i])];
                const uint32_t first = static_cast<uint32_t>(i * 64);
                ASSERT_LE(s.first, first);
                ASSERT_LT(first, s.first + static_cast<uint32_t>(s.columns * s.rows));
                ASSERT_EQ(static_cast<size_t>(s.frame), batch_member_of(b, first));
            }
        }
    }

    /* Frames all below the window: a batch with nothing to scan. */
    const BatchGeometry none =
        combine_geometries(member_geometries({{{20, 16}, 1.1, 0, {}}, {{5, 5}, 1.1, 0, {}}}, true), true);
    EXPECT_EQ(none.combined.image, (Size{20, 21}));
    EXPECT_TRUE(none.combined.scan_levels.empty());
    EXPECT_EQ(none.combined.positions, 0u);
    EXPECT_EQ(none.first_position, (std::vector<cl_uint>{0, 0}));
    EXPECT_THROW(batch_member_of(none, 0), std::out_of_range);
}

/* The pyramid and integral kernels on the host: random frames stacked as the
 * batch says, each level resized through the combined taps from the stacked
 * source, the integral image written only where the layout writes it (the
 * rest holds stale values), and every sampled window's block sum read
 * through the combined scan tables. All of it against each member's own
 * frame resized by the CPU reference. */
TEST(Geometry, BatchPyramidReadsEveryMembersFrameFromTheStackedSource)
{
    std::mt19937 rng(11);
    std::uniform_int_distribution<int> pixel(0, 255);
    const Classifier& classifier = default_classifier();
    for (const std::vector<BatchMember>& batch : kBatches) {
        for (const bool band_layout : {true, false}) {
            const auto members = member_geometries(batch, band_layout);
            const BatchGeometry b = combine_geometries(members, band_layout);
            const Geometry& c = b.combined;

            int pitch = 0, rows = 0, canvas_width = 0;
            const Geometry* widest = nullptr;
            for (const auto& g : members) {
                pitch = std::max(pitch, g->image.width);
                rows += g->image.height;
                if (!widest || g->canvas_width > widest->canvas_width)
                    widest = g.get();
                canvas_width = std::max(canvas_width, g->canvas_width);
            }
            ASSERT_EQ(b.source_pitch, pitch);
            ASSERT_EQ(c.image, (Size{pitch, rows}));
            ASSERT_EQ(c.canvas_width, canvas_width);
            /* The integral layout of a single frame of the combined width. */
            EXPECT_EQ(c.integral_pitch, widest->integral_pitch);
            EXPECT_EQ(c.integral_origin, widest->integral_origin);

            std::vector<uint8_t> source(static_cast<size_t>(pitch) * rows, 0);
            std::vector<GrayImage> frames;
            int row = 0;
            for (size_t m = 0; m < members.size(); ++m) {
                GrayImage frame(members[m]->image.width, members[m]->image.height);
                for (uint8_t& p : frame.pixels)
                    p = static_cast<uint8_t>(pixel(rng));
                ASSERT_EQ(b.source_offset[m], static_cast<size_t>(row) * pitch);
                for (int y = 0; y < frame.height; ++y)
                    std::copy(frame.row(y), frame.row(y) + frame.width,
                              source.begin() + static_cast<std::ptrdiff_t>(b.source_offset[m]) +
                                  static_cast<std::ptrdiff_t>(y) * pitch);
                row += frame.height;
                frames.push_back(std::move(frame));
            }

            /* The pyramid, level by level, into the combined canvas. */
            std::vector<uint8_t> canvas(static_cast<size_t>(c.canvas_width) * c.canvas_height, 0);
            std::vector<int> owner(canvas.size(), -1);
            std::vector<IntegralImage> level_integrals;
            size_t level = 0;
            int canvas_row = 0;
            uint32_t pyramid_rows = 0;
            for (size_t m = 0; m < members.size(); ++m) {
                const Geometry& g = *members[m];
                for (const shared::ResizeLevel& own : g.resize_levels) {
                    const shared::ResizeLevel& r = c.resize_levels.at(level);
                    ASSERT_EQ(r.width, own.width);
                    ASSERT_EQ(r.height, own.height);
                    EXPECT_EQ(r.canvas_x, own.canvas_x);
                    EXPECT_EQ(r.canvas_y, canvas_row + own.canvas_y);
                    EXPECT_EQ(r.canvas_offset, r.canvas_y * c.canvas_width + r.canvas_x);
                    EXPECT_EQ(r.first, pyramid_rows);
                    pyramid_rows += static_cast<uint32_t>(r.height);
                    ASSERT_LE(r.canvas_x + r.width, c.canvas_width);
                    ASSERT_LE(r.canvas_y + r.height, c.canvas_height);
                    const GrayImage want = resize_bilinear(frames[m].view(), {own.width, own.height});
                    for (int y = 0; y < r.height; ++y) {
                        const cl_int4& yt = c.taps.at(static_cast<size_t>(r.ytap + y));
                        for (int x = 0; x < r.width; ++x) {
                            const uint8_t p =
                                resize_pixel(source, c.image.width, c.taps.at(static_cast<size_t>(r.xtap + x)), yt);
                            ASSERT_EQ(p, want.at(x, y))
                                << "member " << m << " level " << level << " at " << x << "," << y;
                            const size_t at = static_cast<size_t>(r.canvas_y + y) * c.canvas_width + r.canvas_x + x;
                            ASSERT_EQ(owner[at], -1) << "levels " << owner[at] << " and " << level << " overlap";
                            owner[at] = static_cast<int>(level);
                            canvas[at] = p;
                        }
                    }
                    level_integrals.push_back(integral_image(want.view()));
                    ++level;
                }
                canvas_row += g.canvas_height;
            }
            ASSERT_EQ(c.resize_levels.size(), level);
            EXPECT_EQ(c.canvas_height, canvas_row);
            EXPECT_EQ(c.pyramid_rows, pyramid_rows);

            /* Shelves numbered down the canvas; a shelf's top row holds the
             * top row of each of its levels, so level_map is that row's owners. */
            ASSERT_EQ(c.row_shelf.size(), static_cast<size_t>(c.canvas_height));
            std::vector<int> shelf_top;
            for (int y = 0; y < c.canvas_height; ++y) {
                const int s = c.row_shelf[static_cast<size_t>(y)];
                ASSERT_TRUE(s == static_cast<int>(shelf_top.size()) - 1 || s == static_cast<int>(shelf_top.size()))
                    << "row " << y;
                if (s == static_cast<int>(shelf_top.size()))
                    shelf_top.push_back(y);
            }
            for (const shared::ResizeLevel& r : c.resize_levels) {
                const int s = c.row_shelf[static_cast<size_t>(r.canvas_y)];
                EXPECT_EQ(shelf_top[static_cast<size_t>(s)], r.canvas_y);
                EXPECT_EQ(c.row_shelf[static_cast<size_t>(r.canvas_y + r.height - 1)], s);
            }
            ASSERT_EQ(c.level_map.size(), shelf_top.size() * static_cast<size_t>(c.canvas_width));
            for (size_t s = 0; s < shelf_top.size(); ++s)
                for (int x = 0; x < c.canvas_width; ++x)
                    ASSERT_EQ(c.level_map[s * c.canvas_width + x],
                              owner[static_cast<size_t>(shelf_top[s]) * c.canvas_width + x])
                        << "shelf " << s << " column " << x;

            /* The integral image as the kernels leave it: row 0 and column 0
             * zero, integral row y + 1 written for columns 1 to row_widths[y]
             * (band layout) or the canvas width, stale values elsewhere. */
            if (band_layout)
                ASSERT_EQ(c.row_widths.size(), static_cast<size_t>(c.canvas_height));
            else
                EXPECT_TRUE(c.row_widths.empty());
            if (c.scan_levels.empty())
                continue;
            const uint32_t stale = 0x9e3779b9u;
            std::vector<uint32_t> integral(integral_buffer_values(c), stale);
            const size_t origin = static_cast<size_t>(c.integral_origin);
            const size_t ipitch = static_cast<size_t>(c.integral_pitch);
            std::fill(integral.begin() + static_cast<std::ptrdiff_t>(origin),
                      integral.begin() + static_cast<std::ptrdiff_t>(origin + ipitch), 0u);
            std::vector<uint32_t> above(ipitch, 0), current(ipitch, 0);
            for (int y = 0; y < c.canvas_height; ++y) {
                uint32_t sum = 0;
                for (size_t x = 1; x < ipitch; ++x) {
                    sum += x <= static_cast<size_t>(c.canvas_width) ? canvas[y * c.canvas_width + x - 1] : 0u;
                    current[x] = above[x] + sum;
                }
                const size_t written = band_layout ? static_cast<size_t>(c.row_widths[static_cast<size_t>(y)])
                                                   : static_cast<size_t>(c.canvas_width);
                ASSERT_LT(written, ipitch);
                const size_t at = origin + (static_cast<size_t>(y) + 1) * ipitch;
                integral.at(at) = 0;
                for (size_t x = 1; x <= written; ++x)
                    integral.at(at + x) = current[x];
                std::swap(above, current);
            }
            const int ww = classifier.window_width, wh = classifier.window_height;
            const int p = c.integral_pitch;
            for (size_t k = 0; k < c.scan_levels.size(); ++k) {
                const shared::ScanLevel& s = c.scan_levels[k];
                const IntegralImage& own = level_integrals[static_cast<size_t>(c.scan_to_level[k])];
                for (int i = 0; i < s.columns * s.rows; ++i) {
                    const int column = i % s.columns, scan_row = i / s.columns;
                    if (column > 0 && column + 1 < s.columns && scan_row > 0 && scan_row + 1 < s.rows && i % 53 != 0)
                        continue; /* a sample, the level's edges always */
                    const size_t o = static_cast<size_t>(s.origin + scan_row * s.step * p + column * s.step);
                    const uint32_t sum =
                        integral.at(o) - integral.at(o + ww) - integral.at(o + wh * p) + integral.at(o + wh * p + ww);
                    ASSERT_EQ(sum, own.block_sum(column * s.step, scan_row * s.step, ww, wh))
                        << "scan level " << k << " of frame " << s.frame << " window " << column << "," << scan_row;
                }
            }
        }
    }
}

TEST(Geometry, BatchesBeyondThe32BitIndicesAreRefusedWithTheBatchNamed)
{
    /* Each frame fits alone; 64 of them pass 2^31 integral-image values. */
    DetectParams params;
    params.scale_factor = 1.01;
    const auto hd = std::make_shared<const Geometry>(make_geometry({1920, 1080}, default_classifier(), params, true));
    ASSERT_LT(static_cast<uint64_t>(hd->integral_pitch) * (hd->canvas_height + 1), uint64_t{1} << 31);
    EXPECT_NO_THROW(combine_geometries({hd, hd}, true));
    try {
        combine_geometries(std::vector<std::shared_ptr<const Geometry>>(kMaxBatchFrames, hd), true);
        FAIL() << "64 1920x1080 frames at scale 1.01 were accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::FrameTooLarge);
        EXPECT_NE(std::string(e.what()).find("a batch of 64 frames"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("integral-image values"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("batch fewer frames"), std::string::npos) << e.what();
    }

    /* A small pyramid of a large frame: the stacked source passes the
     * kernels' int offsets first. */
    params.scale_factor = 1.1;
    params.min_size = {4000, 4000};
    const auto large =
        std::make_shared<const Geometry>(make_geometry({8000, 8000}, default_classifier(), params, false));
    ASSERT_FALSE(large->scan_levels.empty());
    EXPECT_NO_THROW(combine_geometries({large, large, large}, false));
    try {
        combine_geometries(std::vector<std::shared_ptr<const Geometry>>(40, large), false);
        FAIL() << "40 8000x8000 frames were accepted";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::FrameTooLarge);
        EXPECT_NE(std::string(e.what()).find("a batch of 40 frames"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("bytes"), std::string::npos) << e.what();
    }

    /* batch_fits() says beforehand, at the very member where it stops
     * fitting, whatever the reason. */
    for (const auto& [member, band] : {std::make_pair(hd, true), std::make_pair(large, false)}) {
        std::vector<std::shared_ptr<const Geometry>> members;
        while (members.size() < static_cast<size_t>(kMaxBatchFrames)) {
            members.push_back(member);
            bool combined = true;
            try {
                combine_geometries(members, band);
            } catch (const Error&) {
                combined = false;
            }
            ASSERT_EQ(batch_fits(members, band), combined) << members.size() << " members";
            if (!combined)
                break;
        }
        EXPECT_LT(members.size(), static_cast<size_t>(kMaxBatchFrames)) << "the limit was reached";
    }
    EXPECT_FALSE(batch_fits({}, true));

    /* Not a frame's fault: the caller's. */
    EXPECT_THROW(combine_geometries({}, true), std::logic_error);
    EXPECT_THROW(combine_geometries(std::vector<std::shared_ptr<const Geometry>>(kMaxBatchMembers + 1, hd), true),
                 std::logic_error);
    EXPECT_THROW(combine_geometries({hd}, false), std::logic_error); /* the band layout's geometry */
}

TEST(ClassifierPack, TablesThresholdsAndStumpRecordsFollowTheModel)
{
    /* The default classifier is an OpenCV stump cascade. */
    const Classifier& classifier = default_classifier();
    const PackedClassifier p = pack_classifier(classifier);
    const size_t n = classifier.weak.size();
    ASSERT_EQ(p.weak_count, n);
    ASSERT_TRUE(p.stumps);
    ASSERT_EQ(p.responses.size(), n * 256 + n * STUMP_LONGS);
    int first_test = -1;
    for (size_t t = 0; t < n; ++t) {
        const WeakClassifier& w = classifier.weak[t];
        EXPECT_EQ(p.features[t].s[0], lbp(w).x);
        EXPECT_EQ(p.features[t].s[3], lbp(w).block_height);
        const cl_long* record = &p.responses[n * 256 + t * STUMP_LONGS];
        for (int code = 0; code < 256; ++code) {
            const cl_long fixed = p.responses[t * 256 + code];
            /* Exact: OpenCV's responses are floats far above 2^-17. */
            ASSERT_EQ(static_cast<double>(fixed) / p.fixed_scale(), static_cast<double>(lbp_table(w)[code]));
            const uint32_t word = static_cast<uint32_t>(record[code >> 6] >> ((code >> 5 & 1) * 32));
            ASSERT_EQ(fixed, record[4 + ((word >> (code & 31)) & 1)]) << "weak " << t << " code " << code;
        }
        if (w.reject_threshold == kNoRejection) {
            EXPECT_EQ(p.thresholds[t], std::numeric_limits<cl_long>::min());
        } else {
            EXPECT_GE(static_cast<double>(p.thresholds[t]) / p.fixed_scale(), w.reject_threshold);
            EXPECT_LT(static_cast<double>(p.thresholds[t] - 1) / p.fixed_scale(), w.reject_threshold);
            if (first_test < 0)
                first_test = static_cast<int>(t);
        }
        EXPECT_EQ(p.resets[t], w.reset_sum_after ? 1 : 0);
    }
    EXPECT_EQ(p.first_test, first_test);
    EXPECT_EQ(p.scale_shift, 0); /* already exact: packed as before */

    /* Three values in one table: no stump records. */
    Classifier tables = classifier;
    lbp_table(tables.weak[3])[7] = 0.125f;
    lbp_table(tables.weak[3])[8] = -0.25f;
    lbp_table(tables.weak[3])[9] = 0.5f;
    const PackedClassifier q = pack_classifier(tables);
    EXPECT_FALSE(q.stumps);
    EXPECT_EQ(q.responses.size(), n * 256);

    Classifier far = classifier;
    far.weak[0].reject_threshold = 5e6f;
    try {
        pack_classifier(far);
        FAIL() << "a threshold beyond 2^22 was packed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::UnsupportedClassifier);
    }
}

TEST(ClassifierPack, ASequencesFirstTestIsRecordedAsTheCodesItRejects)
{
    /* A WaldBoost sequence: a test after every weak classifier, no resets,
     * tables of seven values. Its first test rejects the codes whose
     * response is below 0; those at exactly 0 pass. */
    Classifier sequence = default_classifier();
    for (WeakClassifier& w : sequence.weak) {
        for (int code = 0; code < 256; ++code)
            lbp_table(w)[code] = static_cast<float>(code % 7 - 3) * 0.25f;
        w.reject_threshold = -10.0f;
        w.reset_sum_after = false;
    }
    sequence.weak[0].reject_threshold = 0.0f;
    validate(sequence, "<sequence>");
    const PackedClassifier p = pack_classifier(sequence);
    const size_t n = sequence.weak.size();
    ASSERT_FALSE(p.stumps);
    ASSERT_TRUE(p.first_test_codes);
    ASSERT_EQ(p.responses.size(), n * 256 + kFirstTestCodeLongs);
    int rejected = 0;
    for (int code = 0; code < 256; ++code) {
        const cl_long* record = &p.responses[n * 256];
        const uint32_t word = static_cast<uint32_t>(record[code >> 6] >> ((code >> 5 & 1) * 32));
        const bool bit = (word >> (code & 31)) & 1;
        EXPECT_EQ(bit, lbp_table(sequence.weak[0])[code] < sequence.weak[0].reject_threshold) << "code " << code;
        rejected += bit;
    }
    EXPECT_EQ(rejected, 3 * 37); /* codes whose remainder by 7 is 0, 1 or 2: 37 each */
    EXPECT_NE(p.kind->build_defines(p).find("-D FIRST_TEST_CODES"), std::string::npos);

    /* No record where the first test is not the first weak classifier's
     * alone: a first weak classifier without a test, and OpenCV's stage
     * cascades (stumps, tested at a stage's end). */
    Classifier later = sequence;
    later.weak[0].reject_threshold = kNoRejection;
    EXPECT_FALSE(pack_classifier(later).first_test_codes);
    EXPECT_EQ(pack_classifier(later).responses.size(), n * 256);
    EXPECT_FALSE(pack_classifier(default_classifier()).first_test_codes);
}

namespace {

/* LRD or LRP weak classifiers over a 24x24 window, their values i / 8 - 1. */
Classifier rank_classifier(RankFeature::Kind kind)
{
    Classifier c;
    c.window_width = c.window_height = 24;
    for (int t = 0; t < 3; ++t) {
        RankFeature f;
        f.kind = kind;
        f.x = t;
        f.y = 2 * t;
        f.block_width = 7 - t;
        f.block_height = 1 + t;
        f.block_a = 8 - t;
        f.block_b = t;
        for (size_t i = 0; i < f.table_size(); ++i)
            f.responses.push_back(static_cast<float>(i) / 8.0f - 1.0f + static_cast<float>(t));
        WeakClassifier w;
        w.feature = f;
        w.reject_threshold = t == 1 ? kNoRejection : -0.5f;
        c.weak.push_back(w);
    }
    validate(c, "<rank>");
    return c;
}

}  // namespace

TEST(ClassifierPack, RankFeaturesPackTheirGridBlocksAndTables)
{
    for (const auto kind : {RankFeature::Kind::Difference, RankFeature::Kind::Pair}) {
        const Classifier c = rank_classifier(kind);
        const PackedClassifier p = pack_classifier(c);
        const size_t size = kind == RankFeature::Kind::Difference ? 17 : 81;
        EXPECT_STREQ(p.kind->name(), kind == RankFeature::Kind::Difference ? "LRD" : "LRP");
        EXPECT_EQ(p.kind->table_size(), size);
        EXPECT_EQ(p.kind->build_defines(p),
                  " -D RANK_TABLE=" + std::to_string(size) + (size == 81 ? " -D RANK_PAIRS" : ""));
        ASSERT_EQ(p.responses.size(), 3 * size);
        for (size_t t = 0; t < 3; ++t) {
            const RankFeature& f = std::get<RankFeature>(c.weak[t].feature);
            /* rank.cl: x, y, width | a << 16, height | b << 16. */
            EXPECT_EQ(p.features[t].s[0], f.x);
            EXPECT_EQ(p.features[t].s[1], f.y);
            EXPECT_EQ(p.features[t].s[2] & 0xFFFF, f.block_width);
            EXPECT_EQ(p.features[t].s[2] >> 16, f.block_a);
            EXPECT_EQ(p.features[t].s[3] & 0xFFFF, f.block_height);
            EXPECT_EQ(p.features[t].s[3] >> 16, f.block_b);
            for (size_t i = 0; i < size; ++i)
                ASSERT_EQ(static_cast<double>(p.responses[t * size + i]) / p.fixed_scale(), f.responses[i]);
        }
        EXPECT_EQ(p.largest_block, 15); /* 5x3 */
        EXPECT_TRUE(p.kind->narrow_sums_serve(p));
        EXPECT_EQ(p.first_test, 0);
        EXPECT_EQ(p.thresholds[1], std::numeric_limits<cl_long>::min());
    }
}

TEST(ClassifierPack, ResponsesFinerThanTheFixedPointUnitArePackedExactly)
{
    /* Full-mantissa floats of 3e-13 and below (2^-41.6: under the unit of
     * 2^-40 unscaled), some far below, thresholds near the running sums. */
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> response(-3e-13f, 3e-13f);
    Classifier c = default_classifier();
    double running = 0;
    for (size_t t = 0; t < c.weak.size(); ++t) {
        WeakClassifier& w = c.weak[t];
        for (float& r : lbp_table(w))
            r = response(rng);
        lbp_table(w)[t % 256] = 1.5e-19f;
        running += lbp_table(w)[0];
        if (w.reject_threshold != kNoRejection)
            w.reject_threshold = static_cast<float>(running) * 1.0001f;
    }
    c.final_threshold = static_cast<float>(running);
    validate(c, "<tiny>");
    const PackedClassifier p = pack_classifier(c);
    EXPECT_GT(p.scale_shift, 0);
    for (size_t t = 0; t < c.weak.size(); ++t) {
        const WeakClassifier& w = c.weak[t];
        for (int code = 0; code < 256; ++code)
            ASSERT_EQ(static_cast<double>(p.responses[t * 256 + code]) / p.fixed_scale(),
                      static_cast<double>(lbp_table(w)[code]))
                << "weak " << t << " code " << code;
        if (w.reject_threshold != kNoRejection) {
            EXPECT_GE(p.from_fixed(p.thresholds[t]), w.reject_threshold);
            EXPECT_LT(p.from_fixed(p.thresholds[t] - 1), w.reject_threshold);
        }
    }
    EXPECT_GE(p.from_fixed(p.fixed_ceil(c.final_threshold)), c.final_threshold);
    EXPECT_LT(p.from_fixed(p.fixed_ceil(c.final_threshold) - 1), c.final_threshold);
}

TEST(ClassifierPack, ResponsesSpanningTooManyBinadesAreRefused)
{
    /* 1e-30f's finest bit is 2^-118: a scale of 2^78 would take sums of about
     * 1e3 to 2^88, far beyond 2^22. */
    Classifier c = default_classifier();
    lbp_table(c.weak[0])[1] = 1e-30f;
    lbp_table(c.weak[1])[2] = 1e3f;
    validate(c, "<wide>"); /* a valid model: only this engine cannot run it */
    try {
        pack_classifier(c);
        ADD_FAILURE() << "responses from 1e-30 to 1e3 were packed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::UnsupportedClassifier);
        EXPECT_NE(std::string(e.what()).find("fixed point"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("1e-30"), std::string::npos) << e.what();
    }

    /* Responses of 1e-20 (finest bit 2^-87) need a scale of 2^47: a
     * threshold of 1 is then far beyond 2^22. */
    Classifier tiny = default_classifier();
    for (WeakClassifier& w : tiny.weak) {
        lbp_table(w).fill(1e-20f);
        w.reject_threshold = kNoRejection;
    }
    tiny.weak[5].reject_threshold = 1.0f;
    tiny.final_threshold = 0;
    validate(tiny, "<tiny>");
    try {
        pack_classifier(tiny);
        ADD_FAILURE() << "a threshold of 1 for responses of 1e-20 was packed";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::UnsupportedClassifier);
        EXPECT_NE(std::string(e.what()).find("2^47"), std::string::npos) << e.what();
    }
}

/* The parameter lists generated from the .cl files against what the OpenCL
 * compiler reports for the same source (-cl-kernel-arg-info). */
TEST(KernelArgs, GeneratedSignaturesMatchTheCompiledKernels)
{
    const SelectedDevice selected = select_device(waldboost_test::test_device());
    const cl::Context context(selected.device);
    const std::string common =
        "-cl-std=CL1.2 -cl-kernel-arg-info -D GROUP_SIZE=16 -D STEP4_GROUP_SIZE=16 "
        "-D STEP1_UNSYNC=4 -D STEP1_DIVISOR=8 -D STEP2_UNSYNC=4 -D STEP2_DIVISOR=4 -D STEP2_ROUNDS=8 "
        "-D WEAK_COUNT=8 -D FIRST_TEST=2 -D STUMPS -D INTEGRAL_BITS=32";
    std::set<std::string> compiled;
    /* Both layouts and both scans, with each feature kind's file
     * (kernels/lbp.cl, kernels/haar.cl), both step 4s, and with the stop
     * checks of costly classifiers; the tracker's template search is a
     * program of its own (kernels/track.cl). */
    std::vector<std::pair<std::string, std::string>> programs;
    const FeatureKind& lbp_kind = lbp_feature_kind();
    const FeatureKind& haar_kind = haar_feature_kind();
    const std::pair<const FeatureKind*, const char*> variants[] = {
        {&lbp_kind, ""},
        {&lbp_kind, " -D PYRAMID_BY_ROWS -D ROW_SCAN"},
        {&haar_kind, " -D WINDOW_WIDTH=24 -D WINDOW_HEIGHT=24"},
        {&haar_kind, " -D PYRAMID_BY_ROWS -D ROW_SCAN -D WINDOW_WIDTH=20 -D WINDOW_HEIGHT=30"},
        {&lbp_kind, " -D STOP_CHECKS"},
        {&lbp_kind, " -D PYRAMID_BY_ROWS -D ROW_SCAN -D STOP_CHECKS"},
        {&haar_kind, " -D STEP4_SEGMENTS -D STOP_CHECKS -D WINDOW_WIDTH=24 -D WINDOW_HEIGHT=24"}};
    for (const auto& [kind, layout] : variants) {
        const bool row_scan = std::string(layout).find("ROW_SCAN") != std::string::npos;
        programs.emplace_back(kernel_program_source(*kind, row_scan), common + layout);
    }
    programs.emplace_back(track_program_source(), "-cl-std=CL1.2 -cl-kernel-arg-info -D TRACK_GROUP_SIZE=16");
    /* The trainer's program (kernels/train.cl), with its defaults but LRD's bins. */
    programs.emplace_back(train_program_source(),
                          "-cl-std=CL1.2 -cl-kernel-arg-info -D TRAIN_FAMILY=1 -D TRAIN_BINS=17");
    for (const auto& [source, options] : programs) {
        cl::Program program(context, source);
        try {
            program.build({selected.device}, options.c_str());
        } catch (const cl::Error&) {
            FAIL() << program.getBuildInfo<CL_PROGRAM_BUILD_LOG>(selected.device);
        }
        std::vector<cl::Kernel> kernels;
        program.createKernels(&kernels);
        for (cl::Kernel& kernel : kernels) {
            const std::string name = kernel.getInfo<CL_KERNEL_FUNCTION_NAME>().c_str();
            compiled.insert(name);
            const KernelSignature& signature = kernel_signature(name);
            const cl_uint count = kernel.getInfo<CL_KERNEL_NUM_ARGS>();
            ASSERT_EQ(signature.params.size(), count) << name;
            for (cl_uint i = 0; i < count; ++i) {
                const KernelParam& param = signature.params[i];
                const std::string arg_name = kernel.getArgInfo<CL_KERNEL_ARG_NAME>(i).c_str();
                EXPECT_EQ(param.name, arg_name) << name << " argument " << i;
                const cl_kernel_arg_address_qualifier space = kernel.getArgInfo<CL_KERNEL_ARG_ADDRESS_QUALIFIER>(i);
                const std::string type = kernel.getArgInfo<CL_KERNEL_ARG_TYPE_NAME>(i).c_str();
                switch (param.type) {
                case ArgType::Buffer:
                    EXPECT_TRUE(space == CL_KERNEL_ARG_ADDRESS_GLOBAL || space == CL_KERNEL_ARG_ADDRESS_CONSTANT)
                        << name << " " << arg_name;
                    break;
                case ArgType::Local: EXPECT_EQ(space, CL_KERNEL_ARG_ADDRESS_LOCAL) << name << " " << arg_name; break;
                case ArgType::Int: EXPECT_EQ(type, "int") << name << " " << arg_name; break;
                case ArgType::UInt: EXPECT_EQ(type, "uint") << name << " " << arg_name; break;
                case ArgType::Long: EXPECT_EQ(type, "long") << name << " " << arg_name; break;
                case ArgType::ULong: EXPECT_EQ(type, "ulong") << name << " " << arg_name; break;
                case ArgType::Float: EXPECT_EQ(type, "float") << name << " " << arg_name; break;
                }
            }
        }
    }
    for (const KernelSignature& s : kernel_signatures())
        EXPECT_EQ(compiled.count(std::string(s.kernel)), 1u) << s.kernel << " was not compiled";

    /* Binding mistakes are caught before a launch. */
    cl::Program program(context, kernel_program_source(lbp_kind, false));
    program.build({selected.device}, (common + " -D PYRAMID_BY_ROWS").c_str());
    BoundKernel rows(program, "integral_band_rows");
    EXPECT_THROW(rows.set("no_such_parameter", cl_int{1}), std::logic_error);
    EXPECT_THROW(rows.set("width", cl_uint{1}), std::logic_error); /* declared int */
    EXPECT_THROW(rows.set("canvas", cl_int{1}), std::logic_error); /* declared a buffer */
    const cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64);
    rows.set("canvas", buffer).set("width", cl_int{4}).set("band_sums", buffer).set("band_pitch", cl_int{5});
    rows.set("integral", buffer).set("squares", buffer).set("integral_pitch", cl_int{5}).set("with_squares", cl_int{0});
    EXPECT_THROW(rows.ready(), std::logic_error); /* height never set */
    rows.set("height", cl_int{1});
    EXPECT_NO_THROW(rows.ready());
    EXPECT_THROW(BoundKernel(program, "no_such_kernel"), std::logic_error);
}

/* ===================== the tuning cache's key ===================== */

namespace {

/* A valid random classifier (a WaldBoost sequence with stage-like resets). */
Classifier random_classifier(std::mt19937& rng, int side, int weak_count)
{
    Classifier c;
    c.label = "random";
    c.window_width = c.window_height = side;
    std::uniform_real_distribution<float> value(-1.0f, 1.0f);
    for (int t = 0; t < weak_count; ++t) {
        WeakClassifier w;
        LbpFeature f;
        f.block_width = std::uniform_int_distribution<int>(1, side / 3)(rng);
        f.block_height = std::uniform_int_distribution<int>(1, side / 3)(rng);
        f.x = std::uniform_int_distribution<int>(0, side - 3 * f.block_width)(rng);
        f.y = std::uniform_int_distribution<int>(0, side - 3 * f.block_height)(rng);
        w.feature = f;
        for (float& r : lbp_table(w))
            r = value(rng);
        if (t % 7 == 6) {
            w.reject_threshold = value(rng);
            w.reset_sum_after = t % 14 == 13;
        }
        c.weak.push_back(w);
    }
    c.final_threshold = value(rng);
    validate(c, "<random>");
    return c;
}

}  // namespace

/* The key once came from the model's XML, which the writer refuses past the
 * 10 MB file limit (about 2,600 weak classifiers): such valid models could
 * not run at all. The key now hashes the model itself. */
TEST(TuningKey, KeysLargeModelsAndFollowsEveryFieldThatDetects)
{
    std::mt19937 rng(5);
    const Classifier big = random_classifier(rng, 24, 5000);
    ASSERT_THROW(write_waldboost_xml(big), Error); /* what the key used to need */

    DeviceInfo device;
    device.platform_name = "Platform";
    device.device_name = "Device";
    device.driver_version = "1.0";
    const std::string key = tuning_key(device, big);
    EXPECT_EQ(key.size(), 64u) << key;
    EXPECT_EQ(key.find_first_not_of("0123456789abcdef"), std::string::npos) << key;

    /* Equal models, equal keys; the label does not detect. */
    Classifier same = big;
    same.label = "another label";
    EXPECT_EQ(tuning_key(device, same), key);

    /* Any field that detects changes the key. */
    auto changed = [&](const std::function<void(Classifier&)>& change) {
        Classifier c = big;
        change(c);
        return tuning_key(device, c);
    };
    EXPECT_NE(changed([](Classifier& c) {
                  lbp_table(c.weak[4321])[17] += 0.5f;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  lbp_table(c.weak[0])[255] = -lbp_table(c.weak[0])[255];
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  c.weak[4999].reject_threshold = 0.25f;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  c.weak[2500].reset_sum_after = !c.weak[2500].reset_sum_after;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  lbp(c.weak[3]).x ^= 1;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  lbp(c.weak[3]).y += 1;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  lbp(c.weak[3]).block_width += 1;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  lbp(c.weak[3]).block_height += 1;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  c.final_threshold += 1.0f;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  c.window_width += 1;
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  c.weak.pop_back();
              }),
              key);
    EXPECT_NE(changed([](Classifier& c) {
                  std::swap(c.weak[10], c.weak[11]);
              }),
              key);

    /* And so does the device or its driver. */
    DeviceInfo other = device;
    other.driver_version = "1.1";
    EXPECT_NE(tuning_key(other, big), key);
    other = device;
    other.device_name = "Device2";
    EXPECT_NE(tuning_key(other, big), key);

    /* A small model keeps a key too, and it differs from the big one's. */
    EXPECT_NE(tuning_key(device, random_classifier(rng, 24, 10)), key);

    /* Rank models: every field of a rank feature detects, the kind too. */
    const Classifier lrd = rank_classifier(RankFeature::Kind::Difference);
    const std::string lrd_key = tuning_key(device, lrd);
    const auto rank_changed = [&](const std::function<void(RankFeature&)>& change) {
        Classifier c = lrd;
        change(std::get<RankFeature>(c.weak[1].feature));
        return tuning_key(device, c);
    };
    EXPECT_NE(tuning_key(device, rank_classifier(RankFeature::Kind::Pair)), lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.kind = RankFeature::Kind::Pair;
              }),
              lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.block_a ^= 1;
              }),
              lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.block_b ^= 1;
              }),
              lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.x += 1;
              }),
              lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.block_height += 1;
              }),
              lrd_key);
    EXPECT_NE(rank_changed([](RankFeature& f) {
                  f.responses[16] = 0.5f;
              }),
              lrd_key);
}

/* What the key is for: an engine (which looks its tuned parameters up by
 * the key unless WALDBOOST_TUNING_DISABLE is set) runs such a model. */
TEST(TuningKey, AnEngineRunsAModelOfFiveThousandWeakClassifiers)
{
    unsetenv("WALDBOOST_TUNING_DISABLE");
    std::mt19937 rng(7);
    const Classifier big = random_classifier(rng, 24, 5000);
    EngineConfig config;
    config.device = waldboost_test::test_device();
    Engine engine(big, config);
    const GrayImage frame(64, 48, 128);
    const FrameResult result = engine.detect(frame.view(), DetectParams{});
    EXPECT_GT(result.stats.windows, 0u);
}
