#!/usr/bin/python3
# waldboost-gst — OpenCL WaldBoost object detection
# Copyright (C) 2026 The waldboost-gst authors
# SPDX-License-Identifier: LGPL-2.1-or-later
"""check_links.py on a made-up tree whose broken links are known: it must
name exactly those (file and line) and exit 1, pass the tree once they are
mended, and leave alone what is not a link (code), what is not local
(https:) and what it cannot check (anchors of files other than Markdown).

    test_check_links.py CHECK_LINKS.py
"""
import os
import subprocess
import sys
import tempfile

GUIDE = """# A guide

## Options (`min-size`, `max-size`)

## Options (`min-size`, `max-size`)

## Ünïcode and under_scores!

[fine](#options-min-size-max-size) [the second](#options-min-size-max-size-1)
[letters kept](#ünïcode-and-under_scores) [another file](other.md#its-heading)
[a folder](sub) [a source file](sub/code.c#L10) [a site](https://example.org/#nothing-here)
[gone](#no-such-heading)
[no file](missing.md)
[outside](../elsewhere.md)
`[in code](#not-checked)`

```
[in a fence](#not-checked)
```

    [in an indented block](#not-checked)

[second of a line is broken too](#options) [and this](other.md#wrong)
"""
OTHER = """# Its heading
"""
BROKEN = {  # line: target, as GUIDE above places them
    12: "#no-such-heading",
    13: "missing.md",
    14: "../elsewhere.md",
    23: "#options",
}
BROKEN_TOO = (23, "other.md#wrong")


def fail(message):
    print("FAIL: " + message)
    sys.exit(1)


def run(checker, root):
    done = subprocess.run([sys.executable, checker, root, "guide.md", "other.md"], stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)
    print(done.stdout)
    return done


def main():
    checker = sys.argv[1]
    with tempfile.TemporaryDirectory() as work:
        root = os.path.join(work, "root")
        os.makedirs(os.path.join(root, "sub"))
        with open(os.path.join(root, "sub", "code.c"), "w") as f:
            f.write("int x;\n")
        with open(os.path.join(root, "guide.md"), "w") as f:
            f.write(GUIDE)
        with open(os.path.join(root, "other.md"), "w") as f:
            f.write(OTHER)
        done = run(checker, root)
        if done.returncode != 1:
            fail("exit %d with broken links, not 1" % done.returncode)
        reported = sorted(line.split(": ")[0] + ": " + line.split(": ")[1]
                          for line in done.stdout.splitlines() if line.startswith("guide.md:"))
        expected = sorted(["guide.md:%d: %s" % (n, t) for n, t in BROKEN.items()] +
                          ["guide.md:%d: %s" % BROKEN_TOO])
        if reported != expected:
            fail("reported %s, expected %s" % (reported, expected))
        mended = GUIDE.split("\n")
        for number in sorted(set(BROKEN) | {BROKEN_TOO[0]}):
            mended[number - 1] = ""
        with open(os.path.join(root, "guide.md"), "w") as f:
            f.write("\n".join(mended))
        done = run(checker, root)
        if done.returncode != 0:
            fail("exit %d once the broken links are gone" % done.returncode)
    print("check_links.py: the known broken links, and nothing else")


if __name__ == "__main__":
    main()
