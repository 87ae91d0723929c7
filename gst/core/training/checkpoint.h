/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's checkpoint: what train() needs to go on after a weak
 * classifier as if it had never stopped (docs/training.md, "Checkpoints").
 * A binary file: a magic, a version, the payload's length, the payload and
 * an FNV-1a hash of it, so that a foreign, truncated or corrupted file is
 * refused with a message saying which, before any of it is used. Here too
 * what ties a checkpoint to its run: the fingerprints of the settings and
 * the positives, and the checks a resumed run makes.
 */
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/model/model.h"
#include "core/training/histograms.h"
#include "core/training/trainer.h"

namespace waldboost::training {

/* 64-bit FNV-1a, for the fingerprints and the checksum. */
class Fingerprint {
public:
    void add(const void* data, size_t size);
    void add_u64(uint64_t v);
    void add_double(double v);
    void add_string(const std::string& s);
    void add_image(const GrayImage& image);
    uint64_t value() const { return hash_; }

private:
    uint64_t hash_ = 0xcbf29ce484222325ull;
};

struct CheckpointSample {
    enum class Kind : uint8_t { Negative = 0, Positive = 1 };
    Kind kind = Kind::Negative;
    uint64_t positive_index = 0; /* a positive: its index among the trainer's positives */
    GrayImage window;            /* a negative: its pixels (window-sized) */
    double running_sum = 0.0;    /* checked against the sum recomputed on load */
};

/* The state after `classifier.weak.size()` weak classifiers. */
struct CheckpointState {
    uint64_t settings = 0; /* fingerprints of what the run was given */
    uint64_t positives = 0;
    uint64_t backgrounds = 0; /* 0: the miner gave none */
    Classifier classifier;    /* the weak classifiers so far, thresholds as trained */
    std::string rng;          /* std::mt19937_64's state as operator<< writes it */
    double negative_survival = 1.0;
    uint64_t refill_level = 0;             /* the negatives the last refill left (the next comes at half); 0: none */
    std::vector<CheckpointSample> samples; /* the working set, in order */
};

constexpr uint32_t kCheckpointVersion = 2; /* 2: the refill level */

/* The file's bytes. */
std::string encode_checkpoint(const CheckpointState& state);

/* A payload framed as a file: magic, version, length, the payload, its
 * FNV-1a hash. encode_checkpoint frames its payload with it; exposed so
 * that the fuzzer (tests/fuzz/fuzz_checkpoint.cpp) hands decode_checkpoint
 * payloads whose checksum matches. */
std::string frame_checkpoint_payload(const std::string& payload);

/* Throws Error (ErrorKind::BadParameter) naming `source` and what is wrong:
 * not a checkpoint, another version, truncated, corrupted (checksum), or a
 * payload that does not parse (a window of another size than `window`, a
 * feature of another family, a count beyond the bytes left). The
 * fingerprints are returned as stored; the trainer compares them. */
CheckpointState decode_checkpoint(const std::string& bytes, Size window, const std::string& source);

/* Everything in the settings that changes the classifier (the threads do
 * not), with the candidate grids they give. */
uint64_t settings_fingerprint(const TrainerConfig& config, const std::vector<Grid>& grids);
uint64_t positives_fingerprint(const std::vector<GrayImage>& positives);

/* Writes `state` to `path` with io::write_output_file, so that a crash while
 * writing leaves the last checkpoint as it was. Throws Error (Io). */
void write_checkpoint_file(const std::string& path, const CheckpointState& state);

/* Reads and decodes the checkpoint at `path`, refusing a file larger than
 * `largest` bytes before reading it into memory. Throws Error (Io:
 * unreadable; BadParameter: too large, or as decode_checkpoint). */
CheckpointState read_checkpoint_file(const std::string& path, uint64_t largest, Size window);

/* The most bytes a checkpoint of a run of `config` with `positives`
 * positives and a working set of `working_negatives` can take. */
uint64_t largest_checkpoint(const TrainerConfig& config, size_t positives, size_t working_negatives);

/* What a checkpoint must match to go on with a run. */
struct CheckpointRun {
    uint64_t settings = 0;
    uint64_t positives = 0;
    size_t positive_count = 0;
    uint64_t backgrounds = 0;
    int weak_count = 0;
    size_t working_negatives = 0;
    std::string feature_name; /* feature_type_name() of every weak classifier */
};

/* Throws Error (BadParameter) naming `path` and the first mismatch: other
 * settings, positives or backgrounds, more weak classifiers than the run
 * trains, another feature family, a survival outside 0 to 1, a refill
 * level above the run's working negatives, or a random
 * state that does not parse or is all zero (the generator would then give
 * only zeros, on which std::shuffle loops forever). Returns that random
 * state. */
std::mt19937_64 check_checkpoint_run(const CheckpointState& state, const CheckpointRun& run, const std::string& path);

}  // namespace waldboost::training
