/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/detection/scales.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <cstdio>
#include <string>

namespace waldboost {

namespace {

/* More steps than any sensible pyramid takes: 1.01 (the element's smallest
 * factor) from a 3-pixel window to a 65535-pixel frame is 1,000 steps. A
 * factor this close to 1 would otherwise scan (and store) millions of
 * nearly identical levels. */
constexpr int kMaxScaleSteps = 10000;

/* Window sides at or above this are past any image: they are compared
 * before rounding, since an int cannot hold the rounded value. */
constexpr double kBeyondAnyImage = 4294967296.0;

/* All the digits a factor like 1 + 1e-12 needs (std::to_string gives 6). */
std::string exact(double value)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", value);
    return text;
}

}  // namespace

void check_max_windows(const DetectParams& params)
{
    if (params.max_windows < 0)
        throw Error(ErrorKind::BadParameter,
                    "max windows must be 0 (no limit) or a positive number, not " + std::to_string(params.max_windows));
}

std::vector<ScaleLevel> plan_scales(Size image, const Classifier& classifier, const DetectParams& params)
{
    if (!(params.scale_factor > 1.0) || !std::isfinite(params.scale_factor))
        throw Error(ErrorKind::BadParameter,
                    "scale factor must be a finite number above 1, not " + std::to_string(params.scale_factor));
    if (params.stride < 0)
        throw Error(ErrorKind::BadParameter, "stride must be 0 (OpenCV's rule) or a positive number of pixels");
    check_max_windows(params);

    const Size window{classifier.window_width, classifier.window_height};
    const Size min_size = params.min_size.width > 0 || params.min_size.height > 0 ? params.min_size : window;
    const Size max_size = params.max_size.width > 0 && params.max_size.height > 0 ? params.max_size : image;

    std::vector<ScaleLevel> levels;
    /* The same loop as detectMultiScale: the factor grows in double, the
     * level geometry then uses it as a float. */
    int steps = 0;
    for (double factor = 1.0;; factor *= params.scale_factor) {
        if (++steps > kMaxScaleSteps)
            throw Error(ErrorKind::BadParameter, "scale factor " + exact(params.scale_factor) +
                                                     " is too close to 1: more than " + std::to_string(kMaxScaleSteps) +
                                                     " pyramid levels for a " + std::to_string(image.width) + "x" +
                                                     std::to_string(image.height) + " image");
        /* A huge factor (1e9) makes the window overflow an int after one
         * step: stop while it is still a double (also when it is inf). */
        const double width_at_factor = window.width * factor, height_at_factor = window.height * factor;
        if (!(width_at_factor < kBeyondAnyImage) || !(height_at_factor < kBeyondAnyImage))
            break;
        const long rounded_width = std::lrint(width_at_factor), rounded_height = std::lrint(height_at_factor);
        if (rounded_width > max_size.width || rounded_height > max_size.height || rounded_width > image.width ||
            rounded_height > image.height)
            break;
        const Size window_at_factor{static_cast<int>(rounded_width), static_cast<int>(rounded_height)};
        if (window_at_factor.width < min_size.width || window_at_factor.height < min_size.height)
            continue;

        ScaleLevel level;
        level.scale = static_cast<float>(factor);
        level.image_size = {cv_round(image.width / level.scale), cv_round(image.height / level.scale)};
        level.window_size = {cv_round(window.width * level.scale), cv_round(window.height * level.scale)};
        if (params.stride == 0) {
            level.step = level.scale >= 2.0f ? 1 : 2;
            level.skip_after_first_stage_rejection = true;
        } else {
            level.step = params.stride;
        }
        levels.push_back(level);
    }
    if (params.stride == 0 && !levels.empty()) {
        /* detectMultiScale's stripes (see ScaleLevel::scan_height), in 64
         * bits: extreme scale factors give levels of absurd sizes. */
        const auto positions = [](int image, int window) {
            return std::max(static_cast<int64_t>(image) + 1 - window, int64_t{0});
        };
        const int64_t first_wide = positions(levels.front().image_size.width, window.width);
        const int64_t stripes = std::max((first_wide + 31) / 32, int64_t{1});
        for (ScaleLevel& level : levels) {
            const int64_t high = positions(level.image_size.height, window.height);
            const int64_t stripe = std::max((high / level.step + stripes - 1) / stripes, int64_t{1}) * level.step;
            level.scan_height = static_cast<int>(std::min<int64_t>(stripes * stripe, std::numeric_limits<int>::max()));
        }
    }
    return levels;
}

}  // namespace waldboost
