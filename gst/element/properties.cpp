/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "properties.h"

#include <gst/gst.h>

#include <cstring>
#include <map>
#include <vector>

#include "core/model/formats.h"
#include "core/text.h"
#include "debug.h"
#include "privacy.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;

/* The alias properties (group-size ... step4-group-size) keep the values the
 * separate properties had for "not set": 0 for the work-group sizes (no
 * power of two), -1 for the others. A value below 1 is also "not set" where
 * the table's minimum is 1 or more (0 for a divisor), as it was. Any other
 * value in the alias' range is stored as given and checked against the
 * table and the device when the engine is set up, as before. */
int alias_unset(const wcl::ReductionParam& r) { return r.power_of_two ? 0 : -1; }
static int alias_first_set(const wcl::ReductionParam& r) { return std::min(r.min, 1); }

std::string alias_blurb(const wcl::ReductionParam& r)
{
    const int unset = alias_unset(r), last = alias_first_set(r) - 1;
    const std::string values = unset == last       ? std::to_string(unset)
                               : unset + 1 == last ? std::to_string(unset) + " or " + std::to_string(last)
                                                   : std::to_string(unset) + " to " + std::to_string(last);
    std::string what = r.blurb;
    what[0] = g_ascii_tolower(what[0]);
    return "Expert: " + what + " (alias of the reduction property's " + r.name + " field; " + values +
           " = default). Leave it unset: the tuned or default value (waldboost-bench --tune) is the "
           "fastest known; it never changes what is found";
}

std::string reduction_blurb()
{
    std::string fields;
    for (const wcl::ReductionParam& r : wcl::kReductionParams)
        fields += std::string(fields.empty() ? "" : ", ") + r.name + " (" + std::to_string(r.min) + " to " +
                  std::to_string(r.max) + (r.power_of_two ? ", a power of two)" : ")");
    return "Expert: reduction parameters (how the GPU reduction splits its work, never what it finds; see "
           "docs/engine.md). Leave it unset unless measurements on your device (waldboost-bench) show better values "
           "than the tuned or default ones. A structure with any of the int fields " +
           fields +
           ", e.g. \"reduction, group-size=(int)128, step2-unsync=(int)64\". A missing field keeps the tuned or "
           "default value; NULL = none set. Unset, the step-2 launches also follow the lists: up to the tuned or "
           "default step2-repeats, fewer after a frame whose candidate list was short; set, every frame gets its "
           "step2-repeats. Setting it replaces every field, and selects the reduction on CPU "
           "devices too (they scan by rows otherwise). An unknown field or a value out of range is refused and "
           "the previous setting stays (the debug log says why); limits of the device and divisors above the "
           "group size are errors when the engine starts";
}

/* The overrides as the `reduction` property gives them: NULL when none is set. */
static GstStructure* reduction_structure(const wcl::ReductionOverrides& o)
{
    if (o.empty())
        return nullptr;
    GstStructure* st = gst_structure_new_empty("reduction");
    for (size_t i = 0; i < wcl::kReductionParams.size(); ++i)
        if (o.values[i])
            gst_structure_set(st, wcl::kReductionParams[i].name, G_TYPE_INT, *o.values[i], nullptr);
    return st;
}

/* An ARGB colour written as text: "0x" and 1 to 8 hex digits, or decimal
 * digits up to 4294967295. No sign, blank or octal (strtoull took "010" as
 * 8 and "-18446744073709551615" as 1). */
static bool color_from_text(const char* text, guint64* color)
{
    const bool hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    const char* digits = hex ? text + 2 : text;
    const size_t n = strlen(digits);
    if (n == 0 || n > (hex ? 8u : 10u))
        return false;
    for (size_t i = 0; i < n; ++i)
        if (hex ? !g_ascii_isxdigit(digits[i]) : !g_ascii_isdigit(digits[i]))
            return false;
    *color = g_ascii_strtoull(digits, nullptr, hex ? 16 : 10);
    return *color <= G_MAXUINT32;
}

/* label-colors: a structure whose fields name labels and hold ARGB colours
 * (0xAARRGGBB as a number, in any integer type, or as a string). An int is
 * taken as its 32 bits: GStreamer reads an untyped 0xff0000ff, every opaque
 * colour, as the int -16776961. */
static bool label_colors_from_structure(const GstStructure* st, std::map<std::string, guint>* out, std::string* why)
{
    std::map<std::string, guint> colors;
    const gint n = st ? gst_structure_n_fields(st) : 0;
    /* "face:0xff00ff00" parses as a structure of that name and no field:
     * only an empty "colors" clears the colours. */
    if (n == 0 && st && !gst_structure_has_name(st, "colors")) {
        *why = "it has no label=colour field (as colors,face=0xff00ff00)";
        return false;
    }
    for (gint i = 0; i < n; ++i) {
        const gchar* name = gst_structure_nth_field_name(st, static_cast<guint>(i));
        const GValue* v = gst_structure_get_value(st, name);
        guint64 color = G_MAXUINT64;
        if (G_VALUE_HOLDS_UINT(v))
            color = g_value_get_uint(v);
        else if (G_VALUE_HOLDS_INT(v))
            color = static_cast<guint32>(g_value_get_int(v));
        else if (G_VALUE_HOLDS_INT64(v) && g_value_get_int64(v) >= 0)
            color = static_cast<guint64>(g_value_get_int64(v));
        else if (G_VALUE_HOLDS_UINT64(v))
            color = g_value_get_uint64(v);
        else if (G_VALUE_HOLDS_STRING(v) && g_value_get_string(v) && !color_from_text(g_value_get_string(v), &color))
            color = G_MAXUINT64;
        if (color > G_MAXUINT32) {
            *why = std::string("the colour of \"") + waldboost::printable(name, 64) +
                   "\" is not an ARGB number (0xAARRGGBB)";
            return false;
        }
        colors[name] = static_cast<guint>(color);
    }
    *out = std::move(colors);
    return true;
}

static GstStructure* label_colors_structure(const std::map<std::string, guint>& colors)
{
    GstStructure* st = gst_structure_new_empty("colors");
    for (const auto& [label, color] : colors)
        gst_structure_set(st, label.c_str(), G_TYPE_UINT, color, nullptr);
    return st;
}

/* Reads a `reduction` structure (NULL: none set); false with the reason in
 * `why` when a field is unknown, not an int or out of the table's range. */
static bool reduction_from_structure(const GstStructure* st, wcl::ReductionOverrides* out, std::string* why)
{
    wcl::ReductionOverrides o;
    const int n = st ? gst_structure_n_fields(st) : 0;
    for (int f = 0; f < n; ++f) {
        const gchar* name = gst_structure_nth_field_name(st, static_cast<guint>(f));
        const wcl::ReductionParam* r = wcl::find_reduction_param(name);
        if (!r) {
            *why = std::string("no field \"") + name + "\" (the fields: " + wcl::reduction_names() + ")";
            return false;
        }
        const GValue* v = gst_structure_get_value(st, name);
        if (!G_VALUE_HOLDS_INT(v)) {
            *why = std::string(name) + " must be an int, not a " + G_VALUE_TYPE_NAME(v);
            return false;
        }
        try {
            wcl::check_reduction_value(*r, g_value_get_int(v));
        } catch (const std::exception& e) {
            *why = e.what();
            return false;
        }
        o.values[static_cast<size_t>(r - wcl::kReductionParams.data())] = g_value_get_int(v);
    }
    *out = o;
    return true;
}

/* roi: four values (x, y, width, height) or none; "" when `roi` is one. */
static std::string roi_problem(const std::vector<int>& roi)
{
    if (!roi.empty() && roi.size() != 4)
        return std::to_string(roi.size()) + (roi.size() == 1 ? " value" : " values") +
               ", not 4 (<x, y, width, height>) or none";
    if (!roi.empty() && (roi[2] <= 0 || roi[3] <= 0))
        return "the width and the height must be at least 1";
    if (!roi.empty() && (roi[0] < 0 || roi[1] < 0))
        return "x and y must not be negative";
    return "";
}

static std::string string_or_empty(const GValue* value)
{
    const gchar* v = g_value_get_string(value);
    return v ? v : "";
}

/* A refused value's warning, on the bus where an application sees it (the
 * log alone made a refusal a silent no-op). Without a bus yet (gst-launch
 * sets properties while it parses the pipeline) it goes to `unposted`, and
 * the element posts it when it starts. */
static void warn_refused(GObject* object, const std::string& message, const char* property,
                         std::vector<RefusedValue>* unposted)
{
    GST_WARNING_OBJECT(object, "%s", message.c_str());
    const std::string debug = std::string("property ") + property;
    if (!post_refused(GST_ELEMENT(object), RefusedValue{message, debug}) && unposted)
        unposted->push_back(RefusedValue{message, debug});
}

bool post_refused(GstElement* element, const RefusedValue& refused)
{
    GError* error = g_error_new(GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_SETTINGS, "%s", refused.message.c_str());
    const gboolean posted = gst_element_post_message(
        element, gst_message_new_warning(GST_OBJECT(element), error, refused.property.c_str()));
    g_error_free(error);
    return posted;
}

bool set_setting(GObject* object, Settings& settings, guint id, const GValue* value,
                 std::vector<RefusedValue>* unposted)
{
    EngineSettings& e = settings.engine;
    DetectionSettings& d = settings.detection;
    OutputSettings& o = settings.output;
    switch (id) {
    case PROP_CLASSIFIER: e.classifier_path = string_or_empty(value); break;
    case PROP_LABEL: {
        /* The rules of labels from classifier files: the label reaches
         * metas, messages, logs and box-text tags, where a huge one slows
         * every frame badly (docs/history.md, "Figures behind the code's
         * choices"). Empty still means the classifier's label. */
        const std::string label = string_or_empty(value);
        const std::string why = label.empty() ? std::string() : waldboost::label_problem(label);
        if (why.empty()) {
            o.label = label;
        } else {
            const std::string shown = waldboost::printable(label, 64);
            warn_refused(object, "label \"" + shown + "\" refused: " + why + "; the previous value is kept", "label",
                         unposted);
        }
        break;
    }
    case PROP_LABEL_ID: o.label_id = g_value_get_int(value); break;
    case PROP_DEVICE: {
        const std::string device = string_or_empty(value);
        e.device = device.empty() ? "auto" : device;
        break;
    }
    case PROP_SCALE_FACTOR: d.scale_factor = g_value_get_double(value); break;
    case PROP_MIN_SIZE: d.min_size = g_value_get_int(value); break;
    case PROP_MIN_HEIGHT: d.min_height = g_value_get_int(value); break;
    case PROP_MAX_SIZE: d.max_size = g_value_get_int(value); break;
    case PROP_STRIDE: d.stride = g_value_get_int(value); break;
    case PROP_MIN_NEIGHBORS: d.min_neighbors = g_value_get_int(value); break;
    case PROP_GROUPING: d.grouping = static_cast<GstWaldboostGrouping>(g_value_get_enum(value)); break;
    case PROP_NMS_IOU: d.nms_iou = g_value_get_double(value); break;
    case PROP_THRESHOLD: d.threshold = g_value_get_double(value); break;
    case PROP_MIN_CONFIDENCE: d.min_confidence = g_value_get_double(value); break;
    case PROP_MAX_WINDOWS: d.max_windows = g_value_get_int(value); break;
    case PROP_ROI: {
        std::vector<int> roi;
        for (guint i = 0; i < gst_value_array_get_size(value); ++i)
            roi.push_back(g_value_get_int(gst_value_array_get_value(value, i)));
        const std::string why = roi_problem(roi);
        if (why.empty()) {
            d.roi = roi;
        } else {
            std::string text;
            for (int v : roi)
                text += (text.empty() ? "" : ", ") + std::to_string(v);
            warn_refused(object, "roi <" + text + "> refused: " + why + "; the previous value is kept", "roi",
                         unposted);
        }
        break;
    }
    case PROP_INFERENCE_REGION:
        d.inference_region = static_cast<GstWaldboostInferenceRegion>(g_value_get_enum(value));
        break;
    case PROP_REGION_LABELS: d.region_labels = privacy_labels_from_text(string_or_empty(value)); break;
    case PROP_MAX_INFLIGHT: e.max_inflight = g_value_get_int(value); break;
    case PROP_DRAW: o.draw = static_cast<GstWaldboostDraw>(g_value_get_enum(value)); break;
    case PROP_COLOR: o.color = g_value_get_uint(value); break;
    case PROP_LINE_WIDTH: o.line_width = g_value_get_int(value); break;
    case PROP_BOX_TEXT: o.box_text = g_value_get_flags(value); break;
    case PROP_LABEL_COLORS: {
        const GstStructure* st = gst_value_get_structure(value);
        std::string why;
        if (!label_colors_from_structure(st, &o.label_colors, &why)) {
            gchar* text = st ? gst_structure_to_string(st) : g_strdup("(null)");
            const std::string shown = waldboost::printable(text);
            g_free(text);
            warn_refused(object, "label-colors \"" + shown + "\" refused: " + why + "; the previous setting is kept",
                         "label-colors", unposted);
        }
        break;
    }
    case PROP_PRIVACY: o.privacy = static_cast<GstWaldboostPrivacy>(g_value_get_enum(value)); break;
    case PROP_PRIVACY_LABELS: o.privacy_labels = privacy_labels_from_text(string_or_empty(value)); break;
    case PROP_SNAPSHOT_FOLDER: o.snapshot_folder = string_or_empty(value); break;
    case PROP_SNAPSHOT_MESSAGE: o.snapshot_message = g_value_get_boolean(value); break;
    case PROP_POST_MESSAGES: o.post_messages = g_value_get_boolean(value); break;
    case PROP_UPDATES: o.updates = static_cast<GstWaldboostUpdates>(g_value_get_enum(value)); break;
    case PROP_METADATA: o.metadata = static_cast<GstWaldboostMetadata>(g_value_get_enum(value)); break;
    case PROP_MIN_STDDEV: d.min_stddev = g_value_get_int(value); break;
    case PROP_TRACKING: d.tracking = g_value_get_boolean(value); break;
    case PROP_INTERVAL: d.interval = g_value_get_int(value); break;
    case PROP_LOST_AFTER: d.lost_after = g_value_get_int(value); break;
    case PROP_CONFIRM_HITS: d.confirm_hits = g_value_get_int(value); break;
    case PROP_CONFIRM_WINDOW: d.confirm_window = g_value_get_int(value); break;
    case PROP_EYES_PROFILE:
    case PROP_NOSE_PROFILE:
    case PROP_MOUTH_PROFILE: d.nested_paths[id - PROP_EYES_PROFILE] = string_or_empty(value); break;
    case PROP_PARTS: d.parts = static_cast<GstWaldboostParts>(g_value_get_enum(value)); break;
    case PROP_PART_MIN_NEIGHBORS: d.part_min_neighbors = g_value_get_int(value); break;
    case PROP_BATCHING: e.batching = g_value_get_boolean(value); break;
    case PROP_PROFILING: e.profiling = g_value_get_boolean(value); break;
    case PROP_BATCH_WAIT: e.batch_wait = g_value_get_uint64(value); break;
    case PROP_REDUCTION: {
        const GstStructure* st = gst_value_get_structure(value);
        wcl::ReductionOverrides overrides;
        std::string why;
        if (reduction_from_structure(st, &overrides, &why)) {
            e.reduction = overrides;
        } else {
            gchar* text = gst_structure_to_string(st);
            GST_WARNING_OBJECT(object, "reduction \"%s\" refused: %s; the previous setting is kept", text, why.c_str());
            g_free(text);
        }
        break;
    }
    default:
        if (id >= PROP_REDUCTION_ALIAS && id < PROP_REDUCTION_ALIAS + wcl::kReductionParams.size()) {
            const size_t i = id - PROP_REDUCTION_ALIAS;
            const int v = g_value_get_int(value);
            if (v >= alias_first_set(wcl::kReductionParams[i]))
                e.reduction.values[i] = v;
            else
                e.reduction.values[i].reset();
            break;
        }
        return false;
    }
    return true;
}

void notify_changed(GObject* object, const Settings& before, const Settings& after)
{
    guint count = 0;
    GParamSpec** specs = g_object_class_list_properties(G_OBJECT_GET_CLASS(object), &count);
    g_object_freeze_notify(object);
    for (guint i = 0; i < count; ++i) {
        GValue was = G_VALUE_INIT, now = G_VALUE_INIT;
        g_value_init(&was, G_PARAM_SPEC_VALUE_TYPE(specs[i]));
        g_value_init(&now, G_PARAM_SPEC_VALUE_TYPE(specs[i]));
        if (specs[i]->owner_type == G_OBJECT_TYPE(object) && get_setting(before, specs[i]->param_id, &was) &&
            get_setting(after, specs[i]->param_id, &now) && g_param_values_cmp(specs[i], &was, &now) != 0)
            g_object_notify_by_pspec(object, specs[i]);
        g_value_unset(&was);
        g_value_unset(&now);
    }
    g_object_thaw_notify(object);
    g_free(specs);
}

bool get_setting(const Settings& settings, guint id, GValue* value)
{
    const EngineSettings& e = settings.engine;
    const DetectionSettings& d = settings.detection;
    const OutputSettings& o = settings.output;
    switch (id) {
    case PROP_CLASSIFIER: g_value_set_string(value, e.classifier_path.c_str()); break;
    case PROP_LABEL: g_value_set_string(value, o.label.c_str()); break;
    case PROP_LABEL_ID: g_value_set_int(value, o.label_id); break;
    case PROP_DEVICE: g_value_set_string(value, e.device.c_str()); break;
    case PROP_SCALE_FACTOR: g_value_set_double(value, d.scale_factor); break;
    case PROP_MIN_SIZE: g_value_set_int(value, d.min_size); break;
    case PROP_MIN_HEIGHT: g_value_set_int(value, d.min_height); break;
    case PROP_MAX_SIZE: g_value_set_int(value, d.max_size); break;
    case PROP_STRIDE: g_value_set_int(value, d.stride); break;
    case PROP_MIN_NEIGHBORS: g_value_set_int(value, d.min_neighbors); break;
    case PROP_GROUPING: g_value_set_enum(value, d.grouping); break;
    case PROP_NMS_IOU: g_value_set_double(value, d.nms_iou); break;
    case PROP_MAX_WINDOWS: g_value_set_int(value, d.max_windows); break;
    case PROP_THRESHOLD: g_value_set_double(value, d.threshold); break;
    case PROP_MIN_CONFIDENCE: g_value_set_double(value, d.min_confidence); break;
    case PROP_ROI:
        for (int v : d.roi) {
            GValue item = G_VALUE_INIT;
            g_value_init(&item, G_TYPE_INT);
            g_value_set_int(&item, v);
            gst_value_array_append_and_take_value(value, &item);
        }
        break;
    case PROP_INFERENCE_REGION: g_value_set_enum(value, d.inference_region); break;
    case PROP_REGION_LABELS: g_value_set_string(value, privacy_labels_text(d.region_labels).c_str()); break;
    case PROP_MAX_INFLIGHT: g_value_set_int(value, e.max_inflight); break;
    case PROP_DRAW: g_value_set_enum(value, o.draw); break;
    case PROP_COLOR: g_value_set_uint(value, o.color); break;
    case PROP_LINE_WIDTH: g_value_set_int(value, o.line_width); break;
    case PROP_BOX_TEXT: g_value_set_flags(value, o.box_text); break;
    case PROP_LABEL_COLORS: g_value_take_boxed(value, label_colors_structure(o.label_colors)); break;
    case PROP_PRIVACY: g_value_set_enum(value, o.privacy); break;
    case PROP_PRIVACY_LABELS: g_value_set_string(value, privacy_labels_text(o.privacy_labels).c_str()); break;
    case PROP_SNAPSHOT_FOLDER: g_value_set_string(value, o.snapshot_folder.c_str()); break;
    case PROP_SNAPSHOT_MESSAGE: g_value_set_boolean(value, o.snapshot_message); break;
    case PROP_POST_MESSAGES: g_value_set_boolean(value, o.post_messages); break;
    case PROP_UPDATES: g_value_set_enum(value, o.updates); break;
    case PROP_METADATA: g_value_set_enum(value, o.metadata); break;
    case PROP_MIN_STDDEV: g_value_set_int(value, d.min_stddev); break;
    case PROP_TRACKING: g_value_set_boolean(value, d.tracking); break;
    case PROP_INTERVAL: g_value_set_int(value, d.interval); break;
    case PROP_LOST_AFTER: g_value_set_int(value, d.lost_after); break;
    case PROP_CONFIRM_HITS: g_value_set_int(value, d.confirm_hits); break;
    case PROP_CONFIRM_WINDOW: g_value_set_int(value, d.confirm_window); break;
    case PROP_EYES_PROFILE:
    case PROP_NOSE_PROFILE:
    case PROP_MOUTH_PROFILE: g_value_set_string(value, d.nested_paths[id - PROP_EYES_PROFILE].c_str()); break;
    case PROP_PARTS: g_value_set_enum(value, d.parts); break;
    case PROP_PART_MIN_NEIGHBORS: g_value_set_int(value, d.part_min_neighbors); break;
    case PROP_BATCHING: g_value_set_boolean(value, e.batching); break;
    case PROP_PROFILING: g_value_set_boolean(value, e.profiling); break;
    case PROP_BATCH_WAIT: g_value_set_uint64(value, e.batch_wait); break;
    case PROP_REDUCTION: g_value_take_boxed(value, reduction_structure(e.reduction)); break;
    default:
        if (id >= PROP_REDUCTION_ALIAS && id < PROP_REDUCTION_ALIAS + wcl::kReductionParams.size()) {
            const size_t i = id - PROP_REDUCTION_ALIAS;
            g_value_set_int(value, e.reduction.values[i].value_or(alias_unset(wcl::kReductionParams[i])));
            break;
        }
        return false;
    }
    return true;
}

}  // namespace waldboost_element
