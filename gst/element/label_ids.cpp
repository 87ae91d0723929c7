/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "label_ids.h"

#include <utility>

namespace waldboost_element {

/* Append only: an id, once published, never changes meaning. */
constexpr std::pair<const char*, gint> kKnownLabelIds[] = {
    {"object", 0},    {"face", 1},           {"profile-face", 2}, {"eye", 3},
    {"left-eye", 4},  {"right-eye", 5},      {"smile", 6},        {"nose", 7},
    {"mouth", 8},     {"full-body", 9},      {"upper-body", 10},  {"lower-body", 11},
    {"cat-face", 12}, {"licence-plate", 13}, {"silverware", 14},
};

gint label_id_for(const std::string& label)
{
    for (const auto& [known, id] : kKnownLabelIds)
        if (label == known)
            return id;
    /* FNV-1a (32 bits) over the label's bytes: stable on every platform. */
    guint32 hash = 2166136261u;
    for (unsigned char c : label) {
        hash ^= c;
        hash *= 16777619u;
    }
    const guint32 span = static_cast<guint32>(G_MAXINT) - static_cast<guint32>(kFirstHashedLabelId) + 1u;
    return kFirstHashedLabelId + static_cast<gint>(hash % span);
}

}  // namespace waldboost_element
