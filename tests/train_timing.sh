#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# The time per weak classifier of waldboost-train on each --device, for
# docs/training.md ("Training time"): a 24x24 window, positives from the
# three annotated faces of the test data varied (COPIES copies each, with
# mirrors: 6 x COPIES positives, as many negatives), every LBP block size
# and LRD's default ones, WEAK weak classifiers. Prints per device and
# family the median and mean ms of weak-learner selection
# (select_seconds) and of the whole weak classifier (seconds, mining
# included), and checks that the devices wrote the same classifier.
#   tests/train_timing.sh WALDBOOST_TRAIN [DEVICES] [COPIES] [WEAK] [FEATURES]
#   e.g. tests/train_timing.sh build/gst/tools/train/waldboost-train "cpu opencl" 700 20 "lbp lrd"
# TRAIN_SET=DIR takes the positives from the crops in DIR/faces and the
# backgrounds from DIR/bg.txt instead (e.g. the face set's training half,
# pipelines/training/make-face-set.py); TRAIN_ARGS adds options (e.g.
# "--negative-count 5000"). Each run also prints its wall time.
set -eu
train=$1
devices=${2:-cpu opencl}
copies=${3:-700}
weak=${4:-20}
features=${5:-lbp lrd}
data=${WALDBOOST_TEST_DATA:-build/testdata}
[ -d "$data" ] && data=$(cd "$data" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -n "${TRAIN_SET:-}" ]; then
  [ -d "$TRAIN_SET/faces" ] && [ -s "$TRAIN_SET/bg.txt" ] || { echo "TRAIN_SET needs faces/ and bg.txt"; exit 1; }
  positives="-p $TRAIN_SET/faces"
  backgrounds=$TRAIN_SET/bg.txt
else
  for f in astronaut.png messi5.jpg brick.png gravel.png building.jpg board.jpg coffee.png fruits.jpg; do
    [ -s "$data/$f" ] || { echo "missing $data/$f (tests/fetch-test-data.sh)"; exit 1; }
  done
  printf '%s 1 171 64 104 104\n%s 2 228 95 35 35 243 62 83 83\n' "$data/astronaut.png" "$data/messi5.jpg" \
    > "$work/faces.txt"
  for f in brick.png gravel.png building.jpg board.jpg coffee.png fruits.jpg; do echo "$data/$f"; done > "$work/bg.txt"
  positives="-a $work/faces.txt"
  backgrounds=$work/bg.txt
fi
for feature in $features; do
  for device in $devices; do
    start=$(date +%s.%N)
    # shellcheck disable=SC2086
    "$train" -o "$work/$feature-$device.xml" $positives -n "$backgrounds" -f "$feature" \
      --weak "$weak" --copies "$copies" --mirror --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 \
      --contrast 0.2 --device "$device" ${TRAIN_ARGS:-} --json 2> "$work/progress" ||
      { cat "$work/progress"; exit 1; }
    echo "$feature $device: $(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s in all"
    python3 - "$work/progress" "$feature" "$device" <<'PY'
import json, statistics, sys
lines = open(sys.argv[1]).read().splitlines()
steps = [json.loads(l) for l in lines if l.startswith('{"weak"')]
info = [l for l in lines if not l.startswith('{')]
sel = [1000 * s["select_seconds"] for s in steps]
tot = [1000 * s["seconds"] for s in steps]
print("%s %-6s %d weak: selection median %.0f ms, mean %.0f ms; whole weak classifier median %.0f ms, mean %.0f ms"
      % (sys.argv[2], sys.argv[3], len(steps), statistics.median(sel), statistics.mean(sel),
         statistics.median(tot), statistics.mean(tot)))
for l in info:
    if "positives" in l or "candidate" in l or "histograms on" in l:
        print("   ", l)
PY
  done
  set -- $devices
  first=$1
  for device in $devices; do
    cmp "$work/$feature-$first.xml" "$work/$feature-$device.xml" ||
      { echo "FAILED: --device $device trained another $feature classifier than --device $first"; exit 1; }
  done
done
