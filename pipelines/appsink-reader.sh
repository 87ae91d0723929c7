#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Reads the detections of every frame in an application and prints them as
# JSON lines, with pipelines/read-detections.py (Python, PyGObject):
#
#   uridecodebin ! videoconvert ! waldboostdetect draw=none ! appsink
#
# and, for each buffer pulled from the appsink, its
# GstVideoRegionOfInterestMeta (one per detection).
#
# Usage: pipelines/appsink-reader.sh [VIDEO] [OPTIONS...]
#   VIDEO     a file or a URI; default build/testdata/Megamind.avi
#   OPTIONS   of read-detections.py: --messages (read the bus messages
#             instead), --set PROPERTY=VALUE, --output FILE; see --help
# Needs python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0.
set -eu
. "$(dirname "$0")/common.sh"

find_python
exec "$python" "$repo/pipelines/read-detections.py" "$@"
