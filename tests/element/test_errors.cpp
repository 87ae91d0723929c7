/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, errors: classifier, device and settings errors and how they
 * are reported (GError kinds, escaped paths), OpenCL faults at start and
 * while streaming (each in element-fault-helper, run_fault_helper()),
 * buffers before caps, short buffers, video metas beyond the buffer, and
 * changes while playing that cannot be applied. Needs no test images.
 */
#include <string>
#include <vector>

#include <glib/gstdio.h>
#include <gst/video/gstvideometa.h>
#include <gst/video/video-overlay-composition.h>
#include <unistd.h>

#include "core/model/classifier_io.h"
#include "core/text.h"
#include "harness.h"

using namespace element_test;

GST_START_TEST(test_error_missing_classifier)
{
    const std::string path = "/nonexistent/waldboost-test/no-such-classifier.xml";
    const ErrorInfo err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR, "domain %s", g_quark_to_string(err.domain));
    fail_unless(contains(err.message, path), "the message does not name the file: %s", err.text().c_str());
}
GST_END_TEST;

/* A missing file that a package installs: the message names the file and
 * says how to get it back (issue 52, a classifier deleted after
 * installation); for any other file it gives no package advice. The
 * folders are where the packages install them (prefix /usr and
 * /usr/local). */
GST_START_TEST(test_error_missing_installed_file_says_how_to_restore)
{
    const struct {
        const char* property;
        const char* path;
        const char* advice; /* nullptr: none */
    } cases[] = {
        {"classifier", "/usr/share/waldboost/classifiers/waldboost-test-removed.xml",
         "apt-get install --reinstall waldboost-classifiers"},
        {"classifier", "/usr/local/share/waldboost/classifiers/waldboost-test-removed.xml",
         "apt-get install --reinstall waldboost-classifiers"},
        {"classifier", "/usr/share/opencv4/haarcascades/waldboost-test-removed.xml",
         "apt-get install --reinstall opencv-data"},
        {"eyes-profile", "/usr/share/opencv4/haarcascades/waldboost-test-removed.xml",
         "apt-get install --reinstall opencv-data"},
        {"classifier", "/nonexistent/share/waldboost/waldboost-test-removed.xml", nullptr},
    };
    for (const auto& c : cases) {
        const ErrorInfo err = start_failure({{c.property, c.path}});
        fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s: %s/%d: %s",
                    c.path, g_quark_to_string(err.domain), err.code, err.text().c_str());
        fail_unless(contains(err.message, c.path), "the message does not name the file: %s", err.message.c_str());
        if (c.advice)
            fail_unless(contains(err.message, c.advice), "no \"%s\" in: %s", c.advice, err.message.c_str());
        else
            fail_if(contains(err.message, "apt-get"), "package advice for another file: %s", err.message.c_str());
    }
}
GST_END_TEST;

/* A cascade named by its file name alone (classifier=haarcascade_eye.xml,
 * as OpenCV's samples name them) is read from the current folder: the
 * error gives the whole path of Debian's file of that name, with or
 * without ".xml"; no path for a name with a folder or one that is nowhere.
 * Where opencv-data is not installed (the GPU machine) there is no path
 * to give, and none is. */
GST_START_TEST(test_error_bare_name_says_where_it_is)
{
    const std::string debian = "/usr/share/opencv4/haarcascades/haarcascade_eye.xml";
    const bool installed = g_file_test(debian.c_str(), G_FILE_TEST_IS_REGULAR);
    const struct {
        const char* property;
        const char* path;
        bool hint;
    } cases[] = {
        {"classifier", "haarcascade_eye.xml", true},      {"classifier", "haarcascade_eye", true},
        {"eyes-profile", "haarcascade_eye.xml", true},    {"classifier", "waldboost-test-nowhere.xml", false},
        {"classifier", "sub/haarcascade_eye.xml", false},
    };
    for (const auto& c : cases) {
        const ErrorInfo err = start_failure({{c.property, c.path}});
        fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s: %s/%d: %s",
                    c.path, g_quark_to_string(err.domain), err.code, err.text().c_str());
        const bool hinted = contains(err.message, "give the whole path: " + debian);
        fail_unless(hinted == (c.hint && installed), "%s=%s: %s: %s", c.property, c.path,
                    c.hint && installed ? "the whole path expected" : "no path expected", err.message.c_str());
        if (!hinted)
            fail_if(contains(err.message, "whole path"), "a path for %s: %s", c.path, err.message.c_str());
    }
}
GST_END_TEST;

/* The classifier path went into the error verbatim: a newline forged a
 * second line in logs, ESC [31m coloured the terminal, a 3 KB path made a
 * 3 KB message. */
GST_START_TEST(test_error_classifier_path_escaped)
{
    const std::string long_path = "/nonexistent/" + std::string(3000, 'p') + ".xml";
    for (const std::string& path :
         {std::string("a\nb\x1b[31m.xml"), std::string("/tmp/\xc2\x9b\xe2\x80\xae.xml"), long_path}) {
        const ErrorInfo err = start_failure({{"classifier", path}});
        g_print("%s\n", err.message.c_str());
        fail_unless(err.domain == GST_RESOURCE_ERROR, "domain %s", g_quark_to_string(err.domain));
        /* The debug string is GStreamer's "file(line): function (): element:\n"
         * and then the core's message. */
        const size_t newline = err.debug.find('\n');
        const std::string detail = newline == std::string::npos ? err.debug : err.debug.substr(newline + 1);
        for (const std::string* text : {&err.message, &detail}) {
            for (size_t i = 0; i < text->size(); ++i) {
                const unsigned char c = static_cast<unsigned char>((*text)[i]);
                fail_unless(c >= 0x20 && c != 0x7f, "a raw control character (0x%02x) in: %s", c, text->c_str());
                fail_unless(!(c == 0xc2 && i + 1 < text->size() && static_cast<unsigned char>((*text)[i + 1]) <= 0x9f),
                            "a raw C1 control in: %s", text->c_str());
                fail_unless(!(c == 0xe2 && text->compare(i, 3, "\xe2\x80\xae") == 0), "a raw U+202E in: %s",
                            text->c_str());
            }
            fail_unless(text->size() < 1024, "a message of %zu bytes", text->size());
        }
    }
    const ErrorInfo err = start_failure({{"classifier", "a\nb\x1b[31m.xml"}});
    fail_unless(contains(err.message, "a\\x0ab\\x1b[31m.xml"), "the path is not shown escaped: %s",
                err.message.c_str());
}
GST_END_TEST;

GST_START_TEST(test_error_malformed_classifier)
{
    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-bad-XXXXXX.xml", &path, nullptr);
    fail_unless(fd >= 0);
    close(fd);
    const char* bad =
        "<?xml version=\"1.0\"?>\n<WaldBoostClassifier classifierName=\"x\" imageSizeX=\"24\" imageSizeY=\"24\" "
        "type=\"LBP\">\n  <stage negT=\"-1\">\n    <HistogramWeakHypothesis predictionValues=\"1 2 3\">\n";
    fail_unless(g_file_set_contents(path, bad, -1, nullptr));
    const ErrorInfo err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR);
    fail_unless(contains(err.message, path), "the message does not name the file: %s", err.text().c_str());
    fail_unless(!err.debug.empty(), "no detail on what is wrong");
    g_unlink(path);
    g_free(path);
}
GST_END_TEST;

GST_START_TEST(test_error_no_such_device)
{
    const ErrorInfo err = start_failure({{"device", "no-such-device"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, "no-such-device"), "the message does not name the device: %s",
                err.text().c_str());
    /* There are devices: nothing to install. */
    fail_if(contains(err.message, "nstall"), "the message advises installing a driver: %s", err.message.c_str());
}
GST_END_TEST;

/* The device text is the user's: in a message a newline forges a line,
 * ESC starts a terminal sequence and U+202E reorders what is shown. It is
 * shown escaped and cut, as file names are (a 5,450-character message
 * before). */
GST_START_TEST(test_error_device_text_escaped)
{
    const std::string hostile = "gpu\x1b[2J\nERROR: forged line \xe2\x80\xae" + std::string(5000, 'x');
    const auto check = [](const ErrorInfo& m, const char* what) {
        fail_unless(contains(m.message, "gpu\\x1b[2J\\x0aERROR"), "%s: the device is not shown escaped: %s", what,
                    waldboost::printable(m.message, 400).c_str());
        fail_if(contains(m.message, "\n") || contains(m.message, "\x1b") || contains(m.message, "\xe2\x80\xae"),
                "%s: the message carries the device text raw: %s", what, waldboost::printable(m.message, 400).c_str());
        fail_if(contains(m.debug, "\x1b") || contains(m.debug, "\xe2\x80\xae") || contains(m.debug, "\nERROR: forged"),
                "%s: the debug text carries the device text raw: %s", what, waldboost::printable(m.debug, 400).c_str());
        fail_unless(m.message.size() < 1200, "%s: a message of %zu bytes", what, m.message.size());
        fail_unless(m.debug.size() < 2400, "%s: a debug text of %zu bytes", what, m.debug.size());
    };
    /* Alone, and second in a list (the first one's fallback warning names
     * it). */
    for (const std::string& device : {hostile, "nothing-here," + hostile}) {
        GstElement* e = make_element({{"device", device}});
        GstBus* bus = gst_bus_new();
        gst_element_set_bus(e, bus);
        fail_unless_equals_int(gst_element_set_state(e, GST_STATE_PLAYING), GST_STATE_CHANGE_FAILURE);
        const BusLog log = drain_bus(bus);
        fail_unless_equals_int(gst_element_set_state(e, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
        gst_element_set_bus(e, nullptr);
        gst_object_unref(bus);
        gst_object_unref(e);
        fail_unless(log.errors.size() == 1, "%zu errors", log.errors.size());
        fail_unless(log.errors[0].domain == GST_RESOURCE_ERROR && log.errors[0].code == GST_RESOURCE_ERROR_NOT_FOUND,
                    "%s/%d", g_quark_to_string(log.errors[0].domain), log.errors[0].code);
        check(log.errors[0], "the error");
        fail_unless(log.warnings.size() == (device == hostile ? 0u : 1u), "%zu warnings", log.warnings.size());
        for (const ErrorInfo& w : log.warnings)
            check(w, "the fallback warning");
    }
}
GST_END_TEST;

GST_START_TEST(test_error_bad_reduction)
{
    const ErrorInfo err = start_failure({{"group-size", "48"}});
    fail_unless(contains(err.text(), "group size"), "the error does not name the parameter: %s", err.text().c_str());
}
GST_END_TEST;

/* The GError code follows the kind of the core's error, and the main
 * message (what a user sees) carries the core's reason, not only the debug
 * text. */
GST_START_TEST(test_error_kinds_of_classifier_errors)
{
    const std::string missing = "/nonexistent/waldboost-test/no-such-classifier.xml";
    ErrorInfo err = start_failure({{"classifier", missing}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, missing) && contains(err.message, "cannot open"), "no reason: %s",
                err.text().c_str());

    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-bad-XXXXXX.xml", &path, nullptr);
    fail_unless(fd >= 0);
    close(fd);
    fail_unless(
        g_file_set_contents(path, "<?xml version=\"1.0\"?>\n<WaldBoostClassifier imageSizeX=\"24\"", -1, nullptr));
    err = start_failure({{"classifier", path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_OPEN_READ, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, path) && contains(err.message, "not well-formed XML"), "no reason: %s",
                err.text().c_str());
    g_unlink(path);
    g_free(path);

    /* A valid classifier the engine cannot run (responses beyond its fixed
     * point): the setting must change (RESOURCE SETTINGS), and the message
     * says why. */
    Classifier huge;
    huge.label = "huge";
    huge.window_width = huge.window_height = 24;
    waldboost::WeakClassifier w;
    w.feature = waldboost::LbpFeature{0, 0, 1, 1};
    std::get<waldboost::LbpFeature>(w.feature).responses.fill(5e6f);
    huge.weak.push_back(w);
    const std::string huge_path = temporary_classifier_file(huge);
    err = start_failure({{"classifier", huge_path}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_SETTINGS, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, huge_path) && contains(err.message, "too large for the OpenCL engine"),
                "the main message does not say why the engine refuses it: %s", err.text().c_str());
    g_unlink(huge_path.c_str());
}
GST_END_TEST;

GST_START_TEST(test_error_kinds_of_device_and_settings_errors)
{
    ErrorInfo err = start_failure({{"device", "no-such-device"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_NOT_FOUND, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    /* The core's reason (what there is) and where to list the devices; no
     * advice to install a driver when there are devices. */
    fail_unless(contains(err.message, "no OpenCL device") && contains(err.message, "available:") &&
                    contains(err.message, "waldboost-devices"),
                "no reason or hint: %s", err.text().c_str());

    err = start_failure({{"group-size", "48"}});
    fail_unless(err.domain == GST_RESOURCE_ERROR && err.code == GST_RESOURCE_ERROR_SETTINGS, "%s/%d: %s",
                g_quark_to_string(err.domain), err.code, err.text().c_str());
    fail_unless(contains(err.message, "group size"), "the main message does not name the parameter: %s",
                err.text().c_str());
}
GST_END_TEST;

static void check_fault(const char* mode)
{
    std::string output;
    const int status = run_fault_helper(mode, mode, &output);
    fail_unless(status == 0, "WALDBOOST_CL_FAULT=%s: the helper failed (status %d):\n%s", mode, status, output.c_str());
}

GST_START_TEST(test_error_kernel_build_fault) { check_fault("program-build"); }
GST_END_TEST;

GST_START_TEST(test_error_out_of_memory_fault) { check_fault("buffer-create"); }
GST_END_TEST;

GST_START_TEST(test_error_enqueue_fault) { check_fault("enqueue"); }
GST_END_TEST;

GST_START_TEST(test_error_map_fault) { check_fault("map"); }
GST_END_TEST;

GST_START_TEST(test_error_wait_fault) { check_fault("wait"); }
GST_END_TEST;

GST_START_TEST(test_error_buffer_before_caps)
{
    GstHarness* h = harness_with();
    GstBus* bus = attach_bus(h);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    const GstFlowReturn flow = gst_harness_push(h, make_frame(synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 0));
    fail_unless_equals_int(flow, GST_FLOW_NOT_NEGOTIATED);
    fail_unless(gst_harness_try_pull(h) == nullptr);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* A buffer smaller than its caps: it passes without detections, with a
 * warning, in order. */
GST_START_TEST(test_error_short_buffer)
{
    GstHarness* h = harness_with({{"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
    GstBuffer* small = gst_buffer_new_allocate(nullptr, 100, nullptr);
    gst_buffer_memset(small, 0, 7, 100);
    GST_BUFFER_PTS(small) = pts_of(1);
    fail_unless_equals_int(gst_harness_push(h, small), GST_FLOW_OK);
    fail_unless_equals_int(push_frame(h, synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 2), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    for (int k = 0; k < 3; ++k)
        fail_unless_equals_int(frame_index(out[k]), k);
    fail_unless_equals_int(gst_buffer_get_size(out[1]), 100);
    /* Downstream can tell the frame was not searched. */
    for (int k = 0; k < 3; ++k) {
        GstCustomMeta* meta = gst_buffer_get_custom_meta(out[k], "WaldboostSearchMeta");
        gboolean skipped = FALSE;
        fail_unless(meta && gst_structure_get_boolean(gst_custom_meta_get_structure(meta), "skipped", &skipped));
        fail_unless_equals_int(skipped, k == 1);
    }
    const ErrorInfo warning = pop_message(bus, GST_MESSAGE_WARNING);
    fail_unless(warning.found, "no warning for the short buffer");
    fail_if(pop_error(bus).found);
    unref_all(out);
    teardown_with_bus(h, bus);
}
GST_END_TEST;

/* A buffer whose GstVideoMeta claims planes larger than the buffer holds
 * (a buggy or hostile upstream): 4K caps and meta on a small buffer, a huge
 * stride, a plane offset near or past the end. The frame must pass
 * unchanged, without detections or drawing, with a warning, and nothing
 * may read or write past the buffer (before the fix the engine's copy read
 * past it and draw=burn wrote past it). */
struct BogusMeta {
    const char* what;
    GstVideoFormat format;
    int caps_w, caps_h;                                    /* the caps and the meta's size */
    gsize bytes;                                           /* what the buffer really holds */
    guint plane;                                           /* the plane whose layout is changed */
    gsize offset = G_MAXSIZE;                              /* unless G_MAXSIZE: that plane's offset */
    gint stride = 0;                                       /* unless 0: that plane's stride */
    int meta_w = 0, meta_h = 0;                            /* unless 0: the meta's size (else the caps') */
    GstVideoFormat meta_format = GST_VIDEO_FORMAT_UNKNOWN; /* unless UNKNOWN: the meta's format */
};

static void push_bogus_meta(const BogusMeta& c, const char* draw)
{
    GstHarness* h = harness_with({{"draw", draw}, {"max-inflight", "2"}});
    GstBus* bus = attach_bus(h);
    set_caps(h, c.format, c.caps_w, c.caps_h);
    const GstVideoFormat meta_format = c.meta_format != GST_VIDEO_FORMAT_UNKNOWN ? c.meta_format : c.format;
    const int meta_w = c.meta_w ? c.meta_w : c.caps_w, meta_h = c.meta_h ? c.meta_h : c.caps_h;
    GstVideoInfo info;
    gst_video_info_set_format(&info, meta_format, meta_w, meta_h);
    gsize offsets[GST_VIDEO_MAX_PLANES];
    gint strides[GST_VIDEO_MAX_PLANES];
    for (guint i = 0; i < GST_VIDEO_MAX_PLANES; ++i) {
        offsets[i] = GST_VIDEO_INFO_PLANE_OFFSET(&info, i);
        strides[i] = GST_VIDEO_INFO_PLANE_STRIDE(&info, i);
    }
    if (c.offset != G_MAXSIZE)
        offsets[c.plane] = c.offset;
    if (c.stride != 0)
        strides[c.plane] = c.stride;
    GstBuffer* b = gst_buffer_new_allocate(nullptr, c.bytes, nullptr);
    {
        GstMapInfo map;
        gst_buffer_map(b, &map, GST_MAP_WRITE);
        for (gsize i = 0; i < map.size; ++i)
            map.data[i] = static_cast<guint8>((i * 37 + 11) & 0xff);
        gst_buffer_unmap(b, &map);
    }
    gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, meta_format, meta_w, meta_h,
                                   GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
    GST_BUFFER_PTS(b) = pts_of(0);
    const std::vector<uint8_t> before = bytes_of(b);
    /* Three such frames: one warning, not three. */
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    for (int k = 1; k < 3; ++k) {
        GstBuffer* again = gst_buffer_copy_deep(b);
        GST_BUFFER_PTS(again) = pts_of(k);
        fail_unless_equals_int(gst_harness_push(h, again), GST_FLOW_OK);
    }
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), 3);
    for (int k = 0; k < 3; ++k) {
        fail_unless_equals_int(frame_index(out[k]), k);
        fail_unless(bytes_of(out[k]) == before, "%s, %s, draw=%s: the frame changed", c.what,
                    gst_video_format_to_string(c.format), draw);
        fail_unless(roi_boxes(out[k]).empty(), "%s: detections on an unreadable frame", c.what);
        fail_unless(gst_buffer_get_video_overlay_composition_meta(out[k]) == nullptr);
    }
    const BusLog log = drain_bus(bus);
    fail_unless_equals_int(log.errors.size(), 0);
    fail_unless(log.warnings.size() == 1, "%s, %s, draw=%s: %zu warnings, expected 1", c.what,
                gst_video_format_to_string(c.format), draw, log.warnings.size());
    fail_unless(log.warnings[0].domain == GST_STREAM_ERROR && log.warnings[0].code == GST_STREAM_ERROR_FORMAT &&
                    contains(log.warnings[0].message, "could not be read"),
                "%s: warning %s", c.what, log.warnings[0].text().c_str());
    g_print("%s, %s, draw=%s: %s\n", c.what, gst_video_format_to_string(c.format), draw,
            log.warnings[0].text().c_str());
    unref_all(out);
    teardown_with_bus(h, bus);
}

GST_START_TEST(test_error_meta_beyond_buffer)
{
    GstVideoInfo i420;
    gst_video_info_set_format(&i420, GST_VIDEO_FORMAT_I420, 64, 48);
    const gsize i420_size = GST_VIDEO_INFO_SIZE(&i420);
    const BogusMeta cases[] = {
        {"4K caps and meta on a 64x48 buffer", GST_VIDEO_FORMAT_GRAY8, 3840, 2160, 64 * 48, 0},
        {"a stride of 1 MiB", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 1 << 20},
        {"the plane starting 64 bytes before the end", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, 64 * 47},
        {"the plane starting past the end", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, 1 << 30},
        {"a negative stride", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, -64},
        {"4K caps and meta on a 64x48 buffer", GST_VIDEO_FORMAT_I420, 3840, 2160, i420_size, 0},
        {"a U stride of 1 MiB", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 1, G_MAXSIZE, 1 << 20},
        {"the V plane starting 10 bytes before the end", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 2, i420_size - 10},
        {"the luma plane overlapping the end", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, i420_size - 64 * 40},
        {"a 4K meta on 64x48 caps", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 0, 3840, 2160},
        {"a 4K meta on 64x48 caps", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, G_MAXSIZE, 0, 3840, 2160},
        {"a meta smaller than the caps", GST_VIDEO_FORMAT_GRAY8, 64, 48, 64 * 48, 0, G_MAXSIZE, 0, 32, 24},
        {"a GRAY8 meta on I420 caps", GST_VIDEO_FORMAT_I420, 64, 48, i420_size, 0, G_MAXSIZE, 0, 0, 0,
         GST_VIDEO_FORMAT_GRAY8},
    };
    for (const BogusMeta& c : cases)
        for (const char* draw : {"burn", "meta"})
            push_bogus_meta(c, draw);
}
GST_END_TEST;

/* A change while PLAYING that cannot be applied (a classifier that does
 * not load, a device that is not there, a reduction the device refuses, a
 * nested profile that does not load): a warning naming it, no error, no
 * frame lost, detection goes on with what ran before, and the property
 * reads back what runs, with a notify signal. A change that can be applied
 * afterwards is. The
 * running classifier accepts every window, so its detections show that it
 * is still the one that detects. */
GST_START_TEST(test_error_change_while_playing_keeps_detecting)
{
    const std::string accept_all = uniform_classifier_file("blob", 1, 0.0f);
    const Classifier running = waldboost::load_classifier_file(accept_all);
    const std::string malformed =
        temporary_text_file("<?xml version=\"1.0\"?>\n<WaldBoostClassifier imageSizeX=\"24\"");
    const struct {
        const char* property;
        std::string value;
        int code; /* of GST_RESOURCE_ERROR */
        std::string in_message;
    } cases[] = {
        {"classifier", "/nonexistent/waldboost-test/live.xml", GST_RESOURCE_ERROR_NOT_FOUND,
         "/nonexistent/waldboost-test/live.xml"},
        {"classifier", malformed, GST_RESOURCE_ERROR_OPEN_READ, malformed},
        {"device", "no-such-device", GST_RESOURCE_ERROR_NOT_FOUND, "no-such-device"},
        {"group-size", "48", GST_RESOURCE_ERROR_SETTINGS, "group size"},
        {"eyes-profile", "/nonexistent/waldboost-test/eyes.xml", GST_RESOURCE_ERROR_NOT_FOUND,
         "eyes-profile \"/nonexistent/waldboost-test/eyes.xml\""},
    };
    auto expected = [&](int k) {
        return expected_boxes(core(synthetic(64, 48, k), DetectParams{}, running), running.label);
    };
    for (const auto& c : cases) {
        const std::string what = std::string(c.property) + "=" + c.value;
        GstHarness* h = harness_with({{"classifier", accept_all}, {"max-inflight", "2"}, {"draw", "none"}});
        GstBus* bus = attach_bus(h);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
        GValue before = G_VALUE_INIT;
        g_object_get_property(G_OBJECT(h->element), c.property, &before);
        fail_unless_equals_int(push_frame(h, synthetic(64, 48, 0), GST_VIDEO_FORMAT_GRAY8, 0), GST_FLOW_OK);
        gst_util_set_object_arg(G_OBJECT(h->element), c.property, c.value.c_str());
        /* Counted from after the set, whose own notification has passed. */
        int restored_notifications = 0, other_notifications = 0;
        const std::string detail = std::string("notify::") + c.property;
        const gulong restored_id = g_signal_connect_swapped(h->element, detail.c_str(), G_CALLBACK(+[](int* n) {
                                                                ++*n;
                                                            }),
                                                            &restored_notifications);
        const gulong other_id = g_signal_connect_swapped(h->element, "notify::scale-factor", G_CALLBACK(+[](int* n) {
                                                             ++*n;
                                                         }),
                                                         &other_notifications);
        for (int k = 1; k < 3; ++k)
            fail_unless_equals_int(push_frame(h, synthetic(64, 48, k), GST_VIDEO_FORMAT_GRAY8, k), GST_FLOW_OK);
        g_signal_handler_disconnect(h->element, restored_id);
        g_signal_handler_disconnect(h->element, other_id);
        /* The property reads back what runs, and says so to those who
         * watch it (a control panel showing the classifier), once; no
         * other property is notified. */
        GValue after = G_VALUE_INIT;
        g_object_get_property(G_OBJECT(h->element), c.property, &after);
        fail_unless(gst_value_compare(&before, &after) == GST_VALUE_EQUAL, "%s: reads back %s, not %s", what.c_str(),
                    g_strdup_value_contents(&after), g_strdup_value_contents(&before));
        fail_unless_equals_int(restored_notifications, 1);
        fail_unless_equals_int(other_notifications, 0);
        g_value_unset(&before);
        g_value_unset(&after);
        /* A change that can be applied still is: the embedded face
         * classifier finds nothing in these frames. */
        g_object_set(h->element, "classifier", "", nullptr);
        fail_unless_equals_int(push_frame(h, synthetic(64, 48, 3), GST_VIDEO_FORMAT_GRAY8, 3), GST_FLOW_OK);
        push_eos(h);
        std::vector<GstBuffer*> out = pull_all(h);
        fail_unless_equals_int(out.size(), 4);
        for (int k = 0; k < 3; ++k) {
            fail_unless_equals_int(frame_index(out[k]), k);
            fail_unless(!expected(k).empty(), "%s: nothing to compare", what.c_str());
            CHECK_BOXES(out[k], expected(k), what + ", frame " + std::to_string(k));
        }
        fail_unless(roi_boxes(out[3]).empty(), "%s: the classifier set afterwards was not applied", what.c_str());
        unref_all(out);

        const BusLog log = drain_bus(bus);
        fail_unless(log.errors.empty(), "%s: an error: %s", what.c_str(),
                    log.errors.empty() ? "" : log.errors[0].text().c_str());
        bool warned = false;
        for (const ErrorInfo& w : log.warnings)
            warned =
                warned || (w.domain == GST_RESOURCE_ERROR && w.code == c.code && contains(w.message, c.in_message) &&
                           contains(w.message, "The change is not applied: detection goes on as before."));
        fail_unless(warned, "%s: no warning that names it and says the change is not applied (%zu warnings%s%s)",
                    what.c_str(), log.warnings.size(), log.warnings.empty() ? "" : ", the first: ",
                    log.warnings.empty() ? "" : log.warnings[0].text().c_str());
        teardown_with_bus(h, bus);
    }
    g_unlink(malformed.c_str());
    g_unlink(accept_all.c_str());
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("errors");
    tcase_add_test(tc, test_error_missing_classifier);
    tcase_add_test(tc, test_error_missing_installed_file_says_how_to_restore);
    tcase_add_test(tc, test_error_bare_name_says_where_it_is);
    tcase_add_test(tc, test_error_classifier_path_escaped);
    tcase_add_test(tc, test_error_malformed_classifier);
    tcase_add_test(tc, test_error_no_such_device);
    tcase_add_test(tc, test_error_device_text_escaped);
    tcase_add_test(tc, test_error_bad_reduction);
    tcase_add_test(tc, test_error_kernel_build_fault);
    tcase_add_test(tc, test_error_out_of_memory_fault);
    tcase_add_test(tc, test_error_enqueue_fault);
    tcase_add_test(tc, test_error_map_fault);
    tcase_add_test(tc, test_error_wait_fault);
    tcase_add_test(tc, test_error_buffer_before_caps);
    tcase_add_test(tc, test_error_short_buffer);
    tcase_add_test(tc, test_error_meta_beyond_buffer);
    tcase_add_test(tc, test_error_change_while_playing_keeps_detecting);
    tcase_add_test(tc, test_error_kinds_of_classifier_errors);
    tcase_add_test(tc, test_error_kinds_of_device_and_settings_errors);
    return tc;
}
