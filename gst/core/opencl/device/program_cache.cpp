/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/device/program_cache.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <vector>

#include "core/model/model.h"
#include "core/opencl/device/device.h"
#include "core/opencl/device/environment.h"

namespace waldboost::opencl {

namespace {

/* Part of every key: bump it when the entry layout or what goes into the key
 * changes, and old entries are simply never looked up again. */
constexpr const char* kCacheFormat = "waldboost-gst program cache 1";

/* Entry layout, integers little-endian:
 *   0  magic "WBCLPRG\n"
 *   8  u32 format version
 *  12  u32 reserved (0)
 *  16  u64 payload length
 *  24  64 hex digits: the key (SHA-256 of what built it; also the file name)
 *  88  64 hex digits: SHA-256 of the payload
 * 152  payload: the driver's program binary */
constexpr char kMagic[8] = {'W', 'B', 'C', 'L', 'P', 'R', 'G', '\n'};
constexpr uint32_t kFormatVersion = 1;
constexpr size_t kDigestLength = 64;
constexpr size_t kHeaderSize = 8 + 4 + 4 + 8 + kDigestLength + kDigestLength;
/* Larger than any kernel binary we make; guards against a damaged length. */
constexpr uint64_t kMaxPayload = 256u * 1024u * 1024u;
/* Enough of a build log to find the first errors. */
constexpr size_t kMaxLogLength = 8000;

struct GFreeDeleter {
    void operator()(void* p) const { g_free(p); }
};
using GCharPtr = std::unique_ptr<char, GFreeDeleter>;

struct GErrorDeleter {
    void operator()(GError* e) const { g_error_free(e); }
};

std::string sha256(const void* data, size_t length)
{
    GCharPtr hex(g_compute_checksum_for_data(G_CHECKSUM_SHA256, static_cast<const guchar*>(data), length));
    return hex.get();
}

std::string sha256(const std::string& text) { return sha256(text.data(), text.size()); }

void put_u32(std::string& out, uint32_t v)
{
    for (int i = 0; i < 4; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void put_u64(std::string& out, uint64_t v)
{
    for (int i = 0; i < 8; ++i)
        out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

uint64_t get_le(const unsigned char* p, int bytes)
{
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i)
        v = (v << 8) | p[i];
    return v;
}

std::string trim_log(std::string log)
{
    while (!log.empty() && (std::isspace(static_cast<unsigned char>(log.back())) || log.back() == '\0'))
        log.pop_back();
    if (log.size() > kMaxLogLength) {
        const size_t dropped = log.size() - kMaxLogLength;
        log.resize(kMaxLogLength);
        log += "\n... (" + std::to_string(dropped) + " more bytes of build log)";
    }
    return log;
}

/* What identifies the compiler a binary came from. */
struct DeviceIdentity {
    std::string platform_name, platform_version, device_name, driver_version, device_version;
};

DeviceIdentity identify(const cl::Device& device)
{
    const cl::Platform platform(device.getInfo<CL_DEVICE_PLATFORM>());
    return {platform.getInfo<CL_PLATFORM_NAME>(), platform.getInfo<CL_PLATFORM_VERSION>(),
            device.getInfo<CL_DEVICE_NAME>(), device.getInfo<CL_DRIVER_VERSION>(), device.getInfo<CL_DEVICE_VERSION>()};
}

std::string cache_key(const DeviceIdentity& id, const std::string& source, const std::string& options)
{
    /* Length-prefixed fields, so that moving text from one field to the next
     * cannot give the same key. */
    std::string material;
    for (const std::string* field : {&id.platform_name, &id.platform_version, &id.device_name, &id.driver_version,
                                     &id.device_version, &source, &options}) {
        material += std::to_string(field->size()) + ":" + *field + "\n";
    }
    material += kCacheFormat;
    return sha256(material);
}

/* The entry's payload when its header, length and checksum are right; else
 * nothing, with `why` saying what was wrong ("" when there is no entry). */
std::optional<std::vector<unsigned char>> read_entry(const std::string& path, const std::string& key, std::string& why)
{
    GStatBuf st;
    if (g_stat(path.c_str(), &st) != 0) {
        why = errno == ENOENT ? "" : std::string("cannot stat: ") + std::strerror(errno);
        return std::nullopt;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        why = "cannot open";
        return std::nullopt;
    }
    unsigned char header[kHeaderSize];
    if (!in.read(reinterpret_cast<char*>(header), kHeaderSize)) {
        why = "truncated header";
        return std::nullopt;
    }
    if (std::memcmp(header, kMagic, sizeof kMagic) != 0) {
        why = "not a cache entry";
        return std::nullopt;
    }
    if (get_le(header + 8, 4) != kFormatVersion) {
        why = "other format version";
        return std::nullopt;
    }
    const uint64_t length = get_le(header + 16, 8);
    /* Checked against the file's size before anything is allocated. */
    if (length == 0 || length > kMaxPayload || static_cast<uint64_t>(st.st_size) != kHeaderSize + length) {
        why = "payload length does not match the file size";
        return std::nullopt;
    }
    if (std::string(reinterpret_cast<const char*>(header + 24), kDigestLength) != key) {
        why = "entry for another key";
        return std::nullopt;
    }
    const std::string expected(reinterpret_cast<const char*>(header + 24 + kDigestLength), kDigestLength);

    std::vector<unsigned char> payload(length);
    if (!in.read(reinterpret_cast<char*>(payload.data()), static_cast<std::streamsize>(length))) {
        why = "truncated payload";
        return std::nullopt;
    }
    if (sha256(payload.data(), payload.size()) != expected) {
        why = "payload checksum mismatch";
        return std::nullopt;
    }
    return payload;
}

/* Writes the entry atomically: GLib writes a temporary file in the same
 * directory and renames it over `path`, so readers see the old entry or the
 * new one, never part of one. Returns "" or why it failed. */
std::string write_entry(const std::string& directory, const std::string& path, const std::string& key,
                        const std::vector<unsigned char>& payload)
{
    if (g_mkdir_with_parents(directory.c_str(), 0755) != 0)
        return "cannot create " + directory + ": " + std::strerror(errno);

    std::string entry(kMagic, sizeof kMagic);
    put_u32(entry, kFormatVersion);
    put_u32(entry, 0);
    put_u64(entry, payload.size());
    entry += key;
    entry += sha256(payload.data(), payload.size());
    entry.append(reinterpret_cast<const char*>(payload.data()), payload.size());

    GError* raw_error = nullptr;
    if (!g_file_set_contents_full(path.c_str(), entry.data(), static_cast<gssize>(entry.size()),
                                  G_FILE_SET_CONTENTS_CONSISTENT, 0644, &raw_error)) {
        const std::unique_ptr<GError, GErrorDeleter> error(raw_error);
        return std::string("cannot write: ") + error->message;
    }
    return "";
}

/* clBuildProgram, through the fault injection point. */
void build(const cl::Program& program, const cl::Device& device, const std::string& options)
{
    maybe_inject_fault("program-build");
    program.build(device, options.c_str());
}

cl::Program from_binary(const cl::Context& context, const cl::Device& device, std::vector<unsigned char> binary,
                        const std::string& options)
{
    const cl::Program::Binaries binaries{std::move(binary)};
    std::vector<cl_int> status;
    const cl::Program program(context, {device}, binaries, &status);
    /* Some drivers report a rejected binary only in the per-device status. */
    if (status.size() != 1 || status[0] != CL_SUCCESS)
        throw cl::Error(status.empty() ? CL_INVALID_BINARY : status[0], "clCreateProgramWithBinary");
    build(program, device, options);
    return program;
}

cl::Program from_source(const cl::Context& context, const cl::Device& device, const std::string& device_name,
                        const std::string& source, const std::string& options)
{
    cl::Program program;
    try {
        program = cl::Program(context, source);
        build(program, device, options);
    } catch (const cl::BuildError& e) {
        std::string log;
        for (const auto& [log_device, text] : e.getBuildLog())
            if (log_device() == device())
                log += text;
        std::string message = "OpenCL program build failed on " + device_name + ":";
        if (e.err() != CL_BUILD_PROGRAM_FAILURE)
            message += " clBuildProgram failed with " + error_name(e.err()) + " (" + std::to_string(e.err()) + ")";
        throw Error(ErrorKind::KernelBuild, message + "\n" + trim_log(log));
    } catch (const cl::Error& e) {
        /* Whatever the code (CL_OUT_OF_HOST_MEMORY too, and the injected
         * fault's CL_OUT_OF_RESOURCES), the program did not build: the
         * kernels are what is missing, and the message keeps the code. */
        throw Error(ErrorKind::KernelBuild, to_error(e, "OpenCL program build failed on " + device_name).what());
    }
    return program;
}

/* This device's binary of a program built from source; empty when the
 * driver gives none. */
std::vector<unsigned char> binary_of(const cl::Program& program, const cl::Device& device)
{
    const std::vector<cl::Device> devices = program.getInfo<CL_PROGRAM_DEVICES>();
    std::vector<std::vector<unsigned char>> binaries = program.getInfo<CL_PROGRAM_BINARIES>();
    for (size_t i = 0; i < devices.size() && i < binaries.size(); ++i)
        if (devices[i]() == device())
            return std::move(binaries[i]);
    return {};
}

void append_note(std::string& note, const std::string& text) { note += (note.empty() ? "" : "; ") + text; }

}  // namespace

CacheSettings CacheSettings::from_environment()
{
    CacheSettings settings;
    settings.enabled = !environment::kernel_cache_disabled();
    const std::string directory = environment::cache_dir();
    if (!directory.empty()) {
        settings.directory = directory;
    } else {
        /* g_get_user_cache_dir: $XDG_CACHE_HOME, else ~/.cache. */
        const GCharPtr path(g_build_filename(g_get_user_cache_dir(), "waldboost-gst", "kernels", nullptr));
        settings.directory = path.get();
    }
    return settings;
}

cl::Program build_program(const cl::Context& context, const cl::Device& device, const std::string& source,
                          const std::string& options, BuildReport* report)
{
    return build_program(context, device, source, options, CacheSettings::from_environment(), report);
}

cl::Program build_program(const cl::Context& context, const cl::Device& device, const std::string& source,
                          const std::string& options, const CacheSettings& cache, BuildReport* report)
{
    const auto start = std::chrono::steady_clock::now();
    BuildReport local;
    BuildReport& r = report ? *report : local;
    r = BuildReport{};

    DeviceIdentity id;
    try {
        id = identify(device);
    } catch (const cl::Error& e) {
        throw to_error(e, "querying the OpenCL device to build a program for");
    }

    std::string key, path;
    if (!cache.enabled) {
        r.note = "program cache disabled";
    } else if (cache.directory.empty()) {
        r.note = "program cache off: no cache directory";
    } else {
        key = cache_key(id, source, options);
        const GCharPtr file(g_build_filename(cache.directory.c_str(), (key + ".bin").c_str(), nullptr));
        path = file.get();
        r.cache_path = path;
    }

    std::optional<cl::Program> program;
    if (!path.empty()) {
        std::string why;
        if (auto binary = read_entry(path, key, why)) {
            try {
                program = from_binary(context, device, std::move(*binary), options);
                r.cache_hit = true;
            } catch (const cl::Error& e) {
                /* Stale or foreign binary, or the driver changed without
                 * saying so in its version: rebuild and replace it. */
                why = std::string("driver rejected the binary: ") + e.what() + " failed with " + error_name(e.err());
            }
        }
        if (!why.empty())
            append_note(r.note, "cache entry " + path + " unusable (" + why + "), rebuilt from source");
    }

    if (!program) {
        program = from_source(context, device, id.device_name, source, options);
        if (!path.empty()) {
            std::string failure;
            try {
                const std::vector<unsigned char> binary = binary_of(*program, device);
                failure = binary.empty() ? "the driver gives no program binary"
                                         : write_entry(cache.directory, path, key, binary);
            } catch (const cl::Error& e) {
                failure = to_error(e, "reading the program binary").what();
            }
            /* A read-only or full cache directory costs time, not correctness. */
            if (!failure.empty())
                append_note(r.note, "not cached: " + failure);
        }
    }

    try {
        r.log = trim_log(program->getBuildInfo<CL_PROGRAM_BUILD_LOG>(device));
    } catch (const cl::Error&) {
        /* The log is a courtesy; the program is built. */
    }
    r.milliseconds = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return *program;
}

std::string kernel_source(std::string_view embedded, const char* file_name)
{
    const std::string directory = environment::kernel_dir();
    if (directory.empty())
        return std::string(embedded);

    const GCharPtr path(g_build_filename(directory.c_str(), file_name, nullptr));
    gchar* contents = nullptr;
    gsize length = 0;
    GError* raw_error = nullptr;
    if (!g_file_get_contents(path.get(), &contents, &length, &raw_error)) {
        const std::unique_ptr<GError, GErrorDeleter> error(raw_error);
        throw Error(ErrorKind::Io, std::string("cannot read kernel source ") + path.get() +
                                       " (WALDBOOST_KERNEL_DIR is set): " + error->message);
    }
    const GCharPtr owned(contents);
    return std::string(contents, length);
}

}  // namespace waldboost::opencl
