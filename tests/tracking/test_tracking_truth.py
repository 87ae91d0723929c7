#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Tracking against exact ground truth (issue 32, acceptance 1).

    test_tracking_truth.py MAKE_SEQUENCES OUT_DIR [--table]

Generates the sequences (make-sequences.cpp: real faces on known paths over
real face-free backgrounds) into OUT_DIR, runs each through waldboostdetect
with tracking=false (the detector alone) and tracking=true at interval 1, 3
and 5, scores the tracks with CLEAR-MOT and IDF1 (mot.py) and prints one
table. It fails when:
- the truth is not what the sequences promise (hidden 10-30 frames behind
  bars, 10-39 behind other faces, 8 or
  more faces at once, faces entering and leaving, a 3x change of scale,
  nothing on the empty sequence);
- the detector alone finds a face on fewer than 90% of the frames where it
  counts, or reports anything on the empty sequence;
- a measure misses the issue's TARGETS (IDF1, MOTA, MOTP, ID switches per
  sequence), a hidden face comes back with a new id, a sequence has more
  than MAX_FALSE_TRACKS false tracks, or anything is reported on the empty
  sequence.
Exits 77 (skipped, for meson) without PyGObject or the test data, unless
WALDBOOST_REQUIRE_TEST_DATA=1. --table prints the tables (Markdown, for
docs/quality.md) without the checks. The frames (NAME.gray) are removed
at the end unless WALDBOOST_KEEP_SEQUENCES=1; the truth (NAME.truth.csv) and
the tracks (NAME.detections.csv, NAME.intervalN.csv) stay.
"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import mot  # noqa: E402

SKIP = 77
INTERVALS = (1, 3, 5)
MEGAMIND_FRAMES = (20, 40, 60, 80, 240)
DATA = ("astronaut.png", "messi5.jpg", "Megamind.avi", "building.jpg", "leuvenA.jpg", "board.jpg",
        "fruits.jpg", "aero3.jpg", "coffee.png", "gravel.png", "brick.png")

# The targets (default properties), checked on every sequence but
# the empty one. The element is exact and the inputs fixed, so the measures
# are the same on every run and device (docs/quality.md, "Tracking against
# ground truth", has today's values).
TARGETS = {
    1: {"idf1": 0.97, "mota": 0.95, "motp": 0.85, "switches": 1},
    3: {"idf1": 0.95, "mota": 0.93, "motp": 0.85, "switches": 1},
    5: {"idf1": 0.94, "motp": 0.85, "switches": 1},
}
# Beyond the targets: every hidden face comes back with its id (gaps of
# 10-39 frames on "occlusion" and "passing", 1-2 after a missed detection elsewhere), at
# most this many false tracks on a sequence (the detector's own false
# positives that recur on consecutive frames near a face), and nothing at
# all on the empty sequence.
MAX_FALSE_TRACKS = 2


def skip(reason):
    if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
        sys.exit(f"FAIL: {reason}")
    print(f"SKIP: {reason}")
    sys.exit(SKIP)


def extract_frames(Gst, video, numbers, out):
    """Megamind.avi's frames `numbers` (decoding order from 0) as PGM files."""
    wanted = set(numbers)
    if all(os.path.isfile(os.path.join(out, f"megamind-{n:03d}.pgm")) for n in wanted):
        return
    os.makedirs(out, exist_ok=True)
    pipeline = Gst.parse_launch("filesrc name=src ! decodebin ! videoconvert ! "
                                "video/x-raw,format=GRAY8 ! appsink name=sink sync=false")
    pipeline.get_by_name("src").set_property("location", video)
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    try:
        n = 0
        while wanted and n <= max(numbers):
            sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
            if sample is None:
                break
            if n in wanted:
                s = sample.get_caps().get_structure(0)
                w, h = s.get_value("width"), s.get_value("height")
                stride = (w + 3) // 4 * 4  # GRAY8's default stride
                ok, info = sample.get_buffer().map(Gst.MapFlags.READ)
                data = bytes(info.data)
                sample.get_buffer().unmap(info)
                with open(os.path.join(out, f"megamind-{n:03d}.pgm"), "wb") as f:
                    f.write(f"P5\n{w} {h}\n255\n".encode())
                    for y in range(h):
                        f.write(data[y * stride:y * stride + w])
                wanted.discard(n)
            n += 1
    finally:
        pipeline.set_state(Gst.State.NULL)
    if wanted:
        sys.exit(f"FAIL: could not decode frames {sorted(wanted)} of {video}")


def check_truth(name, truth, frames):
    """What each sequence promises, from its truth alone."""
    counted = {}
    for t, objs in truth.items():
        for i, b, c in objs:
            if c:
                counted.setdefault(i, []).append(t)
    problems = []
    if name == "empty" and truth:
        problems.append("the empty sequence has objects")
    if name == "crowd":
        most = max(sum(1 for o in truth.get(t, []) if o[2]) for t in range(frames))
        if not 8 <= most <= 12:
            problems.append(f"{most} faces at once, not 8-12")
    if name == "occlusion":
        gaps = [b - a - 1 for fl in counted.values() for a, b in zip(fl, fl[1:]) if b != a + 1]
        if sum(1 for g in gaps if 10 <= g <= 30) < 3:
            problems.append(f"hidden for {gaps} frames: want three of 10-30")
    if name == "passing":
        # Four faces behind faces of about their size (issue 55, item 14),
        # each for less than lost-after (40).
        gaps = [b - a - 1 for fl in counted.values() for a, b in zip(fl, fl[1:]) if b != a + 1]
        if sum(1 for g in gaps if 10 <= g < 40) < 4:
            problems.append(f"hidden for {gaps} frames: want four of 10-39")
    if name == "edges":
        enter = sum(1 for fl in counted.values() if fl[0] > 0)
        leave = sum(1 for fl in counted.values() if fl[-1] < frames - 1)
        if enter < 2 or leave < 3:
            problems.append(f"{enter} faces enter and {leave} leave")
    if name == "scale":
        sizes = {}
        for objs in truth.values():
            for i, b, c in objs:
                if c:
                    sizes.setdefault(i, []).append(b[2])
        if any(max(s) < 3 * min(s) * 0.8 for s in sizes.values()):
            problems.append(f"sizes {[(min(s), max(s)) for s in sizes.values()]}: want 2.4x or more")
    if name == "crossing":
        # The pairs' paths overlap: some truth boxes of two ids meet.
        meets = sum(1 for objs in truth.values() for a in objs for b in objs
                    if a[0] < b[0] and mot.iou(a[1], b[1]) > 0.3)
        if meets == 0:
            problems.append("no two faces cross")
    return problems


def check_tracks(name, target, r):
    """The tracks' measures against the targets."""
    if name == "empty":
        return [f"{r[k]} {k.replace('_', ' ')}, want 0" for k in ("false_positives", "false_tracks") if r[k]]
    problems = [f"{k} {r[k]:.3f} below the target {target[k]}"
                for k in ("idf1", "mota", "motp") if k in target and not r[k] >= target[k]]
    if r["switches"] > target["switches"]:
        problems.append(f"{r['switches']} ID switches, want at most {target['switches']}")
    if r["reid_kept"] != r["reid_gaps"]:
        problems.append(f"{r['reid_gaps'] - r['reid_kept']} of {r['reid_gaps']} hidden faces back with a new id")
    if r["false_tracks"] > MAX_FALSE_TRACKS:
        problems.append(f"{r['false_tracks']} false tracks, want at most {MAX_FALSE_TRACKS}")
    return problems


def fmt(v):
    return f"{v:.3f}" if isinstance(v, float) else str(v)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    make, out = sys.argv[1], os.path.abspath(sys.argv[2])
    table_only = "--table" in sys.argv
    try:
        import gi

        gi.require_version("Gst", "1.0")
        from gi.repository import Gst
    except (ImportError, ValueError) as error:
        print(f"SKIP: {error} (PyGObject with GStreamer's introspection data)")
        sys.exit(SKIP)
    data = os.environ.get("WALDBOOST_TEST_DATA", "build/testdata")
    missing = [f for f in DATA if not os.path.isfile(os.path.join(data, f))]
    if missing:
        skip(f"missing test data {missing} in {data} (run tests/fetch-test-data.sh)")
    Gst.init(None)
    import runner

    start = time.monotonic()
    os.makedirs(out, exist_ok=True)
    frames_dir = os.path.join(out, "megamind-frames")
    extract_frames(Gst, os.path.join(data, "Megamind.avi"), MEGAMIND_FRAMES, frames_dir)
    gen = subprocess.run([make, data, frames_dir, out], capture_output=True, text=True)
    print(gen.stdout, end="")
    if gen.returncode != 0:
        sys.exit(f"FAIL: make-sequences: {gen.stderr}")

    failures = []
    rows = []
    for name, (w, h, frames) in runner.manifest(out).items():
        truth = mot.read_truth(os.path.join(out, name + ".truth.csv"))
        failures += [f"{name}: {p}" for p in check_truth(name, truth, frames)]
        dets = runner.run_sequence(out, name, ["tracking=false"])
        runner.write_tracks(os.path.join(out, f"{name}.detections.csv"), dets)
        base = mot.score(truth, dets, frames)
        recall = mot.recall_per_object(truth, dets, frames)
        base["recall"] = min(recall.values()) if recall else float("nan")
        for i, r in sorted(recall.items()):
            if r < 0.9:
                failures.append(f"{name}: the detector alone finds face {i} on {r:.0%} of its frames")
        # The recall check must be able to fail: against the truth moved by
        # half a face, the same detections find (almost) nothing.
        moved = {t: [(i, (b[0] + b[2] // 2, b[1], b[2], b[3]), c) for i, b, c in objs] for t, objs in truth.items()}
        if any(r > 0.1 for r in mot.recall_per_object(moved, dets, frames).values()):
            failures.append(f"{name}: the detections still match a truth moved by half a face")
        if name == "empty" and base["false_positives"]:
            failures.append(f"empty: the detector alone reports {base['false_positives']} boxes")
        rows.append((name, "detector", base))
        for n in INTERVALS:
            tracks = runner.run_sequence(out, name, ["tracking=true", f"interval={n}"])
            runner.write_tracks(os.path.join(out, f"{name}.interval{n}.csv"), tracks)
            r = mot.score(truth, tracks, frames)
            rows.append((name, n, r))
            failures += [f"{name} interval {n}: {p}" for p in check_tracks(name, TARGETS[n], r)]

    cols = ("idf1", "mota", "motp", "switches", "fragmentations", "mostly_tracked", "objects",
            "false_tracks", "false_positives", "misses", "reid_kept", "reid_gaps")
    print("| sequence | setting | IDF1 | MOTA | MOTP | ID switches | fragmentations | mostly tracked | "
          "false tracks | false positives | misses | back with id after a gap |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, setting, r in rows:
        detector = setting == "detector"
        label = (f"detector alone (MODA; each face found on >= {r['recall']:.0%} of its frames)"
                 if detector and r["objects"] else "detector alone" if detector else f"interval {setting}")
        idf1 = "-" if detector else fmt(r["idf1"])
        sw = "-" if detector else r["switches"]
        mota = r["moda"] if detector else r["mota"]
        print(f"| {name} | {label} | {idf1} | {fmt(mota)} | {fmt(r['motp'])} | {sw} | "
              f"{r['fragmentations']} | {r['mostly_tracked']}/{r['objects']} | "
              f"{'-' if setting == 'detector' else r['false_tracks']} | {r['false_positives']} | {r['misses']} | "
              f"{'-' if setting == 'detector' else str(r['reid_kept']) + '/' + str(r['reid_gaps'])} |")
    print()
    print("| interval | IDF1 (worst) | target | MOTA (worst) | target | MOTP (worst) | target | "
          "most switches in a sequence | target | false tracks on empty |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for n in INTERVALS:
        rs = [r for name, s, r in rows if s == n and name != "empty"]
        empty = [r for name, s, r in rows if s == n and name == "empty"]
        tg = TARGETS[n]
        print(f"| {n} | {min(r['idf1'] for r in rs):.3f} | {tg.get('idf1', '-')} | "
              f"{min(r['mota'] for r in rs):.3f} | {tg.get('mota', '-')} | {min(r['motp'] for r in rs):.3f} | "
              f"{tg.get('motp', '-')} | {max(r['switches'] for r in rs)} | {tg.get('switches', '-')} | "
              f"{empty[0]['false_tracks'] if empty else '-'} (target 0) |")
    print(f"\n{time.monotonic() - start:.1f} s")
    # The frames take 240 MB and are made again in seconds; the truth and
    # the tracks (CSV) stay for a look.
    if os.environ.get("WALDBOOST_KEEP_SEQUENCES") != "1":
        for name in runner.manifest(out):
            os.remove(os.path.join(out, name + ".gray"))
    if table_only:
        sys.exit(0)
    for f in failures:
        print(f"FAIL: {f}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
