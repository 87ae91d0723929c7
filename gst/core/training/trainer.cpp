/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The training loop: it ties boosting (boosting.h), Wald's thresholds
 * (wald_threshold.h), the negative miners (miners.h), the working set
 * (samples.h) and the checkpoints (checkpoint.h).
 */
#include "core/training/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "core/training/boosting.h"
#include "core/training/checkpoint.h"
#include "core/training/histograms.h"
#include "core/training/samples.h"
#include "core/training/wald_threshold.h"

namespace waldboost::training {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

/* Negatives in the working set after each refill. */
uint64_t negatives_for(const TrainerConfig& config, uint64_t positives)
{
    return config.negatives > 0 ? static_cast<uint64_t>(config.negatives) : std::max<uint64_t>(positives, 500);
}

uint64_t saturating_add(uint64_t a, uint64_t b)
{
    uint64_t sum;
    return __builtin_add_overflow(a, b, &sum) ? std::numeric_limits<uint64_t>::max() : sum;
}

uint64_t saturating_mul(uint64_t a, uint64_t b)
{
    uint64_t product;
    return __builtin_mul_overflow(a, b, &product) ? std::numeric_limits<uint64_t>::max() : product;
}

}  // namespace

uint64_t estimate_memory(const TrainerConfig& config, uint64_t positives)
{
    const uint64_t grids = candidate_grids(config).size();
    const uint64_t values = saturating_mul(grids, FeatureLayout(config.feature_type).bytes_per_grid);
    const uint64_t pixels = static_cast<uint64_t>(config.window.width) * static_cast<uint64_t>(config.window.height);
    /* A sample also keeps its pixels (a negative) or index, its class and
     * its running sum; a positive's pixels are kept once more. */
    const uint64_t per_sample = saturating_add(values, pixels + 64);
    const uint64_t samples = saturating_add(positives, negatives_for(config, positives));
    return saturating_add(saturating_mul(samples, per_sample), saturating_mul(positives, pixels));
}

struct Trainer::Impl {
    TrainerConfig config;
    std::vector<GrayImage> positives;
    std::shared_ptr<NegativeMiner> miner;
    CandidateSet candidates;
    std::unique_ptr<WorkingSet> set;

    std::string checkpoint_path;
    int checkpoint_every = 1;
    bool resumed = false;
    Classifier resumed_classifier;
    std::mt19937_64 resumed_rng;
    double resumed_survival = 1.0;
    uint64_t resumed_refill_level = 0;
    std::atomic<bool> stop_requested{false};
    bool stopped = false;
    std::string early_stop;
    double mining_seconds = 0.0;

    /* Negatives in the working set after each refill. */
    size_t working_negatives() const { return static_cast<size_t>(negatives_for(config, positives.size())); }
    bool calibrates(size_t i) const { return training::calibrates(i, config.calibration_share); }
    void save_checkpoint(const Classifier& classifier, const std::mt19937_64& rng, double survival,
                         uint64_t refill_level) const;
};

void Trainer::Impl::save_checkpoint(const Classifier& classifier, const std::mt19937_64& rng, double survival,
                                    uint64_t refill_level) const
{
    CheckpointState state;
    state.settings = settings_fingerprint(config, candidates.grids);
    state.positives = positives_fingerprint(positives);
    state.backgrounds = miner->fingerprint();
    state.classifier = classifier;
    std::ostringstream text;
    text << rng;
    state.rng = text.str();
    state.negative_survival = survival;
    state.refill_level = refill_level;
    state.samples = set->checkpoint_samples();
    write_checkpoint_file(checkpoint_path, state);
}

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
    m.candidates.feature_type = config.feature_type;
    m.candidates.window = w;
    m.candidates.grids = candidate_grids(config);
    const unsigned threads = config.threads ? config.threads : std::max(1u, std::thread::hardware_concurrency());
    std::unique_ptr<HistogramBackend> backend =
        config.histograms ? config.histograms(m.candidates) : make_cpu_histograms(m.candidates, threads);
    if (!backend)
        throw Error(ErrorKind::BadParameter, "training: the histogram backend factory gave none");
    m.set = std::make_unique<WorkingSet>(std::move(backend));
    m.config = std::move(config);
    m.positives = std::move(positives);
    m.miner = std::move(miner);
}

Trainer::~Trainer() = default;

size_t Trainer::candidate_count() const { return impl_->candidates.count(); }

const std::string& Trainer::early_stop() const { return impl_->early_stop; }
double Trainer::mining_seconds() const { return impl_->mining_seconds; }

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
    CheckpointState state = read_checkpoint_file(
        path, largest_checkpoint(m.config, m.positives.size(), m.working_negatives()), m.config.window);
    CheckpointRun run;
    run.settings = settings_fingerprint(m.config, m.candidates.grids);
    run.positives = positives_fingerprint(m.positives);
    run.positive_count = m.positives.size();
    run.backgrounds = m.miner->fingerprint();
    run.weak_count = m.config.weak_count;
    run.working_negatives = m.working_negatives();
    run.feature_name = feature_type_name(m.config.feature_type);
    m.resumed_rng = check_checkpoint_run(state, run, path);
    state.classifier.label = m.config.label;

    /* The feature values and running sums are recomputed from the samples;
     * the sums must come out exactly as stored (evaluate_window adds the
     * same float responses in the same order as training did). */
    const std::string where = "checkpoint " + path + ": ";
    m.set->clear();
    for (size_t i = 0; i < state.samples.size(); ++i) {
        const CheckpointSample& s = state.samples[i];
        if (s.kind == CheckpointSample::Kind::Positive) {
            if (s.positive_index >= m.positives.size())
                throw Error(ErrorKind::BadParameter, where + "sample " + std::to_string(i) + " names positive " +
                                                         std::to_string(s.positive_index) + " of " +
                                                         std::to_string(m.positives.size()));
            const size_t p = static_cast<size_t>(s.positive_index);
            m.set->add(m.positives[p], true, state.classifier, m.calibrates(p), p);
        } else {
            m.set->add(s.window, false, state.classifier, false, 0);
        }
        if (m.set->sum(i) != s.running_sum)
            throw Error(ErrorKind::BadParameter, where + "sample " + std::to_string(i) +
                                                     "'s running sum recomputes to another value than stored");
    }
    m.resumed_classifier = std::move(state.classifier);
    m.resumed_survival = state.negative_survival;
    m.resumed_refill_level = state.refill_level;
    m.resumed = true;
}

Classifier Trainer::train(const std::function<void(const Progress&)>& progress)
{
    Impl& m = *impl_;
    WorkingSet& set = *m.set;
    const TrainerConfig& c = m.config;
    std::mt19937_64 rng(c.seed);
    Classifier classifier;
    classifier.label = c.label;
    classifier.window_width = c.window.width;
    classifier.window_height = c.window.height;
    m.stopped = false;
    m.early_stop.clear();
    m.mining_seconds = 0.0;

    const size_t working_negatives = m.working_negatives();
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
    /* The thresholds are set on the calibrating positives, or on all of
     * them when none calibrates. */
    const bool calibrated = n_cal_initial > 0;
    const size_t initial = calibrated ? n_cal_initial : m.positives.size();
    double p_neg = 1.0; /* the share of background windows that reach the next weak classifier */
    /* The negatives the last refill left in the working set: the next
     * refill comes when half of them are gone. A full refill leaves
     * working_negatives; a short one (the backgrounds have few windows
     * left that pass) leaves fewer, and the next waits for half of those
     * to go, instead of scanning every background after every weak
     * classifier for a handful of windows. */
    size_t refill_level = working_negatives;
    if (m.resumed) {
        /* resume() rebuilt the working set; the rest goes on from here. */
        classifier = m.resumed_classifier;
        rng = m.resumed_rng;
        p_neg = m.resumed_survival;
        refill_level = static_cast<size_t>(m.resumed_refill_level);
    } else {
        set.clear();
        for (size_t i = 0; i < m.positives.size(); ++i)
            set.add(m.positives[i], true, classifier, m.calibrates(i), i);
        const auto too_few = [&](uint64_t windows) {
            return Error(ErrorKind::BadParameter,
                         "training: the background images gave " + std::to_string(windows) + " windows of " +
                             std::to_string(c.window.width) + "x" + std::to_string(c.window.height) +
                             ", and the working set needs " + std::to_string(working_negatives) +
                             " negatives: add background images (or larger ones), or ask for fewer negatives");
        };
        if (m.miner->capacity() > 0 && m.miner->capacity() < working_negatives)
            throw too_few(m.miner->capacity());
        const Clock::time_point mining_started = Clock::now();
        NegativeMiner::Result first = m.miner->mine(classifier, working_negatives, rng);
        m.mining_seconds += seconds_since(mining_started);
        if (first.windows.size() < working_negatives)
            throw too_few(first.windows.size());
        for (const GrayImage& w : first.windows)
            set.add(w, false, classifier, false, 0);
    }

    for (int t = static_cast<int>(classifier.weak.size()); t < c.weak_count; ++t) {
        const Clock::time_point started = Clock::now();
        size_t n_pos = 0, n_neg = 0, n_fit = 0, n_cal = 0;
        for (size_t i = 0; i < set.count(); ++i) {
            ++(set.positive(i) ? n_pos : n_neg);
            if (set.positive(i))
                ++(set.calibrates(i) ? n_cal : n_fit);
        }
        if (n_fit == 0 || n_neg == 0) {
            m.early_stop = n_neg == 0
                               ? "no background window passes the classifier any more: it rejects every window the "
                                 "miner can find, so there is no negative left to learn from (more or other background "
                                 "images give it more)"
                               : "the rejection thresholds rejected every positive that is fitted, so there is none "
                                 "left to learn from (more positives, or a lower --alpha)";
            /* The last weak classifier is the last one now: its checkpoint too, so that a
             * resume (to write another final threshold) finds the whole run. */
            if (!m.checkpoint_path.empty() && t > 0 && t % m.checkpoint_every != 0)
                m.save_checkpoint(classifier, rng, p_neg, refill_level);
            break;
        }
        /* Each class's working set is a sample of the windows of its class
         * that reach this weak classifier. */
        const std::vector<double> weights = boosting_weights(set, n_fit, n_neg);

        const Clock::time_point select_started = Clock::now();
        const Choice chosen = select_candidate(set, weights);
        const double select_seconds = seconds_since(select_started);
        WeakClassifier weak;
        std::vector<float> responses;
        weak.feature = fit_feature(set, m.candidates, chosen.candidate, weights, &responses);
        set.add_responses(chosen.candidate, responses);

        std::vector<double> pos_sums, neg_sums;
        for (size_t i = 0; i < set.count(); ++i)
            if (!set.positive(i))
                neg_sums.push_back(set.sum(i));
            else if (set.calibrates(i) == calibrated)
                pos_sums.push_back(set.sum(i));
        const double share = t == 0 ? c.first_share : 1.0;
        weak.reject_threshold = estimate_threshold(pos_sums, neg_sums, c.alpha,
                                                   positives_allowed(share, c.alpha, initial, pos_sums.size()));
        classifier.weak.push_back(weak);

        std::vector<bool> kept(set.count(), true);
        size_t pos_rejected = 0, neg_rejected = 0;
        if (weak.reject_threshold != kNoRejection)
            for (size_t i = 0; i < set.count(); ++i)
                if (set.sum(i) < weak.reject_threshold) {
                    kept[i] = false;
                    ++(set.positive(i) ? pos_rejected : neg_rejected);
                }
        set.keep(kept);
        p_neg *= static_cast<double>(n_neg - neg_rejected) / static_cast<double>(n_neg);

        /* Bootstrapping: refill the negatives once half of those the last
         * refill left are gone, with background windows the classifier so
         * far lets through. */
        Progress report;
        const size_t neg_left = n_neg - neg_rejected;
        if (t + 1 < c.weak_count && neg_left * 2 < refill_level) {
            const Clock::time_point mining_started = Clock::now();
            NegativeMiner::Result mined = m.miner->mine(classifier, working_negatives - neg_left, rng);
            report.mine_seconds = seconds_since(mining_started);
            m.mining_seconds += report.mine_seconds;
            for (const GrayImage& w : mined.windows)
                set.add(w, false, classifier, false, 0);
            refill_level = neg_left + mined.windows.size();
            report.refill_short = refill_level < working_negatives;
            report.mined = mined.windows.size();
            report.windows_scanned = mined.scanned;
            if (mined.scanned > 0)
                p_neg = static_cast<double>(mined.passed) / static_cast<double>(mined.scanned);
        }
        report.weak = t + 1;
        report.weak_count = c.weak_count;
        report.feature = describe_candidate(m.candidates, chosen.candidate);
        report.z = chosen.z;
        report.threshold = weak.reject_threshold;
        report.positives = n_pos - pos_rejected;
        report.negatives = set.count() - report.positives;
        report.negatives_rejected = static_cast<double>(neg_rejected) / static_cast<double>(n_neg);
        report.positives_rejected = static_cast<double>(pos_rejected) / static_cast<double>(n_pos);
        report.negative_survival = p_neg;
        report.seconds = seconds_since(started);
        report.select_seconds = select_seconds;
        if (progress)
            progress(report);
        const bool stop = m.stop_requested.exchange(false) && t + 1 < c.weak_count;
        if (!m.checkpoint_path.empty() && ((t + 1) % m.checkpoint_every == 0 || t + 1 == c.weak_count || stop))
            m.save_checkpoint(classifier, rng, p_neg, refill_level);
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
    std::vector<double> final_sums;
    for (size_t i = 0; i < set.count(); ++i)
        if (set.positive(i) && set.calibrates(i) == calibrated)
            final_sums.push_back(set.sum(i));
    classifier.final_threshold =
        final_threshold(std::move(final_sums), initial, c.alpha, classifier.weak.back().reject_threshold);
    classifier.weak.back().reject_threshold = kNoRejection;
    validate(classifier, "<trained>");
    return classifier;
}

}  // namespace waldboost::training
