/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "element.h"

#include "options.h"

namespace pipeline_bench {

namespace {

namespace wcl = waldboost::opencl;

/* What a waldboostdetect configured with --props is set to, read back from
 * its properties, for the engines alone. Its device and reduction
 * overrides are left out: the engines run on --device with the engine's
 * own reduction parameters. */
wcl::DetectorSettings element_settings(GstElement* detect, const std::string& device)
{
    gdouble scale = 1.1, nms_iou = 0.3, threshold = 0;
    gint stride = 0, min_neighbors = 3, min_size = 0, min_height = 0, max_size = 0, grouping = 0, max_windows = 0,
         max_inflight = 2;
    gboolean batching = FALSE, profiling = FALSE;
    guint64 batch_wait = 0;
    g_object_get(detect, "scale-factor", &scale, "stride", &stride, "min-neighbors", &min_neighbors, "nms-iou",
                 &nms_iou, "threshold", &threshold, "min-size", &min_size, "min-height", &min_height, "max-size",
                 &max_size, "grouping", &grouping, "max-windows", &max_windows, "max-inflight", &max_inflight,
                 "batching", &batching, "batch-wait", &batch_wait, "profiling", &profiling, nullptr);
    GEnumClass* groupings = G_ENUM_CLASS(g_type_class_ref(
        G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(detect), "grouping"))));
    const GEnumValue* nick = g_enum_get_value(groupings, grouping);
    const std::string grouping_nick = nick ? nick->value_nick : "opencv";
    g_type_class_unref(groupings);

    wcl::DetectorSettings settings;
    settings.scale_factor = scale;
    settings.stride = stride;
    settings.min_neighbors = min_neighbors;
    settings.nms_iou = nms_iou;
    settings.grouping = grouping_nick == "nms"    ? waldboost::Grouping::Nms
                        : grouping_nick == "none" ? waldboost::Grouping::None
                                                  : waldboost::Grouping::OpenCv;
    settings.min_size.width = min_size; /* widths: heights follow the window, */
    if (min_height > 0)                 /* unless min-height gives one */
        settings.min_size.height = min_height;
    settings.max_size.width = max_size;
    settings.threshold_offset = threshold;
    settings.max_windows = max_windows;
    settings.device = device;
    settings.max_inflight = max_inflight;
    settings.batching = batching;
    settings.batch_wait_ns = batch_wait;
    settings.profiling = profiling;
    return settings;
}

}  // namespace

bool find_plugin(const std::optional<std::string>& plugin_dir)
{
    GstRegistry* registry = gst_registry_get();
    if (plugin_dir)
        gst_registry_scan_path(registry, plugin_dir->c_str());
#ifdef WALDBOOST_PLUGIN_BUILD_DIR
    else if (!g_getenv("GST_PLUGIN_PATH") && !g_getenv("GST_PLUGIN_PATH_1_0") &&
             g_file_test(WALDBOOST_PLUGIN_BUILD_DIR, G_FILE_TEST_IS_DIR))
        gst_registry_scan_path(registry, WALDBOOST_PLUGIN_BUILD_DIR);
#endif
    GstElementFactory* factory = gst_element_factory_find("waldboostdetect");
    if (!factory)
        return false;
    gst_object_unref(factory);
    return true;
}

namespace {

/* Sets a property from its text as gst-launch-1.0 reads it, but a text the
 * property cannot take is an error rather than a line in the debug log
 * (gst_util_set_object_arg's way): a table must not show a setting that
 * ran at the default. "" when set, else why not. */
std::string set_from_text(GstElement* detect, const std::string& name, const std::string& text)
{
    GParamSpec* pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(detect), name.c_str());
    if (!pspec)
        return "waldboostdetect has no property '" + name + "'";
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_PARAM_SPEC_VALUE_TYPE(pspec));
    std::string why;
    if (!gst_value_deserialize_with_pspec(&value, text.c_str(), pspec))
        why = "'" + text + "' is not a value of " + name + " (" + g_type_name(G_PARAM_SPEC_VALUE_TYPE(pspec)) + ")";
    else if (g_param_value_validate(pspec, &value))  // TRUE: it had to be changed to fit
        why = "'" + text + "' is out of " + name + "'s range (gst-inspect-1.0 waldboostdetect)";
    else
        g_object_set_property(G_OBJECT(detect), name.c_str(), &value);
    g_value_unset(&value);
    return why;
}

}  // namespace

std::string apply_props(GstElement* detect, const Settings& s)
{
    g_object_set(detect, "device", s.device.c_str(), "post-messages", FALSE, nullptr);
    set_from_text(detect, "draw", "none");
    if (!s.classifier_path.empty())
        g_object_set(detect, "classifier", s.classifier_path.c_str(), nullptr);
    for (const auto& [name, value] : s.props) {
        const std::string why = set_from_text(detect, name, value);
        if (!why.empty())
            return why;
    }
    return "";
}

void configure_from_element(Settings& s, const waldboost::Classifier& classifier)
{
    GstElement* probe = gst_element_factory_make("waldboostdetect", nullptr);
    const std::string why = apply_props(probe, s);
    if (!why.empty()) {
        gst_object_unref(probe);
        throw UsageError("--props: " + why);
    }
    /* A format the element does not take: a usage error now, not a row
     * that fails with not-negotiated. */
    GstPad* sink = gst_element_get_static_pad(probe, "sink");
    GstCaps* takes = gst_pad_get_pad_template_caps(sink);
    GstCaps* frames = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, s.format.c_str(), nullptr);
    const bool taken = gst_caps_can_intersect(takes, frames);
    gst_caps_unref(frames);
    gst_caps_unref(takes);
    gst_object_unref(sink);
    if (!taken) {
        gst_object_unref(probe);
        throw UsageError("--format " + s.format +
                         ": waldboostdetect does not take it (gst-inspect-1.0 "
                         "waldboostdetect lists the formats it takes)");
    }
    s.element = element_settings(probe, s.device);
    gboolean tracking = FALSE;
    gint interval = 1;
    g_object_get(probe, "tracking", &tracking, "interval", &interval, nullptr);
    s.compare_boxes = !tracking && interval == 1;
    const wcl::DetectorParameters resolved = wcl::resolve_settings(s.element, classifier);
    s.params = resolved.detect;
    s.engine = resolved.engine;
    gst_object_unref(probe);
}

}  // namespace pipeline_bench
