/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "report.h"

#include <cstdio>
#include <utility>

#include "pipeline_bench_version.h"
#include "tools/common/json_text.h"

namespace pipeline_bench {

namespace {

using waldboost::tools::json_string;

/* The element's properties as the tool sets them, --props after. */
std::string props_line(const Settings& s)
{
    std::string line = "draw=none post-messages=false";
    for (const auto& [name, value] : s.props)
        line += " " + name + "=" + value;
    return line;
}

std::string header_line(const Settings& s, const Results& results)
{
    char line[1024];
    std::snprintf(
        line, sizeof line,
        "Device: %s (spec \"%s\"); classifier: %s; %d %s frames per stream, round-robin over the frames of the "
        "size; source writes %s; max-inflight %d; batching %s (wait %.3f ms); profiling %s; waldboostdetect %s; "
        "commit %s%s\n\n",
        results.device.c_str(), s.device.c_str(), results.classifier.c_str(), s.frames, s.format.c_str(),
        s.source_writes.c_str(), s.element.max_inflight, s.element.batching ? "on" : "off",
        static_cast<double>(s.element.batch_wait_ns) * 1e-6, s.element.profiling ? "on" : "off", props_line(s).c_str(),
        WALDBOOST_PIPELINE_BENCH_VERSION,
        s.compare_boxes ? "; the objects' boxes compared with the engine's (parts are not)"
                        : "; boxes not compared with the engine's (tracking or interval): mismatches "
                          "are lost frames only");
    return line;
}

/* "ok", the part that failed and why, or the element's first warning; on
 * one table line. */
std::string status_of(const Row& r)
{
    std::string status = "ok";
    for (const auto& [name, p] :
         {std::pair<const char*, const Part*>{"engine", &r.engine}, {"source", &r.source}, {"element", &r.element}})
        if (p->ran && !p->error.empty()) {
            status = std::string(name) + " failed: " + p->error;
            break;
        }
    if (status == "ok" && !r.element.warnings.empty())
        status = "ok; warning: " + r.element.warnings.front();
    for (char& c : status)
        if (c == '|' || c == '\n')
            c = c == '|' ? '/' : ' ';
    return status;
}

std::string row_line(const Row& r)
{
    const Part& e = r.element;
    const uint64_t bad = r.engine.mismatches.count + e.mismatches.count;
    const double engine_fps = r.engine.ok() ? r.engine.total_fps() : -1;
    char line[1024];
    std::snprintf(
        line, sizeof line, "| %dx%d | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %llu | %s |\n",
        r.size.width, r.size.height, r.streams, fmt(engine_fps).c_str(),
        fmt(r.source.ok() ? r.source.total_fps() : -1, "%.0f").c_str(), fmt(e.ok() ? e.min_fps() : -1).c_str(),
        fmt(e.ok() ? e.mean_fps() : -1).c_str(), fmt(e.ok() ? e.total_fps() : -1).c_str(),
        fmt(e.ok() && e.total_fps() > 0 ? 1000.0 / e.total_fps() : -1, "%.3f").c_str(),
        fmt(e.ok() ? e.host_ms : -1, "%.3f").c_str(), fmt(e.ok() ? e.host_detected_ms : -1, "%.3f").c_str(),
        fmt(e.ok() ? e.host_other_ms : -1, "%.3f").c_str(),
        fmt(e.ok() && engine_fps > 0 ? 100.0 * e.total_fps() / engine_fps : -1, "%.0f%%").c_str(),
        fmt(e.ok() ? 100.0 * e.busy_fraction() : -1, "%.0f%%").c_str(), static_cast<unsigned long long>(bad),
        status_of(r).c_str());
    return line;
}

/* The header line, the table, the distinct frames of each size and each
 * part's first mismatch. */
std::string table_text(const Settings& s, const Results& results)
{
    std::string md = header_line(s, results);
    md += "| frame | streams | engine fps | source fps | element fps/stream min | mean | element fps total | "
          "ms/frame | host ms/frame | host ms detection / other | % of engine | device busy | mismatches | status |\n";
    md += "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n";
    const std::vector<Row>& rows = results.rows;
    for (const Row& r : rows)
        md += row_line(r);
    std::string per_size;
    for (size_t i = 0; i < rows.size(); ++i)
        if (i == 0 || rows[i].size != rows[i - 1].size)
            per_size += std::string(per_size.empty() ? "" : ", ") + std::to_string(rows[i].size.width) + "x" +
                        std::to_string(rows[i].size.height) + ": " + std::to_string(rows[i].distinct);
    if (!s.after.empty()) {
        md += "\nThe elements after the detector (--after \"" + s.after +
              "\"): their host time per frame beside the detector's\n\n"
              "| frame | streams | detector host ms/frame | after host ms/frame | after / detector |\n"
              "|---|---|---|---|---|\n";
        for (const Row& r : rows) {
            const Part& e = r.element;
            const bool known = e.ok() && e.host_ms > 0 && e.after_host_ms >= 0;
            char line[256];
            std::snprintf(line, sizeof line, "| %dx%d | %d | %s | %s | %s |\n", r.size.width, r.size.height, r.streams,
                          fmt(e.ok() ? e.host_ms : -1, "%.3f").c_str(),
                          fmt(known ? e.after_host_ms : -1, "%.4f").c_str(),
                          fmt(known ? 100.0 * e.after_host_ms / e.host_ms : -1, "%.2f%%").c_str());
            md += line;
        }
    }
    if (!per_size.empty())
        md += "\nDistinct frames per size (each stream goes round them): " + per_size + "\n";
    for (const Row& r : rows)
        for (const Part* p : {&r.engine, &r.element})
            if (!p->mismatches.first.empty())
                md += "\nFirst mismatch at " + std::to_string(r.size.width) + "x" + std::to_string(r.size.height) +
                      " x" + std::to_string(r.streams) + ": " + p->mismatches.first + "\n";
    return md;
}

std::string part_json(const Part& p)
{
    std::string j = "{\"ran\": " + std::string(p.ran ? "true" : "false");
    if (!p.ran)
        return j + "}";
    char b[512];
    std::snprintf(b, sizeof b,
                  ", \"ok\": %s, \"wall_s\": %.6f, \"frames\": %llu, \"fps_total\": %.3f, "
                  "\"fps_stream_min\": %.3f, \"fps_stream_mean\": %.3f, \"busy_ms\": %.4f, "
                  "\"busy_fraction\": %.4f, \"host_ms_per_frame\": %.4f, \"host_ms_per_detected_frame\": %.4f, "
                  "\"host_ms_per_other_frame\": %.4f, \"after_host_ms_per_frame\": %.4f, \"mismatches\": %llu",
                  p.ok() ? "true" : "false", p.wall_s, static_cast<unsigned long long>(p.frames), p.total_fps(),
                  p.min_fps(), p.mean_fps(), p.busy_ms, p.busy_fraction(), p.host_ms, p.host_detected_ms,
                  p.host_other_ms, p.after_host_ms, static_cast<unsigned long long>(p.mismatches.count));
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
}

bool write_json(const std::string& path, const Settings& s, const Results& results)
{
    FILE* f = std::fopen(path.c_str(), "w");
    if (!f) {
        std::fprintf(stderr, "%s: cannot write %s\n", kTool, path.c_str());
        return false;
    }
    std::fprintf(f,
                 "{\"tool\": \"%s\", \"commit\": %s, \"device\": %s, \"device_spec\": %s, \"classifier\": %s, "
                 "\"frames_per_stream\": %d, \"format\": %s, \"source_writes\": %s, \"max_inflight\": %d, "
                 "\"batching\": %s, \"batch_wait_ns\": %llu, "
                 "\"profiling\": %s, \"element_props\": %s, \"after\": %s, \"timeout_s\": %.1f, \"rows\": [\n",
                 kTool, json_string(WALDBOOST_PIPELINE_BENCH_VERSION).c_str(), json_string(results.device).c_str(),
                 json_string(s.device).c_str(), json_string(results.classifier).c_str(), s.frames,
                 json_string(s.format).c_str(), json_string(s.source_writes).c_str(), s.element.max_inflight,
                 s.element.batching ? "true" : "false", static_cast<unsigned long long>(s.element.batch_wait_ns),
                 s.element.profiling ? "true" : "false", json_string(props_line(s)).c_str(),
                 json_string(s.after).c_str(), s.timeout_s);
    const std::vector<Row>& rows = results.rows;
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
        std::fprintf(stderr, "%s: cannot write %s\n", kTool, path.c_str());
        return false;
    }
    return true;
}

}  // namespace

std::string fmt(double v, const char* f)
{
    if (v < 0)
        return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

std::string classifier_name(const Settings& s)
{
    if (s.classifier_path.empty())
        return "embedded default (face)";
    return s.classifier_path.substr(s.classifier_path.find_last_of('/') + 1);
}

bool write_report(const Options& o, const Settings& s, const Results& results, bool print)
{
    const std::string md = table_text(s, results);
    if (print)
        std::fputs(md.c_str(), stdout);
    if (o.markdown_path) {
        FILE* f = std::fopen(o.markdown_path->c_str(), "w");
        if (!f || std::fputs(md.c_str(), f) < 0 || std::fclose(f) != 0) {
            std::fprintf(stderr, "%s: cannot write %s\n", kTool, o.markdown_path->c_str());
            return false;
        }
    }
    return !o.json_path || write_json(*o.json_path, s, results);
}

void say_frames(const FrameSet& set)
{
    size_t faces = 0;
    for (const Boxes& b : set.expected)
        faces += b.size();
    std::fprintf(stderr, "%s: %dx%d: %zu frames, %zu boxes in all (reference: one engine on %s)\n", kTool,
                 set.size.width, set.size.height, set.images.size(), faces, set.device.c_str());
}

void say_row(const Row& row)
{
    for (const Part* p : {&row.engine, &row.source, &row.element})
        if (p->ran && !p->error.empty())
            std::fprintf(stderr, "%s: %dx%d x%d failed: %s\n", kTool, row.size.width, row.size.height, row.streams,
                         p->error.c_str());
    std::fprintf(stderr, "%s: %dx%d x%d done: element %.1f fps in total, %llu mismatches\n", kTool, row.size.width,
                 row.size.height, row.streams, row.element.total_fps(),
                 static_cast<unsigned long long>(row.element.mismatches.count + row.engine.mismatches.count));
}

int exit_status(const std::vector<Row>& rows)
{
    uint64_t mismatches = 0;
    bool failed = false;
    for (const Row& r : rows) {
        mismatches += r.engine.mismatches.count + r.element.mismatches.count;
        failed = failed || (r.engine.ran && !r.engine.ok()) || (r.source.ran && !r.source.ok()) || !r.element.ok();
    }
    if (mismatches) {
        std::fprintf(stderr, "%s: %llu frames mismatched\n", kTool, static_cast<unsigned long long>(mismatches));
        return 1;
    }
    return failed ? 3 : 0;
}

}  // namespace pipeline_bench
