#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""What a second waldboostdetect costs inside the boxes of a first one
(inference-region=roi-list), against the same detector on the whole frame,
and optionally against another build's plugin: process CPU time per frame,
side by side, rounds interleaved.

The frames of VIDEO are decoded once, and the boxes of BOXES (JSON lines,
waldboostmetapublish's documents: one per frame, "objects" with x, y, w, h)
go on them as region-of-interest metas of type LABEL, so that no upstream
detector runs while the clock does. Each pipeline (appsrc ! ELEMENT !
fakesink) runs in a process of its own (each build's plugin apart); its CPU
time (getrusage: every thread, the OpenCL driver's included) less that of
the same pipeline with identity in the element's place, per frame.

    H=/usr/share/opencv4/haarcascades
    # the boxes: the pedestrian detector's, once
    GST_PLUGIN_PATH=build/gst/element:build/gst/publish gst-launch-1.0 -q \\
        filesrc location=build/testdata/vtest.avi ! decodebin ! videoconvert ! identity eos-after=150 \\
        ! waldboostdetect classifier=$H/haarcascade_fullbody.xml label=pedestrian draw=none \\
        ! waldboostmetaconvert ! waldboostmetapublish file-path=/tmp/pedestrians.jsonl ! fakesink
    tests/bench/roi-list-cost.py build/testdata/vtest.avi /tmp/pedestrians.jsonl \\
        --classifier $H/haarcascade_frontalface_default.xml --label pedestrian \\
        [--baseline-plugin-dir OTHER/build/gst/element]
"""
import argparse
import json
import os
import resource
import subprocess
import sys


def measure(video, boxes_file, frames_n, loops, element, label):
    """In this process: ms of CPU per frame with the element, and without."""
    import gi
    gi.require_version('Gst', '1.0')
    gi.require_version('GstVideo', '1.0')
    from gi.repository import Gst, GstVideo
    Gst.init(None)
    with open(boxes_file) as f:
        boxes = [[(o['x'], o['y'], o['w'], o['h']) for o in json.loads(line).get('objects', [])] for line in f]
    decoder = Gst.parse_launch(f'filesrc location="{video}" ! decodebin ! videoconvert '
                               '! video/x-raw,format=GRAY8 ! appsink name=s sync=false')
    sink = decoder.get_by_name('s')
    decoder.set_state(Gst.State.PLAYING)
    frames, caps = [], None
    while len(frames) < min(frames_n, len(boxes)):
        sample = sink.emit('pull-sample')
        if sample is None:
            break
        caps = sample.get_caps()
        buf = sample.get_buffer()
        frames.append(buf.extract_dup(0, buf.get_size()))
    decoder.set_state(Gst.State.NULL)
    if not frames:
        sys.exit(f'no frames decoded from {video}')

    def cpu():
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime

    def run(middle):
        pipeline = Gst.parse_launch(f'appsrc name=a format=time ! {middle} ! fakesink sync=false')
        src = pipeline.get_by_name('a')
        src.set_property('caps', caps)
        # The element sets up (engine, kernels) in the state change to
        # PAUSED, before the clock starts; PLAYING itself waits for a frame.
        pipeline.set_state(Gst.State.PLAYING)
        started, n = cpu(), 0
        for _ in range(loops):
            for i, frame in enumerate(frames):
                buf = Gst.Buffer.new_wrapped(frame)
                buf.pts = n * 100 * Gst.MSECOND
                buf.duration = 100 * Gst.MSECOND
                for (x, y, w, h) in boxes[i]:
                    GstVideo.buffer_add_video_region_of_interest_meta(buf, label, x, y, w, h)
                src.emit('push-buffer', buf)
                n += 1
        src.emit('end-of-stream')
        msg = pipeline.get_bus().timed_pop_filtered(Gst.CLOCK_TIME_NONE,
                                                    Gst.MessageType.EOS | Gst.MessageType.ERROR)
        used = cpu() - started
        pipeline.set_state(Gst.State.NULL)
        if msg.type == Gst.MessageType.ERROR:
            sys.exit(f'{middle}: {msg.parse_error()[0].message}')
        return used * 1000 / n, n

    without, _ = run('identity')
    with_element, n = run(element)
    regions = sum(len(boxes[i]) for i in range(len(frames))) * loops
    print(json.dumps({'ms': with_element - without, 'frames': n, 'regions_per_frame': regions / n}))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('video')
    ap.add_argument('boxes')
    ap.add_argument('--classifier', required=True, help='the second detector\'s classifier')
    ap.add_argument('--label', default='pedestrian', help='the boxes\' type (region-labels)')
    ap.add_argument('--frames', type=int, default=149)
    ap.add_argument('--loops', type=int, default=2, help='times the frames go through')
    ap.add_argument('--rounds', type=int, default=3)
    ap.add_argument('--plugin-dir', default='build/gst/element')
    ap.add_argument('--baseline-plugin-dir', help='another build\'s plugin, for its roi-list beside')
    ap.add_argument('--measure', nargs=2, metavar=('PLUGIN_DIR', 'ELEMENT'), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.measure:
        measure(a.video, a.boxes, a.frames, a.loops, a.measure[1], a.label)
        return
    face = f'waldboostdetect classifier={a.classifier} draw=none'
    roi = f'{face} inference-region=roi-list region-labels={a.label}'
    parts = [('roi-list, this build', a.plugin_dir, roi), ('whole frame, this build', a.plugin_dir, face)]
    if a.baseline_plugin_dir:
        parts.insert(1, ('roi-list, baseline build', a.baseline_plugin_dir, roi))
    results = {name: [] for name, _, _ in parts}
    for _ in range(a.rounds):
        for name, plugin_dir, element in parts:
            env = dict(os.environ, GST_PLUGIN_PATH=os.path.abspath(plugin_dir))
            out = subprocess.run([sys.executable, __file__, a.video, a.boxes, '--label', a.label, '--classifier',
                                  a.classifier, '--frames', str(a.frames), '--loops', str(a.loops), '--measure',
                                  plugin_dir, element], env=env, check=True, capture_output=True, text=True)
            results[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    first = results[parts[0][0]]
    print(f'{first[0]["frames"]} frames a run, {first[0]["regions_per_frame"]:.1f} boxes a frame, '
          f'{a.rounds} rounds interleaved')
    print('| the second detector | CPU ms per frame (each round) |')
    print('|---|---|')
    for name, _, _ in parts:
        print(f'| {name} | ' + ', '.join(f'{r["ms"]:.2f}' for r in results[name]) + ' |')


if __name__ == '__main__':
    main()
