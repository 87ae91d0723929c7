/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <string>

#include "core/reference/image.h"

namespace waldboost_test {

/* Decodes an image file (PNG, JPEG, ...) with gdk-pixbuf and converts it to
 * gray with the core's BT.601 weights. Throws std::runtime_error on failure. */
waldboost::GrayImage load_gray_image(const std::string& path);

}  // namespace waldboost_test
