#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Records a video with the faces blurred in the frames themselves, and the
# faces' boxes in a JSON-lines file beside it:
#
#   SOURCE ! decodebin ! videoconvert
#     ! waldboostdetect privacy=blur draw=none PROPERTY...
#     ! waldboostmetaconvert source-id=NAME ! waldboostmetapublish file-path=OUT.jsonl
#     ! videoconvert ! ENCODER ! MUXER ! filesink location=OUT
#
# Usage: pipelines/record-blurred.sh [VIDEO] [OUT] [PROPERTY=VALUE...]
#   VIDEO     a file or a URI, default build/testdata/Megamind.avi
#   OUT       default build/blurred.mkv (x264enc) or build/blurred.webm; the
#             encoder and muxer follow the extension as in file-to-encoded.sh;
#             ENCODER=avenc_ffv1 (environment) records losslessly (.mkv)
#   PROPERTY  waldboostdetect properties: privacy=pixelate for a mosaic,
#             privacy-labels=face,profile-face to hide only those labels
#
# Why this design:
# - privacy=blur changes only the pixels inside each box, in the frame the
#   encoder gets: the recording never holds the faces; draw=none keeps the
#   rest of the picture clean.
# - No tracking by default: every detection is hidden on the frame it is
#   found. With interval above 1 add tracking=true, so that the frames
#   between detections hide the followed faces too (with tracking every
#   open track is hidden from its first detection, confirmed or not).
# - The sidecar says where the hidden areas are (frame, pts and boxes), for
#   an audit of what was hidden.
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
[ $# -gt 0 ] && shift
out=${1:-$(default_output blurred)}
[ $# -gt 0 ] && shift
set_source "$video"
need_elements waldboostdetect waldboostmetaconvert waldboostmetapublish decodebin videoconvert filesink
choose_encoder "$out"
if [ -n "${ENCODER:-}" ]; then
  enc=$ENCODER
  need_elements "${enc%% *}"
fi
mkdir -p "$(dirname "$out")"
sidecar="${out%.*}.jsonl"
name=$(basename "${video%.*}")

# $enc holds an element and its settings: split into words on purpose.
# shellcheck disable=SC2086
gst-launch-1.0 -e $src "$src_arg" ! decodebin ! videoconvert \
  ! waldboostdetect privacy=blur draw=none "$@" \
  ! waldboostmetaconvert source-id="$name" \
  ! waldboostmetapublish method=file file-path="$sidecar" \
  ! videoconvert ! $enc ! $mux ! filesink location="$out"
echo "$(basename "$0"): wrote $out and $sidecar ($(wc -l <"$sidecar") lines)" >&2
