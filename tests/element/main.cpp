/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * main() of every element test program: GstCheck's initialisation, then the
 * test-data rule, then the concern's test case (element_case(), defined by
 * the concern's file) as the suite "waldboostdetect".
 *
 * The test-data rule: meson's table of cases (meson.build beside this file)
 * sets WALDBOOST_CASE_NEEDS_DATA=1 for the cases that need the real test
 * images (tests/fetch-test-data.sh). When they are missing such a case exits
 * 77 (skipped), or, with WALDBOOST_REQUIRE_TEST_DATA=1, fails saying so. Run
 * by hand without WALDBOOST_CASE_NEEDS_DATA, a case is taken to need them.
 */
#include "harness.h"

using namespace element_test;

GST_START_TEST(test_missing_test_data)
{
    fail("missing test data %s (run tests/fetch-test-data.sh); WALDBOOST_REQUIRE_TEST_DATA=1 requires it",
         test_data("astronaut.png").c_str());
}
GST_END_TEST;

static bool case_needs_test_data() { return env_or("WALDBOOST_CASE_NEEDS_DATA", "1") != "0"; }

int main(int argc, char** argv)
{
    gst_check_init(&argc, &argv);
    TCase* tc;
    if (case_needs_test_data() && !have_test_data()) {
        if (!test_data_required()) {
            g_print("SKIP: missing test data %s (run tests/fetch-test-data.sh)\n", test_data("astronaut.png").c_str());
            return 77;
        }
        /* Only here when the data is required: the case fails. */
        tc = tcase_create("missing-test-data");
        tcase_add_test(tc, test_missing_test_data);
    } else {
        tc = element_case();
        /* Generous: a cold kernel cache builds each program once (seconds on PoCL). */
        tcase_set_timeout(tc, 240);
    }
    Suite* s = suite_create("waldboostdetect");
    suite_add_tcase(s, tc);
    return gst_check_run_suite(s, "waldboostdetect", __FILE__);
}
