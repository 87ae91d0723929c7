/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Building OpenCL programs, with an on-disk cache of device binaries: a
 * driver compiling the detector's kernels from source takes long, and
 * would take it again at every pipeline start without the cache
 * (docs/history.md, "Figures behind the code's choices").
 *
 * An entry is keyed by SHA-256 of the platform, device, driver and device
 * versions, the source, the options and the cache format, so a driver update
 * or a changed kernel never reuses an old binary. Entries carry a header
 * (magic, format, payload length and SHA-256) and are written atomically; a
 * damaged, stale or rejected entry is rebuilt from source and overwritten,
 * never handed to the driver or used. Sources passed here must be complete:
 * files they #include are not part of the key.
 */
#pragma once

#include <string>
#include <string_view>

#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

struct BuildReport {
    bool cache_hit = false;    /* the program came from a cached binary */
    std::string cache_path;    /* the entry read or written; empty when the cache is off */
    double milliseconds = 0.0; /* wall time of build_program */
    std::string log;           /* the compiler's log (warnings), trimmed */
    std::string note;          /* why the cache was not used or not written, when it was not */
};

struct CacheSettings {
    bool enabled = true;
    std::string directory; /* created when missing */

    /* WALDBOOST_CACHE_DISABLE=1 turns the cache off; the directory is
     * $WALDBOOST_CACHE_DIR, else $XDG_CACHE_HOME/waldboost-gst/kernels, else
     * ~/.cache/waldboost-gst/kernels. */
    static CacheSettings from_environment();
};

/* Builds `source` with `options` for `device` (which must belong to
 * `context`), from the cache when it holds a good binary. Throws Error: on a
 * compile error "OpenCL program build failed on <device>: <build log>", on
 * other OpenCL failures the call and the error code. Failing to read or write
 * the cache is never an error; `report->note` says what happened. */
cl::Program build_program(const cl::Context& context, const cl::Device& device, const std::string& source,
                          const std::string& options, BuildReport* report = nullptr);

/* The same with explicit cache settings instead of the environment's. */
cl::Program build_program(const cl::Context& context, const cl::Device& device, const std::string& source,
                          const std::string& options, const CacheSettings& cache, BuildReport* report = nullptr);

/* A kernel's source: `embedded` (built in with build-aux/embed.py), or, for
 * kernel development without rebuilding, the file `file_name` in
 * $WALDBOOST_KERNEL_DIR when that is set. Throws Error naming the path when
 * that file cannot be read. */
std::string kernel_source(std::string_view embedded, const char* file_name);

}  // namespace waldboost::opencl
