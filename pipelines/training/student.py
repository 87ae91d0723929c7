#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Trains a student on a set that teach.py made, and reports it against
its teacher on the held-out frames.

    student.py --set DIR -o STUDENT.xml --label L [--feature lbp|lrd|lrp]
               [--train-option OPTION]... [--teacher CLASSIFIER]
               [--fps-device SPEC] [--report FILE] [--build DIR]

Steps, each printed as it starts:
  1. waldboost-train on DIR/train.txt and DIR/train-backgrounds.txt, the
     window of DIR/summary.json, with a checkpoint (STUDENT.ck) so that
     step 3 does not train again. The recipe: --weak (400), 6,000
     negatives in the working set, 3 copies of every positive varied by a
     shift of up to 3%, +-20 grey levels and a contrast of 1 +- 0.2, plus
     their mirrors; --train-option adds to it or overrides it.
  2. The final threshold chosen on the tuning frames (DIR/tune.txt:
     neither trained on nor held out): of -40, -35, ... 20, and on past
     an end in steps of 5 while that end is as good as the best, the one
     whose agreement with the teacher (F1 at IoU 0.5) is highest, the
     higher threshold on a tie.
  3. That threshold written into STUDENT.xml (waldboost-train --resume
     --final-threshold: the same classifier, no training).
  4. On the held-out frames (DIR/heldout.txt): the teacher's boxes found
     (recall), the student's boxes that are the teacher's (precision) and
     F1, at IoU 0.5, one to one; weak classifiers per window over every
     window of the held-out frames, for the student and (when a classifier)
     the teacher; waldboost-evaluate, CPU reference detector, scale factor
     1.1, min neighbours 3 for the student (the teacher's own settings for
     the teacher).
  5. Frames per second at the element (waldboost-pipeline-bench, one
     stream of the held-out frames at their size, after the preroll) for
     the student and the teacher, on --fps-device (default auto: the first
     OpenCL GPU, else PoCL on the CPU).
  6. The camera's sizes: the smallest positive of the training frames,
     less one pyramid step (10%), is the min-size this camera needs. Steps
     4 and 5 again with it, for the student and the teacher alike (a user
     of either would set it; the teacher's is less teach.py's margin, in
     its own boxes' convention): the agreement, and both frame rates.
The teacher is summary.json's classifier, or --teacher (the classifier
whose JSON lines the set was made from; without one the teacher's weak
classifiers per window and frame rate are not reported). --beside adds
another classifier's weak classifiers per window and frame rate (for a
teacher that is no classifier, as HOG).

Exit status: 0 done, 1 a step failed (its output is shown), 2 usage.
"""
import argparse
import json
import os
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
THRESHOLD_STEP = 5
THRESHOLDS = tuple(range(-40, 25, THRESHOLD_STEP))
THRESHOLD_LIMIT = 200  # as far as the sweep goes past THRESHOLDS' ends
RECIPE = ["--weak", "400", "--negative-count", "6000", "--copies", "3", "--mirror", "--shift", "0.03",
          "--brightness", "20", "--contrast", "0.2"]


class Failure(Exception):
    pass


def run(command, what, warnings=()):
    """The command's output; its stderr lines that hold one of `warnings`
    are passed on."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise Failure("%s failed (exit %d): %s\n%s" % (what, done.returncode, " ".join(command),
                                                       (done.stderr or done.stdout).strip()[-3000:]))
    for line in done.stderr.splitlines():
        if any(w in line for w in warnings):
            print(line, file=sys.stderr, flush=True)
    return done.stdout


def step(text):
    print("student: " + text, flush=True)


def agreement(objects):
    """Recall, precision and F1 against the teacher's boxes, from
    waldboost-evaluate's "objects" block."""
    found, labels, other = objects["found"], objects["objects"], objects["other_detections"]
    recall = found / labels if labels else 0.0
    precision = found / (found + other) if found + other else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"labels": labels, "found": found, "other_detections": other, "recall": recall,
            "precision": precision, "f1": f1}


def evaluate(tools, classifier, extra):
    return json.loads(run([os.path.join(tools, "evaluate/waldboost-evaluate"), "-c", classifier, "--json"] + extra,
                          "waldboost-evaluate"))


def sweep_thresholds(agreement_at):
    """The final thresholds tried on the tuning frames, and the best: of
    THRESHOLDS, and on past an end in the same steps while that end is as
    good as the best (and the F1 is not the same everywhere), up to
    THRESHOLD_LIMIT; the highest F1, the higher threshold on a tie.
    agreement_at(t) gives agreement()'s dict at threshold t."""
    tried = {t: dict(agreement_at(t), threshold=t) for t in THRESHOLDS}
    while True:
        f1 = {t: round(a["f1"], 6) for t, a in tried.items()}
        top, low, high = max(f1.values()), min(tried), max(tried)
        if top == min(f1.values()):
            break
        if f1[low] == top and low - THRESHOLD_STEP >= -THRESHOLD_LIMIT:
            t = low - THRESHOLD_STEP
        elif f1[high] == top and high + THRESHOLD_STEP <= THRESHOLD_LIMIT:
            t = high + THRESHOLD_STEP
        else:
            break
        tried[t] = dict(agreement_at(t), threshold=t)
    sweep = [tried[t] for t in sorted(tried)]
    return sweep, max(sweep, key=lambda a: (round(a["f1"], 6), a["threshold"]))


def smallest_positive(train_list):
    """The smallest positive's width in the training frames (the boxes of
    train.txt, already in the window's shape and margin); None without any.
    Comment lines (#), which make-face-scenes.py writes, are skipped."""
    widths = []
    with open(train_list) as f:
        for line in f:
            fields = line.split()
            if len(fields) > 1 and not fields[0].startswith("#"):
                widths += [int(w) for w in fields[4:2 + 4 * int(fields[1]):4]]
    return min(widths) if widths else None


def frame_rate(tools, classifier, props, frames, device):
    """The element's frames per second on one stream of `frames`."""
    sizes = set()
    for path in frames:
        with open(path, "rb") as f:
            header = f.read(64).split()
        sizes.add((int(header[1]), int(header[2])))
    if len(sizes) != 1:
        return None  # frames of several sizes: no one row to report
    (width, height), = sizes
    report = os.path.join(os.path.dirname(frames[0]), "..", "fps-%d.json" % os.getpid())
    command = [os.path.join(tools, "pipeline-bench/waldboost-pipeline-bench"), "-n", "1", "-s",
               "%dx%d" % (width, height), "-f", "300", "--no-engine", "--no-source", "-d", device, "-c",
               classifier, "-j", report] + (["-p", props] if props else []) + frames
    run(command, "waldboost-pipeline-bench")
    with open(report) as f:
        row = json.load(f)["rows"][0]["element"]
    os.unlink(report)
    return {"fps": row["fps_total"], "device": device}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--set", required=True, metavar="DIR", help="the folder teach.py wrote")
    parser.add_argument("-o", "--output", required=True, metavar="STUDENT.xml")
    parser.add_argument("--label", required=True, help="the student's label")
    parser.add_argument("--feature", default="lbp", choices=("lbp", "lrd", "lrp"))
    parser.add_argument("--train-option", action="append", default=[], metavar="OPTION",
                        help="more waldboost-train options, e.g. --train-option=--weak=200 (repeatable)")
    parser.add_argument("--teacher", metavar="CLASSIFIER", help="the teacher, when the set came from JSON lines")
    parser.add_argument("--beside", metavar="CLASSIFIER",
                        help="another classifier whose speed to report beside the student's (a teacher that is "
                             "not a classifier, such as HOG, has none at the element)")
    parser.add_argument("--fps-device", default="auto", metavar="SPEC")
    parser.add_argument("--report", metavar="FILE", help="also write the report as JSON")
    parser.add_argument("--build", default=os.path.join(REPO, "build"), metavar="DIR")
    args = parser.parse_args()
    tools = os.path.join(args.build, "gst/tools")
    summary_path = os.path.join(args.set, "summary.json")
    try:
        with open(summary_path) as f:
            summary = json.load(f)
        window = "%dx%d" % tuple(summary["window"])
    except (OSError, ValueError, KeyError, TypeError) as error:
        parser.error("%s is not a set teach.py wrote: %s" % (summary_path, error))
    teacher = args.teacher or summary.get("teacher")
    teacher_settings = []
    teacher_props = ""
    if teacher and summary.get("teacher"):
        teacher_settings = ["-n", str(summary["teacher_min_neighbors"]), "-s", str(summary["teacher_scale_factor"])]
        teacher_props = "min-neighbors=%d scale-factor=%g" % (summary["teacher_min_neighbors"],
                                                              summary["teacher_scale_factor"])
    # The frame rates are the last step: a device that is not there stops the
    # run now, not after minutes of training.
    devices = subprocess.run([os.path.join(tools, "devices/waldboost-devices"), "-s", args.fps_device],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if devices.returncode != 0:
        parser.error("--fps-device %s: %s" % (args.fps_device, (devices.stderr or devices.stdout).strip()))
    s = lambda name: os.path.join(args.set, name)  # noqa: E731
    checkpoint = args.output + ".ck"
    train = [os.path.join(tools, "train/waldboost-train"), "-o", args.output, "-a", s("train.txt"), "-n",
             s("train-backgrounds.txt"), "--label", args.label, "--window", window, "--feature", args.feature,
             "--checkpoint", checkpoint, "--checkpoint-every", "50"] + RECIPE + args.train_option
    report = {"set": os.path.abspath(args.set), "student": os.path.abspath(args.output), "teacher": teacher,
              "train_command": train}
    try:
        step("1. training (%s)" % " ".join(train[1:]))
        started = time.monotonic()
        # A set with too few background frames for its positives runs short of negatives: say so.
        run(train, "waldboost-train", warnings=("came back short", "stopped early"))
        report["train_seconds"] = time.monotonic() - started

        step("2. the final threshold, on the tuning frames: " + ", ".join(str(t) for t in THRESHOLDS))

        def tune(t):
            a = agreement(evaluate(tools, args.output, ["-a", s("tune.txt"), "-t", str(t)])["objects"])
            print("  threshold %4d: recall %.3f precision %.3f F1 %.3f" % (t, a["recall"], a["precision"], a["f1"]))
            return a

        sweep, best = sweep_thresholds(tune)
        report["threshold_sweep"] = sweep
        report["final_threshold"] = best["threshold"]

        step("3. final threshold %d written into %s" % (best["threshold"], args.output))
        run(train + ["--resume", "--final-threshold", str(best["threshold"])], "waldboost-train --resume")

        step("4. held out: agreement with the teacher, weak classifiers per window")
        held = evaluate(tools, args.output, ["-a", s("heldout.txt"), "-b", s("heldout-frames.txt")])
        report["heldout"] = agreement(held["objects"])
        report["student_weak_per_window"] = held["backgrounds"]["weak_per_window"]
        others = [("teacher", teacher, teacher_settings, teacher_props)] if teacher else []
        if args.beside:
            others.append(("beside", args.beside, [], ""))
        for role, path, settings, _ in others:
            report[role + "_weak_per_window"] = evaluate(
                tools, path, ["-b", s("heldout-frames.txt")] + settings)["backgrounds"]["weak_per_window"]

        step("5. frames per second at the element, device %s" % args.fps_device)
        with open(s("heldout-frames.txt")) as f:
            frames = [s(line.strip()) for line in f if line.strip()][:20]
        report["student_fps"] = frame_rate(tools, args.output, "", frames, args.fps_device)
        for role, path, _, props in others:
            report[role + "_fps"] = frame_rate(tools, path, props, frames, args.fps_device)

        # The smallest positive less one pyramid step (1.1), not below the window;
        # the teacher's boxes are those less the margin teach.py grew them by.
        smallest = smallest_positive(s("train.txt")) or summary["window"][0]
        size = max(summary["window"][0], int(smallest / 1.1))
        camera = {"min_size": size,
                  "teacher_min_size": max(1, int(smallest / (1 + 2 * summary.get("margin", 0.0)) / 1.1))}
        step("6. the camera's sizes: min-size %d for the student, %d for the teacher" % (
            size, camera["teacher_min_size"]))
        min_size = "--min-size=%dx%d" % (size, round(size * summary["window"][1] / summary["window"][0]))
        camera["heldout"] = agreement(evaluate(tools, args.output, ["-a", s("heldout.txt"), min_size])["objects"])
        camera["student_fps"] = frame_rate(tools, args.output, "min-size=%d" % size, frames, args.fps_device)
        for role, path, _, props in others:
            role_size = camera["teacher_min_size"] if role == "teacher" else size
            camera[role + "_fps"] = frame_rate(tools, path, (props + " min-size=%d" % role_size).strip(), frames,
                                               args.fps_device)
        report["camera_sizes"] = camera
    except Failure as error:
        sys.exit("student: %s" % error)

    h = report["heldout"]
    print("\n| | held-out frames | teacher's boxes | found (recall) | precision | F1 | weak classifiers per window "
          "| fps at the element |")
    print("|---|---|---|---|---|---|---|---|")
    fps = lambda r: "%.1f" % r["fps"] if r else "n/a"  # noqa: E731
    print("| student (%s, threshold %d, %.0f s to train) | %d | %d | %d (%.3f) | %.3f | **%.3f** | %.2f | %s |"
          % (args.feature, report["final_threshold"], report["train_seconds"], summary["frames_heldout"],
             h["labels"], h["found"], h["recall"], h["precision"], h["f1"], report["student_weak_per_window"],
             fps(report["student_fps"])))
    for role, path, _, _ in others:
        print("| %s (%s) | | | | | | %.2f | %s |"
              % (role, os.path.basename(path), report[role + "_weak_per_window"], fps(report[role + "_fps"])))
    camera = report["camera_sizes"]
    c = camera["heldout"]
    print("| student at min-size %d (the camera's sizes) | | | %d (%.3f) | %.3f | **%.3f** | | %s |"
          % (camera["min_size"], c["found"], c["recall"], c["precision"], c["f1"], fps(camera["student_fps"])))
    for role, path, _, _ in others:
        print("| %s at min-size %d | | | | | | | %s |" % (
            role, camera["teacher_min_size"] if role == "teacher" else camera["min_size"], fps(camera[role + "_fps"])))
    for role, path, _, _ in others:
        for where, rates in (("defaults", report), ("min-size %d" % camera["min_size"], camera)):
            if rates[role + "_fps"] and rates["student_fps"]:
                print("student/%s frame rate, %s: %.1fx (%s)" % (
                    role, where, rates["student_fps"]["fps"] / rates[role + "_fps"]["fps"],
                    rates["student_fps"]["device"]))
    print("deploy: waldboostdetect classifier=%s min-size=%d" % (args.output, camera["min_size"]))
    if args.report:
        with open(args.report, "w") as f:
            json.dump(report, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
