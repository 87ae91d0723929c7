/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Which sidecar each document of a splitmuxsink recording goes to: the one
 * of the fragment that holds its frame. The detection and the recording
 * run at their own pace, so a document can come before splitmuxsink has
 * opened its frame's fragment (splitmuxsink holds a key-frame interval
 * before it writes one), or after the next one opened (detection behind
 * its queue). Each fragment starts at a running time (splitmuxsink's
 * "splitmuxsink-fragment-opened" message says which), and each document
 * is of a frame's running time: a document waits until the fragment after
 * its frame's is known, then goes to its frame's. Documents leave in the
 * order they came, and a sidecar never opens twice.
 */
#pragma once

#include <gst/gst.h>

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "publish_worker.h"

namespace waldboost_publish {

class FragmentRouter {
public:
    /* `send` takes the documents that leave, in order (a Document with
     * rotate_to first whenever the sidecar changes); `drain` waits until
     * they are written. At most `max_held` documents wait: past that, the
     * oldest goes to the newest fragment known (the frame is then
     * `max_held` frames behind the newest, which splitmuxsink would have
     * put in a later fragment by then unless the recording lags further). */
    FragmentRouter(size_t max_held, std::function<void(Document)> send, std::function<void()> drain);

    /* splitmuxsink set its sink's location: a fragment, whose start comes
     * with its message. Should the message never come (an application's
     * bus handler that drops element messages), the fragment starts at
     * the newest document's frame when the next one is announced. */
    void announced(const std::string& sidecar);
    /* "splitmuxsink-fragment-opened": the fragment's first frame is at
     * running time `start`. */
    void opened(const std::string& sidecar, GstClockTime start);
    /* "splitmuxsink-fragment-closed", at running time `end`: the next
     * fragment's first frame when splitmuxsink moves on, the last frame's
     * at its end of stream. After the publisher's end of stream, the
     * documents before `end` leave, and all of them when none is after
     * it (the end); the call then drains them, so that splitmuxsink's end
     * of stream, and so the pipeline's, comes after the sidecars are
     * whole. */
    void closed(const std::string& sidecar, GstClockTime end);

    /* A document of the frame at running time `time` (GST_CLOCK_TIME_NONE:
     * the same as the one before). */
    void route(GstClockTime time, std::string payload);
    /* The publisher's end of stream: if splitmuxsink has closed its newest
     * fragment already, every document leaves now. */
    void end_of_stream();
    /* Every document leaves, each to its frame's fragment as far as is
     * known (a flush, a stop); the stream starts again. */
    void release_all();
    /* The publisher stops, after its end of stream or without one (an
     * error): what still waits leaves (each to its frame's fragment as
     * far as is known) and is drained; then no more sending or draining
     * (the worker is going away), whatever a handler still running
     * calls. */
    void finish();

    size_t held();
    /* Calls `read` with the number of documents waiting, under the lock
     * they leave under: counts read there (the worker's) are of the same
     * moment, none counted twice or missed as it moves on. */
    void read_held(const std::function<void(size_t)>& read);

private:
    struct Fragment {
        std::string sidecar;
        GstClockTime start;        /* from its message, or NONE */
        GstClockTime announced_at; /* the newest document's time when it was announced */
    };
    struct Held {
        GstClockTime time;
        std::string payload;
    };
    /* The fragment `time` is in, or -1 while that cannot be known yet;
     * `at_end`: no fragment is to come after the newest. */
    int fragment_of(GstClockTime time, bool at_end) const;
    /* Sends what is known, then what passes max_held. */
    void release_known();
    /* Every document, each to its fragment as far as is known; with
     * `open_all`, every sidecar up to the newest opened too. */
    void release_every(bool open_all);
    /* The sidecars up to fragment `index` opened (never one before the
     * current), then `payload` written, if any. */
    void send_to(int index, const std::string* payload);
    /* Once both the publisher and splitmuxsink's newest fragment have
     * ended: what is known leaves; whether any did. */
    bool release_at_end();

    std::mutex lock_;
    const size_t max_held_;
    std::function<void(Document)> send_;
    std::function<void()> drain_;
    std::vector<Fragment> fragments_; /* from the current one on */
    int current_ = -1;                /* the fragment written to, -1 before the first */
    std::deque<Held> held_;
    GstClockTime newest_ = GST_CLOCK_TIME_NONE;
    GstClockTime newest_end_ = GST_CLOCK_TIME_NONE; /* the newest fragment's, once closed */
    bool eos_ = false;
};

}  // namespace waldboost_publish
