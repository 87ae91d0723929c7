/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "drawing.h"

#include <gst/video/video-overlay-composition.h>

#include <algorithm>
#include <cmath>
#include <initializer_list>
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
static std::vector<Bar> outline_bars(const std::vector<Detection>& detections, int frame_w, int frame_h, int line_width)
{
    std::vector<Bar> bars;
    bars.reserve(detections.size() * 4);
    auto add = [&](int x, int y, int w, int h) {
        /* In 64 bits: a box at the far end of int's range must not wrap. */
        const int64_t x0 = std::clamp<int64_t>(x, 0, frame_w), y0 = std::clamp<int64_t>(y, 0, frame_h);
        const int64_t x1 = std::clamp<int64_t>(int64_t{x} + w, 0, frame_w);
        const int64_t y1 = std::clamp<int64_t>(int64_t{y} + h, 0, frame_h);
        if (x1 > x0 && y1 > y0)
            bars.push_back(
                Bar{static_cast<int>(x0), static_cast<int>(y0), static_cast<int>(x1 - x0), static_cast<int>(y1 - y0)});
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
static void add_box_rectangles(GstVideoOverlayComposition** comp, const std::vector<Detection>& detections, int frame_w,
                               int frame_h, int line_width, guint argb)
{
    const std::vector<Bar> bars = outline_bars(detections, frame_w, frame_h, line_width);
    if (bars.empty())
        return;
    if (detections.size() <= kMaxBoxesAsBars) {
        for (const Bar& b : bars)
            add_rectangle(
                comp, argb_rectangle(b.x, b.y, b.w, b.h,
                                     std::vector<guint32>(static_cast<size_t>(b.w) * b.h, static_cast<guint32>(argb))));
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
 * converts it (within 1 for rounding); RGB frames take it as it is (their
 * alpha, if any, is left). No buffer per bar: thousands of
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
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    const bool rgb = GST_VIDEO_FORMAT_INFO_IS_RGB(finfo);
    /* Components 0-2: Y, U, V, or R, G, B. */
    const long value[3] = {rgb ? std::lround(r) : std::lround(16.0 + luma * 219.0 / 255.0),
                           rgb ? std::lround(g) : std::lround(128.0 + (b - luma) / 1.8556 * 224.0 / 255.0),
                           rgb ? std::lround(b) : std::lround(128.0 + (r - luma) / 1.5748 * 224.0 / 255.0)};
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
            auto first_sample = [](int luma, int sub) {
                return (luma + (1 << sub) - 1) >> sub;
            };
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
 * `color` property for the detector's objects, else the colour of the
 * part's property (eyes-, nose-, mouth-profile). */
static guint label_color(const OutputSettings& s, const std::string& label, const size_t* part = nullptr)
{
    static const guint kPartColors[kNestedParts.size()] = {0xff2090ff, 0xffffd000, 0xffff40c0};
    const auto named = s.label_colors.find(label);
    if (named != s.label_colors.end())
        return named->second;
    return part ? kPartColors[*part] : s.color;
}

/* What box-text puts on a box (the label, "#id", the confidence), as
 * texts to try, longest first: all of them; without the confidence; the id
 * alone, or the label where there is no id. */
static std::vector<std::string> box_texts(guint flags, const std::string& label, const Detection& d, const gint* id)
{
    const bool with_label = flags & GST_WALDBOOST_BOX_TEXT_LABEL;
    const bool with_id = (flags & GST_WALDBOOST_BOX_TEXT_ID) && id;
    std::string confidence;
    if (flags & GST_WALDBOOST_BOX_TEXT_CONFIDENCE) {
        char text[16];
        g_snprintf(text, sizeof text, "%.2f", static_cast<double>(d.confidence));
        confidence = text;
    }
    auto join = [](std::initializer_list<std::string> pieces) {
        std::string text;
        for (const std::string& piece : pieces)
            if (!piece.empty())
                text += (text.empty() ? "" : " ") + piece;
        return text;
    };
    const std::string label_text = with_label ? label : "", id_text = with_id ? "#" + std::to_string(*id) : "";
    std::vector<std::string> texts = {join({label_text, id_text, confidence}), join({label_text, id_text}),
                                      with_id ? id_text : label_text};
    texts.erase(std::remove(texts.begin(), texts.end(), std::string()), texts.end());
    texts.erase(std::unique(texts.begin(), texts.end()), texts.end());
    return texts;
}

static bool overlap(const waldboost::Rect& a, const waldboost::Rect& b)
{
    return a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
}

/* Places a frame's tags so that none covers another (in crowds, 95-pixel
 * tags on 40-pixel boxes hid each other and their ids): each tag takes the
 * longest of its texts no wider than its box (else the shortest), at a
 * font size that follows the box, above the box, else inside its top edge,
 * else below it, wherever it covers no tag placed before; a tag with no
 * such place is left out (its box is still drawn, and the metas and
 * messages carry everything). */
class TagPlacer {
public:
    TagPlacer(int frame_w, int frame_h) : frame_w_(frame_w), frame_h_(frame_h) {}

    GstVideoOverlayRectangle* place(const std::vector<std::string>& texts, const waldboost::Rect& box, guint color)
    {
        if (texts.empty() || frame_w_ <= 0 || frame_h_ <= 0)
            return nullptr;
        const int pixels = tag_font_pixels(frame_h_, box.height);
        const std::string* text = &texts.back();
        TagSize size{};
        for (const std::string& t : texts) {
            size = measure_tag(t, pixels);
            text = &t;
            if (size.width <= box.width)
                break;
        }
        if (size.width <= 0 || size.height <= 0 || size.width > frame_w_ || size.height > frame_h_)
            return nullptr;
        const int x = std::clamp(box.x, 0, frame_w_ - size.width);
        for (const int wanted_y : {box.y - size.height, box.y, box.y + box.height}) {
            const waldboost::Rect at{x, std::clamp(wanted_y, 0, frame_h_ - size.height), size.width, size.height};
            if (std::none_of(placed_.begin(), placed_.end(), [&](const waldboost::Rect& p) {
                    return overlap(p, at);
                })) {
                placed_.push_back(at);
                return render_tag(*text, pixels, at.x, at.y, color);
            }
        }
        return nullptr;
    }

private:
    int frame_w_, frame_h_;
    std::vector<waldboost::Rect> placed_;
};

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
        TagPlacer tags(cropped ? v.width : frame_w, cropped ? v.height : frame_h);
        size_t tagged = 0;
        auto add = [&](const std::string& label, const Detection& d, const gint* id, const size_t* part) {
            const guint color = label_color(s, label, part);
            Detection placed = d;
            placed.rect.x += dx;
            placed.rect.y += dy;
            by_color[color].push_back(placed);
            /* A tag is a Pango layout: the first kMaxTextTags boxes only. */
            if (!s.box_text || tagged++ >= kMaxTextTags)
                return;
            GstVideoOverlayRectangle* tag = tags.place(box_texts(s.box_text, label, d, id), d.rect, color);
            if (tag && (dx || dy)) {
                gint x, y;
                guint w, h;
                gst_video_overlay_rectangle_get_render_rectangle(tag, &x, &y, &w, &h);
                gst_video_overlay_rectangle_set_render_rectangle(tag, x + dx, y + dy, w, h);
            }
            add_rectangle(&texts, tag);
        };
        for (const ReportedObject& o : report.objects)
            add(s.label, o.detection, &o.id, nullptr);
        for (const FoundPart& f : report.parts)
            add(part_label(*report.nested, f.part), f.detection, nullptr, &f.part);
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
