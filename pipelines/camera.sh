#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Shows a V4L2 camera with the detected objects (faces by default) drawn:
#
#   v4l2src device=DEVICE ! videoconvert ! waldboostdetect [PROPERTY=VALUE...]
#          ! videoconvert ! autovideosink
#
# Usage: pipelines/camera.sh [DEVICE] [PROPERTY=VALUE...]
#   DEVICE    default /dev/video0 (list cameras: ls /dev/video*, or
#             v4l2-ctl --list-devices from v4l-utils)
#   PROPERTY  waldboostdetect properties, e.g. max-inflight=1 for the least latency
#
# waldboostdetect adds (max-inflight - 1) frame durations of latency, which it
# reports in the latency query, so the sink stays in sync. A camera that
# only offers MJPEG needs "v4l2src ! image/jpeg ! jpegdec" instead.
set -eu
. "$(dirname "$0")/common.sh"

device=${1:-/dev/video0}
[ $# -gt 0 ] && shift
if [ ! -e "$device" ]; then
  cameras=""
  for c in /dev/video*; do
    if [ -e "$c" ]; then cameras="$cameras $c"; fi
  done
  die "no camera at $device; video devices here:${cameras:- none}" \
    "(give the device as the first argument; v4l2-ctl --list-devices from v4l-utils names them)"
fi
if [ ! -r "$device" ] || [ ! -w "$device" ]; then
  die "no permission to open $device: add yourself to the 'video' group (adduser \$USER video) and log in again"
fi
need_elements waldboostdetect v4l2src videoconvert autovideosink

exec gst-launch-1.0 v4l2src device="$device" ! videoconvert \
  ! waldboostdetect "$@" ! videoconvert ! autovideosink
