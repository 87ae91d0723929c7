# SPDX-License-Identifier: LGPL-2.1-or-later
"""Starting Debian's mosquitto for a test, knowing that it is this test's.

A connection to the port is not proof: two tests running side by side can
be given the same free port, and then the second broker exits ("Address
already in use") while the first one answers for both, and two tests'
clients with the same client ids knock each other off. mosquitto says
"... running" in its log only once its own listener is open."""

import os
import shutil
import socket
import subprocess
import time


def mosquitto_path():
    """mosquitto's path, or None (it lives in /usr/sbin, often not on PATH)."""
    return shutil.which("mosquitto") or ("/usr/sbin/mosquitto" if os.path.exists("/usr/sbin/mosquitto") else None)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _running_lines(log):
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            return sum(1 for line in f if " running" in line)
    except FileNotFoundError:
        return 0


def start(conf, log, timeout=5):
    """Starts mosquitto with `conf`, appending its output to `log`. Returns
    the process once its log has a new "running" line, or None where it
    exited or did not get there within `timeout` s (the log says why;
    `port_taken(log)` tells a lost race for the port)."""
    before = _running_lines(log)
    with open(log, "a", encoding="utf-8") as out:
        process = subprocess.Popen([mosquitto_path(), "-c", conf], stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if _running_lines(log) > before:
            return process
        if process.poll() is not None:
            return None
        time.sleep(0.05)
    process.terminate()
    process.wait(5)
    return None


def port_taken(log):
    with open(log, encoding="utf-8", errors="replace") as f:
        return "Address already in use" in f.read()
