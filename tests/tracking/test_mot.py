#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The scorer (mot.py) on hand-made tracks whose MOTA, IDF1, switches,
fragmentations and false tracks are worked out by hand, so that the
ground-truth test cannot pass on a wrong scorer."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mot  # noqa: E402


def truth_of(paths, frames=10, ignored=()):
    """Two objects (ids 1, 2) 100 px apart, or given paths; `ignored` holds
    (frame, id) marked don't-care."""
    return {t: [(i, box(t), (t, i) not in ignored) for i, box in paths.items()] for t in range(frames)}


A = lambda t: (10 * t, 0, 40, 40)  # noqa: E731
B = lambda t: (10 * t, 100, 40, 40)  # noqa: E731


class Scorer(unittest.TestCase):
    def test_hungarian_is_optimal(self):
        # Greedy on the smallest cost takes (0,0)=1 then (1,1)=10: 11; optimal is 2 + 3 = 5.
        pairs = mot.hungarian([[1, 2], [3, 10]])
        self.assertEqual(sorted(pairs), [(0, 1), (1, 0)])
        self.assertEqual(sorted(mot.hungarian([[5, 1, 9]])), [(0, 1)])
        self.assertEqual(sorted(mot.hungarian([[5], [1], [9]])), [(1, 0)])

    def test_perfect(self):
        truth = truth_of({1: A, 2: B})
        tracks = {t: [(7, A(t)), (9, B(t))] for t in range(10)}
        r = mot.score(truth, tracks)
        self.assertEqual((r["mota"], r["idf1"], r["motp"], r["switches"]), (1.0, 1.0, 1.0, 0))
        self.assertEqual((r["mostly_tracked"], r["false_tracks"], r["fragmentations"]), (2, 0, 0))

    def test_swap(self):
        # Ids exchanged from frame 5: two switches; IDF1 = 2*10 / (2*10 + 10 + 10) = 0.5.
        truth = truth_of({1: A, 2: B})
        tracks = {t: [(7, A(t)), (9, B(t))] if t < 5 else [(9, A(t)), (7, B(t))] for t in range(10)}
        r = mot.score(truth, tracks)
        self.assertEqual(r["switches"], 2)
        self.assertAlmostEqual(r["mota"], 1 - 2 / 20)
        self.assertEqual(r["moda"], 1.0)
        self.assertAlmostEqual(r["idf1"], 0.5)

    def test_keeps_previous_match(self):
        # Track 7 stays on A at IoU 0.6; track 8 appears at frame 3 exactly on A:
        # A keeps 7 (CLEAR-MOT), no switch, and 8 is a false positive each frame.
        shifted = lambda t: (10 * t + 10, 0, 40, 40)  # noqa: E731  IoU 30*40/(2*1600-1200) = 0.6
        truth = truth_of({1: A})
        tracks = {t: [(7, shifted(t))] + ([(8, A(t))] if t >= 3 else []) for t in range(10)}
        r = mot.score(truth, tracks)
        self.assertEqual((r["switches"], r["false_positives"], r["misses"]), (0, 7, 0))
        self.assertAlmostEqual(r["motp"], 0.6)
        self.assertEqual(r["false_tracks"], 1)  # track 8 never matched
        self.assertAlmostEqual(r["mota"], 1 - 7 / 10)

    def test_gap_fragmentation_and_reid(self):
        # A tracked on 0-2 by 7, lost on 3-4 (misses), back on 5-9 with id 8:
        # one fragmentation, one switch; A hidden (don't care) on 5-6 for B, who
        # comes back with its id.
        truth = truth_of({1: A, 2: B}, ignored={(5, 2), (6, 2)})
        tracks = {t: ([(7, A(t))] if t < 3 else [(8, A(t))] if t >= 5 else []) +
                  ([(9, B(t))] if t not in (5, 6) else []) for t in range(10)}
        r = mot.score(truth, tracks)
        self.assertEqual((r["fragmentations"], r["switches"], r["misses"]), (1, 1, 2))
        self.assertEqual((r["reid_gaps"], r["reid_kept"]), (1, 1))
        self.assertEqual(r["truth_boxes"], 18)
        self.assertAlmostEqual(r["mota"], 1 - 3 / 18)
        # IDTP: A-8 5 frames (A-7 3), B-9 8 frames: 13; IDFN 18-13 = 5; IDFP 16-13 = 3.
        self.assertAlmostEqual(r["idf1"], 26 / (26 + 3 + 5))
        self.assertEqual(r["mostly_tracked"], 2)  # A on 8 of its 10 frames (0.8), B on 8 of 8

    def test_dont_care_is_no_false_positive(self):
        truth = truth_of({1: A}, ignored={(t, 1) for t in range(10)})
        tracks = {t: [(7, A(t))] for t in range(10)}
        r = mot.score(truth, tracks)
        self.assertEqual((r["truth_boxes"], r["false_positives"], r["false_tracks"]), (0, 0, 0))

    def test_empty_scene(self):
        # Nothing to find: one box on 6 of 10 frames is a false track.
        tracks = {t: [(3, (5, 5, 30, 30))] for t in range(6)}
        r = mot.score({}, tracks, frames=10)
        self.assertEqual((r["false_positives"], r["false_tracks"]), (6, 1))
        self.assertEqual(mot.score({}, {}, frames=10)["false_tracks"], 0)

    def test_recall_ignores_ids(self):
        truth = truth_of({1: A, 2: B})
        dets = {t: [(t, A(t))] + ([(t + 50, B(t))] if t % 2 else []) for t in range(10)}
        self.assertEqual(mot.recall_per_object(truth, dets, 10), {1: 1.0, 2: 0.5})


if __name__ == "__main__":
    unittest.main()
