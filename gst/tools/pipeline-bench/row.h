/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's rows: for one frame size and N streams, the
 * engines alone, the pipelines without the detector and those with it.
 */
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "compare.h"
#include "core/model/model.h"
#include "frames.h"
#include "settings.h"

namespace pipeline_bench {

/* One part (engine, source or element) of one row. */
struct Part {
    bool ran = false;
    std::string error; /* empty: it ran to the end */
    std::vector<std::string> warnings;
    double wall_s = 0;   /* start to the last stream's end */
    uint64_t frames = 0; /* frames timed, all streams */
    std::vector<double> stream_fps;
    double busy_ms = -1;          /* device kernel time during the run (union), -1: unknown */
    double host_ms = -1;          /* the element's host time per frame (stats host-total-ms / frames), -1: unknown */
    double host_detected_ms = -1; /* per frame the engine searched, -1: none */
    double host_other_ms = -1;    /* per frame that skipped detection (interval), -1: none */
    double after_host_ms = -1;    /* --after's elements' host time per frame, -1: no --after */
    Mismatches mismatches;        /* frames whose boxes differ from the reference, or lost */

    bool ok() const { return ran && error.empty(); }
    double total_fps() const { return wall_s > 0 ? static_cast<double>(frames) / wall_s : 0; }
    double min_fps() const { return stream_fps.empty() ? 0 : *std::min_element(stream_fps.begin(), stream_fps.end()); }
    double mean_fps() const
    {
        return stream_fps.empty() ? 0
                                  : std::accumulate(stream_fps.begin(), stream_fps.end(), 0.0) /
                                        static_cast<double>(stream_fps.size());
    }
    double busy_fraction() const { return busy_ms >= 0 && wall_s > 0 ? busy_ms * 1e-3 / wall_s : -1; }
};

struct Row {
    waldboost::Size size;
    int streams = 0;
    size_t distinct = 0; /* frames the streams go round */
    Part engine, source, element;
};

/* The parts of one row, one after the other: the engines alone and the
 * pipelines without the detector unless left out, then the element. */
Row run_row(const Settings& s, const waldboost::Classifier& classifier, const FrameSet& set, int streams,
            bool time_engines, bool time_source);

}  // namespace pipeline_bench
