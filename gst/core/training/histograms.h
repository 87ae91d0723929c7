/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The trainer's seam for where the candidates' feature values and the
 * weight sums per bin are computed: a HistogramBackend holds the working
 * set's values, and given the weights returns per candidate the sums of
 * the negatives' and the positives' weights in each bin. The CPU backend
 * is here; the OpenCL one is core/training/opencl/training_histograms.h.
 *
 * Exactness by design: the weights are fixed-point integers (counts of
 * 2^-kWeightFractionBits, quantise_weights()) and summed as 64-bit
 * integers, whose sums do not depend on the order of the additions, so
 * every backend gives the same sums bit for bit however it splits the
 * work; Z is computed from them by one function (real_adaboost_z()), on
 * the host. The same weights therefore choose the same feature anywhere.
 */
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/model/feature_types.h"

namespace waldboost::training {

/* A 3x3 grid of equal blocks in the window. */
struct Grid {
    int x = 0, y = 0, block_width = 1, block_height = 1;
};

/* The pairs of blocks (a < b) a rank feature may compare: LRD(b, a) is
 * -LRD(a, b) and LRP(b, a) the same bins in another order, so the other
 * order would only tie. */
struct BlockPair {
    int a, b;
};
const std::array<BlockPair, 36>& block_pairs();

/* What a feature type stores per sample and grid, and how a candidate's
 * bin is read from it: LBP one byte (the code), LRD and LRP nine (the
 * ranks). */
struct FeatureLayout {
    FeatureType type;
    size_t bins;               /* table entries (feature_type_info().table_size) */
    size_t bytes_per_grid = 0; /* stored per sample and grid */
    size_t per_grid = 0;       /* candidates per grid */

    /* Throws Error (BadParameter) for a type the trainer cannot make. */
    explicit FeatureLayout(FeatureType t);
    /* The bin of candidate `k` of a grid whose stored bytes are `v`. */
    size_t bin(const uint8_t* v, size_t k) const
    {
        if (type == FeatureType::Lbp)
            return v[0];
        const BlockPair& p = block_pairs()[k];
        return type == FeatureType::Lrd ? static_cast<size_t>(v[p.a] - v[p.b] + 8)
                                        : static_cast<size_t>(9 * v[p.a] + v[p.b]);
    }
};

/* The candidates: every grid, and per grid layout.per_grid features;
 * candidate c is grid c / per_grid, feature c % per_grid. */
struct CandidateSet {
    FeatureType feature_type = FeatureType::Lbp;
    Size window{24, 24};
    std::vector<Grid> grids;
    FeatureLayout layout() const { return FeatureLayout(feature_type); }
    size_t count() const { return grids.size() * layout().per_grid; }
};

/* The stored bytes of every grid of `set` for one window (grid after
 * grid, layout().bytes_per_grid each), through the CPU reference's
 * lbp_code() and block_ranks(). */
std::vector<uint8_t> grid_values(const CandidateSet& set, const GrayImage& window);

/* The fixed point of the weights: a weight w of a working set whose
 * weights add up to 1 counts round(w 2^40) units. A sum of 2^40 plus
 * rounding fits 64 bits many times over; weights below 2^-41 of the total
 * count as nothing, which changes no choice that matters. */
constexpr int kWeightFractionBits = 40;
/* Throws Error (BadParameter) for a weight that is negative, not finite,
 * or above 1. */
std::vector<uint64_t> quantise_weights(const std::vector<double>& weights);

/* Real AdaBoost's Z = 2 sum_b sqrt(W+_b W-_b) of one candidate, from its
 * integer sums (in units of 2^-kWeightFractionBits), in a fixed order. */
double real_adaboost_z(const uint64_t* negatives, const uint64_t* positives, size_t bins);

/* Real AdaBoost's response of a bin, 1/2 ln((W+ + eps) / (W- + eps)),
 * rounded to a multiple of 2^-kResponseFractionBits: the OpenCL engine
 * sums responses in fixed point and runs a classifier only when its finest
 * response bit is within 2^53 of the sum of its largest responses
 * (gst/core/opencl/features/classifier_pack.cpp). Unrounded, a bin whose
 * classes nearly balance gets a response like 1e-10, and the engine refused
 * the classifier. 2^-24 is far below any response that changes a decision. */
constexpr int kResponseFractionBits = 24;
float real_adaboost_response(double positive_weight, double negative_weight, double eps);

/* The best candidate of a set: the lowest Z, a tie to the lowest index, so
 * that the choice does not depend on how the work was split. */
struct Choice {
    double z = std::numeric_limits<double>::infinity();
    size_t candidate = std::numeric_limits<size_t>::max();
    bool better_than(const Choice& o) const { return z < o.z || (z == o.z && candidate < o.candidate); }
};

class HistogramBackend {
public:
    virtual ~HistogramBackend() = default;
    virtual std::string name() const = 0;

    /* The working set: samples are appended (a window of the set's window
     * size, and its class), and removed all at once by keep(). A backend
     * may defer the work of add() to the next call that needs the values. */
    virtual void add(const GrayImage& window, bool positive) = 0;
    /* Keeps sample i when kept[i] (kept.size() == count()), in order. */
    virtual void keep(const std::vector<bool>& kept) = 0;
    virtual void clear() = 0;
    virtual size_t count() const = 0;

    /* Candidate `candidate`'s bin for every sample, in order. */
    virtual std::vector<uint8_t> bins(size_t candidate) = 0;

    /* For candidates first .. first + n - 1: the sums of `weights` (one per
     * sample, quantised) over the samples in each bin, into `out`:
     * per candidate layout().bins sums of the negatives, then as many of
     * the positives. */
    virtual void histograms(const std::vector<uint64_t>& weights, size_t first, size_t n, uint64_t* out) = 0;

    /* The candidate of the lowest Z for `weights`. By default from
     * histograms() in chunks, Z on the host. */
    virtual Choice best(const std::vector<uint64_t>& weights);

protected:
    explicit HistogramBackend(CandidateSet set) : set_(std::move(set)), layout_(set_.feature_type) {}
    const CandidateSet set_;
    const FeatureLayout layout_;
};

/* The CPU backend: the values in host memory, sample after sample; best()
 * on `threads` threads (0: the machine's cores), each over blocks of grids
 * whose histograms stay in the L2 cache. */
std::unique_ptr<HistogramBackend> make_cpu_histograms(CandidateSet set, unsigned threads);

}  // namespace waldboost::training
