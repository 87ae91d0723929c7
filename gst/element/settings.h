/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Everything a user can set on the element, in three parts: what the
 * engine is built from (a change needs a new engine, and so a drained
 * queue), how frames are searched, and how their results are shown. The
 * frames in flight carry a snapshot of the last two, so that a property
 * change never reaches them.
 */
#pragma once

#include "config.h" /* HAVE_GST_ANALYTICS */

#include <gst/gst.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/opencl/settings/detector_settings.h"
#include "core/opencl/device/device.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/engine/reduction.h"
#include "gstwaldboostdetect.h"
#include "nested_cascades.h"

namespace waldboost_element {

inline constexpr double kDefaultScaleFactor = 1.1;
inline constexpr int kDefaultMinNeighbors = 3;
inline constexpr int kDefaultMaxInflight = 2;
inline constexpr guint kDefaultColor = 0xff00ff00; /* opaque green, ARGB */
/* Both kinds of metadata where GstAnalytics exists (GStreamer 1.24 on). */
inline constexpr GstWaldboostMetadata kDefaultMetadata =
    HAVE_GST_ANALYTICS ? GST_WALDBOOST_METADATA_BOTH : GST_WALDBOOST_METADATA_ROI;
inline constexpr int kDefaultLineWidth = 2;
inline constexpr double kDefaultNmsIou = 0.3;
/* Tracking: a hidden object keeps its id for 40 frames (1.6 s at 25 fps);
 * a new track is reported after 2 detections within 3 detection frames. */
inline constexpr int kDefaultLostAfter = 40;
inline constexpr int kDefaultConfirmHits = 2;
inline constexpr int kDefaultConfirmWindow = 3;

/* Frames the element holds at most: max-inflight frames on the device and,
 * with interval > 1, the frames that skip detection queued between them
 * (they take no device memory), up to kHeldPerDetectionFrame frames per
 * frame on the device. Held to max-inflight frames in all, a skipped frame
 * kept the next detection frame off the device, and interval=3 gained
 * far less than it should (docs/history.md, "Figures behind the
 * code's choices"). The latency the element reports follows this count. */
inline constexpr int kHeldPerDetectionFrame = 4;
inline size_t frames_held(size_t max_inflight, int interval)
{
    return max_inflight * static_cast<size_t>(std::clamp(interval, 1, kHeldPerDetectionFrame));
}

/* What the engine is built from. */
struct EngineSettings {
    std::string classifier_path; /* empty: the embedded default */
    std::string device = "auto";
    int max_inflight = kDefaultMaxInflight;
    gboolean batching = TRUE;
    GstClockTime batch_wait = 0;
    gboolean profiling = FALSE;
    /* Reduction overrides (the `reduction` property and its aliases); each
     * one unset = the engine's tuned or default value. */
    waldboost::opencl::ReductionOverrides reduction;

    bool operator==(const EngineSettings& o) const
    {
        return classifier_path == o.classifier_path && device == o.device && max_inflight == o.max_inflight &&
               batching == o.batching && batch_wait == o.batch_wait && profiling == o.profiling &&
               reduction == o.reduction;
    }
    bool operator!=(const EngineSettings& o) const { return !(*this == o); }
};

/* Which frames are searched, where, how, and what follows the detections
 * (tracking, the nested cascades). */
struct DetectionSettings {
    double scale_factor = kDefaultScaleFactor;
    int min_size = 0;   /* a width */
    int min_height = 0; /* 0: min_size's, by the window's aspect ratio */
    int max_size = 0;
    int stride = 0;
    int min_neighbors = kDefaultMinNeighbors;
    GstWaldboostGrouping grouping = GST_WALDBOOST_GROUPING_OPENCV;
    double nms_iou = kDefaultNmsIou;
    double threshold = 0.0;
    double min_confidence = 0.0;
    int max_windows = waldboost::kDefaultMaxWindows;
    std::vector<int> roi; /* empty or x, y, width, height */
    GstWaldboostInferenceRegion inference_region = GST_WALDBOOST_INFERENCE_REGION_FULL_FRAME;
    std::vector<std::string> region_labels; /* with roi-list: the upstream metas' types; empty = all */
    int min_stddev = 0;
    int interval = 1; /* detect on every interval-th frame */
    gboolean tracking = FALSE;
    int lost_after = kDefaultLostAfter;
    int confirm_hits = kDefaultConfirmHits;
    int confirm_window = kDefaultConfirmWindow;
    NestedPaths nested_paths; /* eyes-, nose-, mouth-profile; empty = none */
    GstWaldboostParts parts = GST_WALDBOOST_PARTS_ALL;
    int part_min_neighbors = -1; /* -1: min_neighbors */
};

/* How the results are shown: drawn, attached, posted. */
struct OutputSettings {
    std::string label; /* empty: the classifier's (resolved in FrameSettings) */
    int label_id = -1; /* -1: the label's (label_ids.h; resolved in FrameSettings) */
    GstWaldboostDraw draw = GST_WALDBOOST_DRAW_AUTO;
    guint color = kDefaultColor;
    int line_width = kDefaultLineWidth;
    guint box_text = 0; /* GstWaldboostBoxText flags */
    std::map<std::string, guint> label_colors;
    GstWaldboostPrivacy privacy = GST_WALDBOOST_PRIVACY_NONE;
    std::vector<std::string> privacy_labels; /* empty: every label */
    std::string snapshot_folder;             /* empty: no files */
    gboolean snapshot_message = FALSE;
    gboolean post_messages = TRUE;
    GstWaldboostUpdates updates = GST_WALDBOOST_UPDATES_EVERY_FRAME;
    GstWaldboostMetadata metadata = kDefaultMetadata;
};

struct Settings {
    EngineSettings engine;
    DetectionSettings detection;
    OutputSettings output;
};

/* The core's parameters for the settings: the detection's (for
 * `classifier`: sizes are object widths, the threshold an offset to its
 * own) and the engine's (for `device`: reduction overrides apply on top of
 * its tuned or default parameters). The properties become the core's
 * DetectorSettings here, and resolve_settings() does the rest, as for the
 * tools. */
using CoreConfig = waldboost::opencl::DetectorParameters;
CoreConfig core_config(const Settings& s, const waldboost::Classifier& classifier,
                       const waldboost::opencl::DeviceInfo& device);

/* What a frame in flight carries from the settings it entered with. */
struct FrameSettings {
    DetectionSettings detection;
    OutputSettings output; /* label and label_id resolved: the property or the classifier's */
    waldboost::DetectParams params;
    /* The cascades searched inside each detection (null: none), and how. */
    std::shared_ptr<const NestedCascades> nested;
    waldboost::DetectParams nested_params;
    /* inference-region=roi-list: the engine searches inside each upstream
     * region (Engine::submit_areas), not the whole frame. */
    bool search_regions = false;
};

/* The part of a width x height frame that roi selects (the whole frame
 * without one). */
waldboost::Rect roi_in_frame(const std::vector<int>& roi, int width, int height);

/* A property value refused (a bad roi, label or label-colors): the
 * warning's text, and the property it names (the debug text). */
struct RefusedValue {
    std::string message;
    std::string property;
};

/* The settings as the properties set them, shared by the application's
 * threads and the streaming thread; each change counts, so that the
 * streaming thread copies them only when they changed. */
struct SettingsStore {
    mutable std::mutex lock;
    Settings settings;      /* guarded by lock */
    guint64 generation = 1; /* changes so far; guarded by lock */
    /* Refused values whose warning found no bus (gst-launch sets the
     * properties while parsing, before the pipeline exists): posted again
     * when the element starts. Guarded by lock. */
    std::vector<RefusedValue> unposted;

    Settings copy() const
    {
        std::lock_guard<std::mutex> guard(lock);
        return settings;
    }
    /* The engine's settings and the nested profiles of `running` again in
     * place of those of `failed`, a change that could not be applied; any
     * of them set again since stays as set. Leaves the generation as it
     * is: these values are the ones that run. True when a value changed,
     * with the settings before and after in *before and *after (for the
     * properties' notifications). */
    bool restore(const Settings& failed, const Settings& running, Settings* before, Settings* after)
    {
        std::lock_guard<std::mutex> guard(lock);
        *before = settings;
        if (settings.engine == failed.engine)
            settings.engine = running.engine;
        if (settings.detection.nested_paths == failed.detection.nested_paths)
            settings.detection.nested_paths = running.detection.nested_paths;
        *after = settings;
        return before->engine != after->engine || before->detection.nested_paths != after->detection.nested_paths;
    }
    /* Copies the settings into *out when they changed since `seen`
     * (*generation: the copy's); false, without copying, otherwise. */
    bool changed_since(guint64 seen, Settings* out, guint64* current) const
    {
        std::lock_guard<std::mutex> guard(lock);
        *current = generation;
        if (seen == generation)
            return false;
        *out = settings;
        return true;
    }
};

}  // namespace waldboost_element
