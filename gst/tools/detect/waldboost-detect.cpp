/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-detect: runs the core detector on image files and prints the
 * detections as JSON; optionally writes a copy of the image with boxes.
 * Images are decoded with gdk-pixbuf (PNG, JPEG, PNM, ...).
 */
#include <gdk-pixbuf/gdk-pixbuf.h>

#include <algorithm>
#include <cstdarg>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cerrno>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/embedded/default_classifier.h"
#include "core/opencl/settings/detector_settings.h"
#include "core/opencl/engine/engine.h"
#include "core/reference/detector.h"
#include "core/text.h"
#include "tools/common/grouping_option.h"
#include "tools/common/command_line.h"
#include "tools/common/image_file.h"
#include "tools/common/json_text.h"

namespace {

using waldboost::Detection;

struct Options {
    gchar* classifier = nullptr;
    gdouble scale_factor = 1.1;
    gint min_neighbors = 3;
    gchar* min_size = nullptr;
    gchar* max_size = nullptr;
    gint stride = 0;
    gchar* grouping = nullptr;
    gdouble nms_iou = 0.3;
    gdouble threshold = 0.0;
    gboolean threshold_set = FALSE;
    gdouble min_confidence = 0.0;
    gchar* annotate = nullptr;
    gboolean stats = FALSE;
    gchar* device = nullptr;
    gint repeat = 1;
    gint max_windows = waldboost::kDefaultMaxWindows;
    gint max_megapixels = waldboost::tools::kDefaultMaxMegapixels;
    gchar** images = nullptr;

    Options() = default;
    Options(const Options&) = delete;
    Options& operator=(const Options&) = delete;
    /* What GOption allocated, freed at every return (LeakSanitizer checks
     * the tools' exits too). */
    ~Options()
    {
        for (gchar* text : {classifier, min_size, max_size, grouping, annotate, device})
            g_free(text);
        g_strfreev(images);
    }
};

using waldboost::printable;
using waldboost::tools::PixbufPtr;

using waldboost::tools::json_string;

/* printf to the end of `out`. The JSON document is built whole before any
 * of it is written: a run that fails half way prints nothing on stdout. */
G_GNUC_PRINTF(2, 3) void append(std::string* out, const char* format, ...)
{
    va_list args;
    va_start(args, format);
    gchar* text = g_strdup_vprintf(format, args);
    va_end(args);
    *out += text;
    g_free(text);
}

/* A side of WIDTHxHEIGHT: decimal digits only, at most an int. */
bool parse_side(const char* begin, const char* end, int* side)
{
    if (begin == end)
        return false;
    long long value = 0;
    for (const char* c = begin; c != end; ++c) {
        if (*c < '0' || *c > '9')
            return false;
        value = value * 10 + (*c - '0');
        if (value > std::numeric_limits<int>::max())
            return false;
    }
    *side = static_cast<int>(value);
    return true;
}

/* A whole size, kept as written (a side of 0 included). */
bool parse_size(const char* text, waldboost::opencl::ObjectSize* size)
{
    if (!text)
        return true;
    const char* x = std::strchr(text, 'x');
    int w = 0, h = 0;
    if (!x || !parse_side(text, x, &w) || !parse_side(x + 1, x + std::strlen(x), &h))
        return false;
    *size = {w, h};
    return true;
}

gboolean on_threshold(const gchar*, const gchar* value, gpointer data, GError** error)
{
    auto* options = static_cast<Options*>(data);
    char* end = nullptr;
    options->threshold = g_ascii_strtod(value, &end);
    if (!end || *end != '\0' || !std::isfinite(options->threshold)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--threshold needs a number, not '%s'", value);
        return FALSE;
    }
    options->threshold_set = TRUE;
    return TRUE;
}

void draw_boxes(GdkPixbuf* pixbuf, const std::vector<Detection>& detections)
{
    const int w = gdk_pixbuf_get_width(pixbuf);
    const int h = gdk_pixbuf_get_height(pixbuf);
    const int channels = gdk_pixbuf_get_n_channels(pixbuf);
    const int stride = gdk_pixbuf_get_rowstride(pixbuf);
    guint8* pixels = gdk_pixbuf_get_pixels(pixbuf);
    auto plot = [&](int x, int y) {
        if (x < 0 || y < 0 || x >= w || y >= h)
            return;
        guint8* p = pixels + static_cast<size_t>(y) * stride + static_cast<size_t>(x) * channels;
        p[0] = 0;
        p[1] = 255;
        p[2] = 0;
    };
    constexpr int kLineWidth = 2;
    for (const Detection& d : detections) {
        const waldboost::Rect& r = d.rect;
        for (int t = 0; t < kLineWidth; ++t) {
            for (int x = r.x; x < r.x + r.width; ++x) {
                plot(x, r.y + t);
                plot(x, r.y + r.height - 1 - t);
            }
            for (int y = r.y; y < r.y + r.height; ++y) {
                plot(r.x + t, y);
                plot(r.x + r.width - 1 - t, y);
            }
        }
    }
}

}  // namespace

int main(int argc, char** argv)
{
    Options options;
    const GOptionEntry entries[] = {
        {"classifier", 'c', 0, G_OPTION_ARG_FILENAME, &options.classifier,
         "WaldBoost XML or OpenCV LBP or Haar cascade (default: the embedded frontal-face classifier)", "FILE"},
        {"scale-factor", 's', 0, G_OPTION_ARG_DOUBLE, &options.scale_factor, "Pyramid step, > 1 (default 1.1)", "F"},
        {"min-neighbors", 'n', 0, G_OPTION_ARG_INT, &options.min_neighbors,
         "A detection needs more than N raw windows (default 3; 0 = no grouping)", "N"},
        {"min-size", 0, 0, G_OPTION_ARG_STRING, &options.min_size, "Smallest object (default: the classifier window)",
         "WxH"},
        {"max-size", 0, 0, G_OPTION_ARG_STRING, &options.max_size, "Largest object (default: the image)", "WxH"},
        {"stride", 0, 0, G_OPTION_ARG_INT, &options.stride, "Window step in pixels (default 0 = OpenCV's rule)", "N"},
        {"grouping", 'g', 0, G_OPTION_ARG_STRING, &options.grouping, "opencv (default), nms or none", "KIND"},
        {"nms-iou", 0, 0, G_OPTION_ARG_DOUBLE, &options.nms_iou, "IoU above which NMS merges windows (default 0.3)",
         "F"},
        {"threshold", 't', 0, G_OPTION_ARG_CALLBACK, reinterpret_cast<gpointer>(on_threshold),
         "Final score threshold (default: the classifier's)", "F"},
        {"min-confidence", 0, 0, G_OPTION_ARG_DOUBLE, &options.min_confidence,
         "Drop detections whose confidence is below F, 0 to 1 (default 0: keep all)", "F"},
        {"annotate", 'a', 0, G_OPTION_ARG_FILENAME, &options.annotate,
         "Write the (first) image with green boxes to this PNG file", "OUT.png"},
        {"stats", 0, 0, G_OPTION_ARG_NONE, &options.stats, "Add windows and weak classifiers evaluated", nullptr},
        {"device", 'd', 0, G_OPTION_ARG_STRING, &options.device,
         "Detect with the OpenCL engine on this device: auto, gpu, cpu, accelerator, P:D or a name "
         "(default: the CPU reference detector)",
         "SPEC"},
        {"max-windows", 0, 0, G_OPTION_ARG_INT, &options.max_windows,
         "Keep at most N accepted windows per image, the first in scan order (default 100000; 0 = no limit)", "N"},
        {"repeat", 'r', 0, G_OPTION_ARG_INT, &options.repeat, "Run each detection N times and report the median time",
         "N"},
        {"max-megapixels", 0, 0, G_OPTION_ARG_INT, &options.max_megapixels,
         "Refuse an image whose header declares more than N megapixels, before decoding it (default 100)", "N"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &options.images, nullptr, "IMAGE..."},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};

    GOptionContext* context = g_option_context_new("IMAGE... - detect objects and print them as JSON");
    if (const auto error = waldboost::tools::parse_command_line(context, entries, &options, &argc, &argv, true)) {
        std::fprintf(stderr, "waldboost-detect: %s (see --help)\n", printable(*error, 1000).c_str());
        return 2;
    }
    if (!options.images || !options.images[0]) {
        std::fprintf(stderr, "waldboost-detect: no image given (see --help)\n");
        return 2;
    }

    /* Every number is checked here, with the option's name: what the
     * library would refuse later, or silently misread (NaN, a negative
     * count), is a usage error. */
    auto usage_error = [](const char* message) {
        std::fprintf(stderr, "waldboost-detect: %s (see --help)\n", message);
        return 2;
    };
    if (!std::isfinite(options.scale_factor) || !(options.scale_factor > 1.0))
        return usage_error("--scale-factor must be a finite number above 1 (1.1 is usual)");
    if (options.min_neighbors < 0)
        return usage_error("--min-neighbors must be 0 (no grouping) or more");
    if (options.stride < 0)
        return usage_error("--stride must be 0 (OpenCV's rule) or a positive number of pixels");
    if (!std::isfinite(options.nms_iou) || options.nms_iou < 0.0 || options.nms_iou > 1.0)
        return usage_error("--nms-iou must be a number from 0 to 1");
    if (options.repeat < 1)
        return usage_error("--repeat must be 1 or more");
    if (options.max_windows < 0)
        return usage_error("--max-windows must be 0 (no limit) or a positive number");
    if (options.max_megapixels < 1)
        return usage_error("--max-megapixels must be 1 or more");
    if (options.threshold_set && !std::isfinite(static_cast<float>(options.threshold)))
        return usage_error("--threshold is out of range");
    if (!(options.min_confidence >= 0.0 && options.min_confidence <= 1.0))
        return usage_error("--min-confidence must be a number from 0 to 1");

    waldboost::opencl::DetectorSettings settings;
    settings.scale_factor = options.scale_factor;
    settings.min_neighbors = options.min_neighbors;
    settings.stride = options.stride;
    settings.nms_iou = options.nms_iou;
    settings.max_windows = options.max_windows;
    settings.min_confidence = options.min_confidence;
    if (options.threshold_set)
        settings.final_threshold = options.threshold;
    if (!parse_size(options.min_size, &settings.min_size) || !parse_size(options.max_size, &settings.max_size)) {
        return usage_error("--min-size and --max-size are written WIDTHxHEIGHT, each side from 0 to 2147483647, "
                           "e.g. 48x48");
    }
    const std::string grouping = options.grouping ? options.grouping : "opencv";
    if (const auto kind = waldboost::tools::parse_grouping(grouping))
        settings.grouping = *kind;
    else {
        std::fprintf(stderr, "waldboost-detect: --grouping is opencv, nms or none, not '%s'\n",
                     printable(grouping).c_str());
        return 2;
    }
    if (options.device)
        settings.device = options.device;
    settings.profiling = true; /* --stats shows the kernel times */

    try {
        waldboost::Classifier loaded;
        if (options.classifier)
            loaded = waldboost::load_classifier_file(options.classifier);
        const waldboost::Classifier& classifier = options.classifier ? loaded : waldboost::default_classifier();
        const waldboost::opencl::DetectorParameters resolved =
            waldboost::opencl::resolve_settings(settings, classifier);
        const waldboost::DetectParams& params = resolved.detect;
        std::unique_ptr<waldboost::opencl::Engine> engine;
        if (options.device) {
            engine = std::make_unique<waldboost::opencl::Engine>(classifier, resolved.engine);
            const auto& build = engine->build_report();
            std::fprintf(stderr, "waldboost-detect: OpenCL engine on %s; kernels %s in %.1f ms\n",
                         waldboost::opencl::describe(engine->device()).c_str(),
                         build.cache_hit ? "loaded from the cache" : "built from source", build.milliseconds);
        }

        std::string json;
        append(&json, "{\n  \"classifier\": {\"label\": %s, \"source\": %s, \"window\": [%d, %d], \"weak\": %zu},\n",
               json_string(classifier.label).c_str(),
               json_string(options.classifier ? options.classifier : "embedded").c_str(), classifier.window_width,
               classifier.window_height, classifier.weak.size());
        append(&json, "  \"images\": [");
        int failures = 0, written = 0;
        for (int i = 0; options.images[i]; ++i) {
            const char* path = options.images[i];
            PixbufPtr pixbuf;
            try {
                pixbuf = waldboost::tools::load_pixbuf(path, static_cast<uint64_t>(options.max_megapixels) * 1000000);
            } catch (const waldboost::Error& e) {
                std::fprintf(stderr, "waldboost-detect: %s\n", e.what());
                ++failures;
                continue;
            }
            const waldboost::GrayImage gray = waldboost::tools::pixbuf_to_gray(pixbuf.get());
            /* --repeat runs the detection several times and reports the
             * median wall time: the first run pays for allocations. */
            waldboost::DetectStats stats;
            std::vector<Detection> detections;
            std::vector<double> times;
            std::string kernel_times;
            for (int run = 0; run < std::max(1, options.repeat); ++run) {
                stats = {};
                const auto start = std::chrono::steady_clock::now();
                if (engine) {
                    waldboost::opencl::FrameResult result = engine->detect(gray.view(), params);
                    detections = std::move(result.detections);
                    stats.windows = result.stats.windows;
                    stats.weak_evaluated = result.stats.weak_evaluated;
                    stats.cut = result.stats.cut;
                    kernel_times.clear();
                    for (const auto& k : result.stats.kernels) {
                        char item[96];
                        std::snprintf(item, sizeof item, "%s\"%s\": %.3f", kernel_times.empty() ? "" : ", ",
                                      k.name.c_str(), k.milliseconds);
                        kernel_times += item;
                    }
                } else {
                    detections = waldboost::detect(classifier, gray.view(), params, &stats);
                }
                times.push_back(
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
            }
            std::sort(times.begin(), times.end());
            const double ms = times[times.size() / 2];
            if (stats.cut > 0)
                std::fprintf(stderr,
                             "waldboost-detect: %s: the classifier accepted %llu windows more than --max-windows=%d; "
                             "they were left out (a stricter classifier or --threshold, a larger --min-size or "
                             "--max-windows keeps them)\n",
                             printable(path).c_str(), static_cast<unsigned long long>(stats.cut), options.max_windows);

            /* Images that could not be read have no entry: the comma goes
             * by the entries written. */
            append(&json, "%s\n    {\"file\": %s, \"width\": %d, \"height\": %d, \"milliseconds\": %.1f,",
                   written++ ? "," : "", json_string(path).c_str(), gray.width, gray.height, ms);
            if (options.stats) {
                append(&json, " \"windows\": %llu, \"weak_evaluated\": %llu, \"windows_cut\": %llu,",
                       static_cast<unsigned long long>(stats.windows),
                       static_cast<unsigned long long>(stats.weak_evaluated),
                       static_cast<unsigned long long>(stats.cut));
                if (!kernel_times.empty())
                    append(&json, "\n     \"kernel_milliseconds\": {%s},", kernel_times.c_str());
            }
            append(&json, "\n     \"detections\": [");
            for (size_t k = 0; k < detections.size(); ++k) {
                const Detection& d = detections[k];
                append(&json,
                       "%s\n       {\"label\": %s, \"x\": %d, \"y\": %d, \"width\": %d, \"height\": %d, "
                       "\"neighbors\": %d, \"score\": %.4f, \"confidence\": %.3f}",
                       k ? "," : "", json_string(classifier.label).c_str(), d.rect.x, d.rect.y, d.rect.width,
                       d.rect.height, d.neighbors, d.score, d.confidence);
            }
            append(&json, "%s]}", detections.empty() ? "" : "\n     ");

            if (options.annotate && i == 0) {
                PixbufPtr rgb(gdk_pixbuf_add_alpha(pixbuf.get(), FALSE, 0, 0, 0));
                draw_boxes(rgb.get(), detections);
                GError* save_error = nullptr;
                if (!gdk_pixbuf_save(rgb.get(), options.annotate, "png", &save_error, nullptr)) {
                    std::fprintf(stderr, "waldboost-detect: %s: %s\n", printable(options.annotate).c_str(),
                                 printable(save_error->message, 1000).c_str());
                    g_error_free(save_error);
                    ++failures;
                }
            }
        }
        append(&json, "\n  ]\n}\n");
        if (std::fwrite(json.data(), 1, json.size(), stdout) != json.size() || std::fflush(stdout) != 0) {
            std::fprintf(stderr, "waldboost-detect: writing the JSON to stdout failed: %s\n", g_strerror(errno));
            return 1;
        }
        return failures ? 1 : 0;
    } catch (const waldboost::Error& e) {
        std::fprintf(stderr, "waldboost-detect: %s\n", printable(e.what(), 4000).c_str());
        /* A parameter the library refuses (a scale factor so close to 1
         * that the pyramid has too many levels) is a usage error too. */
        return e.kind() == waldboost::ErrorKind::BadParameter ? 2 : 1;
    }
}
