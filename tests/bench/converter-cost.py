#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""waldboostmetaconvert's own CPU time per frame (its stats' host-total-ms
over frames), behind the detector on IMAGE frozen into FRAMES frames, for
this build and optionally another build's plugins, side by side, runs
interleaved. Each pipeline runs in a process of its own, so that each
build's plugins stay apart.

The frames: one object (tracked), with metadata=roi and with
metadata=both, and a crowd (grouping=none min-neighbors=0: every accepted
window an object) with metadata=both, where the converter reads the
GstAnalytics relation meta too (GStreamer 1.24 and later).

    tests/bench/converter-cost.py build/testdata/astronaut.png \\
        --plugin-dir build/gst [--baseline-plugin-dir OTHER/build/gst] [--runs 3]
"""
import argparse
import json
import os
import subprocess
import sys

CASES = (("1 object, roi", "metadata=roi tracking=true"),
         ("1 object, both", "metadata=both tracking=true"),
         ("crowd, both", "metadata=both grouping=none min-neighbors=0"))


def measure(image, frames, props):
    """In this process: µs of the converter's CPU per frame, and the most
    objects a frame's document held."""
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    pipeline = Gst.parse_launch(
        f'filesrc location="{image}" ! decodebin ! videoconvert ! video/x-raw,format=GRAY8 '
        f"! imagefreeze num-buffers={frames} ! waldboostdetect draw=none {props} "
        "! waldboostmetaconvert name=convert ! fakesink")
    convert = pipeline.get_by_name("convert")
    convert.set_property("post-messages", True)
    pipeline.set_state(Gst.State.PLAYING)
    bus = pipeline.get_bus()
    objects = 0
    while True:
        m = bus.timed_pop_filtered(600 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR
                                   | Gst.MessageType.ELEMENT)
        if m is None or m.type == Gst.MessageType.ERROR:
            sys.exit(f"{m.parse_error() if m else 'timeout'}")
        if m.type == Gst.MessageType.EOS:
            break
        s = m.get_structure()
        if s.get_name() == "waldboostmetaconvert":
            objects = max(objects, len(json.loads(s.get_value("json")).get("objects", [])))
    stats = convert.get_property("stats")
    pipeline.set_state(Gst.State.NULL)
    return stats.get_value("host-total-ms") / stats.get_value("frames") * 1000, objects


def run_child(plugin_dir, image, frames, props):
    env = dict(os.environ)
    env["GST_PLUGIN_PATH"] = f"{plugin_dir}/element:{plugin_dir}/publish"
    env["GST_REGISTRY"] = "/tmp/converter-cost-" + plugin_dir.strip("/").replace("/", "-") + ".bin"
    out = subprocess.run([sys.executable, __file__, "--child", image, str(frames), props], env=env,
                         capture_output=True, text=True, check=True).stdout
    us, objects = out.split()
    return float(us), int(objects)


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--child":
        us, objects = measure(sys.argv[2], int(sys.argv[3]), sys.argv[4])
        print(us, objects)
        return
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("image")
    parser.add_argument("--plugin-dir", default="build/gst", help="this build's gst/ (element/, publish/)")
    parser.add_argument("--baseline-plugin-dir", help="another build's gst/, measured beside it")
    parser.add_argument("--frames", type=int, default=1500)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    builds = [("this", os.path.abspath(args.plugin_dir))]
    if args.baseline_plugin_dir:
        builds.insert(0, ("baseline", os.path.abspath(args.baseline_plugin_dir)))
    results = {}
    for _ in range(args.runs):
        for label, props in CASES:
            for name, folder in builds:
                us, objects = run_child(folder, os.path.abspath(args.image), args.frames, props)
                results.setdefault((label, name), []).append(us)
                results[(label, "objects")] = objects
    print("| frame | objects | " + " | ".join(f"{name}, µs/frame" for name, _ in builds) + " |")
    print("|---|---|" + "---|" * len(builds))
    for label, _ in CASES:
        cells = [f"{min(results[(label, name)]):.1f}-{max(results[(label, name)]):.1f}" for name, _ in builds]
        print(f"| {label} | {results[(label, 'objects')]} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
