#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Plots waldboost-bench JSON results: ms per frame against resolution for
the engine and OpenCV, one PNG per input file and classifier.

    docs/performance/plot.py docs/performance/bench-h100-gpu-round5.json [...]

Needs gnuplot (Debian: gnuplot-nox). Writes NAME-CLASSIFIER.png next to
each JSON file."""
import json
import os
import subprocess
import sys
import tempfile


def plot(path):
    with open(path) as f:
        data = json.load(f)
    by_classifier = {}
    for r in data["results"]:
        by_classifier.setdefault(r["classifier"], []).append(r)
    outputs = []
    for classifier, rows in by_classifier.items():
        rows.sort(key=lambda r: r["width"] * r["height"])
        series = [
            ("waldboost engine, frames in flight", "engine_throughput_ms"),
            ("waldboost engine, one frame", "engine_latency_ms"),
            ("OpenCV detectMultiScale (Mat)", "opencv_mat_ms"),
            ("OpenCV detectMultiScale (UMat)", "opencv_umat_ms"),
        ]
        with tempfile.NamedTemporaryFile("w", suffix=".dat", delete=False) as dat:
            for r in rows:
                values = [r[key] if r[key] >= 0 else float("nan") for _, key in series]
                dat.write("%.3f %s %s\n" % (r["width"] * r["height"] / 1e6, "%dx%d" % (r["width"], r["height"]),
                                            " ".join("%.4f" % v for v in values)))
        stem = os.path.splitext(path)[0] + "-" + classifier.replace(".xml", "")
        png = stem + ".png"
        plots = ", ".join('"%s" using 1:%d:xtic(2) with linespoints title "%s"' % (dat.name, i + 3, title)
                          for i, (title, _) in enumerate(series))
        script = "\n".join([
            "set terminal pngcairo size 900,560 noenhanced",
            'set output "%s"' % png,
            'set title "%s on %s"' % (classifier, data["device"].split(" (")[0].replace('"', "'")),
            'set xlabel "frame (megapixels, log scale)"',
            'set ylabel "ms per frame (log scale)"',
            "set logscale xy",
            "set key top left",
            "set grid",
            "plot " + plots,
        ])
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
        os.unlink(dat.name)
        outputs.append(png)
    return outputs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for path in sys.argv[1:]:
        for png in plot(path):
            print(png)


if __name__ == "__main__":
    main()
