/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "stats.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;

void SharedStats::reset()
{
    std::lock_guard<std::mutex> guard(lock_);
    stats_ = Stats{};
}

GstStructure* SharedStats::structure() const
{
    std::lock_guard<std::mutex> guard(lock_);
    const Stats& st = stats_;
    GValue candidates = G_VALUE_INIT;
    g_value_init(&candidates, GST_TYPE_ARRAY);
    for (guint64 c : st.candidates) {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, G_TYPE_UINT64);
        g_value_set_uint64(&v, c);
        gst_value_array_append_and_take_value(&candidates, &v);
    }
    GstStructure* s = gst_structure_new(
        "waldboost-stats", "frames", G_TYPE_UINT64, st.frames, "detections", G_TYPE_UINT64, st.detections, "device-ms",
        G_TYPE_DOUBLE, st.device_ms, "windows", G_TYPE_UINT64, st.windows, "weak-per-window", G_TYPE_DOUBLE,
        st.weak_per_window, "discarded", G_TYPE_UINT64, st.discarded, "windows-cut", G_TYPE_UINT64, st.windows_cut,
        "device", G_TYPE_STRING, st.device.c_str(), "device-fallbacks", G_TYPE_UINT64, st.fallbacks, "scan",
        G_TYPE_STRING, st.scan.c_str(), nullptr);
    gst_structure_take_value(s, "candidates", &candidates);
    const std::shared_ptr<const wcl::BusyTime> busy = st.device_busy.lock();
    gst_structure_set(s, "batch-frames", G_TYPE_INT, st.batch_frames, "host-ms", G_TYPE_DOUBLE, st.host_ms,
                      "host-total-ms", G_TYPE_DOUBLE, st.host_total_ms, "detected-frames", G_TYPE_UINT64,
                      st.detected_frames, "host-detected-total-ms", G_TYPE_DOUBLE, st.host_detected_total_ms,
                      "qos-skipped", G_TYPE_UINT64, st.qos_skipped, nullptr);
    gst_structure_set(s, "device-busy-ms", G_TYPE_DOUBLE, busy ? static_cast<double>(busy->total_ns()) * 1e-6 : 0.0,
                      nullptr);
    return s;
}

}  // namespace waldboost_element
