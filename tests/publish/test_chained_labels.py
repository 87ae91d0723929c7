#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Class ids through a chain of two detectors (suite "publish"): faces with
the embedded classifier, then eyes with Debian's haarcascade_eye.xml, on
astronaut.png, into waldboostmetaconvert and a JSON lines file.

- every object of each detector's own bus message (an independent
  reference: the message is made from the detector's report, the document
  from the metas) is in the frame's document, with its own label and
  label_id: face 1 and eye 3 (the fixed table of label-id=-1), or the
  label-id set on the element;
- a label outside the table gets 1000 + its FNV-1a hash, computed here;
- the objects' region ids are distinct on the frame;
- every document validates against the schema.
Exit 77 without PyGObject, the test image or the cascade (unless
WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import os
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check, require_data  # noqa: E402

IMAGE = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
EYES = os.path.join(os.environ.get("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades"), "haarcascade_eye.xml")


def fnv1a_id(label):
    """The id label-id=-1 gives a label outside the table."""
    h = 2166136261
    for byte in label.encode("utf-8"):
        h = ((h ^ byte) * 16777619) & 0xFFFFFFFF
    return 1000 + h % (2**31 - 1000)


def messages_by_element(description):
    """Runs a pipeline to EOS; returns each detector's waldboostdetect
    messages as lists of (x, y, w, h, label), by element name."""
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    found = {}
    while True:
        m = bus.timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.ANY)
        if m is None:
            raise SystemExit(f"timeout: {description}")
        if m.type == Gst.MessageType.ERROR:
            raise SystemExit(f"error: {m.parse_error()} in {description}")
        if m.type == Gst.MessageType.ELEMENT and m.get_structure().get_name() == "waldboostdetect":
            s = m.get_structure()
            ok, values = s.get_list("detections")
            boxes = []
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                for i in range(values.n_values if ok else 0):
                    d = values.get_nth(i)
                    boxes.append((d.get_value("x"), d.get_value("y"), d.get_value("width"), d.get_value("height"),
                                  d.get_value("label")))
            found.setdefault(m.src.get_name(), []).append(boxes)
        if m.type == Gst.MessageType.EOS:
            break
    pipeline.set_state(Gst.State.NULL)
    return found


def chain(folder, second, want_label, want_id):
    out = os.path.join(folder, "chain.jsonl")
    found = messages_by_element(
        f"filesrc location={IMAGE} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 "
        "! imagefreeze num-buffers=2 ! waldboostdetect name=faces "
        f"! waldboostdetect name=second classifier={EYES} min-size=30 {second} "
        f"! waldboostmetaconvert ! waldboostmetapublish file-path={out} ! fakesink")
    with open(out, encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line]
    validate_documents.validate_lines(validate_documents.validator(), lines, out)
    docs = [json.loads(line) for line in lines]
    check(len(docs) == 2 and len(found.get("faces", [])) == 2 and len(found.get("second", [])) == 2,
          f"2 frames: {len(docs)} documents, messages {[(k, len(v)) for k, v in found.items()]}")
    for n, doc in enumerate(docs[:2]):
        faces, second = found["faces"][n], found["second"][n]
        check(faces and second, f"frame {n}: both detectors find something: {faces} {second}")
        check(all(b[4] == "face" for b in faces) and all(b[4] == want_label for b in second),
              f"frame {n}: the messages' labels {faces} {second}")
        got = sorted((o["x"], o["y"], o["w"], o["h"], o["detection"]["label"], o["detection"].get("label_id"))
                     for o in doc["objects"])
        want = sorted([b + (1,) for b in faces] + [b + (want_id,) for b in second])
        check(got == want, f"frame {n}: the document's objects {got} != the messages' {want}")
        regions = [o["region_id"] for o in doc["objects"]]
        check(len(set(regions)) == len(regions), f"frame {n}: region ids not distinct: {regions}")


def main():
    require_data(IMAGE, EYES)
    cases = (("", "eye", 3),                       # label-id=-1: the table's ids
             ("label-id=42", "eye", 42),           # set on the element
             ("label=pupil", "pupil", fnv1a_id("pupil")))  # a label outside the table
    for second, label, label_id in cases:
        with tempfile.TemporaryDirectory() as folder:
            chain(folder, second, label, label_id)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
