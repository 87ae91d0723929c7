/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench's frames: images and raw GRAY8 files read once,
 * then for each size the frames of that size as GstBuffers, and the boxes
 * one engine gives for each (the reference every part is checked against).
 */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#include "compare.h"
#include "core/detection/image.h"
#include "core/model/model.h"
#include "settings.h"

namespace pipeline_bench {

/* The frames of one size: images, buffers of --format that carry them
 * (GRAY8 ones wrap the images, no copy), and the boxes one engine gives for
 * each. */
struct FrameSet {
    waldboost::Size size;
    std::vector<waldboost::GrayImage> images;
    std::vector<Boxes> expected;
    std::vector<GstBuffer*> buffers;
    GstCaps* caps = nullptr; /* the buffers' */
    std::string device;      /* the reference engine's, described */

    FrameSet() = default;
    FrameSet(const FrameSet&) = delete;
    FrameSet& operator=(const FrameSet&) = delete;
    ~FrameSet()
    {
        for (GstBuffer* b : buffers)
            gst_buffer_unref(b);
        if (caps)
            gst_caps_unref(caps);
    }
};

/* Whether --format can carry a gray frame exactly: a format GstVideo knows,
 * of 8-bit components, with a luma or red, green and blue (not a palette,
 * not tiled). Whether the element takes it is its caps' answer. */
bool frame_format_supported(const std::string& format);

/* The images, then the frames of the raw files (each file's size its own
 * --raw-size, or the one for all). Throws UsageError for a bad --raw-size,
 * waldboost::Error for a file that cannot be read. */
std::vector<waldboost::GrayImage> load_sources(const std::vector<std::string>& images,
                                               const std::vector<std::string>& raw_files,
                                               const std::vector<std::string>& raw_sizes);

/* The frames of set.size: the source frames already of that size when
 * there are any (the raw files packed for the GPU machine hold each size's
 * own), else every source frame stretched to it; and the reference. */
void prepare_frames(FrameSet& set, const std::vector<waldboost::GrayImage>& sources, const Settings& s,
                    const waldboost::Classifier& classifier);

}  // namespace pipeline_bench
