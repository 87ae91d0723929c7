#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The test suite under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer (docs/reliability.md, "Sanitizers"; "The
# suites and where they run" says which suites run here):
#   tests/sanitizers.sh [--build-only] [BUILD_DIR] [extra meson test options]
# configures BUILD_DIR (default build-asan) with
#   meson setup -Db_sanitize=address,undefined -Db_lundef=false
#     -Doptimization=1 -Ddebug=false -Dc_args=-g1 -Dcpp_args=-g1
# builds what the tests run there need (the libraries, the GStreamer plugin
# module, the tools and test programs they run; the build itself runs the
# instrumented waldboost-convert), runs every `meson test` test there but
# the suites listed below, then loads the instrumented plugin into
# gst-inspect-1.0. With --build-only it stops after the build. Extra
# arguments go to `meson test` (test names, --suite, --repeat ...). Real
# test images come from build/testdata (fetched when missing, as
# tests/run-all.sh does). Exit status 0 only when everything passed with no
# sanitizer report.
#
# Dependencies: those of tests/run-all.sh (build-aux/install-deps.sh
# --tests): clang and libclang-rt-14-dev (GCC's libasan and libubsan come
# with g++, for SANITIZER_CXX=g++).
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build_only=no
if [ "${1:-}" = "--build-only" ]; then
  build_only=yes
  shift
fi
build=${1:-build-asan}
[ $# -gt 0 ] && shift
case "$build" in /*) ;; *) build="$root/$build" ;; esac

# b_lundef=false: meson links shared modules with -Wl,--no-undefined by
# default, but an instrumented module leaves the sanitizer runtime's symbols
# to the program that loads it, so the GStreamer plugin would not link.
# -O1 and line tables only (-g1): the sanitizers' usual level, and GCC
# compiles instrumented code about twice as fast as at -O2 -g (a large test
# file: 56 s against 111 s on one core); reports still name file and line.
setup_options="-Db_sanitize=address,undefined -Db_lundef=false -Doptimization=1 -Ddebug=false -Dwerror=true"
setup_options="$setup_options -Dc_args=-g1 -Dcpp_args=-g1"
# Clang (Debian's clang, which the fuzzers use too) compiles instrumented
# code in a little over half GCC's time (docs/history.md, "The suite's time
# on a cold machine"), and the plain build already checks GCC. SANITIZER_CC
# and SANITIZER_CXX choose others, for a new build folder only: meson keeps
# a folder's compiler.
if [ -f "$build/build.ninja" ]; then
  # shellcheck disable=SC2086
  meson setup --reconfigure "$build" $setup_options >/dev/null
else
  # shellcheck disable=SC2086
  CC=${SANITIZER_CC:-clang} CXX=${SANITIZER_CXX:-clang++} meson setup "$build" $setup_options
fi

# ---- sanitizer settings (also for the instrumented tools run by the build) ----
# detect_leaks=1: LeakSanitizer at every exit; tests/lsan.supp lists the
#   third-party code that keeps memory until exit by design (PoCL, the
#   OpenCL ICD loader, PoCL's in-process LLVM/Clang, GObject's type system,
#   GLib's quark table).
# check_initialization_order=1, strict_init_order=1: static-initialisation
#   order bugs across translation units.
# detect_stack_use_after_return=1: dangling references to locals.
# use_sigaltstack=0: needed with PoCL. PoCL compiles kernels with LLVM in
#   the calling thread, and LLVM installs its own alternate signal stack
#   there, allocated with malloc. When such a thread ends (a GStreamer
#   streaming thread, say), ASan unmaps "its" alternate stack, finds LLVM's
#   heap block instead and aborts: "AddressSanitizer failed to deallocate
#   0x134c0 (79040) bytes ... CHECK failed: sanitizer_posix.cpp:61 unable to
#   unmap" (seen in the load test). With the option ASan leaves alternate
#   stacks alone; a stack overflow is then a plain SIGSEGV, still a failure.
#   Neither protect_shadow_gap=0 (for drivers that map fixed low addresses)
#   nor detect_odr_violation=0 is needed: PoCL, LLVM and the kernels PoCL
#   dlopens are not instrumented, ASan only sees their heap calls.
# fast_unwind_on_malloc=1 (the default, written out): allocation stacks by
#   frame pointers, which our code keeps (meson adds
#   -fno-omit-frame-pointer with the sanitizers). The full unwinder costs a
#   DWARF walk per allocation: classifier-io (one program then), which
#   parses megabytes of XML, took 273 s with it and under 70 s without.
#   Programs that load GStreamer set fast_unwind_on_malloc=0 in their meson
#   environment (tests/meson.build, element_test_env): GObject's type
#   registrations, which tests/lsan.supp names, are allocated through
#   g_malloc, which keeps no frame pointer, and only the full unwinder
#   reaches them (with the fast one, load-and-soak
#   reports "16384 bytes leaked ... in g_malloc" with no caller). The
#   suppressions by library (PoCL, LLVM, the ICD loader) match either way.
# quarantine_size_mb=64 (default 256): freed blocks are kept from reuse for
#   less long, so the soak test's resident memory levels off sooner.
# UBSan: the runtime continues after a report unless told otherwise;
#   halt_on_error=1 makes the first one fail the test, with its stack.
asan_options="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1"
asan_options="$asan_options:use_sigaltstack=0:fast_unwind_on_malloc=1:quarantine_size_mb=64"
asan_options="$asan_options${ASAN_EXTRA_OPTIONS:+:$ASAN_EXTRA_OPTIONS}"
export ASAN_OPTIONS="$asan_options"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# Our kernel binary cache under the build folder, cold: the engine's build
# and cache paths run instrumented. (The element tests set their own
# WALDBOOST_CACHE_DIR.) PoCL's own cache is the one the plain test run
# filled (~/.cache/pocl unless POCL_CACHE_DIR says otherwise): PoCL's
# compiler is not our code, and compiling the engine's hundreds of kernel
# variants again inside instrumented processes took over 20 minutes on two
# cores, most of the CI time limit.
cache="$build/sanitizer-cache"
export WALDBOOST_CACHE_DIR="$cache/waldboost"
mkdir -p "$WALDBOOST_CACHE_DIR"

# ---- what runs here --------------------------------------------------------
# The suites left out of this run, and why:
# - valgrind: valgrind cannot run an instrumented program (ASan's shadow
#   memory and allocator are in the way); the plain build runs them;
# - python, stock-tools: the stock python3, gst-launch-1.0 and
#   gst-inspect-1.0 would load the instrumented plugin without the ASan
#   runtime (the plugin is loaded into gst-inspect-1.0 below instead);
# - opencv: the agreement with OpenCV is a question of results, which the
#   plain run answers. Instrumented, it took over 400 s (OpenCV's own
#   allocations each unwound in full), and the code it runs of ours, the
#   CPU reference with real cascades on real images, runs here in
#   reference-detector, engine-lbp and engine-haar;
# - docs: the docs' links, no code of ours.
skip_suites="valgrind python stock-tools opencv docs"
# Only what the tests run here need is built: their programs and the targets
# they depend on (meson introspect), not the benchmarks' OpenCV-only helpers
# or the programs of the suites left out.
targets=$(python3 - "$build" $skip_suites <<'PY'
import json, os, subprocess, sys
build, skip = sys.argv[1], set(sys.argv[2:])
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", what, build]))
files = {t["id"]: t["filename"] for t in introspect("--targets")}
wanted = set()
for test in introspect("--tests"):
    if any(suite.split(":")[-1] in skip for suite in test["suite"]):
        continue
    for target in test["depends"]:
        wanted.update(files.get(target, []))
    if test["cmd"] and test["cmd"][0].startswith(build + "/"):
        wanted.add(test["cmd"][0])
print(" ".join(sorted(os.path.relpath(f, build) for f in wanted)))
PY
)
# shellcheck disable=SC2086
ninja -C "$build" $targets
[ "$build_only" = yes ] && exit 0

# GStreamer scans plugins in a helper, gst-plugin-scanner, which is not
# instrumented and so cannot load our instrumented plugin ("ASan runtime
# does not come first in initial library list"): the element would be
# missing. The wrapper preloads the runtimes the plugin was linked with into
# the scanner, without leak detection there: the scanner loads every system
# plugin, whose own leaks are not ours. The tests then load only the plugins
# they use.
plugin_dir="$build/gst/element"
plugin="$plugin_dir/libgstwaldboost.so"
runtimes=""
if [ -f "$plugin" ]; then
  # GCC links its shared runtimes into the module; clang leaves the symbols
  # to the program, and its shared runtime (ASan's, with UBSan's handlers
  # inside) has to be named.
  runtimes=$(ldd "$plugin" | awk '/lib(asan|ubsan)\.so/ { print $3 }' | tr '\n' ' ')
  if [ -z "$runtimes" ]; then
    compiler=$(python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["command"].split()[0])' \
      < "$build/compile_commands.json")
    runtimes=$("$compiler" -print-file-name=libclang_rt.asan-x86_64.so)
  fi
fi
scanner="$(pkg-config --variable=pluginscannerdir gstreamer-1.0 2>/dev/null || true)/gst-plugin-scanner"
if [ -x "$scanner" ]; then
  cat > "$cache/gst-plugin-scanner" <<EOF
#!/bin/sh
# Written by tests/sanitizers.sh: the stock scanner with the sanitizer runtimes.
LD_PRELOAD="$runtimes" ASAN_OPTIONS="\$ASAN_OPTIONS:detect_leaks=0" exec "$scanner" "\$@"
EOF
  chmod +x "$cache/gst-plugin-scanner"
  export GST_PLUGIN_SCANNER="$cache/gst-plugin-scanner"
fi

# ---- test data ------------------------------------------------------------
# The tests read WALDBOOST_TEST_DATA from meson's test environment, which
# points at $build/testdata: share build/testdata with the main build.
if [ ! -s "$root/build/testdata/Megamind.avi" ]; then
  tests/fetch-test-data.sh "$root/build/testdata"
fi
if [ ! -e "$build/testdata" ] || [ -L "$build/testdata" ]; then
  ln -sfn "$root/build/testdata" "$build/testdata"
fi

# ---- the test suite ---------------------------------------------------------
# The load and soak test runs 8 x 10,000 and 100,000 frames: hours when
# instrumented. Fewer frames still drive every code path many times over
# (20,000 is the least the soak accepts: it compares memory at 10,000 and at
# the end).
export WALDBOOST_LOAD_FRAMES="${WALDBOOST_LOAD_FRAMES:-500}"
export WALDBOOST_SOAK_FRAMES="${WALDBOOST_SOAK_FRAMES:-20000}"
# ASan's quarantine and stack depot move resident memory between samples
# by far more than the plain build does (docs/history.md, "Figures behind
# the code's choices"): the soak's bound there is 8 MB, i.e. a leak of 800
# bytes a frame still fails it. The plain build keeps 1 MB.
export WALDBOOST_SOAK_GROWTH_LIMIT_KIB="${WALDBOOST_SOAK_GROWTH_LIMIT_KIB:-8192}"
export WALDBOOST_REQUIRE_TEST_DATA=1
# The comparisons with the reference at their small size
# (tests/support/environment.h, cases() and sample()): the same code paths
# on fewer random classifiers, frames and cascades; the plain run compares
# them all.
export WALDBOOST_TEST_SIZE=small
no_suites=""
for suite in $skip_suites; do no_suites="$no_suites --no-suite $suite"; done
status=0
# Instrumented code runs several times slower. One run for every suite, so
# that two cores stay busy to the end: the element tests turn LeakSanitizer
# off in their own meson environment (tests/element/meson.build says why).
# shellcheck disable=SC2086
meson test -C "$build" --no-rebuild --print-errorlogs $no_suites \
  --timeout-multiplier "${SANITIZER_TIMEOUT_MULTIPLIER:-4}" "$@" || status=$?

# ---- the plugin module ------------------------------------------------------
# The element tests run pipelines through the instrumented element inside
# instrumented test programs. Here the stock, uninstrumented gst-inspect-1.0
# loads the module too and registers the element, with the runtimes
# preloaded, scanning in-process (GST_REGISTRY_FORK=no) only our plugin
# folder. Leak detection is off for this step only: gst-inspect-1.0 itself
# leaks a GValue while printing property defaults. No pipeline is run this
# way: the preloaded runtime would be inherited by the linker PoCL spawns to
# link kernels, whose own leaks then fail the kernel build.
if [ ! -f "$plugin" ]; then
  echo "sanitizers: the plugin module was not built ($plugin)" >&2
  status=1
elif command -v gst-inspect-1.0 >/dev/null 2>&1; then
  no_plugins="$cache/no-system-plugins"
  mkdir -p "$no_plugins"
  rm -f "$cache/gst-inspect-registry.bin"
  if LD_PRELOAD="$runtimes" ASAN_OPTIONS="$asan_options:detect_leaks=0" GST_PLUGIN_PATH="$plugin_dir" \
      GST_PLUGIN_SYSTEM_PATH_1_0="$no_plugins" GST_REGISTRY_FORK=no GST_REGISTRY="$cache/gst-inspect-registry.bin" \
      gst-inspect-1.0 waldboostdetect > "$build/meson-logs/sanitizers-gst-inspect.txt" 2>&1 &&
      grep -q 'waldboostdetect' "$build/meson-logs/sanitizers-gst-inspect.txt"; then
    echo "sanitizers: gst-inspect-1.0 loads the instrumented plugin and its element: OK"
  else
    echo "sanitizers: gst-inspect-1.0 waldboostdetect FAILED:" >&2
    tail -n 40 "$build/meson-logs/sanitizers-gst-inspect.txt" >&2
    status=1
  fi
fi

if [ $status -eq 0 ]; then
  echo "sanitizers: all tests passed under ASan and UBSan, and LSan but for the element suite ($build)"
else
  echo "sanitizers: FAILED (logs in $build/meson-logs)" >&2
fi
exit $status
