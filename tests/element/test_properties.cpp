/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, properties: defaults and ranges, refused values, the
 * classifier files (converted, OpenCV's LBP and Haar cascades) and their
 * labels, every detection parameter against the core with the same
 * DetectParams, roi, the reduction structure and its aliases, and stats;
 * refused values warned on the bus when gst-launch set them before it
 * existed, and the blurbs naming the parts' labels.
 */
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/text.h"
#include "harness.h"
#include "tools/common/image_file.h"

using namespace element_test;

GST_START_TEST(test_property_defaults)
{
    GstElement* e = make_element({});
    gchar *classifier = nullptr, *label = nullptr, *device = nullptr;
    gdouble scale, iou, threshold;
    gint min_size, max_size, stride, mn, mi, lw, gs, s1u, s1d, s2u, s2d, s2r, s4;
    guint color;
    gboolean post;
    g_object_get(e, "classifier", &classifier, "label", &label, "device", &device, "scale-factor", &scale, "nms-iou",
                 &iou, "threshold", &threshold, "min-size", &min_size, "max-size", &max_size, "stride", &stride,
                 "min-neighbors", &mn, "max-inflight", &mi, "line-width", &lw, "group-size", &gs, "step1-unsync", &s1u,
                 "step1-divisor", &s1d, "step2-unsync", &s2u, "step2-divisor", &s2d, "step2-repeats", &s2r,
                 "step4-group-size", &s4, "color", &color, "post-messages", &post, nullptr);
    fail_unless_equals_string(classifier, "");
    fail_unless_equals_string(label, "");
    fail_unless_equals_string(device, "auto");
    fail_unless_equals_float(scale, 1.1);
    fail_unless_equals_float(iou, 0.3);
    fail_unless_equals_float(threshold, 0.0);
    fail_unless_equals_int(min_size, 0);
    fail_unless_equals_int(max_size, 0);
    fail_unless_equals_int(stride, 0);
    fail_unless_equals_int(mn, 3);
    fail_unless_equals_int(mi, 2);
    fail_unless_equals_int(lw, 2);
    fail_unless_equals_int(gs, 0);
    fail_unless_equals_int(s1u, -1);
    fail_unless_equals_int(s1d, -1);
    fail_unless_equals_int(s2u, -1);
    fail_unless_equals_int(s2d, -1);
    fail_unless_equals_int(s2r, -1);
    fail_unless_equals_int(s4, 0);
    fail_unless_equals_int(color, 0xff00ff00u);
    fail_unless(post);
    gint max_windows = -1, min_stddev = -1;
    g_object_get(e, "max-windows", &max_windows, "min-stddev", &min_stddev, nullptr);
    fail_unless_equals_int(max_windows, 100000);
    fail_unless_equals_int(min_stddev, 0);
    for (const char* name : {"eyes-profile", "nose-profile", "mouth-profile"}) {
        gchar* path = nullptr;
        g_object_get(e, name, &path, nullptr);
        fail_unless_equals_string(path, "");
        g_free(path);
    }
    g_free(classifier);
    g_free(label);
    g_free(device);

    /* Enums by nick. */
    GParamSpec* draw = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "draw");
    GParamSpec* grouping = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "grouping");
    fail_unless(G_IS_PARAM_SPEC_ENUM(draw) && G_IS_PARAM_SPEC_ENUM(grouping));
    GEnumClass* dk = G_PARAM_SPEC_ENUM(draw)->enum_class;
    GEnumClass* gk = G_PARAM_SPEC_ENUM(grouping)->enum_class;
    fail_unless_equals_string(g_enum_get_value(dk, G_PARAM_SPEC_ENUM(draw)->default_value)->value_nick, "auto");
    fail_unless_equals_string(g_enum_get_value(gk, G_PARAM_SPEC_ENUM(grouping)->default_value)->value_nick, "opencv");
    for (const char* nick : {"auto", "meta", "burn", "none"})
        fail_unless(g_enum_get_value_by_nick(dk, nick) != nullptr, "draw has no \"%s\"", nick);
    for (const char* nick : {"opencv", "nms", "none"})
        fail_unless(g_enum_get_value_by_nick(gk, nick) != nullptr, "grouping has no \"%s\"", nick);
    /* updates: facedetect's modes with facedetect's numbers. */
    GParamSpec* updates = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "updates");
    fail_unless(G_IS_PARAM_SPEC_ENUM(updates));
    GEnumClass* uk = G_PARAM_SPEC_ENUM(updates)->enum_class;
    fail_unless_equals_int(G_PARAM_SPEC_ENUM(updates)->default_value, 0);
    const char* const update_nicks[] = {"every-frame", "on-change", "on-object", "none"};
    for (int v = 0; v < 4; ++v) {
        const GEnumValue* value = g_enum_get_value(uk, v);
        fail_unless(value != nullptr && std::strcmp(value->value_nick, update_nicks[v]) == 0,
                    "updates value %d should be \"%s\"", v, update_nicks[v]);
    }

    /* roi: empty; stats: zero frames. */
    GValue roi = G_VALUE_INIT;
    g_value_init(&roi, GST_TYPE_ARRAY);
    g_object_get_property(G_OBJECT(e), "roi", &roi);
    fail_unless_equals_int(gst_value_array_get_size(&roi), 0);
    g_value_unset(&roi);
    GstStructure* stats = nullptr;
    g_object_get(e, "stats", &stats, nullptr);
    fail_unless(stats != nullptr);
    guint64 frames = 99;
    fail_unless(gst_structure_get_uint64(stats, "frames", &frames));
    fail_unless_equals_uint64(frames, 0);
    gst_structure_free(stats);
    GParamSpec* sp = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "stats");
    fail_if(sp->flags & G_PARAM_WRITABLE, "stats must be read-only");
    gst_object_unref(e);
}
GST_END_TEST;

/* GLib refuses a value outside a property's range with a message, a
 * warning up to Debian 12's GLib (2.74) and a critical in Debian 13's
 * (2.84): either is GLib saying no, which is what these cases expect;
 * the value kept is checked after each. Like ASSERT_WARNING otherwise. */
#define ASSERT_GLIB_REFUSES(code)                                                                             \
    G_STMT_START                                                                                              \
    {                                                                                                         \
        _gst_check_expecting_log = TRUE;                                                                      \
        _gst_check_raised_warning = FALSE;                                                                    \
        _gst_check_raised_critical = FALSE;                                                                   \
        code;                                                                                                 \
        if (!_gst_check_raised_warning && !_gst_check_raised_critical)                                        \
            _ck_assert_failed(__FILE__, __LINE__, "Expected GLib to refuse the value, got no message", NULL); \
        _gst_check_raised_critical = FALSE;                                                                   \
        _gst_check_expecting_log = FALSE;                                                                     \
    }                                                                                                         \
    G_STMT_END

/* Ranges: the documented limits, and GObject refusing values outside them
 * (with a warning) so the value stays in range. */
GST_START_TEST(test_property_ranges)
{
    struct IntRange {
        const char* name;
        int min, max;
    };
    const IntRange ints[] = {{"min-size", 0, G_MAXINT},   {"min-height", 0, G_MAXINT},   {"max-size", 0, G_MAXINT},
                             {"stride", 0, 64},           {"min-neighbors", 0, 1000},    {"max-inflight", 1, 16},
                             {"line-width", 1, 32},       {"group-size", 0, 4096},       {"step1-unsync", -1, 65535},
                             {"step1-divisor", -1, 4096}, {"step2-unsync", -1, 65535},   {"step2-divisor", -1, 4096},
                             {"step2-repeats", -1, 16},   {"step4-group-size", 0, 4096}, {"max-windows", 0, G_MAXINT},
                             {"min-stddev", 0, 255}};
    GstElement* e = make_element({});
    for (const IntRange& r : ints) {
        GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), r.name);
        fail_unless(G_IS_PARAM_SPEC_INT(p), "%s is not an int property", r.name);
        fail_unless_equals_int(G_PARAM_SPEC_INT(p)->minimum, r.min);
        fail_unless_equals_int(G_PARAM_SPEC_INT(p)->maximum, r.max);
        fail_unless(p->flags & GST_PARAM_MUTABLE_PLAYING, "%s is not mutable in PLAYING", r.name);
        int before, after;
        g_object_get(e, r.name, &before, nullptr);
        ASSERT_GLIB_REFUSES(g_object_set(e, r.name, r.min - 1, nullptr));
        g_object_get(e, r.name, &after, nullptr);
        fail_unless(after == before, "%s: %d accepted below the minimum %d", r.name, after, r.min);
        if (r.max < G_MAXINT) {
            ASSERT_GLIB_REFUSES(g_object_set(e, r.name, r.max + 1, nullptr));
            g_object_get(e, r.name, &after, nullptr);
            fail_unless(after == before, "%s: %d accepted above the maximum", r.name, after);
        }
        g_object_set(e, r.name, r.max, nullptr);
        g_object_get(e, r.name, &after, nullptr);
        fail_unless_equals_int(after, r.max);
        g_object_set(e, r.name, before, nullptr);
    }
    struct DoubleRange {
        const char* name;
        double min, max;
    };
    const DoubleRange doubles[] = {{"scale-factor", 1.01, 10.0}, {"nms-iou", 0.0, 1.0}, {"threshold", -1000, 1000}};
    for (const DoubleRange& r : doubles) {
        GParamSpec* p = g_object_class_find_property(G_OBJECT_GET_CLASS(e), r.name);
        fail_unless(G_IS_PARAM_SPEC_DOUBLE(p));
        fail_unless_equals_float(G_PARAM_SPEC_DOUBLE(p)->minimum, r.min);
        fail_unless_equals_float(G_PARAM_SPEC_DOUBLE(p)->maximum, r.max);
        double before, after;
        g_object_get(e, r.name, &before, nullptr);
        ASSERT_GLIB_REFUSES(g_object_set(e, r.name, r.min - 0.5, nullptr));
        ASSERT_GLIB_REFUSES(g_object_set(e, r.name, r.max + 0.5, nullptr));
        g_object_get(e, r.name, &after, nullptr);
        fail_unless_equals_float(after, before);
    }
    /* scale-factor must stay above 1 (the pyramid needs it). */
    fail_unless(G_PARAM_SPEC_DOUBLE(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "scale-factor"))->minimum >
                1.0);
    /* roi: only empty or four values with a positive size are taken. */
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<10, 20, 30, 40>");
    auto roi_values = [&]() {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, GST_TYPE_ARRAY);
        g_object_get_property(G_OBJECT(e), "roi", &v);
        std::vector<int> out;
        for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
            out.push_back(g_value_get_int(gst_value_array_get_value(&v, i)));
        g_value_unset(&v);
        return out;
    };
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}));
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<1, 2, 3>");
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}), "a 3-value roi was taken");
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<1, 2, 0, 5>");
    fail_unless(roi_values() == std::vector<int>({10, 20, 30, 40}), "a roi of width 0 was taken");
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<>");
    fail_unless(roi_values().empty(), "an empty roi was refused");
    /* device: empty means auto. */
    g_object_set(e, "device", "", nullptr);
    gchar* device;
    g_object_get(e, "device", &device, nullptr);
    fail_unless_equals_string(device, "auto");
    g_free(device);
    gst_object_unref(e);
}
GST_END_TEST;

/* The element's WARNING lines of the debug log. */
struct LogCapture {
    std::mutex lock;
    std::vector<std::string> lines;
};

static void capture_warnings(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint,
                             GObject*, GstDebugMessage* message, gpointer data)
{
    if (level != GST_LEVEL_WARNING || g_strcmp0(gst_debug_category_get_name(category), "waldboostdetect") != 0)
        return;
    auto* capture = static_cast<LogCapture*>(data);
    std::lock_guard<std::mutex> g(capture->lock);
    capture->lines.push_back(gst_debug_message_get(message));
}

/* A roi of another form is refused at set time, the previous value stays,
 * and the debug log says why; gst-inspect's blurb gives the form. */
GST_START_TEST(test_property_roi_refused)
{
    GstElement* e = make_element({});
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    const gchar* blurb = g_param_spec_get_blurb(g_object_class_find_property(G_OBJECT_GET_CLASS(e), "roi"));
    fail_unless(contains(blurb, "<x, y, width, height>") && contains(blurb, "refused") &&
                    contains(blurb, "previous value"),
                "the roi blurb does not give the form and what happens to others: %s", blurb);
    LogCapture capture;
    gst_debug_set_threshold_for_name("waldboostdetect", GST_LEVEL_WARNING);
    gst_debug_add_log_function(capture_warnings, &capture, nullptr);
    gst_util_set_object_arg(G_OBJECT(e), "roi", "<10, 20, 30, 40>");
    struct Refused {
        const char* value;
        const char* why;
    };
    for (const Refused& r : {Refused{"<1, 2, 3>", "3 values"}, Refused{"<1, 2, 3, 4, 5>", "5 values"},
                             Refused{"<7>", "1 value"}, Refused{"<1, 2, 0, 5>", "at least 1"}}) {
        {
            std::lock_guard<std::mutex> g(capture.lock);
            capture.lines.clear();
        }
        gst_util_set_object_arg(G_OBJECT(e), "roi", r.value);
        GValue v = G_VALUE_INIT;
        g_value_init(&v, GST_TYPE_ARRAY);
        g_object_get_property(G_OBJECT(e), "roi", &v);
        std::vector<int> kept;
        for (guint i = 0; i < gst_value_array_get_size(&v); ++i)
            kept.push_back(g_value_get_int(gst_value_array_get_value(&v, i)));
        g_value_unset(&v);
        fail_unless(kept == std::vector<int>({10, 20, 30, 40}), "roi=%s was taken", r.value);
        std::lock_guard<std::mutex> g(capture.lock);
        fail_unless(capture.lines.size() == 1, "roi=%s: %zu warnings in the log", r.value, capture.lines.size());
        fail_unless(contains(capture.lines[0], "refused") && contains(capture.lines[0], r.why) &&
                        contains(capture.lines[0], "previous value is kept"),
                    "roi=%s: the warning does not say why: %s", r.value, capture.lines[0].c_str());
        /* And on the bus, where an application sees it. */
        const ErrorInfo warning = pop_message(bus, GST_MESSAGE_WARNING);
        fail_unless(warning.found && contains(warning.message, "refused") && contains(warning.message, r.why),
                    "roi=%s: no warning on the bus (%s)", r.value, warning.message.c_str());
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "roi=%s: a second warning", r.value);
    }
    gst_debug_remove_log_function(capture_warnings);
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
}
GST_END_TEST;

/* A label from the property follows the rules of labels from classifier
 * files (label_problem): control characters, C1 controls, bidi overrides,
 * invalid UTF-8 and more than 256 bytes are refused with a warning that
 * shows the value escaped, and the previous label stays. An 80 KB label
 * had cost 38 s a frame with box-text. */
GST_START_TEST(test_property_label_refused)
{
    GstElement* e = make_element({});
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    g_object_set(e, "label", "person", nullptr);
    struct Refused {
        std::string value;
        const char* why;
    };
    const std::string long_label(80 * 1024, 'x');
    for (const Refused& r : {Refused{"a\nb", "control character"}, Refused{"\x1b[31mred", "control character"},
                             Refused{"evil\xe2\x80\xaetxt", "bidi"},
                             Refused{"\xc2\x9b"
                                     "1m",
                                     "C1 control"},
                             Refused{"bad\xff\xfe", "not valid UTF-8"}, Refused{long_label, "256"},
                             Refused{std::string(257, 'y'), "257 bytes"}}) {
        g_object_set(e, "label", r.value.c_str(), nullptr);
        gchar* kept = nullptr;
        g_object_get(e, "label", &kept, nullptr);
        fail_unless(g_strcmp0(kept, "person") == 0, "label \"%s\" was taken", waldboost::printable(r.value).c_str());
        g_free(kept);
        const ErrorInfo warning = pop_message(bus, GST_MESSAGE_WARNING);
        fail_unless(warning.found && contains(warning.message, "refused") && contains(warning.message, r.why) &&
                        contains(warning.message, "previous value is kept"),
                    "label %s: no warning that says why (%s)", waldboost::printable(r.value).c_str(),
                    warning.message.c_str());
        /* The warning shows the value escaped and short. */
        for (const char* raw : {"\n", "\x1b", "\xe2\x80\xae", "\xc2\x9b", "\xff"})
            fail_if(contains(warning.message, raw), "the warning carries the label raw: %s",
                    waldboost::printable(warning.message).c_str());
        fail_unless(warning.message.size() < 600, "a warning of %zu bytes", warning.message.size());
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "label %s: a second warning",
                waldboost::printable(r.value).c_str());
    }
    /* What files may hold is taken: UTF-8 text up to 256 bytes, and empty
     * (the classifier's label). */
    for (const std::string& ok : {std::string("Gesicht \xc3\xbc"), std::string(256, 'z'), std::string()}) {
        g_object_set(e, "label", ok.c_str(), nullptr);
        gchar* kept = nullptr;
        g_object_get(e, "label", &kept, nullptr);
        fail_unless(ok == kept, "label \"%s\" was not taken", ok.c_str());
        g_free(kept);
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "label \"%s\": a warning", ok.c_str());
    }
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
}
GST_END_TEST;

/* label-colors as gst-launch writes it: GStreamer reads an untyped
 * 0xff0000ff (every opaque colour) as the int -16776961, which was refused
 * in the debug log only, so the natural form did nothing. Strings took
 * octal ("010" = 8), signs, blanks, and negatives that wrap around 2^64. */
GST_START_TEST(test_property_label_colors_values)
{
    GstElement* e = make_element({});
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    struct Taken {
        const char* value;
        guint color;
    };
    for (const Taken& t :
         {Taken{"colors,face=0xff0000ff", 0xff0000ffu}, Taken{"colors,face=0xffffffff", 0xffffffffu},
          Taken{"colors,face=(uint)0xff00ff00", 0xff00ff00u}, Taken{"colors,face=4278190335", 0xff0000ffu},
          Taken{"colors,face=255", 255u}, Taken{"colors,face=(string)0xff0000ff", 0xff0000ffu},
          Taken{"colors,face=(string)010", 10u}, Taken{"colors,face=(string)0XFF", 255u},
          Taken{"colors,face=(guint64)4294967295", 0xffffffffu}}) {
        gst_util_set_object_arg(G_OBJECT(e), "label-colors", "colors,other=(uint)7");
        gst_util_set_object_arg(G_OBJECT(e), "label-colors", t.value);
        GstStructure* st = nullptr;
        g_object_get(e, "label-colors", &st, nullptr);
        guint color = 0;
        fail_unless(st && gst_structure_get_uint(st, "face", &color) && color == t.color,
                    "label-colors=%s: face is 0x%08x, not 0x%08x", t.value, color, t.color);
        fail_if(gst_structure_has_field(st, "other"), "label-colors=%s was refused", t.value);
        gst_structure_free(st);
        fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "label-colors=%s: a warning", t.value);
    }
    /* An empty "colors" clears them. */
    gst_util_set_object_arg(G_OBJECT(e), "label-colors", "colors");
    GstStructure* cleared = nullptr;
    g_object_get(e, "label-colors", &cleared, nullptr);
    fail_unless(cleared && gst_structure_n_fields(cleared) == 0, "label-colors=colors did not clear the colours");
    gst_structure_free(cleared);
    fail_if(pop_message(bus, GST_MESSAGE_WARNING).found, "label-colors=colors: a warning");
    for (const char* refused :
         {"colors,face=(string)-1", "colors,face=(string)\"-18446744073709551615\"", "colors,face=(string)\"+5\"",
          "colors,face=(string)\" 255\"", "colors,face=(string)\"0xff0000ffjunk\"", "colors,face=(string)0x",
          "colors,face=(string)0x1ffffffff", "colors,face=(gint64)-1", "colors,face=1.5",
          "colors,face=(string)\"#ff0000\"", "face:0xff0000ff"}) {
        gst_util_set_object_arg(G_OBJECT(e), "label-colors", "colors,other=(uint)7");
        gst_util_set_object_arg(G_OBJECT(e), "label-colors", refused);
        GstStructure* st = nullptr;
        g_object_get(e, "label-colors", &st, nullptr);
        fail_unless(st && gst_structure_has_field(st, "other") && !gst_structure_has_field(st, "face"),
                    "label-colors=%s was taken", refused);
        gst_structure_free(st);
        /* Refused on the bus too, as roi and label are. */
        const ErrorInfo warning = pop_message(bus, GST_MESSAGE_WARNING);
        fail_unless(warning.found && contains(warning.message, "refused") && contains(warning.message, "face"),
                    "label-colors=%s: no warning on the bus (%s)", refused, warning.message.c_str());
    }
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
}
GST_END_TEST;

/* Runs one frame through a new element with `props` and compares its metas
 * with `want`. */
static void check_props(const Props& props, const GrayImage& img, const std::vector<Box>& want, const char* what,
                        GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8)
{
    Props all = props;
    all.emplace_back("draw", "none");
    GstHarness* h = harness_with(all);
    GstBus* bus = attach_bus(h);
    set_caps(h, format, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, format, 0), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    const ErrorInfo err = pop_error(bus);
    fail_if(err.found, "%s: error %s", what, err.text().c_str());
    fail_unless_equals_int(out.size(), 1);
    CHECK_BOXES(out[0], want, what);
    unref_all(out);
    teardown_with_bus(h, bus);
}

GST_START_TEST(test_prop_classifier_files)
{
    const GrayImage& img = astronaut();
    /* A converted WaldBoost XML file from the build (non-square window). */
    const std::string profile = converted_classifier("lbpcascade_profileface");
    fail_unless(file_exists(profile), "%s is missing", profile.c_str());
    const Classifier pc = waldboost::load_classifier_file(profile);
    std::vector<Box> want = expected_boxes(core(img, params_mn(0), pc), pc.label);
    fail_unless(!want.empty() && pc.label == "profile-face");
    check_props({{"classifier", profile}, {"min-neighbors", "0"}}, img, want, "converted profile-face classifier");

    /* An OpenCV LBP cascade, read directly. */
    const std::string improved = cascade_path("lbpcascade_frontalface_improved");
    fail_unless(file_exists(improved), "%s is missing", improved.c_str());
    const Classifier ic = waldboost::load_classifier_file(improved);
    want = expected_boxes(core(img, DetectParams{}, ic), ic.label);
    fail_unless(!want.empty());
    fail_if(want == expected_boxes(core(img), ic.label), "the improved cascade should differ from the default");
    check_props({{"classifier", improved}}, img, want, "OpenCV lbpcascade_frontalface_improved.xml");

    /* The same default classifier as a file equals the embedded one. */
    const std::string frontal = cascade_path("lbpcascade_frontalface");
    const Classifier fc = waldboost::load_classifier_file(frontal);
    const std::vector<Box> from_file = expected_boxes(core(img, DetectParams{}, fc), fc.label);
    fail_unless(from_file == expected_boxes(core(img), fc.label));
    check_props({{"classifier", frontal}}, img, from_file, "OpenCV lbpcascade_frontalface.xml");
}
GST_END_TEST;

/* The same cascade gives the same label embedded and read from OpenCV's
 * file (before, "face" and "frontalface"): Debian's cascades carry their
 * converted copies' labels. */
GST_START_TEST(test_prop_classifier_file_labels)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> embedded = expected_boxes(core(img), "face");
    fail_unless(!embedded.empty());
    check_props({{"classifier", cascade_path("lbpcascade_frontalface")}}, img, embedded,
                "lbpcascade_frontalface.xml labels as the embedded classifier");
    const Classifier improved = waldboost::load_classifier_file(cascade_path("lbpcascade_frontalface_improved"));
    check_props({{"classifier", cascade_path("lbpcascade_frontalface_improved")}}, img,
                expected_boxes(core(img, DetectParams{}, improved), "face"),
                "lbpcascade_frontalface_improved.xml labels as its converted copy");
    const Classifier profile = waldboost::load_classifier_file(converted_classifier("lbpcascade_profileface"));
    check_props({{"classifier", cascade_path("lbpcascade_profileface")}, {"min-neighbors", "0"}}, img,
                expected_boxes(core(img, params_mn(0), profile), profile.label),
                "lbpcascade_profileface.xml labels as its converted copy");
    fail_unless_equals_string(profile.label.c_str(), "profile-face");
}
GST_END_TEST;

GST_START_TEST(test_prop_label_and_device)
{
    const GrayImage img = face_frame(1);
    const std::vector<Detection> d = core(img);
    fail_unless(!d.empty());
    check_props({{"label", "person"}}, img, expected_boxes(d, "person"), "label=person");
    check_props({{"label", ""}}, img, expected_boxes(d, "face"), "label empty");
    if (cpu_device_case(__func__))
        check_props({{"device", "cpu"}}, img, expected_boxes(d, "face"), "device=cpu");
}
GST_END_TEST;

/* Each detection parameter changes the metas exactly as the core with the
 * same DetectParams. */
GST_START_TEST(test_prop_detect_params)
{
    const GrayImage& img = astronaut();
    const Classifier& dc = waldboost::default_classifier();
    const Classifier pc = waldboost::load_classifier_file(converted_classifier("lbpcascade_profileface"));
    struct Case {
        Props props;
        DetectParams params;
        const Classifier* classifier;
        Props baseline_props; /* what it must differ from */
    };
    std::vector<Case> cases;
    auto add = [&](Props props, auto&& edit, const Classifier* c = nullptr) {
        Case cs;
        cs.props = std::move(props);
        edit(cs.params);
        cs.classifier = c ? c : &dc;
        cases.push_back(cs);
    };
    add({{"scale-factor", "1.25"}}, [](DetectParams& p) {
        p.scale_factor = 1.25;
    });
    add({{"scale-factor", "1.05"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.scale_factor = 1.05;
        p.min_neighbors = 0;
    });
    add({{"min-size", "110"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.min_size = size_for_width(dc, 110);
        p.min_neighbors = 0;
    });
    add({{"max-size", "60"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.max_size = size_for_width(dc, 60);
        p.min_neighbors = 0;
    });
    add({{"stride", "3"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.stride = 3;
        p.min_neighbors = 0;
    });
    add({{"stride", "1"}}, [](DetectParams& p) {
        p.stride = 1;
    });
    add({{"min-neighbors", "0"}}, [](DetectParams& p) {
        p.min_neighbors = 0;
    });
    add({{"min-neighbors", "20"}}, [](DetectParams& p) {
        p.min_neighbors = 20;
    });
    add({{"grouping", "nms"}}, [](DetectParams& p) {
        p.grouping = waldboost::Grouping::Nms;
    });
    add({{"grouping", "nms"}, {"nms-iou", "0.05"}, {"min-neighbors", "0"}}, [](DetectParams& p) {
        p.grouping = waldboost::Grouping::Nms;
        p.nms_iou = 0.05f;
        p.min_neighbors = 0;
    });
    add({{"grouping", "none"}}, [](DetectParams& p) {
        p.grouping = waldboost::Grouping::None;
    });
    add({{"threshold", "1.5"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.final_threshold = static_cast<float>(dc.final_threshold + 1.5);
        p.min_neighbors = 0;
    });
    add({{"threshold", "0.4"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.final_threshold = static_cast<float>(dc.final_threshold + 0.4);
        p.min_neighbors = 0;
    });
    /* min-size with a non-square window: the height follows 20x34. */
    const std::string profile = converted_classifier("lbpcascade_profileface");
    add(
        {{"classifier", profile}, {"min-size", "50"}, {"min-neighbors", "0"}},
        [&](DetectParams& p) {
            p.min_size = size_for_width(pc, 50);
            p.min_neighbors = 0;
        },
        &pc);
    fail_unless(size_for_width(pc, 50).height == 85);
    /* min-height instead of the window's: OpenCV's minSize of 50x100, and
     * a height alone (its width is then any). */
    add(
        {{"classifier", profile}, {"min-size", "50"}, {"min-height", "100"}, {"min-neighbors", "0"}},
        [&](DetectParams& p) {
            p.min_size = {50, 100};
            p.min_neighbors = 0;
        },
        &pc);
    add({{"min-height", "110"}, {"min-neighbors", "0"}}, [&](DetectParams& p) {
        p.min_size = {0, 110};
        p.min_neighbors = 0;
    });

    for (const Case& cs : cases) {
        std::string what;
        for (const auto& [k, v] : cs.props)
            what += k + "=" + (k == "classifier" ? "profileface" : v) + " ";
        const std::vector<Box> want = expected_boxes(core(img, cs.params, *cs.classifier), cs.classifier->label);
        /* The setting must matter, or the test would not see it ignored. */
        DetectParams base;
        base.min_neighbors = cs.params.min_neighbors != 3 && cs.props.size() > 1 ? cs.params.min_neighbors : 3;
        const std::vector<Box> baseline = expected_boxes(core(img, base, *cs.classifier), cs.classifier->label);
        fail_if(want == baseline, "%s: the core gives the same result as without it; pick another value", what.c_str());
        check_props(cs.props, img, want, what.c_str());
    }
}
GST_END_TEST;

/* min-confidence drops the detections below it: the reference's detections
 * filtered here by their confidence. */
GST_START_TEST(test_prop_min_confidence)
{
    const GrayImage img = waldboost::tools::load_gray_image(test_data("messi5.jpg"));
    const std::vector<Detection> all = core(img);
    std::vector<Detection> sure;
    for (const Detection& d : all)
        if (d.confidence >= 0.7f)
            sure.push_back(d);
    /* Three faces at 0.47, 0.68 and 0.75 with the embedded classifier. */
    fail_unless(!sure.empty() && sure.size() < all.size(), "pick another cut: %zu of %zu kept", sure.size(),
                all.size());
    check_props({{"min-confidence", "0.7"}}, img, expected_boxes(sure, "face"), "min-confidence=0.7");
    check_props({{"min-confidence", "0"}}, img, expected_boxes(all, "face"), "min-confidence=0");
}
GST_END_TEST;

static std::vector<Box> core_in_roi(const GrayImage& img, int x, int y, int w, int h)
{
    const int rx = std::clamp(x, 0, img.width), ry = std::clamp(y, 0, img.height);
    const int rw = std::clamp(w, 0, img.width - rx), rh = std::clamp(h, 0, img.height - ry);
    const Classifier& c = waldboost::default_classifier();
    if (rw < c.window_width || rh < c.window_height)
        return {};
    const GrayView view{img.pixels.data() + static_cast<size_t>(ry) * img.width + rx, rw, rh,
                        static_cast<size_t>(img.width)};
    return expected_boxes(core(view), "face", rx, ry);
}

GST_START_TEST(test_prop_roi)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> full = expected_boxes(core(img), "face");
    struct R {
        int x, y, w, h;
    };
    const R rois[] = {{100, 20, 250, 200},
                      {150, 40, 150, 150},
                      {0, 0, 512, 512},
                      {400, 300, 500, 500} /* clamped to the frame */,
                      {0, 200, 512, 312} /* no face */,
                      {10, 10, 20, 20} /* smaller than the window */};
    bool some_differs = false;
    for (const R& r : rois) {
        const std::vector<Box> want = core_in_roi(img, r.x, r.y, r.w, r.h);
        some_differs |= want != full;
        char value[80];
        g_snprintf(value, sizeof value, "<%d, %d, %d, %d>", r.x, r.y, r.w, r.h);
        check_props({{"roi", value}}, img, want, (std::string("roi=") + value).c_str());
        for (const Box& b : want)
            fail_unless(b.x >= r.x && b.y >= r.y && b.x + b.w <= r.x + r.w && b.y + b.h <= r.y + r.h);
    }
    fail_unless(some_differs);
    /* The roi applies to the I420 luma plane the same way. */
    check_props({{"roi", "<100, 20, 250, 200>"}}, img, core_in_roi(img, 100, 20, 250, 200), "roi on I420",
                GST_VIDEO_FORMAT_I420);
}
GST_END_TEST;

/* The reduction parameters change how the device works, not the results. */
GST_START_TEST(test_prop_reduction)
{
    const GrayImage& img = astronaut();
    const std::vector<Box> want = expected_boxes(core(img), "face");
    const std::vector<Box> want0 = expected_boxes(core(img, params_mn(0)), "face");
    const Props sets[] = {
        {{"group-size", "32"},
         {"step1-unsync", "2"},
         {"step1-divisor", "4"},
         {"step2-unsync", "4"},
         {"step2-divisor", "2"},
         {"step2-repeats", "1"},
         {"step4-group-size", "8"}},
        {{"group-size", "8"}, {"step1-unsync", "0"}, {"step2-repeats", "0"}, {"step4-group-size", "4"}},
        /* The same through the reduction property, and mixed with an alias. */
        {{"reduction", "reduction, group-size=(int)32, step1-unsync=(int)2, step1-divisor=(int)4, "
                       "step2-unsync=(int)4, step2-divisor=(int)2, step2-repeats=(int)1, step4-group-size=(int)8"}},
        {{"reduction", "reduction, group-size=64, step1-unsync=0, step2-repeats=0"}, {"step4-group-size", "4"}},
    };
    for (const Props& s : sets) {
        check_props(s, img, want, "reduction overrides");
        Props s0 = s;
        s0.emplace_back("min-neighbors", "0");
        check_props(s0, img, want0, "reduction overrides, min-neighbors=0");
    }
}
GST_END_TEST;

/* Collects the waldboostdetect category's warnings in the debug log while
 * alive (the element reports refused settings there; GstCheck makes a
 * g_warning fatal, so a refusal must not use one). */
class DebugWarnings {
public:
    DebugWarnings()
    {
        GSList* all = gst_debug_get_all_categories();
        for (GSList* l = all; l; l = l->next)
            if (g_str_equal(gst_debug_category_get_name(static_cast<GstDebugCategory*>(l->data)), "waldboostdetect"))
                category_ = static_cast<GstDebugCategory*>(l->data);
        g_slist_free(all);
        fail_unless(category_ != nullptr, "no waldboostdetect debug category (create an element first)");
        before_ = gst_debug_category_get_threshold(category_);
        gst_debug_category_set_threshold(category_, std::max(before_, GST_LEVEL_WARNING));
        gst_debug_add_log_function(&DebugWarnings::log, this, nullptr);
    }
    ~DebugWarnings()
    {
        gst_debug_remove_log_function_by_data(this);
        gst_debug_category_set_threshold(category_, before_);
    }
    /* The warnings since the last call, one per line. */
    std::string take()
    {
        std::lock_guard<std::mutex> guard(lock_);
        std::string text;
        text.swap(text_);
        return text;
    }

private:
    static void log(GstDebugCategory* category, GstDebugLevel level, const gchar*, const gchar*, gint, GObject*,
                    GstDebugMessage* message, gpointer data)
    {
        auto* self = static_cast<DebugWarnings*>(data);
        if (category != self->category_ || level != GST_LEVEL_WARNING)
            return;
        std::lock_guard<std::mutex> guard(self->lock_);
        self->text_ += std::string(gst_debug_message_get(message)) + "\n";
    }
    GstDebugCategory* category_ = nullptr;
    GstDebugLevel before_ = GST_LEVEL_NONE;
    std::mutex lock_;
    std::string text_;
};

/* `reduction` as text ("" for NULL). */
static std::string reduction_text(GstElement* e)
{
    GstStructure* st = nullptr;
    g_object_get(e, "reduction", &st, nullptr);
    if (!st)
        return "";
    gchar* text = gst_structure_to_string(st);
    std::string out = text;
    g_free(text);
    gst_structure_free(st);
    return out;
}

#define CHECK_REDUCTION(e, want)                                                                                    \
    do {                                                                                                            \
        const std::string got_ = reduction_text(e);                                                                 \
        fail_unless(got_ == (want), "reduction reads \"%s\", not \"%s\"", got_.c_str(), std::string(want).c_str()); \
    } while (0)

/* The reduction property and the seven aliases read and write the same
 * setting; a field the table does not know, or a value out of its range, is
 * refused with a warning in the debug log and changes nothing. */
GST_START_TEST(test_prop_reduction_structure)
{
    GstElement* e = make_element({});
    DebugWarnings warnings;
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "reduction");
    fail_unless(spec && G_PARAM_SPEC_VALUE_TYPE(spec) == GST_TYPE_STRUCTURE, "reduction is not a GstStructure");
    fail_unless(spec->flags & GST_PARAM_MUTABLE_PLAYING, "reduction is not mutable in PLAYING");
    CHECK_REDUCTION(e, ""); /* NULL: nothing set */

    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction, group-size=(int)128, step2-unsync=(int)64");
    fail_unless_equals_int(int_property(e, "group-size"), 128);
    fail_unless_equals_int(int_property(e, "step2-unsync"), 64);
    fail_unless_equals_int(int_property(e, "step1-unsync"), -1);
    fail_unless_equals_int(int_property(e, "step1-divisor"), -1);
    fail_unless_equals_int(int_property(e, "step4-group-size"), 0);
    CHECK_REDUCTION(e, "reduction, group-size=(int)128, step2-unsync=(int)64;");

    /* Aliases write the same fields. */
    g_object_set(e, "step2-repeats", 2, "step1-unsync", 0, nullptr);
    CHECK_REDUCTION(e, "reduction, group-size=(int)128, step1-unsync=(int)0, step2-unsync=(int)64, "
                       "step2-repeats=(int)2;");
    g_object_set(e, "group-size", 0, "step1-unsync", -1, nullptr);
    CHECK_REDUCTION(e, "reduction, step2-unsync=(int)64, step2-repeats=(int)2;");
    /* 0 is "not set" for a divisor, as it was. */
    g_object_set(e, "step1-divisor", 0, nullptr);
    fail_unless_equals_int(int_property(e, "step1-divisor"), -1);
    CHECK_REDUCTION(e, "reduction, step2-unsync=(int)64, step2-repeats=(int)2;");
    fail_unless(warnings.take().empty());

    /* Refused: the previous setting stays, the debug log says why. */
    const std::string before = reduction_text(e);
    struct Bad {
        const char* text;
        const char* why;
    };
    const Bad bad[] = {
        {"reduction, group-sise=(int)128", "no field \"group-sise\""},
        {"reduction, group-size=(int)128, step2-repeats=(int)17", "step2-repeats"},
        {"reduction, step2-unsync=(int)-1", "step2-unsync"},
        {"reduction, group-size=(int)100", "power of two"},
        {"reduction, step4-group-size=(int)8192", "step4-group-size"},
        {"reduction, step1-divisor=(int)0", "step1-divisor"},
        {"reduction, group-size=(string)big", "group-size must be an int"},
    };
    for (const Bad& b : bad) {
        GstStructure* st = gst_structure_from_string(b.text, nullptr);
        fail_unless(st != nullptr, "%s does not parse", b.text);
        g_object_set(e, "reduction", st, nullptr);
        gst_structure_free(st);
        fail_unless(reduction_text(e) == before, "%s changed the setting to %s", b.text, reduction_text(e).c_str());
        const std::string log = warnings.take();
        fail_unless(contains(log, "refused") && contains(log, b.why), "%s: the debug log says \"%s\"", b.text,
                    log.c_str());
    }
    fail_unless_equals_int(int_property(e, "step2-repeats"), 2);

    /* Setting it replaces every field; an empty structure or NULL clears them. */
    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction, step4-group-size=(int)16");
    CHECK_REDUCTION(e, "reduction, step4-group-size=(int)16;");
    fail_unless_equals_int(int_property(e, "step2-repeats"), -1);
    gst_util_set_object_arg(G_OBJECT(e), "reduction", "reduction");
    CHECK_REDUCTION(e, "");
    g_object_set(e, "step4-group-size", 16, nullptr);
    g_object_set(e, "reduction", nullptr, nullptr);
    fail_unless_equals_int(int_property(e, "step4-group-size"), 0);
    CHECK_REDUCTION(e, "");
    fail_unless(warnings.take().empty());
    gst_object_unref(e);
}
GST_END_TEST;

GST_START_TEST(test_prop_stats)
{
    GstHarness* h = harness_with({{"draw", "none"}, {"max-inflight", "3"}, {"profiling", "true"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    const int N = 5;
    const gint64 started_us = g_get_monotonic_time();
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    const double wall_ms = static_cast<double>(g_get_monotonic_time() - started_us) * 1e-3;
    fail_unless_equals_int(out.size(), N);
    guint64 metas = 0;
    for (GstBuffer* b : out)
        metas += roi_boxes(b).size();
    GstStructure* st = nullptr;
    g_object_get(h->element, "stats", &st, nullptr);
    fail_unless(st && gst_structure_has_name(st, "waldboost-stats"));
    guint64 frames = 0, detections = 0, windows = 0, discarded = 99;
    double device_ms = -1, weak = -1;
    fail_unless(gst_structure_get_uint64(st, "frames", &frames));
    fail_unless(gst_structure_get_uint64(st, "detections", &detections));
    fail_unless(gst_structure_get_uint64(st, "windows", &windows));
    fail_unless(gst_structure_get_uint64(st, "discarded", &discarded));
    fail_unless(gst_structure_get_double(st, "device-ms", &device_ms));
    fail_unless(gst_structure_get_double(st, "weak-per-window", &weak));
    fail_unless_equals_uint64(frames, N);
    fail_unless_equals_uint64(detections, metas);
    fail_unless_equals_uint64(discarded, 0);
    fail_unless(windows > 0 && device_ms > 0 && weak >= 1.0, "windows %" G_GUINT64_FORMAT ", device-ms %f, weak %f",
                windows, device_ms, weak);
    /* The device's kernel time (all instances): some, while the engine runs. */
    double busy_ms = -1;
    fail_unless(gst_structure_get_double(st, "device-busy-ms", &busy_ms));
    fail_unless(busy_ms > 0, "device-busy-ms %f", busy_ms);
    /* Host (CPU) time: every frame's adds up (so more than the last one's),
     * and it is measured in the streaming thread and the worker, each at
     * most the whole run. */
    double host_ms = -1, host_total_ms = -1;
    fail_unless(gst_structure_get_double(st, "host-ms", &host_ms));
    fail_unless(gst_structure_get_double(st, "host-total-ms", &host_total_ms));
    fail_unless(host_ms > 0 && host_total_ms > host_ms && host_total_ms <= 2 * wall_ms,
                "host-ms %f, host-total-ms %f, run %f ms", host_ms, host_total_ms, wall_ms);
    /* The reduction reports its lists (step 1's, and one per step-2 launch:
     * none when the last list was short); the row scan (CPU devices) has
     * none. */
    const GValue* cand = gst_structure_get_value(st, "candidates");
    const gchar* scan = gst_structure_get_string(st, "scan");
    fail_unless(scan && cand && GST_VALUE_HOLDS_ARRAY(cand));
    if (g_str_equal(scan, "reduction"))
        fail_unless(gst_value_array_get_size(cand) >= 1);
    else
        fail_unless(g_str_equal(scan, "rows") && gst_value_array_get_size(cand) == 0, "scan %s", scan);
    gst_structure_free(st);
    unref_all(out);
    gst_harness_teardown(h);

    /* Without profiling (the default): the same detections, no device time. */
    h = harness_with({{"draw", "none"}, {"max-inflight", "3"}});
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    for (int k = 0; k < N; ++k)
        fail_unless_equals_int(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
    push_eos(h);
    out = pull_all(h);
    fail_unless_equals_int(out.size(), N);
    for (int k = 0; k < N; ++k)
        CHECK_BOXES(out[k], expected_boxes(core(face_frame(k)), "face"), "profiling=false frame " + std::to_string(k));
    g_object_get(h->element, "stats", &st, nullptr);
    fail_unless(gst_structure_get_double(st, "device-ms", &device_ms));
    fail_unless(device_ms == 0, "device-ms %f without profiling", device_ms);
    gst_structure_free(st);
    unref_all(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* OpenCV's Haar cascades run in the element as in the core's reference
 * (itself identical to OpenCV, test_opencv_agreement.cpp): facedetect's
 * default cascade, and one with trees and tilted features. */
GST_START_TEST(test_prop_haar_cascades)
{
    const GrayImage& img = astronaut();
    for (const char* stem : {"haarcascade_frontalface_default", "haarcascade_eye_tree_eyeglasses"}) {
        const std::string haar = haar_cascade(stem);
        fail_unless(file_exists(haar), "%s is missing (Debian's opencv-data)", haar.c_str());
        const Classifier hc = waldboost::load_classifier_file(haar);
        const std::vector<Box> want = expected_boxes(core(img, DetectParams{}, hc), hc.label);
        fail_unless(!want.empty(), "%s finds nothing in the astronaut photo", stem);
        check_props({{"classifier", haar}}, img, want, stem);
    }
}
GST_END_TEST;

/* metadata: where the element has GstAnalytics (GStreamer 1.24 on) roi,
 * analytics and both, default both; a build without it has roi alone,
 * and refuses the others. */
GST_START_TEST(test_property_metadata_values)
{
    GstElement* e = make_element({});
    GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), "metadata");
    fail_unless(G_IS_PARAM_SPEC_ENUM(spec), "no metadata enum property");
    GEnumClass* values = G_PARAM_SPEC_ENUM(spec)->enum_class;
    const char* const nicks[] = {"roi", "analytics", "both"};
    const guint count = WALDBOOST_HAVE_GST_ANALYTICS ? 3 : 1;
    fail_unless_equals_int(values->n_values, count);
    for (guint v = 0; v < count; ++v) {
        const GEnumValue* value = g_enum_get_value(values, static_cast<gint>(v));
        fail_unless(value != nullptr && std::strcmp(value->value_nick, nicks[v]) == 0,
                    "metadata value %u should be \"%s\"", v, nicks[v]);
    }
    fail_unless_equals_string(g_enum_get_value(values, G_PARAM_SPEC_ENUM(spec)->default_value)->value_nick,
                              WALDBOOST_HAVE_GST_ANALYTICS ? "both" : "roi");
    for (const char* nick : {"analytics", "both", "roi"}) {
        gst_util_set_object_arg(G_OBJECT(e), "metadata", "roi");
        gst_util_set_object_arg(G_OBJECT(e), "metadata", nick);
        gint now = -1;
        g_object_get(e, "metadata", &now, nullptr);
        const bool accepted = WALDBOOST_HAVE_GST_ANALYTICS || std::strcmp(nick, "roi") == 0;
        fail_unless_equals_string(g_enum_get_value(values, now)->value_nick, accepted ? nick : "roi");
    }
    gst_object_unref(e);
}
GST_END_TEST;

/* gst-launch sets properties while it parses the line, before the element
 * has a bus: a refused roi or label-colors warned in the debug log only,
 * and the pipeline ran without a word. The warnings now reach the bus when
 * the element starts, once each. */
GST_START_TEST(test_property_refusals_before_the_bus_warn_at_start)
{
    GError* error = nullptr;
    GstElement* pipeline =
        gst_parse_launch("videotestsrc num-buffers=2 ! video/x-raw,format=GRAY8,width=64,height=48 ! "
                         "waldboostdetect name=detector roi=\"<1, 2, 3>\" label-colors=\"colors,face=(string)-1\" "
                         "! fakesink",
                         &error);
    fail_unless(pipeline && !error, "%s", error ? error->message : "no pipeline");
    GstBus* bus = gst_element_get_bus(pipeline);
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    int roi = 0, label_colors = 0, others = 0;
    for (;;) {
        GstMessage* m = gst_bus_timed_pop_filtered(
            bus, 30 * GST_SECOND,
            static_cast<GstMessageType>(GST_MESSAGE_WARNING | GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
        fail_unless(m != nullptr, "neither EOS nor an error within 30 s");
        const GstMessageType type = GST_MESSAGE_TYPE(m);
        if (type == GST_MESSAGE_WARNING) {
            GError* e = nullptr;
            gst_message_parse_warning(m, &e, nullptr);
            const std::string text = e->message;
            const bool ours =
                g_strcmp0(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)), "detector") == 0 && contains(text, "refused");
            roi += ours && contains(text, "roi <1, 2, 3>");
            label_colors += ours && contains(text, "label-colors") && contains(text, "face");
            others += !ours;
            g_error_free(e);
        }
        fail_if(type == GST_MESSAGE_ERROR, "the pipeline failed");
        gst_message_unref(m);
        if (type != GST_MESSAGE_WARNING)
            break;
    }
    fail_unless(roi == 1 && label_colors == 1 && others == 0,
                "%d roi warnings, %d label-colors warnings and %d others on the bus (want 1, 1, 0)", roi, label_colors,
                others);
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
}
GST_END_TEST;

/* A part's label is its cascade's ("eye" for haarcascade_eye.xml), and
 * label-colors keys on labels: the blurbs must name that label, or their
 * example colours nothing. They said "eyes". */
GST_START_TEST(test_property_blurbs_name_the_parts_labels)
{
    const std::string haar = haar_cascade("haarcascade_eye");
    fail_unless(file_exists(haar), "%s is missing (Debian's opencv-data)", haar.c_str());
    const std::string label = waldboost::load_classifier_file(haar).label;
    GstElement* e = make_element({});
    GObjectClass* klass = G_OBJECT_GET_CLASS(e);
    const std::string eyes = g_param_spec_get_blurb(g_object_class_find_property(klass, "eyes-profile"));
    const std::string colors = g_param_spec_get_blurb(g_object_class_find_property(klass, "label-colors"));
    fail_unless(contains(eyes, "\"" + label + "\""), "eyes-profile's blurb does not name the label \"%s\": %s",
                label.c_str(), eyes.c_str());
    fail_unless(contains(colors, "," + label + "=(uint)"),
                "label-colors' example does not colour the eye cascade's label \"%s\": %s", label.c_str(),
                colors.c_str());
    gst_object_unref(e);
}
GST_END_TEST;

/* Settings under which no window size is searched are accepted, as
 * detectMultiScale accepts them, with one warning that says why; settings
 * that leave a window size warn nothing. Frames of 200x160, the embedded
 * classifier's window 24x24. After the cause goes away and comes back, it
 * is said again. */
GST_START_TEST(test_property_nothing_searched_warns_once)
{
    const struct {
        Props props;
        int width, height;
        const char* why; /* nullptr: no warning */
    } cases[] = {
        {{{"min-size", "200"}, {"max-size", "100"}}, 200, 160, "min-size 200 is above max-size 100"},
        /* Windows of 24 x 1.1^k: 147 fits in 160, the next, 161, does not. */
        {{{"min-size", "160"}},
         200,
         160,
         "min-size 160 leaves no window size of the pyramid (scale-factor 1.1) that fits in the frame (200x160)"},
        {{{"min-size", "140"}}, 200, 160, nullptr},
        {{{"min-height", "161"}},
         200,
         160,
         "min-height 161 leaves no window size of the pyramid (scale-factor 1.1) that fits in the frame (200x160)"},
        {{{"min-size", "60"}, {"min-height", "161"}},
         200,
         160,
         "min-size 60 and min-height 161 leave no window size of the pyramid (scale-factor 1.1) that fits in the "
         "frame (200x160)"},
        {{{"min-height", "147"}}, 200, 160, nullptr},
        {{{"roi", "<190,140,50,50>"}},
         200,
         160,
         "roi's area in the frame (10x20) is smaller than the classifier's window"},
        {{{"roi", "<170,130,50,50>"}}, 200, 160, nullptr},
        {{{"max-size", "23"}}, 200, 160, "max-size 23 is below the classifier's window (24x24)"},
        {{{"max-size", "24"}}, 200, 160, nullptr},
        {{}, 20, 160, "the frame (20x160) is smaller than the classifier's window (24x24)"},
        {{{"min-size", "200"}, {"max-size", "100"}, {"inference-region", "roi-list"}},
         200,
         160,
         "min-size 200 is above max-size 100"},
        {{{"min-size", "160"}, {"inference-region", "roi-list"}}, 200, 160, nullptr},
    };
    for (const auto& c : cases) {
        std::string what;
        for (const auto& [name, value] : c.props)
            what += name + "=" + value + " ";
        what += std::to_string(c.width) + "x" + std::to_string(c.height);
        GstHarness* h = harness_with(c.props);
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, c.width, c.height);
        for (int k = 0; k < 3; ++k)
            fail_unless_equals_int(push_frame(h, synthetic(c.width, c.height, k), GST_VIDEO_FORMAT_GRAY8, k),
                                   GST_FLOW_OK);
        std::vector<std::string> found;
        for (const ErrorInfo& w : drain_bus(bus).warnings)
            if (contains(w.message, "Nothing can be detected"))
                found.push_back(w.message);
        if (!c.why) {
            fail_unless(found.empty(), "%s: %s", what.c_str(), found.empty() ? "" : found[0].c_str());
        } else {
            fail_unless_equals_int(found.size(), 1);
            fail_unless(contains(found[0], c.why), "%s: %s", what.c_str(), found[0].c_str());
            /* Gone (min-size and min-height 0, or roi-list's own), then back:
             * said again. */
            g_object_set(h->element, "min-size", 0, "min-height", 0, "max-size", 0, nullptr);
            gst_util_set_object_arg(G_OBJECT(h->element), "roi", "<>");
            fail_unless_equals_int(push_frame(h, synthetic(c.width, c.height, 3), GST_VIDEO_FORMAT_GRAY8, 3),
                                   GST_FLOW_OK);
            for (const auto& [name, value] : c.props)
                gst_util_set_object_arg(G_OBJECT(h->element), name.c_str(), value.c_str());
            fail_unless_equals_int(push_frame(h, synthetic(c.width, c.height, 4), GST_VIDEO_FORMAT_GRAY8, 4),
                                   GST_FLOW_OK);
            size_t again = 0;
            for (const ErrorInfo& w : drain_bus(bus).warnings)
                again += contains(w.message, c.why) ? 1 : 0;
            if (c.width >= 24) /* a frame smaller than the window stays one */
                fail_unless_equals_int(again, 1);
        }
        teardown_with_bus(h, bus);
    }
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("properties");
    tcase_add_test(tc, test_property_refusals_before_the_bus_warn_at_start);
    tcase_add_test(tc, test_property_blurbs_name_the_parts_labels);
    tcase_add_test(tc, test_property_defaults);
    tcase_add_test(tc, test_property_metadata_values);
    tcase_add_test(tc, test_property_ranges);
    tcase_add_test(tc, test_property_roi_refused);
    tcase_add_test(tc, test_property_label_refused);
    tcase_add_test(tc, test_property_label_colors_values);
    tcase_add_test(tc, test_prop_classifier_files);
    tcase_add_test(tc, test_prop_haar_cascades);
    tcase_add_test(tc, test_prop_classifier_file_labels);
    tcase_add_test(tc, test_prop_label_and_device);
    tcase_add_test(tc, test_prop_detect_params);
    tcase_add_test(tc, test_prop_min_confidence);
    tcase_add_test(tc, test_prop_roi);
    tcase_add_test(tc, test_prop_reduction);
    tcase_add_test(tc, test_prop_reduction_structure);
    tcase_add_test(tc, test_prop_stats);
    tcase_add_test(tc, test_property_nothing_searched_warns_once);
    return tc;
}
