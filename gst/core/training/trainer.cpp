/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/trainer.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/training/checkpoint.h"
#include "core/reference/detector.h"
#include "core/training/histograms.h"

namespace waldboost::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

std::string describe(const Grid& g)
{
    return std::to_string(g.x) + "," + std::to_string(g.y) + " " + std::to_string(g.block_width) + "x" +
           std::to_string(g.block_height);
}

}  // namespace

const char* family_name(FeatureFamily family)
{
    switch (family) {
    case FeatureFamily::Lbp: return "LBP";
    case FeatureFamily::Lrd: return "LRD";
    case FeatureFamily::Lrp: return "LRP";
    }
    return "?";
}

/* ------------------------------------------------------------------ */

ScanningMiner::ScanningMiner(std::vector<GrayImage> backgrounds, Size window, int stride, int max_passes)
    : backgrounds_(std::move(backgrounds)), window_(window), stride_(std::max(stride, 1)),
      max_passes_(std::max(max_passes, 1))
{
}

uint64_t ScanningMiner::fingerprint() const
{
    Fingerprint f;
    f.add_u64(static_cast<uint64_t>(window_.width));
    f.add_u64(static_cast<uint64_t>(window_.height));
    f.add_u64(static_cast<uint64_t>(stride_));
    f.add_u64(static_cast<uint64_t>(max_passes_));
    f.add_u64(backgrounds_.size());
    for (const GrayImage& b : backgrounds_)
        f.add_image(b);
    return f.value();
}

uint64_t ScanningMiner::capacity() const
{
    uint64_t n = 0;
    for (const GrayImage& b : backgrounds_)
        for (double s = 1.0; b.width / s >= window_.width && b.height / s >= window_.height; s *= 1.25) {
            const int w = static_cast<int>(b.width / s), h = static_cast<int>(b.height / s);
            n += static_cast<uint64_t>(w - window_.width + 1) * static_cast<uint64_t>(h - window_.height + 1);
        }
    return n;
}

NegativeMiner::Result ScanningMiner::mine(const Classifier& classifier, size_t wanted, std::mt19937_64& rng)
{
    Result result;
    if (wanted == 0 || backgrounds_.empty())
        return result;
    const bool every_window_passes = classifier.weak.empty();
    if (!every_window_passes)
        prepare(classifier);
    const size_t quota = std::max<size_t>(1, (2 * wanted + backgrounds_.size() - 1) / backgrounds_.size());
    std::vector<size_t> order(backgrounds_.size());
    std::iota(order.begin(), order.end(), 0);
    for (int pass = 0; pass < max_passes_ && result.windows.size() < wanted; ++pass) {
        std::shuffle(order.begin(), order.end(), rng);
        size_t passed_before = result.passed;
        for (size_t index : order) {
            if (result.windows.size() >= wanted)
                break;
            const GrayImage& image = backgrounds_[index];
            const double first_scale = 1.0 + std::uniform_real_distribution<double>(0.0, 0.25)(rng);
            const int ox = static_cast<int>(rng() % stride_), oy = static_cast<int>(rng() % stride_);
            /* The image's passing windows, then a random share of them. */
            std::vector<GrayImage> levels;
            struct Hit {
                size_t level;
                int x, y;
            };
            std::vector<Hit> hits;
            /* Each level from the offset on, its positions counted from (0, 0). */
            std::vector<size_t> scanned_levels; /* index in `levels` */
            std::vector<GrayView> views;
            for (double s = first_scale; image.width / s >= window_.width && image.height / s >= window_.height;
                 s *= 1.25) {
                const Size size{static_cast<int>(image.width / s), static_cast<int>(image.height / s)};
                levels.push_back(s == 1.0 ? image : resize_bilinear(image.view(), size));
                const GrayImage& level = levels.back();
                const int width = level.width - ox, height = level.height - oy;
                if (width < window_.width || height < window_.height)
                    continue;
                const auto columns = static_cast<uint64_t>((width - window_.width) / stride_ + 1);
                const auto rows = static_cast<uint64_t>((height - window_.height) / stride_ + 1);
                result.scanned += columns * rows;
                scanned_levels.push_back(levels.size() - 1);
                views.push_back(GrayView{level.row(oy) + ox, width, height, static_cast<size_t>(level.width)});
            }
            std::vector<std::vector<Position>> passing(views.size());
            if (every_window_passes) {
                for (size_t k = 0; k < views.size(); ++k)
                    for (int y = 0; y + window_.height <= views[k].height; y += stride_)
                        for (int x = 0; x + window_.width <= views[k].width; x += stride_)
                            passing[k].push_back(Position{x, y});
            } else {
                scan_levels(classifier, views, stride_, &passing);
            }
            for (size_t k = 0; k < views.size(); ++k) {
                /* Scan order, whatever order the miner found them in. */
                std::sort(passing[k].begin(), passing[k].end(), [](const Position& a, const Position& b) {
                    return a.y != b.y ? a.y < b.y : a.x < b.x;
                });
                result.passed += passing[k].size();
                for (const Position& p : passing[k])
                    hits.push_back(Hit{scanned_levels[k], p.x + ox, p.y + oy});
            }
            std::shuffle(hits.begin(), hits.end(), rng);
            const size_t take = std::min({hits.size(), quota, wanted - result.windows.size()});
            for (size_t k = 0; k < take; ++k) {
                const GrayImage& level = levels[hits[k].level];
                GrayImage w(window_.width, window_.height);
                for (int y = 0; y < window_.height; ++y)
                    std::copy_n(level.row(hits[k].y + y) + hits[k].x, window_.width, w.row(y));
                result.windows.push_back(std::move(w));
            }
        }
        if (result.passed == passed_before)
            break; /* a whole pass found nothing: more passes will not either */
    }
    return result;
}

CpuMiner::CpuMiner(std::vector<GrayImage> backgrounds, Size window, int stride, int max_passes)
    : ScanningMiner(std::move(backgrounds), window, stride, max_passes)
{
}

void ScanningMiner::scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                                std::vector<std::vector<Position>>* passing)
{
    for (size_t k = 0; k < levels.size(); ++k)
        scan_level(classifier, levels[k], stride, &(*passing)[k]);
}

void CpuMiner::scan_level(const Classifier& classifier, const GrayView& level, int stride,
                          std::vector<Position>* passing)
{
    scan_with_reference(classifier, level, stride, passing);
}

void ScanningMiner::scan_with_reference(const Classifier& classifier, const GrayView& level, int stride,
                                        std::vector<Position>* passing) const
{
    const float no_final = -std::numeric_limits<float>::infinity();
    LevelIntegrals integrals;
    integrals.sum = integral_image(level);
    for (int y = 0; y + window().height <= level.height; y += stride)
        for (int x = 0; x + window().width <= level.width; x += stride)
            if (evaluate_window(classifier, integrals, x, y, no_final).accepted)
                passing->push_back(Position{x, y});
}

/* ------------------------------------------------------------------ */

float estimate_threshold(const std::vector<double>& positive_sums, const std::vector<double>& negative_sums,
                         double alpha, size_t positives_allowed)
{
    const size_t n_pos = positive_sums.size(), n_neg = negative_sums.size();
    if (n_neg == 0 || alpha <= 0)
        return kNoRejection;
    std::vector<std::pair<double, bool>> all; /* (sum, positive) */
    all.reserve(n_pos + n_neg);
    for (double h : positive_sums)
        all.emplace_back(h, true);
    for (double h : negative_sums)
        all.emplace_back(h, false);
    std::sort(all.begin(), all.end());
    const double a = 1.0 / alpha;
    double best = -std::numeric_limits<double>::infinity();
    size_t below_pos = 0, below_neg = 0;
    for (size_t i = 0; i < all.size();) {
        const double v = all[i].first;
        /* The region {H < v}. */
        const double neg_share = static_cast<double>(below_neg) / static_cast<double>(n_neg);
        const double pos_share = static_cast<double>(below_pos + 1) / static_cast<double>(n_pos + 1);
        if (below_neg > 0 && below_pos <= positives_allowed && neg_share >= a * pos_share)
            best = v;
        for (; i < all.size() && all[i].first == v; ++i)
            ++(all[i].second ? below_pos : below_neg);
    }
    if (!std::isfinite(best))
        return kNoRejection;
    /* Rounded down to a float, so that no sample at `best` is rejected. */
    float theta = static_cast<float>(best);
    if (static_cast<double>(theta) > best)
        theta = std::nextafter(theta, -std::numeric_limits<float>::infinity());
    return theta;
}

/* ------------------------------------------------------------------ */

struct Trainer::Impl {
    TrainerConfig config;
    FamilyLayout layout{FeatureFamily::Lbp};
    std::vector<GrayImage> positives;
    std::shared_ptr<NegativeMiner> miner;
    std::vector<Grid> grids;
    unsigned threads = 1;

    /* The working set: its values in the backend, and here each sample's
     * class and running sum. */
    std::unique_ptr<HistogramBackend> backend;
    std::vector<bool> positive;
    std::vector<bool> calibration; /* a positive kept out of the fit, for the thresholds */
    std::vector<double> sums;      /* running sums H, accumulated as the reference does */
    /* The last chosen candidate's bin of every sample (feature() fetches
     * them from the backend once; bin() reads them). */
    size_t binned_candidate = std::numeric_limits<size_t>::max();
    std::vector<uint8_t> chosen_bins;

    size_t count() const { return sums.size(); }
    size_t bin(size_t i, size_t candidate) const
    {
        if (candidate != binned_candidate)
            throw std::logic_error("training: the bins of a candidate feature() did not fetch");
        return chosen_bins[i];
    }
    void add(const GrayImage& window, bool is_positive, const Classifier& so_far, bool calibrates = false);
    void keep(const std::vector<bool>& kept);
    Choice select(const std::vector<double>& weights) const;
    /* The chosen candidate as a weak classifier's feature, with Real
     * AdaBoost's responses. */
    Feature feature(size_t candidate, const std::vector<double>& weights, std::vector<float>* responses);
    std::string describe_candidate(size_t candidate) const;

    /* Checkpoints. Where each working-set sample came from (a positive's
     * index, a negative's pixels), in the working set's order: what a
     * checkpoint stores instead of the feature values. */
    std::vector<CheckpointSample> origins;
    std::string checkpoint_path;
    int checkpoint_every = 1;
    bool resumed = false;
    Classifier resumed_classifier;
    std::mt19937_64 resumed_rng;
    double resumed_survival = 1.0;
    std::atomic<bool> stop_requested{false};
    bool stopped = false;

    /* add() and keep(), with the samples' origins kept in step. */
    void add_sample(const GrayImage& window, bool is_positive, const Classifier& so_far, bool calibrates,
                    size_t positive_index);
    void keep_samples(const std::vector<bool>& kept);
    /* Every k-th positive calibrates the thresholds (see train()). */
    bool calibrates(size_t i) const
    {
        const double share = config.calibration_share;
        return std::floor(static_cast<double>(i + 1) * share) > std::floor(static_cast<double>(i) * share);
    }
    uint64_t settings_fingerprint() const;
    uint64_t positives_fingerprint() const;
    void save_checkpoint(const Classifier& classifier, const std::mt19937_64& rng, double survival) const;
};

void Trainer::Impl::add_sample(const GrayImage& window, bool is_positive, const Classifier& so_far, bool calibrates,
                               size_t positive_index)
{
    add(window, is_positive, so_far, calibrates);
    CheckpointSample origin;
    origin.kind = is_positive ? CheckpointSample::Kind::Positive : CheckpointSample::Kind::Negative;
    if (is_positive)
        origin.positive_index = positive_index;
    else
        origin.window = window;
    origins.push_back(std::move(origin));
}

void Trainer::Impl::keep_samples(const std::vector<bool>& kept)
{
    keep(kept);
    size_t out = 0;
    for (size_t i = 0; i < origins.size(); ++i)
        if (kept[i]) {
            if (out != i) /* a self-move would empty the pixels */
                origins[out] = std::move(origins[i]);
            ++out;
        }
    origins.resize(out);
}

/* Everything in the settings that changes the classifier (the threads do not). */
uint64_t Trainer::Impl::settings_fingerprint() const
{
    Fingerprint f;
    f.add_u64(static_cast<uint64_t>(config.window.width));
    f.add_u64(static_cast<uint64_t>(config.window.height));
    f.add_string(config.label);
    f.add_u64(static_cast<uint64_t>(config.family));
    f.add_u64(grids.size());
    for (const Grid& g : grids)
        for (int v : {g.x, g.y, g.block_width, g.block_height})
            f.add_u64(static_cast<uint64_t>(v));
    f.add_u64(static_cast<uint64_t>(config.weak_count));
    f.add_double(config.alpha);
    if (config.first_share != 1.0) /* checkpoints written before the option still match */
        f.add_double(config.first_share);
    f.add_double(config.calibration_share);
    f.add_u64(static_cast<uint64_t>(config.negatives));
    f.add_u64(config.seed);
    return f.value();
}

uint64_t Trainer::Impl::positives_fingerprint() const
{
    Fingerprint f;
    f.add_u64(positives.size());
    for (const GrayImage& p : positives)
        f.add_image(p);
    return f.value();
}

void Trainer::Impl::save_checkpoint(const Classifier& classifier, const std::mt19937_64& rng, double survival) const
{
    CheckpointState state;
    state.settings = settings_fingerprint();
    state.positives = positives_fingerprint();
    state.backgrounds = miner->fingerprint();
    state.classifier = classifier;
    std::ostringstream text;
    text << rng;
    state.rng = text.str();
    state.negative_survival = survival;
    state.samples.reserve(origins.size());
    for (size_t i = 0; i < origins.size(); ++i) {
        CheckpointSample s;
        s.kind = origins[i].kind;
        s.positive_index = origins[i].positive_index;
        s.window = origins[i].window;
        s.running_sum = sums[i];
        state.samples.push_back(std::move(s));
    }
    /* A crash while writing leaves the last checkpoint as it was. */
    try {
        io::write_output_file(checkpoint_path, encode_checkpoint(state));
    } catch (const Error& e) {
        throw Error(ErrorKind::Io, std::string("cannot write the checkpoint: ") + e.what());
    }
}

void Trainer::Impl::add(const GrayImage& window, bool is_positive, const Classifier& so_far, bool calibrates)
{
    backend->add(window, is_positive);
    const IntegralImage integral = integral_image(window.view());
    /* Its running sum over the weak classifiers so far, in the reference's
     * order and precision (a double sum of float responses). */
    LevelIntegrals integrals;
    integrals.sum = integral;
    sums.push_back(evaluate_window(so_far, integrals, 0, 0, -std::numeric_limits<float>::infinity()).score);
    positive.push_back(is_positive);
    calibration.push_back(calibrates);
}

void Trainer::Impl::keep(const std::vector<bool>& kept)
{
    backend->keep(kept);
    binned_candidate = std::numeric_limits<size_t>::max();
    size_t out = 0;
    for (size_t i = 0; i < count(); ++i) {
        if (!kept[i])
            continue;
        if (out != i) {
            sums[out] = sums[i];
            positive[out] = positive[i];
            calibration[out] = calibration[i];
        }
        ++out;
    }
    sums.resize(out);
    positive.resize(out);
    calibration.resize(out);
}

Choice Trainer::Impl::select(const std::vector<double>& weights) const
{
    /* The weights as fixed-point integers (histograms.h): the same sums,
     * and so the same choice, on every backend. */
    return backend->best(quantise_weights(weights));
}

Feature Trainer::Impl::feature(size_t candidate, const std::vector<double>& weights, std::vector<float>* responses)
{
    chosen_bins = backend->bins(candidate);
    binned_candidate = candidate;
    std::vector<double> pos(layout.bins, 0.0), neg(layout.bins, 0.0);
    for (size_t i = 0; i < count(); ++i)
        (positive[i] ? pos : neg)[bin(i, candidate)] += weights[i];
    /* Smoothing of about a hundredth of a sample's mean weight: an empty
     * bin gets a response of 0, a bin of one class a bounded one. */
    const double eps = 1.0 / static_cast<double>(std::max<size_t>(count(), 1));
    responses->resize(layout.bins);
    for (size_t b = 0; b < layout.bins; ++b)
        (*responses)[b] = real_adaboost_response(pos[b], neg[b], eps);
    const Grid& g = grids[candidate / layout.per_grid];
    if (layout.family == FeatureFamily::Lbp) {
        LbpFeature f;
        f.x = g.x;
        f.y = g.y;
        f.block_width = g.block_width;
        f.block_height = g.block_height;
        std::copy(responses->begin(), responses->end(), f.responses.begin());
        return f;
    }
    RankFeature f;
    f.kind = layout.family == FeatureFamily::Lrd ? RankFeature::Kind::Difference : RankFeature::Kind::Pair;
    f.x = g.x;
    f.y = g.y;
    f.block_width = g.block_width;
    f.block_height = g.block_height;
    const BlockPair& p = block_pairs()[candidate % layout.per_grid];
    f.block_a = p.a;
    f.block_b = p.b;
    f.responses = *responses;
    return f;
}

std::string Trainer::Impl::describe_candidate(size_t candidate) const
{
    std::string text = std::string(family_name(layout.family)) + " " + describe(grids[candidate / layout.per_grid]);
    if (layout.family != FeatureFamily::Lbp) {
        const BlockPair& p = block_pairs()[candidate % layout.per_grid];
        text += " blocks " + std::to_string(p.a) + "-" + std::to_string(p.b);
    }
    return text;
}

/* ------------------------------------------------------------------ */

Trainer::Trainer(TrainerConfig config, std::vector<GrayImage> positives, std::shared_ptr<NegativeMiner> miner)
    : impl_(std::make_unique<Impl>())
{
    Impl& m = *impl_;
    const Size w = config.window;
    if (w.width < 3 || w.height < 3 || w.width > ModelLimits::kMaxWindowSide || w.height > ModelLimits::kMaxWindowSide)
        throw Error(ErrorKind::BadParameter, "training: a window of " + std::to_string(w.width) + "x" +
                                                 std::to_string(w.height) + " (3 to " +
                                                 std::to_string(ModelLimits::kMaxWindowSide) + " pixels a side)");
    if (config.weak_count < 1 || static_cast<size_t>(config.weak_count) > ModelLimits::kMaxWeakClassifiers)
        throw Error(ErrorKind::BadParameter, "training: " + std::to_string(config.weak_count) +
                                                 " weak classifiers (1 to " +
                                                 std::to_string(ModelLimits::kMaxWeakClassifiers) + ")");
    if (!(config.alpha > 0.0 && config.alpha < 1.0))
        throw Error(ErrorKind::BadParameter, "training: alpha must be above 0 and below 1");
    if (!(config.first_share > 0.0 && config.first_share <= 1.0))
        throw Error(ErrorKind::BadParameter,
                    "training: the first weak classifier's share of alpha must be above 0 and at most 1");
    if (!(config.calibration_share >= 0.0 && config.calibration_share < 1.0))
        throw Error(ErrorKind::BadParameter, "training: the calibration share must be 0 or more and below 1");
    if (config.position_step < 1)
        throw Error(ErrorKind::BadParameter, "training: the position step must be at least 1");
    if (config.negatives < 0)
        throw Error(ErrorKind::BadParameter, "training: a negative number of negatives");
    if (positives.empty())
        throw Error(ErrorKind::BadParameter, "training: no positive sample");
    for (size_t i = 0; i < positives.size(); ++i)
        if (positives[i].width != w.width || positives[i].height != w.height)
            throw Error(ErrorKind::BadParameter, "training: positive " + std::to_string(i) + " is " +
                                                     std::to_string(positives[i].width) + "x" +
                                                     std::to_string(positives[i].height) + ", not the window's " +
                                                     std::to_string(w.width) + "x" + std::to_string(w.height));
    if (!miner)
        throw Error(ErrorKind::BadParameter, "training: no source of negatives");
    /* Every grid of the sizes asked for, at every position step. */
    std::vector<Size> sizes = config.block_sizes;
    if (sizes.empty() && config.family == FeatureFamily::Lbp)
        for (int bw = 1; 3 * bw <= w.width; ++bw)
            for (int bh = 1; 3 * bh <= w.height; ++bh)
                sizes.push_back(Size{bw, bh});
    if (sizes.empty())
        sizes = {Size{1, 1}, Size{2, 2}, Size{2, 4}, Size{4, 2}};
    for (const Size& s : sizes) {
        if (s.width < 1 || s.height < 1)
            throw Error(ErrorKind::BadParameter,
                        "training: a block size of " + std::to_string(s.width) + "x" + std::to_string(s.height));
        for (int y = 0; y + 3 * s.height <= w.height; y += config.position_step)
            for (int x = 0; x + 3 * s.width <= w.width; x += config.position_step)
                m.grids.push_back(Grid{x, y, s.width, s.height});
    }
    if (m.grids.empty())
        throw Error(ErrorKind::BadParameter, "training: no 3x3 grid of the block sizes given fits a window of " +
                                                 std::to_string(w.width) + "x" + std::to_string(w.height));
    m.threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
    m.layout = FamilyLayout(config.family);
    CandidateSet candidates;
    candidates.family = config.family;
    candidates.window = w;
    candidates.grids = m.grids;
    m.backend = config.histograms ? config.histograms(candidates) : make_cpu_histograms(candidates, m.threads);
    if (!m.backend)
        throw Error(ErrorKind::BadParameter, "training: the histogram backend factory gave none");
    m.config = std::move(config);
    m.positives = std::move(positives);
    m.miner = std::move(miner);
}

Trainer::~Trainer() = default;

size_t Trainer::candidate_count() const { return impl_->grids.size() * impl_->layout.per_grid; }

void Trainer::set_checkpoint(const std::string& path, int every)
{
    if (path.empty() || every < 1)
        throw Error(ErrorKind::BadParameter, "training: a checkpoint needs a file and an interval of 1 or more");
    impl_->checkpoint_path = path;
    impl_->checkpoint_every = every;
}

void Trainer::request_stop() { impl_->stop_requested = true; }

bool Trainer::stopped() const { return impl_->stopped; }

size_t Trainer::resumed_weak() const { return impl_->resumed ? impl_->resumed_classifier.weak.size() : 0; }

void Trainer::resume(const std::string& path)
{
    Impl& m = *impl_;
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    if (!in)
        throw Error(ErrorKind::Io, "cannot read the checkpoint " + path);
    /* The most this run's state can take, so that a wrong file named by
     * mistake (a video, say) is refused before it is read into memory. */
    const size_t working_negatives =
        m.config.negatives > 0 ? static_cast<size_t>(m.config.negatives) : std::max<size_t>(m.positives.size(), 500);
    const size_t window_bytes = static_cast<size_t>(m.config.window.width) * m.config.window.height;
    const uint64_t weak_bytes = 64 + 4 * LbpFeature::kTableSize; /* LBP's table is the largest */
    const uint64_t largest = (1u << 20) + static_cast<uint64_t>(m.config.weak_count) * weak_bytes +
                             static_cast<uint64_t>(m.positives.size() + working_negatives) * (17 + window_bytes);
    const std::streamoff size = in.tellg();
    if (size < 0)
        throw Error(ErrorKind::Io, "cannot read the checkpoint " + path);
    if (static_cast<uint64_t>(size) > largest)
        throw Error(ErrorKind::BadParameter, "checkpoint " + path + ": " + std::to_string(size) +
                                                 " bytes, more than this run's state can take (" +
                                                 std::to_string(largest) + "): not a checkpoint of this run");
    in.seekg(0);
    std::ostringstream content;
    content << in.rdbuf();
    if (in.bad())
        throw Error(ErrorKind::Io, "cannot read the checkpoint " + path);
    CheckpointState state = decode_checkpoint(content.str(), m.config.window, path);
    const std::string where = "checkpoint " + path + ": ";
    if (state.settings != m.settings_fingerprint())
        throw Error(ErrorKind::BadParameter,
                    where + "it was made with other settings (window, label, feature family, block sizes, "
                            "position step, weak classifiers, alpha, negatives or seed) than this run's");
    if (state.positives != m.positives_fingerprint())
        throw Error(ErrorKind::BadParameter, where + "it was made from other positives than this run's (" +
                                                 std::to_string(m.positives.size()) + " now)");
    if (state.backgrounds != m.miner->fingerprint())
        throw Error(ErrorKind::BadParameter,
                    where + "it was made from other background images or mining settings than this run's");
    if (state.classifier.weak.size() > static_cast<size_t>(m.config.weak_count))
        throw Error(ErrorKind::BadParameter, where + "it holds more weak classifiers than this run trains");
    for (const WeakClassifier& weak : state.classifier.weak)
        if (std::string(feature_type_name(weak.feature)) != family_name(m.config.family))
            throw Error(ErrorKind::BadParameter, where + "a weak classifier of another feature family");
    if (!(state.negative_survival >= 0.0 && state.negative_survival <= 1.0))
        throw Error(ErrorKind::BadParameter, where + "a negative survival outside 0 to 1");
    std::istringstream rng_text(state.rng);
    rng_text >> m.resumed_rng;
    if (rng_text.fail())
        throw Error(ErrorKind::BadParameter, where + "its random state does not parse");
    state.classifier.label = m.config.label;

    /* The feature values and running sums are recomputed from the samples;
     * the sums must come out exactly as stored (evaluate_window adds the
     * same float responses in the same order as training did). */
    m.backend->clear();
    m.sums.clear();
    m.positive.clear();
    m.calibration.clear();
    m.origins.clear();
    for (size_t i = 0; i < state.samples.size(); ++i) {
        const CheckpointSample& s = state.samples[i];
        if (s.kind == CheckpointSample::Kind::Positive) {
            if (s.positive_index >= m.positives.size())
                throw Error(ErrorKind::BadParameter, where + "sample " + std::to_string(i) + " names positive " +
                                                         std::to_string(s.positive_index) + " of " +
                                                         std::to_string(m.positives.size()));
            const size_t p = static_cast<size_t>(s.positive_index);
            m.add_sample(m.positives[p], true, state.classifier, m.calibrates(p), p);
        } else {
            m.add_sample(s.window, false, state.classifier, false, 0);
        }
        if (m.sums.back() != s.running_sum)
            throw Error(ErrorKind::BadParameter, where + "sample " + std::to_string(i) +
                                                     "'s running sum recomputes to another value than stored");
    }
    m.resumed_classifier = std::move(state.classifier);
    m.resumed_survival = state.negative_survival;
    m.resumed = true;
}

Classifier Trainer::train(const std::function<void(const Progress&)>& progress)
{
    Impl& m = *impl_;
    const TrainerConfig& c = m.config;
    std::mt19937_64 rng(c.seed);
    Classifier classifier;
    classifier.label = c.label;
    classifier.window_width = c.window.width;
    classifier.window_height = c.window.height;
    m.stopped = false;

    const size_t working_negatives =
        c.negatives > 0 ? static_cast<size_t>(c.negatives) : std::max<size_t>(m.positives.size(), 500);
    /* Every k-th positive calibrates the thresholds and is not fitted: the
     * running sums of fitted samples are biased upwards (a table of 256
     * responses fits a few hundred positives closely), and thresholds
     * set on them lost far more than alpha of held-out positives in
     * test-training; set on unfitted ones the loss is near alpha
     * (docs/history.md, "Figures behind the code's choices"). */
    size_t n_cal_initial = 0;
    for (size_t i = 0; i < m.positives.size(); ++i)
        n_cal_initial += m.calibrates(i);
    if (n_cal_initial == m.positives.size())
        throw Error(ErrorKind::BadParameter, "training: every positive would calibrate, none is left to fit");
    double p_neg = 1.0; /* the share of background windows that reach the next weak classifier */
    if (m.resumed) {
        /* resume() rebuilt the working set; the rest goes on from here. */
        classifier = m.resumed_classifier;
        rng = m.resumed_rng;
        p_neg = m.resumed_survival;
    } else {
        m.backend->clear();
        m.sums.clear();
        m.positive.clear();
        m.calibration.clear();
        m.origins.clear();
        for (size_t i = 0; i < m.positives.size(); ++i)
            m.add_sample(m.positives[i], true, classifier, m.calibrates(i), i);
        const auto too_few = [&](uint64_t windows) {
            return Error(ErrorKind::BadParameter,
                         "training: the background images gave " + std::to_string(windows) + " windows of " +
                             std::to_string(c.window.width) + "x" + std::to_string(c.window.height) +
                             ", and the working set needs " + std::to_string(working_negatives) +
                             " negatives: add background images (or larger ones), or ask for fewer negatives");
        };
        if (m.miner->capacity() > 0 && m.miner->capacity() < working_negatives)
            throw too_few(m.miner->capacity());
        NegativeMiner::Result first = m.miner->mine(classifier, working_negatives, rng);
        if (first.windows.size() < working_negatives)
            throw too_few(first.windows.size());
        for (const GrayImage& w : first.windows)
            m.add_sample(w, false, classifier, false, 0);
    }

    for (int t = static_cast<int>(classifier.weak.size()); t < c.weak_count; ++t) {
        const Clock::time_point started = Clock::now();
        size_t n_pos = 0, n_neg = 0, n_fit = 0, n_cal = 0;
        for (size_t i = 0; i < m.count(); ++i) {
            ++(m.positive[i] ? n_pos : n_neg);
            if (m.positive[i])
                ++(m.calibration[i] ? n_cal : n_fit);
        }
        if (n_fit == 0 || n_neg == 0)
            break;
        /* Real AdaBoost's weights from the running sums, w = exp(-y H),
         * each class's mean weight taken over its own working set (each
         * is a sample of the windows of its class that reach this weak
         * classifier); shifted by the largest exponent against overflow. */
        std::vector<double> weights(m.count(), 0.0);
        double top = -std::numeric_limits<double>::infinity();
        for (size_t i = 0; i < m.count(); ++i)
            if (!m.calibration[i])
                top = std::max(top, m.positive[i] ? -m.sums[i] : m.sums[i]);
        double total = 0.0;
        for (size_t i = 0; i < m.count(); ++i) {
            if (m.calibration[i])
                continue;
            const double e = (m.positive[i] ? -m.sums[i] : m.sums[i]) - top;
            weights[i] = std::exp(e) / static_cast<double>(m.positive[i] ? n_fit : n_neg);
            total += weights[i];
        }
        for (double& w : weights)
            w /= total;

        const Clock::time_point select_started = Clock::now();
        const Choice chosen = m.select(weights);
        const double select_seconds = seconds_since(select_started);
        WeakClassifier weak;
        std::vector<float> responses;
        weak.feature = m.feature(chosen.candidate, weights, &responses);
        for (size_t i = 0; i < m.count(); ++i)
            m.sums[i] += responses[m.bin(i, chosen.candidate)];

        /* The thresholds from the calibrating positives (all positives
         * when none calibrates) and the working negatives. */
        const bool calibrated = n_cal_initial > 0;
        std::vector<double> pos_sums, neg_sums;
        for (size_t i = 0; i < m.count(); ++i)
            if (!m.positive[i])
                neg_sums.push_back(m.sums[i]);
            else if (m.calibration[i] == calibrated)
                pos_sums.push_back(m.sums[i]);
        const size_t initial = calibrated ? n_cal_initial : m.positives.size();
        const double share = t == 0 ? c.first_share : 1.0;
        const size_t budget = static_cast<size_t>(share * c.alpha * static_cast<double>(initial));
        const size_t lost = initial - pos_sums.size();
        weak.reject_threshold = estimate_threshold(pos_sums, neg_sums, c.alpha, budget > lost ? budget - lost : 0);
        classifier.weak.push_back(weak);

        std::vector<bool> kept(m.count(), true);
        size_t pos_rejected = 0, neg_rejected = 0;
        if (weak.reject_threshold != kNoRejection)
            for (size_t i = 0; i < m.count(); ++i)
                if (m.sums[i] < weak.reject_threshold) {
                    kept[i] = false;
                    ++(m.positive[i] ? pos_rejected : neg_rejected);
                }
        m.keep_samples(kept);
        p_neg *= static_cast<double>(n_neg - neg_rejected) / static_cast<double>(n_neg);

        /* Bootstrapping: refill the negatives once half of them are gone,
         * with background windows the classifier so far lets through. */
        Progress report;
        const size_t neg_left = n_neg - neg_rejected;
        if (t + 1 < c.weak_count && neg_left * 2 < working_negatives) {
            NegativeMiner::Result mined = m.miner->mine(classifier, working_negatives - neg_left, rng);
            for (const GrayImage& w : mined.windows)
                m.add_sample(w, false, classifier, false, 0);
            report.mined = mined.windows.size();
            report.windows_scanned = mined.scanned;
            if (mined.scanned > 0)
                p_neg = static_cast<double>(mined.passed) / static_cast<double>(mined.scanned);
        }
        report.weak = t + 1;
        report.weak_count = c.weak_count;
        report.feature = m.describe_candidate(chosen.candidate);
        report.z = chosen.z;
        report.threshold = weak.reject_threshold;
        report.positives = n_pos - pos_rejected;
        report.negatives = m.count() - report.positives;
        report.negatives_rejected = static_cast<double>(neg_rejected) / static_cast<double>(n_neg);
        report.positives_rejected = static_cast<double>(pos_rejected) / static_cast<double>(n_pos);
        report.negative_survival = p_neg;
        report.seconds = seconds_since(started);
        report.select_seconds = select_seconds;
        if (progress)
            progress(report);
        const bool stop = m.stop_requested.exchange(false) && t + 1 < c.weak_count;
        if (!m.checkpoint_path.empty() && ((t + 1) % m.checkpoint_every == 0 || t + 1 == c.weak_count || stop))
            m.save_checkpoint(classifier, rng, p_neg);
        if (stop) {
            m.stopped = true;
            Classifier none;
            none.label = c.label;
            none.window_width = c.window.width;
            none.window_height = c.window.height;
            return none;
        }
    }
    if (classifier.weak.empty())
        throw Error(ErrorKind::BadParameter, "training: no weak classifier could be trained");
    /* The final threshold spends what is left of the miss budget: the
     * running sum below which at most alpha of the calibrating positives
     * (all positives when none calibrates) are lost in all, the last
     * weak classifier's rejection threshold included. */
    std::vector<double> final_sums;
    const bool calibrated = n_cal_initial > 0;
    for (size_t i = 0; i < m.count(); ++i)
        if (m.positive[i] && m.calibration[i] == calibrated)
            final_sums.push_back(m.sums[i]);
    std::sort(final_sums.begin(), final_sums.end());
    const size_t initial = calibrated ? n_cal_initial : m.positives.size();
    const size_t budget = static_cast<size_t>(c.alpha * static_cast<double>(initial));
    const size_t lost = initial - final_sums.size();
    float final_threshold = classifier.weak.back().reject_threshold;
    if (!final_sums.empty()) {
        const double at = final_sums[std::min(budget > lost ? budget - lost : 0, final_sums.size() - 1)];
        float theta = static_cast<float>(at);
        if (static_cast<double>(theta) > at)
            theta = std::nextafter(theta, -std::numeric_limits<float>::infinity());
        final_threshold = std::max(final_threshold, theta);
    }
    classifier.final_threshold = final_threshold != kNoRejection ? final_threshold : -std::numeric_limits<float>::max();
    classifier.weak.back().reject_threshold = kNoRejection;
    validate(classifier, "<trained>");
    return classifier;
}

}  // namespace waldboost::training
