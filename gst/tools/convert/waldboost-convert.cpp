/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-convert: reads a classifier in any supported format (an OpenCV
 * LBP cascade or WaldBoost XML), validates it and writes WaldBoost XML.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/model/classifier_io.h"
#include "core/text.h"

namespace {

const char kUsage[] =
    "Usage: waldboost-convert [--label NAME] INPUT OUTPUT\n"
    "\n"
    "Converts a classifier (an OpenCV LBP or Haar cascade, or WaldBoost XML)\n"
    "to WaldBoost XML. OUTPUT \"-\" writes to standard output.\n"
    "\n"
    "  --label NAME  the label carried by detections (default: the input's\n"
    "                classifierName, or the cascade's file name)\n"
    "  --help        show this help\n";

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "waldboost-convert: %s\n%s", message.c_str(), kUsage);
    return 2;
}

void write_all(int fd, const std::string& text, const std::string& name)
{
    size_t done = 0;
    while (done < text.size()) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            throw waldboost::Error(waldboost::ErrorKind::Io, name + ": write failed: " + std::strerror(errno));
        }
        done += static_cast<size_t>(n);
    }
}

/* Writes next to `path` and renames, so a failed run leaves no partial file
 * and a reader never sees a half-written one. `existing` is the regular
 * file being replaced, if any: the new one keeps its mode (and its owner,
 * where allowed). */
void write_file_atomically(const std::string& path, const std::string& text, const struct stat* existing)
{
    std::string temp = path + ".tmp-XXXXXX";
    std::vector<char> name(temp.begin(), temp.end());
    name.push_back('\0');
    const int fd = ::mkstemp(name.data());
    if (fd < 0)
        throw waldboost::Error(waldboost::ErrorKind::Io,
                               path + ": cannot create a temporary file: " + std::strerror(errno));
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
            throw waldboost::Error(waldboost::ErrorKind::Io, temp + ": chmod failed: " + std::strerror(errno));
        write_all(fd, text, temp);
        const int rc = ::close(fd);
        if (rc != 0)
            throw waldboost::Error(waldboost::ErrorKind::Io, temp + ": write failed: " + std::strerror(errno));
    } catch (...) {
        ::close(fd);
        ::unlink(temp.c_str());
        throw;
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const int error = errno;
        ::unlink(temp.c_str());
        throw waldboost::Error(waldboost::ErrorKind::Io, path + ": cannot write: " + std::strerror(error));
    }
}

/* Opens `path` itself and writes into it: a device, a FIFO, or a file with
 * other hard links stays what it is. */
void write_file_in_place(const std::string& path, const std::string& text)
{
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        throw waldboost::Error(waldboost::ErrorKind::Io, path + ": cannot open: " + std::strerror(errno));
    try {
        write_all(fd, text, path);
    } catch (...) {
        ::close(fd);
        throw;
    }
    if (::close(fd) != 0)
        throw waldboost::Error(waldboost::ErrorKind::Io, path + ": write failed: " + std::strerror(errno));
}

/* Replaces a regular file atomically (keeping its mode), creates a new one
 * the same way, and writes anything else in place: a symbolic link is
 * followed to its target (which is then treated the same way), a device
 * (/dev/null) or FIFO is written to, a file with several hard links is
 * overwritten so that every link sees the new text. */
void write_output(const std::string& path, const std::string& text)
{
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
        if (errno != ENOENT)
            throw waldboost::Error(waldboost::ErrorKind::Io, path + ": cannot write: " + std::strerror(errno));
        write_file_atomically(path, text, nullptr);
        return;
    }
    if (S_ISLNK(st.st_mode)) {
        char* target = ::realpath(path.c_str(), nullptr);
        if (!target) {
            /* A dangling link: create its target through it. */
            write_file_in_place(path, text);
            return;
        }
        const std::string resolved = target;
        std::free(target);
        if (::lstat(resolved.c_str(), &st) != 0)
            throw waldboost::Error(waldboost::ErrorKind::Io, path + ": cannot write: " + std::strerror(errno));
        if (S_ISREG(st.st_mode) && st.st_nlink == 1)
            write_file_atomically(resolved, text, &st);
        else
            write_file_in_place(resolved, text);
        return;
    }
    if (S_ISREG(st.st_mode) && st.st_nlink == 1)
        write_file_atomically(path, text, &st);
    else
        write_file_in_place(path, text);
}

}  // namespace

int main(int argc, char** argv)
{
    std::string label;
    bool have_label = false;
    std::vector<std::string> files;
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (options_done || arg == "-" || arg.empty() || arg[0] != '-') {
            files.push_back(arg);
        } else if (arg == "--") {
            options_done = true;
        } else if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (arg == "--label") {
            if (i + 1 >= argc)
                return usage_error("--label needs a value");
            label = argv[++i];
            have_label = true;
        } else if (arg.compare(0, 8, "--label=") == 0) {
            label = arg.substr(8);
            have_label = true;
        } else {
            return usage_error("unknown option " + arg);
        }
    }
    if (files.size() != 2)
        return usage_error("expected INPUT and OUTPUT");
    const std::string& input = files[0];
    const std::string& output = files[1];

    try {
        waldboost::Classifier classifier = waldboost::load_classifier_file(input);
        if (have_label) {
            classifier.label = label;
            waldboost::validate(classifier, "--label");
        }
        const std::string text = waldboost::write_waldboost_xml(classifier);
        if (output == "-") {
            write_all(STDOUT_FILENO, text, "standard output");
        } else {
            write_output(output, text);
        }
        std::fprintf(stderr, "waldboost-convert: %s -> %s: label \"%s\", window %dx%d, %zu weak classifiers, %zu stages\n",
                     waldboost::printable(input).c_str(), waldboost::printable(output).c_str(),
                     waldboost::printable(classifier.label).c_str(), classifier.window_width,
                     classifier.window_height, classifier.weak.size(), classifier.stage_count());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "waldboost-convert: %s\n", e.what());
        return 1;
    }
    return 0;
}
