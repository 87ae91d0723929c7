#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Smoke test of waldboost-pipeline-bench (not a timing): 1 and 2 streams of
# two real images at 320x240, six frames each, on the CPU device, with
# profiling (for the busy fraction). The tool
# exits non-zero when a stream's boxes differ from the engine's on any frame
# or a part fails; the JSON and markdown must be written. Then one stream
# with detection settings of its own, one with nested parts (the faces
# compared, not the eyes), one with tracking (boxes not compared,
# frames counted), one writing into the element's pool, and one with the
# publish elements after the detector (--after); values the element cannot
# take are refused; frames in other formats give the same boxes; raw frames are read, and bad raw files refused; a run
# with no frame after the preroll fails its row. Skipped (77)
# without the test images unless WALDBOOST_REQUIRE_TEST_DATA=1.
set -eu
tool=$1
data=${WALDBOOST_TEST_DATA:-build/testdata}
for f in astronaut.png messi5.jpg; do
  if [ ! -s "$data/$f" ]; then
    echo "pipeline-bench smoke: $data/$f missing (tests/fetch-test-data.sh)"
    [ "${WALDBOOST_REQUIRE_TEST_DATA:-0}" = 1 ] && exit 1
    exit 77
  fi
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$tool" --streams 1,2 --sizes 320x240 --frames 6 --device cpu --timeout 60 --props profiling=true \
  --json "$out/pipeline.json" --markdown "$out/pipeline.md" "$data/astronaut.png" "$data/messi5.jpg"
grep -q '^| 320x240 | 2 |' "$out/pipeline.md" || { echo "no row for 2 streams in the markdown"; exit 1; }
python3 - "$out/pipeline.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["rows"]
assert [r["streams"] for r in rows] == [1, 2], rows
for r in rows:
    for part in ("engine", "source", "element"):
        p = r[part]
        assert p["ok"] and p["mismatches"] == 0, (part, p)
        assert p["frames"] > 0 and p["fps_total"] > 0, (part, p)
    # six frames: the frames the preroll left in flight weigh on the busy time
    assert 0 < r["element"]["busy_fraction"] < 2, r["element"]
    assert r["element"]["host_ms_per_frame"] > 0, r["element"]
    # every frame was searched: all of the host time is detection frames'
    assert r["element"]["host_ms_per_detected_frame"] > 0, r["element"]
    assert r["element"]["host_ms_per_other_frame"] == -1, r["element"]
    assert len(r["element"]["fps_per_stream"]) == r["streams"]
print("pipeline-bench smoke: ok")
PY
# The engines alone must follow the element's detection settings (the tool
# resolves them as the element does): a lower threshold, another grouping,
# sizes and a cap on the windows, where any difference is a mismatch.
"$tool" --streams 1 --sizes 320x240 --frames 4 --device cpu --timeout 60 --no-source \
  --props "threshold=-1.5 grouping=none max-windows=3 min-size=26 max-size=200 scale-factor=1.15" \
  --json "$out/settings.json" "$data/astronaut.png" "$data/messi5.jpg"
python3 - "$out/settings.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert len(rows) == 1 and all(rows[0][p]["ok"] and rows[0][p]["mismatches"] == 0 for p in ("engine", "element")), rows
print("pipeline-bench smoke with detection settings: ok")
PY
# A value the element cannot take is a usage error, not a run at the
# default (gst_util_set_object_arg only logged it).
for props in "min-size=abc" "scale-factor=0.5"; do
  status=0
  "$tool" --streams 1 --sizes 320x240 --frames 2 --device cpu --timeout 60 --no-engine --no-source \
    --props "$props" "$data/astronaut.png" > "$out/bad.out" 2>&1 || status=$?
  if [ "$status" -ne 2 ] || ! grep -q "^waldboost-pipeline-bench: --props: '${props#*=}' is" "$out/bad.out"; then
    echo "--props $props: exit $status, wanted 2 and a message:"; cat "$out/bad.out"; exit 1
  fi
done
echo "pipeline-bench smoke with values the element cannot take: ok"
# Other frame formats (--format): each gray frame carried as a decoder's
# planar or semi-planar luma, a camera's packed 4:2:2 or an application's
# RGB, made up front and written into the element's pool; the element must
# find the engine's boxes in every frame. A format that is not 8-bit, and
# one the element does not take, are usage errors.
for format in I420:none NV12:proposed YUY2:proposed BGRx:none RGB:proposed; do
  "$tool" --streams 1 --sizes 320x240 --frames 6 --device cpu --timeout 60 --no-engine --no-source \
    --format "${format%%:*}" --source-writes "${format#*:}" --json "$out/format.json" \
    "$data/astronaut.png" "$data/messi5.jpg" > "$out/format.out" 2>&1 ||
    { echo "--format $format:"; cat "$out/format.out"; exit 1; }
  python3 - "$out/format.json" "${format%%:*}" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["format"] == sys.argv[2], doc["format"]
element = doc["rows"][0]["element"]
assert element["ok"] and element["mismatches"] == 0 and element["frames"] > 0, element
PY
done
for format in "GRAY16_LE:takes an 8-bit video format" "AYUV:waldboostdetect does not take it"; do
  status=0
  "$tool" --streams 1 --sizes 320x240 --frames 6 --device cpu --no-engine --no-source \
    --format "${format%%:*}" "$data/astronaut.png" > "$out/bad.out" 2>&1 || status=$?
  if [ "$status" -ne 2 ] || ! grep -q "${format#*:}" "$out/bad.out"; then
    echo "--format ${format%%:*}: exit $status, wanted 2 and '${format#*:}':"; cat "$out/bad.out"; exit 1
  fi
done
echo "pipeline-bench smoke with other frame formats: ok"
# Raw frames (--raw): a file of three whole 64x48 frames is three distinct
# frames; one with a partial frame, and a device read without end
# (/dev/zero, which the tool once read until memory ran out), are refused.
python3 -c "import sys; sys.stdout.buffer.write(bytes(range(256)) * 36)" > "$out/three.gray"
"$tool" --streams 1 --sizes 64x48 --frames 4 --device cpu --timeout 60 --no-engine --no-source \
  --raw "$out/three.gray" --raw-size 64x48 > "$out/raw.out" 2>&1 ||
  { echo "--raw of three frames failed:"; cat "$out/raw.out"; exit 1; }
grep -q "64x48: 3" "$out/raw.out" || { echo "--raw: not three distinct frames:"; cat "$out/raw.out"; exit 1; }
head -c 4000 "$out/three.gray" > "$out/partial.gray"
for raw in "$out/partial.gray:does not hold whole 64x48 GRAY8 frames" "/dev/zero:not a regular file"; do
  status=0
  "$tool" --streams 1 --sizes 64x48 --frames 4 --device cpu --timeout 60 --no-engine --no-source \
    --raw "${raw%%:*}" --raw-size 64x48 > "$out/raw.out" 2>&1 || status=$?
  if [ "$status" -ne 1 ] || ! grep -q "${raw#*:}" "$out/raw.out"; then
    echo "--raw ${raw%%:*}: exit $status, wanted 1 and '${raw#*:}':"; cat "$out/raw.out"; exit 1
  fi
done
echo "pipeline-bench smoke with raw frames: ok"
# One frame a stream: the preroll takes it, nothing is timed, and the row
# says so (exit 3) instead of showing 0 fps as a result.
status=0
"$tool" --streams 1 --sizes 64x48 --frames 1 --device cpu --timeout 60 --no-engine --no-source \
  "$data/astronaut.png" > "$out/one.out" 2>&1 || status=$?
if [ "$status" -ne 3 ] || ! grep -q "no frame came after the preroll" "$out/one.out"; then
  echo "--frames 1: exit $status, wanted 3 and why:"; cat "$out/one.out"; exit 1
fi
echo "pipeline-bench smoke with too few frames: ok"
# Nested parts: the eyes found in the faces come as boxes of their own
# (parent_id naming the face); only the faces are the engine's to compare.
# 640x480, where the eye cascade finds eyes in these faces.
"$tool" --streams 1 --sizes 640x480 --frames 6 --device cpu --timeout 60 --no-source \
  --props "eyes-profile=${WALDBOOST_HAAR_DIR:-/usr/share/opencv4/haarcascades}/haarcascade_eye.xml" \
  --markdown "$out/parts.md" --json "$out/parts.json" "$data/astronaut.png" "$data/messi5.jpg"
grep -q "objects' boxes compared with the engine's" "$out/parts.md" || { echo "no note on the parts run"; exit 1; }
python3 - "$out/parts.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert all(rows[0][p]["ok"] and rows[0][p]["mismatches"] == 0 for p in ("engine", "element")), rows
print("pipeline-bench smoke with parts: ok")
PY
# Tracking and interval change the element's boxes by design: they are not
# compared with the engine's (the tool says so and exits 0), and every frame
# still comes out. 20 frames: the preroll takes up to max-inflight x 3 of
# them into the element at interval=3.
"$tool" --streams 1 --sizes 320x240 --frames 20 --device cpu --timeout 60 --no-source --no-engine \
  --props "tracking=true interval=3" --markdown "$out/tracking.md" --json "$out/tracking.json" \
  "$data/astronaut.png" "$data/messi5.jpg"
grep -q "boxes not compared with the engine's" "$out/tracking.md" || { echo "no note on the tracking run"; exit 1; }
python3 - "$out/tracking.json" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["rows"][0]["element"]
assert e["ok"] and e["mismatches"] == 0 and e["frames"] > 0 and e["fps_total"] > 0, e
# a third of the frames searched, the others followed: the mean host time
# per frame lies between the two kinds'
d, o, m = e["host_ms_per_detected_frame"], e["host_ms_per_other_frame"], e["host_ms_per_frame"]
assert d > 0 and o > 0 and min(d, o) <= m <= max(d, o), e
print("pipeline-bench smoke with tracking: ok")
PY
# A decoder-like source that writes each frame, during the run, into the
# pool the element proposes (--source-writes proposed): the element's
# boxes are still the engine's on every frame, and the source says it used
# the element's pool.
"$tool" --streams 1,2 --sizes 320x240 --frames 6 --device cpu --timeout 60 --no-source --no-engine \
  --source-writes proposed --json "$out/proposed.json" "$data/astronaut.png" "$data/messi5.jpg" 2> "$out/proposed.err"
grep -q "the source writes into WaldboostPinnedPool" "$out/proposed.err" ||
  { echo "the source did not get the element's pool:"; cat "$out/proposed.err"; exit 1; }
python3 - "$out/proposed.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
assert [r["streams"] for r in rows] == [1, 2], rows
assert all(r["element"]["ok"] and r["element"]["mismatches"] == 0 and r["element"]["frames"] > 0 for r in rows), rows
print("pipeline-bench smoke with the source writing into the proposed pool: ok")
PY
# --after: the publish elements behind the detector, "{stream}" standing
# for each stream's number. The boxes still reach the sink as the engine's;
# each stream's publisher wrote a document for every frame into its own
# file; and the elements' host time per frame is there beside the
# detector's, in the JSON and in a table of its own.
"$tool" --streams 2 --sizes 320x240 --frames 6 --device cpu --timeout 60 --no-source --no-engine \
  --after "waldboostmetaconvert source-id=cam{stream} ! waldboostmetapublish file-path=$out/cam{stream}.jsonl" \
  --json "$out/after.json" --markdown "$out/after.md" "$data/astronaut.png" "$data/messi5.jpg"
grep -q "^| 320x240 | 2 | [0-9.]* | [0-9.]* | [0-9.]*% |$" "$out/after.md" ||
  { echo "no row in the --after table:"; cat "$out/after.md"; exit 1; }
python3 - "$out/after.json" "$out" <<'PY'
import json, os, sys
doc = json.load(open(sys.argv[1]))
assert "waldboostmetapublish" in doc["after"], doc["after"]
e = doc["rows"][0]["element"]
assert e["ok"] and e["mismatches"] == 0, e
assert 0 < e["after_host_ms_per_frame"] and e["host_ms_per_frame"] > 0, e
for n in (0, 1):
    lines = open(os.path.join(sys.argv[2], f"cam{n}.jsonl")).read().splitlines()
    docs = [json.loads(l) for l in lines]
    assert [d["frame"] for d in docs] == list(range(6)), (n, lines)
    assert {d["source"] for d in docs} == {f"cam{n}"}, (n, lines)
print("pipeline-bench smoke with the publish elements after the detector: ok")
PY
# Without --after the JSON says so: no figure.
python3 - "$out/pipeline.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
assert doc["after"] == "" and all(r["element"]["after_host_ms_per_frame"] == -1 for r in doc["rows"]), doc
print("pipeline-bench smoke without --after: ok")
PY
