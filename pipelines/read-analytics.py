#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints waldboostdetect's GstAnalytics metadata as JSON, one line per frame.

    read-analytics.py [--frames N] [--set PROPERTY=VALUE]... [VIDEO]

Pipeline:  uridecodebin ! videoconvert ! waldboostdetect draw=none ! appsink

Each line is read from the buffer's GstAnalyticsRelationMeta through
gi.repository.GstAnalytics alone (no ctypes, no gst-python): "objects", one
per ODMtd with its "label" and box, its ClsMtd's "class" and "level", and
with tracking=true its TrackingMtd's "track_id", "first_seen" and
"last_seen" (running times, ns); a part (eyes-profile...) has the "parent"
whose ODMtd CONTAINs it; "lost", the tracks that ended on this frame. VIDEO
is a file or a URI (default: the repository's build/testdata/Megamind.avi).
Needs GStreamer 1.24 or later (Debian 13, Ubuntu 24.04) with python3-gi,
gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-bad-1.0 (GstAnalytics).
"""
import argparse
import itertools
import json
import os
import sys

# detector_settings.py lies beside this file, also when another program
# loads it as a module (tests/tracking/runner.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector_settings import detector_description  # noqa: E402

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstAnalytics", "1.0")
    from gi.repository import GLib, Gst, GstAnalytics
except (ImportError, ValueError) as error:
    sys.exit(f"read-analytics: {error}\n"
             "GstAnalytics came with GStreamer 1.24 (Debian 13, Ubuntu 24.04); install PyGObject and the\n"
             "introspection data: sudo apt-get install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-bad-1.0")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NONE = Gst.CLOCK_TIME_NONE


def clock_time(t):
    return None if t == NONE else t


def mtds(rmeta, getter):
    """The Mtds one getter (get_od_mtd, get_tracking_mtd...) finds, by id.
    Ids run from 0 to the meta's length; PyGObject cannot call
    gst_analytics_relation_meta_iterate() (its gpointer* state)."""
    for an_id in range(GstAnalytics.relation_get_length(rmeta)):
        ok, mtd = getter(an_id)
        if ok:
            yield mtd


def related(rmeta, from_mtd, candidates, relation):
    return [m for m in candidates if rmeta.get_relation(from_mtd.id, m.id) & relation]


def line_from_buffer(buffer, frame):
    line = {"frame": frame, "timestamp": clock_time(buffer.pts), "objects": [], "lost": []}
    rmeta = GstAnalytics.buffer_get_analytics_relation_meta(buffer)
    if rmeta is None:
        return line
    ods = list(mtds(rmeta, rmeta.get_od_mtd))
    classes = list(mtds(rmeta, rmeta.get_cls_mtd))
    tracks = list(mtds(rmeta, rmeta.get_tracking_mtd))
    tracked = set()
    for od in ods:
        _, x, y, w, h, confidence = od.get_location()
        obj = {"id": od.id, "label": GLib.quark_to_string(od.get_obj_type()), "x": x, "y": y, "width": w,
               "height": h, "confidence": confidence}
        for cls in related(rmeta, od, classes, GstAnalytics.RelTypes.RELATE_TO)[:1]:
            obj["class"] = GLib.quark_to_string(cls.get_quark(0))
            obj["level"] = cls.get_level(0)
        for track in related(rmeta, od, tracks, GstAnalytics.RelTypes.RELATE_TO)[:1]:
            _, track_id, first_seen, last_seen, _ = track.get_info()
            tracked.add(track.id)
            obj.update(track_id=track_id, first_seen=clock_time(first_seen), last_seen=clock_time(last_seen))
        for parent in related(rmeta, od, ods, GstAnalytics.RelTypes.IS_PART_OF)[:1]:
            obj["parent"] = parent.id
        line["objects"].append(obj)
    for track in tracks:
        _, track_id, first_seen, last_seen, lost = track.get_info()
        if lost and track.id not in tracked:
            line["lost"].append({"track_id": track_id, "first_seen": clock_time(first_seen),
                                 "last_seen": clock_time(last_seen)})
    return line


def raise_if_error(msg):
    if msg is not None and msg.type == Gst.MessageType.ERROR:
        error, debug = msg.parse_error()
        raise RuntimeError(f"{msg.src.get_name()}: {error.message}\n{debug or ''}")


def lines(appsink, bus):
    frame = 0
    while True:
        sample = appsink.emit("try-pull-sample", 100 * Gst.MSECOND)
        if sample is not None:
            yield line_from_buffer(sample.get_buffer(), frame)
            frame += 1
        elif appsink.get_property("eos"):
            return
        else:
            raise_if_error(bus.pop_filtered(Gst.MessageType.ERROR))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("video", nargs="?", help="file or URI (default: build/testdata/Megamind.avi)")
    parser.add_argument("--set", metavar="PROPERTY=VALUE", action="append", default=[],
                        help="set a waldboostdetect property (repeatable; draw=none unless set)")
    parser.add_argument("--frames", "-n", metavar="N", type=int,
                        help="stop after the first N frames (default: the whole video)")
    args = parser.parse_args()
    if args.frames is not None and args.frames < 1:
        parser.error("--frames must be 1 or more")
    video = args.video or os.path.join(REPO, "build", "testdata", "Megamind.avi")

    # Run from a checkout: the plugin built in build/ comes first.
    build = os.environ.get("WALDBOOST_BUILD_DIR", os.path.join(REPO, "build"))
    if os.path.isdir(build):
        os.environ["GST_PLUGIN_PATH"] = os.pathsep.join(filter(None, [build, os.environ.get("GST_PLUGIN_PATH")]))
    Gst.init(None)
    if "://" in video:
        uri = video
    elif os.path.isfile(video):
        uri = Gst.filename_to_uri(os.path.abspath(video))
    else:
        sys.exit(f"read-analytics: {video}: no such file")
    if Gst.ElementFactory.find("waldboostdetect") is None:
        sys.exit("read-analytics: element waldboostdetect not found: build it with "
                 "'meson setup build && ninja -C build' in the repository, or install it")

    try:
        pipeline = Gst.parse_launch("uridecodebin name=source ! videoconvert ! "
                                    f"{detector_description(Gst, args.set, 'read-analytics')} ! "
                                    "appsink name=sink sync=false max-buffers=4")
    except GLib.Error as error:
        sys.exit(f"read-analytics: bad pipeline: {error.message}")
    pipeline.get_by_name("source").set_property("uri", uri)
    detect = pipeline.get_by_name("detect")
    detect.set_property("post-messages", False)
    if detect.get_property("metadata").value_nick == "roi":
        sys.exit("read-analytics: metadata=roi attaches no analytics metadata (this build may predate "
                 "GStreamer 1.24: see read-detections.py)")

    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    try:
        for line in itertools.islice(lines(pipeline.get_by_name("sink"), bus), args.frames):
            print(json.dumps(line), flush=True)
    except RuntimeError as error:
        sys.exit(f"read-analytics: {error}")
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        pipeline.set_state(Gst.State.NULL)


if __name__ == "__main__":
    main()
