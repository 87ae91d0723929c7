#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""waldboostmetapublish method=file, end to end (suite "publish"):

- the detector's real metas: on astronaut.png with tracking, every frame's
  document has the objects of the detector's own bus message for that frame
  (an independent reference: the message is made from the detector's report,
  the document from the metas), the track appears on the first frame and
  leaves at the end;
- rotation by size (max-file-size) and with splitmuxsink's fragments;
- a folder that disappears while files rotate into it, and one removed
  while its one file is written: a warning, the drops counted, the stream
  goes on;
- a full disk: /dev/full, and a 16 KiB tmpfs in a mount namespace of its
  own where one can be made: a warning, no half line, what could not be
  written counted as dropped;
- format=pretty into a file: one document per line all the same;
- a file-path that is no pattern for numbered files (another conversion,
  two, a lone %, a width past 20): an error at the start, no file;
- nothing linked after the publisher, alone and behind a tee: its own
  error naming the missing sink; no converter before it: a warning; a
  broker's settings without method=mqtt: a hint in the error; one file
  for two publishers, in a process or two: the second's error;
- every document written validates against the schema.
Exit 77 without PyGObject or the test images (unless
WALDBOOST_REQUIRE_TEST_DATA=1)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check  # noqa: E402

VALIDATOR = validate_documents.validator()


STATS_KEYS = ("documents", "published", "dropped", "queued")


def run(description, probe=None, count=False, at_eos=None, stats_seen=None):
    """Runs a pipeline to EOS; returns its element messages and warnings
    (and with `probe`, a function of the buffer number called on each
    buffer that reaches the element named sink, the publisher's stats).
    `at_eos` is called when the EOS message comes, before the stop.
    `stats_seen`, a list, gets the publisher's stats as each buffer
    reaches the element named sink."""
    pipeline = Gst.parse_launch(description)
    counted = [0]
    if probe or stats_seen is not None:
        publisher = pipeline.get_by_name("publish")

        def on_buffer(pad, info):
            if probe:
                probe(counted[0])
            if stats_seen is not None:
                seen = publisher.get_property("stats")
                stats_seen.append({k: seen.get_value(k) for k in STATS_KEYS})
            counted[0] += 1
            return Gst.PadProbeReturn.OK
        pipeline.get_by_name("sink").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    messages, warnings = [], []
    while True:
        m = bus.timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.ANY)
        if m is None:
            raise SystemExit(f"timeout: {description}")
        if m.type == Gst.MessageType.ERROR:
            raise SystemExit(f"error: {m.parse_error()} in {description}")
        if m.type == Gst.MessageType.WARNING:
            warnings.append(m.parse_warning()[0].message)
        if m.type == Gst.MessageType.ELEMENT:
            s = m.get_structure()
            if s.get_name() == "waldboostdetect":
                messages.append({"timestamp": s.get_value("timestamp"), "detections": detections_of(s)})
        if m.type == Gst.MessageType.EOS:
            break
    if at_eos:
        at_eos()
    publish = pipeline.get_by_name("publish")
    stats = publish.get_property("stats") if publish else None
    stats = {k: stats.get_value(k) for k in STATS_KEYS} if stats else None
    pipeline.set_state(Gst.State.NULL)
    if count:
        return messages, warnings, stats, counted[0]
    if probe or stats_seen is not None:
        return messages, warnings, stats
    return messages, warnings


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line]
    validate_documents.validate_lines(VALIDATOR, lines, path)
    return [json.loads(line) for line in lines]


def detections_of(structure):
    """The detections of a waldboostdetect message: (x, y, w, h, label, id,
    confidence), read while the list that holds them is alive."""
    ok, values = structure.get_list("detections")
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        for i in range(values.n_values if ok else 0):
            d = values.get_nth(i)
            out.append((d.get_value("x"), d.get_value("y"), d.get_value("width"), d.get_value("height"),
                        d.get_value("label"), d.get_value("id"), round(d.get_value("confidence"), 9)))
    return out


def test_detector_metas(folder):
    image = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
    if not os.path.exists(image):
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            check(False, f"missing test data {image}")
            return
        print(f"SKIP part: missing test data {image}")
        return
    out = os.path.join(folder, "astronaut.jsonl")
    messages, _ = run(f"filesrc location={image} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 "
                      "! imagefreeze num-buffers=4 ! waldboostdetect tracking=true confirm-hits=1 "
                      "! waldboostmetaconvert source-id=astronaut "
                      f"! waldboostmetapublish file-path={out} ! fakesink")
    frames = messages
    docs = read_lines(out)
    frame_docs = [d for d in docs if d["type"] == "frame"]
    check(len(frame_docs) == 4 and len(frames) == 4, f"4 frames, got {len(frame_docs)} documents")
    for doc, message in zip(frame_docs, frames):
        expected = message["detections"]
        got = [(o["x"], o["y"], o["w"], o["h"], o["detection"]["label"], o["id"],
                round(o["detection"]["confidence"], 9)) for o in doc["objects"]]
        check(expected and got == expected, f"frame {doc['frame']}: {got} != message {expected}")
        check(doc["source"] == "astronaut" and doc["pts"] == message["timestamp"],
              f"frame {doc['frame']}: source and pts")
    events = [(d["frame"], d["event"]["kind"], d["event"]["id"]) for d in docs if d["type"] == "event"]
    ids = sorted(o["id"] for o in frame_docs[0]["objects"]) if frame_docs else []
    check(events == [(0, "appeared", i) for i in ids] + [(3, "left", i) for i in ids],
          f"events {events} for tracks {ids}")
    # In order: the frame's document, then its events.
    order = [(d["frame"], d["type"] == "event") for d in docs]
    check(order == sorted(order), f"documents out of order: {order}")


def test_rotation_by_size(folder):
    pattern = os.path.join(folder, "side-%02d.jsonl")
    run("videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert source-id=s "
        f"! waldboostmetapublish file-path={pattern} max-file-size=1000 ! fakesink")
    files = sorted(f for f in os.listdir(folder) if f.startswith("side-"))
    check(len(files) > 3, f"several files: {files}")
    frames = []
    for name in files:
        path = os.path.join(folder, name)
        check(os.path.getsize(path) <= 1000, f"{name}: {os.path.getsize(path)} bytes > max-file-size")
        frames += [d["frame"] for d in read_lines(path)]
    check(frames == list(range(30)), f"every frame once, in order: {frames}")


def counted_at_sink(pipeline):
    """[n]: n counts the buffers that reach the element named sink."""
    counted = [0]

    def on_buffer(pad, info):
        counted[0] += 1
        return Gst.PadProbeReturn.OK
    pipeline.get_by_name("sink").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, on_buffer)
    return counted


def recorded_frames(path):
    """How many frames a recorded segment holds (decoded)."""
    pipeline = Gst.parse_launch(f"filesrc location={path} ! matroskademux ! fakesink name=sink")
    frames = counted_at_sink(pipeline)
    pipeline.set_state(Gst.State.PLAYING)
    m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    check(m is not None and m.type == Gst.MessageType.EOS, f"{path} does not decode")
    return frames[0]


def test_rotation_with_splitmuxsink(folder):
    """Each sidecar holds the documents of its segment's frames, no more,
    no less, however far the detection and the recording are apart: the
    publisher before the encoder (its documents come before splitmuxsink
    opens their segment, which waits for a key-frame interval), and each
    branch of a tee 10 ms a frame behind the other (the frames of three
    segments in the slow branch's queue). The segments, decoded, say
    which frames each holds. Read when the EOS message comes, and again
    after the stop. The stats count every document as it passes the
    publisher, those waiting for their segment as queued, and no sidecar's
    switch."""
    frames = "videotestsrc num-buffers=95 ! video/x-raw,width=64,height=48,framerate=30/1"
    publish = "waldboostmetaconvert ! waldboostmetapublish name=publish splitmuxsink=rec"
    queue = "queue max-size-buffers=0 max-size-bytes=0 max-size-time=0"
    layouts = {
        "inline": f"{frames} ! {publish} ! jpegenc name=sink ! splitmuxsink name=rec",
        "recording behind": f"{frames} ! tee name=t t. ! {queue} ! identity sleep-time=10000 ! jpegenc "
                            f"! splitmuxsink name=rec t. ! {queue} ! {publish} ! fakesink name=sink",
        "detection behind": f"{frames} ! tee name=t t. ! {queue} ! jpegenc ! splitmuxsink name=rec "
                            f"t. ! {queue} ! identity sleep-time=10000 ! {publish} ! fakesink name=sink",
    }
    for layout, description in layouts.items():
        inner = os.path.join(folder, layout.replace(" ", "-"))
        os.mkdir(inner)
        location = os.path.join(inner, "segment%02d.mkv")
        description = description.replace("splitmuxsink name=rec", "splitmuxsink name=rec muxer-factory=matroskamux "
                                          f"location={location} max-size-time=1000000000")

        def sidecar_frames():
            names = sorted(f for f in os.listdir(inner) if f.endswith(".jsonl"))
            return names, [[d["frame"] for d in read_lines(os.path.join(inner, n))] for n in names]
        at_eos, seen = [], []
        _, _, stats = run(description, at_eos=lambda: at_eos.append(sidecar_frames()), stats_seen=seen)
        segments = sorted(f for f in os.listdir(inner) if f.endswith(".mkv"))
        names, after_stop = sidecar_frames()
        check(len(segments) == 4 and names == [s[:-4] + ".jsonl" for s in segments],
              f"{layout}: a sidecar per segment: {segments} {names}")
        expected, first = [], 0
        for segment in segments:
            count = recorded_frames(os.path.join(inner, segment))
            expected.append(list(range(first, first + count)))
            first += count
        check(first == 95, f"{layout}: {first} frames recorded of 95")
        check(after_stop == expected, f"{layout}: each sidecar holds its segment's frames: {after_stop}, "
                                      f"the segments {[(e[0], e[-1]) for e in expected if e]}")
        check(at_eos == [(names, expected)], f"{layout}: the sidecars are whole when the EOS message comes")
        check([s["documents"] for s in seen] == list(range(1, 96)),
              f"{layout}: frame n's document counted as it passes: {[s['documents'] for s in seen]}")
        check(all(s["published"] + s["dropped"] + s["queued"] <= s["documents"] for s in seen),
              f"{layout}: no more published, dropped and queued than taken: {seen}")
        if layout == "recording behind":
            check(max(s["queued"] for s in seen) >= 30,
                  f"{layout}: the documents waiting for their segment are queued: {[s['queued'] for s in seen]}")
        check(stats == {"documents": 95, "published": 95, "dropped": 0, "queued": 0},
              f"{layout}: the 95 documents published, no sidecar's switch counted: {stats}")


def stop_after(description, frames):
    """Plays `description` until `frames` buffers reached the element named
    sink, then stops it without an end of stream; how many had."""
    pipeline = Gst.parse_launch(description)
    passed = counted_at_sink(pipeline)
    pipeline.set_state(Gst.State.PLAYING)
    bus = pipeline.get_bus()
    while passed[0] < frames:
        m = bus.timed_pop_filtered(10 * Gst.MSECOND, Gst.MessageType.ERROR)
        if m:
            raise SystemExit(f"error: {m.parse_error()} in {description}")
    pipeline.set_state(Gst.State.NULL)
    return passed[0]


def test_stop_without_eos(folder):
    """A stop without an end of stream, as an error makes it (gst-launch-1.0
    stops on one without an EOS): every document that passed the publisher is
    written, as filesink keeps what it was given; with splitmuxsink, whose
    segments keep what was written, those still waiting for their segment
    too, every sidecar beside its segment. Frames 0, 1, 2 ... once each."""
    live = "videotestsrc is-live=true ! video/x-raw,width=64,height=48,framerate=50/1 ! waldboostmetaconvert"
    path = os.path.join(folder, "one.jsonl")
    passed = stop_after(f"{live} ! waldboostmetapublish file-path={path} ! fakesink name=sink", 60)
    frames = [d["frame"] for d in read_lines(path)]
    check(frames == list(range(len(frames))) and len(frames) >= passed,
          f"one file: the documents of the {passed} frames that passed, once each and in order: {frames}")

    inner = os.path.join(folder, "stopped")
    os.mkdir(inner)
    passed = stop_after(f"{live} ! waldboostmetapublish splitmuxsink=rec ! jpegenc name=sink ! splitmuxsink name=rec "
                        f"muxer-factory=matroskamux location={inner}/seg%02d.mkv max-size-time=500000000", 60)
    names = sorted(os.listdir(inner))
    segments = [n for n in names if n.endswith(".mkv")]
    sidecars = [n for n in names if n.endswith(".jsonl")]
    check(len(segments) >= 2 and sidecars == [s[:-4] + ".jsonl" for s in segments],
          f"splitmuxsink: a sidecar beside each segment: {names}")
    frames = [d["frame"] for n in sidecars for d in read_lines(os.path.join(inner, n))]
    check(frames == list(range(len(frames))) and len(frames) >= passed,
          f"splitmuxsink: the documents of the {passed} frames that passed, once each and in order: {frames}")


def test_folder_disappears(folder):
    inner = os.path.join(folder, "gone")
    os.mkdir(inner)
    pattern = os.path.join(inner, "side-%02d.jsonl")

    def remove_at(frame):
        if frame == 10:
            shutil.rmtree(inner)
    _, warnings, stats = run("videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48 "
                             "! waldboostmetaconvert source-id=s ! waldboostmetapublish name=publish "
                             f"file-path={pattern} max-file-size=1000 ! fakesink name=sink", probe=remove_at)
    check(any("Could not open" in w and "side-" in w for w in warnings), f"a warning names the file: {warnings}")
    check(stats["documents"] == 40 and stats["dropped"] > 0 and stats["published"] + stats["dropped"] == 40,
          f"every document written or counted as dropped: {stats}")


def test_folder_removed_while_writing(folder):
    """One file (no rotation), its folder removed under a live stream: the
    writes would go to a deleted file without an error. A warning says so,
    the documents from then on are counted as dropped, the video goes on."""
    inner = os.path.join(folder, "gone")
    os.mkdir(inner)
    path = os.path.join(inner, "side.jsonl")
    frames = 100

    def remove_at(frame):
        if frame == 10:
            shutil.rmtree(inner)
    _, warnings, stats, count = run(f"videotestsrc is-live=true num-buffers={frames} "
                                    "! video/x-raw,width=64,height=48,framerate=50/1 "
                                    "! waldboostmetaconvert source-id=s ! waldboostmetapublish name=publish "
                                    f"file-path={path} ! fakesink name=sink sync=true", probe=remove_at, count=True)
    check(count == frames, f"removed folder: {count} of {frames} frames reached the sink")
    check(any("was removed" in w and path in w for w in warnings), f"a warning says the file was removed: {warnings}")
    check(any("Could not open" in w and path in w for w in warnings),
          f"a warning says it cannot be opened again: {warnings}")
    check(stats["documents"] == frames and stats["dropped"] > 0 and stats["published"] + stats["dropped"] == frames,
          f"every document written or counted as dropped: {stats}")


def full_disk_run(path, frames):
    """The publisher writing to `path` on a full disk: its warnings and
    stats, and the documents in the file (all whole lines)."""
    _, warnings, stats, count = run(f"videotestsrc num-buffers={frames} ! video/x-raw,width=64,height=48 "
                                    "! waldboostmetaconvert source-id=s ! waldboostmetapublish name=publish "
                                    f"file-path={path} ! fakesink name=sink", probe=lambda frame: None, count=True)
    return warnings, stats, count


def check_full_disk(what, path, frames, warnings, stats, count, written):
    check(count == frames, f"{what}: {count} of {frames} frames reached the sink")
    check(any("No space left on device" in w and path in w for w in warnings),
          f"{what}: a warning names the file and the full disk: {warnings}")
    check(stats["documents"] == frames and stats["published"] == written
          and stats["published"] + stats["dropped"] == frames,
          f"{what}: {written} written, every other one counted as dropped: {stats}")


def full_disk_child(folder):
    """In a mount namespace of its own, on a 16 KiB tmpfs at `folder`."""
    path = os.path.join(folder, "side.jsonl")
    frames = 200
    warnings, stats, count = full_disk_run(path, frames)
    docs = read_lines(path)  # every line whole JSON, or SystemExit
    check(0 < len(docs) < frames and [d["frame"] for d in docs] == list(range(len(docs))),
          f"tmpfs: the first documents, whole, until the disk was full: {len(docs)}")
    check_full_disk("tmpfs", path, frames, warnings, stats, count, len(docs))
    sys.exit(1 if FAILURES else 0)


def test_full_disk(folder):
    """/dev/full (every write fails with ENOSPC), and where a mount
    namespace can be made (root, or unprivileged user namespaces) a small
    tmpfs that fills up: a warning, the documents that could not be written
    counted as dropped, no half line, the video goes on."""
    frames = 30
    warnings, stats, count = full_disk_run("/dev/full", frames)
    check_full_disk("/dev/full", "/dev/full", frames, warnings, stats, count, 0)

    unshare = shutil.which("unshare")
    namespace = [unshare, "-m"] if os.geteuid() == 0 else [unshare, "-r", "-m"]
    mount = "mount -t tmpfs -o size=16k waldboost-full \"$1\""
    if not unshare or subprocess.run(namespace + ["sh", "-c", mount, "sh", folder], capture_output=True).returncode:
        print("SKIP part: no mount namespace for a small tmpfs here; /dev/full only")
        return
    child = subprocess.run(namespace + ["sh", "-c", mount + " && exec \"$2\" \"$3\" --full-disk-child \"$1\"",
                                        "sh", folder, sys.executable, os.path.abspath(__file__)],
                           capture_output=True, text=True, timeout=120)
    print(child.stdout, child.stderr, end="")
    check(child.returncode == 0, f"tmpfs: the child failed or crashed (exit status {child.returncode})")


def test_json_caps(folder):
    """application/x-json from elsewhere (no meta): each buffer is one
    document."""
    source = os.path.join(folder, "in.json")
    doc = {"schema": "waldboost-metadata/1", "type": "frame", "source": "elsewhere", "frame": 7, "objects": []}
    with open(source, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc))
    out = os.path.join(folder, "out.jsonl")
    run(f"filesrc location={source} ! application/x-json ! waldboostmetapublish file-path={out} ! fakesink")
    check(read_lines(out) == [doc], "an application/x-json buffer is written as it is")


def test_pretty_documents_stay_lines(folder):
    """format=pretty (or any JSON with line breaks) into a file: each
    document is still one line, the same document as compact's (the file
    was broken into 14 lines a document)."""
    files = {}
    for form in ("pretty", "compact"):
        files[form] = os.path.join(folder, form + ".jsonl")
        run("videotestsrc num-buffers=4 ! video/x-raw,width=64,height=48 "
            f"! waldboostmetaconvert format={form} source-id=\"a\nb\" "
            f"! waldboostmetapublish file-path={files[form]} ! fakesink")
    pretty, compact = read_lines(files["pretty"]), read_lines(files["compact"])
    drop = lambda docs: [{k: v for k, v in d.items() if k != "system_timestamp"} for d in docs]  # noqa: E731
    check(len(pretty) == 4 and drop(pretty) == drop(compact),
          f"pretty documents, one per line as compact's: {len(pretty)} lines")
    check(pretty[0]["source"] == "a\nb", f"a line break inside a string kept: {pretty[0]['source']!r}")


def test_bad_patterns(folder):
    """A file-path that is no pattern for numbered files is an error at the
    start that says what it may hold, and makes no file: another
    conversion, two of them, a lone %, and a width past 20 (%999999999d
    once made a name of a gigabyte and %2147483647d aborted the process).
    %% is a % sign, and %020d still numbers the files."""
    for bad in ("x%s.jsonl", "x%05d%05d.jsonl", "x%.jsonl", "x%999999999d.jsonl", "x%2147483647d.jsonl",
                "x%021d.jsonl"):
        path = os.path.join(folder, bad)
        pipeline = Gst.parse_launch("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                                    f"! waldboostmetaconvert ! waldboostmetapublish file-path=\"{path}\" "
                                    "max-file-size=1000 ! fakesink")
        pipeline.set_state(Gst.State.PLAYING)
        m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        pipeline.set_state(Gst.State.NULL)
        error = m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else None
        check(error and "may hold one integer conversion" in error and "at most 20 wide" in error,
              f"file-path={bad}: an error that says what it may hold, not {error}")
        check(os.listdir(folder) == [], f"file-path={bad}: no file made: {os.listdir(folder)}")
    for good, made in (("x%%.jsonl", "x%.jsonl"), ("x%020d.jsonl", "x" + "0" * 20 + ".jsonl")):
        run("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert "
            f"! waldboostmetapublish file-path=\"{os.path.join(folder, good)}\" ! fakesink")
        check(os.path.exists(os.path.join(folder, made)) and
              len(read_lines(os.path.join(folder, made))) == 5, f"file-path={good}: {os.listdir(folder)}")


def test_nothing_after_the_publisher(folder):
    """The publisher is a filter, as DL Streamer's gvametapublish: nothing
    linked after it stopped its branch at the first document, with
    GStreamer's bare not-linked from the source, or behind a tee (the other
    branch going on) with no error at all and one document in the file. Its
    own error now names it and the missing sink, in both; with fakesink
    after it every frame is published."""
    path = os.path.join(folder, "docs.jsonl")
    for description in ("videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert "
                        f"! waldboostmetapublish name=publish file-path={path}",
                        "videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert "
                        "! tee name=t t. ! queue ! fakesink t. ! queue "
                        f"! waldboostmetapublish name=publish file-path={path}"):
        pipeline = Gst.parse_launch(description)
        pipeline.set_state(Gst.State.PLAYING)
        m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        pipeline.set_state(Gst.State.NULL)
        error = m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else None
        source = m.src.get_name() if m else None
        check(source == "publish" and error and "nothing linked after it" in error and
              "publish ! fakesink" in error,
              f"{description}: the publisher's error naming the missing sink, not {source}: {error}")
    messages, _ = run("videotestsrc num-buffers=40 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert "
                      f"! tee name=t t. ! queue ! fakesink t. ! queue ! waldboostmetapublish file-path={path} "
                      "! fakesink")
    check(len(read_lines(path)) == 40, "with fakesink after it, every frame's document is written")


def test_no_converter_before_the_publisher(folder):
    """Without waldboostmetaconvert before it the publisher has nothing to
    publish: the file stayed empty without a word. One warning says so now.
    Frames without documents behind a converter (skip-empty-frames on
    frames without objects), through a tee and queues, or with the
    converter inside a bin, give none."""
    path = os.path.join(folder, "docs.jsonl")
    source = "videotestsrc num-buffers=20 ! video/x-raw,width=64,height=48"
    _, warnings = run(f"{source} ! waldboostmetapublish name=publish file-path={path} ! fakesink")
    said = [w for w in warnings if "no waldboostmetaconvert before it" in w]
    check(len(said) == 1 and "waldboostmetaconvert ! publish ! fakesink" in said[0],
          f"one warning that names the converter, not {warnings}")
    check(os.path.getsize(path) == 0, "no document without a converter")
    for description in (f"{source} ! waldboostmetaconvert skip-empty-frames=true ! tee name=t t. ! queue ! fakesink "
                        f"t. ! queue ! waldboostmetapublish file-path={path} ! fakesink",
                        f"{source} ! ( queue ! waldboostmetaconvert skip-empty-frames=true ) "
                        f"! waldboostmetapublish file-path={path} ! fakesink",
                        f"{source} ! waldboostmetaconvert skip-empty-frames=true "
                        f"! ( queue ! waldboostmetapublish file-path={path} ! fakesink )"):
        _, warnings = run(description)
        check(not any("waldboostmetaconvert" in w for w in warnings), f"{description}: no warning, not {warnings}")


def test_converter_before_the_detector(folder):
    """waldboostmetaconvert before waldboostdetect: every document had no
    objects, and nothing said why (the publisher has its converter). One
    warning names the detector now, also through a tee and into a bin.
    After the detector, or between two chained detectors, none; and the
    documents after the detector hold its faces, where those before it
    hold none."""
    image = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
    if not os.path.exists(image):
        check(os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") != "1", f"missing test data {image}")
        return
    path = os.path.join(folder, "docs.jsonl")
    source = (f"filesrc location={image} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 "
              "! imagefreeze num-buffers=3")
    publish = f"waldboostmetapublish file-path={path} ! fakesink"
    for description, warned, faces in (
            (f"{source} ! waldboostmetaconvert ! waldboostdetect name=faces ! {publish}", True, False),
            (f"{source} ! waldboostmetaconvert ! tee name=t t. ! queue ! {publish} "
             "t. ! queue ! ( waldboostdetect name=faces ) ! fakesink", True, False),
            (f"{source} ! waldboostdetect name=faces ! waldboostmetaconvert ! {publish}", False, True),
            (f"{source} ! waldboostdetect name=faces ! waldboostmetaconvert ! waldboostdetect name=second "
             f"! {publish}", False, True)):
        _, warnings = run(description)
        said = [w for w in warnings if "is before" in w]
        check(len(said) == (1 if warned else 0) and (not warned or "none of faces's detections" in said[0]),
              f"{description}: {'one warning naming faces' if warned else 'no warning'}, not {warnings}")
        docs = read_lines(path)
        found = [len(d["objects"]) for d in docs if d["type"] == "frame"]
        check(len(found) == 3 and (all(found) if faces else not any(found)), f"{description}: objects per frame {found}")


def test_broker_settings_without_mqtt(folder):
    """method=file is the default: a broker's host or topic set without
    method=mqtt gets the error for the missing file-path with a hint to set
    method=mqtt; without them, the error alone."""
    for settings, hint in (("host=broker.lan", True), ("topic=cameras/lobby", True), ("", False)):
        pipeline = Gst.parse_launch("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                                    f"! waldboostmetaconvert ! waldboostmetapublish {settings} ! fakesink")
        pipeline.set_state(Gst.State.PLAYING)
        m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        pipeline.set_state(Gst.State.NULL)
        error = m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else ""
        check("needs file-path" in error and ("set method=mqtt" in error) == hint,
              f"'{settings}': the missing file-path{' with the hint' if hint else ''}, not {error!r}")
    check(os.listdir(folder) == [], f"no file made: {os.listdir(folder)}")


def test_one_file_two_publishers(folder):
    """Two publishers given one file-path (a camera's configuration copied
    for the next): the second truncated the file and both wrote at their
    own offsets, so one camera's documents were lost without a word (50 of
    100 lines). The first now holds the file's lock and the second's start
    fails with an error that says so; in another process too, the first
    one's file left whole. Two publishers into /dev/null are fine."""
    path = os.path.join(folder, "shared.jsonl")
    branch = ("videotestsrc num-buffers=30 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert source-id={} "
              "! waldboostmetapublish name={} file-path={} ! fakesink")
    pipeline = Gst.parse_launch(branch.format("a", "first", path) + " " + branch.format("b", "second", path))
    pipeline.set_state(Gst.State.PLAYING)
    m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    pipeline.set_state(Gst.State.NULL)
    error = m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else None
    check(error and "is being written by another waldboostmetapublish" in error and path in error,
          f"one file, two publishers in a process: the error that says so, not {error}")
    # This process holds the file (a publisher opens it as it starts, and
    # keeps it while paused); another process is refused.
    holder = Gst.parse_launch(branch.format("a", "holder", path))
    holder.set_state(Gst.State.PAUSED)
    holder.get_state(10 * Gst.SECOND)
    child = subprocess.run([sys.executable, "-c", CHILD_PUBLISHER, path], capture_output=True, text=True,
                           timeout=60, env=os.environ)
    holder.set_state(Gst.State.PLAYING)
    check("is being written by another waldboostmetapublish" in child.stdout,
          f"another process: the error that says so, not {child.stdout!r} {child.stderr[-300:]!r}")
    m = holder.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
    holder.set_state(Gst.State.NULL)
    check(m and m.type == Gst.MessageType.EOS, "the holder's stream ended without an error")
    docs = read_lines(path)
    check(len(docs) == 30 and all(d["source"] == "a" for d in docs), f"the holder's 30 documents whole: {len(docs)}")
    _, warnings = run(branch.format("a", "p1", "/dev/null") + " " + branch.format("b", "p2", "/dev/null"))
    check(not warnings, f"two publishers into /dev/null: no warning, not {warnings}")


# A second process that publishes into the file given as its argument and
# prints the error it gets, if any.
CHILD_PUBLISHER = """
import sys
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
p = Gst.parse_launch("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! waldboostmetaconvert "
                     f"! waldboostmetapublish file-path={sys.argv[1]} ! fakesink")
p.set_state(Gst.State.PLAYING)
m = p.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
print(m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else "no error")
p.set_state(Gst.State.NULL)
"""


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--full-disk-child":
        full_disk_child(sys.argv[2])
    for test in (test_detector_metas, test_rotation_by_size, test_rotation_with_splitmuxsink,
                 test_stop_without_eos,
                 test_folder_disappears, test_folder_removed_while_writing, test_full_disk, test_json_caps,
                 test_pretty_documents_stay_lines, test_bad_patterns, test_nothing_after_the_publisher,
                 test_no_converter_before_the_publisher, test_converter_before_the_detector,
                 test_broker_settings_without_mqtt,
                 test_one_file_two_publishers):
        with tempfile.TemporaryDirectory() as folder:
            test(folder)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
