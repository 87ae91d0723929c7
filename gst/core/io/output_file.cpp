/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/io/output_file.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/error.h"
#include "core/text.h"

namespace waldboost::io {

namespace {

/* "PATH: WHAT: REASON", the path escaped: it may come from anywhere. */
Error io_error(const std::string& path, const char* what, int error)
{
    return Error(ErrorKind::Io, printable(path) + ": " + what + ": " + std::strerror(error));
}

/* Writes next to `path` and renames, so that a failed run leaves no
 * partial file and a reader never sees a half-written one. `existing` is
 * the regular file being replaced, if any: the new one keeps its mode (and
 * its owner, where allowed). The temporary file's name is mkstemp's: one
 * planted in advance (a symbolic link to a victim) is never opened. */
void replace_regular_file(const std::string& path, std::string_view bytes, const struct stat* existing)
{
    std::string temp = path + ".tmp-XXXXXX";
    std::vector<char> name(temp.begin(), temp.end());
    name.push_back('\0');
    const int fd = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0)
        throw io_error(path, "cannot create a temporary file", errno);
    temp = name.data();
    try {
        /* mkstemp makes the file 0600: give it the replaced file's mode, or
         * the usual one for a new file. */
        mode_t mode;
        if (existing) {
            if (::fchown(fd, existing->st_uid, existing->st_gid) != 0) {
                /* Only root may give a file away: it stays the writer's. */
            }
            mode = existing->st_mode & 07777;
        } else {
            const mode_t mask = ::umask(0);
            ::umask(mask);
            mode = 0666 & ~mask;
        }
        if (::fchmod(fd, mode) != 0)
            throw io_error(temp, "chmod failed", errno);
        write_all(fd, bytes, printable(temp));
    } catch (...) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    if (::close(fd) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        throw io_error(temp, "write failed", error);
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        throw io_error(path, "cannot write", error);
    }
}

/* Opens `path` itself and writes into it: a device, a FIFO, or a file with
 * other hard links stays what it is. */
void write_in_place(const std::string& path, std::string_view bytes)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        throw io_error(path, "cannot open", errno);
    try {
        write_all(fd, bytes, printable(path));
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0)
        throw io_error(path, "write failed", errno);
}

/* A regular file with one name is replaced; anything else is written in place. */
void write_to(const std::string& path, std::string_view bytes, const struct stat& st)
{
    if (S_ISREG(st.st_mode) && st.st_nlink == 1)
        replace_regular_file(path, bytes, &st);
    else
        write_in_place(path, bytes);
}

}  // namespace

void write_all(int fd, std::string_view bytes, const std::string& name)
{
    size_t done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw Error(ErrorKind::Io, name + ": write failed: " + std::strerror(errno));
        }
        done += static_cast<size_t>(n);
    }
}

void write_output_file(const std::string& path, std::string_view bytes)
{
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            throw io_error(path, "cannot write", errno);
        replace_regular_file(path, bytes, nullptr);
        return;
    }
    if (!S_ISLNK(st.st_mode)) {
        write_to(path, bytes, st);
        return;
    }
    /* A symbolic link stays a link: what it points to gets the text. */
    char* target = ::realpath(path.c_str(), nullptr);
    if (!target) {
        /* A dangling link: create its target through it. */
        write_in_place(path, bytes);
        return;
    }
    const std::string resolved = target;
    std::free(target);
    if (::lstat(resolved.c_str(), &st) != 0)
        throw io_error(path, "cannot write", errno);
    write_to(resolved, bytes, st);
}

}  // namespace waldboost::io
