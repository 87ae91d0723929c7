#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# What both README commands start with: installs the missing Debian
# packages, configures and builds build/ (only the ninja TARGETs given, e.g.
# the plugin for the demo; else everything), and fetches the real test
# media from Debian packages into build/testdata.
#   build-aux/prepare.sh [--tests] [TARGET...]
set -eu
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--tests" ]; then
  build-aux/install-deps.sh --tests
  shift
else
  build-aux/install-deps.sh
fi
if [ -f build/build.ninja ]; then
  meson setup --reconfigure build >/dev/null
else
  meson setup build
fi
ninja -C build "$@"
tests/fetch-test-data.sh build/testdata
