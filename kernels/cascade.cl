/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The classifier as the scans see it, and the seam between the scans and
 * the feature types. The engine builds one feature file after this one
 * (kernels/<feature>.cl, chosen by the classifier's feature kind,
 * gst/core/opencl/features/feature_kind.h), then the reduction
 * (waldboost.cl) and on CPU devices the row scan (scan_rows.cl), which call
 * the feature only through these entry points:
 *
 *   FEATURE_NORMALISES  1 when the feature takes a factor per window
 *                       (feature_window_norm), else 0
 *   FEATURE_UNROLLS     1 when feature_response has no branches, so that a
 *                       loop over a segment of weak classifiers may unroll
 *   float feature_window_norm(const Cascade* c, int origin)
 *                       the window's factor, stored in c->norm before its
 *                       responses are asked for; 0 rejects the window
 *                       before its first weak classifier (1 without one)
 *   long feature_response(const Cascade* c, int origin, int t)
 *                       weak classifier t's response for the window at
 *                       `origin`, in the running sums' fixed point
 *   int feature_segment_end(const Cascade* c, int t, int stop)
 *                       the first weak classifier from t on (below `stop`)
 *                       with a rejection test or a sum reset, or stop - 1
 *                       (threshold_segment_end() does it from the tables)
 *
 * and, for the row scan (-D ROW_SCAN), 16 windows `step` pixels apart:
 *
 *   float16 feature_window_norms(const Cascade* c, int origin, int step)
 *   long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
 *                       (responses_window_by_window() serves any feature)
 *
 * and, optionally, for a feature whose values are codes and that takes no
 * factor, when weak classifier 0 has a rejection test (FIRST_TEST 0):
 *
 *   FEATURE_FIRST_TEST_CODES  1 (scan_rows.cl makes it 0 when undefined)
 *   int16 feature_first_codes(const Cascade* c, int origin, int step)
 *                       weak classifier 0's codes of 16 windows
 *   int16 feature_first_rejected(const Cascade* c, int16 codes)
 *                       -1 where that code's response is below the first
 *                       threshold, else 0
 *   long feature_first_response(const Cascade* c, int code)
 *                       weak classifier 0's response to one code
 *
 * A feature file may read its own build defines (the feature kind's), the
 * scan defines (ROW_SCAN) and INTEGRAL_BITS; nothing outside it tests a
 * feature's defines.
 */

#define NO_THRESHOLD LONG_MIN

/* PoCL 3.1 left some of the 16-lane helpers as calls, passing the vectors
 * on a realigned stack; inlined, the Haar row scan is much faster
 * (docs/history.md, "Figures behind the code's choices"). */
#define ALWAYS_INLINE inline __attribute__((always_inline))

typedef struct {
    __global const integral_t* integral;
    int pitch;
    /* Four ints per weak classifier, the feature kind's (classifier_pack.h). */
    __global const int4* features;
    /* The kind's response tables (classifier_pack.h). */
    __global const long* responses;
    __global const long* thresholds;
    __global const uchar* resets;
    /* The squared and tilted integral images, with the integral's layout,
     * when the feature kind reads them (else any buffer); the Haar trees'
     * nodes (else one unused node). */
    __global const uint* squares;
    __global const uint* tilted;
    __global const HaarNode* nodes;
    /* The factor of the window being evaluated (feature_window_norm). */
    float norm;
#ifdef STOP_CHECKS
    /* The host's stop flag (the `stop` argument; waldboost.cl reads it). */
    __global const volatile int* stop_flag;
#endif
} Cascade;

/* `stop`: the host's stop flag (engine/stop_flag.h), raised when the
 * frame's results will be dropped. The row scan always reads it; the
 * reduction only when built with STOP_CHECKS (waldboost.cl says when). */
#define CASCADE_ARGS                                                                                         \
    __global const integral_t *integral, int pitch, __global const int4 *features, __global const long *responses, \
        __global const long *thresholds, __global const uchar *resets, __global const uint *squares,           \
        __global const uint *tilted, __global const HaarNode *nodes, long final_threshold,                   \
        __global const volatile int *stop
#define MAKE_CASCADE()                                                                                       \
    Cascade c;                                                                                               \
    c.integral = integral;                                                                                   \
    c.pitch = pitch;                                                                                         \
    c.features = features;                                                                                   \
    c.responses = responses;                                                                                 \
    c.thresholds = thresholds;                                                                               \
    c.resets = resets;                                                                                       \
    c.squares = squares;                                                                                     \
    c.tilted = tilted;                                                                                       \
    c.nodes = nodes;                                                                                         \
    c.norm = 1.0f;                                                                                           \
    CASCADE_STOP_FLAG(c)
#ifdef STOP_CHECKS
#define CASCADE_STOP_FLAG(c) (c).stop_flag = stop
#else
#define CASCADE_STOP_FLAG(c)
#endif

/* Defined by the feature file. */
static long feature_response(const Cascade* c, int origin, int t);

/* feature_segment_end() from the thresholds and resets themselves. */
static int threshold_segment_end(const Cascade* c, int t, int stop)
{
    int end = t;
    while (end + 1 < stop && c->thresholds[end] == NO_THRESHOLD && !c->resets[end])
        ++end;
    return end;
}

#ifdef ROW_SCAN
/* Integral-image values at p, p + step, ... p + 15 step: the same corner of
 * 16 neighbouring windows. The buffer is padded so reads past a row's last
 * window stay inside it (those lanes are never used). */
static ALWAYS_INLINE uint16 load_lanes(__global const uint* p, int step)
{
    if (step == 1)
        return vload16(0, p);
    if (step == 2)
        return (uint16)(vload16(0, p).even, vload16(1, p).even);
    uint v[SCAN_LANES];
    for (int i = 0; i < SCAN_LANES; ++i)
        v[i] = p[i * step];
    return vload16(0, v);
}

/* feature_responses() for a feature without vector code: a window at a
 * time, each with its own factor. */
static long16 responses_window_by_window(const Cascade* c, int origin, int step, int t, float16 norm)
{
    float lane_norm[SCAN_LANES];
    long value[SCAN_LANES];
    vstore16(norm, 0, lane_norm);
    Cascade window = *c;
    for (int i = 0; i < SCAN_LANES; ++i) {
        window.norm = lane_norm[i];
        value[i] = feature_response(&window, origin + i * step, t);
    }
    return vload16(0, value);
}
#endif
