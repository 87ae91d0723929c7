#!/usr/bin/env python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Derives fuzzing seeds from Debian's OpenCV cascades (opencv-data) at run
# time, so that no third-party model file is kept in the repository:
#   make-seeds.py CASCADE_DIR HAAR_DIR OUT_DIR [STAMP]
# writes OUT_DIR/opencv/ (LBP cascades cut to their first stages with only
# the features they use, Haar cascades of both formats cut to a few trees,
# byte-truncated files) and OUT_DIR/waldboost/ (the cut LBP cascades
# converted to WaldBoost XML, with histogram and decision-tree hypotheses,
# and their grids as LRD and LRP rank features).
# WaldBoost seeds keep only the first trees: 256 numbers per weak
# classifier make them large.
# STAMP, when given, receives the seed count (a build-system output).
# Only the standard library; small seeds keep the fuzzers fast.
import glob
import os
import sys
import xml.etree.ElementTree as ET


def text_of(element):
    return " ".join((element.text or "").split())


def cut_lbp(root, stages_kept):
    """Keeps the first stages and only the features they use, re-indexed."""
    cascade = root.find("cascade")
    stages = cascade.find("stages")
    features = cascade.find("features")
    for stage in list(stages)[stages_kept:]:
        stages.remove(stage)
    used = []
    for nodes in stages.iter("internalNodes"):
        index = int(nodes.text.split()[2])
        if index not in used:
            used.append(index)
    items = list(features)
    for item in items:
        features.remove(item)
    for index in used:
        features.append(items[index])
    for nodes in stages.iter("internalNodes"):
        values = nodes.text.split()
        values[2] = str(used.index(int(values[2])))
        nodes.text = " ".join(values)
    stage_num = cascade.find("stageNum")
    if stage_num is not None:
        stage_num.text = str(stages_kept)
    return root


def short(number):
    return "%.6g" % float(number)


def to_waldboost(root, label, decision_trees, trees_kept):
    """The cut cascade's first trees as WaldBoost XML, numbers shortened to
    6 digits (a seed needs the shape, not OpenCV's exact arithmetic; short
    seeds keep the fuzzer fast)."""
    cascade = root.find("cascade")
    width = text_of(cascade.find("width"))
    height = text_of(cascade.find("height"))
    rects = [text_of(item.find("rect")).split() for item in cascade.find("features")]
    stages = list(cascade.find("stages"))
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<WaldBoostClassifier classifierName="%s" minStdDev="0" imageSizeX="%s" imageSizeY="%s" '
           'type="LBP" finalThreshold="%s">' % (label, width, height,
                                                 short(text_of(stages[-1].find("stageThreshold"))))]
    tree_number = 0
    for stage in stages:
        threshold = short(text_of(stage.find("stageThreshold")))
        trees = list(stage.find("weakClassifiers"))[:trees_kept]
        for k, tree in enumerate(trees):
            nodes = [int(v) for v in text_of(tree.find("internalNodes")).split()]
            leaves = [short(v) for v in text_of(tree.find("leafValues")).split()]
            subset = [v & 0xFFFFFFFF for v in nodes[3:11]]
            bit = [(subset[c >> 5] >> (c & 31)) & 1 for c in range(256)]
            last = k + 1 == len(trees)
            attributes = 'posT="1e+50" negT="%s"' % (threshold if last else "-1e+50")
            if last:
                attributes += ' resetSum="1"'
            x, y, w, h = rects[nodes[2]]
            feature = ('<LBPFeature positionX="%s" positionY="%s" blockWidth="%s" blockHeight="%s" '
                       'binMappingType="NONE"/>' % (x, y, w, h))
            out.append("  <stage %s>" % attributes)
            if decision_trees and tree_number % 2 == 0:
                out.append('    <DecisionTreeWeakHypothesis predictionValues="%s %s" binMap="%s">'
                           % (leaves[0], leaves[1], " ".join("0" if b else "1" for b in bit)))
                out.append("      " + feature)
                out.append("    </DecisionTreeWeakHypothesis>")
            else:
                values = " ".join(leaves[0] if b else leaves[1] for b in bit)
                out.append('    <HistogramWeakHypothesis predictionValues="%s">' % values)
                out.append("      " + feature)
                out.append("    </HistogramWeakHypothesis>")
            out.append("  </stage>")
            tree_number += 1
    out.append("</WaldBoostClassifier>")
    return "\n".join(out) + "\n"


def to_rank(root, label, rank_type, trees_kept):
    """The cut cascade's first trees as an LRD or LRP classifier: each LBP
    feature's grid with two of its blocks, and a table of 17 or 81 values
    taken from the leaves (a seed needs the shape)."""
    cascade = root.find("cascade")
    width = text_of(cascade.find("width"))
    height = text_of(cascade.find("height"))
    rects = [text_of(item.find("rect")).split() for item in cascade.find("features")]
    size = 17 if rank_type == "LRD" else 81
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<WaldBoostClassifier classifierName="%s" minStdDev="0" imageSizeX="%s" imageSizeY="%s" '
           'type="%s" finalThreshold="0">' % (label, width, height, rank_type)]
    tree_number = 0
    for stage in root.find("cascade").find("stages"):
        threshold = short(text_of(stage.find("stageThreshold")))
        trees = list(stage.find("weakClassifiers"))[:trees_kept]
        for k, tree in enumerate(trees):
            nodes = [int(v) for v in text_of(tree.find("internalNodes")).split()]
            leaves = [short(v) for v in text_of(tree.find("leafValues")).split()]
            x, y, w, h = rects[nodes[2]]
            block_a = tree_number % 9
            block_b = (block_a + 1 + tree_number % 8) % 9
            values = " ".join(leaves[(i * 7 + tree_number) % 2] for i in range(size))
            out.append('  <stage posT="1e+50" negT="%s">' % (threshold if k + 1 == len(trees) else "-1e+50"))
            out.append('    <HistogramWeakHypothesis predictionValues="%s">' % values)
            out.append('      <RankFeature positionX="%s" positionY="%s" blockWidth="%s" blockHeight="%s" '
                       'blockA="%d" blockB="%d"/>' % (x, y, w, h, block_a, block_b))
            out.append("    </HistogramWeakHypothesis>")
            out.append("  </stage>")
            tree_number += 1
    out.append("</WaldBoostClassifier>")
    return "\n".join(out) + "\n"


def cut_haar(root, trees_kept, features_kept):
    """New-format Haar (<cascade>) or old format (<haarcascade_...>): the
    first stage's first trees and the first features (enough for the trees
    kept in Debian's files): stumps, trees, tilted features and the old
    format, all loadable."""
    top = list(root)[0]
    stages = top.find("stages")
    for stage in list(stages)[1:]:
        stages.remove(stage)
    for trees_name in ("weakClassifiers", "trees"):
        trees = stages[0].find(trees_name)
        if trees is not None:
            for tree in list(trees)[trees_kept:]:
                trees.remove(tree)
    features = top.find("features")
    if features is not None:
        for item in list(features)[features_kept:]:
            features.remove(item)
    return root


HAAR_WALDBOOST = """<?xml version="1.0" encoding="UTF-8"?>
<WaldBoostClassifier classifierName="face" minStdDev="0" imageSizeX="24" imageSizeY="24" type="HAAR" finalThreshold="-1.5">
  <stage posT="1e+50" negT="-1e+50">
    <HaarTreeWeakHypothesis leafValues="2.087538 -2.21721005">
      <HaarNode threshold="-0.0315119997" left="leaf 0" right="leaf 1" tilted="1">
        <rect x="8" y="2" width="6" height="4" weight="-1"/>
        <rect x="9" y="3" width="3" height="2" weight="3"/>
      </HaarNode>
    </HaarTreeWeakHypothesis>
  </stage>
  <stage posT="1e+50" negT="-1.5" resetSum="1">
    <HaarTreeWeakHypothesis leafValues="0.25 -0.5 0.75 -1">
      <HaarNode threshold="0.01" left="node 2" right="node 1">
        <rect x="0" y="0" width="24" height="12" weight="-1"/>
        <rect x="0" y="6" width="24" height="6" weight="2"/>
      </HaarNode>
      <HaarNode threshold="-0.02" left="leaf 0" right="leaf 1">
        <rect x="2" y="2" width="6" height="6" weight="1"/>
      </HaarNode>
      <HaarNode threshold="0.5" left="leaf 2" right="leaf 3">
        <rect x="3" y="3" width="9" height="9" weight="-1"/>
        <rect x="6" y="6" width="3" height="3" weight="9"/>
        <rect x="3" y="12" width="9" height="9" weight="0.5"/>
      </HaarNode>
    </HaarTreeWeakHypothesis>
  </stage>
</WaldBoostClassifier>
"""


def write(path, data):
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))


def serialise(root):
    return b'<?xml version="1.0"?>\n' + ET.tostring(root, encoding="utf-8", short_empty_elements=False)


def main():
    cascade_dir, haar_dir, out = sys.argv[1:4]
    stamp = sys.argv[4] if len(sys.argv) > 4 else None
    opencv_out = os.path.join(out, "opencv")
    waldboost_out = os.path.join(out, "waldboost")
    os.makedirs(opencv_out, exist_ok=True)
    os.makedirs(waldboost_out, exist_ok=True)
    count = 0
    for path in sorted(glob.glob(os.path.join(cascade_dir, "lbpcascade_*.xml"))):
        stem = os.path.basename(path)[:-4]
        label = stem[len("lbpcascade_"):]
        with open(path, "rb") as f:
            raw = f.read()
        for stages_kept in (1, 3):
            root = cut_lbp(ET.fromstring(raw), stages_kept)
            write(os.path.join(opencv_out, "%s-%dstage.xml" % (stem, stages_kept)), serialise(root))
            count += 1
        root = cut_lbp(ET.fromstring(raw), 1)
        write(os.path.join(waldboost_out, "%s-histogram.xml" % stem),
              to_waldboost(root, label, decision_trees=False, trees_kept=2))
        write(os.path.join(waldboost_out, "%s-tree.xml" % stem),
              to_waldboost(root, label, decision_trees=True, trees_kept=3))
        count += 2
        # The same grids as rank features (LRD, LRP).
        for rank_type in ("LRD", "LRP"):
            write(os.path.join(waldboost_out, "%s-%s.xml" % (stem, rank_type.lower())),
                  to_rank(root, label, rank_type, trees_kept=2))
            count += 1
        # Past the attribute limit (kMaxXmlAttributesPerElement, 256) on a
        # real cascade's element: the 100,000 that made libxml2 slow do not
        # fit the fuzzers' input size, a few hundred cross the limit.
        cut = serialise(cut_lbp(ET.fromstring(raw), 1))
        extra = "".join(' a%d="%d"' % (i, i) for i in range(300)).encode()
        write(os.path.join(opencv_out, "%s-many-attributes.xml" % stem), cut.replace(b"<cascade", b"<cascade" + extra, 1))
        count += 1
        # Byte-truncated: not well-formed, cut inside the first stage.
        write(os.path.join(opencv_out, "%s-truncated.xml" % stem), raw[:1500])
        count += 1
    for name in ("haarcascade_frontalface_default.xml", "haarcascade_licence_plate_rus_16stages.xml",
                 "haarcascade_eye_tree_eyeglasses.xml", "haarcascade_fullbody.xml"):
        path = os.path.join(haar_dir, name)
        if not os.path.exists(path):
            continue
        with open(path, "rb") as f:
            root = cut_haar(ET.fromstring(f.read()), 2, 6)
        write(os.path.join(opencv_out, name[:-4] + "-cut.xml"), serialise(root))
        count += 1
    # The HAAR form of WaldBoost XML: a tilted stump and a 3-node tree.
    write(os.path.join(waldboost_out, "haar-trees.xml"), HAAR_WALDBOOST)
    count += 1
    if count == 0:
        sys.exit("make-seeds: no cascades found in %s" % cascade_dir)
    print("make-seeds: %d seeds from %s and %s" % (count, cascade_dir, haar_dir))
    if stamp:
        write(stamp, "%d\n" % count)


if __name__ == "__main__":
    main()
