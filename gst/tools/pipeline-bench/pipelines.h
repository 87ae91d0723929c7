/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's pipeline parts of a row: N streams without
 * the detector (the source's cost) or with it (the element).
 */
#pragma once

#include "frames.h"
#include "row.h"

namespace pipeline_bench {

/* N pipelines, each given its whole stream up front (or written during the
 * run, --source-writes); prerolled (the element's engine set up, its first
 * frame through), then all set to PLAYING at once and timed until the last
 * EOS. */
Part run_pipelines(const Settings& s, const FrameSet& set, int streams, bool with_detector);

}  // namespace pipeline_bench
