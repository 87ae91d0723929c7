/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-convert: reads a classifier in any supported format (an OpenCV
 * LBP cascade or WaldBoost XML), validates it and writes WaldBoost XML.
 */
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/io/output_file.h"
#include "core/model/classifier_io.h"
#include "core/text.h"

namespace {

const char kUsage[] = "Usage: waldboost-convert [--label NAME] INPUT OUTPUT\n"
                      "\n"
                      "Converts a classifier (an OpenCV LBP or Haar cascade, or WaldBoost XML)\n"
                      "to WaldBoost XML. OUTPUT \"-\" writes to standard output.\n"
                      "\n"
                      "  --label NAME  the label carried by detections (default: the input's\n"
                      "                classifierName, or the cascade's file name)\n"
                      "  --help        show this help\n";

int usage_error(const std::string& message)
{
    std::fprintf(stderr, "waldboost-convert: %s\n%s", message.c_str(), kUsage);
    return 2;
}

}  // namespace

int main(int argc, char** argv)
{
    std::string label;
    bool have_label = false;
    std::vector<std::string> files;
    bool options_done = false;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (options_done || arg == "-" || arg.empty() || arg[0] != '-') {
            files.push_back(arg);
        } else if (arg == "--") {
            options_done = true;
        } else if (arg == "--help" || arg == "-h") {
            std::fputs(kUsage, stdout);
            return 0;
        } else if (arg == "--label") {
            if (i + 1 >= argc)
                return usage_error("--label needs a value");
            label = argv[++i];
            have_label = true;
        } else if (arg.compare(0, 8, "--label=") == 0) {
            label = arg.substr(8);
            have_label = true;
        } else {
            return usage_error("unknown option " + arg);
        }
    }
    if (files.size() != 2)
        return usage_error("expected INPUT and OUTPUT");
    const std::string& input = files[0];
    const std::string& output = files[1];

    try {
        waldboost::Classifier classifier = waldboost::load_classifier_file(input);
        if (have_label) {
            classifier.label = label;
            waldboost::validate(classifier, "--label");
        }
        const std::string text = waldboost::write_waldboost_xml(classifier);
        /* A device, FIFO or link named as OUTPUT stays what it is
         * (core/io/output_file.h). */
        if (output == "-") {
            waldboost::io::write_all(STDOUT_FILENO, text, "standard output");
        } else {
            waldboost::io::write_output_file(output, text);
        }
        std::fprintf(stderr,
                     "waldboost-convert: %s -> %s: label \"%s\", window %dx%d, %zu weak classifiers, %zu stages\n",
                     waldboost::printable(input).c_str(), waldboost::printable(output).c_str(),
                     waldboost::printable(classifier.label).c_str(), classifier.window_width, classifier.window_height,
                     classifier.weak.size(), classifier.stage_count());
    } catch (const std::exception& e) {
        std::fprintf(stderr, "waldboost-convert: %s\n", e.what());
        return 1;
    }
    return 0;
}
