#!/bin/bash
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Builds and runs the libFuzzer targets for the classifier loaders, the
# writer and the trainer's checkpoint decoder (docs/reliability.md). A
# standalone build: clang++ compiles the model sources (gst/core/model,
# without the embedded default classifier, and the opener of input files
# in gst/core/io) into each target, and the
# checkpoint sources into fuzz_checkpoint, with
# -fsanitize=fuzzer,address,undefined.
#
#   tests/fuzz/run-fuzzers.sh [SECONDS_PER_TARGET] [BUILD_DIR]
#       fuzz each target for SECONDS_PER_TARGET (default 60) of wall time,
#       as many at once as there are CPUs (FUZZ_JOBS overrides)
#   tests/fuzz/run-fuzzers.sh --regress [BUILD_DIR]
#       no fuzzing: run each target once over its seeds and
#       tests/fuzz/regressions/ (quick, deterministic; for CI)
#
# BUILD_DIR defaults to build-fuzz. It keeps the objects, the targets, the
# generated seeds, each target's growing corpus (corpus/TARGET), crash
# reproducers (artifacts/TARGET) and the logs (logs/TARGET.log).
# Exit status: 0 when every target ran clean; 1 on any crash, leak, timeout
# (-timeout=25 s per input), out-of-memory (-rss_limit_mb=2048), property
# violation ("==WALDBOOST FINDING==") or build failure.
#
# Needs clang++ with libFuzzer (Debian: clang libclang-rt-14-dev), python3,
# pkg-config and libxml2-dev; llvm-symbolizer (Debian: llvm) for readable
# stack traces. Environment: FUZZ_CXX (default clang++), FUZZ_JOBS,
# FUZZ_TARGETS (run only these, space-separated; all are built),
# FUZZ_ARGS (extra libFuzzer flags, e.g. -use_value_profile=1),
# FUZZ_CPU_LIMIT (stop each target after this many CPU seconds, for long
# runs on a busy machine: give a large SECONDS_PER_TARGET with it),
# WALDBOOST_CASCADE_DIR / WALDBOOST_HAAR_DIR (Debian's opencv-data).
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

mode=fuzz
if [ "${1:-}" = "--regress" ]; then
  mode=regress
  shift
fi
seconds=60
if [ "$mode" = fuzz ] && [ $# -gt 0 ]; then
  seconds=$1
  shift
fi
case "$seconds" in
  ''|*[!0-9]*) echo "run-fuzzers: SECONDS_PER_TARGET must be a whole number, got '$seconds'" >&2; exit 2 ;;
esac
build=${1:-build-fuzz}
case "$build" in /*) ;; *) build="$root/$build" ;; esac

cxx=${FUZZ_CXX:-clang++}
cascade_dir=${WALDBOOST_CASCADE_DIR:-/usr/share/opencv4/lbpcascades}
haar_dir=${WALDBOOST_HAAR_DIR:-/usr/share/opencv4/haarcascades}

# The targets and what each reads: seed folders (under the prepared seeds)
# and regression folders (under tests/fuzz/regressions).
targets="fuzz_waldboost_xml fuzz_opencv_cascade fuzz_roundtrip fuzz_model_writer fuzz_checkpoint"
seed_dirs_of() {
  case "$1" in
    fuzz_waldboost_xml) echo "waldboost" ;;
    fuzz_opencv_cascade) echo "opencv" ;;
    fuzz_roundtrip) echo "waldboost opencv" ;;
    fuzz_model_writer) echo "model" ;;
    fuzz_checkpoint) echo "checkpoint" ;;
  esac
}
run_targets=${FUZZ_TARGETS:-$targets}
for t in $run_targets; do
  case " $targets " in *" $t "*) ;; *) echo "run-fuzzers: no target '$t' (FUZZ_TARGETS); targets: $targets" >&2; exit 2 ;; esac
done
regression_dir_of() {
  case "$1" in
    fuzz_model_writer) echo "model" ;;
    fuzz_checkpoint) echo "checkpoint" ;;
    *) echo "xml" ;;
  esac
}
# Libfuzzer flags shared by both modes. 256 KiB inputs are far below the
# loaders' 10,000,000-byte cap (ModelLimits::kMaxFileBytes) and keep
# executions fast; fuzz_model_writer builds larger models itself.
# -timeout: fuzz_model_writer's largest inputs (several MB of XML written and
# read back under ASan) take 2-3 s alone and over 10 s on a loaded machine;
# 25 s still catches a hang.
common_flags=(-max_len=262144 -timeout=25 -rss_limit_mb=2048 -malloc_limit_mb=2048)

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:strict_string_checks=1:check_initialization_order=1:detect_stack_use_after_return=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
if [ -z "${ASAN_SYMBOLIZER_PATH:-}" ]; then
  for s in llvm-symbolizer llvm-symbolizer-14; do
    if command -v "$s" >/dev/null 2>&1; then
      export ASAN_SYMBOLIZER_PATH; ASAN_SYMBOLIZER_PATH=$(command -v "$s"); break
    fi
  done
fi

# ---- build ---------------------------------------------------------------
if ! command -v "$cxx" >/dev/null 2>&1; then
  echo "run-fuzzers: $cxx not found (Debian: apt-get install clang libclang-rt-14-dev)" >&2
  exit 1
fi
if ! "$cxx" --version 2>/dev/null | grep -qi clang; then
  echo "run-fuzzers: $cxx is not clang; libFuzzer needs clang (set FUZZ_CXX)" >&2
  exit 1
fi

mkdir -p "$build/obj" "$build/logs"
# Run from the build folder so that nothing lands in the source tree.
cd "$build"

xml_cflags=$(pkg-config --cflags libxml-2.0)
xml_libs=$(pkg-config --libs libxml-2.0)
# WALDBOOST_CLASSIFIER_DIR: what meson gives the model library (its
# default prefix), where the loader looks for a bare classifier name.
cxxflags="-std=c++17 -g -O1 -fno-omit-frame-pointer -ffp-contract=off -D_GLIBCXX_ASSERTIONS
  -fsanitize=address,undefined -fno-sanitize-recover=undefined -Wall -Wextra
  -DWALDBOOST_CLASSIFIER_DIR=\"/usr/local/share/waldboost/classifiers\""
# The model sources but the embedded default classifier (generated at build
# time, not needed by the loaders).
model_sources=""
for f in "$root"/gst/core/model/*.cpp; do
  case "$f" in */default_classifier.cpp) ;; *) model_sources="$model_sources $f" ;; esac
done
# The loaders open files with the inputs' opener.
model_sources="$model_sources $root/gst/core/io/input_file.cpp"
# What fuzz_checkpoint needs besides the model sources: the decoder,
# GrayImage (its negatives' pixels) and the atomic file writer it links to.
checkpoint_sources="$root/gst/core/training/checkpoint.cpp $root/gst/core/detection/image.cpp
  $root/gst/core/io/output_file.cpp"
inputs=$(ls $model_sources "$root"/gst/core/model/*.h $checkpoint_sources \
  "$root"/gst/core/training/checkpoint.h "$root"/gst/core/detection/image.h "$root"/gst/core/error.h \
  "$root"/gst/core/io/output_file.h "$root"/gst/core/io/input_file.h "$root"/gst/core/text.h \
  "$here"/*.cpp "$here"/*.h "$here/$(basename "$0")")
flags_id="$cxx $("$cxx" --version | head -n 1) $cxxflags $xml_cflags $xml_libs"

stale=no
if [ ! -f .build-flags ] || [ "$(cat .build-flags)" != "$flags_id" ]; then
  stale=yes
else
  for t in $targets; do [ -x "$t" ] || stale=yes; done
  for f in $inputs; do [ "$f" -nt .build-flags ] && stale=yes; done
fi

compile() {  # source object extra-flags...
  local src=$1 obj=$2; shift 2
  # shellcheck disable=SC2086
  "$cxx" $cxxflags "$@" -I"$root/gst" -I"$here" $xml_cflags -c "$src" -o "$obj"
}

if [ "$stale" = yes ]; then
  echo "run-fuzzers: building the targets in $build with $cxx"
  rm -f .build-flags
  pids=()
  objects=()
  for src in $model_sources; do
    obj="obj/$(basename "$src" .cpp).o"
    objects+=("$obj")
    compile "$src" "$obj" -fsanitize=fuzzer-no-link & pids+=($!)
  done
  checkpoint_objects=()
  for src in $checkpoint_sources; do
    obj="obj/$(basename "$src" .cpp).o"
    checkpoint_objects+=("$obj")
    compile "$src" "$obj" -fsanitize=fuzzer-no-link & pids+=($!)
  done
  for t in $targets; do
    compile "$here/$t.cpp" "obj/$t.o" -fsanitize=fuzzer-no-link & pids+=($!)
  done
  failed=no
  for p in "${pids[@]}"; do wait "$p" || failed=yes; done
  if [ "$failed" = yes ]; then
    echo "run-fuzzers: build failed" >&2
    exit 1
  fi
  for t in $targets; do
    extra=()
    [ "$t" = fuzz_checkpoint ] && extra=("${checkpoint_objects[@]}")
    # shellcheck disable=SC2086
    "$cxx" $cxxflags -fsanitize=fuzzer "obj/$t.o" ${extra[@]+"${extra[@]}"} "${objects[@]}" $xml_libs -o "$t"
  done
  echo "$flags_id" > .build-flags
fi

# ---- seeds ---------------------------------------------------------------
# Hand-written seeds from the repository, plus seeds derived at run time from
# Debian's cascades (no third-party model file is kept in the repository).
rm -rf seeds
mkdir -p seeds/waldboost seeds/opencv seeds/model seeds/checkpoint
for kind in waldboost opencv model checkpoint; do
  if [ -d "$here/seeds/$kind" ] && [ -n "$(ls -A "$here/seeds/$kind")" ]; then
    cp "$here/seeds/$kind"/* "seeds/$kind/"
  fi
done
if [ -d "$cascade_dir" ]; then
  python3 "$here/make-seeds.py" "$cascade_dir" "$haar_dir" seeds
else
  echo "run-fuzzers: $cascade_dir missing (Debian package opencv-data): hand-written seeds only" >&2
fi

# ---- run -------------------------------------------------------------------
status=0

# Prints "key value" pairs from a libFuzzer log: executions, exec/s, cov, ft,
# corpus size and peak RSS.
summarise() {  # log
  python3 - "$1" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
def last(pattern, default="?"):
    found = re.findall(pattern, text)
    return found[-1] if found else default
print("execs", last(r"stat::number_of_executed_units: (\d+)"))
print("execs_per_s", last(r"stat::average_exec_per_sec: +(\d+)"))
print("peak_rss_mb", last(r"stat::peak_rss_mb: +(\d+)"))
print("cov", last(r"\bcov: (\d+)"))
print("ft", last(r"\bft: (\d+)"))
print("corpus", last(r"\bcorp: (\d+)"))
PY
}

report() {  # target rc log cpu_user cpu_sys wall
  local t=$1 rc=$2 log=$3 user=$4 sys=$5 wall=$6
  local artifacts
  artifacts=$(find "artifacts/$t" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' \
    -o -name 'oom-*' \) -printf '%f\n' 2>/dev/null || true)
  declare -A s
  while read -r key value; do s[$key]=$value; done < <(summarise "$log")
  local cpu
  cpu=$(python3 -c "print(f'{$user + $sys:.1f}')")
  local verdict=OK
  if [ "$rc" -ne 0 ] || [ -n "$artifacts" ] || grep -q '==WALDBOOST FINDING==' "$log"; then
    verdict="FAILED (exit status $rc)"
    status=1
  fi
  printf '%s: %s executions in %s s wall (%s exec/s), CPU %s s (user %s + sys %s), cov %s ft %s, corpus %s, peak RSS %s MB: %s\n' \
    "$t" "${s[execs]}" "$wall" "${s[execs_per_s]}" "$cpu" "$user" "$sys" "${s[cov]}" "${s[ft]}" "${s[corpus]}" \
    "${s[peak_rss_mb]}" "$verdict"
  if [ "$verdict" != OK ]; then
    grep -E '==WALDBOOST FINDING==|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|SUMMARY:|Test unit written to|ALARM|out-of-memory' "$log" | head -n 20 | sed 's/^/    /'
    for a in $artifacts; do echo "    reproducer: $build/artifacts/$t/$a"; done
    echo "    log: $build/logs/$t.log"
  fi
}

# One target; writes logs/TARGET.{log,time,rc,wall}. The CPU time comes
# from wait4(2). With FUZZ_CPU_LIMIT (seconds) a target is interrupted
# (SIGINT: libFuzzer prints its final stats and exits) once it has used that
# much CPU, so a long run on a loaded machine still gets its CPU time.
run_one() {  # target args...
  local t=$1; shift
  local start end rc=0
  start=$(date +%s)
  python3 - "${FUZZ_CPU_LIMIT:-0}" "logs/$t.log" "logs/$t.time" "./$t" "$@" <<'PY' || rc=$?
import os, signal, subprocess, sys, time
limit, log, times, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
tick = os.sysconf("SC_CLK_TCK")
with open(log, "wb") as out:
    child = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT)
interrupted = False
while True:
    pid, status, usage = os.wait4(child.pid, os.WNOHANG)
    if pid:
        break
    if limit and not interrupted:
        try:
            with open("/proc/%d/stat" % child.pid) as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if (int(fields[11]) + int(fields[12])) / tick >= limit:
                child.send_signal(signal.SIGINT)
                interrupted = True
        except OSError:
            pass
    time.sleep(0.5)
with open(times, "w") as f:
    f.write("%.1f %.1f\n" % (usage.ru_utime, usage.ru_stime))
rc = os.waitstatus_to_exitcode(status)
# 72 is libFuzzer's exit status after an interrupt: the CPU limit was reached.
sys.exit(0 if interrupted and rc == 72 else rc)
PY
  echo "$rc" > "logs/$t.rc"
  end=$(date +%s)
  echo $((end - start)) > "logs/$t.wall"
}

# Sets ARGS to the libFuzzer arguments of one target for the chosen mode.
set_args() {  # target
  local t=$1 d
  local dirs=()
  for d in $(seed_dirs_of "$t"); do dirs+=("seeds/$d"); done
  dirs+=("$here/regressions/$(regression_dir_of "$t")")
  ARGS=("${common_flags[@]}")
  if [ "$mode" = regress ]; then
    # Every seed and regression file, run once each: no fuzzing, nothing written.
    local files=()
    while IFS= read -r -d '' d; do files+=("$d"); done \
      < <(find "${dirs[@]}" -type f ! -name '.*' -print0 2>/dev/null | sort -z)
    if [ "${#files[@]}" -eq 0 ]; then
      ARGS+=(-runs=1)  # no file: run the empty input once
    else
      ARGS+=("${files[@]}")
    fi
  else
    # Reproducers of an earlier run are dropped: keep one by copying it to
    # tests/fuzz/regressions/.
    rm -rf "artifacts/$t"
    mkdir -p "corpus/$t" "artifacts/$t"
    case "$t" in fuzz_model_writer|fuzz_checkpoint) ;; *) ARGS+=(-dict="$here/xml.dict") ;; esac
    # shellcheck disable=SC2206
    ARGS+=(-max_total_time="$seconds" -print_final_stats=1 -artifact_prefix="artifacts/$t/" ${FUZZ_ARGS:-}
           "corpus/$t" "${dirs[@]}")
  fi
}

jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$mode" = regress ] && jobs=1
if [ "$mode" = fuzz ]; then
  echo "run-fuzzers: $seconds s per target, $jobs at a time; logs in $build/logs"
fi
running=()
for t in $run_targets; do
  rm -f "logs/$t.log" "logs/$t.rc" "logs/$t.time" "logs/$t.wall"
  set_args "$t"
  run_one "$t" "${ARGS[@]}" &
  running+=($!)
  if [ "${#running[@]}" -ge "$jobs" ]; then
    wait "${running[0]}" || true
    running=("${running[@]:1}")
  fi
done
for p in "${running[@]}"; do wait "$p" || true; done

for t in $run_targets; do
  rc=$(cat "logs/$t.rc" 2>/dev/null || echo 1)
  read -r user sys < "logs/$t.time" || { user=0; sys=0; }
  wall=$(cat "logs/$t.wall" 2>/dev/null || echo "?")
  if [ "$mode" = regress ]; then
    ran=$(grep -c '^Executed ' "logs/$t.log" || true)
    if [ "$rc" -ne 0 ] || grep -q '==WALDBOOST FINDING==' "logs/$t.log"; then
      echo "$t: FAILED on the regression inputs (exit status $rc):"
      grep -E '^Running: |==WALDBOOST FINDING==|ERROR: |runtime error:|SUMMARY:' "logs/$t.log" | tail -n 8 | sed 's/^/    /'
      echo "    log: $build/logs/$t.log"
      status=1
    else
      echo "$t: $ran inputs, no finding (CPU $user s user, $sys s sys)"
    fi
  else
    report "$t" "$rc" "logs/$t.log" "$user" "$sys" "$wall"
  fi
done
exit $status
