/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The WaldBoost trainer (Sochman and Matas, 2005; ../shared/design/
 * training.md): Real AdaBoost over table weak classifiers, each one feature
 * whose discrete value picks a response, with a rejection threshold after
 * every weak classifier from Wald's sequential test, and hard negatives
 * mined from background images with the classifier trained so far. Its
 * output is a Classifier the loader, the CPU reference and the OpenCL
 * engine run as they are (write_waldboost_xml()). docs/training.md says how
 * to use it and what each step does.
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/model/model.h"

namespace waldboost::training {

/* The feature families a weak classifier may use. */
enum class FeatureFamily {
    Lbp, /* multi-block LBP as the engine runs it: 256 bins */
};
const char* family_name(FeatureFamily family);

struct TrainerConfig {
    Size window{24, 24};
    std::string label = "object";
    std::vector<FeatureFamily> families{FeatureFamily::Lbp};
    /* Block sizes of the 3x3 grids to consider; empty: every size whose
     * grid fits the window. */
    std::vector<Size> block_sizes;
    /* Grid positions every `position_step` pixels along each axis. */
    int position_step = 1;
    int weak_count = 500;
    /* Wald's target miss rate: the rejection thresholds together lose at
     * most about this fraction of the positives (see estimate_threshold()). */
    double alpha = 0.05;
    /* Negative windows in the working set; 0: as many as positives, at
     * least 500. */
    int negatives = 0;
    uint64_t seed = 1;
    /* Threads for weak-learner selection; 0: the machine's cores. */
    unsigned threads = 0;
};

/* What each weak classifier cost and did (for stderr and JSON lines). */
struct Progress {
    int weak = 0;                /* 1-based */
    int weak_count = 0;
    std::string feature;         /* e.g. "LBP 3,5 2x2" */
    double z = 0.0;              /* Real AdaBoost's Z of the chosen feature */
    double threshold = 0.0;      /* its rejection threshold; -inf: none */
    size_t positives = 0;        /* left in the working set after it */
    size_t negatives = 0;
    double negatives_rejected = 0.0; /* fraction of the working set's negatives it rejected */
    double positives_rejected = 0.0;
    uint64_t mined = 0;          /* negatives mined after it */
    uint64_t windows_scanned = 0; /* background windows the mining evaluated */
    double negative_survival = 1.0; /* estimated share of background windows still passing */
    double seconds = 0.0;        /* this weak classifier, mining included */
    double select_seconds = 0.0; /* of which weak-learner selection */
};

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
};

/* Scans `backgrounds` with the CPU reference: each pass visits the images
 * in a random order, each at scales 1.25 apart from a random first scale
 * and at positions `stride` apart from a random offset, and keeps a random
 * share of the windows that pass; up to `max_passes` passes. */
class CpuMiner final : public NegativeMiner {
public:
    CpuMiner(std::vector<GrayImage> backgrounds, Size window, int stride = 2, int max_passes = 8);
    Result mine(const Classifier& classifier, size_t wanted, std::mt19937_64& rng) override;
    /* Windows of the window's size one pass visits at stride 1 (for the
     * "too few negatives" check). */
    uint64_t windows_per_pass() const;

private:
    std::vector<GrayImage> backgrounds_;
    Size window_;
    int stride_;
    int max_passes_;
};

/* Wald's rejection threshold after a weak classifier, from the running
 * sums of the working set. The region rejected is {H < theta}; with
 * p_neg and p_pos the estimated shares of all negative and all positive
 * windows that reach this weak classifier, a threshold is admissible when
 *   p_neg * (negatives below) / n_neg >= (1 / alpha) * p_pos * (positives below + 1) / (n_pos + 1),
 * i.e. the region holds at least 1/alpha times more of the negative
 * distribution than of the positive one (Wald's A = (1 - beta) / alpha with
 * beta = 0), the positives counted with one added so that a region with
 * none of the sampled positives is not taken as empty of positives. Summed
 * over the weak classifiers, the positives rejected are then at most about
 * alpha (the negatives' shares sum to at most 1). Returns the largest
 * admissible threshold (the running sum of some sample, rounded down to a
 * float), or kNoRejection when none is. */
float estimate_threshold(const std::vector<double>& positive_sums, const std::vector<double>& negative_sums,
                         double p_pos, double p_neg, double alpha);

class Trainer {
public:
    /* `positives`: window-sized crops. Throws Error (BadParameter) for a
     * window no feature fits, no positive, a positive of another size, or
     * settings out of range. */
    Trainer(TrainerConfig config, std::vector<GrayImage> positives, std::shared_ptr<NegativeMiner> miner);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /* Trains config.weak_count weak classifiers (fewer when no background
     * window passes any more: the classifier then rejects every window the
     * miner can find). `progress` is called after each. Throws Error
     * (BadParameter) when the backgrounds do not give the first working
     * set of negatives. Deterministic for a given seed, positives and miner. */
    Classifier train(const std::function<void(const Progress&)>& progress = {});

    /* Candidate features (for tests and the tool's summary). */
    size_t candidate_count() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace waldboost::training
