/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-bench: times, in one run on the same frames, classifier and
 * settings, the OpenCL engine (single-frame latency and throughput with
 * frames in flight) and, when built with OpenCV, OpenCV's
 * CascadeClassifier::detectMultiScale on a Mat (CPU) and on a UMat (its
 * OpenCL path). Prints a markdown table and writes JSON.
 *
 * Frames are real images (given on the command line) resized to each
 * benchmark size with the core's bit-exact resize.
 */
#include <glib.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/opencl/settings/detector_settings.h"
#include "core/opencl/engine/engine.h"
#include "core/opencl/tuning/throughput.h"
#include "core/opencl/tuning/tuner.h"
#include "tools/common/image_file.h"

#ifdef HAVE_OPENCV
#include <opencv2/core/ocl.hpp>
#include <opencv2/objdetect.hpp>
#endif

namespace {

using Clock = std::chrono::steady_clock;
using waldboost::GrayImage;

double ms_since(Clock::time_point start)
{
    return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double median(std::vector<double> v)
{
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

/* Where the device's time goes with frames in flight, from the profiled
 * throughput run's kernel and transfer times on the device clock: per
 * frame, the span from the first kernel to the last, the time some kernel
 * ran, and the time two or more ran at once (frames overlapping). */
struct Timeline {
    double span_ms = 0, busy_ms = 0, concurrent_ms = 0, upload_ms = 0;
    int frames = 0;
};

Timeline summarize_timeline(const std::vector<waldboost::opencl::FrameStats>& frames)
{
    std::vector<std::pair<uint64_t, int>> edges; /* +1 at a kernel's start, -1 at its end */
    Timeline t;
    for (const auto& f : frames) {
        for (const auto& k : f.kernels) {
            edges.emplace_back(k.start_ns, 1);
            edges.emplace_back(k.end_ns, -1);
        }
        for (const auto& x : f.transfers)
            if (x.name == "upload")
                t.upload_ms += x.milliseconds;
    }
    if (edges.empty())
        return t;
    std::sort(edges.begin(), edges.end());
    int running = 0;
    uint64_t busy = 0, concurrent = 0;
    for (size_t i = 0; i + 1 < edges.size(); ++i) {
        running += edges[i].second;
        const uint64_t length = edges[i + 1].first - edges[i].first;
        busy += running > 0 ? length : 0;
        concurrent += running > 1 ? length : 0;
    }
    t.frames = static_cast<int>(frames.size());
    const double n = std::max(1, t.frames);
    t.span_ms = static_cast<double>(edges.back().first - edges.front().first) * 1e-6 / n;
    t.busy_ms = static_cast<double>(busy) * 1e-6 / n;
    t.concurrent_ms = static_cast<double>(concurrent) * 1e-6 / n;
    t.upload_ms /= n;
    return t;
}

/* The same frames as a Chrome trace (chrome://tracing, Perfetto): one row
 * per slot of frames in flight, times in microseconds from the first. */
bool write_trace(const std::string& path, const std::vector<waldboost::opencl::FrameStats>& frames, int inflight)
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    uint64_t origin = UINT64_MAX;
    for (const auto& s : frames)
        for (const auto* list : {&s.kernels, &s.transfers})
            for (const auto& k : *list)
                origin = std::min(origin, k.start_ns);
    std::fprintf(f, "{\"traceEvents\": [\n");
    bool first = true;
    for (size_t i = 0; i < frames.size(); ++i)
        for (const auto* list : {&frames[i].kernels, &frames[i].transfers})
            for (const auto& k : *list) {
                std::fprintf(f,
                             "%s{\"name\": \"%s\", \"ph\": \"X\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
                             "\"dur\": %.3f, \"args\": {\"frame\": %zu}}",
                             first ? "" : ",\n", k.name.c_str(), static_cast<int>(i % std::max(1, inflight)),
                             static_cast<double>(k.start_ns - origin) * 1e-3,
                             static_cast<double>(k.end_ns - k.start_ns) * 1e-3, i);
                first = false;
            }
    std::fprintf(f, "\n]}\n");
    return std::fclose(f) == 0;
}

struct Row {
    std::string classifier;
    std::string reduction; /* "rows" (the row scan), or the reduction parameters as --reduction takes them */
    int width = 0, height = 0;
    double engine_latency_ms = 0;             /* one frame at a time, wall clock */
    double engine_throughput_ms = 0;          /* per frame with frames in flight, profiling off */
    double engine_throughput_profiled_ms = 0; /* the same with OpenCL profiling on */
    double submit_ms = 0;                     /* host time per frame in submit() (copy, enqueue), profiling off */
    double engine_device_ms = 0;              /* first kernel start to last kernel end */
    Timeline timeline;                        /* of the profiled run with frames in flight */
    std::map<std::string, double> kernels;
    std::vector<double> lists; /* candidates after step 1 and each step 2 (median of the frames that had it) */
    /* Step-2 launches a frame had, fewest and most: they follow the lists
     * unless --reduction is given (docs/engine.md, Parameters). */
    int step2_fewest = -1, step2_most = -1;
    double weak_per_window = 0;
    double windows = 0;
    double weak_evaluated = 0;
    double opencv_mat_ms = -1;
    double opencv_umat_ms = -1;
    int detections = 0;
    int opencv_detections = -1;
};

std::string fmt(double v, const char* f = "%.2f")
{
    if (v < 0)
        return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

/* What the command line asks for. */
struct Options {
    std::vector<std::string> classifier_paths;
    std::vector<std::string> images;
    std::vector<waldboost::Size> sizes;
    int runs = 5;
    int inflight = 3;
    bool opencv = true; /* time OpenCV on a Mat */
    bool umat = true;   /* and on a UMat */
    bool tune = false;
    std::optional<std::string> json_path;
    std::optional<std::string> trace_dir;
    /* The engine's: device, frames in flight, stride, scan, reduction overrides. */
    waldboost::opencl::DetectorSettings engine;
};

/* --sizes: WIDTHxHEIGHT items, each side 1 to 65535; nullopt (after saying
 * why) when one is malformed. */
std::optional<std::vector<waldboost::Size>> parse_sizes(const std::string& text)
{
    std::vector<waldboost::Size> sizes;
    /* Every item counts, also an empty one after a stray comma. */
    for (size_t pos = 0; !text.empty() && pos <= text.size();) {
        const size_t comma = text.find(',', pos);
        const std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        /* Decimal digits only, each side from 1 to 65535: sscanf's %d
         * would take "99999999999" (undefined) and "64x48junk". */
        int w = 0, h = 0;
        const size_t x = item.find('x');
        auto side = [&](const std::string& digits, int* out) {
            if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
                return false;
            *out = std::stoi(digits);
            return *out >= 1 && *out <= 65535;
        };
        if (x == std::string::npos || !side(item.substr(0, x), &w) || !side(item.substr(x + 1), &h)) {
            std::fprintf(stderr, "waldboost-bench: --sizes: bad size '%s' (WIDTHxHEIGHT, each side 1 to 65535)\n",
                         item.c_str());
            return std::nullopt;
        }
        sizes.push_back({w, h});
        pos = comma == std::string::npos ? text.size() + 1 : comma + 1;
    }
    return sizes;
}

/* Reads the command line into `out`; 0, or the exit status after saying
 * what is wrong. */
int parse_arguments(int argc, char** argv, Options* out)
{
    g_auto(GStrv) classifiers = nullptr;
    g_autofree gchar* device = nullptr;
    g_autofree gchar* sizes_text = nullptr;
    g_autofree gchar* json_path = nullptr;
    g_autofree gchar* reduction_text = nullptr;
    g_autofree gchar* scan_text = nullptr;
    g_autofree gchar* trace_dir = nullptr;
    gint runs = 5;
    gint inflight = 3;
    gint stride = 0;
    gboolean no_opencv = FALSE, no_umat = FALSE, tune = FALSE;
    g_auto(GStrv) images = nullptr;
    const std::string reduction_help =
        "Reduction parameters instead of the tuned or default ones: all of them as comma-separated numbers in the "
        "order " +
        waldboost::opencl::reduction_names() +
        " (as the results print them), or some as name=value pairs (e.g. group-size=128,step2-unsync=64) that "
        "replace those values of the tuned or default parameters";
    const GOptionEntry entries[] = {
        {"classifier", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &classifiers,
         "OpenCV LBP or Haar cascade, or WaldBoost XML (repeatable; default: lbpcascade_frontalface and "
         "lbpcascade_frontalface_improved from /usr/share/opencv4/lbpcascades)",
         "FILE"},
        {"device", 'd', 0, G_OPTION_ARG_STRING, &device, "OpenCL device for the engine (default auto)", "SPEC"},
        {"sizes", 's', 0, G_OPTION_ARG_STRING, &sizes_text,
         "Frame sizes (default 640x480,1280x720,1920x1080,3840x2160)", "WxH,..."},
        {"runs", 'n', 0, G_OPTION_ARG_INT, &runs, "Passes over the frames per measurement (default 5)", "N"},
        {"inflight", 'i', 0, G_OPTION_ARG_INT, &inflight, "Frames in flight for the throughput figure (default 3)",
         "N"},
        {"stride", 0, 0, G_OPTION_ARG_INT, &stride,
         "Pixels between windows at every scale (default 0: OpenCV's rule, 2 below scale 2 and 1 above); "
         "OpenCV has no such setting, so another stride needs --no-opencv",
         "N"},
        {"reduction", 'r', 0, G_OPTION_ARG_STRING, &reduction_text, reduction_help.c_str(), "PARAMS"},
        {"scan", 0, 0, G_OPTION_ARG_STRING, &scan_text,
         "How the engine scans: auto (rows on CPU devices, the reduction elsewhere), rows or reduction "
         "(default auto; reduction when --reduction is given)",
         "METHOD"},
        {"json", 'j', 0, G_OPTION_ARG_FILENAME, &json_path, "Write the results as JSON to this file", "FILE"},
        {"trace", 0, 0, G_OPTION_ARG_FILENAME, &trace_dir,
         "Write the profiled run with frames in flight of every classifier and size as a Chrome trace "
         "(trace-CLASSIFIER-WxH.json) into this folder",
         "DIR"},
        {"no-opencv", 0, 0, G_OPTION_ARG_NONE, &no_opencv, "Do not time OpenCV", nullptr},
        {"no-umat", 0, 0, G_OPTION_ARG_NONE, &no_umat, "Do not time OpenCV on a UMat", nullptr},
        {"tune", 't', 0, G_OPTION_ARG_NONE, &tune,
         "Tune the reduction parameters for the device and each classifier on the frames (at the first size), "
         "save them in the cache (used by default from then on), and stop",
         nullptr},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &images, nullptr, "IMAGE..."},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
    /* Freed at every return (LeakSanitizer checks the tools' exits too). */
    g_autoptr(GOptionContext) context = g_option_context_new("IMAGE... - benchmark the engine against OpenCV");
    g_option_context_add_main_entries(context, entries, nullptr);
    g_autoptr(GError) error = nullptr;
    if (!g_option_context_parse(context, &argc, &argv, &error)) {
        std::fprintf(stderr, "waldboost-bench: %s\n", error->message);
        return 2;
    }
    if (!images || !images[0]) {
        std::fprintf(stderr, "waldboost-bench: give at least one image (e.g. build/testdata/messi5.jpg)\n");
        return 2;
    }
    for (int i = 0; images[i]; ++i)
        out->images.emplace_back(images[i]);

    if (classifiers)
        for (int i = 0; classifiers[i]; ++i)
            out->classifier_paths.emplace_back(classifiers[i]);
    if (out->classifier_paths.empty())
        out->classifier_paths = {"/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml",
                                 "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface_improved.xml"};
    const auto sizes = parse_sizes(sizes_text ? sizes_text : "640x480,1280x720,1920x1080,3840x2160");
    if (!sizes)
        return 2;
    if (sizes->empty()) {
        std::fprintf(stderr, "waldboost-bench: --sizes needs at least one WIDTHxHEIGHT\n");
        return 2;
    }
    out->sizes = *sizes;
    if (runs < 1) {
        std::fprintf(stderr, "waldboost-bench: --runs must be 1 or more\n");
        return 2;
    }
    if (inflight < 1 || inflight > 16) {
        std::fprintf(stderr, "waldboost-bench: --inflight must be 1 to 16 (the engine's limit)\n");
        return 2;
    }
    out->runs = runs;
    out->inflight = inflight;
#ifndef HAVE_OPENCV
    no_opencv = TRUE;
#endif
    out->opencv = !no_opencv;
    out->umat = !no_umat;
    out->tune = tune;
    if (json_path)
        out->json_path = json_path;
    if (trace_dir)
        out->trace_dir = trace_dir;

    waldboost::opencl::DetectorSettings& engine = out->engine;
    engine.device = device ? device : "auto";
    engine.max_inflight = inflight;
    /* Kernel times for the latency figures and the timeline; the
     * throughput figure comes from a copy of the engine without them. */
    engine.profiling = true;
    /* Applied per classifier, on top of its tuned or default parameters. */
    if (reduction_text) {
        try {
            engine.reduction = waldboost::opencl::parse_reduction_overrides(reduction_text);
        } catch (const waldboost::Error& e) {
            std::fprintf(stderr, "waldboost-bench: --reduction: %s\n", e.what());
            return 2;
        }
    }
    if (scan_text) {
        const std::string text = scan_text;
        if (text == "auto")
            engine.scan = waldboost::opencl::ScanMethod::Auto;
        else if (text == "rows")
            engine.scan = waldboost::opencl::ScanMethod::Rows;
        else if (text == "reduction")
            engine.scan = waldboost::opencl::ScanMethod::Reduction;
        else {
            std::fprintf(stderr, "waldboost-bench: --scan must be auto, rows or reduction, not '%s'\n", scan_text);
            return 2;
        }
    }
    if (stride < 0 || (stride != 0 && !no_opencv && !tune)) {
        std::fprintf(stderr, "waldboost-bench: --stride must be 0 or more, and other than 0 only with --no-opencv "
                             "(OpenCV always scans by its own rule)\n");
        return 2;
    }
    engine.stride = stride;
    return 0;
}

/* The source images stretched to `size` with the core's bit-exact resize. */
std::vector<GrayImage> frames_at(const std::vector<GrayImage>& sources, waldboost::Size size)
{
    std::vector<GrayImage> frames;
    for (const GrayImage& src : sources)
        frames.push_back(waldboost::resize_bilinear(src.view(), size));
    return frames;
}

std::vector<waldboost::GrayView> views_of(const std::vector<GrayImage>& frames)
{
    std::vector<waldboost::GrayView> views;
    for (const GrayImage& f : frames)
        views.push_back(f.view());
    return views;
}

/* --tune: tunes the reduction for every classifier at the first size and
 * saves the result in the tuning cache. */
void tune(const Options& options, const std::vector<GrayImage>& sources)
{
    const std::string& spec = options.engine.device;
    const waldboost::Size size = options.sizes.front();
    for (const std::string& path : options.classifier_paths) {
        const waldboost::Classifier classifier = waldboost::load_classifier_file(path);
        const std::vector<GrayImage> frames = frames_at(sources, size);
        std::printf("Tuning %s on %s at %dx%d (ms per frame with %d in flight, profiling off, median of %d "
                    "streams):\n",
                    path.c_str(), spec.c_str(), size.width, size.height, options.inflight, options.runs);
        std::printf("  (%s)\n", waldboost::opencl::reduction_names().c_str());
        /* With the default detection parameters, as the tuner always has
         * been run (--stride does not apply). */
        const auto result = waldboost::opencl::tune_reduction(
            classifier, spec, views_of(frames), waldboost::DetectParams{}, options.runs,
            [](const waldboost::opencl::TuningTrial& t) {
                std::printf("  %s: %.3f ms\n", waldboost::opencl::to_string(t.params).c_str(), t.ms);
                std::fflush(stdout);
            },
            0, options.inflight);
        const auto selected = waldboost::opencl::select_device(spec);
        const std::string file = waldboost::opencl::save_tuned_reduction(
            waldboost::opencl::tuning_key(selected.info, classifier), result.best);
        std::printf("best %s: %.3f ms (defaults %.3f ms), saved to %s\n",
                    waldboost::opencl::to_string(result.best).c_str(), result.best_ms, result.default_ms, file.c_str());
        if (selected.info.type == "CPU")
            std::printf("note: CPU devices scan by rows by default; these parameters apply with "
                        "--scan reduction\n");
        std::printf("\n");
    }
}

/* Latency: one frame at a time (after a warm-up pass), with the engine's
 * statistics of each frame (profiling on). */
void time_latency(waldboost::opencl::Engine& engine, const std::vector<GrayImage>& frames,
                  const waldboost::DetectParams& params, int runs, Row& row)
{
    std::vector<double> latency, device_ms, weak, windows, evaluated;
    std::vector<std::vector<double>> lists;
    std::map<std::string, std::vector<double>> kernels;
    for (int run = -1; run < runs; ++run) {
        for (const GrayImage& f : frames) {
            const auto start = Clock::now();
            const auto result = engine.detect(f.view(), params);
            const double ms = ms_since(start);
            if (run < 0)
                continue;
            latency.push_back(ms);
            device_ms.push_back(result.stats.device_milliseconds);
            weak.push_back(result.stats.weak_per_window);
            windows.push_back(static_cast<double>(result.stats.windows));
            evaluated.push_back(static_cast<double>(result.stats.weak_evaluated));
            const auto& after = result.stats.candidates_after_step;
            if (!after.empty()) {
                const int launches = static_cast<int>(after.size()) - 1;
                row.step2_fewest = row.step2_fewest < 0 ? launches : std::min(row.step2_fewest, launches);
                row.step2_most = std::max(row.step2_most, launches);
            }
            lists.resize(std::max(lists.size(), after.size()));
            for (size_t i = 0; i < after.size(); ++i)
                lists[i].push_back(static_cast<double>(after[i]));
            std::map<std::string, int> seen;
            for (const auto& k : result.stats.kernels) {
                const int n = seen[k.name]++;
                kernels[n ? k.name + "#" + std::to_string(n + 1) : k.name].push_back(k.milliseconds);
            }
            row.detections = static_cast<int>(result.detections.size());
        }
    }
    row.engine_latency_ms = median(latency);
    row.engine_device_ms = median(device_ms);
    row.weak_per_window = median(weak);
    row.windows = median(windows);
    row.weak_evaluated = median(evaluated);
    for (auto& [k, v] : kernels)
        row.kernels[k] = median(v);
    for (const auto& v : lists)
        row.lists.push_back(median(v));
}

/* Throughput: keep the engine's frames in flight for at least 120 frames
 * and 200 ms (after a warm-up pass); the median of `runs` such stretches,
 * in ms per frame. `traced` (when given) gets the last stretch's frame
 * statistics, `submit_ms` the host time per frame in submit(). */
double time_throughput(waldboost::opencl::Engine& engine, const std::vector<waldboost::GrayView>& frames,
                       const waldboost::DetectParams& params, int runs, double* submit_ms,
                       std::vector<waldboost::opencl::FrameStats>* traced)
{
    waldboost::opencl::warm_up(engine, frames, params);
    const int last = std::max(1, runs) - 1;
    const auto measured =
        waldboost::opencl::measure_throughput(engine, frames, params, runs, waldboost::opencl::RunLength{120, 200},
                                              [&](int run, size_t, waldboost::opencl::FrameResult& result) {
                                                  if (traced && run == last)
                                                      traced->push_back(std::move(result.stats));
                                              });
    if (submit_ms)
        *submit_ms = measured.submit_ms;
    return median(measured.ms_per_frame);
}

#ifdef HAVE_OPENCV
/* OpenCV's detectMultiScale on `images` (Mats or UMats), in ms per frame:
 * each pass's mean over the images, the median of `runs` passes after a
 * warm-up pass. The engine's throughput is a mean over its frames too, so
 * that "vs Mat" compares like with like when the frames' costs differ (a
 * median over single frames would leave out the costly ones that the
 * engine's mean counts). `detections` (when given) gets the last frame's
 * count. */
template <typename Image>
double time_detect_multi_scale(cv::CascadeClassifier& opencv, const std::vector<Image>& images, cv::Size window,
                               int runs, int* detections)
{
    std::vector<double> per_pass;
    for (int run = -1; run < runs; ++run) {
        const auto start = Clock::now();
        for (const Image& image : images) {
            std::vector<cv::Rect> found;
            opencv.detectMultiScale(image, found, 1.1, 3, 0, window);
            if (detections)
                *detections = static_cast<int>(found.size());
        }
        if (run >= 0)
            per_pass.push_back(ms_since(start) / static_cast<double>(images.size()));
    }
    return median(per_pass);
}

/* OpenCV's detectMultiScale on the same frames with the engine's default
 * settings (scale 1.1, 3 neighbours, the window as the smallest size), on
 * a Mat (CPU) and, when `umat`, on a UMat (its OpenCL path). */
void time_opencv(cv::CascadeClassifier& opencv, const waldboost::Classifier& classifier,
                 const std::vector<GrayImage>& frames, int runs, bool umat, Row& row)
{
    const cv::Size window(classifier.window_width, classifier.window_height);
    std::vector<cv::Mat> mats;
    for (const GrayImage& f : frames)
        mats.emplace_back(f.height, f.width, CV_8U, const_cast<uint8_t*>(f.pixels.data()));
    cv::ocl::setUseOpenCL(false);
    row.opencv_mat_ms = time_detect_multi_scale(opencv, mats, window, runs, &row.opencv_detections);
    if (umat && cv::ocl::haveOpenCL()) {
        cv::ocl::setUseOpenCL(true);
        std::vector<cv::UMat> umats(mats.size());
        for (size_t i = 0; i < mats.size(); ++i)
            mats[i].copyTo(umats[i]);
        row.opencv_umat_ms = time_detect_multi_scale(opencv, umats, window, runs, nullptr);
        cv::ocl::setUseOpenCL(false);
    }
}
#endif

/* Every size for one classifier: a row each in `rows`. False (after saying
 * why) when OpenCV cannot load the classifier. */
bool bench_classifier(const std::string& path, const Options& options, const std::vector<GrayImage>& sources,
                      std::vector<Row>* rows, std::string* device_name)
{
    const waldboost::Classifier classifier = waldboost::load_classifier_file(path);
    const waldboost::opencl::DetectorParameters resolved =
        waldboost::opencl::resolve_settings(options.engine, classifier);
    waldboost::opencl::EngineConfig config = resolved.engine;
    waldboost::opencl::Engine engine(classifier, config);
    config.profiling = false;
    config.reduction = engine.reduction();
    waldboost::opencl::Engine unprofiled(classifier, config);
    *device_name = waldboost::opencl::describe(engine.device());
    const bool by_rows = engine.scan_method() == waldboost::opencl::ScanMethod::Rows;
    const std::string used_text = by_rows ? std::string("rows") : waldboost::opencl::to_string(engine.reduction());
#ifdef HAVE_OPENCV
    cv::CascadeClassifier opencv;
    if (options.opencv && !opencv.load(path)) {
        std::fprintf(stderr, "waldboost-bench: OpenCV could not load %s\n", path.c_str());
        return false;
    }
#endif
    const waldboost::DetectParams& params = resolved.detect; /* scale 1.1, min size = window, min-neighbors 3 */
    const std::string name = path.substr(path.find_last_of('/') + 1);
    for (const waldboost::Size& size : options.sizes) {
        const std::vector<GrayImage> frames = frames_at(sources, size);
        const std::vector<waldboost::GrayView> views = views_of(frames);
        Row row;
        row.classifier = name;
        row.reduction = used_text;
        row.width = size.width;
        row.height = size.height;
        time_latency(engine, frames, params, options.runs, row);

        /* With frames in flight, with OpenCL profiling on (as for the
         * latency) and off (the driver may then overlap frames). The
         * profiled stretches give the timeline. */
        std::vector<waldboost::opencl::FrameStats> traced;
        row.engine_throughput_profiled_ms = time_throughput(engine, views, params, options.runs, nullptr, &traced);
        row.timeline = summarize_timeline(traced);
        if (options.trace_dir) {
            const std::string file = *options.trace_dir + "/trace-" + name.substr(0, name.rfind('.')) + "-" +
                                     std::to_string(size.width) + "x" + std::to_string(size.height) + ".json";
            if (!write_trace(file, traced, options.inflight))
                std::fprintf(stderr, "waldboost-bench: cannot write %s\n", file.c_str());
        }
        row.engine_throughput_ms = time_throughput(unprofiled, views, params, options.runs, &row.submit_ms, nullptr);

#ifdef HAVE_OPENCV
        if (options.opencv)
            time_opencv(opencv, classifier, frames, options.runs, options.umat, row);
#endif
        rows->push_back(row);
        std::fprintf(stderr, "waldboost-bench: %s %dx%d done\n", name.c_str(), size.width, size.height);
    }
    return true;
}

/* The markdown table and the per-kernel lines, on stdout. */
void print_results(const std::vector<Row>& rows, const std::string& device_name, int inflight)
{
    std::printf("Engine device: %s\n\n", device_name.c_str());
    std::printf("| classifier | frame | engine latency ms | engine ms/frame (%d in flight) | fps | OpenCV Mat ms | "
                "OpenCV UMat ms | x Mat | x UMat | weak/window | detections (ours/OpenCV, last frame) |\n",
                inflight);
    std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    for (const Row& r : rows) {
        const double ours = r.engine_throughput_ms;
        std::printf("| %s | %dx%d | %s | %s | %s | %s | %s | %s | %s | %s | %d/%s |\n", r.classifier.c_str(), r.width,
                    r.height, fmt(r.engine_latency_ms).c_str(), fmt(ours).c_str(), fmt(1000.0 / ours, "%.0f").c_str(),
                    fmt(r.opencv_mat_ms).c_str(), fmt(r.opencv_umat_ms).c_str(),
                    r.opencv_mat_ms < 0 ? "n/a" : fmt(r.opencv_mat_ms / ours, "%.1fx").c_str(),
                    r.opencv_umat_ms < 0 ? "n/a" : fmt(r.opencv_umat_ms / ours, "%.1fx").c_str(),
                    fmt(r.weak_per_window).c_str(), r.detections,
                    r.opencv_detections < 0 ? "n/a" : std::to_string(r.opencv_detections).c_str());
    }
    std::printf("\nPer-kernel median ms (single frame):\n\n");
    for (const Row& r : rows) {
        std::printf("- %s %dx%d (scan %s), device %.3f ms, %.3f ms/frame in flight with profiling, "
                    "host %.3f ms/frame in submit:",
                    r.classifier.c_str(), r.width, r.height, r.reduction.c_str(), r.engine_device_ms,
                    r.engine_throughput_profiled_ms, r.submit_ms);
        for (const auto& [k, v] : r.kernels)
            std::printf(" %s %.3f;", k.c_str(), v);
        std::printf(" windows %.0f", r.windows);
        if (r.timeline.frames)
            std::printf(", timeline in flight (profiled, per frame): span %.3f ms, kernels running %.3f ms, "
                        "two or more at once %.3f ms, upload %.3f ms",
                        r.timeline.span_ms, r.timeline.busy_ms, r.timeline.concurrent_ms, r.timeline.upload_ms);
        if (!r.lists.empty()) {
            std::printf(", candidates after each step");
            for (double n : r.lists)
                std::printf(" %.0f", n);
            if (r.step2_fewest == r.step2_most)
                std::printf(", step-2 launches a frame %d", r.step2_most);
            else
                std::printf(", step-2 launches a frame %d to %d", r.step2_fewest, r.step2_most);
        }
        std::printf("\n");
    }
}

/* False (after saying why) when the file cannot be opened. */
bool write_json(const std::string& path, const std::vector<Row>& rows, const std::string& device_name, int inflight,
                int runs)
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "waldboost-bench: cannot write %s\n", path.c_str());
        return false;
    }
    std::fprintf(f, "{\"device\": \"%s\", \"inflight\": %d, \"runs\": %d, \"results\": [\n", device_name.c_str(),
                 inflight, runs);
    for (size_t i = 0; i < rows.size(); ++i) {
        const Row& r = rows[i];
        std::fprintf(f,
                     "  {\"classifier\": \"%s\", \"reduction\": \"%s\", \"width\": %d, \"height\": %d, "
                     "\"engine_latency_ms\": %.4f, \"engine_throughput_ms\": %.4f, "
                     "\"engine_throughput_profiled_ms\": %.4f, \"submit_ms\": %.4f, \"engine_device_ms\": %.4f, "
                     "\"opencv_mat_ms\": %.4f, \"opencv_umat_ms\": %.4f, \"weak_per_window\": %.3f, \"windows\": %.0f, "
                     "\"weak_evaluated\": %.0f, \"timeline_span_ms\": %.4f, \"timeline_busy_ms\": %.4f, "
                     "\"timeline_concurrent_ms\": %.4f, \"timeline_upload_ms\": %.4f, \"kernels\": {",
                     r.classifier.c_str(), r.reduction.c_str(), r.width, r.height, r.engine_latency_ms,
                     r.engine_throughput_ms, r.engine_throughput_profiled_ms, r.submit_ms, r.engine_device_ms,
                     r.opencv_mat_ms, r.opencv_umat_ms, r.weak_per_window, r.windows, r.weak_evaluated,
                     r.timeline.span_ms, r.timeline.busy_ms, r.timeline.concurrent_ms, r.timeline.upload_ms);
        bool first = true;
        for (const auto& [k, v] : r.kernels) {
            std::fprintf(f, "%s\"%s\": %.4f", first ? "" : ", ", k.c_str(), v);
            first = false;
        }
        std::fprintf(f, "}}%s\n", i + 1 < rows.size() ? "," : "");
    }
    std::fprintf(f, "]}\n");
    std::fclose(f);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    Options options;
    if (const int status = parse_arguments(argc, argv, &options))
        return status;

    std::vector<Row> rows;
    std::string device_name;
    try {
        std::vector<GrayImage> sources;
        for (const std::string& image : options.images)
            sources.push_back(waldboost::tools::load_gray_image(image.c_str()));
        if (options.tune) {
            tune(options, sources);
            return 0;
        }
        for (const std::string& path : options.classifier_paths)
            if (!bench_classifier(path, options, sources, &rows, &device_name))
                return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "waldboost-bench: %s\n", e.what());
        return 1;
    }

    print_results(rows, device_name, options.inflight);
    if (options.json_path && !write_json(*options.json_path, rows, device_name, options.inflight, options.runs))
        return 1;
    return 0;
}
