#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the whole-scene face set (issue 54, item 2): every real face of
Debian's packages with its surroundings, in OpenCV's box convention (a
margin round the face: forehead to chin, ear to ear), with a fixed split,
for waldboost-train, student.py and waldboost-evaluate.

Sources (nothing is downloaded here; tests/fetch-test-data.sh puts them in
--testdata):
  - photos of people: opencv-doc's examples (messi5.jpg, basketball1/2.png)
    and the photos of its HTML tutorials (227943776_1.jpg,
    230501201_1.jpg, face_swapped.jpg, example.jpg, 05.jpg, 12.jpg,
    blurred.png), python3-skimage's astronaut.png, python-matplotlib-data's
    grace_hopper.jpg. Their boxes are in PHOTOS below: those of
    haarcascade_frontalface_alt2 at min-neighbours 3, each checked by eye.
    A tutorial figure of several panels gives only its clean panels (no
    drawn landmarks).
  - the 270 frames of opencv-doc's Megamind.avi (two animated characters,
    a third in the background), labelled by a teacher:
    haarcascade_frontalface_alt2, min-neighbours 3, faces of 60 pixels or
    more, run with waldboost-detect (the CPU reference). Neither compared
    cascade (lbpcascade_frontalface, haarcascade_frontalface_default) is
    the teacher.
  - face-free photos: set_images.py's two lists (those of make-face-set.py).
  - python3-skimage's 100 LFW faces are not used: they are tight crops,
    eyebrows to chin, with no margin to learn this convention from.

The split (fixed; change it only with the docs):
  - by person for the photos: PHOTOS' "train" faces train, its "heldout"
    faces are held out (near-identical photos stay on one side);
  - by time for Megamind.avi: frames 0-147 train, 148-188 tune, 189-269
    are held out (as teach.py: the last 30%, the 15% before it);
  - FACE_FREE_TRAINING backgrounds train, FACE_FREE_HELDOUT are held out.
  - Tuning and held-out images are whole scenes scaled so that the face is
    60, 100 and 160 pixels wide (the face sizes of a camera a few metres
    away); held-out Megamind frames are every 4th, tuning frames every
    2nd, each kept only where the teacher gives exactly one face.
Training images are written at their own size: the trainer cuts and
scales the boxes itself.

Output, in OUT (default build/face-scenes), the layout of teach.py's sets
(so student.py trains on it):
  images/*.pgm          every image of the set, grey
  train.txt             training faces (waldboost-train -a)
  train-backgrounds.txt face-free training photos (waldboost-train -n)
  tune.txt              tuning scenes, for the final threshold
  heldout.txt           held-out scenes (waldboost-evaluate -a)
  heldout-photos.txt, heldout-film.txt
                        the same, photos of people and Megamind.avi apart
  heldout-frames.txt    the held-out scenes' paths (student.py's weak
                        classifiers per window)
  heldout-backgrounds.txt  held-out face-free photos (waldboost-evaluate -b)
  summary.json          the window (24x24) and the counts

  pipelines/training/make-face-scenes.py [--testdata DIR] [--skimage-data DIR] [--build DIR] [OUT]
"""
import argparse
import json
import os
import subprocess
import sys

import numpy as np
from PIL import Image

from set_images import FACE_FREE_HELDOUT, FACE_FREE_TRAINING, gray, write_pgm

# (part, source ("testdata": --testdata), file name, crop (x0, y0, x1, y1) or None, face boxes (x, y, w, h) in the crop)
PHOTOS = [
    ("train", "testdata", "messi5.jpg", None, [(226, 93, 39, 39)]),
    ("train", "testdata", "basketball1.png", None, [(71, 90, 43, 43)]),
    ("train", "testdata", "basketball2.png", None, [(71, 89, 43, 43)]),
    ("train", "testdata", "227943776_1.jpg", None, [(111, 96, 181, 181)]),
    ("train", "testdata", "face_swapped.jpg", None, [(87, 67, 137, 137)]),
    ("train", "testdata", "example.jpg", (0, 0, 387, 580), [(26, 156, 339, 339)]),
    ("train", "testdata", "example.jpg", (775, 0, 1162, 580), [(10, 153, 355, 355)]),
    ("train", "testdata", "05.jpg", (0, 0, 538, 512), [(118, 108, 312, 312)]),
    ("heldout", "testdata", "astronaut.png", None, [(177, 66, 97, 97)]),
    ("heldout", "testdata", "grace_hopper.jpg", None, [(145, 99, 239, 239)]),
    ("heldout", "testdata", "230501201_1.jpg", None, [(115, 212, 372, 372)]),
    ("heldout", "testdata", "12.jpg", (0, 0, 538, 512), [(115, 30, 323, 323)]),
    ("heldout", "testdata", "blurred.png", None, [(214, 204, 183, 183)]),
]
VIDEO = "Megamind.avi"
TRAIN_FRAMES = range(0, 148)
TUNE_FRAMES = range(148, 189, 2)
HELDOUT_FRAMES = range(189, 270, 4)
FACE_WIDTHS = (60, 100, 160)
TEACHER = "/usr/share/opencv4/haarcascades/haarcascade_frontalface_alt2.xml"
TEACHER_ARGS = ["-n", "3", "--min-size", "60x60"]
WINDOW = (24, 24)


def label_frames(tool, paths):
    """The teacher's boxes of every frame, in order."""
    run = subprocess.run([tool, "-c", TEACHER] + TEACHER_ARGS + paths, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        sys.exit("make-face-scenes: the teacher did not run:\n" + run.stderr.strip())
    return [[(d["x"], d["y"], d["width"], d["height"]) for d in image["detections"]]
            for image in json.loads(run.stdout)["images"]]


def scaled_scenes(images, name, pixels, box):
    """The scene scaled so that its face is each of FACE_WIDTHS wide; appends
    (file name, pixels, box) to `images`."""
    for width in FACE_WIDTHS:
        factor = width / box[2]
        size = (max(1, round(pixels.shape[1] * factor)), max(1, round(pixels.shape[0] * factor)))
        scaled = np.asarray(Image.fromarray(pixels).resize(size, Image.BILINEAR))
        scaled_box = tuple(round(v * factor) for v in box)
        images.append(("%s-%d.pgm" % (name, width), scaled, [scaled_box]))


def write_part(out, images, path, comment):
    with open(os.path.join(out, path), "w") as f:
        f.write("# %s (pipelines/training/make-face-scenes.py)\n" % comment)
        for name, pixels, boxes in images:
            write_pgm(os.path.join(out, "images", name), pixels)
            f.write("images/%s %d %s\n" % (name, len(boxes), " ".join("%d %d %d %d" % b for b in boxes)))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="build/face-scenes")
    parser.add_argument("--testdata", default="build/testdata",
                        help="the photos and Megamind.avi, as tests/fetch-test-data.sh fetches them")
    parser.add_argument("--skimage-data", default="/usr/lib/python3/dist-packages/skimage/data",
                        help="python3-skimage's data folder")
    parser.add_argument("--build", default="build", help="the meson build folder (its waldboost-detect labels)")
    args = parser.parse_args()

    testdata = os.path.abspath(args.testdata)
    folders = {"opencv": testdata, "testdata": testdata, "skimage": os.path.abspath(args.skimage_data)}
    tool = os.path.join(args.build, "gst/tools/detect/waldboost-detect")
    needed = ([os.path.join(folders[s], n) for _, s, n, _, _ in PHOTOS] + [os.path.join(folders["opencv"], VIDEO)]
              + [os.path.join(folders[s], n) for s, n in FACE_FREE_TRAINING + FACE_FREE_HELDOUT] + [TEACHER])
    missing = [p for p in needed if not os.path.isfile(p)]
    if missing:
        sys.exit("make-face-scenes: missing %s (fetch them with tests/fetch-test-data.sh; opencv-data and "
                 "python3-skimage come with build-aux/install-deps.sh --tests)" % ", ".join(sorted(set(missing))))
    if not os.access(tool, os.X_OK):
        sys.exit("make-face-scenes: %s is missing: ninja -C %s" % (tool, args.build))

    out = os.path.abspath(args.out)
    os.makedirs(os.path.join(out, "images"), exist_ok=True)
    for name in os.listdir(os.path.join(out, "images")):
        if name.endswith(".pgm"):
            os.remove(os.path.join(out, "images", name))

    parts = {"train": [], "tune": [], "heldout": []}
    for part, source, name, crop, boxes in PHOTOS:
        image = gray(os.path.join(folders[source], name))
        if crop:
            image = image.crop(crop)
        pixels = np.asarray(image)
        stem = os.path.splitext(name)[0] + ("-%d" % crop[0] if crop else "")
        for x, y, w, h in boxes:
            if x < 0 or y < 0 or x + w > pixels.shape[1] or y + h > pixels.shape[0]:
                sys.exit("make-face-scenes: %s: the box %s leaves the image" % (name, (x, y, w, h)))
        if part == "train":
            parts["train"].append(("photo-%s.pgm" % stem, pixels, boxes))
        else:
            scaled_scenes(parts["heldout"], "photo-" + stem, pixels, boxes[0])

    # Megamind.avi's frames, through GStreamer (teach.py's reader), then the teacher.
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import teach

    frames_dir = os.path.join(out, "frames")
    os.makedirs(frames_dir, exist_ok=True)
    total = [0]
    frames = {}
    try:
        for index, pixels in teach.video_frames(os.path.join(folders["opencv"], VIDEO), 1, total):
            frames[index] = pixels
    except teach.Failure as error:
        sys.exit("make-face-scenes: %s" % error)
    if total[0] != 270:
        sys.exit("make-face-scenes: %s has %d frames, not 270" % (VIDEO, total[0]))
    paths = []
    for index in range(total[0]):
        paths.append(os.path.join(frames_dir, "megamind-%03d.pgm" % index))
        write_pgm(paths[-1], frames[index])
    labels = label_frames(tool, paths)
    dropped = 0
    for index in TRAIN_FRAMES:
        if labels[index]:
            parts["train"].append(("megamind-%03d.pgm" % index, frames[index], labels[index]))
    for part, indices in (("tune", TUNE_FRAMES), ("heldout", HELDOUT_FRAMES)):
        for index in indices:
            if len(labels[index]) != 1:
                dropped += 1
                continue
            scaled_scenes(parts[part], "megamind-%03d" % index, frames[index], labels[index][0])
    for path in paths:
        os.remove(path)
    os.rmdir(frames_dir)

    write_part(out, parts["train"], "train.txt", "training faces: photos and Megamind.avi frames 0-147")
    write_part(out, parts["tune"], "tune.txt", "tuning scenes: Megamind.avi frames 148-188, faces of %s pixels"
               % ", ".join(map(str, FACE_WIDTHS)))
    sizes = ", ".join(map(str, FACE_WIDTHS))
    write_part(out, parts["heldout"], "heldout.txt", "held-out scenes: photos and Megamind.avi frames 189-269, "
               "faces of %s pixels" % sizes)
    # The same scenes apart: real people, and the film's animated ones.
    for path, prefix, what in (("heldout-photos.txt", "photo-", "photos"),
                               ("heldout-film.txt", "megamind-", "Megamind.avi frames 189-269")):
        with open(os.path.join(out, path), "w") as f:
            f.write("# held-out scenes: %s, faces of %s pixels (pipelines/training/make-face-scenes.py)\n"
                    % (what, sizes))
            f.write("".join("images/%s %d %s\n" % (name, len(boxes), " ".join("%d %d %d %d" % b for b in boxes))
                            for name, _, boxes in parts["heldout"] if name.startswith(prefix)))
    with open(os.path.join(out, "heldout-frames.txt"), "w") as f:
        f.write("".join("images/%s\n" % name for name, _, _ in parts["heldout"]))
    for path, sources, what in (("train-backgrounds.txt", FACE_FREE_TRAINING, "training"),
                                ("heldout-backgrounds.txt", FACE_FREE_HELDOUT, "held-out")):
        with open(os.path.join(out, path), "w") as f:
            f.write("# %s backgrounds: face-free, from opencv-doc and python3-skimage\n" % what)
            f.write("".join(os.path.join(folders[s], n) + "\n" for s, n in sources))

    counts = {part: sum(len(boxes) for _, _, boxes in images) for part, images in parts.items()}
    summary = {"window": list(WINDOW), "teacher": None, "labeller": TEACHER, "frames_heldout": len(parts["heldout"]),
               "faces": counts, "images": {part: len(images) for part, images in parts.items()},
               "frames_without_one_face": dropped}
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
        f.write("\n")
    print("make-face-scenes: %d training faces in %d images; %d tuning and %d held-out scenes (faces of %s pixels); "
          "%d tuning or held-out frames without exactly one face left out; in %s"
          % (counts["train"], len(parts["train"]), len(parts["tune"]), len(parts["heldout"]),
             ", ".join(map(str, FACE_WIDTHS)), dropped, out))


if __name__ == "__main__":
    main()
