/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/detection/scales.h"

#include <cmath>
#include <string>

namespace waldboost {


std::vector<ScaleLevel> plan_scales(Size image, const Classifier& classifier, const DetectParams& params)
{
    if (!(params.scale_factor > 1.0) || !std::isfinite(params.scale_factor))
        throw Error(ErrorKind::BadParameter,
                    "scale factor must be a finite number above 1, not " + std::to_string(params.scale_factor));
    if (params.stride < 0)
        throw Error(ErrorKind::BadParameter, "stride must be 0 (OpenCV's rule) or a positive number of pixels");

    const Size window{classifier.window_width, classifier.window_height};
    const Size min_size = params.min_size.width > 0 || params.min_size.height > 0 ? params.min_size : window;
    const Size max_size = params.max_size.width > 0 && params.max_size.height > 0 ? params.max_size : image;

    std::vector<ScaleLevel> levels;
    /* The same loop as detectMultiScale: the factor grows in double, the
     * level geometry then uses it as a float. */
    for (double factor = 1.0;; factor *= params.scale_factor) {
        const Size window_at_factor{cv_round(window.width * factor), cv_round(window.height * factor)};
        if (window_at_factor.width > max_size.width || window_at_factor.height > max_size.height ||
            window_at_factor.width > image.width || window_at_factor.height > image.height)
            break;
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
    return levels;
}

}  // namespace waldboost
