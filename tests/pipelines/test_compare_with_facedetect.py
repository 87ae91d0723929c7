#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/compare-with-facedetect.sh (suite "pipelines"): OpenCV's own
GStreamer element, facedetect (Debian's gstreamer1.0-opencv), is the
reference. On the same RGB frames, with the same cascade and settings,
waldboostdetect gives facedetect's boxes in every frame:

- 60 frames of Megamind.avi with the script's defaults
  (lbpcascade_frontalface, smallest face 24x24);
- 60 frames of vtest.avi with haarcascade_upperbody, whose 22x18 window is
  not square, and facedetect's 30x30 smallest object: min-height gives the
  height that min-size alone would derive from the window (25).

Each run must also find objects (a comparison of two empty lists would
pass), print both speed ratios (not checked: a test is no benchmark) and
exit 0. A clip 722 pixels wide, where facedetect searches a sheared image
(it reads an RGB row without GStreamer's padding), must give boxes that
differ and exit status 3, so that a script can tell.
Exit 77 without PyGObject, the test media, facedetect or avenc_ffv1
(gstreamer1.0-libav)."""
import os
import re
import subprocess
import sys
import tempfile

import recipes
from recipes import Gst, check

FRAMES = 60
CASES = [
    # video, cascade (None: the script's default), MIN_SIZE, fewest detections
    ("Megamind.avi", None, None, FRAMES // 2),
    ("vtest.avi", "/usr/share/opencv4/haarcascades/haarcascade_upperbody.xml", "30", FRAMES // 2),
]


def compare(clip, frames, cascade, min_size, fewest):
    env = recipes.script_env()
    if cascade:
        env["CASCADE"] = cascade
    if min_size:
        env["MIN_SIZE"] = min_size
    what = f"{os.path.basename(clip)} with {os.path.basename(cascade or 'the default cascade')}"
    result = subprocess.run(["sh", recipes.script("compare-with-facedetect.sh"), clip], env=env,
                            capture_output=True, text=True, timeout=300)
    print(result.stdout, result.stderr[-2000:] if result.returncode else "", flush=True)
    if not check(result.returncode == 0, f"{what}: the script exited with {result.returncode}, not 0"):
        return
    counts = {name: int(n) for name, n in re.findall(r"^(facedetect|waldboostdetect, RGB \(run 2\)) .* detections +(\d+)$",
                                                      result.stdout, re.M)}
    check(counts.get("facedetect", 0) >= fewest,
          f"{what}: facedetect found {counts.get('facedetect')} objects, fewer than {fewest}: nothing to compare")
    check(counts.get("facedetect") == counts.get("waldboostdetect, RGB (run 2)"), f"{what}: the counts {counts}")
    same = re.search(r"^boxes on RGB: the same in (\d+) of (\d+) frames \(messages: facedetect (\d+), "
                     r"waldboostdetect (\d+)\)$", result.stdout, re.M)
    if check(same, f"{what}: no line comparing the boxes"):
        numbers = [int(n) for n in same.groups()]
        # Every frame of the clip: make_clip's cut is not exact (identity
        # eos-after behind a threaded decoder lets one frame more or less
        # through), so the clip's own count is the measure.
        check(numbers == [frames] * 4,
              f"{what}: the same boxes in {numbers[0]} of {numbers[1]} frames "
              f"({numbers[2]} and {numbers[3]} messages), where the clip has {frames} frames")
    check(re.search(r"^pipeline time facedetect / waldboostdetect: [0-9.]+x on RGB \(run 2\), [0-9.]+x on the "
                    r"decoder's format$", result.stdout, re.M), f"{what}: no speed ratios")


def compare_sheared(work):
    """facedetect's boxes on a width that is not a multiple of 4 differ,
    and the script's status says so."""
    clip = os.path.join(work, "sheared.mkv")
    recipes.run_pipeline(f'filesrc location="{recipes.test_media("Megamind.avi")}" ! decodebin ! videoconvert '
                         '! videoscale ! video/x-raw,format=I420,width=722,height=528 ! identity eos-after=10 '
                         f'! avenc_ffv1 ! matroskamux ! filesink location="{clip}"')
    result = subprocess.run(["sh", recipes.script("compare-with-facedetect.sh"), clip], env=recipes.script_env(),
                            capture_output=True, text=True, timeout=300)
    print(result.stdout, result.stderr[-2000:], flush=True)
    check(result.returncode == 3, f"a sheared clip: the script exited with {result.returncode}, not 3")
    same = re.search(r"^boxes on RGB: the same in (\d+) of (\d+) frames", result.stdout, re.M)
    check(same and int(same.group(1)) < int(same.group(2)), "a sheared clip: no frame counted as differing")
    check(re.search(r"^first frames whose boxes differ \(from 0\): \d", result.stdout, re.M),
          "a sheared clip: no list of the frames that differ")


def main():
    for element in ("facedetect", "avenc_ffv1"):
        if not Gst.ElementFactory.find(element):
            print(f"SKIP: {element} missing (Debian: gstreamer1.0-opencv, gstreamer1.0-libav)")
            sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        for video, cascade, min_size, fewest in CASES:
            clip = recipes.make_clip(recipes.test_media(video), FRAMES, os.path.join(work, video + ".mkv"))
            frames = len(recipes.decode_frames(clip)[0])
            print(f"{video}: a clip of {frames} frames", flush=True)
            if check(frames >= FRAMES - 5, f"{video}: the clip has {frames} frames, not about {FRAMES}"):
                compare(clip, frames, cascade, min_size, fewest)
        compare_sheared(work)
    recipes.finish()


if __name__ == "__main__":
    main()
