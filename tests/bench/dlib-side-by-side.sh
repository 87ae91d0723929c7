#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Our trainer side by side with dlib's HOG trainer (issue 54, item 3), for
# docs/performance.md ("Side by side with dlib's HOG trainer"): on the face
# set and the pedestrian set of docs/quality.md and the whole-scene face set
# (make-face-scenes.py, issue 54 item 2), in one run, trains ours (the
# recipes of train-face-detector.sh, without and with --scenes, and
# train-pedestrian-detector.sh) and dlib's (waldboost-bench-dlib), each
# timed; measures both on the same held-out data (recall at IoU 0.5 one to
# one, false positives per megapixel); times detection per 640x480 and
# 1920x1080 frame (one held-out image resized to both, the same pixels for
# both detectors); prints one markdown table.
#
#   tests/bench/dlib-side-by-side.sh [--device SPEC] [--threads N] [--train-device WHERE]
#                                    [--repeat N] [--sets "faces scenes pedestrians"]
#
# --device SPEC: where ours detects in the timing, waldboost-detect -d SPEC
#   (default cpu: the OpenCL engine on PoCL; gpu, P:D or a name for a GPU).
# --threads N: training threads of both trainers (default 2: the table's
#   "2 cores"; on a larger host also run it under taskset -c 0,1).
# --train-device WHERE: waldboost-train --device (default cpu, so that the
#   training time is the CPU's wherever it runs; every device trains the
#   same classifier, byte for byte).
# --repeat N: timed runs per frame size, the median kept (default 10).
# --sets LIST: which sets, of faces, scenes and pedestrians (default all three).
#
# dlib's side: scan_fhog_pyramid<pyramid_down<6>> and
# structural_object_detection_trainer, epsilon 0.01, images mirrored as
# ours are (--mirror); its window and upsampling follow the objects:
#  - faces: an 80x80 window (dlib's face example); dlib learns from whole
#    images with boxes, not crops, so it trains on make-face-set.py's
#    tuning set: the same 70 training faces pasted at 36, 54 and 81 pixels
#    into canvases cut from the same training backgrounds (as the held-out
#    faces are made), plus those backgrounds whole. Every image is upsampled
#    2.25x so that the smallest faces (36 pixels) fill the window.
#  - scenes: an 80x80 window, the same whole training images and boxes as
#    ours (make-face-scenes.py's train.txt: 223 faces in 138 images of up to
#    720x580) and backgrounds; every image is upsampled 2.05x so that the
#    smallest training faces (39 pixels) fill the window (no box is
#    unobtainable; the held-out faces are 60 to 160 pixels).
#  - pedestrians: a 32x64 window (HOG's 1:2), the same annotated training
#    frames and backgrounds as ours, no upsampling (the smallest label is
#    33x66). Walkers the labeller missed are negatives to dlib, which
#    learns from whole frames; ours takes negatives from the backgrounds.
#  - C chosen on training data only: of 1 and 5, the one with the higher
#    detection rate on the training objects and no false positive on the
#    training backgrounds: 5 for every set (training faces found: 42.9% at
#    1, 92.9% at 5; training scenes' faces: 90.1% and 91.5%, both finding
#    every tune.txt face with no other box; training pedestrians: 9.4% and
#    63.5%).
# Ours on the scenes: train-face-detector.sh --scenes's LRD recipe through
# student.py (the final threshold chosen on tune.txt, as there).
# Training time: ours is waldboost-train's whole run (on the scenes,
# student.py's train_seconds: without the threshold's choice), dlib's from
# reading the images to the trained detector (waldboost-bench-dlib's
# "seconds").
#
# Writes its classifiers, dlib's detectors, the frames and every tool's
# JSON to BUILD/dlib-side-by-side (BUILD: default build). Makes the sets
# (BUILD/face-set, BUILD/face-scenes, BUILD/pedestrian-set) when they are
# missing. Needs: build-aux/install-deps.sh --bench (dlib,
# python3-skimage), tests/fetch-test-data.sh BUILD/testdata, and a build
# configured with dlib and OpenCV (waldboost-bench-dlib, label-pedestrians).
set -eu
cd "$(dirname "$0")/../.."
build=${BUILD:-build}
device=cpu
threads=2
train_device=cpu
repeat=10
sets="faces scenes pedestrians"
usage() {
  echo "usage: $0 [--device SPEC] [--threads N] [--train-device WHERE] [--repeat N] [--sets \"faces scenes pedestrians\"]" >&2
  exit 2
}
while [ $# -gt 0 ]; do
  [ $# -ge 2 ] || usage
  case "$1" in
    --device) device=$2 ;;
    --threads) threads=$2 ;;
    --train-device) train_device=$2 ;;
    --repeat) repeat=$2 ;;
    --sets) sets=$2 ;;
    *) usage ;;
  esac
  shift 2
done
for tool in train/waldboost-train evaluate/waldboost-evaluate detect/waldboost-detect \
  bench-dlib/waldboost-bench-dlib label-pedestrians/label-pedestrians; do
  [ -x "$build/gst/tools/$tool" ] || { echo "$0: $build/gst/tools/$tool is missing: ninja -C $build" \
    "(waldboost-bench-dlib is built only when meson finds dlib: build-aux/install-deps.sh --bench;" \
    "label-pedestrians only when it finds OpenCV)" >&2; exit 1; }
done
out=$build/dlib-side-by-side
mkdir -p "$out"

now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print('%.1f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
# A Python expression of a JSON file's object d: json FILE 'd["objects"]["found"]'.
json() { python3 -c "import json, sys; d = json.load(open(sys.argv[1])); print($2)" "$1"; }
first_image() { grep -v -e '^#' -e '^$' "$1" | head -n 1 | cut -d ' ' -f 1; }

face_set=$build/face-set
scene_set=$build/face-scenes
ped_set=$build/pedestrian-set
rows=""

run_set() {  # name, then the variables below set by the caller
  name=$1
  echo "--- $name: ours, training" >&2
  if [ -n "$ours_student" ]; then
    # student.py on the set $ours_student: waldboost-train on its train.txt
    # and train-backgrounds.txt, then the final threshold chosen on its
    # tune.txt and written into the classifier. Its train_seconds is
    # waldboost-train's whole run. ($device for its frame rate, which it
    # skips on held-out scenes of several sizes.)
    # shellcheck disable=SC2046 # each option is one --train-option
    /usr/bin/python3 pipelines/training/student.py --set "$ours_student" -o "$out/$name-ours.xml" \
      --label "$ours_label_name" --feature "$ours_feature" --build "$build" --fps-device "$device" \
      --report "$out/$name-ours-student.json" \
      $(for o in $ours_recipe --device "$train_device" -j "$threads"; do printf -- '--train-option=%s ' "$o"; done) \
      >"$out/$name-ours-train.log" 2>&1 || { tail -n 20 "$out/$name-ours-train.log" >&2; exit 1; }
    ours_train=$(json "$out/$name-ours-student.json" '"%.1f" % d["train_seconds"]')
    ours_label="$ours_label, final threshold $(json "$out/$name-ours-student.json" 'd["final_threshold"]') on tune.txt"
  else
    start=$(now)
    # shellcheck disable=SC2086 # $ours_recipe is a list of options
    "$build/gst/tools/train/waldboost-train" -o "$out/$name-ours.xml" $ours_recipe \
      --device "$train_device" -j "$threads" 2>"$out/$name-ours-train.log"
    ours_train=$(elapsed "$start" "$(now)")
  fi

  echo "--- $name: dlib, training, held-out measures and timing" >&2
  start=$(now)
  # shellcheck disable=SC2086 # $dlib_recipe is a list of options
  "$build/gst/tools/bench-dlib/waldboost-bench-dlib" $dlib_recipe --threads "$threads" \
    --heldout "$heldout" --heldout-backgrounds "$heldout_bg" --timing-image "$timing_image" \
    --repeat "$repeat" --frames-out "$out" --save "$out/$name-dlib.svm" >"$out/$name-dlib.log"
  tail -n 1 "$out/$name-dlib.log" >"$out/$name-dlib.json"
  echo "    dlib's whole run: $(elapsed "$start" "$(now)") s" >&2
  # The frames dlib was timed on, kept for ours under the set's name.
  for size in 640x480 1920x1080; do mv "$out/frame-$size.pgm" "$out/$name-$size.pgm"; done

  echo "--- $name: ours, held-out measures and timing (-d $device)" >&2
  "$build/gst/tools/evaluate/waldboost-evaluate" --json -c "$out/$name-ours.xml" -a "$heldout" \
    -b "$heldout_bg" >"$out/$name-ours-evaluate.json"
  for size in 640x480 1920x1080; do
    "$build/gst/tools/detect/waldboost-detect" -c "$out/$name-ours.xml" -d "$device" --repeat "$repeat" \
      "$out/$name-$size.pgm" >"$out/$name-ours-$size.json" 2>"$out/$name-ours-$size.log"
  done

  e=$out/$name-ours-evaluate.json
  d=$out/$name-dlib.json
  rows="$rows
| $name | ours ($ours_label) | $ours_train | $(json "$e" '"%.1f%% (%d/%d)" % (100 * d["objects"]["found"] / d["objects"]["objects"], d["objects"]["found"], d["objects"]["objects"])') | $(json "$e" '"%.2f (%d in %.2f MP)" % (d["backgrounds"]["false_positives_per_megapixel"], d["backgrounds"]["false_positives"], d["backgrounds"]["megapixels"])') | $(json "$out/$name-ours-640x480.json" '"%.1f" % d["images"][0]["milliseconds"]') | $(json "$out/$name-ours-1920x1080.json" '"%.1f" % d["images"][0]["milliseconds"]') |
| $name | dlib ($dlib_label) | $(json "$d" '"%.1f" % d["training"]["seconds"]') | $(json "$d" '"%.1f%% (%d/%d)" % (100 * d["objects"]["found"] / d["objects"]["objects"], d["objects"]["found"], d["objects"]["objects"])') | $(json "$d" '"%.2f (%d in %.2f MP)" % (d["backgrounds"]["false_positives_per_megapixel"], d["backgrounds"]["false_positives"], d["backgrounds"]["megapixels"])') | $(json "$d" '"%.1f" % d["timing"]["ms_640x480"]') | $(json "$d" '"%.1f" % d["timing"]["ms_1920x1080"]') |"
}

for set in $sets; do
  ours_student=
  case "$set" in
    faces)
      if [ ! -s "$face_set/tune-faces.txt" ] || [ ! -s "$face_set/heldout-backgrounds.txt" ]; then
        /usr/bin/python3 pipelines/training/make-face-set.py --testdata "$build/testdata" "$face_set"
      fi
      # train-face-detector.sh's recipe (LRD, 500 weak, final threshold 0).
      ours_recipe="-f lrd --alpha 0.05 --final-threshold 0 --weak 500 --negative-count 5000
        -p $face_set/train-faces -n $face_set/train-backgrounds.txt --label face
        --copies 20 --mirror --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 --contrast 0.2"
      ours_label="LRD 24x24, 500 weak"
      dlib_recipe="-a $face_set/tune-faces.txt -n $face_set/train-backgrounds.txt --window 80x80
        --upsample 2.25 --mirror -C 5"
      dlib_label="FHOG 80x80, upsampled 2.25x"
      heldout=$face_set/heldout-faces.txt
      heldout_bg=$face_set/heldout-backgrounds.txt
      # A held-out photo: a held-out face canvas (108-243 pixels) would be
      # mostly one blown-up face at 1080p.
      timing_image=$(first_image "$heldout_bg")
      run_set faces
      ;;
    scenes)
      if [ ! -s "$scene_set/tune.txt" ] || [ ! -s "$scene_set/heldout-backgrounds.txt" ]; then
        /usr/bin/python3 pipelines/training/make-face-scenes.py --testdata "$build/testdata" --build "$build" \
          "$scene_set"
      fi
      # train-face-detector.sh --scenes: its LRD recipe (alpha 0.05, 500
      # weak) through student.py, which adds the set, the window and the
      # final threshold chosen on tune.txt.
      ours_student=$scene_set ours_feature=lrd ours_label_name=face
      ours_recipe="--alpha 0.05 --weak 500 --negative-count 5000
        --copies 20 --mirror --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 --contrast 0.2"
      ours_label="LRD 24x24, 500 weak"
      dlib_recipe="-a $scene_set/train.txt -n $scene_set/train-backgrounds.txt --window 80x80
        --upsample 2.05 --mirror -C 5"
      dlib_label="FHOG 80x80, upsampled 2.05x"
      heldout=$scene_set/heldout.txt
      heldout_bg=$scene_set/heldout-backgrounds.txt
      # The first held-out Megamind.avi scene with its face at 160 pixels
      # (573x420: near a 640x480 frame, a face in it).
      timing_image=$(cd "$scene_set" && pwd)/$(grep -m 1 -o '^images/megamind-[0-9]*-160\.pgm' "$heldout")
      run_set scenes
      ;;
    pedestrians)
      if [ ! -s "$ped_set/heldout-pedestrians.txt" ] || [ ! -s "$ped_set/train-backgrounds.txt" ]; then
        /usr/bin/python3 pipelines/training/make-pedestrian-set.py --testdata "$build/testdata" \
          --labeller "$build/gst/tools/label-pedestrians/label-pedestrians" "$ped_set"
      fi
      # train-pedestrian-detector.sh's recipe (LBP, 400 weak, final threshold 0).
      ours_recipe="-a $ped_set/train-pedestrians.txt -n $ped_set/train-backgrounds.txt --label pedestrian
        --window 16x32 --feature lbp --weak 400 --negative-count 6000 --copies 3 --mirror --shift 0.05
        --brightness 20 --contrast 0.2 --seed 6 --final-threshold 0"
      ours_label="LBP 16x32, 400 weak"
      dlib_recipe="-a $ped_set/train-pedestrians.txt -n $ped_set/train-backgrounds.txt --window 32x64
        --upsample 1 --mirror -C 5"
      dlib_label="FHOG 32x64"
      heldout=$ped_set/heldout-pedestrians.txt
      heldout_bg=$ped_set/heldout-backgrounds.txt
      # The first held-out frame (768x576, walkers on the path).
      timing_image=$(cd "$ped_set" && pwd)/$(first_image "$heldout")
      run_set pedestrians
      ;;
    *) echo "$0: --sets takes faces, scenes and/or pedestrians, not '$set'" >&2; exit 2 ;;
  esac
done

engine=$(grep -h -m 1 "OpenCL engine on" "$out"/*-ours-640x480.log | head -n 1 | sed 's/^waldboost-detect: //')
echo
echo "Ours detects with the OpenCL engine (-d $device: ${engine:-?}); dlib on one thread per frame."
echo "Training: $threads threads each (ours --device $train_device). Load average: $(cut -d ' ' -f 1-3 /proc/loadavg)."
echo
echo "| set | trainer | training time (s) | held-out recall | FP/MP | ms per 640x480 | ms per 1080p |"
echo "|---|---|---|---|---|---|---|$rows"
