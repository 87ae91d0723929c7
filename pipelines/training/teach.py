#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Makes a training set for waldboost-train from your own footage and a
teacher: a slower detector whose boxes the student learns to give.

    teach.py (--teacher CLASSIFIER | --teacher-detections FILE.jsonl ...)
             [--window WxH] [--margin F] [--mask-margin F] [--every N]
             [--heldout-share F] [--label L] [--build DIR] -o OUT INPUT...

INPUT is a video file (anything uridecodebin plays) or a folder of images
(.png .jpg .jpeg .pgm .ppm .bmp .tif, taken in name order as the frames of
one recording).

The teacher:
  --teacher FILE          a classifier waldboostdetect loads (WaldBoost XML,
                          OpenCV LBP or Haar cascade). It is run on every
                          frame at the element (videos) or with
                          waldboost-detect (folders), with strict settings:
                          --teacher-min-neighbors (default 5; OpenCV's
                          default is 3) and --teacher-scale-factor (1.1).
                          Its detections are kept in OUT/teacher-K.jsonl.
  --teacher-detections F  one JSON lines file per INPUT, in their order: the
                          boxes of any detector, a DNN included. Each line
                          is one frame: an object with a list "objects"
                          (waldboostmetaconvert's documents, DL Streamer's
                          gvametaconvert) whose items have "x", "y", "w",
                          "h" and optionally "detection": {"label"}, or a
                          list "detections" whose items have "x", "y",
                          "width", "height" and "label" (waldboost-detect's
                          images). A line's "frame" (when there) is its
                          frame number from 0 (for a video, the lines that
                          also have a "timestamp", as waldboostmetaconvert
                          writes them, must keep their first one's distance
                          from their frames' stream times within half a
                          frame, so that frames dropped or repeated before
                          the teacher's converter stop the tool instead of
                          shifting boxes); else, for a video, its
                          "timestamp" (ns, the frame's stream time, as
                          gvametaconvert writes it) names the frame whose
                          time span holds it, the lines taken in the frames'
                          order (frames less than half a frame apart, as
                          some decoders stamp them, take their span's lines
                          in turn, or by exact time; a line whose frame
                          cannot be told is left out); else the line's place
                          among the frame lines is its number, and then
                          there must be a line for every frame. Lines of
                          "type" "event" are skipped. A frame with no line
                          is not used (a teacher may label every 5th frame,
                          or leave out frames without objects, as
                          gvametaconvert does without
                          add-empty-results=true), nor is a frame whose line
                          says "detection_skipped": true (the teacher
                          waldboostdetect's interval or QoS passed it); a
                          line with no box is a frame with no object. A bad
                          line stops the tool with its file and line, before
                          anything is written.

The box convention. A positive is the teacher's box made to the window's
shape (the shorter side grown about the centre) and then grown by
--margin of its size on every side (default 0: the student gives the
teacher's boxes, so that it replaces the teacher one for one; a teacher
with tight boxes, such as a DNN's, wants 0.1 to 0.2, as OpenCV's cascades
were trained). The held-out labels get the same convention, so the
agreement measured is like for like. Boxes smaller than the window (the
student cannot find them) and boxes that the convention pushes out of the
frame are not positives and not held-out labels; they are still masked.

The negatives are the training frames themselves with every teacher box,
grown by --mask-margin (default 0.25) on every side, filled with the
scene without the objects: the per-pixel median of that input's training
frames (a fixed camera's empty scene; for a moving camera a blur of it),
or the frame's mean grey when the input's frames differ in size. What the
teacher misses stays in them as a negative: a teacher that misses much
teaches the student to miss it too.

Hours of footage: choose --every so that the training frames stay within
what waldboost-train keeps in memory (--max-background-megapixels, 4,000
by default: about 2,000 frames of 1080p).

The split is by time, for each input: the last --heldout-share (default
0.3) of its frames are held out; the --tune-share (default 0.15) before
them are kept for tuning (choosing the student's final threshold: the
training frames themselves would flatter it); the rest train. Frames
that tune or are held out are neither positives nor negatives. Every
--every-th frame (default 2) is used (neighbours are nearly the same
picture).

OUT (written whole or not at all: into OUT.partial, renamed at the end):
  frames/K-NNNNNN.pgm     the frames used, grey
  masked/K-NNNNNN.pgm     the training frames with the teacher's boxes masked
  train.txt               training positives (waldboost-train -a; frames
                          with at least one positive)
  train-frames.txt        every training frame with its labels, none
                          included (waldboost-evaluate -a)
  tune.txt                every tuning frame with its labels
                          (waldboost-evaluate -a, to choose a final
                          threshold)
  train-backgrounds.txt   the masked frames (waldboost-train -n)
  heldout.txt             every held-out frame with its labels
                          (waldboost-evaluate -a)
  heldout-frames.txt      the held-out frames, one path per line
                          (waldboost-evaluate -b, for weak classifiers per
                          window on the footage)
  summary.json            the counts and settings

Needs Debian's python3-gi, gir1.2-gstreamer-1.0, gir1.2-gst-plugins-base-1.0,
python3-numpy and python3-pil, and a built tree (--build, default build).
Exit status: 0 done, 1 an input or teacher file could not be used, 2 a
usage error.
"""
import argparse
import bisect
import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import numpy as np

from set_images import gray, write_pgm

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
IMAGE_EXTENSIONS = (".png", ".jpg", ".jpeg", ".pgm", ".ppm", ".bmp", ".tif", ".tiff")
# A frame that a timed line may belong to, written before the lines are
# matched (TeacherLines.match_timed()).
TIMED = object()
# The boxes of a line whose detector passed its frame without detection
# ("detection_skipped": waldboostdetect's interval or QoS): the frame is
# not used, since what the line does not list is not known to be absent.
SKIPPED = object()
MEDIAN_FRAMES = 64  # the empty scene is the median of at most this many frames
# A box's numbers are pixels of a frame, whose sides GStreamer holds in an
# int: anything larger (or infinite, as JSON's 1e400 and Python's Infinity
# read) is no box.
COORDINATE_LIMIT = 2 ** 31


class Failure(Exception):
    """An input or teacher that cannot be used: exit status 1."""


def import_gstreamer():
    try:
        import gi

        gi.require_version("Gst", "1.0")
        gi.require_version("GstVideo", "1.0")
        from gi.repository import Gst, GstVideo
    except (ImportError, ValueError) as error:
        raise Failure("%s: install python3-gi, gir1.2-gstreamer-1.0 and gir1.2-gst-plugins-base-1.0, "
                      "and run this with Debian's /usr/bin/python3" % error)
    Gst.init(None)
    return Gst, GstVideo


# --- the teacher's JSON lines ------------------------------------------------------------------

def _number(value, what, where):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
        raise Failure("%s: %s is not a number" % (where, what))
    if not abs(value) < COORDINATE_LIMIT:
        raise Failure("%s: %s is %s for a pixel coordinate (below 2^31 either way)"
                      % (where, what, "infinite" if value in (float("inf"), float("-inf")) else "too large"))
    return value


def _box(item, keys, where):
    if not isinstance(item, dict):
        raise Failure("%s: a detection is not an object" % where)
    values = []
    for key in keys:
        if key not in item:
            raise Failure("%s: a detection has no \"%s\"" % (where, key))
        values.append(_number(item[key], '"%s"' % key, where))
    x, y, w, h = values
    if w <= 0 or h <= 0:
        raise Failure("%s: a detection's size is %gx%g" % (where, w, h))
    return (x, y, w, h)


def _label(item):
    detection = item.get("detection")
    if isinstance(detection, dict) and isinstance(detection.get("label"), str):
        return detection["label"]
    return item.get("label") if isinstance(item.get("label"), str) else None


class TeacherLines:
    """A teacher's boxes: `frames` {frame number: boxes} for the lines that
    have a "frame", or neither a frame nor a timestamp (their place among the
    lines, counted in `by_order`); `timed`, [(timestamp in ns, boxes,
    where)] in the file's order, for the lines of a video that have a
    "timestamp" and no frame (DL Streamer's gvametaconvert), matched to the
    frames once the video is decoded (match_timed()); `stamped`, [(frame,
    timestamp, where)] for a video's lines that have both (our own
    converter's), checked against the video (check_stamped())."""

    def __init__(self, path):
        self.path = path
        self.frames = {}
        self.by_order = 0
        self.timed = []
        self.stamped = []
        self.lines = 0
        self._sorted_times = None

    def may_have(self, time):
        """Whether a timed line lies near this frame's time span (`time`: its
        stream time and duration): such a frame is kept until the lines are
        matched."""
        if not self.timed or time[0] is None:
            return False
        if self._sorted_times is None:
            self._sorted_times = sorted(t for t, _, _ in self.timed)
        first = bisect.bisect_left(self._sorted_times, time[0] - time[1])
        return first < len(self._sorted_times) and self._sorted_times[first] < time[0] + 2 * time[1]

    def match_timed(self, times, source):
        """({frame index: boxes}, ambiguous lines) for the timed lines and
        the video's frames (`times`, as video_frames() gives them). The lines
        are taken in the frames' order: a line belongs to the frame whose
        time span (its stream time, for its duration) holds its timestamp.
        Frames whose stream times are less than half a frame apart (some
        AVI files give a frame its predecessor's, or 1 ns more) cannot be
        told apart by their spans: they take the lines of their spans in
        turn when there is one for each; with fewer, a line goes to the
        frame whose stream time is exactly its timestamp where only one is,
        and is otherwise not used. Failure for a line that no frame's span
        holds in its turn, and for more lines than frames in a span."""
        matched, ambiguous, next_line, index = {}, 0, 0, 0
        while index < len(times):
            start, duration = times[index]
            run = index + 1  # the frames whose stream times are this one's, or nearly
            while run < len(times) and times[run][0] is not None and start is not None and \
                    abs(times[run][0] - start) < duration / 2:
                run += 1
            if start is not None:
                end = max(times[k][0] + times[k][1] for k in range(index, run))
                lines = []
                while next_line < len(self.timed) and self.timed[next_line][0] < end:
                    if self.timed[next_line][0] < start:
                        self._refuse(next_line, source, "frame %d starts at %d ns" % (index, start))
                    lines.append(self.timed[next_line])
                    next_line += 1
                if len(lines) > run - index:
                    raise Failure("%s: %d lines for %s of %s (from %d ns, for %d ns)"
                                  % (" and ".join(where for _, _, where in lines), len(lines),
                                     "frame %d" % index if run == index + 1 else
                                     "the %d frames %d-%d" % (run - index, index, run - 1),
                                     source, start, end - start))
                if len(lines) == run - index:
                    matched.update((index + k, boxes) for k, (_, boxes, _) in enumerate(lines))
                else:
                    for timestamp, boxes, _ in lines:
                        exact = [k for k in range(index, run) if times[k][0] == timestamp]
                        if len(exact) == 1 and exact[0] not in matched:
                            matched[exact[0]] = boxes
                        else:
                            ambiguous += 1
            index = run
        if next_line < len(self.timed):
            self._refuse(next_line, source, "past the last of its %d frames" % len(times))
        return matched, ambiguous

    def check_stamped(self, times, source):
        """Failure for the first line whose "frame" and "timestamp" do not
        keep the distance the first such line has between its timestamp and
        its frame's stream time, give or take half a frame. A converter
        counts the frames it sees, so a frame dropped or repeated upstream
        of it (videorate, a leaky queue) moves every later line's number
        and not its time. A constant distance is the teacher's clock, not
        a lost frame (a camera's stream recorded as the teacher saw it,
        with the file's times from 0)."""
        reference = None
        for frame, timestamp, where in self.stamped:
            if frame >= len(times) or times[frame][0] is None:
                continue
            start, duration = times[frame]
            if reference is None:
                reference = (timestamp - start, where)
            elif abs(timestamp - start - reference[0]) > duration / 2:
                raise Failure("%s: \"frame\" %d has \"timestamp\" %d ns, %d ns after frame %d of %s (at %d ns), "
                              "where %s's is %d ns after its frame: the teacher did not see the video's frames one "
                              "for one (frames dropped or repeated before its converter, or another video). Leave "
                              "out the lines' \"frame\" (jq -c 'del(.frame)') to place them by their timestamps"
                              % (where, frame, timestamp, timestamp - start, frame, source, start, reference[1],
                                 reference[0]))

    def _refuse(self, line, source, context):
        timestamp, _, where = self.timed[line]
        raise Failure("%s: timestamp %d ns is in no frame's time span of %s in its turn (%s); the lines must "
                      "come in the frames' order" % (where, timestamp, source, context))


def read_teacher_lines(path, label=None, timed=False):
    """The TeacherLines of a JSON lines file (`timed`: a video's, whose
    lines may give their frame by its timestamp); Failure naming the file
    and line on the first line that cannot be read."""
    teacher = TeacherLines(path)
    try:
        handle = open(path, encoding="utf-8")
    except OSError as error:
        raise Failure("cannot read the teacher's detections %s: %s" % (path, error.strerror))
    with handle:
        try:
            lines = list(enumerate(handle, 1))
        except UnicodeDecodeError:
            raise Failure("%s: not UTF-8 text" % path)
    for number, line in lines:
        where = "%s:%d" % (path, number)
        if not line.strip():
            continue
        if not teacher.lines and line.lstrip().startswith("["):
            raise Failure("%s: a JSON array, not JSON lines (one document a line; DL Streamer writes them with "
                          "gvametapublish file-format=json-lines)" % where)
        try:
            document = json.loads(line)
        except ValueError as error:
            raise Failure("%s: not JSON: %s" % (where, error))
        except RecursionError:
            raise Failure("%s: not JSON this reader takes: nested too deeply" % where)
        if not isinstance(document, dict):
            raise Failure("%s: a line must be a JSON object" % where)
        if document.get("type") == "event":
            continue
        if "objects" in document:
            items, keys = document["objects"], ("x", "y", "w", "h")
        elif "detections" in document:
            items, keys = document["detections"], ("x", "y", "width", "height")
        else:
            raise Failure("%s: no \"objects\" or \"detections\" list" % where)
        if not isinstance(items, list):
            raise Failure("%s: \"objects\" or \"detections\" is not a list" % where)
        boxes = [_box(item, keys, where) for item in items if label is None or _label(item) == label]
        if document.get("detection_skipped") is True:
            boxes = SKIPPED
        order = teacher.lines
        teacher.lines += 1
        timestamp = None
        if timed and "timestamp" in document:
            timestamp = document["timestamp"]
            if isinstance(timestamp, bool) or not isinstance(timestamp, int) or timestamp < 0:
                raise Failure("%s: \"timestamp\" is not a time in nanoseconds" % where)
        if "frame" not in document and timestamp is not None:
            teacher.timed.append((timestamp, boxes, where))
            continue
        frame = document.get("frame", order)
        if isinstance(frame, bool) or not isinstance(frame, int) or frame < 0:
            raise Failure("%s: \"frame\" is not a frame number" % where)
        if "frame" in document and timestamp is not None:
            teacher.stamped.append((frame, timestamp, where))
        if frame in teacher.frames:
            raise Failure("%s: frame %d again" % (where, frame))
        if "frame" not in document:
            teacher.by_order += 1
        teacher.frames[frame] = boxes
    if not teacher.lines:
        raise Failure("%s: no frame in it" % path)
    return teacher


def check_frame_numbers(teacher, source, count):
    """Failure where the lines' frame numbers cannot be this input's: past
    its end, or numbered by their order while there are fewer or more lines
    than frames (a teacher that writes no line for frames without objects,
    as DL Streamer's gvametaconvert does by default, would have every later
    box on the wrong frame)."""
    if teacher.frames and max(teacher.frames) >= count:
        raise Failure("%s: frame %d is past the end of %s, which has %d frames"
                      % (teacher.path, max(teacher.frames), source, count))
    if teacher.by_order and teacher.lines != count:
        raise Failure("%s: %d lines have neither a \"frame\" nor a \"timestamp\", so their order numbers the "
                      "frames, but there are %d lines for the %d frames of %s: give each line its \"frame\" (from "
                      "0) or, for a video, its \"timestamp\" (ns), or a line for every frame (DL Streamer: "
                      "gvametaconvert add-empty-results=true)"
                      % (teacher.path, teacher.by_order, teacher.lines, count, source))


# --- footage -----------------------------------------------------------------------------------

def folder_images(folder):
    names = sorted(n for n in os.listdir(folder) if n.lower().endswith(IMAGE_EXTENSIONS))
    if not names:
        raise Failure("the folder %s holds no image file" % folder)
    return [os.path.join(folder, n) for n in names]


def folder_frame(path):
    """An image of a folder as grey pixels; Failure naming it when it is no
    image that PIL reads (a broken or truncated file among the frames)."""
    try:
        return np.asarray(gray(path))
    except (OSError, ValueError) as error:  # PIL's UnidentifiedImageError is an OSError
        raise Failure("%s: not an image teach.py can read: %s" % (path, error))


def video_frames(path, every, total, times=None):
    """Yields (index, grey array) for every `every`-th frame, decoded with
    uridecodebin (so every format GStreamer plays is footage), and sets
    total[0] to the number of frames in the video. `times`, a list, gets
    each frame's (stream time, duration) in ns before it is yielded (the
    stream time None where the frame has no timestamp); the duration is
    the buffer's, else the frame rate's, else 1 ms."""
    Gst, GstVideo = import_gstreamer()
    pipeline = Gst.parse_launch("uridecodebin name=d ! videoconvert ! video/x-raw,format=GRAY8 "
                                "! appsink name=sink sync=false max-buffers=8")
    pipeline.get_by_name("d").set_property("uri", Gst.filename_to_uri(os.path.abspath(path)))
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    try:
        index = 0
        while True:
            sample = sink.emit("try-pull-sample", 60 * Gst.SECOND)
            if sample is None:
                message = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
                if message:
                    raise Failure("%s: %s" % (path, message.parse_error()[0].message))
                if not sink.get_property("eos"):
                    raise Failure("%s: no frame came for 60 s" % path)
                break
            if times is not None:
                times.append(frame_time(Gst, sample))
            if index % every == 0:
                info = GstVideo.VideoInfo.new_from_caps(sample.get_caps())
                buffer = sample.get_buffer()
                ok, mapped = buffer.map(Gst.MapFlags.READ)
                if not ok:
                    raise Failure("%s: frame %d cannot be read" % (path, index))
                try:
                    rows = np.frombuffer(mapped.data, np.uint8, info.stride[0] * info.height)
                    pixels = rows.reshape(info.height, info.stride[0])[:, :info.width].copy()
                finally:
                    buffer.unmap(mapped)
                yield index, pixels
            index += 1
    finally:
        pipeline.set_state(Gst.State.NULL)
    total[0] = index


def frame_time(Gst, sample):
    """(stream time, duration) of a sample's frame in ns, as a converter such
    as DL Streamer's gvametaconvert stamps it (the segment's stream time of
    the PTS)."""
    buffer = sample.get_buffer()
    start = None
    if buffer.pts != Gst.CLOCK_TIME_NONE:
        start = sample.get_segment().to_stream_time(Gst.Format.TIME, buffer.pts)
        if start == Gst.CLOCK_TIME_NONE:
            start = None
    duration = buffer.duration
    if duration == Gst.CLOCK_TIME_NONE or duration == 0:
        structure = sample.get_caps().get_structure(0)
        ok, num, den = structure.get_fraction("framerate")
        duration = Gst.util_uint64_scale(Gst.SECOND, den, num) if ok and num > 0 else Gst.MSECOND
    return start, duration


# --- running the teacher -----------------------------------------------------------------------

def run_teacher_on_video(args, video, jsonl):
    """waldboostdetect with the teacher, every frame, its documents written
    by waldboostmetapublish: the same JSON lines a user's teacher gives."""
    env = dict(os.environ)
    env.setdefault("GST_PLUGIN_PATH", os.path.abspath(args.build))
    command = ["gst-launch-1.0", "-q", "uridecodebin", "uri=" + pathlib.Path(os.path.abspath(video)).as_uri(), "!",
               "videoconvert", "!", "video/x-raw,format=GRAY8", "!", "waldboostdetect",
               "classifier=" + os.path.abspath(args.teacher), "draw=none",
               "min-neighbors=%d" % args.teacher_min_neighbors,
               "scale-factor=%g" % args.teacher_scale_factor, "!", "waldboostmetaconvert", "!",
               "waldboostmetapublish", "file-path=" + jsonl, "!", "fakesink", "sync=false"]
    run = subprocess.run(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        raise Failure("the teacher did not run on %s:\n%s" % (video, run.stdout.strip()))


def run_teacher_on_images(args, images, jsonl):
    """waldboost-detect with the teacher on the folder's images; one line
    per image, in their order (waldboost-detect's "images" items)."""
    tool = os.path.join(args.build, "gst/tools/detect/waldboost-detect")
    command = [tool, "-c", args.teacher, "-n", str(args.teacher_min_neighbors), "-s", "%g" % args.teacher_scale_factor]
    with open(jsonl, "w") as out:
        for first in range(0, len(images), 500):  # a command line of at most 500 paths
            run = subprocess.run(command + images[first:first + 500], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
            if run.returncode != 0:
                raise Failure("the teacher did not run on the images:\n%s" % run.stderr.strip())
            for frame, image in enumerate(json.loads(run.stdout)["images"], first):
                image["frame"] = frame
                out.write(json.dumps(image) + "\n")


# --- the set -----------------------------------------------------------------------------------

def conventional(box, window, margin):
    """The box made to the window's shape about its centre, then grown by
    `margin` of its size on every side; integers."""
    x, y, w, h = box
    shape = window[0] / window[1]
    if w / h < shape:
        w = h * shape
    else:
        h = w / shape
    w2, h2 = w * (1 + 2 * margin), h * (1 + 2 * margin)
    cx, cy = box[0] + box[2] / 2.0, box[1] + box[3] / 2.0
    return (int(round(cx - w2 / 2)), int(round(cy - h2 / 2)), int(round(w2)), int(round(h2)))


def grown(box, margin, size):
    x, y, w, h = box
    x0, y0 = max(0, int(x - margin * w)), max(0, int(y - margin * h))
    x1, y1 = min(size[0], int(np.ceil(x + w + margin * w))), min(size[1], int(np.ceil(y + h + margin * h)))
    return x0, y0, x1, y1


def usable(box, window, size):
    x, y, w, h = box
    return w >= window[0] and h >= window[1] and x >= 0 and y >= 0 and x + w <= size[0] and y + h <= size[1]


def annotation_line(path, boxes):
    return "%s %d%s" % (path, len(boxes), "".join(" %d %d %d %d" % b for b in boxes))


def parse_size(text):
    try:
        w, h = (int(v) for v in text.split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError("WxH wanted, not %r" % text)
    if not (3 <= w <= 1024 and 3 <= h <= 1024):
        raise argparse.ArgumentTypeError("a window of 3 to 1024 pixels a side, not %r" % text)
    return (w, h)


def share(low, high):
    def parse(text):
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError("a number, not %r" % text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError("a number from %g to %g, not %r" % (low, high, text))
        return value
    return parse


def make_set(args, out):
    inputs = []
    for k, path in enumerate(args.inputs):
        if os.path.isdir(path):
            images = folder_images(path)
            inputs.append({"path": path, "images": images, "count": len(images)})
        elif os.path.isfile(path):
            inputs.append({"path": path, "images": None, "count": None})
        else:
            raise Failure("no such video file or image folder: %s" % path)

    # The teacher first, every input: a bad line stops before any frame is written.
    teachers = []
    for k, source in enumerate(inputs):
        if args.teacher:
            jsonl = os.path.join(out, "teacher-%d.jsonl" % k)
            if source["images"] is None:
                run_teacher_on_video(args, source["path"], jsonl)
            else:
                run_teacher_on_images(args, source["images"], jsonl)
        else:
            jsonl = args.teacher_detections[k]
        teachers.append(read_teacher_lines(jsonl, args.label, timed=source["images"] is None))

    os.makedirs(os.path.join(out, "frames"))
    os.makedirs(os.path.join(out, "masked"))
    train_lines, train_frame_lines, background_lines, tune_lines = [], [], [], []
    heldout_lines, heldout_frames = [], []
    counts = {"frames_train": 0, "frames_tune": 0, "frames_heldout": 0, "teacher_boxes": 0, "positives": 0,
              "tune_labels": 0, "heldout_labels": 0, "too_small": 0, "outside": 0, "ambiguous_lines": 0,
              "skipped_frames": 0}
    for k, source in enumerate(inputs):
        teacher = teachers[k]
        total, times = [source["count"]], []
        if source["images"] is None:
            frames = video_frames(source["path"], args.every, total, times)
        else:
            check_frame_numbers(teacher, source["path"], total[0])
            frames = ((i, folder_frame(source["images"][i])) for i in range(0, total[0], args.every))
        written = []  # (index, name, size, teacher boxes); the split needs the frame count
        for index, pixels in frames:
            boxes = teacher.frames.get(index)
            if boxes is None and times and teacher.may_have(times[index]):
                boxes = TIMED  # known once every frame's time is
            if boxes is SKIPPED:
                counts["skipped_frames"] += 1
            if boxes is None or boxes is SKIPPED:
                continue  # a frame the teacher did not see is neither positive nor negative
            name = "frames/%d-%06d.pgm" % (k, index)
            write_pgm(os.path.join(out, name), pixels)
            written.append((index, name, (pixels.shape[1], pixels.shape[0]), boxes))
        count = total[0]
        if source["images"] is None:
            check_frame_numbers(teacher, source["path"], count)
            teacher.check_stamped(times, source["path"])
            if teacher.timed:
                timed, ambiguous = teacher.match_timed(times, source["path"])
                counts["ambiguous_lines"] += ambiguous
                both = sorted(set(timed) & set(teacher.frames))
                if both:
                    raise Failure("%s: frame %d of %s has a line by its number and another by its timestamp"
                                  % (teacher.path, both[0], source["path"]))
                kept_frames = []
                for index, name, size, boxes in written:
                    if boxes is TIMED and timed.get(index) is SKIPPED:
                        counts["skipped_frames"] += 1
                    if boxes is TIMED and (index not in timed or timed[index] is SKIPPED):
                        os.remove(os.path.join(out, name))  # its line was another frame's, ambiguous, or skipped
                    else:
                        kept_frames.append((index, name, size, timed[index] if boxes is TIMED else boxes))
                written = kept_frames
        split = int(round(count * (1.0 - args.heldout_share)))
        tune_start = int(round(count * (1.0 - args.heldout_share - args.tune_share)))
        training = []
        for index, name, size, boxes in written:
            counts["teacher_boxes"] += len(boxes)
            kept = []
            for box in boxes:
                box2 = conventional(box, args.window, args.margin)
                if box2[2] < args.window[0] or box2[3] < args.window[1]:
                    counts["too_small"] += 1
                elif not usable(box2, args.window, size):
                    counts["outside"] += 1
                else:
                    kept.append(box2)
            if tune_start <= index < split:
                counts["frames_tune"] += 1
                counts["tune_labels"] += len(kept)
                tune_lines.append(annotation_line(name, kept))
            elif index < split:
                counts["frames_train"] += 1
                counts["positives"] += len(kept)
                if kept:
                    train_lines.append(annotation_line(name, kept))
                train_frame_lines.append(annotation_line(name, kept))
                training.append((index, name, boxes))
            else:
                counts["frames_heldout"] += 1
                counts["heldout_labels"] += len(kept)
                heldout_lines.append(annotation_line(name, kept))
                heldout_frames.append(name)
        background_lines += write_masked(out, k, training, args.mask_margin)

    if not train_lines:
        raise Failure("the teacher gave no box of the window's size or more in the training frames")
    if not heldout_lines or not tune_lines:
        raise Failure("no frame is held out or kept for tuning: give more frames, a larger --heldout-share "
                      "or --tune-share")
    for name, lines in (("train.txt", train_lines), ("train-frames.txt", train_frame_lines),
                        ("train-backgrounds.txt", background_lines), ("tune.txt", tune_lines),
                        ("heldout.txt", heldout_lines),
                        ("heldout-frames.txt", heldout_frames)):
        with open(os.path.join(out, name), "w") as f:
            f.write("".join(line + "\n" for line in lines))
    summary = dict(counts, window=list(args.window), margin=args.margin, mask_margin=args.mask_margin,
                   every=args.every, heldout_share=args.heldout_share, tune_share=args.tune_share, label=args.label,
                   inputs=[os.path.abspath(s["path"]) for s in inputs],
                   teacher=os.path.abspath(args.teacher) if args.teacher else None,
                   teacher_min_neighbors=args.teacher_min_neighbors if args.teacher else None,
                   teacher_scale_factor=args.teacher_scale_factor if args.teacher else None)
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    return summary


def write_masked(out, k, training, mask_margin):
    """The training frames with the teacher's boxes filled with the empty
    scene; returns their paths. One frame in memory at a time, but for the
    at most MEDIAN_FRAMES that make the scene."""
    if not training:
        return []
    sizes = {read_pgm(os.path.join(out, name)).size for _, name, _ in training}
    scene = None
    if len(sizes) == 1:
        step = max(1, len(training) // MEDIAN_FRAMES)
        sample = [np.asarray(read_pgm(os.path.join(out, name))) for _, name, _ in training[::step]]
        scene = np.median(np.stack(sample), axis=0).astype(np.uint8)
        del sample
    lines = []
    for index, name, boxes in training:
        masked = np.array(read_pgm(os.path.join(out, name)))
        fill = scene if scene is not None else np.full_like(masked, int(masked.mean()))
        for box in boxes:
            x0, y0, x1, y1 = grown(box, mask_margin, (masked.shape[1], masked.shape[0]))
            masked[y0:y1, x0:x1] = fill[y0:y1, x0:x1]
        path = "masked/%d-%06d.pgm" % (k, index)
        write_pgm(os.path.join(out, path), masked)
        lines.append(path)
    return lines


def read_pgm(path):
    from PIL import Image

    return Image.open(path)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("inputs", nargs="+", metavar="INPUT", help="video files or image folders")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="the set's folder (must not exist)")
    teacher = parser.add_mutually_exclusive_group(required=True)
    teacher.add_argument("--teacher", metavar="CLASSIFIER", help="a classifier waldboostdetect loads")
    teacher.add_argument("--teacher-detections", action="append", metavar="FILE",
                         help="JSON lines, one file per input in their order")
    parser.add_argument("--teacher-min-neighbors", type=int, default=5, metavar="N")
    parser.add_argument("--teacher-scale-factor", type=share(1.01, 4.0), default=1.1, metavar="F")
    parser.add_argument("--label", help="only the teacher's boxes with this label (default: all)")
    parser.add_argument("--window", type=parse_size, default=(24, 24), metavar="WxH",
                        help="the student's window (default 24x24): its shape is the boxes' shape")
    parser.add_argument("--margin", type=share(0.0, 1.0), default=0.0, metavar="F")
    parser.add_argument("--mask-margin", type=share(0.0, 2.0), default=0.25, metavar="F")
    parser.add_argument("--every", type=int, default=2, metavar="N")
    parser.add_argument("--heldout-share", type=share(0.05, 0.9), default=0.3, metavar="F")
    parser.add_argument("--tune-share", type=share(0.05, 0.5), default=0.15, metavar="F")
    parser.add_argument("--build", default=os.path.join(REPO, "build"), metavar="DIR")
    args = parser.parse_args()
    if args.every < 1:
        parser.error("--every must be 1 or more")
    if args.teacher_min_neighbors < 0:
        parser.error("--teacher-min-neighbors must be 0 or more")
    if args.heldout_share + args.tune_share > 0.9:
        parser.error("--heldout-share and --tune-share leave less than 10%% of the frames to train")
    if args.teacher_detections and len(args.teacher_detections) != len(args.inputs):
        parser.error("give one --teacher-detections file per INPUT (%d files, %d inputs)"
                     % (len(args.teacher_detections), len(args.inputs)))
    out = args.output.rstrip("/")
    if os.path.exists(out):
        parser.error("%s exists: the set is written into a new folder" % out)
    parent = os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(parent):
        parser.error("no folder %s to write the set in" % parent)
    partial = tempfile.mkdtemp(prefix=os.path.basename(out) + ".partial-", dir=parent)
    try:
        summary = make_set(args, partial)
        os.rename(partial, out)
    except Failure as error:
        shutil.rmtree(partial, ignore_errors=True)
        sys.exit("teach: %s" % error)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    print("teach: %d training frames (%d positives), %d for tuning (%d labels), %d held out (%d labels); "
          "teacher boxes %d, %d smaller than the window, %d pushed out of the frame: %s"
          % (summary["frames_train"], summary["positives"], summary["frames_tune"], summary["tune_labels"],
             summary["frames_heldout"], summary["heldout_labels"],
             summary["teacher_boxes"], summary["too_small"], summary["outside"], out))
    if summary["skipped_frames"]:
        print("teach: %d frames not used: the teacher's detector passed them without detection "
              "(\"detection_skipped\": waldboostdetect's interval or QoS, or a frame it could not read)"
              % summary["skipped_frames"])
    if summary["ambiguous_lines"]:
        print("teach: %d teacher lines not used: their frames share a timestamp with frames that have no line, so "
              "which frame each belongs to cannot be told (give the lines a \"frame\", or a line for every frame)"
              % summary["ambiguous_lines"])


if __name__ == "__main__":
    main()
