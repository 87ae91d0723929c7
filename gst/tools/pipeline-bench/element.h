/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench and the waldboostdetect element: finding the
 * plugin, setting --props on an instance, and reading back what they set
 * for the engines alone to follow.
 */
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>

#include "core/model/model.h"
#include "settings.h"

namespace pipeline_bench {

/* Loads the plugin: GST_PLUGIN_PATH when set (gst_init reads it), else the
 * build tree it was built in, else --plugin-dir; the registry may also hold
 * an installed one. False when there is no waldboostdetect. */
bool find_plugin(const std::optional<std::string>& plugin_dir);

/* Applies the device, the classifier and --props to a waldboostdetect; ""
 * or why not. */
std::string apply_props(GstElement* detect, const Settings& s);

/* The element's own defaults with --props on top, into s.element, and
 * resolved as the element does into s.params and s.engine; whether its
 * boxes are the engine's (s.compare_boxes). Throws UsageError for a
 * property the element does not have. */
void configure_from_element(Settings& s, const waldboost::Classifier& classifier);

}  // namespace pipeline_bench
