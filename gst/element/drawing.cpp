/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "drawing.h"

#include <gst/video/video-overlay-composition.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "box_text.h"
#include "debug.h"
#include "frame_bounds.h"

namespace waldboost_element {

using waldboost::Detection;

/* A frame-clipped bar of a box outline. */
struct Bar {
    int x, y, w, h;
};

/* The four bars of each box outline (line width at most half the box),
 * clipped to the frame. */
static std::vector<Bar> outline_bars(const std::vector<Detection>& detections, int frame_w, int frame_h,
                                     int line_width)
{
    std::vector<Bar> bars;
    bars.reserve(detections.size() * 4);
    auto add = [&](int x, int y, int w, int h) {
        /* In 64 bits: a box at the far end of int's range must not wrap. */
        const int64_t x0 = std::clamp<int64_t>(x, 0, frame_w), y0 = std::clamp<int64_t>(y, 0, frame_h);
        const int64_t x1 = std::clamp<int64_t>(int64_t{x} + w, 0, frame_w);
        const int64_t y1 = std::clamp<int64_t>(int64_t{y} + h, 0, frame_h);
        if (x1 > x0 && y1 > y0)
            bars.push_back(Bar{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0),
                               static_cast<int>(y1 - y0)});
    };
    for (const Detection& d : detections) {
        const int lw = std::min({line_width, d.rect.width / 2, d.rect.height / 2});
        if (lw <= 0)
            continue;
        add(d.rect.x, d.rect.y, d.rect.width, lw);
        add(d.rect.x, d.rect.y + d.rect.height - lw, d.rect.width, lw);
        add(d.rect.x, d.rect.y + lw, lw, d.rect.height - 2 * lw);
        add(d.rect.x + d.rect.width - lw, d.rect.y + lw, lw, d.rect.height - 2 * lw);
    }
    return bars;
}

static GstVideoOverlayRectangle* argb_rectangle(int x, int y, int w, int h, const std::vector<guint32>& words)
{
    GstBuffer* pixels = gst_buffer_new_allocate(nullptr, words.size() * 4, nullptr);
    gst_buffer_fill(pixels, 0, words.data(), words.size() * 4);
    /* GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB is ARGB in native-endian 32-bit words. */
    gst_buffer_add_video_meta(pixels, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, w, h);
    GstVideoOverlayRectangle* r =
        gst_video_overlay_rectangle_new_raw(pixels, x, y, w, h, GST_VIDEO_OVERLAY_FORMAT_FLAG_NONE);
    gst_buffer_unref(pixels);
    return r;
}

/* Up to this many boxes, draw=meta attaches one small rectangle per outline
 * bar (what renderers blend fastest); more boxes share one rectangle over
 * their bounding area, so that a frame with thousands of boxes is one
 * buffer, not four per box. */
constexpr size_t kMaxBoxesAsBars = 64;

/* Adds a rectangle to *comp (made on the first), taking its reference. */
static void add_rectangle(GstVideoOverlayComposition** comp, GstVideoOverlayRectangle* r)
{
    if (!r)
        return;
    if (!*comp)
        *comp = gst_video_overlay_composition_new(r);
    else
        gst_video_overlay_composition_add_rectangle(*comp, r);
    gst_video_overlay_rectangle_unref(r);
}

/* Adds the box outlines to an overlay composition (draw=meta). */
static void add_box_rectangles(GstVideoOverlayComposition** comp, const std::vector<Detection>& detections,
                               int frame_w, int frame_h, int line_width, guint argb)
{
    const std::vector<Bar> bars = outline_bars(detections, frame_w, frame_h, line_width);
    if (bars.empty())
        return;
    if (detections.size() <= kMaxBoxesAsBars) {
        for (const Bar& b : bars)
            add_rectangle(comp, argb_rectangle(b.x, b.y, b.w, b.h,
                                               std::vector<guint32>(static_cast<size_t>(b.w) * b.h,
                                                                    static_cast<guint32>(argb))));
        return;
    }
    int x0 = frame_w, y0 = frame_h, x1 = 0, y1 = 0;
    for (const Bar& b : bars) {
        x0 = std::min(x0, b.x);
        y0 = std::min(y0, b.y);
        x1 = std::max(x1, b.x + b.w);
        y1 = std::max(y1, b.y + b.h);
    }
    const int w = x1 - x0, h = y1 - y0;
    std::vector<guint32> words(static_cast<size_t>(w) * h, 0u); /* transparent */
    for (const Bar& b : bars)
        for (int y = b.y; y < b.y + b.h; ++y)
            std::fill_n(words.begin() + (static_cast<size_t>(y - y0) * w + (b.x - x0)), b.w,
                        static_cast<guint32>(argb));
    add_rectangle(comp, argb_rectangle(x0, y0, w, h, words));
}

/* Draws the box outlines into the frame (draw=burn): each bar blended into
 * every component straight in the mapped planes. The colour goes to Y'CbCr
 * with BT.709's studio-range coefficients, as GStreamer's overlay blending
 * converts it (within 1 for rounding). No buffer per bar: thousands of
 * boxes cost their pixels only. Every write is checked against the plane's mapped
 * memory (map_checked_frame checked the planes as a whole already). */
static void burn_boxes(GstVideoFrame* frame, const std::vector<Detection>& detections, int line_width, guint argb)
{
    const int frame_w = GST_VIDEO_FRAME_WIDTH(frame), frame_h = GST_VIDEO_FRAME_HEIGHT(frame);
    const std::vector<Bar> bars = outline_bars(detections, frame_w, frame_h, line_width);
    if (bars.empty())
        return;
    const int a = (argb >> 24) & 0xff;
    const double r = (argb >> 16) & 0xff, g = (argb >> 8) & 0xff, b = argb & 0xff;
    const double luma = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    const long value[3] = {std::lround(16.0 + luma * 219.0 / 255.0),
                           std::lround(128.0 + (b - luma) / 1.8556 * 224.0 / 255.0),
                           std::lround(128.0 + (r - luma) / 1.5748 * 224.0 / 255.0)};
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    const guint components = std::min<guint>(GST_VIDEO_FRAME_N_COMPONENTS(frame), 3);
    for (guint c = 0; c < components; ++c) {
        const int comp_w = GST_VIDEO_FRAME_COMP_WIDTH(frame, c), comp_h = GST_VIDEO_FRAME_COMP_HEIGHT(frame, c);
        const int w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c), h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c);
        const int stride = GST_VIDEO_FRAME_COMP_STRIDE(frame, c), pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c);
        const guint plane = GST_VIDEO_FRAME_COMP_PLANE(frame, c);
        auto* data = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(frame, plane));
        const guint64 available = plane_bytes(frame, plane);
        const guint64 offset = static_cast<guint64>(GST_VIDEO_FRAME_COMP_POFFSET(frame, c));
        if (!data || stride <= 0 || pstride <= 0)
            continue;
        const int v = static_cast<int>(std::clamp(value[c], 0L, 255L));
        for (const Bar& bar : bars) {
            /* A subsampled sample takes the colour when the bar covers the
             * first pixel of its block (as the overlay blending did). */
            auto first_sample = [](int luma, int sub) { return (luma + (1 << sub) - 1) >> sub; };
            const int cx0 = first_sample(bar.x, w_sub), cy0 = first_sample(bar.y, h_sub);
            const int cx1 = std::min(comp_w, first_sample(bar.x + bar.w, w_sub));
            const int cy1 = std::min(comp_h, first_sample(bar.y + bar.h, h_sub));
            if (cx1 <= cx0 || cy1 <= cy0)
                continue;
            /* The bar's last byte must lie inside the plane's memory. */
            const guint64 last =
                offset + static_cast<guint64>(cy1 - 1) * stride + static_cast<guint64>(cx1 - 1) * pstride;
            if (last >= available)
                continue;
            for (int y = cy0; y < cy1; ++y) {
                guint8* p = data + offset + static_cast<size_t>(y) * stride + static_cast<size_t>(cx0) * pstride;
                for (int x = cx0; x < cx1; ++x, p += pstride)
                    *p = static_cast<guint8>((a * v + (255 - a) * *p + 127) / 255);
            }
        }
    }
}

/* The colour of a label's boxes and text tags: label-colors, else the
 * `color` property for the detector's label, else the part's own. */
static guint label_color(const OutputSettings& s, const std::string& label)
{
    static const guint kPartColors[kNestedParts.size()] = {0xff2090ff, 0xffffd000, 0xffff40c0};
    const auto named = s.label_colors.find(label);
    if (named != s.label_colors.end())
        return named->second;
    for (size_t k = 0; k < kNestedParts.size(); ++k)
        if (label == kNestedParts[k].name && label != s.label)
            return kPartColors[k];
    return s.color;
}

/* What box-text puts on a box: the label, "#id", the confidence. */
static std::string box_text(guint flags, const std::string& label, const Detection& d, const gint* id)
{
    std::string text;
    auto add = [&](const std::string& piece) { text += (text.empty() ? "" : " ") + piece; };
    if (flags & GST_WALDBOOST_BOX_TEXT_LABEL)
        add(label);
    if ((flags & GST_WALDBOOST_BOX_TEXT_ID) && id)
        add("#" + std::to_string(*id));
    if (flags & GST_WALDBOOST_BOX_TEXT_CONFIDENCE) {
        char confidence[16];
        g_snprintf(confidence, sizeof confidence, "%.2f", static_cast<double>(d.confidence));
        add(confidence);
    }
    return text;
}

DrawMode draw_mode(GstWaldboostDraw draw, bool overlay_meta_downstream)
{
    switch (draw) {
    case GST_WALDBOOST_DRAW_META: return DrawMode::Meta;
    case GST_WALDBOOST_DRAW_BURN: return DrawMode::Burn;
    case GST_WALDBOOST_DRAW_AUTO: return overlay_meta_downstream ? DrawMode::Meta : DrawMode::Burn;
    case GST_WALDBOOST_DRAW_NONE: break;
    }
    return DrawMode::None;
}

namespace {

/* A frame's boxes by colour (the detector's label, then each part's) and
 * their text tags (null: none). */
class Shapes {
public:
    Shapes(const FrameReport& report, const OutputSettings& s, int frame_w, int frame_h)
    {
        /* The report is in the visible frame's coordinates (a crop meta):
         * drawn where those pixels lie in the buffer, tags kept inside it. */
        const waldboost::Rect& v = report.visible;
        const bool cropped = v.width > 0 && v.height > 0;
        const int dx = cropped ? v.x : 0, dy = cropped ? v.y : 0;
        const int text_w = cropped ? v.width : frame_w, text_h = cropped ? v.height : frame_h;
        size_t tagged = 0;
        auto add = [&](const std::string& label, const Detection& d, const gint* id) {
            const guint color = label_color(s, label);
            Detection placed = d;
            placed.rect.x += dx;
            placed.rect.y += dy;
            by_color[color].push_back(placed);
            /* A tag is a Pango layout: the first kMaxTextTags boxes only. */
            if (!s.box_text || tagged++ >= kMaxTextTags)
                return;
            GstVideoOverlayRectangle* tag =
                text_rectangle(box_text(s.box_text, label, d, id), d.rect, color, text_w, text_h);
            if (tag && (dx || dy)) {
                gint x, y;
                guint w, h;
                gst_video_overlay_rectangle_get_render_rectangle(tag, &x, &y, &w, &h);
                gst_video_overlay_rectangle_set_render_rectangle(tag, x + dx, y + dy, w, h);
            }
            add_rectangle(&texts, tag);
        };
        for (const ReportedObject& o : report.objects)
            add(s.label, o.detection, &o.id);
        for (const FoundPart& f : report.parts)
            add(kNestedParts[f.part].name, f.detection, nullptr);
    }
    ~Shapes()
    {
        if (texts)
            gst_video_overlay_composition_unref(texts);
    }
    Shapes(const Shapes&) = delete;
    Shapes& operator=(const Shapes&) = delete;

    std::map<guint, std::vector<Detection>> by_color;
    GstVideoOverlayComposition* texts = nullptr;
};

}  // namespace

void burn_report(GstElement* element, FrameAccess& frame, const FrameReport& report, const OutputSettings& s,
                 const GstVideoInfo& info)
{
    if (report.objects.empty() && report.parts.empty())
        return;
    GstVideoFrame* writable = frame.writable_frame();
    if (!writable) {
        GST_WARNING_OBJECT(element, "could not map frame %" G_GUINT64_FORMAT " to draw boxes: %s", report.frame,
                           frame.why().c_str());
        return;
    }
    const Shapes shapes(report, s, GST_VIDEO_INFO_WIDTH(&info), GST_VIDEO_INFO_HEIGHT(&info));
    for (const auto& [color, boxes] : shapes.by_color)
        burn_boxes(writable, boxes, s.line_width, color);
    /* The text is blended by GstVideo, as textoverlay's is. */
    if (shapes.texts)
        gst_video_overlay_composition_blend(shapes.texts, writable);
}

GstVideoOverlayComposition* overlay_composition(const FrameReport& report, const OutputSettings& s,
                                                const GstVideoInfo& info)
{
    if (report.objects.empty() && report.parts.empty())
        return nullptr;
    const int frame_w = GST_VIDEO_INFO_WIDTH(&info), frame_h = GST_VIDEO_INFO_HEIGHT(&info);
    const Shapes shapes(report, s, frame_w, frame_h);
    GstVideoOverlayComposition* comp = nullptr;
    for (const auto& [color, boxes] : shapes.by_color)
        add_box_rectangles(&comp, boxes, frame_w, frame_h, s.line_width, color);
    for (guint i = 0; shapes.texts && i < gst_video_overlay_composition_n_rectangles(shapes.texts); ++i)
        add_rectangle(&comp,
                      gst_video_overlay_rectangle_ref(gst_video_overlay_composition_get_rectangle(shapes.texts, i)));
    return comp;
}

}  // namespace waldboost_element
