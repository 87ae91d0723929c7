/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the kernel files (OpenCL C 1.2). The engine builds one
 * program of shared.h, common.cl, pyramid.cl, cascade.cl, the classifier's
 * feature file (lbp.cl, haar.cl or rank.cl), waldboost.cl and (on CPU devices)
 * scan_rows.cl, in that order.
 */

/* Defines `name`, which returns the index of the last entry of a table
 * sorted by its `first` field whose first is <= index: the level a linear
 * index of a one-launch-for-all-levels kernel falls in. */
#define DEFINE_FIND_LEVEL(name, Type)                                                                    \
    static int name(__global const Type* levels, int count, uint index)                                 \
    {                                                                                                    \
        int lo = 0, hi = count - 1;                                                                      \
        while (lo < hi) {                                                                                \
            const int mid = (lo + hi + 1) >> 1;                                                          \
            if (levels[mid].first <= index)                                                              \
                lo = mid;                                                                                \
            else                                                                                         \
                hi = mid - 1;                                                                            \
        }                                                                                                \
        return lo;                                                                                       \
    }

/* The integral image's values (-D INTEGRAL_BITS=16 or 32). Block sums are
 * differences of four values taken modulo 2^INTEGRAL_BITS, exact while no
 * block can sum to 2^INTEGRAL_BITS or more: the engine picks 16 bits when
 * the classifier's largest block is at most 257 pixels (257 x 255 < 2^16),
 * which halves the bytes every window reads (engine.cpp). */
#if INTEGRAL_BITS == 16
typedef ushort integral_t;
#define INTEGRAL_MASK 0xFFFFu
/* An aligned store of 4 values (the engine aligns them). */
#define STORE_INTEGRAL4(values, p) (*(__global ushort4*)(p) = convert_ushort4((values) & (uint4)(INTEGRAL_MASK)))
#else
typedef uint integral_t;
#define INTEGRAL_MASK 0xFFFFFFFFu
#define STORE_INTEGRAL4(values, p) (*(__global uint4*)(p) = (values))
#endif

/* The 3x3 grid of equal blocks that MB-LBP (lbp.cl) and the rank features
 * (rank.cl) read: blocks of f.z x f.w pixels at (f.x, f.y) in the window.
 * Its 16 block corners form a 4x4 lattice of integral-image values; p0..p3
 * are the lattice rows for the window at `origin`, dx the step between
 * lattice columns. */
#define GRID_LATTICE_ROWS(integral, pitch, origin, f)                                                        \
    __global const integral_t* p0 = (integral) + (origin) + (f).y * (pitch) + (f).x;                       \
    const int dx = (f).z;                                                                                    \
    __global const integral_t* p1 = p0 + (f).w * (pitch);                                                    \
    __global const integral_t* p2 = p1 + (f).w * (pitch);                                                    \
    __global const integral_t* p3 = p2 + (f).w * (pitch)

/* a0..d3: the lattice's values (rows a to d, columns 0 to 3) as `type`,
 * read with LOAD: GRID_SCALAR for one window, GRID_LANES (the row scan's
 * load_lanes, kernels/cascade.cl) for 16 windows `step` apart. */
#define GRID_SCALAR(p, i) (p)[(i) * dx]
#define GRID_LANES(p, i) load_lanes((p) + (i) * dx, step)
#define GRID_LATTICE(type, LOAD)                                                                             \
    const type a0 = LOAD(p0, 0), a1 = LOAD(p0, 1), a2 = LOAD(p0, 2), a3 = LOAD(p0, 3);                       \
    const type b0 = LOAD(p1, 0), b1 = LOAD(p1, 1), b2 = LOAD(p1, 2), b3 = LOAD(p1, 3);                       \
    const type c0 = LOAD(p2, 0), c1 = LOAD(p2, 1), c2 = LOAD(p2, 2), c3 = LOAD(p2, 3);                       \
    const type d0 = LOAD(p3, 0), d1 = LOAD(p3, 1), d2 = LOAD(p3, 2), d3 = LOAD(p3, 3)

/* A block's sum from its four corners, modulo 2^INTEGRAL_BITS (exact, see
 * above). */
#define GRID_BLOCK(top_left, top_right, bottom_left, bottom_right)                                           \
    (((top_left) - (top_right) - (bottom_left) + (bottom_right)) & INTEGRAL_MASK)
