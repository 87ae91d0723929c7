#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Prints build-aux/install-deps.sh's package list (Debian 12) translated for
# another Debian release, one line: the one place that translation lives.
#   tests/debian/packages.sh SUITE [--tests]
# SUITE is bookworm or trixie. Left out: what only the host's phases use
# (clang and LLVM for the fuzzers and the sanitizer build, clang-format for
# the format check, debootstrap for making roots, gdb for the stacks of a
# hung recipe and gstreamer1.0-opencv for facedetect in the recipes' tests,
# a suite run on the host only).
set -eu
[ $# -ge 1 ] || { echo "usage: $0 SUITE [--tests]" >&2; exit 2; }
suite=$1
shift
here=$(dirname "$0")
list=$("$here/../../build-aux/install-deps.sh" "$@" --print)

out=""
for p in $list; do
  case $p in
    clang|clang-format|llvm|libclang-rt-*|debootstrap|gdb|gstreamer1.0-opencv) continue ;;
  esac
  case $suite in
    bookworm) ;;
    # Debian 13 keeps these names (GStreamer 1.26, PoCL 6, OpenCV 4.10);
    # a package renamed there gets its line here.
    trixie) ;;
    *) echo "packages.sh: unknown suite '$suite'" >&2; exit 2 ;;
  esac
  out="$out $p"
done
# shellcheck disable=SC2086  # one line, single spaces
echo $out
