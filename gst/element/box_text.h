/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Text on the boxes (the element's box-text): rendered with Pango through
 * cairo, as textoverlay renders its text, into overlay rectangles that
 * draw=meta attaches and draw=burn blends into the frame.
 */
#pragma once

#include <gst/video/video-overlay-composition.h>

#include <string>

#include "core/detection/types.h"

namespace waldboost_element {

/* The font size of a box's tag: a fortieth of the frame's height and at
 * most a third of the box's, 8 to 48 pixels. */
int tag_font_pixels(int frame_height, int box_height);

/* A tag's size: the text at `pixels` with its padding; 0 x 0 when empty. */
struct TagSize {
    int width = 0, height = 0;
};
TagSize measure_tag(const std::string& text, int pixels);

/* The text (plain text, never markup) on a filled tag of colour `argb`
 * (0xAARRGGBB), white or black whichever reads better on it, with its
 * top-left corner at (x, y); measure_tag()'s size. nullptr when the text
 * is empty or could not be drawn. */
GstVideoOverlayRectangle* render_tag(const std::string& text, int pixels, int x, int y, guint argb);

}  // namespace waldboost_element
