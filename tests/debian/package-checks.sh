#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
# Runs inside a clean Debian root (tests/debian/package-test.sh binds it
# there): installs the built packages as a user would and checks them.
#   sh /package-checks.sh SUITE
# Expects /packages/*.deb (the packages), /video.ogv (a video with faces),
# and apt's lists and archives bound from the host.
set -eu
suite=$1
fail() { echo "package-test ($suite): FAILED: $*" >&2; exit 1; }
say() { echo "package-test ($suite): $*"; }
export DEBIAN_FRONTEND=noninteractive
apt="apt-get -q -o APT::Sandbox::User=root"
log=/tmp/package-checks.log

$apt update > $log 2>&1 || { cat $log >&2; fail "apt-get update"; }
# Our packages with what they depend on and recommend (PoCL, the
# classifiers), and the stock tools and base plugins for the pipeline.
debs=""
for deb in /packages/*.deb; do
  case $deb in *-dbgsym_*) ;; *) debs="$debs $deb" ;; esac
done
# shellcheck disable=SC2086  # one word per file
$apt install -y $debs gstreamer1.0-tools gstreamer1.0-plugins-base > $log 2>&1 || {
  tail -40 $log >&2
  fail "apt-get install of the packages:$debs"
}
installed=$(dpkg-query -W -f '${Package} ${Version}\n' gstreamer1.0-waldboost waldboost-tools waldboost-classifiers \
  waldboost-doc) || fail "a package is not installed"
say "installed: $(echo "$installed" | tr '\n' ';')"

# Nothing of OpenCV: no library behind the plugin or a tool, none installed.
opencv=$(dpkg-query -W -f '${Package}\n' | grep -i opencv || true)
[ -z "$opencv" ] || fail "OpenCV packages came with ours: $opencv"
binaries=$(dpkg -L gstreamer1.0-waldboost waldboost-tools | grep -e '/libgstwaldboost\.so$' -e '^/usr/bin/waldboost-')
[ "$(echo "$binaries" | wc -l)" -eq 8 ] || fail "expected the plugin and 7 tools, found: $binaries"
for binary in $binaries; do
  libraries=$(ldd "$binary") || fail "ldd $binary"
  if echo "$libraries" | grep -i -e opencv -e 'not found'; then
    fail "$binary needs OpenCV or a missing library (ldd above)"
  fi
done
say "ldd: the plugin and 7 tools need no OpenCV library"

gst-inspect-1.0 waldboostdetect > /tmp/inspect.txt 2>&1 || { cat /tmp/inspect.txt >&2; fail "gst-inspect-1.0 waldboostdetect"; }
say "gst-inspect-1.0: $(grep -m1 -E '^ +Version' /tmp/inspect.txt | tr -s ' ')"

# The video through the element with PROPERTIES: one line per frame (the
# detections of its message), printed with "print", and a summary; fails
# when nothing was detected.
detect() {  # print|quiet PROPERTIES...
  mode=$1
  shift
  gst-launch-1.0 -m filesrc location=/video.ogv ! decodebin ! videoconvert ! waldboostdetect "$@" ! fakesink \
    > /tmp/pipeline.txt 2>&1 || { tail -20 /tmp/pipeline.txt >&2; fail "the pipeline with waldboostdetect $*"; }
  summary=$(sed 's/\\//g' /tmp/pipeline.txt | awk '
    /\(element\): waldboostdetect,/ {
      text = $0
      frame = text; sub(/.*frame=\(guint64\)/, "", frame); sub(/,.*/, "", frame)
      line = "frame " frame ":"; n = 0
      while (match(text, /x=\(int\)[0-9]+, y=\(int\)[0-9]+, width=\(int\)[0-9]+, height=\(int\)[0-9]+, label=\(string\)[^,]*/)) {
        box = substr(text, RSTART, RLENGTH); text = substr(text, RSTART + RLENGTH)
        label = box; sub(/.*label=\(string\)/, "", label)
        gsub(/[^0-9 ]/, "", box); split(box, v, " ")
        line = line sprintf(" %s %sx%s at (%s,%s);", label, v[3], v[4], v[1], v[2]); n++
      }
      if (n == 0) line = line " none"
      print "  " line > "/dev/stderr"; frames++; found += n
    }
    END { printf "%d frames, %d detections", frames, found }' 2>/tmp/frames.txt)
  [ "$mode" = quiet ] || cat /tmp/frames.txt
  case $summary in
    "0 frames"*|*" 0 detections") fail "no detections with waldboostdetect $* ($summary)" ;;
  esac
  say "waldboostdetect $*: $summary"
}

# The embedded classifier, all frames printed; a converted one.
detect print
classifiers=/usr/share/waldboost/classifiers
detect quiet classifier=$classifiers/lbpcascade_frontalface_improved.xml

# Hostile input: the classifier files removed after installation.
rm -f $classifiers/*.xml
missing=$classifiers/lbpcascade_frontalface_improved.xml
if gst-launch-1.0 videotestsrc num-buffers=1 ! waldboostdetect classifier=$missing ! fakesink > /tmp/missing.txt 2>&1; then
  fail "the pipeline ran with the classifier file removed"
fi
grep -q "$missing" /tmp/missing.txt || { cat /tmp/missing.txt >&2; fail "the error does not name the missing file"; }
grep -q "apt-get install --reinstall waldboost-classifiers" /tmp/missing.txt ||
  { cat /tmp/missing.txt >&2; fail "the error does not say how to get the file back"; }
say "removed classifier: $(grep -m1 'ERROR: from element' /tmp/missing.txt | sed 's/^ERROR: from element [^ ]*: //')"
detect quiet
# What the message says, with the package from its .deb (it is in no archive).
$apt install -y --reinstall /packages/waldboost-classifiers_*.deb > $log 2>&1 || { tail -20 $log >&2; fail "reinstalling waldboost-classifiers"; }
[ -s $missing ] || fail "reinstalling waldboost-classifiers did not bring back $missing"
detect quiet classifier=$missing

# OpenCV's cascades, read as they are (Suggests: opencv-data).
$apt install -y opencv-data > $log 2>&1 || { tail -20 $log >&2; fail "apt-get install opencv-data"; }
detect quiet classifier=/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml
say "all checks passed"
