#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# A classifier trained here, used as a user uses it: waldboost-train on the
# faces of astronaut.png and messi5.jpg (varied copies) over face-free
# backgrounds, then a gst-launch-1.0 pipeline whose waldboostdetect loads
# the new XML with its default grouping and must report, in its element
# messages, its strongest detection over astronaut's face (IoU >= 0.5 with
# the box written by hand), labelled with the classifier's own label. Any
# window over the face would not do: a classifier that keeps windows at
# random keeps some there too (with 12 weak classifiers and no grouping,
# 57 of 973 raw windows were over the face, and the strongest group was
# elsewhere).
#   tests/train_element.sh WALDBOOST_TRAIN   (GST_PLUGIN_PATH: the plugin)
set -eu
train=$1
# shellcheck source=tests/tool_test_lib.sh
. "$(dirname "$0")/tool_test_lib.sh"
require_test_data astronaut.png messi5.jpg brick.png gravel.png building.jpg board.jpg

printf '%s\n' "$data/astronaut.png 1 171 64 104 104" "$data/messi5.jpg 2 228 95 35 35 243 62 83 83" > "$work/faces.txt"
printf '%s\n' "$data/brick.png" "$data/gravel.png" "$data/building.jpg" "$data/board.jpg" > "$work/bg.txt"
"$train" -o "$work/trained.xml" -a "$work/faces.txt" -n "$work/bg.txt" --weak 20 --copies 40 --mirror \
  --shift 0.05 --scale 0.1 --rotate 8 --brightness 20 --contrast 0.2 --negative-count 400 \
  --label trained-face --block-sizes 1x1,2x2,3x3 --position-step 2 2> "$work/progress" ||
  { cat "$work/progress"; exit 1; }

gst-launch-1.0 -m filesrc location="$data/astronaut.png" ! pngdec ! videoconvert ! \
  waldboostdetect classifier="$work/trained.xml" post-messages=true ! fakesink \
  > "$work/messages" 2>&1 || { cat "$work/messages"; exit 1; }

python3 - "$work/messages" <<'PY'
import re, sys
# gst-launch -m prints each detection structure escaped inside the
# message: drop the backslashes, then read the fields.
text = open(sys.argv[1]).read().replace("\\", "")
found = [tuple(int(v) for v in m[:4]) + (m[4], float(m[5])) for m in re.findall(
    r"x=\(int\)(\d+), y=\(int\)(\d+), width=\(int\)(\d+), height=\(int\)(\d+), label=\(string\)([\w-]+), "
    r"confidence=\(double\)([\d.e+-]+)", text)]
assert found, "no detection in the element's messages:\n" + text[-2000:]
def iou(a, b):
    ix = max(0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    return ix * iy / float(a[2] * a[3] + b[2] * b[3] - ix * iy)
assert all(d[4] == "trained-face" for d in found), {d[4] for d in found}
strongest = max(found, key=lambda d: d[5])
overlap = iou(strongest, (171, 64, 104, 104))
assert overlap >= 0.5, "the strongest of %d detections, %s, is not over the face (IoU %.2f)" % (
    len(found), strongest, overlap)
print("train element: waldboostdetect ran the trained classifier: %d detections, the strongest "
      "(confidence %.3f) over the face with IoU %.2f" % (len(found), strongest[5], overlap))
PY
