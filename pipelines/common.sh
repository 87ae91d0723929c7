# SPDX-License-Identifier: LGPL-2.1-or-later
# shellcheck shell=sh disable=SC2034  # the variables set here are used by the scripts
# Sourced by the pipeline scripts in this folder; not meant to be run.
#
# Sets `repo` (the checkout) and `build` (its build tree: build/, or
# $WALDBOOST_BUILD_DIR), puts the build tree first on GST_PLUGIN_PATH when it
# exists so that waldboostdetect is found without installing, and defines
# small helpers: die, have_element, need_elements, set_source, choose_encoder,
# default_output and find_python.

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${WALDBOOST_BUILD_DIR:-$repo/build}
if [ -d "$build" ]; then
  GST_PLUGIN_PATH="$build${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
  export GST_PLUGIN_PATH
fi
default_video="$repo/build/testdata/Megamind.avi"

die() {
  echo "$(basename "$0"): $*" >&2
  exit 1
}

# Whether a GStreamer element is installed. --exists alone also requires
# the plugin's version to be at least GStreamer's (1.22), which the waldboost
# plugin (0.x) is not. stderr is hidden: the opencv plugin prints on loading.
have_element() {
  gst-inspect-1.0 --exists --atleast-version=0.0.0 "$1" 2>/dev/null
}

need_elements() {
  command -v gst-launch-1.0 >/dev/null 2>&1 ||
    die "gst-launch-1.0 not found: apt-get install gstreamer1.0-tools"
  for element in "$@"; do
    have_element "$element" && continue
    case $element in
      waldboostdetect)
        die "element waldboostdetect not found: build it with 'meson setup build && ninja -C build'" \
          "in $repo (it is then found in build/), or install it with 'ninja -C build install'" ;;
      facedetect) die "element facedetect not found: apt-get install gstreamer1.0-opencv" ;;
      x264enc) die "element x264enc not found: apt-get install gstreamer1.0-plugins-ugly" ;;
      *) die "GStreamer element $element not found (Debian: gstreamer1.0-plugins-base, -good, -bad, -libav)" ;;
    esac
  done
}

# Sets `src` and `src_arg`, the source of a pipeline for VIDEO, a file or a
# URI, to be used as:  gst-launch-1.0 $src "$src_arg" ! decodebin ! ...
# (filesrc location=FILE, or urisourcebin uri=URI). A file must exist.
set_source() {
  case $1 in
    *://*) src=urisourcebin src_arg="uri=$1"; return 0 ;;
  esac
  if [ ! -f "$1" ]; then
    [ "$1" = "$default_video" ] &&
      die "$1 not found: fetch the test media with '$repo/tests/fetch-test-data.sh'" \
        "(apt-get download of Debian's opencv-doc; nothing is installed)"
    die "$1: no such file"
  fi
  src=filesrc src_arg="location=$1"
}

# Sets `enc` (encoder and its settings) and `mux` for an output file name:
# .webm: vp8enc + webmmux; .mp4: x264enc + mp4mux; anything else (.mkv):
# x264enc when installed (gstreamer1.0-plugins-ugly), else vp8enc, + matroskamux.
choose_encoder() {
  vp8="vp8enc deadline=1 cpu-used=8 target-bitrate=2000000"
  x264="x264enc speed-preset=veryfast"
  case $1 in
    *.webm) enc=$vp8 mux=webmmux ;;
    *.mp4) enc=$x264 mux=mp4mux ;;
    *) if have_element x264enc; then enc=$x264; else enc=$vp8; fi
       mux=matroskamux ;;
  esac
  need_elements "${enc%% *}" "$mux"
}

# The default output name: .mkv when x264enc is installed, else .webm.
default_output() {
  if have_element x264enc; then echo "$repo/build/$1.mkv"; else echo "$repo/build/$1.webm"; fi
}

# Sets `python`: $PYTHON, else Debian's /usr/bin/python3, where python3-gi is
# installed (a pyenv or virtualenv python3 first on PATH does not see it).
find_python() {
  if [ -n "${PYTHON:-}" ]; then python=$PYTHON
  elif [ -x /usr/bin/python3 ]; then python=/usr/bin/python3
  else python=python3
  fi
}
