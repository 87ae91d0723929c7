/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Shared helpers for the gtest programs: what they read from the
 * environment (support/environment.h: where the real test data is, the
 * device, the size of the comparisons), temporary folders, files and
 * commands (support/files.h), skipping (or failing, when
 * WALDBOOST_REQUIRE_TEST_DATA=1) when test data is missing, and the LBP
 * parts of a model.
 */
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <variant>

#include "core/model/model.h"
#include "support/environment.h"
#include "support/files.h"

namespace waldboost_test {

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
#define WALDBOOST_REQUIRE_FILE(path)                                                             \
    do {                                                                                         \
        if (!waldboost_test::file_exists(path)) {                                                \
            if (waldboost_test::test_data_required())                                            \
                FAIL() << "missing test data " << (path) << " (run tests/fetch-test-data.sh)";   \
            GTEST_SKIP() << "missing test data " << (path) << " (run tests/fetch-test-data.sh)"; \
        }                                                                                        \
    } while (0)
