#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the detections of waldboostdetect as JSON, one line per frame.

    read-detections.py [--messages] [--sink DESCRIPTION] [--output FILE]
                       [--frames N] [--set PROPERTY=VALUE]... [VIDEO]

Pipeline:  uridecodebin ! videoconvert ! waldboostdetect draw=none ! SINK

By default SINK is an appsink and each line is read from the buffer's
GstVideoRegionOfInterestMeta (one per detection, with its "detection"
parameters). With --messages the lines come from the element's
"waldboostdetect" bus messages instead and SINK is a fakesink, or the chain
given with --sink (for example an encoder, a muxer and a filesink; see
record-with-metadata.sh). VIDEO is a file or a URI (default: the repository's
build/testdata/Megamind.avi). Needs Debian's python3-gi, gir1.2-gstreamer-1.0
and gir1.2-gst-plugins-base-1.0, and Debian's /usr/bin/python3.
"""
import argparse
import itertools
import json
import os
import signal
import sys
import warnings

try:
    import gi

    gi.require_version("Gst", "1.0")
    gi.require_version("GstVideo", "1.0")
    from gi.repository import GLib, Gst, GstVideo
except (ImportError, ValueError) as error:
    sys.exit(f"read-detections: {error}\n"
             "Install PyGObject and the GStreamer introspection data (Debian 12):\n"
             "  sudo apt-get install python3-gi gir1.2-gstreamer-1.0 gir1.2-gst-plugins-base-1.0\n"
             "and run this with Debian's /usr/bin/python3 (not a virtualenv or pyenv Python).")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NONE = Gst.CLOCK_TIME_NONE  # an invalid timestamp; printed as null


def clock_time(t):
    return None if t == NONE else t


def structure_fields(s):
    """The fields of a GstStructure of plain values (ints, doubles, strings)."""
    return {s.nth_field_name(i): s.get_value(s.nth_field_name(i)) for i in range(s.n_fields())}


def line_from_buffer(buffer, frame):
    """Reads the GstVideoRegionOfInterestMeta of a buffer, in the order attached.

    PyGObject cannot call gst_buffer_iterate_meta() (its gpointer* state), and
    Gst.Buffer.foreach_meta() hands the callback no meta (and removes the
    first one). So the metas are counted with get_n_meta() and looked up by
    id: waldboostdetect numbers its metas 0 to n-1 in the order of its
    detections. Nothing is removed from the buffer."""
    detections = []
    for i in range(buffer.get_n_meta(GstVideo.video_region_of_interest_meta_api_get_type())):
        roi = GstVideo.buffer_get_video_region_of_interest_meta_id(buffer, i)
        if roi is None:  # not numbered by waldboostdetect (another element's metas)
            continue
        d = {"label": GLib.quark_to_string(roi.roi_type), "x": roi.x, "y": roi.y, "width": roi.w, "height": roi.h}
        params = roi.get_param("detection")  # confidence, neighbors, score
        if params is not None:
            d.update(structure_fields(params))
        detections.append(d)
    return {"frame": frame, "timestamp": clock_time(buffer.pts), "detections": detections}


def line_from_message(s):
    line = {}
    for i in range(s.n_fields()):
        name = s.nth_field_name(i)
        if name == "detections":
            # A GstValueList: get_value() cannot convert it without gst-python,
            # get_list() returns it as a (deprecated) GValueArray.
            _, values = s.get_list(name)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                line[name] = [structure_fields(values.get_nth(j)) for j in range(values.n_values)]
        else:
            line[name] = clock_time(s.get_value(name))  # all guint64
    return line


def raise_if_error(msg):
    if msg is not None and msg.type == Gst.MessageType.ERROR:
        error, debug = msg.parse_error()
        raise RuntimeError(f"{msg.src.get_name()}: {error.message}\n{debug or ''}")


def lines_from_appsink(appsink, bus):
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


def lines_from_messages(bus):
    wanted = Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS
    while True:
        msg = bus.timed_pop_filtered(100 * Gst.MSECOND, wanted)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.EOS:
            return
        raise_if_error(msg)
        s = msg.get_structure()
        if s is not None and s.get_name() == "waldboostdetect":
            yield line_from_message(s)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("video", nargs="?", help="file or URI (default: build/testdata/Megamind.avi)")
    parser.add_argument("--messages", action="store_true",
                        help="read the element messages instead of the buffer metadata")
    parser.add_argument("--sink", metavar="DESCRIPTION",
                        help="gst-launch description of where the frames go (implies --messages)")
    parser.add_argument("--set", metavar="PROPERTY=VALUE", action="append", default=[],
                        help="set a waldboostdetect property (repeatable; draw=none unless set)")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the JSON lines here (default: stdout)")
    parser.add_argument("--frames", "-n", metavar="N", type=int,
                        help="stop after the first N frames (default: the whole video)")
    args = parser.parse_args()
    if args.frames is not None and args.frames < 1:
        parser.error("--frames must be 1 or more")
    messages = args.messages or args.sink is not None
    args.video = args.video or os.path.join(REPO, "build", "testdata", "Megamind.avi")

    # Run from a checkout: the plugin built in build/ comes first.
    build = os.environ.get("WALDBOOST_BUILD_DIR", os.path.join(REPO, "build"))
    if os.path.isdir(build):
        os.environ["GST_PLUGIN_PATH"] = os.pathsep.join(filter(None, [build, os.environ.get("GST_PLUGIN_PATH")]))
    Gst.init(None)
    if "://" in args.video:
        uri = args.video
    elif os.path.isfile(args.video):
        uri = Gst.filename_to_uri(os.path.abspath(args.video))
    else:
        hint = " (fetch it with tests/fetch-test-data.sh)" if "testdata" in args.video else ""
        sys.exit(f"read-detections: {args.video}: no such file{hint}")

    if Gst.ElementFactory.find("waldboostdetect") is None:
        sys.exit("read-detections: element waldboostdetect not found: build it with "
                 "'meson setup build && ninja -C build' in the repository, or install it")

    if messages:
        sink = args.sink or "fakesink sync=false"
    else:
        sink = "appsink name=sink sync=false max-buffers=4"
    try:
        pipeline = Gst.parse_launch(f"uridecodebin name=source ! videoconvert ! waldboostdetect name=detect ! {sink}")
    except GLib.Error as error:
        sys.exit(f"read-detections: bad pipeline: {error.message}")
    pipeline.get_by_name("source").set_property("uri", uri)
    detect = pipeline.get_by_name("detect")
    detect.set_property("post-messages", messages)
    for setting in ["draw=none"] + args.set:
        name, _, value = setting.partition("=")
        if detect.find_property(name) is None:
            sys.exit(f"read-detections: waldboostdetect has no property '{name}'")
        Gst.util_set_object_arg(detect, name, value)

    def stop(*_):
        # First Ctrl-C: end the stream, so that a recording is finished.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        print("read-detections: stopping (Ctrl-C again to abort)", file=sys.stderr)
        pipeline.send_event(Gst.Event.new_eos())

    signal.signal(signal.SIGINT, stop)
    out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    try:
        lines = lines_from_messages(bus) if messages else lines_from_appsink(pipeline.get_by_name("sink"), bus)
        for line in itertools.islice(lines, args.frames):
            print(json.dumps(line), file=out, flush=True)
    except RuntimeError as error:
        sys.exit(f"read-detections: {error}")
    except BrokenPipeError:  # e.g. piped into head
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    finally:
        pipeline.set_state(Gst.State.NULL)
        if out is not sys.stdout:
            out.close()


if __name__ == "__main__":
    main()
