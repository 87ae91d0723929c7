/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/miners.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <thread>

#include "core/reference/detector.h"
#include "core/training/checkpoint.h"
#include "core/training/worker_threads.h"

namespace waldboost::training {

namespace {

/* Rows of window positions a band of the CPU miner's scan holds: small
 * enough that the bands of an image share 2 to 16 threads evenly. */
constexpr int kBandRows = 16;

/* The windows at (x, y), x and y multiples of `stride`, y0 <= y < y1, that
 * pass every rejection threshold of `classifier`, in scan order. */
void scan_rows(const Classifier& classifier, const LevelIntegrals& integrals, const GrayView& level, Size window,
               int stride, int y0, int y1, std::vector<ScanningMiner::Position>* passing)
{
    const float no_final = -std::numeric_limits<float>::infinity();
    for (int y = y0; y < y1 && y + window.height <= level.height; y += stride)
        for (int x = 0; x + window.width <= level.width; x += stride)
            if (evaluate_window(classifier, integrals, x, y, no_final).accepted)
                passing->push_back(ScanningMiner::Position{x, y});
}

}  // namespace

ScanningMiner::ScanningMiner(std::vector<GrayImage> backgrounds, Size window, int stride, int max_passes)
    : backgrounds_(std::move(backgrounds)), window_(window), stride_(std::max(stride, 1)),
      max_passes_(std::max(max_passes, 1))
{
}

void ScanningMiner::set_threads(unsigned threads)
{
    threads_ = threads ? threads : std::max(1u, std::thread::hardware_concurrency());
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
            std::vector<double> scales;
            for (double s = first_scale; image.width / s >= window_.width && image.height / s >= window_.height;
                 s *= 1.25)
                scales.push_back(s);
            /* Each level is resized from the image itself, so they are made
             * side by side: on one thread this was half of a GPU's mining. */
            levels.resize(scales.size());
            run_tasks(
                scales.size(), threads_,
                [&](size_t k) {
                    const double s = scales[k];
                    const Size size{static_cast<int>(image.width / s), static_cast<int>(image.height / s)};
                    levels[k] = s == 1.0 ? image : resize_bilinear(image.view(), size);
                },
                "to make the mining levels");
            for (size_t k = 0; k < levels.size(); ++k) {
                const GrayImage& level = levels[k];
                const int width = level.width - ox, height = level.height - oy;
                if (width < window_.width || height < window_.height)
                    continue;
                const auto columns = static_cast<uint64_t>((width - window_.width) / stride_ + 1);
                const auto rows = static_cast<uint64_t>((height - window_.height) / stride_ + 1);
                result.scanned += columns * rows;
                scanned_levels.push_back(k);
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

void CpuMiner::scan_levels(const Classifier& classifier, const std::vector<GrayView>& levels, int stride,
                           std::vector<std::vector<Position>>* passing)
{
    /* Each level's integral image, then bands of rows of every level over
     * the threads; each band's windows kept apart and appended in band
     * order, so that the result does not depend on the threads. */
    std::vector<LevelIntegrals> integrals(levels.size());
    run_tasks(
        levels.size(), threads(),
        [&](size_t k) {
            integrals[k].sum = integral_image(levels[k]);
        },
        "to scan the mining levels");
    struct Band {
        size_t level;
        int y0, y1;
    };
    std::vector<Band> bands;
    for (size_t k = 0; k < levels.size(); ++k)
        for (int y0 = 0; y0 + window().height <= levels[k].height; y0 += kBandRows * stride)
            bands.push_back(Band{k, y0, y0 + kBandRows * stride});
    std::vector<std::vector<Position>> found(bands.size());
    run_tasks(
        bands.size(), threads(),
        [&](size_t b) {
            const Band& band = bands[b];
            scan_rows(classifier, integrals[band.level], levels[band.level], window(), stride, band.y0, band.y1,
                      &found[b]);
        },
        "to scan the mining levels");
    for (size_t b = 0; b < bands.size(); ++b) {
        std::vector<Position>& to = (*passing)[bands[b].level];
        to.insert(to.end(), found[b].begin(), found[b].end());
    }
}

void ScanningMiner::scan_with_reference(const Classifier& classifier, const GrayView& level, int stride,
                                        std::vector<Position>* passing) const
{
    LevelIntegrals integrals;
    integrals.sum = integral_image(level);
    scan_rows(classifier, integrals, level, window(), stride, 0, level.height, passing);
}

}  // namespace waldboost::training
