#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The whole test suite on a fresh Debian 12 machine, in one command:
# installs the missing packages, builds, fetches the real test images from
# Debian packages and runs every test through the Meson test harness.
#   tests/run-all.sh [extra meson test arguments]
# What each phase runs, and where each suite runs, is in
# docs/reliability.md ("The suites and where they run"). At the end it
# prints the last lines of each failed test, each phase's time and the 10
# slowest tests, then one closing line "N passed, N failed, N skipped".
set -eu
cd "$(dirname "$0")/.."

# Phase times, one "name seconds exit-status" line each.
times=$(mktemp)
trap 'rm -f "$times"' EXIT
phase() {  # NAME COMMAND...: runs COMMAND, records its time, returns its status
  name=$1
  shift
  start=$(date +%s)
  rc=0
  "$@" || rc=$?
  echo "$name $(($(date +%s) - start)) $rc" >> "$times"
  return $rc
}
# A new build folder gets line tables only (-g1) in place of full debug
# information: stack traces, valgrind and gdb still name file and line, and
# GCC compiles the tests faster (docs/history.md, "Figures behind the code's
# choices"). Warnings (meson's level 2, the project's default) are errors
# there. A folder that exists keeps its options.
build() {
  if [ -f build/build.ninja ]; then
    meson setup --reconfigure build >/dev/null
  else
    meson setup build -Dwerror=true -Ddebug=false -Dc_args=-g1 -Dcpp_args=-g1
  fi
  ninja -C build
}

phase install build-aux/install-deps.sh --tests
# The Debian roots of the debian13 and packages phases, made (or found in
# their cache) in the background while the host builds and tests: making
# one is mostly downloading and unpacking. Those phases wait for it, and
# make a root themselves, failing loudly, where this did not.
roots_log=$(mktemp)
trap 'rm -f "$times" "$roots_log"' EXIT
(tests/debian/debian13-suite.sh --root-only && tests/debian/package-test.sh --roots-only) > "$roots_log" 2>&1 &
roots_pid=$!
wait_for_roots() {
  wait "$roots_pid" || { echo "run-all: making the Debian roots in the background failed:" >&2; tail -20 "$roots_log" >&2; }
}
# The C and C++ files changed since the tree was formatted keep
# .clang-format's layout (a failure here fails the run at the end).
format_status=0
phase format build-aux/check-format.sh || format_status=$?
phase build build
phase test-data tests/fetch-test-data.sh build/testdata

status=0
export WALDBOOST_REQUIRE_TEST_DATA=1
phase plain-suite meson test -C build --print-errorlogs "$@" || status=$?

# The core and element suites again on Debian 13 (GStreamer 1.26, PoCL 6,
# OpenCV 4.10) in a debootstrap root cached in /var/cache/waldboost-gst
# (tests/debian/debian13-suite.sh). Without the root and no mirror to make
# it from, it fails, and so does the run. roots-wait is the time still
# spent waiting for the roots made in the background (none once cached).
# The Debian phases come before the fuzzers and the sanitizer run, so that
# making the roots never loads the machine under the sanitizer suite,
# whose times then say what the suite costs.
debian13_status=0
phase roots-wait wait_for_roots
phase debian13 tests/debian/debian13-suite.sh || debian13_status=$?
# The Debian packages built on Debian 12 and in a Debian 13 root, then
# installed and run in clean roots of both (tests/debian/package-test.sh).
package_status=0
phase packages tests/debian/package-test.sh || package_status=$?

# The classifier loaders and the checkpoint decoder under libFuzzer (clang,
# ASan + UBSan), a bounded time per target (WALDBOOST_FUZZ_SECONDS, default
# 30: docs/reliability.md, "Fuzzing", says what 30 s reach against 48).
fuzz_status=0
phase fuzzers tests/fuzz/run-fuzzers.sh "${WALDBOOST_FUZZ_SECONDS:-30}" build-fuzz || fuzz_status=$?

# The suite again in a second build under ASan + UBSan (valgrind and ASan do
# not mix: the valgrind suite runs in the plain build above).
sanitizer_status=0
phase sanitizer-build tests/sanitizers.sh --build-only build-asan || sanitizer_status=$?
if [ $sanitizer_status -eq 0 ]; then
  phase sanitizer-suite tests/sanitizers.sh build-asan || sanitizer_status=$?
fi

# The phase table, the slowest tests, and one closing line in the plain
# "N passed, N failed" form: both meson runs, plus the fuzzing run and the
# format check as one more test each.
python3 - "$fuzz_status" "$sanitizer_status" "$times" "$format_status" "$debian13_status" <<'PY'
import glob, json, sys
fuzz_status, sanitizer_status, times_path, format_status, debian13_status = sys.argv[1:6]
counts = {"OK": 0, "FAIL": 0, "SKIP": 0}
counts["OK" if fuzz_status == "0" else "FAIL"] += 1
counts["OK" if format_status == "0" else "FAIL"] += 1
asan_logs = glob.glob("build-asan/meson-logs/testlog.json")
if not asan_logs:
    counts["FAIL"] += 1
elif sanitizer_status != "0":
    counts["FAIL"] += 1  # e.g. the plugin check after the tests
debian13_logs = glob.glob("build-debian13/meson-logs/testlog.json")
if debian13_status != "0" and not debian13_logs:
    counts["FAIL"] += 1  # no root, or the build failed
durations = []
for path in ["build/meson-logs/testlog.json"] + asan_logs + debian13_logs:
    run = "sanitizers" if path.startswith("build-asan") else "debian13" if path.startswith("build-debian13") else "plain"
    for line in open(path):
        test = json.loads(line)
        result = test.get("result", "")
        key = "OK" if result in ("OK", "EXPECTEDFAIL") else "SKIP" if result == "SKIP" else "FAIL"
        counts[key] += 1
        durations.append((test.get("duration", 0.0), run, test.get("name", "?")))
        if key == "FAIL":
            # Again here, where the end of a long log shows it.
            output = ((test.get("stdout") or "") + (test.get("stderr") or "")).rstrip().split("\n")
            print(f"\nrun-all: {test.get('name', '?')} ({run}) ended {result}; its last lines:")
            print("\n".join("  " + l[:300] for l in output[-40:]))

print("\nrun-all: time per phase")
total = 0
for line in open(times_path):
    name, seconds, rc = line.split()
    total += int(seconds)
    print(f"  {name:<16} {int(seconds):>6} s{'' if rc == '0' else '  (exit ' + rc + ')'}")
print(f"  {'total':<16} {total:>6} s ({total / 60:.1f} min)")
print("run-all: the 10 slowest tests")
for seconds, run, name in sorted(durations, reverse=True)[:10]:
    print(f"  {seconds:>8.1f} s  {run:<10} {name}")
print(f"{counts['OK']} passed, {counts['FAIL']} failed, {counts['SKIP']} skipped")
PY
[ $format_status -eq 0 ] || { echo "run-all: files are not formatted (build-aux/check-format.sh --fix)" >&2; status=1; }
[ $package_status -eq 0 ] || { echo "run-all: the package test failed (its last lines say what)" >&2; status=1; }
[ $fuzz_status -eq 0 ] || { echo "run-all: the fuzzers found a problem (build-fuzz/logs)" >&2; status=1; }
[ $debian13_status -eq 0 ] || { echo "run-all: the Debian 13 run failed (the debian13 phase's output, build-debian13/meson-logs)" >&2; status=1; }
[ $sanitizer_status -eq 0 ] || { echo "run-all: the sanitizer run failed (build-asan/meson-logs)" >&2; status=1; }
exit $status
