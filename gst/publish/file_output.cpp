/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "file_output.h"

#include <cerrno>
#include <cstring>

namespace waldboost_publish {

FileOutput::FileOutput(std::string pattern, guint64 max_size, std::function<void(const std::string&)> on_error)
    : pattern_(std::move(pattern)), max_size_(max_size), on_error_(std::move(on_error))
{
}

FileOutput::~FileOutput()
{
    if (file_)
        fclose(file_);
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

bool FileOutput::open(const std::string& path)
{
    if (file_) {
        fclose(file_);
        file_ = nullptr;
    }
    path_ = path;
    size_ = 0;
    file_ = fopen(path.c_str(), "w");
    if (!file_) {
        if (!failed_ && on_error_)
            on_error_("Could not open \"" + path + "\" for writing: " + std::string(g_strerror(errno)) +
                      ". Documents are dropped until the next file opens.");
        failed_ = true;
        return false;
    }
    failed_ = false;
    return true;
}

bool FileOutput::open_first() { return open(file_name(pattern_, index_)); }

bool FileOutput::deliver(const Document& d)
{
    if (!d.rotate_to.empty()) {
        if (!open(d.rotate_to))
            return false;
        for (const std::string& payload : before_first_)
            deliver(Document{{}, payload, {}});
        before_first_.clear();
        return true;
    }
    if (!file_ && pattern_.empty() && !failed_) {
        /* No file yet: splitmuxsink opens the first one as its first frame
         * reaches it, after this frame's document was made. */
        constexpr size_t kMaxBeforeFirst = 10000;
        if (before_first_.size() >= kMaxBeforeFirst)
            return false;
        before_first_.push_back(d.payload);
        return true;
    }
    if (file_ && max_size_ > 0 && size_ > 0 && size_ + d.payload.size() + 1 > max_size_)
        open(file_name(pattern_, ++index_));
    if (!file_)
        return false;
    if (fwrite(d.payload.data(), 1, d.payload.size(), file_) != d.payload.size() || fputc('\n', file_) == EOF) {
        if (!failed_ && on_error_)
            on_error_("Could not write to \"" + path_ + "\": " + std::string(g_strerror(errno)) +
                      ". Documents are dropped.");
        failed_ = true;
        return false;
    }
    size_ += d.payload.size() + 1;
    ++written_docs_;
    return true;
}

void FileOutput::idle()
{
    if (file_ && fflush(file_) != 0 && !failed_ && on_error_) {
        failed_ = true;
        on_error_("Could not write to \"" + path_ + "\": " + std::string(g_strerror(errno)) + ".");
    }
}

}  // namespace waldboost_publish
