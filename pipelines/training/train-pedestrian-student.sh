#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The teacher-student recipe of docs/training.md ("A detector for your own
# camera") end to end on opencv-doc's vtest.avi, a fixed camera over
# walkers, in a few minutes on 2 cores:
#   1. label the footage with a teacher: OpenCV's HOG people detector
#      confirmed by motion (make-pedestrian-set.py's labeller, every 5th
#      frame; needs the build to have found OpenCV), or with --haar
#      haarcascade_fullbody run at the element (no OpenCV needed);
#   2. teach.py: positives from the teacher's boxes (16x32, the teachers'
#      1:2 shape), negatives from the same frames with the boxes masked, a
#      split by time;
#   3. student.py: train an LBP student, choose its final threshold on the
#      tuning frames, report it against the teacher on the held-out frames
#      (recall, precision, F1 at IoU 0.5; weak classifiers per window; frame
#      rate at the element beside haarcascade_fullbody's).
#   pipelines/training/train-pedestrian-student.sh [--haar] [--fps-device SPEC]
# BUILD (default build) is the meson build folder; everything is written to
# BUILD/pedestrian-student (the student: student.xml, the report:
# report.json). Needs tests/fetch-test-data.sh BUILD/testdata and, for the
# HOG teacher, python3-skimage (build-aux/install-deps.sh --tests).
set -eu
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
teacher=hog
fps_device=auto
while [ $# -gt 0 ]; do
  case "$1" in
    --haar) teacher=haar; shift ;;
    --fps-device) fps_device=${2:?--fps-device needs a device}; shift 2 ;;
    *) echo "usage: $0 [--haar] [--fps-device SPEC]" >&2; exit 2 ;;
  esac
done
haar=/usr/share/opencv4/haarcascades/haarcascade_fullbody.xml
video=$build/testdata/vtest.avi
out=$build/pedestrian-student
[ -f "$video" ] || { echo "$0: no $video: tests/fetch-test-data.sh $build/testdata" >&2; exit 1; }
[ -f "$haar" ] || { echo "$0: no $haar: install opencv-data" >&2; exit 1; }
# The frame rates come last: a device that is not there stops the recipe now.
"$build/gst/tools/devices/waldboost-devices" -s "$fps_device" >/dev/null || exit 2
rm -rf "$out"
mkdir -p "$out"

if [ "$teacher" = hog ]; then
  labeller=$build/gst/tools/label-pedestrians/label-pedestrians
  [ -x "$labeller" ] || { echo "$0: no $labeller (built when meson finds OpenCV); or use --haar" >&2; exit 1; }
  echo "--- 1. the teacher: HOG confirmed by motion, every 5th frame"
  /usr/bin/python3 pipelines/training/make-pedestrian-set.py --testdata "$build/testdata" --labeller "$labeller" \
    "$out/labels"
  echo "--- 2. the set"
  /usr/bin/python3 pipelines/training/teach.py --teacher-detections "$out/labels/teacher.jsonl" --window 16x32 \
    --every 1 --build "$build" -o "$out/set" "$video"
  label=pedestrian
  beside="--beside $haar"  # HOG has no frame rate at the element: haarcascade_fullbody's instead
else
  echo "--- 1 and 2. the teacher (haarcascade_fullbody at the element) and the set"
  /usr/bin/python3 pipelines/training/teach.py --teacher "$haar" --window 16x32 --every 2 --build "$build" \
    -o "$out/set" "$video"
  label=full-body
  beside=
fi
echo "--- 3. the student"
# shellcheck disable=SC2086 # $beside is an option and its value, or nothing
/usr/bin/python3 pipelines/training/student.py --set "$out/set" -o "$out/student.xml" --label "$label" $beside \
  --fps-device "$fps_device" --report "$out/report.json" --build "$build"
