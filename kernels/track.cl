/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Template search for the tracker (OpenCL C 1.2): the searches of one or
 * more frames (several streams' at once) in one launch, one work-group per
 * request. The CPU reference is
 * gst/core/tracking/template_search.cpp; the host (core/opencl/search/
 * template_search.cpp) gives each request the range of offsets the
 * reference tries (axis_range()), so that the device only has to score
 * them all and pick the same best. This file is a program of its own, not
 * part of the detector's.
 *
 * Set by the host:
 *   TRACK_GROUP_SIZE     work-items per request, a power of two
 *   TRACK_LOCAL_SAMPLES  the most template samples copied to local memory
 */

#ifndef TRACK_GROUP_SIZE
#define TRACK_GROUP_SIZE 64
#endif
#ifndef TRACK_LOCAL_SAMPLES
#define TRACK_LOCAL_SAMPLES 1024
#endif

/* One request, as the host packs it (TrackRequest in core/opencl/search/
 * template_search.cpp has the same fields in the same order). Offsets are
 * relative to the expected position (x, y) of the template's top-left
 * sample. */
typedef struct {
    int samples;                /* the template's first sample in `templates` */
    int columns, rows;          /* its grid */
    int step_x, step_y;         /* its grid steps in frame pixels */
    int x, y;                   /* the expected position */
    int lo_x, hi_x, lo_y, hi_y; /* the offsets that keep the grid in the frame, at least one each */
    int band;                   /* where its frame's rows start in `frames` (bytes) */
    int stride;                 /* its frame's row stride */
    int first_row;              /* the frame row at `band` */
} TrackRequest;

typedef struct {
    int x, y; /* the best position of the top-left sample */
    uint sad;
} TrackResult;

/* The smallest key among the offsets this work-item scores: every
 * TRACK_GROUP_SIZE-th in row order, so that neighbouring work-items take
 * neighbouring columns. A key is the SAD (the reference's template_sad())
 * in the high 32 bits and the offset's index in row order in the low ones,
 * so the smallest key of all is the reference's winner (the lowest SAD, a
 * tie going to the smallest dy, then dx) whichever work-item scored what.
 * Defined for both address spaces of the samples: small templates are read
 * from local memory, larger ones straight from global; one loop per space
 * rather than a choice per offset, which PoCL compiles several times
 * slower. `frame` starts at the frame row of offset lo_y. */
#define DEFINE_TRACK_BEST(name, space)                                                                              \
    static ulong name(__global const uchar* frame, int stride, int column0, uint width, uint count,                 \
                      space const uchar* samples, int columns, int rows, int step_x, int step_y)                    \
    {                                                                                                               \
        ulong best = ULONG_MAX;                                                                                     \
        for (uint k = get_local_id(0); k < count; k += TRACK_GROUP_SIZE) {                                          \
            __global const uchar* origin = frame + (size_t)(k / width) * (size_t)stride + column0 + (int)(k % width); \
            uint sad = 0;                                                                                           \
            for (int j = 0; j < rows; ++j) {                                                                        \
                __global const uchar* pixels = origin + (size_t)(j * step_y) * (size_t)stride;                      \
                space const uchar* line = samples + j * columns;                                                    \
                for (int i = 0; i < columns; ++i)                                                                   \
                    sad += abs_diff(pixels[i * step_x], line[i]);                                                   \
            }                                                                                                       \
            best = min(best, (ulong)sad << 32 | k);                                                                 \
        }                                                                                                           \
        return best;                                                                                                \
    }

DEFINE_TRACK_BEST(track_best_local, __local)
DEFINE_TRACK_BEST(track_best_global, __global)

/* The searches of one or more frames. `frames` holds each frame's rows
 * from its requests' `first_row` on (only the band they can reach is
 * uploaded), each `stride` bytes apart, from byte `band` on. Every request
 * has at least one offset in range (the host answers the others without a
 * launch). */
__kernel __attribute__((reqd_work_group_size(TRACK_GROUP_SIZE, 1, 1)))
void template_search(__global const uchar* frames, __global const uchar* templates,
                     __global const TrackRequest* requests, __global TrackResult* results)
{
    __local uchar local_samples[TRACK_LOCAL_SAMPLES];
    __local ulong keys[TRACK_GROUP_SIZE];
    const int lid = get_local_id(0);
    const TrackRequest r = requests[get_group_id(0)];
    __global const uchar* global_samples = templates + r.samples;

    /* Every candidate reads every sample: copy small templates once. */
    const int sample_count = r.columns * r.rows;
    const bool in_local = sample_count <= TRACK_LOCAL_SAMPLES;
    if (in_local)
        for (int i = lid; i < sample_count; i += TRACK_GROUP_SIZE)
            local_samples[i] = global_samples[i];
    barrier(CLK_LOCAL_MEM_FENCE);

    const uint width = (uint)(r.hi_x - r.lo_x + 1);
    const uint count = width * (uint)(r.hi_y - r.lo_y + 1);
    __global const uchar* top = frames + (size_t)r.band + (size_t)(r.y + r.lo_y - r.first_row) * (size_t)r.stride;
    const int column0 = r.x + r.lo_x;
    ulong best = in_local ? track_best_local(top, r.stride, column0, width, count, local_samples, r.columns, r.rows,
                                             r.step_x, r.step_y)
                          : track_best_global(top, r.stride, column0, width, count, global_samples, r.columns, r.rows,
                                              r.step_x, r.step_y);
    keys[lid] = best;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int span = TRACK_GROUP_SIZE / 2; span > 0; span >>= 1) {
        if (lid < span)
            keys[lid] = min(keys[lid], keys[lid + span]);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) {
        best = keys[0];
        const uint index = (uint)best;
        results[get_group_id(0)].x = column0 + (int)(index % width);
        results[get_group_id(0)].y = r.y + r.lo_y + (int)(index / width);
        results[get_group_id(0)].sad = (uint)(best >> 32);
    }
}
