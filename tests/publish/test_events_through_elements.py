#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Track events through the elements users put between the detector and
the converter (suite "publish"): Megamind.avi (720x528) into
waldboostdetect tracking=true updates=events, then
- videorate to 60 fps (it repeats frames, and their metas) or to 10 fps
  (it drops them);
- videoscale to 360x264;
- a second face detector chained after the first
  (lbpcascade_frontalface_improved, label=face: two detectors of one
  label, whose track ids are the same numbers), and videorate to 10 fps;
then waldboostmetaconvert post-messages=true.

The reference is the detectors' own "waldboostdetect-events" bus messages,
made from their reports before any frame leaves them. A track is its
detector (the message's source element, the JSON's "detector") and id.
Against them, the JSON:
- has every track appear once and leave once, and no other track;
- has each track appear before it leaves;
- has each event within a quarter second of the detector's (the 10 fps
  stream shows a dropped frame's events on the next frame it keeps).
Without an element between, the JSON's events are the messages', box for
box; after videoscale they are the messages' boxes scaled, and a track's
appeared box is its object's on that frame, which GStreamer's own scaling
of region-of-interest metas placed.
The event documents are validated against the schema (the frames' are in
the other tests). Exit 77 without PyGObject, the video or the second
cascade (unless WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import os
import sys
import warnings
from collections import Counter
from fractions import Fraction

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check, require_data  # noqa: E402

VIDEO = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "Megamind.avi")
SECOND_FACES = os.path.join(os.path.dirname(os.environ.get("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades")),
                            "lbpcascades", "lbpcascade_frontalface_improved.xml")
DETECTOR = "waldboostdetect tracking=true updates=events draw=none"


def run(between="", chained=False):
    """The detectors' events and the converter's event documents:
    (kind, (detector, id), seconds, (x, y, w, h)) each, in the order they
    came; and for each track that appeared, the box of its object (the
    object of that detector and track id) on that frame."""
    second = f"{DETECTOR} classifier={SECOND_FACES} label=face ! " if chained else ""
    description = (f"filesrc location={VIDEO} ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 "
                   f"! {DETECTOR} ! {second}{between}waldboostmetaconvert post-messages=true ! fakesink")
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    detector, documents, lines, objects, appeared_objects = [], [], [], {}, {}
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
                    track = (m.src.get_name(), e.get_value("id"))
                    detector.append((e.get_value("kind"), track, s.get_value("stream-time") / 1e9, box))
        elif s.get_name() == "waldboostmetaconvert":
            doc = json.loads(s.get_value("json"))
            if doc["type"] == "frame":  # ahead of its frame's events
                # After GStreamer 1.22's videoscale the metas have lost
                # their parameters, so the objects their detector and track
                # id; the region id is the track id of a lone detector.
                objects = {(o["detection"].get("detector"), o.get("id", o["region_id"])):
                           (o["x"], o["y"], o["w"], o["h"]) for o in doc["objects"]}
            elif doc["type"] == "event":
                lines.append(s.get_value("json"))
                e = doc["event"]
                track = (e.get("detector"), e["id"])
                documents.append((e["kind"], track, doc["timestamp"] / 1e9, (e["x"], e["y"], e["w"], e["h"])))
                if e["kind"] == "appeared":
                    appeared_objects[track] = objects.get(track, objects.get((None, e["id"])))
    pipeline.set_state(Gst.State.NULL)
    validate_documents.validate_lines(validate_documents.validator(), lines, description)
    return detector, documents, appeared_objects


def scaled(box, factor):
    """A box scaled as integers, toward zero, as GStreamer scales a
    region-of-interest meta."""
    return tuple(int(v * factor.numerator / factor.denominator) for v in box)


def compare(name, detector, documents, appeared_objects, boxes=None, detectors=1):
    """`boxes`: the factor the JSON's boxes are the detector's by."""
    tracks = {e[1] for e in detector}
    check(len(tracks) >= 5, f"{name}: the detector tracked {len(tracks)} faces, not the 10 or so the video has")
    names = {t[0] for t in tracks}
    check(len(names) == detectors, f"{name}: events of {sorted(names)}, not of {detectors} detectors")
    if detectors > 1:
        shared = {t[1] for t in tracks if t[0] == min(names)} & {t[1] for t in tracks if t[0] == max(names)}
        check(shared, f"{name}: the detectors share no track id, so nothing tells them apart: {sorted(tracks)}")
    counts = Counter((e[0], e[1]) for e in documents)
    want = Counter((e[0], e[1]) for e in detector)
    check(counts == want, f"{name}: events in the JSON {sorted(counts.items())} != the detector's {sorted(want.items())}")
    when = {(e[0], e[1]): e[2] for e in documents}
    for kind, track, seconds, box in detector:
        got = when.get((kind, track))
        check(got is not None and abs(got - seconds) <= 0.25,
              f"{name}: track {track} {kind} at {got} s in the JSON, {seconds:.3f} s at the detector")
        if kind == "left":
            check(when.get(("appeared", track), float("inf")) <= (got if got is not None else -1),
                  f"{name}: track {track} left before it appeared")
    if boxes is not None:
        got = [(e[0], e[1], e[3]) for e in documents]
        want = [(e[0], e[1], scaled(e[3], boxes)) for e in detector]
        check(got == want, f"{name}: the JSON's events differ from the detector's:\n{got}\n{want}")
        for kind, track, _, box in documents:
            if kind == "appeared":
                check(appeared_objects.get(track) == box,
                      f"{name}: track {track} appeared at {box}, its object is at {appeared_objects.get(track)}")


def main():
    require_data(VIDEO, SECOND_FACES)
    compare("nothing between", *run(), boxes=Fraction(1))
    for rate in (60, 10):
        compare(f"videorate {rate} fps", *run(f"videorate ! video/x-raw,framerate={rate}/1 ! "))
    compare("videoscale to 360x264", *run("videoscale ! video/x-raw,width=360,height=264 ! "), boxes=Fraction(1, 2))
    compare("two detectors, videorate 10 fps", *run("videorate ! video/x-raw,framerate=10/1 ! ", chained=True),
            detectors=2)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
