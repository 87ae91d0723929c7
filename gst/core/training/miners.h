/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's source of negatives (OpenCV's traincascade keeps its in
 * imagestorage.cpp): background windows that the classifier trained so far
 * lets through, which the trainer adds to its working set whenever half of
 * its negatives are rejected (bootstrapping). ScanningMiner fixes which
 * windows are visited and kept; a miner only says which windows of a level
 * pass, on the CPU (CpuMiner) or on a device (opencl/engine_miner.h).
 */
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "core/detection/image.h"
#include "core/model/model.h"

namespace waldboost::training {

/* Background windows that pass a classifier: the trainer's source of
 * negatives. The CPU miner scans background images with the CPU reference;
 * another may scan them on a device. */
class NegativeMiner {
public:
    struct Result {
        std::vector<GrayImage> windows; /* window-sized */
        uint64_t scanned = 0;           /* windows evaluated */
        uint64_t passed = 0;            /* of which passed the classifier (some may not be kept) */
    };
    virtual ~NegativeMiner() = default;
    /* Up to `wanted` windows that pass every rejection threshold of
     * `classifier` (all windows when it has no weak classifier yet), taken
     * at random (from `rng`) over the images, positions and scales. */
    virtual Result mine(const Classifier& classifier, size_t wanted, std::mt19937_64& rng) = 0;
    /* How many different windows it can offer at most (0: unknown): the
     * trainer refuses a working set larger than that before mining. */
    virtual uint64_t capacity() const { return 0; }
    /* A hash of what it mines from (the backgrounds and the scan's
     * settings), which a checkpoint records so that a resumed run is refused
     * other backgrounds; 0: none to check. Miners that find the same windows
     * (the CPU and the engine miner) give the same value. */
    virtual uint64_t fingerprint() const { return 0; }
};

/* Mining by scanning the backgrounds: each pass visits the images in a
 * random order, each at scales 1.25 apart from a random first scale and at
 * positions `stride` apart from a random offset, and keeps a random share
 * of the windows that pass; up to `max_passes` passes. The levels, the
 * positions and the random choice among the windows that pass are this
 * class's; a miner only says which windows of a level pass (scan_level()),
 * so that miners given the same rng mine the same windows. */
class ScanningMiner : public NegativeMiner {
public:
    struct Position {
        int x, y;
    };
    Result mine(const Classifier& classifier, size_t wanted, std::mt19937_64& rng) final;
    /* The windows of the window's size at every position (stride 1) and
     * scale 1.25 apart from 1. */
    uint64_t capacity() const final;
    uint64_t fingerprint() const final;
    /* Threads that make an image's levels (and, for the CPU miner, scan
     * them): 1 by default, 0 = every core. The windows mined do not
     * depend on it. */
    void set_threads(unsigned threads);

protected:
    ScanningMiner(std::vector<GrayImage> backgrounds, Size window, int stride, int max_passes);
    /* Called by mine() before its scan_level() calls, with a classifier
     * that has weak classifiers (with none, every window passes and nothing
     * is scanned). */
    virtual void prepare(const Classifier& classifier) { (void)classifier; }
    /* Appends the positions, multiples of `stride` from (0, 0), of the
     * windows of `level` that pass every rejection threshold of
     * `classifier`, in any order. */
    virtual void scan_level(const Classifier& classifier, const GrayView& level, int stride,
                            std::vector<Position>* passing) = 0;
    /* The same for all the levels of an image at once (passing->size() is
     * levels.size()): scan_level() for each, unless a miner does better. */
    virtual void scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                             std::vector<std::vector<Position>>* passing);
    Size window() const { return window_; }
    unsigned threads() const { return threads_; }
    /* scan_level() with the CPU reference (evaluate_window). */
    void scan_with_reference(const Classifier& classifier, const GrayView& level, int stride,
                             std::vector<Position>* passing) const;

private:
    std::vector<GrayImage> backgrounds_;
    Size window_;
    int stride_;
    int max_passes_;
    unsigned threads_ = 1;
};

/* Scans with the CPU reference (evaluate_window), an image's levels in
 * bands of rows over set_threads() threads. */
class CpuMiner final : public ScanningMiner {
public:
    CpuMiner(std::vector<GrayImage> backgrounds, Size window, int stride = 2, int max_passes = 8);

protected:
    void scan_level(const Classifier& classifier, const GrayView& level, int stride,
                    std::vector<Position>* passing) override;
    void scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                     std::vector<std::vector<Position>>* passing) override;
};

}  // namespace waldboost::training
