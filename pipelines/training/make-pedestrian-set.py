#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the pedestrian set of docs/quality.md ("Pedestrians
(vtest.avi)") from opencv-doc's vtest.avi: a training / held-out split by
time for waldboost-train and waldboost-evaluate.

There is no ground truth. The labels are machine labels, written by
build/gst/tools/label-pedestrians/label-pedestrians (built when OpenCV is
found): OpenCV's HOG people detector (its default Dalal-Triggs SVM, on the
frame scaled up 2x), each box kept only when foreground covers at least
FOREGROUND_SHARE of its core (the middle half across, middle 80% down), the
foreground being the difference from the temporal median of the video
(a static camera). Of two kept boxes with IoU >= 0.5, the one with more
foreground stays. A walker that HOG misses is not labelled; a HOG box on something
moving that is not a walker is. The labeller's two parts are compared in
the summary (labels with a foreground blob under them; person-sized blobs
with no label), which is its only check.

The split (fixed; change it only with the docs):
  - every EVERY-th frame is labelled (5: two frames a second of the 10 fps
    video; neighbours are nearly the same picture);
  - frames before TRAIN_SHARE (60%) of the video train, frames from there
    on are held out. Walkers crossing that moment appear on both sides;
    the held-out set is the same camera, scene and light, so it shows how
    the detector does on this camera, not on others;
  - negatives: the scene without walkers (the per-pixel median of the
    labelled frames of each side, so the held-out median is made only of
    held-out frames) and photos with no person: for training
    TRAIN_BACKGROUNDS, held out HELDOUT_BACKGROUNDS (as the face set's).

Output, in OUT (default build/pedestrian-set):
  frames/frame-NNNN.pgm        the labelled frames, grey
  labels.txt                   the labeller's raw output
  train-pedestrians.txt        training frames' labels (waldboost-train -a)
  train-backgrounds.txt        training negatives (waldboost-train -n)
  heldout-pedestrians.txt      held-out frames' labels (waldboost-evaluate -a)
  heldout-backgrounds.txt      held-out negatives (waldboost-evaluate -b)
  teacher.jsonl                the labels as a teacher's JSON lines, one line
                               per labelled frame (teach.py
                               --teacher-detections)
  scene-train.pgm, scene-heldout.pgm   the two medians

  pipelines/training/make-pedestrian-set.py [--labeller PATH] [--video PATH]
      [--testdata DIR] [--skimage-data DIR] [--max-frames N] [OUT]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np

from set_images import gray, write_pgm

EVERY = 5
TRAIN_SHARE = 0.6
FOREGROUND_SHARE = 0.3
SAME_BOX_IOU = 0.5
# A blob at least this tall is person-sized (vtest's walkers are 65-140
# pixels tall); shorter ones are parts, bags, shadows.
PERSON_BLOB_HEIGHT = 50

# Photos with no person: (source, file name), "opencv" build/testdata
# (tests/fetch-test-data.sh), "skimage" python3-skimage's data folder.
TRAIN_BACKGROUNDS = [
    ("opencv", "aero3.jpg"),
    ("skimage", "cell.png"), ("skimage", "coins.png"), ("skimage", "grass.png"), ("skimage", "gravel.png"),
    ("skimage", "horse.png"), ("skimage", "hubble_deep_field.jpg"), ("skimage", "moon.png"),
    ("skimage", "motorcycle_right.png"), ("skimage", "page.png"), ("skimage", "retina.jpg"),
    ("skimage", "rocket.jpg"), ("skimage", "text.png"),
]
HELDOUT_BACKGROUNDS = [
    ("opencv", "board.jpg"), ("opencv", "building.jpg"), ("opencv", "fruits.jpg"), ("opencv", "leuvenA.jpg"),
    ("skimage", "brick.png"), ("skimage", "coffee.png"),
]


def iou(a, b):
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = min(ax + aw, bx + bw) - max(ax, bx)
    h = min(ay + ah, by + bh) - max(ay, by)
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    return inter / float(aw * ah + bw * bh - inter)


def parse_labels(text):
    """The labeller's output: (video frame count, width, height) and a list
    of frames, each {index, file, hog: [(box, score, foreground)], blobs: [box]}."""
    video, frames = None, []
    for number, line in enumerate(text.splitlines(), 1):
        fields = line.split()
        if not fields:
            continue
        try:
            if fields[0] == "video":
                video = (int(fields[-3]), int(fields[-2]), int(fields[-1]))
            elif fields[0] == "frame":
                frames.append({"index": int(fields[1]), "file": fields[2], "hog": [], "blobs": []})
            elif fields[0] == "hog":
                box = tuple(int(v) for v in fields[1:5])
                frames[-1]["hog"].append((box, float(fields[5]), float(fields[6])))
            elif fields[0] == "blob":
                frames[-1]["blobs"].append(tuple(int(v) for v in fields[1:5]))
            else:
                raise ValueError(fields[0])
        except (ValueError, IndexError):
            sys.exit("make-pedestrian-set: the labeller's line %d is not understood: %s" % (number, line))
    if video is None:
        sys.exit("make-pedestrian-set: the labeller gave no 'video' line")
    return video, frames


def pedestrians(frame):
    """The labels of a frame: HOG boxes confirmed by foreground; of two that
    are the same box, the one with more foreground. (Not HOG's score: with
    OpenCV's threads its pairing with the boxes varies from run to run.)"""
    kept = []
    for box, score, foreground in sorted(frame["hog"], key=lambda h: (-h[2], h[0])):
        if foreground >= FOREGROUND_SHARE and all(iou(box, k) < SAME_BOX_IOU for k in kept):
            kept.append(box)
    return kept


def annotation_lines(frames, labels):
    lines = []
    for frame in frames:
        boxes = labels[frame["index"]]
        if boxes:  # a frame with no label says nothing the backgrounds don't
            lines.append("frames/%s %d %s" % (frame["file"], len(boxes),
                                              " ".join("%d %d %d %d" % b for b in boxes)))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="build/pedestrian-set")
    parser.add_argument("--labeller", default="build/gst/tools/label-pedestrians/label-pedestrians",
                        help="the label-pedestrians program (built when OpenCV is found)")
    parser.add_argument("--video", default=None, help="default: TESTDATA/vtest.avi")
    parser.add_argument("--testdata", default="build/testdata",
                        help="opencv-doc's files, as tests/fetch-test-data.sh fetches them")
    parser.add_argument("--skimage-data", default="/usr/lib/python3/dist-packages/skimage/data",
                        help="python3-skimage's data folder")
    parser.add_argument("--max-frames", type=int, default=0,
                        help="read only the first N frames (for a quick check; not the documented set)")
    args = parser.parse_args()

    folders = {"opencv": os.path.abspath(args.testdata), "skimage": os.path.abspath(args.skimage_data)}
    video = args.video or os.path.join(folders["opencv"], "vtest.avi")
    missing = [p for p in [video] + [os.path.join(folders[s], n) for s, n in TRAIN_BACKGROUNDS + HELDOUT_BACKGROUNDS]
               if not os.path.isfile(p)]
    if missing:
        sys.exit("make-pedestrian-set: missing %s (fetch opencv-doc's files with tests/fetch-test-data.sh; "
                 "install python3-skimage with build-aux/install-deps.sh --tests)" % ", ".join(missing))
    if not os.access(args.labeller, os.X_OK):
        sys.exit("make-pedestrian-set: no labeller at %s (it is built when meson finds OpenCV: "
                 "ninja -C build gst/tools/label-pedestrians/label-pedestrians)" % args.labeller)

    out = os.path.abspath(args.out)
    frames_dir = os.path.join(out, "frames")
    os.makedirs(frames_dir, exist_ok=True)
    for name in os.listdir(frames_dir):
        if name.endswith(".pgm"):
            os.remove(os.path.join(frames_dir, name))
    command = [args.labeller, "--every", str(EVERY)]
    if args.max_frames:
        command += ["--max-frames", str(args.max_frames)]
    result = subprocess.run(command + [video, frames_dir], stdout=subprocess.PIPE, universal_newlines=True)
    if result.returncode != 0:
        sys.exit("make-pedestrian-set: %s failed (exit %d)" % (" ".join(command), result.returncode))
    with open(os.path.join(out, "labels.txt"), "w") as f:
        f.write(result.stdout)
    (frame_count, width, height), frames = parse_labels(result.stdout)

    # The split by time: the first TRAIN_SHARE of the video's frames train.
    first_heldout = int(frame_count * TRAIN_SHARE)
    train = [f for f in frames if f["index"] < first_heldout]
    heldout = [f for f in frames if f["index"] >= first_heldout]
    if not train or not heldout:
        sys.exit("make-pedestrian-set: %d frames are too few to split" % frame_count)
    labels = {f["index"]: pedestrians(f) for f in frames}
    # The same labels as a teacher's JSON lines (teach.py --teacher-detections): every
    # labelled frame, the unlabelled ones left out.
    with open(os.path.join(out, "teacher.jsonl"), "w") as f:
        for frame in frames:
            f.write(json.dumps({"frame": frame["index"], "objects": [
                {"x": x, "y": y, "w": w, "h": h, "detection": {"label": "pedestrian"}}
                for x, y, w, h in labels[frame["index"]]]}) + "\n")

    for name, side, backgrounds in (("train", train, TRAIN_BACKGROUNDS), ("heldout", heldout, HELDOUT_BACKGROUNDS)):
        lines = annotation_lines(side, labels)
        with open(os.path.join(out, name + "-pedestrians.txt"), "w") as f:
            f.write("# vtest.avi frames %d-%d, every %d-th, machine labels (pipelines/training/make-pedestrian-set.py)\n"
                    % (side[0]["index"], side[-1]["index"], EVERY))
            f.write("\n".join(lines) + "\n")
        # The scene without its walkers: the median of this side's frames.
        stack = np.stack([np.asarray(gray(os.path.join(frames_dir, f["file"]))) for f in side])
        write_pgm(os.path.join(out, "scene-%s.pgm" % name), np.median(stack, axis=0).round())
        with open(os.path.join(out, name + "-backgrounds.txt"), "w") as f:
            f.write("# %s negatives: vtest.avi's scene without walkers, and photos with no person\n" % name)
            f.write(os.path.join(out, "scene-%s.pgm" % name) + "\n")
            for source, file_name in backgrounds:
                f.write(os.path.join(folders[source], file_name) + "\n")

    # The labeller's two parts side by side: its only check.
    kept = sum(len(labels[f["index"]]) for f in frames)
    raw = sum(len(f["hog"]) for f in frames)
    person_blobs = [(f, b) for f in frames for b in f["blobs"] if b[3] >= PERSON_BLOB_HEIGHT]
    unlabelled = sum(1 for f, (x, y, w, h) in person_blobs
                     if not any(bx <= x + w / 2 < bx + bw and by <= y + h / 2 < by + bh
                                for bx, by, bw, bh in labels[f["index"]]))
    heights = [b[3] for f in frames for b in labels[f["index"]]]
    print("make-pedestrian-set: %d frames of %dx%d, %d labelled (every %d-th); training frames 0-%d: %d pedestrians "
          "in %d frames; held out %d-%d: %d pedestrians in %d frames; %d of %d HOG boxes kept (foreground); "
          "%d of %d person-sized foreground blobs have no label; label heights %d-%d; in %s"
          % (frame_count, width, height, len(frames), EVERY, first_heldout - 1,
             sum(len(labels[f["index"]]) for f in train), len(annotation_lines(train, labels)),
             first_heldout, frame_count - 1, sum(len(labels[f["index"]]) for f in heldout),
             len(annotation_lines(heldout, labels)), kept, raw, unlabelled, len(person_blobs),
             min(heights) if heights else 0, max(heights) if heights else 0, out))


if __name__ == "__main__":
    main()
