/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * JSON lines in a file: one document per line. A new file starts when a
 * Document says so (rotate_to: a splitmuxsink fragment's sidecar) or when
 * the next document would pass max_size bytes (the name's %d, or a
 * ".N" suffix, counts the files). The lines are gathered and written
 * once per round of the worker, when it runs out of documents: a write
 * costs more than the line. A round is longer than MQTT's: a sidecar's
 * readers want whole lines, not the newest within 100 ms, and each round
 * costs the worker a wake and a write per camera.
 */
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "publish_worker.h"

namespace waldboost_publish {

class FileOutput : public Output {
public:
    /* `on_error` gets a message a user can act on; the documents it could
     * not write are counted as dropped. */
    FileOutput(std::string pattern, guint64 max_size, std::function<void(const std::string&)> on_error);
    ~FileOutput() override;

    /* Opens the first file; false (with on_error called) when it cannot. */
    bool open_first();
    /* The last file could not be opened because another publisher writes
     * it (it holds the file's lock). */
    bool taken() const { return taken_; }

    bool service(int) override { return false; }
    bool ready() override { return true; }
    bool deliver(const Document& d) override;
    size_t in_flight() override { return line_ends_.size(); }
    guint64 confirmed() override { return written_docs_; }
    guint64 lost() override { return lost_docs_; }
    /* Writes the lines gathered since the last write. */
    void idle() override;
    int round_ms() override { return 250; }

    /* The name of file number `index` of `pattern`. */
    static std::string file_name(const std::string& pattern, guint index);

private:
    bool open(const std::string& path, bool append);
    void close_file();
    /* The line goes into `pending_`, written by flush(): one write per
     * round of the worker (or per kFlushBytes), not one per document. */
    void add_line(const std::string& payload);
    /* Writes `pending_` with as few writes as the kernel takes. A failure
     * cuts the file back to its last whole line, so that it stays JSON
     * lines, and counts the lines not written as lost. */
    void flush();
    /* Once a second: a file removed while open, or one to open again. */
    void watch();
    void fail(const std::string& message);

    std::string pattern_;
    guint64 max_size_;
    std::function<void(const std::string&)> on_error_;
    int fd_ = -1;
    std::string path_; /* the file written, or to open again */
    guint index_ = 0;
    guint64 size_ = 0;
    guint64 written_docs_ = 0, lost_docs_ = 0;
    std::string pending_;           /* lines not written yet */
    std::vector<size_t> line_ends_; /* where each of them ends in pending_ */
    gint64 next_watch_us_ = 0;
    bool failed_ = false; /* said once, until a file opens again */
    bool taken_ = false;  /* see taken() */
    /* Following splitmuxsink, the documents made before its first fragment
     * opened: written to that fragment's sidecar. */
    std::vector<std::string> before_first_;
};

}  // namespace waldboost_publish
