#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# The Debian packages built and installed as a user would (issue 52):
#   tests/debian/package-test.sh
# 1. Builds them with `dpkg-buildpackage -us -uc -b` on this Debian 12
#    machine and in a Debian 13 root that has the build dependencies, each
#    from an export of the work tree (tracked and untracked files, not the
#    ignored ones), so the tree is left as it was, with
#    DEB_BUILD_OPTIONS=noopt noddebs (below); lintian (that release's)
#    checks each .changes and fails on errors.
# 2. Installs each release's packages with `apt-get install ./...deb` in a
#    clean minbase root of that release: a fresh overlay on a cached
#    debootstrap root in which nothing was ever installed, so no build
#    dependency is there. apt brings what the packages depend on and
#    recommend (PoCL as the OpenCL device), plus gstreamer1.0-tools and
#    gstreamer1.0-plugins-base for the pipeline. There it checks
#    (tests/debian/package-checks.sh): gst-inspect-1.0 finds the element;
#    ldd finds no OpenCV library behind the plugin or a tool, and no OpenCV
#    library is installed; a real video through the element (the first frames of
#    Megamind.avi from opencv-doc, as tests/fetch-test-data.sh fetches it,
#    transcoded once to Theora so that the roots need no libav), with the
#    embedded classifier and with a converted one, detections printed and
#    faces required; the classifier files removed, the element names the
#    missing file and how to get it back, the embedded classifier still
#    detects, and reinstalling the package brings the file back; OpenCV's
#    own cascade from opencv-data (installed last) detects too.
# Each step's time is printed; the last line is "package-test: PASS" or
# "package-test: FAILED: ..." naming what failed.
#
# Cache: ${WALDBOOST_PACKAGE_CACHE:-/var/cache/waldboost-gst/packages}, kept
# between runs like the roots of tests/debian/root.sh:
#   SUITE/          the export the packages are built from (one path, so
#                   ccache hits), and the built .debs and .changes
#   ccache-SUITE/   the compilers' cache for each release
#   apt-SUITE/      apt's package lists and downloaded .debs for the
#                   clean roots (not root.sh's debs/: another run's apt
#                   may hold that folder's lock)
#   megamind.ogv    the transcoded video
# Needs root, and the packages of build-aux/install-deps.sh --tests.
set -eu
cd "$(dirname "$0")/../.."
repo=$PWD
fail() { echo "package-test: FAILED: $*" >&2; exit 1; }
[ "$(id -u)" -eq 0 ] || fail "must run as root (debootstrap roots, chroot)"
for tool in dpkg-buildpackage lintian git gst-launch-1.0; do
  command -v $tool >/dev/null 2>&1 || fail "$tool is missing (build-aux/install-deps.sh --tests installs it)"
done

cache=${WALDBOOST_PACKAGE_CACHE:-/var/cache/waldboost-gst/packages}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd -P)
jobs=$(nproc)
# No optimisation and no debug-symbol packages: the build takes about half
# the time, and packaging does not depend on them (users build with the
# defaults; WALDBOOST_PACKAGE_BUILD_OPTIONS= does too).
build_options="${WALDBOOST_PACKAGE_BUILD_OPTIONS-noopt noddebs} parallel=$jobs"
arch=$(dpkg --print-architecture)
version=$(dpkg-parsechangelog -l debian/changelog -S Version)

step_start=$(date +%s)
step() {  # NAME: prints the time of the step that ends here
  now=$(date +%s)
  echo "package-test: $1 took $((now - step_start)) s"
  step_start=$now
}

# The work tree as it is (uncommitted changes too), without what git ignores.
export_tree() {  # DEST
  rm -rf "$1"
  mkdir -p "$1"
  # shellcheck disable=SC2016  # the inner shell expands them
  git -C "$repo" ls-files -z --cached --others --exclude-standard |
    (cd "$repo" && xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' export) |
    (cd "$repo" && tar --null -T - -cf -) | tar -xf - -C "$1" || fail "exporting the work tree to $1"
}

# The build dependencies of debian/control as package names (no versions,
# profiles or alternatives), debhelper-compat as debhelper.
build_deps() {
  sed -n '/^Build-Depends:/,/^[A-Za-z-]*:/p' debian/control | sed -n 's/^[[:space:]]\{1,\}//p' |
    sed 's/[[:space:]]*[(<|,].*//' | sed 's/^debhelper-compat$/debhelper/' | sed '/^$/d' | tr '\n' ' '
}

# --roots-only: make (or find) the three roots and stop; run-all.sh makes
# them in the background while the host builds and tests.
if [ "${1:-}" = --roots-only ]; then
  # shellcheck disable=SC2046  # one word per package
  tests/debian/root.sh trixie packages-build build-essential dpkg-dev lintian ccache $(build_deps) >/dev/null &&
    tests/debian/root.sh bookworm clean >/dev/null && tests/debian/root.sh trixie clean >/dev/null
  exit
fi

# 1a. Debian 12, on this machine.
mkdir -p "$cache/bookworm" "$cache/ccache-bookworm"
rm -f "$cache"/bookworm/*.deb "$cache"/bookworm/*.changes "$cache"/bookworm/*.buildinfo
export_tree "$cache/bookworm/waldboost-gst"
# ccache, when there is one (in the cache unless CCACHE_DIR says where): a
# warm run recompiles nothing.
if command -v ccache >/dev/null 2>&1; then
  export CC="ccache gcc" CXX="ccache g++" CCACHE_DIR="${CCACHE_DIR:-$cache/ccache-bookworm}" CCACHE_BASEDIR="$cache/bookworm"
fi
(cd "$cache/bookworm/waldboost-gst" &&
  DEB_BUILD_OPTIONS="$build_options" dpkg-buildpackage -us -uc -b > "$cache/bookworm/build.log" 2>&1) || {
  tail -40 "$cache/bookworm/build.log" >&2
  fail "dpkg-buildpackage on this Debian 12 machine (log: $cache/bookworm/build.log)"
}
step "the Debian 12 build"
lintian --fail-on error --tag-display-limit 0 "$cache/bookworm/waldboost-gst_${version}_$arch.changes" ||
  fail "lintian on the Debian 12 packages (errors above)"
step "lintian (Debian 12)"

# 1b. Debian 13, in a root with the build dependencies.
# shellcheck disable=SC2046  # one word per package
build_root=$(tests/debian/root.sh trixie packages-build build-essential dpkg-dev lintian ccache $(build_deps)) ||
  fail "making the Debian 13 build root (tests/debian/root.sh, messages above)"
step "the Debian 13 build root"
mkdir -p "$cache/trixie" "$cache/ccache-trixie"
rm -f "$cache"/trixie/*.deb "$cache"/trixie/*.changes "$cache"/trixie/*.buildinfo
export_tree "$cache/trixie/waldboost-gst"
tests/debian/in-root.sh "$build_root" --scratch --bind "$cache/trixie:/build" --bind "$cache/ccache-trixie:/ccache" -- \
  env CC="ccache gcc" CXX="ccache g++" CCACHE_DIR=/ccache CCACHE_BASEDIR=/build \
  DEB_BUILD_OPTIONS="$build_options" \
  sh -c 'cd /build/waldboost-gst && dpkg-buildpackage -us -uc -b' > "$cache/trixie/build.log" 2>&1 || {
  tail -40 "$cache/trixie/build.log" >&2
  fail "dpkg-buildpackage in the Debian 13 root (log: $cache/trixie/build.log)"
}
step "the Debian 13 build"
tests/debian/in-root.sh "$build_root" --scratch --bind "$cache/trixie:/build" -- \
  lintian --fail-on error --tag-display-limit 0 "/build/waldboost-gst_${version}_$arch.changes" ||
  fail "lintian on the Debian 13 packages (errors above)"
step "lintian (Debian 13)"

# 2. The video, once: the first frames of the demo's video, as Theora.
video=$cache/megamind.ogv
if [ ! -s "$video" ]; then
  tests/fetch-test-data.sh build/testdata >/dev/null || fail "fetching Megamind.avi (tests/fetch-test-data.sh)"
  gst-launch-1.0 -q filesrc location=build/testdata/Megamind.avi ! decodebin ! videoconvert ! \
    identity eos-after=60 ! theoraenc ! oggmux ! filesink location="$video.tmp" >/dev/null ||
    fail "transcoding Megamind.avi to Theora"
  mv "$video.tmp" "$video"
  step "the video"
fi

# 3. Each release's packages in a clean root of that release.
for suite in bookworm trixie; do
  clean=$(tests/debian/root.sh "$suite" clean) || fail "making the clean $suite root (tests/debian/root.sh)"
  mkdir -p "$cache/apt-$suite/lists" "$cache/apt-$suite/archives"
  tests/debian/in-root.sh "$clean" --scratch \
    --bind "$cache/$suite:/packages" --bind "$video:/video.ogv" \
    --bind "$repo/tests/debian/package-checks.sh:/package-checks.sh" \
    --bind "$cache/apt-$suite/lists:/var/lib/apt/lists" --bind "$cache/apt-$suite/archives:/var/cache/apt/archives" -- \
    sh /package-checks.sh "$suite" || fail "the checks in the clean $suite root (the messages above)"
  step "the clean $suite root"
done
echo "package-test: PASS"
