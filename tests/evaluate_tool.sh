#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# waldboost-evaluate as a user runs it. Classifiers written here whose
# behaviour is known (one that accepts every window, one that rejects
# every window after its first weak classifier of three) on an image made
# here, with every count worked out below independently of the tool: the
# windows of the pyramid, the false positives per megapixel, the weak
# classifiers per window and the detection rate of a small annotation set.
# Then lbpcascade_frontalface (and TRAINED_FACE_CLASSIFIER when given, e.g.
# the one pipelines/training/train-face-detector.sh writes) on a real face
# outside the face set (astronaut.png), and bad input.
#   tests/evaluate_tool.sh WALDBOOST_EVALUATE [TRAINED_FACE_CLASSIFIER]
set -eu
evaluate=$1
trained=${2:-}
# shellcheck source=tests/tool_test_lib.sh
. "$(dirname "$0")/tool_test_lib.sh"

# A 64x48 grey image of noise (PGM; gdk-pixbuf reads it).
python3 - "$work/noise.pgm" <<'PY'
import random, sys
random.seed(7)
w, h = 64, 48
with open(sys.argv[1], "wb") as f:
    f.write(b"P5\n%d %d\n255\n" % (w, h))
    f.write(bytes(random.randrange(256) for _ in range(w * h)))
PY

# LBP classifiers of 24x24 whose every table entry is the same: the LBP
# code does not matter, so each window's outcome is known.
stage() { # RESPONSE NEGT
  values=$(python3 -c "print(' '.join(['$1'] * 256))")
  printf '  <stage posT="1e+50" negT="%s">\n    <HistogramWeakHypothesis predictionValues="%s">\n' "$2" "$values"
  printf '      <LBPFeature positionX="0" positionY="0" blockWidth="2" blockHeight="2" binMappingType="NONE"/>\n'
  printf '    </HistogramWeakHypothesis>\n  </stage>\n'
}
classifier() { # FILE STAGES...
  out=$1
  shift
  { printf '<?xml version="1.0" encoding="UTF-8"?>\n'
    printf '<WaldBoostClassifier classifierName="thing" minStdDev="0" imageSizeX="24" imageSizeY="24" type="LBP" finalThreshold="0">\n'
    printf '%s\n' "$@"
    printf '</WaldBoostClassifier>\n'; } > "$out"
}
classifier "$work/accept-all.xml" "$(stage 1 -1e+50)"
classifier "$work/reject-first.xml" "$(stage -1 -0.5)" "$(stage 1 -1e+50)" "$(stage 1 -1e+50)"

echo "$work/noise.pgm" > "$work/bg.txt"
# Box 1 is exactly the first window of the first level; box 2 (8x8) can
# reach an IoU of at most 64/576 with a window of 24x24 or more.
echo "noise.pgm 2 0 0 24 24 10 10 8 8" > "$work/objects.txt"

# Every raw window is a detection with --min-neighbors 0; a stride of 1
# makes the windows of each level easy to count.
"$evaluate" -c "$work/accept-all.xml" -a "$work/objects.txt" -b "$work/bg.txt" --min-neighbors 0 --stride 1 \
  --scale-factor 1.5 --json > "$work/accept.json"
"$evaluate" -c "$work/reject-first.xml" -a "$work/objects.txt" -b "$work/bg.txt" --min-neighbors 0 --stride 1 \
  --scale-factor 1.5 --json > "$work/reject.json"
"$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --min-neighbors 0 --stride 1 --scale-factor 1.5 \
  > "$work/accept.txt"
# NMS at IoU 0 keeps no two overlapping windows.
"$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --min-neighbors 0 --stride 1 --scale-factor 1.5 \
  --grouping nms --nms-iou 0 --json > "$work/nms.json"
python3 - "$work/accept.json" "$work/reject.json" "$work/accept.txt" "$work/nms.json" <<'PY'
import json, sys
accept, reject = (json.load(open(p)) for p in sys.argv[1:3])
nms = json.load(open(sys.argv[4]))
text = open(sys.argv[3]).read()
# The pyramid worked out by hand: levels 1 and 1.5 (a window of 36); at
# 2.25 the window (54) is taller than the image. Level 1.5 scans the image
# scaled to round(64 / 1.5) x round(48 / 1.5) = 43 x 32.
windows = (64 - 24 + 1) * (48 - 24 + 1) + (43 - 24 + 1) * (32 - 24 + 1)
assert windows == 1205
megapixels = 64 * 48 / 1e6
b = accept["backgrounds"]
assert b["images"] == 1 and b["windows"] == windows, b
assert b["false_positives"] == windows, b
assert abs(b["false_positives_per_megapixel"] - windows / megapixels) < 1e-3 * windows / megapixels, b
assert b["weak_evaluated"] == windows and b["weak_per_window"] == 1, b
o = accept["objects"]
assert o["objects"] == 2 and o["found"] == 1 and o["detection_rate"] == 0.5, o
assert o["mean_iou"] == 1 and o["other_detections"] == windows - 1, o
# The other detections on the annotated image, per megapixel of it.
assert abs(o["megapixels"] - megapixels) < 1e-9, o
assert abs(o["other_detections_per_megapixel"] - (windows - 1) / megapixels) < 1e-3 * windows / megapixels, o
# Windows of 24 or 36 pixels that do not overlap: at most 2 x 2 in 64x48.
assert nms["settings"]["grouping"] == "nms" and nms["settings"]["nms_iou"] == 0, nms["settings"]
assert accept["settings"]["grouping"] == "opencv", accept["settings"]
assert 1 <= nms["backgrounds"]["false_positives"] <= 4, nms["backgrounds"]
assert accept["settings"]["min_size"] == [24, 24] and accept["settings"]["iou"] == 0.5, accept["settings"]
assert accept["settings"]["final_threshold"] == 0, accept["settings"]
# Three weak classifiers, each window rejected after the first.
b = reject["backgrounds"]
assert b["windows"] == windows and b["weak_evaluated"] == windows and b["false_positives"] == 0, b
assert reject["objects"]["found"] == 0 and reject["objects"]["detection_rate"] == 0, reject["objects"]
assert reject["classifier"]["weak"] == 3, reject["classifier"]
assert "1205 false positives" in text and "weak classifiers per window: 1.000" in text, text
print("evaluate tool: %d windows, rates and counts as worked out" % windows)
PY

# --threshold replaces the final threshold: every window scores 1, so 1
# keeps them all (score >= threshold) and 1.5 none.
fps() { # THRESHOLD
  "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --min-neighbors 0 --stride 1 --scale-factor 1.5 \
    --threshold "$1" --json | python3 -c "import json, sys; print(json.load(sys.stdin)['backgrounds']['false_positives'])"
}
[ "$(fps 1)" = 1205 ] || { echo "FAILED: --threshold 1 did not keep every window"; exit 1; }
[ "$(fps 1.5)" = 0 ] || { echo "FAILED: --threshold 1.5 kept a window"; exit 1; }

# IoU 0.5 is the default; --iou 1 still finds the exact box, and a box
# shifted by 6 pixels (IoU 18*24/(2*576 - 18*24) = 0.6) is found at 0.5,
# not at 0.7.
echo "noise.pgm 1 6 0 24 24" > "$work/shifted.txt"
# --stride 6 scans x = 0, 6, 12, ...: the shifted box is a window itself; a
# stride of 12 leaves it between windows 0 and 12, each at IoU 0.6.
found() { # ANNOTATIONS IOU STRIDE
  "$evaluate" -c "$work/accept-all.xml" -a "$1" --min-neighbors 0 --stride "$3" --scale-factor 1.5 --iou "$2" \
    --json | python3 -c "import json, sys; print(json.load(sys.stdin)['objects']['found'])"
}
[ "$(found "$work/shifted.txt" 1 6)" = 1 ] || { echo "FAILED: an exact window not found at IoU 1"; exit 1; }
[ "$(found "$work/shifted.txt" 1 12)" = 0 ] || { echo "FAILED: a window at IoU 0.6 counted at IoU 1"; exit 1; }
[ "$(found "$work/shifted.txt" 0.5 12)" = 1 ] || { echo "FAILED: a window at IoU 0.6 missed at 0.5"; exit 1; }
[ "$(found "$work/shifted.txt" 0.7 12)" = 0 ] || { echo "FAILED: a window at IoU 0.6 counted at 0.7"; exit 1; }

# A real face: astronaut's face is found, a box on her shoulder is not.
data=${WALDBOOST_TEST_DATA:-build/testdata}
cascade=${WALDBOOST_CONVERTED_DIR:-build/classifiers}/lbpcascade_frontalface.xml
if [ -s "$data/astronaut.png" ] && [ -s "$cascade" ]; then
  echo "$(cd "$data" && pwd)/astronaut.png 2 171 64 104 104 300 350 100 100" > "$work/astronaut.txt"
  for c in "$cascade" $trained; do
    "$evaluate" -c "$c" -a "$work/astronaut.txt" --json > "$work/face.json"
    python3 -c "
import json, sys
o = json.load(open(sys.argv[1]))['objects']
assert o['objects'] == 2 and o['found'] == 1, o
print('evaluate tool: %s finds the astronaut face, IoU %.2f' % (sys.argv[2].split('/')[-1], o['mean_iou']))
" "$work/face.json" "$c"
  done
elif [ "${WALDBOOST_REQUIRE_TEST_DATA:-0}" = 1 ]; then
  echo "missing $data/astronaut.png or $cascade"; exit 1
else
  echo "evaluate tool: no astronaut.png or converted cascade, the real-face check skipped"
fi

# Many boxes on one image, each overlapping every window at --iou 0.01:
# every pair at the threshold used to be kept, 24 bytes each, here 72
# million of them (gigabytes). Refused with a message at the bound instead,
# in bounded memory and time; ulimit -v is left out under ASan
# (tests/sanitizers.sh), whose shadow memory needs terabytes.
python3 -c "print('noise.pgm', 60000, ' 20 12 24 24' * 60000)" > "$work/crowd.txt"
limit_memory=""
[ -n "${ASAN_OPTIONS+set}" ] || limit_memory="ulimit -v 2000000;"
expect 1 "crowd.txt:1: its 60000 boxes and 1205 detections make more than 16777216 pairs at IoU >= 0.01, too many" \
  sh -c "$limit_memory"' exec "$@"' sh timeout 60 "$evaluate" -c "$work/accept-all.xml" -a "$work/crowd.txt" \
  --min-neighbors 0 --stride 1 --scale-factor 1.5 --iou 0.01

expect 2 "classifier is required" "$evaluate" -b "$work/bg.txt"
expect 2 "give held-out data" "$evaluate" -c "$work/accept-all.xml"
expect 2 "iou must be above 0" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --iou 0
expect 2 "scale-factor must be" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --scale-factor 1
expect 2 "min-size must be WxH" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --min-size 24
expect 2 "grouping is opencv, nms or none" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --grouping x
expect 2 "nms-iou must be" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --nms-iou 2
expect 2 "threshold needs a number" "$evaluate" -c "$work/accept-all.xml" -b "$work/bg.txt" --threshold x
expect 1 "missing.xml" "$evaluate" -c "$work/missing.xml" -b "$work/bg.txt"
expect 1 "cannot read the backgrounds list" "$evaluate" -c "$work/accept-all.xml" -b "$work/missing.txt"
: > "$work/empty.txt"
expect 1 "names no image" "$evaluate" -c "$work/accept-all.xml" -b "$work/empty.txt"
expect 1 "no annotated image" "$evaluate" -c "$work/accept-all.xml" -a "$work/empty.txt"
echo "noise.pgm 1 50 40 24 24" > "$work/outside.txt"
expect 1 "outside.txt:1 .*is not inside the 64x48 image" "$evaluate" -c "$work/accept-all.xml" -a "$work/outside.txt"
echo "noise.pgm 2 0 0 24 24" > "$work/count.txt"
expect 1 "count.txt" "$evaluate" -c "$work/accept-all.xml" -a "$work/count.txt"
echo "not an image" > "$work/bad.pgm"
echo "$work/bad.pgm" > "$work/bad-bg.txt"
expect 1 "bad.pgm" "$evaluate" -c "$work/accept-all.xml" -b "$work/bad-bg.txt"
echo "evaluate tool: ok"
