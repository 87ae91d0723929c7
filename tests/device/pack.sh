#!/bin/bash
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# tests/device/pack.sh [SRC_DIR] [DEST_DIR]
#
# Builds a release build of SRC_DIR (default: the repository this script is
# in) in SRC_DIR/build-release and packs everything a bare machine without
# GStreamer, OpenCV or a compiler needs to test and measure it into ONE
# archive, DEST_DIR/waldboost-device.tar.xz (DEST_DIR defaults to
# SRC_DIR/.device, which git ignores), with a copy of run.sh beside it. tests/device/run.sh unpacks and runs it
# on the lent GPU machine; README.md beside this file says how.
#
# The archive holds (its root becomes /tmp/wb there):
#   bin/          waldboost-bench, waldboost-detect, waldboost-devices,
#                 waldboost-pipeline-bench, the engine tests (test-engine-CASE,
#                 one per concern), test-engine-parts, test-template-search,
#                 waldboost-train, waldboost-evaluate, test-training-opencl, test-engine-miner,
#                 the element tests (test-element-CASE, element-fault-helper;
#                 stripped), gst-launch-1.0, gst-inspect-1.0
#   libexec/      gst-plugin-scanner
#   plugin/       libgstwaldboost.so and libgstwaldboostpublish.so (stripped)
#   gst-plugins/  the stock plugins the pipelines use
#   lib/          the ldd closure of all of the above, less glibc, libstdc++,
#                 libgcc_s and the loader (libOpenCL.so.1 is ocl-icd's)
#   share/mime/   shared-mime-info's database, without which gdk-pixbuf
#                 recognises no image file
#   share/fonts/  DejaVu Sans and a fontconfig configuration for box-text
#   data/         the three LBP face cascades, the converted classifiers
#                 (data/classifiers), the Haar cascades the engine tests and
#                 the bench read (data/haar), the six bench frames and two raw GRAY8
#                 files of Megamind frames (1920x1080 and 3840x2160)
#   ENGINE_TESTS  the engine test programs in bin/, one a line (run.sh test
#                 runs these: bin/ holds other test-engine-* programs too)
#   MANIFEST      commit, build and contents
#
# Environment:
#   JOBS=2            ninja's parallelism
#   WB_PACK=full      "bins" packs only bin/, ENGINE_TESTS, plugin/, data/classifiers and data/haar: an
#                     overlay of a couple of MiB that run.sh unpacks over a
#                     full archive (WB_BASE, default .device/baseline.tar.xz),
#                     so that a second build fits beside the first in the
#                     64 MiB that travel to the machine
#   WB_ARCHIVE_NAME   archive file name (default waldboost-device.tar.xz)
#   FRAMES_1080=30 FRAMES_4K=30   frames in the raw files (spread over the video)
#   TESTDATA          where the real images are or go (default BUILD/testdata;
#                     seeded from SRC_DIR/build/testdata, else fetched with
#                     tests/fetch-test-data.sh)
#   CASCADE_DIR       OpenCV's LBP cascades (default /usr/share/opencv4/lbpcascades)
#   HAAR_DIR          OpenCV's Haar cascades (default /usr/share/opencv4/haarcascades)
#   MIME_DIR          shared-mime-info's database (default /usr/share/mime)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "${1:-$here/../..}" && pwd)
dest=${2:-$src/.device}
build=$src/build-release
jobs=${JOBS:-2}
kind=${WB_PACK:-full}
name=${WB_ARCHIVE_NAME:-waldboost-device.tar.xz}
frames_1080=${FRAMES_1080:-30}
frames_4k=${FRAMES_4K:-30}
cascade_dir=${CASCADE_DIR:-/usr/share/opencv4/lbpcascades}
limit_mib=60
want_mib=55

die() { echo "pack.sh: $*" >&2; exit 1; }
say() { echo "pack.sh: $*"; }
case $kind in full|bins) ;; *) die "WB_PACK must be full or bins, not '$kind'" ;; esac
for tool in meson ninja xz tar strip ldd readelf; do
  command -v $tool >/dev/null || die "$tool is needed"
done

# --- the release build --------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
  say "configuring $build"
  meson setup --buildtype=release "$build" "$src"
fi
buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
  python3 -c 'import json,sys; print(next(o["value"] for o in json.load(sys.stdin) if o["name"]=="buildtype"))' 2>/dev/null || echo unknown)
[ "$buildtype" = release ] || die "$build has buildtype '$buildtype', not release (remove it or reconfigure)"
say "building $build (ninja -j$jobs)"
ninja -C "$build" -j"$jobs"

stage=$(mktemp -d /tmp/wb-pack.XXXXXX)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,libexec,plugin,gst-plugins,lib,data/classifiers}

# --- binaries of the project --------------------------------------------
copy_strip() {  # SRC DESTDIR
  cp -L "$1" "$2/"
  strip --strip-unneeded "$2/$(basename "$1")"
}
for rel in gst/tools/bench/waldboost-bench gst/tools/detect/waldboost-detect; do
  [ -x "$build/$rel" ] || die "$build/$rel was not built (is gtest/OpenCV installed?)"
  copy_strip "$build/$rel" "$stage/bin"
done
# the engine tests: one program per concern (tests/engine/meson.build), and
# their names in ENGINE_TESTS, which run.sh runs
engine_tests=$(find "$build/tests/engine" -maxdepth 1 -type f -perm -u+x -name 'test-engine-*' 2>/dev/null | sort)
[ -n "$engine_tests" ] || die "$build/tests/engine/test-engine-* were not built (is gtest/OpenCV installed?)"
for f in $engine_tests; do copy_strip "$f" "$stage/bin"; done
for f in $engine_tests; do echo "${f##*/}"; done > "$stage/ENGINE_TESTS"
for rel in gst/tools/devices/waldboost-devices gst/tools/pipeline-bench/waldboost-pipeline-bench \
    tests/test-engine-parts tests/test-template-search gst/tools/train/waldboost-train \
    gst/tools/evaluate/waldboost-evaluate tests/test-training-opencl tests/test-engine-miner; do
  if [ -x "$build/$rel" ]; then copy_strip "$build/$rel" "$stage/bin"; else say "note: no $rel, not packed"; fi
done
# the element tests: one program per case, and the fault helper they run
element_tests=$(find "$build/tests/element" -maxdepth 1 -type f -perm -u+x -name 'test-element-*' 2>/dev/null | sort)
if [ -n "$element_tests" ] && [ -x "$build/tests/element/element-fault-helper" ]; then
  for f in $element_tests "$build/tests/element/element-fault-helper"; do copy_strip "$f" "$stage/bin"; done
else
  say "note: no tests/element/test-element-* and element-fault-helper, not packed"
fi
[ -f "$build/gst/element/libgstwaldboost.so" ] || die "the plugin was not built"
copy_strip "$build/gst/element/libgstwaldboost.so" "$stage/plugin"
# the publish plugin (waldboostmetaconvert, waldboostmetapublish), for
# waldboost-pipeline-bench --after (run.sh's PIPE_AFTER)
if [ -f "$build/gst/publish/libgstwaldboostpublish.so" ]; then
  copy_strip "$build/gst/publish/libgstwaldboostpublish.so" "$stage/plugin"
else
  say "note: no gst/publish/libgstwaldboostpublish.so, not packed"
fi
readelf -d "$stage/bin/waldboost-bench" | grep -q 'libopencv_' ||
  say "warning: waldboost-bench was built without OpenCV: no OpenCV columns in the bench"
cp "$build"/classifiers/*.xml "$stage/data/classifiers/"
haar_dir=${HAAR_DIR:-/usr/share/opencv4/haarcascades}
mkdir -p "$stage/data/haar"
# eye and smile: the element tests' nested cascades (WALDBOOST_HAAR_DIR in run.sh)
for c in frontalface_default frontalface_alt2 eye eye_tree_eyeglasses smile fullbody licence_plate_rus_16stages; do
  [ -f "$haar_dir/haarcascade_$c.xml" ] || die "$haar_dir/haarcascade_$c.xml not found (Debian's opencv-data)"
  cp "$haar_dir/haarcascade_$c.xml" "$stage/data/haar/"
done

commit=$(git -C "$src" rev-parse HEAD 2>/dev/null || echo unknown)
describe=$(git -C "$src" describe --always --dirty 2>/dev/null || echo unknown)

if [ "$kind" = full ]; then
  # --- GStreamer: tools, scanner, plugins ---------------------------------
  command -v pkg-config >/dev/null || die "pkg-config is needed"
  plugins_dir=$(pkg-config --variable=pluginsdir gstreamer-1.0)
  scanner_dir=$(pkg-config --variable=pluginscannerdir gstreamer-1.0 2>/dev/null || true)
  scanner=${scanner_dir:+$scanner_dir/gst-plugin-scanner}
  [ -x "${scanner:-}" ] || scanner=$(ls /usr/lib/*/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner 2>/dev/null | head -1)
  [ -x "${scanner:-}" ] || die "gst-plugin-scanner not found"
  for tool in gst-launch-1.0 gst-inspect-1.0; do
    cp -L "$(command -v $tool)" "$stage/bin/" || die "$tool not found (gstreamer1.0-tools)"
  done
  cp -L "$scanner" "$stage/libexec/"
  # appsrc/filesrc/multifilesrc ! rawvideoparse ! waldboostdetect ! fakesink,
  # videotestsrc, identity, queue, videoconvert/videoscale; pngenc and pngdec
  # (an element test's RGB from a decoder)
  for p in coreelements rawparse app videotestsrc multifile png; do
    [ -f "$plugins_dir/libgst$p.so" ] || die "$plugins_dir/libgst$p.so not found"
    cp -L "$plugins_dir/libgst$p.so" "$stage/gst-plugins/"
  done
  if [ -f "$plugins_dir/libgstvideoconvertscale.so" ]; then
    cp -L "$plugins_dir/libgstvideoconvertscale.so" "$stage/gst-plugins/"
  else
    for p in videoconvert videoscale; do cp -L "$plugins_dir/libgst$p.so" "$stage/gst-plugins/"; done
  fi

  # --- the shared libraries: ldd closure, less what every Ubuntu has ------
  base_re='^(linux-vdso|ld-linux-x86-64|libc|libm|libmvec|libstdc\+\+|libgcc_s|libpthread|libdl|librt|libresolv|libutil|libanl|libnsl)\.so'
  elves=$(find "$stage/bin" "$stage/libexec" "$stage/plugin" "$stage/gst-plugins" -type f)
  missing=$(for f in $elves; do ldd "$f" | grep 'not found' || true; done | sort -u)
  [ -z "$missing" ] || die "unresolved libraries here: $missing"
  for f in $elves; do ldd "$f"; done | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
    while read -r soname path; do
      [[ $soname =~ $base_re ]] && continue
      [ -f "$stage/lib/$soname" ] || cp -L "$path" "$stage/lib/$soname"
    done
  [ -f "$stage/lib/libOpenCL.so.1" ] || die "libOpenCL.so.1 is not in the closure"
  if command -v dpkg >/dev/null; then
    ocl_path=$(readlink -f "$(ldd "$stage/bin/$(head -n 1 "$stage/ENGINE_TESTS")" | awk '$1 == "libOpenCL.so.1" {print $3}')")
    ocl_pkg=$(dpkg -S "$ocl_path" 2>/dev/null | cut -d: -f1 || true)
    say "libOpenCL.so.1 from ${ocl_pkg:-an unknown package}"
  fi

  # gdk-pixbuf (the tools' image loading) knows a file's format only through
  # GIO's content types: shared-mime-info's database, which a bare machine lacks
  mime_dir=${MIME_DIR:-/usr/share/mime}
  [ -f "$mime_dir/mime.cache" ] || die "$mime_dir/mime.cache not found (shared-mime-info)"
  mkdir -p "$stage/share/mime"
  find "$mime_dir" -maxdepth 1 -type f -exec cp {} "$stage/share/mime/" \;
  # box-text draws with Pango through fontconfig, which a bare machine has no
  # font and no configuration for: one font (DejaVu Sans, fonts-dejavu-core)
  # and a configuration naming the folder beside it (run.sh sets FONTCONFIG_FILE)
  font=${FONT_FILE:-/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf}
  [ -f "$font" ] || die "$font not found (fonts-dejavu-core)"
  mkdir -p "$stage/share/fonts"
  cp "$font" "$stage/share/fonts/"
  cat > "$stage/share/fonts/fonts.conf" <<'CONF'
<?xml version="1.0"?>
<fontconfig>
  <dir prefix="relative">.</dir>
  <cachedir>/tmp/wb-run/fontconfig</cachedir>
</fontconfig>
CONF

  # --- data ----------------------------------------------------------------
  # the profile one: the element tests load OpenCV's file (WALDBOOST_CASCADE_DIR)
  for c in lbpcascade_frontalface lbpcascade_frontalface_improved lbpcascade_profileface; do
    [ -f "$cascade_dir/$c.xml" ] || die "$cascade_dir/$c.xml not found (Debian's opencv-data)"
    cp "$cascade_dir/$c.xml" "$stage/data/"
  done
  testdata=${TESTDATA:-$build/testdata}
  mkdir -p "$testdata"
  testdata=$(cd "$testdata" && pwd)
  for f in messi5.jpg astronaut.png Megamind.avi building.jpg fruits.jpg; do
    if [ ! -s "$testdata/$f" ] && [ -s "$src/build/testdata/$f" ]; then cp "$src/build/testdata/$f" "$testdata/"; fi
  done
  "$src/tests/fetch-test-data.sh" "$testdata"
  video_frames="030 090 150 210"
  need_png=no
  for n in $video_frames; do [ -s "$testdata/megamind-$n.png" ] || need_png=yes; done
  # the raw files take frames 30, 38, ... (30 + k*240/N), as PNG too
  pick() { awk -v n="$1" 'BEGIN { for (k = 0; k < n; k++) printf "%03d\n", 30 + int(k * 240 / n) }'; }
  for n in $(pick "$frames_1080") $(pick "$frames_4k"); do [ -s "$testdata/megamind-$n.png" ] || need_png=yes; done
  if [ $need_png = yes ]; then
    say "decoding Megamind.avi into PNG frames (docs/performance.md)"
    gst-launch-1.0 -q filesrc location="$testdata/Megamind.avi" ! decodebin ! videoconvert ! \
      pngenc ! multifilesink location="$testdata/megamind-%03d.png" ||
      die "could not decode Megamind.avi (needs GStreamer's avi and an MPEG-4 decoder here)"
  fi
  # building.jpg and fruits.jpg: test-engine-rank's rank features on real images;
  # board.jpg, brick.png, gravel.png and coffee.png: backgrounds of the
  # trainer's tests and timings (run.sh train)
  for f in messi5.jpg astronaut.png building.jpg fruits.jpg board.jpg brick.png gravel.png coffee.png; do
    cp "$testdata/$f" "$stage/data/"
  done
  for n in $video_frames; do cp "$testdata/megamind-$n.png" "$stage/data/"; done
  make_raw() {  # W H N -> path of the raw GRAY8 file, made once
    local w=$1 h=$2 n=$3 out="$testdata/megamind-$1x$2-$3.gray" tmp k=0
    if [ "$(stat -c %s "$out" 2>/dev/null || echo 0)" != $((w * h * n)) ]; then
      tmp=$(mktemp -d /tmp/wb-frames.XXXXXX)
      for i in $(pick "$n"); do cp "$testdata/megamind-$i.png" "$tmp/f-$(printf %03d $k).png"; k=$((k + 1)); done
      gst-launch-1.0 -q multifilesrc location="$tmp/f-%03d.png" index=0 stop-index=$((n - 1)) \
        caps=image/png,framerate=30/1 ! pngdec ! videoconvert ! videoscale add-borders=false ! \
        video/x-raw,format=GRAY8,width=$w,height=$h ! filesink location="$out.part" >&2
      rm -rf "$tmp"
      [ "$(stat -c %s "$out.part")" = $((w * h * n)) ] || die "$out.part has the wrong size"
      mv "$out.part" "$out"
    fi
    echo "$out"
  }
  cp "$(make_raw 1920 1080 "$frames_1080")" "$stage/data/frames-1920x1080.gray"
  cp "$(make_raw 3840 2160 "$frames_4k")" "$stage/data/frames-3840x2160.gray"
fi

# --- manifest and archive ----------------------------------------------------
{
  echo "kind=$kind"
  echo "commit=$commit"
  echo "describe=$describe"
  echo "built=$(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n) ($(. /etc/os-release && echo "$PRETTY_NAME"))"
  echo "compiler=$(c++ --version 2>/dev/null | head -1)"
  echo "buildtype=$buildtype"
  [ "$kind" = full ] && echo "frames=1920x1080:$frames_1080 3840x2160:$frames_4k"
  echo "files:"
  (cd "$stage" && find . -type f ! -name MANIFEST -printf '  %s %P\n' | sort -k2)
} > "$stage/MANIFEST"

mkdir -p "$dest"
archive=$dest/$name
say "compressing $(du -sm "$stage" | cut -f1) MiB (xz -9 -T2)"
tar -C "$stage" --sort=name --owner=0 --group=0 --numeric-owner -cf - . | xz -9 -T2 > "$archive.part"
size=$(stat -c %s "$archive.part")
mib=$(awk -v s="$size" 'BEGIN { printf "%.1f", s / 1048576 }')
if [ "$size" -gt $((limit_mib * 1048576)) ]; then
  rm -f "$archive.part"
  die "the archive would be $mib MiB, over the $limit_mib MiB limit (fewer FRAMES_1080/FRAMES_4K?); nothing written"
fi
mv "$archive.part" "$archive"
# the script that runs it, beside it: `bash .device/run.sh` works from a
# checkout that lacks tests/device (run.sh takes the current folder as root)
cp "$here/run.sh" "$dest/run.sh"
[ "$size" -le $((want_mib * 1048576)) ] || say "warning: $mib MiB is over the $want_mib MiB aimed at"
say "$archive: $mib MiB ($size bytes), $kind, $describe"
