/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tools/common/image_file.h"

#include <algorithm>
#include <vector>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/text.h"

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

namespace {

struct SizeCheck {
    uint64_t max_pixels = 0;
    int width = 0, height = 0;
    bool too_large = false;
};

/* Called with the size the header declares, before any pixel is
 * allocated. A size of 0 makes the format's loader stop there with an
 * error, as gdk_pixbuf_get_file_info() does to read only the header. */
void on_size_prepared(GdkPixbufLoader* loader, gint width, gint height, gpointer data)
{
    auto* check = static_cast<SizeCheck*>(data);
    check->width = width;
    check->height = height;
    if (static_cast<uint64_t>(width) * static_cast<uint64_t>(height) > check->max_pixels) {
        check->too_large = true;
        gdk_pixbuf_loader_set_size(loader, 0, 0);
    }
}

/* A hint for a file that is a video (its name and first bytes, as the
 * MIME database has them), which these tools do not read. */
std::string video_hint(const std::string& path, const std::vector<guchar>& head)
{
    gboolean uncertain = FALSE;
    gchar* type = g_content_type_guess(path.c_str(), head.data(), head.size(), &uncertain);
    gchar* mime = type ? g_content_type_get_mime_type(type) : nullptr;
    const bool video = mime && g_str_has_prefix(mime, "video/");
    g_free(mime);
    g_free(type);
    if (!video)
        return "";
    return " (a video: this tool reads still images; decode its frames first, e.g. gst-launch-1.0 filesrc "
           "location=VIDEO ! decodebin ! videoconvert ! pngenc ! multifilesink location=frame-%05d.png)";
}

struct LoaderUnref {
    void operator()(GdkPixbufLoader* loader) const { g_object_unref(loader); }
};

}  // namespace

PixbufPtr load_pixbuf(const std::string& path, uint64_t max_pixels)
{
    io::InputFile file = io::InputFile::open(path);
    if (file.size() > kMaxImageFileBytes)
        throw Error(ErrorKind::Io, printable(path) + ": file is too large (" + std::to_string(file.size()) +
                                       " bytes; the limit for image files is " + std::to_string(kMaxImageFileBytes) +
                                       " bytes)");
    std::unique_ptr<GdkPixbufLoader, LoaderUnref> loader(gdk_pixbuf_loader_new());
    SizeCheck check;
    check.max_pixels = max_pixels;
    g_signal_connect(loader.get(), "size-prepared", G_CALLBACK(on_size_prepared), &check);
    /* Fed in pieces from the file already opened: the size is known after
     * the first ones, and the name is never opened again. */
    std::vector<guchar> buffer(65536);
    GError* error = nullptr;
    uint64_t total = 0;
    bool written = true;
    std::vector<guchar> head;
    while (!check.too_large) {
        const size_t n = file.read(buffer.data(), buffer.size());
        if (n == 0)
            break;
        if (head.empty())
            head.assign(buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(n, 4096)));
        total += n;
        if (total > kMaxImageFileBytes) {
            gdk_pixbuf_loader_close(loader.get(), nullptr);
            throw Error(ErrorKind::Io, printable(path) + ": file is too large (more than " +
                                           std::to_string(kMaxImageFileBytes) + " bytes, the limit for image files)");
        }
        if (!gdk_pixbuf_loader_write(loader.get(), buffer.data(), n, &error)) {
            written = false;
            break;
        }
    }
    /* Closed in every case: a loader must be, and it reports a file cut short. */
    GError* close_error = nullptr;
    const bool closed = gdk_pixbuf_loader_close(loader.get(), written ? &close_error : nullptr);
    if (check.too_large) {
        g_clear_error(&error);
        g_clear_error(&close_error);
        throw Error(ErrorKind::Io, printable(path) + ": " + std::to_string(check.width) + "x" +
                                       std::to_string(check.height) + " pixels, more than the limit of " +
                                       std::to_string(max_pixels / 1000000) +
                                       " megapixels; --max-megapixels raises it");
    }
    if (!written || !closed) {
        GError* e = error ? error : close_error;
        std::string message = printable(path) + ": " + (e ? e->message : "cannot decode") + video_hint(path, head);
        if (total == 0)
            message = printable(path) + ": empty file, not an image";
        g_clear_error(&error);
        g_clear_error(&close_error);
        throw Error(ErrorKind::Io, message);
    }
    GdkPixbuf* pixbuf = gdk_pixbuf_loader_get_pixbuf(loader.get());
    if (!pixbuf)
        throw Error(ErrorKind::Io, printable(path) + ": cannot decode");
    return PixbufPtr(GDK_PIXBUF(g_object_ref(pixbuf)));
}

GrayImage load_gray_image(const std::string& path, uint64_t max_pixels)
{
    return pixbuf_to_gray(load_pixbuf(path, max_pixels).get());
}

}  // namespace waldboost::tools
