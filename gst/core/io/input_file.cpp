/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/io/input_file.h"

#include <cerrno>
#include <cstring>
#include <utility>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/text.h"

namespace waldboost::io {

InputFile::InputFile(int fd, uint64_t size, std::string path, ErrorKind kind)
    : fd_(fd), size_(size), path_(std::move(path)), kind_(kind)
{
}

InputFile::InputFile(InputFile&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)), size_(other.size_), path_(std::move(other.path_)), kind_(other.kind_)
{
}

InputFile::~InputFile()
{
    if (fd_ >= 0)
        ::close(fd_);
}

InputFile InputFile::open(const std::string& path, ErrorKind kind)
{
    const auto fail = [&](const std::string& why) {
        return Error(kind, printable(path) + ": " + why);
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        throw fail(std::string("cannot open: ") + std::strerror(errno));
    InputFile file(fd, 0, path, kind);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw fail(std::string("cannot open: ") + std::strerror(errno));
    if (S_ISDIR(st.st_mode))
        throw fail("cannot open: is a directory");
    /* A FIFO, a socket or a device may never end, or block the reader. */
    if (!S_ISREG(st.st_mode))
        throw fail("not a regular file");
    /* Regular files never block; reads are plain from here. */
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
        ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    file.size_ = static_cast<uint64_t>(st.st_size);
    return file;
}

size_t InputFile::read(void* buffer, size_t n)
{
    for (;;) {
        const ssize_t got = ::read(fd_, buffer, n);
        if (got >= 0)
            return static_cast<size_t>(got);
        if (errno != EINTR)
            throw Error(kind_, printable(path_) + ": read error: " + std::strerror(errno));
    }
}

Error InputFile::too_large(uint64_t size, bool more_than, size_t max_bytes, const std::string& limit_name) const
{
    return Error(kind_, printable(path_) + ": file is too large (" + (more_than ? "more than " : "") +
                            std::to_string(more_than ? max_bytes : size) + " bytes; the limit for " + limit_name +
                            " is " + std::to_string(max_bytes) + " bytes)");
}

std::string InputFile::read_all(size_t max_bytes, const std::string& limit_name)
{
    if (size_ > max_bytes)
        throw too_large(size_, false, max_bytes, limit_name);
    std::string data;
    data.reserve(static_cast<size_t>(size_));
    char buffer[65536];
    for (;;) {
        const size_t n = read(buffer, sizeof buffer);
        if (n == 0)
            break;
        /* The file may have grown since it was opened. */
        if (data.size() + n > max_bytes)
            throw too_large(0, true, max_bytes, limit_name);
        data.append(buffer, n);
    }
    return data;
}

std::string read_input_file(const std::string& path, size_t max_bytes, const std::string& limit_name, ErrorKind kind)
{
    return InputFile::open(path, kind).read_all(max_bytes, limit_name);
}

}  // namespace waldboost::io
