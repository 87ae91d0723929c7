/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the kernel files (OpenCL C 1.2). The engine builds one
 * program of shared.h, common.cl, pyramid.cl, cascade.cl, the classifier's
 * feature file (lbp.cl or haar.cl), waldboost.cl and (on CPU devices)
 * scan_rows.cl, in that order.
 */

/* Defines `name`, which returns the index of the last entry of a table
 * sorted by its `first` field whose first is <= index: the level a linear
 * index of a one-launch-for-all-levels kernel falls in. */
#define DEFINE_FIND_LEVEL(name, Type)                                                                    \
    static int name(__global const Type* levels, int count, uint index)                                 \
    {                                                                                                    \
        int lo = 0, hi = count - 1;                                                                      \
        while (lo < hi) {                                                                                \
            const int mid = (lo + hi + 1) >> 1;                                                          \
            if (levels[mid].first <= index)                                                              \
                lo = mid;                                                                                \
            else                                                                                         \
                hi = mid - 1;                                                                            \
        }                                                                                                \
        return lo;                                                                                       \
    }

/* The integral image's values (-D INTEGRAL_BITS=16 or 32). Block sums are
 * differences of four values taken modulo 2^INTEGRAL_BITS, exact while no
 * block can sum to 2^INTEGRAL_BITS or more: the engine picks 16 bits when
 * the classifier's largest block is at most 257 pixels (257 x 255 < 2^16),
 * which halves the bytes every window reads (engine.cpp). */
#if INTEGRAL_BITS == 16
typedef ushort integral_t;
#define INTEGRAL_MASK 0xFFFFu
/* An aligned store of 4 values (the engine aligns them). */
#define STORE_INTEGRAL4(values, p) (*(__global ushort4*)(p) = convert_ushort4((values) & (uint4)(INTEGRAL_MASK)))
#else
typedef uint integral_t;
#define INTEGRAL_MASK 0xFFFFFFFFu
#define STORE_INTEGRAL4(values, p) (*(__global uint4*)(p) = (values))
#endif
