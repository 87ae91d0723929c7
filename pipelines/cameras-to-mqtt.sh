#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Many cameras in one process, each with its own detector and tracker, their
# tracks' events and the frames with objects sent to an MQTT broker, on one
# topic per camera:
#
#   for each camera N:
#     uridecodebin uri=URI ! videoconvert
#       ! waldboostdetect tracking=true interval=3 draw=none PROPERTY...
#       ! waldboostmetaconvert source-id=camNN skip-empty-frames=true
#       ! waldboostmetapublish method=mqtt host=HOST port=PORT topic=TOPIC
#       ! fakesink sync=false
#
# Usage: pipelines/cameras-to-mqtt.sh [-h HOST] [-p PORT] [-t TOPIC] [-n COUNT]
#                                     [-s PROPERTY=VALUE]... [URI...]
#   -h HOST   the broker, default localhost
#   -p PORT   its port, default 1883
#   -t TOPIC  default waldboost/{source-id} ({source-id} becomes camNN)
#   -n COUNT  without URIs: COUNT copies of the test video, default 16
#   -s        a waldboostdetect property, e.g. -s min-size=40 (repeatable)
#   URI       one per camera (rtsp://..., file://..., or a file name); the
#             cameras are cam01, cam02 ... in this order
#
# Why this design:
# - One process: the detectors share the OpenCL device, its kernels and
#   its queue (their frames are launched together: batching, on by default),
#   and one `systemctl` unit watches them all. A camera that fails stops
#   the process; run one process per camera where they must fail alone.
# - tracking=true gives the "appeared" and "left" events; interval=3 detects
#   on every third frame and follows the objects in between, which divides
#   the detection cost by about three.
# - skip-empty-frames=true: a broker gets nothing for frames without
#   objects; the events are always sent.
# - Each publisher keeps its own connection and queue: a slow camera or a
#   stalled broker never blocks the other cameras' video.
# - The sinks preroll (fakesink's default async=true), although nothing
#   here needs their preroll: with async=false, gst-launch-1.0 sometimes
#   waits forever after every branch's end of stream. A GstBin posts EOS
#   only once it has posted PLAYING, and with no sink prerolling, the
#   decoder thread that posts PAUSED can clear that flag after the main
#   thread's PLAYING has set it (GStreamer 1.22 and 1.26; see
#   docs/reliability.md). Live sources (rtsp://) do not preroll anyway.
set -eu
. "$(dirname "$0")/common.sh"

host=localhost port=1883 topic='waldboost/{source-id}' count=16 props=""
while getopts h:p:t:n:s: option; do
  case $option in
    h) host=$OPTARG ;;
    p) port=$OPTARG ;;
    t) topic=$OPTARG ;;
    n) count=$OPTARG ;;
    s) props="$props $OPTARG" ;;
    *) die "usage: $0 [-h HOST] [-p PORT] [-t TOPIC] [-n COUNT] [-s PROPERTY=VALUE]... [URI...]" ;;
  esac
done
shift $((OPTIND - 1))
# gst-launch-1.0 would only warn about a port out of range and use 1883.
case $port in '' | *[!0-9]* | 0*) die "-p PORT must be a whole number from 1 to 65535" ;; esac
[ "$port" -le 65535 ] || die "-p PORT must be a whole number from 1 to 65535"
if [ $# -eq 0 ]; then
  set_source "$default_video"  # says how to fetch it when missing
  case $count in '' | *[!0-9]* | 0) die "-n COUNT must be a whole number above 0" ;; esac
  i=0
  while [ "$i" -lt "$count" ]; do
    set -- "$@" "file://$default_video"
    i=$((i + 1))
  done
fi
need_elements waldboostdetect waldboostmetaconvert waldboostmetapublish uridecodebin videoconvert fakesink

# One branch per camera, each its own chain in the same gst-launch-1.0: the
# words are appended to the arguments, then the URIs shifted away.
set -f  # no file name expansion of the PROPERTY words
cameras=$#
n=0
while [ "$n" -lt "$cameras" ]; do
  n=$((n + 1))
  uri=$1
  shift
  case $uri in
    *://*) ;;
    /*) uri="file://$uri" ;;
    *) uri="file://$PWD/$uri" ;;
  esac
  id=$(printf 'cam%02d' "$n")
  # Quotes inside the words are for gst-launch-1.0's parser (the URI or
  # topic may hold spaces or braces); $props is split into words on purpose.
  # shellcheck disable=SC2086
  set -- "$@" uridecodebin "uri=\"$uri\"" ! videoconvert \
    ! waldboostdetect "name=detect-$id" tracking=true interval=3 draw=none $props \
    ! waldboostmetaconvert "source-id=$id" skip-empty-frames=true \
    ! waldboostmetapublish method=mqtt "host=\"$host\"" "port=$port" "topic=\"$topic\"" "client-id=waldboost-$id" \
    ! fakesink sync=false
done
echo "$(basename "$0"): $cameras cameras to mqtt://$host:$port, topic $topic" >&2
exec gst-launch-1.0 -e "$@"
