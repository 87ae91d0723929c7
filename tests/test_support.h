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

#include <array>
#include <cstdlib>
#include <string>
#include <variant>

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
