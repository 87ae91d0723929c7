#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""rtsp_server.py PORT CLIP GOP [STALL]: serves CLIP (any file GStreamer
decodes) as H.264 at rtsp://127.0.0.1:PORT/camera, a key frame every GOP
frames, in real time, as a camera would. With STALL, a camera that hangs:
after STALL frames no more are sent, while its session stays (RTSP and
RTCP go on). Prints "ready" once it listens, or why not.
A separate process, so that the recipe under test runs on its own clock.
Run by the recipes' tests (tests/pipelines/recipes.py)."""
import signal
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstRtspServer", "1.0")
    from gi.repository import GLib, Gst, GstRtspServer
except (ImportError, ValueError) as e:
    print(f"no GstRtspServer (Debian: gir1.2-gst-rtsp-server-1.0): {e}", flush=True)
    sys.exit(1)

Gst.init(None)
port, clip, gop = sys.argv[1], sys.argv[2], int(sys.argv[3])
stall = int(sys.argv[4]) if len(sys.argv) > 4 else None
for element in ("openh264enc", "rtph264pay"):
    if not Gst.ElementFactory.find(element):
        print(f"no {element} (Debian: gstreamer1.0-plugins-bad, -good)", flush=True)
        sys.exit(1)
server = GstRtspServer.RTSPServer.new()
server.set_address("127.0.0.1")
server.set_service(port)
factory = GstRtspServer.RTSPMediaFactory.new()
# videorate: a camera's frames have distinct, regular times; Megamind.avi
# repeats some, which the muxer would drop from the recording.
factory.set_launch(f'( filesrc location="{clip}" ! decodebin ! videorate ! videoconvert '
                   f'! video/x-raw,format=I420,framerate=24000/1001 '
                   f'! openh264enc gop-size={gop} complexity=low ! h264parse config-interval=-1 '
                   f'! rtph264pay name=pay0 pt=96 )')
if stall is not None:
    def configure(factory, media):
        frames = [0]

        def count(pad, info):
            frames[0] += 1
            return Gst.PadProbeReturn.DROP if frames[0] > stall else Gst.PadProbeReturn.OK
        media.get_element().get_by_name("pay0").get_static_pad("sink").add_probe(Gst.PadProbeType.BUFFER, count)
    factory.connect("media-configure", configure)
server.get_mount_points().add_factory("/camera", factory)
if server.attach(None) == 0:
    print(f"cannot listen on 127.0.0.1:{port}", flush=True)
    sys.exit(1)
loop = GLib.MainLoop()
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
print("ready", flush=True)
loop.run()
