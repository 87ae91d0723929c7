/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Training samples: the annotation files opencv_annotation writes and
 * opencv_createsamples reads, and the window-sized positive crops the
 * trainer learns from, with the augmentations a small set needs (mirror,
 * shifts, scales, rotations, brightness and contrast). No file is read
 * here: the tool loads the images, so that the core needs no image codec.
 */
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"

namespace waldboost::training {

/* One line of an annotation file: an image and the objects' boxes in it. */
struct Annotation {
    std::string path; /* as written, or resolved against the file's folder */
    std::vector<Rect> boxes;
    int line = 0;
};

/* Parses OpenCV's annotation format, one image per line:
 *   path count x y w h [x y w h ...]
 * Blank lines and lines starting with '#' are skipped. A relative path is
 * resolved against `base_dir` (the annotation file's folder; empty: kept).
 * Throws Error (BadParameter) naming `source` and the line for a missing
 * count, a count that disagrees with the numbers, a non-integer, a box of
 * zero or negative size, or more than 100,000 boxes on a line. Boxes
 * outside their image are checked by check_box() once the image is read. */
std::vector<Annotation> parse_annotations(const std::string& text, const std::string& source,
                                          const std::string& base_dir = "");

/* Throws Error (BadParameter) when `box` does not lie inside an image of
 * `image_size` (`where` names the file and line in the message). */
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

}  // namespace waldboost::training
