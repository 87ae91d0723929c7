#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# waldboost-train as a user runs it: bad training input gets a clear error
# and a non-zero exit; a small run from an annotation file (faces in
# astronaut.png and messi5.jpg, varied copies) and face-free backgrounds
# writes a classifier that waldboost-detect loads and runs, the same for a
# folder of crops, and progress as JSON lines.
#   tests/train_tool.sh WALDBOOST_TRAIN WALDBOOST_DETECT
set -eu
train=$1
detect=$2
data=${WALDBOOST_TEST_DATA:-build/testdata}
[ -d "$data" ] && data=$(cd "$data" && pwd)
for f in astronaut.png messi5.jpg brick.png gravel.png building.jpg board.jpg; do
  if [ ! -s "$data/$f" ]; then
    [ "${WALDBOOST_REQUIRE_TEST_DATA:-0}" = 1 ] && { echo "missing $data/$f"; exit 1; }
    echo "SKIP: missing $data/$f (tests/fetch-test-data.sh)"; exit 77
  fi
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The face boxes of the embedded detector, written by hand once.
cat > "$work/faces.txt" <<LIST
$data/astronaut.png 1 171 64 104 104
# two of messi5's faces
$data/messi5.jpg 2 228 95 35 35 243 62 83 83
LIST
printf '%s\n' "$data/brick.png" "$data/gravel.png" "$data/building.jpg" "$data/board.jpg" > "$work/bg.txt"

# expect STATUS TEXT COMMAND...: the exit status and a line of stderr.
expect() {
  want=$1 text=$2
  shift 2
  status=0
  "$@" > "$work/out" 2> "$work/err" || status=$?
  if [ "$status" != "$want" ] || ! grep -q -- "$text" "$work/err"; then
    echo "FAILED: $* gave status $status (want $want), stderr:"; cat "$work/err"
    echo "(expected to find: $text)"
    exit 1
  fi
}
expect 2 "output is required" "$train" -a "$work/faces.txt" -n "$work/bg.txt"
expect 2 "negatives is required" "$train" -o "$work/x.xml" -a "$work/faces.txt"
expect 2 "give positives" "$train" -o "$work/x.xml" -n "$work/bg.txt"
expect 2 "feature must be lbp, lrd or lrp" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/bg.txt" -f haar
expect 2 "device must be auto, cpu or opencl" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/bg.txt" \
  --device gpu
# No OpenCL platform at all (the ICD loader finds no vendor file): an error
# for --device=opencl, the CPU for auto.
OCL_ICD_VENDORS="$work/no-vendors" expect 1 "device=opencl: no OpenCL device" "$train" -o "$work/x.xml" \
  -a "$work/faces.txt" -n "$work/bg.txt" --device opencl
expect 2 "window must be WxH" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/bg.txt" -w 24
expect 1 "cannot read the annotation file" "$train" -o "$work/x.xml" -a "$work/missing.txt" -n "$work/bg.txt"
: > "$work/empty.txt"
expect 1 "no annotated image" "$train" -o "$work/x.xml" -a "$work/empty.txt" -n "$work/bg.txt"
expect 1 "names no image" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/empty.txt"
echo "$data/astronaut.png 1 500 500 40 40" > "$work/outside.txt"
expect 1 "outside.txt:1 .*is not inside the 512x512 image" "$train" -o "$work/x.xml" -a "$work/outside.txt" -n "$work/bg.txt"
echo "$data/astronaut.png 1 10 10 0 40" > "$work/zero.txt"
expect 1 "size of 0x40" "$train" -o "$work/x.xml" -a "$work/zero.txt" -n "$work/bg.txt"
echo "$work/not-an-image.png 1 0 0 4 4" > "$work/bad-image.txt"
echo "not a PNG" > "$work/not-an-image.png"
expect 1 "not-an-image.png" "$train" -o "$work/x.xml" -a "$work/bad-image.txt" -n "$work/bg.txt"
echo "$data/brick.png" > "$work/tiny-bg.txt"
expect 1 "working set needs 5000000 negatives" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/tiny-bg.txt" \
  --negative-count 5000000
[ ! -e "$work/x.xml" ] || { echo "FAILED: a failed run left an output file"; exit 1; }

# A small real run: 3 faces, 40 varied copies each with mirrors.
"$train" -o "$work/faces.xml" -a "$work/faces.txt" -n "$work/bg.txt" --weak 12 --copies 40 --mirror \
  --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 --contrast 0.2 --negative-count 400 --label face \
  --block-sizes 1x1,2x2,3x3 --position-step 2 -j 2 --json 2> "$work/progress"
lines=$(grep -c '^{"weak": ' "$work/progress" || true)
[ "$lines" -ge 1 ] || { echo "FAILED: no JSON progress line"; cat "$work/progress"; exit 1; }
python3 - "$work/progress" <<'PY'
import json, sys
steps = [json.loads(l) for l in open(sys.argv[1]) if l.startswith('{"weak"')]
assert steps[0]["weak"] == 1 and all(s["of"] == 12 for s in steps), steps[0]
assert all(0 <= s["negatives_rejected"] <= 1 and s["seconds"] >= 0 for s in steps), steps
print("train tool: %d weak classifiers, the first rejects %.0f%% of the negatives"
      % (len(steps), 100 * steps[0]["negatives_rejected"]))
PY
"$detect" -c "$work/faces.xml" --min-neighbors 0 "$data/astronaut.png" > "$work/detections.json"
python3 - "$work/detections.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["classifier"]["label"] == "face" and doc["classifier"]["window"] == [24, 24], doc["classifier"]
# the training face itself: some raw window covers it
def iou(a, b):
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / (a[2] * a[3] + b[2] * b[3] - ix * iy)
boxes = [(d["x"], d["y"], d["width"], d["height"]) for d in doc["images"][0]["detections"]]
assert any(iou(b, (171, 64, 104, 104)) >= 0.5 for b in boxes), boxes[:10]
print("train tool: waldboost-detect ran the trained classifier: %d raw windows on astronaut.png" % len(boxes))
PY
# The same seed gives the same file, on one thread and with the histograms
# on an OpenCL device (on the CPU where there is none); LRD from a folder
# of crops.
again() {
  "$train" -o "$work/again.xml" -a "$work/faces.txt" -n "$work/bg.txt" --weak 12 --copies 40 --mirror \
    --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 --contrast 0.2 --negative-count 400 --label face \
    --block-sizes 1x1,2x2,3x3 --position-step 2 "$@"
}
again -j 1 2> /dev/null
cmp "$work/faces.xml" "$work/again.xml" || { echo "FAILED: the same seed gave another classifier"; exit 1; }
if again --device opencl 2> "$work/err"; then
  cmp "$work/faces.xml" "$work/again.xml" || { echo "FAILED: OpenCL histograms gave another classifier"; exit 1; }
  echo "train tool: the OpenCL histograms gave the same classifier"
else
  grep -q "device=opencl: no OpenCL device" "$work/err" || { cat "$work/err"; exit 1; }
  echo "train tool: no OpenCL device, the OpenCL histograms not compared"
fi
mkdir "$work/crops"
cp "$data/astronaut.png" "$work/crops/whole.png" # the whole image as one crop
"$train" -o "$work/lrd.xml" -p "$work/crops" -n "$work/bg.txt" -f lrd --weak 4 --copies 20 --shift 0.05 \
  --negative-count 200 2> "$work/err" || { cat "$work/err"; exit 1; }
grep -q 'type="LRD"' "$work/lrd.xml" || { echo "FAILED: no LRD classifier written"; exit 1; }
"$detect" -c "$work/lrd.xml" "$data/messi5.jpg" > /dev/null
echo "train tool: ok"
