#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Records a video without boxes and writes the detections of every frame to
# a JSON-lines file beside it:
#
#   uridecodebin ! videoconvert ! waldboostdetect draw=none
#                ! videoconvert ! ENCODER ! MUXER ! filesink location=OUT
#   + the element's "waldboostdetect" bus messages (and with tracking=true
#     updates=events its "waldboostdetect-events" ones) -> OUT-without-extension.jsonl
#
# Usage: pipelines/record-with-metadata.sh [VIDEO] [OUT] [PROPERTY=VALUE...]
#   VIDEO     a file or a URI, default build/testdata/Megamind.avi;
#             v4l2:///dev/video0 records a camera until Ctrl-C (the first
#             Ctrl-C ends the stream cleanly, so the file is complete)
#   OUT       default build/recording.mkv (x264enc) or build/recording.webm;
#             the encoder and muxer follow the extension as in file-to-encoded.sh
#   PROPERTY  waldboostdetect properties, e.g. min-size=48
#
# Why this design:
# - The frames stay clean (draw=none): boxes can be drawn later, at any
#   size or style, from the sidecar; a burnt box cannot be removed.
# - GstVideoRegionOfInterestMeta lives only inside the running pipeline;
#   encoders and muxers do not store it, so the detections must leave the
#   pipeline another way.
# - The element posts one message per frame with the same detections as the
#   metadata plus its timestamps, so no tee, appsink or second branch is
#   needed: the recording chain is a plain linear pipeline and the messages
#   are read on the bus by pipelines/read-detections.py --sink.
# - Each line carries "frame", "timestamp" (the buffer PTS) and
#   "running-time"; the muxer writes frames at their running time, so for a
#   file that starts at 0 "running-time" is the frame's time in OUT.
# - JSON lines can be read with any language, line by line, while recording.
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
[ $# -gt 0 ] && shift
out=${1:-$(default_output recording)}
[ $# -gt 0 ] && shift
set_source "$video"  # checks that a file exists
need_elements waldboostdetect uridecodebin videoconvert filesink
choose_encoder "$out"
mkdir -p "$(dirname "$out")"
sidecar="${out%.*}.jsonl"

# The remaining arguments (properties) become --set PROPERTY=VALUE options.
n=$#
while [ "$n" -gt 0 ]; do
  set -- "$@" --set "$1"
  shift
  n=$((n - 1))
done
find_python
# Ctrl-C reaches read-detections.py, which ends the stream; the shell waits.
trap : INT
"$python" "$repo/pipelines/read-detections.py" "$video" --output "$sidecar" \
  --sink "videoconvert ! $enc ! $mux ! filesink location=\"$out\"" "$@"
echo "$(basename "$0"): wrote $out and $sidecar ($(wc -l <"$sidecar") lines)" >&2
