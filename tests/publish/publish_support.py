# SPDX-License-Identifier: LGPL-2.1-or-later
"""What the publish suite's Python tests share: GStreamer through PyGObject
(importing this exits 77, the skip, where there is none), check() with the
failures it gathers, and the test data a test needs."""
import os
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"SKIP: no PyGObject with GStreamer: {e}")
    sys.exit(77)

Gst.init(None)
FAILURES = []


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)


def require_data(*paths):
    """Exits 77 when one of `paths` is missing, or 1 with
    WALDBOOST_REQUIRE_TEST_DATA=1 (the CI run, where a skip would hide a
    test that did not run)."""
    for path in paths:
        if not os.path.exists(path):
            if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
                print(f"FAIL: missing test data {path}")
                sys.exit(1)
            print(f"SKIP: missing test data {path}")
            sys.exit(77)
