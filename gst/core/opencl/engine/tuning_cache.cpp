/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/tuning_cache.h"

#include <glib.h>
#include <glib/gstdio.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <memory>

#include "core/error.h"
#include "core/opencl/device/environment.h"

namespace waldboost::opencl {

namespace {

/* Bump when the meaning of a tuned file changes. 2: parameters scored by
 * throughput with frames in flight (1: single-frame device time, whose
 * picks were slower in a pipeline). The [reduction] group has one key per
 * row of kReductionParams, named as the row: renaming a row, or adding
 * one (older files lack its key and would be ignored), changes the files. */
constexpr const char* kTuningFormat = "waldboost-tuning-2";

struct KeyFileDeleter {
    void operator()(GKeyFile* k) const { g_key_file_free(k); }
};

}  // namespace

std::string tuning_key(const DeviceInfo& device, const Classifier& classifier)
{
    /* A SHA-256 of a canonical byte form of the device and of every field of
     * the model that affects detection (not the label). Hashing the model
     * itself, not its XML, keys every valid model: the XML writer refuses
     * models over the 10 MB file limit, about 2,600 weak classifiers, while
     * the loaders take 65,535. Numbers go in as fixed-width little-endian
     * integers, floats as their bits, strings and lists after their length. */
    std::unique_ptr<GChecksum, void (*)(GChecksum*)> sum(g_checksum_new(G_CHECKSUM_SHA256), g_checksum_free);
    auto u32 = [&](uint32_t v) {
        const guchar bytes[4] = {static_cast<guchar>(v), static_cast<guchar>(v >> 8), static_cast<guchar>(v >> 16),
                                 static_cast<guchar>(v >> 24)};
        g_checksum_update(sum.get(), bytes, sizeof bytes);
    };
    auto i32 = [&](int v) {
        u32(static_cast<uint32_t>(v));
    };
    auto f32 = [&](float v) {
        uint32_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        u32(bits);
    };
    auto text = [&](const std::string& s) {
        u32(static_cast<uint32_t>(s.size()));
        g_checksum_update(sum.get(), reinterpret_cast<const guchar*>(s.data()), static_cast<gssize>(s.size()));
    };
    text(kTuningFormat);
    text(device.platform_name);
    text(device.device_name);
    text(device.driver_version);
    i32(classifier.window_width);
    i32(classifier.window_height);
    f32(classifier.final_threshold);
    u32(static_cast<uint32_t>(classifier.weak.size()));
    for (const WeakClassifier& weak : classifier.weak) {
        u32(static_cast<uint32_t>(weak.feature.index()));
        struct Hash {
            decltype(i32)& int32;
            decltype(f32)& float32;
            decltype(u32)& uint32;
            void operator()(const LbpFeature& f) const
            {
                int32(f.x);
                int32(f.y);
                int32(f.block_width);
                int32(f.block_height);
                table(f.responses.data(), f.responses.size());
            }
            void operator()(const HaarTree& tree) const
            {
                uint32(static_cast<uint32_t>(tree.nodes.size()));
                for (const HaarNode& node : tree.nodes) {
                    uint32(node.feature.tilted ? 1 : 0);
                    uint32(static_cast<uint32_t>(node.feature.rects.size()));
                    for (const HaarRect& r : node.feature.rects) {
                        int32(r.x);
                        int32(r.y);
                        int32(r.width);
                        int32(r.height);
                        float32(r.weight);
                    }
                    float32(node.threshold);
                    for (const HaarNode::Child& c : {node.left, node.right}) {
                        uint32(c.leaf ? 1 : 0);
                        int32(c.index);
                    }
                }
                for (float leaf : tree.leaves)
                    float32(leaf);
                /* Keys made while every weak classifier held a table of 256
                 * responses (all zero for Haar) stay valid. */
                const std::array<float, LbpFeature::kTableSize> unused{};
                table(unused.data(), unused.size());
            }
            void operator()(const RankFeature& f) const
            {
                uint32(f.kind == RankFeature::Kind::Difference ? 0 : 1);
                int32(f.x);
                int32(f.y);
                int32(f.block_width);
                int32(f.block_height);
                int32(f.block_a);
                int32(f.block_b);
                table(f.responses.data(), f.responses.size());
            }
            void table(const float* values, size_t count) const
            {
                uint32(static_cast<uint32_t>(count));
                for (size_t i = 0; i < count; ++i)
                    float32(values[i]);
            }
        };
        std::visit(Hash{i32, f32, u32}, weak.feature);
        f32(weak.reject_threshold);
        u32(weak.reset_sum_after ? 1 : 0);
    }
    return g_checksum_get_string(sum.get());
}

std::string tuning_directory()
{
    if (const std::string dir = environment::cache_dir(); !dir.empty())
        return dir + "/tuning";
    return std::string(g_get_user_cache_dir()) + "/waldboost-gst/tuning";
}

std::optional<ReductionParams> load_tuned_reduction(const std::string& key, const DeviceInfo& device)
{
    const std::string path = tuning_directory() + "/" + key + ".ini";
    std::unique_ptr<GKeyFile, KeyFileDeleter> file(g_key_file_new());
    if (!g_key_file_load_from_file(file.get(), path.c_str(), G_KEY_FILE_NONE, nullptr))
        return std::nullopt;
    GError* error = nullptr;
    /* After the first missing or malformed key, the rest are not read:
     * GLib must never be handed an error that is already set. */
    auto get = [&](const char* name) {
        return error ? 0 : g_key_file_get_integer(file.get(), "reduction", name, &error);
    };
    /* One key per parameter of the table, named as in the table. */
    ReductionParams p;
    for (const ReductionParam& param : kReductionParams)
        param.set(p, get(param.name));
    if (error) {
        g_error_free(error);
        return std::nullopt; /* incomplete or damaged: ignore it */
    }
    try {
        validate(p, device);
    } catch (const Error&) {
        return std::nullopt;
    }
    return p;
}

std::string save_tuned_reduction(const std::string& key, const ReductionParams& p)
{
    const std::string dir = tuning_directory();
    if (g_mkdir_with_parents(dir.c_str(), 0700) != 0)
        throw Error(ErrorKind::Io, "cannot create the tuning folder " + dir);
    std::unique_ptr<GKeyFile, KeyFileDeleter> file(g_key_file_new());
    g_key_file_set_string(file.get(), "reduction", "format", kTuningFormat);
    for (const ReductionParam& param : kReductionParams)
        g_key_file_set_integer(file.get(), "reduction", param.name, param.get(p));
    const std::string path = dir + "/" + key + ".ini";
    GError* error = nullptr;
    if (!g_key_file_save_to_file(file.get(), path.c_str(), &error)) {
        const std::string message = path + ": " + error->message;
        g_error_free(error);
        throw Error(ErrorKind::Io, "cannot save tuned parameters: " + message);
    }
    return path;
}

ReductionParams preferred_reduction(const Classifier& classifier, const DeviceInfo& device, bool* from_tuning)
{
    if (from_tuning)
        *from_tuning = false;
    if (!environment::tuning_disabled()) {
        if (auto tuned = load_tuned_reduction(tuning_key(device, classifier), device)) {
            if (from_tuning)
                *from_tuning = true;
            return *tuned;
        }
    }
    return default_reduction(device, classifier);
}

}  // namespace waldboost::opencl
