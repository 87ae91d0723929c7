/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench: many streams in one process. For every frame
 * size and every number of streams N it times, in one run on the same real
 * frames, classifier and device:
 *
 *   engine   N engines (core/opencl/engine/engine.h) on the device, one thread
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
 *
 * The parts, one file each: options (the command line), frames (the frames
 * and the reference boxes), element (the plugin and its properties), row
 * (a row's parts), engines and pipelines with streams (the parts
 * themselves), compare (the check), timing (the figures), report (what is
 * printed and written).
 */
#include <cstdio>
#include <exception>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "element.h"
#include "frames.h"
#include "options.h"
#include "report.h"
#include "row.h"

using namespace pipeline_bench;

int main(int argc, char** argv)
{
    Options options;
    if (!parse_options(&argc, &argv, &options))
        return 2;
    if (!find_plugin(options.plugin_dir)) {
        std::fprintf(stderr,
                     "%s: the waldboostdetect element was not found: set GST_PLUGIN_PATH to the folder "
                     "with libgstwaldboost.so, or give --plugin-dir\n",
                     kTool);
        return 1;
    }

    Settings& s = options.settings;
    Results results;
    results.classifier = classifier_name(s);
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
            results.device = set.device;
            say_frames(set);
            for (const int n : options.streams_at[k]) {
                results.rows.push_back(run_row(s, classifier, set, n, options.time_engines, options.time_source));
                say_row(results.rows.back());
                write_report(options, s, results, false);
            }
        }
    } catch (const UsageError& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 1;
    }

    if (!write_report(options, s, results, true))
        return 1;
    return exit_status(results.rows);
}
