/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where a frame's pyramid levels lie on the device: the canvas that packs
 * every level (shelf packing), the integral image's layout, the resize taps
 * and the window positions of every level in one linear index space. Pure
 * arithmetic on sizes, shared by the engine's buffers and launches and
 * tested on its own (tests/test_geometry.cpp).
 */
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "core/detection/scales.h"
#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/opencl/device/cl.h"
#include "shared.h"

namespace waldboost::opencl {

inline size_t round_up(size_t value, size_t multiple) { return (value + multiple - 1) / multiple * multiple; }

/* Everything that depends on the frame size and the scan parameters. */
struct Geometry {
    Size image;
    double scale_factor = 0;
    Size min_size, max_size;
    int stride = 0;

    std::vector<ScaleLevel> levels;
    std::vector<int> scan_to_level; /* scan-table entry -> index into levels */
    std::vector<shared::ResizeLevel> resize_levels;
    /* GPU layout: the shelf of every canvas row, and per shelf and canvas
     * column the level there (-1 in a gap). */
    std::vector<cl_int> row_shelf;
    std::vector<cl_int> level_map;
    /* GPU layout: per canvas row y, the columns of integral row y + 1 that
     * any level reads (a multiple of 4); the shelves' tails are gaps. */
    std::vector<cl_int> row_widths;
    std::vector<shared::ScanLevel> scan_levels;
    std::vector<cl_int4> taps;
    int canvas_width = 0, canvas_height = 0;
    /* Where the integral image's row 0, column 0 lies in its buffer, and
     * values per row. The GPU layout aligns column 1 of every row to 16
     * bytes for vector stores (kernels/pyramid.cl). */
    int integral_origin = 0;
    int integral_pitch = 0;
    cl_uint pyramid_rows = 0;
    cl_uint positions = 0; /* window positions scanned */
    cl_uint scan_rows = 0; /* rows of window positions, all levels (scan_rows.cl) */
    /* Not 0: the stacked areas of one frame (Engine::submit_areas), whose
     * layout no other frame shares, whatever its size. */
    uint64_t areas_id = 0;

    bool matches(Size size, const DetectParams& p) const
    {
        return image == size && scale_factor == p.scale_factor && min_size == p.min_size && max_size == p.max_size &&
               stride == p.stride;
    }
};

/* At most this many members stack in one layout: the counter buffer holds
 * a count of accepted windows per member (COUNT_FRAMES in
 * kernels/shared.h). The areas of one frame (Engine::submit_areas) may
 * use them all. */
inline constexpr int kMaxBatchMembers = 256;

/* At most this many frames of several engines go to the device as one set
 * of launches (batch_queue.h). */
inline constexpr int kMaxBatchFrames = 64;
static_assert(kMaxBatchFrames <= kMaxBatchMembers, "a batch is a layout");

/* Several frames' geometries laid out as one (batched launches): the frames
 * stacked in one source buffer, their canvases stacked in one canvas, their
 * scan positions one after the other in one linear index space.
 *
 * `combined` is a Geometry the launches use as they use a single frame's:
 * combined.image is {source_pitch, total source rows} (the kernels read the
 * source with that pitch), every level table and offset refers to the
 * stacked canvas, and scan level k carries ScanLevel::frame = the member it
 * belongs to. Member m's scan index i is combined index
 * first_position[m] + i, so window_at(*members[m], index - first_position[m])
 * decodes a combined index. */
struct BatchGeometry {
    Geometry combined;
    std::vector<std::shared_ptr<const Geometry>> members;
    std::vector<cl_uint> first_position; /* per member: its first combined scan index */
    std::vector<cl_uint> positions;      /* per member: its scan positions */
    std::vector<size_t> source_offset;   /* per member: byte offset of its frame's row 0 in the source */
    int source_pitch = 0;                /* bytes per source row: the widest member */
};

/* Stacks 1 to kMaxBatchMembers members (any sizes and scan parameters, same
 * classifier, same layout). Throws Error (FrameTooLarge) when the stack
 * passes the engine's 32-bit indices, as make_geometry() does for one. */
BatchGeometry combine_geometries(const std::vector<std::shared_ptr<const Geometry>>& members, bool band_layout);

/* Whether combine_geometries() takes these members: at most
 * kMaxBatchMembers, within the engine's 32-bit indices. */
bool batch_fits(const std::vector<std::shared_ptr<const Geometry>>& members, bool band_layout);

/* The member a combined scan index belongs to. */
size_t batch_member_of(const BatchGeometry& batch, cl_uint index);

/* The geometry of a frame of `size`. band_layout: the GPU layout (integral
 * image aligned for 16-byte stores, per-row widths; kernels/pyramid.cl).
 * Throws Error (FrameTooLarge) past the engine's 32-bit indices and Error
 * (BadParameter) for bad scan parameters. */
Geometry make_geometry(Size size, const Classifier& classifier, const DetectParams& params, bool band_layout);

/* The accepted window at linear scan index `index`, in original-image
 * pixels, as the CPU reference reports it (before clipping). */
RawWindow window_at(const Geometry& g, cl_uint index, float score);

/* The level (index into scan_levels) of the first window of every step-1
 * work-group of group_size windows. */
std::vector<cl_int> group_first_levels(const Geometry& g, int group_size);

/* Values in the integral-image buffer: the image with its zero row and
 * column, plus padding for the row scan's vector reads past a row's end. */
size_t integral_buffer_values(const Geometry& g);

/* Bytes per canvas row: the GPU layout writes it 4 pixels at a time. */
int canvas_pitch(const Geometry& g, bool band_layout);

/* The CPU layout's integral image goes by bands of ROWS_INTEGRAL_BAND canvas
 * rows (kernels/pyramid.cl): how many, and the values per row of their
 * sums, a zero column then the plain sums (and the squares' with
 * `squares`). */
int rows_band_count(const Geometry& g);
int rows_band_pitch(const Geometry& g, bool squares);

}  // namespace waldboost::opencl
