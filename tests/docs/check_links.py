#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Checks the relative links of the project's Markdown files: each names a
file or folder of the checkout, and each #anchor a heading of its target
as GitHub and most Markdown renderers name it (lower case, punctuation
other than - and _ dropped, spaces as -, -1, -2 ... for repeats). The
docs link to each other's sections by anchor, and a heading reworded in
one file used to leave links elsewhere pointing nowhere.

    check_links.py ROOT [FILE.md...]

Without FILEs: README.md and every .md file under ROOT's docs, gst,
kernels, classifiers, pipelines and tests folders.

Exit status: 0 every link resolves, 1 some do not (each is printed as
FILE:LINE: TARGET: why), 2 usage.
"""
import os
import re
import sys

LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def prose_lines(path, keep_code_spans=False):
    """(line number, text) of the lines outside fenced and indented code
    blocks, with inline code spans blanked out unless keep_code_spans."""
    fenced = False
    previous_blank = True
    in_indented = False
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if FENCE.match(line):
                fenced = not fenced
                continue
            if fenced:
                continue
            blank = not line.strip()
            # An indented block starts after a blank line, outside a list item's text.
            if line.startswith("    ") and (previous_blank or in_indented) and not blank:
                in_indented = True
                previous_blank = False
                continue
            if not blank:
                in_indented = False
            previous_blank = blank
            yield number, line if keep_code_spans else re.sub(r"`[^`]*`", "``", line)


def slug(heading):
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors_of(path, cache={}):
    if path not in cache:
        names, seen = set(), {}
        for _, line in prose_lines(path, keep_code_spans=True):
            match = HEADING.match(line)
            if match:
                base = slug(match.group(2))
                count = seen.get(base, 0)
                seen[base] = count + 1
                names.add(base if count == 0 else "%s-%d" % (base, count))
        cache[path] = names
    return cache[path]


def project_files(root):
    names = ["README.md"]
    for top in ("docs", "gst", "kernels", "classifiers", "pipelines", "tests"):
        for folder, subfolders, files in os.walk(os.path.join(root, top)):
            subfolders.sort()
            names += sorted(os.path.relpath(os.path.join(folder, f), root) for f in files if f.endswith(".md"))
    return names


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith("-"):
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    root = os.path.realpath(sys.argv[1])
    names = sys.argv[2:] or project_files(root)
    problems = 0
    for name in names:
        path = os.path.join(root, name)
        for number, line in prose_lines(path):
            for target in LINK.findall(line):
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto: ...
                    continue
                file_part, _, anchor = target.partition("#")
                where = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
                why = None
                if not os.path.realpath(where).startswith(root + os.sep) and os.path.realpath(where) != root:
                    why = "outside the checkout"
                elif not os.path.exists(where):
                    why = "no such file"
                elif anchor and where.endswith(".md") and anchor not in anchors_of(where):
                    why = "no heading with that anchor"
                if why:
                    print("%s:%d: %s: %s" % (name, number, target, why))
                    problems += 1
    if problems:
        print("%d broken link(s)" % problems)
        sys.exit(1)
    print("every relative link of %d files resolves" % len(names))


if __name__ == "__main__":
    main()
