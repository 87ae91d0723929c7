#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Measures face detectors on the whole-scene face set that
make-face-scenes.py wrote, and prints one table (issue 54, item 2).

    face-scenes-report.py --set DIR [--nms-iou F] [--json FILE] CLASSIFIER...

For each classifier, with waldboost-evaluate (the CPU reference detector,
scale factor 1.1, min neighbours 3, OpenCV's grouping, as detectMultiScale
and facedetect run them):
  - recall: the held-out faces found at IoU 0.5 (one to one), on the
    photos of people, on the film's frames and on both;
  - other boxes per megapixel on those scenes: detections that match no
    face (a second box on a face, a box on part of one, a false
    positive);
  - false positives per megapixel on the held-out face-free photos;
  - weak classifiers per window on those face-free photos.
With --nms-iou each classifier gets a second row with NMS grouping at
that IoU (0 merges any overlap: one box per face, at most).

Exit status: 0 done, 1 a classifier could not be measured, 2 usage.
"""
import argparse
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def evaluate(tool, classifier, args):
    run = subprocess.run([tool, "-c", classifier, "--json"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    if run.returncode != 0:
        sys.exit("face-scenes-report: waldboost-evaluate failed on %s:\n%s" % (classifier, run.stderr.strip()))
    return json.loads(run.stdout)


def measure(tool, folder, classifier, grouping):
    s = lambda name: os.path.join(folder, name)  # noqa: E731
    photos = evaluate(tool, classifier, ["-a", s("heldout-photos.txt")] + grouping)["objects"]
    film = evaluate(tool, classifier, ["-a", s("heldout-film.txt")] + grouping)["objects"]
    backgrounds = evaluate(tool, classifier, ["-b", s("heldout-backgrounds.txt")] + grouping)["backgrounds"]
    faces = photos["objects"] + film["objects"]
    found = photos["found"] + film["found"]
    other = photos["other_detections"] + film["other_detections"]
    megapixels = photos["megapixels"] + film["megapixels"]
    return {"classifier": classifier, "grouping": " ".join(grouping) or "opencv",
            "photos": [photos["found"], photos["objects"]], "film": [film["found"], film["objects"]],
            "recall": found / faces, "other_boxes": other, "scene_megapixels": megapixels,
            "other_per_megapixel": other / megapixels,
            "background_false_positives": backgrounds["false_positives"],
            "background_megapixels": backgrounds["megapixels"],
            "false_positives_per_megapixel": backgrounds["false_positives_per_megapixel"],
            "weak_per_window": backgrounds["weak_per_window"]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--set", required=True, metavar="DIR", help="the folder make-face-scenes.py wrote")
    parser.add_argument("--nms-iou", type=float, metavar="F", help="also measure with NMS grouping at this IoU")
    parser.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    parser.add_argument("--build", default=os.path.join(REPO, "build"), metavar="DIR")
    parser.add_argument("classifiers", nargs="+", metavar="CLASSIFIER")
    args = parser.parse_args()
    for name in ("heldout-photos.txt", "heldout-film.txt", "heldout-backgrounds.txt"):
        if not os.path.isfile(os.path.join(args.set, name)):
            parser.error("%s has no %s: write the set with make-face-scenes.py" % (args.set, name))
    tool = os.path.join(args.build, "gst/tools/evaluate/waldboost-evaluate")
    groupings = [[]] + ([["--grouping", "nms", "--nms-iou", "%g" % args.nms_iou]] if args.nms_iou is not None
                        else [])
    rows = [measure(tool, args.set, c, g) for c in args.classifiers for g in groupings]

    print("| classifier | grouping | photos found | film frames found | recall | other boxes on the scenes "
          "(per megapixel) | false positives on face-free photos (per megapixel) | weak classifiers per window |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print("| %s | %s | %d / %d | %d / %d | %.3f | %d (%.2f) | %d (%.2f) | %.2f |"
              % (os.path.basename(r["classifier"]), r["grouping"].replace("--grouping ", "").replace("--nms-iou ", "IoU "),
                 r["photos"][0], r["photos"][1], r["film"][0], r["film"][1], r["recall"], r["other_boxes"],
                 r["other_per_megapixel"], r["background_false_positives"], r["false_positives_per_megapixel"],
                 r["weak_per_window"]))
    megapixels = rows[0]["scene_megapixels"], rows[0]["background_megapixels"]
    print("(held-out scenes: %.2f megapixels; face-free photos: %.2f megapixels)" % megapixels)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
