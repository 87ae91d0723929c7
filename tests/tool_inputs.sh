#!/bin/sh
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# What the tools read (core/io/input_file.h, tools/common/image_file.h):
# a FIFO or a device named as any input is refused at once, never waited
# on or read without end; an image whose header declares 30000x30000 is
# refused before its pixels are decoded; the background images kept in
# memory have a bound; paths with terminal escapes, C1 controls and bidi
# overrides are printed escaped; a UTF-8 byte order mark at the start of a
# list or an annotation file is skipped. Every input is made here.
#   tests/tool_inputs.sh WALDBOOST_TRAIN WALDBOOST_EVALUATE WALDBOOST_DETECT
set -eu
train=$1
evaluate=$2
detect=$3
# shellcheck source=tests/tool_test_lib.sh
. "$(dirname "$0")/tool_test_lib.sh"

# Gray noise images (PGM; gdk-pixbuf reads it), and a PNG of 109 bytes
# whose header declares 30000x30000 pixels of RGB.
python3 - "$work" <<'PY'
import random, struct, sys, zlib
random.seed(3)
def pgm(name, w, h):
    with open(sys.argv[1] + "/" + name, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (w, h))
        f.write(bytes(random.randrange(256) for _ in range(w * h)))
pgm("pos.pgm", 48, 48)
pgm("bg1.pgm", 160, 120)
pgm("bg2.pgm", 160, 120)
with open(sys.argv[1] + "/big.pgm", "wb") as f:
    f.write(b"P5\n2000 1000\n255\n" + bytes(2000 * 1000))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)) +
       chunk(b"IDAT", zlib.compress(b"\0" * 1000, 9)) + chunk(b"IEND", b""))
open(sys.argv[1] + "/huge.png", "wb").write(png)
PY

# A classifier of 24x24 that accepts every window.
values=$(python3 -c "print(' '.join(['1'] * 256))")
cat > "$work/accept-all.xml" <<XML
<?xml version="1.0" encoding="UTF-8"?>
<WaldBoostClassifier classifierName="thing" minStdDev="0" imageSizeX="24" imageSizeY="24" type="LBP" finalThreshold="0">
  <stage posT="1e+50" negT="-1e+50">
    <HistogramWeakHypothesis predictionValues="$values">
      <LBPFeature positionX="0" positionY="0" blockWidth="2" blockHeight="2" binMappingType="NONE"/>
    </HistogramWeakHypothesis>
  </stage>
</WaldBoostClassifier>
XML

echo "$work/pos.pgm 1 4 4 40 40" > "$work/faces.txt"
printf '%s\n' "$work/bg1.pgm" "$work/bg2.pgm" > "$work/bg.txt"
mkfifo "$work/fifo" "$work/fifo.pgm"
mkdir "$work/crops"
mkfifo "$work/crops/crop.png"
echo "$work/fifo.pgm 1 0 0 24 24" > "$work/fifo-image.txt"
echo "$work/fifo.pgm" > "$work/fifo-bg.txt"
echo "$work/huge.png" > "$work/huge-bg.txt"
echo "$work/huge.png 1 0 0 24 24" > "$work/huge-objects.txt"
tiny="-w 24x24 --weak 1 --device cpu --negative-count 20"

# A FIFO or a device as any input: a prompt error, never a wait (timeout
# turns a regression into a failure rather than a hang).
prompt() { # STATUS TEXT COMMAND...
  status=$1 text=$2
  shift 2
  expect "$status" "$text" timeout 20 "$@"
}
prompt 1 "annotation file $work/fifo: not a regular file" "$train" $tiny -o "$work/x.xml" -a "$work/fifo" -n "$work/bg.txt"
prompt 1 "negatives list $work/fifo: not a regular file" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" \
  -n "$work/fifo"
prompt 1 "negatives list /dev/zero: not a regular file" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" \
  -n /dev/zero
prompt 1 "$work/fifo.pgm: not a regular file" "$train" $tiny -o "$work/x.xml" -a "$work/fifo-image.txt" \
  -n "$work/bg.txt"
prompt 1 "$work/crops/crop.png: not a regular file" "$train" $tiny -o "$work/x.xml" -p "$work/crops" -n "$work/bg.txt"
prompt 1 "$work/fifo.pgm: not a regular file" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" \
  -n "$work/fifo-bg.txt"
prompt 1 "cannot read the checkpoint /dev/zero: not a regular file" "$train" $tiny -o "$work/x.xml" \
  -a "$work/faces.txt" -n "$work/bg.txt" --checkpoint /dev/zero --resume
prompt 1 "cannot read the checkpoint $work/fifo: not a regular file" "$train" $tiny -o "$work/x.xml" \
  -a "$work/faces.txt" -n "$work/bg.txt" --checkpoint "$work/fifo" --resume
prompt 1 "annotation file $work/fifo: not a regular file" "$evaluate" -c "$work/accept-all.xml" -a "$work/fifo"
prompt 1 "backgrounds list $work/fifo: not a regular file" "$evaluate" -c "$work/accept-all.xml" -b "$work/fifo"
prompt 1 "backgrounds list /dev/zero: not a regular file" "$evaluate" -c "$work/accept-all.xml" -b /dev/zero
prompt 1 "$work/fifo.pgm: not a regular file" "$evaluate" -c "$work/accept-all.xml" -a "$work/fifo-image.txt"
prompt 1 "$work/fifo.pgm: not a regular file" "$evaluate" -c "$work/accept-all.xml" -b "$work/fifo-bg.txt"
prompt 1 "$work/fifo.pgm: not a regular file" "$detect" "$work/fifo.pgm"
echo "train, evaluate, detect: FIFOs and devices refused at once"

# The 30000x30000 PNG: refused from its header, before 2.7 GB of pixels
# are allocated (the address space limit makes decoding it fail otherwise,
# with another message), in every tool; --max-megapixels is checked.
huge="huge.png: 30000x30000 pixels, more than the limit of 100 megapixels; --max-megapixels raises it"
# AddressSanitizer (tests/sanitizers.sh sets ASAN_OPTIONS) reserves
# terabytes of address space: no limit there.
vlimit=1500000
[ -z "${ASAN_OPTIONS:-}" ] || vlimit=unlimited
limited() { # STATUS TEXT COMMAND...
  status=$1 text=$2
  shift 2
  expect "$status" "$text" timeout 20 sh -c 'ulimit -v "$0" && exec "$@"' "$vlimit" "$@"
}
limited 1 "$huge" "$detect" "$work/huge.png"
limited 1 "$huge" "$evaluate" -c "$work/accept-all.xml" -b "$work/huge-bg.txt"
limited 1 "$huge" "$evaluate" -c "$work/accept-all.xml" -a "$work/huge-objects.txt"
limited 1 "$huge" "$train" $tiny -o "$work/x.xml" -a "$work/huge-objects.txt" -n "$work/bg.txt"
limited 1 "$huge" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" -n "$work/huge-bg.txt"
limited 1 "more than the limit of 500 megapixels" "$detect" --max-megapixels 500 "$work/huge.png"
prompt 2 "max-megapixels must be 1 or more" "$detect" --max-megapixels 0 "$work/huge.png"
# A real image of 2 megapixels: refused under --max-megapixels 1, read
# at the default.
limited 1 "big.pgm: 2000x1000 pixels, more than the limit of 1 megapixels" "$detect" --max-megapixels 1 \
  "$work/big.pgm"
"$detect" "$work/big.pgm" > /dev/null 2> "$work/err" || { echo "FAILED: big.pgm"; cat "$work/err"; exit 1; }
# Two backgrounds of 0.0192 megapixels each: over a budget of 1 only with
# more of them (the budget is whole megapixels).
for i in $(seq 1 60); do echo "$work/bg1.pgm"; done > "$work/many-bg.txt"
prompt 1 "background images take more than 1 megapixels (53 of 60 read).*--max-background-megapixels raises" \
  "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" -n "$work/many-bg.txt" --max-background-megapixels 1
echo "train, evaluate, detect: image sizes checked before decoding"

# A video named as an image (an AVI's header; the same bytes without an
# extension): the error says it is a video and how to get its frames.
# Bytes that are no image at all get the decoder's message alone.
printf 'RIFF\044\000\000\000AVI LIST\024\000\000\000hdrlavih' > "$work/clip.avi"
cp "$work/clip.avi" "$work/clip"
printf 'hello' > "$work/text.jpg"
video_hint="(a video: this tool reads still images; decode its frames first, e.g. gst-launch-1.0 filesrc"
expect 1 "clip.avi: .*$video_hint" "$detect" "$work/clip.avi"
expect 1 "clip: .*$video_hint" "$detect" "$work/clip"
echo "$work/clip.avi 1 0 0 24 24" > "$work/clip-objects.txt"
expect 1 "clip.avi: .*$video_hint" "$train" $tiny -o "$work/x.xml" -a "$work/clip-objects.txt" -n "$work/bg.txt"
expect 1 "text.jpg: " "$detect" "$work/text.jpg"
if grep -q "a video" "$work/err"; then echo "FAILED: text.jpg called a video"; cat "$work/err"; exit 1; fi
echo "detect, train: a video given as an image is named as one"

# Paths with ESC sequences (a colour, an OSC title), a C1 control (CSI,
# U+009B) and U+202E reach stderr escaped, never as the bytes.
esc=$(printf '\033')
odd="$work/x${esc}[31mred${esc}]0;title$(printf '\007')$(printf '\302\233')2J$(printf '\342\200\256')txt.lst"
shown='x\\x1b\[31mred\\x1b\]0;title\\x07\\u{009B}2J\\u{202E}txt.lst'
raw() { # FILE: fails when FILE holds ESC, BEL, U+009B or U+202E as bytes
  if LC_ALL=C grep -q "$(printf '\033\|\007\|\302\233\|\342\200\256')" "$1"; then
    echo "FAILED: raw control bytes on stderr:"; od -c "$1" | head; exit 1
  fi
}
expect 1 "cannot read the annotation file .*$shown: cannot open" "$train" $tiny -o "$work/x.xml" -a "$odd" \
  -n "$work/bg.txt"
raw "$work/err"
expect 1 "cannot read the negatives list .*$shown: cannot open" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" \
  -n "$odd"
raw "$work/err"
echo "$odd 1 0 0 24 24" > "$work/odd-image.txt"
expect 1 "$shown: cannot open" "$train" $tiny -o "$work/x.xml" -a "$work/odd-image.txt" -n "$work/bg.txt"
raw "$work/err"
expect 1 "cannot read the checkpoint .*$shown: cannot open" "$train" $tiny -o "$work/x.xml" -a "$work/faces.txt" \
  -n "$work/bg.txt" --checkpoint "$odd" --resume
raw "$work/err"
expect 1 "cannot read the annotation file .*$shown: cannot open" "$evaluate" -c "$work/accept-all.xml" -a "$odd"
raw "$work/err"
expect 1 "cannot read the backgrounds list .*$shown: cannot open" "$evaluate" -c "$work/accept-all.xml" -b "$odd"
raw "$work/err"
expect 1 "$shown: cannot open" "$evaluate" -c "$work/accept-all.xml" -a "$work/odd-image.txt"
raw "$work/err"
expect 1 "$shown" "$evaluate" -c "$odd" -b "$work/bg.txt"
raw "$work/err"
expect 1 "$shown: cannot open" "$detect" "$odd"
raw "$work/err"
echo "train, evaluate, detect: paths printed escaped"

# A path with a quote, a backslash and control characters: detect's JSON
# still parses and gives the path back as it is (core/json_string.h).
strange="$work/a\"b\\c$(printf '\t\b\f\001')d.pgm"
cp "$work/pos.pgm" "$strange"
"$detect" "$strange" > "$work/strange.json"
python3 - "$work/strange.json" "$strange" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["images"][0]["file"] == sys.argv[2], (r["images"][0]["file"], sys.argv[2])
PY
echo "detect: a path with quotes and control characters, in valid JSON"

# A byte order mark before the first line of a list or an annotation
# file, as some editors write it: read as if it were not there.
bom=$(printf '\357\273\277')
echo "${bom}$work/pos.pgm 1 4 4 40 40" > "$work/bom-faces.txt"
printf '%s\n' "${bom}$work/bg1.pgm" "$work/bg2.pgm" > "$work/bom-bg.txt"
"$evaluate" -c "$work/accept-all.xml" -a "$work/bom-faces.txt" -b "$work/bom-bg.txt" --json > "$work/bom.json"
python3 - "$work/bom.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
assert r["objects"]["images"] == 1 and r["objects"]["objects"] == 1, r
assert r["backgrounds"]["images"] == 2, r
PY
timeout 120 "$train" $tiny -o "$work/bom.xml" -a "$work/bom-faces.txt" -n "$work/bom-bg.txt" 2> "$work/err" || {
  echo "FAILED: training from BOM-prefixed files"; cat "$work/err"; exit 1; }
grep -q "1 positives, 2 background images" "$work/err" || { echo "FAILED: BOM files misread"; cat "$work/err"; exit 1; }
echo "train, evaluate: a byte order mark skipped"
