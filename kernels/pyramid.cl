/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The image pyramid, built on the device in one launch for every level, and
 * the integral image of the whole packed pyramid (OpenCL C 1.2).
 *
 * All levels are packed into one canvas. A single integral image of the
 * canvas serves every level: a block sum is a difference of four corners, so
 * whatever lies outside the block cancels out. Sums wrap modulo 2^32, which
 * keeps every block sum exact.
 */

/* One level's pixels in the launch's linear index space. Mirrors
 * ResizeLevel in engine.cpp. */
typedef struct {
    uint first;        /* first linear index (pixel, or row for PYRAMID_BY_ROWS) */
    int width;
    int height;
    int canvas_offset; /* of the level's top-left pixel in the canvas */
    int xtap;          /* first of its width x taps */
    int ytap;          /* first of its height y taps */
    int pad0;
    int pad1;
} ResizeLevel;

DEFINE_FIND_LEVEL(find_resize_level, ResizeLevel)

/* One output pixel of the bilinear resize, bit-exact with the CPU reference
 * (and OpenCV's INTER_LINEAR_EXACT): taps are (index0, index1, weight0,
 * weight1), weights with 8 fraction bits summing to 256, computed once per
 * geometry on the host. */
static uchar resize_pixel(__global const uchar* src, int src_pitch, int4 xt, int4 yt)
{
    __global const uchar* row0 = src + yt.x * src_pitch;
    __global const uchar* row1 = src + yt.y * src_pitch;
    const int h0 = row0[xt.x] * xt.z + row0[xt.y] * xt.w;
    const int h1 = row1[xt.x] * xt.z + row1[xt.y] * xt.w;
    return (uchar)((h0 * yt.z + h1 * yt.w + (1 << 15)) >> 16);
}

#ifdef PYRAMID_BY_ROWS
/* CPU devices: one work-item per output row of every level (the index space
 * counts rows, ResizeLevel.first is the level's first row). */
__kernel void build_pyramid(__global const uchar* src, int src_pitch,
                            __global uchar* canvas, int canvas_pitch,
                            __global const ResizeLevel* levels, int level_count, uint total,
                            __global const int4* taps)
{
    const uint index = get_global_id(0);
    if (index >= total)
        return;
    const ResizeLevel level = levels[find_resize_level(levels, level_count, index)];
    const int y = (int)(index - level.first);
    const int4 yt = taps[level.ytap + y];
    __global uchar* out = canvas + level.canvas_offset + y * canvas_pitch;
    for (int x = 0; x < level.width; ++x)
        out[x] = resize_pixel(src, src_pitch, taps[level.xtap + x], yt);
}
#else
/* One work-item per pyramid pixel, all levels in one launch. */
__kernel void build_pyramid(__global const uchar* src, int src_pitch,
                            __global uchar* canvas, int canvas_pitch,
                            __global const ResizeLevel* levels, int level_count, uint total,
                            __global const int4* taps)
{
    const uint index = get_global_id(0);
    if (index >= total)
        return;
    const ResizeLevel level = levels[find_resize_level(levels, level_count, index)];
    const int local_index = (int)(index - level.first);
    const int y = local_index / level.width;
    const int x = local_index - y * level.width;
    canvas[level.canvas_offset + y * canvas_pitch + x] =
        resize_pixel(src, src_pitch, taps[level.xtap + x], taps[level.ytap + y]);
}
#endif

#ifdef ROW_SCAN_SEQUENTIAL
/* Row prefix sums on CPU devices: one work-item per row, a plain loop. A
 * work-group scan costs log2(group) barriers per chunk, which a CPU driver
 * runs as separate loops. */
__kernel void integral_rows(__global const uchar* canvas, int width, int canvas_pitch,
                            __global uint* integral, int integral_pitch, int height)
{
    const int row = get_global_id(0);
    if (row >= height)
        return;
    __global const uchar* in = canvas + row * canvas_pitch;
    __global uint* out = integral + (row + 1) * integral_pitch + 1;
    uint sum = 0;
    for (int x = 0; x < width; ++x) {
        sum += in[x];
        out[x] = sum;
    }
}
#else
/* Row prefix sums: one work-group per canvas row, scanning it in chunks of
 * the group size. Writes row y + 1, columns 1..width of the integral image
 * (row 0 and column 0 stay zero). */
__kernel __attribute__((reqd_work_group_size(SCAN_GROUP_SIZE, 1, 1)))
void integral_rows(__global const uchar* canvas, int width, int canvas_pitch,
                   __global uint* integral, int integral_pitch, int height)
{
    __local uint scan[SCAN_GROUP_SIZE];
    const int row = get_group_id(0);
    const int lid = get_local_id(0);
    __global const uchar* in = canvas + row * canvas_pitch;
    __global uint* out = integral + (row + 1) * integral_pitch + 1;

    uint carry = 0;
    for (int base = 0; base < width; base += SCAN_GROUP_SIZE) {
        const int x = base + lid;
        scan[lid] = x < width ? in[x] : 0u;
        barrier(CLK_LOCAL_MEM_FENCE);
        /* Hillis-Steele inclusive scan. */
        for (int d = 1; d < SCAN_GROUP_SIZE; d <<= 1) {
            const uint add = lid >= d ? scan[lid - d] : 0u;
            barrier(CLK_LOCAL_MEM_FENCE);
            scan[lid] += add;
            barrier(CLK_LOCAL_MEM_FENCE);
        }
        if (x < width)
            out[x] = carry + scan[lid];
        carry += scan[SCAN_GROUP_SIZE - 1];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

/* Column prefix sums over the row sums, in three short passes so that tall
 * canvases keep the device busy. The rows are cut into bands of COLUMN_BAND
 * rows; neighbouring work-items take neighbouring columns, so reads and
 * writes coalesce.
 * Pass 1: each column's prefix sum within its band, and the band's total. */
__kernel void integral_column_bands(__global uint* integral, int width, int height, int integral_pitch,
                                    __global uint* band_totals)
{
    const int x = get_global_id(0);
    const int band = get_global_id(1);
    if (x >= width)
        return;
    const int first = band * COLUMN_BAND;
    const int last = min(first + COLUMN_BAND, height);
    __global uint* p = integral + (first + 1) * integral_pitch + 1 + x;
    uint sum = 0;
    for (int y = first; y < last; ++y, p += integral_pitch) {
        sum += *p;
        *p = sum;
    }
    band_totals[band * width + x] = sum;
}

/* Pass 2: per column, the exclusive prefix sum of the band totals. */
__kernel void integral_band_offsets(__global uint* band_totals, int width, int bands)
{
    const int x = get_global_id(0);
    if (x >= width)
        return;
    uint sum = 0;
    for (int b = 0; b < bands; ++b) {
        const uint total = band_totals[b * width + x];
        band_totals[b * width + x] = sum;
        sum += total;
    }
}

/* Pass 3: adds to every pixel the sum of the bands above it. */
__kernel void integral_add_offsets(__global uint* integral, int width, int height, int integral_pitch,
                                   __global const uint* band_offsets)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1) + COLUMN_BAND; /* the first band has nothing above */
    if (x >= width || y >= height)
        return;
    integral[(y + 1) * integral_pitch + 1 + x] += band_offsets[(y / COLUMN_BAND) * width + x];
}
