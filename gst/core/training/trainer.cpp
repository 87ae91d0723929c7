/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/trainer.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <thread>

#include "core/error.h"
#include "core/reference/detector.h"
#include "core/training/histograms.h"

namespace waldboost::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start)
{
    return std::chrono::duration<double>(Clock::now() - start).count();
}

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

CpuMiner::CpuMiner(std::vector<GrayImage> backgrounds, Size window, int stride, int max_passes)
    : backgrounds_(std::move(backgrounds)), window_(window), stride_(std::max(stride, 1)),
      max_passes_(std::max(max_passes, 1))
{
}

uint64_t CpuMiner::capacity() const
{
    uint64_t n = 0;
    for (const GrayImage& b : backgrounds_)
        for (double s = 1.0; b.width / s >= window_.width && b.height / s >= window_.height; s *= 1.25) {
            const int w = static_cast<int>(b.width / s), h = static_cast<int>(b.height / s);
            n += static_cast<uint64_t>(w - window_.width + 1) * static_cast<uint64_t>(h - window_.height + 1);
        }
    return n;
}

NegativeMiner::Result CpuMiner::mine(const Classifier& classifier, size_t wanted, std::mt19937_64& rng)
{
    Result result;
    if (wanted == 0 || backgrounds_.empty())
        return result;
    const float no_final = -std::numeric_limits<float>::infinity();
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
            for (double s = first_scale; image.width / s >= window_.width && image.height / s >= window_.height;
                 s *= 1.25) {
                const Size size{static_cast<int>(image.width / s), static_cast<int>(image.height / s)};
                levels.push_back(s == 1.0 ? image : resize_bilinear(image.view(), size));
                const GrayImage& level = levels.back();
                LevelIntegrals integrals;
                integrals.sum = integral_image(level.view());
                for (int y = oy; y + window_.height <= level.height; y += stride_)
                    for (int x = ox; x + window_.width <= level.width; x += stride_) {
                        ++result.scanned;
                        if (evaluate_window(classifier, integrals, x, y, no_final).accepted) {
                            ++result.passed;
                            hits.push_back(Hit{levels.size() - 1, x, y});
                        }
                    }
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
    std::vector<double> sums; /* running sums H, accumulated as the reference does */
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
};

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
        (*responses)[b] = static_cast<float>(0.5 * std::log((pos[b] + eps) / (neg[b] + eps)));
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
            throw Error(ErrorKind::BadParameter, "training: a block size of " + std::to_string(s.width) + "x" +
                                                     std::to_string(s.height));
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

Classifier Trainer::train(const std::function<void(const Progress&)>& progress)
{
    Impl& m = *impl_;
    const TrainerConfig& c = m.config;
    std::mt19937_64 rng(c.seed);
    Classifier classifier;
    classifier.label = c.label;
    classifier.window_width = c.window.width;
    classifier.window_height = c.window.height;

    const size_t working_negatives =
        c.negatives > 0 ? static_cast<size_t>(c.negatives) : std::max<size_t>(m.positives.size(), 500);
    m.backend->clear();
    m.sums.clear();
    m.positive.clear();
    m.calibration.clear();
    /* Every k-th positive calibrates the thresholds and is not fitted: the
     * running sums of fitted samples are biased upwards (a table of 256
     * responses fits a few hundred positives closely), and thresholds
     * set on them lost 38% of held-out positives at alpha 0.05 in
     * test-training; set on unfitted ones the loss is near alpha. */
    size_t n_cal_initial = 0;
    for (size_t i = 0; i < m.positives.size(); ++i) {
        const bool calibrates = std::floor((i + 1) * c.calibration_share) > std::floor(i * c.calibration_share);
        m.add(m.positives[i], true, classifier, calibrates);
        n_cal_initial += calibrates;
    }
    if (n_cal_initial == m.positives.size())
        throw Error(ErrorKind::BadParameter, "training: every positive would calibrate, none is left to fit");
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
        m.add(w, false, classifier);

    double p_neg = 1.0; /* the share of background windows that reach the next weak classifier */
    for (int t = 0; t < c.weak_count; ++t) {
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
        const size_t budget = static_cast<size_t>(c.alpha * static_cast<double>(initial));
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
        m.keep(kept);
        p_neg *= static_cast<double>(n_neg - neg_rejected) / static_cast<double>(n_neg);

        /* Bootstrapping: refill the negatives once half of them are gone,
         * with background windows the classifier so far lets through. */
        Progress report;
        const size_t neg_left = n_neg - neg_rejected;
        if (t + 1 < c.weak_count && neg_left * 2 < working_negatives) {
            NegativeMiner::Result mined = m.miner->mine(classifier, working_negatives - neg_left, rng);
            for (const GrayImage& w : mined.windows)
                m.add(w, false, classifier);
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
    classifier.final_threshold =
        final_threshold != kNoRejection ? final_threshold : -std::numeric_limits<float>::max();
    classifier.weak.back().reject_threshold = kNoRejection;
    validate(classifier, "<trained>");
    return classifier;
}

}  // namespace waldboost::training
