#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Quick-start demo on a fresh Debian 12 machine, in one command: installs
# the missing packages, builds, fetches a real photo (messi5.jpg from Debian's
# opencv-doc) and runs the core detector on it with the embedded default
# face classifier. Prints the detections as JSON and writes the photo with
# the boxes drawn to build/demo-faces.png.
set -eu
cd "$(dirname "$0")/.."

build-aux/install-deps.sh
if [ -f build/build.ninja ]; then
  meson setup --reconfigure build >/dev/null
else
  meson setup build
fi
ninja -C build
tests/fetch-test-data.sh build/testdata

build/gst/tools/detect/waldboost-detect --annotate build/demo-faces.png build/testdata/messi5.jpg
echo "demo: boxes drawn on build/demo-faces.png" >&2
