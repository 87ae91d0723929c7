#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Records an RTSP camera in segments, as the camera sent it (no re-encoding),
# with a JSON-lines sidecar of the detections beside each segment:
#
#   rtspsrc ! parsebin ! tee
#     tee. ! queue ! splitmuxsink name=rec (FOLDER/20261207T045000Z-00000.mkv, ...)
#     tee. ! queue ! decodebin ! queue (leaky) ! videoconvert ! waldboostdetect draw=none
#          ! waldboostmetaconvert source-id=ID
#          ! waldboostmetapublish splitmuxsink=rec (FOLDER/20261207T045000Z-00000.jsonl, ...)
#          ! fakesink
#
# Usage: pipelines/rtsp-record.sh URI [FOLDER] [SECONDS] [PROPERTY=VALUE...]
#   URI       rtsp://camera/stream (user and password may be in the URI)
#   FOLDER    default build/recordings; created when missing
#   SECONDS   the length of a segment, default 60 (a segment starts at a
#             key frame: the camera's key-frame interval rounds it up)
#   PROPERTY  waldboostdetect properties, e.g. tracking=true interval=3
#   SOURCE_ID (environment) the documents' "source", default the URI's host
#
# Why this design:
# - The recording is the camera's own stream, parsed and muxed: no quality
#   lost, no encoder's CPU time; only the detection branch decodes.
# - The leaky queue after the decoder holds up to 2 s of frames: when
#   detection falls behind for longer, detection skips frames (the sidecar
#   then has fewer documents) and the recording never stalls.
# - rtspsrc add-reference-timestamp-meta=true gives each frame the camera's
#   NTP time when the camera sends RTCP sender reports; the documents then
#   carry it ("rtp.sender_ntp_unix_timestamp_ns", "system_timestamp").
# - The first Ctrl-C ends the stream cleanly (gst-launch-1.0 -e): the last
#   segment is finished and its sidecar flushed.
# - The segments are named after the start of the run (UTC), then their
#   number: running the script again into the same folder adds segments
#   beside the earlier ones instead of writing over them.
set -eu
. "$(dirname "$0")/common.sh"

[ $# -ge 1 ] || die "usage: $0 URI [FOLDER] [SECONDS] [PROPERTY=VALUE...]"
uri=$1
shift
folder=${1:-$repo/build/recordings}
[ $# -gt 0 ] && shift
seconds=${1:-60}
[ $# -gt 0 ] && shift
case $seconds in
  '' | *[!0-9]* | 0) die "SECONDS must be a whole number above 0, not \"$seconds\"" ;;
esac
case $uri in
  rtsp://* | rtsps://* | rtspt://*) ;;
  *) die "$uri: not an rtsp:// URI" ;;
esac
need_elements waldboostdetect waldboostmetaconvert waldboostmetapublish rtspsrc parsebin decodebin \
  splitmuxsink matroskamux
mkdir -p "$folder"
# The host part, without user, password and port, as the default source id.
host=${uri#*://}
host=${host%%/*}
host=${host##*@}
source_id=${SOURCE_ID:-${host%:*}}

exec gst-launch-1.0 -e \
  rtspsrc location="$uri" protocols=tcp add-reference-timestamp-meta=true ! parsebin ! tee name=t \
  t. ! queue ! splitmuxsink name=rec muxer-factory=matroskamux location="$folder/$(date -u +%Y%m%dT%H%M%SZ)-%05d.mkv" \
    max-size-time=$((seconds * 1000000000)) \
  t. ! queue ! decodebin ! queue leaky=downstream max-size-buffers=0 max-size-bytes=0 max-size-time=2000000000 \
    ! videoconvert ! waldboostdetect draw=none "$@" \
    ! waldboostmetaconvert source-id="$source_id" \
    ! waldboostmetapublish method=file splitmuxsink=rec \
    ! fakesink sync=false async=false
