/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/device/kernel_args.h"

#include <stdexcept>
#include <string>

namespace waldboost::opencl {

const KernelSignature& kernel_signature(std::string_view kernel)
{
    for (const KernelSignature& s : kernel_signatures())
        if (s.kernel == kernel)
            return s;
    throw std::logic_error("no kernel named " + std::string(kernel) + " in the kernels/ folder");
}

BoundKernel::BoundKernel(const cl::Program& program, std::string_view name) : signature_(&kernel_signature(name))
{
    if (signature_->params.size() > 64)
        throw std::logic_error("kernel " + std::string(name) + " has more than 64 parameters");
    kernel_ = cl::Kernel(program, std::string(name).c_str());
}

cl_uint BoundKernel::index_of(std::string_view param, ArgType type)
{
    if (!signature_)
        throw std::logic_error("argument " + std::string(param) + " set on an empty BoundKernel");
    const std::vector<KernelParam>& params = signature_->params;
    for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].name != param)
            continue;
        if (params[i].type != type)
            throw std::logic_error("kernel " + std::string(signature_->kernel) + ": argument " + std::string(param) +
                                   " set with a value of another type than its declaration");
        bound_ |= uint64_t{1} << i;
        return static_cast<cl_uint>(i);
    }
    throw std::logic_error("kernel " + std::string(signature_->kernel) + " has no parameter " + std::string(param));
}

BoundKernel& BoundKernel::set(std::string_view param, const cl::Buffer& value)
{
    kernel_.setArg(index_of(param, ArgType::Buffer), value);
    return *this;
}

BoundKernel& BoundKernel::set(std::string_view param, cl_int value)
{
    kernel_.setArg(index_of(param, ArgType::Int), value);
    return *this;
}

BoundKernel& BoundKernel::set(std::string_view param, cl_uint value)
{
    kernel_.setArg(index_of(param, ArgType::UInt), value);
    return *this;
}

BoundKernel& BoundKernel::set(std::string_view param, cl_long value)
{
    kernel_.setArg(index_of(param, ArgType::Long), value);
    return *this;
}

cl::Kernel& BoundKernel::ready()
{
    if (!signature_)
        throw std::logic_error("launch of an empty BoundKernel");
    const std::vector<KernelParam>& params = signature_->params;
    for (size_t i = 0; i < params.size(); ++i)
        if (!(bound_ >> i & 1))
            throw std::logic_error("kernel " + std::string(signature_->kernel) + ": argument " +
                                   std::string(params[i].name) + " was never set");
    return kernel_;
}

}  // namespace waldboost::opencl
