#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The whole test suite under AddressSanitizer, LeakSanitizer and
# UndefinedBehaviorSanitizer (docs/reliability.md, "Sanitizers"):
#   tests/sanitizers.sh [BUILD_DIR] [extra meson test arguments]
# configures BUILD_DIR (default build-asan) with
#   meson setup -Db_sanitize=address,undefined -Db_lundef=false
# builds everything (the tools, the GStreamer plugin module, the tests; the
# build itself runs the instrumented waldboost-convert), runs `meson test`
# there, then loads the instrumented plugin into gst-inspect-1.0. Real test images come from build/testdata
# (fetched when missing, as tests/run-all.sh does). Exit status 0 only when
# everything passed with no sanitizer report.
#
# Dependencies: those of tests/run-all.sh (build-aux/install-deps.sh
# --tests); GCC's libasan and libubsan come with g++.
set -eu
cd "$(dirname "$0")/.."
root=$(pwd)
build=${1:-build-asan}
[ $# -gt 0 ] && shift
case "$build" in /*) ;; *) build="$root/$build" ;; esac

# b_lundef=false: meson links shared modules with -Wl,--no-undefined by
# default, but an instrumented module leaves the sanitizer runtime's symbols
# to the executable that loads it, so the GStreamer plugin would not link.
if [ -f "$build/build.ninja" ]; then
  meson setup --reconfigure "$build" -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
else
  meson setup "$build" -Db_sanitize=address,undefined -Db_lundef=false
fi

# ---- sanitizer settings (also for the instrumented tools run by the build) ----
# detect_leaks=1: LeakSanitizer at every exit; tests/lsan.supp lists the
#   third-party libraries that keep memory until exit by design (PoCL, the
#   OpenCL ICD loader, PoCL's in-process LLVM/Clang, GObject's type system).
# check_initialization_order=1, strict_init_order=1: static-initialisation
#   order bugs across translation units.
# detect_stack_use_after_return=1: dangling references to locals.
# quarantine_size_mb=64 (default 256): freed blocks are kept from reuse for
#   less long, so the soak test's resident memory levels off sooner.
# PoCL needs nothing special: its JIT (LLVM inside the process) and the
#   kernels it dlopens are not instrumented, so ASan only sees their heap
#   calls through its malloc interceptor; neither protect_shadow_gap=0 (for
#   drivers mapping fixed low addresses, e.g. CUDA) nor detect_odr_violation=0
#   (no instrumented global is defined twice) is needed.
# UBSan: GCC's runtime continues after a report unless told otherwise;
#   halt_on_error=1 makes the first one fail the test, with its stack.
export ASAN_OPTIONS="detect_leaks=1:check_initialization_order=1:strict_init_order=1:detect_stack_use_after_return=1:quarantine_size_mb=64${ASAN_EXTRA_OPTIONS:+:$ASAN_EXTRA_OPTIONS}"
export LSAN_OPTIONS="suppressions=$root/tests/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# PoCL and our kernel binary cache under the build folder: kernels are really
# compiled (PoCL's JIT runs under ASan) and nothing is written to ~/.cache.
export POCL_CACHE_DIR="$build/sanitizer-cache/pocl"
export WALDBOOST_CACHE_DIR="$build/sanitizer-cache/waldboost"
# GStreamer: scan plugins in the (instrumented) process itself. The forked
# gst-plugin-scanner is not instrumented and cannot load an instrumented
# plugin ("ASan runtime does not come first in initial library list").
export GST_REGISTRY_FORK=no
export GST_REGISTRY="$build/sanitizer-cache/gst-registry.bin"
mkdir -p "$POCL_CACHE_DIR" "$WALDBOOST_CACHE_DIR"

ninja -C "$build"

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
# the end). Its flat-memory check holds under ASan too once the allocator's
# quarantine of freed blocks is full; a smaller quarantine fills sooner.
export WALDBOOST_LOAD_FRAMES="${WALDBOOST_LOAD_FRAMES:-500}"
export WALDBOOST_SOAK_FRAMES="${WALDBOOST_SOAK_FRAMES:-20000}"
status=0
# Instrumented code runs 2 to 5 times slower.
WALDBOOST_REQUIRE_TEST_DATA=1 meson test -C "$build" --print-errorlogs \
  --timeout-multiplier "${SANITIZER_TIMEOUT_MULTIPLIER:-4}" "$@" || status=$?

# ---- the plugin module ------------------------------------------------------
# The load-and-soak test above runs pipelines through the instrumented
# element inside an instrumented test program. Here the stock, uninstrumented
# gst-inspect-1.0 loads the module too and registers the element: the
# sanitizer runtimes the module was linked with are preloaded (an
# instrumented library cannot be loaded otherwise: "ASan runtime does not
# come first in initial library list"), the registry is scanned in-process
# (GST_REGISTRY_FORK=no, set above) and only our plugin folder is scanned.
# Leak detection is off for this step only: gst-inspect-1.0 itself leaks a
# GValue while printing property defaults. No pipeline is run this way: the
# preloaded runtime is inherited by the linker PoCL spawns to link kernels,
# whose own leaks then fail the kernel build.
plugin_dir="$build/gst/element"
plugin="$plugin_dir/libgstwaldboost.so"
if [ ! -f "$plugin" ]; then
  echo "sanitizers: the plugin module was not built ($plugin)" >&2
  status=1
elif command -v gst-inspect-1.0 >/dev/null 2>&1; then
  runtimes=$(ldd "$plugin" | awk '/lib(asan|ubsan)\.so/ { print $3 }' | tr '\n' ' ')
  no_plugins="$build/sanitizer-cache/no-system-plugins"
  mkdir -p "$no_plugins"
  rm -f "$GST_REGISTRY"
  if LD_PRELOAD="$runtimes" ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0" GST_PLUGIN_PATH="$plugin_dir" \
      GST_PLUGIN_SYSTEM_PATH_1_0="$no_plugins" \
      gst-inspect-1.0 waldboostdetect > "$build/meson-logs/sanitizer-gst-inspect.txt" 2>&1 &&
      grep -q 'waldboostdetect' "$build/meson-logs/sanitizer-gst-inspect.txt"; then
    echo "sanitizers: gst-inspect-1.0 loads the instrumented plugin and its element: OK"
  else
    echo "sanitizers: gst-inspect-1.0 waldboostdetect FAILED:" >&2
    tail -n 40 "$build/meson-logs/sanitizer-gst-inspect.txt" >&2
    status=1
  fi
fi

if [ $status -eq 0 ]; then
  echo "sanitizers: all tests passed under ASan, LSan and UBSan ($build)"
else
  echo "sanitizers: FAILED (logs in $build/meson-logs)" >&2
fi
exit $status
