#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Hostile GstAnalytics metadata from upstream (suite "publish"; GStreamer
1.24 and later, the Debian 13 phase).

Frames of a real photo carry random metadata, as another element might
attach it: region-of-interest metas (some with a parent), and a relation
meta with ODMtds (some repeating a meta's box; others with boxes off the
frame, negative or zero sizes, the int limits, confidences of NaN, -1 and
2), TrackingMtds (ids 0, 1, 2^63 - 1, 2^64 - 1, some lost), ClsMtds, and
random IS_PART_OF, CONTAIN and RELATE_TO relations between any two of them
(an Mtd with itself, cycles). They go through three pipelines:
- waldboostmetaconvert alone;
- waldboostdetect inference-region=roi-list metadata=both tracking=true,
  then the converter;
- waldboostdetect metadata=analytics, a second one with roi-list inside
  its ODMtds, then the converter.
No pipeline may fail, and every frame document must be one a consumer can
use: valid against the schema, region_id unique on the frame, analytics_id
unique, a parent_id that names another object of the frame, a track id
of at least 1, boxes inside the schema's bounds. With the converter alone
the number of objects is known: every meta, and every ODMtd but those
that repeat a meta's label and box, each meta taken once (counted here by
a plain search, not the converter's sorted one).
Exit 77 without PyGObject or without the analytics metadata (a build for
GStreamer before 1.24), or without the test data (unless
WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check, require_data  # noqa: E402

WIDTH, HEIGHT = 320, 240
FRAMES = 150
IMAGE = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
EYES = os.path.join(os.environ.get("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades"), "haarcascade_eye.xml")
LABELS = ("face", "person", "eye", "car")
INT_LIMITS = (0, 1, -1, 319, 320, 1000, 2**30, 2**31 - 1, -2**31)
TRACK_IDS = (0, 1, 7, 2**63 - 1, 2**64 - 1)
PIPELINES = {
    "converter alone": "",
    "roi-list, metadata=both": "waldboostdetect inference-region=roi-list metadata=both tracking=true draw=none ! ",
    "metadata=analytics, then roi-list":
        "waldboostdetect metadata=analytics draw=none ! "
        f"waldboostdetect classifier={EYES} inference-region=roi-list metadata=both draw=none ! ",
}


def photo():
    """astronaut.png as GRAY8 of WIDTH x HEIGHT."""
    pipeline = Gst.parse_launch(
        f"filesrc location={IMAGE} ! pngdec ! videoconvert ! videoscale "
        f"! video/x-raw,format=GRAY8,width={WIDTH},height={HEIGHT} ! appsink name=sink")
    pipeline.set_state(Gst.State.PLAYING)
    sample = pipeline.get_by_name("sink").emit("pull-sample")
    buffer = sample.get_buffer()
    data = buffer.extract_dup(0, buffer.get_size())
    pipeline.set_state(Gst.State.NULL)
    return data


class Frames:
    """Random metadata on frames of `pixels`, and how many objects the
    converter alone must make of each frame's."""

    def __init__(self, pixels, seed, analytics, video, quark):
        self.pixels, self.rng, self.a, self.v, self.quark = pixels, random.Random(seed), analytics, video, quark
        self.expected_objects = []

    def box(self):
        r = self.rng
        if r.random() < 0.3:
            return tuple(r.choice(INT_LIMITS) for _ in range(4))
        return r.randrange(-20, 340), r.randrange(-20, 260), r.randrange(-5, 200), r.randrange(-5, 200)

    def buffer(self, index):
        r, a = self.rng, self.a
        b = Gst.Buffer.new_wrapped(self.pixels)
        b.pts = index * Gst.SECOND // 30
        b.duration = Gst.SECOND // 30
        metas = []
        ids = r.sample(range(50), r.randrange(5))
        for k, meta_id in enumerate(ids):
            label = r.choice(LABELS)
            x, y, w, h = (abs(v) % 360 for v in self.box())
            m = self.v.buffer_add_video_region_of_interest_meta(b, label, x, y, w, h)
            m.id = meta_id
            m.parent_id = r.choice([-1] + ids[:k])
            metas.append((label, x, y, w, h))
        ods = []
        if r.random() < 0.85:
            relations = a.buffer_add_analytics_relation_meta(b)
            mtds = []
            for _ in range(r.randrange(14)):
                kind = r.random()
                if kind < 0.7:
                    label, *box = r.choice(metas) if metas and r.random() < 0.4 else (r.choice(LABELS), *self.box())
                    confidence = r.choice((0.5, -1.0, 2.0, math.nan))
                    ok, mtd = relations.add_od_mtd(self.quark(label), *box, confidence)
                    ods.append((label, *box))
                elif kind < 0.9:
                    ok, mtd = relations.add_tracking_mtd(r.choice(TRACK_IDS), 0)
                    if r.random() < 0.3:
                        mtd.set_lost()
                else:
                    ok, mtd = relations.add_one_cls_mtd(0.5, self.quark("class"))
                assert ok
                mtds.append(mtd.id)
            kinds = (a.RelTypes.IS_PART_OF, a.RelTypes.CONTAIN, a.RelTypes.RELATE_TO)
            for _ in range(r.randrange(3 * len(mtds) + 1)):
                relations.set_relation(r.choice(kinds), r.choice(mtds), r.choice(mtds))
        # Each ODMtd repeating a meta's label and box takes the first such
        # meta not yet taken.
        taken = [False] * len(metas)
        twins = 0
        for od in ods:
            for i, meta in enumerate(metas):
                if not taken[i] and meta == od:
                    taken[i] = True
                    twins += 1
                    break
        self.expected_objects.append(len(metas) + len(ods) - twins)
        return b


def check_document(doc, where):
    objects = doc.get("objects", [])
    regions = [o["region_id"] for o in objects]
    check(len(set(regions)) == len(regions), f"{where}: region ids repeat: {regions}")
    analytics_ids = [o["analytics_id"] for o in objects if "analytics_id" in o]
    check(len(set(analytics_ids)) == len(analytics_ids), f"{where}: analytics ids repeat: {analytics_ids}")
    for o in objects:
        if "parent_id" in o:
            check(o["parent_id"] in regions and o["parent_id"] != o["region_id"],
                  f"{where}: parent_id {o['parent_id']} names no other object of the frame")


def run(name, detectors, frames):
    """Frame documents by frame number, and whether the stream ended."""
    pipeline = Gst.parse_launch(f"appsrc name=src format=time block=true ! {detectors}"
                                "waldboostmetaconvert name=convert post-messages=true ! fakesink")
    src = pipeline.get_by_name("src")
    src.set_property("caps", Gst.Caps.from_string(
        f"video/x-raw,format=GRAY8,width={WIDTH},height={HEIGHT},framerate=30/1"))
    pipeline.set_state(Gst.State.PLAYING)
    for i in range(FRAMES):
        src.emit("push-buffer", frames.buffer(i))
    src.emit("end-of-stream")
    bus = pipeline.get_bus()
    documents = {}
    ended = False
    while True:
        m = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
                                   | Gst.MessageType.ELEMENT)
        if m is None or m.type == Gst.MessageType.ERROR:
            check(False, f"{name}: {m.parse_error()[0].message if m else 'no end of stream in 120 s'}")
            break
        if m.type == Gst.MessageType.EOS:
            ended = True
            break
        s = m.get_structure()
        if s.get_name() == "waldboostmetaconvert":
            doc = json.loads(s.get_value("json"))
            if doc.get("type") == "frame":
                documents[doc["frame"]] = doc
    pipeline.set_state(Gst.State.NULL)
    return documents, ended


def main():
    import gi
    require_data(IMAGE, EYES)
    detector = Gst.ElementFactory.make("waldboostdetect", None)
    Gst.util_set_object_arg(detector, "metadata", "analytics")
    if int(detector.get_property("metadata")) != 1:
        print("SKIP: this build has no GstAnalytics metadata (GStreamer before 1.24)")
        return 77
    gi.require_version("GstAnalytics", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GLib, GstAnalytics, GstVideo
    validator = validate_documents.validator()
    pixels = photo()
    for seed, (name, detectors) in enumerate(PIPELINES.items(), start=1):
        frames = Frames(pixels, seed, GstAnalytics, GstVideo, GLib.quark_from_string)
        documents, ended = run(name, detectors, frames)
        check(ended and len(documents) == FRAMES, f"{name}: {len(documents)} frame documents of {FRAMES}")
        counts = {"objects": 0, "parent_id": 0, "analytics_id": 0, "id": 0}
        for number, doc in sorted(documents.items()):
            where = f"{name}, frame {number}"
            for error in validator.iter_errors(doc):
                check(False, f"{where}: {error.message}")
            check_document(doc, where)
            if not detectors:
                check(len(doc["objects"]) == frames.expected_objects[number],
                      f"{where}: {len(doc['objects'])} objects, not {frames.expected_objects[number]}")
            for o in doc["objects"]:
                counts["objects"] += 1
                for field in ("parent_id", "analytics_id", "id"):
                    counts[field] += field in o
        # The metadata must reach every rule checked above.
        check(all(counts.values()), f"{name}: a field never seen: {counts}")
        print(f"{name}: {len(documents)} frames, {counts}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
