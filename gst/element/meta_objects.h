/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The objects a buffer's metadata describes, in one list: each
 * GstVideoRegionOfInterestMeta and, with GStreamer 1.24's analytics
 * library, each ODMtd of the buffer's GstAnalyticsRelationMeta. Read by
 * waldboostdetect (the regions of inference-region=roi-list) and by
 * waldboostmetaconvert (the objects of its documents), another plugin:
 * header only, as track_events_meta.h, so neither links the other. The
 * includer defines HAVE_GST_ANALYTICS (0 or 1) in its config.h.
 */
#pragma once

#include <gst/video/gstvideometa.h>
#if HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <algorithm>
#include <tuple>
#include <vector>

namespace waldboost_metas {

/* One object: a region-of-interest meta, an ODMtd, or both when they
 * describe it twice. */
struct MetaObject {
    GQuark type = 0;                             /* the label */
    gint64 x = 0, y = 0, w = 0, h = 0;           /* the box in pixels */
    GstVideoRegionOfInterestMeta* roi = nullptr; /* null: an ODMtd alone */
    gint analytics_id = -1;                      /* the ODMtd's id; -1: a meta alone */
    float od_confidence = 0;                     /* the ODMtd's location confidence */
};

namespace detail {

struct BoxKey {
    GQuark type;
    gint64 x, y, w, h;
    bool operator<(const BoxKey& o) const { return std::tie(type, x, y, w, h) < std::tie(o.type, o.x, o.y, o.w, o.h); }
};

inline BoxKey key_of(const MetaObject& o) { return BoxKey{o.type, o.x, o.y, o.w, o.h}; }

}  // namespace detail

/* Every region-of-interest meta in the buffer's order, then every ODMtd in
 * the relation meta's order that does not repeat one. An ODMtd with the
 * same type and box as a meta is that object written twice (waldboostdetect
 * metadata=both, DL Streamer): it joins the first such meta not yet joined,
 * one to one, so that two equal boxes of each kind stay two objects. */
inline std::vector<MetaObject> meta_objects(GstBuffer* buffer)
{
    std::vector<MetaObject> objects;
    gpointer state = nullptr;
    while (GstMeta* m = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(m);
        MetaObject o;
        o.type = roi->roi_type;
        o.x = roi->x;
        o.y = roi->y;
        o.w = roi->w;
        o.h = roi->h;
        o.roi = roi;
        objects.push_back(o);
    }
#if HAVE_GST_ANALYTICS
    GstAnalyticsRelationMeta* relations = gst_buffer_get_analytics_relation_meta(buffer);
    if (!relations)
        return objects;
    /* The metas by box, then in order; `joined[g]` counts the metas of
     * the group that starts at g already joined. A search per ODMtd would
     * be quadratic in a crowd, a map an allocation per object. */
    std::vector<size_t> by_box(objects.size());
    for (size_t i = 0; i < by_box.size(); ++i)
        by_box[i] = i;
    std::sort(by_box.begin(), by_box.end(), [&](size_t a, size_t b) {
        const detail::BoxKey ka = detail::key_of(objects[a]), kb = detail::key_of(objects[b]);
        return ka < kb || (!(kb < ka) && a < b);
    });
    std::vector<size_t> joined(by_box.size(), 0);
    gpointer od_state = nullptr;
    GstAnalyticsODMtd od;
    while (gst_analytics_relation_meta_iterate(relations, &od_state, gst_analytics_od_mtd_get_mtd_type(), &od)) {
        gint x = 0, y = 0, w = 0, h = 0;
        gfloat confidence = 0;
        if (!gst_analytics_od_mtd_get_location(&od, &x, &y, &w, &h, &confidence))
            continue;
        const detail::BoxKey key{gst_analytics_od_mtd_get_obj_type(&od), x, y, w, h};
        const size_t group = static_cast<size_t>(std::lower_bound(by_box.begin(), by_box.end(), key,
                                                                  [&](size_t i, const detail::BoxKey& k) {
                                                                      return detail::key_of(objects[i]) < k;
                                                                  }) -
                                                 by_box.begin());
        const size_t next = group + (group < joined.size() ? joined[group] : 0);
        if (next < by_box.size() && !(key < detail::key_of(objects[by_box[next]])) &&
            !(detail::key_of(objects[by_box[next]]) < key)) {
            ++joined[group];
            objects[by_box[next]].analytics_id = static_cast<gint>(od.id);
            objects[by_box[next]].od_confidence = confidence;
            continue;
        }
        MetaObject o;
        o.type = key.type;
        o.x = x;
        o.y = y;
        o.w = w;
        o.h = h;
        o.analytics_id = static_cast<gint>(od.id);
        o.od_confidence = confidence;
        objects.push_back(o);
    }
#endif
    return objects;
}

}  // namespace waldboost_metas
