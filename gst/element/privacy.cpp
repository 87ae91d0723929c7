/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "privacy.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "debug.h"

namespace waldboost_element {

namespace {

/* A component's samples to hide: [x0, x1) x [y0, y1). */
struct Span {
    int x0, y0, x1, y1;
};

/* One component of a mapped frame, written through its pixel stride. */
struct Plane {
    guint8* data;
    int stride, pstride;
    guint8& at(int x, int y) const { return data[static_cast<size_t>(y) * stride + static_cast<size_t>(x) * pstride]; }
};

/* The strength follows the box, so that a face is unrecognisable at every
 * size while the box stays recognisably a box: a blur radius of an eighth
 * of its smaller side, or a mosaic of four cells across it (at least 4
 * pixels either way). A mosaic keeps each cell's mean, which is what a
 * cascade's features compare: with cells of an eighth the default face
 * detector still found some of the faces it had hidden (reliability.md). */
int strength(const waldboost::Rect& box, GstWaldboostPrivacy mode)
{
    return std::max(4, std::min(box.width, box.height) / (mode == GST_WALDBOOST_PRIVACY_PIXELATE ? 4 : 8));
}

/* Replaces each cell x cell block of the span by its mean. */
void pixelate(const Plane& p, const Span& s, int cell)
{
    for (int cy = s.y0; cy < s.y1; cy += cell)
        for (int cx = s.x0; cx < s.x1; cx += cell) {
            const int ex = std::min(cx + cell, s.x1), ey = std::min(cy + cell, s.y1);
            uint32_t sum = 0;
            for (int y = cy; y < ey; ++y)
                for (int x = cx; x < ex; ++x)
                    sum += p.at(x, y);
            const uint32_t n = static_cast<uint32_t>((ex - cx) * (ey - cy));
            const auto mean = static_cast<guint8>((sum + n / 2) / n);
            for (int y = cy; y < ey; ++y)
                for (int x = cx; x < ex; ++x)
                    p.at(x, y) = mean;
        }
}

/* One box filter pass of radius r along a line of n values (read from
 * `in`, written to `out`), the window clamped to the line: nothing outside
 * the span is read or written. */
void box_line(const uint16_t* in, uint16_t* out, int n, int r)
{
    uint32_t sum = 0;
    int lo = 0, hi = 0; /* the window [lo, hi) */
    for (int i = 0; i < n; ++i) {
        const int want_lo = std::max(0, i - r), want_hi = std::min(n, i + r + 1);
        while (hi < want_hi)
            sum += in[hi++];
        while (lo < want_lo)
            sum -= in[lo++];
        const uint32_t count = static_cast<uint32_t>(hi - lo);
        out[i] = static_cast<uint16_t>((sum + count / 2) / count);
    }
}

/* Three passes of a separable box filter of radius r (close to a Gaussian
 * of sigma r), inside the span only. */
void blur(const Plane& p, const Span& s, int r)
{
    const int w = s.x1 - s.x0, h = s.y1 - s.y0;
    std::vector<uint16_t> image(static_cast<size_t>(w) * h), line(static_cast<size_t>(std::max(w, h))),
        filtered(line.size());
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            image[static_cast<size_t>(y) * w + x] = p.at(s.x0 + x, s.y0 + y);
    for (int pass = 0; pass < 3; ++pass) {
        for (int y = 0; y < h; ++y) {
            box_line(&image[static_cast<size_t>(y) * w], filtered.data(), w, r);
            std::copy_n(filtered.begin(), w, image.begin() + static_cast<std::ptrdiff_t>(y) * w);
        }
        for (int x = 0; x < w; ++x) {
            for (int y = 0; y < h; ++y)
                line[y] = image[static_cast<size_t>(y) * w + x];
            box_line(line.data(), filtered.data(), h, r);
            for (int y = 0; y < h; ++y)
                image[static_cast<size_t>(y) * w + x] = filtered[y];
        }
    }
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            p.at(s.x0 + x, s.y0 + y) = static_cast<guint8>(image[static_cast<size_t>(y) * w + x]);
}

/* Hides `box` (frame pixels, clipped to the frame) in every component. */
void hide_box(GstVideoFrame* frame, const waldboost::Rect& box, GstWaldboostPrivacy mode)
{
    const int frame_w = GST_VIDEO_FRAME_WIDTH(frame), frame_h = GST_VIDEO_FRAME_HEIGHT(frame);
    /* In 64 bits: a box at the far end of int's range must not wrap. */
    const int x0 = static_cast<int>(std::clamp<int64_t>(box.x, 0, frame_w));
    const int y0 = static_cast<int>(std::clamp<int64_t>(box.y, 0, frame_h));
    const int x1 = static_cast<int>(std::clamp<int64_t>(int64_t{box.x} + box.width, 0, frame_w));
    const int y1 = static_cast<int>(std::clamp<int64_t>(int64_t{box.y} + box.height, 0, frame_h));
    if (x1 <= x0 || y1 <= y0)
        return;
    const int luma_strength = strength(box, mode);
    const GstVideoFormatInfo* finfo = frame->info.finfo;
    for (guint c = 0; c < GST_VIDEO_FRAME_N_COMPONENTS(frame); ++c) {
        const int w_sub = GST_VIDEO_FORMAT_INFO_W_SUB(finfo, c), h_sub = GST_VIDEO_FORMAT_INFO_H_SUB(finfo, c);
        /* The samples whose whole block of pixels lies inside the box (the
         * frame's last odd column and row count as inside). */
        const int comp_w = GST_VIDEO_FRAME_COMP_WIDTH(frame, c), comp_h = GST_VIDEO_FRAME_COMP_HEIGHT(frame, c);
        auto first = [](int v, int sub) {
            return (v + (1 << sub) - 1) >> sub;
        };
        auto end = [](int v, int limit, int sub, int comp) {
            return v == limit ? comp : v >> sub;
        };
        const Span s{first(x0, w_sub), first(y0, h_sub), std::min(comp_w, end(x1, frame_w, w_sub, comp_w)),
                     std::min(comp_h, end(y1, frame_h, h_sub, comp_h))};
        if (s.x1 <= s.x0 || s.y1 <= s.y0)
            continue;
        const guint plane = GST_VIDEO_FRAME_COMP_PLANE(frame, c);
        const int stride = GST_VIDEO_FRAME_COMP_STRIDE(frame, c), pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(frame, c);
        auto* data = static_cast<guint8*>(GST_VIDEO_FRAME_PLANE_DATA(frame, plane));
        if (!data || stride <= 0 || pstride <= 0)
            continue;
        /* The span's last byte must lie inside the plane's memory. */
        const guint64 offset = static_cast<guint64>(GST_VIDEO_FRAME_COMP_POFFSET(frame, c));
        const guint64 last =
            offset + static_cast<guint64>(s.y1 - 1) * stride + static_cast<guint64>(s.x1 - 1) * pstride;
        if (last >= plane_bytes(frame, plane))
            continue;
        const Plane p{data + offset, stride, pstride};
        const int sub_strength = std::max(1, luma_strength >> std::max(w_sub, h_sub));
        if (mode == GST_WALDBOOST_PRIVACY_PIXELATE)
            pixelate(p, s, sub_strength);
        else
            blur(p, s, sub_strength);
    }
}

bool selected(const OutputSettings& s, const std::string& label)
{
    return s.privacy_labels.empty() ||
           std::find(s.privacy_labels.begin(), s.privacy_labels.end(), label) != s.privacy_labels.end();
}

}  // namespace

std::vector<std::string> privacy_labels_from_text(const std::string& text)
{
    std::vector<std::string> labels;
    gchar** items = g_strsplit(text.c_str(), ",", -1);
    for (gchar** item = items; *item; ++item) {
        const std::string label = g_strstrip(*item);
        if (!label.empty())
            labels.push_back(label);
    }
    g_strfreev(items);
    return labels;
}

std::string privacy_labels_text(const std::vector<std::string>& labels)
{
    std::string text;
    for (const std::string& label : labels)
        text += (text.empty() ? "" : ",") + label;
    return text;
}

void hide_report(GstElement* element, FrameAccess& frame, const FrameReport& report, const OutputSettings& s)
{
    if (!hides_objects(s) || (report.objects.empty() && report.parts.empty() && report.unreported.empty()))
        return;
    std::vector<waldboost::Rect> boxes;
    for (const ReportedObject& o : report.objects)
        if (selected(s, report.label))
            boxes.push_back(o.detection.rect);
    if (selected(s, report.label))
        boxes.insert(boxes.end(), report.unreported.begin(), report.unreported.end());
    for (const FoundPart& f : report.parts)
        if (selected(s, part_label(*report.nested, f.part)))
            boxes.push_back(f.detection.rect);
    if (boxes.empty())
        return;
    GstVideoFrame* writable = frame.writable_frame();
    if (!writable) {
        GST_WARNING_OBJECT(element, "could not map frame %" G_GUINT64_FORMAT " to hide its objects: %s", report.frame,
                           frame.why().c_str());
        return;
    }
    /* The report is in the visible frame's coordinates (a crop meta). */
    const waldboost::Rect& v = report.visible;
    const bool cropped = v.width > 0 && v.height > 0;
    for (waldboost::Rect box : boxes) {
        box.x += cropped ? v.x : 0;
        box.y += cropped ? v.y : 0;
        hide_box(writable, box, s.privacy);
    }
}

}  // namespace waldboost_element
