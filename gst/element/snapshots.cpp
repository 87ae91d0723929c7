/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "snapshots.h"

#include <cairo.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/text.h"
#include "debug.h"

namespace waldboost_element {

namespace {

/* cairo's RGB24 is a native-endian 32-bit xRGB word per pixel. */
constexpr GstVideoFormat kRgb24Format = G_BYTE_ORDER == G_LITTLE_ENDIAN ? GST_VIDEO_FORMAT_BGRx : GST_VIDEO_FORMAT_xRGB;

cairo_status_t append_bytes(void* closure, const unsigned char* data, unsigned int length)
{
    static_cast<std::string*>(closure)->append(reinterpret_cast<const char*>(data), length);
    return CAIRO_STATUS_SUCCESS;
}

/* The view as PNG bytes; empty when cairo cannot encode it. */
std::string encode_png(std::vector<uint8_t>& pixels, int width, int height)
{
    std::string png;
    cairo_surface_t* surface =
        cairo_image_surface_create_for_data(pixels.data(), CAIRO_FORMAT_RGB24, width, height, width * 4);
    if (cairo_surface_write_to_png_stream(surface, append_bytes, &png) != CAIRO_STATUS_SUCCESS)
        png.clear();
    cairo_surface_destroy(surface);
    return png;
}

/* `box` (visible-frame coordinates) in the buffer's pixels, clipped to
 * the frame; empty when nothing of it is inside. */
waldboost::Rect in_buffer(const waldboost::Rect& box, const waldboost::Rect& visible, const GstVideoInfo& info)
{
    const int dx = visible.width > 0 ? visible.x : 0, dy = visible.height > 0 ? visible.y : 0;
    const int x0 = std::max(0, box.x + dx), y0 = std::max(0, box.y + dy);
    const int x1 = std::min(GST_VIDEO_INFO_WIDTH(&info), box.x + dx + box.width);
    const int y1 = std::min(GST_VIDEO_INFO_HEIGHT(&info), box.y + dy + box.height);
    if (x1 <= x0 || y1 <= y0)
        return {};
    return {x0, y0, x1 - x0, y1 - y0};
}

int64_t area(const waldboost::Rect& r) { return static_cast<int64_t>(r.width) * r.height; }

}  // namespace

bool TrackSnapshots::copy_view(GstElement* element, const GstVideoFrame* frame, const waldboost::Rect& box, View* view)
{
    const double scale = std::min(1.0, static_cast<double>(kSnapshotMaxSide) / std::max(box.width, box.height));
    const int width = std::max(1, static_cast<int>(std::lround(box.width * scale)));
    const int height = std::max(1, static_cast<int>(std::lround(box.height * scale)));
    GstVideoInfo out;
    gst_video_info_set_format(&out, kRgb24Format, width, height);
    /* The converter wants the rates alike (it converts pictures, not time). */
    GST_VIDEO_INFO_FPS_N(&out) = GST_VIDEO_INFO_FPS_N(&frame->info);
    GST_VIDEO_INFO_FPS_D(&out) = GST_VIDEO_INFO_FPS_D(&frame->info);
    /* The converter crops and scales in one pass, for every input format. */
    GstStructure* config =
        gst_structure_new("GstVideoConverter", GST_VIDEO_CONVERTER_OPT_SRC_X, G_TYPE_INT, box.x,
                          GST_VIDEO_CONVERTER_OPT_SRC_Y, G_TYPE_INT, box.y, GST_VIDEO_CONVERTER_OPT_SRC_WIDTH,
                          G_TYPE_INT, box.width, GST_VIDEO_CONVERTER_OPT_SRC_HEIGHT, G_TYPE_INT, box.height, nullptr);
    GstVideoConverter* converter = gst_video_converter_new(const_cast<GstVideoInfo*>(&frame->info), &out, config);
    GstBuffer* buffer = converter ? gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&out), nullptr) : nullptr;
    GstVideoFrame dest;
    const bool mapped = buffer && gst_video_frame_map(&dest, &out, buffer, GST_MAP_WRITE);
    if (mapped) {
        gst_video_converter_frame(converter, frame, &dest);
        view->width = width;
        view->height = height;
        view->pixels.resize(static_cast<size_t>(width) * height * 4);
        const auto* src = static_cast<const uint8_t*>(GST_VIDEO_FRAME_PLANE_DATA(&dest, 0));
        const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&dest, 0);
        for (int y = 0; y < height; ++y)
            std::memcpy(view->pixels.data() + static_cast<size_t>(y) * width * 4, src + static_cast<size_t>(y) * stride,
                        static_cast<size_t>(width) * 4);
        gst_video_frame_unmap(&dest);
    } else if (!convert_warned_) {
        convert_warned_ = true;
        GST_ELEMENT_WARNING(element, CORE, FAILED,
                            ("Snapshots are not taken: a %s frame could not be converted to RGB. Said once per "
                             "stream.",
                             gst_video_format_to_string(GST_VIDEO_INFO_FORMAT(&frame->info))),
                            ("gst_video_converter_new or the frame map failed"));
    }
    if (buffer)
        gst_buffer_unref(buffer);
    if (converter)
        gst_video_converter_free(converter);
    return mapped;
}

void TrackSnapshots::offer(GstElement* element, FrameAccess& frame, const FrameReport& report, const GstVideoInfo& info,
                           GstClockTime pts)
{
    const GstVideoFrame* mapped = nullptr;
    for (const ReportedObject& o : report.objects) {
        if (!o.tracked || !o.detected)
            continue;
        const waldboost::Rect box = in_buffer(o.detection.rect, report.visible, info);
        if (box.width <= 0)
            continue;
        auto kept = views_.find(o.id);
        if (kept != views_.end()) {
            const View& best = kept->second;
            if (area(box) < area(best.box) ||
                (area(box) == area(best.box) && o.detection.confidence <= best.confidence))
                continue;
        } else if (bytes_ >= kSnapshotBudgetBytes) {
            if (!budget_warned_) {
                budget_warned_ = true;
                GST_ELEMENT_WARNING(element, RESOURCE, NO_SPACE_LEFT,
                                    ("Snapshots: the views kept for open tracks reached %zu MiB, so track %d and "
                                     "later new tracks get no snapshot until some leave. Fewer tracks (a larger "
                                     "min-size, a stricter classifier, a smaller lost-after) keep less. Said once "
                                     "per stream.",
                                     kSnapshotBudgetBytes >> 20, o.id),
                                    ("%zu views kept", views_.size()));
            }
            continue;
        }
        if (!mapped && !(mapped = frame.frame()))
            return; /* the tracker read this frame a moment ago: not expected */
        View view;
        view.box = box;
        view.confidence = o.detection.confidence;
        view.pts = pts;
        view.frame = report.frame;
        if (!copy_view(element, mapped, box, &view))
            return;
        if (kept != views_.end()) {
            bytes_ -= kept->second.pixels.size();
            kept->second = std::move(view);
            bytes_ += kept->second.pixels.size();
        } else {
            bytes_ += view.pixels.size();
            views_.emplace(o.id, std::move(view));
        }
    }
}

void TrackSnapshots::deliver(GstElement* element, const std::vector<waldboost::tracking::TrackEvent>& events,
                             const FrameReport& report, const OutputSettings& s)
{
    for (const waldboost::tracking::TrackEvent& e : events) {
        if (e.kind != waldboost::tracking::TrackEvent::Kind::Left)
            continue;
        /* The ROI metas' id of the track (tracking.h). */
        const gint id = static_cast<gint>(e.id & (kFirstPartId - 1));
        const auto kept = views_.find(id);
        if (kept == views_.end())
            continue;
        View view = std::move(kept->second);
        bytes_ -= view.pixels.size();
        views_.erase(kept);
        std::string png = encode_png(view.pixels, view.width, view.height);
        if (png.empty())
            continue;
        std::string location;
        if (!s.snapshot_folder.empty()) {
            gchar* name = g_strdup_printf("track-%d-frame-%" G_GUINT64_FORMAT ".png", id, view.frame);
            gchar* path = g_build_filename(s.snapshot_folder.c_str(), name, nullptr);
            GError* error = nullptr;
            if (g_file_set_contents(path, png.data(), static_cast<gssize>(png.size()), &error)) {
                location = path;
            } else if (!write_warned_) {
                write_warned_ = true;
                const std::string folder = waldboost::printable(s.snapshot_folder);
                GST_ELEMENT_WARNING(element, RESOURCE, OPEN_WRITE,
                                    ("Snapshots cannot be written to the folder \"%s\": %s. Create the folder or "
                                     "give snapshot-folder a writable one. Said once per stream.",
                                     folder.c_str(), error->message),
                                    ("track %d", id));
            }
            g_clear_error(&error);
            g_free(path);
            g_free(name);
        }
        if (!s.snapshot_message)
            continue;
        GstBuffer* buffer = gst_buffer_new_memdup(png.data(), png.size());
        GST_BUFFER_PTS(buffer) = view.pts;
        GstCaps* caps = gst_caps_new_simple("image/png", "width", G_TYPE_INT, view.width, "height", G_TYPE_INT,
                                            view.height, nullptr);
        GstSample* sample = gst_sample_new(buffer, caps, nullptr, nullptr);
        GstStructure* st = gst_structure_new(
            "waldboostdetect-snapshot", "track-id", G_TYPE_INT, id, "label", G_TYPE_STRING, report.label.c_str(),
            "label-id", G_TYPE_INT, report.label_id, "frame", G_TYPE_UINT64, view.frame, "timestamp", G_TYPE_UINT64,
            view.pts, "x", G_TYPE_INT, view.box.x, "y", G_TYPE_INT, view.box.y, "width", G_TYPE_INT, view.box.width,
            "height", G_TYPE_INT, view.box.height, "confidence", G_TYPE_DOUBLE, view.confidence, "image",
            GST_TYPE_SAMPLE, sample, nullptr);
        if (!location.empty())
            gst_structure_set(st, "location", G_TYPE_STRING, location.c_str(), nullptr);
        gst_sample_unref(sample);
        gst_caps_unref(caps);
        gst_buffer_unref(buffer);
        gst_element_post_message(element, gst_message_new_element(GST_OBJECT(element), st));
    }
}

void TrackSnapshots::clear()
{
    views_.clear();
    bytes_ = 0;
    budget_warned_ = false;
    write_warned_ = false;
    convert_warned_ = false;
}

}  // namespace waldboost_element
