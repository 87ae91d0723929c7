/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Haar features as OpenCV evaluates them (the C++ copy is haar_feature_sum()
 * and haar_norm_factor() in gst/core/reference/detector.cpp), and the two
 * extra integral images they read: squared pixels (for the window's
 * variance) and OpenCV's tilted integral. Built only for Haar classifiers
 * (-D HAAR, with WINDOW_WIDTH and WINDOW_HEIGHT, and HAAR_TILTED when some
 * feature is tilted); every integral image is then 32 bits.
 *
 * The arithmetic is OpenCV's, operation for operation, so that every
 * comparison with a node threshold goes the same way: rectangle sums are
 * ints converted to float, the feature is w0 s0 + w1 s1 (+ w2 s2 when w2 is
 * not 0) in float without fused multiply-adds, and the norm factor is
 * (float)(1 / sqrt(double)), for which the device needs cl_khr_fp64 (OpenCL
 * requires double division and sqrt to be correctly rounded).
 */
#ifdef HAAR
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* The reduction's stumps (GPUs) add the third rectangle unconditionally:
 * an absent one is all zeros with weight 0 and adds +-0, which changes no
 * comparison with a threshold. Without the branch, step 2 can unroll its
 * segments and issue several stumps' reads at once (H200, 1080p: step 2
 * 0.52 -> 0.48 ms). Tilted features keep their test on n->tilted, and the
 * row scan (CPUs) its vector code in scan_rows.cl. */
#if defined(HAAR_STUMPS) && !defined(HAAR_TILTED) && !defined(ROW_SCAN)
#define HAAR_BRANCH_FREE 1
#endif
#pragma OPENCL FP_CONTRACT OFF

/* An upright rectangle's sum from its corners, at p in the integral image. */
static int haar_upright_sum(__global const uint* ii, int pitch, int p, int width, int height)
{
    const int below = height * pitch;
    return (int)(ii[p] - ii[p + width] - ii[p + below] + ii[p + below + width]);
}

/* A 45-degree rectangle's sum from the tilted integral: its corners are
 * (x, y), (x - h, y + h), (x + w, y + w) and (x + w - h, y + w + h). */
static int haar_tilted_sum(__global const uint* tilted, int pitch, int p, int width, int height)
{
    return (int)(tilted[p] - tilted[p - height + height * pitch] - tilted[p + width + width * pitch] +
                 tilted[p + width - height + (width + height) * pitch]);
}

static int haar_rect_sum(__global const uint* integral, __global const uint* tilted, int pitch, int origin,
                         __global const HaarNode* n, int i)
{
    const int4 r = vload4(i, n->rects);
    const int p = origin + r.y * pitch + r.x;
#ifdef HAAR_TILTED /* only classifiers with tilted features pay for the test */
    if (n->tilted)
        return haar_tilted_sum(tilted, pitch, p, r.z, r.w);
#endif
    return haar_upright_sum(integral, pitch, p, r.z, r.w);
}

/* The node's feature value before normalisation. */
static float haar_feature(__global const uint* integral, __global const uint* tilted, int pitch, int origin,
                          __global const HaarNode* n)
{
    const float first = n->weights[0] * (float)haar_rect_sum(integral, tilted, pitch, origin, n, 0);
    const float second = n->weights[1] * (float)haar_rect_sum(integral, tilted, pitch, origin, n, 1);
    float value = first + second;
#ifdef HAAR_BRANCH_FREE
    value += n->weights[2] * (float)haar_rect_sum(integral, tilted, pitch, origin, n, 2);
#else
    if (n->weights[2] != 0.0f) {
        const float third = n->weights[2] * (float)haar_rect_sum(integral, tilted, pitch, origin, n, 2);
        value += third;
    }
#endif
    return value;
}

/* The window's variance norm factor over its inner area (the window less a
 * one-pixel border), or 0 for a window OpenCV skips as flat (standard
 * deviation <= 10): such a window is rejected before the first stage and,
 * unlike a first-stage rejection, does not make OpenCV skip the next
 * position. nf is an exact integer below 2^53 in double. */
#define HAAR_INNER_WIDTH (WINDOW_WIDTH - 2)
#define HAAR_INNER_HEIGHT (WINDOW_HEIGHT - 2)
static float haar_norm_of(int sum, uint squares)
{
    const double area = (double)(HAAR_INNER_WIDTH * HAAR_INNER_HEIGHT);
    const double nf = area * (double)squares - (double)sum * (double)sum;
    if (!(nf > 0.0))
        return 0.0f;
    const float factor = (float)(1.0 / sqrt(nf));
    return area * (double)factor < 0.1 ? factor : 0.0f;
}

static float haar_norm(__global const uint* integral, __global const uint* squares, int pitch, int origin)
{
    const int p = origin + pitch + 1;
    const int sum = haar_upright_sum(integral, pitch, p, HAAR_INNER_WIDTH, HAAR_INNER_HEIGHT);
    const uint squared = (uint)haar_upright_sum(squares, pitch, p, HAAR_INNER_WIDTH, HAAR_INNER_HEIGHT);
    return haar_norm_of(sum, squared);
}

/* The squared integral on GPUs reuses the band passes of pyramid.cl over
 * the stored canvas: this is their first pass, the band sums of the squared
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
