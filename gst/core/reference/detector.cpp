/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/reference/detector.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <tuple>

namespace waldboost {

int lbp_code(const IntegralImage& integral, int wx, int wy, const LbpFeature& f)
{
    const int x0 = wx + f.x;
    const int y0 = wy + f.y;
    auto block = [&](int col, int row) {
        /* Differences of wrapped sums are exact; the block sum fits easily. */
        return static_cast<int64_t>(
            integral.block_sum(x0 + col * f.block_width, y0 + row * f.block_height, f.block_width, f.block_height));
    };
    const int64_t centre = block(1, 1);
    /* Clockwise from the top-left block, most significant bit first. */
    static constexpr int kCols[8] = {0, 1, 2, 2, 2, 1, 0, 0};
    static constexpr int kRows[8] = {0, 0, 0, 1, 2, 2, 2, 1};
    int code = 0;
    for (int i = 0; i < 8; ++i)
        code = (code << 1) | (block(kCols[i], kRows[i]) >= centre ? 1 : 0);
    return code;
}

WindowResult evaluate_window(const Classifier& classifier, const IntegralImage& integral, int wx, int wy,
                             float final_threshold)
{
    WindowResult result;
    /* double, as OpenCV sums the float responses. */
    double sum = 0.0;
    double last_sum = 0.0;
    bool first_test = true;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        const WeakClassifier& weak = classifier.weak[t];
        const int code =
            std::visit([&](const LbpFeature& f) { return lbp_code(integral, wx, wy, f); }, weak.feature);
        sum += weak.responses[code];
        ++result.weak_evaluated;
        last_sum = sum;
        if (weak.reject_threshold != kNoRejection) {
            if (sum < weak.reject_threshold) {
                result.rejected_at = t;
                result.rejected_in_first_stage = first_test;
                result.score = sum;
                return result;
            }
            first_test = false;
        }
        if (weak.reset_sum_after)
            sum = 0.0;
    }
    result.rejected_at = classifier.weak.size();
    result.score = last_sum;
    result.accepted = last_sum >= final_threshold;
    return result;
}

std::vector<RawWindow> detect_level(const Classifier& classifier, const GrayView& scaled, const ScaleLevel& level,
                                    int level_index, const DetectParams& params, DetectStats* stats)
{
    std::vector<RawWindow> windows;
    const int positions_x = scaled.width - classifier.window_width + 1;
    const int positions_y = scaled.height - classifier.window_height + 1;
    if (positions_x <= 0 || positions_y <= 0)
        return windows;

    const IntegralImage integral = integral_image(scaled);
    const float final_threshold = params.final_threshold.value_or(classifier.final_threshold);
    for (int y = 0; y < positions_y; y += level.step) {
        for (int x = 0; x < positions_x; x += level.step) {
            const WindowResult r = evaluate_window(classifier, integral, x, y, final_threshold);
            if (stats) {
                ++stats->windows;
                stats->weak_evaluated += static_cast<uint64_t>(r.weak_evaluated);
            }
            if (r.accepted) {
                RawWindow w;
                w.rect = {cv_round(x * level.scale), cv_round(y * level.scale), level.window_size.width,
                          level.window_size.height};
                w.level = level_index;
                w.x = x;
                w.y = y;
                w.score = static_cast<float>(r.score - final_threshold);
                windows.push_back(w);
                if (stats)
                    ++stats->accepted;
            }
            if (level.skip_after_first_stage_rejection && r.rejected_in_first_stage)
                x += level.step;
        }
    }
    return windows;
}

std::vector<RawWindow> detect_raw(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                  DetectStats* stats)
{
    std::vector<RawWindow> all;
    const std::vector<ScaleLevel> levels = plan_scales({image.width, image.height}, classifier, params);
    for (size_t i = 0; i < levels.size(); ++i) {
        const GrayImage scaled = resize_bilinear(image, levels[i].image_size);
        std::vector<RawWindow> found = detect_level(classifier, scaled.view(), levels[i], static_cast<int>(i), params, stats);
        all.insert(all.end(), found.begin(), found.end());
    }
    const uint64_t cut = cap_windows(all, params.max_windows);
    if (stats)
        stats->cut += cut;
    clip_windows(all, {image.width, image.height});
    return all;
}


std::vector<Detection> detect(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                              DetectStats* stats)
{
    return group_windows(detect_raw(classifier, image, params, stats), params);
}

}  // namespace waldboost
