#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The project's Python reader (pipelines/read-detections.py) against the
element's own bus messages, on the first frames of a real clip.

    test_read_detections.py READER [VIDEO]

Runs the reader (metadata mode) on the first FRAMES frames and, in this
process, the same decoding and element with post-messages=true; every
frame's boxes must be the same in both. The reader once read only the first
region-of-interest meta of each frame. Exits 77 (skipped, for meson) without
PyGObject and GStreamer's introspection data, or without the clip unless
WALDBOOST_REQUIRE_TEST_DATA=1.
"""
import json
import os
import subprocess
import sys
import warnings

FRAMES = 12
SKIP = 77


def skip(reason):
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def main():
    reader = sys.argv[1]
    video = sys.argv[2] if len(sys.argv) > 2 else os.path.join(
        os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "Megamind.avi")
    try:
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as error:
        skip(f"{error}: install python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0 "
             f"(build-aux/install-deps.sh --tests) to run {sys.executable} with PyGObject")
    if not os.path.isfile(video):
        message = f"missing test data {video} (run tests/fetch-test-data.sh)"
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            sys.exit(f"FAIL: {message}")
        skip(message)

    # The reader, as a user runs it: one JSON line per frame.
    run = subprocess.run([sys.executable, reader, "--frames", str(FRAMES), video],
                         capture_output=True, text=True, timeout=240)
    if run.returncode != 0:
        sys.exit(f"FAIL: the reader exited with {run.returncode}:\n{run.stderr}")
    lines = [json.loads(line) for line in run.stdout.splitlines()]

    # The element's messages for the same frames.
    Gst.init(None)
    pipeline = Gst.parse_launch("uridecodebin name=source ! videoconvert ! "
                                "waldboostdetect name=detect draw=none post-messages=true ! fakesink sync=false")
    pipeline.get_by_name("source").set_property("uri", Gst.filename_to_uri(os.path.abspath(video)))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    messages = {}
    try:
        while len(messages) < FRAMES:
            msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                                         Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
            if msg is None or msg.type != Gst.MessageType.ELEMENT:
                detail = msg.parse_error()[0].message if msg is not None and msg.type == Gst.MessageType.ERROR else ""
                sys.exit(f"FAIL: the pipeline stopped after {len(messages)} frames {detail}")
            s = msg.get_structure()
            if s is None or s.get_name() != "waldboostdetect":
                continue
            _, values = s.get_list("detections")  # a GValueArray: get_nth() is deprecated
            boxes = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for j in range(values.n_values):
                    d = values.get_nth(j)
                    boxes.append((d.get_value("label"), d.get_value("x"), d.get_value("y"),
                                  d.get_value("width"), d.get_value("height"), d.get_value("neighbors")))
            messages[s.get_value("frame")] = boxes
    finally:
        pipeline.set_state(Gst.State.NULL)

    failures = 0
    if len(lines) != FRAMES:
        print(f"FAIL: the reader printed {len(lines)} lines for {FRAMES} frames")
        failures += 1
    most = 0
    for line in lines:
        frame = line["frame"]
        got = sorted((d["label"], d["x"], d["y"], d["width"], d["height"], d["neighbors"])
                     for d in line["detections"])
        want = sorted(messages.get(frame, []))
        most = max(most, len(want))
        if got != want:
            print(f"FAIL: frame {frame}: the reader has {got}, the element's message {want}")
            failures += 1
        else:
            print(f"frame {frame}: {len(got)} detections agree")
    # Otherwise the test would not tell a reader that reads one meta.
    if most < 2:
        print(f"FAIL: no frame of the first {FRAMES} has two detections")
        failures += 1
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
