/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Nested detection: a second cascade searched inside each detection, as
 * GStreamer's facedetect searches for eyes, a nose and a mouth inside each
 * face. The areas are facedetect's; the search is the CPU detector's
 * detectMultiScale on that part of the frame, as OpenCV's on a Mat ROI.
 * Areas are a few hundred pixels wide at most, so the CPU is the right
 * place for them even next to a GPU.
 */
#pragma once

#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/model/model.h"

namespace waldboost {

/* Where in a detection a part is searched. */
enum class PartArea {
    UpperHalf, /* eyes: x, y, w, h/2 */
    Centre,    /* nose: x + w/4, y + h/4, w/2, h/2 */
    LowerHalf, /* mouth: x, y + h/2, w, h/2 */
};

/* The area of `detection` searched for a part, in the same coordinates
 * (integer halves and quarters, as facedetect computes them). */
Rect part_area(PartArea area, const Rect& detection);

/* `classifier`'s detections in `area` of `image` (clipped to the image), in
 * image coordinates; none when the area is smaller than the window. */
std::vector<Detection> detect_in_area(const Classifier& classifier, const GrayView& image, const Rect& area,
                                      const DetectParams& params);

}  // namespace waldboost
