/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/histograms.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <system_error>
#include <thread>

#include "core/error.h"
#include "core/reference/detector.h"
#include "core/training/worker_threads.h"

namespace waldboost::training {

const std::array<BlockPair, 36>& block_pairs()
{
    static const std::array<BlockPair, 36> pairs = [] {
        std::array<BlockPair, 36> p{};
        size_t k = 0;
        for (int a = 0; a < 9; ++a)
            for (int b = a + 1; b < 9; ++b)
                p[k++] = BlockPair{a, b};
        return p;
    }();
    return pairs;
}

FeatureLayout::FeatureLayout(FeatureType t) : type(t), bins(feature_type_info(t).table_size)
{
    switch (t) {
    case FeatureType::Lbp: /* the code */
        bytes_per_grid = 1;
        per_grid = 1;
        return;
    case FeatureType::Lrd:
    case FeatureType::Lrp: /* the nine ranks; a candidate per pair of blocks */
        bytes_per_grid = RankFeature::kBlocks;
        per_grid = block_pairs().size();
        return;
    case FeatureType::Haar: break;
    }
    throw Error(ErrorKind::BadParameter, std::string("training: ") + feature_type_name(t) +
                                             " features cannot be trained (" + trainable_feature_tags() + ")");
}

std::vector<uint8_t> grid_values(const CandidateSet& set, const GrayImage& window)
{
    const FeatureLayout layout = set.layout();
    const IntegralImage integral = integral_image(window.view());
    std::vector<uint8_t> values(set.grids.size() * layout.bytes_per_grid);
    for (size_t g = 0; g < set.grids.size(); ++g) {
        const Grid& grid = set.grids[g];
        uint8_t* out = values.data() + g * layout.bytes_per_grid;
        if (layout.type == FeatureType::Lbp) {
            LbpFeature f;
            f.x = grid.x;
            f.y = grid.y;
            f.block_width = grid.block_width;
            f.block_height = grid.block_height;
            out[0] = static_cast<uint8_t>(lbp_code(integral, 0, 0, f));
        } else {
            const std::array<int, 9> ranks =
                block_ranks(grid_block_sums(integral, 0, 0, grid.x, grid.y, grid.block_width, grid.block_height));
            for (int k = 0; k < 9; ++k)
                out[k] = static_cast<uint8_t>(ranks[k]);
        }
    }
    return values;
}

std::vector<uint64_t> quantise_weights(const std::vector<double>& weights)
{
    std::vector<uint64_t> q(weights.size());
    for (size_t i = 0; i < weights.size(); ++i) {
        const double w = weights[i];
        if (!(w >= 0.0 && w <= 1.0))
            throw Error(ErrorKind::BadParameter, "training: weight " + std::to_string(i) + " is " + std::to_string(w) +
                                                     " (weights are normalised to add up to 1)");
        q[i] = static_cast<uint64_t>(std::llround(std::ldexp(w, kWeightFractionBits)));
    }
    return q;
}

double real_adaboost_z(const uint64_t* negatives, const uint64_t* positives, size_t bins)
{
    /* Each sum is below 2^53, so exact as a double. */
    double z = 0.0;
    for (size_t b = 0; b < bins; ++b)
        z += std::sqrt(static_cast<double>(positives[b]) * static_cast<double>(negatives[b]));
    return std::ldexp(2.0 * z, -kWeightFractionBits);
}

float real_adaboost_response(double positive_weight, double negative_weight, double eps)
{
    const double r = 0.5 * std::log((positive_weight + eps) / (negative_weight + eps));
    /* A multiple of 2^-24 stays one as a float: a float rounds only to a
     * coarser power of two. */
    return static_cast<float>(std::ldexp(std::round(std::ldexp(r, kResponseFractionBits)), -kResponseFractionBits));
}

Choice HistogramBackend::best(const std::vector<uint64_t>& weights)
{
    const size_t bins = layout_.bins, total = set_.count();
    /* About 16 MiB of sums at a time. */
    const size_t chunk = std::max<size_t>(1, (size_t{16} << 20) / (2 * bins * sizeof(uint64_t)));
    std::vector<uint64_t> sums(std::min(chunk, total) * 2 * bins);
    Choice chosen;
    for (size_t first = 0; first < total; first += chunk) {
        const size_t n = std::min(chunk, total - first);
        histograms(weights, first, n, sums.data());
        for (size_t c = 0; c < n; ++c) {
            const uint64_t* neg = sums.data() + c * 2 * bins;
            const Choice candidate{real_adaboost_z(neg, neg + bins, bins), first + c};
            if (candidate.better_than(chosen))
                chosen = candidate;
        }
    }
    return chosen;
}

namespace {

/* Bytes of histogram a selection block may use: the block's histograms
 * stay in the L2 cache while each sample's values are read once. */
constexpr size_t kBlockHistogramBytes = 192 * 1024;
/* Samples a block takes at a time. */
constexpr size_t kSampleTile = 128;

class CpuHistograms final : public HistogramBackend {
public:
    CpuHistograms(CandidateSet set, unsigned threads)
        : HistogramBackend(std::move(set)),
          threads_(threads ? threads : std::max(1u, std::thread::hardware_concurrency()))
    {
    }
    std::string name() const override { return "cpu"; }

    void add(const GrayImage& window, bool positive) override
    {
        if (window.width != set_.window.width || window.height != set_.window.height)
            throw Error(ErrorKind::BadParameter, "training histograms: a sample of " + std::to_string(window.width) +
                                                     "x" + std::to_string(window.height) + " for a window of " +
                                                     std::to_string(set_.window.width) + "x" +
                                                     std::to_string(set_.window.height));
        const std::vector<uint8_t> v = grid_values(set_, window);
        values_.insert(values_.end(), v.begin(), v.end());
        positive_.push_back(positive);
        side_.push_back(positive ? 1 : 0);
    }
    void keep(const std::vector<bool>& kept) override
    {
        const size_t bytes = row_bytes();
        size_t out = 0;
        if (kept.size() != count())
            throw Error(ErrorKind::BadParameter, "training histograms: " + std::to_string(kept.size()) +
                                                     " flags to keep for " + std::to_string(count()) + " samples");
        for (size_t i = 0; i < count(); ++i) {
            if (!kept[i])
                continue;
            if (out != i) {
                std::copy_n(values_.begin() + static_cast<std::ptrdiff_t>(i * bytes), bytes,
                            values_.begin() + static_cast<std::ptrdiff_t>(out * bytes));
                positive_[out] = positive_[i];
                side_[out] = side_[i];
            }
            ++out;
        }
        values_.resize(out * bytes);
        positive_.resize(out);
        side_.resize(out);
    }
    void clear() override
    {
        values_.clear();
        positive_.clear();
        side_.clear();
    }
    size_t count() const override { return positive_.size(); }

    std::vector<uint8_t> bins(size_t candidate) override
    {
        if (candidate >= set_.count())
            throw Error(ErrorKind::BadParameter, "training histograms: no candidate " + std::to_string(candidate));
        const size_t g = candidate / layout_.per_grid, k = candidate % layout_.per_grid;
        std::vector<uint8_t> out(count());
        for (size_t i = 0; i < count(); ++i)
            out[i] = static_cast<uint8_t>(layout_.bin(row(i) + g * layout_.bytes_per_grid, k));
        return out;
    }

    void histograms(const std::vector<uint64_t>& weights, size_t first, size_t n, uint64_t* out) override
    {
        check_weights(weights);
        if (first > set_.count() || n > set_.count() - first)
            throw Error(ErrorKind::BadParameter, "training histograms: candidates " + std::to_string(first) + " to " +
                                                     std::to_string(first + n) + " of " + std::to_string(set_.count()));
        const size_t bins = layout_.bins;
        std::fill(out, out + n * 2 * bins, uint64_t{0});
        for (size_t i = 0; i < count(); ++i)
            for (size_t c = 0; c < n; ++c) {
                const size_t candidate = first + c, g = candidate / layout_.per_grid;
                const size_t b = layout_.bin(row(i) + g * layout_.bytes_per_grid, candidate % layout_.per_grid);
                out[c * 2 * bins + (positive_[i] ? bins : 0) + b] += weights[i];
            }
    }

    Choice best(const std::vector<uint64_t>& weights) override
    {
        const size_t bins = layout_.bins, per_grid = layout_.per_grid, n = count(), grids = set_.grids.size();
        const size_t histogram = per_grid * 2 * bins; /* sums per grid: negatives' bins, then positives' */
        const size_t block_grids = std::max<size_t>(1, kBlockHistogramBytes / (histogram * sizeof(uint64_t)));
        const size_t blocks = (grids + block_grids - 1) / block_grids;
        check_weights(weights);
        std::vector<Choice> best(threads_);
        auto sum_blocks = [&](unsigned thread) {
            std::vector<uint64_t> hist(block_grids * histogram);
            std::vector<uint8_t> scratch(block_grids * layout_.bytes_per_grid * kSampleTile);
            for (size_t block = thread; block < blocks; block += threads_) {
                const size_t g0 = block * block_grids, g1 = std::min(grids, g0 + block_grids);
                std::fill(hist.begin(), hist.end(), uint64_t{0});
                /* Samples in tiles: a tile's values of the block's grids
                 * are copied plane by plane (each grid's byte, or each of
                 * its nine ranks, for the tile's samples in a run), then
                 * summed candidate by candidate, whose sums stay in the L1
                 * cache. */
                const size_t planes = (g1 - g0) * layout_.bytes_per_grid;
                for (size_t i0 = 0; i0 < n; i0 += kSampleTile) {
                    const size_t tile = std::min(n - i0, kSampleTile);
                    for (size_t t = 0; t < tile; ++t) {
                        const uint8_t* v = row(i0 + t) + g0 * layout_.bytes_per_grid;
                        for (size_t p = 0; p < planes; ++p)
                            scratch[p * kSampleTile + t] = v[p];
                    }
                    const uint64_t* w = weights.data() + i0;
                    const uint8_t* side = side_.data() + i0;
                    for (size_t g = g0; g < g1; ++g)
                        for (size_t k = 0; k < per_grid; ++k) {
                            uint64_t* h = hist.data() + (g - g0) * histogram + k * 2 * bins;
                            const uint8_t* grid = scratch.data() + (g - g0) * layout_.bytes_per_grid * kSampleTile;
                            if (layout_.type == FeatureType::Lbp) {
                                for (size_t t = 0; t < tile; ++t)
                                    h[side[t] * bins + grid[t]] += w[t];
                                continue;
                            }
                            const BlockPair& pair = block_pairs()[k];
                            const uint8_t* ra = grid + static_cast<size_t>(pair.a) * kSampleTile;
                            const uint8_t* rb = grid + static_cast<size_t>(pair.b) * kSampleTile;
                            if (layout_.type == FeatureType::Lrd)
                                for (size_t t = 0; t < tile; ++t)
                                    h[side[t] * bins + static_cast<size_t>(ra[t] - rb[t] + 8)] += w[t];
                            else
                                for (size_t t = 0; t < tile; ++t)
                                    h[side[t] * bins + 9u * ra[t] + rb[t]] += w[t];
                        }
                }
                for (size_t g = g0; g < g1; ++g)
                    for (size_t k = 0; k < per_grid; ++k) {
                        const uint64_t* neg = hist.data() + (g - g0) * histogram + k * 2 * bins;
                        const Choice c{real_adaboost_z(neg, neg + bins, bins), g * per_grid + k};
                        if (c.better_than(best[thread]))
                            best[thread] = c;
                    }
            }
        };
        run_tasks(
            threads_, threads_,
            [&](size_t thread) {
                sum_blocks(static_cast<unsigned>(thread));
            },
            "to choose the weak classifier");
        Choice chosen;
        for (const Choice& c : best)
            if (c.better_than(chosen))
                chosen = c;
        return chosen;
    }

private:
    void check_weights(const std::vector<uint64_t>& weights) const
    {
        if (weights.size() != count())
            throw Error(ErrorKind::BadParameter, "training histograms: " + std::to_string(weights.size()) +
                                                     " weights for " + std::to_string(count()) + " samples");
    }
    size_t row_bytes() const { return set_.grids.size() * layout_.bytes_per_grid; }
    const uint8_t* row(size_t i) const { return values_.data() + i * row_bytes(); }

    unsigned threads_;
    std::vector<uint8_t> values_; /* sample-major: each sample's stored bytes of every grid */
    std::vector<bool> positive_;
    std::vector<uint8_t> side_; /* 1 for a positive: its sums follow the negatives' */
};

}  // namespace

std::unique_ptr<HistogramBackend> make_cpu_histograms(CandidateSet set, unsigned threads)
{
    return std::make_unique<CpuHistograms>(std::move(set), threads);
}

}  // namespace waldboost::training
