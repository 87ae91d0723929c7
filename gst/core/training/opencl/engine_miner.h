/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Hard-negative mining on the OpenCL engine: the trainer's ScanningMiner
 * with each pyramid level scanned by an Engine (core/opencl/engine/engine.h)
 * instead of the CPU reference. The engine's windows equal the
 * reference's, and the levels, positions and the random choice among the
 * windows that pass are ScanningMiner's, so for the same rng it mines the
 * same windows as CpuMiner. Its own library: the trainer does not depend
 * on OpenCL.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/opencl/engine/engine.h"
#include "core/training/miners.h"

namespace waldboost::training {

class EngineMiner final : public ScanningMiner {
public:
    /* What the mining cost (docs/training.md gives figures). */
    struct Stats {
        uint64_t engines_built = 0;       /* one per mining call with weak classifiers */
        double build_seconds = 0;         /* making those engines (kernels, upload) */
        uint64_t programs_compiled = 0;   /* of which built their program from source */
        uint64_t programs_from_cache = 0; /* or loaded it from the binary cache (others shared one) */
        uint64_t levels_scanned = 0;      /* pyramid levels scanned on the engine */
        uint64_t detect_calls = 0;        /* in so many Engine::detect() calls (one per image) */
        double scan_seconds = 0;          /* in those calls, the stacking of the levels included */
        uint64_t cpu_fallbacks = 0;       /* mining calls scanned with the CPU reference instead (below) */
    };

    /* Throws Error (NoDevice) when `config.device` matches no OpenCL
     * device. */
    EngineMiner(std::vector<GrayImage> backgrounds, Size window, opencl::EngineConfig config, int stride = 2,
                int max_passes = 8);
    ~EngineMiner() override;
    const opencl::DeviceInfo& device() const { return device_; }
    const Stats& stats() const { return stats_; }

protected:
    void prepare(const Classifier& classifier) override;
    void scan_level(const Classifier& classifier, const GrayView& level, int stride,
                    std::vector<Position>* passing) override;
    /* An image's levels stacked into one frame, one detect() call. */
    void scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                     std::vector<std::vector<Position>>* passing) override;

private:
    opencl::EngineConfig config_;
    opencl::DeviceInfo device_;
    std::unique_ptr<opencl::Engine> engine_;
    DetectParams params_;
    /* A classifier the engine cannot represent exactly (its fixed point
     * refuses responses of too wide a range) is scanned with the CPU
     * reference: the same windows, more slowly. */
    bool on_cpu_ = false;
    Stats stats_;
};

}  // namespace waldboost::training
