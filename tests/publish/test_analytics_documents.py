#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""waldboostmetaconvert after the detector's GstAnalytics metadata, end to
end (suite "publish"; GStreamer 1.24 and later, the Debian 13 phase).

The same pipeline runs three times, with the detector's metadata=roi,
analytics and both, into waldboostmetaconvert and a JSON lines file. The
documents of metadata=roi, made from region-of-interest metas alone, are
the reference:
- with `both`, each frame's objects are roi's once each, field for field,
  each with its ODMtd's `analytics_id`;
- with `analytics`, where only ODMtds reach the converter, each frame has
  the same objects: label, box, track id (from the TrackingMtd) and
  confidence, and the same object as parent (found through the ODMtds'
  relations), without what no Mtd carries (label_id, neighbors, score,
  the detector's name, the track's age and hits).
Pipelines: faces tracked on astronaut.png; faces with their eyes as parts
(eyes-profile); faces, then a second detector searching for eyes inside
them (inference-region=roi-list), both with the same metadata setting.
Every document validates against the schema.
Exit 77 without PyGObject or without the analytics metadata (a build for
GStreamer before 1.24), or without the test data (unless
WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check, require_data  # noqa: E402

VALIDATOR = validate_documents.validator()
IMAGE = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
EYES = os.path.join(os.environ.get("WALDBOOST_HAAR_DIR", "/usr/share/opencv4/haarcascades"), "haarcascade_eye.xml")
SOURCE = (f"filesrc location={IMAGE} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 "
          "! imagefreeze num-buffers=3")
# What only the region-of-interest metas' "detection" parameters carry.
META_ONLY_DETECTION = ("label_id", "neighbors", "score", "detector")


def has_analytics():
    detector = Gst.ElementFactory.make("waldboostdetect", None)
    if detector is None:
        raise SystemExit("FAIL: no waldboostdetect")
    # A build without it has only roi (0): "analytics" (1) is refused.
    Gst.util_set_object_arg(detector, "metadata", "analytics")
    return int(detector.get_property("metadata")) == 1


def frame_documents(folder, detectors, metadata):
    """The frame documents of SOURCE ! `detectors` (with {metadata}
    replaced) ! waldboostmetaconvert, written by waldboostmetapublish."""
    out = os.path.join(folder, f"{metadata}.jsonl")
    description = (f"{SOURCE} ! {detectors.format(metadata=metadata)} ! waldboostmetaconvert "
                   f"! waldboostmetapublish file-path={out} ! fakesink")
    pipeline = Gst.parse_launch(description)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    m = bus.timed_pop_filtered(120 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if m is None or m.type == Gst.MessageType.ERROR:
        raise SystemExit(f"FAIL: {m.parse_error() if m else 'timeout'} in {description}")
    with open(out, encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line]
    validate_documents.validate_lines(VALIDATOR, lines, out)
    return [d for d in map(json.loads, lines) if d["type"] == "frame"]


def view(doc, confidence=True):
    """A frame's objects as what both kinds of metadata say: label, box,
    track id, confidence, and the parent's label and box; sorted."""
    by_region = {o["region_id"]: o for o in doc["objects"]}
    out = []
    for o in doc["objects"]:
        parent = by_region.get(o.get("parent_id"))
        out.append((o["detection"]["label"], o["x"], o["y"], o["w"], o["h"], o.get("id"),
                    round(o["detection"]["confidence"], 5) if confidence else None,
                    (parent["detection"]["label"], parent["x"], parent["y"], parent["w"], parent["h"])
                    if parent else None))
    return sorted(out, key=repr)


def without(obj, *names):
    return {k: v for k, v in obj.items() if k not in names}


def compare(name, detectors, want_parts):
    with tempfile.TemporaryDirectory() as folder:
        docs = {m: frame_documents(folder, detectors, m) for m in ("roi", "analytics", "both")}
    check(all(len(d) == 3 for d in docs.values()),
          f"{name}: 3 frame documents each, got {[(m, len(d)) for m, d in docs.items()]}")
    for n, (roi, analytics, both) in enumerate(zip(docs["roi"], docs["analytics"], docs["both"])):
        objects = roi["objects"]
        check(objects and all("analytics_id" not in o for o in objects),
              f"{name} frame {n}: metadata=roi gives objects without ODMtds: {objects}")
        parts = [o for o in objects if "parent_id" in o]
        check(len(parts) > 0 if want_parts else not parts, f"{name} frame {n}: parts {parts}")
        # both: roi's objects once each, each with its ODMtd.
        check([without(o, "analytics_id") for o in both["objects"]] == objects,
              f"{name} frame {n}: metadata=both {both['objects']} != roi {objects}")
        ids = [o.get("analytics_id") for o in both["objects"]]
        check(None not in ids and len(set(ids)) == len(ids), f"{name} frame {n}: both's analytics ids {ids}")
        # analytics: the same objects, parents and tracks from the relations.
        check(view(analytics) == view(roi),
              f"{name} frame {n}: metadata=analytics {view(analytics)} != roi {view(roi)}")
        check(all(not set(META_ONLY_DETECTION) & set(o["detection"]) and "track" not in o
                  for o in analytics["objects"]),
              f"{name} frame {n}: metadata=analytics has fields no Mtd carries: {analytics['objects']}")


def main():
    if not has_analytics():
        print("SKIP: waldboostdetect has no GstAnalytics metadata (GStreamer before 1.24)")
        sys.exit(77)
    require_data(IMAGE, EYES)
    # Named: the documents give each detector's name, and GStreamer's own
    # names would differ from run to run of one process.
    compare("tracked faces", "waldboostdetect name=faces draw=none tracking=true confirm-hits=1 metadata={metadata}",
            False)
    compare("eyes as parts", f"waldboostdetect name=faces draw=none eyes-profile={EYES} metadata={{metadata}}", True)
    compare("eyes inside faces",
            "waldboostdetect name=faces draw=none metadata={metadata} "
            f"! waldboostdetect name=eyes draw=none classifier={EYES} label=eye inference-region=roi-list "
            "region-labels=face metadata={metadata}", True)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
