# SPDX-License-Identifier: LGPL-2.1-or-later
"""The detector's part of a pipeline description, from the --set
PROPERTY=VALUE options of read-detections.py and read-analytics.py."""
import sys


def detector_description(Gst, settings, program):
    """'waldboostdetect name=detect draw="none" P="V" ...'; exits naming a
    property the element does not have. The values go through GStreamer's
    own parser, as gst-launch-1.0's do, so that one the element cannot take
    (min-size=abc) fails the parse instead of leaving the default in place."""
    element = Gst.ElementFactory.make("waldboostdetect")
    parts = ["waldboostdetect name=detect"]
    for setting in ["draw=none"] + list(settings):
        name, _, value = setting.partition("=")
        if element.find_property(name) is None:
            sys.exit(f"{program}: waldboostdetect has no property '{name}'")
        parts.append(f'{name}="' + value.replace("\\", "\\\\").replace('"', '\\"') + '"')
    return " ".join(parts)
