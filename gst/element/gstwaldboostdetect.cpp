/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-waldboostdetect
 * @title: waldboostdetect
 *
 * Detects objects (faces with the embedded default classifier) in video with
 * a WaldBoost, LBP or Haar cascade on an OpenCL device, and attaches the
 * results to each buffer: one #GstVideoRegionOfInterestMeta per detection
 * (and per part found inside it with eyes-profile, nose-profile or
 * mouth-profile, its parent_id naming the detection's id), optionally
 * the rectangles as a #GstVideoOverlayCompositionMeta or drawn into the
 * frame, and an element message per frame.
 *
 * Detection runs asynchronously: the streaming thread puts a frame on the
 * device and returns; the element's worker thread pushes each frame on when
 * its detection is done, in order, each with its own detections. Up to
 * #GstWaldboostDetect:max-inflight frames are with the element at once.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=Megamind.avi ! decodebin ! videoconvert ! waldboostdetect ! videoconvert ! autovideosink
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstwaldboostdetect.h"

#include <gst/video/video-overlay-composition.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model/classifier_io.h"
#include "core/embedded/default_classifier.h"
#include "core/opencl/device.h"
#include "core/opencl/engine.h"
#include "core/opencl/template_search.h"
#include "core/opencl/tuner.h"
#include "core/text.h"
#include "box_text.h"
#include "nested_cascades.h"
#include "tracking.h"

GST_DEBUG_CATEGORY_STATIC(gst_waldboost_detect_debug);
#define GST_CAT_DEFAULT gst_waldboost_detect_debug

namespace {

using waldboost::Classifier;
using waldboost::Detection;
namespace wcl = waldboost::opencl;
namespace wel = waldboost_element;

constexpr double kDefaultScaleFactor = 1.1;
constexpr int kDefaultMinNeighbors = 3;
constexpr int kDefaultMaxInflight = 2;
constexpr guint kDefaultColor = 0xff00ff00; /* opaque green, ARGB */
constexpr int kDefaultLineWidth = 2;
constexpr double kDefaultNmsIou = 0.3;
constexpr int kDefaultLostAfter = 15;

/* Everything a user can set. Copied under the lock; the streaming thread
 * applies a changed copy at the next frame boundary. */
struct Settings {
    std::string classifier_path; /* empty: the embedded default */
    std::string label;           /* empty: the classifier's */
    std::string device = "auto";
    double scale_factor = kDefaultScaleFactor;
    int min_size = 0;
    int max_size = 0;
    int stride = 0;
    int min_neighbors = kDefaultMinNeighbors;
    GstWaldboostGrouping grouping = GST_WALDBOOST_GROUPING_OPENCV;
    double nms_iou = kDefaultNmsIou;
    double threshold = 0.0;
    int max_windows = waldboost::kDefaultMaxWindows;
    std::vector<int> roi; /* empty or x, y, width, height */
    int max_inflight = kDefaultMaxInflight;
    GstWaldboostDraw draw = GST_WALDBOOST_DRAW_AUTO;
    guint color = kDefaultColor;
    int line_width = kDefaultLineWidth;
    guint box_text = 0; /* GstWaldboostBoxText flags */
    std::map<std::string, guint> label_colors;
    gboolean post_messages = TRUE;
    GstWaldboostUpdates updates = GST_WALDBOOST_UPDATES_EVERY_FRAME;
    int min_stddev = 0;
    gboolean tracking = FALSE;
    int interval = 1; /* detect on every interval-th frame */
    int lost_after = kDefaultLostAfter;
    wel::NestedPaths nested_paths; /* eyes-, nose-, mouth-profile; empty = none */
    gboolean batching = FALSE;
    GstClockTime batch_wait = 0;
    gboolean profiling = FALSE;
    /* Reduction overrides (the `reduction` property and its aliases); each
     * one unset = the engine's tuned or default value. */
    wcl::ReductionOverrides reduction;

    /* Changes that need a new engine (and so a drained queue). */
    bool engine_differs(const Settings& o) const
    {
        return classifier_path != o.classifier_path || device != o.device || max_inflight != o.max_inflight ||
               reduction != o.reduction || batching != o.batching || batch_wait != o.batch_wait ||
               profiling != o.profiling;
    }
};

/* How a frame's results are shown: fixed when the frame enters, so a
 * property change never reaches frames already in flight. */
struct OutputSettings {
    std::string label; /* resolved: the property or the classifier's */
    GstWaldboostDraw draw = GST_WALDBOOST_DRAW_AUTO;
    guint color = kDefaultColor;
    int line_width = kDefaultLineWidth;
    guint box_text = 0;
    std::map<std::string, guint> label_colors;
    gboolean post_messages = TRUE;
    GstWaldboostUpdates updates = GST_WALDBOOST_UPDATES_EVERY_FRAME;
    gboolean tracking = FALSE;
    int lost_after = kDefaultLostAfter;
    /* The cascades searched inside each detection (null: none), and how. */
    std::shared_ptr<const wel::NestedCascades> nested;
    waldboost::DetectParams nested_params;
};

/* A frame on its way through the engine. It keeps its input buffer and its
 * detection parameters until it leaves, so that a fallback device can run
 * it again. */
struct Pending {
    GstBuffer* buffer = nullptr;
    OutputSettings output;
    waldboost::DetectParams params;
    bool submitted = false; /* false: not on the device (unreadable, flat, or smaller than the window) */
    bool detect = true;     /* false: `interval` skips detection on this frame */
    int roi_x = 0;
    int roi_y = 0;
    int roi_width = 0;
    int roi_height = 0;
    int min_stddev = 0; /* frames flatter than this are not searched */
    guint64 frame = 0;
    /* CPU time spent on the frame so far (stats host-ms), in ns:
     * submitting it and collecting its results. */
    gint64 host_ns = 0;
};

struct Stats {
    guint64 frames = 0;
    double device_ms = 0;
    double weak_per_window = 0;
    guint64 windows = 0;
    std::vector<guint64> candidates;
    std::string scan;       /* "rows" or "reduction" */
    guint64 discarded = 0;
    guint64 windows_cut = 0; /* accepted windows past max-windows, all frames */
    guint64 detections = 0;
    std::string device;     /* the device detection runs on */
    guint64 fallbacks = 0;  /* moves to a later device of the list */
    int batch_frames = 0;   /* frames launched with the last one (batching) */
    double host_ms = 0;       /* CPU time of the last frame (Pending::host_ns) */
    double host_total_ms = 0; /* of every frame */
    /* The device's kernel time, all engines of the process (device-busy-ms). */
    std::weak_ptr<const wcl::BusyTime> device_busy;
};

}  // namespace

struct WaldboostDetectPrivate {
    std::mutex lock; /* guards settings and stats */
    Settings settings;
    Stats stats;

    /* Streaming-thread state. */
    Settings active;
    std::optional<Classifier> classifier;
    std::shared_ptr<const wel::NestedCascades> nested; /* of active.nested_paths; null when all are empty */
    GstVideoInfo info;
    bool have_info = false;
    bool overlay_meta_downstream = false;
    bool overlay_meta_unknown = true; /* ask downstream at the next frame */
    guint64 frame_count = 0;
    bool draw_meta_hinted = false; /* the draw=meta hint was posted */
    bool max_windows_warned = false; /* the max-windows warning was posted */
    bool pool_copy_logged = false; /* keep_upstream_pool_free said why it copies */
    size_t inflight_limit_warned = 0; /* the engine's in-flight limit last warned about */
    /* Frames that could not be read (see warn_unreadable). */
    guint64 unreadable_unreported = 0;
    gint64 unreadable_warned_at = -1; /* g_get_monotonic_time(); -1: never */

    /* Worker-thread state: whether the last frame out had detections
     * (updates=on-change); the tracker (tracking=true), which a flush or a
     * restart asks the worker to drop through tracker_reset. */
    bool last_frame_had_objects = false;
    std::unique_ptr<wel::StreamTracker> tracker;
    std::atomic<bool> tracker_reset{false};

    /* The worker (see "The worker" below): the streaming thread submits
     * frames and returns; the worker waits for the device, attaches the
     * results and pushes the frames downstream, in order. queue_lock guards
     * the engine pointer, the frames in flight and the flags below. The
     * streaming thread's submit and the worker's wait and collect run
     * without it, at the same time (the engine allows one submitter and one
     * collector); anything else that uses the engine (a fallback, a flush,
     * a new engine) holds it and waits until neither is under way. */
    std::mutex queue_lock;
    std::condition_variable queue_changed;
    std::shared_ptr<wcl::Engine> engine;
    size_t device_position = 0;  /* the engine's entry in the device list */
    std::deque<Pending> pending; /* in submission order */
    GstPadActivateModeFunction parent_src_activate_mode = nullptr;
    bool worker_stop = false;
    bool flushing = false;                /* between FLUSH_START and FLUSH_STOP */
    GstBufferPool* leaving_pool = nullptr; /* of the frame the worker is finishing or pushing */
    bool leaving = false;                 /* the worker holds a frame out of `pending` */
    bool submitting = false;              /* the streaming thread is in Engine::submit */
    bool collecting = false;              /* the worker is in Engine::collect */
    /* Downstream's answer to a push, when not OK: returned to upstream
     * from then on, until a flush or a restart (as queue does). */
    GstFlowReturn downstream = GST_FLOW_OK;
    bool failed = false; /* the device failed beyond fallback: GST_FLOW_ERROR was posted */
};

struct _GstWaldboostDetect {
    GstVideoFilter parent;
    WaldboostDetectPrivate* priv;
};

G_DEFINE_TYPE(GstWaldboostDetect, gst_waldboost_detect, GST_TYPE_VIDEO_FILTER)
GST_ELEMENT_REGISTER_DEFINE_WITH_CODE(waldboostdetect, "waldboostdetect", GST_RANK_NONE, GST_TYPE_WALDBOOST_DETECT,
                                      GST_DEBUG_CATEGORY_INIT(gst_waldboost_detect_debug, "waldboostdetect", 0,
                                                              "WaldBoost OpenCL object detection"))

enum {
    PROP_0,
    PROP_CLASSIFIER,
    PROP_LABEL,
    PROP_DEVICE,
    PROP_SCALE_FACTOR,
    PROP_MIN_SIZE,
    PROP_MAX_SIZE,
    PROP_STRIDE,
    PROP_MIN_NEIGHBORS,
    PROP_GROUPING,
    PROP_NMS_IOU,
    PROP_THRESHOLD,
    PROP_MAX_WINDOWS,
    PROP_ROI,
    PROP_MAX_INFLIGHT,
    PROP_DRAW,
    PROP_COLOR,
    PROP_LINE_WIDTH,
    PROP_BOX_TEXT,
    PROP_LABEL_COLORS,
    PROP_POST_MESSAGES,
    PROP_UPDATES,
    PROP_MIN_STDDEV,
    PROP_TRACKING,
    PROP_INTERVAL,
    PROP_LOST_AFTER,
    PROP_EYES_PROFILE, /* then nose and mouth, in wel::kNestedParts order */
    PROP_NOSE_PROFILE,
    PROP_MOUTH_PROFILE,
    PROP_BATCHING,
    PROP_BATCH_WAIT,
    PROP_PROFILING,
    PROP_REDUCTION,
    PROP_STATS,
    /* The reduction's alias properties, one per row of wcl::kReductionParams:
     * PROP_REDUCTION_ALIAS + the row's index. Keep last. */
    PROP_REDUCTION_ALIAS,
};

/* The luma plane of these formats is the grayscale image. */
#define WALDBOOST_CAPS GST_VIDEO_CAPS_MAKE("{ GRAY8, I420, YV12, NV12, NV21, Y42B, Y444 }")

static GType gst_waldboost_draw_get_type()
{
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_WALDBOOST_DRAW_AUTO, "Overlay composition meta when downstream supports it, else burn", "auto"},
        {GST_WALDBOOST_DRAW_META,
         "Attach a GstVideoOverlayCompositionMeta with the rectangles; they show only where an element renders that "
         "meta (e.g. glimagesink), else nothing is drawn (an INFO message says so once)",
         "meta"},
        {GST_WALDBOOST_DRAW_BURN, "Draw the rectangles into the frame", "burn"},
        {GST_WALDBOOST_DRAW_NONE, "Do not draw; metadata and messages only", "none"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstWaldboostDraw", values));
    return type;
}

static GType gst_waldboost_grouping_get_type()
{
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_WALDBOOST_GROUPING_OPENCV, "OpenCV's groupRectangles (as detectMultiScale)", "opencv"},
        {GST_WALDBOOST_GROUPING_NMS, "Non-maximum suppression by score and IoU", "nms"},
        {GST_WALDBOOST_GROUPING_NONE, "Every accepted window", "none"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstWaldboostGrouping", values));
    return type;
}

static GType gst_waldboost_updates_get_type()
{
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_WALDBOOST_UPDATES_EVERY_FRAME, "A message for every frame", "every-frame"},
        {GST_WALDBOOST_UPDATES_ON_CHANGE,
         "A message for a frame with detections after one without, and for one without after one with",
         "on-change"},
        {GST_WALDBOOST_UPDATES_ON_OBJECT, "A message for every frame with detections", "on-object"},
        {GST_WALDBOOST_UPDATES_NONE, "No messages", "none"},
        {GST_WALDBOOST_UPDATES_EVENTS,
         "A \"waldboostdetect-events\" message for a frame on which tracked objects appeared or left (with "
         "tracking=true), instead of the per-frame messages",
         "events"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstWaldboostUpdates", values));
    return type;
}

static GType gst_waldboost_box_text_get_type()
{
    static GType type = 0;
    static const GFlagsValue values[] = {
        {GST_WALDBOOST_BOX_TEXT_LABEL, "The label (the detector's, or the part's: eyes, nose, mouth)", "label"},
        {GST_WALDBOOST_BOX_TEXT_ID, "The id (the track's with tracking=true)", "id"},
        {GST_WALDBOOST_BOX_TEXT_CONFIDENCE, "The confidence (0 to 1)", "confidence"},
        {0, nullptr, nullptr}};
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_flags_register_static("GstWaldboostBoxText", values));
    return type;
}

/* ------------------------------------------------------------------------ */
/* Engine set-up and errors                                                 */

using waldboost::ErrorKind;

namespace {

/* Where a failure happened: loading the classifier, setting up the engine
 * on a device, or detecting while streaming. */
enum class Phase { Load, Setup, Streaming };

}  // namespace

/* The kind of a failure: a waldboost::Error's own, set where the core threw
 * it; an OpenCL error that reached us unwrapped as the device layer would
 * classify it; running out of memory; else `otherwise`. */
static ErrorKind kind_of(const std::exception& e, ErrorKind otherwise)
{
    if (const auto* error = dynamic_cast<const waldboost::Error*>(&e))
        return error->kind();
    if (const auto* cl_error = dynamic_cast<const cl::Error*>(&e))
        return wcl::error_kind(cl_error->err());
    if (dynamic_cast<const std::bad_alloc*>(&e))
        return ErrorKind::OutOfResources;
    return otherwise;
}

/* Whether another device of the list may succeed where one failed with
 * `kind`: not for a classifier, a file or a frame, which every device would
 * refuse alike. Parameters only at set-up, where the reduction's limits are
 * the device's (its largest work group). */
static bool another_device_may_help(ErrorKind kind, Phase phase)
{
    switch (kind) {
    case ErrorKind::NoDevice:
    case ErrorKind::KernelBuild:
    case ErrorKind::OutOfResources:
    case ErrorKind::Device:
        return true;
    case ErrorKind::BadParameter:
        return phase == Phase::Setup;
    case ErrorKind::ClassifierFile:
    case ErrorKind::UnsupportedClassifier:
    case ErrorKind::FrameTooLarge:
    case ErrorKind::Io:
        return false;
    }
    return false;
}

/* A core message for a main (user-visible) message: one line, short. A
 * kernel build failure is "... failed on DEVICE:" and then the build log;
 * its first line joins the first line of the log. The whole text stays in
 * the debug string. */
static std::string reason_of(const std::string& what)
{
    constexpr size_t kMax = 300;
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= what.size() && lines.size() < 2) {
        size_t end = what.find('\n', start);
        if (end == std::string::npos)
            end = what.size();
        std::string line = what.substr(start, end - start);
        while (!line.empty() && g_ascii_isspace(line.back()))
            line.pop_back();
        if (!line.empty())
            lines.push_back(line);
        start = end + 1;
    }
    std::string reason = lines.empty() ? std::string("unknown error") : lines[0];
    if (lines.size() > 1 && reason.back() == ':')
        reason += " " + lines[1];
    if (reason.size() > kMax) {
        /* Never cut a UTF-8 sequence in two. */
        size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xc0) == 0x80)
            --cut;
        reason = reason.substr(0, cut) + "...";
    }
    return reason;
}

/* The loaders' messages start with the file name, which the main message
 * gives already: "PATH: cannot open: ..." -> "cannot open: ...",
 * "PATH:12: featureType: ..." -> "line 12: featureType: ...". */
static std::string without_path(const std::string& reason, const std::string& path)
{
    if (path.empty() || reason.compare(0, path.size(), path) != 0 || reason.size() <= path.size() ||
        reason[path.size()] != ':')
        return reason;
    const size_t rest = path.size() + 1;
    size_t digits = rest;
    while (digits < reason.size() && g_ascii_isdigit(reason[digits]))
        ++digits;
    if (digits > rest && reason.compare(digits, 2, ": ") == 0)
        return "line " + reason.substr(rest, digits - rest) + reason.substr(digits);
    return reason.substr(reason[rest] == ' ' ? rest + 1 : rest);
}

/* Posts the GStreamer error for a failure of kind `kind` with the core's
 * message `what` (`device`: the device spec it happened on). The error's
 * domain and code follow the kind, never the message's text; the main
 * message says what failed and the core's reason (on one line), the debug
 * string the whole core message (a kernel build log included).
 *
 *   ClassifierFile         RESOURCE NOT_FOUND when the file is not there (as
 *                          filesrc), else RESOURCE OPEN_READ: it cannot be
 *                          read or holds no valid classifier.
 *   UnsupportedClassifier  RESOURCE SETTINGS: the file is a valid classifier
 *                          and was read; the setting that names it is what
 *                          must change. Not STREAM WRONG_TYPE, which would
 *                          blame the video stream (an application may
 *                          treat STREAM errors as "cannot play this media").
 *   NoDevice               RESOURCE NOT_FOUND, with the install hint.
 *   KernelBuild            LIBRARY INIT: the OpenCL compiler (a library)
 *                          could not make the kernels.
 *   OutOfResources         RESOURCE NO_SPACE_LEFT.
 *   BadParameter           RESOURCE SETTINGS: a property value, or one the
 *                          device's limits refuse (reduction group sizes).
 *   FrameTooLarge          STREAM FORMAT: the caps negotiated, but frames of
 *                          this size are beyond what the engine can index;
 *                          the stream must change (scale it down, or roi).
 *   Device                 RESOURCE FAILED: an OpenCL call failed.
 *   Io                     RESOURCE OPEN_READ: a file detection needs (the
 *                          kernel sources of WALDBOOST_KERNEL_DIR). */
static void post_load_error(GstWaldboostDetect* self, const std::string& what_failed, const std::string& path,
                            const std::string& what)
{
    const std::string why = without_path(reason_of(what), waldboost::printable(path));
    if (!path.empty() && !g_file_test(path.c_str(), G_FILE_TEST_EXISTS))
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND, ("Could not load %s: %s", what_failed.c_str(), why.c_str()),
                          ("%s", what.c_str()));
    else
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not load %s: %s", what_failed.c_str(), why.c_str()),
                          ("%s", what.c_str()));
}

static void post_error(GstWaldboostDetect* self, const Settings& s, ErrorKind kind, const std::string& what,
                       const std::string& device, Phase phase)
{
    const std::string& path = s.classifier_path;
    /* The path as the core's messages show it: control characters escaped,
     * a long one cut (it is the user's text, and may come from a file). */
    const std::string shown_path = path.empty() ? std::string() : waldboost::printable(path);
    const std::string classifier = path.empty() ? "the embedded classifier" : "\"" + shown_path + "\"";
    const std::string reason = reason_of(what);
    const char* detail = what.c_str();
    GST_INFO_OBJECT(self, "error of kind \"%s\": %s", waldboost::to_string(kind), detail);
    switch (kind) {
    case ErrorKind::ClassifierFile:
        post_load_error(self, "the classifier " + classifier, path, what);
        break;
    case ErrorKind::UnsupportedClassifier: {
        const std::string why = without_path(reason, shown_path);
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                          ("The classifier %s cannot be used: %s", classifier.c_str(), why.c_str()), ("%s", detail));
        break;
    }
    case ErrorKind::NoDevice:
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                          ("No usable OpenCL device for device=\"%s\": %s. Install an OpenCL driver (for the CPU, "
                           "pocl-opencl-icd) and list devices with waldboost-devices or clinfo.",
                           device.c_str(), reason.c_str()),
                          ("%s", detail));
        break;
    case ErrorKind::KernelBuild:
        GST_ERROR_OBJECT(self, "kernel build log: %s", detail);
        GST_ELEMENT_ERROR(self, LIBRARY, INIT,
                          ("Could not build the OpenCL kernels for the device \"%s\": %s", device.c_str(),
                           reason.c_str()),
                          ("%s", detail));
        break;
    case ErrorKind::OutOfResources:
        if (phase == Phase::Load)
            GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                              ("Out of memory loading the classifier %s: %s", classifier.c_str(), reason.c_str()),
                              ("%s", detail));
        else
            GST_ELEMENT_ERROR(self, RESOURCE, NO_SPACE_LEFT,
                              ("Out of memory or other OpenCL resources on the device \"%s\" (a lower "
                               "max-inflight, smaller frames or another device may help): %s",
                               device.c_str(), reason.c_str()),
                              ("%s", detail));
        break;
    case ErrorKind::BadParameter:
        if (phase == Phase::Streaming)
            GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Could not detect with the current settings: %s",
                                                         reason.c_str()),
                              ("%s", detail));
        else
            GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("Could not set up detection: %s", reason.c_str()),
                              ("%s", detail));
        break;
    case ErrorKind::FrameTooLarge:
        GST_ELEMENT_ERROR(self, STREAM, FORMAT,
                          ("The frame is too large for detection: %s. Scale the video down or set a smaller roi.",
                           reason.c_str()),
                          ("%s", detail));
        break;
    case ErrorKind::Device:
        if (phase == Phase::Streaming)
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                              ("OpenCL detection failed on the device \"%s\": %s", device.c_str(), reason.c_str()),
                              ("%s", detail));
        else
            GST_ELEMENT_ERROR(self, RESOURCE, FAILED,
                              ("Could not set up detection on the OpenCL device \"%s\": %s", device.c_str(),
                               reason.c_str()),
                              ("%s", detail));
        break;
    case ErrorKind::Io:
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ, ("Could not read a file detection needs: %s", reason.c_str()),
                          ("%s", detail));
        break;
    }
}

/* Without overrides the engine picks its scan (by rows on CPU devices, the
 * reduction elsewhere) and the reduction's tuned or default parameters
 * itself. Overrides apply on top of those and select the reduction on every
 * device: they would mean nothing to the row scan. */
static wcl::EngineConfig engine_config(const Settings& s, const Classifier& classifier, const wcl::DeviceInfo& device)
{
    wcl::EngineConfig config;
    config.device = s.device;
    config.max_in_flight = s.max_inflight;
    config.batching = s.batching;
    config.batch_wait_ns = s.batch_wait;
    config.profiling = s.profiling;
    if (!s.reduction.empty()) {
        config.reduction = wcl::apply(wcl::preferred_reduction(classifier, device), s.reduction);
        config.scan = wcl::ScanMethod::Reduction;
    }
    return config;
}

/* Builds the engine on the first device of `s.device`'s list, from entry
 * `first` on, that works; each one that fails is a warning while another is
 * left to try, and the last failure is the error. */
static gboolean build_engine(GstWaldboostDetect* self, const Settings& s, size_t first)
{
    WaldboostDetectPrivate* p = self->priv;
    const std::vector<std::string> specs = wcl::split_device_list(s.device);
    for (size_t i = first; i < specs.size(); ++i) {
        try {
            /* The device's defaults first, then the user's overrides. */
            const wcl::SelectedDevice device = wcl::select_device(specs[i]);
            wcl::EngineConfig config = engine_config(s, *p->classifier, device.info);
            config.device = specs[i];
            p->engine = std::make_shared<wcl::Engine>(*p->classifier, config);
            p->device_position = i;
            {
                std::lock_guard<std::mutex> guard(p->lock);
                p->stats.device = wcl::describe(p->engine->device());
                p->stats.device_busy = p->engine->device_busy_counter();
                if (i > 0)
                    ++p->stats.fallbacks;
            }
            const wcl::BuildReport& build = p->engine->build_report();
            const wcl::SharingReport sharing = p->engine->sharing();
            GST_INFO_OBJECT(self, "engine on %s; kernels %s in %.1f ms%s%s",
                            wcl::describe(p->engine->device()).c_str(),
                            sharing.program_shared ? "shared with another instance"
                            : build.cache_hit      ? "from the cache"
                                                   : "built",
                            build.milliseconds, build.log.empty() ? "" : "; build log: ", build.log.c_str());
            /* One context, program and classifier upload per device and
             * process, whatever the number of instances (cameras). */
            GST_INFO_OBJECT(self, "%ld engines in this process on this device; OpenCL context %s, program %s, "
                            "classifier %s",
                            sharing.engines_on_device, sharing.context_shared ? "shared" : "new",
                            sharing.program_shared ? "shared" : "built here",
                            sharing.classifier_shared ? "shared" : "uploaded here");
            return TRUE;
        } catch (const std::exception& e) {
            p->engine.reset();
            const ErrorKind kind = kind_of(e, ErrorKind::Device);
            if (i + 1 == specs.size() || !another_device_may_help(kind, Phase::Setup)) {
                post_error(self, s, kind, e.what(), specs[i], Phase::Setup);
                return FALSE;
            }
            GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                                ("OpenCL device \"%s\" failed (%s); falling back to \"%s\".", specs[i].c_str(),
                                 reason_of(e.what()).c_str(), specs[i + 1].c_str()),
                                ("%s", e.what()));
        }
    }
    return FALSE;
}

/* Loads the nested cascades of `s` unless they are loaded already. */
static bool load_nested(GstWaldboostDetect* self, const Settings& s)
{
    WaldboostDetectPrivate* p = self->priv;
    const bool none = std::all_of(s.nested_paths.begin(), s.nested_paths.end(),
                                  [](const std::string& path) { return path.empty(); });
    if (none) {
        p->nested.reset();
        return true;
    }
    if (p->nested && p->nested->paths == s.nested_paths)
        return true;
    size_t failed = 0;
    try {
        p->nested = wel::load_nested_cascades(s.nested_paths, &failed);
    } catch (const std::exception& e) {
        p->nested.reset();
        const std::string& path = s.nested_paths[failed];
        post_load_error(self,
                        std::string(wel::kNestedParts[failed].property) + " \"" + waldboost::printable(path) + "\"",
                        path, e.what());
        return false;
    }
    return true;
}

/* Loads the classifiers and builds the engine for `s`. */
static gboolean setup_engine(GstWaldboostDetect* self, const Settings& s)
{
    WaldboostDetectPrivate* p = self->priv;
    if (!load_nested(self, s))
        return FALSE;
    try {
        p->classifier = s.classifier_path.empty() ? waldboost::default_classifier()
                                                  : waldboost::load_classifier_file(s.classifier_path);
    } catch (const std::exception& e) {
        post_error(self, s, kind_of(e, ErrorKind::ClassifierFile), e.what(), s.device, Phase::Load);
        return FALSE;
    }
    if (!build_engine(self, s, 0))
        return FALSE;
    p->active = s;
    return TRUE;
}

/* ------------------------------------------------------------------------ */
/* Reading frames                                                           */

/* What is wrong with a mapped frame's planes, or "" when every plane lies
 * inside the memory mapped for it. gst_video_frame_map() trusts a
 * GstVideoMeta's offsets and strides (and its width and height): it only
 * checks that each plane's first byte is in the buffer. A buggy or hostile
 * upstream (an appsrc application, say) may attach a meta that claims more
 * than the buffer holds; reading such a frame (the engine copies the luma
 * plane) or drawing into it (draw=burn) would run past the memory. */
static std::string plane_problem(const GstVideoFrame* frame)
{
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    for (guint plane = 0; plane < GST_VIDEO_FRAME_N_PLANES(frame); ++plane) {
        /* The plane's rows, each as wide as its components reach. */
        guint64 row_bytes = 0, rows = 0;
        for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(frame); ++c) {
            if (GST_VIDEO_FORMAT_INFO_PLANE(finfo, c) != plane)
                continue;
            const guint64 w = static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_WIDTH(frame, c), 0));
            const guint64 h = static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_HEIGHT(frame, c), 0));
            if (w == 0 || h == 0)
                continue;
            const guint64 bytes = static_cast<guint64>(GST_VIDEO_FRAME_COMP_POFFSET(frame, c)) +
                                  (w - 1) * static_cast<guint64>(std::max(GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c), 0)) +
                                  std::max<guint64>(1, (GST_VIDEO_FORMAT_INFO_DEPTH(finfo, c) + 7) / 8);
            row_bytes = std::max(row_bytes, bytes);
            rows = std::max(rows, h);
        }
        if (rows == 0)
            continue;
        const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE(frame, plane);
        if (stride <= 0 || static_cast<guint64>(stride) < row_bytes)
            return "plane " + std::to_string(plane) + ": the stride " + std::to_string(stride) +
                   " is smaller than a row (" + std::to_string(row_bytes) + " bytes)";
        /* With a GstVideoMeta each plane has its own map (the memory that
         * holds its offset), else map[0] is the whole buffer. */
        const GstMapInfo& map = frame->meta ? frame->map[plane] : frame->map[0];
        const auto* data = static_cast<const guint8*>(frame->data[plane]);
        if (!map.data || data < map.data || data > map.data + map.size)
            return "plane " + std::to_string(plane) + " starts outside its memory";
        const guint64 available = map.size - static_cast<guint64>(data - map.data);
        const guint64 needed = (rows - 1) * static_cast<guint64>(stride) + row_bytes;
        if (needed > available)
            return "plane " + std::to_string(plane) + " needs " + std::to_string(needed) + " bytes (" +
                   std::to_string(rows) + " rows, stride " + std::to_string(stride) + ") but its memory holds " +
                   std::to_string(available) + " from where the plane starts";
    }
    return "";
}

/* Maps `buffer` as a frame of `info` whose every plane lies inside the
 * buffer's memory. False, with the reason in `why`, when it cannot be
 * mapped (a buffer smaller than its caps claim, a GstVideoMeta that does
 * not match the caps or whose planes reach past the memory); the frame is
 * then not mapped. */
static bool map_checked_frame(GstVideoFrame* frame, GstVideoInfo* info, GstBuffer* buffer, GstMapFlags flags,
                              std::string* why)
{
    const GstVideoMeta* meta = gst_buffer_get_video_meta(buffer);
    /* gst_video_frame_map() would only g_return_val_if_fail() on these. */
    if (meta && (meta->format != GST_VIDEO_INFO_FORMAT(info) || meta->n_planes != GST_VIDEO_INFO_N_PLANES(info) ||
                 meta->width < static_cast<guint>(GST_VIDEO_INFO_WIDTH(info)) ||
                 meta->height < static_cast<guint>(GST_VIDEO_INFO_HEIGHT(info)))) {
        gchar* text = g_strdup_printf("its GstVideoMeta (%s %ux%u, %u planes) does not match the caps (%s %dx%d)",
                                      gst_video_format_to_string(meta->format), meta->width, meta->height,
                                      meta->n_planes, GST_VIDEO_INFO_NAME(info), GST_VIDEO_INFO_WIDTH(info),
                                      GST_VIDEO_INFO_HEIGHT(info));
        *why = text;
        g_free(text);
        return false;
    }
    if (!gst_video_frame_map(frame, info, buffer, flags)) {
        gchar* text = meta ? g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes: the planes of its GstVideoMeta "
                                             "could not be mapped (an offset past the end)",
                                             gst_buffer_get_size(buffer))
                           : g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes does not hold a %dx%d frame",
                                             gst_buffer_get_size(buffer), GST_VIDEO_INFO_WIDTH(info),
                                             GST_VIDEO_INFO_HEIGHT(info));
        *why = text;
        g_free(text);
        return false;
    }
    const std::string problem = plane_problem(frame);
    if (!problem.empty()) {
        gst_video_frame_unmap(frame);
        gchar* text = g_strdup_printf("buffer of %" G_GSIZE_FORMAT " bytes: its GstVideoMeta claims more: %s",
                                      gst_buffer_get_size(buffer), problem.c_str());
        *why = text;
        g_free(text);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------ */
/* Output: metadata, drawing, messages                                      */

/* A frame-clipped bar of a box outline. */
struct Bar {
    int x, y, w, h;
};

/* The four bars of each box outline (line width at most half the box),
 * clipped to the frame. */
static std::vector<Bar> outline_bars(const std::vector<Detection>& detections, int frame_w, int frame_h,
                                     int line_width)
{
    std::vector<Bar> bars;
    bars.reserve(detections.size() * 4);
    auto add = [&](int x, int y, int w, int h) {
        /* In 64 bits: a box at the far end of int's range must not wrap. */
        const int64_t x0 = std::clamp<int64_t>(x, 0, frame_w), y0 = std::clamp<int64_t>(y, 0, frame_h);
        const int64_t x1 = std::clamp<int64_t>(int64_t{x} + w, 0, frame_w);
        const int64_t y1 = std::clamp<int64_t>(int64_t{y} + h, 0, frame_h);
        if (x1 > x0 && y1 > y0)
            bars.push_back(Bar{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0),
                               static_cast<int>(y1 - y0)});
    };
    for (const Detection& d : detections) {
        const int lw = std::min({line_width, d.rect.width / 2, d.rect.height / 2});
        if (lw <= 0)
            continue;
        add(d.rect.x, d.rect.y, d.rect.width, lw);
        add(d.rect.x, d.rect.y + d.rect.height - lw, d.rect.width, lw);
        add(d.rect.x, d.rect.y + lw, lw, d.rect.height - 2 * lw);
        add(d.rect.x + d.rect.width - lw, d.rect.y + lw, lw, d.rect.height - 2 * lw);
    }
    return bars;
}

static GstVideoOverlayRectangle* argb_rectangle(int x, int y, int w, int h, const std::vector<guint32>& words)
{
    GstBuffer* pixels = gst_buffer_new_allocate(nullptr, words.size() * 4, nullptr);
    gst_buffer_fill(pixels, 0, words.data(), words.size() * 4);
    /* GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB is ARGB in native-endian 32-bit words. */
    gst_buffer_add_video_meta(pixels, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, w, h);
    GstVideoOverlayRectangle* r =
        gst_video_overlay_rectangle_new_raw(pixels, x, y, w, h, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
    gst_buffer_unref(pixels);
    return r;
}

/* Up to this many boxes, draw=meta attaches one small rectangle per outline
 * bar (what renderers blend fastest); more boxes share one rectangle over
 * their bounding area, so that a frame with thousands of boxes is one
 * buffer, not four per box. */
constexpr size_t kMaxBoxesAsBars = 64;

/* Adds a rectangle to *comp (made on the first), taking its reference. */
static void add_rectangle(GstVideoOverlayComposition** comp, GstVideoOverlayRectangle* r)
{
    if (!r)
        return;
    if (!*comp)
        *comp = gst_video_overlay_composition_new(r);
    else
        gst_video_overlay_composition_add_rectangle(*comp, r);
    gst_video_overlay_rectangle_unref(r);
}

/* Adds the box outlines to an overlay composition (draw=meta). */
static void add_box_rectangles(GstVideoOverlayComposition** comp, const std::vector<Detection>& detections,
                               int frame_w, int frame_h, int line_width, guint argb)
{
    const std::vector<Bar> bars = outline_bars(detections, frame_w, frame_h, line_width);
    if (bars.empty())
        return;
    if (detections.size() <= kMaxBoxesAsBars) {
        for (const Bar& b : bars)
            add_rectangle(comp, argb_rectangle(b.x, b.y, b.w, b.h,
                                               std::vector<guint32>(static_cast<size_t>(b.w) * b.h,
                                                                    static_cast<guint32>(argb))));
        return;
    }
    int x0 = frame_w, y0 = frame_h, x1 = 0, y1 = 0;
    for (const Bar& b : bars) {
        x0 = std::min(x0, b.x);
        y0 = std::min(y0, b.y);
        x1 = std::max(x1, b.x + b.w);
        y1 = std::max(y1, b.y + b.h);
    }
    const int w = x1 - x0, h = y1 - y0;
    std::vector<guint32> words(static_cast<size_t>(w) * h, 0u); /* transparent */
    for (const Bar& b : bars)
        for (int y = b.y; y < b.y + b.h; ++y)
            std::fill_n(words.begin() + (static_cast<size_t>(y - y0) * w + (b.x - x0)), b.w,
                        static_cast<guint32>(argb));
    add_rectangle(comp, argb_rectangle(x0, y0, w, h, words));
}

/* The bytes of `plane` from its first byte to the end of its memory. */
static guint64 plane_bytes(const GstVideoFrame* frame, guint plane)
{
    const GstMapInfo& map = frame->meta ? frame->map[plane] : frame->map[0];
    const auto* data = static_cast<const guint8*>(frame->data[plane]);
    if (!map.data || data < map.data || data > map.data + map.size)
        return 0;
    return map.size - static_cast<guint64>(data - map.data);
}

/* Draws the box outlines into the frame (draw=burn): each bar blended into
 * every component straight in the mapped planes. The colour goes to Y'CbCr with BT.709's
 * studio-range coefficients, as GStreamer's overlay blending did here
 * before (within 1 for rounding). No buffer per bar: thousands of boxes cost
 * their pixels only. Every write is checked against the plane's mapped
 * memory (map_checked_frame checked the planes as a whole already). */
static void burn_boxes(GstVideoFrame* frame, const std::vector<Detection>& detections, int line_width, guint argb)
{
    const int frame_w = GST_VIDEO_FRAME_WIDTH(frame), frame_h = GST_VIDEO_FRAME_HEIGHT(frame);
    const std::vector<Bar> bars = outline_bars(detections, frame_w, frame_h, line_width);
    if (bars.empty())
        return;
    const int a = (argb >> 24) & 0xff;
    const double r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;
    const double luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const long value[3] = {std::lround(16.0 + luma * 219.0 / 255.0),
                           std::lround(128.0 + (b - luma) / 1.8556 * 224.0 / 255.0),
                           std::lround(128.0 + (r - luma) / 1.5748 * 224.0 / 255.0)};
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    const guint components = std::min<guint>(GST_VIDEO_FRAME_N_COMPONENTS(frame), 3);
    for (guint c = 0; c < components; ++c) {
        const int comp_w = GST_VIDEO_FRAME_COMP_WIDTH(frame, c), comp_h = GST_VIDEO_FRAME_COMP_HEIGHT(frame, c);
        const int w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c), h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c);
        const int stride = GST_VIDEO_FRAME_COMP_STRIDE(frame, c), pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c);
        const guint plane = GST_VIDEO_FRAME_COMP_PLANE(frame, c);
        auto* data = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(frame, plane));
        const guint64 available = plane_bytes(frame, plane);
        const guint64 offset = static_cast<guint64>(GST_VIDEO_FRAME_COMP_POFFSET(frame, c));
        if (!data || stride <= 0 || pstride <= 0)
            continue;
        const int v = static_cast<int>(std::clamp(value[c], 0L, 255L));
        for (const Bar& bar : bars) {
            /* A subsampled sample takes the colour when the bar covers the
             * first pixel of its block (as the overlay blending did). */
            auto first_sample = [](int luma, int sub) { return (luma + (1 << sub) - 1) >> sub; };
            const int cx0 = first_sample(bar.x, w_sub), cy0 = first_sample(bar.y, h_sub);
            const int cx1 = std::min(comp_w, first_sample(bar.x + bar.w, w_sub));
            const int cy1 = std::min(comp_h, first_sample(bar.y + bar.h, h_sub));
            if (cx1 <= cx0 || cy1 <= cy0)
                continue;
            /* The bar's last byte must lie inside the plane's memory. */
            const guint64 last =
                offset + static_cast<guint64>(cy1 - 1) * stride + static_cast<guint64>(cx1 - 1) * pstride;
            if (last >= available)
                continue;
            for (int y = cy0; y < cy1; ++y) {
                guint8* p = data + offset + static_cast<size_t>(y) * stride + static_cast<size_t>(cx0) * pstride;
                for (int x = cx0; x < cx1; ++x, p += pstride)
                    *p = static_cast<guint8>((a * v + (255 - a) * *p + 127) / 255);
            }
        }
    }
}

/* The buffer's stream and running times (GST_CLOCK_TIME_NONE outside a
 * time segment). */
static void buffer_times(GstWaldboostDetect* self, GstBuffer* buffer, GstClockTime* stream_time,
                         GstClockTime* running_time)
{
    const GstSegment* segment = &GST_BASE_TRANSFORM(self)->segment;
    const GstClockTime ts = GST_BUFFER_PTS(buffer);
    *stream_time = GST_CLOCK_TIME_NONE;
    *running_time = GST_CLOCK_TIME_NONE;
    if (GST_CLOCK_TIME_IS_VALID(ts) && segment->format == GST_FORMAT_TIME) {
        *stream_time = gst_segment_to_stream_time(segment, GST_FORMAT_TIME, ts);
        *running_time = gst_segment_to_running_time(segment, GST_FORMAT_TIME, ts);
    }
}

static void post_events_message(GstWaldboostDetect* self, GstBuffer* buffer, guint64 frame,
                                const std::vector<waldboost::tracking::TrackEvent>& events, const std::string& label)
{
    GstClockTime stream_time, running_time;
    buffer_times(self, buffer, &stream_time, &running_time);
    GstStructure* s =
        wel::events_structure(events, label.c_str(), frame, GST_BUFFER_PTS(buffer), stream_time, running_time);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

static void post_detections_message(GstWaldboostDetect* self, GstBuffer* buffer, guint64 frame,
                                    const std::vector<wel::ReportedObject>& objects, const std::string& label,
                                    const wel::NestedCascades* nested, const std::vector<wel::FoundPart>& parts,
                                    guint64 windows_cut)
{
    const GstClockTime ts = GST_BUFFER_PTS(buffer);
    GstClockTime stream_time, running_time;
    buffer_times(self, buffer, &stream_time, &running_time);
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (size_t i = 0; i < objects.size(); ++i) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, GST_TYPE_STRUCTURE);
        GstStructure* s = wel::detection_message_item(objects[i].detection, label.c_str());
        wel::add_track_fields(s, objects[i]);
        if (nested)
            wel::add_part_lists(s, i, *nested, parts);
        g_value_take_boxed(&item, s);
        gst_value_list_append_and_take_value(&list, &item);
    }
    GstStructure* s = gst_structure_new("waldboostdetect", "timestamp", G_TYPE_UINT64, ts, "stream-time",
                                        G_TYPE_UINT64, stream_time, "running-time", G_TYPE_UINT64, running_time,
                                        "duration", G_TYPE_UINT64, GST_BUFFER_DURATION(buffer), "frame", G_TYPE_UINT64,
                                        frame, "windows-cut", G_TYPE_UINT64, windows_cut, nullptr);
    gst_structure_take_value(s, "detections", &list);
    gst_element_post_message(GST_ELEMENT(self), gst_message_new_element(GST_OBJECT(self), s));
}

/* The calling thread's CPU time (ns): the element's host cost of a frame,
 * without the time its threads wait for the device, for each other or for
 * a core (wall time of the same sections grew 40-fold with 64 instances on
 * 16 cores). */
static gint64 thread_cpu_ns()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<gint64>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

/* The parts the nested cascades find inside the frame's detections, on
 * the CPU (see nested_cascades.h). */
static std::vector<wel::FoundPart> find_nested_parts(GstWaldboostDetect* self, const Pending& pending,
                                                     const std::vector<Detection>& detections)
{
    const wel::NestedCascades* nested = pending.output.nested.get();
    if (!nested || detections.empty())
        return {};
    GstVideoFrame frame;
    std::string why;
    if (!map_checked_frame(&frame, &self->priv->info, pending.buffer, GST_MAP_READ, &why)) {
        /* The frame was read a moment ago, so this does not happen. */
        GST_WARNING_OBJECT(self, "frame %" G_GUINT64_FORMAT ": not searched for parts: %s", pending.frame,
                           why.c_str());
        return {};
    }
    const waldboost::GrayView view{static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)),
                                   GST_VIDEO_FRAME_WIDTH(&frame), GST_VIDEO_FRAME_HEIGHT(&frame),
                                   static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0))};
    std::vector<wel::FoundPart> parts = wel::find_parts(*nested, pending.output.nested_params, view, detections);
    gst_video_frame_unmap(&frame);
    return parts;
}

/* Whether a frame's message is due under `updates` (facedetect's rules);
 * runs on the worker, which finishes the frames in order. */
static bool message_due(GstWaldboostDetect* self, GstWaldboostUpdates updates, bool has_objects)
{
    WaldboostDetectPrivate* p = self->priv;
    const bool changed = has_objects != p->last_frame_had_objects;
    p->last_frame_had_objects = has_objects;
    switch (updates) {
    case GST_WALDBOOST_UPDATES_EVERY_FRAME: return true;
    case GST_WALDBOOST_UPDATES_ON_CHANGE: return changed;
    case GST_WALDBOOST_UPDATES_ON_OBJECT: return has_objects;
    case GST_WALDBOOST_UPDATES_NONE:
    case GST_WALDBOOST_UPDATES_EVENTS: break;
    }
    return false;
}

/* The colour of a label's boxes and text tags: label-colors, else the
 * `color` property for the detector's label, else the part's own. */
static guint label_color(const OutputSettings& s, const std::string& label)
{
    static const guint kPartColors[wel::kNestedParts.size()] = {0xff2090ff, 0xffffd000, 0xffff40c0};
    const auto named = s.label_colors.find(label);
    if (named != s.label_colors.end())
        return named->second;
    for (size_t k = 0; k < wel::kNestedParts.size(); ++k)
        if (label == wel::kNestedParts[k].name && label != s.label)
            return kPartColors[k];
    return s.color;
}

/* What box-text puts on a box: the label, "#id", the confidence. */
static std::string box_text(guint flags, const std::string& label, const Detection& d, const gint* id)
{
    std::string text;
    auto add = [&](const std::string& piece) { text += (text.empty() ? "" : " ") + piece; };
    if (flags & GST_WALDBOOST_BOX_TEXT_LABEL)
        add(label);
    if ((flags & GST_WALDBOOST_BOX_TEXT_ID) && id)
        add("#" + std::to_string(*id));
    if (flags & GST_WALDBOOST_BOX_TEXT_CONFIDENCE) {
        char confidence[16];
        g_snprintf(confidence, sizeof confidence, "%.2f", static_cast<double>(d.confidence));
        add(confidence);
    }
    return text;
}

/* Draws a frame's boxes (and box-text) as draw selects: an overlay
 * composition meta, or into the frame. */
static void draw_results(GstWaldboostDetect* self, GstBuffer* buffer, const Pending& pending,
                         const std::vector<wel::ReportedObject>& objects, const std::vector<wel::FoundPart>& parts)
{
    WaldboostDetectPrivate* p = self->priv;
    const OutputSettings& s = pending.output;
    const bool use_meta = s.draw == GST_WALDBOOST_DRAW_META ||
                          (s.draw == GST_WALDBOOST_DRAW_AUTO && p->overlay_meta_downstream);
    const bool burn = s.draw == GST_WALDBOOST_DRAW_BURN ||
                      (s.draw == GST_WALDBOOST_DRAW_AUTO && !p->overlay_meta_downstream);
    if ((!use_meta && !burn) || !p->have_info || (objects.empty() && parts.empty()))
        return;
    const int frame_w = GST_VIDEO_INFO_WIDTH(&p->info), frame_h = GST_VIDEO_INFO_HEIGHT(&p->info);
    /* The boxes by colour (the detector's label, then each part's). */
    std::map<guint, std::vector<Detection>> by_color;
    GstVideoOverlayComposition* texts = nullptr;
    auto add = [&](const std::string& label, const Detection& d, const gint* id) {
        const guint color = label_color(s, label);
        by_color[color].push_back(d);
        if (s.box_text)
            add_rectangle(&texts, wel::text_rectangle(box_text(s.box_text, label, d, id), d.rect, color, frame_w,
                                                      frame_h));
    };
    for (const wel::ReportedObject& o : objects)
        add(s.label, o.detection, &o.id);
    for (const wel::FoundPart& f : parts)
        add(wel::kNestedParts[f.part].name, f.detection, nullptr);

    if (use_meta) {
        GstVideoOverlayComposition* comp = nullptr;
        for (const auto& [color, boxes] : by_color)
            add_box_rectangles(&comp, boxes, frame_w, frame_h, s.line_width, color);
        for (guint i = 0; texts && i < gst_video_overlay_composition_n_rectangles(texts); ++i)
            add_rectangle(&comp, gst_video_overlay_rectangle_ref(gst_video_overlay_composition_get_rectangle(texts, i)));
        if (comp) {
            gst_buffer_add_video_overlay_composition_meta(buffer, comp);
            gst_video_overlay_composition_unref(comp);
        }
    } else {
        GstVideoFrame frame;
        std::string why;
        if (map_checked_frame(&frame, &p->info, buffer, GST_MAP_READWRITE, &why)) {
            for (const auto& [color, boxes] : by_color)
                burn_boxes(&frame, boxes, s.line_width, color);
            /* The text is blended by GstVideo, as textoverlay's is. */
            if (texts)
                gst_video_overlay_composition_blend(texts, &frame);
            gst_video_frame_unmap(&frame);
        } else {
            GST_WARNING_OBJECT(self, "could not map frame %" G_GUINT64_FORMAT " to draw boxes: %s", pending.frame,
                               why.c_str());
        }
    }
    if (texts)
        gst_video_overlay_composition_unref(texts);
}

/* Runs the tracker on a frame (tracking=true), on the worker, in frame
 * order; returns the objects to report. A frame that cannot be mapped
 * (unreadable) leaves the tracker as it is. */
static std::vector<wel::ReportedObject> track_frame(GstWaldboostDetect* self, const Pending& pending,
                                                    const std::vector<Detection>& detections,
                                                    std::vector<waldboost::tracking::TrackEvent>* events)
{
    WaldboostDetectPrivate* p = self->priv;
    waldboost::tracking::TrackerConfig config;
    config.lost_after = pending.output.lost_after;
    if (p->tracker_reset.exchange(false) || !p->tracker || p->tracker->config().lost_after != config.lost_after) {
        /* The search runs on the engine's device, in its context. */
        std::shared_ptr<wcl::Engine> engine;
        {
            std::lock_guard<std::mutex> guard(p->queue_lock);
            engine = p->engine;
        }
        std::unique_ptr<waldboost::tracking::TemplateSearcher> searcher;
        try {
            if (engine)
                searcher = std::make_unique<wcl::OpenClSearcher>(engine->shared_device());
        } catch (const std::exception& e) {
            GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                                ("Tracking searches on the CPU: the OpenCL device could not run the template search."),
                                ("%s", e.what()));
        }
        p->tracker = std::make_unique<wel::StreamTracker>(config, std::move(searcher));
    }
    GstVideoFrame frame;
    std::string why;
    if (!map_checked_frame(&frame, &p->info, pending.buffer, GST_MAP_READ, &why))
        return wel::untracked_objects(detections);
    const waldboost::GrayView luma{static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0)),
                                   GST_VIDEO_FRAME_WIDTH(&frame), GST_VIDEO_FRAME_HEIGHT(&frame),
                                   static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0))};
    std::vector<wel::ReportedObject> objects = p->tracker->frame(luma, pending.detect, detections, events);
    gst_video_frame_unmap(&frame);
    const std::string failure = p->tracker->take_search_failure();
    if (!failure.empty())
        GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                            ("Tracking searches on the CPU from now on: the template search failed on the OpenCL "
                             "device."),
                            ("frame %" G_GUINT64_FORMAT ": %s", pending.frame, failure.c_str()));
    return objects;
}

/* Attaches the results of one frame (and draws them); returns the buffer
 * to push. */
static GstBuffer* finish_frame(GstWaldboostDetect* self, Pending& pending, const wcl::FrameResult* result)
{
    const gint64 started = thread_cpu_ns();
    WaldboostDetectPrivate* p = self->priv;
    const OutputSettings& s = pending.output;
    std::vector<Detection> detections;
    if (result) {
        detections = result->detections;
        for (Detection& d : detections) {
            d.rect.x += pending.roi_x;
            d.rect.y += pending.roi_y;
        }
    }
    const std::string& label = s.label;
    std::vector<waldboost::tracking::TrackEvent> events;
    std::vector<wel::ReportedObject> objects;
    if (s.tracking) {
        objects = track_frame(self, pending, detections, &events);
        detections.clear();
        for (const wel::ReportedObject& o : objects)
            detections.push_back(o.detection);
    } else {
        p->tracker.reset();
        objects = wel::untracked_objects(detections);
    }
    const std::vector<wel::FoundPart> parts = find_nested_parts(self, pending, detections);

    GstBuffer* buffer = gst_buffer_make_writable(pending.buffer);
    pending.buffer = nullptr;
    std::vector<gint> ids;
    gint next_id = 0;
    for (const wel::ReportedObject& o : objects) {
        const Detection& d = o.detection;
        GstVideoRegionOfInterestMeta* meta = gst_buffer_add_video_region_of_interest_meta(
            buffer, label.c_str(), static_cast<guint>(d.rect.x), static_cast<guint>(d.rect.y),
            static_cast<guint>(d.rect.width), static_cast<guint>(d.rect.height));
        /* Distinct ids let applications (and PyGObject, which can only look
         * metas up by id) address each detection; with tracking an object
         * keeps its id from frame to frame. */
        meta->id = o.id;
        meta->parent_id = -1; /* none; the parts found inside name it */
        GstStructure* param = wel::detection_meta_param(d);
        wel::add_track_fields(param, o);
        gst_video_region_of_interest_meta_add_param(meta, param);
        ids.push_back(o.id);
        next_id = std::max(next_id, o.id + 1);
    }
    /* Parts found inside the detections: their metas point at their
     * detection's through parent_id, their ids follow the detections'. */
    wel::add_part_metas(buffer, parts, ids, next_id);

    draw_results(self, buffer, pending, objects, parts);

    const guint64 windows_cut = result ? result->stats.cut : 0;
    if (windows_cut > 0 && !p->max_windows_warned) {
        /* Once per stream: a classifier this permissive cuts nearly every
         * frame, and one warning per frame would flood the bus. The count
         * of every frame is in its message and in the stats. */
        p->max_windows_warned = true;
        GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                            ("The classifier accepted more windows than max-windows=%d in frame %" G_GUINT64_FORMAT
                             ": %" G_GUINT64_FORMAT " were left out, so detections may be missing. A stricter "
                             "classifier, a higher threshold or a larger min-size keeps fewer windows; a larger "
                             "max-windows (0 = no limit) keeps them all. Said once per stream.",
                             pending.params.max_windows, pending.frame, windows_cut),
                            ("frame %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " accepted windows past the first %d "
                             "in scan order were left out before grouping; the \"waldboostdetect\" messages' "
                             "windows-cut field and the stats' windows-cut count every frame",
                             pending.frame, windows_cut, pending.params.max_windows));
    }
    /* The on-change state follows every frame, messages posted or not. */
    const bool due = message_due(self, s.updates, !detections.empty());
    if (s.post_messages && due)
        post_detections_message(self, buffer, pending.frame, objects, label, s.nested.get(), parts, windows_cut);
    if (s.post_messages && s.updates == GST_WALDBOOST_UPDATES_EVENTS && !events.empty())
        post_events_message(self, buffer, pending.frame, events, label);

    const double host_ms = static_cast<double>(pending.host_ns + (thread_cpu_ns() - started)) * 1e-6;
    {
        std::lock_guard<std::mutex> guard(p->lock);
        Stats& st = p->stats;
        ++st.frames;
        st.host_ms = host_ms;
        st.host_total_ms += host_ms;
        st.detections += detections.size();
        if (result) {
            st.device_ms = result->stats.device_milliseconds;
            st.weak_per_window = result->stats.weak_per_window;
            st.windows = result->stats.windows;
            st.candidates = result->stats.candidates_after_step;
            st.scan = result->stats.scan == wcl::ScanMethod::Rows ? "rows" : "reduction";
            st.discarded += result->stats.discarded;
            st.windows_cut += result->stats.cut;
            st.batch_frames = result->stats.batch_frames;
        }
    }
    return buffer;
}

/* A frame that cannot be read passes without detection, with a warning:
 * the first one since the element started, then at most one every
 * kUnreadableWarningInterval (with the number of such frames since), so
 * that a stream of them does not flood the bus; every one is in the debug
 * log. */
constexpr gint64 kUnreadableWarningInterval = 10 * G_TIME_SPAN_SECOND;

static void warn_unreadable(GstWaldboostDetect* self, const std::string& why)
{
    WaldboostDetectPrivate* p = self->priv;
    ++p->unreadable_unreported;
    const gint64 now = g_get_monotonic_time();
    if (p->unreadable_warned_at >= 0 && now - p->unreadable_warned_at < kUnreadableWarningInterval) {
        GST_WARNING_OBJECT(self, "a frame could not be read; it passes without detection: %s", why.c_str());
        return;
    }
    const guint64 count = p->unreadable_unreported;
    p->unreadable_unreported = 0;
    p->unreadable_warned_at = now;
    if (count > 1)
        GST_ELEMENT_WARNING(self, STREAM, FORMAT, ("A frame could not be read; it passes without detection."),
                            ("%s (%" G_GUINT64_FORMAT " such frames since the last warning)", why.c_str(), count));
    else
        GST_ELEMENT_WARNING(self, STREAM, FORMAT, ("A frame could not be read; it passes without detection."),
                            ("%s", why.c_str()));
}

/* Puts a frame on the device: its luma plane, cropped to its region of
 * interest. False when it did not: with the reason in `why` when the
 * buffer cannot be read (see map_checked_frame), with `why` empty when the
 * region's standard deviation is below min-stddev (facedetect's rule: such
 * a frame has no detections). Throws what the engine throws. */
static bool submit_to_engine(GstWaldboostDetect* self, wcl::Engine& engine, const Pending& pending,
                             std::string* why = nullptr)
{
    WaldboostDetectPrivate* p = self->priv;
    GstVideoFrame frame;
    std::string problem;
    if (!map_checked_frame(&frame, &p->info, pending.buffer, GST_MAP_READ, &problem)) {
        if (why)
            *why = problem;
        return false;
    }
    const auto* plane = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&frame, 0));
    const size_t stride = static_cast<size_t>(GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0));
    const waldboost::GrayView view{plane + static_cast<size_t>(pending.roi_y) * stride + pending.roi_x,
                                   pending.roi_width, pending.roi_height, stride};
    if (pending.min_stddev > 0) {
        const double stddev = waldboost::standard_deviation(view);
        if (stddev < pending.min_stddev) {
            GST_LOG_OBJECT(self, "frame %" G_GUINT64_FORMAT ": standard deviation %.2f is below min-stddev=%d, not "
                           "searched", pending.frame, stddev, pending.min_stddev);
            gst_video_frame_unmap(&frame);
            if (why)
                why->clear();
            return false;
        }
    }
    try {
        engine.submit(view, pending.params);
    } catch (...) {
        gst_video_frame_unmap(&frame);
        throw;
    }
    gst_video_frame_unmap(&frame);
    return true;
}

/* Drops the frames in flight after a failure that nothing could recover;
 * the next frame builds a new engine. */
static void drop_pending(GstWaldboostDetect* self)
{
    WaldboostDetectPrivate* p = self->priv;
    for (Pending& pending : p->pending)
        gst_buffer_unref(pending.buffer);
    p->pending.clear();
    p->engine.reset();
}

/* The engine failed while streaming: when another device may do better
 * (the failure is the device's, not the frame's or the settings'), moves on
 * to the next device of the list and runs every frame in flight again
 * there, in order, so that none is lost. Without a device left, or for a
 * failure no device would avoid (a frame too large), posts the error and
 * returns false. */
static bool fall_back(GstWaldboostDetect* self, const std::exception& failure)
{
    WaldboostDetectPrivate* p = self->priv;
    const std::vector<std::string> specs = wcl::split_device_list(p->active.device);
    std::string why = failure.what();
    ErrorKind kind = kind_of(failure, ErrorKind::Device);
    while (another_device_may_help(kind, Phase::Streaming) && p->device_position + 1 < specs.size()) {
        const size_t failed = p->device_position;
        GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                            ("OpenCL device \"%s\" failed while streaming (%s); falling back to \"%s\".",
                             specs[failed].c_str(), reason_of(why).c_str(), specs[failed + 1].c_str()),
                            ("%s", why.c_str()));
        p->engine.reset();
        if (!build_engine(self, p->active, failed + 1))
            return false; /* build_engine posted the error */
        try {
            for (Pending& pending : p->pending)
                if (pending.submitted)
                    pending.submitted = submit_to_engine(self, *p->engine, pending);
            return true;
        } catch (const std::exception& e) {
            why = e.what();
            kind = kind_of(e, ErrorKind::Device);
        }
    }
    const std::string device = p->device_position < specs.size() ? specs[p->device_position] : p->active.device;
    post_error(self, p->active, kind, why, device, Phase::Streaming);
    return false;
}

/* ------------------------------------------------------------------------ */
/* The worker                                                               */

/* Frames that may be in flight: max-inflight, or fewer when that many
 * frames of this size do not fit the device's memory (with one warning). */
static size_t inflight_limit(GstWaldboostDetect* self)
{
    WaldboostDetectPrivate* p = self->priv;
    size_t limit = static_cast<size_t>(p->active.max_inflight);
    if (p->engine && p->engine->in_flight_limit() < limit) {
        limit = p->engine->in_flight_limit();
        if (p->inflight_limit_warned != limit) {
            p->inflight_limit_warned = limit;
            const int mib = static_cast<int>(p->engine->frame_memory_bytes() >> 20);
            GST_ELEMENT_WARNING(self, RESOURCE, NO_SPACE_LEFT,
                                ("max-inflight=%d does not fit the device's memory at this frame size; %u frames "
                                 "are kept in flight instead.",
                                 p->active.max_inflight, static_cast<unsigned>(limit)),
                                ("each frame in flight takes about %d MiB on %s; lower max-inflight, scale the "
                                 "frames down or raise min-size to silence this",
                                 mib, waldboost::printable(p->engine->device().device_name).c_str()));
        }
    }
    return limit;
}

/* Takes the oldest frame out of `pending` with its results (nullopt: it
 * was not on the device). Holds `lock` (on queue_lock) but while it
 * collects, so that the streaming thread submits meanwhile. When the device
 * failed, the frame goes back to the front and a fallback runs the frames
 * again on the next device (false: take again); without one the error is
 * posted, every frame dropped, `failed` set and false returned. */
static bool take_oldest(GstWaldboostDetect* self, std::unique_lock<std::mutex>& lock, Pending* out,
                        std::optional<wcl::FrameResult>* result)
{
    WaldboostDetectPrivate* p = self->priv;
    *out = p->pending.front();
    p->pending.pop_front();
    p->leaving = true;
    p->leaving_pool = out->buffer->pool;
    if (!out->submitted)
        return true;
    const std::shared_ptr<wcl::Engine> engine = p->engine;
    p->collecting = true;
    lock.unlock();
    std::exception_ptr failure;
    const gint64 started = thread_cpu_ns();
    try {
        *result = engine->collect();
    } catch (...) {
        failure = std::current_exception();
    }
    out->host_ns += thread_cpu_ns() - started;
    lock.lock();
    p->collecting = false;
    p->queue_changed.notify_all();
    if (!failure)
        return true;
    p->pending.push_front(*out);
    p->leaving = false;
    p->leaving_pool = nullptr;
    /* One fallback at a time: a submit under way may be failing too. */
    p->queue_changed.wait(lock, [p] { return !p->submitting; });
    if (p->failed || engine != p->engine)
        return false; /* the streaming thread has dealt with it */
    try {
        std::rethrow_exception(failure);
    } catch (const std::exception& e) {
        if (!fall_back(self, e)) {
            drop_pending(self);
            p->failed = true;
        }
    }
    return false;
}

/* The worker: the source pad's task (so applications get its
 * STREAM_STATUS messages, as for queue's). Each run waits (without the
 * lock) until the oldest frame is done on the device, takes it with its
 * results, attaches them and pushes it downstream, so that the streaming
 * thread never waits for the device unless max-inflight frames are with the
 * element. */
static void worker_run(gpointer data)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(data);
    WaldboostDetectPrivate* p = self->priv;
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(self);
    std::unique_lock<std::mutex> lock(p->queue_lock);
    p->queue_changed.wait(lock, [p] { return p->worker_stop || (!p->pending.empty() && !p->flushing); });
    if (p->worker_stop) {
        lock.unlock();
        gst_pad_pause_task(src);
        return;
    }
    if (p->pending.front().submitted) {
        const std::shared_ptr<wcl::Engine> engine = p->engine;
        lock.unlock();
        engine->wait_for_oldest();
        lock.lock();
        /* A flush, a stop or a fallback may have come meanwhile. */
        if (p->worker_stop || p->flushing || p->pending.empty() || engine != p->engine)
            return;
    }
    Pending pending;
    std::optional<wcl::FrameResult> result;
    if (!take_oldest(self, lock, &pending, &result)) {
        p->queue_changed.notify_all();
        return;
    }
    p->queue_changed.notify_all(); /* room for the next frame */
    lock.unlock();
    GstBuffer* buffer = finish_frame(self, pending, result ? &*result : nullptr);
    const GstFlowReturn ret = gst_pad_push(src, buffer);
    lock.lock();
    p->leaving = false;
    p->leaving_pool = nullptr;
    if (ret != GST_FLOW_OK) {
        GST_DEBUG_OBJECT(self, "downstream answered %s", gst_flow_get_name(ret));
        if (p->downstream == GST_FLOW_OK)
            p->downstream = ret;
    }
    p->queue_changed.notify_all();
}

static void start_worker(GstWaldboostDetect* self)
{
    WaldboostDetectPrivate* p = self->priv;
    {
        std::lock_guard<std::mutex> guard(p->queue_lock);
        p->worker_stop = false;
        p->flushing = false;
        p->failed = false;
        p->downstream = GST_FLOW_OK;
    }
    gst_pad_start_task(GST_BASE_TRANSFORM_SRC_PAD(self), worker_run, self, nullptr);
}

/* Wakes the worker so that its run ends; with `join`, waits for it. */
static void stop_worker(GstWaldboostDetect* self, bool join)
{
    WaldboostDetectPrivate* p = self->priv;
    {
        std::lock_guard<std::mutex> guard(p->queue_lock);
        p->worker_stop = true;
    }
    p->queue_changed.notify_all();
    if (join)
        gst_pad_stop_task(GST_BASE_TRANSFORM_SRC_PAD(self));
}

/* The source pad's deactivation takes its stream lock, which the worker's
 * run holds: wake the worker first, then stop its task. */
static gboolean src_activate_mode(GstPad* pad, GstObject* parent, GstPadMode mode, gboolean active)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(parent);
    if (!active)
        stop_worker(self, false);
    const gboolean ok = self->priv->parent_src_activate_mode
                            ? self->priv->parent_src_activate_mode(pad, parent, mode, active)
                            : TRUE;
    if (!active)
        gst_pad_stop_task(pad);
    return ok;
}

/* Waits until every frame has left (the worker pushed it), a flush began,
 * or the device failed. Holds `lock` (on queue_lock). */
static void wait_until_drained(GstWaldboostDetect* self, std::unique_lock<std::mutex>& lock)
{
    WaldboostDetectPrivate* p = self->priv;
    p->queue_changed.wait(lock, [p] {
        return (p->pending.empty() && !p->leaving) || p->flushing || p->worker_stop;
    });
}

/* Drops every frame in flight (flush, stop), the worker idle. Holds
 * queue_lock. */
static void discard_all(GstWaldboostDetect* self)
{
    WaldboostDetectPrivate* p = self->priv;
    for (Pending& pending : p->pending) {
        if (pending.submitted && p->engine) {
            try {
                p->engine->collect();
            } catch (const std::exception& e) {
                GST_WARNING_OBJECT(self, "discarding a frame in flight: %s", e.what());
            }
        }
        gst_buffer_unref(pending.buffer);
    }
    p->pending.clear();
}

/* ------------------------------------------------------------------------ */
/* GstBaseTransform                                                         */

static gboolean gst_waldboost_detect_start(GstBaseTransform* trans)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    Settings s;
    {
        std::lock_guard<std::mutex> guard(self->priv->lock);
        s = self->priv->settings;
        self->priv->stats = Stats{};
    }
    self->priv->frame_count = 0;
    self->priv->unreadable_unreported = 0;
    self->priv->unreadable_warned_at = -1;
    self->priv->pool_copy_logged = false;
    self->priv->inflight_limit_warned = 0;
    self->priv->draw_meta_hinted = false;
    self->priv->max_windows_warned = false;
    self->priv->last_frame_had_objects = false;
    self->priv->tracker_reset = true;
    if (!setup_engine(self, s))
        return FALSE;
    start_worker(self);
    return TRUE;
}

static gboolean gst_waldboost_detect_stop(GstBaseTransform* trans)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    stop_worker(self, true);
    {
        std::lock_guard<std::mutex> guard(self->priv->queue_lock);
        discard_all(self);
        self->priv->engine.reset();
    }
    self->priv->classifier.reset();
    self->priv->have_info = false;
    return TRUE;
}

static gboolean gst_waldboost_detect_set_info(GstVideoFilter* filter, GstCaps* /*incaps*/, GstVideoInfo* in_info,
                                             GstCaps* /*outcaps*/, GstVideoInfo* /*out_info*/)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(filter);
    /* The LATENCY query reads the frame rate from another thread. */
    std::lock_guard<std::mutex> guard(self->priv->lock);
    self->priv->info = *in_info;
    self->priv->have_info = true;
    self->priv->overlay_meta_unknown = true;
    return TRUE;
}

/* Asks downstream, once it has our caps, whether it takes
 * GstVideoOverlayCompositionMeta (as textoverlay does), so draw=auto can
 * attach rectangles instead of burning them in. */
static void query_overlay_meta_support(GstWaldboostDetect* self)
{
    GstPad* srcpad = GST_BASE_TRANSFORM_SRC_PAD(self);
    GstCaps* caps = gst_pad_get_current_caps(srcpad);
    if (!caps)
        return;
    GstQuery* query = gst_query_new_allocation(caps, FALSE);
    const bool answered = gst_pad_peer_query(srcpad, query);
    self->priv->overlay_meta_downstream =
        answered && gst_query_find_allocation_meta(query, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    self->priv->overlay_meta_unknown = false;
    gst_query_unref(query);
    gst_caps_unref(caps);
    GST_DEBUG_OBJECT(self, "downstream %s overlay composition meta",
                     self->priv->overlay_meta_downstream ? "takes" : "does not take");
}

static waldboost::DetectParams detect_params(const Settings& s, const Classifier& c)
{
    waldboost::DetectParams params;
    params.scale_factor = s.scale_factor;
    params.stride = s.stride;
    params.min_neighbors = s.min_neighbors;
    params.nms_iou = static_cast<float>(s.nms_iou);
    params.max_windows = s.max_windows;
    params.grouping = s.grouping == GST_WALDBOOST_GROUPING_NMS    ? waldboost::Grouping::Nms
                      : s.grouping == GST_WALDBOOST_GROUPING_NONE ? waldboost::Grouping::None
                                                                  : waldboost::Grouping::OpenCv;
    /* Sizes are object widths; heights follow the window's aspect ratio. */
    auto size_for_width = [&](int width) {
        return waldboost::Size{width, static_cast<int>(std::lround(static_cast<double>(width) * c.window_height /
                                                                   c.window_width))};
    };
    if (s.min_size > 0)
        params.min_size = size_for_width(s.min_size);
    if (s.max_size > 0)
        params.max_size = size_for_width(s.max_size);
    if (s.threshold != 0.0)
        params.final_threshold = static_cast<float>(c.final_threshold + s.threshold);
    return params;
}

/* Applies changed settings at a frame boundary. */
static GstFlowReturn apply_settings(GstWaldboostDetect* self, std::unique_lock<std::mutex>& lock)
{
    WaldboostDetectPrivate* p = self->priv;
    Settings s;
    {
        std::lock_guard<std::mutex> guard(p->lock);
        s = p->settings;
    }
    if (p->engine && !s.engine_differs(p->active)) {
        if (!load_nested(self, s))
            return GST_FLOW_ERROR;
        p->active = s;
        return GST_FLOW_OK;
    }
    /* A new classifier, device or reduction: the frames in flight on the
     * old engine leave first, so no frame is lost or reordered. */
    wait_until_drained(self, lock);
    if (p->flushing)
        return GST_FLOW_FLUSHING;
    if (p->failed)
        return GST_FLOW_ERROR;
    p->engine.reset();
    return setup_engine(self, s) ? GST_FLOW_OK : GST_FLOW_ERROR;
}

/* Upstream's buffer pool may have fewer buffers than this element keeps.
 * The element holds its input buffers until their frames leave (up to
 * max-inflight: they go out with their metadata, and a fallback device
 * runs them again from there). propose_allocation asks upstream for that
 * many more, but a camera or a hardware decoder often has a fixed pool (a
 * few buffers, a max the query cannot raise): holding every one of them
 * would make upstream wait forever for a free buffer. So when keeping
 * `input` would leave its pool without a free buffer (the buffers held here
 * from that pool, this one included, reaching the pool's max), the frame is
 * copied into memory of our own and the pool's buffer goes back at once, as
 * v4l2src copies when its own pool runs low. max-inflight and the latency
 * stay as set; only frames from such a pool cost a copy, and only while it
 * is short. Holding fewer frames instead (at most the pool's max minus one)
 * would need no copy but silently lower max-inflight and change the
 * latency the element reports; a max-inflight below the pool's max avoids
 * the copies. */
static GstBuffer* keep_upstream_pool_free(GstWaldboostDetect* self, GstBuffer* input)
{
    WaldboostDetectPrivate* p = self->priv;
    GstBufferPool* pool = input->pool;
    if (!pool)
        return input;
    GstStructure* config = gst_buffer_pool_get_config(pool);
    guint max = 0;
    const bool bounded =
        config && gst_buffer_pool_config_get_params(config, nullptr, nullptr, nullptr, &max) && max > 0;
    if (config)
        gst_structure_free(config);
    if (!bounded)
        return input;
    guint held = 1; /* this one */
    for (const Pending& pending : p->pending)
        held += pending.buffer->pool == pool;
    held += p->leaving && p->leaving_pool == pool;
    if (held < max)
        return input;
    GstBuffer* copy = gst_buffer_copy_deep(input);
    if (!copy)
        return input;
    if (!p->pool_copy_logged) {
        GST_INFO_OBJECT(self, "upstream's pool has %u buffers and %u of them would be held here (max-inflight %d): "
                        "copying such frames so that upstream always has a free buffer", max, held,
                        p->active.max_inflight);
        p->pool_copy_logged = true;
    }
    GST_LOG_OBJECT(self, "frame copied out of upstream's pool (%u of %u buffers held)", held, max);
    gst_buffer_unref(input);
    return copy;
}

/* The frame just queued is with the worker; the streaming thread goes on
 * once fewer than max-inflight frames are in flight (1: once the worker has
 * taken this one), so upstream works while the device does. */
static GstFlowReturn wait_for_room(GstWaldboostDetect* self, std::unique_lock<std::mutex>& lock)
{
    WaldboostDetectPrivate* p = self->priv;
    p->queue_changed.notify_all();
    const size_t limit = inflight_limit(self);
    p->queue_changed.wait(lock, [p, limit] {
        return p->pending.size() < limit || p->flushing || p->failed || p->worker_stop;
    });
    if (p->failed)
        return GST_FLOW_ERROR;
    if (p->flushing || p->worker_stop)
        return GST_FLOW_FLUSHING;
    return p->downstream;
}

static GstFlowReturn gst_waldboost_detect_submit_input_buffer(GstBaseTransform* trans, gboolean /*is_discont*/,
                                                             GstBuffer* input)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    WaldboostDetectPrivate* p = self->priv;
    if (!p->have_info) {
        gst_buffer_unref(input);
        GST_ELEMENT_ERROR(self, CORE, NEGOTIATION, (nullptr), ("received a buffer before caps"));
        return GST_FLOW_NOT_NEGOTIATED;
    }
    std::unique_lock<std::mutex> lock(p->queue_lock);
    if (p->failed || p->downstream != GST_FLOW_OK || p->flushing) {
        gst_buffer_unref(input);
        return p->failed ? GST_FLOW_ERROR : p->flushing ? GST_FLOW_FLUSHING : p->downstream;
    }
    GstFlowReturn ret = apply_settings(self, lock);
    if (ret != GST_FLOW_OK) {
        gst_buffer_unref(input);
        return ret;
    }
    if (p->overlay_meta_unknown)
        query_overlay_meta_support(self);
    if (p->active.draw == GST_WALDBOOST_DRAW_META && !p->overlay_meta_downstream && !p->draw_meta_hinted) {
        /* The boxes travel as a meta that only some elements render: say
         * so once, as an INFO message (gst-launch-1.0 prints its debug
         * text, so that says it too), since nothing fails and nothing
         * shows. */
        p->draw_meta_hinted = true;
        GST_ELEMENT_INFO(self, RESOURCE, SETTINGS,
                         ("draw=meta: nothing downstream says it renders GstVideoOverlayCompositionMeta, so the boxes "
                          "may not be shown; draw=burn draws them into the frames."),
                         ("draw=meta: downstream's ALLOCATION query does not list GstVideoOverlayCompositionMeta, so "
                          "the boxes may not be shown; draw=burn draws them into the frames"));
    }
    input = keep_upstream_pool_free(self, input);

    Pending pending;
    pending.buffer = input;
    pending.frame = p->frame_count++;
    pending.output.label = p->active.label.empty() ? p->classifier->label : p->active.label;
    pending.output.draw = p->active.draw;
    pending.output.color = p->active.color;
    pending.output.line_width = p->active.line_width;
    pending.output.box_text = p->active.box_text;
    pending.output.label_colors = p->active.label_colors;
    pending.output.post_messages = p->active.post_messages;
    pending.output.updates = p->active.updates;
    pending.output.tracking = p->active.tracking;
    pending.output.lost_after = p->active.lost_after;
    /* Frame numbers restart at 0 with the stream, so the first frame is
     * always searched. */
    pending.detect = p->active.interval <= 1 || pending.frame % static_cast<guint64>(p->active.interval) == 0;
    pending.params = detect_params(p->active, *p->classifier);
    pending.output.nested = p->nested;
    pending.output.nested_params = wel::nested_params(pending.params);
    pending.min_stddev = p->active.min_stddev;

    /* The luma plane, cropped to the region of interest. */
    const int width = GST_VIDEO_INFO_WIDTH(&p->info), height = GST_VIDEO_INFO_HEIGHT(&p->info);
    int rx = 0, ry = 0, rw = width, rh = height;
    if (p->active.roi.size() == 4) {
        rx = std::clamp(p->active.roi[0], 0, width);
        ry = std::clamp(p->active.roi[1], 0, height);
        rw = std::clamp(p->active.roi[2], 0, width - rx);
        rh = std::clamp(p->active.roi[3], 0, height - ry);
    }
    pending.roi_x = rx;
    pending.roi_y = ry;
    pending.roi_width = rw;
    pending.roi_height = rh;
    if (pending.detect && rw >= p->classifier->window_width && rh >= p->classifier->window_height) {
        /* The engine may hold fewer frames than the queue after a change. */
        p->queue_changed.wait(lock, [p] { return p->flushing || p->failed || p->engine->can_submit(); });
        if (p->flushing || p->failed) {
            gst_buffer_unref(input);
            return p->failed ? GST_FLOW_ERROR : GST_FLOW_FLUSHING;
        }
        std::string unreadable;
        const std::shared_ptr<wcl::Engine> engine = p->engine;
        std::exception_ptr failure;
        /* Without the lock: the worker collects meanwhile. */
        p->submitting = true;
        lock.unlock();
        const gint64 started = thread_cpu_ns();
        try {
            pending.submitted = submit_to_engine(self, *engine, pending, &unreadable);
        } catch (...) {
            failure = std::current_exception();
        }
        pending.host_ns += thread_cpu_ns() - started;
        lock.lock();
        p->submitting = false;
        p->queue_changed.notify_all();
        if (failure) {
            /* One fallback at a time: a collect under way may be failing too. */
            p->queue_changed.wait(lock, [p] { return !p->collecting; });
            if (p->failed) {
                gst_buffer_unref(input);
                return GST_FLOW_ERROR;
            }
            /* Runs on the fallback device with the frames before it. */
            pending.submitted = true;
            p->pending.push_back(pending);
            try {
                if (engine == p->engine)
                    std::rethrow_exception(failure);
                /* The worker fell back meanwhile, with the frames it had. */
                p->pending.back().submitted = submit_to_engine(self, *p->engine, pending);
            } catch (const std::exception& e) {
                if (!fall_back(self, e)) {
                    drop_pending(self);
                    p->failed = true;
                    p->queue_changed.notify_all();
                    return GST_FLOW_ERROR;
                }
            }
            return wait_for_room(self, lock);
        }
        if (!pending.submitted && !unreadable.empty()) {
            /* A buffer smaller than its caps claim, or whose GstVideoMeta
             * claims more than it holds: pass it on unchanged, without
             * results. */
            warn_unreadable(self, unreadable);
        }
    }
    /* A frame with nothing to scan passes in order, without detections. */
    p->pending.push_back(pending);
    return wait_for_room(self, lock);
}

/* Frames leave from the worker (worker_run), never from here. */
static GstFlowReturn gst_waldboost_detect_generate_output(GstBaseTransform* /*trans*/, GstBuffer** outbuf)
{
    *outbuf = nullptr;
    return GST_FLOW_OK;
}

static gboolean gst_waldboost_detect_sink_event(GstBaseTransform* trans, GstEvent* event)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    WaldboostDetectPrivate* p = self->priv;
    switch (GST_EVENT_TYPE(event)) {
    case GST_EVENT_FLUSH_START: {
        /* Wakes the streaming thread; the worker stops taking frames, and
         * its push in progress returns once the flush reaches downstream. */
        std::lock_guard<std::mutex> guard(p->queue_lock);
        p->flushing = true;
        p->queue_changed.notify_all();
        break;
    }
    case GST_EVENT_FLUSH_STOP: {
        std::unique_lock<std::mutex> lock(p->queue_lock);
        p->queue_changed.wait(lock, [p] { return !p->leaving || p->worker_stop; });
        discard_all(self);
        p->flushing = false;
        p->downstream = GST_FLOW_OK;
        p->tracker_reset = true; /* a seek: the objects of before are not the ones to come */
        break;
    }
    default:
        /* Frames in flight go out before any serialized event (EOS, caps,
         * segment, gap...), so order is kept and EOS drains the queue. */
        if (GST_EVENT_IS_SERIALIZED(event)) {
            std::unique_lock<std::mutex> lock(p->queue_lock);
            wait_until_drained(self, lock);
        }
        break;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->sink_event(trans, event);
}

static gboolean gst_waldboost_detect_query(GstBaseTransform* trans, GstPadDirection direction, GstQuery* query)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    if (direction == GST_PAD_SRC && GST_QUERY_TYPE(query) == GST_QUERY_LATENCY) {
        if (!gst_pad_peer_query(GST_BASE_TRANSFORM_SINK_PAD(trans), query))
            return FALSE;
        gboolean live;
        GstClockTime min, max;
        gst_query_parse_latency(query, &live, &min, &max);
        int inflight, fps_n = 0, fps_d = 1;
        GstClockTime batch_wait;
        {
            std::lock_guard<std::mutex> guard(self->priv->lock);
            inflight = self->priv->settings.max_inflight;
            batch_wait = self->priv->settings.batching ? self->priv->settings.batch_wait : 0;
            if (self->priv->have_info) {
                fps_n = GST_VIDEO_INFO_FPS_N(&self->priv->info);
                fps_d = GST_VIDEO_INFO_FPS_D(&self->priv->info);
            }
        }
        /* A frame leaves when its detection is done, behind at most
         * max-inflight - 1 others, after waiting at most batch-wait for
         * companions. */
        GstClockTime ours = batch_wait;
        if (fps_n > 0)
            ours += gst_util_uint64_scale_int(static_cast<guint64>(inflight - 1) * GST_SECOND, fps_d, fps_n);
        else if (inflight > 1)
            max = GST_CLOCK_TIME_NONE; /* unknown frame rate: no upper bound */
        min += ours;
        if (GST_CLOCK_TIME_IS_VALID(max))
            max += ours;
        GST_DEBUG_OBJECT(self, "latency: adding %" GST_TIME_FORMAT, GST_TIME_ARGS(ours));
        gst_query_set_latency(query, live, min, max);
        return TRUE;
    }
    return GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->query(trans, direction, query);
}

/* The ALLOCATION query from upstream. The element works in place (its
 * input buffers leave as they are, with metadata added), so GstBaseTransform
 * passes the query on to downstream as a passthrough element would, and
 * downstream's pool, minimum and metas reach upstream. To that minimum the
 * element adds the buffers it keeps, as decoders add their reference
 * frames: up to max-inflight input buffers are held until their frames
 * leave. When downstream does not answer (fakesink), the element
 * answers alone: a pool entry without a pool (upstream makes its own) of
 * that minimum, and no metas (the buffers still go downstream, which said
 * nothing about GstVideoMeta). An upstream pool that cannot grow that far is
 * handled frame by frame (keep_upstream_pool_free). */
static gboolean gst_waldboost_detect_propose_allocation(GstBaseTransform* trans, GstQuery* decide_query,
                                                       GstQuery* query)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(trans);
    GstCaps* caps = nullptr;
    GstVideoInfo info;
    gst_query_parse_allocation(query, &caps, nullptr);
    if (!caps || !gst_video_info_from_caps(&info, caps))
        return FALSE;
    const gboolean answered =
        GST_BASE_TRANSFORM_CLASS(gst_waldboost_detect_parent_class)->propose_allocation(trans, decide_query, query);
    guint held;
    {
        std::lock_guard<std::mutex> guard(self->priv->lock);
        held = static_cast<guint>(self->priv->settings.max_inflight);
    }
    const guint n = gst_query_get_n_allocation_pools(query);
    if (n == 0)
        gst_query_add_allocation_pool(query, nullptr, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), held, 0);
    for (guint i = 0; i < n; ++i) {
        GstBufferPool* pool = nullptr;
        guint size, min, max;
        gst_query_parse_nth_allocation_pool(query, i, &pool, &size, &min, &max);
        min += held;
        if (max != 0 && max < min)
            max = min;
        gst_query_set_nth_allocation_pool(query, i, pool, size, min, max);
        if (pool)
            gst_object_unref(pool);
    }
    GST_DEBUG_OBJECT(self, "allocation: downstream %s; %u more buffers for the frames held here",
                     answered ? "answered" : "did not answer", held);
    return TRUE;
}

/* ------------------------------------------------------------------------ */
/* The reduction property and its aliases                                   */

/* The alias properties (group-size ... step4-group-size) keep the values the
 * separate properties had for "not set": 0 for the work-group sizes (no
 * power of two), -1 for the others. A value below 1 is also "not set" where
 * the table's minimum is 1 or more (0 for a divisor), as it was. Any other
 * value in the alias' range is stored as given and checked against the
 * table and the device when the engine is set up, as before. */
static int alias_unset(const wcl::ReductionParam& r) { return r.power_of_two ? 0 : -1; }
static int alias_first_set(const wcl::ReductionParam& r) { return std::min(r.min, 1); }

static std::string alias_blurb(const wcl::ReductionParam& r)
{
    const int unset = alias_unset(r), last = alias_first_set(r) - 1;
    const std::string values = unset == last       ? std::to_string(unset)
                               : unset + 1 == last ? std::to_string(unset) + " or " + std::to_string(last)
                                                   : std::to_string(unset) + " to " + std::to_string(last);
    return std::string(r.blurb) + " (alias of the reduction property's " + r.name + " field; " + values +
           " = default)";
}

static std::string reduction_blurb()
{
    std::string fields;
    for (const wcl::ReductionParam& r : wcl::kReductionParams)
        fields += std::string(fields.empty() ? "" : ", ") + r.name + " (" + std::to_string(r.min) + " to " +
                  std::to_string(r.max) + (r.power_of_two ? ", a power of two)" : ")");
    return "Reduction parameters (advanced: how the GPU reduction splits its work, never what it finds; see "
           "docs/engine.md), a structure with any of the int fields " +
           fields +
           ", e.g. \"reduction, group-size=(int)128, step2-unsync=(int)64\". A missing field keeps the tuned or "
           "default value; NULL = none set. Setting it replaces every field, and selects the reduction on CPU "
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

/* Reads a `reduction` structure (NULL: none set); false with the reason in
 * `why` when a field is unknown, not an int or out of the table's range. */
/* label-colors: a structure whose fields name labels and hold ARGB colours
 * (0xAARRGGBB as a number, in any integer type, or as a string). */
static bool label_colors_from_structure(const GstStructure* st, std::map<std::string, guint>* out, std::string* why)
{
    std::map<std::string, guint> colors;
    const gint n = st ? gst_structure_n_fields(st) : 0;
    for (gint i = 0; i < n; ++i) {
        const gchar* name = gst_structure_nth_field_name(st, static_cast<guint>(i));
        const GValue* v = gst_structure_get_value(st, name);
        guint64 color = G_MAXUINT64;
        if (G_VALUE_HOLDS_UINT(v))
            color = g_value_get_uint(v);
        else if (G_VALUE_HOLDS_INT(v) && g_value_get_int(v) >= 0)
            color = static_cast<guint64>(g_value_get_int(v));
        else if (G_VALUE_HOLDS_INT64(v) && g_value_get_int64(v) >= 0)
            color = static_cast<guint64>(g_value_get_int64(v));
        else if (G_VALUE_HOLDS_UINT64(v))
            color = g_value_get_uint64(v);
        else if (G_VALUE_HOLDS_STRING(v) && g_value_get_string(v)) {
            gchar* end = nullptr;
            color = g_ascii_strtoull(g_value_get_string(v), &end, 0);
            if (!end || *end || end == g_value_get_string(v))
                color = G_MAXUINT64;
        }
        if (color > G_MAXUINT32) {
            *why = std::string("the colour of \"") + name + "\" is not an ARGB number (0xAARRGGBB)";
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

/* ------------------------------------------------------------------------ */
/* GObject                                                                  */

static void gst_waldboost_detect_set_property(GObject* object, guint prop_id, const GValue* value, GParamSpec* pspec)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(object);
    std::lock_guard<std::mutex> guard(self->priv->lock);
    Settings& s = self->priv->settings;
    switch (prop_id) {
    case PROP_CLASSIFIER: {
        const gchar* v = g_value_get_string(value);
        s.classifier_path = v ? v : "";
        break;
    }
    case PROP_LABEL: {
        const gchar* v = g_value_get_string(value);
        s.label = v ? v : "";
        break;
    }
    case PROP_DEVICE: {
        const gchar* v = g_value_get_string(value);
        s.device = v && *v ? v : "auto";
        break;
    }
    case PROP_SCALE_FACTOR: s.scale_factor = g_value_get_double(value); break;
    case PROP_MIN_SIZE: s.min_size = g_value_get_int(value); break;
    case PROP_MAX_SIZE: s.max_size = g_value_get_int(value); break;
    case PROP_STRIDE: s.stride = g_value_get_int(value); break;
    case PROP_MIN_NEIGHBORS: s.min_neighbors = g_value_get_int(value); break;
    case PROP_GROUPING: s.grouping = static_cast<GstWaldboostGrouping>(g_value_get_enum(value)); break;
    case PROP_NMS_IOU: s.nms_iou = g_value_get_double(value); break;
    case PROP_THRESHOLD: s.threshold = g_value_get_double(value); break;
    case PROP_MAX_WINDOWS: s.max_windows = g_value_get_int(value); break;
    case PROP_ROI: {
        std::vector<int> roi;
        for (guint i = 0; i < gst_value_array_get_size(value); ++i)
            roi.push_back(g_value_get_int(gst_value_array_get_value(value, i)));
        std::string why;
        if (!roi.empty() && roi.size() != 4)
            why = std::to_string(roi.size()) + (roi.size() == 1 ? " value" : " values") +
                  ", not 4 (<x, y, width, height>) or none";
        else if (!roi.empty() && (roi[2] <= 0 || roi[3] <= 0))
            why = "the width and the height must be at least 1";
        else if (!roi.empty() && (roi[0] < 0 || roi[1] < 0))
            why = "x and y must not be negative";
        if (why.empty()) {
            s.roi = roi;
        } else {
            std::string text;
            for (int v : roi)
                text += (text.empty() ? "" : ", ") + std::to_string(v);
            GST_WARNING_OBJECT(self, "roi <%s> refused: %s; the previous value is kept", text.c_str(), why.c_str());
        }
        break;
    }
    case PROP_MAX_INFLIGHT: s.max_inflight = g_value_get_int(value); break;
    case PROP_DRAW: s.draw = static_cast<GstWaldboostDraw>(g_value_get_enum(value)); break;
    case PROP_COLOR: s.color = g_value_get_uint(value); break;
    case PROP_LINE_WIDTH: s.line_width = g_value_get_int(value); break;
    case PROP_BOX_TEXT: s.box_text = g_value_get_flags(value); break;
    case PROP_LABEL_COLORS: {
        const GstStructure* st = gst_value_get_structure(value);
        std::string why;
        if (!label_colors_from_structure(st, &s.label_colors, &why)) {
            gchar* text = st ? gst_structure_to_string(st) : g_strdup("(null)");
            GST_WARNING_OBJECT(self, "label-colors \"%s\" refused: %s; the previous setting is kept", text,
                               why.c_str());
            g_free(text);
        }
        break;
    }
    case PROP_POST_MESSAGES: s.post_messages = g_value_get_boolean(value); break;
    case PROP_UPDATES: s.updates = static_cast<GstWaldboostUpdates>(g_value_get_enum(value)); break;
    case PROP_MIN_STDDEV: s.min_stddev = g_value_get_int(value); break;
    case PROP_TRACKING: s.tracking = g_value_get_boolean(value); break;
    case PROP_INTERVAL: s.interval = g_value_get_int(value); break;
    case PROP_LOST_AFTER: s.lost_after = g_value_get_int(value); break;
    case PROP_EYES_PROFILE:
    case PROP_NOSE_PROFILE:
    case PROP_MOUTH_PROFILE: {
        const gchar* v = g_value_get_string(value);
        s.nested_paths[prop_id - PROP_EYES_PROFILE] = v ? v : "";
        break;
    }
    case PROP_BATCHING: s.batching = g_value_get_boolean(value); break;
    case PROP_PROFILING: s.profiling = g_value_get_boolean(value); break;
    case PROP_BATCH_WAIT: s.batch_wait = g_value_get_uint64(value); break;
    case PROP_REDUCTION: {
        const GstStructure* st = gst_value_get_structure(value);
        wcl::ReductionOverrides o;
        std::string why;
        if (reduction_from_structure(st, &o, &why)) {
            s.reduction = o;
        } else {
            gchar* text = gst_structure_to_string(st);
            GST_WARNING_OBJECT(self, "reduction \"%s\" refused: %s; the previous setting is kept", text, why.c_str());
            g_free(text);
        }
        break;
    }
    default:
        if (prop_id >= PROP_REDUCTION_ALIAS && prop_id < PROP_REDUCTION_ALIAS + wcl::kReductionParams.size()) {
            const size_t i = prop_id - PROP_REDUCTION_ALIAS;
            const int v = g_value_get_int(value);
            if (v >= alias_first_set(wcl::kReductionParams[i]))
                s.reduction.values[i] = v;
            else
                s.reduction.values[i].reset();
            break;
        }
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static GstStructure* stats_structure(const Stats& st)
{
    GValue candidates = G_VALUE_INIT;
    g_value_init(&candidates, GST_TYPE_ARRAY);
    for (guint64 c : st.candidates) {
        GValue v = G_VALUE_INIT;
        g_value_init(&v, G_TYPE_UINT64);
        g_value_set_uint64(&v, c);
        gst_value_array_append_and_take_value(&candidates, &v);
    }
    GstStructure* s = gst_structure_new("waldboost-stats", "frames", G_TYPE_UINT64, st.frames, "detections",
                                        G_TYPE_UINT64, st.detections, "device-ms", G_TYPE_DOUBLE, st.device_ms,
                                        "windows", G_TYPE_UINT64, st.windows, "weak-per-window", G_TYPE_DOUBLE,
                                        st.weak_per_window, "discarded", G_TYPE_UINT64, st.discarded,
                                        "windows-cut", G_TYPE_UINT64, st.windows_cut, "device",
                                        G_TYPE_STRING, st.device.c_str(), "device-fallbacks", G_TYPE_UINT64,
                                        st.fallbacks, "scan", G_TYPE_STRING, st.scan.c_str(), nullptr);
    gst_structure_take_value(s, "candidates", &candidates);
    const std::shared_ptr<const wcl::BusyTime> busy = st.device_busy.lock();
    gst_structure_set(s, "batch-frames", G_TYPE_INT, st.batch_frames, "host-ms", G_TYPE_DOUBLE, st.host_ms,
                      "host-total-ms", G_TYPE_DOUBLE, st.host_total_ms, nullptr);
    gst_structure_set(s, "device-busy-ms", G_TYPE_DOUBLE, busy ? static_cast<double>(busy->total_ns()) * 1e-6 : 0.0,
                      nullptr);
    return s;
}

static void gst_waldboost_detect_get_property(GObject* object, guint prop_id, GValue* value, GParamSpec* pspec)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(object);
    std::lock_guard<std::mutex> guard(self->priv->lock);
    const Settings& s = self->priv->settings;
    switch (prop_id) {
    case PROP_CLASSIFIER: g_value_set_string(value, s.classifier_path.c_str()); break;
    case PROP_LABEL: g_value_set_string(value, s.label.c_str()); break;
    case PROP_DEVICE: g_value_set_string(value, s.device.c_str()); break;
    case PROP_SCALE_FACTOR: g_value_set_double(value, s.scale_factor); break;
    case PROP_MIN_SIZE: g_value_set_int(value, s.min_size); break;
    case PROP_MAX_SIZE: g_value_set_int(value, s.max_size); break;
    case PROP_STRIDE: g_value_set_int(value, s.stride); break;
    case PROP_MIN_NEIGHBORS: g_value_set_int(value, s.min_neighbors); break;
    case PROP_GROUPING: g_value_set_enum(value, s.grouping); break;
    case PROP_NMS_IOU: g_value_set_double(value, s.nms_iou); break;
    case PROP_MAX_WINDOWS: g_value_set_int(value, s.max_windows); break;
    case PROP_THRESHOLD: g_value_set_double(value, s.threshold); break;
    case PROP_ROI:
        for (int v : s.roi) {
            GValue item = G_VALUE_INIT;
            g_value_init(&item, G_TYPE_INT);
            g_value_set_int(&item, v);
            gst_value_array_append_and_take_value(value, &item);
        }
        break;
    case PROP_MAX_INFLIGHT: g_value_set_int(value, s.max_inflight); break;
    case PROP_DRAW: g_value_set_enum(value, s.draw); break;
    case PROP_COLOR: g_value_set_uint(value, s.color); break;
    case PROP_LINE_WIDTH: g_value_set_int(value, s.line_width); break;
    case PROP_BOX_TEXT: g_value_set_flags(value, s.box_text); break;
    case PROP_LABEL_COLORS: g_value_take_boxed(value, label_colors_structure(s.label_colors)); break;
    case PROP_POST_MESSAGES: g_value_set_boolean(value, s.post_messages); break;
    case PROP_UPDATES: g_value_set_enum(value, s.updates); break;
    case PROP_MIN_STDDEV: g_value_set_int(value, s.min_stddev); break;
    case PROP_TRACKING: g_value_set_boolean(value, s.tracking); break;
    case PROP_INTERVAL: g_value_set_int(value, s.interval); break;
    case PROP_LOST_AFTER: g_value_set_int(value, s.lost_after); break;
    case PROP_EYES_PROFILE:
    case PROP_NOSE_PROFILE:
    case PROP_MOUTH_PROFILE: g_value_set_string(value, s.nested_paths[prop_id - PROP_EYES_PROFILE].c_str()); break;
    case PROP_BATCHING: g_value_set_boolean(value, s.batching); break;
    case PROP_PROFILING: g_value_set_boolean(value, s.profiling); break;
    case PROP_BATCH_WAIT: g_value_set_uint64(value, s.batch_wait); break;
    case PROP_REDUCTION: g_value_take_boxed(value, reduction_structure(s.reduction)); break;
    case PROP_STATS: g_value_take_boxed(value, stats_structure(self->priv->stats)); break;
    default:
        if (prop_id >= PROP_REDUCTION_ALIAS && prop_id < PROP_REDUCTION_ALIAS + wcl::kReductionParams.size()) {
            const size_t i = prop_id - PROP_REDUCTION_ALIAS;
            g_value_set_int(value, s.reduction.values[i].value_or(alias_unset(wcl::kReductionParams[i])));
            break;
        }
        G_OBJECT_WARN_INVALID_PROPERTY_ID(object, prop_id, pspec);
        break;
    }
}

static void gst_waldboost_detect_finalize(GObject* object)
{
    GstWaldboostDetect* self = GST_WALDBOOST_DETECT(object);
    {
        std::lock_guard<std::mutex> guard(self->priv->queue_lock);
        discard_all(self);
    }
    delete self->priv;
    self->priv = nullptr;
    G_OBJECT_CLASS(gst_waldboost_detect_parent_class)->finalize(object);
}

static void gst_waldboost_detect_init(GstWaldboostDetect* self)
{
    self->priv = new WaldboostDetectPrivate();
    gst_video_info_init(&self->priv->info);
    GstPad* src = GST_BASE_TRANSFORM_SRC_PAD(self);
    self->priv->parent_src_activate_mode = GST_PAD_ACTIVATEMODEFUNC(src);
    gst_pad_set_activatemode_function(src, src_activate_mode);
}

static void gst_waldboost_detect_class_init(GstWaldboostDetectClass* klass)
{
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
    GstVideoFilterClass* filter_class = GST_VIDEO_FILTER_CLASS(klass);

    gobject_class->set_property = gst_waldboost_detect_set_property;
    gobject_class->get_property = gst_waldboost_detect_get_property;
    gobject_class->finalize = gst_waldboost_detect_finalize;

    const auto rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    g_object_class_install_property(
        gobject_class, PROP_CLASSIFIER,
        g_param_spec_string("classifier", "Classifier",
                            "WaldBoost XML file or OpenCV cascade (LBP or Haar, e.g. "
                            "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml); empty = the "
                            "embedded frontal-face classifier (OpenCV's lbpcascade_frontalface)",
                            "", rw));
    g_object_class_install_property(
        gobject_class, PROP_LABEL,
        g_param_spec_string("label", "Label",
                            "Label of the detections (ROI meta type, messages); empty = the classifier's label", "",
                            rw));
    g_object_class_install_property(
        gobject_class, PROP_DEVICE,
        g_param_spec_string("device", "OpenCL device",
                            "auto (a GPU, else an accelerator, else a CPU), gpu, cpu, accelerator, "
                            "all-gpus (every GPU: each instance takes the one the fewest instances of the "
                            "process use; likewise all-cpus, all-accelerators), "
                            "\"platform:device\" indices, or part of a device name; a comma-separated list "
                            "(\"gpu,cpu\") is a fallback order: when a device fails to start or fails while "
                            "streaming, the next one takes over and runs the frames in flight again",
                            "auto", rw));
    g_object_class_install_property(
        gobject_class, PROP_SCALE_FACTOR,
        g_param_spec_double("scale-factor", "Scale factor", "Size ratio of consecutive pyramid levels", 1.01, 10.0,
                            kDefaultScaleFactor, rw));
    g_object_class_install_property(
        gobject_class, PROP_MIN_SIZE,
        g_param_spec_int("min-size", "Minimum size",
                         "Smallest object width in pixels (height follows the classifier window); 0 = the "
                         "classifier window",
                         0, G_MAXINT, 0, rw));
    g_object_class_install_property(
        gobject_class, PROP_MAX_SIZE,
        g_param_spec_int("max-size", "Maximum size", "Largest object width in pixels; 0 = no limit", 0, G_MAXINT, 0,
                         rw));
    g_object_class_install_property(
        gobject_class, PROP_STRIDE,
        g_param_spec_int("stride", "Stride",
                         "Pixels between scanned windows; 0 = OpenCV's rule (2 below scale 2, then 1)", 0, 64, 0,
                         rw));
    g_object_class_install_property(
        gobject_class, PROP_MIN_NEIGHBORS,
        g_param_spec_int("min-neighbors", "Minimum neighbors",
                         "A detection needs more than this many overlapping windows; 0 = no grouping threshold", 0,
                         1000, kDefaultMinNeighbors, rw));
    g_object_class_install_property(
        gobject_class, PROP_GROUPING,
        g_param_spec_enum("grouping", "Grouping", "How overlapping windows become detections",
                          gst_waldboost_grouping_get_type(), GST_WALDBOOST_GROUPING_OPENCV, rw));
    g_object_class_install_property(
        gobject_class, PROP_NMS_IOU,
        g_param_spec_double("nms-iou", "NMS IoU", "Overlap (intersection over union) above which NMS merges windows",
                            0.0, 1.0, kDefaultNmsIou, rw));
    g_object_class_install_property(
        gobject_class, PROP_THRESHOLD,
        g_param_spec_double("threshold", "Threshold",
                            "Added to the classifier's final threshold: above 0 gives fewer, surer detections",
                            -1000.0, 1000.0, 0.0, rw));
    g_object_class_install_property(
        gobject_class, PROP_MAX_WINDOWS,
        g_param_spec_int("max-windows", "Maximum windows",
                         "The most accepted windows a frame keeps before grouping, the first in scan order (smallest "
                         "objects first); more are left out, with one warning per stream. Real cascades stay far "
                         "below the default; a classifier that accepts nearly everything would otherwise cost "
                         "seconds and gigabytes per frame. 0 = no limit",
                         0, G_MAXINT, waldboost::kDefaultMaxWindows, rw));
    g_object_class_install_property(
        gobject_class, PROP_ROI,
        gst_param_spec_array("roi", "Region of interest",
                             "Scan only this region: <x, y, width, height> in pixels (four values, width and height "
                             "at least 1; the part inside the frame is scanned), e.g. \"<100, 50, 320, 240>\"; "
                             "empty (<>) = the whole frame. Another number of values or a size of 0 is refused and "
                             "the previous value stays (the debug log says why)",
                             g_param_spec_int("roi-value", "ROI value", "x, y, width or height", 0, G_MAXINT, 0,
                                              static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
                             rw));
    g_object_class_install_property(
        gobject_class, PROP_MAX_INFLIGHT,
        g_param_spec_int("max-inflight", "Frames in flight",
                         "Frames with the element at once (the streaming thread waits only when that many are); each "
                         "adds at most one frame of latency beyond the first. Their input "
                         "buffers are kept until they leave: the allocation query asks upstream's pool for that many "
                         "more, and a frame from a fixed pool too small for it is copied so the pool never runs dry. "
                         "Each frame in flight holds its own pyramid and integral image, on a CPU device about 12 MiB "
                         "at 640x480, 76 MiB at 1080p, 300 MiB at 4K and 1.2 GiB at 8K (a GPU about 2.5 times that); "
                         "when max-inflight frames do not fit the device's memory, fewer are kept, with a warning",
                         1, 16,
                         kDefaultMaxInflight, rw));
    g_object_class_install_property(
        gobject_class, PROP_DRAW,
        g_param_spec_enum("draw", "Draw", "How the rectangles are shown", gst_waldboost_draw_get_type(),
                          GST_WALDBOOST_DRAW_AUTO, rw));
    g_object_class_install_property(
        gobject_class, PROP_COLOR,
        g_param_spec_uint("color", "Color", "Rectangle colour as ARGB (big-endian hex 0xAARRGGBB)", 0, G_MAXUINT32,
                          kDefaultColor, rw));
    g_object_class_install_property(
        gobject_class, PROP_LINE_WIDTH,
        g_param_spec_int("line-width", "Line width", "Rectangle line width in pixels", 1, 32, kDefaultLineWidth, rw));
    g_object_class_install_property(
        gobject_class, PROP_BOX_TEXT,
        g_param_spec_flags("box-text", "Box text",
                           "Text on a tag above each box, rendered with Pango (as textoverlay): any of label, id "
                           "(the track id with tracking=true) and confidence, e.g. box-text=label+id; empty = none",
                           gst_waldboost_box_text_get_type(), 0, rw));
    g_object_class_install_property(
        gobject_class, PROP_LABEL_COLORS,
        g_param_spec_boxed("label-colors", "Label colours",
                           "Box and tag colour per label as ARGB, e.g. \"colors,face=(uint)0xff00ff00,"
                           "eyes=(uint)0xff2090ff\"; labels not named keep \"color\" (the detector's) or their "
                           "own (eyes blue, nose yellow, mouth pink)",
                           GST_TYPE_STRUCTURE, rw));
    g_object_class_install_property(
        gobject_class, PROP_POST_MESSAGES,
        g_param_spec_boolean("post-messages", "Post messages",
                             "Post \"waldboostdetect\" element messages with the detections (of the frames "
                             "\"updates\" selects)", TRUE, rw));
    g_object_class_install_property(
        gobject_class, PROP_UPDATES,
        g_param_spec_enum("updates", "Updates",
                          "Which frames get a \"waldboostdetect\" message (as facedetect's updates; with "
                          "post-messages=true)",
                          gst_waldboost_updates_get_type(), GST_WALDBOOST_UPDATES_EVERY_FRAME, rw));
    g_object_class_install_property(
        gobject_class, PROP_MIN_STDDEV,
        g_param_spec_int("min-stddev", "Minimum standard deviation",
                         "Frames whose gray standard deviation (over the roi, or the whole frame) is below this are "
                         "not searched and have no detections, as facedetect's min-stddev: saves the device's time "
                         "on blank frames and avoids detections in them; 0 = search every frame",
                         0, 255, 0, rw));
    g_object_class_install_property(
        gobject_class, PROP_TRACKING,
        g_param_spec_boolean("tracking", "Tracking",
                             "Follow objects from frame to frame: each keeps one id (the region-of-interest meta's "
                             "id, stable across frames; its parameter structure adds age and hits), detections "
                             "continue the track they overlap most, and template search on the device follows "
                             "tracks between detections (see interval); updates=events posts when objects appear "
                             "and leave",
                             FALSE, rw));
    g_object_class_install_property(
        gobject_class, PROP_INTERVAL,
        g_param_spec_int("interval", "Detection interval",
                         "Detect on every interval-th frame only (1 = every frame); with tracking=true the "
                         "objects are followed on the frames in between, without it those frames have no "
                         "detections",
                         1, 1000, 1, rw));
    g_object_class_install_property(
        gobject_class, PROP_LOST_AFTER,
        g_param_spec_int("lost-after", "Lost after",
                         "With tracking=true: a track ends when no detection has matched it for this many frames "
                         "(checked on the frames with detection), or when less than half of it is left in the frame",
                         1, 100000, kDefaultLostAfter, rw));
    static const char* const nested_blurbs[] = {
        "Cascade file (OpenCV LBP or Haar XML, or WaldBoost XML) searched in the upper half of each detection, as "
        "facedetect's eyes-profile (e.g. /usr/share/opencv4/haarcascades/haarcascade_eye.xml); its finds are "
        "region-of-interest metas of type \"eyes\" whose parent_id is the detection's id, and an \"eyes\" list "
        "in the detection's message structure. Empty = none",
        "Cascade file searched in the centre of each detection (the middle half of its width, from a quarter of "
        "its height down to three quarters), as facedetect's nose-profile; metas and list \"nose\", as "
        "eyes-profile. Empty = none",
        "Cascade file searched in the lower half of each detection, as facedetect's mouth-profile (e.g. "
        "haarcascade_smile.xml); metas and list \"mouth\", as eyes-profile. Empty = none",
    };
    for (size_t i = 0; i < wel::kNestedParts.size(); ++i) {
        const wel::NestedPart& part = wel::kNestedParts[i];
        const std::string nick = std::string(1, g_ascii_toupper(part.name[0])) + (part.name + 1) + " cascade";
        g_object_class_install_property(
            gobject_class, static_cast<guint>(PROP_EYES_PROFILE + i),
            g_param_spec_string(part.property, g_intern_string(nick.c_str()), nested_blurbs[i], "", rw));
    }

    g_object_class_install_property(
        gobject_class, PROP_BATCHING,
        g_param_spec_boolean("batching", "Batching",
                             "Launch this element's frames on the device together with those of the other "
                             "waldboostdetect elements of the process on the same device with the same classifier: "
                             "one set of launches for many cameras. Detections are the same either way. Off by "
                             "default: on an H200 it gained 10-25% with 64 1080p streams and lost up to 27% at 4K "
                             "(docs/performance.md)",
                             FALSE, rw));
    g_object_class_install_property(
        gobject_class, PROP_BATCH_WAIT,
        g_param_spec_uint64("batch-wait", "Batch wait",
                            "With batching, how long (ns) a frame may wait for frames of the other elements to be "
                            "launched with; 0 = never wait, go with the frames already waiting. Nothing waits while "
                            "this is the only element on the device. Added to the latency the element reports",
                            0, GST_SECOND, 0, rw));
    g_object_class_install_property(
        gobject_class, PROP_PROFILING,
        g_param_spec_boolean("profiling", "Profiling",
                             "Time every kernel with OpenCL profiling, for the stats' device-ms and device-busy-ms "
                             "(0 without it). Off by default: on an H200 it cost 20-27% of the frame rate at 1080p "
                             "(docs/performance.md)",
                             FALSE, rw));

    /* The reduction's parameters: one structure property, and the separate
     * properties of earlier versions as aliases of its fields, both from
     * the table (core/opencl/reduction.h). */
    g_object_class_install_property(
        gobject_class, PROP_REDUCTION,
        g_param_spec_boxed("reduction", "Reduction parameters", g_intern_string(reduction_blurb().c_str()),
                           GST_TYPE_STRUCTURE, rw));
    for (size_t i = 0; i < wcl::kReductionParams.size(); ++i) {
        const wcl::ReductionParam& r = wcl::kReductionParams[i];
        g_object_class_install_property(
            gobject_class, static_cast<guint>(PROP_REDUCTION_ALIAS + i),
            g_param_spec_int(r.name, r.nick, g_intern_string(alias_blurb(r).c_str()), alias_unset(r), r.max,
                             alias_unset(r), rw));
    }
    g_object_class_install_property(
        gobject_class, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "Frames, detections, device time of the last frame, windows, weak classifiers per window, "
                           "candidates after each reduction step, discarded candidates (always 0), accepted windows "
                           "left out by max-windows (all frames), the device in use, how many times detection fell "
                           "back to a later device of the list, the scan (rows or reduction), batch-frames: the frames "
                           "launched together with the last one (with batching; device time, weak classifiers and "
                           "candidates are then the batch's), and device-busy-ms: the "
                           "time the device ran kernels of all the instances (engines) of the process on it, overlaps "
                           "counted once, since the first of those still running started (0 without an engine); read "
                           "it twice for a busy fraction (both need profiling=true); host-ms and host-total-ms: the "
                           "CPU time the element spent on the last frame and on all of them (submitting: mapping, "
                           "copying for the device, launching; collecting: reading back, grouping; metadata, "
                           "drawing, message)",
                           GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

    gst_element_class_set_static_metadata(element_class, "WaldBoost object detection", "Filter/Analyzer/Video",
                                          "Detects objects (faces by default) with an LBP or Haar cascade on an "
                                          "OpenCL device and attaches region-of-interest metadata",
                                          "waldboost-gst developers");
    GstCaps* caps = gst_caps_from_string(WALDBOOST_CAPS);
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("sink", GST_PAD_SINK, GST_PAD_ALWAYS, caps));
    gst_element_class_add_pad_template(element_class, gst_pad_template_new("src", GST_PAD_SRC, GST_PAD_ALWAYS, caps));
    gst_caps_unref(caps);

    trans_class->start = GST_DEBUG_FUNCPTR(gst_waldboost_detect_start);
    trans_class->stop = GST_DEBUG_FUNCPTR(gst_waldboost_detect_stop);
    trans_class->submit_input_buffer = GST_DEBUG_FUNCPTR(gst_waldboost_detect_submit_input_buffer);
    trans_class->generate_output = GST_DEBUG_FUNCPTR(gst_waldboost_detect_generate_output);
    trans_class->sink_event = GST_DEBUG_FUNCPTR(gst_waldboost_detect_sink_event);
    trans_class->query = GST_DEBUG_FUNCPTR(gst_waldboost_detect_query);
    trans_class->propose_allocation = GST_DEBUG_FUNCPTR(gst_waldboost_detect_propose_allocation);
    trans_class->passthrough_on_same_caps = FALSE;
    trans_class->transform_ip_on_passthrough = FALSE;
    filter_class->set_info = GST_DEBUG_FUNCPTR(gst_waldboost_detect_set_info);

    gst_type_mark_as_plugin_api(gst_waldboost_draw_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(gst_waldboost_grouping_get_type(), static_cast<GstPluginAPIFlags>(0));
    gst_type_mark_as_plugin_api(gst_waldboost_updates_get_type(), static_cast<GstPluginAPIFlags>(0));
}
