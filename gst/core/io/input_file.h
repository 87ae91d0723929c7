/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Opening a file a user named for input (a classifier, a list, an
 * annotation file, an image, a checkpoint): one rule for every reader, so
 * that a FIFO, a device or a huge file is refused the same way everywhere
 * instead of blocking a tool or filling its memory.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/error.h"

namespace waldboost::io {

/* A regular file open for reading.
 *
 * The name is opened without blocking (a FIFO would otherwise wait for a
 * writer, forever if none comes) and what was opened is then checked, not
 * the name, which could be swapped in between: anything but a regular
 * file (a FIFO, a socket, a device such as /dev/zero) is refused.
 *
 * Errors are Error of the kind given to open(), whose message starts with
 * the path escaped with printable(): "PATH: cannot open: REASON", "PATH:
 * cannot open: is a directory", "PATH: not a regular file", "PATH: read
 * error: REASON", "PATH: file is too large (...)". */
class InputFile {
public:
    static InputFile open(const std::string& path, ErrorKind kind = ErrorKind::Io);

    InputFile(InputFile&& other) noexcept;
    InputFile& operator=(InputFile&&) = delete;
    InputFile(const InputFile&) = delete;
    InputFile& operator=(const InputFile&) = delete;
    ~InputFile();

    /* The size when it was opened (the file may grow or shrink since). */
    uint64_t size() const { return size_; }
    const std::string& path() const { return path_; }

    /* Up to `n` bytes into `buffer`; 0 at the end of the file. */
    size_t read(void* buffer, size_t n);

    /* The rest of the file, refused when it is (or grows) larger than
     * `max_bytes`: "PATH: file is too large (N bytes; the limit for
     * LIMIT_NAME is M bytes)", where `limit_name` says whose limit it is
     * (e.g. "lists", "classifier files"). */
    std::string read_all(size_t max_bytes, const std::string& limit_name);

private:
    InputFile(int fd, uint64_t size, std::string path, ErrorKind kind);
    Error too_large(uint64_t size, bool more_than, size_t max_bytes, const std::string& limit_name) const;

    int fd_ = -1;
    uint64_t size_ = 0;
    std::string path_;
    ErrorKind kind_ = ErrorKind::Io;
};

/* InputFile::open(path, kind).read_all(max_bytes, limit_name), refusing a
 * file larger than `max_bytes` before reading any of it. */
std::string read_input_file(const std::string& path, size_t max_bytes, const std::string& limit_name,
                            ErrorKind kind = ErrorKind::Io);

/* The most bytes the tools read from a text file (a list of images, an
 * annotation file): far more than a list of a million paths. */
constexpr size_t kMaxTextFileBytes = size_t{256} << 20;

/* `text` without a leading UTF-8 byte order mark (which some editors
 * write at the start of a text file). */
inline std::string_view without_bom(std::string_view text)
{
    return text.substr(0, 3) == "\xEF\xBB\xBF" ? text.substr(3) : text;
}

}  // namespace waldboost::io
