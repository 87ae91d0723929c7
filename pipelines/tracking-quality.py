#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tracking quality and speed of waldboostdetect on a real video.

Runs the video through the element three times, as fast as it goes
(fakesink sync=false), reading the "waldboostdetect" messages that
gst-launch-1.0 -m prints:

  reference   interval=1, tracking=false: the per-frame detections
  interval 1  tracking=true
  interval N  tracking=true interval=N (N from --interval, default 3)

There is no hand-labelled ground truth: the reference's detections are the
objects, and a detection continues the reference object of the previous
frame that it overlaps by IoU 0.5 or more (greedy, best overlap first), so a
reference object is a run of detections on consecutive frames. Against that,
MOT-style counts for each tracked run: boxes matched to reference detections
(IoU >= 0.5, greedy), misses, extra boxes, id switches (a reference object
matched to another id than the last time), fragmentations (a reference
object's matches interrupted and resumed), and IDF1 (identities matched one
to one so that they share the most frames; 2 IDTP / (2 IDTP + IDFP + IDFN)).

It also prints for interval N the mean IoU, on the frames without detection,
between the followed boxes and the reference detections they match, and the
frame rates of the three settings side by side: gst-launch-1.0's time from
PLAYING to the end of the stream (decoding included, start-up not), the
median of --repeats runs each (default 3) after a warm-up run.

With --check it exits 1 unless the issue's bars hold: at interval 1 every
reference object keeps one id, and at interval N the mean IoU on the frames
between detections is at least 0.7.

Usage: pipelines/tracking-quality.py [--interval N] [--device D]
         [--classifier FILE] [--repeats N] [--check [--skip-missing]] [VIDEO]
VIDEO defaults to build/testdata/Megamind.avi (tests/fetch-test-data.sh).
Run from a checkout, the plugin built in build/ (or $WALDBOOST_BUILD_DIR)
comes first on GST_PLUGIN_PATH, as for read-detections.py.
"""

import argparse
import os
import re
import subprocess
import sys
import statistics

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# An empty list prints as "(int){  }".
FRAME_RE = re.compile(r"waldboostdetect, .*?frame=\(guint64\)(\d+),.*?detections=\((?:structure|int)\)\{(.*?)\};")
ITEM_RE = re.compile(r'"detection(.*?)"')
EXECUTION_RE = re.compile(r"Execution ended after (\d+):(\d+):([\d.]+)")
FIELD_RE = re.compile(r"\\ (\w+)\\=\\\((\w+)\\\)([^\\,;]+)")


def run(video, props, device):
    """Runs the pipeline; returns ({frame: [box]}, seconds), a box being
    (x, y, w, h, id)."""
    uri = video if "://" in video else None
    source = ["uridecodebin", "uri=" + uri] if uri else ["filesrc", "location=" + video, "!", "decodebin"]
    cmd = (["gst-launch-1.0", "-m"] + source +
           ["!", "videoconvert", "!", "waldboostdetect", "draw=none", "device=" + device] + props +
           ["!", "fakesink", "sync=false"])
    out = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    if out.returncode != 0:
        # gst-launch-1.0's own ERROR lines say why; its last lines only that it stopped.
        errors = [line for line in out.stdout.splitlines()
                  if line.startswith(("ERROR:", "WARNING: erroneous pipeline"))]
        sys.exit("tracking-quality: %s failed:\n%s" % (" ".join(cmd), "\n".join(errors) or out.stdout[-2000:]))
    # gst-launch-1.0's own time from PLAYING to the end of the stream:
    # without start-up (plugin loading, OpenCL set-up).
    ended = EXECUTION_RE.search(out.stdout)
    if not ended:
        sys.exit("tracking-quality: no execution time from %s" % " ".join(cmd))
    seconds = int(ended.group(1)) * 3600 + int(ended.group(2)) * 60 + float(ended.group(3))
    frames = {}
    for m in FRAME_RE.finditer(out.stdout):
        boxes = []
        for item in ITEM_RE.finditer(m.group(2)):
            fields = {name: value for name, _, value in FIELD_RE.findall(item.group(1))}
            boxes.append((int(fields["x"]), int(fields["y"]), int(fields["width"]), int(fields["height"]),
                          int(fields.get("id", -1))))
        frames[int(m.group(1))] = boxes
    if not frames:
        sys.exit("tracking-quality: no waldboostdetect messages from %s" % " ".join(cmd))
    return frames, seconds


def iou(a, b):
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    both = max(0, x1 - x0) * max(0, y1 - y0)
    either = a[2] * a[3] + b[2] * b[3] - both
    return both / either if either > 0 else 0.0


def greedy_pairs(left, right, threshold):
    """Pairs (i, j, IoU) of left and right boxes, best IoU first, each box
    once, IoU >= threshold (> 0)."""
    candidates = sorted(((iou(a, b), i, j) for i, a in enumerate(left) for j, b in enumerate(right)),
                        key=lambda c: (-c[0], c[1], c[2]))
    used_l, used_r, pairs = set(), set(), []
    for v, i, j in candidates:
        if v < threshold or v <= 0 or i in used_l or j in used_r:
            continue
        used_l.add(i)
        used_r.add(j)
        pairs.append((i, j, v))
    return pairs


def reference_objects(reference):
    """{frame: [object id per detection]}: detections linked frame to frame."""
    objects, next_id, previous, previous_ids = {}, 0, [], []
    for f in sorted(reference):
        boxes = reference[f]
        ids = [None] * len(boxes)
        if f - 1 in reference:
            for i, j, _ in greedy_pairs(previous, boxes, 0.5):
                ids[j] = previous_ids[i]
        for j in range(len(ids)):
            if ids[j] is None:
                ids[j] = next_id
                next_id += 1
        objects[f] = ids
        previous, previous_ids = boxes, ids
    return objects


def assignment(cost):
    """Minimum-cost one-to-one assignment of a rows x cols matrix (lists; any
    shape): the (row, col) pairs. Kuhn-Munkres with potentials (the
    shortest augmenting path method) on the square padding with zeros.
    tests/tracking/mot.py uses it too."""
    rows = len(cost)
    cols = max((len(r) for r in cost), default=0)
    n = max(rows, cols)
    if n == 0:
        return []
    a = [[cost[i][j] if i < rows and j < len(cost[i]) else 0 for j in range(n)] for i in range(n)]
    inf = float("inf")
    u, v, p, way = [0] * (n + 1), [0] * (n + 1), [0] * (n + 1), [0] * (n + 1)
    for i in range(1, n + 1):
        p[0], j0 = i, 0
        minv, used = [inf] * (n + 1), [False] * (n + 1)
        while True:
            used[j0] = True
            i0, delta, j1 = p[j0], inf, 0
            for j in range(1, n + 1):
                if not used[j]:
                    cur = a[i0 - 1][j - 1] - u[i0] - v[j]
                    if cur < minv[j]:
                        minv[j], way[j] = cur, j0
                    if minv[j] < delta:
                        delta, j1 = minv[j], j
            for j in range(n + 1):
                if used[j]:
                    u[p[j]] += delta
                    v[j] -= delta
                else:
                    minv[j] -= delta
            j0 = j1
            if p[j0] == 0:
                break
        while j0:
            j1 = way[j0]
            p[j0] = p[j1]
            j0 = j1
    return [(p[j] - 1, j - 1) for j in range(1, n + 1) if p[j] and p[j] - 1 < rows and j - 1 < len(cost[p[j] - 1])]


def hungarian_max(weights):
    """Maximum-weight one-to-one assignment of a rows x cols matrix (lists);
    returns the total weight."""
    big = max((v for r in weights for v in r), default=0)
    cost = [[big - w for w in row] for row in weights]
    return sum(weights[i][j] for i, j in assignment(cost))


def evaluate(reference, objects, tracked, interval):
    matched = misses = extra = switches = fragments = 0
    last_id, last_seen, co = {}, {}, {}
    between_ious = []
    ids_of_object = {}
    for f in sorted(reference):
        ref, mine = reference[f], tracked.get(f, [])
        pairs = greedy_pairs(ref, mine, 0.5)
        matched += len(pairs)
        misses += len(ref) - len(pairs)
        extra += len(mine) - len(pairs)
        hit = set()
        for i, j, _ in pairs:
            obj, tid = objects[f][i], mine[j][4]
            hit.add(obj)
            ids_of_object.setdefault(obj, set()).add(tid)
            if obj in last_id and last_id[obj] != tid:
                switches += 1
            if obj in last_seen and last_seen[obj] < f - 1:
                fragments += 1
            last_id[obj], last_seen[obj] = tid, f
            co[(obj, tid)] = co.get((obj, tid), 0) + 1
        if f % interval:
            between_ious += [v for _, _, v in greedy_pairs(ref, mine, 1e-9)]
    gt_ids = sorted({o for ids in objects.values() for o in ids})
    tr_ids = sorted({b[4] for boxes in tracked.values() for b in boxes})
    weights = [[co.get((g, t), 0) for t in tr_ids] for g in gt_ids]
    idtp = hungarian_max(weights)
    gt_total = sum(len(b) for b in reference.values())
    tr_total = sum(len(b) for f, b in tracked.items() if f in reference)
    idf1 = 2 * idtp / (gt_total + tr_total) if gt_total + tr_total else 1.0
    split = sum(1 for ids in ids_of_object.values() if len(ids) > 1)
    return {
        "matched": matched, "misses": misses, "extra": extra, "id switches": switches,
        "fragmentations": fragments, "IDF1": idf1, "objects with more than one id": split,
        "reference objects": len(gt_ids), "track ids": len(tr_ids),
        "mean IoU between detections": sum(between_ious) / len(between_ious) if between_ious else float("nan"),
        "pairs between detections": len(between_ious),
    }


def whole(low, high):
    """An argparse type: a whole number from low to high."""
    def parse(text):
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or not low <= value <= high:
            raise argparse.ArgumentTypeError("a whole number from %d to %d, not %r" % (low, high, text))
        return value
    return parse


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("video", nargs="?", default="build/testdata/Megamind.avi")
    parser.add_argument("--interval", type=whole(1, 1000), default=3, help="the element's interval, 1 to 1000")
    parser.add_argument("--device", default="auto")
    parser.add_argument("--classifier", default="")
    parser.add_argument("--repeats", type=whole(1, 100), default=3, help="timed runs of each setting (median)")
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--skip-missing", action="store_true",
                        help="exit 77 (a skipped test) when the video is missing, unless "
                             "WALDBOOST_REQUIRE_TEST_DATA=1")
    args = parser.parse_args()
    build = os.environ.get("WALDBOOST_BUILD_DIR", os.path.join(REPO, "build"))
    if os.path.isdir(build):
        os.environ["GST_PLUGIN_PATH"] = os.pathsep.join(filter(None, [build, os.environ.get("GST_PLUGIN_PATH")]))
    if "://" not in args.video and not os.path.exists(args.video):
        message = "tracking-quality: %s not found (tests/fetch-test-data.sh fetches Megamind.avi)" % args.video
        if args.skip_missing and os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") != "1":
            print("SKIP: " + message)
            return 77
        sys.exit(message)
    common = ["classifier=" + args.classifier] if args.classifier else []
    run(args.video, common, args.device)  # warm-up: builds or loads the kernels, fills the caches

    def timed(props):
        """The last run's detections and the median time of --repeats runs."""
        runs = [run(args.video, common + props, args.device) for _ in range(args.repeats)]
        return runs[-1][0], statistics.median(t for _, t in runs)

    reference, t_ref = timed([])
    one, t_one = timed(["tracking=true"])
    many, t_many = timed(["tracking=true", "interval=%d" % args.interval])
    objects = reference_objects(reference)
    frames = len(reference)
    print("video: %s, %d frames, %d reference detections in %d reference objects"
          % (args.video, frames, sum(len(b) for b in reference.values()), len(set(sum(objects.values(), [])))))
    results = [("interval 1", evaluate(reference, objects, one, 1)),
               ("interval %d" % args.interval, evaluate(reference, objects, many, args.interval))]
    keys = list(results[0][1].keys())
    print("| measure | " + " | ".join(name for name, _ in results) + " |")
    print("|---|" + "---|" * len(results))
    for k in keys:
        cells = []
        for _, r in results:
            v = r[k]
            cells.append("%.3f" % v if isinstance(v, float) else str(v))
        print("| %s | %s |" % (k, " | ".join(cells)))
    print()
    print("| setting | seconds (median of %d) | frames per second | vs interval 1 without tracking |"
          % max(1, args.repeats))
    print("|---|---|---|---|")
    for name, t in (("interval 1, tracking off", t_ref), ("interval 1, tracking on", t_one),
                    ("interval %d, tracking on" % args.interval, t_many)):
        print("| %s | %.2f | %.1f | %.2fx |" % (name, t, frames / t, t_ref / t))
    if args.check:
        failed = []
        if results[0][1]["objects with more than one id"]:
            failed.append("at interval 1, %d reference objects had more than one id"
                          % results[0][1]["objects with more than one id"])
        if not results[1][1]["mean IoU between detections"] >= 0.7:
            failed.append("at interval %d the mean IoU between detections is %.3f (< 0.7)"
                          % (args.interval, results[1][1]["mean IoU between detections"]))
        for f in failed:
            print("FAIL: " + f)
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
