/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The text files the training and evaluation tools read: whole files, and
 * lists of images one path a line (OpenCV's bg.txt), so that both tools
 * read a list the same way.
 */
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/text.h"

namespace waldboost::tools {

/* The text of a regular file of at most io::kMaxTextFileBytes, without a
 * UTF-8 byte order mark. Throws Error (Io) "cannot read the WHAT PATH:
 * REASON" (a missing file, a FIFO or a device, one too large). */
inline std::string read_text(const std::string& path, const char* what)
{
    try {
        return std::string(io::without_bom(io::read_input_file(path, io::kMaxTextFileBytes, "text files")));
    } catch (const Error& e) {
        throw Error(ErrorKind::Io, std::string("cannot read the ") + what + " " + e.what());
    }
}

inline std::string folder_of(const std::string& path)
{
    const size_t slash = path.rfind('/');
    return slash == std::string::npos ? "." : path.substr(0, slash == 0 ? 1 : slash);
}

/* One path per line; blank lines and lines starting with '#' are skipped,
 * relative paths are resolved against the list's folder. Throws Error
 * (BadParameter) when the list names no image. */
inline std::vector<std::string> image_list(const std::string& path, const char* what)
{
    std::istringstream lines(read_text(path, what));
    std::vector<std::string> paths;
    for (std::string line; std::getline(lines, line);) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t'))
            line.pop_back();
        const size_t start = line.find_first_not_of(" \t");
        if (start == std::string::npos || line[start] == '#')
            continue;
        line = line.substr(start);
        paths.push_back(line[0] == '/' ? line : folder_of(path) + "/" + line);
    }
    if (paths.empty())
        throw Error(ErrorKind::BadParameter, std::string("the ") + what + " " + printable(path) + " names no image");
    return paths;
}

}  // namespace waldboost::tools
