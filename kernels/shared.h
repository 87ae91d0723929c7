/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The structs and constants the host and the kernels share, declared once:
 * compiled as OpenCL C (the engine puts this file first in the program
 * source) and as C++ (gst/core/opencl includes it). Fields are 4- and
 * 8-byte integers and 4-byte floats only, so both compilers lay them out
 * alike; the C++ side checks the sizes too.
 */
#ifndef WALDBOOST_KERNELS_SHARED_H
#define WALDBOOST_KERNELS_SHARED_H

#ifdef __OPENCL_VERSION__
#define WB_UINT uint
#define WB_INT int
#define WB_LONG long
#define WB_FLOAT float
#else
#include <CL/cl_platform.h>
#define WB_UINT cl_uint
#define WB_INT cl_int
#define WB_LONG cl_long
#define WB_FLOAT cl_float
namespace waldboost::opencl::shared {
#endif

/* One level of the pyramid in the pyramid and integral kernels' index space
 * (kernels/pyramid.cl). */
typedef struct {
    WB_UINT first; /* first row of the level (row-per-work-item layout) */
    WB_INT width;
    WB_INT height;
    WB_INT canvas_offset; /* of the level's top-left pixel in the canvas */
    WB_INT xtap;          /* first of its width x taps */
    WB_INT ytap;          /* first of its height y taps */
    WB_INT canvas_x;      /* the level's top-left pixel in the canvas */
    WB_INT canvas_y;
    WB_INT copy; /* 1 when the level is the frame itself: the CPU layout copies its rows */
} ResizeLevel;

/* One level's window positions in the scan kernels' index space
 * (kernels/waldboost.cl, kernels/scan_rows.cl). */
typedef struct {
    WB_UINT first;  /* first linear scan index of the level */
    WB_INT columns; /* scan positions per row */
    WB_INT rows;
    WB_INT step;      /* pixels between positions */
    WB_INT origin;    /* integral-image offset of the level's top-left pixel */
    WB_INT skip_rule; /* OpenCV's "skip the next position after a first-stage rejection" */
    WB_INT first_row; /* first row of the level in a numbering of all levels' rows (scan_rows.cl) */
    WB_INT frame;     /* the level's frame in a batch of frames launched together (0 alone) */
} ScanLevel;

/* A window still alive between two steps of the reduction. */
typedef struct {
    WB_UINT index; /* linear scan index */
    WB_UINT next;  /* next weak classifier to evaluate */
    WB_LONG sum;   /* running sum so far */
} Candidate;

/* An accepted window. */
typedef struct {
    WB_UINT index;
    WB_UINT hidden; /* set by apply_skip_rule: OpenCV would not have visited it */
    WB_LONG score;  /* final sum minus the final threshold */
} Accepted;

/* One node of a Haar tree (kernels/haar.cl): a feature of up to three
 * weighted rectangles (upright, or 45-degree with `tilted`), its threshold,
 * and the two sides. A side >= 0 is the node's index in the classifier's
 * node table, a side < 0 the leaf -1 - side of the response table. An
 * absent rectangle is all zeros with weight 0. */
typedef struct {
    WB_INT rects[12]; /* x, y, width, height of rectangles 0, 1, 2 */
    WB_FLOAT weights[3];
    WB_FLOAT threshold; /* the feature's value (times the window's norm factor) below it: left */
    WB_INT left;
    WB_INT right;
    WB_INT tilted;
    WB_INT unused;
} HaarNode;

/* Slots of the frame's counter buffer. */
#define COUNT_ACCEPTED 0
#define COUNT_WEAK_EVALUATED 1
/* slot 2 is unused */
#define COUNT_LISTS 3 /* one per candidate list from here on */
/* Accepted windows per frame of a batch, from here on: after the lists
 * (at most 1 + 16 step-2 repeats, reduction.h). */
#define COUNT_FRAMES 20

/* Longs per stump record: 256 bits (a set bit: the code's response is the
 * second value), then the two values. Stored after the WEAK_COUNT tables. */
#define STUMP_LONGS 6

/* Canvas rows per band of the GPU integral image, and work-items per group
 * of its kernels (kernels/pyramid.cl). */
#define INTEGRAL_BAND 16
#define INTEGRAL_GROUP 256
/* Canvas rows per band of the CPU integral image (kernels/pyramid.cl). */
#define ROWS_INTEGRAL_BAND 32
/* Neighbouring diagonals per work-item of the CPU tilted integral
 * (kernels/pyramid.cl). */
#define TILTED_LANES 16

/* Work-items (rows) per group of the row scan, and windows per vector
 * (kernels/scan_rows.cl). */
#define SCAN_ROWS_GROUP 4
#define SCAN_LANES 16

#ifndef __OPENCL_VERSION__
static_assert(sizeof(ResizeLevel) == 36 && sizeof(ScanLevel) == 32, "level tables must match the kernels");
static_assert(sizeof(Candidate) == 16 && sizeof(Accepted) == 16, "records must match the kernels");
static_assert(sizeof(HaarNode) == 80, "Haar nodes must match the kernels");
}  // namespace waldboost::opencl::shared
#endif
#undef WB_UINT
#undef WB_INT
#undef WB_LONG
#undef WB_FLOAT

#endif
