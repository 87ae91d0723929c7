/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "options.h"

#include <gst/gst.h>

#include <cstdio>

#include "frames.h"
#include "tools/common/command_line.h"

namespace pipeline_bench {

namespace {

std::vector<std::string> split(const std::string& text, char separator)
{
    std::vector<std::string> items;
    for (size_t pos = 0; pos <= text.size();) {
        const size_t end = text.find(separator, pos);
        items.push_back(text.substr(pos, end == std::string::npos ? std::string::npos : end - pos));
        pos = end == std::string::npos ? text.size() + 1 : end + 1;
    }
    return items;
}

/* Stream counts: comma-separated, each 1 to 1024. */
std::optional<std::vector<int>> parse_counts(const std::string& text)
{
    std::vector<int> counts;
    for (const std::string& item : split(text, ',')) {
        if (item.empty() || item.size() > 4 || item.find_first_not_of("0123456789") != std::string::npos)
            return std::nullopt;
        const int n = std::stoi(item);
        if (n < 1 || n > 1024)
            return std::nullopt;
        counts.push_back(n);
    }
    return counts;
}

bool usage_error(const std::string& message)
{
    std::fprintf(stderr, "%s: %s\n", kTool, message.c_str());
    return false;
}

std::vector<std::string> strings_of(const GStrv strv)
{
    std::vector<std::string> strings;
    for (int i = 0; strv && strv[i]; ++i)
        strings.emplace_back(strv[i]);
    return strings;
}

std::optional<std::string> string_of(const gchar* text)
{
    return text ? std::optional<std::string>(text) : std::nullopt;
}

/* --props: "name=value ..." each, the names the tool sets itself refused. */
bool parse_props(const GStrv props_texts, Settings* s)
{
    for (int t = 0; props_texts && props_texts[t]; ++t) {
        const gchar* props_text = props_texts[t];
        g_auto(GStrv) words = nullptr;
        if (!g_shell_parse_argv(props_text, nullptr, &words, nullptr) && *props_text)
            return usage_error(std::string("--props: cannot parse '") + props_text + "'");
        for (int i = 0; words && words[i]; ++i) {
            const std::string word = words[i];
            const size_t eq = word.find('=');
            if (eq == std::string::npos || eq == 0)
                return usage_error("--props: '" + word + "' is not name=value");
            const std::string name = word.substr(0, eq);
            if (name == "roi" || name == "device" || name == "classifier")
                return usage_error(std::string("--props: ") +
                                   (name == "roi" ? "roi is not supported (the check compares whole frames)"
                                                  : "use --device and --classifier, which the engines follow too"));
            s->props.emplace_back(name, word.substr(eq + 1));
        }
    }
    return true;
}

/* --sizes, then --streams for every size and --streams-for for some. */
bool parse_rows(const gchar* sizes_text, const gchar* streams_text, const GStrv streams_for, Options* o)
{
    for (const std::string& item : split(sizes_text ? sizes_text : "1920x1080,3840x2160", ',')) {
        const auto size = parse_size(item);
        if (!size)
            return usage_error("--sizes: bad size '" + item + "' (WIDTHxHEIGHT, each side 1 to 65535)");
        o->sizes.push_back(*size);
    }
    const auto default_streams = parse_counts(streams_text ? streams_text : "1,4,16,64");
    if (!default_streams)
        return usage_error("--streams: comma-separated numbers from 1 to 1024");
    o->streams_at.assign(o->sizes.size(), *default_streams);
    for (int i = 0; streams_for && streams_for[i]; ++i) {
        const std::string item = streams_for[i];
        const size_t eq = item.find('=');
        const auto size = parse_size(item.substr(0, eq == std::string::npos ? 0 : eq));
        const auto counts = eq == std::string::npos ? std::nullopt : parse_counts(item.substr(eq + 1));
        if (!size || !counts)
            return usage_error("--streams-for: '" + item + "' is not WIDTHxHEIGHT=N,...");
        for (size_t k = 0; k < o->sizes.size(); ++k)
            if (o->sizes[k] == *size)
                o->streams_at[k] = *counts;
    }
    return true;
}

}  // namespace

std::optional<waldboost::Size> parse_size(const std::string& item)
{
    const size_t x = item.find('x');
    auto side = [](const std::string& digits, int* out) {
        if (digits.empty() || digits.size() > 5 || digits.find_first_not_of("0123456789") != std::string::npos)
            return false;
        *out = std::stoi(digits);
        return *out >= 1 && *out <= 65535;
    };
    waldboost::Size size;
    if (x == std::string::npos || !side(item.substr(0, x), &size.width) || !side(item.substr(x + 1), &size.height))
        return std::nullopt;
    return size;
}

bool parse_options(int* argc, char*** argv, Options* o)
{
    g_autofree gchar* device = nullptr;
    g_autofree gchar* classifier_path = nullptr;
    g_autofree gchar* sizes_text = nullptr;
    g_autofree gchar* streams_text = nullptr;
    g_auto(GStrv) streams_for = nullptr;
    g_auto(GStrv) props_texts = nullptr;
    g_autofree gchar* json_path = nullptr;
    g_autofree gchar* markdown_path = nullptr;
    g_auto(GStrv) raw_files = nullptr;
    g_auto(GStrv) raw_sizes = nullptr;
    g_autofree gchar* plugin_dir = nullptr;
    g_auto(GStrv) images = nullptr;
    gint frames = 300;
    gdouble timeout = 300;
    gboolean no_engine = FALSE, no_source = FALSE;
    g_autofree gchar* source_writes = nullptr;
    g_autofree gchar* after = nullptr;
    g_autofree gchar* format = nullptr;
    const GOptionEntry entries[] = {
        {"streams", 'n', 0, G_OPTION_ARG_STRING, &streams_text, "Numbers of streams, one row each (default 1,4,16,64)",
         "N,..."},
        {"streams-for", 0, 0, G_OPTION_ARG_STRING_ARRAY, &streams_for,
         "Numbers of streams at one size instead of --streams (repeatable; e.g. 3840x2160=1,4,16 where 64 "
         "engines of 4K frames would not fit the device)",
         "WxH=N,..."},
        {"sizes", 's', 0, G_OPTION_ARG_STRING, &sizes_text, "Frame sizes (default 1920x1080,3840x2160)", "WxH,..."},
        {"frames", 'f', 0, G_OPTION_ARG_INT, &frames,
         "Frames per stream in every part (default 300). The pipelines preroll before the start, which takes "
         "each stream's first frames into the element; the frames counted are those the source sends after it "
         "(a part with none fails: give more frames than max-inflight and a few)",
         "N"},
        {"device", 'd', 0, G_OPTION_ARG_STRING, &device,
         "OpenCL device: the element's device property and the engines' (default auto)", "SPEC"},
        {"classifier", 'c', 0, G_OPTION_ARG_FILENAME, &classifier_path,
         "Classifier file for the element and the engines (default: the embedded face classifier)", "FILE"},
        {"props", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &props_texts,
         "More waldboostdetect properties, \"name=value ...\", repeatable (the tool sets draw=none "
         "post-messages=false, "
         "which these may override; the engines follow max-inflight and the detection parameters, not "
         "reduction overrides; roi is refused)",
         "PROPS"},
        {"raw", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &raw_files,
         "A raw GRAY8 file of concatenated frames (repeatable), beside or instead of images. A size with "
         "frames of its own size among the images and raw files gets only those; any other size gets all of "
         "them stretched",
         "FILE"},
        {"raw-size", 0, 0, G_OPTION_ARG_STRING_ARRAY, &raw_sizes,
         "The frame size of the --raw files: once for all, or once per --raw in their order", "WxH"},
        {"json", 'j', 0, G_OPTION_ARG_FILENAME, &json_path, "Write the results as JSON to this file", "FILE"},
        {"markdown", 'm', 0, G_OPTION_ARG_FILENAME, &markdown_path, "Write the table as markdown to this file", "FILE"},
        {"no-engine", 0, 0, G_OPTION_ARG_NONE, &no_engine, "Do not time the engines alone", nullptr},
        {"source-writes", 0, 0, G_OPTION_ARG_STRING, &source_writes,
         "How the source gives frames: none (buffers made up front, the default), own (a thread per stream writes "
         "each frame into a pool of its own during the run, as a decoder), proposed (into the pool the element "
         "proposes)",
         "MODE"},
        {"format", 0, 0, G_OPTION_ARG_STRING, &format,
         "The frames' video format (default GRAY8): another 8-bit format the element takes, as a decoder (I420, "
         "NV12), a camera (YUY2) or an application (BGRx, RGB) gives it. Each frame's gray becomes its luma "
         "(chroma 128) or its R, G and B alike, so the element searches the same image and its boxes are still "
         "compared; the engines alone take the gray",
         "FORMAT"},
        {"after", 0, 0, G_OPTION_ARG_STRING, &after,
         "Elements between waldboostdetect and the sink, in gst-launch's syntax, \"{stream}\" standing for the "
         "stream's number (e.g. \"waldboostmetaconvert source-id=cam{stream} ! waldboostmetapublish "
         "file-path=/tmp/cam{stream}.jsonl\"): their host time per frame (the host-total-ms and worker-total-ms "
         "of their stats, as waldboostmetaconvert's and waldboostmetapublish's) is printed beside the detector's",
         "ELEMENTS"},
        {"no-source", 0, 0, G_OPTION_ARG_NONE, &no_source, "Do not time the pipelines without the detector", nullptr},
        {"timeout", 't', 0, G_OPTION_ARG_DOUBLE, &timeout,
         "Seconds a pipeline part may take, preroll included, before its row is reported as failed (default 300)", "S"},
        {"plugin-dir", 0, 0, G_OPTION_ARG_FILENAME, &plugin_dir,
         "Folder with libgstwaldboost.so (default: GST_PLUGIN_PATH when set, else the build tree)", "DIR"},
        {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &images, nullptr, "IMAGE..."},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr}};
    GOptionContext* context = g_option_context_new("- many streams through waldboostdetect");
    g_option_context_add_group(context, gst_init_get_option_group());
    g_option_context_set_description(
        context,
        "For every size and number of streams N, one row: the engines alone (N engines, one thread each, "
        "max-inflight frames in flight), N pipelines appsrc ! fakesink sync=false (the source's cost), and N "
        "pipelines appsrc ! waldboostdetect ! fakesink sync=false started together, timed from PLAYING (after "
        "the preroll, which sets the engines up) to the last EOS. Each appsrc is given its whole stream before "
        "the start: buffers sharing the frames' memory, round-robin over the frames. Printed: fps per stream "
        "(min and mean) and in total, ms per frame in total, the element's host time per frame (its stats' "
        "host-total-ms over frames, all instances: CPU time of the streaming thread and the worker), the "
        "element's total as a percentage of the "
        "engines', the device's busy fraction during the element run (the union of the kernel intervals of all "
        "instances over the wall time, from the element's device-busy-ms; only with --props profiling=true, "
        "which the engines then follow too), and the frames whose boxes differ "
        "from one engine's on that frame alone (or never came out; with --props tracking=true or interval above "
        "1, whose boxes differ by design, only the frames that never came out).\n\n"
        "Exit status: 0; 1 when some frame mismatched; 3 when some part failed (an error, a timeout) and none "
        "mismatched; 2 for bad options.");
    /* The images are what G_OPTION_REMAINING collects: nothing is left over. */
    if (const auto error = waldboost::tools::parse_command_line(context, entries, nullptr, argc, argv, true))
        return usage_error(*error);

    Settings& s = o->settings;
    s.device = device ? device : "auto";
    s.classifier_path = classifier_path ? classifier_path : "";
    s.frames = frames;
    s.timeout_s = timeout;
    s.source_writes = source_writes ? source_writes : "none";
    s.after = string_of(after).value_or("");
    s.format = format ? format : "GRAY8";
    if (!frame_format_supported(s.format))
        return usage_error("--format takes an 8-bit video format such as GRAY8, I420, NV12, YUY2, BGRx or RGB, not '" +
                           s.format + "'");
    if (s.source_writes != "none" && s.source_writes != "own" && s.source_writes != "proposed")
        return usage_error("--source-writes takes none, own or proposed, not '" + s.source_writes + "'");
    if (frames < 1 || timeout <= 0)
        return usage_error("--frames and --timeout must be positive");
    if (!parse_rows(sizes_text, streams_text, streams_for, o) || !parse_props(props_texts, &s))
        return false;
    o->raw_files = strings_of(raw_files);
    o->raw_sizes = strings_of(raw_sizes);
    const size_t raw_count = o->raw_files.size(), raw_size_count = o->raw_sizes.size();
    if (raw_count ? raw_size_count != 1 && raw_size_count != raw_count : raw_size_count != 0)
        return usage_error("--raw needs --raw-size, once or once per --raw");
    o->images = strings_of(images);
    if (o->images.empty() && o->raw_files.empty())
        return usage_error("give images (e.g. build/testdata/messi5.jpg) or --raw FILE --raw-size WxH");
    o->json_path = string_of(json_path);
    o->markdown_path = string_of(markdown_path);
    o->plugin_dir = string_of(plugin_dir);
    o->time_engines = !no_engine;
    o->time_source = !no_source;
    return true;
}

}  // namespace pipeline_bench
