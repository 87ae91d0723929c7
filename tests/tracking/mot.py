#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Multi-object tracking scores against exact ground truth (stdlib only).

    mot.py TRUTH.csv TRACKS.csv

TRUTH.csv: frame,id,x,y,w,h,visibility,counted (make-sequences.cpp); a box
with counted=0 is "don't care": it is neither a miss nor, when a track box
overlaps it by IoU >= 0.5, a false positive. TRACKS.csv: frame,id,x,y,w,h.

CLEAR-MOT (Bernardin and Stiefelhagen 2008) at IoU >= 0.5: on each frame a
truth object keeps the track it was matched to on its last match while they
still overlap by IoU >= 0.5; the others are matched optimally (Hungarian,
the largest total IoU over pairs with IoU >= 0.5). A truth object matched to
another track than last time is an ID switch. MOTA = 1 - (misses + false
positives + switches) / truth boxes (MODA leaves the switches out, for
per-frame detections without ids); MOTP = mean IoU of the matches.
Fragmentations: times a truth object's matched run is interrupted (on frames
where it counts) and resumes. Mostly tracked: objects matched on >= 80% of
their counted frames. False tracks: track ids whose boxes match truth (or
fall on don't-care boxes) on fewer than half of the frames they are
reported. IDF1 (Ristani et al. 2016): truth ids and track ids paired one to
one (Hungarian) to share the most matched frames; 2 IDTP / (2 IDTP + IDFP +
IDFN). Re-identification: for each gap in a truth object's counted frames
(hidden, or out of view), whether its first match after the gap has the id
of its last match before it.
"""
import csv
import functools
import sys

IOU = 0.5
MOSTLY = 0.8
BIG = 1000.0  # above any sum of valid costs (each <= 1) in a frame


def iou(a, b):
    """IoU of two (x, y, w, h) boxes."""
    x0, y0 = max(a[0], b[0]), max(a[1], b[1])
    x1, y1 = min(a[0] + a[2], b[0] + b[2]), min(a[1] + a[3], b[1] + b[3])
    if x1 <= x0 or y1 <= y0:
        return 0.0
    inter = (x1 - x0) * (y1 - y0)
    return inter / (a[2] * a[3] + b[2] * b[3] - inter)


@functools.lru_cache(maxsize=None)
def _tracking_quality():
    """pipelines/tracking-quality.py as a module (loaded once): its assignment()."""
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "pipelines", "tracking-quality.py")
    spec = importlib.util.spec_from_file_location("tracking_quality", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def hungarian(cost):
    """Minimum-cost assignment of a rows x cols matrix: a list of (row, col)
    (the shipped tracking-quality script's Kuhn-Munkres)."""
    return _tracking_quality().assignment(cost)


def match_iou(truth, hyps):
    """Optimal pairs (truth index, hyp index, IoU) with IoU >= 0.5 of two box lists."""
    if not truth or not hyps:
        return []
    ious = [[iou(t, h) for h in hyps] for t in truth]
    cost = [[1.0 - v if v >= IOU else BIG for v in row] for row in ious]
    return [(i, j, ious[i][j]) for i, j in hungarian(cost) if ious[i][j] >= IOU]


def read_truth(path):
    """{frame: [(id, box, counted)]}"""
    frames = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            box = (int(r["x"]), int(r["y"]), int(r["w"]), int(r["h"]))
            frames.setdefault(int(r["frame"]), []).append((int(r["id"]), box, r["counted"] == "1"))
    return frames


def read_tracks(path):
    """{frame: [(id, box)]}"""
    frames = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            box = (int(r["x"]), int(r["y"]), int(r["w"]), int(r["h"]))
            frames.setdefault(int(r["frame"]), []).append((int(r["id"]), box))
    return frames


def score(truth, tracks, frames=None):
    """Scores `tracks` ({frame: [(id, box)]}) against `truth` ({frame: [(id,
    box, counted)]}) over frames 0..frames-1 (default: every frame either
    names). Returns a dict of the measures."""
    if frames is None:
        frames = max(list(truth) + list(tracks) + [-1]) + 1
    last = {}  # truth id -> track id of its last match
    gt = fn = fp = switches = 0
    ious = []
    counted_frames = {}  # truth id -> [frame, ...] where it counts
    matched_on = {}  # truth id -> {frame: track id}
    track_life = {}  # track id -> frames reported
    track_good = {}  # track id -> frames matched or on a don't-care box
    pair_frames = {}  # (truth id, track id) -> matched frames, for IDF1
    hyp_boxes = 0  # track boxes not on don't-care boxes (IDF1's denominator)
    for t in range(frames):
        objects = [(i, b) for i, b, c in truth.get(t, []) if c]
        ignored = [b for i, b, c in truth.get(t, []) if not c]
        hyps = tracks.get(t, [])
        for i, _ in objects:
            counted_frames.setdefault(i, []).append(t)
        for h, _ in hyps:
            track_life[h] = track_life.get(h, 0) + 1
        gt += len(objects)
        pairs = []
        free_t = set(range(len(objects)))
        free_h = set(range(len(hyps)))
        # Keep last matches that still hold.
        for ti, (i, box) in enumerate(objects):
            if i in last:
                for hj, (h, hbox) in enumerate(hyps):
                    if h == last[i] and hj in free_h and iou(box, hbox) >= IOU:
                        pairs.append((ti, hj, iou(box, hbox)))
                        free_t.discard(ti)
                        free_h.discard(hj)
                        break
        ft, fh = sorted(free_t), sorted(free_h)
        for a, b, v in match_iou([objects[k][1] for k in ft], [hyps[k][1] for k in fh]):
            pairs.append((ft[a], fh[b], v))
        matched_h = set()
        for ti, hj, v in pairs:
            i, h = objects[ti][0], hyps[hj][0]
            if i in last and last[i] != h:
                switches += 1
            last[i] = h
            ious.append(v)
            matched_on.setdefault(i, {})[t] = h
            track_good[h] = track_good.get(h, 0) + 1
            pair_frames[(i, h)] = pair_frames.get((i, h), 0) + 1
            matched_h.add(hj)
        fn += len(objects) - len(pairs)
        # Unmatched track boxes on don't-care boxes are not false positives.
        rest = [hj for hj in range(len(hyps)) if hj not in matched_h]
        on_ignored = {rest[b] for a, b, v in match_iou(ignored, [hyps[k][1] for k in rest])}
        for hj in on_ignored:
            h = hyps[hj][0]
            track_good[h] = track_good.get(h, 0) + 1
        fp += len(rest) - len(on_ignored)
        hyp_boxes += len(hyps) - len(on_ignored)

    fragmentations = mostly = 0
    reid_kept = reid_gaps = 0
    for i, fl in counted_frames.items():
        m = matched_on.get(i, {})
        state, seen = None, False
        for t in fl:
            hit = t in m
            if hit and seen and state is False:
                fragmentations += 1
            state = hit
            seen = seen or hit
        if sum(1 for t in fl if t in m) >= MOSTLY * len(fl):
            mostly += 1
        for a, b in zip(fl, fl[1:]):
            if b != a + 1:  # a gap in the counted frames
                before = [m[t] for t in fl if t <= a and t in m]
                after = [m[t] for t in fl if t >= b and t in m]
                if before and after:
                    reid_gaps += 1
                    reid_kept += before[-1] == after[0]
    false_tracks = sum(1 for h, life in track_life.items() if track_good.get(h, 0) < 0.5 * life)

    # IDF1: one-to-one truth id <-> track id with the most shared frames.
    tids = sorted(counted_frames)
    hids = sorted({h for (_, h) in pair_frames})
    idtp = 0
    if tids and hids:
        cost = [[-pair_frames.get((i, h), 0) for h in hids] for i in tids]
        idtp = sum(pair_frames.get((tids[a], hids[b]), 0) for a, b in hungarian(cost))
    idfn = gt - idtp
    idfp = hyp_boxes - idtp
    return {
        "frames": frames,
        "truth_boxes": gt,
        "objects": len(counted_frames),
        "tracks": len(track_life),
        "matches": len(ious),
        "misses": fn,
        "false_positives": fp,
        "switches": switches,
        "fragmentations": fragmentations,
        "mostly_tracked": mostly,
        "false_tracks": false_tracks,
        "mota": 1.0 - (fn + fp + switches) / gt if gt else (1.0 if fp == 0 else float("-inf")),
        # MOTA without the switches: what per-frame detections (no ids) give.
        "moda": 1.0 - (fn + fp) / gt if gt else (1.0 if fp == 0 else float("-inf")),
        "motp": sum(ious) / len(ious) if ious else float("nan"),
        "idf1": 2 * idtp / (2 * idtp + idfp + idfn) if (idtp + idfp + idfn) else 1.0,
        "reid_gaps": reid_gaps,
        "reid_kept": reid_kept,
    }


def recall_per_object(truth, tracks, frames):
    """For each truth id, the share of its counted frames on which some box
    overlaps it by IoU >= 0.5 (optimal per frame, identities ignored): what
    the detector alone gives."""
    hit, total = {}, {}
    for t in range(frames):
        objects = [(i, b) for i, b, c in truth.get(t, []) if c]
        for i, _ in objects:
            total[i] = total.get(i, 0) + 1
        for a, b, v in match_iou([o[1] for o in objects], [h[1] for h in tracks.get(t, [])]):
            hit[objects[a][0]] = hit.get(objects[a][0], 0) + 1
    return {i: hit.get(i, 0) / n for i, n in total.items()}


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    result = score(read_truth(sys.argv[1]), read_tracks(sys.argv[2]))
    for key, value in result.items():
        print(f"{key}: {value:.3f}" if isinstance(value, float) else f"{key}: {value}")


if __name__ == "__main__":
    main()
