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
 *
 * The Trainer is the loop; each step has its own file: the working set and
 * the positive crops (samples.h), boosting (boosting.h, with the weight
 * sums per bin in histograms.h), the rejection thresholds
 * (wald_threshold.h), the negative miners (miners.h) and the checkpoints
 * (checkpoint.h).
 */
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/model/feature_types.h"
#include "core/model/model.h"
#include "core/training/miners.h"

namespace waldboost::training {

class HistogramBackend;
struct CandidateSet;

struct TrainerConfig {
    Size window{24, 24};
    std::string label = "object";
    /* One per classifier, as the loader and the engine require: a type
     * with a command-line tag in core/model/feature_types.h (LBP, LRD or
     * LRP, which all read the nine block sums of a 3x3 grid of equal
     * blocks). */
    FeatureType feature_type = FeatureType::Lbp;
    /* Block sizes of the 3x3 grids to consider; empty: for LBP every size
     * whose grid fits the window, for LRD and LRP 1x1, 2x2, 2x4 and 4x2
     * (what the rank features' authors found enough for faces; each grid
     * gives 36 pairs of blocks). */
    std::vector<Size> block_sizes;
    /* Grid positions every `position_step` pixels along each axis. */
    int position_step = 1;
    int weak_count = 500;
    /* Wald's target miss rate: the rejection thresholds together lose at
     * most about this fraction of the positives (see estimate_threshold()). */
    double alpha = 0.05;
    /* The share of that miss budget the first weak classifier may spend
     * (above 0, at most 1). All of it (1) rejects the most windows at the
     * first weak classifier, but then the later ones can reject only below
     * every calibrating positive; on the face set of docs/quality.md
     * 0.7 at alpha 0.2 gave fewer weak classifiers per window than 1
     * (docs/history.md, "Figures behind the code's choices"). */
    double first_share = 1.0;
    /* The share of the positives (every k-th) that is not fitted but
     * sets the rejection thresholds; 0: the thresholds from the fitted
     * positives. */
    double calibration_share = 0.25;
    /* Negative windows in the working set; 0: as many as positives, at
     * least 500. */
    int negatives = 0;
    uint64_t seed = 1;
    /* Threads for weak-learner selection; 0: the machine's cores. */
    unsigned threads = 0;
    /* Where the candidates' values and the weight sums per bin are computed
     * (histograms.h; make_opencl_histograms() for a device); empty: on the
     * CPU with `threads`. Every backend chooses the same features. */
    std::function<std::unique_ptr<HistogramBackend>(const CandidateSet&)> histograms;
};

/* What each weak classifier cost and did (for stderr and JSON lines). */
struct Progress {
    int weak = 0; /* 1-based */
    int weak_count = 0;
    std::string feature;    /* e.g. "LBP 3,5 2x2", "LRD 0,4 2x2 blocks 1-7" */
    double z = 0.0;         /* Real AdaBoost's Z of the chosen feature */
    double threshold = 0.0; /* its rejection threshold; -inf: none */
    size_t positives = 0;   /* left in the working set after it */
    size_t negatives = 0;
    double negatives_rejected = 0.0; /* fraction of the working set's negatives it rejected */
    double positives_rejected = 0.0;
    uint64_t mined = 0;             /* negatives mined after it */
    bool refill_short = false;      /* the mining found fewer than the working set wanted */
    uint64_t windows_scanned = 0;   /* background windows the mining evaluated */
    double negative_survival = 1.0; /* estimated share of background windows still passing */
    double seconds = 0.0;           /* this weak classifier, mining included */
    double select_seconds = 0.0;    /* of which weak-learner selection */
    double mine_seconds = 0.0;      /* of which mining negatives after it */
};

/* About the most memory, in bytes, that a run of `config` with `positives`
 * positives takes: for every sample of the working set (the positives and
 * the negatives) its feature values, one per candidate grid of
 * candidate_grids() times the feature type's bytes per grid, and its
 * pixels, and the positives' own pixels. The feature values dominate: a
 * large window with every LBP block size has millions of grids. Saturates
 * at UINT64_MAX. Throws Error (BadParameter) as candidate_grids(). */
uint64_t estimate_memory(const TrainerConfig& config, uint64_t positives);

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

    /* Writes the training state to `path` (with io::write_output_file: a
     * file is replaced atomically, a link or device stays what it is) after
     * every `every` weak classifiers, after the last one, and when a stop
     * was requested. */
    void set_checkpoint(const std::string& path, int every = 1);
    /* Loads the state that set_checkpoint() wrote, so that train() goes on
     * from it and returns, byte for byte, the classifier of a run that never
     * stopped. Throws Error (Io: unreadable; BadParameter: not a checkpoint,
     * truncated, corrupted, or from other settings, positives or
     * backgrounds, the message naming which). */
    void resume(const std::string& path);
    /* Weak classifiers trained when train() starts: 0, or what resume() loaded. */
    size_t resumed_weak() const;
    /* Asks train() (e.g. from its progress callback) to stop after the weak
     * classifier it is training: it writes the checkpoint, if any, and
     * returns a Classifier without weak classifiers; stopped() is then true. */
    void request_stop();
    bool stopped() const;

    /* Candidate features (for tests and the tool's summary). */
    size_t candidate_count() const;

    /* Why the last train() ended before config.weak_count weak
     * classifiers, as a sentence for the user; empty when it trained them
     * all (or was stopped by request_stop()). */
    const std::string& early_stop() const;
    /* Seconds the last train() spent mining negatives, the first working
     * set's included (for the share of the run that mining takes). */
    double mining_seconds() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace waldboost::training
