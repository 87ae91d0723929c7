#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs the same video through OpenCV's facedetect (gstreamer1.0-opencv) and
# through waldboostdetect with the same cascade and settings, as fast as the
# pipelines go (fakesink sync=false), and prints wall times and detection
# counts. A first look, not a benchmark: one run each, decoding included.
#
#   decode only:     SOURCE ! decodebin ! video/x-raw ! fakesink
#   facedetect:      SOURCE ! decodebin ! videoconvert ! facedetect display=false
#                      profile=CASCADE scale-factor=1.1
#                      min-neighbors=3 min-size-width=24 min-size-height=24 ! fakesink
#   waldboostdetect: SOURCE ! decodebin ! videoconvert ! waldboostdetect draw=none
#                      classifier=CASCADE scale-factor=1.1
#                      min-neighbors=3 min-size=24 device=DEVICE ! fakesink
#
# Usage: [CASCADE=FILE] [EYES=FILE] [NOSE=FILE] [MOUTH=FILE]
#        pipelines/compare-with-facedetect.sh [VIDEO] [DEVICE]
#   VIDEO   a file or a URI; default build/testdata/Megamind.avi
#   DEVICE  waldboostdetect's device property; default auto
#   CASCADE the OpenCV cascade both elements use, LBP or Haar, with a 24x24
#           window (min-size 24); default lbpcascade_frontalface.xml. For
#           facedetect's own default:
#           CASCADE=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
#   EYES, NOSE, MOUTH  cascades both elements search inside each face
#           (eyes-profile, nose-profile, mouth-profile), e.g.
#           EYES=/usr/share/opencv4/haarcascades/haarcascade_eye.xml; the
#           detection counts are still faces only
#
# facedetect needs RGB, so its pipeline converts every frame to RGB (part of
# its real cost); waldboostdetect reads the decoder's I420 as it is. The
# counts differ a little: facedetect looks at RGB converted to gray, the other
# at the luma plane (with video/x-raw,format=RGB in front of both, they search
# the same gray and give the same boxes). facedetect also runs its eye, nose and mouth cascades in
# every face when their files exist; Debian does not ship them (it logs that
# it cannot open them), and they cannot be switched off from gst-launch-1.0
# (an empty value swallows the next argument, /dev/null crashes OpenCV);
# EYES, NOSE and MOUTH replace them for both elements.
# waldboostdetect runs twice: the first run may include building the OpenCL
# kernels (cached in ~/.cache/waldboost-gst afterwards). "pipeline" is the
# time gst-launch-1.0 reports from PLAYING to the end of the stream; "process"
# adds start-up (plugin loading, cascade loading, OpenCL set-up). The last
# line is the ratio of the pipeline times, facedetect over the second
# waldboostdetect run (above 1: waldboostdetect is faster).
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
device=${2:-auto}
set_source "$video"
need_elements waldboostdetect facedetect decodebin videoconvert fakesink
cascade=${CASCADE:-/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml}
[ -f "$cascade" ] || die "$cascade not found: apt-get install opencv-data"

# The nested cascades, as properties of both elements (word-split on
# purpose below: paths with spaces are not supported).
parts=""
[ -n "${EYES:-}" ] && parts="$parts eyes-profile=$EYES"
[ -n "${NOSE:-}" ] && parts="$parts nose-profile=$NOSE"
[ -n "${MOUTH:-}" ] && parts="$parts mouth-profile=$MOUTH"

log=$(mktemp)
trap 'rm -f "$log"' EXIT

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
  printf '%-28s process %7.2f s   pipeline %7s s   detections %6d\n' \
    "$name" "$(echo "$start $end" | awk '{ print $2 - $1 }')" "$pipeline" "$count"
}

echo "video: $video"
echo "cascade: $cascade"
[ -n "$parts" ] && echo "inside each face:$parts"
for part in eyepair_small nose mouth; do
  [ -f "/usr/share/opencv4/haarcascades/haarcascade_mcs_$part.xml" ] &&
    echo "note: facedetect also runs haarcascade_mcs_$part.xml inside each face"
done
if [ -x "$build/gst/tools/devices/waldboost-devices" ]; then
  echo "waldboostdetect device=$device: $("$build/gst/tools/devices/waldboost-devices" --select "$device" 2>&1 | sed -n 2p)"
fi
run "decode only" 'no-detections-here' \
  $src "$src_arg" ! decodebin ! video/x-raw ! fakesink sync=false
run "facedetect" '"face\\,' \
  $src "$src_arg" ! decodebin ! videoconvert ! facedetect display=false profile="$cascade" $parts \
  scale-factor=1.1 min-neighbors=3 min-size-width=24 min-size-height=24 ! fakesink sync=false
facedetect_time=$pipeline
for i in 1 2; do
  run "waldboostdetect (run $i)" '"detection\\,' \
    $src "$src_arg" ! decodebin ! videoconvert ! waldboostdetect draw=none device="$device" \
    classifier="$cascade" $parts scale-factor=1.1 min-neighbors=3 min-size=24 ! fakesink sync=false
done
echo "$facedetect_time $pipeline" |
  awk '$2 > 0 { printf "pipeline time facedetect / waldboostdetect (run 2): %.2fx\n", $1 / $2 }'
