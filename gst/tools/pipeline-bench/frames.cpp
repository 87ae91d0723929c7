/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frames.h"

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

}  // namespace

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
    for (GrayImage& image : set.images)
        set.buffers.push_back(gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, image.pixels.data(),
                                                          image.pixels.size(), 0, image.pixels.size(), nullptr,
                                                          nullptr));
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
