#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Plays a video file with the detected objects (faces by default) drawn on it:
#
#   SOURCE ! decodebin ! videoconvert ! waldboostdetect [PROPERTY=VALUE...]
#          ! videoconvert ! autovideosink
#
# Usage: pipelines/file-to-display.sh [VIDEO] [PROPERTY=VALUE...]
#   VIDEO     a file or a URI; default build/testdata/Megamind.avi
#             (fetched by tests/fetch-test-data.sh)
#   PROPERTY  waldboostdetect properties, e.g. min-size=48 device=cpu
#
# draw=auto (the default) attaches the boxes as an overlay composition meta
# when the next element says in the allocation query that it takes one, and
# burns them into the frame otherwise. The first videoconvert does nothing
# for YUV video; it converts RGB sources (images, some decoders) to a format
# the detector reads.
set -eu
. "$(dirname "$0")/common.sh"

video=${1:-$default_video}
[ $# -gt 0 ] && shift
set_source "$video"
need_elements waldboostdetect decodebin videoconvert autovideosink

exec gst-launch-1.0 $src "$src_arg" ! decodebin ! videoconvert \
  ! waldboostdetect "$@" ! videoconvert ! autovideosink
