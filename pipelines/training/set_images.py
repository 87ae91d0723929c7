# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Image reading and writing shared by the training-set scripts
(make-face-set.py, make-face-scenes.py, make-pedestrian-set.py), and
the face-free photos of the face sets."""

import numpy as np
from PIL import Image

# Face-free photos, for the face sets (make-face-set.py,
# make-face-scenes.py): (source, file name); "opencv" is opencv-doc's examples
# (build/testdata), "skimage" python3-skimage's data folder. None shows a
# person; animals with faces (baboon, chicky_512, chelsea, squirrel_cls),
# drawn faces (graf1/3, HappyFish, ml, Blender_Suzanne) and the photos
# with people (messi5, basketball1/2, left*/right*, astronaut, camera) are
# in neither list.
FACE_FREE_TRAINING = [
    ("opencv", "aero1.jpg"), ("opencv", "aero3.jpg"), ("opencv", "aloeL.jpg"), ("opencv", "aloeR.jpg"),
    ("opencv", "apple.jpg"), ("opencv", "box.png"), ("opencv", "box_in_scene.png"), ("opencv", "butterfly.jpg"),
    ("opencv", "cards.png"), ("opencv", "digits.png"), ("opencv", "home.jpg"), ("opencv", "imageTextN.png"),
    ("opencv", "licenseplate_motion.jpg"), ("opencv", "orange.jpg"), ("opencv", "pca_test1.jpg"),
    ("opencv", "rubberwhale1.png"), ("opencv", "rubberwhale2.png"), ("opencv", "smarties.png"),
    ("opencv", "starry_night.jpg"), ("opencv", "stuff.jpg"), ("opencv", "sudoku.png"),
    ("opencv", "text_defocus.jpg"), ("opencv", "text_motion.jpg"),
    ("skimage", "cell.png"), ("skimage", "coins.png"), ("skimage", "grass.png"), ("skimage", "gravel.png"),
    ("skimage", "horse.png"), ("skimage", "hubble_deep_field.jpg"), ("skimage", "ihc.png"),
    ("skimage", "moon.png"), ("skimage", "motorcycle_right.png"), ("skimage", "page.png"),
    ("skimage", "retina.jpg"), ("skimage", "rocket.jpg"), ("skimage", "text.png"),
]
FACE_FREE_HELDOUT = [
    ("opencv", "board.jpg"), ("opencv", "building.jpg"), ("opencv", "ela_modified.jpg"),
    ("opencv", "ela_original.jpg"), ("opencv", "fruits.jpg"), ("opencv", "leuvenA.jpg"), ("opencv", "leuvenB.jpg"),
    ("skimage", "brick.png"), ("skimage", "coffee.png"),
]


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
