#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/systemd/waldboost-recorder@.service (suite "pipelines").

- `systemd-analyze verify` of an instance of the unit says nothing: no
  error and no warning (it only warns of a bad value, with exit 0, so any
  output fails); skipped with a note where systemd-analyze is missing;
- the unit restarts on failure and on the end of the stream, not after
  `systemctl stop`, stops with SIGINT, and never stops trying;
- its ExecStart, with the specifiers and variables of the example
  environment file expanded as systemd does (CAMERA_URI pointing at a local
  RTSP camera, a 1 s SEGMENT_NS, the folders in a temporary one), records
  segments with their sidecars and ends cleanly (exit 0) on the unit's
  KillSignal;
- run again (a restart), it adds segments with their sidecars and leaves
  the earlier run's files as they were;
- with the camera gone, the same command fails (exit status not 0), which
  is what Restart= acts on.
Exit 77 without PyGObject, the test media or where the server cannot start."""
import os
import re
import shlex
import shutil
import subprocess
import tempfile

import recipes
from recipes import check

UNIT = os.path.join(recipes.REPO, "pipelines", "systemd", "waldboost-recorder@.service")
ENV_FILE = os.path.join(recipes.REPO, "pipelines", "systemd", "recorder-example.env")
INSTANCE = "door"


def read_unit():
    """{(section, key): [values]} with continuation lines joined."""
    entries, section, pending = {}, None, ""
    with open(UNIT, encoding="utf-8") as f:
        for raw in f:
            line = pending + raw.rstrip("\n")
            if line.endswith("\\"):
                pending = line[:-1] + " "
                continue
            pending = ""
            stripped = line.strip()
            if not stripped or stripped.startswith(("#", ";")):
                continue
            if stripped.startswith("["):
                section = stripped.strip("[]")
                continue
            key, _, value = stripped.partition("=")
            entries.setdefault((section, key.strip()), []).append(value.strip())
    return entries


def read_env_file():
    env = {}
    with open(ENV_FILE, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                key, _, value = line.partition("=")
                env[key] = value
    return env


def expand(command, specifiers, env):
    """ExecStart as systemd runs it: specifiers (%i, %S, %C, %%), then the
    words (quotes removed), in each ${VAR} replaced and $$ made $, and a
    word that is $VAR alone split at white space."""
    command = re.sub(r"%(.)", lambda m: specifiers[m.group(1)], command)
    words = []
    for word in shlex.split(command):
        if re.fullmatch(r"\$[A-Za-z_][A-Za-z0-9_]*", word):
            words += env.get(word[1:], "").split()
        else:
            words.append(re.sub(r"\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)\}",
                                lambda m: "$" if m.group(0) == "$$" else env.get(m.group(1), ""), word))
    return words


def files_of(folder):
    """{name: bytes} of the folder's files."""
    out = {}
    for name in os.listdir(folder):
        with open(os.path.join(folder, name), "rb") as f:
            out[name] = f.read()
    return out


def record(command, folder):
    """Runs the unit's command against the camera and stops it with the
    unit's KillSignal, as systemctl stop does, once a new segment is there
    and has run 3.5 s; its exit status and the files it added."""
    before = set(os.listdir(folder))
    recorder = subprocess.Popen(command, env=recipes.script_env(), stdout=subprocess.DEVNULL)
    status = recipes.stop_with_ctrl_c(
        recorder, lambda: any(n.endswith(".mkv") for n in set(os.listdir(folder)) - before),
        after=3.5, timeout=120)
    names = sorted(set(os.listdir(folder)) - before)
    segments = [n for n in names if n.endswith(".mkv")]
    check(segments and [n for n in names if n.endswith(".jsonl")] == [s[:-4] + ".jsonl" for s in segments],
          f"segments with sidecars: {names}")
    documents = []
    for name in names:
        if name.endswith(".jsonl"):
            documents += recipes.read_documents(os.path.join(folder, name))
    check(documents and all(d["source"] == INSTANCE for d in documents), f"documents of source {INSTANCE}")
    return status, names


def verify(work):
    analyze = shutil.which("systemd-analyze")
    if not analyze:
        print("NOTE: systemd-analyze not found (Debian: systemd); the unit is not verified")
        return
    folder = os.path.join(work, "units")
    os.mkdir(folder)
    shutil.copy(UNIT, folder)
    instance = os.path.join(folder, f"waldboost-recorder@{INSTANCE}.service")
    result = subprocess.run([analyze, "verify", "--man=no", instance], capture_output=True, text=True, timeout=60)
    output = (result.stdout + result.stderr).strip()
    check(result.returncode == 0 and not output, f"systemd-analyze verify: exit {result.returncode}: {output}")


def main():
    megamind = recipes.test_media("Megamind.avi")
    unit = read_unit()
    check(unit.get(("Service", "Restart")) == ["always"], "Restart=always")
    check(unit.get(("Service", "KillSignal")) == ["SIGINT"], "KillSignal=SIGINT: gst-launch-1.0 -e ends the stream")
    check(unit.get(("Unit", "StartLimitIntervalSec")) == ["0"], "StartLimitIntervalSec=0: never gives up")
    with tempfile.TemporaryDirectory() as work:
        verify(work)
        clip = recipes.make_clip(megamind, recipes.CAMERA_FRAMES, os.path.join(work, "clip.mkv"))
        state, cache = os.path.join(work, "state"), os.path.join(work, "cache")
        os.makedirs(os.path.join(state, "waldboost-recorder", INSTANCE))
        specifiers = {"i": INSTANCE, "S": state, "C": cache, "%": "%"}
        server = recipes.RtspServer(clip, gop=12)
        # A query with & and ; as many cameras' URIs have: data to the
        # shell of ExecStart, never its code.
        env = dict(read_env_file(), CAMERA_URI=server.uri + "?channel=1&subtype=0;x", SEGMENT_NS="1000000000",
                   DETECT_PROPERTIES="tracking=true interval=3 min-size=60")
        command = expand(unit[("Service", "ExecStart")][0], specifiers, env)
        check(command[:2] == ["/bin/sh", "-c"] and "exec /usr/bin/gst-launch-1.0 -e " in command[2],
              f"ExecStart runs gst-launch-1.0 -e: {command[:3]}")
        folder = os.path.join(state, "waldboost-recorder", INSTANCE)
        try:
            status, first_run = record(command, folder)
            check(status == 0, f"ExecStart exited with {status} on SIGINT")
            kept = files_of(folder)
            # Restart= runs the same command again into the same folder.
            status, second_run = record(command, folder)
            check(status == 0, f"ExecStart exited with {status} on SIGINT, run again")
        finally:
            server.stop()
        check(not set(first_run) & set(second_run), f"a restart's files are new: {first_run} {second_run}")
        now = files_of(folder)
        check(all(now.get(name) == data for name, data in kept.items()),
              f"a restart leaves the earlier files as they were: {sorted(kept)} {sorted(now)}")
        # The camera gone: the command fails, and Restart= starts it again.
        env["CAMERA_URI"] = f"rtsp://127.0.0.1:{recipes.free_port()}/camera"
        command = expand(unit[("Service", "ExecStart")][0], specifiers, env)
        result = subprocess.run(command, env=recipes.script_env(), capture_output=True, timeout=60)
        check(result.returncode != 0, "ExecStart exited with 0 without a camera")
    recipes.finish()


if __name__ == "__main__":
    main()
