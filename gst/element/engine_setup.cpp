/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "engine_setup.h"

#include <algorithm>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "core/opencl/device/device.h"
#include "core/text.h"
#include "debug.h"
#include "errors.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;
using waldboost::ErrorKind;

std::shared_ptr<wcl::Engine> EngineSetup::build(const Settings& s, size_t first)
{
    return build(s, first, *classifier_, std::string());
}

std::shared_ptr<wcl::Engine> EngineSetup::build(const Settings& s, size_t first,
                                                const waldboost::Classifier& classifier, const std::string& kept)
{
    GstElement* self = element_;
    const std::vector<std::string> specs = wcl::split_device_list(s.engine.device);
    for (size_t i = first; i < specs.size(); ++i) {
        try {
            /* The device's defaults first, then the user's overrides. */
            const wcl::SelectedDevice device = wcl::select_device(specs[i]);
            wcl::EngineConfig config = core_config(s, classifier, device.info).engine;
            config.device = specs[i];
            auto engine = std::make_shared<wcl::Engine>(classifier, config);
            device_position_ = i;
            stats_.update([&](Stats& st) {
                st.device = wcl::describe(engine->device());
                st.device_busy = engine->device_busy_counter();
                if (i > 0)
                    ++st.fallbacks;
            });
            const wcl::BuildReport& build = engine->build_report();
            const wcl::SharingReport sharing = engine->sharing();
            GST_INFO_OBJECT(self, "engine on %s; kernels %s in %.1f ms%s%s", wcl::describe(engine->device()).c_str(),
                            sharing.program_shared ? "shared with another instance"
                            : build.cache_hit      ? "from the cache"
                                                   : "built",
                            build.milliseconds, build.log.empty() ? "" : "; build log: ", build.log.c_str());
            /* One context, program and classifier upload per device and
             * process, whatever the number of instances (cameras). */
            GST_INFO_OBJECT(self,
                            "%ld engines in this process on this device; OpenCL context %s, program %s, "
                            "classifier %s",
                            sharing.engines_on_device, sharing.context_shared ? "shared" : "new",
                            sharing.program_shared ? "shared" : "built here",
                            sharing.classifier_shared ? "shared" : "uploaded here");
            return engine;
        } catch (const std::exception& e) {
            const ErrorKind kind = kind_of(e, ErrorKind::Device);
            if (i + 1 == specs.size() || !another_device_may_help(kind, Phase::Setup)) {
                post_error(self, s.engine.classifier_path, kind, e.what(), specs[i], Phase::Setup, kept);
                return nullptr;
            }
            GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                                ("OpenCL device \"%s\" failed (%s); falling back to \"%s\".",
                                 waldboost::printable(specs[i]).c_str(), reason_of(e.what()).c_str(),
                                 waldboost::printable(specs[i + 1]).c_str()),
                                ("%s", e.what()));
        }
    }
    return nullptr;
}

bool EngineSetup::load_nested(const Settings& s, bool replacing)
{
    std::shared_ptr<const NestedCascades> nested;
    if (!load_nested(s, &nested, replacing ? kChangeNotApplied : std::string()))
        return false;
    nested_ = std::move(nested);
    return true;
}

bool EngineSetup::load_nested(const Settings& s, std::shared_ptr<const NestedCascades>* out, const std::string& kept)
{
    const NestedPaths& paths = s.detection.nested_paths;
    const bool none = std::all_of(paths.begin(), paths.end(), [](const std::string& path) {
        return path.empty();
    });
    if (none) {
        out->reset();
        return true;
    }
    if (nested_ && nested_->paths == paths) {
        *out = nested_;
        return true;
    }
    size_t failed = 0;
    try {
        *out = load_nested_cascades(paths, &failed);
    } catch (const std::exception& e) {
        const std::string& path = paths[failed];
        post_load_error(element_,
                        std::string(kNestedParts[failed].property) + " \"" + waldboost::printable(path) + "\"", path,
                        e.what(), kept);
        return false;
    }
    return true;
}

/* Nothing is kept of a set-up that fails: the classifiers loaded before
 * stay, for the engine that runs on (replacing) or for a retry. */
std::shared_ptr<wcl::Engine> EngineSetup::setup(const Settings& s, bool replacing)
{
    const std::string kept = replacing ? kChangeNotApplied : std::string();
    std::shared_ptr<const NestedCascades> nested;
    if (!load_nested(s, &nested, kept))
        return nullptr;
    const std::string& path = s.engine.classifier_path;
    std::optional<waldboost::Classifier> classifier;
    try {
        classifier = path.empty() ? waldboost::default_classifier() : waldboost::load_classifier_file(path);
    } catch (const std::exception& e) {
        post_error(element_, path, kind_of(e, ErrorKind::ClassifierFile), e.what(), s.engine.device, Phase::Load, kept);
        return nullptr;
    }
    std::shared_ptr<wcl::Engine> engine = build(s, 0, *classifier, kept);
    if (engine) {
        classifier_ = std::move(classifier);
        nested_ = std::move(nested);
    }
    return engine;
}

}  // namespace waldboost_element
