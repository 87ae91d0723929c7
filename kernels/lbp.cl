/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The multi-block LBP feature, the kernels' one copy of it (the C++ one is
 * lbp_code() in gst/core/reference/detector.cpp), and its entry points for
 * the scans (kernels/cascade.cl). A feature is a 3x3 grid of blocks of
 * f.z x f.w pixels at (f.x, f.y) in the window; its 16 block corners form a
 * 4x4 lattice of integral-image values a0..d3 (rows a to d, columns 0 to 3),
 * read by common.cl's grid macros. Bits of the code, from the most
 * significant: the top-left, top, top-right, right, bottom-right, bottom,
 * bottom-left and left block, set when that block's sum is >= the centre
 * block's.
 *
 * The same macros build one window's code (scalars) and 16 windows' codes
 * at once (vectors, the row scan in scan_rows.cl).
 *
 * Build defines (gst/core/opencl/features/lbp_kind.cpp): STUMPS when every
 * table holds at most two values (OpenCV's stumps); FIRST_TEST_CODES when
 * the tables are not stumps and the first weak classifier has a rejection
 * test (a WaldBoost sequence), so that the record of the codes that test
 * rejects follows the tables.
 */

#define FEATURE_NORMALISES 0
#define FEATURE_UNROLLS 1

/* The grid's lattice rows and block sums are common.cl's GRID_LATTICE_ROWS
 * and GRID_BLOCK, shared with the rank features (rank.cl). */
#define LBP_BLOCK GRID_BLOCK
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
    GRID_LATTICE_ROWS(integral, pitch, origin, f);
    GRID_LATTICE(uint, GRID_SCALAR);
    const uint centre = LBP_CENTRE;
    return LBP_CODE(LBP_SCALAR_BIT);
}

#ifdef STUMPS
/* A stump record (lbp_kind.cpp), after the WEAK_COUNT tables: 256 bits, a
 * set bit meaning the code's response is the second value, then the two
 * values. 48 bytes instead of a 2 KiB table keep the whole classifier in
 * the first-level cache, and a warp's 32 codes hit one 32-byte word array. */
static __global const long* stump(const Cascade* c, int t)
{
    return c->responses + WEAK_COUNT * 256 + t * STUMP_LONGS;
}
#endif

static float feature_window_norm(const Cascade* c, int origin) { return 1.0f; }

static long feature_response(const Cascade* c, int origin, int t)
{
    const int code = lbp_code(c->integral, c->pitch, origin, c->features[t]);
#if defined(STUMPS) && defined(ROW_SCAN)
    /* A window at a time on CPUs: the bit indexes the two values. */
    __global const long* s = stump(c, t);
    const uint word = ((__global const uint*)s)[code >> 5];
    return s[4 + ((word >> (code & 31)) & 1)];
#elif defined(STUMPS)
    /* The values do not depend on the code: only the word's load waits for
     * the integral image's. */
    __global const long* s = stump(c, t);
    const long first = s[4], second = s[5];
    const uint word = ((__global const uint*)s)[code >> 5];
    return (word >> (code & 31)) & 1 ? second : first;
#else
    return c->responses[t * 256 + code];
#endif
}

static int feature_segment_end(const Cascade* c, int t, int stop) { return threshold_segment_end(c, t, stop); }

#ifdef ROW_SCAN
/* The codes of 16 windows `step` apart. */
static int16 lbp_codes(const Cascade* c, int origin, int step, int4 f)
{
    GRID_LATTICE_ROWS(c->integral, c->pitch, origin, f);
    GRID_LATTICE(uint16, GRID_LANES);
    const uint16 centre = LBP_CENTRE;
    return LBP_CODE(LBP_VECTOR_BIT);
}

static float16 feature_window_norms(const Cascade* c, int origin, int step) { return (float16)1.0f; }

/* Each code's bit (0 or 1) in a set of 256 bits held as 8 words at `bits`.
 * The word of a code, word (code >> 5), is picked by a tree of selects on
 * the index bits (select() tests the most significant bit): compilers turn
 * a variable shuffle() into a store and 16 loads. */
static int16 code_bits(__global const uint* bits, int16 codes)
{
    const uint8 w = vload8(0, bits);
    const uint16 index = convert_uint16(codes) >> 5;
    const uint16 bit0 = index << 31, bit1 = index << 30, bit2 = index << 29;
    const uint16 w01 = select((uint16)w.s0, (uint16)w.s1, bit0), w23 = select((uint16)w.s2, (uint16)w.s3, bit0);
    const uint16 w45 = select((uint16)w.s4, (uint16)w.s5, bit0), w67 = select((uint16)w.s6, (uint16)w.s7, bit0);
    const uint16 word = select(select(w01, w23, bit1), select(w45, w67, bit1), bit2);
    return convert_int16((word >> convert_uint16(codes & 31)) & 1);
}

#ifdef FIRST_TEST_CODES
/* The first weak classifier's response is the whole sum at its test, so
 * the codes that test rejects are a set: the record after the tables
 * (lbp_kind.cpp). The row scan then decides the test of 16 windows without
 * their responses, whose 16 table reads (a gather) were about a third of a
 * trained sequence's scan on PoCL, and reads one only for a window that
 * lives on (cascade.cl). */
#define FEATURE_FIRST_TEST_CODES 1

static int16 feature_first_codes(const Cascade* c, int origin, int step)
{
    return lbp_codes(c, origin, step, c->features[0]);
}

static int16 feature_first_rejected(const Cascade* c, int16 codes)
{
    return code_bits((__global const uint*)(c->responses + WEAK_COUNT * 256), codes) != 0;
}

static long feature_first_response(const Cascade* c, int code) { return c->responses[code]; }
#endif

static long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
{
    const int16 codes = lbp_codes(c, origin, step, c->features[t]);
#ifdef STUMPS
    __global const long* s = stump(c, t);
    const long16 second = convert_long16(code_bits((__global const uint*)s, codes));
    return select((long16)s[4], (long16)s[5], -second);
#else
    __global const long* table = c->responses + t * 256;
    int code[SCAN_LANES];
    long value[SCAN_LANES];
    vstore16(codes, 0, code);
    for (int i = 0; i < SCAN_LANES; ++i)
        value[i] = table[code[i]];
    return vload16(0, value);
#endif
}
#endif
