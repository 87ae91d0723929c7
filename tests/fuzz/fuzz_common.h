/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared by the libFuzzer targets (tests/fuzz/run-fuzzers.sh builds them):
 * the properties every loader must keep on any input. A violated property
 * prints "==WALDBOOST FINDING==" and aborts, which libFuzzer reports as a
 * crash and saves as an artifact.
 */
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <typeinfo>

#include "core/model/classifier_io.h"
#include "core/model/model.h"
#include "model_difference.h"

/* A weak classifier's LBP feature: the tests build and read LBP classifiers. */
inline waldboost::LbpFeature& lbp(waldboost::WeakClassifier& w) { return std::get<waldboost::LbpFeature>(w.feature); }
inline const waldboost::LbpFeature& lbp(const waldboost::WeakClassifier& w)
{
    return std::get<waldboost::LbpFeature>(w.feature);
}

namespace waldboost_fuzz {

using waldboost::Classifier;
using waldboost::WeakClassifier;

/* Every Error message is checked: no control character (a newline from
 * "&#10;" in an attribute could forge a log line) and at most
 * kMaxMessageBytes. WALDBOOST_FUZZ_STRICT_MESSAGES=0 turns the check off. */
constexpr size_t kMaxMessageBytes = 1024;

inline bool strict_messages()
{
    static const bool strict = [] {
        const char* value = std::getenv("WALDBOOST_FUZZ_STRICT_MESSAGES");
        return !(value && std::strcmp(value, "0") == 0);
    }();
    return strict;
}

[[noreturn]] inline void finding(const std::string& what)
{
    std::fprintf(stderr, "\n==WALDBOOST FINDING== %s\n", what.c_str());
    std::fflush(stderr);
    std::abort();
}

/* Runs `fn`. Returns true when it completed and false when it threw
 * waldboost::Error, whose message must start with "<source>:" (the contract
 * in model.h). Any other exception is a finding. */
template <typename Fn>
bool completes(const std::string& source, const char* stage, Fn&& fn)
{
    try {
        fn();
        return true;
    } catch (const waldboost::Error& e) {
        const std::string message = e.what();
        if (message.compare(0, source.size() + 1, source + ":") != 0)
            finding(std::string(stage) + ": the Error message does not start with '" + source +
                    ":': " + message.substr(0, 300));
        if (strict_messages()) {
            if (message.size() > kMaxMessageBytes)
                finding(std::string(stage) + ": an Error message of " + std::to_string(message.size()) + " bytes");
            for (const char c : message) {
                if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
                    finding(std::string(stage) +
                            ": a control character in the Error message: " + message.substr(0, 300));
            }
        }
        return false;
    } catch (const std::exception& e) {
        finding(std::string(stage) + ": threw " + typeid(e).name() + " instead of waldboost::Error: " + e.what());
    } catch (...) {
        finding(std::string(stage) + ": threw something that is not a std::exception");
    }
}

inline uint32_t bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

inline std::string hex_bits(float f)
{
    char buffer[16];
    std::snprintf(buffer, sizeof buffer, "0x%08x", static_cast<unsigned>(bits(f)));
    return buffer;
}

/* Every field, floats bit for bit; a difference is a finding naming it. */
inline void require_identical(const Classifier& a, const Classifier& b, const char* what)
{
    const auto differ = [&](const std::string& field) {
        finding(std::string(what) + ": " + field + " differs");
    };
    if (a.label != b.label)
        differ("label ('" + a.label + "' vs '" + b.label + "')");
    if (a.window_width != b.window_width || a.window_height != b.window_height)
        differ("window size");
    if (bits(a.final_threshold) != bits(b.final_threshold))
        differ("final_threshold (" + hex_bits(a.final_threshold) + " vs " + hex_bits(b.final_threshold) + ")");
    if (a.weak.size() != b.weak.size())
        differ("weak classifier count (" + std::to_string(a.weak.size()) + " vs " + std::to_string(b.weak.size()) +
               ")");
    for (size_t i = 0; i < a.weak.size(); ++i) {
        const WeakClassifier& x = a.weak[i];
        const WeakClassifier& y = b.weak[i];
        const std::string where = "weak classifier " + std::to_string(i) + ": ";
        const std::string feature = waldboost_compare::feature_difference(x, y);
        if (!feature.empty())
            differ(where + feature);
        if (bits(x.reject_threshold) != bits(y.reject_threshold))
            differ(where + "reject_threshold (" + hex_bits(x.reject_threshold) + " vs " + hex_bits(y.reject_threshold) +
                   ")");
        if (x.reset_sum_after != y.reset_sum_after)
            differ(where + "reset_sum_after");
    }
    if (a.stage_count() != b.stage_count())
        differ("stage_count()");
}

/* The round-trip property: a valid model is written, read back to an
 * identical model, and writing that gives the same text again. */
inline void require_round_trip(const Classifier& model, const char* what)
{
    const std::string written_name = "written.xml";
    std::string written;
    std::string refusal;
    const bool wrote = completes("classifier to write", "write_waldboost_xml", [&] {
        try {
            written = waldboost::write_waldboost_xml(model);
        } catch (const waldboost::Error& e) {
            refusal = e.what();
            throw;
        }
    });
    if (!wrote) {
        /* The one documented refusal: a valid model whose file would exceed
         * ModelLimits::kMaxFileBytes (it could not be loaded back). */
        if (refusal.find("limit for classifier files") != std::string::npos)
            return;
        finding(std::string(what) + ": write_waldboost_xml refused a model that validate() accepts: " + refusal);
    }
    Classifier again;
    if (!completes(written_name, "load_classifier_memory(written)", [&] {
            again = waldboost::load_classifier_memory(written, written_name);
        })) {
        std::string reason;
        try {
            waldboost::load_classifier_memory(written, written_name);
        } catch (const std::exception& e) {
            reason = e.what();
        }
        finding(std::string(what) + ": the written file does not load back: " + reason.substr(0, 300));
    }
    require_identical(model, again, what);
    std::string rewritten;
    completes("classifier to write", "write_waldboost_xml(again)", [&] {
        rewritten = waldboost::write_waldboost_xml(again);
    });
    if (rewritten != written)
        finding(std::string(what) + ": writing the re-read model gives different text");
}

}  // namespace waldboost_fuzz
