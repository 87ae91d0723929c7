/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/device/device.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <utility>

#include "core/opencl/device/environment.h"
#include "core/text.h"

namespace waldboost::opencl {

namespace {

struct Found {
    cl::Platform platform;
    cl::Device device;
    DeviceInfo info;
};

struct Enumeration {
    std::vector<Found> devices;
    /* Platforms that failed to enumerate, or that list no device: said
     * when nothing else is found. */
    std::vector<std::string> problems;
    bool platform_without_devices = false; /* one of the problems */
};

/* Some drivers pad strings with spaces or extra NULs; compare and print the
 * text only. */
std::string trim(std::string s)
{
    const auto not_space = [](unsigned char c) {
        return !std::isspace(c) && c != '\0';
    };
    s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
    s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
    return s;
}

/* Why an installed platform lists no device, for the error. PoCL lists none
 * when it cannot create its kernel cache folder: a service's user whose
 * home does not exist or cannot be written (a read-only root, `nobody`). */
std::string empty_platform_problem(const cl::Platform& platform, size_t index)
{
    std::string name;
    try {
        name = trim(platform.getInfo<CL_PLATFORM_NAME>());
    } catch (const cl::Error&) {
    }
    std::string problem =
        "OpenCL platform " + std::to_string(index) + " (" + printable(name) + ") is installed but lists no device";
    if (name == "Portable Computing Language")
        problem += ": PoCL lists none when it cannot create its cache folder, POCL_CACHE_DIR or else "
                   "$XDG_CACHE_HOME/pocl or $HOME/.cache/pocl; set POCL_CACHE_DIR to a folder this user can "
                   "write";
    return problem;
}

std::string lower(std::string s)
{
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) {
        return static_cast<char>(std::tolower(c));
    });
    return s;
}

bool contains_nocase(const std::string& haystack, const std::string& needle)
{
    return lower(haystack).find(lower(needle)) != std::string::npos;
}

std::string type_name(cl_device_type type)
{
    /* A device may also carry CL_DEVICE_TYPE_DEFAULT; name its kind. */
    if (type & CL_DEVICE_TYPE_GPU)
        return "GPU";
    if (type & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    if (type & CL_DEVICE_TYPE_CPU)
        return "CPU";
    return "other";
}

DeviceInfo query(const cl::Platform& platform, const cl::Device& device, int platform_index, int device_index)
{
    DeviceInfo info;
    info.platform_index = platform_index;
    info.device_index = device_index;
    info.platform_name = trim(platform.getInfo<CL_PLATFORM_NAME>());
    info.device_name = trim(device.getInfo<CL_DEVICE_NAME>());
    info.vendor = trim(device.getInfo<CL_DEVICE_VENDOR>());
    info.driver_version = trim(device.getInfo<CL_DRIVER_VERSION>());
    info.device_version = trim(device.getInfo<CL_DEVICE_VERSION>());
    try {
        info.opencl_c_version = trim(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
    } catch (const cl::Error&) {
        /* OpenCL 1.0 devices lack the query; they are skipped as too old. */
    }
    info.type = type_name(device.getInfo<CL_DEVICE_TYPE>());
    info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
    info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
    info.global_memory = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
    info.local_memory = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
    info.max_alloc = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
    info.constant_memory = device.getInfo<CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE>();
    info.image_support = device.getInfo<CL_DEVICE_IMAGE_SUPPORT>() == CL_TRUE;
    info.profile_full = trim(device.getInfo<CL_DEVICE_PROFILE>()) == "FULL_PROFILE";
    info.extensions = trim(device.getInfo<CL_DEVICE_EXTENSIONS>());
    return info;
}

Enumeration enumerate()
{
    /* The ICD loader and some drivers initialise on the first call and are
     * not safe when several threads (one per pipeline) do that at once. */
    static std::mutex lock;
    std::lock_guard<std::mutex> guard(lock);
    Enumeration result;
    /* The bindings' Platform::get asks for the platforms even when the count
     * is 0, which fails with CL_INVALID_VALUE; ask for the count first so that
     * "no platform" (ocl-icd says CL_PLATFORM_NOT_FOUND_KHR, others a count
     * of 0) is told apart from a real failure. */
    cl_uint count = 0;
    const cl_int status = clGetPlatformIDs(0, nullptr, &count);
    if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0))
        return result;
    if (status != CL_SUCCESS) {
        result.problems.push_back("clGetPlatformIDs failed with " + error_name(status) + " (" + std::to_string(status) +
                                  ")");
        return result;
    }

    std::vector<cl::Platform> platforms;
    try {
        cl::Platform::get(&platforms);
    } catch (const cl::Error& e) {
        result.problems.push_back(to_error(e, "listing OpenCL platforms").what());
        return result;
    }
    for (size_t p = 0; p < platforms.size(); ++p) {
        /* One broken driver must not hide the others. */
        try {
            std::vector<cl::Device> devices;
            platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
            if (devices.empty()) {
                result.problems.push_back(empty_platform_problem(platforms[p], p));
                result.platform_without_devices = true;
            }
            for (size_t d = 0; d < devices.size(); ++d)
                result.devices.push_back({platforms[p], devices[d],
                                          query(platforms[p], devices[d], static_cast<int>(p), static_cast<int>(d))});
        } catch (const cl::Error& e) {
            /* Older bindings throw where newer ones return no device. */
            if (e.err() == CL_DEVICE_NOT_FOUND) {
                result.problems.push_back(empty_platform_problem(platforms[p], p));
                result.platform_without_devices = true;
            } else {
                result.problems.push_back(to_error(e, "OpenCL platform " + std::to_string(p)).what());
            }
        }
    }
    return result;
}

bool supports_opencl_12(const DeviceInfo& info)
{
    return parse_opencl_version(info.device_version) >= std::make_pair(1, 2);
}

std::string index_of(const DeviceInfo& info)
{
    return std::to_string(info.platform_index) + ":" + std::to_string(info.device_index);
}

std::string available(const Enumeration& found)
{
    std::string text;
    for (const Found& f : found.devices) {
        if (!text.empty())
            text += "; ";
        text += index_of(f.info) + " " + f.info.device_name + " (" + f.info.type + ", " + f.info.platform_name;
        if (!supports_opencl_12(f.info))
            text += ", " + f.info.device_version + ": below OpenCL 1.2";
        text += ")";
    }
    return text;
}

[[noreturn]] void no_match(const std::string& spec, const std::string& why, const Enumeration& found)
{
    /* The spec is the user's text: escaped and cut, as file names are. */
    std::string message = "no OpenCL device matches '" + printable(spec) + "'" + (why.empty() ? "" : " (" + why + ")") +
                          "; available: " + available(found);
    for (const std::string& problem : found.problems)
        message += "; not listed: " + problem;
    throw Error(ErrorKind::NoDevice, message);
}

/* "P:D", digits only (a short run of them, so std::stoi cannot overflow). */
bool parse_index(const std::string& spec, int& platform_index, int& device_index)
{
    const size_t colon = spec.find(':');
    if (colon == std::string::npos)
        return false;
    const std::string p = spec.substr(0, colon), d = spec.substr(colon + 1);
    const auto is_index = [](const std::string& s) {
        return !s.empty() && s.size() <= 6 && std::all_of(s.begin(), s.end(), [](unsigned char c) {
            return std::isdigit(c);
        });
    };
    if (!is_index(p) || !is_index(d))
        return false;
    platform_index = std::stoi(p);
    device_index = std::stoi(d);
    return true;
}

SelectedDevice selected(const Found& f) { return {f.device, f.platform, f.info}; }

/* DL Streamer's "GPU.0", "CPU.1": the type and the index among the devices
 * of that type (from 0, in waldboost-devices' order). */
bool parse_typed_index(const std::string& key, std::string& type, int& index)
{
    const size_t dot = key.find('.');
    if (dot == std::string::npos)
        return false;
    const std::string name = key.substr(0, dot), number = key.substr(dot + 1);
    if (number.empty() || number.size() > 6 || !std::all_of(number.begin(), number.end(), [](unsigned char c) {
            return std::isdigit(c);
        }))
        return false;
    type = name == "gpu" ? "GPU" : name == "cpu" ? "CPU" : name == "accelerator" ? "accelerator" : "";
    index = std::stoi(number);
    return !type.empty();
}

/* The first usable device that `match` accepts; when only devices below
 * OpenCL 1.2 match, says so. */
SelectedDevice first_match(const Enumeration& found, const std::string& spec,
                           const std::function<bool(const DeviceInfo&)>& match)
{
    const Found* too_old = nullptr;
    for (const Found& f : found.devices) {
        if (!match(f.info))
            continue;
        if (supports_opencl_12(f.info))
            return selected(f);
        if (!too_old)
            too_old = &f;
    }
    if (too_old)
        no_match(spec,
                 "device " + index_of(too_old->info) + " " + too_old->info.device_name + " matches but reports '" +
                     too_old->info.device_version + "'; waldboost needs OpenCL 1.2 or newer",
                 found);
    no_match(spec, "", found);
}

}  // namespace

std::vector<DeviceInfo> list_devices()
{
    std::vector<DeviceInfo> infos;
    for (const Found& f : enumerate().devices)
        infos.push_back(f.info);
    return infos;
}

SelectedDevice select_device(const std::string& raw_spec)
{
    const Enumeration found = enumerate();
    if (found.devices.empty()) {
        /* A driver that is installed but lists nothing: installing one is
         * not the answer, what it says is. */
        std::string message = found.platform_without_devices
                                  ? "no OpenCL device found"
                                  : "no OpenCL device found: install an OpenCL driver (for the CPU, Debian's "
                                    "pocl-opencl-icd) and check with clinfo";
        for (size_t i = 0; i < found.problems.size(); ++i)
            message += (i == 0 && found.platform_without_devices ? ": " : "; ") + found.problems[i];
        throw Error(ErrorKind::NoDevice, message);
    }

    const std::string spec = trim(raw_spec);
    const std::string key = lower(spec);

    if (key.empty() || key == "auto") {
        for (const char* type : {"GPU", "accelerator", "CPU"})
            for (const Found& f : found.devices)
                if (f.info.type == type && supports_opencl_12(f.info))
                    return selected(f);
        return first_match(found, spec.empty() ? "auto" : spec, [](const DeviceInfo&) {
            return true;
        });
    }

    const std::string spread = spread_type(key);
    if (key == "gpu" || key == "cpu" || key == "accelerator" || !spread.empty()) {
        const std::string type = !spread.empty() ? spread : key == "gpu" ? "GPU" : key == "cpu" ? "CPU" : "accelerator";
        const bool any = std::any_of(found.devices.begin(), found.devices.end(), [&](const Found& f) {
            return f.info.type == type;
        });
        if (!any)
            no_match(spec, "there is no " + type + " device", found);
        return first_match(found, spec, [&](const DeviceInfo& info) {
            return info.type == type;
        });
    }

    std::string typed;
    int typed_index = -1;
    if (parse_typed_index(key, typed, typed_index)) {
        int seen = 0;
        for (const Found& f : found.devices)
            if (f.info.type == typed && seen++ == typed_index)
                return first_match(found, spec, [&](const DeviceInfo& info) {
                    return &info == &f.info;
                });
        no_match(spec,
                 seen == 0 ? "there is no " + typed + " device"
                           : "there " + std::string(seen == 1 ? "is 1 " : "are " + std::to_string(seen) + " ") + typed +
                                 (seen == 1 ? " device" : " devices") + ", numbered from 0",
                 found);
    }

    int platform_index = -1, device_index = -1;
    if (parse_index(spec, platform_index, device_index)) {
        const bool exists = std::any_of(found.devices.begin(), found.devices.end(), [&](const Found& f) {
            return f.info.platform_index == platform_index && f.info.device_index == device_index;
        });
        if (!exists)
            no_match(spec, "there is no device " + spec, found);
        return first_match(found, spec, [&](const DeviceInfo& info) {
            return info.platform_index == platform_index && info.device_index == device_index;
        });
    }

    /* The device version names the driver ("OpenCL 3.0 PoCL ...": device=pocl). */
    return first_match(found, spec, [&](const DeviceInfo& info) {
        return contains_nocase(info.device_name, spec) || contains_nocase(info.vendor, spec) ||
               contains_nocase(info.platform_name, spec) || contains_nocase(info.device_version, spec);
    });
}

std::string spread_type(const std::string& spec)
{
    const std::string key = lower(trim(spec));
    return key == "all-gpus" ? "GPU" : key == "all-cpus" ? "CPU" : key == "all-accelerators" ? "accelerator" : "";
}

std::vector<SelectedDevice> select_devices(const std::string& spec)
{
    const std::string type = spread_type(spec);
    std::vector<SelectedDevice> devices{select_device(spec)}; /* the first, or why there is none */
    if (type.empty())
        return devices;
    for (const Found& f : enumerate().devices)
        if (f.info.type == type && supports_opencl_12(f.info) && f.device() != devices.front().device())
            devices.push_back(selected(f));
    return devices;
}

std::string describe(const DeviceInfo& info)
{
    /* Local memory is tens of KiB on GPUs and MiB on CPU drivers. */
    const uint64_t local = info.local_memory;
    const std::string local_text = local >= 1024 * 1024 && local % (1024 * 1024) == 0
                                       ? std::to_string(local / (1024 * 1024)) + " MiB"
                                       : std::to_string(local / 1024) + " KiB";
    const auto [major, minor] = parse_opencl_version(info.opencl_c_version);
    const std::string c_version =
        major > 0 ? "OpenCL C " + std::to_string(major) + "." + std::to_string(minor) : "OpenCL C unknown";
    return index_of(info) + " " + info.device_name + " (" + info.type + ", " + info.platform_name + ", " +
           std::to_string(info.compute_units) + " compute units, " + local_text + " local, " + c_version + ")";
}

std::pair<int, int> parse_opencl_version(const std::string& version)
{
    /* The specification fixes the form: "OpenCL <major>.<minor> <vendor text>"
     * for devices and "OpenCL C <major>.<minor> <vendor text>" for the
     * language. */
    int major = 0, minor = 0;
    if (std::sscanf(version.c_str(), "OpenCL C %d.%d", &major, &minor) == 2 ||
        std::sscanf(version.c_str(), "OpenCL %d.%d", &major, &minor) == 2)
        return {major, minor};
    return {0, 0};
}

std::string error_name(cl_int code)
{
    switch (code) {
#define WALDBOOST_CL_ERROR(name) \
    case name: return #name;
        WALDBOOST_CL_ERROR(CL_SUCCESS)
        WALDBOOST_CL_ERROR(CL_DEVICE_NOT_FOUND)
        WALDBOOST_CL_ERROR(CL_DEVICE_NOT_AVAILABLE)
        WALDBOOST_CL_ERROR(CL_COMPILER_NOT_AVAILABLE)
        WALDBOOST_CL_ERROR(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        WALDBOOST_CL_ERROR(CL_OUT_OF_RESOURCES)
        WALDBOOST_CL_ERROR(CL_OUT_OF_HOST_MEMORY)
        WALDBOOST_CL_ERROR(CL_PROFILING_INFO_NOT_AVAILABLE)
        WALDBOOST_CL_ERROR(CL_MEM_COPY_OVERLAP)
        WALDBOOST_CL_ERROR(CL_IMAGE_FORMAT_MISMATCH)
        WALDBOOST_CL_ERROR(CL_IMAGE_FORMAT_NOT_SUPPORTED)
        WALDBOOST_CL_ERROR(CL_BUILD_PROGRAM_FAILURE)
        WALDBOOST_CL_ERROR(CL_MAP_FAILURE)
        WALDBOOST_CL_ERROR(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        WALDBOOST_CL_ERROR(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        WALDBOOST_CL_ERROR(CL_COMPILE_PROGRAM_FAILURE)
        WALDBOOST_CL_ERROR(CL_LINKER_NOT_AVAILABLE)
        WALDBOOST_CL_ERROR(CL_LINK_PROGRAM_FAILURE)
        WALDBOOST_CL_ERROR(CL_DEVICE_PARTITION_FAILED)
        WALDBOOST_CL_ERROR(CL_KERNEL_ARG_INFO_NOT_AVAILABLE)
        WALDBOOST_CL_ERROR(CL_INVALID_VALUE)
        WALDBOOST_CL_ERROR(CL_INVALID_DEVICE_TYPE)
        WALDBOOST_CL_ERROR(CL_INVALID_PLATFORM)
        WALDBOOST_CL_ERROR(CL_INVALID_DEVICE)
        WALDBOOST_CL_ERROR(CL_INVALID_CONTEXT)
        WALDBOOST_CL_ERROR(CL_INVALID_QUEUE_PROPERTIES)
        WALDBOOST_CL_ERROR(CL_INVALID_COMMAND_QUEUE)
        WALDBOOST_CL_ERROR(CL_INVALID_HOST_PTR)
        WALDBOOST_CL_ERROR(CL_INVALID_MEM_OBJECT)
        WALDBOOST_CL_ERROR(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR)
        WALDBOOST_CL_ERROR(CL_INVALID_IMAGE_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_SAMPLER)
        WALDBOOST_CL_ERROR(CL_INVALID_BINARY)
        WALDBOOST_CL_ERROR(CL_INVALID_BUILD_OPTIONS)
        WALDBOOST_CL_ERROR(CL_INVALID_PROGRAM)
        WALDBOOST_CL_ERROR(CL_INVALID_PROGRAM_EXECUTABLE)
        WALDBOOST_CL_ERROR(CL_INVALID_KERNEL_NAME)
        WALDBOOST_CL_ERROR(CL_INVALID_KERNEL_DEFINITION)
        WALDBOOST_CL_ERROR(CL_INVALID_KERNEL)
        WALDBOOST_CL_ERROR(CL_INVALID_ARG_INDEX)
        WALDBOOST_CL_ERROR(CL_INVALID_ARG_VALUE)
        WALDBOOST_CL_ERROR(CL_INVALID_ARG_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_KERNEL_ARGS)
        WALDBOOST_CL_ERROR(CL_INVALID_WORK_DIMENSION)
        WALDBOOST_CL_ERROR(CL_INVALID_WORK_GROUP_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_WORK_ITEM_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_GLOBAL_OFFSET)
        WALDBOOST_CL_ERROR(CL_INVALID_EVENT_WAIT_LIST)
        WALDBOOST_CL_ERROR(CL_INVALID_EVENT)
        WALDBOOST_CL_ERROR(CL_INVALID_OPERATION)
        WALDBOOST_CL_ERROR(CL_INVALID_GL_OBJECT)
        WALDBOOST_CL_ERROR(CL_INVALID_BUFFER_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_MIP_LEVEL)
        WALDBOOST_CL_ERROR(CL_INVALID_GLOBAL_WORK_SIZE)
        WALDBOOST_CL_ERROR(CL_INVALID_PROPERTY)
        WALDBOOST_CL_ERROR(CL_INVALID_IMAGE_DESCRIPTOR)
        WALDBOOST_CL_ERROR(CL_INVALID_COMPILER_OPTIONS)
        WALDBOOST_CL_ERROR(CL_INVALID_LINKER_OPTIONS)
        WALDBOOST_CL_ERROR(CL_INVALID_DEVICE_PARTITION_COUNT)
        WALDBOOST_CL_ERROR(CL_PLATFORM_NOT_FOUND_KHR)
#undef WALDBOOST_CL_ERROR
    default: return "OpenCL error " + std::to_string(code);
    }
}

ErrorKind error_kind(cl_int code)
{
    switch (code) {
    case CL_OUT_OF_RESOURCES:
    case CL_OUT_OF_HOST_MEMORY:
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
    case CL_INVALID_BUFFER_SIZE: return ErrorKind::OutOfResources;
    case CL_BUILD_PROGRAM_FAILURE:
    case CL_COMPILER_NOT_AVAILABLE:
    case CL_INVALID_BUILD_OPTIONS: return ErrorKind::KernelBuild;
    case CL_DEVICE_NOT_FOUND:
    case CL_DEVICE_NOT_AVAILABLE:
    case CL_PLATFORM_NOT_FOUND_KHR: return ErrorKind::NoDevice;
    default: return ErrorKind::Device;
    }
}

Error to_error(const cl::Error& error, const std::string& doing)
{
    /* The bindings name the failed call (e.g. "clCreateBuffer") in what(). */
    const std::string call = error.what() && std::string(error.what()) != "empty" ? error.what() : "an OpenCL call";
    return Error(error_kind(error.err()), doing + ": " + call + " failed with " + error_name(error.err()) + " (" +
                                              std::to_string(error.err()) + ")");
}

std::vector<std::string> split_device_list(const std::string& specs)
{
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= specs.size()) {
        size_t end = specs.find(',', start);
        if (end == std::string::npos)
            end = specs.size();
        size_t a = start, b = end;
        while (a < b && std::isspace(static_cast<unsigned char>(specs[a])))
            ++a;
        while (b > a && std::isspace(static_cast<unsigned char>(specs[b - 1])))
            --b;
        if (b > a)
            out.push_back(specs.substr(a, b - a));
        start = end + 1;
    }
    if (out.empty())
        out.push_back("auto");
    return out;
}

const std::vector<std::string>& fault_call_names()
{
    static const std::vector<std::string> names = {"program-build", "buffer-create", "enqueue", "map", "wait"};
    return names;
}

FaultPlan parse_fault_plan(const std::string& text)
{
    FaultPlan plan;
    if (text.empty())
        return plan;
    auto refuse = [&](const std::string& why) {
        std::string names;
        for (const std::string& name : fault_call_names())
            names += (names.empty() ? "" : ", ") + name;
        return Error(ErrorKind::BadParameter, "WALDBOOST_CL_FAULT=\"" + text + "\" is not valid (" + why +
                                                  "): expected CALL, CALL:N or CALL:N+ with N from 1, and CALL one "
                                                  "of " +
                                                  names);
    };
    const size_t colon = text.find(':');
    const std::string call = text.substr(0, colon);
    if (call.empty())
        throw refuse("no call name");
    const auto& names = fault_call_names();
    if (std::find(names.begin(), names.end(), call) == names.end())
        throw refuse("unknown call \"" + call + "\"");
    plan.call = call;
    if (colon == std::string::npos)
        return plan;
    std::string count = text.substr(colon + 1);
    plan.and_later = !count.empty() && count.back() == '+';
    if (plan.and_later)
        count.pop_back();
    /* Digits only: strtol alone would take " 3", "+3" and "-0". */
    if (count.empty() || count.find_first_not_of("0123456789") != std::string::npos)
        throw refuse("N is not a number");
    errno = 0;
    char* end = nullptr;
    const long n = std::strtol(count.c_str(), &end, 10);
    if (errno == ERANGE)
        throw refuse("N is too large");
    if (*end != '\0' || n < 1)
        throw refuse("N must be 1 or more");
    plan.first = n;
    return plan;
}

void maybe_inject_fault(const char* call)
{
    /* Read once: the engine calls this on hot paths, and a test sets the
     * variable before the engine starts. */
    static const FaultPlan plan = parse_fault_plan(environment::cl_fault());
    static std::atomic<long> calls{0};
    if (plan.call.empty() || plan.call != call)
        return;
    const long n = ++calls;
    /* cl::Error keeps the pointer: callers pass string literals. */
    if (n == plan.first || (plan.and_later && n > plan.first))
        throw cl::Error(CL_OUT_OF_RESOURCES, call);
}

}  // namespace waldboost::opencl
