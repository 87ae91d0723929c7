#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The project's Python reader (pipelines/read-detections.py) and recorder
(pipelines/record-with-metadata.sh) against the element's own bus messages,
on a real clip.

    test_read_detections.py READER [VIDEO]

Runs the reader (metadata mode) on the first FRAMES frames and, in this
process, the same decoding and element with post-messages=true; every
frame's boxes must be the same in both. The reader once read only the first
region-of-interest meta of each frame. Then, as a surveillance user combines
the features: with tracking=true interval=3 over the whole clip the reader
must see every tracked object (it once looked metas up by the ids 0..n-1);
with a nested cascade the parts come with their parent's id, and the
messages with their lists of parts are written (the reader once stopped on
them, and the recorder left a 0-byte file); with updates=events the events
reach the file, and every track that appeared also leaves. A setting the
element cannot take and an output that cannot be written stop the reader
with a message, and a label with quotes reaches the element. Exits 77
(skipped, for meson) without PyGObject and GStreamer's introspection data,
or without the clip unless WALDBOOST_REQUIRE_TEST_DATA=1.
"""
import json
import os
import subprocess
import sys
import tempfile
import warnings

FRAMES = 12
SKIP = 77
EYES = "/usr/share/opencv4/haarcascades/haarcascade_eye.xml"  # opencv-data, a build dependency


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
    lines = run_reader(reader, ["--frames", str(FRAMES), video])

    # The element's messages for the same frames.
    Gst.init(None)
    messages = element_messages(Gst, video, "", FRAMES)

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
    failures += check_tracking(Gst, reader, video)
    failures += check_parts(reader, video)
    failures += check_events(reader, video)
    failures += check_recorder(reader, video)
    failures += check_bad_settings(reader, video)
    sys.exit(1 if failures else 0)


def check_bad_settings(reader, video):
    """A setting the element cannot take, and an output that cannot be
    written, stop the reader with a message that names them (it once let
    min-size=abc pass as the default, and wrote a traceback for the file)."""
    failures = 0
    with tempfile.TemporaryDirectory() as work:
        for args, words in (
                (["--set", "min-size=abc"], 'could not set property "min-size"'),
                (["--set", "threshold=high"], 'could not set property "threshold"'),
                (["--output", os.path.join(work, "missing", "x.jsonl")], "cannot write"),
        ):
            run = subprocess.run([sys.executable, reader, "--frames", "2"] + args + [video], capture_output=True,
                                 text=True, timeout=240)
            if run.returncode != 1 or words not in run.stderr or "Traceback" in run.stderr or run.stdout:
                print(f"FAIL: {' '.join(args)}: exit {run.returncode}, wanted 1, no lines and {words!r}: {run.stderr}")
                failures += 1
            else:
                print(f"{' '.join(args)}: {run.stderr.strip()}")
    # Values with quotes and backslashes still reach the element as they are.
    label = 'a "b" \\c'
    lines = run_reader(reader, ["--frames", "4", "--set", f"label={label}", video])
    labels = {d["label"] for line in lines for d in line["detections"]}
    if labels != {label}:
        print(f"FAIL: --set label={label}: the detections' labels are {labels}")
        failures += 1
    return failures


def run_reader(reader, args):
    """The reader's JSON lines; a non-zero exit fails the test."""
    run = subprocess.run([sys.executable, reader] + args, capture_output=True, text=True, timeout=240)
    if run.returncode != 0:
        sys.exit(f"FAIL: the reader ({' '.join(args)}) exited with {run.returncode}:\n{run.stderr}")
    return [json.loads(line) for line in run.stdout.splitlines()]


def element_messages(Gst, video, props, frames=None):
    """The element's "waldboostdetect" messages, in this process, for the
    first `frames` frames (all with None): frame -> [(label, id, x, y,
    width, height, neighbors)]."""
    pipeline = Gst.parse_launch("uridecodebin name=source ! videoconvert ! "
                                f"waldboostdetect name=detect draw=none post-messages=true {props} ! "
                                "fakesink sync=false")
    pipeline.get_by_name("source").set_property("uri", Gst.filename_to_uri(os.path.abspath(video)))
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    messages = {}
    try:
        while frames is None or len(messages) < frames:
            msg = bus.timed_pop_filtered(60 * Gst.SECOND,
                                         Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
            if msg is not None and msg.type == Gst.MessageType.EOS and frames is None:
                break
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
    return messages


def check_tracking(Gst, reader, video):
    """tracking=true interval=3 over the whole clip: the reader's metas hold
    every object of the element's messages, each with an id and parent -1."""
    lines = run_reader(reader, ["--set", "tracking=true", "--set", "interval=3", video])
    messages = element_messages(Gst, video, "tracking=true interval=3")
    failures = 0
    total = 0
    for line in lines:
        got = sorted((d["label"], d["x"], d["y"], d["width"], d["height"], d["neighbors"])
                     for d in line["detections"])
        want = sorted(messages.get(line["frame"], []))
        total += len(got)
        if got != want:
            print(f"FAIL: tracking, frame {line['frame']}: the reader has {got}, the element's message {want}")
            failures += 1
        if any("id" not in d or d.get("parent_id") != -1 for d in line["detections"]):
            print(f"FAIL: tracking, frame {line['frame']}: an object without its id or parent_id -1")
            failures += 1
    if len(lines) != len(messages) or total < 100:
        print(f"FAIL: tracking: {len(lines)} lines for {len(messages)} messages, {total} objects")
        failures += 1
    else:
        print(f"tracking interval 3: {total} objects in {len(lines)} frames agree")
    return failures


def check_parts(reader, video):
    """A nested cascade: in the metas every part names its object; the
    messages, whose objects hold lists of parts, are written whole."""
    if not os.path.isfile(EYES):
        print(f"FAIL: {EYES} is missing (opencv-data)")
        return 1
    failures = 0
    frames = 60
    metas = run_reader(reader, ["--frames", str(frames), "--set", f"eyes-profile={EYES}", video])
    parts = 0
    for line in metas:
        objects = {d["id"] for d in line["detections"] if d["parent_id"] == -1}
        for d in line["detections"]:
            if d["parent_id"] != -1:
                parts += 1
                if d["parent_id"] not in objects or d["label"] != "eye":
                    print(f"FAIL: parts, frame {line['frame']}: {d} names no object of the frame")
                    failures += 1
    messages = run_reader(reader, ["--messages", "--frames", str(frames), "--set", f"eyes-profile={EYES}", video])
    listed = sum(len(d.get("eyes", [])) for line in messages for d in line["detections"])
    if parts == 0 or listed != parts or len(messages) != frames:
        print(f"FAIL: parts: {parts} in the metas, {listed} in {len(messages)} messages' lists")
        failures += 1
    else:
        print(f"parts: {parts} eyes in the metas and in the messages' lists, each with its object")
    return failures


def check_events(reader, video):
    """updates=events: the events reach the output, and every track that
    appeared also leaves (at EOS for those still open)."""
    lines = run_reader(reader, ["--messages", "--set", "tracking=true", "--set", "updates=events", video])
    appeared = [e["id"] for line in lines for e in line.get("events", []) if e["kind"] == "appeared"]
    left = [e["id"] for line in lines for e in line.get("events", []) if e["kind"] == "left"]
    if not appeared or sorted(appeared) != sorted(left) or len(set(appeared)) != len(appeared):
        print(f"FAIL: events: appeared {sorted(appeared)}, left {sorted(left)}")
        return 1
    print(f"events: {len(appeared)} tracks appeared and left")
    return 0


def check_recorder(reader, video):
    """The recorder with a nested cascade: a whole file and a whole sidecar."""
    recorder = os.path.join(os.path.dirname(os.path.abspath(reader)), "record-with-metadata.sh")
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "recording.webm")
        run = subprocess.run(["sh", recorder, video, out, f"eyes-profile={EYES}"], capture_output=True, text=True,
                             timeout=300)
        sidecar = os.path.join(folder, "recording.jsonl")
        size = os.path.getsize(out) if os.path.exists(out) else 0
        lines = sum(1 for _ in open(sidecar)) if os.path.exists(sidecar) else 0
        if run.returncode != 0 or size == 0 or lines < 200:
            print(f"FAIL: recorder exited {run.returncode}, {size} bytes, {lines} lines:\n{run.stderr[-2000:]}")
            return 1
    print(f"recorder: {size} bytes and {lines} lines with eyes-profile")
    return 0


if __name__ == "__main__":
    main()
