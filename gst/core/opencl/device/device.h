/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The device layer of the OpenCL engine: which devices there are, which one
 * a user's spec picks, and turning OpenCL failures into waldboost::Error
 * messages a user can act on.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/model/model.h"
#include "core/opencl/device/cl.h"

namespace waldboost::opencl {

struct DeviceInfo {
    int platform_index = 0;
    int device_index = 0; /* within its platform */
    std::string platform_name, device_name, vendor, driver_version, device_version, opencl_c_version;
    std::string type; /* "GPU", "CPU", "accelerator", "other" */
    unsigned compute_units = 0;
    size_t max_work_group_size = 0;
    uint64_t global_memory = 0, local_memory = 0, max_alloc = 0, constant_memory = 0;
    bool image_support = false;
    bool profile_full = false; /* FULL_PROFILE, not EMBEDDED_PROFILE */
    std::string extensions;
};

/* Every device of every platform, in platform then device order. No OpenCL
 * platform at all (the ICD loader's CL_PLATFORM_NOT_FOUND_KHR) is an empty
 * list, not an error; a platform that fails to enumerate is left out. */
std::vector<DeviceInfo> list_devices();

struct SelectedDevice {
    cl::Device device;
    cl::Platform platform;
    DeviceInfo info;
};

/* Picks a device by spec (a list of specs is split_device_list's):
 *   "" or "auto"               the first GPU, else accelerator, else CPU, else any
 *   "gpu", "cpu", "accelerator" the first device of that type (any case)
 *   "all-gpus", "all-cpus", "all-accelerators"
 *                              every device of that type, each engine on the
 *                              one the fewest engines of the process use
 *                              (select_devices(); here the first of them)
 *   "P:D"                      device D of platform P (as list_devices numbers them)
 *   anything else              the first device whose name, vendor or platform
 *                              name contains the text (any case)
 * Devices below OpenCL 1.2 are never picked. Throws Error (NoDevice) saying
 * why nothing matched and listing the devices there are. */
SelectedDevice select_device(const std::string& spec);

/* The devices a spec may put an engine on: every usable device of the type
 * for "all-gpus", "all-cpus" and "all-accelerators", in list_devices()
 * order; else select_device()'s one. Throws as select_device() does. */
std::vector<SelectedDevice> select_devices(const std::string& spec);

/* "GPU", "CPU" or "accelerator" for an "all-..." spec (any case, spaces
 * around it ignored); empty for any other. */
std::string spread_type(const std::string& spec);

/* A fallback list "gpu,cpu" as its specs in order, each trimmed of spaces;
 * empty entries are dropped, and an empty list is {"auto"}. Each entry is a
 * spec for select_device(). */
std::vector<std::string> split_device_list(const std::string& specs);

/* One line: "0:0 NAME (TYPE, PLATFORM, N compute units, X MiB local, OpenCL C 1.2)". */
std::string describe(const DeviceInfo& info);

/* The (major, minor) of a "OpenCL 1.2 ..." or "OpenCL C 1.2 ..." version
 * string; (0, 0) when it does not parse. */
std::pair<int, int> parse_opencl_version(const std::string& version);

/* "CL_OUT_OF_RESOURCES" for -5; "OpenCL error N" for codes it does not know. */
std::string error_name(cl_int code);

/* The kind of error an OpenCL status code means: OutOfResources for
 * CL_OUT_OF_RESOURCES, CL_OUT_OF_HOST_MEMORY, CL_MEM_OBJECT_ALLOCATION_FAILURE
 * and CL_INVALID_BUFFER_SIZE; KernelBuild for CL_BUILD_PROGRAM_FAILURE,
 * CL_COMPILER_NOT_AVAILABLE and CL_INVALID_BUILD_OPTIONS; NoDevice for
 * CL_DEVICE_NOT_FOUND, CL_DEVICE_NOT_AVAILABLE and CL_PLATFORM_NOT_FOUND_KHR;
 * Device for any other. */
ErrorKind error_kind(cl_int code);

/* The Error for a failed OpenCL call: "<doing>: <call> failed with
 * CL_OUT_OF_RESOURCES (-5)", of the code's error_kind(). `doing` says what
 * the engine was doing. */
Error to_error(const cl::Error& error, const std::string& doing);

/* Fault injection for testing the engine's error paths: throws
 * cl::Error(CL_OUT_OF_RESOURCES, call) when the environment variable
 * WALDBOOST_CL_FAULT names `call` ("program-build", "buffer-create",
 * "enqueue", "map", "wait" — the last when collecting a frame):
 *   CALL      every such call fails
 *   CALL:N    only the N-th such call in the process fails (from 1): a
 *             transient fault, after which a fallback device works
 *   CALL:N+   the N-th and every later one: a device that dies mid-stream
 * The variable is read once, at the first call; the count is process-wide
 * and thread-safe. An invalid value (an unknown call, stray spaces, a bad
 * or overflowing N) makes every call throw parse_fault_plan's Error, so
 * that a fault test cannot pass without its fault. */
void maybe_inject_fault(const char* call);

/* The call names maybe_inject_fault() is given, in the order above. */
const std::vector<std::string>& fault_call_names();

/* WALDBOOST_CL_FAULT parsed: which call, and which of its calls fail. */
struct FaultPlan {
    std::string call;      /* empty: no fault */
    long first = 1;        /* the first failing call, counted from 1 */
    bool and_later = true; /* false: only `first` fails */
};

/* Parses a WALDBOOST_CL_FAULT value ("" = no fault). Throws Error
 * (BadParameter) naming the variable, the value and the valid call names
 * for anything else than CALL, CALL:N or CALL:N+ with a known CALL and N
 * from 1 to LONG_MAX, written without spaces. */
FaultPlan parse_fault_plan(const std::string& text);

}  // namespace waldboost::opencl
