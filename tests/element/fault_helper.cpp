/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * element-fault-helper MODE: one device fault scenario of the element tests,
 * in a process of its own. OpenCL fault injection (WALDBOOST_CL_FAULT) is
 * read once per process, so the errors and fallback cases run this program
 * (run_fault_helper() in harness.cpp, the path in WALDBOOST_FAULT_HELPER)
 * with the variable set. It runs outside libcheck: a failed check prints
 * FAILED and exits 1; a scenario that passes prints PASS and exits 0.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "harness.h"

using namespace element_test;

namespace {

#define HELPER_CHECK(cond, ...)                              \
    do {                                                     \
        if (!(cond)) {                                       \
            g_print("FAILED (%s:%d): ", __FILE__, __LINE__); \
            g_print(__VA_ARGS__);                            \
            g_print("\n");                                   \
            return 1;                                        \
        }                                                    \
    } while (0)

/* A standalone element that must fail to start with this error. */
int helper_start_fails(GQuark domain, int code, const char* in_message)
{
    GstElement* e = gst_element_factory_make("waldboostdetect", nullptr);
    HELPER_CHECK(e, "no waldboostdetect element");
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    const GstStateChangeReturn ret = gst_element_set_state(e, GST_STATE_PLAYING);
    HELPER_CHECK(ret == GST_STATE_CHANGE_FAILURE, "the state change returned %s, not FAILURE",
                 gst_element_state_change_return_get_name(ret));
    ErrorInfo info = pop_error(bus);
    HELPER_CHECK(info.found, "no error message on the bus");
    g_print("error: %s (%s %d) | %s\n", info.message.c_str(), g_quark_to_string(info.domain), info.code,
            info.debug.c_str());
    HELPER_CHECK(info.domain == domain && info.code == code, "error %s/%d, expected %s/%d",
                 g_quark_to_string(info.domain), info.code, g_quark_to_string(domain), code);
    HELPER_CHECK(contains(info.message, in_message), "the message does not say \"%s\"", in_message);
    /* The reason, not only the debug text: the injected fault's code. */
    HELPER_CHECK(contains(info.message, "CL_OUT_OF_RESOURCES"), "the message does not give the reason");
    HELPER_CHECK(gst_element_set_state(e, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "cannot go back to NULL");
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
    return 0;
}

/* A failure while streaming (`call`: enqueue, map or wait): flow error and an
 * error message naming the call, then a clean NULL -> PLAYING that streams
 * again (a frame smaller than the window never reaches the device, where
 * the fault is still armed). */
int helper_streaming_fault(const char* call)
{
    GstHarness* h = gst_harness_new("waldboostdetect");
    /* Synchronous, so that a failed wait shows in the same push. */
    g_object_set(h->element, "max-inflight", 1, nullptr);
    GstBus* bus = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 64, 48);
    const GstFlowReturn flow = gst_harness_push(h, make_frame(synthetic(64, 48), GST_VIDEO_FORMAT_GRAY8, 0));
    HELPER_CHECK(flow == GST_FLOW_ERROR, "push returned %s, not ERROR", gst_flow_get_name(flow));
    ErrorInfo info = pop_error(bus);
    HELPER_CHECK(info.found, "no error message after the failed enqueue");
    g_print("error: %s (%s %d) | %s\n", info.message.c_str(), g_quark_to_string(info.domain), info.code,
            info.debug.c_str());
    HELPER_CHECK(info.domain == GST_RESOURCE_ERROR, "error domain %s", g_quark_to_string(info.domain));
    HELPER_CHECK(contains(info.debug, call), "the debug text does not name the failed call");
    /* The injected fault is CL_OUT_OF_RESOURCES: out of resources, said in
     * the main message with the call that failed. */
    HELPER_CHECK(info.code == GST_RESOURCE_ERROR_NO_SPACE_LEFT, "error code %d, not NO_SPACE_LEFT", info.code);
    HELPER_CHECK(contains(info.message, call) && contains(info.message, "CL_OUT_OF_RESOURCES"),
                 "the message does not give the reason");
    GstBuffer* leaked = gst_harness_try_pull(h);
    HELPER_CHECK(leaked == nullptr, "the failed frame came out");

    HELPER_CHECK(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "to NULL failed");
    HELPER_CHECK(gst_element_set_state(h->element, GST_STATE_PLAYING) == GST_STATE_CHANGE_SUCCESS,
                 "back to PLAYING failed");
    gst_harness_push_event(h, gst_event_new_stream_start("again"));
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    for (int i = 0; i < 3; ++i) {
        const GstFlowReturn f =
            gst_harness_push(h, make_frame(synthetic(16, 16, i), GST_VIDEO_FORMAT_GRAY8, pts_of(i)));
        HELPER_CHECK(f == GST_FLOW_OK, "push after the restart returned %s", gst_flow_get_name(f));
    }
    HELPER_CHECK(gst_harness_push_event(h, gst_event_new_eos()), "EOS refused after the restart");
    std::vector<GstBuffer*> out = pull_all(h);
    HELPER_CHECK(out.size() == 3, "%zu frames came out after the restart, expected 3", out.size());
    unref_all(out);
    HELPER_CHECK(!pop_error(bus).found, "an error after the restart");
    teardown_with_bus(h, bus);
    return 0;
}

/* harness_with() for the helpers, which run outside libcheck (no
 * fail_unless), with `bus` attached before the element starts. */
GstHarness* helper_harness(const Props& props, GstBus* bus)
{
    GstElement* e = gst_element_factory_make("waldboostdetect", nullptr);
    g_assert(e != nullptr);
    for (const auto& [name, value] : props)
        gst_util_set_object_arg(G_OBJECT(e), name.c_str(), value.c_str());
    gst_element_set_bus(e, bus);
    GstHarness* h = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    return h;
}

/* `frames` GRAY8 200x160 face frames through h, then EOS: every frame must
 * leave, in order, with the core's detections (none lost, reordered or
 * given another frame's). 0 when they do. */
int faces_leave_in_order(GstHarness* h, int frames)
{
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    for (int k = 0; k < frames; ++k)
        HELPER_CHECK(push_frame(h, face_frame(k), GST_VIDEO_FORMAT_GRAY8, k) == GST_FLOW_OK, "push %d failed", k);
    HELPER_CHECK(gst_harness_push_event(h, gst_event_new_eos()), "EOS refused");
    std::vector<GstBuffer*> out = pull_all(h);
    HELPER_CHECK(out.size() == static_cast<size_t>(frames), "%zu frames came out, expected %d", out.size(), frames);
    for (int k = 0; k < frames; ++k) {
        HELPER_CHECK(frame_index(out[k]) == k, "frame %d left in place %d", frame_index(out[k]), k);
        const std::vector<Box> want = expected_boxes(core(face_frame(k)), "face");
        HELPER_CHECK(!want.empty() && roi_boxes(out[k]) == want, "frame %d: element %s, core %s", k,
                     describe(roi_boxes(out[k])).c_str(), describe(want).c_str());
    }
    unref_all(out);
    return 0;
}

/* Device lists for the fallback helpers: the same device twice, so that the
 * fallback path runs on any machine with one OpenCL device (CI has PoCL). */
constexpr const char* kTwiceTheSameDevice = "auto, auto";

/* One device of the list fails, the next works: every frame leaves in
 * order with the core's detections (none lost, reordered or given another
 * frame's), the bus has one warning that says `what` and names the failed
 * call (`call`), no error, and the stats count one fallback. Used for a
 * failed start (WALDBOOST_CL_FAULT=buffer-create:1, the classifier's upload;
 * a failed program-build:1 would only make the binary cache build from
 * source) and for a failure with frames in flight (enqueue:N, wait:N). */
int helper_fallback_works(const char* what, const char* call, int max_inflight)
{
    constexpr int kFrames = 8;
    GstBus* bus = gst_bus_new();
    GstHarness* h =
        helper_harness({{"device", kTwiceTheSameDevice}, {"max-inflight", std::to_string(max_inflight)}}, bus);
    if (faces_leave_in_order(h, kFrames) != 0)
        return 1;
    const BusLog log = drain_bus(bus);
    HELPER_CHECK(log.warnings.size() == 1, "%zu warnings, expected 1", log.warnings.size());
    g_print("warning: %s\n", log.warnings[0].text().c_str());
    HELPER_CHECK(contains(log.warnings[0].message, what) && contains(log.warnings[0].debug, call),
                 "the warning does not say \"%s\" and name %s", what, call);
    HELPER_CHECK(log.errors.empty(), "an error although the fallback device works");
    HELPER_CHECK(stats_uint64(h->element, "device-fallbacks") == 1, "stats: %" G_GUINT64_FORMAT " fallbacks",
                 stats_uint64(h->element, "device-fallbacks"));
    HELPER_CHECK(stats_uint64(h->element, "frames") == kFrames, "stats: %" G_GUINT64_FORMAT " frames",
                 stats_uint64(h->element, "frames"));
    teardown_with_bus(h, bus);
    return 0;
}

/* inference-region=roi-list through a device failure with frames in flight
 * (enqueue:N) and a change of frame size: frames 0-3 are 200x160, 4-7 the
 * same faces inside 280x220 frames (new, larger buffers), each with two
 * upstream regions that overlap. The area frames in flight when the device
 * fails run again on the next one: every frame leaves in order with, for
 * each region, the core's detections on the region cut out of the frame
 * (moved by its corner), and the bus has one fallback warning. */
int helper_fallback_regions()
{
    constexpr int kFrames = 8;
    GstBus* bus = gst_bus_new();
    GstHarness* h = helper_harness(
        {{"device", kTwiceTheSameDevice}, {"max-inflight", "3"}, {"draw", "none"}, {"inference-region", "roi-list"}},
        bus);
    std::vector<std::vector<Box>> want(kFrames);
    for (int k = 0; k < kFrames; ++k) {
        const bool large = k >= kFrames / 2;
        const GrayImage image = large ? crop(face_frame(k), -40, -30, 280, 220) : face_frame(k);
        if (k == 0 || k == kFrames / 2)
            set_caps(h, GST_VIDEO_FORMAT_GRAY8, image.width, image.height);
        const Rect regions[] = {{large ? 30 : 0, large ? 20 : 0, 170, 150},
                                {image.width / 3, 0, image.width - image.width / 3, image.height}};
        GstBuffer* b = make_frame(image, GST_VIDEO_FORMAT_GRAY8, pts_of(k));
        for (const Rect& r : regions) {
            gst_buffer_add_video_region_of_interest_meta(b, "pedestrian", static_cast<guint>(r.x),
                                                         static_cast<guint>(r.y), static_cast<guint>(r.w),
                                                         static_cast<guint>(r.h));
            want[k].push_back(Box{"pedestrian", r.x, r.y, r.w, r.h});
            for (const Box& face : expected_boxes(core(crop(image, r.x, r.y, r.w, r.h)), "face", r.x, r.y))
                want[k].push_back(face);
        }
        std::sort(want[k].begin(), want[k].end());
        HELPER_CHECK(gst_harness_push(h, b) == GST_FLOW_OK, "push %d failed", k);
    }
    HELPER_CHECK(gst_harness_push_event(h, gst_event_new_eos()), "EOS refused");
    std::vector<GstBuffer*> out = pull_all(h);
    HELPER_CHECK(out.size() == kFrames, "%zu frames came out, expected %d", out.size(), kFrames);
    size_t faces = 0;
    for (int k = 0; k < kFrames; ++k) {
        HELPER_CHECK(frame_index(out[k]) == k, "frame %d left in place %d", frame_index(out[k]), k);
        HELPER_CHECK(roi_boxes(out[k]) == want[k], "frame %d: element %s, core in the regions %s", k,
                     describe(roi_boxes(out[k])).c_str(), describe(want[k]).c_str());
        faces += want[k].size() - 2;
    }
    unref_all(out);
    HELPER_CHECK(faces >= kFrames, "only %zu faces in the regions: the test needs faces to compare", faces);
    const BusLog log = drain_bus(bus);
    HELPER_CHECK(log.errors.empty(), "an error although the fallback device works");
    HELPER_CHECK(log.warnings.size() == 1, "%zu warnings, expected 1", log.warnings.size());
    g_print("warning: %s\n", log.warnings[0].text().c_str());
    HELPER_CHECK(contains(log.warnings[0].message, "failed while streaming"), "not the fallback's warning");
    HELPER_CHECK(stats_uint64(h->element, "device-fallbacks") == 1, "stats: %" G_GUINT64_FORMAT " fallbacks",
                 stats_uint64(h->element, "device-fallbacks"));
    teardown_with_bus(h, bus);
    return 0;
}

/* Every device of the list fails while streaming (enqueue:N+): a warning for
 * the fallback, then the error; the frames finished before the fault keep
 * their detections, and the element restarts cleanly. */
int helper_fallback_exhausted()
{
    GstBus* bus = gst_bus_new();
    GstHarness* h = helper_harness({{"device", kTwiceTheSameDevice}, {"max-inflight", "2"}}, bus);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 200, 160);
    GstFlowReturn flow = GST_FLOW_OK;
    int pushed = 0;
    while (flow == GST_FLOW_OK && pushed < 12) {
        flow = push_frame(h, face_frame(pushed), GST_VIDEO_FORMAT_GRAY8, pushed);
        ++pushed;
    }
    HELPER_CHECK(flow == GST_FLOW_ERROR, "the pushes never failed (last: %s)", gst_flow_get_name(flow));
    std::vector<GstBuffer*> out = pull_all(h);
    for (size_t k = 0; k < out.size(); ++k) {
        HELPER_CHECK(frame_index(out[k]) == static_cast<int>(k), "frame %d left in place %zu", frame_index(out[k]), k);
        HELPER_CHECK(roi_boxes(out[k]) == expected_boxes(core(face_frame(static_cast<int>(k))), "face"),
                     "frame %zu lost its detections", k);
    }
    g_print("%d pushed, %zu came out before the error\n", pushed, out.size());
    unref_all(out);
    const BusLog log = drain_bus(bus);
    HELPER_CHECK(log.warnings.size() == 1 && contains(log.warnings[0].message, "falling back"),
                 "%zu warnings, expected one fallback", log.warnings.size());
    HELPER_CHECK(log.errors.size() == 1, "%zu errors, expected 1", log.errors.size());
    const ErrorInfo& error = log.errors[0];
    HELPER_CHECK(error.domain == GST_RESOURCE_ERROR && contains(error.debug, "enqueue"),
                 "not an error naming the failed call: %s", error.text().c_str());
    HELPER_CHECK(error.code == GST_RESOURCE_ERROR_NO_SPACE_LEFT && contains(error.message, "enqueue"),
                 "not an out-of-resources error saying why: %s", error.text().c_str());
    g_print("error: %s\n", error.text().c_str());

    HELPER_CHECK(gst_element_set_state(h->element, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "to NULL failed");
    HELPER_CHECK(gst_element_set_state(h->element, GST_STATE_PLAYING) == GST_STATE_CHANGE_SUCCESS,
                 "back to PLAYING failed");
    gst_harness_push_event(h, gst_event_new_stream_start("again"));
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, 16, 16);
    for (int i = 0; i < 3; ++i)
        HELPER_CHECK(push_frame(h, synthetic(16, 16, i), GST_VIDEO_FORMAT_GRAY8, i) == GST_FLOW_OK,
                     "push after the restart failed");
    HELPER_CHECK(gst_harness_push_event(h, gst_event_new_eos()), "EOS refused after the restart");
    out = pull_all(h);
    HELPER_CHECK(out.size() == 3, "%zu frames came out after the restart, expected 3", out.size());
    unref_all(out);
    teardown_with_bus(h, bus);
    return 0;
}

/* Every device of the list fails to start: one warning per fallback, then
 * the start fails with the last device's error. */
int helper_fallback_start_exhausted()
{
    GstElement* e = gst_element_factory_make("waldboostdetect", nullptr);
    g_assert(e != nullptr);
    g_object_set(e, "device", kTwiceTheSameDevice, nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    HELPER_CHECK(gst_element_set_state(e, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE, "the start did not fail");
    const BusLog log = drain_bus(bus);
    HELPER_CHECK(log.warnings.size() == 1 && contains(log.warnings[0].message, "falling back"),
                 "%zu warnings, expected one fallback", log.warnings.size());
    HELPER_CHECK(log.errors.size() == 1 && log.errors[0].domain == GST_LIBRARY_ERROR &&
                     log.errors[0].code == GST_LIBRARY_ERROR_INIT,
                 "not one kernel build error (%zu errors)", log.errors.size());
    g_print("error: %s\n", log.errors[0].text().c_str());
    HELPER_CHECK(gst_element_set_state(e, GST_STATE_NULL) == GST_STATE_CHANGE_SUCCESS, "cannot go back to NULL");
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
    return 0;
}

/* Holds the element's first outgoing frame until a warning is on the bus
 * (or kMaxHoldUs passed): the worker, which pushes it, then collects no
 * other frame, so the frames pushed meanwhile are in flight together
 * however fast the device is. */
struct FirstFrameHold {
    static constexpr gint64 kMaxHoldUs = 20 * G_USEC_PER_SEC;
    GMutex lock;
    GCond warned_cond;
    bool warned = false;
    bool held = false;

    FirstFrameHold()
    {
        g_mutex_init(&lock);
        g_cond_init(&warned_cond);
    }
    ~FirstFrameHold()
    {
        g_cond_clear(&warned_cond);
        g_mutex_clear(&lock);
    }

    /* Sync handler: notes a warning and passes every message on. */
    static GstBusSyncReply on_message(GstBus*, GstMessage* m, gpointer data)
    {
        auto* self = static_cast<FirstFrameHold*>(data);
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            g_mutex_lock(&self->lock);
            self->warned = true;
            g_cond_broadcast(&self->warned_cond);
            g_mutex_unlock(&self->lock);
        }
        return GST_BUS_PASS;
    }

    static GstPadProbeReturn on_buffer(GstPad*, GstPadProbeInfo*, gpointer data)
    {
        auto* self = static_cast<FirstFrameHold*>(data);
        const gint64 until = g_get_monotonic_time() + kMaxHoldUs;
        g_mutex_lock(&self->lock);
        if (!self->held) {
            self->held = true;
            while (!self->warned && g_cond_wait_until(&self->warned_cond, &self->lock, until)) {
            }
        }
        g_mutex_unlock(&self->lock);
        return GST_PAD_PROBE_OK;
    }
};

/* An allocation for the second frame in flight fails (buffer-create:3:
 * the classifier's upload, then each slot's first frame): the element keeps
 * one frame in flight instead of failing, warns once, and every frame comes
 * out in order with its detections, on the same device. The first frame
 * is held on its way out until the warning, so that a second frame is in
 * flight whatever the timing (with a fast device and a slow host, as under
 * the sanitizers, every frame could otherwise be done before the next). */
int helper_inflight_shrinks()
{
    constexpr int kFrames = 8;
    GstBus* bus = gst_bus_new();
    /* Static: a failed check returns with the element still holding it. */
    static FirstFrameHold hold;
    gst_bus_set_sync_handler(bus, FirstFrameHold::on_message, &hold, nullptr);
    GstHarness* h = helper_harness({{"max-inflight", "3"}}, bus);
    GstPad* src = gst_element_get_static_pad(h->element, "src");
    const gulong probe = gst_pad_add_probe(src, GST_PAD_PROBE_TYPE_BUFFER, FirstFrameHold::on_buffer, &hold, nullptr);
    if (faces_leave_in_order(h, kFrames) != 0)
        return 1;
    const BusLog log = drain_bus(bus);
    HELPER_CHECK(log.errors.empty(), "an error although one frame in flight fits");
    HELPER_CHECK(log.warnings.size() == 1, "%zu warnings, expected 1", log.warnings.size());
    g_print("warning: %s\n", log.warnings[0].text().c_str());
    /* A refused allocation, not the budget (a 200x160 frame takes about
     * 1 MiB): the warning says what happened, not that max-inflight does
     * not fit the device's memory. */
    HELPER_CHECK(contains(log.warnings[0].message, "refused memory for one more frame") &&
                     contains(log.warnings[0].message, "1 frames are kept") &&
                     contains(log.warnings[0].message, "max-inflight=3") &&
                     !contains(log.warnings[0].message, "does not fit"),
                 "the warning does not say what happened and what was kept");
    HELPER_CHECK(stats_uint64(h->element, "device-fallbacks") == 0, "a fallback for a smaller queue");
    gst_pad_remove_probe(src, probe);
    gst_object_unref(src);
    gst_element_set_bus(h->element, nullptr);
    gst_bus_set_sync_handler(bus, nullptr, nullptr, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
    return 0;
}

/* Three instances of one classifier with batching on (different sizes; a
 * wait budget so that their frames go to the device together), under a
 * fault:
 *   falls_back = false, wait:N: one instance's collect fails; with one
 *     device that instance posts an error, the others deliver every frame
 *     with the core's detections, and the failed one starts again and
 *     streams;
 *   falls_back = true, enqueue:N: a launch of a whole batch fails, so every
 *     frame of that batch sees it; with "auto, auto" each instance concerned
 *     falls back (to the same device, which works again) and no frame is
 *     lost or changed. */
int helper_batch_fault(bool falls_back)
{
    struct Instance {
        int width, height, x0;
        GstBus* bus = nullptr;
        GstHarness* h = nullptr;
        bool failed = false;
        guint64 fallbacks = 0;
        size_t warnings = 0;
    };
    std::vector<Instance> instances = {{200, 160, 110}, {240, 200, 60}, {160, 200, 150}};
    int most_batched = 0;
    auto frame_of = [](const Instance& in, int k) {
        return crop(astronaut(), in.x0 + 2 * k, 10 + k, in.width, in.height);
    };
    auto start = [&](Instance& in) {
        in.bus = gst_bus_new();
        in.h = helper_harness({{"device", falls_back ? kTwiceTheSameDevice : "auto"},
                               {"batching", "true"},
                               {"batch-wait", "50000000"},
                               {"max-inflight", "2"},
                               {"draw", "none"}},
                              in.bus);
        set_caps(in.h, GST_VIDEO_FORMAT_GRAY8, in.width, in.height);
        in.failed = false;
    };
    auto stop = [](Instance& in) {
        in.fallbacks += stats_uint64(in.h->element, "device-fallbacks");
        gst_element_set_bus(in.h->element, nullptr);
        gst_harness_teardown(in.h);
        gst_object_unref(in.bus);
    };
    /* Rounds of one frame per instance. Every frame that leaves an instance
     * has the core's boxes; one that has not failed delivers them all. */
    auto run = [&](int first, int count) {
        for (int k = first; k < first + count; ++k)
            for (Instance& in : instances)
                if (!in.failed && push_frame(in.h, frame_of(in, k), GST_VIDEO_FORMAT_GRAY8, k) != GST_FLOW_OK)
                    in.failed = true;
        int bad = 0;
        for (size_t i = 0; i < instances.size(); ++i) {
            Instance& in = instances[i];
            gst_harness_push_event(in.h,
                                   gst_event_new_custom(GST_EVENT_CUSTOM_DOWNSTREAM, gst_structure_new_empty("drain")));
            std::vector<GstBuffer*> out = pull_all(in.h);
            const BusLog log = drain_bus(in.bus);
            in.warnings += log.warnings.size();
            for (const ErrorInfo& e : log.errors)
                g_print("instance %zu: error: %s\n", i, e.text().c_str());
            in.failed = in.failed || !log.errors.empty();
            if (!in.failed && out.size() != static_cast<size_t>(count)) {
                g_print("instance %zu: %zu frames of %d came out\n", i, out.size(), count);
                ++bad;
            }
            GstStructure* stats = nullptr;
            g_object_get(in.h->element, "stats", &stats, nullptr);
            int batch_frames = 0;
            if (stats && gst_structure_get_int(stats, "batch-frames", &batch_frames))
                most_batched = std::max(most_batched, batch_frames);
            if (stats)
                gst_structure_free(stats);
            for (GstBuffer* b : out) {
                const int k = frame_index(b);
                const std::vector<Box> want = expected_boxes(core(frame_of(in, k)), "face");
                if (roi_boxes(b) != want) {
                    g_print("instance %zu frame %d: element %s, core %s\n", i, k, describe(roi_boxes(b)).c_str(),
                            describe(want).c_str());
                    ++bad;
                }
            }
            unref_all(out);
        }
        return bad;
    };
    for (Instance& in : instances)
        start(in);
    HELPER_CHECK(run(0, 4) == 0, "frames differ or are missing");
    size_t failed = 0;
    for (Instance& in : instances)
        failed += in.failed ? 1 : 0;
    HELPER_CHECK(failed == (falls_back ? 0u : 1u), "%zu instances failed", failed);
    /* The failed one starts again (the fault was transient); all stream. */
    for (Instance& in : instances)
        if (in.failed) {
            stop(in);
            start(in);
        }
    HELPER_CHECK(run(4, 2) == 0, "frames differ or are missing after the restart");
    guint64 fallbacks = 0;
    size_t warnings = 0;
    for (Instance& in : instances) {
        HELPER_CHECK(!in.failed, "an instance failed after the restart");
        stop(in);
        fallbacks += in.fallbacks;
        warnings += in.warnings;
    }
    HELPER_CHECK(most_batched >= 2, "no frames were launched together");
    if (falls_back)
        HELPER_CHECK(fallbacks >= 1 && warnings == fallbacks, "%" G_GUINT64_FORMAT " fallbacks, %zu warnings",
                     fallbacks, warnings);
    else
        HELPER_CHECK(fallbacks == 0, "%" G_GUINT64_FORMAT " fallbacks with one device", fallbacks);
    return 0;
}

int fault_helper(const char* mode)
{
    gst_init(nullptr, nullptr);
    int status = 2;
    if (std::strcmp(mode, "program-build") == 0)
        status = helper_start_fails(GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT, "OpenCL kernels");
    else if (std::strcmp(mode, "buffer-create") == 0)
        status = helper_start_fails(GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT, "memory");
    else if (std::strcmp(mode, "enqueue") == 0 || std::strcmp(mode, "map") == 0 || std::strcmp(mode, "wait") == 0)
        status = helper_streaming_fault(mode);
    else if (std::strcmp(mode, "fallback-at-start") == 0)
        status = helper_fallback_works("falling back to \"auto\"", "buffer-create", 2);
    else if (std::strcmp(mode, "fallback-on-enqueue") == 0)
        status = helper_fallback_works("failed while streaming", "enqueue", 3);
    else if (std::strcmp(mode, "fallback-on-wait") == 0)
        status = helper_fallback_works("failed while streaming", "wait", 3);
    else if (std::strcmp(mode, "fallback-regions") == 0)
        status = helper_fallback_regions();
    else if (std::strcmp(mode, "fallback-exhausted") == 0)
        status = helper_fallback_exhausted();
    else if (std::strcmp(mode, "fallback-start-exhausted") == 0)
        status = helper_fallback_start_exhausted();
    else if (std::strcmp(mode, "inflight-shrinks") == 0)
        status = helper_inflight_shrinks();
    else if (std::strcmp(mode, "batch-one-fails") == 0)
        status = helper_batch_fault(false);
    else if (std::strcmp(mode, "batch-falls-back") == 0)
        status = helper_batch_fault(true);
    else
        g_print("unknown fault helper mode %s\n", mode);
    if (status == 0)
        g_print("PASS\n");
    return status;
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 2) {
        g_printerr("usage: %s MODE (with WALDBOOST_CL_FAULT set; the element tests run it)\n", argv[0]);
        return 2;
    }
    return fault_helper(argv[1]);
}
