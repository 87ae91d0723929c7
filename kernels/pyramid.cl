/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The image pyramid, built on the device in one launch for every level, and
 * the integral image of the whole packed pyramid (OpenCL C 1.2).
 *
 * All levels are packed into one canvas. A single integral image of the
 * canvas serves every level: a block sum is a difference of four corners, so
 * whatever lies outside the block cancels out. Sums wrap modulo 2^32 (or
 * 2^16, INTEGRAL_BITS in common.cl), which keeps every block sum exact.
 */

/* ResizeLevel (kernels/shared.h): one level's pixels in the launch's linear
 * index space. */

DEFINE_FIND_LEVEL(find_resize_level, ResizeLevel)

/* One output pixel of the bilinear resize, bit-exact with the CPU reference
 * (and OpenCV's INTER_LINEAR_EXACT): taps are (index0, index1, weight0,
 * weight1), weights with 8 fraction bits summing to 256, computed once per
 * geometry on the host (linear_taps()). The reference's
 * (a0 w0 + a1 w1) y0 + (b0 w0 + b1 w1) y1 is, in exact integers, the
 * columns' vertical blends c = a y0 + b y1 = 256 a + (b - a) y1 blended
 * as 256 c0 + (c1 - c0) w1: three multiplies instead of six (the CPU
 * pyramid was bound by them). */
static uchar resize_pixel(__global const uchar* src, int src_pitch, int4 xt, int4 yt)
{
    __global const uchar* row0 = src + yt.x * src_pitch;
    __global const uchar* row1 = src + yt.y * src_pitch;
    const int a0 = row0[xt.x], a1 = row0[xt.y], b0 = row1[xt.x], b1 = row1[xt.y];
    const int c0 = (a0 << 8) + (b0 - a0) * yt.w;
    const int c1 = (a1 << 8) + (b1 - a1) * yt.w;
    return (uchar)(((c0 << 8) + (c1 - c0) * xt.w + (1 << 15)) >> 16);
}

#ifdef PYRAMID_BY_ROWS
/* CPU devices: the pyramid is written to a canvas, one work-item per output
 * row of every level (the index space counts rows, ResizeLevel.first is the
 * level's first row); then the integral image of the canvas in plain loops
 * over bands of rows.
 *
 * A row's pixels are blended 8 at a time in vectors. Their taps are
 * gathered as pairs: a column tap's second index is its first plus one,
 * or carries no weight (left of the source, only when scaling up), since
 * make_geometry() moves the right border's tap one column left with all
 * the weight on its second index; so one 2-byte load per source row gives
 * both, and the pairs' bytes are split with vector shifts. */
#ifdef __ENDIAN_LITTLE__
#define PAIR_FIRST(q) ((q) & (ushort)0xff)
#define PAIR_SECOND(q) ((q) >> (ushort)8)
#else
#define PAIR_FIRST(q) ((q) >> (ushort)8)
#define PAIR_SECOND(q) ((q) & (ushort)0xff)
#endif
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
    if (level.copy) {
        /* The frame's own size (the first level at scale 1): the blend
         * gives each pixel back, so the row is copied, a sixth of the
         * pyramid's pixels at scale factor 1.1. */
        __global const uchar* in = src + yt.x * src_pitch;
        int x = 0;
        for (; x + 16 <= level.width; x += 16)
            vstore16(vload16(0, in + x), 0, out + x);
        for (; x < level.width; ++x)
            out[x] = in[x];
        return;
    }
    __global const uchar* row0 = src + yt.x * src_pitch;
    __global const uchar* row1 = src + yt.y * src_pitch;
    __global const int4* xtaps = taps + level.xtap;
    int x = 0;
    for (; x + 8 <= level.width; x += 8) {
        ushort8 q0, q1; /* the 8 pixels' source pairs in the two rows */
#define PYRAMID_PAIRS(k)                                  \
    {                                                     \
        const int i = xtaps[x + k].x;                     \
        q0.s##k = as_ushort(vload2(0, row0 + i));         \
        q1.s##k = as_ushort(vload2(0, row1 + i));         \
    }
        PYRAMID_PAIRS(0) PYRAMID_PAIRS(1) PYRAMID_PAIRS(2) PYRAMID_PAIRS(3)
        PYRAMID_PAIRS(4) PYRAMID_PAIRS(5) PYRAMID_PAIRS(6) PYRAMID_PAIRS(7)
#undef PYRAMID_PAIRS
        /* The second weights (lane w of each int4 tap) of the 8 taps. */
        const int16 t0 = vload16(0, (__global const int*)(xtaps + x));
        const int16 t1 = vload16(0, (__global const int*)(xtaps + x + 4));
        const int8 w = (int8)(t0.s37bf, t1.s37bf);
        /* resize_pixel()'s arithmetic, lane by lane. */
        const int8 a0 = convert_int8(PAIR_FIRST(q0)), a1 = convert_int8(PAIR_SECOND(q0));
        const int8 b0 = convert_int8(PAIR_FIRST(q1)), b1 = convert_int8(PAIR_SECOND(q1));
        const int8 c0 = (a0 << 8) + (b0 - a0) * yt.w;
        const int8 c1 = (a1 << 8) + (b1 - a1) * yt.w;
        vstore8(convert_uchar8(((c0 << 8) + (c1 - c0) * w + (1 << 15)) >> 16), 0, out + x);
    }
    for (; x < level.width; ++x)
        out[x] = resize_pixel(src, src_pitch, xtaps[x], yt);
}

/* The integral image on CPU devices, written once: the canvas is cut into
 * bands of ROWS_INTEGRAL_BAND rows, one work-item each.
 *   1. integral_band_column_sums: each band's column sums;
 *   2. integral_column_strips over those sums: per column, the sums of the
 *      bands above each band (an integral image of the bands);
 *   3. integral_band_rows: each band's rows, the row above plus the row's
 *      prefix sums; the first from those sums.
 * Row prefix sums then column prefix sums would write the image and then
 * read and write it again. With `squares` (Haar classifiers), the squared
 * pixels' image in the same passes: their band sums lie right of the plain
 * ones, in columns width + 1 .. 2 width of the band sums' rows. */

/* Band b's sums go to row b + 1 of the band sums (row 0 and column 0 stay
 * zero), so that after step 2 row b holds the column totals of the canvas
 * rows above band b. */
__kernel void integral_band_column_sums(__global const uchar* canvas, int width, int height,
                                        __global uint* band_sums, int band_pitch, int squares)
{
    const int band = get_global_id(0);
    const int first = band * ROWS_INTEGRAL_BAND;
    if (first >= height)
        return;
    const int last = min(first + ROWS_INTEGRAL_BAND, height);
    __global uint* out = band_sums + (band + 1) * band_pitch + 1;
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        uint16 sum = 0, square_sum = 0;
        for (int y = first; y < last; ++y) {
            const uint16 p = convert_uint16(vload16(0, canvas + y * width + x));
            sum += p;
            square_sum += p * p;
        }
        vstore16(sum, 0, out + x);
        if (squares)
            vstore16(square_sum, 0, out + width + x);
    }
    for (; x < width; ++x) {
        uint sum = 0, square_sum = 0;
        for (int y = first; y < last; ++y) {
            const uint p = canvas[y * width + x];
            sum += p;
            square_sum += p * p;
        }
        out[x] = sum;
        if (squares)
            out[width + x] = square_sum;
    }
}

/* Inclusive prefix sums of 16 values, in four shifted adds. */
static uint16 prefix16(uint16 v)
{
    const uint16 zero = 0;
    v += shuffle2(zero, v, (uint16)(0, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30));
    v += shuffle2(zero, v, (uint16)(0, 1, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29));
    v += shuffle2(zero, v, (uint16)(0, 1, 2, 3, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27));
    v += shuffle2(zero, v, (uint16)(0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23));
    return v;
}

/* One row of an integral image: the row above plus the prefix sums of the
 * row's pixels (squared with `square`). A band's first row has instead the
 * per-column totals of the rows above it (`column_totals`), which add to
 * the pixels before the prefix sums. */
static void integral_row(__global const uchar* in, int width, __global const uint* above, bool column_totals,
                         __global uint* out, bool square)
{
    uint carry = 0;
    int x = 0;
    for (; x + 16 <= width; x += 16) {
        uint16 p = convert_uint16(vload16(0, in + x));
        if (square)
            p *= p;
        const uint16 a = vload16(0, above + x);
        const uint16 prefix = prefix16(column_totals ? p + a : p) + carry;
        vstore16(column_totals ? prefix : a + prefix, 0, out + x);
        carry = prefix.sf;
    }
    for (; x < width; ++x) {
        const uint p = in[x];
        carry += square ? p * p : p;
        if (column_totals)
            carry += above[x];
        out[x] = column_totals ? carry : above[x] + carry;
    }
}

__kernel void integral_band_rows(__global const uchar* canvas, int width, int height,
                                 __global const uint* band_sums, int band_pitch, __global uint* integral,
                                 __global uint* squares, int integral_pitch, int with_squares)
{
    const int band = get_global_id(0);
    const int first = band * ROWS_INTEGRAL_BAND;
    if (first >= height)
        return;
    const int last = min(first + ROWS_INTEGRAL_BAND, height);
    __global const uint* totals = band_sums + band * band_pitch + 1; /* of the rows above the band */
    for (int y = first; y < last; ++y) {
        __global const uchar* in = canvas + y * width;
        const int row = y * integral_pitch + 1; /* integral row y: the canvas rows above y */
        const bool seed = y == first;
        integral_row(in, width, seed ? totals : integral + row, seed, integral + row + integral_pitch, false);
        if (with_squares)
            integral_row(in, width, seed ? totals + width : squares + row, seed, squares + row + integral_pitch,
                         true);
    }
}

/* Column prefix sums, in place, of an image laid out as the integral (row
 * 0 and column 0 zero): one work-item per strip of 16 columns walks down
 * it with vector adds. */
__kernel void integral_column_strips(__global uint* integral, int width, int height, int integral_pitch)
{
    const int x0 = get_global_id(0) * 16;
    __global uint* p = integral + integral_pitch + 1 + x0;
    if (x0 + 16 <= width) {
        uint16 sum = 0;
        for (int y = 0; y < height; ++y, p += integral_pitch) {
            sum += vload16(0, p);
            vstore16(sum, 0, p);
        }
        return;
    }
    /* The last, partial strip: the columns past the width are the next
     * row's, another strip's to write. */
    for (int x = 0; x < width - x0; ++x) {
        uint sum = 0;
        for (int y = 0; y < height; ++y) {
            sum += p[y * integral_pitch + x];
            p[y * integral_pitch + x] = sum;
        }
    }
}

#else /* !PYRAMID_BY_ROWS */
/* GPUs: the pyramid and the integral image of its canvas in three launches
 * over bands of INTEGRAL_BAND canvas rows:
 *   1. integral_band_sums: the band's pyramid pixels and column sums;
 *   2. integral_band_prefix: per column, the sum of the bands above;
 *   3. integral_bands: each band's rows, seeded with those sums, written once.
 * The 4-byte integral image is written once and never read back here. */

/* Pass 1: one work-item per 4 columns of a band. row_shelf maps a canvas
 * row to its shelf; level_map maps a shelf and a column to the level there,
 * or -1 in a gap. A column's level only changes with the shelf, so its
 * taps are looked up once per shelf, keeping the loads of a pixel
 * independent of the lookups. */
__kernel void integral_band_sums(__global const uchar* src, int src_pitch, __global const ResizeLevel* levels,
                                 __global const int* level_map, __global const int* row_shelf,
                                 __global const int4* taps, int width, int height, __global uchar* canvas,
                                 int canvas_pitch, __global uint* band_sums)
{
    const int x0 = get_global_id(0) * 4;
    const int band = get_global_id(1);
    if (x0 >= width)
        return;
    const int first = band * INTEGRAL_BAND;
    const int last = min(first + INTEGRAL_BAND, height);
    int shelf = -1;
    int4 xt[4];
    int top[4], rows[4], ytap[4];
    uint4 sum = (uint4)(0u);
    for (int y = first; y < last; ++y) {
        const int s = row_shelf[y];
        if (s != shelf) {
            shelf = s;
            for (int c = 0; c < 4; ++c) {
                const int l = x0 + c < width ? level_map[s * width + x0 + c] : -1;
                top[c] = 0;
                ytap[c] = 0;
                rows[c] = 0;
                if (l >= 0) {
                    const ResizeLevel level = levels[l];
                    xt[c] = taps[level.xtap + x0 + c - level.canvas_x];
                    top[c] = level.canvas_y;
                    rows[c] = level.height;
                    ytap[c] = level.ytap;
                }
            }
        }
        uchar p[4];
        /* The 4 columns nearly always lie in one level: one y tap for them. */
        const int ly0 = y - top[0];
        const int4 yt0 = ly0 < rows[0] ? taps[ytap[0] + ly0] : (int4)(0);
        for (int c = 0; c < 4; ++c) {
            const int ly = y - top[c];
            const bool same = ytap[c] == ytap[0] && top[c] == top[0];
            p[c] = ly < rows[c] ? resize_pixel(src, src_pitch, xt[c], same ? yt0 : taps[ytap[c] + ly]) : (uchar)0;
        }
        const uchar4 pixels = (uchar4)(p[0], p[1], p[2], p[3]);
        vstore4(pixels, 0, canvas + y * canvas_pitch + x0); /* the pitch has room for the last 4 */
        sum += convert_uint4(pixels);
    }
    const uint sums[4] = {sum.x, sum.y, sum.z, sum.w};
    for (int c = 0; c < 4 && x0 + c < width; ++c)
        band_sums[band * width + x0 + c] = sums[c];
}

/* Pass 2, in place: per column, the exclusive prefix sum of the band sums.
 * A group takes PREFIX_COLUMNS columns; its PREFIX_SEGMENTS rows of items
 * each take a run of bands, so that tall canvases keep enough loads in
 * flight. */
#define PREFIX_COLUMNS 32
#define PREFIX_SEGMENTS 8
__kernel __attribute__((reqd_work_group_size(PREFIX_COLUMNS * PREFIX_SEGMENTS, 1, 1)))
void integral_band_prefix(__global uint* band_sums, int width, int bands)
{
    __local uint segment_sums[PREFIX_SEGMENTS * PREFIX_COLUMNS];
    const int lid = get_local_id(0);
    const int column_in_group = lid % PREFIX_COLUMNS;
    const int segment = lid / PREFIX_COLUMNS;
    const int x = get_group_id(0) * PREFIX_COLUMNS + column_in_group;
    const int per_segment = (bands + PREFIX_SEGMENTS - 1) / PREFIX_SEGMENTS;
    const int first = segment * per_segment;
    const int last = min(first + per_segment, bands);
    uint sum = 0;
    if (x < width)
        for (int b = first; b < last; ++b)
            sum += band_sums[b * width + x];
    segment_sums[lid] = sum;
    barrier(CLK_LOCAL_MEM_FENCE);
    uint before = 0;
    for (int s = 0; s < segment; ++s)
        before += segment_sums[s * PREFIX_COLUMNS + column_in_group];
    if (x < width) {
        for (int b = first; b < last; ++b) {
            const uint value = band_sums[b * width + x];
            band_sums[b * width + x] = before;
            before += value;
        }
    }
}

/* Pass 3: one work-group per band. Each item owns INTEGRAL_COLUMNS
 * neighbouring columns of a chunk of the canvas width and accumulates them
 * down the band, starting from the sums of the bands above; then the rows
 * are scanned across the items, all INTEGRAL_BAND rows at once (one
 * segment of one row per item, segments padded against bank conflicts), and
 * each row is written once, coalesced.
 *
 * Writing the integral image is most of this pass's memory traffic, so an
 * item writes its 4 values as one aligned 16-byte store (the integral image
 * starts at integral_origin, which puts column 1 of every row on a multiple
 * of 4 values), and row_widths[y] says how many columns of integral row
 * y + 1 any level reads: the shelves' tails are gaps, never read and not
 * written (a fifth of a 4K frame's canvas; docs/history.md, round 4). */
#define INTEGRAL_COLUMNS 4 /* one uchar4 of the canvas */
#define INTEGRAL_SEGMENTS (INTEGRAL_GROUP / INTEGRAL_BAND) /* per row */
#define INTEGRAL_SEGMENT_LENGTH (INTEGRAL_GROUP / INTEGRAL_SEGMENTS)
#define INTEGRAL_SEGMENT_STRIDE (INTEGRAL_SEGMENT_LENGTH + 1)
#define INTEGRAL_ROW_STRIDE (INTEGRAL_SEGMENTS * INTEGRAL_SEGMENT_STRIDE)
#if INTEGRAL_GROUP % INTEGRAL_BAND != 0
#error "INTEGRAL_BAND must divide INTEGRAL_GROUP (kernels/shared.h)"
#endif

static int total_slot(int row, int item)
{
    return row * INTEGRAL_ROW_STRIDE + (item / INTEGRAL_SEGMENT_LENGTH) * INTEGRAL_SEGMENT_STRIDE +
           item % INTEGRAL_SEGMENT_LENGTH;
}

__kernel __attribute__((reqd_work_group_size(INTEGRAL_GROUP, 1, 1)))
void integral_bands(__global const uchar* canvas, int canvas_pitch, int width, int height,
                    __global const uint* band_offsets, __global const int* row_widths, __global integral_t* integral,
                    int integral_origin, int integral_pitch, int squared)
{
    __local uint totals[INTEGRAL_BAND * INTEGRAL_ROW_STRIDE];
    __local uint segment_sums[INTEGRAL_BAND * INTEGRAL_SEGMENTS];
    __local uint carry[INTEGRAL_BAND]; /* row sums of the chunks to the left */
    const int lid = get_local_id(0);
    const int band = get_group_id(0);
    const int y0 = band * INTEGRAL_BAND;
    const int scan_row = lid / INTEGRAL_SEGMENTS;
    const int scan_segment = lid % INTEGRAL_SEGMENTS;
    __local uint* segment = totals + scan_row * INTEGRAL_ROW_STRIDE + scan_segment * INTEGRAL_SEGMENT_STRIDE;
    if (lid < INTEGRAL_BAND)
        carry[lid] = 0;
    /* Chunks right of every row's written width are skipped whole: the
     * carry only flows to the right. */
    int band_width = 0;
    for (int r = 0; r < INTEGRAL_BAND && y0 + r < height; ++r)
        band_width = max(band_width, row_widths[y0 + r]);

    for (int base = 0; base < band_width; base += INTEGRAL_GROUP * INTEGRAL_COLUMNS) {
        const int x0 = base + lid * INTEGRAL_COLUMNS;
        uint column[INTEGRAL_COLUMNS];
        uint prefix[INTEGRAL_BAND][INTEGRAL_COLUMNS];
        for (int c = 0; c < INTEGRAL_COLUMNS; ++c)
            column[c] = x0 + c < width ? band_offsets[band * width + x0 + c] : 0u;
        for (int r = 0; r < INTEGRAL_BAND; ++r) {
            const int y = y0 + r;
            /* Columns past the width are zero in the canvas. */
            uint4 pixels = y < height && x0 < width ? convert_uint4(vload4(0, canvas + y * canvas_pitch + x0))
                                                    : (uint4)(0u);
            if (squared) /* the squared integral of Haar classifiers (haar.cl) */
                pixels *= pixels;
            const uint p[4] = {pixels.x, pixels.y, pixels.z, pixels.w};
            uint run = 0;
            for (int c = 0; c < INTEGRAL_COLUMNS; ++c) {
                column[c] += p[c];
                run += column[c];
                prefix[r][c] = run;
            }
            totals[total_slot(r, lid)] = run;
        }
        barrier(CLK_LOCAL_MEM_FENCE);

        /* Exclusive scan of every row's item totals, plus the carry. */
        uint sum = 0;
        for (int i = 0; i < INTEGRAL_SEGMENT_LENGTH; ++i) {
            const uint value = segment[i];
            segment[i] = sum;
            sum += value;
        }
        segment_sums[lid] = sum;
        barrier(CLK_LOCAL_MEM_FENCE);
        uint before = carry[scan_row];
        for (int s = 0; s < scan_segment; ++s)
            before += segment_sums[scan_row * INTEGRAL_SEGMENTS + s];
        for (int i = 0; i < INTEGRAL_SEGMENT_LENGTH; ++i)
            segment[i] += before;
        barrier(CLK_LOCAL_MEM_FENCE);
        if (scan_segment == INTEGRAL_SEGMENTS - 1)
            carry[scan_row] = before + sum;

        for (int r = 0; r < INTEGRAL_BAND; ++r) {
            const int y = y0 + r;
            if (y >= height)
                break;
            if (x0 >= row_widths[y])
                continue;
            /* Past the width only the pitch's padding columns are written. */
            const uint offset = totals[total_slot(r, lid)];
            STORE_INTEGRAL4((uint4)(prefix[r][0], prefix[r][1], prefix[r][2], prefix[r][3]) + offset,
                            integral + integral_origin + (y + 1) * integral_pitch + 1 + x0);
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}
#endif

/* The integral images some feature kinds read besides the plain one
 * (gst/core/opencl/features/feature_kind.h), in uint whatever INTEGRAL_BITS:
 * of the squared pixels, and OpenCV's tilted integral (the Haar features of
 * kernels/haar.cl read both).
 *
 * The squared integral on GPUs reuses the band passes above over the
 * stored canvas: this is their first pass, the band sums of the squared
 * pixels, one work-item per column and band. */
__kernel void square_band_sums(__global const uchar* canvas, int canvas_pitch, int width, int height,
                               __global uint* band_sums)
{
    const int x = get_global_id(0);
    const int band = get_global_id(1);
    if (x >= width)
        return;
    const int first = band * INTEGRAL_BAND;
    const int last = min(first + INTEGRAL_BAND, height);
    uint sum = 0;
    for (int y = first; y < last; ++y) {
        const uint p = canvas[y * canvas_pitch + x];
        sum += p * p;
    }
    band_sums[band * width + x] = sum;
}

/* The tilted integral T of the canvas, from the finished integral image S
 * (both with the same origin and pitch): T(X, Y) sums, over the rows y < Y,
 * the pixels of row y from X - Y + y to X + Y - 2 - y, that is
 * P(X + Y - 1 - y, y) - P(X - Y + y, y) with P(x, y) the sum of row y's
 * pixels left of x, S(x, y + 1) - S(x, y). The first sum runs along a
 * rising diagonal (x + y constant) and the second along a falling one
 * (x - y constant), so one work-item per diagonal accumulates down it:
 * tilted_rising writes the first part of every value, tilted_falling then
 * subtracts the second. Everything wraps modulo 2^32 as the integral does,
 * and the triangles' overhang past the canvas sides reads as 0. */
#ifdef PYRAMID_BY_ROWS
/* CPU devices: a work-item per diagonal reads and writes one value per
 * cache line at every row, which made this pass most of a frame's time on
 * 2 cores. Here a work-item walks 16 neighbouring diagonals at once, so
 * each row step reads and writes whole lines, and it skips the rows where
 * every lane is off the canvas. */
/* row_prefix below for 16 columns from x, each clamped to 0 .. width. */
static uint16 row_prefix16(__global const uint* s, int pitch, int width, int x, int y)
{
    __global const uint* above = s + y * pitch;
    __global const uint* below = above + pitch;
    if (x >= 0 && x + TILTED_LANES - 1 <= width)
        return vload16(0, below + x) - vload16(0, above + x);
    uint v[TILTED_LANES];
    for (int i = 0; i < TILTED_LANES; ++i) {
        const int c = clamp(x + i, 0, width);
        v[i] = below[c] - above[c];
    }
    return vload16(0, v);
}

/* Row `row` of T, columns x .. x + 15 where they lie in 0 .. width: set to
 * `values`, or less them with `subtract`. */
static void store_tilted16(__global uint* row, int x, int width, uint16 values, bool subtract)
{
    if (x >= 0 && x + TILTED_LANES - 1 <= width) {
        vstore16(subtract ? vload16(0, row + x) - values : values, 0, row + x);
        return;
    }
    uint v[TILTED_LANES];
    vstore16(values, 0, v);
    for (int i = 0; i < TILTED_LANES; ++i)
        if (x + i >= 0 && x + i <= width)
            row[x + i] = subtract ? row[x + i] - v[i] : v[i];
}

__kernel void tilted_rising(__global const uint* integral, __global uint* tilted, int origin, int pitch, int width,
                            int height)
{
    const int s0 = (int)get_global_id(0) * TILTED_LANES; /* diagonals X + Y - 1 = s0 .. s0 + 15 */
    /* Rows above y0 lie right of the canvas for every lane: each adds its
     * whole row, so the sums start from the integral's last column. */
    const int y0 = max(1, s0 - width + 1);
    if (s0 >= width + height || y0 > height)
        return;
    __global const uint* in = integral + origin;
    __global uint* out = tilted + origin;
    uint16 sum = (uint16)(in[(y0 - 1) * pitch + width]);
    for (int y = y0; y <= height; ++y) {
        const int x = s0 - y + 1; /* lane i's column, x + i */
        if (x + TILTED_LANES - 1 < 0)
            break; /* left of the canvas from here on: nothing more to write */
        sum += row_prefix16(in, pitch, width, x, y - 1);
        store_tilted16(out + y * pitch, x, width, sum, false);
    }
}

__kernel void tilted_falling(__global const uint* integral, __global uint* tilted, int origin, int pitch, int width,
                             int height)
{
    const int d0 = (int)get_global_id(0) * TILTED_LANES - height; /* diagonals X - Y = d0 .. d0 + 15 */
    if (d0 >= width)
        return;
    __global const uint* in = integral + origin;
    __global uint* out = tilted + origin;
    uint16 sum = 0;
    /* Rows above y0 lie left of the canvas for every lane and add 0. */
    for (int y = max(1, -(d0 + TILTED_LANES - 1)); y <= height; ++y) {
        const int x = d0 + y; /* lane i's column, x + i */
        if (x > width)
            break; /* right of the canvas from here on */
        sum += row_prefix16(in, pitch, width, x - 1, y - 1);
        store_tilted16(out + y * pitch, x, width, sum, true);
    }
}
#else /* !PYRAMID_BY_ROWS */
static uint row_prefix(__global const uint* s, int pitch, int width, int x, int y)
{
    const int clamped = clamp(x, 0, width);
    return s[(y + 1) * pitch + clamped] - s[y * pitch + clamped];
}

__kernel void tilted_rising(__global const uint* integral, __global uint* tilted, int origin, int pitch, int width,
                            int height)
{
    const int s = get_global_id(0); /* X + Y - 1, 0 .. width + height - 1 */
    if (s >= width + height)
        return;
    __global const uint* in = integral + origin;
    __global uint* out = tilted + origin;
    uint sum = 0;
    for (int y = 1; y <= height; ++y) {
        sum += row_prefix(in, pitch, width, s - (y - 1), y - 1);
        const int x = s - y + 1;
        if (x >= 0 && x <= width)
            out[y * pitch + x] = sum;
    }
}

__kernel void tilted_falling(__global const uint* integral, __global uint* tilted, int origin, int pitch, int width,
                             int height)
{
    const int d = (int)get_global_id(0) - height; /* X - Y, -height .. width - 1 */
    if (d >= width)
        return;
    __global const uint* in = integral + origin;
    __global uint* out = tilted + origin;
    uint sum = 0;
    for (int y = 1; y <= height; ++y) {
        sum += row_prefix(in, pitch, width, d + y - 1, y - 1);
        const int x = d + y;
        if (x >= 0 && x <= width)
            out[y * pitch + x] -= sum;
    }
}
#endif
