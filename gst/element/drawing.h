/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Drawing a frame's results (draw, color, line-width, box-text,
 * label-colors): box outlines and text tags, as an overlay composition meta
 * or burnt into the frame.
 */
#pragma once

#include <gst/video/video-overlay-composition.h>
#include <gst/video/video.h>

#include "frame_access.h"
#include "frame_report.h"
#include "settings.h"

namespace waldboost_element {

enum class DrawMode { None, Meta, Burn };

/* What `draw` means for a frame: auto attaches the meta when downstream
 * takes it, and burns otherwise. */
DrawMode draw_mode(GstWaldboostDraw draw, bool overlay_meta_downstream);

/* Burns the report's objects and parts (and their box-text) into the frame,
 * in their colours (DrawMode::Burn); a warning when the frame cannot be
 * mapped for writing. */
void burn_report(GstElement* element, FrameAccess& frame, const FrameReport& report, const OutputSettings& s,
                 const GstVideoInfo& info);

/* The same as an overlay composition (DrawMode::Meta: output.h attaches
 * it); null when there is nothing to draw. */
GstVideoOverlayComposition* overlay_composition(const FrameReport& report, const OutputSettings& s,
                                                const GstVideoInfo& info);

}  // namespace waldboost_element
