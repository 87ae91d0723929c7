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

# One closing line in the plain "N passed, N failed" form.
python3 - build/meson-logs/testlog.json <<'PY'
import json, sys
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
for line in open(sys.argv[1]):
    result = json.loads(line).get("result", "")
    key = "OK" if result in ("OK", "EXPECTEDFAIL") else "SKIP" if result == "SKIP" else "FAIL"
    counts[key] += 1
print(f"{counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
exit $status
