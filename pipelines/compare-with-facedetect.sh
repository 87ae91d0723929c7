#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the same video through OpenCV's facedetect (gstreamer1.0-opencv) and
# through waldboostdetect with the same cascade and settings, as fast as the
# pipelines go (fakesink sync=false), prints wall times and detection
# counts, and compares the boxes of the two elements frame by frame. A first
# look at the speed, not a benchmark: one run each, decoding included.
#
#   decode only:     SOURCE ! decodebin ! video/x-raw ! fakesink
#   facedetect:      SOURCE ! decodebin ! videoconvert ! video/x-raw,format=RGB
#                      ! facedetect display=false profile=CASCADE scale-factor=1.1
#                      min-neighbors=3 min-size-width=MIN min-size-height=MIN ! fakesink
#   waldboostdetect: SOURCE ! decodebin ! videoconvert ! video/x-raw,format=RGB
#                      ! waldboostdetect draw=none classifier=CASCADE scale-factor=1.1
#                      min-neighbors=3 min-size=MIN min-height=MIN device=DEVICE ! fakesink
#   the same on the decoder's own format (no RGB caps; YUV's luma plane is
#                      searched, not facedetect's gray, so its boxes are not compared)
#
# Usage: [CASCADE=FILE] [MIN_SIZE=N] [EYES=FILE] [NOSE=FILE] [MOUTH=FILE]
#        pipelines/compare-with-facedetect.sh [VIDEO] [DEVICE]
#   VIDEO   a file or a URI; default build/testdata/Megamind.avi
#   DEVICE  waldboostdetect's device property; default auto
#   CASCADE the OpenCV cascade both elements use, LBP or Haar, any window
#           shape; default lbpcascade_frontalface.xml. For facedetect's own
#           default:
#           CASCADE=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
#   MIN_SIZE the smallest object's width and height for both; default 24
#   EYES, NOSE, MOUTH  cascades both elements search inside each face
#           (eyes-profile, nose-profile, mouth-profile), e.g.
#           EYES=/usr/share/opencv4/haarcascades/haarcascade_eye.xml; the
#           detection counts and the boxes compared are still faces only
#
# facedetect takes only RGB and searches OpenCV's gray of it; given the same
# RGB frames, waldboostdetect searches the same gray, and the last line says
# in how many frames the two gave the same boxes (sorted, x, y, width and
# height; each element posts one message a frame). facedetect (GStreamer
# 1.22) reads an RGB row as 3 x width bytes, where GStreamer pads each row
# to a multiple of 4: at other widths it searches a sheared image, and the
# boxes differ (the element's are OpenCV's on the frame's real rows). The
# decoder's own format (I420 for most files) spares the conversion to RGB:
# that run's time is printed too. facedetect also runs its eye, nose and
# mouth cascades in every face when their files exist; Debian does not ship
# them (it logs that it cannot open them), and they cannot be switched off
# from gst-launch-1.0 (an empty value swallows the next argument, /dev/null
# crashes OpenCV); EYES, NOSE and MOUTH replace them for both elements.
# The exit status is 0 when every frame's boxes were the same, 3 when they
# differ in any frame (facedetect's shear above included), and 1 when a
# pipeline or a setting failed.
# waldboostdetect runs twice on RGB: the first run may include building the
# OpenCL kernels (cached in ~/.cache/waldboost-gst afterwards). "pipeline" is
# the time gst-launch-1.0 reports from PLAYING to the end of the stream;
# "process" adds start-up (plugin loading, cascade loading, OpenCL set-up).
# The ratios are of the pipeline times, facedetect over waldboostdetect's
# second RGB run and over its run on the decoder's format (above 1:
# waldboostdetect is faster).
# $src, $rgb, $settings and $parts are split into words on purpose.
# shellcheck disable=SC2086
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
device=${2:-auto}
set_source "$video"
need_elements waldboostdetect facedetect decodebin videoconvert fakesink
cascade=${CASCADE:-/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml}
[ -f "$cascade" ] || die "$cascade not found: apt-get install opencv-data"
min=${MIN_SIZE:-24}
case $min in
  '' | *[!0-9]*) die "MIN_SIZE=$min: a number of pixels, e.g. MIN_SIZE=30" ;;
esac

# The nested cascades, as properties of both elements (word-split on
# purpose below: paths with spaces are not supported).
parts=""
[ -n "${EYES:-}" ] && parts="$parts eyes-profile=$EYES"
[ -n "${NOSE:-}" ] && parts="$parts nose-profile=$NOSE"
[ -n "${MOUTH:-}" ] && parts="$parts mouth-profile=$MOUTH"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log=$work/log

now() { date +%s.%N; }

# run NAME PATTERN ARGS...: runs gst-launch-1.0 -m ARGS, prints the times and
# how many times PATTERN (one detection in a message) occurs in its output.
run() {
  name=$1 pattern=$2
  shift 2
  start=$(now)
  if ! gst-launch-1.0 -m "$@" >"$log" 2>&1; then
    cat "$log" >&2
    die "$name: pipeline failed"
  fi
  end=$(now)
  pipeline=$(sed -n 's/^Execution ended after \([0-9:.]*\)$/\1/p' "$log" |
    awk -F: '{ printf "%.2f", $1 * 3600 + $2 * 60 + $3 }')
  count=$(grep -o "$pattern" "$log" | wc -l)
  printf '%-40s process %7.2f s   pipeline %7s s   detections %6d\n' \
    "$name" "$(echo "$start $end" | awk '{ print $2 - $1 }')" "$pipeline" "$count"
}

# boxes MESSAGE: one line for each MESSAGE message of the last run's log
# (each element posts one a frame), its boxes as x,y,width,height, sorted,
# "-" for none. Only the list's own entries match ("face\,\ x\=\(uint\)..."
# for facedetect, "detection\,\ x\=\(int\)..." for waldboostdetect): the
# parts inside them are escaped once more, or named eyes->x.
boxes() {
  awk -v message="$1" '
    index($0, "(element): " message ", ") {
      line = $0
      n = 0
      while (match(line, /"[a-z]+\\,\\ x\\=\\\(u?int\\\)[0-9]+\\,\\ y\\=\\\(u?int\\\)[0-9]+\\,\\ width\\=\\\(u?int\\\)[0-9]+\\,\\ height\\=\\\(u?int\\\)[0-9]+/)) {
        box = substr(line, RSTART, RLENGTH)
        line = substr(line, RSTART + RLENGTH)
        gsub(/[^0-9]+/, " ", box)
        split(box, v, " ")
        box = v[1] "," v[2] "," v[3] "," v[4]
        for (i = n; i > 0 && list[i] > box; i--)
          list[i + 1] = list[i]
        list[i + 1] = box
        n++
      }
      out = n ? list[1] : "-"
      for (i = 2; i <= n; i++)
        out = out " " list[i]
      print out
    }' "$log"
}

echo "video: $video"
echo "cascade: $cascade"
echo "smallest object: ${min}x$min"
[ -n "$parts" ] && echo "inside each face:$parts"
for part in eyepair_small nose mouth; do
  [ -f "/usr/share/opencv4/haarcascades/haarcascade_mcs_$part.xml" ] &&
    echo "note: facedetect also runs haarcascade_mcs_$part.xml inside each face"
done
if [ -x "$build/gst/tools/devices/waldboost-devices" ]; then
  echo "waldboostdetect device=$device: $("$build/gst/tools/devices/waldboost-devices" --select "$device" 2>&1 | sed -n 2p)"
fi
rgb="videoconvert ! video/x-raw,format=RGB"
settings="scale-factor=1.1 min-neighbors=3"
run "decode only" 'no-detections-here' \
  $src "$src_arg" ! decodebin ! video/x-raw ! fakesink sync=false
run "facedetect" '"face\\,' \
  $src "$src_arg" ! decodebin ! $rgb ! facedetect display=false profile="$cascade" $parts \
  $settings min-size-width="$min" min-size-height="$min" ! fakesink sync=false
facedetect_time=$pipeline
boxes facedetect >"$work/facedetect"
for i in 1 2; do
  run "waldboostdetect, RGB (run $i)" '"detection\\,' \
    $src "$src_arg" ! decodebin ! $rgb ! waldboostdetect draw=none device="$device" classifier="$cascade" $parts \
    $settings min-size="$min" min-height="$min" ! fakesink sync=false
done
rgb_time=$pipeline
boxes waldboostdetect >"$work/waldboostdetect"
run "waldboostdetect, the decoder's format" '"detection\\,' \
  $src "$src_arg" ! decodebin ! videoconvert ! waldboostdetect draw=none device="$device" classifier="$cascade" \
  $parts $settings min-size="$min" min-height="$min" ! fakesink sync=false
echo "$facedetect_time $rgb_time $pipeline" | awk '$2 > 0 && $3 > 0 {
  printf "pipeline time facedetect / waldboostdetect: %.2fx on RGB (run 2), %.2fx on the decoder'"'"'s format\n",
    $1 / $2, $1 / $3 }'
# The frames compared in order: line N of each file is frame N.
awk '
  FILENAME == ARGV[1] { theirs[FNR] = $0; frames = FNR; next }
  {
    ours = FNR
    if ($0 == theirs[FNR]) same++
    else if (differ++ < 10) list = list " " FNR - 1
  }
  END {
    printf "boxes on RGB: the same in %d of %d frames (messages: facedetect %d, waldboostdetect %d)\n",
      same, (frames > ours ? frames : ours), frames, ours
    if (differ) {
      printf "first frames whose boxes differ (from 0):%s\n", list
      print "(facedetect reads RGB rows without their padding: at a width that is not a multiple of 4 it searches a sheared image)"
    }
    if (differ || frames != ours)
      exit 3
  }' "$work/facedetect" "$work/waldboostdetect" || exit
