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

int tag_font_pixels(int frame_height, int box_height)
{
    return std::clamp(std::min(frame_height / 40, box_height / 3), 8, 48);
}

namespace {

/* A layout of `text` at `pixels`, on a cairo context (the caller's). */
Layout make_layout(cairo_t* cr, const std::string& text, int pixels, PangoRectangle* logical)
{
    Layout layout(G_OBJECT(pango_cairo_create_layout(cr)));
    PangoLayout* l = PANGO_LAYOUT(layout.get());
    FontDescription font(pango_font_description_from_string("Sans"));
    pango_font_description_set_absolute_size(font.get(), static_cast<double>(pixels) * PANGO_SCALE);
    pango_layout_set_font_description(l, font.get());
    pango_layout_set_text(l, text.c_str(), static_cast<int>(text.size()));
    PangoRectangle ink;
    pango_layout_get_pixel_extents(l, &ink, logical);
    return layout;
}

int padding(int pixels) { return std::max(1, pixels / 5); }

}  // namespace

TagSize measure_tag(const std::string& text, int pixels)
{
    if (text.empty())
        return {};
    Surface probe(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1));
    Cairo measure(cairo_create(probe.get()));
    PangoRectangle logical;
    const Layout layout = make_layout(measure.get(), text, pixels, &logical);
    return {logical.width + 2 * padding(pixels), logical.height + 2 * padding(pixels)};
}

GstVideoOverlayRectangle* render_tag(const std::string& text, int pixels, int x, int y, guint argb)
{
    const TagSize size = measure_tag(text, pixels);
    const int w = size.width, h = size.height, pad = padding(pixels);
    if (w <= 0 || h <= 0)
        return nullptr;
    Surface surface(cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h));
    Cairo cr(cairo_create(surface.get()));
    const double a = ((argb >> 24) & 0xff) / 255.0, r = ((argb >> 16) & 0xff) / 255.0, g = ((argb >> 8) & 0xff) / 255.0,
                 b = (argb & 0xff) / 255.0;
    cairo_set_source_rgba(cr.get(), r, g, b, a);
    cairo_paint(cr.get());
    const bool light = 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.55;
    cairo_set_source_rgba(cr.get(), light ? 0 : 1, light ? 0 : 1, light ? 0 : 1, 1);
    PangoRectangle logical;
    const Layout layout = make_layout(cr.get(), text, pixels, &logical);
    cairo_move_to(cr.get(), pad - logical.x, pad - logical.y);
    pango_cairo_update_layout(cr.get(), PANGO_LAYOUT(layout.get()));
    pango_cairo_show_layout(cr.get(), PANGO_LAYOUT(layout.get()));
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
    for (int row = 0; row < h; ++row)
        std::memcpy(map.data + static_cast<size_t>(row) * w * 4, data + static_cast<size_t>(row) * stride,
                    static_cast<size_t>(w) * 4);
    gst_buffer_unmap(pixels_buffer, &map);
    gst_buffer_add_video_meta(pixels_buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_OVERLAY_COMPOSITION_FORMAT_RGB, w, h);
    GstVideoOverlayRectangle* rect =
        gst_video_overlay_rectangle_new_raw(pixels_buffer, x, y, static_cast<guint>(w), static_cast<guint>(h),
                                            GST_VIDEO_OVERLAY_FORMAT_FLAG_PREMULTIPLIED_ALPHA);
    gst_buffer_unref(pixels_buffer);
    return rect;
}

}  // namespace waldboost_element
