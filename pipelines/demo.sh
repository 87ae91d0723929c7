#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Quick-start demo on a fresh Debian 12 machine, in one command: installs
# the missing packages, builds, fetches a real video (Megamind.avi from
# Debian's opencv-doc) and runs it through waldboostdetect with the embedded
# default face classifier:
#   - with a display, the video is shown with the faces boxed;
#   - always, the boxed video is written to build/demo-detections.webm and
#     each frame's detections are printed from the element's bus messages.
set -eu
cd "$(dirname "$0")/.."

# The plugin only (and what it is built from): not the tools and the test
# suite, which the demo does not run.
build-aux/prepare.sh gst/element/libgstwaldboost.so

export GST_PLUGIN_PATH="$PWD/build${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
video=build/testdata/Megamind.avi

if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  gst-launch-1.0 filesrc location="$video" ! decodebin ! videoconvert ! waldboostdetect ! \
    videoconvert ! autovideosink
fi

# The boxed video to a file, and one line per frame from the bus messages.
gst-launch-1.0 -m filesrc location="$video" ! decodebin ! videoconvert ! \
    waldboostdetect draw=burn ! videoconvert ! vp8enc deadline=1 ! webmmux ! \
    filesink location=build/demo-detections.webm 2>&1 |
  awk '/\(element\): waldboostdetect,/ {
         text = $0; gsub(/\\/, "", text)
         frame = text; sub(/.*frame=\(guint64\)/, "", frame); sub(/,.*/, "", frame)
         line = "frame " frame ":"; n = 0
         while (match(text, /x=\(int\)[0-9]+, y=\(int\)[0-9]+, width=\(int\)[0-9]+, height=\(int\)[0-9]+/)) {
           box = substr(text, RSTART, RLENGTH); gsub(/[^0-9 ]/, "", box)
           split(box, v, " "); line = line sprintf(" face %sx%s at (%s,%s);", v[3], v[4], v[1], v[2]); n++
           text = substr(text, RSTART + RLENGTH)
         }
         if (n == 0) line = line " no faces"
         print line; frames++; faces += n
       }
       /ERROR/ { print; failed = 1 }
       END { printf "demo: %d frames, %d faces; boxed video in build/demo-detections.webm\n", frames, faces
             exit failed }'
