# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Image reading and writing shared by the training-set scripts
(make-face-set.py, make-pedestrian-set.py)."""

import numpy as np
from PIL import Image


def gray(path):
    """The image as 8-bit grey (PIL's ITU-R 601 luma, as the tools' own);
    transparent pixels over white."""
    image = Image.open(path)
    if image.mode in ("RGBA", "LA", "P"):
        image = image.convert("RGBA")
        flat = Image.new("RGBA", image.size, (255, 255, 255, 255))
        flat.alpha_composite(image)
        image = flat
    return image.convert("L")


def write_pgm(path, pixels):
    """Binary PGM of an 8-bit array (the tools read it through gdk-pixbuf)."""
    pixels = np.asarray(pixels, dtype=np.uint8)
    with open(path, "wb") as f:
        f.write(b"P5\n%d %d\n255\n" % (pixels.shape[1], pixels.shape[0]))
        f.write(pixels.tobytes())
