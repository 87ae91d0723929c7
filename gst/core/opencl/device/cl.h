/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one place that includes Khronos' C++ bindings, so that every file sees
 * them configured alike: the OpenCL 1.2 host API (the newest one that every
 * driver we target implements; the bindings then never call a 2.x+ entry
 * point) and exceptions (errors surface as cl::Error, which the engine
 * converts to waldboost::Error at its API boundary). The bindings define
 * CL_TARGET_OPENCL_VERSION from CL_HPP_TARGET_OPENCL_VERSION.
 */
#pragma once

#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#define CL_HPP_ENABLE_EXCEPTIONS

#include <CL/opencl.hpp>

#include <vector>

namespace waldboost::opencl {

/* A read-only device buffer holding a copy of `values`. */
template <typename T>
cl::Buffer read_only_buffer(const cl::Context& context, const std::vector<T>& values)
{
    return cl::Buffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof(T) * values.size(),
                      const_cast<T*>(values.data()));
}

}  // namespace waldboost::opencl
