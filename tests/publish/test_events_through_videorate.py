#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Track events through an element that repeats or drops frames (suite
"publish"): Megamind.avi into waldboostdetect tracking=true updates=events,
then videorate to 60 fps (it repeats frames, and their metas) or to 10 fps
(it drops them), then waldboostmetaconvert post-messages=true; and a
second face detector chained after the first (lbpcascade_frontalface_improved,
label=face: two detectors of one label, whose track ids are the same
numbers), through videorate to 10 fps.

The reference is the detector's own "waldboostdetect-events" bus messages,
made from its report before any frame leaves it. Against them, the JSON:
- has every track appear once and leave once, and no other track;
- has each track appear before it leaves;
- has each event within a quarter second of the detector's (the 10 fps
  stream shows a dropped frame's events on the next frame it keeps).
Without videorate the JSON's events are the messages', box for box. With
two detectors the JSON has as many events of each kind and id as their
messages together (its events do not say which detector's they are).
Exit 77 without PyGObject, the video or the second cascade (unless
WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import os
import sys
import warnings
from collections import Counter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check, require_data  # noqa: E402

VIDEO = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "Megamind.avi")
SECOND_FACES = os.path.join(os.path.dirname(os.environ.get("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades")),
                            "lbpcascades", "lbpcascade_frontalface_improved.xml")
DETECTOR = "waldboostdetect tracking=true updates=events draw=none"


def run(rate, chained=False):
    """The detectors' events and the converter's event documents:
    (kind, id, seconds, (x, y, w, h)) each, in the order they came. The
    event documents are validated against the schema (the frames' are in
    the other tests)."""
    path = f"videorate ! video/x-raw,framerate={rate}/1 ! " if rate else ""
    second = f"{DETECTOR} classifier={SECOND_FACES} label=face ! " if chained else ""
    description = (f"filesrc location={VIDEO} ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 "
                   f"! {DETECTOR} ! {second}{path}waldboostmetaconvert post-messages=true ! fakesink")
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    detector, documents, lines = [], [], []
    while True:
        m = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.ANY)
        if m is None:
            raise SystemExit(f"timeout: {description}")
        if m.type == Gst.MessageType.ERROR:
            raise SystemExit(f"error: {m.parse_error()} in {description}")
        if m.type == Gst.MessageType.EOS:
            break
        if m.type != Gst.MessageType.ELEMENT:
            continue
        s = m.get_structure()
        if s.get_name() == "waldboostdetect-events":
            ok, events = s.get_list("events")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for i in range(events.n_values if ok else 0):
                    e = events.get_nth(i)
                    box = tuple(e.get_value(k) for k in ("x", "y", "width", "height"))
                    detector.append((e.get_value("kind"), e.get_value("id"), s.get_value("stream-time") / 1e9, box))
        elif s.get_name() == "waldboostmetaconvert":
            doc = json.loads(s.get_value("json"))
            if doc["type"] == "event":
                lines.append(s.get_value("json"))
                e = doc["event"]
                documents.append((e["kind"], e["id"], doc["timestamp"] / 1e9, (e["x"], e["y"], e["w"], e["h"])))
    pipeline.set_state(Gst.State.NULL)
    validate_documents.validate_lines(validate_documents.validator(), lines, description)
    return detector, documents


def compare(rate, detector, documents, chained=False):
    name = (f"framerate {rate}" if rate else "no videorate") + (", two detectors" if chained else "")
    ids = {e[1] for e in detector}
    check(len(ids) >= 5, f"{name}: the detector tracked {len(ids)} faces, not the 10 or so the video has")
    counts = Counter((e[0], e[1]) for e in documents)
    want = Counter((e[0], e[1]) for e in detector)
    check(counts == want, f"{name}: events in the JSON {sorted(counts.items())} != the detector's {sorted(want.items())}")
    if chained:
        check(any(n == 2 for n in want.values()), f"{name}: the two detectors share no track id: {sorted(want)}")
        return
    when = {(e[0], e[1]): e[2] for e in documents}
    for kind, track, seconds, box in detector:
        got = when.get((kind, track))
        check(got is not None and abs(got - seconds) <= 0.25,
              f"{name}: track {track} {kind} at {got} s in the JSON, {seconds:.3f} s at the detector")
        if kind == "left":
            check(when.get(("appeared", track), float("inf")) <= (got if got is not None else -1),
                  f"{name}: track {track} left before it appeared")
    if not rate:
        check([(e[0], e[1], e[3]) for e in documents] == [(e[0], e[1], e[3]) for e in detector],
              f"{name}: the JSON's events differ from the detector's:\n{documents}\n{detector}")


def main():
    require_data(VIDEO, SECOND_FACES)
    for rate in (None, 60, 10):
        compare(rate, *run(rate))
    compare(10, *run(10, chained=True), chained=True)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
