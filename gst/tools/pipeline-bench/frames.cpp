/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frames.h"

#include <gst/video/video.h>

#include <algorithm>
#include <cstdint>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/opencl/engine/engine.h"
#include "options.h"
#include "tools/common/image_file.h"

namespace pipeline_bench {

namespace {

using waldboost::GrayImage;

/* Reads a raw GRAY8 file of concatenated WxH frames, opened as the core
 * opens every file a user names (a FIFO or a device such as /dev/zero,
 * read without end, is refused). */
std::vector<GrayImage> load_raw(const std::string& path, waldboost::Size size)
{
    waldboost::io::InputFile file = waldboost::io::InputFile::open(path);
    std::vector<GrayImage> frames;
    for (;;) {
        GrayImage frame(size.width, size.height);
        size_t got = 0;
        for (size_t n;
             got < frame.pixels.size() && (n = file.read(frame.pixels.data() + got, frame.pixels.size() - got)) > 0;)
            got += n;
        if (got == 0)
            break;
        if (got != frame.pixels.size())
            throw waldboost::Error(waldboost::ErrorKind::Io, path + " does not hold whole " +
                                                                 std::to_string(size.width) + "x" +
                                                                 std::to_string(size.height) + " GRAY8 frames");
        frames.push_back(std::move(frame));
    }
    if (frames.empty())
        throw waldboost::Error(waldboost::ErrorKind::Io, path + " is empty");
    return frames;
}

const GstVideoFormatInfo* format_info(const std::string& format)
{
    const GstVideoFormat f = gst_video_format_from_string(format.c_str());
    return f == GST_VIDEO_FORMAT_UNKNOWN ? nullptr : gst_video_format_get_info(f);
}

/* A gray frame in the format and layout of `info`: each line written as
 * GstVideo's unpacked 8-bit AYUV (Y the gray, chroma 128) or ARGB (R, G
 * and B the gray), opaque, and given to the format's own packer, a group
 * of pack_lines lines at a time (one line for every format the element
 * takes). */
GstBuffer* pack_gray(const GrayImage& image, const GstVideoInfo& info)
{
    const GstVideoFormatInfo* finfo = info.finfo;
    const bool yuv = finfo->unpack_format == GST_VIDEO_FORMAT_AYUV;
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    GstVideoFrame frame;
    if (!gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE)) {
        gst_buffer_unref(buffer);
        throw waldboost::Error(waldboost::ErrorKind::Io, "cannot map a frame of " + std::string(finfo->name));
    }
    const int width = image.width, height = image.height, lines = std::max(1, finfo->pack_lines);
    std::vector<uint8_t> unpacked(static_cast<size_t>(width) * 4 * static_cast<size_t>(lines));
    for (int y = 0; y < height; y += lines) {
        for (int l = 0; l < lines; ++l) {
            const uint8_t* gray = image.row(std::min(y + l, height - 1));
            uint8_t* out = unpacked.data() + static_cast<size_t>(l) * static_cast<size_t>(width) * 4;
            for (int x = 0; x < width; ++x) {
                out[4 * x] = 255;
                out[4 * x + 1] = gray[x];
                out[4 * x + 2] = yuv ? 128 : gray[x];
                out[4 * x + 3] = yuv ? 128 : gray[x];
            }
        }
        finfo->pack_func(finfo, GST_VIDEO_PACK_FLAG_NONE, unpacked.data(), width * 4, frame.data, frame.info.stride,
                         info.chroma_site, y, width);
    }
    gst_video_frame_unmap(&frame);
    return buffer;
}

}  // namespace

bool frame_format_supported(const std::string& format)
{
    const GstVideoFormatInfo* finfo = format_info(format);
    return finfo && !GST_VIDEO_FORMAT_INFO_HAS_PALETTE(finfo) && !GST_VIDEO_FORMAT_INFO_IS_TILED(finfo) &&
           finfo->pack_func &&
           (finfo->unpack_format == GST_VIDEO_FORMAT_AYUV || finfo->unpack_format == GST_VIDEO_FORMAT_ARGB) &&
           GST_VIDEO_FORMAT_INFO_DEPTH(finfo, 0) == 8;
}

std::vector<GrayImage> load_sources(const std::vector<std::string>& images, const std::vector<std::string>& raw_files,
                                    const std::vector<std::string>& raw_sizes)
{
    std::vector<GrayImage> sources;
    for (const std::string& image : images)
        sources.push_back(waldboost::tools::load_gray_image(image));
    for (size_t i = 0; i < raw_files.size(); ++i) {
        const std::string& text = raw_sizes[raw_sizes.size() == 1 ? 0 : i];
        const auto raw_size = parse_size(text);
        if (!raw_size)
            throw UsageError("--raw-size: bad size '" + text + "'");
        for (GrayImage& f : load_raw(raw_files[i], *raw_size))
            sources.push_back(std::move(f));
    }
    return sources;
}

void prepare_frames(FrameSet& set, const std::vector<GrayImage>& sources, const Settings& s,
                    const waldboost::Classifier& classifier)
{
    for (const GrayImage& src : sources)
        if (src.width == set.size.width && src.height == set.size.height)
            set.images.push_back(src);
    if (set.images.empty())
        for (const GrayImage& src : sources)
            set.images.push_back(waldboost::resize_bilinear(src.view(), set.size));
    GstVideoInfo info;
    gst_video_info_set_format(&info, gst_video_format_from_string(s.format.c_str()), static_cast<guint>(set.size.width),
                              static_cast<guint>(set.size.height));
    info.fps_n = kFps;
    info.fps_d = 1;
    set.caps = gst_video_info_to_caps(&info);
    const bool gray = GST_VIDEO_INFO_FORMAT(&info) == GST_VIDEO_FORMAT_GRAY8;
    for (GrayImage& image : set.images)
        set.buffers.push_back(gray ? gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, image.pixels.data(),
                                                                 image.pixels.size(), 0, image.pixels.size(), nullptr,
                                                                 nullptr)
                                   : pack_gray(image, info));
    /* The reference: one engine, one frame at a time. */
    waldboost::opencl::EngineConfig config;
    config.device = s.device;
    config.max_in_flight = 1;
    waldboost::opencl::Engine engine(classifier, config);
    set.device = waldboost::opencl::describe(engine.device());
    for (const GrayImage& image : set.images)
        set.expected.push_back(boxes_of(engine.detect(image.view(), s.params).detections));
}

}  // namespace pipeline_bench
