/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The element's property table: every property installed, with its
 * documentation. Their values live in Settings (properties.h).
 */
#include "property_table.h"

#include <gst/gst.h>

#include <string>

#include "core/opencl/engine/reduction.h"
#include "label_ids.h"
#include "properties.h"
#include "settings.h"

namespace waldboost_element {

void install_properties(GObjectClass* gobject_class)
{
    const auto rw = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
    /**
     * GstWaldboostDetect:classifier:
     *
     * The cascade to detect with: a WaldBoost XML file or an OpenCV LBP or Haar cascade. Empty: the
     * embedded frontal-face classifier. A change while playing builds a new engine once the frames in
     * flight have left; a file that cannot be loaded then is a warning, and detection goes on with the
     * classifier it had.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_CLASSIFIER,
        g_param_spec_string("classifier", "Classifier",
                            "WaldBoost XML file or OpenCV cascade (LBP or Haar, e.g. "
                            "/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml); empty = the "
                            "embedded frontal-face classifier (OpenCV's lbpcascade_frontalface)",
                            "", rw));
    /**
     * GstWaldboostDetect:label:
     *
     * The type of the detections' region-of-interest metas and the label in the messages. Empty: the
     * classifier's label. The rules of labels in classifier files apply: a label with control
     * characters, C1 controls, bidi embeddings, overrides or isolates, invalid UTF-8 or more than
     * 256 bytes is refused with a warning, and the previous value is kept.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_LABEL,
        g_param_spec_string(
            "label", "Label",
            "Label of the detections (ROI meta type, messages); empty = the classifier's label. At most "
            "256 bytes of UTF-8 without control or bidi characters; another value is refused with a "
            "warning and the previous one is kept",
            "", rw));
    /**
     * GstWaldboostDetect:label-id:
     *
     * The class id of the detections (the "label_id" of their region-of-interest metas' "detection"
     * parameters, and of the JSON documents). -1: the label's own id, the same in every process:
     * face 1, profile-face 2, eye 3, ... (docs/user-guide.md), another label 1000 or more from its
     * hash.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_LABEL_ID,
        g_param_spec_int("label-id", "Label id",
                         "Class id of the detections (label_id in the metas' parameters and the JSON documents); "
                         "-1 = the label's own: face 1, profile-face 2, eye 3, full-body 9, upper-body 10 and the "
                         "other labels of Debian's cascades from a fixed table (docs/user-guide.md), any other "
                         "label an id of 1000 or more made from its text, the same in every run",
                         -1, G_MAXINT, kLabelIdFromLabel, rw));
    /**
     * GstWaldboostDetect:device:
     *
     * The OpenCL device (auto, gpu, cpu, accelerator, all-gpus, "platform:device", DL Streamer's GPU.0 or CPU.1,
     * or part of a name, vendor, platform or driver such as pocl), or a comma-separated fallback list. A change
     * builds a new engine.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_DEVICE,
        g_param_spec_string("device", "OpenCL device",
                            "auto (a GPU, else an accelerator, else a CPU), gpu, cpu, accelerator, "
                            "all-gpus (every GPU: each instance takes the one the fewest instances of the "
                            "process use; likewise all-cpus, all-accelerators), "
                            "\"platform:device\" indices, GPU.N / CPU.N (the Nth GPU or CPU from 0, as DL Streamer "
                            "writes them), or part of a device, vendor, platform or driver name (\"pocl\"); a "
                            "comma-separated list "
                            "(\"gpu,cpu\") is a fallback order: when a device fails to start or fails while "
                            "streaming, the next one takes over and runs the frames in flight again",
                            "auto", rw));
    /**
     * GstWaldboostDetect:scale-factor:
     *
     * Size ratio of consecutive levels of the image pyramid, as OpenCV's detectMultiScale scaleFactor.
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_SCALE_FACTOR,
                                    g_param_spec_double("scale-factor", "Scale factor",
                                                        "Size ratio of consecutive pyramid levels", 1.01, 10.0,
                                                        kDefaultScaleFactor, rw));
    /**
     * GstWaldboostDetect:min-size:
     *
     * Smallest object width in pixels (0: the classifier window).
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_MIN_SIZE,
        g_param_spec_int("min-size", "Minimum size",
                         "Smallest object width in pixels (the height follows the classifier window, or is "
                         "min-height); 0 = the classifier window",
                         0, G_MAXINT, 0, rw));
    /**
     * GstWaldboostDetect:min-height:
     *
     * Smallest object height in pixels (0: min-size's, which follows the
     * classifier window's aspect ratio). With min-size, facedetect's
     * min-size-width and min-size-height for a cascade whose window is not
     * square.
     *
     * Since: 2026.12
     */
    g_object_class_install_property(
        gobject_class, PROP_MIN_HEIGHT,
        g_param_spec_int("min-height", "Minimum height",
                         "Smallest object height in pixels, with min-size as the smallest width (OpenCV's minSize, "
                         "facedetect's min-size-width and min-size-height); 0 = min-size's height, which follows "
                         "the classifier window's aspect ratio",
                         0, G_MAXINT, 0, rw));
    /**
     * GstWaldboostDetect:max-size:
     *
     * Largest object width in pixels (0: no limit).
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_MAX_SIZE,
                                    g_param_spec_int("max-size", "Maximum size",
                                                     "Largest object width in pixels; 0 = no limit", 0, G_MAXINT, 0,
                                                     rw));
    /**
     * GstWaldboostDetect:stride:
     *
     * Pixels between scanned windows (0: OpenCV's rule).
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_STRIDE,
        g_param_spec_int("stride", "Stride",
                         "Pixels between scanned windows; 0 = OpenCV's rule (2 below scale 2, then 1)", 0, 64, 0, rw));
    /**
     * GstWaldboostDetect:min-neighbors:
     *
     * Overlapping windows a detection needs more than, as OpenCV's minNeighbors.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_MIN_NEIGHBORS,
        g_param_spec_int("min-neighbors", "Minimum neighbors",
                         "A detection needs more than this many overlapping windows; 0 = no grouping threshold", 0,
                         1000, kDefaultMinNeighbors, rw));
    /**
     * GstWaldboostDetect:grouping:
     *
     * How overlapping windows become detections: OpenCV's groupRectangles, non-maximum suppression or
     * none.
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_GROUPING,
                                    g_param_spec_enum("grouping", "Grouping",
                                                      "How overlapping windows become detections",
                                                      GST_TYPE_WALDBOOST_GROUPING, GST_WALDBOOST_GROUPING_OPENCV, rw));
    /**
     * GstWaldboostDetect:nms-iou:
     *
     * With grouping=nms, the overlap above which windows merge.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_NMS_IOU,
        g_param_spec_double("nms-iou", "NMS IoU", "Overlap (intersection over union) above which NMS merges windows",
                            0.0, 1.0, kDefaultNmsIou, rw));
    /**
     * GstWaldboostDetect:threshold:
     *
     * An offset to the classifier's final threshold: above 0, fewer and surer detections.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_THRESHOLD,
        g_param_spec_double("threshold", "Threshold",
                            "Added to the classifier's final threshold: above 0 gives fewer, surer detections", -1000.0,
                            1000.0, 0.0, rw));
    /**
     * GstWaldboostDetect:min-confidence:
     *
     * Detections whose confidence is below this are dropped after grouping. The confidence is
     * 1 - exp(-neighbors / 8) of the windows grouped into the detection (0.39 for 4, 0.63 for 8,
     * 0.86 for 16), the value in the metas and messages; 0 keeps every detection. It plays the part of
     * DL Streamer's gvadetect threshold; threshold is the score offset of the cascade itself.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_MIN_CONFIDENCE,
        g_param_spec_double("min-confidence", "Minimum confidence",
                            "Detections whose confidence (1 - exp(-neighbors / 8), as in the metas and messages) "
                            "is below this are dropped; 0 = keep all. Like DL Streamer's threshold; the score "
                            "offset is threshold",
                            0.0, 1.0, 0.0, rw));
    /**
     * GstWaldboostDetect:max-windows:
     *
     * The most accepted windows a frame keeps before grouping (0: no limit); more are left out, with one
     * warning per stream and the count in the messages and stats.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_MAX_WINDOWS,
        g_param_spec_int("max-windows", "Maximum windows",
                         "The most accepted windows a frame keeps before grouping, the first in scan order (smallest "
                         "objects first); more are left out, with one warning per stream. Real cascades stay far "
                         "below the default; a classifier that accepts nearly everything would otherwise cost "
                         "seconds and gigabytes per frame. 0 = no limit",
                         0, G_MAXINT, waldboost::kDefaultMaxWindows, rw));
    /**
     * GstWaldboostDetect:roi:
     *
     * The region searched, <x, y, width, height> in pixels, or empty for the whole frame. Another form is
     * refused and the previous value stays.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_ROI,
        gst_param_spec_array("roi", "Region of interest",
                             "Scan only this region: <x, y, width, height> in pixels (four values, width and height "
                             "at least 1; the part inside the frame is scanned), e.g. \"<100, 50, 320, 240>\"; "
                             "empty (<>) = the whole frame. Another number of values or a size of 0 is refused and "
                             "the previous value stays (the debug log says why)",
                             g_param_spec_int("roi-value", "ROI value", "x, y, width or height", 0, G_MAXINT, 0,
                                              static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS)),
                             rw));
    /**
     * GstWaldboostDetect:max-inflight:
     *
     * Frames with the element at once; the streaming thread waits only when that many are in flight. Each
     * adds at most one frame of latency. A change builds a new engine. Frames that take a second or more on
     * the device, and a new engine's first frame, go to it one at a time.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_MAX_INFLIGHT,
        g_param_spec_int("max-inflight", "Frames in flight",
                         "Frames on the device at once (the streaming thread waits only when that many are; with "
                         "interval above 1 the frames that skip detection wait between them too, up to max-inflight "
                         "x min(interval, 4) frames in all); each frame held adds at most one frame of latency beyond "
                         "the first. Their input buffers are kept until they leave: the allocation query asks "
                         "upstream's pool for that many more, and a frame from a fixed pool too small for it is "
                         "copied so the pool never runs dry. "
                         "Each frame in flight holds its own pyramid and integral image, on a CPU device about 12 MiB "
                         "at 640x480, 76 MiB at 1080p, 300 MiB at 4K and 1.2 GiB at 8K (a GPU about 2.5 times that); "
                         "when max-inflight frames do not fit the device's memory, fewer are kept, with a warning. "
                         "Frames that take a second or more on the device, and a new engine's first frame, go to it "
                         "one at a time, so that a stop or a change waits for one frame's work at most",
                         1, 16, kDefaultMaxInflight, rw));
    /**
     * GstWaldboostDetect:draw:
     *
     * How the boxes are shown: an overlay composition meta, burnt into the frame, either as downstream
     * allows (auto), or not at all.
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_DRAW,
                                    g_param_spec_enum("draw", "Draw", "How the rectangles are shown",
                                                      GST_TYPE_WALDBOOST_DRAW, GST_WALDBOOST_DRAW_AUTO, rw));
    /**
     * GstWaldboostDetect:color:
     *
     * The colour of the boxes of the detector's label, as ARGB (0xAARRGGBB).
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_COLOR,
                                    g_param_spec_uint("color", "Color",
                                                      "Rectangle colour as ARGB (big-endian hex 0xAARRGGBB)", 0,
                                                      G_MAXUINT32, kDefaultColor, rw));
    /**
     * GstWaldboostDetect:line-width:
     *
     * The width of the box outlines in pixels.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_LINE_WIDTH,
        g_param_spec_int("line-width", "Line width", "Rectangle line width in pixels", 1, 32, kDefaultLineWidth, rw));
    /**
     * GstWaldboostDetect:box-text:
     *
     * What the tag above each box says: any of label, id and confidence (none by default).
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_BOX_TEXT,
        g_param_spec_flags(
            "box-text", "Box text",
            "Text on a tag above each box, rendered with Pango (as textoverlay): any of label, id "
            "(the track id with tracking=true) and confidence, e.g. box-text=label+id; empty = none. In crowds "
            "tags shorten to fit their box and never cover each other (one with no room is left out)",
            GST_TYPE_WALDBOOST_BOX_TEXT, 0, rw));
    /**
     * GstWaldboostDetect:label-colors:
     *
     * Box and tag colours per label, a structure of ARGB values; labels not named keep color (the
     * detector's) or their own (the parts').
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:inference-region:
     *
     * Where the element searches: the whole frame (within #GstWaldboostDetect:roi), or only inside each
     * #GstVideoRegionOfInterestMeta an element upstream attached (another waldboostdetect, any
     * detector), as DL Streamer's inference-region=roi-list and DeepStream's secondary mode do, and in
     * builds for GStreamer 1.24 and later inside each ODMtd of the buffer's GstAnalyticsRelationMeta
     * (GStreamer's analytics elements; one with the same type and box as a region-of-interest meta is
     * the same object, searched once). Each region whose type #GstWaldboostDetect:region-labels names is
     * clipped to the frame (and to roi) and searched as a frame of its own, all of a frame's regions in
     * one submission to the OpenCL device; the detections found in a meta name its id as their
     * parent_id, and the ODMtds of those found in an ODMtd are IS_PART_OF it. A frame without such a
     * region is not searched at all.
     *
     * Since: 2026.12
     */
    g_object_class_install_property(
        gobject_class, PROP_INFERENCE_REGION,
        g_param_spec_enum("inference-region", "Inference region",
                          "Search the whole frame (within roi), or only inside the region-of-interest metas "
                          "(and with GStreamer 1.24 and later the GstAnalytics ODMtds) upstream attached whose "
                          "type region-labels names (each clipped to the frame and searched on the device as a "
                          "frame of its own; the detections' parent_id is the meta's id, their ODMtds are "
                          "IS_PART_OF the ODMtd; a frame without such a region is not searched)",
                          GST_TYPE_WALDBOOST_INFERENCE_REGION, GST_WALDBOOST_INFERENCE_REGION_FULL_FRAME, rw));
    /**
     * GstWaldboostDetect:region-labels:
     *
     * With #GstWaldboostDetect:inference-region=roi-list, the types (labels) of the upstream
     * region-of-interest metas and ODMtds searched inside, comma-separated; empty: every one.
     *
     * Since: 2026.12
     */
    g_object_class_install_property(
        gobject_class, PROP_REGION_LABELS,
        g_param_spec_string("region-labels", "Region labels",
                            "With inference-region=roi-list: comma-separated types (labels) of the upstream "
                            "region-of-interest metas and ODMtds to search inside, e.g. \"pedestrian,person\"; "
                            "empty = every one",
                            "", rw));
    g_object_class_install_property(
        gobject_class, PROP_LABEL_COLORS,
        g_param_spec_boxed("label-colors", "Label colours",
                           "Box and tag colour per label as ARGB, e.g. \"colors,face=(uint)0xff00ff00,"
                           "eye=(uint)0xff2090ff\" (a part's label is its cascade's: eye for haarcascade_eye.xml); "
                           "labels not named keep \"color\" (the detector's) or their own (eyes blue, nose yellow, "
                           "mouth pink)",
                           GST_TYPE_STRUCTURE, rw));
    /**
     * GstWaldboostDetect:privacy:
     *
     * Hide the objects of #GstWaldboostDetect:privacy-labels in the outgoing frame, in place, whatever
     * draw says: blurred or pixelated, every component of every format. Only pixels inside the boxes
     * change; outlines drawn with draw go over the hidden area.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_PRIVACY,
        g_param_spec_enum("privacy", "Privacy",
                          "Hide the objects whose label privacy-labels names in the outgoing frame itself, "
                          "whatever draw says: blur or pixelate the inside of each box (nothing outside a box "
                          "changes). Frames without detections are left as they are: with interval above 1 "
                          "set tracking=true, so that the frames between detections hide the tracked objects (a "
                          "warning says so otherwise). With tracking every open track is hidden: an object from "
                          "its first detection, before its track is confirmed, and through the detector's misses "
                          "until its track is lost (lost-after)",
                          GST_TYPE_WALDBOOST_PRIVACY, GST_WALDBOOST_PRIVACY_NONE, rw));
    /**
     * GstWaldboostDetect:privacy-labels:
     *
     * The labels privacy hides, comma-separated (the detector's and the parts': face, eye, ...); empty:
     * every object and part.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_PRIVACY_LABELS,
        g_param_spec_string("privacy-labels", "Privacy labels",
                            "Comma-separated labels of the objects privacy hides (the detector's label and the "
                            "parts', e.g. \"face,profile-face\"); empty = every object and part",
                            "", rw));
    /**
     * GstWaldboostDetect:snapshot-folder:
     *
     * With tracking, one PNG per track written to this folder when the track leaves: the track's
     * largest view on a detection frame (the more confident of two as large), cropped from the frame
     * as it arrived, before privacy and drawing. Named track-ID-frame-N.png; ids and frame numbers
     * start again with each stream.
     *
     * Since: 2026.12
     */
    g_object_class_install_property(
        gobject_class, PROP_SNAPSHOT_FOLDER,
        g_param_spec_string("snapshot-folder", "Snapshot folder",
                            "With tracking=true: write one PNG per track to this folder when the track leaves "
                            "(track-ID-frame-N.png), its largest view on a detection frame, cropped from the "
                            "frame before privacy and drawing, longer side at most 256 pixels; empty = no files",
                            "", rw));
    /**
     * GstWaldboostDetect:snapshot-message:
     *
     * With tracking, post a "waldboostdetect-snapshot" element message when a track leaves, with the
     * track's best view as a PNG #GstSample ("image") and its track-id, label, label-id, frame,
     * timestamp, box and confidence.
     *
     * Since: 2026.12
     */
    g_object_class_install_property(
        gobject_class, PROP_SNAPSHOT_MESSAGE,
        g_param_spec_boolean("snapshot-message", "Snapshot message",
                             "With tracking=true: post a \"waldboostdetect-snapshot\" element message when a "
                             "track leaves, with its best view as a PNG sample (field image), its track-id, "
                             "label, box and the frame it was taken on",
                             FALSE, rw));
    /**
     * GstWaldboostDetect:post-messages:
     *
     * Whether the element posts its "waldboostdetect" element messages.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_POST_MESSAGES,
        g_param_spec_boolean("post-messages", "Post messages",
                             "Post \"waldboostdetect\" element messages with the detections (of the frames "
                             "\"updates\" selects)",
                             TRUE, rw));
    /**
     * GstWaldboostDetect:updates:
     *
     * Which frames get a "waldboostdetect" message, as facedetect's updates; events posts
     * "waldboostdetect-events" messages when tracked objects appear or leave.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_UPDATES,
        g_param_spec_enum("updates", "Updates",
                          "Which frames get a \"waldboostdetect\" message (as facedetect's updates; with "
                          "post-messages=true)",
                          GST_TYPE_WALDBOOST_UPDATES, GST_WALDBOOST_UPDATES_EVERY_FRAME, rw));
    /**
     * GstWaldboostDetect:metadata:
     *
     * Which metadata each buffer gets: GstVideoRegionOfInterestMeta, GstAnalyticsRelationMeta
     * (GStreamer 1.24 and later), or both. A build for an older GStreamer has roi alone.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_METADATA,
        g_param_spec_enum("metadata", "Metadata",
                          "Which metadata each buffer gets: region-of-interest metas, GstAnalytics metadata "
                          "(ODMtd, ClsMtd, TrackingMtd; objectdetectionoverlay draws it), or both. Builds for "
                          "GStreamer before 1.24 have roi only",
                          GST_TYPE_WALDBOOST_METADATA, kDefaultMetadata, rw));
    /**
     * GstWaldboostDetect:min-stddev:
     *
     * Frames whose grey standard deviation is below this are not searched (0: every frame is), as
     * facedetect's min-stddev.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_MIN_STDDEV,
        g_param_spec_int("min-stddev", "Minimum standard deviation",
                         "Frames whose gray standard deviation (over the roi, or the whole frame) is below this are "
                         "not searched and have no detections, as facedetect's min-stddev: saves the device's time "
                         "on blank frames and avoids detections in them; 0 = search every frame",
                         0, 255, 0, rw));
    /**
     * GstWaldboostDetect:tracking:
     *
     * Follow objects from frame to frame: each keeps its id, and template search follows tracks between
     * detections.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_TRACKING,
        g_param_spec_boolean("tracking", "Tracking",
                             "Follow objects from frame to frame: each keeps one id (the region-of-interest meta's "
                             "id, stable across frames; its parameter structure adds age and hits), detections "
                             "continue the track they overlap most, and template search on the device follows "
                             "tracks between detections (see interval); updates=events posts when objects appear "
                             "and leave",
                             FALSE, rw));
    /**
     * GstWaldboostDetect:interval:
     *
     * Detect on every interval-th frame only; with tracking the frames between follow the tracks.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_INTERVAL,
        g_param_spec_int("interval", "Detection interval",
                         "Detect on every interval-th frame only (1 = every frame; the count starts again, "
                         "with a search, after a seek or a change that restarts the tracker); with "
                         "tracking=true the objects are followed on the frames in between, without it those "
                         "frames have no detections",
                         1, 1000, 1, rw));
    /**
     * GstWaldboostDetect:lost-after:
     *
     * With tracking, the frames without a matching detection after which a track ends.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_LOST_AFTER,
        g_param_spec_int("lost-after", "Lost after",
                         "With tracking=true: a track ends when no detection has matched it for this many frames "
                         "(checked on the frames with detection), or when less than half of it is left in the "
                         "frame; until then it is kept unreported, and a hidden object that reappears takes its id "
                         "back",
                         1, 100000, kDefaultLostAfter, rw));
    /**
     * GstWaldboostDetect:confirm-hits:
     *
     * With tracking, the detections that must match a new track within its first
     * #GstWaldboostDetect:confirm-window frames with detection before it is reported.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_CONFIRM_HITS,
        g_param_spec_int("confirm-hits", "Confirm hits",
                         "With tracking=true: a new track gets an id and is reported (\"appeared\") once this many "
                         "detections have matched it within its first confirm-window frames with detection; one "
                         "that falls short ends unreported, so a false detection on a single frame never becomes a "
                         "track. 1 = report every new detection at once",
                         1, 100, kDefaultConfirmHits, rw));
    /**
     * GstWaldboostDetect:confirm-window:
     *
     * With tracking, the frames with detection in which a new track must collect
     * #GstWaldboostDetect:confirm-hits matching detections.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_CONFIRM_WINDOW,
        g_param_spec_int("confirm-window", "Confirm window",
                         "With tracking=true: the frames with detection (every interval-th frame), from a new "
                         "track's first, in which it must collect confirm-hits detections (taken as at least "
                         "confirm-hits)",
                         1, 1000, kDefaultConfirmWindow, rw));
    /* Each blurb in parentheses: one string made of several literals, not
     * a missing comma (clang's -Wstring-concatenation). */
    static const char* const nested_blurbs[] = {
        ("Cascade file (OpenCV LBP or Haar XML, or WaldBoost XML) searched in the upper half of each detection, as "
         "facedetect's eyes-profile (e.g. /usr/share/opencv4/haarcascades/haarcascade_eye.xml); its finds are "
         "region-of-interest metas labelled as the cascade is (\"eye\" for haarcascade_eye.xml) whose parent_id "
         "is the detection's id, and an \"eyes\" list in the detection's message structure. Empty = none"),
        ("Cascade file searched in the centre of each detection (the middle half of its width, from a quarter of "
         "its height down to three quarters), as facedetect's nose-profile; metas and list \"nose\", as "
         "eyes-profile. Empty = none"),
        ("Cascade file searched in the lower half of each detection, as facedetect's mouth-profile (e.g. "
         "haarcascade_smile.xml); metas and list \"mouth\", as eyes-profile. Empty = none"),
    };
    /**
     * GstWaldboostDetect:eyes-profile:
     *
     * A cascade searched in the upper half of each detection, as facedetect's eyes-profile:
     * region-of-interest metas labelled as the cascade is ("eye" for haarcascade_eye.xml) whose parent_id
     * is the detection's id, and an "eyes" list in its message structure. Empty: none.
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:nose-profile:
     *
     * A cascade searched in the centre of each detection, as facedetect's nose-profile (metas and list
     * "nose"). Empty: none.
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:mouth-profile:
     *
     * A cascade searched in the lower half of each detection, as facedetect's mouth-profile (metas and
     * list "mouth"). Empty: none.
     *
     * Since: 0.1
     */
    for (size_t i = 0; i < kNestedParts.size(); ++i) {
        const NestedPart& part = kNestedParts[i];
        const std::string nick = std::string(1, g_ascii_toupper(part.name[0])) + (part.name + 1) + " cascade";
        g_object_class_install_property(
            gobject_class, static_cast<guint>(PROP_EYES_PROFILE + i),
            g_param_spec_string(part.property, g_intern_string(nick.c_str()), nested_blurbs[i], "", rw));
    }
    /**
     * GstWaldboostDetect:parts:
     *
     * Every part each nested cascade finds in an object, or the first only (facedetect's report).
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_PARTS,
        g_param_spec_enum("parts", "Parts",
                          "Which parts of each object a nested cascade reports: all of them, or "
                          "the first it finds (as facedetect)",
                          GST_TYPE_WALDBOOST_PARTS, GST_WALDBOOST_PARTS_ALL, rw));
    /**
     * GstWaldboostDetect:part-min-neighbors:
     *
     * min-neighbors of the nested cascades' parts; -1: the objects' min-neighbors.
     *
     * Since: 2026.11
     */
    g_object_class_install_property(
        gobject_class, PROP_PART_MIN_NEIGHBORS,
        g_param_spec_int("part-min-neighbors", "Part minimum neighbors",
                         "A part needs more than this many overlapping windows of its nested cascade; -1 = the "
                         "objects' min-neighbors",
                         -1, 1000, -1, rw));

    /**
     * GstWaldboostDetect:batching:
     *
     * Expert. Launch the frames together with those of the other waldboostdetect elements of the process
     * on the same device and classifier (on by default). Detections are the same either way.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_BATCHING,
        g_param_spec_boolean("batching", "Batching",
                             "Expert: launch this element's frames on the device together with those of the other "
                             "waldboostdetect elements of the process on the same device with the same classifier: "
                             "one set of launches for many cameras. Detections are the same either way, and no frame "
                             "waits for others unless batch-wait is set. An element alone on its device and "
                             "classifier launches its own frames, and on a GPU so do frames that a few elements' own "
                             "launches keep busy (more than 5,000 window positions per compute unit per element, or "
                             "36,000: on an H200 720p is batched from 3 streams on, 1080p from 7, 4K never). Many "
                             "streams of small frames gain the most, frames that nearly fill the GPU little, and CPU "
                             "devices neither gain nor lose (docs/performance.md, Batched launches)",
                             TRUE, rw));
    /**
     * GstWaldboostDetect:batch-wait:
     *
     * Expert. With batching, how long a frame may wait for frames of other elements; added to the reported
     * latency.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_BATCH_WAIT,
        g_param_spec_uint64("batch-wait", "Batch wait",
                            "Expert: with batching, how long (ns) a frame may wait for frames of the other elements "
                            "to be launched with; 0 = never wait, go with the frames already waiting. Nothing waits "
                            "while this is the only element on the device. Added to the latency the element reports. "
                            "Raise it only when the stats' batch-frames stay low and the latency allows",
                            0, GST_SECOND, 0, rw));
    /**
     * GstWaldboostDetect:profiling:
     *
     * Expert. Time every kernel for the stats' device-ms and device-busy-ms; costs frame rate.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_PROFILING,
        g_param_spec_boolean("profiling", "Profiling",
                             "Expert: time every kernel with OpenCL profiling, for the stats' device-ms and "
                             "device-busy-ms (0 without it). Turn it on only to measure the device: it costs frame "
                             "rate (docs/performance.md)",
                             FALSE, rw));

    /* The reduction's parameters: one structure property, and the separate
     * properties of earlier versions as aliases of its fields, both from
     * the table (core/opencl/engine/reduction.h). */
    /**
     * GstWaldboostDetect:reduction:
     *
     * Expert. How the GPU reduction splits its work, as a structure of its parameters; never changes what
     * is found. A change builds a new engine.
     *
     * Since: 0.1
     */
    g_object_class_install_property(gobject_class, PROP_REDUCTION,
                                    g_param_spec_boxed("reduction", "Reduction parameters",
                                                       g_intern_string(reduction_blurb().c_str()), GST_TYPE_STRUCTURE,
                                                       rw));
    /**
     * GstWaldboostDetect:group-size:
     *
     * Expert. An alias of the reduction property's group-size field, kept from earlier versions (the unset
     * value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step1-unsync:
     *
     * Expert. An alias of the reduction property's step1-unsync field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step1-divisor:
     *
     * Expert. An alias of the reduction property's step1-divisor field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step2-unsync:
     *
     * Expert. An alias of the reduction property's step2-unsync field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step2-divisor:
     *
     * Expert. An alias of the reduction property's step2-divisor field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step2-repeats:
     *
     * Expert. An alias of the reduction property's step2-repeats field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step4-group-size:
     *
     * Expert. An alias of the reduction property's step4-group-size field, kept from earlier versions (the
     * unset value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    /**
     * GstWaldboostDetect:step2-rounds:
     *
     * Expert. An alias of the reduction property's step2-rounds field, as the fields above have (the unset
     * value: the tuned or default parameter).
     *
     * Since: 0.1
     */
    for (size_t i = 0; i < waldboost::opencl::kReductionParams.size(); ++i) {
        const waldboost::opencl::ReductionParam& r = waldboost::opencl::kReductionParams[i];
        g_object_class_install_property(gobject_class, static_cast<guint>(PROP_REDUCTION_ALIAS + i),
                                        g_param_spec_int(r.name, r.nick, g_intern_string(alias_blurb(r).c_str()),
                                                         alias_unset(r), r.max, alias_unset(r), rw));
    }
    /**
     * GstWaldboostDetect:stats:
     *
     * Read-only counters and timings of the stream so far: frames, detections, device and host time, the
     * device in use and its fallbacks.
     *
     * Since: 0.1
     */
    g_object_class_install_property(
        gobject_class, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "Frames, detections, device time of the last frame, windows, weak classifiers per window, "
                           "candidates after each reduction step, discarded candidates (always 0), accepted windows "
                           "left out by max-windows (all frames), the device in use, how many times detection fell "
                           "back to a later device of the list, the scan (rows or reduction), batch-frames: the frames "
                           "launched together with the last one (with batching; device time, weak classifiers and "
                           "candidates are then the batch's), and device-busy-ms: the "
                           "time the device ran kernels of all the instances (engines) of the process on it, overlaps "
                           "counted once, since the first of those still running started (0 without an engine); read "
                           "it twice for a busy fraction (both need profiling=true); host-ms and host-total-ms: the "
                           "CPU time the element spent on the last frame and on all of them (submitting: mapping, "
                           "copying for the device, launching; collecting: reading back, grouping; metadata, "
                           "drawing, message); detected-frames and host-detected-total-ms: the frames searched (by "
                           "the engine, or with inference-region=roi-list inside upstream boxes; interval skips "
                           "the others) and their share of host-total-ms; qos-skipped: frames due for a search that "
                           "passed without one because they could not reach the sink in time (qos=true)",
                           GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
}

}  // namespace waldboost_element
