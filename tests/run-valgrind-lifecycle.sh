#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the waldboostdetect lifecycle program (tests/element/lifecycle.c)
# under valgrind memcheck: no memory errors and no definite leaks, with the
# suppressions in tests/element-lifecycle.supp (third-party noise only).
#   run-valgrind-lifecycle.sh PROGRAM SUPPRESSIONS
# First runs the program natively, which fills the kernel binary cache
# (WALDBOOST_CACHE_DIR), PoCL's kernel cache (POCL_CACHE_DIR) and the
# GStreamer registry, so that no OpenCL kernel is compiled under valgrind.
# For PoCL on x86-64 set POCL_KERNELLIB_NAME=avx2 for both runs (meson does):
# valgrind hides AVX-512, so PoCL would otherwise present another device
# under valgrind and miss both caches.
set -eu
program=$1
suppressions=$2
valgrind=${VALGRIND:-valgrind}

if ! command -v "$valgrind" >/dev/null 2>&1; then
  echo "SKIP: valgrind not found"
  exit 77
fi

echo "== warm-up run (no valgrind)"
if ! "$program"; then
  echo "the lifecycle program fails without valgrind" >&2
  exit 1
fi

# GLib: plain malloc for every allocation, pointers cleared on free.
export G_SLICE=always-malloc G_DEBUG=gc-friendly

log=${TMPDIR:-/tmp}/waldboost-lifecycle-valgrind.$$.log
trap 'rm -f "$log"' EXIT
echo "== valgrind run"
status=0
"$valgrind" --tool=memcheck --leak-check=full --errors-for-leak-kinds=definite \
  --show-leak-kinds=definite --error-exitcode=1 --num-callers=30 \
  --suppressions="$suppressions" --gen-suppressions=all --log-file="$log" \
  "$program" || status=$?
cat "$log"
if [ "$status" -ne 0 ]; then
  echo "valgrind found errors or definite leaks (exit status $status); see above" >&2
  exit 1
fi
grep -q "ERROR SUMMARY: 0 errors" "$log" || { echo "valgrind reported errors" >&2; exit 1; }
echo "valgrind: no errors, no definite leaks"
