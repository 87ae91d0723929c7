#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""teach.py --teacher CLASSIFIER labels footage with the classifier, at
the element for a video and with waldboost-detect for a folder, with its
strict settings, and both give the boxes the CPU reference detector gives.

The footage is one real photo (opencv-doc's messi5.jpg, on which
lbpcascade_frontalface finds two faces at min-neighbours 5) repeated: 12 frames
in a folder, and the same frames encoded losslessly (FFV1, grey) into a
Matroska file. Each run's teacher file has one line per frame, numbered
from 0, and on every frame the boxes waldboost-detect gives on the photo
at the teacher's settings (-n 5), computed here. The set's labels are
those boxes, every frame alike.

Then the same classifier at the element with interval=3 and
waldboostmetaconvert, its documents given to teach.py as the teacher's
lines: the frames between searches say "detection_skipped": true (the
search meta survives videoconvert and videoscale after the detector),
and teach.py uses only the searched frames, each with the reference's
boxes, where before it took the others as frames without faces.

  test_teacher_classifier.py TEACH BUILD CLASSIFIER
Skips (77) when messi5.jpg is missing, unless WALDBOOST_REQUIRE_TEST_DATA=1.
"""
import json
import os
import subprocess
import sys
import tempfile

from PIL import Image

FRAMES = 12


def fail(message):
    print("FAILED: " + message)
    sys.exit(1)


def teacher_boxes(path):
    frames = {}
    for line in open(path):
        doc = json.loads(line)
        if doc.get("type") == "event":
            continue
        items = doc.get("objects", doc.get("detections"))
        frames[doc["frame"]] = sorted((o["x"], o["y"], o.get("w", o.get("width")), o.get("h", o.get("height")))
                                      for o in items)
    return frames


def main():
    teach, build, classifier = sys.argv[1:4]
    photo = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", os.path.join(build, "testdata")), "messi5.jpg")
    if not os.path.isfile(photo):
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            fail("no %s (tests/fetch-test-data.sh)" % photo)
        print("SKIP: no %s" % photo)
        sys.exit(77)
    with tempfile.TemporaryDirectory() as work:
        # An even size for the encoder's chroma planes; the same pixels in the folder and the video.
        image = Image.open(photo).convert("L")
        image = image.crop((0, 0, image.width // 2 * 2, image.height // 2 * 2))
        folder = os.path.join(work, "frames")
        os.makedirs(folder)
        for f in range(FRAMES):
            image.save(os.path.join(folder, "frame-%04d.png" % f))
        video = os.path.join(work, "clip.mkv")
        run = subprocess.run(["gst-launch-1.0", "-q", "multifilesrc", "location=%s/frame-%%04d.png" % folder,
                              "caps=image/png,framerate=10/1", "!", "pngdec", "!", "videoconvert", "!",
                              "video/x-raw,format=GRAY8", "!", "avenc_ffv1", "!", "matroskamux", "!",
                              "filesink", "location=" + video],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if run.returncode != 0:
            fail("cannot encode the clip: " + run.stdout)
        run = subprocess.run([os.path.join(build, "gst/tools/detect/waldboost-detect"), "-c", classifier, "-n", "5",
                              os.path.join(folder, "frame-0000.png")], stdout=subprocess.PIPE, text=True)
        reference = sorted((d["x"], d["y"], d["width"], d["height"])
                           for d in json.loads(run.stdout)["images"][0]["detections"])
        if len(reference) < 2:
            fail("the reference finds %d faces on %s at min-neighbours 5" % (len(reference), photo))
        for name, source in (("folder", folder), ("video", video)):
            out = os.path.join(work, "set-" + name)
            run = subprocess.run([sys.executable, teach, "--teacher", classifier, "--every", "1", "--build", build,
                                  "-o", out, source], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            if run.returncode != 0:
                fail("%s: teach.py exit %d: %s" % (name, run.returncode, run.stderr))
            frames = teacher_boxes(os.path.join(out, "teacher-0.jsonl"))
            if sorted(frames) != list(range(FRAMES)):
                fail("%s: the teacher's frames are %s, not 0-%d" % (name, sorted(frames), FRAMES - 1))
            for f, boxes in frames.items():
                if boxes != reference:
                    fail("%s: frame %d: the teacher's boxes %s, the reference's %s" % (name, f, boxes, reference))
            labels = [line.split()[1:] for line in open(os.path.join(out, "train-frames.txt"))]
            if any(int(fields[0]) != len(reference) for fields in labels):
                fail("%s: training labels %s, %d boxes wanted on every frame" % (name, labels, len(reference)))
            print("ok: %s: %d frames, the reference's %d boxes on each" % (name, len(frames), len(reference)))
        interval_teacher(teach, build, classifier, work, video, reference)


def interval_teacher(teach, build, classifier, work, video, reference):
    jsonl = os.path.join(work, "interval.jsonl")
    env = dict(os.environ)
    env.setdefault("GST_PLUGIN_PATH", build)
    run = subprocess.run(["gst-launch-1.0", "-q", "filesrc", "location=" + video, "!", "decodebin", "!",
                          "waldboostdetect", "classifier=" + classifier, "min-neighbors=5", "interval=3", "!",
                          "videoconvert", "!", "videoscale", "!", "waldboostmetaconvert", "!", "waldboostmetapublish",
                          "file-path=" + jsonl, "!", "fakesink", "sync=false"],
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    if run.returncode != 0:
        fail("the teacher at interval=3: %s" % run.stdout)
    documents = [json.loads(line) for line in open(jsonl)]
    skipped = {d["frame"]: d.get("detection_skipped") for d in documents if d["type"] == "frame"}
    wanted = {f: f % 3 != 0 for f in range(FRAMES)}
    if skipped != wanted:
        fail("the teacher at interval=3: detection_skipped by frame %s, wanted %s" % (skipped, wanted))
    out = os.path.join(work, "set-interval")
    # Tuning from frame 6 (of 12), so that a searched frame tunes.
    run = subprocess.run([sys.executable, teach, "--teacher-detections", jsonl, "--every", "1", "--build", build,
                          "--tune-share", "0.2", "-o", out, video],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode != 0:
        fail("the teacher at interval=3: teach.py exit %d: %s" % (run.returncode, run.stderr))
    used = {}
    for name in ("train-frames.txt", "tune.txt", "heldout.txt"):
        for line in open(os.path.join(out, name)):
            fields = line.split()
            used[int(fields[0][-10:-4])] = int(fields[1])
    searched = [f for f in range(FRAMES) if f % 3 == 0]
    if sorted(used) != searched or any(count != len(reference) for count in used.values()):
        fail("the teacher at interval=3: the set's frames and box counts %s, wanted frames %s with %d boxes each"
             % (sorted(used.items()), searched, len(reference)))
    said = "%d frames not used" % (FRAMES - len(searched))
    if said not in run.stdout:
        fail("the teacher at interval=3: wanted %r in: %s" % (said, run.stdout))
    print("ok: a teacher at interval=3: frames %s used, each with the reference's %d boxes; %s"
          % (searched, len(reference), said))


if __name__ == "__main__":
    main()
