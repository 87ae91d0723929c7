/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Hiding what was found (privacy, privacy-labels): the boxes of the
 * selected labels blurred or pixelated in the outgoing frame, in place,
 * before any outline is drawn over them.
 */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "frame_access.h"
#include "frame_report.h"
#include "settings.h"

namespace waldboost_element {

/* Whether frames with these settings are written to. */
inline bool hides_objects(const OutputSettings& s) { return s.privacy != GST_WALDBOOST_PRIVACY_NONE; }

/* privacy-labels as text ("face,profile-face") and back; blanks around a
 * label are dropped, empty items too. */
std::vector<std::string> privacy_labels_from_text(const std::string& text);
std::string privacy_labels_text(const std::vector<std::string>& labels);

/* Blurs or pixelates (s.privacy) the report's objects and parts whose
 * label s.privacy_labels names (every one when empty), in every component
 * of the frame. Only samples wholly inside a box change: a chroma sample
 * that covers pixels outside the box keeps its value. A warning when the
 * frame cannot be mapped for writing. */
void hide_report(GstElement* element, FrameAccess& frame, const FrameReport& report, const OutputSettings& s);

}  // namespace waldboost_element
