/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's feature values and weight sums per bin (OpenCL C 1.2),
 * the device side of core/training/opencl/training_histograms.cpp; the CPU
 * reference is core/training/histograms.cpp. This file is a program of its
 * own, not part of the detector's.
 *
 * The working set's values are stored plane by plane: plane p (a grid's
 * LBP code, or one of a grid's nine block ranks) of sample i is
 * values[p * capacity + i], so that the work-items of a group, each on
 * its own samples, read neighbouring bytes.
 *
 * The sums are exact: the weights are 64-bit fixed-point integers, added
 * in local memory as two 32-bit halves with the carry of the low half
 * counted by the work-item whose addition caused it (atomic_add returns
 * the old value). Integer sums do not depend on the order of the
 * additions, so they equal the CPU's bit for bit; only 32-bit local
 * atomics are needed (core since OpenCL 1.1), no 64-bit atomics extension.
 *
 * Set by the host:
 *   TRAIN_FAMILY            0 LBP, 1 LRD, 2 LRP
 *   TRAIN_BINS              table entries: 256, 17 or 81
 *   TRAIN_GROUP_CANDIDATES  candidates per work-group
 *   TRAIN_GROUP_SIZE        work-items per work-group; 1 on CPU devices,
 *                           where the sums are plain 64-bit additions
 */

#ifndef TRAIN_FAMILY
#define TRAIN_FAMILY 0
#endif
#ifndef TRAIN_BINS
#define TRAIN_BINS 256
#endif
#ifndef TRAIN_GROUP_CANDIDATES
#define TRAIN_GROUP_CANDIDATES 4
#endif
#ifndef TRAIN_GROUP_SIZE
#define TRAIN_GROUP_SIZE 64
#endif
#ifndef TRAIN_SAMPLE_TILE
#define TRAIN_SAMPLE_TILE 128
#endif

/* The integral image of each window: (width + 1) x (height + 1) sums, the
 * first row and column 0. One work-item per window. */
__kernel void train_integrals(__global const uchar* windows, __global uint* integrals, int width, int height,
                              int count)
{
    const int s = get_global_id(0);
    if (s >= count)
        return;
    const int iw = width + 1;
    __global const uchar* w = windows + (size_t)s * width * height;
    __global uint* out = integrals + (size_t)s * iw * (height + 1);
    for (int x = 0; x < iw; ++x)
        out[x] = 0;
    for (int y = 0; y < height; ++y) {
        uint row = 0;
        out[(y + 1) * iw] = 0;
        for (int x = 0; x < width; ++x) {
            row += w[y * width + x];
            out[(y + 1) * iw + x + 1] = out[y * iw + x + 1] + row;
        }
    }
}

/* The stored bytes of grid g for new sample s (at first_sample + s):
 * the LBP code as lbp_code() gives it, or the nine ranks of block_ranks().
 * grids: x, y, block width, block height per grid. */
__kernel void train_grid_values(__global const uint* integrals, int width, int height, __global const int* grids,
                                int grid_count, __global uchar* values, int capacity, int first_sample, int count)
{
    const int s = get_global_id(0), g = get_global_id(1);
    if (s >= count || g >= grid_count)
        return;
    const int iw = width + 1;
    __global const uint* in = integrals + (size_t)s * iw * (height + 1);
    const int gx = grids[4 * g], gy = grids[4 * g + 1], bw = grids[4 * g + 2], bh = grids[4 * g + 3];
    uint sums[9];
    for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
            const int x = gx + c * bw, y = gy + r * bh;
            /* Wrapped differences are exact: a window's sum fits 32 bits. */
            sums[3 * r + c] = in[(y + bh) * iw + x + bw] - in[y * iw + x + bw] - in[(y + bh) * iw + x] + in[y * iw + x];
        }
    const size_t sample = (size_t)first_sample + s;
#if TRAIN_FAMILY == 0
    /* Clockwise from the top-left block, most significant bit first. */
    const int order[8] = {0, 1, 2, 5, 8, 7, 6, 3};
    uint code = 0;
    for (int k = 0; k < 8; ++k)
        code = (code << 1) | (sums[order[k]] >= sums[4] ? 1u : 0u);
    values[(size_t)g * capacity + sample] = (uchar)code;
#else
    for (int k = 0; k < 9; ++k) {
        uint rank = 0;
        for (int j = 0; j < 9; ++j)
            rank += sums[j] < sums[k] ? 1u : 0u;
        values[((size_t)g * 9 + k) * capacity + sample] = (uchar)rank;
    }
#endif
}

/* values_out's sample k of every plane is values_in's sample source[k]:
 * removing samples (keep) and moving to a larger buffer. */
__kernel void train_gather(__global const uchar* values_in, __global uchar* values_out, int capacity_in,
                           int capacity_out, int planes, __global const int* source, int count)
{
    const int k = get_global_id(0), p = get_global_id(1);
    if (k >= count || p >= planes)
        return;
    values_out[(size_t)p * capacity_out + k] = values_in[(size_t)p * capacity_in + source[k]];
}

#if TRAIN_FAMILY != 0
/* The pairs of blocks a < b in the host's order (block_pairs()). */
__constant uchar kPairA[36] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2,
                               2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 6, 6, 7};
__constant uchar kPairB[36] = {1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 3, 4, 5,
                               6, 7, 8, 4, 5, 6, 7, 8, 5, 6, 7, 8, 6, 7, 8, 7, 8, 8};
#endif

int candidate_bin(__global const uchar* values, int capacity, int candidate, int i)
{
#if TRAIN_FAMILY == 0
    return values[(size_t)candidate * capacity + i];
#else
    const int g = candidate / 36, k = candidate % 36;
    const int ra = values[((size_t)g * 9 + kPairA[k]) * capacity + i];
    const int rb = values[((size_t)g * 9 + kPairB[k]) * capacity + i];
#if TRAIN_FAMILY == 1
    return ra - rb + 8;
#else
    return 9 * ra + rb;
#endif
#endif
}

#if TRAIN_GROUP_SIZE == 1
/* One work-item per group (CPU devices, where a work-group runs on one
 * core): plain 64-bit additions, no atomics. */
#define TRAIN_LOCAL_WORDS (TRAIN_GROUP_CANDIDATES * 2 * TRAIN_BINS)
#else
#define TRAIN_LOCAL_WORDS (TRAIN_GROUP_CANDIDATES * 2 * TRAIN_BINS * 2)
#endif

/* The weight sums per bin of candidates first_candidate ..
 * first_candidate + candidates - 1, TRAIN_GROUP_CANDIDATES per work-group,
 * into sums (from candidate first_candidate on): per candidate TRAIN_BINS
 * sums of the negatives, then of the positives. */
__kernel void train_histograms(__global const uchar* values, __global const uchar* labels,
                               __global const ulong* weights, int capacity, int count, int first_candidate,
                               int candidates, __global ulong* sums)
{
    const int offset = get_group_id(0) * TRAIN_GROUP_CANDIDATES;
    const int mine = min(TRAIN_GROUP_CANDIDATES, candidates - offset);
#if TRAIN_GROUP_SIZE == 1
    __local ulong hist[TRAIN_LOCAL_WORDS];
    for (int k = 0; k < TRAIN_LOCAL_WORDS; ++k)
        hist[k] = 0;
    /* Samples in tiles, candidate by candidate within a tile: each
     * candidate's values are read in runs, its sums stay in the L1 cache. */
    for (int i0 = 0; i0 < count; i0 += TRAIN_SAMPLE_TILE) {
        const int i1 = min(count, i0 + TRAIN_SAMPLE_TILE);
        for (int c = 0; c < mine; ++c) {
            __local ulong* h = hist + c * 2 * TRAIN_BINS;
            const int candidate = first_candidate + offset + c;
            for (int i = i0; i < i1; ++i)
                h[(labels[i] ? TRAIN_BINS : 0) + candidate_bin(values, capacity, candidate, i)] += weights[i];
        }
    }
    for (int k = 0; k < mine * 2 * TRAIN_BINS; ++k)
        sums[(size_t)offset * 2 * TRAIN_BINS + k] = hist[k];
#else
    /* Per candidate, side and bin: the low and the high 32 bits. */
    __local uint hist[TRAIN_LOCAL_WORDS];
    const int lid = get_local_id(0);
    for (int k = lid; k < TRAIN_LOCAL_WORDS; k += TRAIN_GROUP_SIZE)
        hist[k] = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int i = lid; i < count; i += TRAIN_GROUP_SIZE) {
        const ulong w = weights[i];
        if (w == 0)
            continue; /* the calibrating positives */
        const uint lo = (uint)w, hi = (uint)(w >> 32);
        const int side = labels[i] ? TRAIN_BINS : 0;
        for (int c = 0; c < mine; ++c) {
            const int bin = candidate_bin(values, capacity, first_candidate + offset + c, i);
            __local uint* h = hist + 2 * (c * 2 * TRAIN_BINS + side + bin);
            const uint old = atomic_add(h, lo);
            const uint carry = old > 0xffffffffu - lo ? 1u : 0u;
            if (hi + carry)
                atomic_add(h + 1, hi + carry);
        }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = lid; k < mine * 2 * TRAIN_BINS; k += TRAIN_GROUP_SIZE)
        sums[(size_t)offset * 2 * TRAIN_BINS + k] = ((ulong)hist[2 * k + 1] << 32) | hist[2 * k];
#endif
}
