/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "nested_cascades.h"

#include <gst/video/gstvideometa.h>

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
                                  const waldboost::GrayView& frame,
                                  const std::vector<waldboost::Detection>& detections)
{
    std::vector<FoundPart> found;
    for (size_t parent = 0; parent < detections.size(); ++parent) {
        for (size_t part = 0; part < kNestedParts.size(); ++part) {
            if (!cascades.classifiers[part])
                continue;
            const waldboost::Rect area = waldboost::part_area(kNestedParts[part].area, detections[parent].rect);
            for (const waldboost::Detection& d :
                 waldboost::detect_in_area(*cascades.classifiers[part], frame, area, params))
                found.push_back(FoundPart{parent, part, d});
        }
    }
    return found;
}

GstStructure* detection_meta_param(const waldboost::Detection& d)
{
    return gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence),
                             "neighbors", G_TYPE_INT, d.neighbors, "score", G_TYPE_DOUBLE,
                             static_cast<double>(d.score), nullptr);
}

GstStructure* detection_message_item(const waldboost::Detection& d, const char* label)
{
    return gst_structure_new("detection", "x", G_TYPE_INT, d.rect.x, "y", G_TYPE_INT, d.rect.y, "width", G_TYPE_INT,
                             d.rect.width, "height", G_TYPE_INT, d.rect.height, "label", G_TYPE_STRING, label,
                             "confidence", G_TYPE_DOUBLE, static_cast<double>(d.confidence), "neighbors", G_TYPE_INT,
                             d.neighbors, nullptr);
}

void add_part_metas(GstBuffer* buffer, const std::vector<FoundPart>& parts, const std::vector<gint>& parent_ids,
                    gint first_id)
{
    gint id = first_id;
    for (const FoundPart& f : parts) {
        const waldboost::Rect& r = f.detection.rect;
        GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
            buffer, kNestedParts[f.part].name, static_cast<guint>(r.x), static_cast<guint>(r.y),
            static_cast<guint>(r.width), static_cast<guint>(r.height));
        meta->id = id++;
        meta->parent_id = parent_ids.at(f.parent);
        gst_video_region_of_interest_meta_add_param(meta, detection_meta_param(f.detection));
    }
}

void add_part_lists(GstStructure* detection, size_t parent, const NestedCascades& cascades,
                    const std::vector<FoundPart>& parts)
{
    for (size_t part = 0; part < kNestedParts.size(); ++part) {
        if (!cascades.classifiers[part])
            continue;
        GValue list = G_VALUE_INIT;
        g_value_init(&list, GST_TYPE_LIST);
        for (const FoundPart& f : parts) {
            if (f.parent != parent || f.part != part)
                continue;
            GValue item = G_VALUE_INIT;
            g_value_init(&item, GST_TYPE_STRUCTURE);
            g_value_take_boxed(&item, detection_message_item(f.detection, kNestedParts[part].name));
            gst_value_list_append_and_take_value(&list, &item);
        }
        gst_structure_take_value(detection, kNestedParts[part].name, &list);
    }
}

}  // namespace waldboost_element
