/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frame_access.h"

#include <algorithm>

namespace waldboost_element {

/* What is wrong with a mapped frame's planes, or "" when every plane lies
 * inside the memory mapped for it. gst_video_frame_map() trusts a
 * GstVideoMeta's offsets and strides (and its width and height): it only
 * checks that each plane's first byte is in the buffer. A buggy or hostile
 * upstream (an appsrc application, say) may attach a meta that claims more
 * than the buffer holds; reading such a frame (the engine copies the luma
 * plane) or drawing into it (draw=burn) would run past the memory. */
static std::string plane_problem(const GstVideoFrame* frame)
{
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(frame); ++plane) {
        /* The plane's rows, each as wide as its components reach. */
        guint64 row_bytes = 0, rows = 0;
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(frame); ++c) {
            if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) != plane)
                continue;
            const guint64 w = static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_WIDTH(frame, c), 0));
            const guint64 h = static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_HEIGHT(frame, c), 0));
            if (w == 0 || h == 0)
                continue;
            const guint64 bytes = static_cast<guint64>(GST_VIDEO_FRAME_COMP_POFFSET(frame, c)) +
                                  (w - 1) * static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c), 0)) +
                                  std::max<guint64>(1, (GST_VIDEO_FORMAT_INFO_DEPTH(finfo, c) + 7) / 8);
            row_bytes = std::max(row_bytes, bytes);
            rows = std::max(rows, h);
        }
        if (rows == 0)
            continue;
        const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, plane);
        if (stride <= 0 || static_cast<guint64>(stride) < row_bytes)
            return "plane " + std::to_string(plane) + ": the stride " + std::to_string(stride) +
                   " is smaller than a row (" + std::to_string(row_bytes) + " bytes)";
        /* With a GstVideoMeta each plane has its own map (the memory that
         * holds its offset), else map[0] is the whole buffer. */
        const GstMapInfo& map = frame->meta ? frame->map[plane] : frame->map[0];
        const auto* data = static_cast<const guint8*>(frame->data[plane]);
        if (!map.data || data < map.data || data > map.data + map.size)
            return "plane " + std::to_string(plane) + " starts outside its memory";
        const guint64 available = map.size - static_cast<guint64>(data - map.data);
        const guint64 needed = (rows - 1) * static_cast<guint64>(stride) + row_bytes;
        if (needed > available)
            return "plane " + std::to_string(plane) + " needs " + std::to_string(needed) + " bytes (" +
                   std::to_string(rows) + " rows, stride " + std::to_string(stride) + ") but its memory holds " +
                   std::to_string(available) + " from where the plane starts";
    }
    return "";
}

bool map_checked_frame(GstVideoFrame* frame, const GstVideoInfo* info, GstBuffer* buffer, GstMapFlags flags,
                       std::string* why)
{
    const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
    /* gst_video_frame_map() would only g_return_val_if_fail() on these. */
    if (meta && (meta->format != GST_VIDEO_INFO_FORMAT(info) || meta->n_planes != GST_VIDEO_INFO_N_PLANES(info) ||
                 meta->width < static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) ||
                 meta->height < static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info)))) {
        gchar* text =
            g_strdup_printf("its GstVideoMeta (%s %ux%u, %u planes) does not match the caps (%s %dx%d)",
                            gst_video_format_to_string(meta->format), meta->width, meta->height, meta->n_planes,
                            GST_VIDEO_INFO_NAME(info), GST_VIDEO_INFO_WIDTH(info), GST_VIDEO_INFO_HEIGHT(info));
        *why = text;
        g_free(text);
        return false;
    }
    if (!gst_video_frame_map(frame, info, buffer, flags)) {
        gchar* text = meta ? g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes: the planes of its GstVideoMeta "
                                             "could not be mapped (an offset past the end)",
                                             gst_buffer_get_size(buffer))
                           : g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes does not hold a %dx%d frame",
                                             gst_buffer_get_size(buffer), GST_VIDEO_INFO_WIDTH(info),
                                             GST_VIDEO_INFO_HEIGHT(info));
        *why = text;
        g_free(text);
        return false;
    }
    const std::string problem = plane_problem(frame);
    if (!problem.empty()) {
        gst_video_frame_unmap(frame);
        gchar* text = g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes: its GstVideoMeta claims more: %s",
                                      gst_buffer_get_size(buffer), problem.c_str());
        *why = text;
        g_free(text);
        return false;
    }
    return true;
}

waldboost::GrayView luma_of(const GstVideoFrame* frame, std::vector<uint8_t>* packed_copy)
{
    const auto* data = static_cast<const uint8_t*>(GST_VIDEO_FRAME_COMP_DATA(frame, 0));
    const int width = GST_VIDEO_FRAME_WIDTH(frame), height = GST_VIDEO_FRAME_HEIGHT(frame);
    const auto stride = static_cast<size_t>(GST_VIDEO_FRAME_COMP_STRIDE(frame, 0));
    if (GST_VIDEO_FRAME_COMP_PSTRIDE(frame, 0) == 1)
        return waldboost::GrayView{data, width, height, stride};
    packed_copy->resize(static_cast<size_t>(width) * static_cast<size_t>(height));
    if (GST_VIDEO_FORMAT_INFO_IS_RGB(frame->info.finfo)) {
        /* One plane of pixels; a colour's offset in a pixel is its
         * component's. */
        waldboost::gray_of_rgb(static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(frame, 0)), stride,
                               GST_VIDEO_FRAME_COMP_PSTRIDE(frame, 0), GST_VIDEO_FRAME_COMP_POFFSET(frame, 0),
                               GST_VIDEO_FRAME_COMP_POFFSET(frame, 1), GST_VIDEO_FRAME_COMP_POFFSET(frame, 2), width,
                               height, packed_copy->data());
        return waldboost::GrayView{packed_copy->data(), width, height, static_cast<size_t>(width)};
    }
    /* Every second byte: the other packed formats in the caps are 4:2:2. */
    g_assert(GST_VIDEO_FRAME_COMP_PSTRIDE(frame, 0) == 2);
    waldboost::copy_every_second_byte(data, stride, width, height, packed_copy->data());
    return waldboost::GrayView{packed_copy->data(), width, height, static_cast<size_t>(width)};
}

guint64 plane_bytes(const GstVideoFrame* frame, guint plane)
{
    const GstMapInfo& map = frame->meta ? frame->map[plane] : frame->map[0];
    const auto* data = static_cast<const guint8*>(frame->data[plane]);
    if (!map.data || data < map.data || data > map.data + map.size)
        return 0;
    return map.size - static_cast<guint64>(data - map.data);
}

FrameAccess::FrameAccess(GstBuffer* buffer, const GstVideoInfo& info, bool writable, const waldboost::Rect& visible)
    : buffer_(buffer), info_(info), want_writable_(writable), visible_(visible)
{
}

FrameAccess::~FrameAccess()
{
    if (mapped_)
        gst_video_frame_unmap(&frame_);
}

void FrameAccess::map()
{
    if (tried_)
        return;
    tried_ = true;
    if (want_writable_) {
        mapped_ = map_checked_frame(&frame_, &info_, buffer_, GST_MAP_READWRITE, &why_);
        writable_ = mapped_;
    }
    /* Memory that refuses writing can still be read (tracking, parts). */
    if (!mapped_) {
        std::string why;
        mapped_ = map_checked_frame(&frame_, &info_, buffer_, GST_MAP_READ, why_.empty() ? &why_ : &why);
    }
}

const waldboost::GrayView* FrameAccess::luma()
{
    map();
    if (!mapped_)
        return nullptr;
    /* On first use: burning alone never reads it, and a packed frame's
     * gray is made. */
    if (!luma_made_) {
        luma_made_ = true;
        luma_ = luma_of(&frame_, &packed_luma_);
        const waldboost::Rect& v = visible_;
        if (v.width > 0 && v.height > 0 && v.x >= 0 && v.y >= 0 && v.x + v.width <= luma_.width &&
            v.y + v.height <= luma_.height)
            luma_ = waldboost::GrayView{luma_.data + static_cast<size_t>(v.y) * luma_.stride + v.x, v.width, v.height,
                                        luma_.stride};
    }
    return &luma_;
}

const GstVideoFrame* FrameAccess::frame()
{
    map();
    return mapped_ ? &frame_ : nullptr;
}

GstVideoFrame* FrameAccess::writable_frame()
{
    map();
    if (mapped_ && !writable_ && why_.empty())
        why_ = "the frame's memory cannot be written";
    return writable_ ? &frame_ : nullptr;
}

}  // namespace waldboost_element
