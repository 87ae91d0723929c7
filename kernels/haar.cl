/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Haar features as OpenCV evaluates them (the C++ copy is haar_feature_sum()
 * and haar_norm_factor() in gst/core/reference/detector.cpp), and their
 * entry points for the scans (kernels/cascade.cl). They read two more
 * integral images (kernels/pyramid.cl): squared pixels (for the window's
 * variance) and, with tilted features, OpenCV's tilted integral; every
 * integral image is then 32 bits.
 *
 * Build defines (gst/core/opencl/features/haar_kind.cpp): WINDOW_WIDTH and
 * WINDOW_HEIGHT; HAAR_STUMPS when every tree is one node; HAAR_TILTED when
 * some feature is tilted; STEP4_SEGMENTS for long stages (waldboost.cl).
 *
 * The arithmetic is OpenCV's, operation for operation, so that every
 * comparison with a node threshold goes the same way: rectangle sums are
 * ints converted to float, the feature is w0 s0 + w1 s1 (+ w2 s2 when w2 is
 * not 0) in float without fused multiply-adds, and the norm factor is
 * (float)(1 / sqrt(double)), for which the device needs cl_khr_fp64 (OpenCL
 * requires double division and sqrt to be correctly rounded).
 */
#pragma OPENCL EXTENSION cl_khr_fp64 : enable

/* The reduction's stumps (GPUs) add the third rectangle unconditionally:
 * an absent one is all zeros with weight 0 and adds +-0, which changes no
 * comparison with a threshold. Without the branch, step 2 can unroll its
 * segments and issue several stumps' reads at once (docs/history.md, round
 * 9). Tilted features keep their test on n->tilted, and the row scan (CPUs)
 * its vector code below. */
#if defined(HAAR_STUMPS) && !defined(HAAR_TILTED) && !defined(ROW_SCAN)
#define HAAR_BRANCH_FREE 1
#define FEATURE_UNROLLS 1
#else
#define FEATURE_UNROLLS 0
#endif
#define FEATURE_NORMALISES 1
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

/* The leaf the window reaches in weak classifier t's tree. */
static long feature_response(const Cascade* c, int origin, int t)
{
#ifdef HAAR_STUMPS
    /* Every tree is one node, node t, whose left and right values are
     * responses 2t and 2t + 1 (haar_kind.cpp). */
    __global const HaarNode* n = c->nodes + t;
#ifdef ROW_SCAN
    /* The row scan (CPU devices): the comparison indexes them. A choice
     * between two loaded values compiled to a branch, mispredicted about as
     * often as a stump goes either way. */
    const float value = haar_feature(c->integral, c->tilted, c->pitch, origin, n) * c->norm;
    return c->responses[2 * t + (value < n->threshold ? 0 : 1)];
#else
    /* The reduction (GPUs) selects without branching: both values load
     * while the feature's sums do, and only the choice waits for them. */
    const long left = c->responses[2 * t], right = c->responses[2 * t + 1];
    const float value = haar_feature(c->integral, c->tilted, c->pitch, origin, n) * c->norm;
    return value < n->threshold ? left : right;
#endif
#else
    int node = c->features[t].x;
    for (;;) {
        __global const HaarNode* n = c->nodes + node;
        const float value = haar_feature(c->integral, c->tilted, c->pitch, origin, n) * c->norm;
        const int next = value < n->threshold ? n->left : n->right;
        if (next < 0)
            return c->responses[-1 - next];
        node = next;
    }
#endif
}

/* The window's norm factor (0: a flat window, rejected before any weak
 * classifier). */
static float feature_window_norm(const Cascade* c, int origin)
{
    return haar_norm(c->integral, c->squares, c->pitch, origin);
}

/* Packed in features[t].w (haar_kind.cpp): OpenCV's stages are up to 211
 * weak classifiers long, too many to scan the thresholds. */
static int feature_segment_end(const Cascade* c, int t, int stop) { return min(c->features[t].w, stop - 1); }

#ifdef ROW_SCAN
/* Haar features of 16 windows `step` apart, in the operations above on
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
static ALWAYS_INLINE float16 feature_window_norms(const Cascade* c, int origin, int step)
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
static ALWAYS_INLINE long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
{
#ifdef HAAR_STUMPS
    __global const HaarNode* n = c->nodes + t;
    const float16 value = haar_feature_lanes(c, origin, step, n) * norm;
    /* Stump t's left and right values (feature_response() above). */
    const long left = c->responses[2 * t], right = c->responses[2 * t + 1];
    return select((long16)right, (long16)left, convert_long16(value < (float16)n->threshold));
#else
    return responses_window_by_window(c, origin, step, t, norm);
#endif
}
#endif
