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

/* The text on a filled tag of colour `argb` (0xAARRGGBB), white or black
 * whichever reads better on it, just above `box` (inside its top edge
 * when there is no room above), kept inside the frame; its height follows
 * the frame's (a fortieth, 10 to 48 pixels). nullptr when the text is
 * empty or does not fit in the frame. */
GstVideoOverlayRectangle* text_rectangle(const std::string& text, const waldboost::Rect& box, guint argb,
                                         int frame_width, int frame_height);

}  // namespace waldboost_element
