/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench: what every part of every row shares, as the
 * options and the element's own defaults leave it.
 */
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "core/opencl/settings/detector_settings.h"
#include "core/opencl/engine/engine.h"

namespace pipeline_bench {

constexpr const char* kTool = "waldboost-pipeline-bench";
constexpr int kFps = 30; /* the frames' timestamps (the sinks do not sync) */

struct Settings {
    std::string device = "auto";
    std::string classifier_path; /* empty: the embedded default */
    std::vector<std::pair<std::string, std::string>> props;
    int frames = 300; /* per stream */
    /* The element's settings as --props leave them: the engines alone
     * follow them (max-inflight, batching and profiling included; without
     * profiling no device busy figure), resolved as the element does. */
    waldboost::opencl::DetectorSettings element;
    waldboost::DetectParams params;
    waldboost::opencl::EngineConfig engine;
    double timeout_s = 300;
    /* Whether the element's boxes are one engine's on each frame: not with
     * tracking (confirmation, followed boxes) or interval > 1 (frames
     * without detection). Otherwise only lost frames are mismatches. */
    bool compare_boxes = true;
    /* How the source gives its frames (--source-writes): "none", buffers
     * made up front; "own" or "proposed", a thread per stream writing each
     * frame during the run into a buffer of a pool of its own, or of the
     * pool the element proposes, as a decoder does. */
    std::string source_writes = "none";
    /* --format: the frames' video format. Any but GRAY8 carries each gray
     * frame as its luma (chroma 128) or as R = G = B, which the element's
     * gray of RGB gives back exactly, so its boxes stay the engine's. */
    std::string format = "GRAY8";
    /* --after: elements between the detector and the sink, in gst-launch's
     * syntax, "{stream}" replaced by each stream's number; empty: none. */
    std::string after;
};

}  // namespace pipeline_bench
