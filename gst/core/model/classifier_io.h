/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reading and writing classifier files. Both readers use libxml2 with the
 * network, DTDs and entity substitution off: classifier files are untrusted.
 */
#pragma once

#include <string>

#include "core/model/model.h"

namespace waldboost {

enum class ClassifierFormat {
    WaldBoostXml,  /* <WaldBoostClassifier ...> (see docs/classifiers.md) */
    OpenCvCascade, /* <opencv_storage><cascade> with LBP features, depth-1 trees */
};

/* Loads a classifier, detecting the format from the content, and validates
 * it. Throws Error with a message naming `path`, the line or element and the
 * problem. Its kind: UnsupportedClassifier for a valid classifier this build
 * cannot run (a Haar or HOG cascade, deeper trees, early acceptance...: the
 * message says "not supported"), ClassifierFile for any other problem with
 * the file (missing, unreadable, too large, not XML, invalid), and
 * OutOfResources when libxml2 runs out of memory. */
Classifier load_classifier_file(const std::string& path);

/* A classifier named by its bare file name (haarcascade_eye.xml, or
 * without .xml) is read from the current folder, where it seldom is: the
 * full path of a file of that name in the folders Debian installs
 * classifiers in (opencv-data's cascades, waldboost-classifiers) or this
 * build's classifier folder. Empty when the name has a folder or none of
 * them holds it. load_classifier_file() names it when `path` is missing. */
std::string installed_classifier(const std::string& path);

/* Same for a buffer already in memory; `source_name` is used in messages. */
Classifier load_classifier_memory(const std::string& xml, const std::string& source_name);

/* Which format a buffer holds; throws Error when it is neither. */
ClassifierFormat detect_classifier_format(const std::string& xml, const std::string& source_name);

/* Serialises to WaldBoost XML. Sum resets and the final threshold use the
 * documented extension attributes, so every model round-trips exactly
 * (floats are written with 9 significant digits). */
std::string write_waldboost_xml(const Classifier& classifier);

}  // namespace waldboost
