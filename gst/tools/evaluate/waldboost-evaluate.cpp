/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-evaluate: measures a classifier on held-out data with the CPU
 * reference detector: the detection rate on annotated objects (OpenCV's
 * annotation format), false positives per megapixel on object-free images,
 * and the weak classifiers evaluated per window on those images. Any
 * classifier the project loads (WaldBoost XML, OpenCV LBP or Haar
 * cascades) is measured the same way, so two can be put side by side.
 */
#include <glib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/model/classifier_io.h"
#include "core/reference/detector.h"
#include "core/text.h"
#include "core/training/samples.h"
#include "tools/common/box_matching.h"
#include "tools/common/command_line.h"
#include "tools/common/file_lists.h"
#include "tools/common/grouping_option.h"
#include "tools/common/image_file.h"
#include "tools/common/json_text.h"

namespace {

using waldboost::Detection;
using waldboost::printable;
using waldboost::Rect;
using waldboost::tools::json_string;

constexpr const char* kTool = "waldboost-evaluate";

struct Options {
    gchar* classifier = nullptr;
    gchar* objects = nullptr;
    gchar* backgrounds = nullptr;
    gdouble scale_factor = 1.1;
    gint min_neighbors = 3;
    gchar* min_size = nullptr;
    gint stride = 0;
    gdouble iou = 0.5;
    gchar* grouping = nullptr;
    gdouble nms_iou = 0.3;
    gchar* threshold = nullptr;
    gboolean json = FALSE;
    gint max_megapixels = waldboost::tools::kDefaultMaxMegapixels;

    Options() = default;
    Options(const Options&) = delete;
    Options& operator=(const Options&) = delete;
    ~Options()
    {
        for (gchar* text : {classifier, objects, backgrounds, min_size, grouping, threshold})
            g_free(text);
    }
};

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "%s: %s (see --help)\n", kTool, printable(message, 1000).c_str());
    return 2;
}

/* WIDTHxHEIGHT, each side 1 to 100000. */
bool parse_size(const std::string& text, waldboost::Size* size)
{
    const size_t x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 >= text.size() || x > 6 || text.size() - x - 1 > 6)
        return false;
    for (size_t i = 0; i < text.size(); ++i)
        if (i != x && (text[i] < '0' || text[i] > '9'))
            return false;
    size->width = std::stoi(text.substr(0, x));
    size->height = std::stoi(text.substr(x + 1));
    return size->width > 0 && size->height > 0 && size->width <= 100000 && size->height <= 100000;
}

using waldboost::tools::match_one_to_one;

struct ObjectResult {
    size_t images = 0, objects = 0, found = 0, other_detections = 0;
    double iou_sum = 0.0;
    double megapixels = 0.0; /* of the annotated images */
};

struct BackgroundResult {
    size_t images = 0, detections = 0;
    double megapixels = 0.0;
    waldboost::DetectStats stats;
};

void warn_cut(const std::string& path, const waldboost::DetectStats& stats)
{
    if (stats.cut > 0)
        std::fprintf(stderr, "%s: %s: %llu accepted windows past the limit of %d were left out\n", kTool,
                     printable(path).c_str(), static_cast<unsigned long long>(stats.cut),
                     waldboost::kDefaultMaxWindows);
}

double ratio(double a, double b) { return b > 0 ? a / b : 0.0; }

/* A JSON number, or null for a measure with nothing to measure on. */
std::string json_number(double value, bool defined, const char* format = "%.6g")
{
    if (!defined)
        return "null";
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    return text;
}

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    const GOptionEntry entries[] = {
        {"classifier", 'c', 0, G_OPTION_ARG_FILENAME, &o.classifier,
         "The classifier: WaldBoost XML or an OpenCV LBP or Haar cascade", "FILE"},
        {"objects", 'a', 0, G_OPTION_ARG_FILENAME, &o.objects,
         "Held-out objects: an annotation file in OpenCV's format ('path n x y w h ...' per line)", "FILE"},
        {"backgrounds", 'b', 0, G_OPTION_ARG_FILENAME, &o.backgrounds,
         "Held-out images without the object, one path per line", "FILE"},
        {"scale-factor", 's', 0, G_OPTION_ARG_DOUBLE, &o.scale_factor, "Pyramid step, > 1 (default 1.1)", "F"},
        {"min-neighbors", 'n', 0, G_OPTION_ARG_INT, &o.min_neighbors,
         "A detection needs more than N raw windows (default 3; 0 = every window is a detection)", "N"},
        {"min-size", 0, 0, G_OPTION_ARG_STRING, &o.min_size, "Smallest object (default: the classifier window)", "WxH"},
        {"stride", 0, 0, G_OPTION_ARG_INT, &o.stride, "Window step in pixels (default 0 = OpenCV's rule)", "N"},
        {"iou", 0, 0, G_OPTION_ARG_DOUBLE, &o.iou,
         "A detection finds an annotated object when their IoU is at least F (default 0.5)", "F"},
        {"grouping", 'g', 0, G_OPTION_ARG_STRING, &o.grouping,
         "How raw windows become detections: opencv (default, as detectMultiScale), nms or none", "KIND"},
        {"nms-iou", 0, 0, G_OPTION_ARG_DOUBLE, &o.nms_iou,
         "With --grouping nms, the IoU above which windows merge (default 0.3; 0 merges any overlap)", "F"},
        {"threshold", 't', 0, G_OPTION_ARG_STRING, &o.threshold,
         "Final score threshold (default: the classifier's); choose it on training data, not on the held-out data",
         "F"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print the results as JSON", nullptr},
        {"max-megapixels", 0, 0, G_OPTION_ARG_INT, &o.max_megapixels,
         "Refuse an image whose header declares more than N megapixels, before decoding it (default 100)", "N"},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
    GOptionContext* context = g_option_context_new("- measure a classifier on held-out data");
    g_option_context_set_description(
        context, "Detects with the CPU reference detector and OpenCV's grouping (or --grouping). The detection "
                 "rate counts the annotated objects that a detection matches (one to one, IoU at least --iou); the "
                 "other detections on those images are counted per megapixel of them (a second box on an object "
                 "counts there); false positives are every detection on the --backgrounds images, per megapixel; "
                 "weak classifiers per window are "
                 "counted over every window evaluated on those images (every weak classifier of every stage "
                 "evaluated, for a stage cascade). Exit status: 0 done, 1 a file could not be used, 2 a usage "
                 "error.");
    if (const auto error = waldboost::tools::parse_command_line(context, entries, &o, &argc, &argv))
        return usage_error(*error);
    if (!o.classifier)
        return usage_error("--classifier is required");
    if (!o.objects && !o.backgrounds)
        return usage_error("give held-out data with --objects and/or --backgrounds");
    if (!std::isfinite(o.scale_factor) || !(o.scale_factor > 1.0))
        return usage_error("--scale-factor must be a finite number above 1 (1.1 is usual)");
    if (o.min_neighbors < 0)
        return usage_error("--min-neighbors must be 0 or more");
    if (o.stride < 0)
        return usage_error("--stride must be 0 (OpenCV's rule) or a positive number of pixels");
    if (!(o.iou > 0.0 && o.iou <= 1.0))
        return usage_error("--iou must be above 0 and at most 1");
    if (o.max_megapixels < 1)
        return usage_error("--max-megapixels must be 1 or more");
    const uint64_t max_pixels = static_cast<uint64_t>(o.max_megapixels) * 1000000;

    waldboost::DetectParams params;
    params.scale_factor = o.scale_factor;
    params.min_neighbors = o.min_neighbors;
    params.stride = o.stride;
    const std::string grouping = o.grouping ? o.grouping : "opencv";
    if (const auto kind = waldboost::tools::parse_grouping(grouping))
        params.grouping = *kind;
    else
        return usage_error("--grouping is opencv, nms or none, not '" + printable(grouping) + "'");
    if (!std::isfinite(o.nms_iou) || o.nms_iou < 0.0 || o.nms_iou > 1.0)
        return usage_error("--nms-iou must be a number from 0 to 1");
    params.nms_iou = static_cast<float>(o.nms_iou);
    if (o.min_size && !parse_size(o.min_size, &params.min_size))
        return usage_error("--min-size must be WxH, e.g. 24x24");
    if (o.threshold) {
        char* end = nullptr;
        const double value = g_ascii_strtod(o.threshold, &end);
        if (!end || end == o.threshold || *end != '\0' || !std::isfinite(static_cast<float>(value)))
            return usage_error(std::string("--threshold needs a number, not '") + o.threshold + "'");
        params.final_threshold = static_cast<float>(value);
    }

    try {
        const waldboost::Classifier classifier = waldboost::load_classifier_file(o.classifier);
        const waldboost::Size min_size = params.min_size.width > 0
                                             ? params.min_size
                                             : waldboost::Size{classifier.window_width, classifier.window_height};
        const float final_threshold = params.final_threshold.value_or(classifier.final_threshold);

        /* The lists first: a mistake there shows before any detection runs. */
        std::vector<waldboost::training::Annotation> annotations;
        if (o.objects) {
            annotations =
                waldboost::training::parse_annotations(waldboost::tools::read_text(o.objects, "annotation file"),
                                                       o.objects, waldboost::tools::folder_of(o.objects));
            if (annotations.empty())
                throw waldboost::Error(waldboost::ErrorKind::BadParameter,
                                       printable(o.objects) + ": no annotated image");
        }
        std::vector<std::string> background_paths;
        if (o.backgrounds)
            background_paths = waldboost::tools::image_list(o.backgrounds, "backgrounds list");

        ObjectResult objects;
        for (const auto& line : annotations) {
            const waldboost::GrayImage image = waldboost::tools::load_gray_image(line.path, max_pixels);
            for (const Rect& box : line.boxes)
                waldboost::training::check_box(box, {image.width, image.height},
                                               printable(o.objects) + ":" + std::to_string(line.line) + " (" +
                                                   printable(line.path) + ")");
            waldboost::DetectStats stats;
            const std::vector<Detection> detections = waldboost::detect(classifier, image.view(), params, &stats);
            warn_cut(line.path, stats);
            std::vector<Rect> found;
            for (const Detection& d : detections)
                found.push_back(d.rect);
            const std::vector<double> matched =
                match_one_to_one(line.boxes, found, o.iou, std::string(o.objects) + ":" + std::to_string(line.line));
            ++objects.images;
            objects.objects += line.boxes.size();
            objects.found += matched.size();
            objects.other_detections += detections.size() - matched.size();
            objects.megapixels += static_cast<double>(image.width) * image.height / 1e6;
            for (double m : matched)
                objects.iou_sum += m;
        }

        BackgroundResult backgrounds;
        for (const std::string& path : background_paths) {
            const waldboost::GrayImage image = waldboost::tools::load_gray_image(path, max_pixels);
            waldboost::DetectStats stats;
            const std::vector<Detection> detections = waldboost::detect(classifier, image.view(), params, &stats);
            warn_cut(path, stats);
            ++backgrounds.images;
            backgrounds.detections += detections.size();
            backgrounds.megapixels += static_cast<double>(image.width) * image.height / 1e6;
            backgrounds.stats.windows += stats.windows;
            backgrounds.stats.weak_evaluated += stats.weak_evaluated;
        }

        const double rate = ratio(static_cast<double>(objects.found), static_cast<double>(objects.objects));
        const double per_megapixel = ratio(static_cast<double>(backgrounds.detections), backgrounds.megapixels);
        const double other_per_megapixel = ratio(static_cast<double>(objects.other_detections), objects.megapixels);

        const double weak_per_window = ratio(static_cast<double>(backgrounds.stats.weak_evaluated),
                                             static_cast<double>(backgrounds.stats.windows));
        const std::string stride_text = o.stride ? std::to_string(o.stride) : "OpenCV's rule";
        if (o.json) {
            std::printf("{\n  \"classifier\": {\"file\": %s, \"label\": %s, \"window\": [%d, %d], \"weak\": %zu},\n",
                        json_string(o.classifier).c_str(), json_string(classifier.label).c_str(),
                        classifier.window_width, classifier.window_height, classifier.weak.size());
            std::printf(
                "  \"settings\": {\"scale_factor\": %g, \"min_neighbors\": %d, \"min_size\": [%d, %d], "
                "\"stride\": %d, \"grouping\": \"%s\", \"nms_iou\": %g, \"iou\": %g, \"final_threshold\": %.9g},\n",
                o.scale_factor, o.min_neighbors, min_size.width, min_size.height, o.stride,
                waldboost::tools::grouping_name(params.grouping), o.nms_iou, o.iou,
                static_cast<double>(final_threshold));
            std::printf(
                "  \"objects\": {\"images\": %zu, \"objects\": %zu, \"found\": %zu, \"detection_rate\": %s, "
                "\"mean_iou\": %s, \"other_detections\": %zu, \"megapixels\": %s, "
                "\"other_detections_per_megapixel\": %s},\n",
                objects.images, objects.objects, objects.found, json_number(rate, objects.objects > 0).c_str(),
                json_number(ratio(objects.iou_sum, static_cast<double>(objects.found)), objects.found > 0).c_str(),
                objects.other_detections, json_number(objects.megapixels, true, "%.6f").c_str(),
                json_number(other_per_megapixel, objects.megapixels > 0).c_str());
            std::printf("  \"backgrounds\": {\"images\": %zu, \"megapixels\": %s, \"false_positives\": %zu, "
                        "\"false_positives_per_megapixel\": %s, \"windows\": %llu, \"weak_evaluated\": %llu, "
                        "\"weak_per_window\": %s}\n}\n",
                        backgrounds.images, json_number(backgrounds.megapixels, true, "%.6f").c_str(),
                        backgrounds.detections, json_number(per_megapixel, backgrounds.megapixels > 0).c_str(),
                        static_cast<unsigned long long>(backgrounds.stats.windows),
                        static_cast<unsigned long long>(backgrounds.stats.weak_evaluated),
                        json_number(weak_per_window, backgrounds.stats.windows > 0).c_str());
        } else {
            std::printf("classifier: %s (label %s, window %dx%d, %zu weak classifiers)\n",
                        printable(o.classifier).c_str(), printable(classifier.label).c_str(), classifier.window_width,
                        classifier.window_height, classifier.weak.size());
            const std::string grouping_text = params.grouping == waldboost::Grouping::OpenCv ? "OpenCV grouping"
                                              : params.grouping == waldboost::Grouping::Nms
                                                  ? "NMS grouping at IoU " + std::to_string(o.nms_iou).substr(0, 4)
                                                  : "no grouping";
            std::printf("settings: scale factor %g, min neighbours %d, min size %dx%d, stride %s, %s, "
                        "final threshold %g%s; found at IoU >= %g\n",
                        o.scale_factor, o.min_neighbors, min_size.width, min_size.height, stride_text.c_str(),
                        grouping_text.c_str(), static_cast<double>(final_threshold),
                        params.final_threshold ? "" : " (the classifier's)", o.iou);
            if (o.objects)
                std::printf("objects: %zu in %zu images, found %zu: detection rate %.1f%% (mean IoU %.2f); %zu other "
                            "detections in those images (%.3f megapixels): %.2f per megapixel\n",
                            objects.objects, objects.images, objects.found, 100.0 * rate,
                            ratio(objects.iou_sum, static_cast<double>(objects.found)), objects.other_detections,
                            objects.megapixels, other_per_megapixel);
            if (o.backgrounds)
                std::printf("backgrounds: %zu images, %.3f megapixels, %zu false positives: %.2f per megapixel\n"
                            "weak classifiers per window: %.3f (%llu windows, %llu weak classifiers evaluated)\n",
                            backgrounds.images, backgrounds.megapixels, backgrounds.detections, per_megapixel,
                            weak_per_window, static_cast<unsigned long long>(backgrounds.stats.windows),
                            static_cast<unsigned long long>(backgrounds.stats.weak_evaluated));
        }
    } catch (const waldboost::Error& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, printable(e.what(), 4000).c_str());
        return e.kind() == waldboost::ErrorKind::BadParameter && std::strstr(e.what(), "scale factor") ? 2 : 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, printable(e.what(), 4000).c_str());
        return 1;
    }
    return 0;
}
