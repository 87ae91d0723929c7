/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A small lifecycle program for the valgrind test (tests/run-valgrind-
 * lifecycle.sh): waldboostdetect through every state, with tiny frames in
 * flight, detections (a classifier that accepts every window, written to a
 * temporary file), burned boxes, overlay metas, messages, a flush, a
 * renegotiation, a classifier change while playing, frames whose
 * GstVideoMeta claims more than the buffer holds, several instances with
 * batched launches (one stopping and starting again), tracking with
 * template search between detections, nested parts and box text, and a
 * failing start.
 * With WALDBOOST_CL_FAULT set (meson's element-lifecycle-faults-valgrind
 * sets enqueue:12+) it runs the device-fault scenario instead: fallback to
 * the next device with frames in flight, their resubmission, the last
 * device failing too, the frames dropped, and a restart.
 * Exits 0 when every step did what it should; valgrind judges the memory.
 */
#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/video/video-overlay-composition.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#define W 64
#define H 48

static int failures = 0;

#define CHECK(cond, ...)                                            \
    do {                                                            \
        if (!(cond)) {                                              \
            g_printerr("lifecycle: FAILED at line %d: ", __LINE__); \
            g_printerr(__VA_ARGS__);                                \
            g_printerr("\n");                                       \
            failures++;                                             \
        }                                                           \
    } while (0)

/* A WaldBoost classifier with one weak classifier whose every response is
 * 1: every 16x16 window is accepted, so tiny frames have detections. */
static gchar* write_accept_all_classifier(void)
{
    GString* xml = g_string_new("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                                "<WaldBoostClassifier classifierName=\"blob\" minStdDev=\"0\" imageSizeX=\"16\" "
                                "imageSizeY=\"16\" type=\"LBP\" finalThreshold=\"0\">\n"
                                "  <stage posT=\"1e+50\" negT=\"-1e+50\">\n"
                                "    <HistogramWeakHypothesis predictionValues=\"");
    gchar* path = NULL;
    int fd, i;
    for (i = 0; i < 256; i++)
        g_string_append(xml, i ? " 1" : "1");
    g_string_append(xml, "\">\n      <LBPFeature positionX=\"0\" positionY=\"0\" "
                         "blockWidth=\"2\" blockHeight=\"2\" binMappingType=\"NONE\"/>\n"
                         "    </HistogramWeakHypothesis>\n  </stage>\n</WaldBoostClassifier>\n");
    fd = g_file_open_tmp("waldboost-accept-all-XXXXXX.xml", &path, NULL);
    if (fd >= 0)
        close(fd);
    if (fd < 0 || !g_file_set_contents(path, xml->str, -1, NULL)) {
        g_printerr("lifecycle: cannot write a temporary classifier\n");
        exit(2);
    }
    g_string_free(xml, TRUE);
    return path;
}

static GstBuffer* make_frame(GstVideoFormat format, int w, int h, int index)
{
    GstVideoInfo info;
    GstVideoFrame frame;
    GstBuffer* buffer;
    guint c;
    int x, y;

    gst_video_info_set_format(&info, format, w, h);
    buffer = gst_buffer_new_allocate(NULL, GST_VIDEO_INFO_SIZE(&info), NULL);
    gst_buffer_memset(buffer, 0, 128, GST_VIDEO_INFO_SIZE(&info));
    gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
    for (y = 0; y < h; y++) {
        guint8* row = (guint8*)GST_VIDEO_FRAME_COMP_DATA(&frame, 0) + y * GST_VIDEO_FRAME_COMP_STRIDE(&frame, 0);
        for (x = 0; x < w; x++)
            row[x * GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0)] =
                (guint8)((x * 5 + y * 3 + index * 11 + (x * y) % 13) & 0xff);
    }
    for (c = 1; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); c++)
        (void)c; /* chroma stays 128 */
    gst_video_frame_unmap(&frame);
    GST_BUFFER_PTS(buffer) = index * (GST_SECOND / 30);
    GST_BUFFER_DURATION(buffer) = GST_SECOND / 30;
    return buffer;
}

static void set_caps(GstHarness* h, GstVideoFormat format, int w, int hh)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, w, hh);
    GST_VIDEO_INFO_FPS_N(&info) = 30;
    GST_VIDEO_INFO_FPS_D(&info) = 1;
    gst_harness_set_src_caps(h, gst_video_info_to_caps(&info));
}

static guint count_rois(GstBuffer* b)
{
    gpointer state = NULL;
    guint n = 0;
    while (gst_buffer_iterate_meta_filtered(b, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))
        n++;
    return n;
}

/* Pulls everything out; returns the number of buffers and adds up their
 * ROI metas and overlay metas. */
static guint drain(GstHarness* h, guint* rois, guint* overlays)
{
    GstBuffer* b;
    GstEvent* e;
    guint n = 0;
    while ((b = gst_harness_try_pull(h))) {
        if (rois)
            *rois += count_rois(b);
        if (overlays && gst_buffer_get_video_overlay_composition_meta(b))
            (*overlays)++;
        gst_buffer_unref(b);
        n++;
    }
    while ((e = gst_harness_try_pull_event(h)))
        gst_event_unref(e);
    return n;
}

static guint drain_messages(GstBus* bus)
{
    GstMessage* m;
    guint n = 0;
    while ((m = gst_bus_pop(bus))) {
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ELEMENT && gst_message_has_name(m, "waldboostdetect"))
            n++;
        CHECK(GST_MESSAGE_TYPE(m) != GST_MESSAGE_ERROR, "unexpected error message");
        gst_message_unref(m);
    }
    return n;
}

static GstHarness* harness(const gchar* classifier, const gchar* draw, int max_inflight, gboolean overlay_meta,
                           GstBus** bus)
{
    GstElement* e = gst_element_factory_make("waldboostdetect", NULL);
    GstHarness* h;
    if (!e) {
        g_printerr("lifecycle: no waldboostdetect element (GST_PLUGIN_PATH?)\n");
        exit(2);
    }
    g_object_set(e, "max-inflight", max_inflight, "classifier", classifier, NULL);
    gst_util_set_object_arg(G_OBJECT(e), "draw", draw);
    h = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    if (overlay_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, NULL);
    *bus = gst_bus_new();
    gst_element_set_bus(h->element, *bus);
    return h;
}

static void finish(GstHarness* h, GstBus* bus)
{
    drain_messages(bus);
    gst_element_set_bus(h->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

/* Every OpenCL enqueue from the N-th on fails (WALDBOOST_CL_FAULT=enqueue:N+)
 * and the device list names the same device twice: the first engine fails
 * while frames are in flight, they move to the second, which fails too. */
static void run_fault_scenario(const gchar* classifier)
{
    GstElement* e = gst_element_factory_make("waldboostdetect", NULL);
    GstHarness* h;
    GstBus* bus = gst_bus_new();
    GstMessage* m;
    GstFlowReturn flow = GST_FLOW_OK;
    guint warnings = 0, errors = 0, pushed = 0, i;

    if (!e) {
        g_printerr("lifecycle: no waldboostdetect element (GST_PLUGIN_PATH?)\n");
        exit(2);
    }
    g_object_set(e, "max-inflight", 3, "classifier", classifier, "device", "auto, auto", NULL);
    gst_util_set_object_arg(G_OBJECT(e), "draw", "burn");
    h = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    gst_element_set_bus(h->element, bus);
    set_caps(h, GST_VIDEO_FORMAT_I420, W, H);
    while (flow == GST_FLOW_OK && pushed < 16)
        flow = gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_I420, W, H, pushed++));
    CHECK(flow == GST_FLOW_ERROR, "the pushes never failed (%s)", gst_flow_get_name(flow));
    drain(h, NULL, NULL);
    while ((m = gst_bus_pop(bus))) {
        warnings += GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING;
        errors += GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR;
        gst_message_unref(m);
    }
    CHECK(warnings == 1 && errors == 1, "%u warnings and %u errors, expected a fallback and an error", warnings,
          errors);

    /* A restart builds a new engine, which fails at once: its error too
   * must leave nothing behind. */
    CHECK(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "to NULL");
    gst_element_set_state(h->element, GST_STATE_PLAYING);
    gst_harness_push_event(h, gst_event_new_stream_start("again"));
    set_caps(h, GST_VIDEO_FORMAT_I420, W, H);
    for (i = 0; i < 2; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_I420, W, H, i));
    drain(h, NULL, NULL);
    while ((m = gst_bus_pop(bus)))
        gst_message_unref(m);
    gst_element_set_bus(h->element, NULL);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

int main(int argc, char** argv)
{
    gchar* accept_all;
    GstHarness* h;
    GstBus* bus;
    guint rois, overlays, n, i, cycle;

    gst_init(&argc, &argv);
    accept_all = write_accept_all_classifier();

    if (g_getenv("WALDBOOST_CL_FAULT")) {
        run_fault_scenario(accept_all);
        goto done;
    }

    /* 1. Default classifier, frames in flight, EOS drains them. */
    h = harness("", "auto", 2, FALSE, &bus);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, W, H);
    for (i = 0; i < 3; i++)
        CHECK(gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_GRAY8, W, H, i)) == GST_FLOW_OK, "push");
    gst_harness_push_event(h, gst_event_new_eos());
    n = drain(h, NULL, NULL);
    CHECK(n == 3, "%u frames out of 3", n);
    CHECK(drain_messages(bus) == 3, "messages");
    finish(h, bus);

    /* 2. Detections burned into I420, ROI metas and messages. */
    h = harness(accept_all, "burn", 3, FALSE, &bus);
    set_caps(h, GST_VIDEO_FORMAT_I420, W, H);
    for (i = 0; i < 4; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_I420, W, H, i));
    gst_harness_push_event(h, gst_event_new_eos());
    rois = 0;
    n = drain(h, &rois, NULL);
    CHECK(n == 4 && rois > 0, "%u frames, %u ROI metas", n, rois);
    finish(h, bus);

    /* 3. Overlay composition metas (draw=auto, downstream takes them), a
   *    flush with frames in flight, then a renegotiation in flight. */
    h = harness(accept_all, "auto", 3, TRUE, &bus);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, W, H);
    for (i = 0; i < 2; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_GRAY8, W, H, i));
    gst_harness_push_event(h, gst_event_new_flush_start());
    gst_harness_push_event(h, gst_event_new_flush_stop(TRUE));
    /* Frames done before the flush may have left already (the worker pushes
   * them as they are done); the flush dropped the others. */
    n = drain(h, NULL, NULL);
    CHECK(n <= 2, "%u frames out of 2 before the flush", n);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, W, H);
    for (i = 0; i < 3; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_GRAY8, W, H, 10 + i));
    set_caps(h, GST_VIDEO_FORMAT_NV12, 48, 32);
    for (i = 0; i < 2; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_NV12, 48, 32, 20 + i));
    /* A classifier change while frames are in flight. */
    g_object_set(h->element, "classifier", "", NULL);
    gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_NV12, 48, 32, 30));
    gst_harness_push_event(h, gst_event_new_eos());
    rois = overlays = 0;
    n = drain(h, &rois, &overlays);
    CHECK(n == 6 && overlays > 0, "%u frames (6 expected), %u with overlay metas", n, overlays);
    finish(h, bus);

    /* 4. State cycles with buffers in between, some left in flight. */
    h = harness(accept_all, "meta", 2, FALSE, &bus);
    for (cycle = 0; cycle < 3; cycle++) {
        GstState states[] = {GST_STATE_NULL, GST_STATE_READY, GST_STATE_PAUSED, GST_STATE_PLAYING};
        gchar* id = g_strdup_printf("cycle-%u", cycle);
        for (i = 0; i < G_N_ELEMENTS(states); i++)
            CHECK(gst_element_set_state(h->element, states[i]) == GST_STATE_CHANGE_SUCCESS,
                  "state change %u in cycle %u", i, cycle);
        /* What the previous cycle left in flight and the worker pushed before
     * the stop is not this cycle's. */
        drain(h, NULL, NULL);
        drain_messages(bus);
        gst_harness_push_event(h, gst_event_new_stream_start(id));
        g_free(id);
        set_caps(h, GST_VIDEO_FORMAT_GRAY8, W, H);
        for (i = 0; i < 3; i++)
            gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_GRAY8, W, H, i));
        if (cycle != 1) {
            gst_harness_push_event(h, gst_event_new_eos());
            n = drain(h, NULL, NULL);
            CHECK(n == 3, "cycle %u: %u frames", cycle, n);
        } else {
            drain(h, NULL, NULL); /* frames stay in flight over the stop */
        }
        drain_messages(bus);
    }
    finish(h, bus);

    /* 6. Buffers whose GstVideoMeta claims more than they hold (a stride a
   *    little too large, a plane running past the end), with detections on
   *    every window and draw=burn: they pass unread and undrawn, with a
   *    warning; valgrind sees any read or write past them. */
    h = harness(accept_all, "burn", 2, FALSE, &bus);
    set_caps(h, GST_VIDEO_FORMAT_I420, W, H);
    for (i = 0; i < 2; i++) {
        GstVideoInfo info;
        GstBuffer* b = make_frame(GST_VIDEO_FORMAT_I420, W, H, i);
        gsize offsets[GST_VIDEO_MAX_PLANES];
        gint strides[GST_VIDEO_MAX_PLANES];
        guint p;
        gst_video_info_set_format(&info, GST_VIDEO_FORMAT_I420, W, H);
        for (p = 0; p < GST_VIDEO_MAX_PLANES; p++) {
            offsets[p] = GST_VIDEO_INFO_PLANE_OFFSET(&info, p);
            strides[p] = GST_VIDEO_INFO_PLANE_STRIDE(&info, p);
        }
        if (i == 0)
            strides[2] += 8;
        else
            offsets[2] = GST_VIDEO_INFO_SIZE(&info) - 16;
        gst_buffer_add_video_meta_full(b, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_I420, W, H,
                                       GST_VIDEO_INFO_N_PLANES(&info), offsets, strides);
        CHECK(gst_harness_push(h, b) == GST_FLOW_OK, "push of a frame with a bogus meta");
    }
    gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_I420, W, H, 2));
    gst_harness_push_event(h, gst_event_new_eos());
    rois = 0;
    n = drain(h, &rois, NULL);
    CHECK(n == 3 && rois > 0, "%u frames (3 expected), %u ROI metas (the good frame's)", n, rois);
    {
        GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_WARNING);
        CHECK(m != NULL, "no warning for the frames with a bogus meta");
        if (m)
            gst_message_unref(m);
    }
    finish(h, bus);

    /* 7. Several instances at once, batched (two classifiers, two sizes):
   *    their frames launched together, one instance stopping with frames
   *    in flight and starting again while the others stream. */
    {
        GstHarness* hs[3];
        GstBus* buses[3];
        const gchar* classifiers[3] = {accept_all, accept_all, ""};
        const int sizes[3][2] = {{W, H}, {48, 32}, {W, H}};
        guint k, round, out[3] = {0, 0, 0};
        for (k = 0; k < 3; k++) {
            hs[k] = harness(classifiers[k], "meta", 2, FALSE, &buses[k]);
            g_object_set(hs[k]->element, "batching", TRUE, "batch-wait", (guint64)20 * GST_MSECOND, NULL);
            set_caps(hs[k], GST_VIDEO_FORMAT_GRAY8, sizes[k][0], sizes[k][1]);
        }
        for (round = 0; round < 2; round++) {
            for (i = 0; i < 3; i++)
                for (k = 0; k < 3; k++)
                    CHECK(gst_harness_push(hs[k], make_frame(GST_VIDEO_FORMAT_GRAY8, sizes[k][0], sizes[k][1], i)) ==
                              GST_FLOW_OK,
                          "push to instance %u", k);
            if (round == 0) {
                /* Instance 1 goes away with its frames in flight, and comes back. */
                finish(hs[1], buses[1]);
                hs[1] = harness(accept_all, "meta", 2, FALSE, &buses[1]);
                g_object_set(hs[1]->element, "batching", TRUE, "batch-wait", (guint64)20 * GST_MSECOND, NULL);
                set_caps(hs[1], GST_VIDEO_FORMAT_GRAY8, sizes[1][0], sizes[1][1]);
                for (k = 0; k < 3; k += 2)
                    out[k] += drain(hs[k], NULL, NULL);
            }
        }
        for (k = 0; k < 3; k++) {
            gst_harness_push_event(hs[k], gst_event_new_eos());
            rois = 0;
            n = out[k] + drain(hs[k], &rois, NULL);
            CHECK(n == (k == 1 ? 3u : 6u), "instance %u: %u frames", k, n);
            CHECK(k == 2 || rois > 0, "instance %u: no ROI metas", k);
            finish(hs[k], buses[k]);
        }
    }

    /* 8. Tracking: detection on every other frame, template search on the
   *    device in between, appeared and left events, a flush with frames
   *    in flight, the tracker dropped and started again; with parts (the
   *    accept-all cascade nested in each object) and box text (Pango) on a
   *    label with markup characters, which are drawn as text. */
    h = harness(accept_all, "meta", 2, FALSE, &bus);
    g_object_set(h->element, "tracking", TRUE, "interval", 2, "lost-after", 2, "eyes-profile", accept_all, "label",
                 "<b>&amp; x", NULL);
    gst_util_set_object_arg(G_OBJECT(h->element), "box-text", "label+id+confidence");
    gst_util_set_object_arg(G_OBJECT(h->element), "updates", "events");
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, W, H);
    for (i = 0; i < 6; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_GRAY8, W, H, i));
    gst_harness_push_event(h, gst_event_new_flush_start());
    gst_harness_push_event(h, gst_event_new_flush_stop(TRUE));
    drain(h, NULL, NULL);
    set_caps(h, GST_VIDEO_FORMAT_I420, W, H);
    for (i = 0; i < 5; i++)
        gst_harness_push(h, make_frame(GST_VIDEO_FORMAT_I420, W, H, 40 + i));
    gst_harness_push_event(h, gst_event_new_eos());
    rois = 0;
    n = drain(h, &rois, NULL);
    CHECK(n == 5 && rois > 0, "tracking: %u frames (5 expected), %u ROI metas", n, rois);
    finish(h, bus);

    /* 5. A failing start (missing classifier) cleans up. */
    {
        GstElement* e = gst_element_factory_make("waldboostdetect", NULL);
        GstMessage* m;
        bus = gst_bus_new();
        gst_element_set_bus(e, bus);
        g_object_set(e, "classifier", "/nonexistent/waldboost/lifecycle.xml", NULL);
        CHECK(gst_element_set_state(e, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE,
              "start with a missing classifier did not fail");
        m = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
        CHECK(m != NULL, "no error message");
        if (m)
            gst_message_unref(m);
        gst_element_set_state(e, GST_STATE_NULL);
        gst_element_set_bus(e, NULL);
        gst_object_unref(bus);
        gst_object_unref(e);
    }

done:
    g_unlink(accept_all);
    g_free(accept_all);
    gst_deinit();
    if (failures)
        g_printerr("lifecycle: %d check(s) failed\n", failures);
    else
        g_print("lifecycle: all steps passed\n");
    return failures ? 1 : 0;
}
