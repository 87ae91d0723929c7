/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench: many streams in one process. For every frame
 * size and every number of streams N it times, in one run on the same real
 * frames, classifier and device:
 *
 *   engine   N engines (core/opencl/engine.h) on the device, one thread
 *            each, with as many frames in flight as the element keeps
 *   source   N pipelines appsrc ! fakesink sync=false: what feeding the
 *            frames costs without detection
 *   element  N pipelines appsrc ! waldboostdetect ! fakesink sync=false,
 *            one per stream, all started together
 *
 * and, during the element run, the fraction of the wall time in which the
 * device ran kernels of some instance (the element's stats, device-busy-ms).
 * Every output buffer of every stream must carry, as region-of-interest
 * metas, the boxes one engine gives for that frame on its own; the tool
 * counts the frames that do not and exits non-zero when there are any.
 *
 * Frames are real images (PNG, JPEG... through gdk-pixbuf) and/or raw GRAY8
 * files of concatenated frames, stretched to each size with the core's
 * bit-exact resize as waldboost-bench does. They become GstBuffers once,
 * before anything is timed; each appsrc gets its whole stream up front
 * (buffers that share the frames' memory, timestamped, then EOS), so the
 * source costs a queue pop per frame.
 */
#include <cstdio>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "element.h"
#include "frames.h"
#include "options.h"
#include "pipeline_bench_version.h"
#include "row.h"
#include "tools/common/json_text.h"

namespace {

using namespace pipeline_bench;
using waldboost::tools::json_string;

std::string fmt(double v, const char* f = "%.1f")
{
    if (v < 0)
        return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

}  // namespace

int main(int argc, char** argv)
{
    Options options;
    if (!parse_options(&argc, &argv, &options))
        return 2;
    Settings& s = options.settings;

    if (!find_plugin(options.plugin_dir)) {
        std::fprintf(stderr, "%s: the waldboostdetect element was not found: set GST_PLUGIN_PATH to the folder "
                             "with libgstwaldboost.so, or give --plugin-dir\n", kTool);
        return 1;
    }

    std::vector<Row> rows;
    std::string device_name, classifier_name = s.classifier_path.empty() ? "embedded default (face)" : "";
    if (!s.classifier_path.empty())
        classifier_name = s.classifier_path.substr(s.classifier_path.find_last_of('/') + 1);
    /* The table (stdout and --markdown) and the JSON: written again after
     * every row, so that a run cut short by a timeout leaves its rows. */
    uint64_t mismatches = 0;
    bool failed = false;
    auto report = [&](bool print) {
        /* The table, on stdout and in --markdown. */
        std::string props_line = "draw=none post-messages=false";
        for (const auto& [name, value] : s.props)
            props_line += " " + name + "=" + value;
        std::string md;
        auto add = [&](const std::string& text) { md += text; };
        char line[1024];
        std::snprintf(line, sizeof line,
                      "Device: %s (spec \"%s\"); classifier: %s; %d frames per stream, round-robin over the frames of the size; "
                      "source writes %s; max-inflight %d; batching %s (wait %.3f ms); profiling %s; waldboostdetect %s; "
                      "commit %s%s\n\n",
                      device_name.c_str(), s.device.c_str(), classifier_name.c_str(), s.frames,
                      s.source_writes.c_str(),
                      s.element.max_inflight, s.element.batching ? "on" : "off",
                      static_cast<double>(s.element.batch_wait_ns) * 1e-6,
                      s.element.profiling ? "on" : "off",
                      props_line.c_str(), WALDBOOST_PIPELINE_BENCH_VERSION,
                      s.compare_boxes ? "; the objects' boxes compared with the engine's (parts are not)"
                                      : "; boxes not compared with the engine's (tracking or interval): mismatches "
                                        "are lost frames only");
        add(line);
        add("| frame | streams | engine fps | source fps | element fps/stream min | mean | element fps total | "
            "ms/frame | host ms/frame | host ms detection / other | % of engine | device busy | mismatches | status |\n");
        add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        mismatches = 0;
        failed = false;
        for (const Row& r : rows) {
            const Part& e = r.element;
            std::string status = "ok";
            for (const auto& [name, p] : {std::pair<const char*, const Part*>{"engine", &r.engine},
                                          {"source", &r.source}, {"element", &r.element}})
                if (p->ran && !p->error.empty()) {
                    status = std::string(name) + " failed: " + p->error;
                    break;
                }
            if (status == "ok" && !e.warnings.empty())
                status = "ok; warning: " + e.warnings.front();
            for (char& c : status)
                if (c == '|' || c == '\n')
                    c = c == '|' ? '/' : ' ';
            const uint64_t bad = r.engine.mismatches.count + e.mismatches.count;
            mismatches += bad;
            failed = failed || (r.engine.ran && !r.engine.ok()) || (r.source.ran && !r.source.ok()) || !e.ok();
            const double engine_fps = r.engine.ok() ? r.engine.total_fps() : -1;
            std::snprintf(line, sizeof line,
                          "| %dx%d | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %llu | %s |\n",
                          r.size.width, r.size.height, r.streams, fmt(engine_fps).c_str(),
                          fmt(r.source.ok() ? r.source.total_fps() : -1, "%.0f").c_str(),
                          fmt(e.ok() ? e.min_fps() : -1).c_str(), fmt(e.ok() ? e.mean_fps() : -1).c_str(),
                          fmt(e.ok() ? e.total_fps() : -1).c_str(),
                          fmt(e.ok() && e.total_fps() > 0 ? 1000.0 / e.total_fps() : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_detected_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_other_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() && engine_fps > 0 ? 100.0 * e.total_fps() / engine_fps : -1, "%.0f%%").c_str(),
                          fmt(e.ok() ? 100.0 * e.busy_fraction() : -1, "%.0f%%").c_str(),
                          static_cast<unsigned long long>(bad), status.c_str());
            md += line;
        }
        std::string per_size;
        for (size_t i = 0; i < rows.size(); ++i)
            if (i == 0 || rows[i].size != rows[i - 1].size)
                per_size += std::string(per_size.empty() ? "" : ", ") + std::to_string(rows[i].size.width) + "x" +
                            std::to_string(rows[i].size.height) + ": " + std::to_string(rows[i].distinct);
        if (!per_size.empty())
            md += "\nDistinct frames per size (each stream goes round them): " + per_size + "\n";
        for (const Row& r : rows)
            for (const Part* p : {&r.engine, &r.element})
                if (!p->mismatches.first.empty())
                    md += "\nFirst mismatch at " + std::to_string(r.size.width) + "x" + std::to_string(r.size.height) +
                          " x" + std::to_string(r.streams) + ": " + p->mismatches.first + "\n";
        if (print)
            std::fputs(md.c_str(), stdout);
        if (options.markdown_path) {
            FILE* f = std::fopen(options.markdown_path->c_str(), "w");
            if (!f || std::fputs(md.c_str(), f) < 0 || std::fclose(f) != 0) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.markdown_path->c_str());
                return false;
            }
        }

        if (options.json_path) {
            FILE* f = std::fopen(options.json_path->c_str(), "w");
            if (!f) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.json_path->c_str());
                return false;
            }
            auto part_json = [&](const Part& p) {
                std::string j = "{\"ran\": " + std::string(p.ran ? "true" : "false");
                if (!p.ran)
                    return j + "}";
                char b[512];
                std::snprintf(b, sizeof b,
                              ", \"ok\": %s, \"wall_s\": %.6f, \"frames\": %llu, \"fps_total\": %.3f, "
                              "\"fps_stream_min\": %.3f, \"fps_stream_mean\": %.3f, \"busy_ms\": %.4f, "
                              "\"busy_fraction\": %.4f, \"host_ms_per_frame\": %.4f, \"host_ms_per_detected_frame\": %.4f, "
                              "\"host_ms_per_other_frame\": %.4f, \"mismatches\": %llu",
                              p.ok() ? "true" : "false", p.wall_s, static_cast<unsigned long long>(p.frames),
                              p.total_fps(), p.min_fps(), p.mean_fps(), p.busy_ms, p.busy_fraction(), p.host_ms,
                              p.host_detected_ms, p.host_other_ms,
                              static_cast<unsigned long long>(p.mismatches.count));
                j += b;
                j += ", \"error\": " + json_string(p.error) + ", \"first_mismatch\": " + json_string(p.mismatches.first) +
                     ", \"warnings\": [";
                for (size_t i = 0; i < p.warnings.size(); ++i)
                    j += (i ? ", " : "") + json_string(p.warnings[i]);
                j += "], \"fps_per_stream\": [";
                for (size_t i = 0; i < p.stream_fps.size(); ++i) {
                    std::snprintf(b, sizeof b, "%s%.3f", i ? ", " : "", p.stream_fps[i]);
                    j += b;
                }
                return j + "]}";
            };
            std::fprintf(f,
                         "{\"tool\": \"%s\", \"commit\": %s, \"device\": %s, \"device_spec\": %s, \"classifier\": %s, "
                         "\"frames_per_stream\": %d, \"max_inflight\": %d, \"batching\": %s, \"batch_wait_ns\": %llu, "
                         "\"profiling\": %s, \"element_props\": %s, \"timeout_s\": %.1f, \"rows\": [\n",
                         kTool, json_string(WALDBOOST_PIPELINE_BENCH_VERSION).c_str(), json_string(device_name).c_str(),
                         json_string(s.device).c_str(), json_string(classifier_name).c_str(), s.frames,
                         s.element.max_inflight, s.element.batching ? "true" : "false",
                         static_cast<unsigned long long>(s.element.batch_wait_ns),
                         s.element.profiling ? "true" : "false", json_string(props_line).c_str(), s.timeout_s);
            for (size_t i = 0; i < rows.size(); ++i) {
                const Row& r = rows[i];
                const double engine_fps = r.engine.ok() ? r.engine.total_fps() : 0;
                std::fprintf(f,
                             "  {\"width\": %d, \"height\": %d, \"streams\": %d, \"distinct_frames\": %zu, "
                             "\"element_percent_of_engine\": %.2f, "
                             "\"engine\": %s,\n   \"source\": %s,\n   \"element\": %s}%s\n",
                             r.size.width, r.size.height, r.streams, r.distinct,
                             engine_fps > 0 && r.element.ok() ? 100.0 * r.element.total_fps() / engine_fps : -1.0,
                             part_json(r.engine).c_str(), part_json(r.source).c_str(), part_json(r.element).c_str(),
                             i + 1 < rows.size() ? "," : "");
            }
            std::fprintf(f, "]}\n");
            if (std::fclose(f) != 0) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.json_path->c_str());
                return false;
            }
        }
        return true;
    };
    try {
        const waldboost::Classifier classifier = s.classifier_path.empty()
                                                     ? waldboost::default_classifier()
                                                     : waldboost::load_classifier_file(s.classifier_path);
        configure_from_element(s, classifier);
        const std::vector<waldboost::GrayImage> sources =
            load_sources(options.images, options.raw_files, options.raw_sizes);

        for (size_t k = 0; k < options.sizes.size(); ++k) {
            FrameSet set;
            set.size = options.sizes[k];
            prepare_frames(set, sources, s, classifier);
            device_name = set.device;
            size_t faces = 0;
            for (const Boxes& b : set.expected)
                faces += b.size();
            std::fprintf(stderr, "%s: %dx%d: %zu frames, %zu boxes in all (reference: one engine on %s)\n", kTool,
                         set.size.width, set.size.height, set.images.size(), faces, set.device.c_str());
            for (const int n : options.streams_at[k]) {
                Row row = run_row(s, classifier, set, n, options.time_engines, options.time_source);
                for (const Part* p : {&row.engine, &row.source, &row.element})
                    if (p->ran && !p->error.empty())
                        std::fprintf(stderr, "%s: %dx%d x%d failed: %s\n", kTool, set.size.width, set.size.height, n,
                                     p->error.c_str());
                std::fprintf(stderr, "%s: %dx%d x%d done: element %.1f fps in total, %llu mismatches\n", kTool,
                             set.size.width, set.size.height, n, row.element.total_fps(),
                             static_cast<unsigned long long>(row.element.mismatches.count + row.engine.mismatches.count));
                rows.push_back(std::move(row));
                report(false);
            }
        }
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 1;
    }

    if (!report(true))
        return 1;
    if (mismatches) {
        std::fprintf(stderr, "%s: %llu frames mismatched\n", kTool, static_cast<unsigned long long>(mismatches));
        return 1;
    }
    return failed ? 3 : 0;
}
