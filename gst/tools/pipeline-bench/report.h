/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's output: the table (stdout and --markdown)
 * under its header line, the JSON (--json), the progress lines on stderr,
 * and the exit status the rows come to.
 */
#pragma once

#include <string>
#include <vector>

#include "frames.h"
#include "options.h"
#include "row.h"

namespace pipeline_bench {

/* A figure as the table prints it; "n/a" for a negative one (unknown). */
std::string fmt(double v, const char* f = "%.1f");

/* The rows so far and what the header says about them. */
struct Results {
    std::string device;     /* the reference engine's, described */
    std::string classifier; /* the file's name, or the embedded default */
    std::vector<Row> rows;
};

/* The classifier as the header names it. */
std::string classifier_name(const Settings& s);

/* The table on stdout when `print`, and the --markdown and --json files;
 * written again after every row, so that a run cut short by a timeout
 * leaves its rows. False, said on stderr, when a file cannot be written. */
bool write_report(const Options& o, const Settings& s, const Results& results, bool print);

/* On stderr: the frames of a size and their boxes, before its rows. */
void say_frames(const FrameSet& set);

/* On stderr: a row's failed parts and its outcome, when it is done. */
void say_row(const Row& row);

/* 1 (said on stderr) when some frame mismatched, else 3 when some part
 * failed, else 0. */
int exit_status(const std::vector<Row>& rows);

}  // namespace pipeline_bench
