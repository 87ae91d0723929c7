/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "timing.h"

#include <algorithm>

namespace pipeline_bench {

namespace {

double per(double ms, uint64_t n) { return n ? ms / static_cast<double>(n) : -1; }

}  // namespace

void record_rates(Part& part, Clock::time_point start, const std::vector<StreamEnd>& ends)
{
    Clock::time_point last = start;
    for (const StreamEnd& end : ends) {
        const double t = seconds(end.at - start);
        part.stream_fps.push_back(t > 0 ? static_cast<double>(end.frames) / t : 0);
        part.frames += end.frames;
        last = std::max(last, end.at);
    }
    part.wall_s = seconds(last - start);
}

void HostTime::add(GstElement* detect)
{
    GstStructure* st = nullptr;
    g_object_get(detect, "stats", &st, nullptr);
    double ms = 0, detected_total = 0;
    guint64 n = 0, searched = 0;
    if (st && gst_structure_get_double(st, "host-total-ms", &ms) && gst_structure_get_uint64(st, "frames", &n) &&
        gst_structure_get_double(st, "host-detected-total-ms", &detected_total) &&
        gst_structure_get_uint64(st, "detected-frames", &searched)) {
        total_ms += ms;
        frames += n;
        detected_ms += detected_total;
        detected += searched;
    }
    if (st)
        gst_structure_free(st);
}

void HostTime::record(Part& part) const
{
    part.host_ms = per(total_ms, frames);
    part.host_detected_ms = per(detected_ms, detected);
    part.host_other_ms = per(total_ms - detected_ms, frames - detected);
}

double after_host_ms(GstElement* bin)
{
    double total = 0;
    GstIterator* it = gst_bin_iterate_recurse(GST_BIN(bin));
    GValue item = G_VALUE_INIT;
    while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
        GstElement* e = GST_ELEMENT(g_value_get_object(&item));
        GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "stats");
        if (spec && G_PARAM_SPEC_VALUE_TYPE(spec) == GST_TYPE_STRUCTURE) {
            GstStructure* st = nullptr;
            g_object_get(e, "stats", &st, nullptr);
            for (const char* field : {"host-total-ms", "worker-total-ms"}) {
                double ms = 0;
                if (st && gst_structure_get_double(st, field, &ms))
                    total += ms;
            }
            if (st)
                gst_structure_free(st);
        }
        g_value_reset(&item);
    }
    g_value_unset(&item);
    gst_iterator_free(it);
    return total;
}

double device_busy_ms(GstElement* detect)
{
    GstStructure* st = nullptr;
    g_object_get(detect, "stats", &st, nullptr);
    double ms = -1;
    if (!st || !gst_structure_get_double(st, "device-busy-ms", &ms))
        ms = -1;
    if (st)
        gst_structure_free(st);
    return ms;
}

}  // namespace pipeline_bench
