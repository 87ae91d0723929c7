#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Prints the detections of waldboostdetect as JSON, one line per frame.

    read-detections.py [--messages] [--sink DESCRIPTION] [--output FILE]
                       [--frames N] [--set PROPERTY=VALUE]... [VIDEO]

Pipeline:  uridecodebin ! videoconvert ! waldboostdetect draw=none ! SINK

By default SINK is an appsink and each line is read from the buffer's
GstVideoRegionOfInterestMeta, every one of them: the detections (or tracks)
and the parts found inside them, each with its "id" and "parent_id" (-1 for
an object, the object's id for a part) and its "detection" parameters. With
--messages the lines come from the element's "waldboostdetect" bus messages
instead (each detection with its parts' lists), plus one line for each
"waldboostdetect-events" message (tracking=true updates=events: a line with
"events", tracks that appeared or left), and SINK is a fakesink, or the
chain given with --sink (for example an encoder, a muxer and a filesink; see
record-with-metadata.sh). A message that cannot be read is reported on
stderr and the stream goes on, so that a recording is always finished; the
exit status is then 1. VIDEO is a file or a URI (default: the repository's
build/testdata/Megamind.avi). Needs Debian's python3-gi, gir1.2-gstreamer-1.0
and gir1.2-gst-plugins-base-1.0, and Debian's /usr/bin/python3.
"""
import argparse
import ctypes
import itertools
import json
import os
import signal
import sys
import warnings

# detector_settings.py lies beside this file, also when another program
# loads it as a module (tests/tracking/runner.py).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from detector_settings import detector_description  # noqa: E402

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


def plain(value):
    """A value of a structure as JSON can hold it: a structure becomes a dict;
    a type JSON has no form for becomes its text, never an exception."""
    if isinstance(value, Gst.Structure):
        return structure_fields(value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return str(value)


def field_value(s, name):
    """One field. Lists (a detection's parts, the events) are GstValueLists,
    which get_value() cannot convert without gst-python (and converts to a
    Gst.ValueList with it): get_list() returns them as a (deprecated)
    GValueArray of their items."""
    type_name = s.get_field_type(name).name
    if type_name in ("GstValueList", "GstValueArray"):
        ok, values = (s.get_list if type_name == "GstValueList" else s.get_array)(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return [plain(values.get_nth(j)) for j in range(values.n_values)] if ok else []
    return plain(s.get_value(name))


def structure_fields(s):
    """The fields of a GstStructure, nested lists and structures included."""
    return {s.nth_field_name(i): field_value(s, s.nth_field_name(i)) for i in range(s.n_fields())}


class RoiMeta(ctypes.Structure):
    """GstVideoRegionOfInterestMeta (gst/video/gstvideometa.h), after its GstMeta."""
    _fields_ = [("flags", ctypes.c_int), ("info", ctypes.c_void_p), ("roi_type", ctypes.c_uint32),
                ("id", ctypes.c_int), ("parent_id", ctypes.c_int), ("x", ctypes.c_uint), ("y", ctypes.c_uint),
                ("w", ctypes.c_uint), ("h", ctypes.c_uint), ("params", ctypes.c_void_p)]


class RoiMetas:
    """Every GstVideoRegionOfInterestMeta of a buffer, in the order attached.

    PyGObject cannot call gst_buffer_iterate_meta_filtered() (its gpointer*
    state), and looking metas up by id finds only those whose ids one knows
    (with tracking they are track ids) and the first of two equal ids (two
    chained detectors). So the metas are walked in C through ctypes, on the
    buffer's pointer, which PyGObject gives as hash(buffer); their parameter
    structures come back through their text. Nothing is changed on the
    buffer."""

    def __init__(self):
        gst = ctypes.CDLL("libgstreamer-1.0.so.0")
        video = ctypes.CDLL("libgstvideo-1.0.so.0")
        self.iterate = gst.gst_buffer_iterate_meta_filtered
        self.iterate.restype = ctypes.POINTER(RoiMeta)
        self.iterate.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        api_type = video.gst_video_region_of_interest_meta_api_get_type
        api_type.restype = ctypes.c_size_t
        self.api = api_type()
        self.get_param = video.gst_video_region_of_interest_meta_get_param
        self.get_param.restype = ctypes.c_void_p
        self.get_param.argtypes = [ctypes.POINTER(RoiMeta), ctypes.c_char_p]
        self.to_string = gst.gst_structure_to_string
        self.to_string.restype = ctypes.c_void_p  # freed with g_free
        self.to_string.argtypes = [ctypes.c_void_p]
        self.free = ctypes.CDLL("libglib-2.0.so.0").g_free
        self.free.argtypes = [ctypes.c_void_p]

    def param(self, meta, name):
        structure = self.get_param(meta, name.encode())
        if not structure:
            return None
        text = self.to_string(structure)
        try:
            return Gst.Structure.from_string(ctypes.string_at(text).decode())[0]
        finally:
            self.free(text)

    def of(self, buffer):
        state = ctypes.c_void_p()
        while True:
            meta = self.iterate(hash(buffer), ctypes.byref(state), self.api)
            if not meta:
                return
            yield meta


def line_from_buffer(buffer, frame, metas):
    detections = []
    for roi in metas.of(buffer):
        r = roi.contents
        d = {"label": GLib.quark_to_string(r.roi_type), "id": r.id, "parent_id": r.parent_id,
             "x": r.x, "y": r.y, "width": r.w, "height": r.h}
        params = metas.param(roi, "detection")  # confidence, neighbors, score; a track's fields
        if params is not None:
            d.update(structure_fields(params))
        detections.append(d)
    return {"frame": frame, "timestamp": clock_time(buffer.pts), "detections": detections}


TIMES = ("timestamp", "stream-time", "running-time", "duration")


def line_from_message(s):
    """A "waldboostdetect" message (its "detections") or a
    "waldboostdetect-events" one (its "events") as one line. As in the
    metas' lines, an object's "parent_id" is -1 and each part's (in its
    object's lists) is the object's "id"."""
    line = {}
    for i in range(s.n_fields()):
        name = s.nth_field_name(i)
        value = field_value(s, name)
        line[name] = clock_time(value) if name in TIMES else value
    for detection in line.get("detections", []):
        detection.setdefault("parent_id", -1)
        for parts in detection.values():
            if isinstance(parts, list):
                for part in parts:
                    if isinstance(part, dict):
                        part.setdefault("parent_id", detection.get("id", -1))
    return line


def raise_if_error(msg):
    if msg is not None and msg.type == Gst.MessageType.ERROR:
        error, debug = msg.parse_error()
        raise RuntimeError(f"{msg.src.get_name()}: {error.message}\n{debug or ''}")


def lines_from_appsink(appsink, bus):
    frame = 0
    metas = RoiMetas()
    while True:
        sample = appsink.emit("try-pull-sample", 100 * Gst.MSECOND)
        if sample is not None:
            yield line_from_buffer(sample.get_buffer(), frame, metas)
            frame += 1
        elif appsink.get_property("eos"):
            return
        else:
            raise_if_error(bus.pop_filtered(Gst.MessageType.ERROR))


def lines_from_messages(bus, failures):
    """The messages' lines until EOS. A message that cannot be read is
    reported and counted in `failures`, and the stream goes on: the
    pipeline (a recording) must reach its EOS."""
    wanted = Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS
    while True:
        msg = bus.timed_pop_filtered(100 * Gst.MSECOND, wanted)
        if msg is None:
            continue
        if msg.type == Gst.MessageType.EOS:
            return
        raise_if_error(msg)
        s = msg.get_structure()
        if s is not None and s.get_name() in ("waldboostdetect", "waldboostdetect-events"):
            try:
                line = line_from_message(s)
            except Exception as error:  # noqa: BLE001 - whatever it is, the recording goes on
                failures.append(error)
                print(f"read-detections: ERROR: a {s.get_name()} message could not be read and is missing "
                      f"from the output: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
                continue
            yield line


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
        pipeline = Gst.parse_launch("uridecodebin name=source ! videoconvert ! "
                                    f"{detector_description(Gst, args.set, 'read-detections')} ! {sink}")
    except GLib.Error as error:
        sys.exit(f"read-detections: bad pipeline: {error.message}")
    pipeline.get_by_name("source").set_property("uri", uri)
    pipeline.get_by_name("detect").set_property("post-messages", messages)

    def stop(*_):
        # First Ctrl-C: end the stream, so that a recording is finished.
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        print("read-detections: stopping (Ctrl-C again to abort)", file=sys.stderr)
        pipeline.send_event(Gst.Event.new_eos())

    signal.signal(signal.SIGINT, stop)
    try:
        out = open(args.output, "w", encoding="utf-8") if args.output else sys.stdout
    except OSError as error:
        sys.exit(f"read-detections: cannot write {args.output}: {error.strerror}")
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    failures = []
    try:
        lines = lines_from_messages(bus, failures) if messages else lines_from_appsink(pipeline.get_by_name("sink"), bus)
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
    if failures:
        sys.exit(f"read-detections: {len(failures)} message(s) could not be read (see above); the rest was written")


if __name__ == "__main__":
    main()
