/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-bench-dlib: the other trainer of tests/bench/dlib-side-by-side.sh.
 * Trains dlib's HOG detector (scan_fhog_pyramid with
 * structural_object_detection_trainer: a linear SVM over FHOG windows,
 * trained on whole images) from an annotation file in OpenCV's format and
 * background images, then measures it as waldboost-evaluate measures ours:
 * the held-out objects found (IoU at least 0.5, one to one, the pairs of
 * highest IoU first), false positives per megapixel on held-out images
 * without the object, and the time per 640x480 and 1920x1080 frame (one
 * image resized to both). Prints one JSON object on the last line.
 *
 * Images are read with the project's loader (gdk-pixbuf, BT.601 grey), so
 * that both detectors see the same pixels. --upsample scales every image
 * (training, held out, timed) before dlib sees it, for objects smaller than
 * the window; detections are scaled back to the image's own coordinates,
 * and the time of that scaling is part of the detection time.
 *
 * A benchmark, not part of the plugin: built only where meson finds dlib
 * (build-aux/install-deps.sh --bench), never installed.
 */
#include <glib.h>

#include <dlib/array.h>
#include <dlib/array2d.h>
#include <dlib/image_processing.h>
#include <dlib/image_transforms.h>
#include <dlib/revision.h>
#include <dlib/serialize.h>
#include <dlib/svm_threaded.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/text.h"
#include "core/training/samples.h"
#include "tools/common/box_matching.h"
#include "tools/common/command_line.h"
#include "tools/common/file_lists.h"
#include "tools/common/image_file.h"
#include "tools/common/json_text.h"

namespace {

using Clock = std::chrono::steady_clock;
using waldboost::printable;
using waldboost::Rect;
using waldboost::tools::json_string;
using Image = dlib::array2d<unsigned char>;
using Scanner = dlib::scan_fhog_pyramid<dlib::pyramid_down<6>>;
using Detector = dlib::object_detector<Scanner>;

constexpr const char* kTool = "waldboost-bench-dlib";

struct Options {
    gchar* train = nullptr;
    gchar* train_backgrounds = nullptr;
    gchar* heldout = nullptr;
    gchar* heldout_backgrounds = nullptr;
    gchar* window = nullptr;
    gdouble upsample = 1.0;
    gboolean mirror = FALSE;
    gdouble c = 1.0;
    gdouble epsilon = 0.01;
    gint threads = 2;
    gchar* timing_image = nullptr;
    gint repeat = 10;
    gchar* frames_out = nullptr;
    gchar* save = nullptr;
    gchar* load = nullptr;
    gboolean verbose = FALSE;

    Options() = default;
    Options(const Options&) = delete;
    Options& operator=(const Options&) = delete;
    ~Options()
    {
        for (gchar* text :
             {train, train_backgrounds, heldout, heldout_backgrounds, window, timing_image, frames_out, save, load})
            g_free(text);
    }
};

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "%s: %s (see --help)\n", kTool, printable(message, 1000).c_str());
    return 2;
}

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

Image to_dlib(const waldboost::GrayImage& gray)
{
    Image image(gray.height, gray.width);
    for (int y = 0; y < gray.height; ++y)
        std::copy(gray.row(y), gray.row(y) + gray.width, &image[y][0]);
    return image;
}

/* Bilinear, dlib's resize_image: the scaling dlib's own examples use. */
Image resized(const Image& in, long width, long height)
{
    Image out(height, width);
    dlib::resize_image(in, out);
    return out;
}

Image scaled(const Image& in, double factor)
{
    return resized(in, std::lround(in.nc() * factor), std::lround(in.nr() * factor));
}

/* An image as dlib sees it: scaled by --upsample. */
Image prepared(const waldboost::GrayImage& gray, double factor)
{
    return factor == 1.0 ? to_dlib(gray) : scaled(to_dlib(gray), factor);
}

/* dlib's rectangles are inclusive: right = left + width - 1. */
dlib::rectangle to_dlib(const Rect& r, double factor)
{
    const long left = std::lround(r.x * factor), top = std::lround(r.y * factor);
    return dlib::rectangle(left, top, left + std::lround(r.width * factor) - 1,
                           top + std::lround(r.height * factor) - 1);
}

Rect from_dlib(const dlib::rectangle& r, double factor)
{
    return Rect{static_cast<int>(std::lround(r.left() / factor)), static_cast<int>(std::lround(r.top() / factor)),
                static_cast<int>(std::lround(r.width() / factor)), static_cast<int>(std::lround(r.height() / factor))};
}

std::vector<Rect> detect(Detector& detector, const Image& image, double factor)
{
    std::vector<dlib::rectangle> found;
    if (factor == 1.0) {
        found = detector(image);
    } else {
        const Image up = scaled(image, factor);
        found = detector(up);
    }
    std::vector<Rect> rects;
    for (const dlib::rectangle& r : found)
        rects.push_back(from_dlib(r, factor));
    return rects;
}

std::vector<waldboost::training::Annotation> read_annotations(const char* path)
{
    auto annotations = waldboost::training::parse_annotations(waldboost::tools::read_text(path, "annotation file"),
                                                              path, waldboost::tools::folder_of(path));
    if (annotations.empty())
        throw waldboost::Error(waldboost::ErrorKind::BadParameter, printable(path) + ": no annotated image");
    return annotations;
}

void write_pgm(const std::string& path, const Image& image)
{
    std::ofstream out(path, std::ios::binary);
    out << "P5\n" << image.nc() << " " << image.nr() << "\n255\n";
    for (long y = 0; y < image.nr(); ++y)
        out.write(reinterpret_cast<const char*>(&image[y][0]), image.nc());
    if (!out.flush())
        throw waldboost::Error(waldboost::ErrorKind::Io, "cannot write " + printable(path));
}

struct Training {
    size_t images = 0, objects = 0, unobtainable = 0, backgrounds = 0;
    double seconds = 0.0, solver_seconds = 0.0;
};

/* Whole images with boxes are what dlib learns from: every window of an
 * image that does not match a box is a negative, so the backgrounds are
 * images with no box. */
Detector train(const Options& o, long window_width, long window_height, Training* t)
{
    const Clock::time_point start = Clock::now();
    dlib::array<Image> images;
    std::vector<std::vector<dlib::rectangle>> boxes;
    for (const auto& line : read_annotations(o.train)) {
        const waldboost::GrayImage gray = waldboost::tools::load_gray_image(line.path);
        std::vector<dlib::rectangle> rects;
        for (const Rect& box : line.boxes) {
            waldboost::training::check_box(box, {gray.width, gray.height},
                                           printable(o.train) + ":" + std::to_string(line.line));
            rects.push_back(to_dlib(box, o.upsample));
        }
        images.push_back(prepared(gray, o.upsample));
        boxes.push_back(std::move(rects));
    }
    if (o.mirror)
        dlib::add_image_left_right_flips(images, boxes);
    t->images = images.size();
    if (o.train_backgrounds)
        for (const std::string& path : waldboost::tools::image_list(o.train_backgrounds, "backgrounds list")) {
            images.push_back(prepared(waldboost::tools::load_gray_image(path), o.upsample));
            boxes.emplace_back();
            ++t->backgrounds;
        }

    Scanner scanner;
    scanner.set_detection_window_size(window_width, window_height);
    dlib::structural_object_detection_trainer<Scanner> trainer(scanner);
    trainer.set_num_threads(o.threads);
    trainer.set_c(o.c);
    trainer.set_epsilon(o.epsilon);
    if (o.verbose)
        trainer.be_verbose();
    /* Boxes no window of the scanner matches (a shape too far from the
     * window's, an object too small) would stop the trainer: they become
     * boxes it ignores, neither to find nor negatives. */
    const std::vector<std::vector<dlib::rectangle>> ignore =
        dlib::remove_unobtainable_rectangles(trainer, images, boxes);
    for (size_t i = 0; i < boxes.size(); ++i) {
        t->objects += boxes[i].size();
        t->unobtainable += ignore[i].size();
    }
    const Clock::time_point solver_start = Clock::now();
    Detector detector = trainer.train(images, boxes, ignore);
    t->solver_seconds = seconds_since(solver_start);
    t->seconds = seconds_since(start);
    return detector;
}

struct Heldout {
    size_t images = 0, objects = 0, found = 0, other = 0;
    double iou_sum = 0.0;
    size_t background_images = 0, false_positives = 0;
    double megapixels = 0.0;
};

Heldout evaluate(const Options& o, Detector& detector)
{
    Heldout h;
    if (o.heldout)
        for (const auto& line : read_annotations(o.heldout)) {
            const waldboost::GrayImage gray = waldboost::tools::load_gray_image(line.path);
            const std::vector<Rect> found = detect(detector, to_dlib(gray), o.upsample);
            const std::vector<double> matched = waldboost::tools::match_one_to_one(line.boxes, found, 0.5, line.path);
            ++h.images;
            h.objects += line.boxes.size();
            h.found += matched.size();
            h.other += found.size() - matched.size();
            for (double m : matched)
                h.iou_sum += m;
        }
    if (o.heldout_backgrounds)
        for (const std::string& path : waldboost::tools::image_list(o.heldout_backgrounds, "backgrounds list")) {
            const waldboost::GrayImage gray = waldboost::tools::load_gray_image(path);
            h.false_positives += detect(detector, to_dlib(gray), o.upsample).size();
            h.megapixels += static_cast<double>(gray.width) * gray.height / 1e6;
            ++h.background_images;
        }
    return h;
}

/* Median milliseconds per frame of `width` x `height`, after one run that
 * is not counted. dlib's detector runs on one thread per image. */
double time_frame(const Options& o, Detector& detector, const Image& source, long width, long height)
{
    const Image frame = resized(source, width, height);
    if (o.frames_out)
        write_pgm(std::string(o.frames_out) + "/frame-" + std::to_string(width) + "x" + std::to_string(height) + ".pgm",
                  frame);
    detect(detector, frame, o.upsample);
    std::vector<double> ms;
    for (int i = 0; i < o.repeat; ++i) {
        const Clock::time_point start = Clock::now();
        detect(detector, frame, o.upsample);
        ms.push_back(1000.0 * seconds_since(start));
    }
    return median(ms);
}

std::string number(double value, bool defined = true)
{
    if (!defined || !std::isfinite(value))
        return "null";
    char text[64];
    std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    const GOptionEntry entries[] = {
        {"train", 'a', 0, G_OPTION_ARG_FILENAME, &o.train,
         "Training objects: an annotation file in OpenCV's format ('path n x y w h ...' per line)", "FILE"},
        {"train-backgrounds", 'n', 0, G_OPTION_ARG_FILENAME, &o.train_backgrounds,
         "Training images without the object, one path per line", "FILE"},
        {"heldout", 0, 0, G_OPTION_ARG_FILENAME, &o.heldout, "Held-out objects: an annotation file", "FILE"},
        {"heldout-backgrounds", 0, 0, G_OPTION_ARG_FILENAME, &o.heldout_backgrounds,
         "Held-out images without the object, one path per line", "FILE"},
        {"window", 'w', 0, G_OPTION_ARG_STRING, &o.window, "dlib's detection window (default 80x80)", "WxH"},
        {"upsample", 'u', 0, G_OPTION_ARG_DOUBLE, &o.upsample,
         "Scale every image by F before dlib sees it, for objects smaller than the window (default 1)", "F"},
        {"mirror", 0, 0, G_OPTION_ARG_NONE, &o.mirror, "Add the left-right mirror of every annotated image", nullptr},
        {"c", 'C', 0, G_OPTION_ARG_DOUBLE, &o.c, "The SVM's C (default 1)", "F"},
        {"epsilon", 0, 0, G_OPTION_ARG_DOUBLE, &o.epsilon, "The solver's stopping tolerance (default 0.01)", "F"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &o.threads, "Training threads (default 2)", "N"},
        {"timing-image", 0, 0, G_OPTION_ARG_FILENAME, &o.timing_image,
         "Time detection on this image resized to 640x480 and 1920x1080", "FILE"},
        {"repeat", 'r', 0, G_OPTION_ARG_INT, &o.repeat, "Timed runs per frame size, the median kept (default 10)", "N"},
        {"frames-out", 0, 0, G_OPTION_ARG_FILENAME, &o.frames_out,
         "Write the timed frames to this folder as PGM, for timing another detector on the same pixels", "DIR"},
        {"save", 0, 0, G_OPTION_ARG_FILENAME, &o.save, "Write the trained detector (dlib's serialization)", "FILE"},
        {"load", 0, 0, G_OPTION_ARG_FILENAME, &o.load, "Measure this detector instead of training one", "FILE"},
        {"verbose", 'v', 0, G_OPTION_ARG_NONE, &o.verbose, "dlib's training progress on stdout", nullptr},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
    GOptionContext* context = g_option_context_new("- train and measure dlib's HOG detector beside ours");
    g_option_context_set_description(
        context, "Prints one JSON object on its last line of output. Exit status: 0 done, 1 a file could not be "
                 "used or training failed, 2 a usage error.");
    if (const auto error = waldboost::tools::parse_command_line(context, entries, &o, &argc, &argv))
        return usage_error(*error);
    if (!o.train == !o.load)
        return usage_error("give --train (and --train-backgrounds) or --load");
    long window_width = 80, window_height = 80;
    if (o.window && std::sscanf(o.window, "%ldx%ld", &window_width, &window_height) != 2)
        return usage_error("--window must be WxH, e.g. 80x80");
    if (window_width < 8 || window_height < 8 || window_width > 1024 || window_height > 1024)
        return usage_error("--window sides must be 8 to 1024 pixels");
    if (!std::isfinite(o.upsample) || o.upsample < 0.1 || o.upsample > 8)
        return usage_error("--upsample must be 0.1 to 8");
    if (!(o.c > 0) || !(o.epsilon > 0))
        return usage_error("--c and --epsilon must be above 0");
    if (o.threads < 1 || o.repeat < 1)
        return usage_error("--threads and --repeat must be 1 or more");

    try {
        Detector detector;
        Training t;
        if (o.load) {
            dlib::deserialize(o.load) >> detector;
        } else {
            detector = train(o, window_width, window_height, &t);
            if (o.save)
                dlib::serialize(o.save) << detector;
        }
        const Heldout h = evaluate(o, detector);
        double ms_vga = NAN, ms_1080p = NAN;
        if (o.timing_image) {
            const Image source = to_dlib(waldboost::tools::load_gray_image(o.timing_image));
            ms_vga = time_frame(o, detector, source, 640, 480);
            ms_1080p = time_frame(o, detector, source, 1920, 1080);
        }
        std::printf("{\"trainer\": \"dlib %d.%d scan_fhog_pyramid<pyramid_down<6>>\", \"window\": [%ld, %ld], "
                    "\"upsample\": %s, \"mirror\": %s, \"c\": %s, \"epsilon\": %s, \"threads\": %d, "
                    "\"training\": {\"images\": %zu, \"objects\": %zu, \"unobtainable\": %zu, \"backgrounds\": %zu, "
                    "\"seconds\": %s, \"solver_seconds\": %s}, "
                    "\"objects\": {\"images\": %zu, \"objects\": %zu, \"found\": %zu, \"detection_rate\": %s, "
                    "\"mean_iou\": %s, \"other_detections\": %zu}, "
                    "\"backgrounds\": {\"images\": %zu, \"megapixels\": %s, \"false_positives\": %zu, "
                    "\"false_positives_per_megapixel\": %s}, "
                    "\"timing\": {\"image\": %s, \"repeat\": %d, \"detect_threads\": 1, \"ms_640x480\": %s, "
                    "\"ms_1920x1080\": %s}}\n",
                    DLIB_MAJOR_VERSION, DLIB_MINOR_VERSION, window_width, window_height, number(o.upsample).c_str(),
                    o.mirror ? "true" : "false", number(o.c).c_str(), number(o.epsilon).c_str(), o.threads, t.images,
                    t.objects, t.unobtainable, t.backgrounds, number(t.seconds, !o.load).c_str(),
                    number(t.solver_seconds, !o.load).c_str(), h.images, h.objects, h.found,
                    number(static_cast<double>(h.found) / h.objects, h.objects > 0).c_str(),
                    number(h.iou_sum / h.found, h.found > 0).c_str(), h.other, h.background_images,
                    number(h.megapixels).c_str(), h.false_positives,
                    number(h.false_positives / h.megapixels, h.megapixels > 0).c_str(),
                    o.timing_image ? json_string(o.timing_image).c_str() : "null", o.repeat, number(ms_vga).c_str(),
                    number(ms_1080p).c_str());
    } catch (const waldboost::Error& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, printable(e.what(), 4000).c_str());
        return 1;
    } catch (const std::exception& e) {
        /* dlib's own errors: an impossible labelling, a file it cannot read. */
        std::fprintf(stderr, "%s: %s\n", kTool, printable(e.what(), 4000).c_str());
        return 1;
    }
    return 0;
}
