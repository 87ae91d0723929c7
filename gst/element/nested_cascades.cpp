/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nested_cascades.h"

#include "core/model/classifier_io.h"

namespace waldboost_element {

std::shared_ptr<const NestedCascades> load_nested_cascades(const NestedPaths& paths, size_t* failed)
{
    auto cascades = std::make_shared<NestedCascades>();
    cascades->paths = paths;
    for (size_t i = 0; i < paths.size(); ++i) {
        if (paths[i].empty())
            continue;
        *failed = i;
        cascades->classifiers[i] = waldboost::load_classifier_file(paths[i]);
    }
    return cascades;
}

waldboost::DetectParams nested_params(const waldboost::DetectParams& detection_params)
{
    waldboost::DetectParams params = detection_params;
    params.min_size = waldboost::Size{detection_params.min_size.width / 8, detection_params.min_size.height / 8};
    params.max_size = waldboost::Size{};
    /* The threshold offset belongs to the detections' classifier. */
    params.final_threshold.reset();
    return params;
}

std::vector<FoundPart> find_parts(const NestedCascades& cascades, const waldboost::DetectParams& params,
                                  const waldboost::GrayView& frame, const std::vector<waldboost::Detection>& detections,
                                  bool first_only, size_t max_parts, bool* cut)
{
    std::vector<FoundPart> found;
    if (cut)
        *cut = false;
    for (size_t parent = 0; parent < detections.size(); ++parent) {
        for (size_t part = 0; part < kNestedParts.size(); ++part) {
            if (!cascades.classifiers[part])
                continue;
            if (max_parts > 0 && found.size() >= max_parts) {
                if (cut)
                    *cut = true;
                return found;
            }
            const waldboost::Rect area = waldboost::part_area(kNestedParts[part].area, detections[parent].rect);
            for (const waldboost::Detection& d :
                 waldboost::detect_in_area(*cascades.classifiers[part], frame, area, params)) {
                if (max_parts > 0 && found.size() >= max_parts) {
                    if (cut)
                        *cut = true;
                    return found;
                }
                found.push_back(FoundPart{parent, part, d});
                if (first_only)
                    break;
            }
        }
    }
    return found;
}

const std::string& part_label(const NestedCascades& cascades, size_t part)
{
    return cascades.classifiers.at(part).value().label;
}

}  // namespace waldboost_element
