/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tools/common/image_file.h"

#include "core/model/model.h"

namespace waldboost::tools {

GrayImage pixbuf_to_gray(GdkPixbuf* pixbuf)
{
    const int w = gdk_pixbuf_get_width(pixbuf), h = gdk_pixbuf_get_height(pixbuf);
    const int channels = gdk_pixbuf_get_n_channels(pixbuf), stride = gdk_pixbuf_get_rowstride(pixbuf);
    const guint8* pixels = gdk_pixbuf_read_pixels(pixbuf);
    GrayImage gray(w, h);
    for (int y = 0; y < h; ++y) {
        const guint8* p = pixels + static_cast<size_t>(y) * stride;
        for (int x = 0; x < w; ++x, p += channels)
            gray.at(x, y) = channels >= 3 ? rgb_to_gray(p[0], p[1], p[2]) : p[0];
    }
    return gray;
}

GrayImage load_gray_image(const std::string& path)
{
    GError* error = nullptr;
    GdkPixbuf* pixbuf = gdk_pixbuf_new_from_file(path.c_str(), &error);
    if (!pixbuf) {
        const std::string message = path + ": " + (error ? error->message : "cannot decode");
        g_clear_error(&error);
        throw Error(ErrorKind::Io, message);
    }
    GrayImage gray = pixbuf_to_gray(pixbuf);
    g_object_unref(pixbuf);
    return gray;
}

}  // namespace waldboost::tools
