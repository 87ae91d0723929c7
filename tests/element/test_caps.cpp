/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Element tests, caps: the formats the element takes (GRAY8, the planar
 * YUV ones, packed 4:2:2 and 8-bit RGB) and refuses (GRAY16, 16-bit RGB,
 * v210 and others), every format passed through with its caps and pixels
 * untouched at ordinary and odd sizes, and a warning that says to insert
 * videoconvert when upstream offers only a format it refuses.
 * Needs no test images.
 */
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

GST_START_TEST(test_caps_template)
{
    GstElement* e = make_element({});
    GstPad* sink = gst_element_get_static_pad(e, "sink");
    GstPad* src = gst_element_get_static_pad(e, "src");
    for (GstVideoFormat f : kFormats) {
        GstCaps* caps = caps_for(f, 64, 48);
        fail_unless(gst_pad_query_accept_caps(sink, caps), "sink refuses %s", gst_video_format_to_string(f));
        fail_unless(gst_pad_query_accept_caps(src, caps), "src refuses %s", gst_video_format_to_string(f));
        gst_caps_unref(caps);
    }
    const GstVideoFormat refused[] = {GST_VIDEO_FORMAT_RGB16, GST_VIDEO_FORMAT_BGR10A2_LE, GST_VIDEO_FORMAT_ARGB64,
                                      GST_VIDEO_FORMAT_v210,  GST_VIDEO_FORMAT_GRAY16_LE,  GST_VIDEO_FORMAT_AYUV};
    for (GstVideoFormat f : refused) {
        GstCaps* caps = caps_for(f, 64, 48);
        fail_if(gst_pad_query_accept_caps(sink, caps), "sink accepts %s", gst_video_format_to_string(f));
        GstCaps* result = gst_pad_query_caps(sink, caps);
        fail_unless(gst_caps_is_empty(result), "caps query with %s is not empty", gst_video_format_to_string(f));
        gst_caps_unref(result);
        gst_caps_unref(caps);
    }
    gst_object_unref(sink);
    gst_object_unref(src);
    gst_object_unref(e);
}
GST_END_TEST;

/* Every format passes with the same caps out, pixels untouched (no faces:
 * nothing drawn), at ordinary and odd sizes. */
GST_START_TEST(test_caps_formats_and_odd_sizes)
{
    const int sizes[][2] = {{64, 48}, {33, 17}, {35, 29}, {1, 1}};
    for (GstVideoFormat f : kFormats) {
        for (const auto& size : sizes) {
            const char* name = gst_video_format_to_string(f);
            GstHarness* h = harness_with();
            GstBus* bus = attach_bus(h);
            GstCaps* in_caps = caps_for(f, size[0], size[1]);
            gst_harness_set_src_caps(h, gst_caps_ref(in_caps));
            std::vector<Sent> sent;
            for (int i = 0; i < 3; ++i)
                fail_unless_equals_int(push_frame(h, synthetic(size[0], size[1], i), f, i, &sent), GST_FLOW_OK);
            push_eos(h);
            std::vector<GstBuffer*> out = pull_all(h);
            fail_unless_equals_int(out.size(), 3);
            GstCaps* out_caps = gst_pad_get_current_caps(h->sinkpad);
            fail_unless(out_caps && gst_caps_is_equal(out_caps, in_caps),
                        "%s %dx%d: output caps %" GST_PTR_FORMAT " differ from the input caps", name, size[0], size[1],
                        out_caps);
            for (size_t i = 0; i < out.size(); ++i) {
                fail_unless_equals_uint64(GST_BUFFER_PTS(out[i]), sent[i].pts);
                fail_unless(bytes_of(out[i]) == sent[i].bytes, "%s %dx%d: frame %zu changed", name, size[0], size[1],
                            i);
                fail_unless(roi_boxes(out[i]).empty(), "%s %dx%d: a detection on a synthetic frame", name, size[0],
                            size[1]);
            }
            fail_if(pop_error(bus).found, "%s %dx%d: error", name, size[0], size[1]);
            unref_all(out);
            gst_caps_unref(in_caps);
            gst_caps_unref(out_caps);
            teardown_with_bus(h, bus);
        }
    }
}
GST_END_TEST;

GST_START_TEST(test_caps_refused_format)
{
    GstHarness* h = harness_with();
    GstCaps* rgb = gst_caps_from_string("video/x-raw,format=RGB16,width=64,height=48,framerate=30/1");
    /* A sticky event is stored on the harness pad even when the element
     * refuses it, so check the element's pads instead of the return value. */
    gst_harness_push_event(h, gst_event_new_caps(rgb));
    GstPad* sink = gst_element_get_static_pad(h->element, "sink");
    GstCaps* current = gst_pad_get_current_caps(sink);
    fail_unless(current == nullptr, "the element took RGB16 caps: %" GST_PTR_FORMAT, current);
    gst_object_unref(sink);
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    gst_harness_push_event(h, gst_event_new_segment(&segment));
    GstBuffer* b = gst_buffer_new_allocate(nullptr, 64 * 48 * 2, nullptr);
    gst_buffer_memset(b, 0, 100, 64 * 48 * 2);
    GST_BUFFER_PTS(b) = 0;
    const GstFlowReturn flow = gst_harness_push(h, b);
    fail_unless_equals_int(flow, GST_FLOW_NOT_NEGOTIATED);
    fail_unless(gst_harness_try_pull(h) == nullptr);
    GstCaps* out = gst_pad_get_current_caps(h->sinkpad);
    fail_unless(out == nullptr, "caps went downstream: %" GST_PTR_FORMAT, out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A format the element refuses from upstream, as gst-launch users write
 * it (16-bit gray from pngdec): a warning from the element names it, the
 * format and videoconvert, before GStreamer's bare
 * "not-negotiated" error from the source. Before, that error was all. A
 * pipeline with videoconvert gets no such warning. */
static std::vector<ErrorInfo> run_launch_line(const char* line, std::vector<std::string>* warning_sources)
{
    GError* error = nullptr;
    GstElement* pipeline = gst_parse_launch(line, &error);
    fail_unless(pipeline && !error, "%s: %s", line, error ? error->message : "no pipeline");
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    GstBus* bus = gst_element_get_bus(pipeline);
    std::vector<ErrorInfo> warnings;
    for (;;) {
        GstMessage* m = gst_bus_timed_pop_filtered(
            bus, 30 * GST_SECOND,
            static_cast<GstMessageType>(GST_MESSAGE_WARNING | GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
        fail_unless(m != nullptr, "%s: neither EOS nor an error within 30 s", line);
        const GstMessageType type = GST_MESSAGE_TYPE(m);
        if (type == GST_MESSAGE_WARNING) {
            GError* e = nullptr;
            gchar* debug = nullptr;
            gst_message_parse_warning(m, &e, &debug);
            ErrorInfo info;
            info.found = true;
            info.domain = e->domain;
            info.code = e->code;
            info.message = e->message;
            info.debug = debug ? debug : "";
            warnings.push_back(info);
            warning_sources->push_back(GST_OBJECT_NAME(GST_MESSAGE_SRC(m)));
            g_error_free(e);
            g_free(debug);
        }
        gst_message_unref(m);
        if (type != GST_MESSAGE_WARNING)
            break;
    }
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(pipeline);
    return warnings;
}

GST_START_TEST(test_caps_refused_format_says_to_insert_videoconvert)
{
    /* A decoder whose output format the file decides (pngdec: a 16-bit
     * gray PNG gives GRAY16_BE; its template has GRAY8 too, so gst-launch
     * links it). */
    for (const char* upstream :
         {"videotestsrc num-buffers=2 ! video/x-raw,format=GRAY16_BE,width=64,height=48 ! pngenc ! pngdec"}) {
        const std::string line = std::string(upstream) + " ! waldboostdetect name=detector ! fakesink";
        std::vector<std::string> sources;
        const std::vector<ErrorInfo> warnings = run_launch_line(line.c_str(), &sources);
        int told = 0;
        for (size_t i = 0; i < warnings.size(); ++i)
            told += sources[i] == "detector" && warnings[i].domain == GST_CORE_ERROR &&
                    warnings[i].code == GST_CORE_ERROR_NEGOTIATION && contains(warnings[i].message, "detector") &&
                    contains(warnings[i].message, "GRAY16_BE") && contains(warnings[i].message, "videoconvert");
        fail_unless(told == 1,
                    "%s: %d warnings from the element naming GRAY16_BE and videoconvert, not 1 (%zu in all%s%s)",
                    line.c_str(), told, warnings.size(),
                    warnings.empty() ? "" : ", the first: ", warnings.empty() ? "" : warnings[0].text().c_str());
    }

    std::vector<std::string> sources;
    const std::vector<ErrorInfo> warnings = run_launch_line(
        "videotestsrc num-buffers=2 ! video/x-raw,format=GRAY16_BE,width=64,height=48 ! pngenc ! pngdec ! "
        "videoconvert ! waldboostdetect name=detector ! fakesink",
        &sources);
    fail_unless(warnings.empty(), "with videoconvert: a warning: %s",
                warnings.empty() ? "" : warnings[0].text().c_str());
}
GST_END_TEST;

TCase* element_case()
{
    TCase* tc = tcase_create("caps");
    tcase_add_test(tc, test_caps_refused_format_says_to_insert_videoconvert);
    tcase_add_test(tc, test_caps_template);
    tcase_add_test(tc, test_caps_formats_and_odd_sizes);
    tcase_add_test(tc, test_caps_refused_format);
    return tc;
}
