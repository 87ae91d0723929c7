/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "box_text.h"

#include <pango/pangocairo.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace waldboost_element {

namespace {

template <typename T, void (*Free)(T*)>
struct Deleter {
    void operator()(T* p) const { Free(p); }
};
using Surface = std::unique_ptr<cairo_surface_t, Deleter<cairo_surface_t, cairo_surface_destroy>>;
using Cairo = std::unique_ptr<cairo_t, Deleter<cairo_t, cairo_destroy>>;
void unref_object(GObject* o) { g_object_unref(o); }
using Layout = std::unique_ptr<GObject, Deleter<GObject, unref_object>>;
using FontDescription =
    std::unique_ptr<PangoFontDescription, Deleter<PangoFontDescription, pango_font_description_free>>;

}  // namespace

GstVideoOverlayRectangle* text_rectangle(const std::string& text, const waldboost::Rect& box, guint argb,
                                         int frame_width, int frame_height)
{
    if (text.empty() || frame_width <= 0 || frame_height <= 0)
        return nullptr;
    const int pixels = std::clamp(frame_height / 40, 10, 48);
    const int pad = std::max(1, pixels / 5);

    /* Measure on a 1 x 1 surface, then draw on one of the text's size. */
    Surface probe(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1));
    Cairo measure(cairo_create(probe.get()));
    Layout layout(G_OBJECT(pango_cairo_create_layout(measure.get())));
    PangoLayout* l = PANGO_LAYOUT(layout.get());
    FontDescription font(pango_font_description_from_string("Sans"));
    pango_font_description_set_absolute_size(font.get(), static_cast<double>(pixels) * PANGO_SCALE);
    pango_layout_set_font_description(l, font.get());
    pango_layout_set_text(l, text.c_str(), static_cast<int>(text.size()));
    PangoRectangle ink, logical;
    pango_layout_get_pixel_extents(l, &ink, &logical);
    const int w = std::min(logical.width + 2 * pad, frame_width), h = std::min(logical.height + 2 * pad, frame_height);
    if (w <= 0 || h <= 0)
        return nullptr;

    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h));
    Cairo cr(cairo_create(surface.get()));
    const double a = ((argb >> 24) & 0xff) / 255.0, r = ((argb >> 16) & 0xff) / 255.0,
                 g = ((argb >> 8) & 0xff) / 255.0, b = (argb & 0xff) / 255.0;
    cairo_set_source_rgba(cr.get(), r, g, b, a);
    cairo_paint(cr.get());
    const bool light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55;
    cairo_set_source_rgba(cr.get(), light ? 0 : 1, light ? 0 : 1, light ? 0 : 1, 1);
    cairo_move_to(cr.get(), pad - logical.x, pad - logical.y);
    pango_cairo_update_layout(cr.get(), l);
    pango_cairo_show_layout(cr.get(), l);
    cairo_surface_flush(surface.get());
    if (cairo_surface_status(surface.get()) != CAIRO_STATUS_SUCCESS)
        return nullptr;

    /* Cairo's ARGB32 is premultiplied ARGB in native-endian words: the
     * overlay's RGB format with premultiplied alpha. */
    const int stride = cairo_image_surface_get_stride(surface.get());
    const guint8* data = cairo_image_surface_get_data(surface.get());
    GstBuffer* pixels_buffer = gst_buffer_new_allocate(nullptr, static_cast<gsize>(w) * h * 4, nullptr);
    GstMapInfo map;
    if (!gst_buffer_map(pixels_buffer, &map, GST_MAP_WRITE)) {
        gst_buffer_unref(pixels_buffer);
        return nullptr;
    }
    for (int y = 0; y < h; ++y)
        std::memcpy(map.data + static_cast<size_t>(y) * w * 4, data + static_cast<size_t>(y) * stride,
                    static_cast<size_t>(w) * 4);
    gst_buffer_unmap(pixels_buffer, &map);
    gst_buffer_add_video_meta(pixels_buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, w,
                              h);
    /* Above the box, or inside its top edge; within the frame. */
    const int x = std::clamp(box.x, 0, frame_width - w);
    const int y = std::clamp(box.y - h >= 0 ? box.y - h : box.y, 0, frame_height - h);
    GstVideoOverlayRectangle* rect = gst_video_overlay_rectangle_new_raw(
        pixels_buffer, x, y, static_cast<guint>(w), static_cast<guint>(h),
        GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA);
    gst_buffer_unref(pixels_buffer);
    return rect;
}

}  // namespace waldboost_element
