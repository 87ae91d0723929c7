/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Image files for the tools and tests, decoded with gdk-pixbuf (PNG, JPEG,
 * PNM...) and turned into gray with the core's BT.601 weights, the same
 * pixels OpenCV's cvtColor gives.
 */
#pragma once

#include <gdk-pixbuf/gdk-pixbuf.h>

#include <string>

#include "core/detection/image.h"

namespace waldboost::tools {

GrayImage pixbuf_to_gray(GdkPixbuf* pixbuf);

/* Throws waldboost::Error naming the file when it cannot be decoded. */
GrayImage load_gray_image(const std::string& path);

}  // namespace waldboost::tools
