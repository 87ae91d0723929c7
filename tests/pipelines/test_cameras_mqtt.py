#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""pipelines/cameras-to-mqtt.sh with 16 cameras in one process (suite
"pipelines"): 16 copies of a 30-frame clip of Megamind.avi, their documents
sent to Debian's mosquitto started here on a free port of 127.0.0.1 and
read back by mosquitto_sub.

- the script ends with the streams (exit 0);
- documents arrive from all 16 source ids, cam01 to cam16, each on its
  own topic (cams/camNN), each valid JSON and valid against the schema;
- every camera's track appeared and left (the events), and only frames
  with objects were sent (skip-empty-frames);
- a port out of range stops the script before it starts (exit 1);
- the 16 cameras saw the same clip, so each sent the same documents
  (frames, boxes, events), each naming its own detector (detect-camNN):
  none was lost or mixed up.
Exit 77 without PyGObject, the test media, mosquitto or mosquitto_sub."""
import json
import os
import subprocess
import tempfile

import recipes
from recipes import check

CAMERAS = 16
FRAMES = 30


def comparable(doc):
    """A document without what differs between cameras: the source, the
    wall-clock time and the detector's name, which must be the camera's
    (the script names each detect-camNN)."""
    detectors = [o["detection"].get("detector") for o in doc.get("objects", [])]
    if "event" in doc:
        detectors.append(doc["event"].get("detector"))
    want = f"detect-{doc.get('source')}"
    check(all(d == want for d in detectors), f"{doc.get('source')}: objects or events of detectors {detectors}")
    doc = json.loads(json.dumps(doc))
    for o in doc.get("objects", []):
        o["detection"].pop("detector", None)
    doc.get("event", {}).pop("detector", None)
    return json.dumps({k: v for k, v in doc.items() if k not in ("source", "system_timestamp")}, sort_keys=True)


def main():
    megamind = recipes.test_media("Megamind.avi")
    with tempfile.TemporaryDirectory() as work:
        clip = recipes.make_clip(megamind, FRAMES, os.path.join(work, "clip.mkv"))
        # A port out of range stops the script: gst-launch-1.0 would only
        # warn and publish to 1883.
        bad = subprocess.run([recipes.script("cameras-to-mqtt.sh"), "-p", "99999", clip], env=recipes.script_env(),
                             capture_output=True, text=True, timeout=60)
        check(bad.returncode == 1 and "-p PORT must be a whole number from 1 to 65535" in bad.stderr,
              f"-p 99999: exit {bad.returncode}: {bad.stderr}")
        broker = recipes.Broker(work, "cams/#")
        try:
            # Below the test's 240 s, so that a hang says where it hangs.
            result = recipes.run_script([recipes.script("cameras-to-mqtt.sh"), "-h", "127.0.0.1", "-p",
                                         str(broker.port), "-t", "cams/{source-id}", "-s", "min-size=60"]
                                        + [clip] * CAMERAS, timeout=180)
            broker.wait_quiet()
        finally:
            broker.stop()
        check(result.returncode == 0, f"cameras-to-mqtt.sh exited with {result.returncode}")
        by_source = {}
        for topic, payload in broker.messages:
            doc = json.loads(payload)
            errors = list(recipes.VALIDATOR.iter_errors(doc))
            check(not errors, f"{topic}: not valid against the schema: {errors[:1]}")
            check(topic == f"cams/{doc.get('source')}", f"{topic} carries a document of {doc.get('source')}")
            by_source.setdefault(doc.get("source"), []).append(doc)
        expected = [f"cam{n:02d}" for n in range(1, CAMERAS + 1)]
        check(sorted(by_source) == expected, f"documents from {sorted(by_source)}")
        reference = None
        for source in expected:
            docs = by_source.get(source, [])
            kinds = [d["event"]["kind"] for d in docs if d["type"] == "event"]
            check("appeared" in kinds and "left" in kinds, f"{source}: events {kinds}")
            check(kinds.count("appeared") == kinds.count("left"), f"{source}: every track that appeared left")
            check(all(d["objects"] for d in docs if d["type"] == "frame"), f"{source}: a frame without objects")
            # MQTT keeps the order of one client's messages with QoS 1.
            frames = [d["frame"] for d in docs]
            check(frames == sorted(frames), f"{source}: out of order: {frames}")
            if reference is None:
                reference = sorted(comparable(d) for d in docs)
            check(sorted(comparable(d) for d in docs) == reference,
                  f"{source}: {len(docs)} documents, not those of cam01 ({len(reference)})")
        print(f"{len(broker.messages)} documents, {len(reference or [])} per camera")
    recipes.finish()


if __name__ == "__main__":
    main()
