/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Writing a file a user named for output (a converted classifier, a
 * trained one, a training checkpoint): one writer, so that every tool
 * treats the name the same way and a crash never leaves half a file.
 */
#pragma once

#include <string>
#include <string_view>

namespace waldboost::io {

/* Writes `bytes` as the contents of `path`.
 *
 * A regular file (new, or with one link) is written to a temporary file
 * made with mkstemp next to it and renamed over it: a failure or a crash
 * leaves the old contents or the new ones, never part of them, and no
 * temporary file. The new file keeps the replaced one's mode (and owner,
 * where allowed); a new one gets 0666 less the umask.
 *
 * Anything else stays what it is and is written in place: a symbolic link
 * is followed and its target written as above (a dangling link's target is
 * created), a character device (/dev/null) or FIFO is written to, a file
 * with other hard links is overwritten so that every name sees the text.
 *
 * Throws Error (Io) whose message starts with the path (escaped with
 * printable()) and says what failed and why, e.g. "out.xml: cannot create
 * a temporary file: Permission denied". */
void write_output_file(const std::string& path, std::string_view bytes);

/* Writes all of `bytes` to the descriptor `fd`, going on after short
 * writes and EINTR. Throws Error (Io) "NAME: write failed: REASON", where
 * `name` says what `fd` is (e.g. "standard output"). */
void write_all(int fd, std::string_view bytes, const std::string& name);

}  // namespace waldboost::io
