#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# waldboost-train as a user runs it: bad training input gets a clear error
# and a non-zero exit; a small run from an annotation file (faces in
# astronaut.png and messi5.jpg, varied copies) and face-free backgrounds
# writes a classifier that waldboost-detect loads and runs, the same for a
# folder of crops, and progress as JSON lines; a run stopped and resumed
# from a checkpoint, and one mining on the OpenCL engine, give the same
# file as one that never stopped; -o and --checkpoint write through links
# and into devices, keep a file's mode and never open a guessable name.
#   tests/train_tool.sh WALDBOOST_TRAIN WALDBOOST_DETECT
set -eu
train=$1
detect=$2
# shellcheck source=tests/tool_test_lib.sh
. "$(dirname "$0")/tool_test_lib.sh"
require_test_data astronaut.png messi5.jpg brick.png gravel.png building.jpg board.jpg

# The face boxes of the embedded detector, written by hand once.
cat > "$work/faces.txt" <<LIST
$data/astronaut.png 1 171 64 104 104
# two of messi5's faces
$data/messi5.jpg 2 228 95 35 35 243 62 83 83
LIST
printf '%s\n' "$data/brick.png" "$data/gravel.png" "$data/building.jpg" "$data/board.jpg" > "$work/bg.txt"

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
# Checked before any image is read (the images here do not exist), not when
# training ends: an empty label, an output folder that is not there, and
# -o naming an input file, which the run would replace.
echo "$work/nowhere.png 1 0 0 24 24" > "$work/late.txt"
expect 2 "label is empty" "$train" -o "$work/x.xml" -a "$work/late.txt" -n "$work/bg.txt" --label ""
expect 1 "cannot write the classifier: $work/no-such-folder/x.xml: cannot create a temporary file: No such file" \
  "$train" -o "$work/no-such-folder/x.xml" -a "$work/late.txt" -n "$work/bg.txt"
cp "$work/late.txt" "$work/late.copy"
expect 2 "output names the annotation file" "$train" -o "$work/late.txt" -a "$work/late.txt" -n "$work/bg.txt"
ln -s late.txt "$work/late-link.txt"
expect 2 "output names the annotation file" "$train" -o "$work/late-link.txt" -a "$work/late.txt" -n "$work/bg.txt"
expect 2 "output names the negatives list" "$train" -o "$work/bg.txt" -a "$work/late.txt" -n "$work/bg.txt"
cmp -s "$work/late.txt" "$work/late.copy" || { echo "FAILED: -o replaced the annotation file"; exit 1; }
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
  --negative-count 5000000 --max-memory 100000000
[ ! -e "$work/x.xml" ] || { echo "FAILED: a failed run left an output file"; exit 1; }
# Settings that cannot work, or whose working set would not fit, are usage
# errors before any image is read (late.txt names one that does not exist),
# within seconds: a 5000x5000 window, 2,000,000,000 copies and a 96x96
# window with every LBP block size used to run until memory ran out.
quick() { # STATUS TEXT OPTIONS...
  want=$1 text=$2
  shift 2
  expect "$want" "$text" timeout 30 "$train" -o "$work/x.xml" -a "$work/late.txt" -n "$work/bg.txt" "$@"
}
quick 2 "window must have sides of 3 to 1024 pixels, not 5000x5000" -w 5000x5000
quick 2 "window must have sides of 3 to 1024 pixels, not 2x24" -w 2x24
quick 2 "weak must be 1 to 65535" --weak 70000
quick 2 "block-sizes: a 3x3 grid of 9x9 blocks does not fit the 24x24 window" --block-sizes 2x2,9x9
quick 2 "the working set of 2000000000 positives would take about .* MB, more than .*--max-memory" \
  --copies 2000000000
quick 2 "the working set of 1240 positives would take about 5[0-9][0-9][0-9] MB, more than 1024 MB (--max-memory)" \
  -w 96x96 --copies 1240 --max-memory 1024
quick 2 "max-memory must be 0" --max-memory -1

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
# The time left, at the mean pace so far: none after the last one.
assert all(s["eta_seconds"] >= 0 for s in steps) and steps[-1]["eta_seconds"] == 0, steps
assert abs(steps[0]["eta_seconds"] - 11 * steps[0]["seconds"]) < 0.1, steps[0]
# Mining is part of a weak classifier's time, and only after one that mined.
assert all(0 <= s["mine_seconds"] <= s["seconds"] for s in steps), steps
assert all(s["mine_seconds"] == 0 for s in steps if s["windows_scanned"] == 0), steps
# A refill is short when it finds fewer than the working set's 400 negatives.
assert all(s["refill_short"] == (s["windows_scanned"] > 0 and s["negatives"] < 400) for s in steps), steps
text = open(sys.argv[1]).read()
# 3 faces, 40 copies each, mirrored; a tidy set: no warning.
assert "the working set of 240 positives takes about " in text, text
assert "warning" not in text, text
# Where the time went, in shares that add up to the whole.
import re
shares = re.search(r"12 weak classifiers in [^:]*: choosing them (\d+)%, mining negatives (\d+)% "
                   r"\([^)]+\), the rest \(new samples' features, thresholds\) (\d+)%", text)
assert shares and abs(sum(int(v) for v in shares.groups()) - 100) <= 2, text
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
# Said, where it used to pass without a word: one positive, and a box of
# another shape than the window (each is stretched to it); then why a run
# ended before its weak classifiers: a 48x48 background of noise has few
# windows, which the classifier soon rejects all of.
echo "$data/astronaut.png 1 171 64 52 104" > "$work/odd.txt"
# shellcheck disable=SC2086
"$train" -o "$work/odd.xml" -a "$work/odd.txt" -n "$work/bg.txt" --weak 1 --negative-count 100 --block-sizes 2x2 \
  --position-step 4 --device cpu -j 1 2> "$work/err" || { cat "$work/err"; exit 1; }
for text in "warning: only 1 positive: a detector learns from hundreds" \
  "warning: 1 of 1 boxes differ by more than 15% from the window's shape (24x24), e.g. $work/odd.txt:1 (52x104)"; do
  grep -q "$text" "$work/err" || { echo "FAILED: no '$text'"; cat "$work/err"; exit 1; }
done
python3 - "$work/noise.pgm" <<'PY'
import random, sys
random.seed(5)
with open(sys.argv[1], "wb") as f:
    f.write(b"P5\n48 48\n255\n" + bytes(random.randrange(256) for _ in range(48 * 48)))
PY
echo "$work/noise.pgm" > "$work/noise.txt"
"$train" -o "$work/early.xml" -a "$work/faces.txt" -n "$work/noise.txt" --weak 200 --copies 40 --mirror \
  --negative-count 100 --block-sizes 2x2 --position-step 4 --device cpu -j 1 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
for text in "stopped early, after [0-9]* of 200 weak classifiers: no background window passes the classifier any more" \
  "weak 1/200 .*; about .* left"; do
  grep -q "$text" "$work/err" || { echo "FAILED: no '$text'"; cat "$work/err"; exit 1; }
done
! grep -q "warning" "$work/err" || { echo "FAILED: a warning for 240 positives of the window's shape"; exit 1; }
weak=$(grep -o '<HistogramWeakHypothesis' "$work/early.xml" | wc -l)
grep -q "stopped early, after $weak of 200" "$work/err" || { echo "FAILED: $weak weak classifiers written"; exit 1; }
echo "train tool: warned of 1 positive of another shape; stopped early after $weak weak classifiers, saying why"
# Stopped early with a checkpoint of every 100: the last weak classifier's
# checkpoint is written all the same, so that a resume writes another final
# threshold into the same classifier without training again.
early="-a $work/faces.txt -n $work/noise.txt --weak 200 --copies 40 --mirror --negative-count 100
  --block-sizes 2x2 --position-step 4 --device cpu -j 1 --checkpoint $work/early.ck --checkpoint-every 100"
# shellcheck disable=SC2086
"$train" -o "$work/early-ck.xml" $early 2> "$work/err" || { cat "$work/err"; exit 1; }
cmp "$work/early.xml" "$work/early-ck.xml" || { echo "FAILED: a checkpoint changed the classifier"; exit 1; }
[ -s "$work/early.ck" ] || { echo "FAILED: no checkpoint after an early stop"; exit 1; }
# shellcheck disable=SC2086
"$train" -o "$work/early-t.xml" $early --resume --final-threshold 7.5 2> "$work/err" || { cat "$work/err"; exit 1; }
grep -q "resumed from .* after $weak weak classifiers" "$work/err" || { echo "FAILED: no resume"; cat "$work/err"; exit 1; }
grep -q 'finalThreshold="7.5"' "$work/early-t.xml" || { echo "FAILED: no final threshold 7.5"; exit 1; }
[ "$(grep -o '<HistogramWeakHypothesis' "$work/early-t.xml" | wc -l)" -eq "$weak" ] || {
  echo "FAILED: the resumed run has another number of weak classifiers"; exit 1; }
echo "train tool: an early stop keeps its checkpoint; resumed, it writes the final threshold only"
# The same seed gives the same file on one thread.
same="-a $work/faces.txt -n $work/bg.txt --weak 12 --copies 40 --mirror --shift 0.05 --scale 0.1 --rotate 8
  --brightness 20 --contrast 0.2 --negative-count 400 --label face --block-sizes 1x1,2x2,3x3 --position-step 2"
# shellcheck disable=SC2086
"$train" -o "$work/again.xml" $same -j 1 2> /dev/null
cmp "$work/faces.xml" "$work/again.xml" || { echo "FAILED: the same seed gave another classifier"; exit 1; }
# More threads than can start (100,000 stacks in 4 GB of address space):
# clamped to the cores, the same file, where it used to abort. Not under
# ASan (tests/sanitizers.sh), whose shadow memory needs terabytes.
if [ -z "${ASAN_OPTIONS+set}" ]; then
  # dash, Debian's sh, has ulimit -v.
  # shellcheck disable=SC2086,SC3045
  (ulimit -v 4000000 && "$train" -o "$work/many.xml" $same -j 100000 --device=cpu 2> "$work/err") \
    || { echo "FAILED: -j 100000"; cat "$work/err"; exit 1; }
  cmp "$work/faces.xml" "$work/many.xml" || { echo "FAILED: -j 100000 gave another classifier"; exit 1; }
fi
# Stopped after 5 weak classifiers and resumed: the same file as the run
# that never stopped; damaged or foreign checkpoints are refused.
# shellcheck disable=SC2086
"$train" -o "$work/resumed.xml" $same --checkpoint "$work/ck" --checkpoint-every 2 --stop-after 5 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
grep -q "stopped after 5 weak classifiers" "$work/err" || { echo "FAILED: no stop"; cat "$work/err"; exit 1; }
[ ! -e "$work/resumed.xml" ] || { echo "FAILED: a stopped run wrote a classifier"; exit 1; }
cp "$work/ck" "$work/ck.good"
# shellcheck disable=SC2086
"$train" -o "$work/resumed.xml" $same --checkpoint "$work/ck" --resume -j 1 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
grep -q "resumed from .* after 5 weak classifiers" "$work/err" || { echo "FAILED: no resume"; cat "$work/err"; exit 1; }
cmp "$work/faces.xml" "$work/resumed.xml" || { echo "FAILED: the resumed run gave another classifier"; exit 1; }
# Interrupted (SIGINT) once its checkpoint exists, then resumed: the same
# file (exit 130 when the signal came in time, 0 when the run had ended).
rm -f "$work/ck"
# shellcheck disable=SC2086
"$train" -o "$work/interrupted.xml" $same --checkpoint "$work/ck" 2> "$work/err" &
pid=$!
while [ ! -e "$work/ck" ] && kill -0 $pid 2> /dev/null; do sleep 0.05; done
kill -INT $pid 2> /dev/null || true
status=0
wait $pid || status=$?
[ $status = 130 ] || [ $status = 0 ] || { echo "FAILED: interrupted run exited $status"; cat "$work/err"; exit 1; }
[ $status = 0 ] || grep -q "interrupted after" "$work/err" || { echo "FAILED: no interruption message"; exit 1; }
echo "train tool: SIGINT gave exit status $status"
# shellcheck disable=SC2086
"$train" -o "$work/interrupted.xml" $same --checkpoint "$work/ck" --resume 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
cmp "$work/faces.xml" "$work/interrupted.xml" || { echo "FAILED: the interrupted run gave another classifier"; exit 1; }
# Two signals end the run at once, not after the weak classifier in
# progress (the second weak classifier here, seconds long, the first
# signal sent once the first one's checkpoint exists and the second once
# the first was taken), and the last checkpoint is whole: it resumes.
slow="-a $work/faces.txt -n $work/bg.txt --weak 3 --copies 40 --mirror --negative-count 2000 -j 1 --device=cpu"
rm -f "$work/ck" "$work/twice.xml"
# shellcheck disable=SC2086
"$train" -o "$work/twice.xml" $slow --checkpoint "$work/ck" 2> "$work/err" &
pid=$!
while [ ! -e "$work/ck" ] && kill -0 $pid 2> /dev/null; do sleep 0.05; done
kill -INT $pid 2> /dev/null || true
while ! grep -q "a second signal ends the run now" "$work/err" && kill -0 $pid 2> /dev/null; do sleep 0.01; done
kill -INT $pid 2> /dev/null || true
status=0
wait $pid || status=$?
grep -q "interrupted again: ending now" "$work/err" || { echo "FAILED: a second SIGINT did not end the run"; cat "$work/err"; exit 1; }
! grep -q "weak 2/3" "$work/err" || { echo "FAILED: two SIGINTs waited for the weak classifier"; cat "$work/err"; exit 1; }
[ ! -e "$work/twice.xml" ] || { echo "FAILED: a run ended by two signals wrote a classifier"; exit 1; }
# shellcheck disable=SC2086
"$train" -o "$work/twice.xml" $slow --checkpoint "$work/ck" --resume --stop-after 2 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
grep -q "resumed from .* after 1 weak classifiers" "$work/err" || { echo "FAILED: no resume"; cat "$work/err"; exit 1; }
echo "train tool: two SIGINTs gave exit status $status"
expect 2 "need --checkpoint" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/bg.txt" --resume
expect 1 "cannot read the checkpoint" "$train" -o "$work/x.xml" -a "$work/faces.txt" -n "$work/bg.txt" \
  --checkpoint "$work/missing.ck" --resume
head -c 1000 "$work/ck.good" > "$work/ck"
# shellcheck disable=SC2086
expect 1 "truncated" "$train" -o "$work/x.xml" $same --checkpoint "$work/ck" --resume
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); b[len(b) // 2] ^= 4
open(sys.argv[2], "wb").write(b)' "$work/ck.good" "$work/ck"
# shellcheck disable=SC2086
expect 1 "corrupted" "$train" -o "$work/x.xml" $same --checkpoint "$work/ck" --resume
# shellcheck disable=SC2086
expect 1 "not a waldboost-train checkpoint" "$train" -o "$work/x.xml" $same --checkpoint "$work/faces.txt" --resume
cp "$work/ck.good" "$work/ck"
# shellcheck disable=SC2086
expect 1 "other settings" "$train" -o "$work/x.xml" $same --seed 2 --checkpoint "$work/ck" --resume
# shellcheck disable=SC2086
expect 1 "other positives" "$train" -o "$work/x.xml" $same --copies 39 --checkpoint "$work/ck" --resume
# A random state of zeros with a checksum that matches: the generator then
# gives only zeros, and the miner's shuffle never returned; the first
# SIGTERM only asked for a stop after the weak classifier, hence timeout's
# -k. Refused before training now.
python3 - "$work/ck.good" "$work/ck" <<'PY'
import re, struct, sys
data = open(sys.argv[1], "rb").read()
payload = data[20:-8]
# The state as std::mt19937_64's << writes it: 312 words and a position.
m = re.search(rb"[0-9]+( [0-9]+){312}", payload)
start = m.start()
(length,) = struct.unpack("<I", payload[start - 4:start])
assert re.fullmatch(rb"[0-9 ]+", payload[start:start + length]), length
zeros = b" ".join([b"0"] * 312) + b" 312"
payload = payload[:start - 4] + struct.pack("<I", len(zeros)) + zeros + payload[start + length:]
h = 0xcbf29ce484222325
for byte in payload:
    h = ((h ^ byte) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
open(sys.argv[2], "wb").write(data[:12] + struct.pack("<Q", len(payload)) + payload + struct.pack("<Q", h))
PY
# shellcheck disable=SC2086
expect 1 "checkpoint $work/ck: its random state is all zero" timeout -k 5 60 "$train" -o "$work/x.xml" $same \
  --checkpoint "$work/ck" --resume
[ ! -e "$work/x.xml" ] || { echo "FAILED: a refused resume left an output file"; exit 1; }
# Histograms and mining on an OpenCL device (PoCL here) give the same
# classifier as on the CPU; --device=opencl with no OpenCL device is an error.
# shellcheck disable=SC2086
"$train" -o "$work/opencl.xml" $same --device=opencl 2> "$work/err" || { cat "$work/err"; exit 1; }
cmp "$work/faces.xml" "$work/opencl.xml" || { echo "FAILED: the OpenCL device (histograms, mining) gave another classifier"; exit 1; }
grep "mining:" "$work/err" | sed 's/^/train tool: /'
# shellcheck disable=SC2086
expect 2 "device must be auto, cpu or opencl" "$train" -o "$work/x.xml" $same --device=gpu
mkdir "$work/no-icd"
# shellcheck disable=SC2086
expect 1 "no OpenCL device" env OCL_ICD_VENDORS="$work/no-icd" "$train" -o "$work/x.xml" $same --device=opencl
# shellcheck disable=SC2086
env OCL_ICD_VENDORS="$work/no-icd" "$train" -o "$work/cpu.xml" $same --device=auto 2> "$work/err" \
  || { cat "$work/err"; exit 1; }
grep -q "mining on the CPU" "$work/err" || { echo "FAILED: auto without a GPU did not mine on the CPU"; exit 1; }
[ ! -e "$work/x.xml" ] || { echo "FAILED: a run without its device left an output file"; exit 1; }
# LRD from a folder of crops, with a final threshold of the user's
# (the same run without it must write another one).
mkdir "$work/crops"
cp "$data/astronaut.png" "$work/crops/whole.png" # the whole image as one crop
expect 2 "final-threshold must be a finite number" "$train" -o "$work/x.xml" -p "$work/crops" -n "$work/bg.txt" \
  --final-threshold inf
"$train" -o "$work/lrd.xml" -p "$work/crops" -n "$work/bg.txt" -f lrd --weak 4 --copies 20 --shift 0.05 \
  --negative-count 200 --final-threshold 1.25 2> "$work/err" || { cat "$work/err"; exit 1; }
grep -q 'type="LRD"' "$work/lrd.xml" || { echo "FAILED: no LRD classifier written"; exit 1; }
grep -q 'finalThreshold="1.25"' "$work/lrd.xml" || { echo "FAILED: --final-threshold not written"; exit 1; }
"$train" -o "$work/lrd-own.xml" -p "$work/crops" -n "$work/bg.txt" -f lrd --weak 4 --copies 20 --shift 0.05 \
  --negative-count 200 2> /dev/null
! grep -q 'finalThreshold="1.25"' "$work/lrd-own.xml" || { echo "FAILED: the trained final threshold is 1.25"; exit 1; }
"$detect" -c "$work/lrd.xml" "$data/messi5.jpg" > /dev/null

# What -o and --checkpoint name stays what it is (core/io/output_file.h).
# Both used to be written to NAME.part, opened with truncation, and renamed
# over NAME. Runs of 2 weak classifiers on 2x2 blocks, a second each; every
# check is made, and the failures counted, so that a failure shows them all.
tiny="-a $work/faces.txt -n $work/bg.txt --weak 2 --negative-count 100 --block-sizes 2x2 --position-step 4
  --device cpu -j 1"
# runs OPTIONS...: a tiny run that must succeed.
runs() {
  # shellcheck disable=SC2086
  "$train" $tiny "$@" 2> "$work/err" || { echo "FAILED: waldboost-train $*"; cat "$work/err"; exit 1; }
}
failures=0
bad() {
  echo "FAILED: $*"
  failures=$((failures + 1))
}
# A symbolic link planted as NAME.part in a shared folder: the run wrote
# into the link's target, then moved the link to NAME.
mkdir "$work/shared"
for f in out.xml ck; do
  echo precious > "$work/victim-of-$f"
  ln -s "$work/victim-of-$f" "$work/shared/$f.part"
done
runs -o "$work/shared/out.xml" --checkpoint "$work/shared/ck"
for f in out.xml ck; do
  [ "$(cat "$work/victim-of-$f")" = precious ] || bad "the link planted as $f.part was written through"
  if [ ! -f "$work/shared/$f" ] || [ -L "$work/shared/$f" ]; then bad "$f is not a file of its own"; fi
done
# A character device (as /dev/null, as root) was replaced by a regular
# file. The device nodes are made here, with /dev/null's numbers, so that a
# writer that went wrong again replaces nothing of the machine's; without
# the right to make them, /dev/null itself (which a user cannot replace).
null_out="$work/null-out" null_ck="$work/null-ck"
if ! mknod "$null_out" c 1 3 2> /dev/null || ! mknod "$null_ck" c 1 3 2> /dev/null; then
  [ "$(id -u)" != 0 ] || { echo "FAILED: root cannot make a device node in $work"; exit 1; }
  null_out=/dev/null null_ck=/dev/null
fi
runs -o "$null_out" --checkpoint "$null_ck"
[ -c "$null_out" ] || bad "-o $null_out was replaced by a $(stat -c %F "$null_out")"
[ -c "$null_ck" ] || bad "--checkpoint $null_ck was replaced by a $(stat -c %F "$null_ck")"
# A symbolic link was replaced by a file, and a 0600 file became 0644: a
# link stays a link and its target gets the text, a file keeps its mode.
mkdir "$work/kept"
for f in out-target ck-target out-private ck-private; do
  echo old > "$work/kept/$f"
  chmod 600 "$work/kept/$f"
done
ln -s out-target "$work/kept/out-link"
ln -s ck-target "$work/kept/ck-link"
runs -o "$work/kept/out-link" --checkpoint "$work/kept/ck-link"
runs -o "$work/kept/out-private" --checkpoint "$work/kept/ck-private"
for f in out-link ck-link; do
  [ -L "$work/kept/$f" ] || bad "the link $f was replaced by a $(stat -c %F "$work/kept/$f")"
done
for f in out-target ck-target out-private ck-private; do
  mode=$(stat -c %a "$work/kept/$f")
  [ "$mode" = 600 ] || bad "$f was 0600, is 0$mode"
done
for f in out-target out-private; do
  cmp -s "$work/shared/out.xml" "$work/kept/$f" || bad "$f did not get the classifier"
done
for f in ck-target ck-private; do
  cmp -s "$work/shared/ck" "$work/kept/$f" || bad "$f did not get the checkpoint"
done
# No temporary file is left behind.
for f in "$work/shared"/*.tmp-* "$work/kept"/*.tmp-*; do
  if [ -e "$f" ]; then bad "the temporary file $f was left"; fi
done
# A file that cannot be written: what, where and why.
# shellcheck disable=SC2086
expect 1 "cannot write the classifier: $work/missing/x.xml: cannot create a temporary file: No such file or directory" \
  "$train" $tiny -o "$work/missing/x.xml"
# shellcheck disable=SC2086
expect 1 "cannot write the checkpoint: $work/missing/ck: cannot create a temporary file: No such file or directory" \
  "$train" $tiny -o "$work/x.xml" --checkpoint "$work/missing/ck"
[ ! -e "$work/x.xml" ] || bad "a run that could not write its checkpoint wrote a classifier"
[ $failures = 0 ] || { ls -l "$work/shared" "$work/kept"; exit 1; }
echo "train tool: -o and --checkpoint keep devices, links and modes"
echo "train tool: ok"
