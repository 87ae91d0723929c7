/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * What every test reads from its environment (tests/meson.build sets it):
 * where the real test images, Debian's cascades and this build's converted
 * classifiers are, the device under test, whether the images are required,
 * and the size of the comparisons. The one place for these, included by
 * tests/test_support.h for the gtest programs and by the element tests'
 * harness (GstCheck, no gtest), so that both read the same variables with
 * the same defaults.
 */
#pragma once

#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <string>
#include <vector>

namespace waldboost_test {

/* The variable's value, or `fallback` when it is unset or empty. */
inline std::string env_or(const char* name, const std::string& fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

/* A regular file (a folder or a missing file is not one). */
inline bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

/* A file of the real test images (WALDBOOST_TEST_DATA, tests/fetch-test-data.sh). */
inline std::string test_data(const std::string& name)
{
    return env_or("WALDBOOST_TEST_DATA", "build/testdata") + "/" + name;
}

/* The run promised the test images (WALDBOOST_REQUIRE_TEST_DATA=1): a test
 * without them fails rather than skips. */
inline bool test_data_required() { return env_or("WALDBOOST_REQUIRE_TEST_DATA", "0") == "1"; }

/* Debian's opencv-data LBP cascades. */
inline std::string cascade_path(const std::string& stem)
{
    return env_or("WALDBOOST_CASCADE_DIR", "/usr/share/opencv4/lbpcascades") + "/" + stem + ".xml";
}

/* Debian's opencv-data Haar cascades. */
inline std::string haar_dir() { return env_or("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades"); }
inline std::string haar_cascade(const std::string& stem) { return haar_dir() + "/" + stem + ".xml"; }
/* The Russian licence-plate cascade, the one in OpenCV's old tree format:
 * opencv-data 4.6 (Debian 12) spells it "licence", 4.10 (Debian 13)
 * "license". */
inline std::string licence_plate_cascade()
{
    const std::string old_name = haar_cascade("haarcascade_licence_plate_rus_16stages");
    struct stat st;
    return stat(old_name.c_str(), &st) == 0 ? old_name : haar_cascade("haarcascade_license_plate_rus_16stages");
}

/* This build's WaldBoost XML copies of Debian's cascades (classifiers/). */
inline std::string converted_classifier(const std::string& stem)
{
    return env_or("WALDBOOST_CONVERTED_DIR", "build/classifiers") + "/" + stem + ".xml";
}

/* The device the OpenCL tests run on: WALDBOOST_TEST_DEVICE, else "auto". */
inline std::string test_device() { return env_or("WALDBOOST_TEST_DEVICE", "auto"); }

/* How many of a comparison's `full` cases to run: all of them, or with
 * WALDBOOST_TEST_SIZE=small (the sanitizer run, tests/sanitizers.sh) the
 * first `small`. The same code paths on fewer random classifiers and
 * frames; the first cases of a seeded sequence are the same in both sizes,
 * so an instrumented run reuses the kernels the plain run compiled. */
inline bool small_size() { return env_or("WALDBOOST_TEST_SIZE", "full") == "small"; }
inline size_t cases(size_t full, size_t small) { return small_size() ? std::min(full, small) : full; }

/* All of `items`, or at the small size `small` of them spread over the list
 * (the first and the last among them), for comparisons whose items are not
 * seeded in sequence, such as the Debian cascades. */
template <class T>
std::vector<T> sample(const std::vector<T>& items, size_t small)
{
    if (!small_size() || items.size() <= small)
        return items;
    if (small < 2)
        return {items.front()};
    std::vector<T> chosen;
    for (size_t i = 0; i < small; ++i)
        chosen.push_back(items[i * (items.size() - 1) / (small - 1)]);
    return chosen;
}

}  // namespace waldboost_test
