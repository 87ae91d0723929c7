/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared helpers for the tests: where the real test data is, and skipping
 * (or failing, when WALDBOOST_REQUIRE_TEST_DATA=1) when it is missing.
 */
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>
#include <variant>
#include <vector>

#include "core/model/model.h"

namespace waldboost_test {

inline std::string env_or(const char* name, const std::string& fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

inline bool file_exists(const std::string& path)
{
    struct stat st;
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

inline std::string test_data(const std::string& name)
{
    return env_or("WALDBOOST_TEST_DATA", "build/testdata") + "/" + name;
}

inline std::string cascade_path(const std::string& stem)
{
    return env_or("WALDBOOST_CASCADE_DIR", "/usr/share/opencv4/lbpcascades") + "/" + stem + ".xml";
}

/* Debian's opencv-data Haar cascades. */
inline std::string haar_dir() { return env_or("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades"); }

inline bool test_data_required() { return env_or("WALDBOOST_REQUIRE_TEST_DATA", "0") == "1"; }

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

/* A weak classifier's LBP feature: the tests build and read LBP classifiers. */
inline waldboost::LbpFeature& lbp(waldboost::WeakClassifier& w) { return std::get<waldboost::LbpFeature>(w.feature); }
inline const waldboost::LbpFeature& lbp(const waldboost::WeakClassifier& w)
{
    return std::get<waldboost::LbpFeature>(w.feature);
}

/* An LBP weak classifier's response table, which its feature holds. */
inline std::array<float, waldboost::LbpFeature::kTableSize>& lbp_table(waldboost::WeakClassifier& w)
{
    return std::get<waldboost::LbpFeature>(w.feature).responses;
}
inline const std::array<float, waldboost::LbpFeature::kTableSize>& lbp_table(const waldboost::WeakClassifier& w)
{
    return std::get<waldboost::LbpFeature>(w.feature).responses;
}

}  // namespace waldboost_test

/* Skips the test when a data file is missing, or fails it when the run
 * promised the data (tests/run-all.sh fetches it and sets the variable). */
#define WALDBOOST_REQUIRE_FILE(path)                                                                   \
    do {                                                                                               \
        if (!waldboost_test::file_exists(path)) {                                                      \
            if (waldboost_test::test_data_required())                                                  \
                FAIL() << "missing test data " << (path) << " (run tests/fetch-test-data.sh)";         \
            GTEST_SKIP() << "missing test data " << (path) << " (run tests/fetch-test-data.sh)";       \
        }                                                                                              \
    } while (0)
