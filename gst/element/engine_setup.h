/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's set-up: the classifier and the nested cascades loaded, the
 * engine built on the first device of the `device` list that works, and
 * built again on a later one when a device fails (errors.h decides when).
 */
#pragma once

#include <gst/gst.h>

#include <memory>
#include <optional>

#include "core/model/model.h"
#include "core/opencl/engine/engine.h"
#include "nested_cascades.h"
#include "settings.h"
#include "stats.h"

namespace waldboost_element {

class EngineSetup {
public:
    EngineSetup(GstElement* element, SharedStats& stats) : element_(element), stats_(stats) {}

    /* Loads the classifiers of `s` and builds its engine; null after
     * posting the error. `replacing`: an engine runs and stays when this
     * one cannot be set up (a change while playing), so a failure is a
     * warning (kChangeNotApplied). Either way a failure changes nothing
     * here. */
    std::shared_ptr<waldboost::opencl::Engine> setup(const Settings& s, bool replacing = false);
    /* Loads the nested cascades of `s` unless they are loaded already;
     * false after posting the error (with `replacing`, a warning: the
     * cascades loaded before stay). */
    bool load_nested(const Settings& s, bool replacing = false);
    /* Builds the engine on the first device of `s`'s list, from entry
     * `first` on, that works; each one that fails is a warning while
     * another is left to try, and the last failure is the error (null). */
    std::shared_ptr<waldboost::opencl::Engine> build(const Settings& s, size_t first);
    /* Forgets the classifiers (the element stopped). */
    void release() { classifier_.reset(); }

    const waldboost::Classifier& classifier() const { return *classifier_; }
    /* Of the last paths loaded; null when all are empty. */
    const std::shared_ptr<const NestedCascades>& nested() const { return nested_; }
    /* The last engine's entry in the device list. */
    size_t device_position() const { return device_position_; }

private:
    /* build() of `classifier`; the last failure ends with `kept` (errors.h). */
    std::shared_ptr<waldboost::opencl::Engine> build(const Settings& s, size_t first,
                                                     const waldboost::Classifier& classifier, const std::string& kept);
    /* The nested cascades of `s` into *out (those loaded already when the
     * paths are the same); false after posting the failure. */
    bool load_nested(const Settings& s, std::shared_ptr<const NestedCascades>* out, const std::string& kept);

    GstElement* element_;
    SharedStats& stats_;
    std::optional<waldboost::Classifier> classifier_;
    std::shared_ptr<const NestedCascades> nested_;
    size_t device_position_ = 0;
};

}  // namespace waldboost_element
