#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/training/make-face-set.py as a user runs it: the split it
writes is the documented one (LFW faces 0-69 for training, 70-99 held out,
no background on both sides), every held-out box lies inside its canvas
and holds the LFW face it names, and a second run writes the same files.
Skips (77) without python3-skimage or opencv-doc's images.
  tests/face_set.py MAKE_FACE_SET TESTDATA"""
import filecmp
import os
import subprocess
import sys
import tempfile

SKIMAGE = "/usr/lib/python3/dist-packages/skimage/data"


def read_pgm(path):
    """A binary PGM: three header numbers, each followed by one whitespace."""
    with open(path, "rb") as f:
        data = f.read()
    assert data[:2] == b"P5", path
    fields, pos = [], 2
    while len(fields) < 3:
        while data[pos:pos + 1].isspace():
            pos += 1
        start = pos
        while data[pos:pos + 1].isdigit():
            pos += 1
        fields.append(int(data[start:pos]))
    width, height, depth = fields
    pixels = data[pos + 1:]
    assert depth == 255 and len(pixels) == width * height, path
    return width, height, pixels


def main():
    script, testdata = sys.argv[1], sys.argv[2]
    if not os.path.isfile(os.path.join(SKIMAGE, "lfw_subset.npy")) or not os.path.isfile(
            os.path.join(testdata, "leuvenB.jpg")):
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            sys.exit("face set: python3-skimage or opencv-doc's images missing")
        print("SKIP: python3-skimage or opencv-doc's images missing (tests/fetch-test-data.sh)")
        sys.exit(77)
    import numpy as np  # python3-numpy comes with python3-skimage

    work = tempfile.mkdtemp()
    first, second = os.path.join(work, "a"), os.path.join(work, "b")
    for out in (first, second):
        subprocess.run([script, "--testdata", testdata, out], check=True, stdout=subprocess.DEVNULL)

    train = sorted(os.listdir(os.path.join(first, "train-faces")))
    assert train == ["lfw-%03d.pgm" % i for i in range(70)], train[:3]
    lists = {}
    for name in ("train-backgrounds.txt", "heldout-backgrounds.txt"):
        with open(os.path.join(first, name)) as f:
            lists[name] = [line.strip() for line in f if line.strip() and not line.startswith("#")]
        assert all(os.path.isfile(p) for p in lists[name]), name
    names = {k: {os.path.basename(p) for p in v} for k, v in lists.items()}
    assert not names["train-backgrounds.txt"] & names["heldout-backgrounds.txt"]
    assert len(names["heldout-backgrounds.txt"]) == 9 and len(names["train-backgrounds.txt"]) == 36, names

    # Each held-out box holds its face: the canvas's box, shrunk back to
    # 25x25 by averaging, against the LFW face (independent of the
    # script's bilinear scaling: a face is far closer to itself than to
    # the other faces).
    lfw = np.load(os.path.join(SKIMAGE, "lfw_subset.npy"))[:100] * 255.0
    for annotations, wanted in (("heldout-faces.txt", range(70, 100)), ("tune-faces.txt", range(70))):
        with open(os.path.join(first, annotations)) as f:
            lines = [line.split() for line in f if line.strip() and not line.startswith("#")]
        assert len(lines) == 3 * len(wanted), (annotations, len(lines))
        seen = set()
        for path, count, x, y, w, h in lines:
            x, y, w, h = map(int, (x, y, w, h))
            assert count == "1" and w == h and w in (36, 54, 81), (path, w)
            width, height, pixels = read_pgm(os.path.join(first, path))
            assert 0 <= x and 0 <= y and x + w <= width and y + h <= height, (path, x, y, w, width)
            canvas = np.frombuffer(pixels, dtype=np.uint8).reshape(height, width).astype(float)
            box = canvas[y:y + h, x:x + w]
            edges = np.linspace(0, w, 26).round().astype(int)
            small = np.array([[box[edges[r]:edges[r + 1], edges[c]:edges[c + 1]].mean() for c in range(25)]
                              for r in range(25)])
            face = int(os.path.basename(path).split("-")[1])
            distances = ((lfw - small) ** 2).mean(axis=(1, 2))
            assert distances.argmin() == face, (path, distances.argmin())
            seen.add(face)
        assert seen == set(wanted), annotations

    comparison = filecmp.dircmp(first, second)
    assert not comparison.diff_files, comparison.diff_files
    for sub in ("train-faces", "heldout-faces", "tune-faces"):
        files = os.listdir(os.path.join(first, sub))
        match, mismatch, errors = filecmp.cmpfiles(os.path.join(first, sub), os.path.join(second, sub), files,
                                                   shallow=False)
        assert not mismatch and not errors, (sub, mismatch, errors)
    print("face set: 70 training faces, 90 held-out and 210 tuning canvases, each box holding its face; "
          "the same files twice")


if __name__ == "__main__":
    main()
