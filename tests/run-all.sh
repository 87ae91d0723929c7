#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian 12 machine, in one command:
# installs the missing packages, builds, fetches the real test images from
# Debian packages and runs every test through the Meson test harness.
#   tests/run-all.sh [extra meson test arguments]
set -eu
cd "$(dirname "$0")/.."

build-aux/prepare.sh --tests

status=0
WALDBOOST_REQUIRE_TEST_DATA=1 meson test -C build --print-errorlogs "$@" || status=$?

# The classifier loaders and the checkpoint decoder under libFuzzer (clang,
# ASan + UBSan), a bounded time per target (WALDBOOST_FUZZ_SECONDS, default
# 48: five targets in the 240 s that four took at 60 s).
fuzz_status=0
tests/fuzz/run-fuzzers.sh "${WALDBOOST_FUZZ_SECONDS:-48}" build-fuzz || fuzz_status=$?

# The whole suite again in a second build under ASan + UBSan (valgrind and
# ASan do not mix: the valgrind suite runs in the plain build above).
sanitizer_status=0
tests/sanitizers.sh build-asan --no-suite valgrind || sanitizer_status=$?

# One closing line in the plain "N passed, N failed" form: both meson runs,
# plus the fuzzing run as one more test.
python3 - "$fuzz_status" "$sanitizer_status" <<'PY'
import glob, json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
counts["OK" if sys.argv[1] == "0" else "FAIL"] += 1
# The sanitizer script may split its run into several meson logs.
asan_logs = sorted(glob.glob("build-asan/meson-logs/*.json"))
if not asan_logs:
    counts["FAIL"] += 1
elif sys.argv[2] != "0":
    counts["FAIL"] += 1  # e.g. the plugin check after the tests
for path in ["build/meson-logs/testlog.json"] + asan_logs:
    for line in open(path):
        result = json.loads(line).get("result", "")
        key = "OK" if result in ("OK", "EXPECTEDFAIL") else "SKIP" if result == "SKIP" else "FAIL"
        counts[key] += 1
print(f"{counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
[ $fuzz_status -eq 0 ] || { echo "run-all: the fuzzers found a problem (build-fuzz/logs)" >&2; status=1; }
[ $sanitizer_status -eq 0 ] || { echo "run-all: the sanitizer run failed (build-asan/meson-logs)" >&2; status=1; }
exit $status
