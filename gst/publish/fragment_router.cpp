/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "fragment_router.h"

#include <utility>

namespace waldboost_publish {

FragmentRouter::FragmentRouter(size_t max_held, std::function<void(Document)> send, std::function<void()> drain)
    : max_held_(max_held), send_(std::move(send)), drain_(std::move(drain))
{
}

void FragmentRouter::announced(const std::string& sidecar)
{
    std::lock_guard<std::mutex> guard(lock_);
    fragments_.push_back(Fragment{sidecar, GST_CLOCK_TIME_NONE, newest_});
    newest_end_ = GST_CLOCK_TIME_NONE;
    release_known();
}

void FragmentRouter::opened(const std::string& sidecar, GstClockTime start)
{
    std::lock_guard<std::mutex> guard(lock_);
    /* Its location was announced just before, unless the sink has no
     * deep-notify (then it is new). */
    if (fragments_.empty() || fragments_.back().sidecar != sidecar || GST_CLOCK_TIME_IS_VALID(fragments_.back().start))
        fragments_.push_back(Fragment{sidecar, start, newest_});
    else
        fragments_.back().start = start;
    newest_end_ = GST_CLOCK_TIME_NONE;
    release_known();
}

void FragmentRouter::closed(const std::string& sidecar, GstClockTime end)
{
    std::function<void()> drain;
    {
        std::lock_guard<std::mutex> guard(lock_);
        if (fragments_.empty() || fragments_.back().sidecar != sidecar)
            return; /* an older one, closed after the next opened */
        newest_end_ = GST_CLOCK_TIME_IS_VALID(end) ? end : newest_;
        if (release_at_end())
            drain = drain_;
    }
    if (drain)
        drain();
}

void FragmentRouter::route(GstClockTime time, std::string payload)
{
    std::lock_guard<std::mutex> guard(lock_);
    if (!GST_CLOCK_TIME_IS_VALID(time))
        time = GST_CLOCK_TIME_IS_VALID(newest_) ? newest_ : 0;
    newest_ = time;
    held_.push_back(Held{time, std::move(payload)});
    release_known();
}

void FragmentRouter::end_of_stream()
{
    std::lock_guard<std::mutex> guard(lock_);
    eos_ = true;
    release_at_end();
}

void FragmentRouter::release_all()
{
    std::lock_guard<std::mutex> guard(lock_);
    release_every(false);
    eos_ = false;
    newest_ = GST_CLOCK_TIME_NONE;
}

void FragmentRouter::finish()
{
    std::function<void()> drain;
    {
        std::lock_guard<std::mutex> guard(lock_);
        /* With or without an end of stream (a stop on an error keeps
         * splitmuxsink's segments as far as they were written, and so the
         * documents of their frames). */
        if (!held_.empty()) {
            release_every(true);
            drain = drain_;
        }
        send_ = nullptr;
        drain_ = nullptr;
    }
    if (drain)
        drain();
}

size_t FragmentRouter::held()
{
    std::lock_guard<std::mutex> guard(lock_);
    return held_.size();
}

void FragmentRouter::read_held(const std::function<void(size_t)>& read)
{
    std::lock_guard<std::mutex> guard(lock_);
    read(held_.size());
}

int FragmentRouter::fragment_of(GstClockTime time, bool at_end) const
{
    const int count = static_cast<int>(fragments_.size());
    /* Only the newest fragment can lack a start: its message is on its
     * way. At the end, or once another was announced after it, it starts
     * where the publisher was when it was announced. */
    auto start = [&](int i) -> GstClockTime {
        const Fragment& f = fragments_[i];
        if (GST_CLOCK_TIME_IS_VALID(f.start))
            return f.start;
        if (i + 1 < count || at_end)
            return GST_CLOCK_TIME_IS_VALID(f.announced_at) ? f.announced_at : 0;
        return GST_CLOCK_TIME_NONE;
    };
    const int known = count > 0 && GST_CLOCK_TIME_IS_VALID(start(count - 1)) ? count : count - 1;
    if (known <= 0)
        return -1;
    int index = 0; /* a frame before the first fragment's start goes into it */
    for (int i = 1; i < known && start(i) <= time; ++i)
        index = i;
    /* In the newest fragment known, unless a later one will start before
     * it: that is not known until one does, or the stream ends. */
    if (index == known - 1 && !at_end)
        return -1;
    return index;
}

void FragmentRouter::send_to(int index, const std::string* payload)
{
    if (!send_)
        return;
    for (; current_ < index; ++current_)
        send_(Document{{}, {}, fragments_[current_ + 1].sidecar});
    if (payload)
        send_(Document{{}, *payload, {}});
    /* Documents never go back to an earlier sidecar: forget those. */
    if (current_ > 0) {
        fragments_.erase(fragments_.begin(), fragments_.begin() + current_);
        current_ = 0;
    }
}

void FragmentRouter::release_known()
{
    while (!held_.empty()) {
        const int index = fragment_of(held_.front().time, false);
        if (index < 0)
            break;
        send_to(index, &held_.front().payload);
        held_.pop_front();
    }
    while (held_.size() > max_held_) {
        send_to(fragment_of(held_.front().time, true), &held_.front().payload);
        held_.pop_front();
    }
}

void FragmentRouter::release_every(bool open_all)
{
    for (const Held& h : held_)
        send_to(fragment_of(h.time, true), &h.payload);
    held_.clear();
    if (open_all)
        send_to(static_cast<int>(fragments_.size()) - 1, nullptr);
}

bool FragmentRouter::release_at_end()
{
    if (!eos_ || !GST_CLOCK_TIME_IS_VALID(newest_end_))
        return false;
    /* A frame after where the newest fragment closed is in one that
     * splitmuxsink is about to open (it moved on); when there is none, it
     * closed for good, at the last frame. */
    if (held_.empty() || held_.back().time <= newest_end_) {
        release_every(true);
        return true;
    }
    const size_t before = held_.size();
    while (held_.front().time < newest_end_) {
        send_to(fragment_of(held_.front().time, true), &held_.front().payload);
        held_.pop_front();
    }
    return held_.size() != before;
}

}  // namespace waldboost_publish
