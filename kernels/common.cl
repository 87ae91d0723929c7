/* waldboost-gst - OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Helpers shared by the kernel files (OpenCL C 1.2); the engine builds
 * common.cl, pyramid.cl and waldboost.cl as one program, in that order.
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
