/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's debug category, for every file of the element (defined in
 * gstwaldboostdetect.cpp).
 */
#pragma once

#include <gst/gst.h>

GST_DEBUG_CATEGORY_EXTERN(gst_waldboost_detect_debug);
#define GST_CAT_DEFAULT gst_waldboost_detect_debug
