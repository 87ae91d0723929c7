/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared harness of the waldboostdetect element tests (GstCheck and
 * GstHarness): where the test data is, a GstHarness around the element,
 * frames pushed and buffers pulled, the region-of-interest metas read back,
 * the boxes the core library's CPU reference detector expects (every
 * expected detection comes from waldboost::detect() on the same gray image,
 * never from the element itself), bus and box-outline helpers, and the
 * fault-injection helper program run in a process of its own. Compiled once
 * (harness.cpp) for every concern's program and for the fault helper.
 *
 * One file per concern (test_caps.cpp, test_detections.cpp, ...) defines
 * its GST_START_TEST functions and element_case(), its tests as one TCase;
 * main.cpp runs it. The one table of cases, with the cases that need the
 * real test images, is in meson.build beside this file.
 */
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>

#include "core/embedded/default_classifier.h"
#include "core/reference/detector.h"
#include "support/environment.h"

/* Defined by each concern's file: its tests, as one test case. */
TCase* element_case();

namespace element_test {

using waldboost::Classifier;
using waldboost::Detection;
using waldboost::DetectParams;
using waldboost::GrayImage;
using waldboost::GrayView;

constexpr GstClockTime kFrameDuration = GST_SECOND / 30;

/* The formats the element takes. */
inline constexpr GstVideoFormat kFormats[] = {
    GST_VIDEO_FORMAT_GRAY8, GST_VIDEO_FORMAT_I420, GST_VIDEO_FORMAT_YV12, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_NV21,
    GST_VIDEO_FORMAT_Y42B,  GST_VIDEO_FORMAT_Y444, GST_VIDEO_FORMAT_YUY2, GST_VIDEO_FORMAT_UYVY, GST_VIDEO_FORMAT_YVYU,
    GST_VIDEO_FORMAT_RGB,   GST_VIDEO_FORMAT_BGR,  GST_VIDEO_FORMAT_RGBx, GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_xRGB,
    GST_VIDEO_FORMAT_xBGR,  GST_VIDEO_FORMAT_RGBA, GST_VIDEO_FORMAT_BGRA, GST_VIDEO_FORMAT_ARGB, GST_VIDEO_FORMAT_ABGR};

/* ------------------------------------------------------------------------ */
/* Environment and data                                                     */

/* The environment as every test reads it (tests/support/environment.h):
 * the test images (test_data), Debian's LBP and Haar cascades
 * (cascade_path, haar_cascade), this build's converted copies
 * (converted_classifier), and whether the run requires the images
 * (WALDBOOST_REQUIRE_TEST_DATA=1). */
using waldboost_test::cascade_path;
using waldboost_test::converted_classifier;
using waldboost_test::env_or;
using waldboost_test::file_exists;
using waldboost_test::haar_cascade;
using waldboost_test::test_data;
using waldboost_test::test_data_required;

/* The test images are there (astronaut.png, which every case that needs
 * them reads). */
bool have_test_data();

/* Whether a case that asks for device=cpu runs here. The GPU machine has no
 * CPU OpenCL device, and tests/device/run.sh sets WALDBOOST_TEST_NO_CPU_DEVICE=1
 * for it: there such a case prints that it did not run, and passes.
 * Everywhere else (PoCL in CI) it runs, and a missing CPU device fails it. */
bool cpu_device_case(const char* test);

const GrayImage& astronaut();
/* A w x h window of `src` at (x, y); outside the source it is `fill`. */
GrayImage crop(const GrayImage& src, int x, int y, int w, int h, uint8_t fill = 128);
/* 200x160 views of the astronaut's face, moved by k pixels: different
 * content per frame, each with a face. */
GrayImage face_frame(int k);
/* 400x160: face_frame(0) in the left half, face_frame(6) in the right. */
GrayImage faces_side_by_side();
/* A synthetic frame without faces (gradient plus a little texture). */
GrayImage synthetic(int w, int h, int seed = 0);

/* The classifier as a WaldBoost XML file in the temporary folder. */
std::string temporary_text_file(const std::string& text);
std::string temporary_classifier_file(const Classifier& c);
/* A classifier of `weak` LBP weak classifiers whose every response is 1
 * and which never reject, with this final threshold, as a file: with 1 and
 * 0 it accepts every window; with N and N + 1 every window costs N weak
 * classifiers and none is accepted. */
std::string uniform_classifier_file(const std::string& label, int weak, float final_threshold);

/* ------------------------------------------------------------------------ */
/* The core's answer                                                         */

std::vector<Detection> core(const GrayView& view, const DetectParams& params = DetectParams{},
                            const Classifier& classifier = waldboost::default_classifier());
std::vector<Detection> core(const GrayImage& img, const DetectParams& params = DetectParams{},
                            const Classifier& classifier = waldboost::default_classifier());
DetectParams params_mn(int min_neighbors);
/* min-size / max-size are object widths; heights follow the window. */
waldboost::Size size_for_width(const Classifier& c, int width);

struct Box {
    std::string label;
    int x = 0, y = 0, w = 0, h = 0;
    int neighbors = -1;
    double confidence = -1;

    auto key() const { return std::tie(x, y, w, h, neighbors, confidence, label); }
    bool operator<(const Box& o) const { return key() < o.key(); }
    bool operator==(const Box& o) const { return key() == o.key(); }
};

std::string describe(const std::vector<Box>& boxes);
std::vector<Box> expected_boxes(const std::vector<Detection>& detections, const std::string& label, int dx = 0,
                                int dy = 0);
/* The GstVideoRegionOfInterestMeta of a buffer, with its "detection" param. */
std::vector<Box> roi_boxes(GstBuffer* buffer);

#define CHECK_BOXES(buffer, want, what)                                                          \
    do {                                                                                         \
        const std::vector<Box> got_ = roi_boxes(buffer);                                         \
        const std::vector<Box> want_ = (want);                                                   \
        fail_unless(got_ == want_,                                                               \
                    "%s: the ROI metas differ from the core's detections\n  element: %s\n"       \
                    "  core:    %s",                                                             \
                    std::string(what).c_str(), describe(got_).c_str(), describe(want_).c_str()); \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Harness, frames, recording                                               */

using Props = std::vector<std::pair<std::string, std::string>>;

GstElement* make_element(const Props& props);
/* A harness around a new element with these properties set before it
 * starts; it is PLAYING on return. */
GstHarness* harness_with(const Props& props = {});
GstBus* attach_bus(GstHarness* h);
/* Takes the bus off the element, drops it and tears the harness down. */
void teardown_with_bus(GstHarness* h, GstBus* bus);
GstCaps* caps_for(GstVideoFormat format, int width, int height, int fps_n = 30, int fps_d = 1);
void set_caps(GstHarness* h, GstVideoFormat format, int width, int height, int fps_n = 30, int fps_d = 1);

/* What was pushed, to check what comes out. */
struct Sent {
    GrayImage image;
    GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8;
    GstVideoInfo info;          /* the layout of the buffer (with its padding) */
    bool has_meta = false;      /* a GstVideoMeta describes the layout */
    std::vector<uint8_t> bytes; /* the whole buffer as pushed */
    GstClockTime pts = GST_CLOCK_TIME_NONE;
};

/* A frame whose luma plane is `image` and whose chroma is 128 (RGB: red,
 * green and blue all `image`, a gray whose OpenCV gray is `image`; alpha
 * opaque). With
 * pad_bytes > 0 every row of every plane has that much padding, described by
 * a GstVideoMeta. All padding holds a pattern, so reading it shows. */
GstBuffer* make_frame(const GrayImage& image, GstVideoFormat format, GstClockTime pts, int pad_bytes = 0,
                      Sent* sent = nullptr);
GstClockTime pts_of(int index);
GstFlowReturn push_frame(GstHarness* h, const GrayImage& image, GstVideoFormat format, int index,
                         std::vector<Sent>* sent = nullptr, int pad_bytes = 0);
std::vector<GstBuffer*> pull_all(GstHarness* h);
/* The frames (GRAY8, each frame k at pts_of(k)) through a new element with
 * `props`, then EOS: the buffers that came out, one per frame. The element's
 * bus goes to *bus when asked for (the caller unrefs it). */
std::vector<GstBuffer*> run_frames(const Props& props, const std::vector<GrayImage>& frames, GstBus** bus = nullptr);
void unref_all(std::vector<GstBuffer*>& buffers);
void push_eos(GstHarness* h);
/* A flushing seek as a demuxer sends it: FLUSH_START, FLUSH_STOP that
 * resets the running time, a new TIME segment from 0. */
void push_flush(GstHarness* h);
std::vector<uint8_t> bytes_of(GstBuffer* b);

/* The order of everything that leaves the element, from a probe on the
 * harness' sink pad. */
struct Item {
    bool buffer = false;
    GstEventType event = GST_EVENT_UNKNOWN;
    GstClockTime pts = GST_CLOCK_TIME_NONE;
    int width = 0, height = 0; /* caps events */
};

struct Recorder {
    std::mutex lock;
    std::vector<Item> items;

    std::vector<Item> snapshot()
    {
        std::lock_guard<std::mutex> g(lock);
        return items;
    }
};

void record(GstHarness* h, Recorder* r);
/* Every buffer recorded left in frame order (PTS index 0, 1, ...) after
 * caps of its own size, sizes[k] for frame k; fails otherwise. Returns how
 * many buffers left. */
int check_buffers_under_their_caps(const std::vector<Item>& items, const std::vector<std::pair<int, int>>& sizes);
std::vector<GstClockTime> buffer_pts(const std::vector<Item>& items);
std::string describe_pts(const std::vector<GstClockTime>& pts);
/* Index of a buffer's frame from its PTS. */
int frame_index(GstBuffer* b);

/* Element messages and errors on a bus. */
std::vector<GstMessage*> pop_element_messages(GstBus* bus, const char* name = "waldboostdetect");

struct ErrorInfo {
    bool found = false;
    GQuark domain = 0;
    int code = 0;
    std::string message, debug;
    std::string text() const { return message + " | " + debug; }
};

ErrorInfo pop_message(GstBus* bus, GstMessageType type);
ErrorInfo pop_error(GstBus* bus);
bool contains(const std::string& haystack, const std::string& needle);

/* Starts an element with these properties standalone (no harness, whose
 * start asserts success) and expects the state change to fail with an
 * error message, which it returns. */
ErrorInfo start_failure(const Props& props);

/* The warnings and errors on a bus, in order (gst_bus_pop_filtered would
 * drop the messages of the other kind). */
struct BusLog {
    std::vector<ErrorInfo> warnings, errors;
};

BusLog drain_bus(GstBus* bus);
/* A guint64 field of the element's "stats" (G_MAXUINT64 without it). */
guint64 stats_uint64(GstElement* e, const char* field);
int int_property(GstElement* e, const char* name);

/* ------------------------------------------------------------------------ */
/* Box outlines (draw=burn / meta)                                          */

struct Rect {
    int x, y, w, h;
    auto key() const { return std::tie(x, y, w, h); }
    bool operator<(const Rect& o) const { return key() < o.key(); }
    bool operator==(const Rect& o) const { return key() == o.key(); }
};

/* The four bars of each box's outline, line width clipped to half the box
 * and the bars to the frame. */
std::vector<Rect> outline_rects(const std::vector<Box>& boxes, int frame_w, int frame_h, int line_width);
std::vector<bool> outline_mask(const std::vector<Rect>& rects, int w, int h);

/* Reads component c of the frame as pushed (`sent`) and as output. */
struct PlanePair {
    std::vector<uint8_t> before, after;
    int w = 0, h = 0;
};

PlanePair component(const Sent& sent, GstBuffer* out, guint c);
/* Checks a burned frame: luma changed only inside the outlines, every
 * outline pixel the same value (returned); chroma changed only in samples
 * whose luma block touches an outline. */
int check_burn(const Sent& sent, GstBuffer* out, const std::vector<Box>& boxes, int line_width, const char* what);

/* One frame through a new element with `props`. */
struct DrawRun {
    std::vector<Sent> sent;
    std::vector<GstBuffer*> out;
};

DrawRun run_draw(const Props& props, const GrayImage& img, GstVideoFormat format, bool downstream_overlay_meta = false);

/* ------------------------------------------------------------------------ */
/* Fault injection (a separate process per fault)                           */

/* Runs the fault helper program (element-fault-helper, its path in
 * WALDBOOST_FAULT_HELPER) as `MODE` with WALDBOOST_CL_FAULT=fault; returns
 * its exit status, output in *output. */
int run_fault_helper(const char* mode, const char* fault, std::string* output);

}  // namespace element_test
