/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every environment variable the core and the element read, in one place
 * (docs/engine.md lists them). They are for development, tests and
 * measurements, not for users' configuration. Each is read when it is used,
 * so that a test may change one between two engines; the fault plan and the
 * copy threads, which per-frame paths consult, are read once per process.
 */
#pragma once

#include <string>

namespace waldboost::opencl::environment {

/* WALDBOOST_CACHE_DIR: the folder for compiled kernels, and tuning files in
 * its "tuning/" (instead of $XDG_CACHE_HOME/waldboost-gst/kernels and
 * .../tuning); empty when unset. */
std::string cache_dir();
/* WALDBOOST_CACHE_DISABLE: set and other than "0": no kernel binary cache. */
bool kernel_cache_disabled();
/* WALDBOOST_TUNING_DISABLE=1: tuned reduction parameters are not used. */
bool tuning_disabled();
/* WALDBOOST_KERNEL_DIR: read the .cl files from this folder instead of the
 * embedded copies (kernel development without rebuilding); empty when unset. */
std::string kernel_dir();
/* WALDBOOST_CL_FAULT: fault injection in OpenCL calls, "CALL:N" or
 * "CALL:N+" (device.cpp); empty when unset. */
std::string cl_fault();
/* WALDBOOST_KERNEL_LAYOUT: "rows" or "bands" forces the integral image's
 * layout (e.g. the GPU kernels on PoCL, as the engine-CASE-bands tests
 * do); empty when unset. */
std::string kernel_layout();
/* WALDBOOST_CL_OPTIONS: extra OpenCL compiler options, e.g. -cl-opt-disable. */
std::string extra_cl_options();
/* WALDBOOST_NO_PINNED_POOL: set, to any value: the element offers upstream
 * no pool of pinned memory (gst/element/pinned_pool.h). */
bool pinned_pool_disabled();
/* WALDBOOST_COPY_THREADS: the most threads copying one large frame;
 * `fallback` when unset. */
int copy_threads(int fallback);

}  // namespace waldboost::opencl::environment
