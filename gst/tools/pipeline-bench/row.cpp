/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "row.h"

#include "engines.h"
#include "pipelines.h"

namespace pipeline_bench {

Row run_row(const Settings& s, const waldboost::Classifier& classifier, const FrameSet& set, int streams,
            bool time_engines, bool time_source)
{
    Row row;
    row.size = set.size;
    row.streams = streams;
    row.distinct = set.images.size();
    if (time_engines)
        row.engine = run_engines(s, classifier, set, streams);
    if (time_source)
        row.source = run_pipelines(s, set, streams, false);
    row.element = run_pipelines(s, set, streams, true);
    return row;
}

}  // namespace pipeline_bench
