/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/device/environment.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace waldboost::opencl::environment {

namespace {

std::string text(const char* name)
{
    const char* value = std::getenv(name);
    return value ? std::string(value) : std::string();
}

}  // namespace

std::string cache_dir() { return text("WALDBOOST_CACHE_DIR"); }

bool kernel_cache_disabled()
{
    const std::string value = text("WALDBOOST_CACHE_DISABLE");
    return !value.empty() && value != "0";
}

bool tuning_disabled() { return text("WALDBOOST_TUNING_DISABLE") == "1"; }

std::string kernel_dir() { return text("WALDBOOST_KERNEL_DIR"); }

std::string cl_fault() { return text("WALDBOOST_CL_FAULT"); }

std::string kernel_layout() { return text("WALDBOOST_KERNEL_LAYOUT"); }

std::string extra_cl_options() { return text("WALDBOOST_CL_OPTIONS"); }

bool pinned_pool_disabled() { return std::getenv("WALDBOOST_NO_PINNED_POOL") != nullptr; }

int copy_threads(int fallback)
{
    const std::string value = text("WALDBOOST_COPY_THREADS");
    return value.empty() ? fallback : std::max(1, std::atoi(value.c_str()));
}

}  // namespace waldboost::opencl::environment
