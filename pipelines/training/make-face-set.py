#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Writes the face set of docs/quality.md ("Trained face detector") from
Debian's packages: a fixed training / held-out split for waldboost-train
and waldboost-evaluate.

Sources (nothing is downloaded here):
  - python3-skimage's skimage/data/lfw_subset.npy: 200 grey images of 25x25,
    the first 100 faces from LFW (tight crops, eyebrows to chin), the other
    100 not. Only the faces are used: the others are patches of LFW photos,
    some of them parts of faces, so they are no face-free background.
  - face-free photos: python3-skimage's data folder (installed) and
    opencv-doc's examples (tests/fetch-test-data.sh puts them in
    build/testdata).

The split (fixed; change it only with the docs):
  - LFW faces 0-69 are the training positives, 70-99 are held out.
  - The backgrounds are split by file name, set_images.py's lists: the held-out
    ones are whole scenes (streets, buildings, a car, fruit, a desk, brick,
    coffee) kept apart from the training ones; pairs of near-identical
    photos (leuvenA/B, ela_original/modified, aloeL/R, rubberwhale1/2) stay
    on one side.
  - Each held-out face is tested at three sizes, 36, 54 and 81 pixels: scaled
    up (bilinear) and pasted at a random place into a canvas three times its
    size cut at a random place from a held-out background (seed 34). A
    detector must find it among background; waldboost-evaluate counts it
    found when a detection's IoU with the pasted square is at least 0.5.

Output, in OUT (default build/face-set):
  train-faces/lfw-NNN.pgm       the 70 training faces, 25x25 (waldboost-train -p)
  train-backgrounds.txt         training backgrounds (waldboost-train -n)
  heldout-faces/*.pgm, heldout-faces.txt
                                90 canvases and their annotation file
                                (OpenCV's format; waldboost-evaluate -a)
  heldout-backgrounds.txt       held-out face-free images (waldboost-evaluate -b)
  tune-faces/*.pgm, tune-faces.txt
                                the same test made of the training faces on
                                training backgrounds (210 canvases), for
                                choosing settings without the held-out data

  pipelines/training/make-face-set.py [--testdata DIR] [--skimage-data DIR] [OUT]
"""
import argparse
import os
import sys

import numpy as np
from PIL import Image

from set_images import FACE_FREE_HELDOUT, FACE_FREE_TRAINING, gray, write_pgm

TRAIN_FACES = range(0, 70)
HELDOUT_FACES = range(70, 100)
HELDOUT_SIZES = (36, 54, 81)
CANVAS_SCALE = 3
SEED = 34

TRAIN_BACKGROUNDS = FACE_FREE_TRAINING
HELDOUT_BACKGROUNDS = FACE_FREE_HELDOUT


def paste_faces(out, folder, indices, faces, backgrounds, rng):
    """Each face of `indices` at every size of HELDOUT_SIZES, scaled up and
    pasted at a random place into a canvas cut at a random place from one of
    `backgrounds`; returns the annotation lines."""
    lines = []
    for i in indices:
        for size in HELDOUT_SIZES:
            side = CANVAS_SCALE * size
            fits = [b for b in backgrounds if b.shape[0] >= side and b.shape[1] >= side]
            background = fits[rng.randint(len(fits))]
            bh, bw = background.shape
            y0, x0 = rng.randint(bh - side + 1), rng.randint(bw - side + 1)
            canvas = background[y0:y0 + side, x0:x0 + side].copy()
            face = np.asarray(Image.fromarray(faces[i]).resize((size, size), Image.BILINEAR))
            x, y = rng.randint(side - size + 1), rng.randint(side - size + 1)
            canvas[y:y + size, x:x + size] = face
            name = "lfw-%03d-%d.pgm" % (i, size)
            write_pgm(os.path.join(out, folder, name), canvas)
            lines.append("%s/%s 1 %d %d %d %d" % (folder, name, x, y, size, size))
    return lines


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", nargs="?", default="build/face-set")
    parser.add_argument("--testdata", default="build/testdata",
                        help="opencv-doc's images, as tests/fetch-test-data.sh fetches them")
    parser.add_argument("--skimage-data", default="/usr/lib/python3/dist-packages/skimage/data",
                        help="python3-skimage's data folder")
    args = parser.parse_args()

    folders = {"opencv": os.path.abspath(args.testdata), "skimage": os.path.abspath(args.skimage_data)}
    lfw_path = os.path.join(folders["skimage"], "lfw_subset.npy")
    missing = [p for p in [lfw_path] + [os.path.join(folders[s], n) for s, n in TRAIN_BACKGROUNDS + HELDOUT_BACKGROUNDS]
               if not os.path.isfile(p)]
    if missing:
        sys.exit("make-face-set: missing %s (install python3-skimage with build-aux/install-deps.sh --tests; "
                 "fetch opencv-doc's images with tests/fetch-test-data.sh)" % ", ".join(missing))
    lfw = np.load(lfw_path)
    if lfw.shape != (200, 25, 25):
        sys.exit("make-face-set: %s holds %s, not 200 images of 25x25" % (lfw_path, lfw.shape))
    faces = np.clip(np.rint(lfw[:100] * 255.0), 0, 255).astype(np.uint8)

    out = os.path.abspath(args.out)
    for sub in ("train-faces", "heldout-faces", "tune-faces"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
        for name in os.listdir(os.path.join(out, sub)):
            if name.endswith(".pgm"):
                os.remove(os.path.join(out, sub, name))

    for i in TRAIN_FACES:
        write_pgm(os.path.join(out, "train-faces", "lfw-%03d.pgm" % i), faces[i])
    with open(os.path.join(out, "train-backgrounds.txt"), "w") as f:
        f.write("# training backgrounds: face-free, from opencv-doc and python3-skimage\n")
        for source, name in TRAIN_BACKGROUNDS:
            f.write(os.path.join(folders[source], name) + "\n")
    with open(os.path.join(out, "heldout-backgrounds.txt"), "w") as f:
        f.write("# held-out backgrounds: face-free, never used in training\n")
        for source, name in HELDOUT_BACKGROUNDS:
            f.write(os.path.join(folders[source], name) + "\n")

    rng = np.random.RandomState(SEED)
    heldout = [np.asarray(gray(os.path.join(folders[s], n))) for s, n in HELDOUT_BACKGROUNDS]
    lines = paste_faces(out, "heldout-faces", HELDOUT_FACES, faces, heldout, rng)
    # The same test built from training data only, to choose settings
    # (a final threshold) without looking at the held-out data.
    training = [np.asarray(gray(os.path.join(folders[s], n))) for s, n in TRAIN_BACKGROUNDS]
    tune_lines = paste_faces(out, "tune-faces", TRAIN_FACES, faces, training, rng)
    for name, faces_used, written in (("heldout-faces", HELDOUT_FACES, lines),
                                      ("tune-faces", TRAIN_FACES, tune_lines)):
        with open(os.path.join(out, name + ".txt"), "w") as f:
            f.write("# LFW faces %d-%d at %s pixels, each on a %s background (pipelines/training/make-face-set.py)\n"
                    % (faces_used[0], faces_used[-1], ", ".join(map(str, HELDOUT_SIZES)),
                       "held-out" if name == "heldout-faces" else "training"))
            f.write("\n".join(written) + "\n")

    megapixels = sum(b.size for b in heldout) / 1e6
    print("make-face-set: %d training faces, %d training backgrounds; %d held-out faces (%d canvases), "
          "%d held-out backgrounds (%.2f megapixels) in %s"
          % (len(TRAIN_FACES), len(TRAIN_BACKGROUNDS), len(HELDOUT_FACES), len(lines), len(HELDOUT_BACKGROUNDS),
             megapixels, out))


if __name__ == "__main__":
    main()
