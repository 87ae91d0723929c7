#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""teach.py gives a video's lines that have a timestamp and no frame
number (DL Streamer's gvametaconvert writes them so) to the right frames.

1. Synthetic frames at 10 fps in an AVI, with gvametaconvert's documents
   and no line for three frames (it leaves out frames without objects by
   default): every other frame gets its own boxes, those three are not
   used. Refused, each with the file and line and no set left: the same
   lines without timestamps (their order cannot say which frame each
   is), a timestamp past the last frame, lines out of order, two lines
   in one frame's time span, and lines with a frame number and a
   timestamp (as waldboostmetaconvert writes them) from a converter that
   two frames never reached (its frame numbers then name later frames).
   The same lines with every frame and their times 3 s later (a camera
   recorded as the teacher saw it, the file's times from 0) are taken.
2. Megamind.avi, whose decoder gives 88 of its 270 frames the stream time
   of the frame before, or 1 ns more. A line for every frame, each with a
   box of its own: every frame gets its own box. Then no line for one
   frame of six such pairs, three with equal times and three 1 ns apart:
   no frame gets another's box, the other frame of a pair keeps its box
   where its timestamp is its own alone (1 ns apart), and the tool says
   how many lines it could not place (the three others).
   Skips (77) when Megamind.avi is missing, unless
   WALDBOOST_REQUIRE_TEST_DATA=1.

  test_teacher_timestamps.py TEACH
"""
import json
import os
import subprocess
import sys
import tempfile

import footage

FRAMES = 20
TENTH = 100000000  # ns: a frame at 10 fps


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def teach(script, video, jsonl, out):
    return subprocess.run([sys.executable, script, "--teacher-detections", jsonl, "--every", "1",
                           "--window", "24x24", "-o", out, video],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def gvametaconvert_line(timestamp, boxes, size):
    """A document as gvametaconvert writes it: no frame number, the stream
    time in ns, the boxes in pixels and normalised."""
    width, height = size
    objects = [{"x": x, "y": y, "w": w, "h": h, "region_id": k,
                "detection": {"label": "target", "label_id": 0, "confidence": 0.9,
                              "bounding_box": {"x_min": x / width, "y_min": y / height,
                                               "x_max": (x + w) / width, "y_max": (y + h) / height}}}
               for k, (x, y, w, h) in enumerate(boxes)]
    return json.dumps({"resolution": {"width": width, "height": height}, "timestamp": timestamp,
                       "objects": objects})


def numbered_line(frame, timestamp, boxes, size):
    """A document as waldboostmetaconvert writes it: gvametaconvert's with
    the frame number the converter counted."""
    document = json.loads(gvametaconvert_line(timestamp, boxes, size))
    document["frame"] = frame
    return json.dumps(document)


def write_lines(path, lines):
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def set_labels(out):
    """{frame index: sorted boxes} over the set's train, tune and held-out
    frames."""
    labelled = {}
    for name in ("train-frames.txt", "tune.txt", "heldout.txt"):
        for text in open(os.path.join(out, name)):
            fields = text.split()
            labelled[int(fields[0][-10:-4])] = sorted(tuple(int(v) for v in fields[2 + 4 * k:6 + 4 * k])
                                                      for k in range(int(fields[1])))
    return labelled


def synthetic_clip(script, work):
    clip = footage.frames(FRAMES)
    folder = os.path.join(work, "frames")
    footage.write_folder(folder, clip)
    video = os.path.join(work, "clip.avi")
    pattern = os.path.join(folder, "frame-%04d.png")
    encode = subprocess.run(["gst-launch-1.0", "-q", "multifilesrc", "location=" + pattern,
                             "stop-index=%d" % (FRAMES - 1), "caps=image/png,framerate=10/1", "!", "pngdec", "!",
                             "videoconvert", "!", "jpegenc", "quality=98", "!", "avimux", "!", "filesink",
                             "location=" + video], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if encode.returncode != 0:
        fail("could not make the test video: %s" % encode.stdout)
    size = (footage.WIDTH, footage.HEIGHT)
    silent = (3, 8, 15)  # frames the teacher wrote no line for
    # Frame 6's line 30 ms into its 100 ms span: a span, not an exact time, is matched.
    timestamps = {f: f * TENTH + (30000000 if f == 6 else 0) for f in range(FRAMES) if f not in silent}
    lines = [gvametaconvert_line(timestamps[f], clip[f][1], size) for f in sorted(timestamps)]
    jsonl = os.path.join(work, "gvametaconvert.jsonl")
    write_lines(jsonl, lines)
    out = os.path.join(work, "clip-set")
    run = teach(script, video, jsonl, out)
    if run.returncode != 0:
        fail("gvametaconvert's lines: exit %d: %s" % (run.returncode, run.stderr))
    labelled = set_labels(out)
    if sorted(labelled) != sorted(timestamps):
        fail("gvametaconvert's lines: frames %s in the set, wanted every frame but %s" % (sorted(labelled), silent))
    for f in labelled:
        if labelled[f] != sorted(clip[f][1]):
            fail("gvametaconvert's lines: frame %d has %s, its line %s" % (f, labelled[f], sorted(clip[f][1])))
    print("ok: gvametaconvert's lines on a video: %d frames, each with its own boxes; %s not used"
          % (len(labelled), list(silent)))

    shifted = [numbered_line(f, f * TENTH + 3 * 10 ** 9, clip[f][1], size) for f in range(FRAMES)]
    write_lines(jsonl, shifted)
    run = teach(script, video, jsonl, out + "-shifted")
    if run.returncode != 0:
        fail("numbered lines 3 s later than the video: exit %d: %s" % (run.returncode, run.stderr))
    labelled = set_labels(out + "-shifted")
    if sorted(labelled) != list(range(FRAMES)) or any(labelled[f] != sorted(clip[f][1]) for f in labelled):
        fail("numbered lines 3 s later than the video: frames %s, not each frame with its own boxes"
             % sorted(labelled))
    print("ok: numbered lines 3 s later than the video: each of its %d frames has its own boxes" % FRAMES)

    bad = {
        "no frame nor timestamp": ([json.dumps({"objects": json.loads(t)["objects"]}) for t in lines], None,
                                   "17 lines for the 20 frames"),
        "a timestamp past the end": (lines + [gvametaconvert_line(5 * 10 ** 9, [], size)], len(lines) + 1,
                                     "past the last of its 20 frames"),
        "out of order": (lines[1:2] + lines[:1] + lines[2:], 2, "in no frame's time span"),
        "two lines in one frame": (lines[:1] + [gvametaconvert_line(TENTH // 2, [], size)] + lines[1:], 1,
                                   "2 lines for frame 0"),
        # Frames 5 and 6 dropped before the converter, which numbers the
        # frames it sees: its frame 5 is the video's frame 7.
        "frames dropped before the converter": (
            [numbered_line(n, f * TENTH, clip[f][1], size) for n, f in enumerate(f for f in range(FRAMES)
                                                                                 if f not in (5, 6))],
            6, '"frame" 5 has "timestamp" 700000000 ns, 200000000 ns after frame 5 of'),
    }
    for name, (bad_lines, number, words) in bad.items():
        write_lines(jsonl, bad_lines)
        run = teach(script, video, jsonl, out + "-bad")
        where = "%s:%d" % (jsonl, number) if number else jsonl
        if run.returncode != 1 or where not in run.stderr or words not in run.stderr or "Traceback" in run.stderr:
            fail("%s: exit %d, wanted 1 and a message with %r and %r: %s"
                 % (name, run.returncode, where, words, run.stderr.strip()))
        if [n for n in os.listdir(work) if n.startswith("clip-set-bad")]:
            fail("%s: a failed run left its set" % name)
        print("ok: %s: %s" % (name, run.stderr.strip().splitlines()[-1]))


def stream_times(video):
    """Each decoded frame's stream time in ns, as a converter downstream of
    the decoder sees it."""
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
    Gst.init(None)
    pipeline = Gst.parse_launch("filesrc name=src ! decodebin ! appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", video)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    times = []
    while True:
        sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if sample is None:
            break
        times.append(sample.get_segment().to_stream_time(Gst.Format.TIME, sample.get_buffer().pts))
    pipeline.set_state(Gst.State.NULL)
    return times


def megamind(script, work):
    video = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "Megamind.avi")
    if not os.path.isfile(video):
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            fail("no %s (tests/fetch-test-data.sh)" % video)
        print("SKIP: no %s" % video)
        sys.exit(77)
    times = stream_times(video)
    frame = 1000000000 // 24  # about a frame at Megamind's 23.976 fps
    near = [f for f in range(1, len(times)) if abs(times[f] - times[f - 1]) < frame // 2]
    pairs = [(f - 1, f) for f in near if f - 1 not in near and f + 1 not in near]
    if len(times) != 270 or len([1 for a, b in pairs if times[a] == times[b]]) < 3 or \
            len([1 for a, b in pairs if times[a] != times[b]]) < 3:
        fail("Megamind.avi: %d frames, %d with the stream time of the one before: wanted 270, and pairs with equal "
             "stream times and 1 ns apart, three of each" % (len(times), len(near)))

    def box(f):  # a box of frame f's own
        return (10 + 2 * f, 100, 30, 30)
    jsonl = os.path.join(work, "megamind.jsonl")
    write_lines(jsonl, [gvametaconvert_line(times[f], [box(f)], (720, 528)) for f in range(len(times))])
    out = os.path.join(work, "megamind-set")
    run = teach(script, video, jsonl, out)
    if run.returncode != 0:
        fail("Megamind.avi, a line for every frame: exit %d: %s" % (run.returncode, run.stderr))
    labelled = set_labels(out)
    wrong = [f for f in labelled if labelled[f] != [box(f)]]
    if len(labelled) != len(times) or wrong:
        fail("Megamind.avi, a line for every frame: %d frames in the set, frames with another's box: %s"
             % (len(labelled), wrong[:10]))
    print("ok: Megamind.avi, a line for every frame: each of its %d frames has its own box, %d of them at the "
          "stream time of the one before" % (len(times), len(near)))

    # No line for one frame of six such pairs, three with equal stream times
    # and three 1 ns apart; the first frame of some, the second of others.
    equal = [(a, b) for a, b in pairs if times[a] == times[b]][:3]
    close = [(a, b) for a, b in pairs if times[a] != times[b]][:3]
    chosen = [(a, b) if k % 2 == 0 else (b, a) for k, (a, b) in enumerate(equal + close)]
    silent = {quiet for quiet, _ in chosen}
    partner = dict(chosen)
    write_lines(jsonl, [gvametaconvert_line(times[f], [box(f)], (720, 528)) for f in range(len(times))
                        if f not in silent])
    run = teach(script, video, jsonl, out + "-gaps")
    if run.returncode != 0:
        fail("Megamind.avi, six lines left out: exit %d: %s" % (run.returncode, run.stderr))
    labelled = set_labels(out + "-gaps")
    wrong = [f for f in labelled if labelled[f] != [box(f)]]
    # A partner keeps its box where its stream time is its own alone (1 ns
    # apart, not equal); otherwise which of the two its line is cannot be told.
    unplaced = sorted(partner[s] for s in silent if times[partner[s]] == times[s])
    missing = sorted(set(range(len(times))) - silent - set(labelled))
    if wrong or set(labelled) & silent or missing != unplaced:
        fail("Megamind.avi, six lines left out: frames with another's box %s, silent frames in the set %s, frames "
             "missing %s (wanted %s)" % (wrong, sorted(set(labelled) & silent), missing, unplaced))
    said = "%d teacher lines not used" % len(unplaced)
    if said not in run.stdout:
        fail("Megamind.avi, six lines left out: wanted %r in: %s" % (said, run.stdout))
    print("ok: Megamind.avi, six lines left out: no frame has another's box; %s" % said)


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        synthetic_clip(script, work)
        megamind(script, work)


if __name__ == "__main__":
    main()
