/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference detector: the oracle every faster path is checked
 * against. It follows OpenCV's CascadeClassifier::detectMultiScale (scales,
 * window positions, LBP bit order, stage semantics, groupRectangles) and is
 * written to be read, not to be fast.
 */
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "core/reference/image.h"
#include "core/model/model.h"

namespace waldboost {

struct Rect {
    int x = 0;
    int y = 0;
    int width = 0;
    int height = 0;
    bool operator==(const Rect& o) const
    {
        return x == o.x && y == o.y && width == o.width && height == o.height;
    }
    bool operator<(const Rect& o) const;
};

enum class Grouping {
    None,   /* every accepted window is a detection */
    OpenCv, /* groupRectangles(eps = 0.2) with min_neighbors, as detectMultiScale */
    Nms,    /* greedy IoU non-maximum suppression by score, then min_neighbors */
};

struct DetectParams {
    double scale_factor = 1.1; /* > 1 */
    Size min_size{};           /* 0 = the classifier window */
    Size max_size{};           /* 0 = the image size */
    int stride = 0;            /* 0 = OpenCV's rule, else every stride-th position */
    int min_neighbors = 3;     /* a group needs more than this many windows */
    Grouping grouping = Grouping::OpenCv;
    float nms_iou = 0.3f;      /* IoU above which NMS merges two windows */
    std::optional<float> final_threshold; /* overrides the classifier's */
};

/* One level of the pyramid, with OpenCV's geometry. */
struct ScaleLevel {
    float scale = 1.0f;   /* original pixels per scaled pixel */
    Size image_size;      /* round(original size / scale) */
    Size window_size;     /* round(classifier window * scale), in original pixels */
    int step = 1;         /* distance between scanned positions, both axes */
    /* OpenCV's rule: a window rejected in the first stage also skips the
     * next position in its row. */
    bool skip_after_first_stage_rejection = false;
};

/* The levels detectMultiScale would scan; throws Error for bad parameters. */
std::vector<ScaleLevel> plan_scales(Size image, const Classifier& classifier, const DetectParams& params);

/* The outcome of running the classifier on one window. */
struct WindowResult {
    bool accepted = false;
    /* Index of the weak classifier that rejected the window, or the number of
     * weak classifiers when it survived them all. */
    size_t rejected_at = 0;
    /* Whether the rejection came at the first rejection test. */
    bool rejected_in_first_stage = false;
    int weak_evaluated = 0;
    /* Running sum after the last weak classifier evaluated, before any reset. */
    double score = 0.0;
};

/* The 8-bit LBP code of `feature` for the window whose top-left pixel is
 * (wx, wy). Bits, from the most significant: top-left, top, top-right,
 * right, bottom-right, bottom, bottom-left, left block; a bit is set when
 * that block's sum is >= the centre block's sum. */
int lbp_code(const IntegralImage& integral, int wx, int wy, const LbpFeature& feature);

WindowResult evaluate_window(const Classifier& classifier, const IntegralImage& integral, int wx, int wy,
                             float final_threshold);

/* An accepted window. */
struct RawWindow {
    Rect rect;        /* in original-image pixels */
    int level = 0;    /* index into plan_scales() */
    int x = 0;        /* position in the scaled image */
    int y = 0;
    float score = 0;  /* WindowResult::score minus the final threshold (>= 0) */
};

struct DetectStats {
    uint64_t windows = 0;         /* windows evaluated */
    uint64_t weak_evaluated = 0;  /* weak classifiers evaluated, over all windows */
    uint64_t accepted = 0;
};

/* Scans one pyramid level given its already scaled image. Tests use this to
 * feed the exact images another implementation scanned. */
std::vector<RawWindow> detect_level(const Classifier& classifier, const GrayView& scaled, const ScaleLevel& level,
                                    int level_index, const DetectParams& params, DetectStats* stats = nullptr);

/* Clips windows to the image, as detectMultiScale does before grouping: a
 * window rounded out past the right or bottom edge loses the overhang. */
void clip_windows(std::vector<RawWindow>& windows, Size image);

/* All levels: plan_scales, resize_bilinear, detect_level, clip_windows. */
std::vector<RawWindow> detect_raw(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                                  DetectStats* stats = nullptr);

struct Detection {
    Rect rect;
    int neighbors = 1;     /* raw windows merged into this detection */
    float score = 0;       /* best member's score minus the final threshold */
    /* 1 - exp(-neighbors / 8): 0.39 for 4 windows, 0.63 for 8, 0.86 for 16. */
    float confidence = 0;
};

float confidence_from_neighbors(int neighbors);

/* groupRectangles with OpenCV's semantics (eps = 0.2). */
std::vector<Detection> group_opencv(const std::vector<RawWindow>& windows, int min_neighbors, double eps = 0.2);

/* Greedy NMS: windows by descending score; each kept window absorbs those
 * with IoU > iou; detections with neighbors <= min_neighbors are dropped. */
std::vector<Detection> group_nms(const std::vector<RawWindow>& windows, float iou, int min_neighbors);

/* The grouping params.grouping selects. */
std::vector<Detection> group_windows(const std::vector<RawWindow>& windows, const DetectParams& params);

/* The whole detector: detect_raw then group_windows. */
std::vector<Detection> detect(const Classifier& classifier, const GrayView& image, const DetectParams& params,
                              DetectStats* stats = nullptr);

double intersection_over_union(const Rect& a, const Rect& b);

}  // namespace waldboost
