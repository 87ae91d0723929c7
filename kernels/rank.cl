/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The rank features LRD and LRP (docs/classifiers.md), the kernels' one copy
 * of them (the C++ one is rank_index() in gst/core/reference/detector.cpp),
 * and their entry points for the scans (kernels/cascade.cl). They read the
 * nine block sums of the MB-LBP grid through the same macros as lbp.cl
 * (common.cl). Blocks are numbered 0 to 8 in row order; the rank of block
 * k is how many of the other eight sums are strictly smaller, so equal sums
 * share a rank. Both ranks come from the sums as they are, modulo
 * 2^INTEGRAL_BITS, exact for the same reason LBP codes are.
 *
 * features[t] (rank_kind.cpp): x, y, block width | block a << 16, block
 * height | block b << 16.
 *
 * Build defines (gst/core/opencl/features/rank_kind.cpp): RANK_TABLE,
 * responses per weak classifier (17 or 81); RANK_PAIRS for LRP
 * (9 R_a + R_b), else LRD (R_a - R_b + 8).
 */

#define FEATURE_NORMALISES 0
#define FEATURE_UNROLLS 1

#define RANK_GRID(packed) ((int4)((packed).x, (packed).y, (packed).z & 0xFFFF, (packed).w & 0xFFFF))
#define RANK_BLOCK_A(packed) ((packed).z >> 16)
#define RANK_BLOCK_B(packed) ((packed).w >> 16)
/* The nine sums in row order, from a0..d3. */
#define RANK_SUMS(type)                                                                                      \
    const type s[9] = {GRID_BLOCK(a0, a1, b0, b1), GRID_BLOCK(a1, a2, b1, b2), GRID_BLOCK(a2, a3, b2, b3),   \
                       GRID_BLOCK(b0, b1, c0, c1), GRID_BLOCK(b1, b2, c1, c2), GRID_BLOCK(b2, b3, c2, c3),   \
                       GRID_BLOCK(c0, c1, d0, d1), GRID_BLOCK(c1, c2, d1, d2), GRID_BLOCK(c2, c3, d2, d3)}

#ifdef RANK_PAIRS
#define RANK_INDEX(rank_a, rank_b) (9 * (rank_a) + (rank_b))
#else
#define RANK_INDEX(rank_a, rank_b) ((rank_a) - (rank_b) + 8)
#endif

/* The table index of one window. */
static int rank_index(__global const integral_t* integral, int pitch, int origin, int4 packed)
{
    const int4 f = RANK_GRID(packed);
    GRID_LATTICE_ROWS(integral, pitch, origin, f);
    GRID_LATTICE(uint, GRID_SCALAR);
    RANK_SUMS(uint);
    const uint sum_a = s[RANK_BLOCK_A(packed)], sum_b = s[RANK_BLOCK_B(packed)];
    /* A block is never strictly smaller than itself: no need to skip it. */
    int rank_a = 0, rank_b = 0;
    for (int k = 0; k < 9; ++k) {
        rank_a += s[k] < sum_a ? 1 : 0;
        rank_b += s[k] < sum_b ? 1 : 0;
    }
    return RANK_INDEX(rank_a, rank_b);
}

static float feature_window_norm(const Cascade* c, int origin) { return 1.0f; }

static long feature_response(const Cascade* c, int origin, int t)
{
    return c->responses[t * RANK_TABLE + rank_index(c->integral, c->pitch, origin, c->features[t])];
}

static int feature_segment_end(const Cascade* c, int t, int stop) { return threshold_segment_end(c, t, stop); }

#ifdef ROW_SCAN
static float16 feature_window_norms(const Cascade* c, int origin, int step) { return (float16)1.0f; }

/* 16 windows `step` apart: the feature's blocks a and b are the same for
 * every lane, so only the sums are vectors. */
static long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
{
    const int4 packed = c->features[t];
    const int4 f = RANK_GRID(packed);
    GRID_LATTICE_ROWS(c->integral, c->pitch, origin, f);
    GRID_LATTICE(uint16, GRID_LANES);
    RANK_SUMS(uint16);
    const uint16 sum_a = s[RANK_BLOCK_A(packed)], sum_b = s[RANK_BLOCK_B(packed)];
    /* A true vector comparison is -1. */
    int16 rank_a = 0, rank_b = 0;
    for (int k = 0; k < 9; ++k) {
        rank_a -= s[k] < sum_a;
        rank_b -= s[k] < sum_b;
    }
    int index[SCAN_LANES];
    long value[SCAN_LANES];
    vstore16(RANK_INDEX(rank_a, rank_b), 0, index);
    __global const long* table = c->responses + t * RANK_TABLE;
    for (int i = 0; i < SCAN_LANES; ++i)
        value[i] = table[index[i]];
    return vload16(0, value);
}
#endif
