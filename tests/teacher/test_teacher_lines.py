#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""teach.py reads a teacher's JSON lines with clear errors and never
leaves a half-made set; a good file makes the set its documentation
describes.

Bad files (each on a folder of 20 synthetic frames): exit status 1, the
message names the file and the line, and neither OUT nor a partial folder
is left; likewise a folder with a broken frame, named. Then a good file: the split by time (train < tune < held out,
none on two sides), a box made to the window's shape about its centre, a
frame with no line left out, every teacher box in the masked training
frames replaced by the empty scene (the median of the training frames,
computed here), and the held-out frames' labels as the teacher gave them.

  test_teacher_lines.py TEACH
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

import footage

FRAMES = 20


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def teach(script, folder, jsonl, out, *extra):
    return subprocess.run([sys.executable, script, "--teacher-detections", jsonl, "--every", "1",
                           "--window", "24x24", "-o", out, folder] + list(extra),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def line(frame, objects, **more):
    return json.dumps(dict({"frame": frame, "objects": objects}, **more))


def good_lines(count):
    return [line(f, [{"x": 10 + f, "y": 20, "w": 30, "h": 30, "detection": {"label": "target"}}])
            for f in range(count)]


def main():
    script = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        clip = footage.frames(FRAMES)
        folder = os.path.join(work, "frames")
        footage.write_folder(folder, clip)
        good = good_lines(FRAMES)
        bad = {
            "not JSON": (good[:2] + ['{"frame": 2, "objects": [}'] + good[3:], 3, "not JSON"),
            "not an object": (good[:4] + ["[1, 2]"] + good[5:], 5, "JSON object"),
            "no list": (good[:1] + [json.dumps({"frame": 1})] + good[2:], 2, "no \"objects\""),
            "objects not a list": (good[:1] + [json.dumps({"frame": 1, "objects": 3})] + good[2:], 2, "not a list"),
            "no width": (good[:6] + [line(6, [{"x": 1, "y": 1, "h": 30}])] + good[7:], 7, "no \"w\""),
            "text for x": (good[:6] + [line(6, [{"x": "1", "y": 1, "w": 30, "h": 30}])] + good[7:], 7,
                           "not a number"),
            "zero size": (good[:8] + [line(8, [{"x": 1, "y": 1, "w": 0, "h": 30}])] + good[9:], 9, "size"),
            # Numbers that JSON (and Python's reader) take but no frame holds:
            # they used to stop teach.py with a traceback.
            "x of 1e400": (good[:6] + ['{"frame": 6, "objects": [{"x": 1e400, "y": 1, "w": 30, "h": 30}]}'] + good[7:],
                           7, '"x" is infinite'),
            "Infinity for w": (good[:6] + ['{"frame": 6, "objects": [{"x": 1, "y": 1, "w": Infinity, "h": 30}]}'] +
                               good[7:], 7, '"w" is infinite'),
            "h of 10^40": (good[:6] + [line(6, [{"x": 1, "y": 1, "w": 30, "h": 10 ** 40}])] + good[7:], 7,
                           '"h" is too large'),
            "nested too deeply": (good[:2] + ["[" * 100000 + "]" * 100000] + good[3:], 3, "nested too deeply"),
            "frame again": (good[:10] + [good[9]] + good[11:], 11, "frame 9 again"),
            "negative frame": (good[:3] + [line(-1, [])] + good[4:], 4, "frame number"),
            "frame past the end": (good + [line(FRAMES + 5, [])], None, "frame %d" % (FRAMES + 5)),
            "not UTF-8": (None, None, "UTF-8"),
            # One JSON array with a document a line, not JSON lines.
            "a JSON array": (["["] + [g + "," for g in good[:-1]] + good[-1:] + ["]"], 1, "a JSON array"),
        }
        for name, (lines, number, words) in bad.items():
            jsonl = os.path.join(work, "teacher.jsonl")
            if lines is None:
                with open(jsonl, "wb") as f:
                    f.write(b'{"frame": 0, "objects": []}\n{"label": "\xff"}\n')
            else:
                with open(jsonl, "w") as f:
                    f.write("\n".join(lines) + "\n")
            out = os.path.join(work, "set")
            run = teach(script, folder, jsonl, out)
            where = "%s:%d:" % (jsonl, number) if number else jsonl
            if run.returncode != 1 or where not in run.stderr or words not in run.stderr:
                fail("%s: exit %d, wanted 1 and a message with %r and %r: %s"
                     % (name, run.returncode, where, words, run.stderr.strip()))
            left = [n for n in os.listdir(work) if n.startswith("set")]
            if left:
                fail("%s: a failed run left %s" % (name, left))
            print("ok: %s: %s" % (name, run.stderr.strip().splitlines()[-1]))

        run = subprocess.run([sys.executable, script, "--teacher-detections", "a.jsonl", "--teacher-detections",
                              "b.jsonl", "-o", os.path.join(work, "set"), folder],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if run.returncode != 2 or "one --teacher-detections file per INPUT" not in run.stderr:
            fail("two teacher files for one input: exit %d: %s" % (run.returncode, run.stderr))

        # A broken frame among good ones (a truncated PNG): the image's name, not a traceback.
        broken = os.path.join(work, "broken")
        os.makedirs(broken)
        for name in os.listdir(folder):
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            with open(os.path.join(broken, name), "wb") as f:
                f.write(data[:40] if name == "frame-0006.png" else data)
        jsonl = os.path.join(work, "teacher.jsonl")
        with open(jsonl, "w") as f:
            f.write("\n".join(good) + "\n")
        out = os.path.join(work, "set")
        run = teach(script, broken, jsonl, out)
        words = os.path.join(broken, "frame-0006.png") + ": not an image"
        if run.returncode != 1 or words not in run.stderr or "Traceback" in run.stderr or os.path.exists(out):
            fail("a broken frame: exit %d, wanted 1 and %r, no set: %s" % (run.returncode, words, run.stderr.strip()))
        print("ok: a broken frame: %s" % run.stderr.strip().splitlines()[-1])

        # A good file: frame 5 has no line (not used), frame 7 has a tall box made square.
        lines = good_lines(FRAMES)
        lines[7] = line(7, [{"x": 50, "y": 30, "w": 20, "h": 40, "detection": {"label": "target"}},
                            {"x": 0, "y": 0, "w": 30, "h": 30, "detection": {"label": "other"}}])
        del lines[5]
        jsonl = os.path.join(work, "teacher.jsonl")
        with open(jsonl, "w") as f:
            f.write("\n".join(lines) + "\n")
        out = os.path.join(work, "set")
        run = teach(script, folder, jsonl, out, "--label", "target")
        if run.returncode != 0:
            fail("a good file: exit %d: %s" % (run.returncode, run.stderr))

        def annotations(name):
            result = {}
            for text in open(os.path.join(out, name)):
                fields = text.split()
                result[int(fields[0][-10:-4])] = [tuple(int(v) for v in fields[2 + 4 * k:6 + 4 * k])
                                                  for k in range(int(fields[1]))]
            return result
        train, tune, held = annotations("train-frames.txt"), annotations("tune.txt"), annotations("heldout.txt")
        # 20 frames: held out from round(20 * 0.7) = 14, tuning from round(20 * 0.55) = 11.
        if sorted(train) != [0, 1, 2, 3, 4, 6, 7, 8, 9, 10] or sorted(tune) != [11, 12, 13] or \
                sorted(held) != list(range(14, 20)):
            fail("the split: train %s, tune %s, held out %s" % (sorted(train), sorted(tune), sorted(held)))
        if train[7] != [(40, 30, 40, 40)]:
            fail("frame 7's 20x40 box at (50, 30), the other label left out: wanted [(40, 30, 40, 40)], got %s"
                 % train[7])
        for f in held:
            if held[f] != [(10 + f, 20, 30, 30)]:
                fail("held-out frame %d: %s, the teacher gave (%d, 20, 30, 30)" % (f, held[f], 10 + f))
        pixels = [np.asarray(Image.open(os.path.join(folder, "frame-%04d.png" % f)).convert("L")) for f in sorted(train)]
        scene = np.median(np.stack(pixels), axis=0).astype(np.uint8)
        masked = np.asarray(Image.open(os.path.join(out, "masked", "0-000003.pgm")))
        # Frame 3's box (13, 20, 30, 30) grown by 0.25 on every side: x 5.5-50.5, y 12.5-57.5.
        if not np.array_equal(masked[13:57, 6:50], scene[13:57, 6:50]):
            fail("frame 3's teacher box is not filled with the empty scene")
        if np.array_equal(masked[80:, 100:], scene[80:, 100:]) or \
                not np.array_equal(masked[80:, 100:], pixels[3][80:, 100:]):
            fail("frame 3 changed away from its teacher box")
        print("ok: a good file: split %d/%d/%d frames, boxes and masks as documented"
              % (len(train), len(tune), len(held)))


if __name__ == "__main__":
    main()
