/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reading frames: mapping a buffer only when every plane lies inside its
 * memory, and the worker's one map of a frame, whose luma view tracking,
 * the nested cascades and burning share.
 */
#pragma once

#include <gst/video/video.h>

#include <optional>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"

namespace waldboost_element {

/* Maps `buffer` as a frame of `info` whose every plane lies inside the
 * buffer's memory. False, with the reason in `why`, when it cannot be
 * mapped (a buffer smaller than its caps claim, a GstVideoMeta that does
 * not match the caps or whose planes reach past the memory); the frame is
 * then not mapped. */
bool map_checked_frame(GstVideoFrame* frame, const GstVideoInfo* info, GstBuffer* buffer, GstMapFlags flags,
                       std::string* why);

/* The grayscale image of a mapped frame: the luma plane, or the gray of
 * RGB. Planar formats are read in place. Packed 4:2:2 (YUY2, UYVY, YVYU:
 * USB cameras), whose luma bytes alternate with chroma, is copied into
 * `packed_copy` first, as the detector reads a plane of bytes; packed RGB
 * (RGB, BGRx, ARGB, ...: screen capture, ISPs, applications) becomes
 * OpenCV's gray of it there, the image facedetect searches. */
waldboost::GrayView luma_of(const GstVideoFrame* frame, std::vector<uint8_t>* packed_copy);

/* The bytes of `plane` from its first byte to the end of its memory. */
guint64 plane_bytes(const GstVideoFrame* frame, guint plane);

/* A frame on the worker, mapped on first use and once: read-only, or
 * writable when the frame will be drawn into (the buffer must be writable
 * then). Unmapped when it goes. */
class FrameAccess {
public:
    /* `visible`: the part of the frame luma() shows (a crop, inside the
     * frame); empty: the whole frame. */
    FrameAccess(GstBuffer* buffer, const GstVideoInfo& info, bool writable, const waldboost::Rect& visible = {});
    ~FrameAccess();
    FrameAccess(const FrameAccess&) = delete;
    FrameAccess& operator=(const FrameAccess&) = delete;

    /* The luma plane's visible part; nullptr when the frame cannot be read
     * (why() says why). */
    const waldboost::GrayView* luma();
    /* The whole mapped frame, to read (snapshots); nullptr when the frame
     * cannot be read. */
    const GstVideoFrame* frame();
    /* The frame to draw into; nullptr when it cannot be mapped for
     * writing (why() says why). */
    GstVideoFrame* writable_frame();
    const std::string& why() const { return why_; }

private:
    void map();

    GstBuffer* buffer_;
    const GstVideoInfo& info_;
    bool want_writable_;
    waldboost::Rect visible_;
    bool tried_ = false;
    bool mapped_ = false;
    bool writable_ = false;
    bool luma_made_ = false;
    GstVideoFrame frame_{};
    waldboost::GrayView luma_;
    std::vector<uint8_t> packed_luma_; /* luma_'s bytes for packed formats */
    std::string why_;
};

}  // namespace waldboost_element
