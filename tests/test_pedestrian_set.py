#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/training/make-pedestrian-set.py on the first 40 frames of
vtest.avi (8 labelled frames, a few seconds): the frames it writes are the
video's size and every 5th; the split is by time (frames before 60% of
those read train, the rest are held out, none on both sides); every box
lies inside its frame, is tall (HOG's 1:2 window) and is one of the
labeller's HOG boxes with enough foreground; the boxes sit on what moves
(the frame differs from the walker-free scene more inside their cores than
over the whole frame, computed here from the written images); the
negatives lists name the walker-free scenes, and no labelled frame. A
missing video is refused with a message.

  test_pedestrian_set.py MAKE_PEDESTRIAN_SET LABELLER
Skips (77) when the labeller was not built (meson found no OpenCV), and
when vtest.avi or the backgrounds are missing unless
WALDBOOST_REQUIRE_TEST_DATA=1.
"""
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

FRAMES = 40
EVERY = 5
WIDTH, HEIGHT = 768, 576


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def boxes_of(path):
    result = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        fields = line.split()
        numbers = [int(v) for v in fields[1:]]
        if numbers[0] * 4 != len(numbers) - 1:
            fail("%s: count disagrees with the numbers: %s" % (path, line))
        result[fields[0]] = [tuple(numbers[1 + 4 * k:5 + 4 * k]) for k in range(numbers[0])]
    return result


def main():
    script, labeller = sys.argv[1], sys.argv[2]
    data = os.environ.get("WALDBOOST_TEST_DATA", "build/testdata")
    if not os.access(labeller, os.X_OK):
        print("SKIP: no labeller at %s (meson found no OpenCV)" % labeller)
        sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        out = os.path.join(work, "set")
        run = subprocess.run([sys.executable, script, "--labeller", labeller, "--testdata", data,
                              "--max-frames", str(FRAMES), out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if run.returncode != 0 and "missing" in run.stderr:
            if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
                fail(run.stderr)
            print("SKIP: " + run.stderr.strip())
            sys.exit(77)
        if run.returncode != 0:
            fail("make-pedestrian-set failed: " + run.stderr)
        print(run.stdout.strip())

        frames = sorted(os.listdir(os.path.join(out, "frames")))
        expected = ["frame-%04d.pgm" % i for i in range(0, FRAMES, EVERY)]
        if frames != expected:
            fail("frames written %s, not every %d-th of %d" % (frames, EVERY, FRAMES))
        for name in frames:
            if Image.open(os.path.join(out, "frames", name)).size != (WIDTH, HEIGHT):
                fail("%s is not %dx%d" % (name, WIDTH, HEIGHT))

        # The labeller's confirmed HOG boxes, read from its raw output.
        confirmed, frame = {}, None
        for line in open(os.path.join(out, "labels.txt")):
            fields = line.split()
            if fields[0] == "frame":
                frame = "frames/" + fields[2]
                confirmed[frame] = []
            elif fields[0] == "hog" and float(fields[6]) >= 0.3:
                confirmed[frame].append(tuple(int(v) for v in fields[1:5]))

        train = boxes_of(os.path.join(out, "train-pedestrians.txt"))
        heldout = boxes_of(os.path.join(out, "heldout-pedestrians.txt"))
        if not train or not heldout:
            fail("a side of the split is empty: %d training, %d held-out frames" % (len(train), len(heldout)))
        first_heldout = int(FRAMES * 0.6)
        index = lambda name: int(name[len("frames/frame-"):-len(".pgm")])
        if max(map(index, train)) >= first_heldout or min(map(index, heldout)) < first_heldout:
            fail("not split by time at frame %d: training %s, held out %s"
                 % (first_heldout, sorted(train), sorted(heldout)))

        scene = np.asarray(Image.open(os.path.join(out, "scene-train.pgm")), dtype=np.float64)
        inside_ratios = []
        for name, boxes in list(train.items()) + list(heldout.items()):
            pixels = np.asarray(Image.open(os.path.join(out, name)), dtype=np.float64)
            difference = np.abs(pixels - scene)
            for box in boxes:
                x, y, w, h = box
                if not (w > 0 and h > 0 and x >= 0 and y >= 0 and x + w <= WIDTH and y + h <= HEIGHT):
                    fail("%s: box %s is outside the %dx%d frame" % (name, box, WIDTH, HEIGHT))
                if not 1.8 <= h / w <= 2.2:
                    fail("%s: box %s is not HOG's 1:2 shape" % (name, box))
                if box not in confirmed[name]:
                    fail("%s: box %s is no HOG box with foreground" % (name, box))
                core = difference[y + h // 10:y + h * 9 // 10, x + w // 4:x + w * 3 // 4]
                inside_ratios.append(core.mean() / difference.mean())
        # Walkers differ from the scene; most of a frame does not.
        if np.median(inside_ratios) < 3.0:
            fail("the boxes do not sit on what moves: median ratio %.2f" % np.median(inside_ratios))

        for side in ("train", "heldout"):
            listed = [l.strip() for l in open(os.path.join(out, side + "-backgrounds.txt")) if not l.startswith("#")]
            if listed[0] != os.path.join(out, "scene-%s.pgm" % side) or any("frames/" in l for l in listed):
                fail("%s-backgrounds.txt: not the walker-free scene first, or names a frame" % side)
            if not all(os.path.isfile(l) for l in listed):
                fail("%s-backgrounds.txt names a missing file" % side)

        bad = subprocess.run([sys.executable, script, "--labeller", labeller, "--testdata", data,
                              "--video", os.path.join(work, "none.avi"), os.path.join(work, "bad")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        if bad.returncode == 0 or "none.avi" not in bad.stderr:
            fail("a missing video was not refused with its name: %s" % bad.stderr)
        print("pedestrian set: %d training and %d held-out frames, %d boxes, median inside/frame difference %.1f"
              % (len(train), len(heldout), len(inside_ratios), np.median(inside_ratios)))


if __name__ == "__main__":
    main()
