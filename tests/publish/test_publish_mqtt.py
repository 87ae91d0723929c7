#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""waldboostmetapublish method=mqtt against a real broker (suite "publish"):
Debian's mosquitto, started here on a free port of 127.0.0.1, and
mosquitto_sub as the subscriber.

- in order, nothing lost: the detector's documents on a still image (a
  track appears on the first frame and leaves at the end), QoS 1;
- the broker stopped and started again while a live stream runs: the video
  keeps its rate, delivery resumes, the drops are counted and warned of;
- TLS with a CA, a server and a client certificate made here by openssl;
- a wrong password: a warning that says so, and the password in no output;
- a credentials-file that is a device, a FIFO or too large, a TLS file that
  is a FIFO or a device: an error at once;
- hostile brokers (one that accepts and never answers, one that sends
  garbage): the video keeps its rate, a warning says what went wrong, the
  EOS comes within flush-timeout, and its warning says no connection was
  made;
- a source id with what MQTT refuses in a topic: delivered on a cleaned
  topic; a topic pattern with a wildcard: an error at the start;
- no source id for a {source-id} topic: one warning, documents delivered.
Every document received validates against the schema. Exit 77 when
mosquitto, mosquitto_sub or PyGObject is missing or the broker cannot start."""
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "support"))
import mosquitto_broker  # noqa: E402
import validate_documents  # noqa: E402
from publish_support import FAILURES, Gst, check  # noqa: E402

MOSQUITTO = mosquitto_broker.mosquitto_path()
for tool, path in (("mosquitto", MOSQUITTO), ("mosquitto_sub", shutil.which("mosquitto_sub")),
                   ("mosquitto_passwd", shutil.which("mosquitto_passwd")), ("openssl", shutil.which("openssl"))):
    if not path:
        print(f"SKIP: {tool} not found (Debian packages mosquitto, mosquitto-clients, openssl)")
        sys.exit(77)

VALIDATOR = validate_documents.validator()
WORK = tempfile.mkdtemp(prefix="waldboost-mqtt-")
# mosquitto started as root runs as the user mosquitto: it must read the
# configuration, the password file and the (throwaway) keys here.
os.chmod(WORK, 0o755)
os.umask(0o022)


class Broker:
    """mosquitto on 127.0.0.1:port with the given configuration lines."""

    def __init__(self, name, extra=()):
        self.conf = os.path.join(WORK, f"{name}.conf")
        self.log = os.path.join(WORK, f"{name}.log")
        self.extra = extra
        self._configure()
        self.process = None
        self.ever_started = False

    def _configure(self):
        self.port = mosquitto_broker.free_port()
        with open(self.conf, "w", encoding="utf-8") as f:
            f.write(f"listener {self.port} 127.0.0.1\npersistence false\n")
            f.write("allow_anonymous true\n" if not any("allow_anonymous" in e for e in self.extra) else "")
            f.write("".join(line + "\n" for line in self.extra))

    started = False

    def start(self):
        self.process = mosquitto_broker.start(self.conf, self.log)
        # A test beside this one may have been handed the same free port
        # before this broker's first start: then another port is tried. A
        # restart keeps its port (the publishers know it).
        attempts = 1
        while not self.process and not self.ever_started and attempts < 5 and mosquitto_broker.port_taken(self.log):
            self._configure()
            self.process = mosquitto_broker.start(self.conf, self.log)
            attempts += 1
        if self.process:
            Broker.started = self.ever_started = True
            return
        with open(self.log, encoding="utf-8") as f:
            print(f"mosquitto did not start:\n{f.read()}")
        # Only the first broker's failure is a skip (mosquitto cannot run
        # here); a later one is the test's own fault.
        sys.exit(1 if Broker.started else 77)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(5)


class Subscriber:
    """mosquitto_sub on test/#, QoS 1: the payloads as they arrive."""

    def __init__(self, broker, extra=()):
        self.messages = []
        self.process = subprocess.Popen(
            ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "test/#", "-q", "1", "-v",
             *extra], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, encoding="utf-8")
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
        # Subscribed before the first document: a probe message comes back.
        deadline = time.monotonic() + 10
        while not self.messages and time.monotonic() < deadline:
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-t", "test/ready", "-m",
                            "ready", *extra], capture_output=True, timeout=10)
            time.sleep(0.1)
        if not self.messages:
            raise SystemExit("mosquitto_sub did not subscribe within 10 s")
        time.sleep(0.2)
        self.messages.clear()

    def _read(self):
        for line in self.process.stdout:
            topic, _, payload = line.rstrip("\n").partition(" ")
            self.messages.append((topic, payload))

    def wait_for(self, count, timeout=5):
        deadline = time.monotonic() + timeout
        while len(self.messages) < count and time.monotonic() < deadline:
            time.sleep(0.05)

    def stop(self):
        self.process.terminate()
        self.process.wait(5)
        self.thread.join(2)

    def documents(self):
        docs = [json.loads(p) for _, p in self.messages]
        validate_documents.validate_lines(VALIDATOR, [p for _, p in self.messages], "mqtt")
        return docs


def run(description, during=None, setup=None):
    """Runs a pipeline to EOS; returns (warnings, stats, buffer times).
    `setup` gets the pipeline before it starts."""
    pipeline = Gst.parse_launch(description)
    if setup:
        setup(pipeline)
    times = []
    sink = pipeline.get_by_name("sink")
    sink.get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER,
                                          lambda pad, info: times.append(time.monotonic()) or Gst.PadProbeReturn.OK)
    bus = pipeline.get_bus()
    pipeline.set_state(Gst.State.PLAYING)
    if during:
        threading.Thread(target=during, daemon=True).start()
    warnings = []
    while True:
        m = bus.timed_pop_filtered(60 * Gst.SECOND, Gst.MessageType.ANY)
        if m is None:
            raise SystemExit(f"timeout: {description}")
        if m.type == Gst.MessageType.ERROR:
            raise SystemExit(f"error: {m.parse_error()} in {description}")
        if m.type == Gst.MessageType.WARNING:
            warnings.append(m.parse_warning()[0].message)
        if m.type == Gst.MessageType.EOS:
            break
    stats = pipeline.get_by_name("publish").get_property("stats")
    stats = {k: stats.get_value(k) for k in ("documents", "published", "dropped", "connections")}
    pipeline.set_state(Gst.State.NULL)
    return warnings, stats, times


def publisher(broker, extra=""):
    return (f"waldboostmetapublish name=publish method=mqtt host=127.0.0.1 port={broker.port} "
            f"topic=test/{{source-id}} qos=1 {extra}")


def test_in_order():
    image = os.path.join(os.environ.get("WALDBOOST_TEST_DATA", "build/testdata"), "astronaut.png")
    if not os.path.exists(image):
        check(os.environ.get("WALDBOOST_REQUIRE_TEST_DATA") != "1", f"missing test data {image}")
        return
    broker = Broker("order")
    broker.start()
    sub = Subscriber(broker)
    frames = 40
    # Detection on the first frame only (interval): the track follows the
    # face on the others, cheaply.
    _, stats, _ = run(f"filesrc location={image} ! pngdec ! videoconvert ! video/x-raw,format=GRAY8 "
                      f"! imagefreeze num-buffers={frames} ! waldboostdetect tracking=true confirm-hits=1 "
                      "interval=1000 ! waldboostmetaconvert source-id=cam1 "
                      f"! {publisher(broker)} ! fakesink name=sink")
    sub.wait_for(frames + 2)
    sub.stop()
    broker.stop()
    docs = sub.documents()
    order = [(d["type"], d["frame"], d.get("event", {}).get("kind")) for d in docs]
    ids = {o["id"] for o in docs[0]["objects"]} if docs else set()
    expected = ([("frame", 0, None)] + [("event", 0, "appeared")] * len(ids) +
                [("frame", i, None) for i in range(1, frames)] + [("event", frames - 1, "left")] * len(ids))
    check(ids and order == expected, f"every document once, in order: {order[:6]}... ({len(order)})")
    check({t for t, _ in sub.messages} == {"test/cam1"}, "topic with {source-id}")
    check(stats["documents"] == stats["published"] == len(expected) and stats["dropped"] == 0,
          f"stats {stats}")


def test_broker_restart():
    broker = Broker("restart")
    broker.start()
    sub = Subscriber(broker)
    fps, frames = 50, 250

    def outage():
        time.sleep(1.0)
        broker.stop()
        time.sleep(1.2)
        broker.start()

    warnings, stats, times = run(
        f"videotestsrc is-live=true num-buffers={frames} ! video/x-raw,width=64,height=48,framerate={fps}/1 "
        f"! waldboostmetaconvert source-id=live ! {publisher(broker, 'max-queue=10')} "
        "! fakesink name=sink sync=true", during=outage)
    sub.wait_for(1)
    time.sleep(0.5)
    sub.stop()
    broker.stop()
    gaps = [b - a for a, b in zip(times, times[1:])]
    check(len(times) == frames, f"{len(times)} of {frames} frames")
    check(max(gaps) < 0.25, f"the video stalled {max(gaps):.3f} s with the broker down")
    check(times[-1] - times[0] < frames / fps + 0.5, f"{times[-1] - times[0]:.2f} s for {frames / fps} s of video")
    received = [d["frame"] for d in sub.documents()]
    unique = sorted(set(received))
    check(received == sorted(received), "in order across the outage")
    check(unique and unique[0] == 0 and unique[-1] == frames - 1,
          f"delivery before and after the outage: {unique[:3]}...{unique[-3:]}")
    check(stats["dropped"] > 0 and stats["connections"] >= 2, f"drops counted, reconnected: {stats}")
    check(len(unique) + stats["dropped"] >= frames - 64, f"{len(unique)} received + dropped, of {frames}: {stats}")
    check(any("dropped" in w for w in warnings), f"a warning about the drops: {warnings}")


def openssl(*args):
    subprocess.run(["openssl", *args], cwd=WORK, check=True, capture_output=True)


def test_tls():
    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "1",
            "-subj", "/CN=waldboost test CA")
    for name, ext in (("server", "subjectAltName=IP:127.0.0.1"), ("client", "extendedKeyUsage=clientAuth")):
        openssl("req", *ec, "-keyout", f"{name}.key", "-out", f"{name}.csr", "-subj",
                f"/CN={name}")
        with open(os.path.join(WORK, f"{name}.ext"), "w", encoding="utf-8") as f:
            f.write(ext + "\n")
        openssl("x509", "-req", "-in", f"{name}.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", f"{name}.crt", "-days", "1", "-extfile", f"{name}.ext")
    w = lambda name: os.path.join(WORK, name)  # noqa: E731
    for name in ("server.key", "client.key"):
        os.chmod(w(name), 0o644)  # openssl writes 0600; mosquitto is not root
    broker = Broker("tls", [f"cafile {w('ca.crt')}", f"certfile {w('server.crt')}", f"keyfile {w('server.key')}",
                            "require_certificate true"])
    broker.start()
    sub = Subscriber(broker, ["--cafile", w("ca.crt"), "--cert", w("client.crt"), "--key", w("client.key")])
    frames = 20
    warnings, stats, _ = run(f"videotestsrc num-buffers={frames} ! video/x-raw,width=64,height=48 "
                             "! waldboostmetaconvert source-id=tls ! "
                      + publisher(broker, f"ca-file={w('ca.crt')} cert-file={w('client.crt')} "
                                          f"key-file={w('client.key')}") + " ! fakesink name=sink")
    sub.wait_for(frames)
    sub.stop()
    broker.stop()
    check([d["frame"] for d in sub.documents()] == list(range(frames)), f"TLS: {len(sub.messages)} received")
    check(stats["published"] == frames and not warnings, f"TLS stats {stats}, warnings {warnings}")


PASSWORD = "s3cret-Pa55word-never-shown"


def test_wrong_password():
    passwords = os.path.join(WORK, "passwords")
    subprocess.run(["mosquitto_passwd", "-b", "-c", passwords, "camera", PASSWORD], check=True, capture_output=True)
    # Debian 13's mosquitto_passwd (2.0.21) writes 0600, Debian 12's (2.0.11)
    # followed the umask; the broker, started as root, reads it as the user
    # mosquitto.
    os.chmod(passwords, 0o644)
    broker = Broker("auth", ["allow_anonymous false", f"password_file {passwords}"])
    broker.start()
    wrong = os.path.join(WORK, "wrong-credentials")
    with open(wrong, "w", encoding="utf-8") as f:
        f.write("camera\n" + PASSWORD[::-1] + "\n")
    right = os.path.join(WORK, "credentials")
    with open(right, "w", encoding="utf-8") as f:
        f.write("camera\n" + PASSWORD + "\n")
    # In a process of its own with the element's debug log at its most
    # verbose: neither password may show anywhere.
    child = subprocess.run([sys.executable, __file__, "--auth-child", str(broker.port), wrong, right],
                           env=dict(os.environ, GST_DEBUG="waldboostmeta*:9,basetransform:6"),
                           capture_output=True, text=True, timeout=60)
    broker.stop()
    output = child.stdout + child.stderr
    print(child.stdout)
    check(child.returncode == 0, f"auth child failed:\n{output[-2000:]}")
    check("the broker refused the user name or password" in output, "a warning says the password was refused")
    for secret in (PASSWORD, PASSWORD[::-1]):
        check(secret not in output, "a password shows in the output")
        with open(broker.log, encoding="utf-8") as f:
            check(secret not in f.read(), "a password shows in the broker's log")


def auth_child(port, wrong, right):
    class B:
        pass
    broker = B()
    broker.port = int(port)
    warnings, stats, _ = run("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                             "! waldboostmetaconvert source-id=auth ! "
                             + publisher(broker, f"credentials-file={wrong} flush-timeout=1500")
                             + " ! fakesink name=sink")
    print("warnings:", warnings)
    print("wrong password stats:", stats)
    if stats["published"] != 0 or not warnings:
        sys.exit(1)
    _, stats, _ = run("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                      "! waldboostmetaconvert source-id=auth ! "
                      + publisher(broker, f"credentials-file={right}") + " ! fakesink name=sink")
    print("right password stats:", stats)
    sys.exit(0 if stats["published"] == 5 else 1)


def test_credentials_that_are_not_files():
    """A credentials-file that is a device, a FIFO or too large, and a TLS
    file that is a FIFO or a device, stop the start with an error that says
    so, at once: /dev/zero was read without end (12.9 GB in 30 s), and a
    FIFO blocked the start for a writer (libmosquitto fopen()s the TLS
    files)."""
    fifo = os.path.join(WORK, "credentials-fifo")
    os.mkfifo(fifo)
    large = os.path.join(WORK, "large-credentials")
    with open(large, "w", encoding="utf-8") as f:
        f.write("camera\n" + "x" * (65 * 1024) + "\n")
    for prop, path, words in (("credentials-file", "/dev/zero", "not a regular file"),
                              ("credentials-file", fifo, "not a regular file"),
                              ("credentials-file", large, "more than 64 KiB"),
                              ("ca-file", fifo, "not a regular file"), ("key-file", "/dev/zero", "not a regular file")):
        start = time.monotonic()
        pipeline = Gst.parse_launch("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 "
                                    "! waldboostmetaconvert ! waldboostmetapublish method=mqtt host=127.0.0.1 port=1 "
                                    f"{prop}={path} ! fakesink")
        pipeline.set_state(Gst.State.PLAYING)
        m = pipeline.get_bus().timed_pop_filtered(20 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        pipeline.set_state(Gst.State.NULL)
        error = m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else None
        check(error and f"Could not read {prop}" in error and words in error and
              time.monotonic() - start < 10, f"{prop}={path}: {error}")


class HostileBroker:
    """A listener on 127.0.0.1 that accepts connections and then stalls
    (never answers) or sends garbage."""

    def __init__(self, garbage):
        self.server = socket.socket()
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(4)
        self.port = self.server.getsockname()[1]
        self.garbage = garbage
        self.clients = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            self.clients.append(client)
            if self.garbage:
                try:
                    client.sendall(bytes(range(256)) * 4)
                except OSError:
                    pass

    def stop(self):
        self.server.close()
        for c in self.clients:
            c.close()


def test_hostile_brokers():
    for garbage, expected in ((False, None), (True, "ended before an MQTT answer")):
        broker = HostileBroker(garbage)
        fps, frames = 50, 75
        start = time.monotonic()
        warnings, stats, times = run(
            f"videotestsrc is-live=true num-buffers={frames} ! video/x-raw,width=64,height=48,framerate={fps}/1 "
            f"! waldboostmetaconvert source-id=hostile ! {publisher(broker, 'flush-timeout=300')} "
            "! fakesink name=sink sync=true")
        elapsed = time.monotonic() - start
        broker.stop()
        what = "garbage" if garbage else "stall"
        gaps = [b - a for a, b in zip(times, times[1:])]
        check(len(times) == frames and max(gaps) < 0.25, f"{what}: the video stalled ({max(gaps):.3f} s)")
        check(elapsed < frames / fps + 2, f"{what}: {elapsed:.1f} s to EOS")
        check(stats["published"] == 0 and stats["connections"] == 0, f"{what}: stats {stats}")
        check(any("not delivered within flush-timeout" in w and f"no MQTT connection to 127.0.0.1:{broker.port}" in w
                  for w in warnings), f"{what}: the EOS says what was not delivered, and why: {warnings}")
        if expected:
            check(any(expected in w for w in warnings), f"{what}: a warning about the broker: {warnings}")


def test_hostile_topics():
    """A source id with what MQTT refuses in a topic (wildcards, C0, DEL and
    C1 controls, a non-character) still reaches the broker, on a topic where
    those became '_'; the document keeps the source id as it is. A topic
    pattern with a wildcard is an error at the start, not silent drops."""
    broker = Broker("topics")
    broker.start()
    sub = Subscriber(broker)
    source = "a+b#c\x7fd\u0085e\ufdd0f\u202eg\x01h"
    frames = 5
    _, stats, _ = run(f"videotestsrc num-buffers={frames} ! video/x-raw,width=64,height=48 "
                      f"! waldboostmetaconvert name=convert ! {publisher(broker)} ! fakesink name=sink",
                      setup=lambda p: p.get_by_name("convert").set_property("source-id", source))
    sub.wait_for(frames)
    sub.stop()
    topics = {t for t, _ in sub.messages}
    check(topics == {"test/a_b_c_d_e_f\u202eg_h"} and len(sub.messages) == frames,
          f"hostile source id: {len(sub.messages)} documents on {topics!r}, stats {stats}")
    check(all(d["source"] == source for d in sub.documents()), "the document keeps the source id")
    try:
        run(f"videotestsrc num-buffers=2 ! waldboostmetaconvert ! {publisher(broker, 'topic=test/+/x')} "
            "! fakesink name=sink")
        check(False, "topic with a wildcard: no error")
    except SystemExit as e:
        check("is not a topic MQTT publishes to" in str(e), f"topic with a wildcard: {e}")
    broker.stop()


def test_topic_without_source():
    """topic=.../{source-id} with converters that have no source-id: every
    camera's documents go to one topic ("test/"), with "source" empty. One
    warning says so and names source-id; the documents are published all
    the same. With a source-id, no such warning; the converter's json_src
    buffers (application/x-json) carry its source too."""
    broker = Broker("nosource")
    broker.start()
    sub = Subscriber(broker)
    frames = 5
    for source, warned in (("", True), ("cam2", False)):
        setting = f"source-id={source}" if source else ""
        warnings, stats, _ = run(f"videotestsrc num-buffers={frames} ! video/x-raw,width=64,height=48 "
                                 f"! waldboostmetaconvert {setting} ! {publisher(broker)} ! fakesink name=sink")
        said = [w for w in warnings if "Set source-id on the converter" in w]
        check(len(said) == (1 if warned else 0) and (not warned or '"test/"' in said[0]),
              f"source-id '{source}': {'one warning' if warned else 'no warning'}, not {warnings}")
        check(stats["published"] == frames, f"source-id '{source}': every document published: {stats}")
    warnings, stats, _ = run(f"videotestsrc num-buffers={frames} ! video/x-raw,width=64,height=48 "
                             f"! waldboostmetaconvert name=c source-id=cam3 ! fakesink "
                             f"c.json_src ! queue ! {publisher(broker)} ! fakesink name=sink")
    check(not warnings and stats["published"] == frames, f"json_src: {warnings}, {stats}")
    sub.wait_for(3 * frames)
    sub.stop()
    broker.stop()
    check({t for t, _ in sub.messages} == {"test/", "test/cam2", "test/cam3"},
          f"topics {sorted({t for t, _ in sub.messages})}")


def test_client_id_taken():
    """A broker keeps one connection per client id: two publishers of one
    client-id took the connection from each other at every reconnect, with
    only "the connection was lost" to show for it. In one process the second
    start is an error now, and the id is free again once its publisher
    stops; another client (here mosquitto_pub) taking the id is named as a
    likely cause in the warning, and the documents go out after the
    reconnect."""
    broker = Broker("clientid")
    broker.start()

    def first_error(description):
        pipeline = Gst.parse_launch(description)
        pipeline.set_state(Gst.State.PLAYING)
        m = pipeline.get_bus().timed_pop_filtered(30 * Gst.SECOND, Gst.MessageType.ERROR | Gst.MessageType.EOS)
        pipeline.set_state(Gst.State.NULL)
        check(m is not None, f"neither an error nor the end: {description}")
        return m.parse_error()[0].message if m and m.type == Gst.MessageType.ERROR else None

    def two(first, second):
        def branch(source, name, client):
            return (f"t. ! queue ! waldboostmetaconvert source-id={source} ! waldboostmetapublish name={name} "
                    f"method=mqtt host=127.0.0.1 port={broker.port} topic=test/{{source-id}} client-id={client} "
                    "! fakesink ")
        return ("videotestsrc num-buffers=5 ! video/x-raw,width=64,height=48 ! tee name=t "
                + branch("a", "p1", first) + branch("b", "p2", second))

    error = first_error(two("cam", "cam"))
    check(error is not None and 'client-id "cam" is already used by another waldboostmetapublish' in error,
          f"one client-id twice in a process: an error, not {error}")
    error = first_error(two("cam", "cam2"))
    check(error is None, f"the id freed by the stop, and two ids: no error, not {error}")

    def intruder():
        time.sleep(1.0)
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-i", "cam", "-t", "test/x",
                        "-m", "x"], capture_output=True, timeout=10)

    frames = 120
    warnings, stats, _ = run(f"videotestsrc is-live=true num-buffers={frames} "
                             "! video/x-raw,width=64,height=48,framerate=30/1 ! waldboostmetaconvert source-id=a "
                             f"! {publisher(broker, 'client-id=cam')} ! fakesink name=sink", during=intruder)
    said = [w for w in warnings if 'connects with the same client-id "cam"' in w]
    check(len(said) >= 1, f"another client with the id: the warning names it, not {warnings}")
    check(stats["connections"] >= 2 and stats["published"] == frames,
          f"reconnected, and every document published: {stats}")
    broker.stop()


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--auth-child":
        auth_child(*sys.argv[2:])
    try:
        for test in (test_in_order, test_broker_restart, test_tls, test_wrong_password,
                     test_credentials_that_are_not_files, test_hostile_brokers, test_hostile_topics,
                     test_topic_without_source, test_client_id_taken):
            start = time.monotonic()
            test()
            print(f"{test.__name__}: {time.monotonic() - start:.1f} s", flush=True)
    finally:
        shutil.rmtree(WORK, ignore_errors=True)
    if FAILURES:
        sys.exit(1)
    print("ok")


if __name__ == "__main__":
    main()
