/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Training samples: the annotation files opencv_annotation writes and
 * opencv_createsamples reads, the window-sized positive crops the
 * trainer learns from, with the augmentations a small set needs (mirror,
 * shifts, scales, rotations, brightness and contrast), and the working set
 * of positives and mined negatives that boosting fits. No file is read
 * here: the tool loads the images, so that the core needs no image codec.
 */
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/model/model.h"
#include "core/training/checkpoint.h"
#include "core/training/histograms.h"

namespace waldboost::training {

/* One line of an annotation file: an image and the objects' boxes in it. */
struct Annotation {
    std::string path; /* as written, or resolved against the file's folder */
    std::vector<Rect> boxes;
    int line = 0;
};

/* Parses OpenCV's annotation format, one image per line:
 *   path count x y w h [x y w h ...]
 * Blank lines and lines starting with '#' are skipped, and a UTF-8 byte
 * order mark at the start. A relative path is
 * resolved against `base_dir` (the annotation file's folder; empty: kept).
 * Throws Error (BadParameter) naming `source` and the line for a missing
 * count, a count that disagrees with the numbers, a non-integer, a box of
 * zero or negative size, or more than 100,000 boxes on a line. Boxes
 * outside their image are checked by check_box() once the image is read. */
std::vector<Annotation> parse_annotations(const std::string& text, const std::string& source,
                                          const std::string& base_dir = "");

/* Throws Error (BadParameter) when `box` does not lie inside an image of
 * `image_size` (`where` names the file and line in the message, escaped
 * by the caller). */
void check_box(const Rect& box, Size image_size, const std::string& where);

/* How much each positive is varied; every option 0 / false means the crop
 * as annotated. Each variant draws its values uniformly from the ranges. */
struct Augmentation {
    int copies = 1;            /* variants per annotated object, the first one unvaried */
    bool mirror = false;       /* also the left-right mirror of every variant */
    double shift = 0.0;        /* of the box side, e.g. 0.05 for +-5% */
    double scale = 0.0;        /* e.g. 0.1 for sides from 0.9x to 1.1x */
    double rotation_deg = 0.0; /* e.g. 10 for +-10 degrees about the box centre */
    double brightness = 0.0;   /* grey levels added, e.g. 20 for +-20 */
    double contrast = 0.0;     /* e.g. 0.2 for a gain from 0.8 to 1.2 about the mean */
};

/* The window-sized crop of `box` in `image` (bilinear, `box` scaled to the
 * window), with one random variation of `augmentation` when `vary` is
 * true. Pixels the varied box takes from outside the image repeat the
 * nearest edge pixel. */
GrayImage crop_window(const GrayView& image, const Rect& box, Size window, const Augmentation& augmentation, bool vary,
                      std::mt19937_64& rng);

/* Every sample `augmentation` makes from one annotated box: `copies`
 * crops (the first unvaried), each mirrored too with `mirror`. */
std::vector<GrayImage> positive_samples(const GrayView& image, const Rect& box, Size window,
                                        const Augmentation& augmentation, std::mt19937_64& rng);

/* The left-right mirror of an image. */
GrayImage mirrored(const GrayView& image);

/* The samples that reach the next weak classifier: their feature values in
 * a HistogramBackend, and here each one's class, whether it calibrates the
 * thresholds instead of being fitted, its running sum H over the weak
 * classifiers so far, and where it came from (a positive's index, a
 * negative's pixels): what a checkpoint stores instead of the values. */
class WorkingSet {
public:
    explicit WorkingSet(std::unique_ptr<HistogramBackend> backend) : backend_(std::move(backend)) {}

    /* Appends `window` with its running sum under `so_far`, in the CPU
     * reference's order and precision (a double sum of float responses). */
    void add(const GrayImage& window, bool positive, const Classifier& so_far, bool calibrates, size_t positive_index);
    /* Keeps sample i when kept[i] (kept.size() == count()), in order. */
    void keep(const std::vector<bool>& kept);
    void clear();

    size_t count() const { return sums_.size(); }
    bool positive(size_t i) const { return positive_[i]; }
    bool calibrates(size_t i) const { return calibration_[i]; }
    double sum(size_t i) const { return sums_[i]; }
    HistogramBackend& backend() { return *backend_; }

    /* Fetches `candidate`'s bin of every sample from the backend, which
     * bin() then reads. */
    void fetch_bins(size_t candidate);
    size_t bin(size_t i, size_t candidate) const;
    /* Adds to every running sum the response of its bin of `candidate`
     * (fetched). */
    void add_responses(size_t candidate, const std::vector<float>& responses);

    /* The samples as a checkpoint stores them, in order. */
    std::vector<CheckpointSample> checkpoint_samples() const;

private:
    std::unique_ptr<HistogramBackend> backend_;
    std::vector<bool> positive_;
    std::vector<bool> calibration_;
    std::vector<double> sums_;
    std::vector<CheckpointSample> origins_; /* running_sum unused */
    size_t binned_candidate_ = std::numeric_limits<size_t>::max();
    std::vector<uint8_t> chosen_bins_;
};

}  // namespace waldboost::training
