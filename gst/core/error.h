/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The one exception type of the core. Its kind is set where it is thrown,
 * so that callers (the element, the tools) choose how to report it without
 * reading the message; the message itself is what a user can act on.
 */
#pragma once

#include <stdexcept>
#include <string>

namespace waldboost {

enum class ErrorKind {
    ClassifierFile,        /* a classifier file or text that cannot be read or is invalid */
    UnsupportedClassifier, /* a valid classifier this build cannot run (e.g. a feature type) */
    NoDevice,              /* no OpenCL platform or device matches the request */
    KernelBuild,           /* the OpenCL program did not build for the device */
    OutOfResources,        /* device or host memory (or another device resource) ran out */
    BadParameter,          /* a detection, engine or tool parameter out of range */
    FrameTooLarge,         /* a frame beyond the engine's limits */
    Device,                /* an OpenCL call failed while running */
    Io,                    /* a file other than a classifier could not be read or written */
};

/* A short name for logs and messages. */
inline const char* to_string(ErrorKind kind)
{
    switch (kind) {
    case ErrorKind::ClassifierFile: return "classifier file";
    case ErrorKind::UnsupportedClassifier: return "unsupported classifier";
    case ErrorKind::NoDevice: return "no device";
    case ErrorKind::KernelBuild: return "kernel build";
    case ErrorKind::OutOfResources: return "out of resources";
    case ErrorKind::BadParameter: return "bad parameter";
    case ErrorKind::FrameTooLarge: return "frame too large";
    case ErrorKind::Device: return "device";
    case ErrorKind::Io: return "input/output";
    }
    return "unknown";
}

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const { return kind_; }

private:
    ErrorKind kind_;
};

}  // namespace waldboost
