/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's command line: the options, read and checked.
 */
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "settings.h"

namespace pipeline_bench {

struct Options {
    /* device, classifier, props, frames, timeout and source-writes; the
     * rest of it comes from the element (configure_from_element). */
    Settings settings;
    std::vector<waldboost::Size> sizes;
    std::vector<std::vector<int>> streams_at; /* the numbers of streams, one list per size */
    std::vector<std::string> images;
    std::vector<std::string> raw_files;
    std::vector<std::string> raw_sizes; /* as given: read with the files (load_sources) */
    std::optional<std::string> json_path, markdown_path, plugin_dir;
    bool time_engines = true, time_source = true;
};

/* A usage error found after the options were read (a property the element
 * does not have, a bad --raw-size): the tool prints it and exits 2. */
struct UsageError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

/* Reads argv (GStreamer's options included, which initialises it) into
 * `options`. False after a usage error, which it has printed. */
bool parse_options(int* argc, char*** argv, Options* options);

/* WIDTHxHEIGHT, decimal digits only, each side 1 to 65535. */
std::optional<waldboost::Size> parse_size(const std::string& item);

}  // namespace pipeline_bench
