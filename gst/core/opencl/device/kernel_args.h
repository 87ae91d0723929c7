/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Kernel arguments bound by name and type. The parameter lists come from the
 * kernels' own declarations (build-aux/kernel_signatures.py reads the kernels/ folder
 * at build time), so a parameter added, removed or reordered in a .cl file
 * cannot silently shift the host's arguments: binding a name the kernel does
 * not have, a value of the wrong kind, or launching with a parameter unbound
 * throws std::logic_error (a programming error, caught by every engine test).
 */
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

enum class ArgType {
    Buffer, /* a __global or __constant pointer */
    Local,  /* a __local pointer */
    Int,
    UInt,
    Long,
    ULong,
    Float,
};

struct KernelParam {
    std::string_view name;
    ArgType type;
};

struct KernelSignature {
    std::string_view kernel;
    std::vector<KernelParam> params;
};

/* Every kernel of the kernels/ folder (generated). */
const std::vector<KernelSignature>& kernel_signatures();

/* The signature of `kernel`; throws std::logic_error for an unknown name. */
const KernelSignature& kernel_signature(std::string_view kernel);

/* A kernel object with its arguments set by name. */
class BoundKernel {
public:
    BoundKernel() = default;
    BoundKernel(const cl::Program& program, std::string_view name);

    BoundKernel& set(std::string_view param, const cl::Buffer& value);
    BoundKernel& set(std::string_view param, cl_int value);
    BoundKernel& set(std::string_view param, cl_uint value);
    BoundKernel& set(std::string_view param, cl_long value);

    /* The kernel, for a launch: throws std::logic_error naming the first
     * parameter never set. */
    cl::Kernel& ready();
    std::string_view name() const { return signature_ ? signature_->kernel : std::string_view(); }
    bool valid() const { return signature_ != nullptr; }

private:
    cl_uint index_of(std::string_view param, ArgType type);

    cl::Kernel kernel_;
    const KernelSignature* signature_ = nullptr;
    uint64_t bound_ = 0; /* a bit per parameter, set once bound */
};

}  // namespace waldboost::opencl
