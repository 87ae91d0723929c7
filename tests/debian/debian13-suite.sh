#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The core, element and publish suites on Debian 13 (trixie): GStreamer
# 1.26, PoCL 6, OpenCV 4.10, GCC 14, in a cached minbase root
# (tests/debian/root.sh).
#   tests/debian/debian13-suite.sh [BUILD]   (default build-debian13)
# Run as root from anywhere; tests/run-all.sh runs it as the phase
# "debian13". What it does:
# - the root: build-aux/install-deps.sh --tests's packages as
#   tests/debian/packages.sh translates them for trixie, and ccache; made
#   once (about a minute of debootstrap and a few of apt), then reused from
#   ${WALDBOOST_ROOT_CACHE:-/var/cache/waldboost-gst/roots}. A cold run
#   needs the machine's Debian mirror and fails, exit 1, when it cannot
#   reach it;
# - the tree is bound into the root at the same path, the root itself is
#   used through an overlay thrown away at the end (in-root.sh --scratch);
# - BUILD in the tree (ignored by git), configured as run-all.sh's build/
#   (-Dwerror=true -Ddebug=false -g1), compiled with ccache into a cache
#   next to the roots (ccache-trixie/), building only the targets the
#   three suites need;
# - the real test images of build/testdata (fetched with
#   tests/fetch-test-data.sh when missing);
# - PoCL's kernel cache kept next to the roots too (pocl-trixie/), as the
#   host's ~/.cache/pocl is between runs;
# - `meson test --suite core --suite element --suite publish` (publish:
#   the converter reads GstAnalytics metadata there), full size but for
#   load-and-soak: 8 x 2,000 frames of load and a soak of 20,000 frames
#   (WALDBOOST_LOAD_FRAMES, WALDBOOST_SOAK_FRAMES), where the host's plain
#   suite runs 8 x 10,000 and 100,000: the long soak measures our memory,
#   which does not change with the release, and would take a fifth of this
#   phase; with WALDBOOST_REQUIRE_TEST_DATA=1; extra arguments after BUILD
#   go to it.
# Times, cold and warm: docs/reliability.md ("The suites and where they
# run") and docs/history.md.
set -eu
if [ "$(id -u)" -ne 0 ]; then
  # Roots, mounts and chroot need root.
  command -v sudo >/dev/null 2>&1 || { echo "debian13-suite: run as root (or install sudo)" >&2; exit 1; }
  exec sudo --preserve-env=WALDBOOST_ROOT_CACHE,WALDBOOST_DEBIAN_MIRROR,WALDBOOST_JOBS,WALDBOOST_LOAD_FRAMES,WALDBOOST_SOAK_FRAMES "$0" "$@"
fi
cd "$(dirname "$0")/../.."
src=$(pwd -P)
# --root-only: make (or find) the root and stop; run-all.sh makes the roots
# in the background while the host builds and tests.
root_only=""
if [ "${1:-}" = --root-only ]; then root_only=1; shift; fi
build=${1:-build-debian13}
[ $# -gt 0 ] && shift
case $build in /*|*..*) echo "debian13-suite: BUILD is a folder name in the tree" >&2; exit 2 ;; esac
cache=${WALDBOOST_ROOT_CACHE:-/var/cache/waldboost-gst/roots}
jobs=${WALDBOOST_JOBS:-$(nproc)}

# run-all.sh counts this log: none from an earlier run when this one fails.
rm -f "$build/meson-logs/testlog.json"
# shellcheck disable=SC2046
root=$(tests/debian/root.sh trixie waldboost-test $(tests/debian/packages.sh trixie --tests) ccache)
[ -z "$root_only" ] || exit 0

[ -d build/testdata ] || tests/fetch-test-data.sh build/testdata
testdata=$(cd build/testdata && pwd -P)
mkdir -p "$build" "$cache/ccache-trixie" "$cache/pocl-trixie"
# A folder of its own there is kept; otherwise a link to build/testdata.
if [ ! -d "$build/testdata" ] || [ -L "$build/testdata" ]; then ln -sfn "$testdata" "$build/testdata"; fi

# shellcheck disable=SC2016
tests/debian/in-root.sh "$root" --scratch \
  --bind "$src:$src" --bind "$testdata:$testdata" \
  --bind "$cache/ccache-trixie:/var/cache/ccache" --bind "$cache/pocl-trixie:/var/cache/pocl" -- \
  env CCACHE_DIR=/var/cache/ccache CCACHE_BASEDIR="$src" POCL_CACHE_DIR=/var/cache/pocl \
    WALDBOOST_REQUIRE_TEST_DATA=1 CC="ccache gcc" CXX="ccache g++" \
    WALDBOOST_LOAD_FRAMES="${WALDBOOST_LOAD_FRAMES:-2000}" WALDBOOST_SOAK_FRAMES="${WALDBOOST_SOAK_FRAMES:-20000}" \
  sh -euc '
    cd "$1"; build=$2; jobs=$3; shift 3
    echo "debian13: GStreamer $(pkg-config --modversion gstreamer-1.0)," \
      "PoCL $(dpkg-query -W -f="\${Version}" pocl-opencl-icd)," \
      "OpenCV $(pkg-config --modversion opencv4), $(gcc --version | head -n 1)"
    if [ -f "$build/build.ninja" ]; then
      meson setup --reconfigure "$build" >/dev/null
    else
      meson setup "$build" -Dwerror=true -Ddebug=false -Dc_args=-g1 -Dcpp_args=-g1
    fi
    # Only the programs of the three suites and what their tests depend on.
    targets=$(python3 - "$build" <<"PY"
import json, os, subprocess, sys
build = sys.argv[1]
def introspect(what):
    return json.loads(subprocess.check_output(["meson", "introspect", what, build]))
files = {t["id"]: t["filename"] for t in introspect("--targets")}
wanted = set()
for test in introspect("--tests"):
    if not {s.split(":")[-1] for s in test["suite"]} & {"core", "element", "publish"}:
        continue
    for target in test["depends"]:
        wanted.update(files.get(target, []))
    if test["cmd"] and test["cmd"][0].startswith(os.path.abspath(build) + "/"):
        wanted.add(test["cmd"][0])
print(" ".join(sorted(os.path.relpath(f, build) for f in wanted)))
PY
)
    ninja -C "$build" -j "$jobs" $targets
    ccache --show-stats | grep -E "Hits|Misses" || true
    meson test -C "$build" --no-rebuild --print-errorlogs --suite core --suite element --suite publish "$@"
  ' debian13 "$src" "$build" "$jobs" "$@"
