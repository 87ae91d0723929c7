/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/model/feature_types.h"

#include <stdexcept>

namespace waldboost {

const std::array<FeatureTypeInfo, 4>& feature_types()
{
    static const std::array<FeatureTypeInfo, 4> types = {{
        {FeatureType::Lbp, "LBP", "lbp", "multi-block LBP", LbpFeature::kTableSize},
        {FeatureType::Lrd, "LRD", "lrd", "local rank differences",
         RankFeature::table_size(RankFeature::Kind::Difference)},
        {FeatureType::Lrp, "LRP", "lrp", "local rank patterns", RankFeature::table_size(RankFeature::Kind::Pair)},
        {FeatureType::Haar, "HAAR", nullptr, "Haar trees", 0},
    }};
    return types;
}

const FeatureTypeInfo& feature_type_info(FeatureType type)
{
    const auto index = static_cast<size_t>(type);
    if (index >= feature_types().size() || feature_types()[index].type != type)
        throw std::logic_error("feature_type_info: a feature type out of the table's order");
    return feature_types()[index];
}

const char* feature_type_name(FeatureType type) { return feature_type_info(type).name; }

FeatureType feature_type(const Feature& feature)
{
    struct Type {
        FeatureType operator()(const LbpFeature&) const { return FeatureType::Lbp; }
        FeatureType operator()(const HaarTree&) const { return FeatureType::Haar; }
        FeatureType operator()(const RankFeature& f) const
        {
            return f.kind == RankFeature::Kind::Difference ? FeatureType::Lrd : FeatureType::Lrp;
        }
    };
    return std::visit(Type{}, feature);
}

Feature make_feature(FeatureType type)
{
    switch (type) {
    case FeatureType::Lbp: return LbpFeature{};
    case FeatureType::Lrd:
    case FeatureType::Lrp: {
        RankFeature f;
        f.kind = type == FeatureType::Lrd ? RankFeature::Kind::Difference : RankFeature::Kind::Pair;
        f.responses.assign(f.table_size(), 0.0f);
        return f;
    }
    case FeatureType::Haar: return HaarTree{};
    }
    throw std::logic_error("make_feature: an unknown feature type");
}

const FeatureTypeInfo* find_feature_type_by_name(std::string_view name)
{
    for (const FeatureTypeInfo& t : feature_types())
        if (name == t.name)
            return &t;
    return nullptr;
}

const FeatureTypeInfo* find_feature_type_by_tag(std::string_view tag)
{
    for (const FeatureTypeInfo& t : feature_types())
        if (t.tag && tag == t.tag)
            return &t;
    return nullptr;
}

std::string trainable_feature_tags()
{
    std::vector<const char*> tags;
    for (const FeatureTypeInfo& t : feature_types())
        if (t.tag)
            tags.push_back(t.tag);
    std::string text;
    for (size_t i = 0; i < tags.size(); ++i)
        text += std::string(i == 0 ? "" : i + 1 == tags.size() ? " or " : ", ") + tags[i];
    return text;
}

}  // namespace waldboost
