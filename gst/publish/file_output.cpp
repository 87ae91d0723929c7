/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "file_output.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace waldboost_publish {

namespace {

/* How often the file is looked for while it is written, or opened again
 * after a failure. */
constexpr gint64 kWatchIntervalUs = G_USEC_PER_SEC;

/* Lines gathered beyond this are written at once: a long round (a slow
 * disk, a full queue) keeps its memory bounded. */
constexpr size_t kFlushBytes = 256 * 1024;

}  // namespace

FileOutput::FileOutput(std::string pattern, guint64 max_size, std::function<void(const std::string&)> on_error)
    : pattern_(std::move(pattern)), max_size_(max_size), on_error_(std::move(on_error))
{
}

FileOutput::~FileOutput() { close_file(); }

void FileOutput::close_file()
{
    flush();
    if (fd_ >= 0)
        close(fd_);
    fd_ = -1;
}

void FileOutput::fail(const std::string& message)
{
    if (!failed_ && on_error_)
        on_error_(message);
    failed_ = true;
}

std::string FileOutput::file_name(const std::string& pattern, guint index)
{
    /* The one integer conversion the pattern may hold (checked by the
     * element), as splitmuxsink's and multifilesink's location. */
    if (pattern.find('%') != std::string::npos) {
        gchar* name = g_strdup_printf(pattern.c_str(), index);
        std::string out(name);
        g_free(name);
        return out;
    }
    return index == 0 ? pattern : pattern + "." + std::to_string(index);
}

bool FileOutput::open(const std::string& path, bool append)
{
    close_file();
    path_ = path;
    size_ = 0;
    next_watch_us_ = g_get_monotonic_time() + kWatchIntervalUs;
    taken_ = false;
    /* Not O_TRUNC: a file another publisher writes must be left whole. */
    fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : 0), 0666);
    if (fd_ < 0) {
        fail("Could not open \"" + path + "\" for writing: " + std::string(g_strerror(errno)) +
             ". Documents are dropped until it can be opened (tried again every second) or the next file opens.");
        return false;
    }
    struct stat st;
    if (fstat(fd_, &st) == 0 && S_ISREG(st.st_mode)) {
        /* Two publishers given one file (a configuration copied for the
         * next camera) would write over each other's lines: the first
         * holds the file's lock. Regular files only: /dev/null takes any
         * number of writers. A file system without locks lets it be. */
        if (flock(fd_, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK) {
            close(fd_);
            fd_ = -1;
            taken_ = true;
            fail("\"" + path + "\" is being written by another waldboostmetapublish (of this process or another, " +
                 "which holds its lock): their lines would overwrite each other. Give each publisher a file of its " +
                 "own. Documents are dropped until it can be written (tried again every second) or the next file " +
                 "opens.");
            return false;
        }
        if (append)
            size_ = static_cast<guint64>(st.st_size);
        else if (ftruncate(fd_, 0) != 0) {
            /* Written over from the start all the same. */
        }
    }
    failed_ = false;
    return true;
}

bool FileOutput::open_first() { return open(file_name(pattern_, index_), false); }

void FileOutput::watch()
{
    if (path_.empty() || g_get_monotonic_time() < next_watch_us_)
        return;
    next_watch_us_ = g_get_monotonic_time() + kWatchIntervalUs;
    if (fd_ < 0) {
        /* The file could not be opened (its folder gone, say): try again,
         * appending, so that writing resumes when it can. */
        open(path_, true);
        return;
    }
    /* A file removed while open (or its folder) takes every write without
     * an error, and nobody can read them: say so, and write to the path
     * again, which fails while the folder is missing. */
    struct stat st;
    if (fstat(fd_, &st) == 0 && st.st_nlink == 0) {
        const std::string path = path_;
        close_file();
        fail("\"" + path + "\" was removed while it was being written (or its folder was). Writing to it again: " +
             "documents are dropped until it can be opened.");
        failed_ = false; /* the open's own failure is said too */
        if (!open(path, true))
            return;
    }
}

void FileOutput::add_line(const std::string& payload)
{
    /* One document, one line. A document with line breaks (format=pretty,
     * or JSON from another element) has them only between tokens, where a
     * space does as well: a JSON string holds a line break only escaped. */
    const size_t start = pending_.size();
    pending_ += payload;
    std::replace_if(
        pending_.begin() + static_cast<std::ptrdiff_t>(start), pending_.end(),
        [](char c) {
            return c == '\n' || c == '\r';
        },
        ' ');
    pending_ += '\n';
    line_ends_.push_back(pending_.size());
    if (pending_.size() >= kFlushBytes)
        flush();
}

void FileOutput::flush()
{
    if (line_ends_.empty())
        return;
    size_t done = 0;
    int error = 0;
    while (fd_ >= 0 && done < pending_.size()) {
        const ssize_t n = ::write(fd_, pending_.data() + done, pending_.size() - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            error = n < 0 ? errno : ENOSPC;
            break;
        }
        done += static_cast<size_t>(n);
    }
    /* The lines written whole; a part of the next one is cut off. */
    const size_t whole =
        static_cast<size_t>(std::upper_bound(line_ends_.begin(), line_ends_.end(), done) - line_ends_.begin());
    const size_t kept = whole > 0 ? line_ends_[whole - 1] : 0;
    if (done > kept && ftruncate(fd_, static_cast<off_t>(size_ + kept)) != 0) {
        /* A device (/dev/full) has nothing to cut. */
    }
    size_ += kept;
    written_docs_ += whole;
    lost_docs_ += line_ends_.size() - whole;
    if (whole < line_ends_.size() && fd_ >= 0)
        fail("Could not write to \"" + path_ + "\": " + std::string(g_strerror(error)) +
             ". Documents are dropped (counted in stats) while writing fails.");
    pending_.clear();
    line_ends_.clear();
}

bool FileOutput::deliver(const Document& d)
{
    if (!d.rotate_to.empty()) {
        if (!open(d.rotate_to, false))
            return false;
        for (const std::string& payload : before_first_)
            deliver(Document{{}, payload, {}});
        before_first_.clear();
        return true;
    }
    if (fd_ < 0 && path_.empty() && pattern_.empty()) {
        /* No file yet: splitmuxsink opens the first one as its first frame
         * reaches it, after this frame's document was made. */
        constexpr size_t kMaxBeforeFirst = 10000;
        if (before_first_.size() >= kMaxBeforeFirst)
            return false;
        before_first_.push_back(d.payload);
        return true;
    }
    watch();
    const guint64 size = size_ + pending_.size();
    if (fd_ >= 0 && max_size_ > 0 && size > 0 && size + d.payload.size() + 1 > max_size_)
        open(file_name(pattern_, ++index_), false);
    if (fd_ < 0)
        return false;
    add_line(d.payload);
    return true;
}

void FileOutput::idle()
{
    flush();
    watch();
}

}  // namespace waldboost_publish
