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
 *   - a window left alone finishes on its own, stopping at its rejection;
 *   - with a feature that decides the first test by its codes
 *     (FEATURE_FIRST_TEST_CODES, cascade.cl), the first test alone runs on
 *     vectors, and each window that passes it finishes on its own.
 *
 * The feature is reached only through the entry points of kernels/cascade.cl
 * (feature_responses() for 16 windows, feature_response() for one). Sums,
 * thresholds and the accepted records are those of waldboost.cl, so the
 * windows are exactly the CPU reference's.
 *
 * MIN_LANES 2 measured best with PoCL 3.1 on AVX-512 (docs/history.md,
 * "Figures behind the code's choices").
 */

#define LANES SCAN_LANES /* kernels/shared.h */
#define MIN_LANES 2

#ifndef FEATURE_FIRST_TEST_CODES
#define FEATURE_FIRST_TEST_CODES 0
#endif
#if FEATURE_FIRST_TEST_CODES && (FEATURE_NORMALISES || FIRST_TEST != 0)
#error "the first test decided by codes needs a feature without a factor and a test at weak classifier 0"
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

/* The lanes still alive after the first test: those it did not reject,
 * less those OpenCV's skip rule does not visit (with `skip_rule`). Lanes
 * past the row's end are neither alive nor rejected. */
static int16 after_first_test(int16 alive, int16 rejected, bool skip_rule, bool* skip_next, int16 lane_bit)
{
    alive &= ~rejected;
    if (skip_rule) {
        const uint skipped = skipped_lanes(lane_bits(rejected), skip_next);
        alive &= ((int16)skipped & lane_bit) == 0;
    }
    return alive;
}

/* One window through the rest of the cascade, from weak classifier t with
 * the sum so far, on its own; recorded when it passes. */
static void finish_window(const Cascade* c, float norm, int origin, uint index, uint t, long sum, uint* evaluated,
                          __global uchar* first_stage_rejected, __global Accepted* accepted, uint accepted_capacity,
                          __global uint* counters, __global const ScanLevel* levels, int level_count,
                          long final_threshold)
{
    bool alive = true;
    Cascade window = *c;
    window.norm = norm;
    advance(&window, origin, WEAK_COUNT, &t, &sum, &alive, evaluated, first_stage_rejected, index);
    if (alive)
        accept(accepted, accepted_capacity, counters, levels, level_count, index, sum, final_threshold);
}

/* Lanes set (-1) in a mask. */
static uint lanes_set(int16 mask)
{
    const int8 a = mask.lo + mask.hi;
    const int4 b = a.lo + a.hi;
    const int2 d = b.lo + b.hi;
    return (uint)-(d.x + d.y);
}

/* Rows of every level, one work-item each; `levels[].first_row` numbers them.
 * `stop` (CASCADE_ARGS): the host's stop flag (engine/stop_flag.h), read
 * between steps of LANES windows, and with STOP_CHECKS (waldboost.cl) every
 * STOP_STRIDE weak classifiers within one: once raised, the frame's results
 * are incomplete and the host drops them, so a stop waits for no more than a
 * step per row, or STOP_STRIDE weak classifiers of one. */
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
        if (*stop)
            break;
        const int origin = row_origin + column * level.step;
        int16 alive = (int16)column + lane < (int16)level.columns;
#if FEATURE_FIRST_TEST_CODES
        const int16 codes = feature_first_codes(&c, origin, level.step);
        evaluated += lanes_set(alive);
        alive = after_first_test(alive, feature_first_rejected(&c, codes) & alive, level.skip_rule, &skip_next,
                                 lane_bit);
        uint survivors = lane_bits(alive);
        if (survivors == 0)
            continue;
        int code_lane[LANES];
        vstore16(codes, 0, code_lane);
        for (; survivors != 0; survivors &= survivors - 1) {
            const int i = 31 - clz(survivors & -survivors); /* the lowest lane left */
            const long sum = WEAK_COUNT > 1 && resets[0] ? 0 : feature_first_response(&c, code_lane[i]);
            finish_window(&c, 1.0f, origin + i * level.step, row_first + (uint)(column + i), 1, sum, &evaluated,
                          first_stage_rejected, accepted, accepted_capacity, counters, levels, level_count,
                          final_threshold);
        }
#else
        /* Windows whose factor is 0 (Haar's flat windows) are rejected
         * before the first stage, without the skip rule. */
        const float16 norm = feature_window_norms(&c, origin, level.step);
#if FEATURE_NORMALISES
        alive &= norm != (float16)0.0f;
#endif
        long16 sum = 0;
        int t = 0;
        for (; t < WEAK_COUNT; ++t) {
            const uint live = lanes_set(alive);
            if (live == 0 || (t > FIRST_TEST && live < MIN_LANES))
                break;
#ifdef STOP_CHECKS
            if ((t & (STOP_STRIDE - 1)) == 0 && *stop) {
                alive = (int16)0;
                break;
            }
#endif
            evaluated += live;
            sum += feature_responses(&c, origin, level.step, t, norm);
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
        float norm_lane[LANES];
        vstore16(norm, 0, norm_lane);
        for (int i = 0; i < LANES; ++i) {
            if (!alive_lane[i])
                continue;
            const uint index = row_first + (uint)(column + i);
            uint next = (uint)t;
            long window_sum = sum_lane[i];
            bool window_alive = true;
            Cascade window = c;
            window.norm = norm_lane[i];
            advance(&window, origin + i * level.step, WEAK_COUNT, &next, &window_sum, &window_alive, &evaluated,
                    first_stage_rejected, index);
            if (window_alive)
                accept(accepted, accepted_capacity, counters, levels, level_count, index, window_sum, final_threshold);
        }
#endif
    }
    if (evaluated)
        atomic_add(&counters[COUNT_WEAK_EVALUATED], evaluated);
}
