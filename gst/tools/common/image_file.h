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

#include <cstdint>
#include <memory>
#include <string>

#include "core/detection/image.h"

namespace waldboost::tools {

/* The largest image the tools decode unless --max-megapixels raises it: a
 * few header bytes can declare a size whose pixels fill the memory. */
constexpr int kDefaultMaxMegapixels = 100;
constexpr uint64_t kDefaultMaxPixels = uint64_t{kDefaultMaxMegapixels} * 1000000;

/* The most bytes read from one image file. */
constexpr uint64_t kMaxImageFileBytes = uint64_t{1} << 30;

struct PixbufUnref {
    void operator()(GdkPixbuf* pixbuf) const { g_object_unref(pixbuf); }
};
using PixbufPtr = std::unique_ptr<GdkPixbuf, PixbufUnref>;

GrayImage pixbuf_to_gray(GdkPixbuf* pixbuf);

/* Decodes the image file at `path`: a regular file only (opened as
 * core/io/input_file.h does, so that a FIFO or a device is refused, not
 * waited on), refused before its pixels are decoded when its header
 * declares more than `max_pixels` pixels. Throws waldboost::Error (Io)
 * whose message starts with the path, escaped with printable(). */
PixbufPtr load_pixbuf(const std::string& path, uint64_t max_pixels = kDefaultMaxPixels);

/* load_pixbuf() in gray. */
GrayImage load_gray_image(const std::string& path, uint64_t max_pixels = kDefaultMaxPixels);

}  // namespace waldboost::tools
