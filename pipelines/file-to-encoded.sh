#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Encodes a video file with the detected objects (faces by default) burnt
# into the frames:
#
#   SOURCE ! decodebin ! videoconvert ! waldboostdetect draw=burn [PROPERTY=VALUE...]
#          ! videoconvert ! ENCODER ! MUXER ! filesink
#
# Usage: pipelines/file-to-encoded.sh [VIDEO] [OUT] [PROPERTY=VALUE...]
#   VIDEO     a file or a URI; default build/testdata/Megamind.avi
#   OUT       default build/detections.mkv when x264enc is installed
#             (gstreamer1.0-plugins-ugly), else build/detections.webm (vp8enc)
#             .webm: vp8enc + webmmux; .mp4: x264enc + mp4mux;
#             anything else: x264enc (else vp8enc) + matroskamux
#   PROPERTY  waldboostdetect properties, e.g. min-size=48
#
# Encoders do not render overlay composition metas, so the boxes are burnt
# in (draw=burn). Only the video is kept; sound is dropped.
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
[ $# -gt 0 ] && shift
out=${1:-$(default_output detections)}
[ $# -gt 0 ] && shift
set_source "$video"
need_elements waldboostdetect decodebin videoconvert filesink
choose_encoder "$out"
mkdir -p "$(dirname "$out")"

# -e: on Ctrl-C, send EOS so that the muxer finishes a playable file.
# $enc is word-split on purpose (element and its settings).
# shellcheck disable=SC2086
gst-launch-1.0 -e $src "$src_arg" ! decodebin ! videoconvert \
  ! waldboostdetect draw=burn "$@" ! videoconvert ! $enc ! $mux ! filesink location="$out"
echo "$(basename "$0"): wrote $out" >&2
