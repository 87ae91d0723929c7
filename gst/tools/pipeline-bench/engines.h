/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's first part of a row: the engines alone.
 */
#pragma once

#include "frames.h"
#include "row.h"

namespace pipeline_bench {

/* N engines, one thread each: set up and warmed (every distinct frame once,
 * checked), then started together; each keeps up to the element's
 * max-inflight frames in flight (fewer when they do not fit the device, as
 * the element does) and checks every frame it collects. */
Part run_engines(const Settings& s, const waldboost::Classifier& classifier, const FrameSet& set, int streams);

}  // namespace pipeline_bench
