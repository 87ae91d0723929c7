/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-train: trains a WaldBoost classifier (core/training/trainer.h)
 * from positives (OpenCV annotation files and/or folders of crops) and
 * background images, and writes it as WaldBoost XML that the element,
 * waldboost-detect and the engine load as they are. docs/training.md.
 */
#include <glib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/io/output_file.h"
#include "core/model/classifier_io.h"
#include "core/model/feature_types.h"
#include "core/model/formats.h"
#include "core/opencl/device/device.h"
#include "core/training/opencl/training_histograms.h"
#include "core/training/opencl/engine_miner.h"
#include "core/training/samples.h"
#include "core/text.h"
#include "core/training/trainer.h"
#include "tools/common/command_line.h"
#include "tools/common/file_lists.h"
#include "tools/common/image_file.h"
#include "tools/common/json_text.h"

namespace {

namespace wt = waldboost::training;
using waldboost::Error;
using waldboost::ErrorKind;
using waldboost::GrayImage;
using waldboost::printable;

constexpr const char* kTool = "waldboost-train";

/* Set by SIGINT and SIGTERM while a checkpoint is kept: training stops
 * after the weak classifier in progress and writes the checkpoint. A
 * second signal ends the run at once, as the signal would without a
 * checkpoint; the last checkpoint, replaced atomically, stays whole. */
volatile std::sig_atomic_t interrupted = 0;
extern "C" void on_interrupt(int sig)
{
    /* write(), not stdio: it is async-signal-safe. */
    if (!interrupted) {
        interrupted = 1;
        static const char first[] =
            "waldboost-train: stopping after the weak classifier in progress; a second signal ends the run now\n";
        ssize_t written = write(STDERR_FILENO, first, sizeof first - 1);
        (void)written;
        return;
    }
    static const char again[] = "waldboost-train: interrupted again: ending now; the last checkpoint is kept\n";
    ssize_t written = write(STDERR_FILENO, again, sizeof again - 1);
    (void)written;
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

struct Options {
    gchar* output = nullptr;
    gchar** annotations = nullptr;
    gchar** positive_dirs = nullptr;
    gchar* negatives = nullptr;
    gchar* window = nullptr;
    gchar* label = nullptr;
    gchar* block_sizes = nullptr;
    gchar* feature = nullptr;
    gchar* device = nullptr;
    gint position_step = 1;
    gint weak = 500;
    gdouble alpha = 0.05;
    gdouble first_share = 1.0;
    gdouble final_threshold = std::numeric_limits<double>::quiet_NaN(); /* NaN: the trained one */
    gint negative_count = 0;
    gint64 seed = 1;
    gint threads = 0;
    gint copies = 1;
    gboolean mirror = FALSE;
    gdouble shift = 0.0, scale = 0.0, rotate = 0.0, brightness = 0.0, contrast = 0.0;
    gint stride = 2;
    gboolean json = FALSE;
    gchar* checkpoint = nullptr;
    gint checkpoint_every = 1;
    gboolean resume = FALSE;
    gint stop_after = 0;
    gint max_megapixels = waldboost::tools::kDefaultMaxMegapixels;
    gint max_background_megapixels = 4000;
    gint64 max_memory = 0; /* MB; 0: half the machine's memory */

    Options() = default;
    Options(const Options&) = delete;
    Options& operator=(const Options&) = delete;
    ~Options()
    {
        for (gchar* text : {output, negatives, window, label, block_sizes, feature, checkpoint, device})
            g_free(text);
        g_strfreev(annotations);
        g_strfreev(positive_dirs);
    }
};

/* WIDTHxHEIGHT with sides of 1 or more. */
bool parse_size(const std::string& text, waldboost::Size* size)
{
    const size_t x = text.find('x');
    if (x == std::string::npos || x == 0 || x + 1 >= text.size())
        return false;
    for (size_t i = 0; i < text.size(); ++i)
        if (i != x && (text[i] < '0' || text[i] > '9'))
            return false;
    if (x > 5 || text.size() - x - 1 > 5)
        return false;
    size->width = std::stoi(text.substr(0, x));
    size->height = std::stoi(text.substr(x + 1));
    return size->width > 0 && size->height > 0;
}

/* The image files of a folder, sorted by name (so that a seed gives the
 * same samples whatever order the file system lists them in). */
std::vector<std::string> image_files(const std::string& dir)
{
    GError* error = nullptr;
    GDir* d = g_dir_open(dir.c_str(), 0, &error);
    if (!d) {
        const std::string why = error ? error->message : "cannot open";
        g_clear_error(&error);
        throw Error(ErrorKind::Io, "the positives folder " + printable(dir) + ": " + printable(why));
    }
    std::vector<std::string> files;
    while (const gchar* name = g_dir_read_name(d)) {
        const std::string n = name;
        gchar* lower = g_ascii_strdown(name, -1);
        const std::string l = lower;
        g_free(lower);
        for (const char* ext : {".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".bmp", ".tif", ".tiff"})
            if (l.size() > std::strlen(ext) && l.compare(l.size() - std::strlen(ext), std::strlen(ext), ext) == 0) {
                files.push_back(dir + "/" + n);
                break;
            }
    }
    g_dir_close(d);
    std::sort(files.begin(), files.end());
    if (files.empty())
        throw Error(ErrorKind::BadParameter, "the positives folder " + printable(dir) + " holds no image file");
    return files;
}

using waldboost::tools::folder_of;
using waldboost::tools::read_text;

/* Whether `a` and `b` name one existing file (through links too). */
bool same_file(const char* a, const char* b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

/* Throws Error (Io) when the folder --output writes into is not there,
 * with the message the writer (core/io/output_file.h) would give when
 * training ends: checked before any image is read. */
void check_output_folder(const std::string& output)
{
    struct stat st;
    if (stat(output.c_str(), &st) == 0)
        return; /* written in place or replaced next to itself */
    const std::string folder = folder_of(output);
    int error = 0;
    if (stat(folder.c_str(), &st) != 0)
        error = errno;
    else if (!S_ISDIR(st.st_mode))
        error = ENOTDIR;
    if (error)
        throw Error(ErrorKind::Io, "cannot write the classifier: " + waldboost::printable(output) +
                                       ": cannot create a temporary file: " + std::strerror(error));
}

using waldboost::tools::json_string;

/* "45 s", "3 min 05 s", "2 h 07 min". */
std::string duration_text(double seconds)
{
    const long long s = std::llround(std::min(seconds, 1e9));
    char text[64];
    if (s < 60)
        std::snprintf(text, sizeof text, "%lld s", s);
    else if (s < 3600)
        std::snprintf(text, sizeof text, "%lld min %02lld s", s / 60, s % 60);
    else
        std::snprintf(text, sizeof text, "%lld h %02lld min", s / 3600, s / 60 % 60);
    return text;
}

/* `eta`: the seconds the weak classifiers left may take, at the mean pace
 * of this run's so far. */
void print_progress(const wt::Progress& p, bool json, double eta)
{
    if (json) {
        std::fprintf(stderr,
                     "{\"weak\": %d, \"of\": %d, \"feature\": %s, \"z\": %.6f, \"threshold\": %s, "
                     "\"negatives_rejected\": %.4f, \"positives_rejected\": %.4f, \"positives\": %zu, "
                     "\"negatives\": %zu, \"mined\": %llu, \"refill_short\": %s, \"windows_scanned\": %llu, "
                     "\"negative_survival\": %.3e, "
                     "\"seconds\": %.3f, \"select_seconds\": %.3f, \"mine_seconds\": %.3f, \"eta_seconds\": %.1f}\n",
                     p.weak, p.weak_count, json_string(p.feature).c_str(), p.z,
                     std::isfinite(p.threshold) ? std::to_string(p.threshold).c_str() : "null", p.negatives_rejected,
                     p.positives_rejected, p.positives, p.negatives, static_cast<unsigned long long>(p.mined),
                     p.refill_short ? "true" : "false", static_cast<unsigned long long>(p.windows_scanned),
                     p.negative_survival, p.seconds, p.select_seconds, p.mine_seconds, eta);
    } else {
        std::fprintf(
            stderr,
            "%s: weak %d/%d %s: rejects %.1f%% of the negatives (%.2f%% of the positives), threshold %s; "
            "%zu positives, %zu negatives%s; %.3f s%s\n",
            kTool, p.weak, p.weak_count, p.feature.c_str(), 100.0 * p.negatives_rejected, 100.0 * p.positives_rejected,
            std::isfinite(p.threshold) ? std::to_string(p.threshold).c_str() : "none", p.positives, p.negatives,
            p.windows_scanned ? (", " + std::to_string(p.mined) + " mined from " + std::to_string(p.windows_scanned) +
                                 " windows" + (p.refill_short ? " (fewer than wanted)" : ""))
                                    .c_str()
                              : "",
            p.seconds, p.weak < p.weak_count ? ("; about " + duration_text(eta) + " left").c_str() : "");
    }
}

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "%s: %s (see --help)\n", kTool, printable(message, 1000).c_str());
    return 2;
}

/* The feature types the trainer makes, from the one list of them:
 * "lbp (multi-block LBP, default), lrd (local rank differences) or ...". */
std::string feature_type_choices()
{
    std::vector<std::string> choices;
    for (const waldboost::FeatureTypeInfo& t : waldboost::feature_types())
        if (t.tag)
            choices.push_back(std::string(t.tag) + " (" + t.summary +
                              (t.type == wt::TrainerConfig().feature_type ? ", default)" : ")"));
    std::string text;
    for (size_t i = 0; i < choices.size(); ++i)
        text += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    return text;
}

/* Parses the command line into `o` (GLib prints --help and exits).
 * Returns the message of a usage error, or nothing. */
std::optional<std::string> parse_options(Options& o, int* argc, char*** argv)
{
    const std::string feature_help = "Feature type: " + feature_type_choices();
    const GOptionEntry entries[] = {
        {"output", 'o', 0, G_OPTION_ARG_FILENAME, &o.output, "Write the classifier here (WaldBoost XML)", "FILE"},
        {"annotations", 'a', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.annotations,
         "Positives: an annotation file in OpenCV's format ('path n x y w h ...' per line; repeatable)", "FILE"},
        {"positives", 'p', 0, G_OPTION_ARG_FILENAME_ARRAY, &o.positive_dirs,
         "Positives: a folder of crops, each image one object (repeatable)", "DIR"},
        {"negatives", 'n', 0, G_OPTION_ARG_FILENAME, &o.negatives,
         "Background images without the object, one path per line (OpenCV's bg.txt)", "FILE"},
        {"window", 'w', 0, G_OPTION_ARG_STRING, &o.window, "Window size (default 24x24)", "WxH"},
        {"label", 'l', 0, G_OPTION_ARG_STRING, &o.label, "The classifier's label (default object)", "TEXT"},
        {"weak", 't', 0, G_OPTION_ARG_INT, &o.weak, "Weak classifiers to train (default 500)", "N"},
        {"alpha", 0, 0, G_OPTION_ARG_DOUBLE, &o.alpha,
         "Target miss rate of the rejection thresholds, above 0 and below 1 (default 0.05)", "F"},
        {"first-share", 0, 0, G_OPTION_ARG_DOUBLE, &o.first_share,
         "The share of alpha the first weak classifier may spend, above 0 and at most 1 (default 1: all it can; "
         "less leaves some for the next ones, which then reject more)",
         "F"},
        {"final-threshold", 0, 0, G_OPTION_ARG_DOUBLE, &o.final_threshold,
         "Write this final threshold instead of the trained one (which spends what is left of alpha and "
         "lets many background windows through): e.g. one chosen on training data with waldboost-evaluate "
         "--threshold",
         "T"},
        {"feature", 'f', 0, G_OPTION_ARG_STRING, &o.feature, feature_help.c_str(), "KIND"},
        {"block-sizes", 0, 0, G_OPTION_ARG_STRING, &o.block_sizes,
         "Block sizes of the features' 3x3 grids, e.g. 1x1,2x2,2x4,4x2 (default: every size that fits for lbp, "
         "1x1,2x2,2x4,4x2 for lrd and lrp)",
         "LIST"},
        {"position-step", 0, 0, G_OPTION_ARG_INT, &o.position_step, "Grid positions every N pixels (default 1)", "N"},
        {"negative-count", 0, 0, G_OPTION_ARG_INT, &o.negative_count,
         "Negative windows in the working set (default: as many as positives, at least 500)", "N"},
        {"seed", 0, 0, G_OPTION_ARG_INT64, &o.seed,
         "Random seed: the same seed and data give the same classifier "
         "(default 1)",
         "N"},
        {"threads", 'j', 0, G_OPTION_ARG_INT, &o.threads,
         "Threads for choosing weak classifiers and for mining, at most the machine's cores (default: every core)",
         "N"},
        {"copies", 0, 0, G_OPTION_ARG_INT, &o.copies,
         "Samples per annotated object, the first as annotated, the others varied (default 1)", "N"},
        {"mirror", 0, 0, G_OPTION_ARG_NONE, &o.mirror, "Add the left-right mirror of every positive", nullptr},
        {"shift", 0, 0, G_OPTION_ARG_DOUBLE, &o.shift, "Varied copies: shift of up to F of the box (e.g. 0.05)", "F"},
        {"scale", 0, 0, G_OPTION_ARG_DOUBLE, &o.scale, "Varied copies: scale by up to +-F (e.g. 0.1)", "F"},
        {"rotate", 0, 0, G_OPTION_ARG_DOUBLE, &o.rotate, "Varied copies: rotate by up to +-DEG degrees", "DEG"},
        {"brightness", 0, 0, G_OPTION_ARG_DOUBLE, &o.brightness, "Varied copies: add up to +-B grey levels", "B"},
        {"contrast", 0, 0, G_OPTION_ARG_DOUBLE, &o.contrast, "Varied copies: contrast gain 1 +- F", "F"},
        {"mining-stride", 0, 0, G_OPTION_ARG_INT, &o.stride,
         "Mine negatives at window positions N pixels apart (default 2)", "N"},
        {"device", 0, 0, G_OPTION_ARG_STRING, &o.device,
         "Where feature values, histograms and negative mining run: auto (the first OpenCL GPU when there is "
         "one, else the CPU; default), cpu, or opencl (the first OpenCL device: GPU, else accelerator, else CPU). "
         "Every choice trains the same classifier",
         "WHERE"},
        {"json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Progress on stderr as JSON lines", nullptr},
        {"checkpoint", 0, 0, G_OPTION_ARG_FILENAME, &o.checkpoint,
         "Write the training state to FILE as it goes (replaced atomically), for --resume", "FILE"},
        {"checkpoint-every", 0, 0, G_OPTION_ARG_INT, &o.checkpoint_every,
         "Write the checkpoint after every N weak classifiers (default 1)", "N"},
        {"resume", 0, 0, G_OPTION_ARG_NONE, &o.resume,
         "Go on from the --checkpoint file, with the same data and settings: the result is the same classifier, "
         "byte for byte, as a run that never stopped",
         nullptr},
        {"stop-after", 0, 0, G_OPTION_ARG_INT, &o.stop_after,
         "Stop after weak classifier N, writing the checkpoint but no classifier (to resume later)", "N"},
        {"max-megapixels", 0, 0, G_OPTION_ARG_INT, &o.max_megapixels,
         "Refuse an image whose header declares more than N megapixels, before decoding it (default 100)", "N"},
        {"max-background-megapixels", 0, 0, G_OPTION_ARG_INT, &o.max_background_megapixels,
         "Refuse background images of more than N megapixels in all, which are kept decoded in memory (one byte "
         "a pixel) while training (default 4000)",
         "N"},
        {"max-memory", 0, 0, G_OPTION_ARG_INT64, &o.max_memory,
         "Refuse a run whose working set would take more than MB megabytes (default: half the machine's memory)", "MB"},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
    GOptionContext* context = g_option_context_new("- train a WaldBoost classifier");
    g_option_context_set_description(
        context, "Positives come from --annotations and/or --positives, negatives from the background images of "
                 "--negatives. Progress goes to stderr: one line per weak classifier. With --checkpoint, SIGINT or "
                 "SIGTERM stops after the weak classifier in progress and writes the checkpoint (exit status 130); a "
                 "second one ends the run at once, keeping the last checkpoint. "
                 "Exit status: 0 done (or stopped by --stop-after), 1 the training data or a file could not be "
                 "used, 2 a usage error.");
    return waldboost::tools::parse_command_line(context, entries, &o, argc, argv);
}

/* What the command line asks for, checked. */
struct Settings {
    wt::TrainerConfig config;
    wt::Augmentation augmentation;
    std::string device; /* auto, cpu or opencl */
};

/* Checks every option once and turns them into settings. Returns the
 * message of a usage error, or nothing. */
std::optional<std::string> read_settings(const Options& o, Settings* s)
{
    if (!o.output)
        return "--output is required";
    if (!o.negatives)
        return "--negatives is required";
    if ((!o.annotations || !o.annotations[0]) && (!o.positive_dirs || !o.positive_dirs[0]))
        return "give positives with --annotations or --positives";
    wt::TrainerConfig& config = s->config;
    if (o.window && !parse_size(o.window, &config.window))
        return "--window must be WxH, e.g. 24x24";
    const int largest_side = waldboost::ModelLimits::kMaxWindowSide;
    if (config.window.width < 3 || config.window.height < 3 || config.window.width > largest_side ||
        config.window.height > largest_side)
        return "--window must have sides of 3 to " + std::to_string(largest_side) + " pixels, not " + o.window;
    if (o.label) {
        config.label = o.label;
        /* The writer would refuse it when training ends, and the label is
         * in the checkpoint, so it is checked first. */
        if (const std::string problem = waldboost::label_problem(config.label); !problem.empty())
            return "--label: " + problem;
    }
    for (gchar** a = o.annotations; a && *a; ++a)
        if (same_file(o.output, *a))
            return "--output names the annotation file " + printable(*a) + ", which the run would replace";
    if (same_file(o.output, o.negatives))
        return "--output names the negatives list " + printable(o.negatives) + ", which the run would replace";
    if (o.feature) {
        const waldboost::FeatureTypeInfo* type = waldboost::find_feature_type_by_tag(o.feature);
        if (!type)
            return "--feature must be " + waldboost::trainable_feature_tags();
        config.feature_type = type->type;
    }
    if (o.block_sizes) {
        std::istringstream list(o.block_sizes);
        for (std::string item; std::getline(list, item, ',');) {
            waldboost::Size size;
            if (!parse_size(item, &size))
                return "--block-sizes must be a list of WxH, e.g. 1x1,2x2,2x4,4x2";
            /* A size no grid fits would be left out without a word. */
            if (3 * size.width > config.window.width || 3 * size.height > config.window.height)
                return "--block-sizes: a 3x3 grid of " + item + " blocks does not fit the " +
                       std::to_string(config.window.width) + "x" + std::to_string(config.window.height) + " window";
            config.block_sizes.push_back(size);
        }
    }
    if (o.weak < 1 || static_cast<size_t>(o.weak) > waldboost::ModelLimits::kMaxWeakClassifiers)
        return "--weak must be 1 to " + std::to_string(waldboost::ModelLimits::kMaxWeakClassifiers);
    if (!(o.alpha > 0.0 && o.alpha < 1.0))
        return "--alpha must be above 0 and below 1";
    if (!(o.first_share > 0.0 && o.first_share <= 1.0))
        return "--first-share must be above 0 and at most 1";
    if (o.position_step < 1 || o.stride < 1 || o.threads < 0 || o.negative_count < 0 || o.copies < 1)
        return "--position-step, --mining-stride and --copies must be 1 or more, --threads and "
               "--negative-count 0 or more";
    for (double v : {o.shift, o.scale, o.rotate, o.brightness, o.contrast})
        if (!std::isfinite(v) || v < 0)
            return "--shift, --scale, --rotate, --brightness and --contrast must be 0 or more";
    if (o.shift > 0.5 || o.scale > 0.5 || o.rotate > 90 || o.contrast > 1)
        return "--shift and --scale at most 0.5, --rotate at most 90, --contrast at most 1";
    if (!std::isnan(o.final_threshold) &&
        !(std::isfinite(o.final_threshold) && std::fabs(o.final_threshold) <= std::numeric_limits<float>::max()))
        return "--final-threshold must be a finite number";
    if (o.max_megapixels < 1 || o.max_background_megapixels < 1)
        return "--max-megapixels and --max-background-megapixels must be 1 or more";
    if (o.checkpoint_every < 1 || o.stop_after < 0)
        return "--checkpoint-every must be 1 or more, --stop-after 0 or more";
    if (o.max_memory < 0)
        return "--max-memory must be 0 (half the machine's memory) or more megabytes";
    if ((o.resume || o.stop_after > 0) && !o.checkpoint)
        return "--resume and --stop-after need --checkpoint FILE";
    s->device = o.device ? o.device : "auto";
    if (s->device != "auto" && s->device != "cpu" && s->device != "opencl")
        return "--device must be auto, cpu or opencl";
    config.weak_count = o.weak;
    config.alpha = o.alpha;
    config.first_share = o.first_share;
    config.position_step = o.position_step;
    config.negatives = o.negative_count;
    config.seed = static_cast<uint64_t>(o.seed);
    /* More threads than cores only take memory (-j 100000 could not start
     * them all); every count chooses the same features. */
    config.threads = std::min(static_cast<unsigned>(o.threads), std::max(1u, std::thread::hardware_concurrency()));
    wt::Augmentation& augmentation = s->augmentation;
    augmentation.copies = o.copies;
    augmentation.mirror = o.mirror;
    augmentation.shift = o.shift;
    augmentation.scale = o.scale;
    augmentation.rotation_deg = o.rotate;
    augmentation.brightness = o.brightness;
    augmentation.contrast = o.contrast;
    return std::nullopt;
}

/* Chooses, once, the OpenCL device that computes the feature values and
 * histograms and mines negatives (both the same one), sets the trainer's
 * histograms on it and says so. Returns its spec for select_device(), or
 * "" for the CPU: --device=cpu, or auto without a GPU. */
std::string choose_device(const std::string& device, wt::TrainerConfig* config)
{
    std::string spec = device == "opencl" ? "auto" : device == "auto" ? "gpu" : "";
    std::string where = "the CPU";
    if (!spec.empty()) {
        try {
            std::string name;
            config->histograms = waldboost::opencl::opencl_histograms(spec, &name);
            where = name + " (OpenCL)";
        } catch (const Error& e) {
            if (device == "opencl")
                throw Error(e.kind(), std::string("--device=opencl: ") + e.what());
            if (e.kind() != ErrorKind::NoDevice)
                throw;
            spec.clear(); /* auto without a GPU */
        }
    }
    std::fprintf(stderr, "%s: feature values and histograms on %s\n", kTool, where.c_str());
    return spec;
}

/* Where the positives come from, read before any image: every annotation
 * file's lines, then every crop of the folders. */
struct PositiveSources {
    struct File {
        std::string path;
        std::vector<wt::Annotation> lines;
    };
    std::vector<File> annotations;
    std::vector<std::string> crops;
    uint64_t objects = 0; /* boxes and crops */
};

/* The share by which a box's aspect may differ from the window's before
 * the tool warns: hand-drawn boxes vary a little. */
constexpr double kAspectTolerance = 0.15;
/* Fewer positives than this get a warning: a quarter of them calibrate the
 * thresholds, and a few hundred is the least docs/training.md suggests. */
constexpr uint64_t kFewPositives = 100;

PositiveSources read_positive_sources(const Options& o, const Settings& s)
{
    PositiveSources sources;
    const double window_aspect = static_cast<double>(s.config.window.width) / s.config.window.height;
    uint64_t boxes = 0, stretched = 0;
    std::string example;
    for (gchar** a = o.annotations; a && *a; ++a) {
        const std::string path = *a;
        PositiveSources::File file{path,
                                   wt::parse_annotations(read_text(path, "annotation file"), path, folder_of(path))};
        if (file.lines.empty())
            throw Error(ErrorKind::BadParameter, printable(path) + ": no annotated image");
        for (const wt::Annotation& line : file.lines)
            for (const waldboost::Rect& box : line.boxes) {
                ++boxes;
                const double ratio = static_cast<double>(box.width) / box.height / window_aspect;
                if (ratio > 1.0 + kAspectTolerance || ratio < 1.0 / (1.0 + kAspectTolerance)) {
                    if (stretched++ == 0)
                        example = printable(path) + ":" + std::to_string(line.line) + " (" + std::to_string(box.width) +
                                  "x" + std::to_string(box.height) + ")";
                }
            }
        sources.annotations.push_back(std::move(file));
    }
    if (stretched > 0)
        std::fprintf(stderr,
                     "%s: warning: %llu of %llu boxes differ by more than %.0f%% from the window's shape (%dx%d), "
                     "e.g. %s: each is stretched to the window; draw boxes of its shape, or give --window of "
                     "theirs\n",
                     kTool, static_cast<unsigned long long>(stretched), static_cast<unsigned long long>(boxes),
                     100.0 * kAspectTolerance, s.config.window.width, s.config.window.height, example.c_str());
    for (gchar** d = o.positive_dirs; d && *d; ++d)
        for (std::string& file : image_files(*d))
            sources.crops.push_back(std::move(file));
    sources.objects = boxes + sources.crops.size();
    return sources;
}

/* The positives every object gives: its copies, each mirrored too with
 * --mirror. Saturates. */
uint64_t expected_positives(const PositiveSources& sources, const wt::Augmentation& augmentation)
{
    const uint64_t per_object = static_cast<uint64_t>(augmentation.copies) * (augmentation.mirror ? 2 : 1);
    uint64_t n;
    return __builtin_mul_overflow(sources.objects, per_object, &n) ? std::numeric_limits<uint64_t>::max() : n;
}

/* Says what the working set will take, before any image is read, and
 * refuses more than --max-memory (or half the machine's memory): a large
 * window, many copies or many negatives used to run until memory ran out.
 * Returns a usage error's message, or nothing. */
std::optional<std::string> check_memory(const Options& o, const Settings& s, uint64_t positives)
{
    constexpr uint64_t kMB = 1 << 20;
    uint64_t limit;
    const char* whose;
    if (o.max_memory > 0) {
        limit = static_cast<uint64_t>(o.max_memory) * kMB;
        whose = "--max-memory";
    } else {
        const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        limit = pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2
                                      : std::numeric_limits<uint64_t>::max();
        whose = "half this machine's memory; --max-memory sets it";
    }
    const uint64_t bytes = wt::estimate_memory(s.config, positives);
    const auto megabytes = [&](uint64_t b) {
        return std::to_string(b / kMB + (b % kMB != 0));
    };
    if (bytes > limit)
        return "the working set of " + std::to_string(positives) + " positives would take about " + megabytes(bytes) +
               " MB, more than " + megabytes(limit) + " MB (" + whose +
               "): use a smaller --window, fewer --block-sizes, a larger --position-step, fewer --copies or "
               "--negative-count";
    std::fprintf(stderr, "%s: the working set of %llu positives takes about %s MB (at most %s MB: %s)\n", kTool,
                 static_cast<unsigned long long>(positives), megabytes(bytes).c_str(), megabytes(limit).c_str(), whose);
    return std::nullopt;
}

/* The positives: every annotated box, then every crop of the folders, as
 * varied copies of the window's size. */
std::vector<GrayImage> load_positives(const PositiveSources& sources, const Settings& s, uint64_t max_pixels)
{
    std::mt19937_64 rng(s.config.seed ^ 0x5ea5ea5ea5ea5ea5ull); /* the samples' own stream */
    std::vector<GrayImage> positives;
    for (const PositiveSources::File& file : sources.annotations)
        for (const wt::Annotation& line : file.lines) {
            const GrayImage image = waldboost::tools::load_gray_image(line.path, max_pixels);
            for (const waldboost::Rect& box : line.boxes) {
                wt::check_box(box, waldboost::Size{image.width, image.height},
                              printable(file.path) + ":" + std::to_string(line.line) + " (" + printable(line.path) +
                                  ")");
                for (GrayImage& p : wt::positive_samples(image.view(), box, s.config.window, s.augmentation, rng))
                    positives.push_back(std::move(p));
            }
        }
    for (const std::string& file : sources.crops) {
        const GrayImage image = waldboost::tools::load_gray_image(file, max_pixels);
        const waldboost::Rect whole{0, 0, image.width, image.height};
        for (GrayImage& p : wt::positive_samples(image.view(), whole, s.config.window, s.augmentation, rng))
            positives.push_back(std::move(p));
    }
    return positives;
}

void print_mining_stats(const wt::EngineMiner::Stats& st)
{
    std::fprintf(stderr,
                 "%s: mining: %llu engines (%llu programs compiled, %llu from the cache) in %.2f s, %llu "
                 "levels scanned in %llu calls, %.2f s, %llu mining calls on the CPU instead\n",
                 kTool, static_cast<unsigned long long>(st.engines_built),
                 static_cast<unsigned long long>(st.programs_compiled),
                 static_cast<unsigned long long>(st.programs_from_cache), st.build_seconds,
                 static_cast<unsigned long long>(st.levels_scanned), static_cast<unsigned long long>(st.detect_calls),
                 st.scan_seconds, static_cast<unsigned long long>(st.cpu_fallbacks));
}

/* Trains and writes the classifier (or, stopped, only the checkpoint).
 * Returns the exit status; throws what stops the run. */
int train(const Options& o, Settings& s)
{
    check_output_folder(o.output);
    /* The device first: a missing one shows before any image is read. */
    const std::string opencl_device = choose_device(s.device, &s.config);
    /* The lists first: a mistake there shows before any image is read. */
    const std::vector<std::string> background_paths = waldboost::tools::image_list(o.negatives, "negatives list");
    const PositiveSources sources = read_positive_sources(o, s);
    if (const auto error = check_memory(o, s, expected_positives(sources, s.augmentation)))
        return usage_error(*error);
    const uint64_t max_pixels = static_cast<uint64_t>(o.max_megapixels) * 1000000;
    std::vector<GrayImage> positives = load_positives(sources, s, max_pixels);
    std::vector<GrayImage> backgrounds;
    const uint64_t background_budget = static_cast<uint64_t>(o.max_background_megapixels) * 1000000;
    uint64_t background_pixels = 0;
    for (const std::string& path : background_paths) {
        backgrounds.push_back(waldboost::tools::load_gray_image(path, max_pixels));
        /* The miner keeps them all decoded: a bound on the memory they take. */
        background_pixels += static_cast<uint64_t>(backgrounds.back().width) * backgrounds.back().height;
        if (background_pixels > background_budget)
            throw Error(ErrorKind::BadParameter,
                        "the background images take more than " + std::to_string(o.max_background_megapixels) +
                            " megapixels (" + std::to_string(backgrounds.size()) + " of " +
                            std::to_string(background_paths.size()) +
                            " read), kept decoded in memory while training; --max-background-megapixels raises the "
                            "limit where the memory is there, or list fewer or smaller images");
    }
    std::fprintf(stderr, "%s: %zu positives, %zu background images\n", kTool, positives.size(), backgrounds.size());
    if (positives.size() < kFewPositives)
        std::fprintf(stderr,
                     "%s: warning: only %zu positive%s: a detector learns from hundreds (docs/training.md); "
                     "annotate more objects, or add varied --copies and --mirror\n",
                     kTool, positives.size(), positives.size() == 1 ? "" : "s");
    /* Both miners mine the same windows; the engine's only faster. */
    std::shared_ptr<wt::NegativeMiner> miner;
    std::shared_ptr<wt::EngineMiner> engine_miner;
    if (!opencl_device.empty()) {
        waldboost::opencl::EngineConfig engine_config;
        engine_config.device = opencl_device;
        engine_miner =
            std::make_shared<wt::EngineMiner>(std::move(backgrounds), s.config.window, engine_config, o.stride);
        engine_miner->set_threads(s.config.threads); /* the levels it hands the engine */
        miner = engine_miner;
        std::fprintf(stderr, "%s: mining on %s\n", kTool, engine_miner->device().device_name.c_str());
    } else {
        auto cpu_miner = std::make_shared<wt::CpuMiner>(std::move(backgrounds), s.config.window, o.stride);
        cpu_miner->set_threads(s.config.threads);
        miner = cpu_miner;
        std::fprintf(stderr, "%s: mining on the CPU\n", kTool);
    }
    wt::Trainer trainer(s.config, std::move(positives), miner);
    std::fprintf(stderr, "%s: %zu candidate features\n", kTool, trainer.candidate_count());
    if (o.checkpoint) {
        trainer.set_checkpoint(o.checkpoint, o.checkpoint_every);
        if (o.resume) {
            trainer.resume(o.checkpoint);
            std::fprintf(stderr, "%s: resumed from %s after %zu weak classifiers\n", kTool,
                         printable(o.checkpoint).c_str(), trainer.resumed_weak());
        }
        std::signal(SIGINT, on_interrupt);
        std::signal(SIGTERM, on_interrupt);
    }
    const bool json = o.json;
    const int stop_after = o.stop_after;
    int stopped_at = 0;
    double seconds = 0.0; /* this run's weak classifiers so far */
    double select_seconds = 0.0;
    int trained = 0;
    int refills = 0, short_refills = 0;
    const auto started = std::chrono::steady_clock::now();
    waldboost::Classifier classifier = trainer.train([&](const wt::Progress& p) {
        seconds += p.seconds;
        select_seconds += p.select_seconds;
        ++trained;
        refills += p.windows_scanned > 0;
        short_refills += p.refill_short;
        print_progress(p, json, seconds / trained * (p.weak_count - p.weak));
        if (p.weak == stop_after || interrupted) {
            trainer.request_stop();
            stopped_at = p.weak;
        }
    });
    if (engine_miner)
        print_mining_stats(engine_miner->stats());
    if (trained > 0) {
        /* Where the time went: what to speed up (--device, --threads, fewer or smaller backgrounds). */
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
        const double mining = trainer.mining_seconds();
        const auto share = [&](double part) {
            return total > 0 ? 100.0 * part / total : 0.0;
        };
        std::fprintf(stderr,
                     "%s: %d weak classifiers in %s: choosing them %.0f%%, mining negatives %.0f%% (%s), the rest "
                     "(new samples' features, thresholds) %.0f%%\n",
                     kTool, trained, duration_text(total).c_str(), share(select_seconds), share(mining),
                     engine_miner ? engine_miner->device().device_name.c_str() : "the CPU reference",
                     std::max(0.0, 100.0 - share(select_seconds) - share(mining)));
    }
    if (short_refills > 0)
        std::fprintf(stderr,
                     "%s: %d of %d refills of the negatives came back short: the background images have few "
                     "windows left that the classifier lets through, so later weak classifiers learn from fewer "
                     "negatives; more or other background images give it more\n",
                     kTool, short_refills, refills);
    if (trainer.stopped()) {
        std::fprintf(stderr, "%s: %s after %d weak classifiers; --resume goes on from %s\n", kTool,
                     interrupted ? "interrupted" : "stopped", stopped_at, printable(o.checkpoint).c_str());
        return interrupted ? 130 : 0;
    }
    if (!trainer.early_stop().empty())
        std::fprintf(stderr, "%s: stopped early, after %zu of %d weak classifiers: %s\n", kTool, classifier.weak.size(),
                     s.config.weak_count, trainer.early_stop().c_str());
    if (!std::isnan(o.final_threshold)) {
        classifier.final_threshold = static_cast<float>(o.final_threshold);
        std::fprintf(stderr, "%s: final threshold %g instead of the trained one\n", kTool, o.final_threshold);
    }
    const std::string xml = waldboost::write_waldboost_xml(classifier);
    try {
        waldboost::io::write_output_file(o.output, xml);
    } catch (const Error& e) {
        throw Error(e.kind(), std::string("cannot write the classifier: ") + e.what());
    }
    std::fprintf(stderr, "%s: wrote %s (%zu weak classifiers)\n", kTool, printable(o.output).c_str(),
                 classifier.weak.size());
    return 0;
}

}  // namespace

int main(int argc, char** argv)
{
    Options o;
    if (const auto error = parse_options(o, &argc, &argv))
        return usage_error(*error);
    Settings settings;
    if (const auto error = read_settings(o, &settings))
        return usage_error(*error);
    try {
        return train(o, settings);
    } catch (const std::exception& e) {
        /* Paths are escaped where messages are made; this catches the rest. */
        std::fprintf(stderr, "%s: %s\n", kTool, printable(e.what(), 4000).c_str());
        return 1;
    }
}
