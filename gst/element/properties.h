/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's properties as values: their ids, reading and writing them
 * into Settings (with the checks of roi, label-colors and reduction), and
 * the blurbs made from the reduction's table. gstwaldboostdetect.cpp
 * installs and documents them.
 */
#pragma once

#include <glib-object.h>

#include <string>
#include <vector>

#include "core/opencl/engine/reduction.h"
#include "settings.h"

namespace waldboost_element {

enum PropertyId : guint {
    PROP_0,
    PROP_CLASSIFIER,
    PROP_LABEL,
    PROP_LABEL_ID,
    PROP_DEVICE,
    PROP_SCALE_FACTOR,
    PROP_MIN_SIZE,
    PROP_MIN_HEIGHT,
    PROP_MAX_SIZE,
    PROP_STRIDE,
    PROP_MIN_NEIGHBORS,
    PROP_GROUPING,
    PROP_NMS_IOU,
    PROP_THRESHOLD,
    PROP_MIN_CONFIDENCE,
    PROP_MAX_WINDOWS,
    PROP_ROI,
    PROP_INFERENCE_REGION,
    PROP_REGION_LABELS,
    PROP_MAX_INFLIGHT,
    PROP_DRAW,
    PROP_COLOR,
    PROP_LINE_WIDTH,
    PROP_BOX_TEXT,
    PROP_LABEL_COLORS,
    PROP_PRIVACY,
    PROP_PRIVACY_LABELS,
    PROP_SNAPSHOT_FOLDER,
    PROP_SNAPSHOT_MESSAGE,
    PROP_POST_MESSAGES,
    PROP_UPDATES,
    PROP_METADATA,
    PROP_MIN_STDDEV,
    PROP_TRACKING,
    PROP_INTERVAL,
    PROP_LOST_AFTER,
    PROP_CONFIRM_HITS,
    PROP_CONFIRM_WINDOW,
    PROP_EYES_PROFILE, /* then nose and mouth, in kNestedParts order */
    PROP_NOSE_PROFILE,
    PROP_MOUTH_PROFILE,
    PROP_PARTS,
    PROP_PART_MIN_NEIGHBORS,
    PROP_BATCHING,
    PROP_BATCH_WAIT,
    PROP_PROFILING,
    PROP_REDUCTION,
    PROP_STATS,
    /* The reduction's alias properties, one per row of kReductionParams:
     * PROP_REDUCTION_ALIAS + the row's index. Keep last. */
    PROP_REDUCTION_ALIAS,
};

/* Sets property `id` of `s` from `value`; a refused value (a bad roi,
 * label-colors or reduction) keeps the previous one, with a warning in the
 * debug log of `object` (and for roi, label and label-colors on its bus,
 * or in `unposted` while it has none). False for an id that is not a
 * setting. */
bool set_setting(GObject* object, Settings& s, guint id, const GValue* value,
                 std::vector<RefusedValue>* unposted = nullptr);
/* Emits notify for each property of `object` whose value differs between
 * `before` and `after` (settings restored after a change that could not
 * be applied). */
void notify_changed(GObject* object, const Settings& before, const Settings& after);
/* Posts a refused value's warning; false when the element has no bus. */
bool post_refused(GstElement* element, const RefusedValue& refused);
/* Gives property `id` of `s`; false for an id that is not a setting. */
bool get_setting(const Settings& s, guint id, GValue* value);

/* The alias properties keep the values the separate properties had for
 * "not set": 0 for the work-group sizes (no power of two), -1 for the
 * others. */
int alias_unset(const waldboost::opencl::ReductionParam& r);
std::string alias_blurb(const waldboost::opencl::ReductionParam& r);
std::string reduction_blurb();

}  // namespace waldboost_element
