# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Synthetic footage for the teacher tests: a fixed camera over a textured
scene, with targets (a bright ring round a dark disc, crossed by a dark
bar: nothing in the scene looks like it) that move across it at several
sizes. The truth is known exactly, so the synthetic teacher is the truth
and the student's agreement with it is what the trainer learnt."""
import json
import os

import numpy as np
from PIL import Image

WIDTH, HEIGHT = 192, 144


def scene(seed=7):
    """Smooth texture: noise blurred by block averaging, with some edges."""
    rng = np.random.default_rng(seed)
    coarse = rng.integers(40, 200, size=(HEIGHT // 8 + 1, WIDTH // 8 + 1)).astype(np.float64)
    image = np.kron(coarse, np.ones((8, 8)))[:HEIGHT, :WIDTH]
    image += rng.normal(0, 12, size=image.shape)
    # Distractors, so that the negatives have structure: rings without the
    # bar, discs, bars alone, at the targets' sizes.
    for _ in range(14):
        s = int(rng.integers(16, 44))
        x, y = int(rng.integers(0, WIDTH - s)), int(rng.integers(0, HEIGHT - s))
        yy, xx = np.mgrid[0:s, 0:s]
        r = np.hypot(xx - (s - 1) / 2.0, yy - (s - 1) / 2.0) / (s / 2.0)
        patch = image[y:y + s, x:x + s]
        kind = rng.integers(0, 3)
        if kind == 0:
            patch[(r < 0.95) & (r >= 0.6)] = 235
        elif kind == 1:
            patch[r < 0.8] = 30 if rng.integers(0, 2) else 230
        else:
            patch[np.abs(yy - (s - 1) / 2.0) < s * 0.08] = 25
    return np.clip(image, 0, 255)


def draw_target(image, box):
    x, y, s, _ = box
    yy, xx = np.mgrid[0:s, 0:s]
    r = np.hypot(xx - (s - 1) / 2.0, yy - (s - 1) / 2.0) / (s / 2.0)
    patch = image[y:y + s, x:x + s]
    patch[r < 0.95] = 235
    patch[r < 0.6] = 25
    bar = (np.abs(yy - (s - 1) / 2.0) < s * 0.08) & (r < 0.95)
    patch[bar] = 25


def target_boxes(frame, count):
    """Two targets that cross the frame in `count` frames, of sizes 24-40."""
    t = frame / float(count)
    boxes = []
    for k, (size, y, speed) in enumerate(((28, 20, 1.0), (36, 80, 0.7))):
        span = WIDTH - size - 4
        x = int(2 + (t * speed * span + k * span / 2.0) % span)
        boxes.append((x, y + int(8 * np.sin(6 * t + k)), size, size))
    return boxes


def frames(count, seed=7):
    """[(grey frame, [boxes])] for `count` frames."""
    base = scene(seed)
    out = []
    rng = np.random.default_rng(seed + 1)
    for f in range(count):
        image = base.copy()
        boxes = target_boxes(f, count)
        for box in boxes:
            draw_target(image, box)
        image = np.clip(image + rng.normal(0, 4, size=image.shape), 0, 255).astype(np.uint8)
        out.append((image, boxes))
    return out


def write_folder(folder, footage):
    os.makedirs(folder)
    for f, (image, _) in enumerate(footage):
        Image.fromarray(image).save(os.path.join(folder, "frame-%04d.png" % f))


def write_teacher(path, footage, label="target"):
    """The truth as a teacher's JSON lines, waldboostmetaconvert's documents."""
    with open(path, "w") as f:
        for n, (_, boxes) in enumerate(footage):
            f.write(json.dumps({"schema": "waldboost-metadata/1", "type": "frame", "frame": n, "objects": [
                {"x": x, "y": y, "w": w, "h": h, "detection": {"label": label}} for x, y, w, h in boxes]}) + "\n")
