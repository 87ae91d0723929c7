/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The scan for CPU devices (OpenCL C 1.2; built after waldboost.cl, whose
 * types and helpers it uses). A CPU driver runs a work-group as a loop over
 * its work-items, so the GPU reduction's synchronised rounds and compactions
 * only add passes over memory there. Instead each work-item walks one row of
 * one pyramid level from left to right, as OpenCV does:
 *
 *   - LANES neighbouring windows at a time go through the cascade on vectors
 *     (one SIMD instruction serves all of them; their integral-image reads
 *     are contiguous loads) while at least MIN_LANES of them live;
 *   - OpenCV's "skip the position after a first-stage rejection" is applied
 *     in row order as soon as the first rejection test is known, so skipped
 *     windows do no further work and apply_skip_rule is not needed;
 *   - a window left alone finishes on its own, stopping at its rejection.
 *
 * With OpenCV's stump cascades (-D STUMPS) responses come from 48-byte stump
 * records instead of 2 KiB tables, which keeps the classifier in the
 * first-level cache. Sums, thresholds and the accepted records are those of
 * waldboost.cl, so the windows are exactly the CPU reference's.
 *
 * MIN_LANES 2 measured best with PoCL 3.1 on AVX-512 (1920x1080,
 * lbpcascade_frontalface: 10% fewer cycles than 4 and 5% fewer than 1).
 */

#define LANES SCAN_LANES /* kernels/shared.h */
#define MIN_LANES 2

/* PoCL 3.1 left some of the 16-lane helpers as calls, passing the vectors
 * on a realigned stack: inlined, the Haar row scan took 23% less time
 * (720x528, haarcascade_frontalface_default, AVX-512). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* Integral-image values at p, p + step, ... p + 15 step: the same corner of
 * 16 neighbouring windows. The buffer is padded so reads past a row's last
 * window stay inside it (those lanes are never used). */
static ALWAYS_INLINE uint16 load_lanes(__global const uint* p, int step)
{
    if (step == 1)
        return vload16(0, p);
    if (step == 2)
        return (uint16)(vload16(0, p).even, vload16(1, p).even);
    uint v[LANES];
    for (int i = 0; i < LANES; ++i)
        v[i] = p[i * step];
    return vload16(0, v);
}

/* The codes of 16 windows `step` apart (kernels/lbp.cl). */
static int16 lbp_codes(const Cascade* c, int origin, int step, int4 f)
{
    LBP_LATTICE_ROWS(c->integral, c->pitch, origin, f);
    const uint16 a0 = load_lanes(p0, step), a1 = load_lanes(p0 + dx, step), a2 = load_lanes(p0 + 2 * dx, step),
                 a3 = load_lanes(p0 + 3 * dx, step);
    const uint16 b0 = load_lanes(p1, step), b1 = load_lanes(p1 + dx, step), b2 = load_lanes(p1 + 2 * dx, step),
                 b3 = load_lanes(p1 + 3 * dx, step);
    const uint16 c0 = load_lanes(p2, step), c1 = load_lanes(p2 + dx, step), c2 = load_lanes(p2 + 2 * dx, step),
                 c3 = load_lanes(p2 + 3 * dx, step);
    const uint16 d0 = load_lanes(p3, step), d1 = load_lanes(p3 + dx, step), d2 = load_lanes(p3 + 2 * dx, step),
                 d3 = load_lanes(p3 + 3 * dx, step);
    const uint16 centre = LBP_CENTRE;
    return LBP_CODE(LBP_VECTOR_BIT);
}

#ifdef STUMPS
/* Stump records: stump() in waldboost.cl. */
static long16 responses_of(const Cascade* c, int t, int16 codes)
{
    __global const long* s = stump(c, t);
    const uint8 w = vload8(0, (__global const uint*)s);
    /* The word of each code's bit, word (code >> 5) of 8, by a tree of
     * selects on the index bits (select() tests the most significant bit):
     * compilers turn a variable shuffle() into a store and 16 loads. */
    const uint16 index = convert_uint16(codes) >> 5;
    const uint16 bit0 = index << 31, bit1 = index << 30, bit2 = index << 29;
    const uint16 w01 = select((uint16)w.s0, (uint16)w.s1, bit0), w23 = select((uint16)w.s2, (uint16)w.s3, bit0);
    const uint16 w45 = select((uint16)w.s4, (uint16)w.s5, bit0), w67 = select((uint16)w.s6, (uint16)w.s7, bit0);
    const uint16 word = select(select(w01, w23, bit1), select(w45, w67, bit1), bit2);
    const long16 second = convert_long16((word >> convert_uint16(codes & 31)) & 1);
    return select((long16)s[4], (long16)s[5], -second);
}

static long stump_response(const Cascade* c, int origin, int t)
{
    __global const long* s = stump(c, t);
    const int code = lbp_code(c->integral, c->pitch, origin, c->features[t]);
    const uint word = ((__global const uint*)s)[code >> 5];
    return s[4 + ((word >> (code & 31)) & 1)];
}

/* advance() of waldboost.cl, reading stumps: the rest of one window's
 * cascade, stopping at its first rejection (after FIRST_TEST, so the skip
 * rule is not concerned). */
static void advance_stumps(const Cascade* c, int origin, uint* t, long* sum, bool* alive, uint* evaluated)
{
    while (*alive && (int)*t < WEAK_COUNT) {
        const int k = (int)*t;
        *sum += stump_response(c, origin, k);
        ++*evaluated;
        ++*t;
        if (*sum < c->thresholds[k])
            *alive = false;
        else if (c->resets[k] && k + 1 < WEAK_COUNT)
            *sum = 0;
    }
}
#else
static long16 responses_of(const Cascade* c, int t, int16 codes)
{
    __global const long* table = c->responses + t * 256;
    int code[LANES];
    long value[LANES];
    vstore16(codes, 0, code);
    for (int i = 0; i < LANES; ++i)
        value[i] = table[code[i]];
    return vload16(0, value);
}
#endif

#ifdef HAAR
/* Haar features of 16 windows `step` apart, in haar.cl's operations on
 * vectors: the corners are gathered as lbp_codes gathers them. */
static ALWAYS_INLINE int16 haar_upright_lanes(__global const uint* ii, int pitch, int p, int step, int width, int height)
{
    const int below = height * pitch;
    return as_int16(load_lanes(ii + p, step) - load_lanes(ii + p + width, step) - load_lanes(ii + p + below, step) +
                    load_lanes(ii + p + below + width, step));
}

static ALWAYS_INLINE int16 haar_rect_lanes(const Cascade* c, int origin, int step, __global const HaarNode* n, int i)
{
    const int4 r = vload4(i, n->rects);
    const int p = origin + r.y * c->pitch + r.x;
#ifdef HAAR_TILTED
    if (!n->tilted)
#endif
        return haar_upright_lanes(c->integral, c->pitch, p, step, r.z, r.w);
    __global const uint* t = c->tilted;
    const int pitch = c->pitch;
    return as_int16(load_lanes(t + p, step) - load_lanes(t + p - r.w + r.w * pitch, step) -
                    load_lanes(t + p + r.z + r.z * pitch, step) +
                    load_lanes(t + p + r.z - r.w + (r.z + r.w) * pitch, step));
}

static ALWAYS_INLINE float16 haar_feature_lanes(const Cascade* c, int origin, int step, __global const HaarNode* n)
{
    const float16 first = (float16)n->weights[0] * convert_float16(haar_rect_lanes(c, origin, step, n, 0));
    const float16 second = (float16)n->weights[1] * convert_float16(haar_rect_lanes(c, origin, step, n, 1));
    float16 value = first + second;
    if (n->weights[2] != 0.0f) {
        const float16 third = (float16)n->weights[2] * convert_float16(haar_rect_lanes(c, origin, step, n, 2));
        value += third;
    }
    return value;
}

/* haar_norm_of() for 16 windows. */
static ALWAYS_INLINE float16 haar_norm_lanes(const Cascade* c, int origin, int step)
{
    const int p = origin + c->pitch + 1;
    const double16 sum =
        convert_double16(haar_upright_lanes(c->integral, c->pitch, p, step, HAAR_INNER_WIDTH, HAAR_INNER_HEIGHT));
    const double16 squares = convert_double16(
        as_uint16(haar_upright_lanes(c->squares, c->pitch, p, step, HAAR_INNER_WIDTH, HAAR_INNER_HEIGHT)));
    const double16 area = (double16)(HAAR_INNER_WIDTH * HAAR_INNER_HEIGHT);
    const double16 nf = area * squares - sum * sum;
    const float16 factor = convert_float16(1.0 / sqrt(nf));
    const long16 kept = (nf > 0.0) & (area * convert_double16(factor) < 0.1);
    return select((float16)0.0f, factor, convert_int16(kept));
}

/* The responses of weak classifier t for 16 windows with these norm
 * factors: stumps on vectors, deeper trees a window at a time. */
static ALWAYS_INLINE long16 haar_responses_of(const Cascade* c, int origin, int step, int t, float16 norm)
{
#ifdef HAAR_STUMPS
    __global const HaarNode* n = c->nodes + t;
    const float16 value = haar_feature_lanes(c, origin, step, n) * norm;
    /* Stump t's left and right values (haar_response() in waldboost.cl). */
    const long left = c->responses[2 * t], right = c->responses[2 * t + 1];
    return select((long16)right, (long16)left, convert_long16(value < (float16)n->threshold));
#else
    float lane_norm[LANES];
    long value[LANES];
    vstore16(norm, 0, lane_norm);
    Cascade window = *c;
    for (int i = 0; i < LANES; ++i) {
        window.norm = lane_norm[i];
        value[i] = haar_response(&window, origin + i * step, t);
    }
    return vload16(0, value);
#endif
}
#endif

/* The lanes set (-1) in a mask, as bits. */
static uint lane_bits(int16 mask)
{
    const int16 bits = mask & (int16)(1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768);
    const int8 a = bits.lo | bits.hi;
    const int4 b = a.lo | a.hi;
    const int2 d = b.lo | b.hi;
    return (uint)(d.x | d.y);
}

/* OpenCV's skip rule for 16 neighbouring positions at once: the positions
 * it does not visit, as bits, given those rejected at the first test.
 * *skip_next carries "the last position was visited and rejected" from one
 * call to the next. In a run of rejected positions the visited ones
 * alternate from the run's first, so they are the run's bits of the same
 * parity as its first; adding a run's first bit to the mask clears exactly
 * that run, which sorts the runs by the parity of their first bit. */
static uint skipped_lanes(uint rejected, bool* skip_next)
{
    const uint carry = *skip_next ? 1u : 0u; /* lane 0 is skipped and so cannot skip lane 1 */
    const uint r = rejected & ~carry;
    const uint even = 0x5555u;
    const uint first = r & ~(r << 1);
    const uint even_runs = r & ~(r + (first & even));
    const uint visited_rejected = (even_runs & even) | (r & ~even_runs & ~even);
    *skip_next = (visited_rejected >> 15) & 1u;
    return ((visited_rejected << 1) | carry) & 0xffffu;
}

/* Lanes set (-1) in a mask. */
static uint lanes_set(int16 mask)
{
    const int8 a = mask.lo + mask.hi;
    const int4 b = a.lo + a.hi;
    const int2 d = b.lo + b.hi;
    return (uint)-(d.x + d.y);
}

/* Rows of every level, one work-item each; `levels[].first_row` numbers them. */
__kernel void scan_rows(CASCADE_ARGS, __global const ScanLevel* levels, int level_count, uint total_rows,
                        __global Accepted* accepted, uint accepted_capacity, __global uint* counters,
                        __global uchar* first_stage_rejected)
{
    MAKE_CASCADE();
    const uint row_index = get_global_id(0);
    if (row_index >= total_rows)
        return;
    int lo = 0, hi = level_count - 1;
    while (lo < hi) {
        const int mid = (lo + hi + 1) >> 1;
        if ((uint)levels[mid].first_row <= row_index)
            lo = mid;
        else
            hi = mid - 1;
    }
    const ScanLevel level = levels[lo];
    const int row = (int)row_index - level.first_row;
    const uint row_first = level.first + (uint)(row * level.columns);
    const int row_origin = level.origin + row * level.step * pitch;
    const int16 lane = (int16)(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int16 lane_bit = (int16)1 << lane;
    uint evaluated = 0;
    /* OpenCV's skip rule: the position after one that was visited and
     * rejected at the first test is not visited. */
    bool skip_next = false;

    for (int column = 0; column < level.columns; column += LANES) {
        const int origin = row_origin + column * level.step;
        int16 alive = (int16)column + lane < (int16)level.columns;
#ifdef HAAR
        /* Flat windows are rejected before the first stage, without the
         * skip rule (haar.cl). */
        const float16 norm = haar_norm_lanes(&c, origin, level.step);
        alive &= norm != (float16)0.0f;
#endif
        long16 sum = 0;
        int t = 0;
        for (; t < WEAK_COUNT; ++t) {
            const uint live = lanes_set(alive);
            if (live == 0 || (t > FIRST_TEST && live < MIN_LANES))
                break;
            evaluated += live;
#ifdef HAAR
            sum += haar_responses_of(&c, origin, level.step, t, norm);
#else
            sum += responses_of(&c, t, lbp_codes(&c, origin, level.step, features[t]));
#endif
            const long threshold = thresholds[t];
            if (threshold != NO_THRESHOLD) {
                const int16 rejected = convert_int16(sum < (long16)threshold) & alive;
                alive &= ~rejected;
                if (t == FIRST_TEST && level.skip_rule) {
                    /* Lanes past the row's end are neither alive nor rejected. */
                    const uint skipped = skipped_lanes(lane_bits(rejected), &skip_next);
                    alive &= ((int16)skipped & lane_bit) == 0;
                }
            }
            if (resets[t] && t + 1 < WEAK_COUNT)
                sum = 0;
        }
        if (!any(alive))
            continue;

        /* The survivors, one at a time through the rest of the cascade. */
        int alive_lane[LANES];
        long sum_lane[LANES];
        vstore16(alive, 0, alive_lane);
        vstore16(sum, 0, sum_lane);
#ifdef HAAR
        float norm_lane[LANES];
        vstore16(norm, 0, norm_lane);
#endif
        for (int i = 0; i < LANES; ++i) {
            if (!alive_lane[i])
                continue;
            const uint index = row_first + (uint)(column + i);
            uint next = (uint)t;
            long window_sum = sum_lane[i];
            bool window_alive = true;
#ifdef HAAR
            Cascade window = c;
            window.norm = norm_lane[i];
            advance(&window, origin + i * level.step, WEAK_COUNT, &next, &window_sum, &window_alive, &evaluated,
                    first_stage_rejected, index);
#elif defined(STUMPS)
            advance_stumps(&c, origin + i * level.step, &next, &window_sum, &window_alive, &evaluated);
#else
            advance(&c, origin + i * level.step, WEAK_COUNT, &next, &window_sum, &window_alive, &evaluated,
                    first_stage_rejected, index);
#endif
            if (window_alive)
                accept(accepted, accepted_capacity, counters, levels, level_count, index, window_sum, final_threshold);
        }
    }
    if (evaluated)
        atomic_add(&counters[COUNT_WEAK_EVALUATED], evaluated);
}
