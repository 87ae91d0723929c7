/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's errors: which GStreamer error a core failure becomes, what
 * its message says, and when another device of the `device` list may
 * succeed where one failed (the fallback policy).
 */
#pragma once

#include <gst/gst.h>

#include <exception>
#include <string>

#include "core/error.h"

namespace waldboost_element {

/* Where a failure happened: loading the classifier, setting up the engine
 * on a device, or detecting while streaming. */
enum class Phase { Load, Setup, Streaming };

/* The kind of a failure: a waldboost::Error's own, set where the core threw
 * it; an OpenCL error that reached us unwrapped as the device layer would
 * classify it; running out of memory; else `otherwise`. */
waldboost::ErrorKind kind_of(const std::exception& e, waldboost::ErrorKind otherwise);

/* Whether another device of the list may succeed where one failed with
 * `kind` in `phase`. */
bool another_device_may_help(waldboost::ErrorKind kind, Phase phase);

/* A core message for a main (user-visible) message: one line, short (the
 * whole text belongs in the debug string). */
std::string reason_of(const std::string& what);

/* The sentence that ends a failure's message when a change made while
 * playing (a classifier, a device, a nested profile) cannot be applied: the
 * element keeps what it runs with, and the failure is a warning. */
inline const std::string kChangeNotApplied = "The change is not applied: detection goes on as before.";

/* Posts the error of a file that could not be loaded: `what_failed` names
 * it ("the classifier ...", "eyes-profile ..."), `path` is the file,
 * `what` the loader's message. With `kept` (kChangeNotApplied), a warning
 * that ends with it instead. */
void post_load_error(GstElement* element, const std::string& what_failed, const std::string& path,
                     const std::string& what, const std::string& kept = {});

/* Posts the GStreamer error for a failure of kind `kind` with the core's
 * message `what`; `classifier_path` is the classifier property (empty: the
 * embedded one), `device` the device spec it happened on. With `kept`, a
 * warning of the same domain, code and text that ends with it. */
void post_error(GstElement* element, const std::string& classifier_path, waldboost::ErrorKind kind,
                const std::string& what, const std::string& device, Phase phase, const std::string& kept = {});

/* A frame that cannot be read passes without detection, with a warning:
 * the first one since the element started, then at most one every
 * interval (with the number of such frames since), so that a stream of
 * them does not flood the bus; every one is in the debug log. */
class UnreadableWarnings {
public:
    void reset();
    void warn(GstElement* element, const std::string& why);

private:
    guint64 unreported_ = 0;
    gint64 warned_at_ = -1; /* g_get_monotonic_time(); -1: never */
};

}  // namespace waldboost_element
