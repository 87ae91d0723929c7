/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Per-frame bounds on the work that follows the detections. Each cost grows
 * with the number of detections, which max-windows bounds only at 100,000:
 * a classifier that accepts nearly every window (grouping=none) made one
 * frame cost minutes and gigabytes with tracking (tracks x detections),
 * nested cascades (a search per detection) or box-text (a Pango tag per
 * box). Real scenes stay far below these bounds, so they are fixed, not
 * properties: reaching one means the classifier or its settings are wrong,
 * and the warning says what to change. Each is said once per stream.
 */
#pragma once

#include <cstddef>

namespace waldboost_element {

/* Tracks open at once (tracking=true), and detections of a frame handed to
 * the tracker (the first ones, in the detections' order). */
inline constexpr size_t kMaxTracks = 1000;
/* Objects of a frame searched by the nested cascades (the first ones). */
inline constexpr size_t kMaxPartSearches = 256;
/* Upstream regions of a frame searched with inference-region=roi-list
 * (the first ones on the buffer). */
inline constexpr size_t kMaxRegionSearches = 256;
/* Parts kept per frame; the search stops there. */
inline constexpr size_t kMaxParts = 1000;
/* Boxes of a frame that get a box-text tag (objects first, then parts). */
inline constexpr size_t kMaxTextTags = 256;
/* Objects of a frame in its GstAnalytics metadata (the first ones, with
 * their parts): GstAnalyticsRelationMeta keeps an N x N relation matrix of
 * its Mtds, so a frame of 100,000 objects would need 40 GB. */
inline constexpr size_t kMaxAnalyticsObjects = 256;

}  // namespace waldboost_element
