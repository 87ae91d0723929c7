/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * label-pedestrians: machine labels for a static camera's video, the
 * reference that pipelines/training/make-pedestrian-set.py trains and
 * measures the pedestrian detector against. There is no ground truth: the
 * labels are OpenCV's HOG people detector (Dalal-Triggs, its default SVM)
 * confirmed by foreground, a reference with its own misses and false
 * alarms, not the truth. OpenCV is used here as a reference only, as in
 * the tests and waldboost-bench; this program is built only when OpenCV is
 * found and is not installed.
 *
 * The background is the per-pixel temporal median of every 4th frame of the
 * whole video (the camera does not move, and a walker covers a pixel for
 * less than half the time). A pixel is foreground when it differs from the
 * background by more than --difference grey levels; the mask is opened
 * (3x3) to drop noise and closed (7x7) to join a walker's parts, and its
 * connected regions of at least --min-blob pixels are the blobs.
 *
 * For every --every-th frame it writes the frame as grey PGM into OUT and
 * prints, to stdout:
 *   frame INDEX FILE
 *   hog X Y W H SCORE FOREGROUND     (one per HOG detection; FOREGROUND is
 *                                      the share of foreground pixels in the
 *                                      box's core, its middle half across and
 *                                      middle 80% down, where a walker is)
 *                                    (SCORE is OpenCV's weight of the box,
 *                                      for reading only: with OpenCV's
 *                                      threads its pairing with the boxes
 *                                      varies from run to run)
 *   blob X Y W H                      (one per blob)
 *
 *   label-pedestrians [--every N] [--upscale F] [--difference D]
 *                     [--min-blob A] [--max-frames N] [--threads N] VIDEO OUT
 */
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <tuple>
#include <vector>

namespace {

struct Options {
    int every = 5;
    double upscale = 2.0;
    int difference = 25;
    int min_blob = 150;
    int max_frames = 0;  // 0: every frame
    int threads = 0;     // 0: OpenCV's default
    std::string video;
    std::string out;
};

[[noreturn]] void usage(const char* message)
{
    std::fprintf(stderr,
                 "label-pedestrians: %s\n"
                 "usage: label-pedestrians [--every N] [--upscale F] [--difference D] [--min-blob A]\n"
                 "                         [--max-frames N] [--threads N] VIDEO OUT\n",
                 message);
    std::exit(2);
}

double number(const char* name, const char* text, double low, double high)
{
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end == text || *end != '\0' || !(value >= low && value <= high)) {
        std::fprintf(stderr, "label-pedestrians: %s wants a number in [%g, %g], not '%s'\n", name, low, high, text);
        std::exit(2);
    }
    return value;
}

Options parse(int argc, char** argv)
{
    Options options;
    std::vector<std::string> positional;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc)
                usage((arg + " needs a value").c_str());
            return argv[++i];
        };
        if (arg == "--every")
            options.every = static_cast<int>(number("--every", value(), 1, 1000));
        else if (arg == "--upscale")
            options.upscale = number("--upscale", value(), 1, 4);
        else if (arg == "--difference")
            options.difference = static_cast<int>(number("--difference", value(), 1, 255));
        else if (arg == "--min-blob")
            options.min_blob = static_cast<int>(number("--min-blob", value(), 1, 1e7));
        else if (arg == "--max-frames")
            options.max_frames = static_cast<int>(number("--max-frames", value(), 1, 1e7));
        else if (arg == "--threads")
            options.threads = static_cast<int>(number("--threads", value(), 1, 256));
        else if (!arg.empty() && arg[0] == '-')
            usage(("unknown option " + arg).c_str());
        else
            positional.push_back(arg);
    }
    if (positional.size() != 2)
        usage("give VIDEO and OUT");
    options.video = positional[0];
    options.out = positional[1];
    return options;
}

std::vector<cv::Mat> read_grey_frames(const Options& options)
{
    cv::VideoCapture capture(options.video);
    if (!capture.isOpened()) {
        std::fprintf(stderr, "label-pedestrians: cannot open or decode %s\n", options.video.c_str());
        std::exit(1);
    }
    std::vector<cv::Mat> frames;
    cv::Mat frame;
    while (capture.read(frame) && !frame.empty()) {
        if (options.max_frames > 0 && static_cast<int>(frames.size()) >= options.max_frames)
            break;
        cv::Mat grey;
        if (frame.channels() == 1)
            grey = frame.clone();
        else
            cv::cvtColor(frame, grey, cv::COLOR_BGR2GRAY);
        frames.push_back(grey);
    }
    if (frames.empty()) {
        std::fprintf(stderr, "label-pedestrians: %s has no frames\n", options.video.c_str());
        std::exit(1);
    }
    for (const cv::Mat& f : frames) {
        if (f.size() != frames[0].size()) {
            std::fprintf(stderr, "label-pedestrians: %s changes frame size\n", options.video.c_str());
            std::exit(1);
        }
    }
    return frames;
}

// The per-pixel median of every 4th frame: the scene without its walkers.
cv::Mat median_background(const std::vector<cv::Mat>& frames)
{
    std::vector<const cv::Mat*> used;
    for (size_t i = 0; i < frames.size(); i += 4)
        used.push_back(&frames[i]);
    cv::Mat background(frames[0].size(), CV_8UC1);
    std::vector<unsigned char> values(used.size());
    for (int y = 0; y < background.rows; ++y) {
        for (int x = 0; x < background.cols; ++x) {
            for (size_t k = 0; k < used.size(); ++k)
                values[k] = used[k]->at<unsigned char>(y, x);
            std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
            background.at<unsigned char>(y, x) = values[values.size() / 2];
        }
    }
    return background;
}

double foreground_share(const cv::Mat& mask, const cv::Rect& box)
{
    const cv::Rect core(box.x + box.width / 4, box.y + box.height / 10, box.width / 2, box.height * 8 / 10);
    const cv::Rect inside = core & cv::Rect(0, 0, mask.cols, mask.rows);
    if (inside.area() == 0)
        return 0.0;
    return static_cast<double>(cv::countNonZero(mask(inside))) / inside.area();
}

}  // namespace

int main(int argc, char** argv)
{
    const Options options = parse(argc, argv);
    if (options.threads > 0)
        cv::setNumThreads(options.threads);
    const std::vector<cv::Mat> frames = read_grey_frames(options);
    const cv::Mat background = median_background(frames);

    cv::HOGDescriptor hog;
    hog.setSVMDetector(cv::HOGDescriptor::getDefaultPeopleDetector());
    const cv::Mat open_kernel = cv::getStructuringElement(cv::MORPH_RECT, {3, 3});
    const cv::Mat close_kernel = cv::getStructuringElement(cv::MORPH_RECT, {7, 7});
    const cv::Rect frame_rect(0, 0, frames[0].cols, frames[0].rows);

    std::printf("video %s %zu %d %d\n", options.video.c_str(), frames.size(), frames[0].cols, frames[0].rows);
    for (size_t index = 0; index < frames.size(); index += options.every) {
        const cv::Mat& grey = frames[index];
        char name[64];
        std::snprintf(name, sizeof name, "frame-%04zu.pgm", index);
        const std::string path = options.out + "/" + name;
        if (!cv::imwrite(path, grey)) {
            std::fprintf(stderr, "label-pedestrians: cannot write %s\n", path.c_str());
            return 1;
        }
        std::printf("frame %zu %s\n", index, name);

        cv::Mat difference, mask;
        cv::absdiff(grey, background, difference);
        cv::threshold(difference, mask, options.difference, 255, cv::THRESH_BINARY);
        cv::morphologyEx(mask, mask, cv::MORPH_OPEN, open_kernel);
        cv::morphologyEx(mask, mask, cv::MORPH_CLOSE, close_kernel);

        // HOG's window is 64x128: the frame is scaled up so that walkers
        // shorter than 128 pixels are found.
        cv::Mat scaled;
        cv::resize(grey, scaled, {}, options.upscale, options.upscale, cv::INTER_LINEAR);
        std::vector<cv::Rect> found;
        std::vector<double> scores;
        hog.detectMultiScale(scaled, found, scores, 0.0, {8, 8}, {0, 0}, 1.05, 2.0);
        // OpenCV's threads return the boxes in varying order: sort them, so
        // that the same video gives the same file.
        std::vector<size_t> order(found.size());
        for (size_t k = 0; k < order.size(); ++k)
            order[k] = k;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
            return std::make_tuple(found[a].y, found[a].x, found[a].height, found[a].width) <
                   std::make_tuple(found[b].y, found[b].x, found[b].height, found[b].width);
        });
        for (size_t k : order) {
            const cv::Rect2d r(found[k].x / options.upscale, found[k].y / options.upscale,
                               found[k].width / options.upscale, found[k].height / options.upscale);
            cv::Rect box(cvRound(r.x), cvRound(r.y), cvRound(r.width), cvRound(r.height));
            box &= frame_rect;
            if (box.area() == 0)
                continue;
            std::printf("hog %d %d %d %d %.3f %.3f\n", box.x, box.y, box.width, box.height,
                        k < scores.size() ? scores[k] : 0.0, foreground_share(mask, box));
        }

        cv::Mat labels, stats, centroids;
        const int count = cv::connectedComponentsWithStats(mask, labels, stats, centroids, 8, CV_32S);
        for (int c = 1; c < count; ++c) {
            if (stats.at<int>(c, cv::CC_STAT_AREA) < options.min_blob)
                continue;
            std::printf("blob %d %d %d %d\n", stats.at<int>(c, cv::CC_STAT_LEFT), stats.at<int>(c, cv::CC_STAT_TOP),
                        stats.at<int>(c, cv::CC_STAT_WIDTH), stats.at<int>(c, cv::CC_STAT_HEIGHT));
        }
        std::fflush(stdout);
    }
    return 0;
}
