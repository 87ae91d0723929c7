#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Installs the Debian 12 packages this project needs, only those missing.
#   build-aux/install-deps.sh          build and run (demo)
#   build-aux/install-deps.sh --tests  also what the test suite needs
#   build-aux/install-deps.sh --bench  --tests' list and dlib, for the side
#                                      by side with dlib's HOG trainer
#                                      (tests/bench/dlib-side-by-side.sh)
#   ... --print                        prints the list, installs nothing
#                                      (tests/debian/packages.sh reads it)
set -eu

packages="meson ninja-build pkgconf g++ python3 libglib2.0-dev libxml2-dev
  libgdk-pixbuf-2.0-dev libpango1.0-dev fonts-dejavu-core opencv-data opencl-c-headers opencl-clhpp-headers
  ocl-icd-opencl-dev pocl-opencl-icd clinfo
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev gstreamer1.0-tools
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
  libmosquitto-dev libgstreamer-plugins-bad1.0-dev"
# --bench implies --tests. dlib is kept out of --tests' list: that list is
# hashed into the Debian 13 test root (tests/debian), which CI would rebuild.
bench=
case "${1:-}" in --bench) bench=1 ;; esac
if [ "${1:-}" = "--tests" ] || [ -n "$bench" ]; then
  packages="$packages libgtest-dev libopencv-dev valgrind clang clang-format libclang-rt-14-dev llvm
    python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0 gir1.2-gst-plugins-bad-1.0
    python3-skimage
    mosquitto mosquitto-clients openssl python3-jsonschema"
  # The publish tests read the documents back with json-glib (the plugin does not use it).
  packages="$packages libjson-glib-dev"
  # The recipes' tests (tests/pipelines): an RTSP server in Python.
  packages="$packages gir1.2-gst-rtsp-server-1.0"
  # A recipe that hangs prints its threads' stacks (tests/pipelines/recipes.py).
  packages="$packages gdb"
  # The recipes' tests: compare-with-facedetect.sh against OpenCV's facedetect.
  packages="$packages gstreamer1.0-opencv"
  # The Debian 13 phase's root (tests/debian/root.sh).
  packages="$packages debootstrap"
  # The package test (tests/debian/package-test.sh): building and linting .debs.
  packages="$packages dpkg-dev debhelper help2man lintian ccache"
fi
if [ -n "$bench" ]; then
  # dlib-1.pc links libjpeg.so, libblas.so and liblapack.so by path, and
  # libdlib-dev does not depend on the -dev packages that hold them.
  packages="$packages libdlib-dev libjpeg-dev libblas-dev liblapack-dev"
fi
# shellcheck disable=SC2086
case " $* " in *" --print "*) echo $packages; exit 0 ;; esac

missing=""
for p in $packages; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing="$missing $p"
  fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps: run as root (or install sudo) to install:$missing" >&2; exit 1
  fi
else
  SUDO=""
fi
echo "install-deps: installing$missing"
$SUDO apt-get update -qq
# shellcheck disable=SC2086
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
