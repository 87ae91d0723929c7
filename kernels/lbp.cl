/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The multi-block LBP feature, the kernels' one copy of it (the C++ one is
 * lbp_code() in gst/core/reference/detector.cpp). A feature is a 3x3 grid
 * of blocks of f.z x f.w pixels at (f.x, f.y) in the window; its 16 block
 * corners form a 4x4 lattice of integral-image values a0..d3 (rows a to d,
 * columns 0 to 3). Bits of the code, from the most significant: the
 * top-left, top, top-right, right, bottom-right, bottom, bottom-left and
 * left block, set when that block's sum is >= the centre block's.
 *
 * The same macros build one window's code (scalars) and 16 windows' codes
 * at once (vectors, the row scan in scan_rows.cl).
 */

/* p0..p3: the lattice rows of feature f of the window at `origin`; dx: the
 * step between lattice columns. */
#define LBP_LATTICE_ROWS(integral, pitch, origin, f)                                                         \
    __global const integral_t* p0 = (integral) + (origin) + (f).y * (pitch) + (f).x;                       \
    const int dx = (f).z;                                                                                    \
    __global const integral_t* p1 = p0 + (f).w * (pitch);                                                    \
    __global const integral_t* p2 = p1 + (f).w * (pitch);                                                    \
    __global const integral_t* p3 = p2 + (f).w * (pitch)

/* A block's sum from its four corners, modulo 2^INTEGRAL_BITS (common.cl). */
#define LBP_BLOCK(top_left, top_right, bottom_left, bottom_right)                                            \
    (((top_left) - (top_right) - (bottom_left) + (bottom_right)) & INTEGRAL_MASK)
#define LBP_CENTRE LBP_BLOCK(b1, b2, c1, c2)
/* The code from a0..d3 and centre; BIT(comparison, bit) turns a comparison
 * into its bit. */
#define LBP_CODE(BIT)                                                                                        \
    (BIT(LBP_BLOCK(a0, a1, b0, b1) >= centre, 128) | BIT(LBP_BLOCK(a1, a2, b1, b2) >= centre, 64) |         \
     BIT(LBP_BLOCK(a2, a3, b2, b3) >= centre, 32) | BIT(LBP_BLOCK(b2, b3, c2, c3) >= centre, 16) |          \
     BIT(LBP_BLOCK(c2, c3, d2, d3) >= centre, 8) | BIT(LBP_BLOCK(c1, c2, d1, d2) >= centre, 4) |            \
     BIT(LBP_BLOCK(c0, c1, d0, d1) >= centre, 2) | BIT(LBP_BLOCK(b0, b1, c0, c1) >= centre, 1))
/* A true vector comparison is -1 (all bits set), a scalar one 1. */
#define LBP_VECTOR_BIT(comparison, bit) ((comparison) & (bit))
#define LBP_SCALAR_BIT(comparison, bit) ((comparison) ? (bit) : 0)

/* The code of one window: 16 reads of the integral image, written out (CPU
 * compilers otherwise keep a loop and an array on the stack). */
static int lbp_code(__global const integral_t* integral, int pitch, int origin, int4 f)
{
    LBP_LATTICE_ROWS(integral, pitch, origin, f);
    const uint a0 = p0[0], a1 = p0[dx], a2 = p0[2 * dx], a3 = p0[3 * dx];
    const uint b0 = p1[0], b1 = p1[dx], b2 = p1[2 * dx], b3 = p1[3 * dx];
    const uint c0 = p2[0], c1 = p2[dx], c2 = p2[2 * dx], c3 = p2[3 * dx];
    const uint d0 = p3[0], d1 = p3[dx], d2 = p3[2 * dx], d3 = p3[3 * dx];
    const uint centre = LBP_CENTRE;
    return LBP_CODE(LBP_SCALAR_BIT);
}
