/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/samples.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/reference/detector.h"
#include "core/text.h"

namespace waldboost::training {

namespace {

constexpr size_t kMaxBoxesPerLine = 100000;

Error bad_line(const std::string& source, int line, const std::string& why)
{
    return Error(ErrorKind::BadParameter, printable(source) + ":" + std::to_string(line) + ": " + why);
}

/* A whole token as an int, or false. */
bool to_int(const std::string& token, long long* out)
{
    if (token.empty())
        return false;
    size_t used = 0;
    try {
        *out = std::stoll(token, &used, 10);
    } catch (const std::exception&) {
        return false;
    }
    return used == token.size();
}

/* Bilinear sample at (x, y) in pixel-centre coordinates, edges repeated. */
double sample(const GrayView& image, double x, double y)
{
    x = std::clamp(x - 0.5, 0.0, static_cast<double>(image.width - 1));
    y = std::clamp(y - 0.5, 0.0, static_cast<double>(image.height - 1));
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const int x1 = std::min(x0 + 1, image.width - 1), y1 = std::min(y0 + 1, image.height - 1);
    const double fx = x - x0, fy = y - y0;
    const double top = image.at(x0, y0) * (1 - fx) + image.at(x1, y0) * fx;
    const double bottom = image.at(x0, y1) * (1 - fx) + image.at(x1, y1) * fx;
    return top * (1 - fy) + bottom * fy;
}

double uniform(std::mt19937_64& rng, double half_range)
{
    if (half_range <= 0)
        return 0.0;
    return std::uniform_real_distribution<double>(-half_range, half_range)(rng);
}

}  // namespace

std::vector<Annotation> parse_annotations(const std::string& text, const std::string& source,
                                          const std::string& base_dir)
{
    std::vector<Annotation> annotations;
    std::istringstream lines{std::string(io::without_bom(text))};
    std::string line;
    int number = 0;
    while (std::getline(lines, line)) {
        ++number;
        if (!line.empty() && line.back() == '\r')
            line.pop_back();
        std::istringstream fields(line);
        std::vector<std::string> tokens;
        for (std::string t; fields >> t;)
            tokens.push_back(t);
        if (tokens.empty() || tokens[0][0] == '#')
            continue;
        Annotation a;
        a.line = number;
        a.path = tokens[0];
        if (!base_dir.empty() && a.path[0] != '/')
            a.path = base_dir + "/" + a.path;
        long long count = 0;
        if (tokens.size() < 2 || !to_int(tokens[1], &count) || count < 0)
            throw bad_line(source, number, "expected 'path count x y w h ...', the count is missing or not a number");
        if (static_cast<unsigned long long>(count) > kMaxBoxesPerLine)
            throw bad_line(source, number, "more than " + std::to_string(kMaxBoxesPerLine) + " boxes on one line");
        if (tokens.size() != 2 + 4 * static_cast<size_t>(count))
            throw bad_line(source, number,
                           "the count says " + std::to_string(count) + " boxes (" + std::to_string(4 * count) +
                               " numbers) but " + std::to_string(tokens.size() - 2) + " numbers follow");
        for (long long b = 0; b < count; ++b) {
            long long v[4];
            for (int k = 0; k < 4; ++k)
                if (!to_int(tokens[2 + 4 * b + k], &v[k]) || v[k] < -(1LL << 30) || v[k] > (1LL << 30))
                    throw bad_line(source, number,
                                   "box " + std::to_string(b + 1) + ": '" + printable(tokens[2 + 4 * b + k]) +
                                       "' is not an integer");
            if (v[2] <= 0 || v[3] <= 0)
                throw bad_line(source, number,
                               "box " + std::to_string(b + 1) + " has a size of " + std::to_string(v[2]) + "x" +
                                   std::to_string(v[3]));
            a.boxes.push_back(
                Rect{static_cast<int>(v[0]), static_cast<int>(v[1]), static_cast<int>(v[2]), static_cast<int>(v[3])});
        }
        annotations.push_back(std::move(a));
    }
    return annotations;
}

void check_box(const Rect& box, Size image_size, const std::string& where)
{
    if (box.width <= 0 || box.height <= 0)
        throw Error(ErrorKind::BadParameter,
                    where + ": a box of size " + std::to_string(box.width) + "x" + std::to_string(box.height));
    if (box.x < 0 || box.y < 0 || int64_t{box.x} + box.width > image_size.width ||
        int64_t{box.y} + box.height > image_size.height)
        throw Error(ErrorKind::BadParameter,
                    where + ": the box " + std::to_string(box.x) + "," + std::to_string(box.y) + " " +
                        std::to_string(box.width) + "x" + std::to_string(box.height) + " is not inside the " +
                        std::to_string(image_size.width) + "x" + std::to_string(image_size.height) + " image");
}

GrayImage crop_window(const GrayView& image, const Rect& box, Size window, const Augmentation& augmentation, bool vary,
                      std::mt19937_64& rng)
{
    double cx = box.x + box.width / 2.0, cy = box.y + box.height / 2.0;
    double bw = box.width, bh = box.height, angle = 0.0, offset = 0.0, gain = 1.0;
    if (vary) {
        /* Drawn in a fixed order, so that a seed gives the same samples. */
        const double s = 1.0 + uniform(rng, augmentation.scale);
        cx += uniform(rng, augmentation.shift) * bw;
        cy += uniform(rng, augmentation.shift) * bh;
        bw *= s;
        bh *= s;
        angle = uniform(rng, augmentation.rotation_deg) * M_PI / 180.0;
        offset = uniform(rng, augmentation.brightness);
        gain = 1.0 + uniform(rng, augmentation.contrast);
    }
    const double c = std::cos(angle), sn = std::sin(angle);
    /* Several samples per output pixel when the box is much larger than the
     * window: a point sample of a 200-pixel face at 24 pixels aliases. */
    const int sub_x = std::clamp(static_cast<int>(std::ceil(bw / window.width)), 1, 8);
    const int sub_y = std::clamp(static_cast<int>(std::ceil(bh / window.height)), 1, 8);
    std::vector<double> values(static_cast<size_t>(window.width) * window.height);
    double mean = 0.0;
    for (int v = 0; v < window.height; ++v)
        for (int u = 0; u < window.width; ++u) {
            double acc = 0.0;
            for (int j = 0; j < sub_y; ++j)
                for (int i = 0; i < sub_x; ++i) {
                    const double px = ((u + (i + 0.5) / sub_x) / window.width - 0.5) * bw;
                    const double py = ((v + (j + 0.5) / sub_y) / window.height - 0.5) * bh;
                    acc += sample(image, cx + c * px - sn * py, cy + sn * px + c * py);
                }
            const double value = acc / (sub_x * sub_y);
            values[static_cast<size_t>(v) * window.width + u] = value;
            mean += value;
        }
    mean /= static_cast<double>(values.size());
    GrayImage out(window.width, window.height);
    for (size_t k = 0; k < values.size(); ++k)
        out.pixels[k] =
            static_cast<uint8_t>(std::clamp(std::lround(mean + gain * (values[k] - mean) + offset), 0L, 255L));
    return out;
}

GrayImage mirrored(const GrayView& image)
{
    GrayImage out(image.width, image.height);
    for (int y = 0; y < image.height; ++y)
        for (int x = 0; x < image.width; ++x)
            out.at(image.width - 1 - x, y) = image.at(x, y);
    return out;
}

std::vector<GrayImage> positive_samples(const GrayView& image, const Rect& box, Size window,
                                        const Augmentation& augmentation, std::mt19937_64& rng)
{
    std::vector<GrayImage> samples;
    for (int k = 0; k < std::max(augmentation.copies, 1); ++k) {
        samples.push_back(crop_window(image, box, window, augmentation, k > 0, rng));
        if (augmentation.mirror)
            samples.push_back(mirrored(samples.back().view()));
    }
    return samples;
}

void WorkingSet::add(const GrayImage& window, bool positive, const Classifier& so_far, bool calibrates,
                     size_t positive_index)
{
    backend_->add(window, positive);
    LevelIntegrals integrals;
    integrals.sum = integral_image(window.view());
    sums_.push_back(evaluate_window(so_far, integrals, 0, 0, -std::numeric_limits<float>::infinity()).score);
    positive_.push_back(positive);
    calibration_.push_back(calibrates);
    CheckpointSample origin;
    origin.kind = positive ? CheckpointSample::Kind::Positive : CheckpointSample::Kind::Negative;
    if (positive)
        origin.positive_index = positive_index;
    else
        origin.window = window;
    origins_.push_back(std::move(origin));
}

void WorkingSet::keep(const std::vector<bool>& kept)
{
    backend_->keep(kept);
    binned_candidate_ = std::numeric_limits<size_t>::max();
    size_t out = 0;
    for (size_t i = 0; i < count(); ++i) {
        if (!kept[i])
            continue;
        if (out != i) { /* a self-move would empty the pixels */
            sums_[out] = sums_[i];
            positive_[out] = positive_[i];
            calibration_[out] = calibration_[i];
            origins_[out] = std::move(origins_[i]);
        }
        ++out;
    }
    sums_.resize(out);
    positive_.resize(out);
    calibration_.resize(out);
    origins_.resize(out);
}

void WorkingSet::clear()
{
    backend_->clear();
    sums_.clear();
    positive_.clear();
    calibration_.clear();
    origins_.clear();
    binned_candidate_ = std::numeric_limits<size_t>::max();
}

void WorkingSet::fetch_bins(size_t candidate)
{
    chosen_bins_ = backend_->bins(candidate);
    binned_candidate_ = candidate;
}

size_t WorkingSet::bin(size_t i, size_t candidate) const
{
    if (candidate != binned_candidate_)
        throw std::logic_error("training: the bins of a candidate fetch_bins() did not fetch");
    return chosen_bins_[i];
}

void WorkingSet::add_responses(size_t candidate, const std::vector<float>& responses)
{
    for (size_t i = 0; i < count(); ++i)
        sums_[i] += responses[bin(i, candidate)];
}

std::vector<CheckpointSample> WorkingSet::checkpoint_samples() const
{
    std::vector<CheckpointSample> samples;
    samples.reserve(origins_.size());
    for (size_t i = 0; i < origins_.size(); ++i) {
        CheckpointSample s;
        s.kind = origins_[i].kind;
        s.positive_index = origins_[i].positive_index;
        s.window = origins_[i].window;
        s.running_sum = sums_[i];
        samples.push_back(std::move(s));
    }
    return samples;
}

}  // namespace waldboost::training
