#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""A student trained from a synthetic teacher on synthetic footage agrees
with it, and its margin and grouping give one box per object.

The footage (footage.py) is encoded as an MJPEG AVI, so teach.py reads it
as it reads a user's video (uridecodebin); the teacher is the truth as
JSON lines. teach.py (window 24x24, margin 0.15) then student.py (a small
recipe: 80 weak classifiers) must give, on the held-out frames, F1 at
least 0.9 against the teacher; the report's counts must agree with the
set's, and neither end of the threshold sweep may be as good as its best
(student.py's sweep is also checked on made-up F1 curves).
The camera's min-size must be the smaller target grown by the
margin, less one pyramid step (the teacher's: the target as drawn, less
one step), with F1 at least 0.9 there too. On a new frame of the same camera with three targets of 26, 34 and
46 pixels (46 is larger than any trained on), waldboost-detect with the
student finds exactly three boxes, each the target grown by the margin
(IoU at least 0.5), none nested in another. An --fps-device that selects
no device stops student.py before it trains.

  test_student.py TEACH STUDENT BUILD
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

import footage

FRAMES = 160
MARGIN = 0.15


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def iou(a, b):
    w = min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0])
    h = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / float(a[2] * a[3] + b[2] * b[3] - w * h)


def encode(folder, video):
    run = subprocess.run(["gst-launch-1.0", "-q", "multifilesrc", "location=%s/frame-%%04d.png" % folder,
                          "caps=image/png,framerate=10/1", "!", "pngdec", "!", "videoconvert", "!",
                          "jpegenc", "quality=95", "!", "avimux", "!", "filesink", "location=" + video],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if run.returncode != 0:
        fail("cannot encode the footage: " + run.stdout)


def load_student(student):
    spec = importlib.util.spec_from_file_location("student", student)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_smallest_positive(student, work):
    """student.py's camera's-size step reads the smallest positive from an
    annotation file with comments, as make-face-scenes.py writes them
    (train-face-detector.sh --scenes stopped there with a ValueError)."""
    path = os.path.join(work, "annotations.txt")
    with open(path, "w") as f:
        f.write("# training faces: photos and frames 0-147\n\n"
                "images/a.pgm 2 10 10 40 40 60 10 33 33\nimages/b.pgm 0\nimages/c.pgm 1 5 5 51 51\n")
    smallest = load_student(student).smallest_positive(path)
    if smallest != 33:
        fail("smallest positive of an annotation file with comments: %r, not 33" % smallest)


def check_threshold_sweep(student):
    """student.py's sweep of final thresholds goes on past an end that is as
    good as the best, and not at all when the F1 is the same everywhere."""
    module = load_student(student)
    cases = [("a peak at -60, past the range's lower end", lambda t: max(0.0, 1 - abs(t + 60) / 100.0), -60),
             ("a plateau up to 35, past the upper end", lambda t: 0.9 if 0 <= t <= 35 else 0.5, 35),
             ("a peak inside the range", lambda t: max(0.0, 1 - abs(t + 10) / 100.0), -10)]
    for what, curve, expected in cases:
        sweep, best = module.sweep_thresholds(lambda t: {"f1": curve(t)})
        if best["threshold"] != expected:
            fail("threshold sweep, %s: chose %d, not %d" % (what, best["threshold"], expected))
    sweep, _ = module.sweep_thresholds(lambda t: {"f1": 0.0})
    if len(sweep) != len(module.THRESHOLDS):
        fail("threshold sweep: %d thresholds tried where the F1 is 0 everywhere" % len(sweep))
    print("threshold sweep: past the ends where the best lies beyond them")


def main():
    teach, student, build = sys.argv[1:4]
    check_threshold_sweep(student)
    with tempfile.TemporaryDirectory() as work:
        check_smallest_positive(student, work)
        clip = footage.frames(FRAMES)
        footage.write_folder(os.path.join(work, "png"), clip)
        video = os.path.join(work, "footage.avi")
        encode(os.path.join(work, "png"), video)
        footage.write_teacher(os.path.join(work, "teacher.jsonl"), clip)
        out = os.path.join(work, "set")
        run = subprocess.run([sys.executable, teach, "--teacher-detections", os.path.join(work, "teacher.jsonl"),
                              "--window", "24x24", "--margin", str(MARGIN), "--every", "1", "--build", build,
                              "-o", out, video], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(run.stdout)
        if run.returncode != 0:
            fail("teach.py exit %d" % run.returncode)
        classifier = os.path.join(work, "student.xml")
        report_path = os.path.join(work, "report.json")
        # A device that is not there stops student.py before it trains (it
        # once trained for minutes and then failed at the frame rates).
        run = subprocess.run([sys.executable, student, "--set", out, "-o", classifier, "--label", "target",
                              "--fps-device", "no-such-device", "--build", build],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 2 or "no-such-device" not in run.stdout or "1. training" in run.stdout or \
                os.path.exists(classifier):
            fail("--fps-device no-such-device: exit %d, wanted 2 before training: %s" % (run.returncode, run.stdout))
        run = subprocess.run([sys.executable, student, "--set", out, "-o", classifier, "--label", "target",
                              "--fps-device", "cpu", "--report", report_path, "--build", build,
                              "--train-option=--weak=80", "--train-option=--negative-count=2000",
                              "--train-option=--copies=4", "--train-option=--shift=0.05",
                              "--train-option=--scale=0.1"],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        print(run.stdout)
        if run.returncode != 0:
            fail("student.py exit %d" % run.returncode)
        with open(report_path) as f:
            report = json.load(f)
        with open(os.path.join(out, "summary.json")) as f:
            summary = json.load(f)
        held = report["heldout"]
        # The held-out labels: the truth of the last 30% of the frames, grown by the margin, inside the frame.
        grown = [(x - MARGIN * w, y - MARGIN * h, w * (1 + 2 * MARGIN), h * (1 + 2 * MARGIN))
                 for _, boxes in clip[round(FRAMES * 0.7):] for x, y, w, h in boxes]
        inside = sum(1 for x, y, w, h in grown
                     if x > -0.5 and y > -0.5 and x + w < footage.WIDTH + 0.5 and y + h < footage.HEIGHT + 0.5)
        if held["labels"] != summary["heldout_labels"] or abs(held["labels"] - inside) > 2:
            fail("the report's held-out labels (%d) are not the set's (%d) or the truth's inside the frame (%d)"
                 % (held["labels"], summary["heldout_labels"], inside))
        if held["f1"] < 0.9:
            fail("held-out agreement F1 %.3f < 0.9 (recall %.3f, precision %.3f)"
                 % (held["f1"], held["recall"], held["precision"]))
        # The threshold sweep goes on past an end that is as good as the best.
        sweep = report["threshold_sweep"]
        top = max(a["f1"] for a in sweep)
        if any(round(sweep[end]["f1"], 6) == round(top, 6) for end in (0, -1)):
            fail("an end of the threshold sweep is as good as the best: %s"
                 % [(a["threshold"], round(a["f1"], 3)) for a in sweep])
        if not report["student_fps"] or report["student_fps"]["fps"] <= 0:
            fail("no frame rate at the element")
        # The camera's sizes: the smaller target (28 pixels) grown by the margin, less one pyramid step.
        camera = report["camera_sizes"]
        if abs(camera["min_size"] - 28 * (1 + 2 * MARGIN) / 1.1) > 1.5:  # whole pixels, then the floor
            fail("min-size %d for the camera, not the smaller target's %.1f / 1.1"
                 % (camera["min_size"], 28 * (1 + 2 * MARGIN)))
        # The teacher's, in its own boxes: the smaller target as the truth drew it, less one step.
        if abs(camera["teacher_min_size"] - 28 / 1.1) > 1.5:
            fail("min-size %d for the teacher, not the smaller target's 28 / 1.1" % camera["teacher_min_size"])
        if camera["heldout"]["f1"] < 0.9 or not camera["student_fps"] or camera["student_fps"]["fps"] <= 0:
            fail("at the camera's min-size: F1 %.3f, frame rate %s" % (camera["heldout"]["f1"], camera["student_fps"]))

        # One box per object, in the student's convention (the target grown by the margin).
        image = footage.scene()
        targets = [(10, 12, 26, 26), (70, 60, 34, 34), (130, 40, 46, 46)]
        for box in targets:
            footage.draw_target(image, box)
        Image.fromarray(image.astype(np.uint8)).save(os.path.join(work, "scene.png"))
        run = subprocess.run([os.path.join(build, "gst/tools/detect/waldboost-detect"), "-c", classifier,
                              os.path.join(work, "scene.png")], stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            fail("waldboost-detect exit %d" % run.returncode)
        found = [(d["x"], d["y"], d["width"], d["height"]) for d in json.loads(run.stdout)["images"][0]["detections"]]
        print("scene: targets %s, found %s" % (targets, found))
        expected = [(x - MARGIN * s, y - MARGIN * s, s * (1 + 2 * MARGIN), s * (1 + 2 * MARGIN))
                    for x, y, s, _ in targets]
        if len(found) != len(targets):
            fail("%d boxes for %d targets" % (len(found), len(targets)))
        for box in expected:
            best = max(iou(box, d) for d in found)
            if best < 0.5:
                fail("no box for the target %s (best IoU %.2f)" % (box, best))
        print("held out: F1 %.3f (recall %.3f, precision %.3f); one box per target" %
              (held["f1"], held["recall"], held["precision"]))


if __name__ == "__main__":
    main()
