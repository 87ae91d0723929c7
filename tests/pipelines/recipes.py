# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the recipes' tests (suite "pipelines"): the failure list, the
test media, short clips cut from it, running a pipelines/ script, reading
and validating JSON lines, and an RTSP server (GstRtspServer, Debian's
gir1.2-gst-rtsp-server-1.0) on a free port of 127.0.0.1."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tests", "publish"))
sys.path.insert(0, os.path.join(REPO, "tests", "support"))
import mosquitto_broker  # noqa: E402
import validate_documents  # noqa: E402

try:
    import gi
    gi.require_version("Gst", "1.0")
    from gi.repository import Gst
except (ImportError, ValueError) as e:
    print(f"SKIP: no PyGObject with GStreamer: {e}")
    sys.exit(77)

Gst.init(None)
FAILURES = []
VALIDATOR = validate_documents.validator()


def check(condition, what):
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return condition


def finish():
    if FAILURES:
        sys.exit(1)
    print("ok")


def test_media(name):
    path = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), name)
    if not os.path.exists(path):
        if os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") == "1":
            sys.exit(f"missing test data {path}")
        print(f"SKIP: {path} missing (tests/fetch-test-data.sh)")
        sys.exit(77)
    return path


def run_pipeline(description, timeout=60):
    """Runs a pipeline to EOS; an error or a timeout ends the test."""
    pipeline = Gst.parse_launch(description)
    pipeline.set_state(Gst.State.PLAYING)
    m = pipeline.get_bus().timed_pop_filtered(timeout * Gst.SECOND, Gst.MessageType.EOS | Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if m is None:
        sys.exit(f"timeout: {description}")
    if m.type == Gst.MessageType.ERROR:
        sys.exit(f"error: {m.parse_error()} in {description}")


def make_clip(source, frames, out):
    """About the first `frames` frames of `source`, I420, lossless (FFV1
    in Matroska): decoding it gives the same pixels every time. The cut is
    not exact (a frame or a few more or less, more under load): count the
    clip's frames where the number matters."""
    run_pipeline(f'filesrc location="{source}" ! decodebin ! videoconvert ! video/x-raw,format=I420 '
                 f'! identity eos-after={frames} ! avenc_ffv1 ! matroskamux ! filesink location="{out}"')
    return out


def decode_frames(path):
    """Every frame of a video file as I420 bytes, with its caps' size."""
    pipeline = Gst.parse_launch(f'filesrc location="{path}" ! decodebin ! videoconvert '
                                f'! video/x-raw,format=I420 ! appsink name=sink sync=false')
    sink = pipeline.get_by_name("sink")
    pipeline.set_state(Gst.State.PLAYING)
    frames, size = [], None
    while True:
        sample = sink.emit("try-pull-sample", 30 * Gst.SECOND)
        if sample is None:
            break
        s = sample.get_caps().get_structure(0)
        size = (s.get_value("width"), s.get_value("height"))
        frames.append(sample.get_buffer().extract_dup(0, sample.get_buffer().get_size()))
    error = pipeline.get_bus().pop_filtered(Gst.MessageType.ERROR)
    pipeline.set_state(Gst.State.NULL)
    if error:
        sys.exit(f"error decoding {path}: {error.parse_error()}")
    return frames, size


def read_documents(path):
    """The documents of a JSON lines file, each valid JSON and valid
    against the schema (the test stops at the first that is not)."""
    with open(path, encoding="utf-8") as f:
        lines = [line for line in f.read().split("\n") if line]
    validate_documents.validate_lines(VALIDATOR, lines, path)
    return [json.loads(line) for line in lines]


def script_env():
    """The environment for a pipelines/ script: the plugins of this build
    (WALDBOOST_BUILD_DIR, which common.sh puts first on GST_PLUGIN_PATH)."""
    env = dict(os.environ)
    if "WALDBOOST_RECIPES_BUILD_DIR" in env:
        env["WALDBOOST_BUILD_DIR"] = env["WALDBOOST_RECIPES_BUILD_DIR"]
    return env


def script(name):
    return os.path.join(REPO, "pipelines", name)


def thread_summary(trace):
    """One line per kind of thread in gdb's "thread apply all bt": its
    name, how many, and the first frame in this project's code (else the
    innermost frame that names a function outside the C library)."""
    kinds = {}
    for block in trace.split("\nThread ")[1:]:
        name = re.search(r'"([^"]*)"', block.split("\n", 1)[0])
        name = re.sub(r"[0-9]+", "N", name.group(1)) if name else "?"
        frames = re.findall(r"^#\d+ +(?:0x[0-9a-f]+ in )?(\S+) \(", block, re.M)
        ours = [f for f in frames if "waldboost" in f]
        outside = [f for f in frames if not f.startswith("__") and f not in ("syscall", "??", "start_thread")]
        where = ours[0] if ours else outside[0] if outside else frames[0] if frames else "?"
        kinds[(name, where)] = kinds.get((name, where), 0) + 1
    return [f"  {count:3d} x {name}: {where}" for (name, where), count in sorted(kinds.items())]


def show_threads(pid):
    """Prints where every thread of `pid` and of its children waits: with
    gdb where installed (build-aux/install-deps.sh --tests installs it),
    else each thread's name and kernel wait channel. For a script that
    did not end, so that a hang in CI says where it hung. Returns a short
    summary (thread_summary) to print last."""
    pids = [str(pid)]
    pids += subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    summary = []
    for p in pids:
        try:
            with open(f"/proc/{p}/cmdline", "rb") as f:
                command = f.read().replace(b"\0", b" ").decode(errors="replace")[:200]
        except OSError:
            continue
        print(f"--- process {p}: {command}", flush=True)
        summary.append(f"process {p}: {command[:100]}")
        if shutil.which("gdb"):
            trace = subprocess.run(["gdb", "-p", p, "-batch", "-nx", "-ex", "set pagination off",
                                    "-ex", "thread apply all bt 30"], capture_output=True, text=True,
                                   timeout=120)
            print(trace.stdout[-60000:], flush=True)
            threads = thread_summary(trace.stdout)
            if threads:
                summary += threads
                continue
            print(f"gdb could not attach: {trace.stderr.strip()[-300:]}", flush=True)
        for task in sorted(os.listdir(f"/proc/{p}/task")):
            try:
                with open(f"/proc/{p}/task/{task}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{p}/task/{task}/wchan") as f:
                    wchan = f.read().strip()
            except OSError:
                continue
            summary.append(f"  thread {task} {name}: {wchan}")
    return summary


def run_script(args, timeout, **kwargs):
    """subprocess.run for a pipelines/ script, with a GStreamer log of the
    waldboost elements (warnings from the rest) kept aside: when it fails
    or runs past `timeout` s, prints the log's end and, on a timeout,
    where its threads wait (show_threads), then kills it. Returns the
    CompletedProcess, with returncode None after a timeout. GST_DEBUG and
    GST_DEBUG_FILE, where set, choose the log's levels and keep it."""
    with tempfile.NamedTemporaryFile(prefix="recipe-gst-", suffix=".log") as log:
        env = dict(kwargs.pop("env", None) or script_env())
        env.setdefault("GST_DEBUG", "*:2,waldboost*:4")
        env.setdefault("GST_DEBUG_FILE", log.name)
        process = subprocess.Popen(args, env=env, **kwargs)
        summary = []
        try:
            process.wait(timeout)
        except subprocess.TimeoutExpired:
            print(f"FAIL: {os.path.basename(args[0])} did not end within {timeout} s; its threads:", flush=True)
            summary = show_threads(process.pid)
            for child in subprocess.run(["pgrep", "-P", str(process.pid)], capture_output=True,
                                        text=True).stdout.split():
                os.kill(int(child), signal.SIGKILL)
            process.kill()
            process.wait()
            process.returncode = None
        if process.returncode != 0:
            with open(env["GST_DEBUG_FILE"], errors="replace") as f:
                lines = f.readlines()
            print(f"the last {min(len(lines), 80)} of {len(lines)} GStreamer log lines:", flush=True)
            print("".join(lines[-80:]), flush=True)
        if summary:
            print("where its threads were:\n" + "\n".join(summary), flush=True)
        return subprocess.CompletedProcess(args, process.returncode)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The test camera's clip, longer than any test records: the recorder is
# stopped by its SIGINT while the camera still sends, as a user stops one.
# Where the clip ends first, the camera's side ends the stream (rtspsrc
# sends EOS on the server's BYE, or some 2 s later when rtpbin times out
# the silent sender), and the user's path is not what is tested.
CAMERA_FRAMES = 240  # 10 s at 23.976 fps


class RtspServer:
    """A child process serving `clip` as H.264 (openh264enc, a key frame
    every `gop` frames) at rtsp://127.0.0.1:PORT/camera, in real time.
    Give it a clip of CAMERA_FRAMES. With `stall`, the camera hangs after
    that many frames (no more frames, the session kept). Exit 77 only
    where it cannot start."""

    def __init__(self, clip, gop, stall=None):
        self.port = free_port()
        self.uri = f"rtsp://127.0.0.1:{self.port}/camera"
        args = [sys.executable, os.path.join(HERE, "rtsp_server.py"), str(self.port), clip, str(gop)]
        self.process = subprocess.Popen(args + ([str(stall)] if stall is not None else []), stdout=subprocess.PIPE,
                                        text=True)
        line = self.process.stdout.readline().strip()
        if line != "ready":
            self.process.wait(10)
            print(f"SKIP: the RTSP server cannot start here: {line or 'no answer'}")
            sys.exit(77)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()


def stop_with_ctrl_c(process, started, after, timeout=60):
    """Waits (up to 60 s) until `started()` says the stream runs (the
    scripts check their elements first, which takes a while on a loaded
    machine), then sends SIGINT (what Ctrl-C and systemd's
    KillSignal=SIGINT send) `after` seconds later; returns its exit status,
    waiting at most `timeout` s for the end of the stream (None: it did not
    end, and where its threads wait is printed). A process that ends before
    the signal fails the check: RtspServer's clip outlasts the recording,
    so SIGINT is what must end it."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and process.poll() is None and not started():
        time.sleep(0.1)
    deadline = time.monotonic() + after
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.1)
    if not check(process.poll() is None, f"the process ended with {process.returncode} before SIGINT"):
        return process.returncode
    process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout)
    except subprocess.TimeoutExpired:
        print(f"FAIL: no end within {timeout} s of SIGINT; the threads:", flush=True)
        print("\n".join(show_threads(process.pid)), flush=True)
        process.kill()
        process.wait()
        return None


class Broker:
    """Debian's mosquitto on a free port of 127.0.0.1 (as the publish-mqtt
    test starts it), and mosquitto_sub on `topic`, QoS 1, collecting
    (topic, payload) pairs. Exit 77 only where they cannot start."""

    def __init__(self, work, topic):
        import threading
        for tool, path in (("mosquitto", mosquitto_broker.mosquitto_path()),
                           ("mosquitto_sub", shutil.which("mosquitto_sub")),
                           ("mosquitto_pub", shutil.which("mosquitto_pub"))):
            if not path:
                print(f"SKIP: {tool} not found (Debian packages mosquitto, mosquitto-clients)")
                sys.exit(77)
        # mosquitto started as root runs as the user mosquitto: it reads conf.
        os.chmod(work, 0o755)
        conf = os.path.join(work, "mosquitto.conf")
        self.log = os.path.join(work, "mosquitto.log")
        # A free port can be handed to a test beside this one as well: the
        # broker that loses the race exits, and then another port is tried.
        for _ in range(5):
            self.port = mosquitto_broker.free_port()
            with open(conf, "w", encoding="utf-8") as f:
                f.write(f"listener {self.port} 127.0.0.1\npersistence false\nallow_anonymous true\n")
            os.chmod(conf, 0o644)
            self.broker = mosquitto_broker.start(conf, self.log)
            if self.broker or not mosquitto_broker.port_taken(self.log):
                break
        if not self.broker:
            with open(self.log, encoding="utf-8") as f:
                print(f"SKIP: mosquitto did not start:\n{f.read()}")
            sys.exit(77)
        self.messages = []
        self.sub = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(self.port), "-t", topic,
                                     "-t", "ready", "-q", "1", "-v"], stdout=subprocess.PIPE,
                                    stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        # Subscribed before the first document: a probe comes back.
        deadline = time.monotonic() + 10
        while not self.messages and time.monotonic() < deadline:
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(self.port), "-t", "ready", "-m", "ready"],
                           capture_output=True, timeout=10)
            time.sleep(0.1)
        if not self.messages:
            sys.exit("mosquitto_sub did not subscribe within 10 s")
        time.sleep(0.2)
        self.messages.clear()

    def _read(self):
        for line in self.sub.stdout:
            topic, _, payload = line.rstrip("\n").partition(" ")
            self.messages.append((topic, payload))

    def wait_quiet(self, quiet=1.0, timeout=10):
        """Waits until nothing has arrived for `quiet` s."""
        deadline = time.monotonic() + timeout
        count = -1
        while time.monotonic() < deadline and count != len(self.messages):
            count = len(self.messages)
            time.sleep(quiet)

    def stop(self):
        for process in (getattr(self, "sub", None), self.broker):
            if process and process.poll() is None:
                process.terminate()
                process.wait(5)
