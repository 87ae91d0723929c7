#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The analytics reader (pipelines/read-analytics.py) against the element's
own bus messages, on a real clip (built only where the element has
GstAnalytics, GStreamer 1.24 and later).

    test_read_analytics.py READER [VIDEO]

Runs the reader with tracking=true interval=3 on the first FRAMES frames
and, in this process, the same decoding and element with post-messages=true:
on every frame the reader sees every object of the message, same label and
box, with the message's id as its TrackingMtd's track id, first seen no
later than last seen, last seen at the frame; and each track it sees end is
one it saw. Exits 77 (skipped, for meson) without PyGObject and the
GstAnalytics introspection data, or without the clip unless
WALDBOOST_REQUIRE_TEST_DATA=1.
"""
import json
import os
import subprocess
import sys
import warnings

FRAMES = 90
SKIP = 77
PROPS = ["tracking=true", "interval=3"]


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def element_messages(Gst, video):
    """frame -> {(label, id, x, y, width, height)} of the element's
    "waldboostdetect" messages, and frame -> running time."""
    pipeline = Gst.parse_launch("uridecodebin name=source ! videoconvert ! "
                                f"waldboostdetect name=detect draw=none post-messages=true {' '.join(PROPS)} ! "
                                "fakesink sync=false")
    pipeline.get_by_name("source").set_property("uri", Gst.filename_to_uri(os.path.abspath(video)))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    boxes, times = {}, {}
    try:
        while len(boxes) < FRAMES:
            msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                                         Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
            if msg is None or msg.type != Gst.MessageType.ELEMENT:
                sys.exit(f"FAIL: the pipeline stopped after {len(boxes)} frames")
            s = msg.get_structure()
            if s is None or s.get_name() != "waldboostdetect":
                continue
            _, values = s.get_list("detections")
            frame = set()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for j in range(values.n_values):
                    d = values.get_nth(j)
                    frame.add((d.get_value("label"), d.get_value("id"), d.get_value("x"), d.get_value("y"),
                               d.get_value("width"), d.get_value("height")))
            boxes[s.get_value("frame")] = frame
            times[s.get_value("frame")] = s.get_value("running-time")
    finally:
        pipeline.set_state(Gst.State.NULL)
    return boxes, times


def main():
    reader = sys.argv[1]
    video = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "Megamind.avi")
    try:
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstAnalytics", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as error:
        skip(f"{error}: install python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-bad-1.0")
    if not os.path.isfile(video):
        message = f"missing test data {video} (run tests/fetch-test-data.sh)"
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            sys.exit(f"FAIL: {message}")
        skip(message)

    args = [sys.executable, reader, "--frames", str(FRAMES), video]
    for prop in PROPS:
        args += ["--set", prop]
    run = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        sys.exit(f"FAIL: the reader exited with {run.returncode}:\n{run.stderr}")
    lines = [json.loads(line) for line in run.stdout.splitlines()]

    Gst.init(None)
    messages, times = element_messages(Gst, video)

    failures = 0
    if len(lines) != FRAMES:
        print(f"FAIL: the reader printed {len(lines)} lines for {FRAMES} frames")
        failures += 1
    objects = 0
    seen_ids = set()
    for line in lines:
        frame = line["frame"]
        got = set()
        for o in line["objects"]:
            if "track_id" not in o:
                print(f"FAIL: frame {frame}: object {o} has no track id")
                failures += 1
                continue
            if o.get("class") != o["label"] or not (o["first_seen"] <= o["last_seen"] == times[frame]):
                print(f"FAIL: frame {frame}: object {o}: its class, or its times (running time {times[frame]})")
                failures += 1
            got.add((o["label"], o["track_id"], o["x"], o["y"], o["width"], o["height"]))
            seen_ids.add(o["track_id"])
        for lost in line["lost"]:
            if lost["track_id"] not in seen_ids or lost["last_seen"] >= times[frame]:
                print(f"FAIL: frame {frame}: lost track {lost} was not seen before")
                failures += 1
        want = messages.get(frame, set())
        objects += len(want)
        if got != want:
            print(f"FAIL: frame {frame}: the reader has {sorted(got)}, the element's message {sorted(want)}")
            failures += 1
    # Not vacuous: most frames of the clip's start have a tracked face.
    if objects < FRAMES // 2 or len(seen_ids) < 1:
        print(f"FAIL: {objects} objects, {len(seen_ids)} tracks in {FRAMES} frames")
        failures += 1
    print(f"{len(lines)} frames, {objects} objects, {len(seen_ids)} track ids: "
          f"{'FAIL' if failures else 'every object with its track id'}")
    # A value the element cannot take stops the reader (it once left the default in place).
    run = subprocess.run([sys.executable, reader, "--frames", "2", "--set", "min-size=abc", video],
                         capture_output=True, text=True, timeout=300)
    if run.returncode != 1 or 'could not set property "min-size"' not in run.stderr or run.stdout:
        print(f"FAIL: --set min-size=abc: exit {run.returncode}, wanted 1 and no lines: {run.stderr}")
        failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
