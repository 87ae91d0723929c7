#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Runs the ground-truth sequences (make-sequences.cpp) through waldboostdetect
and writes the tracks it reports.

    runner.py SEQUENCES_DIR NAME OUT.csv [PROPERTY=VALUE...]

Pipeline: appsrc (the raw GRAY8 frames of NAME.gray) ! waldboostdetect
draw=none PROPERTIES ! appsink. OUT.csv gets frame,id,x,y,w,h for every
object region-of-interest meta of each buffer (parts left out), read as
pipelines/read-detections.py reads them. GST_PLUGIN_PATH must find the plugin.
"""
import csv
import importlib.util
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_reader = None


def reader():
    """pipelines/read-detections.py as a module: its meta walker."""
    global _reader
    if _reader is None:
        spec = importlib.util.spec_from_file_location(
            "read_detections", os.path.join(REPO, "pipelines", "read-detections.py"))
        _reader = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(_reader)
    return _reader


def manifest(directory):
    """{name: (width, height, frames)} in the generator's order."""
    with open(os.path.join(directory, "manifest.csv"), newline="") as f:
        return {r["name"]: (int(r["width"]), int(r["height"]), int(r["frames"])) for r in csv.DictReader(f)}


def run_sequence(directory, name, props):
    """The objects the element reports on each frame: {frame: [(id, (x, y, w, h))]}.
    `props` is a list of "property=value"."""
    rd = reader()
    Gst = rd.Gst
    Gst.init(None)
    width, height, frames = manifest(directory)[name]
    caps = f"video/x-raw,format=GRAY8,width={width},height={height},framerate=25/1"
    pipeline = Gst.parse_launch(
        f"appsrc name=src format=time caps={caps} max-bytes=0 ! "
        f"waldboostdetect draw=none {' '.join(props)} ! appsink name=sink sync=false")
    src, sink = pipeline.get_by_name("src"), pipeline.get_by_name("sink")
    size = width * height
    pipeline.set_state(Gst.State.PLAYING)
    result = {}
    metas = rd.RoiMetas()
    try:
        with open(os.path.join(directory, name + ".gray"), "rb") as f:
            for t in range(frames):
                data = f.read(size)
                if len(data) != size:
                    raise RuntimeError(f"{name}.gray: frame {t} is short")
                buf = Gst.Buffer.new_wrapped(data)
                buf.pts = t * Gst.SECOND // 25
                buf.duration = Gst.SECOND // 25
                if src.emit("push-buffer", buf) != Gst.FlowReturn.OK:
                    raise RuntimeError(f"{name}: push-buffer failed at frame {t}")
        src.emit("end-of-stream")
        for line in rd.lines_from_appsink(sink, pipeline.get_bus()):
            result[line["frame"]] = [(d["id"], (d["x"], d["y"], d["width"], d["height"]))
                                     for d in line["detections"] if d["parent_id"] == -1]
    finally:
        pipeline.set_state(Gst.State.NULL)
    if len(result) != frames:
        raise RuntimeError(f"{name}: {len(result)} buffers out for {frames} frames in")
    return result


def write_tracks(path, tracks):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["frame", "id", "x", "y", "w", "h"])
        for t in sorted(tracks):
            for i, (x, y, bw, bh) in tracks[t]:
                w.writerow([t, i, x, y, bw, bh])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    write_tracks(sys.argv[3], run_sequence(sys.argv[1], sys.argv[2], sys.argv[4:]))


if __name__ == "__main__":
    main()
