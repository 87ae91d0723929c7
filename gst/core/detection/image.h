/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * 8-bit grayscale images, the bilinear downscale used for the pyramid and
 * the integral image the LBP features are computed from.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace waldboost {

struct Size {
    int width = 0;
    int height = 0;
    bool operator==(const Size& o) const { return width == o.width && height == o.height; }
    bool operator!=(const Size& o) const { return !(*this == o); }
};

/* A non-owning view of 8-bit gray pixels; stride is in bytes (>= width), so
 * a luma plane with padding can be used without copying. */
struct GrayView {
    const uint8_t* data = nullptr;
    int width = 0;
    int height = 0;
    size_t stride = 0;

    const uint8_t* row(int y) const { return data + static_cast<size_t>(y) * stride; }
    uint8_t at(int x, int y) const { return row(y)[x]; }
};

/* An owning, tightly packed 8-bit gray image. */
struct GrayImage {
    int width = 0;
    int height = 0;
    std::vector<uint8_t> pixels;

    GrayImage() = default;
    GrayImage(int w, int h, uint8_t fill = 0);

    uint8_t* row(int y) { return pixels.data() + static_cast<size_t>(y) * width; }
    const uint8_t* row(int y) const { return pixels.data() + static_cast<size_t>(y) * width; }
    uint8_t& at(int x, int y) { return row(y)[x]; }
    uint8_t at(int x, int y) const { return pixels[static_cast<size_t>(y) * width + x]; }
    GrayView view() const { return GrayView{pixels.data(), width, height, static_cast<size_t>(width)}; }
};

/* Copies a view into an owning image. */
GrayImage copy_image(const GrayView& src);

/* One output coordinate of a bilinear resize along one axis: the output is
 * (src[index0] * weight0 + src[index1] * weight1) / 256, weights summing to 256. */
struct LinearTap {
    int index0 = 0;
    int index1 = 0;
    int weight0 = 256;
    int weight1 = 0;
};

/* The taps of OpenCV's bit-exact bilinear resize (INTER_LINEAR_EXACT, which
 * its cascade detector uses for the pyramid): source coordinate
 * (d + 0.5) / (dst_len / src_len) - 0.5 in double precision, 8-bit weights
 * rounded to nearest even, and the edge pixel repeated outside the source. */
std::vector<LinearTap> linear_taps(int src_len, int dst_len);

/* Bilinear resize, bit-exact with cv::resize(INTER_LINEAR_EXACT) on 8-bit
 * images: rows are interpolated with the taps above to 16-bit intermediates
 * (8 fraction bits), then columns, rounding once at the end. */
GrayImage resize_bilinear(const GrayView& src, Size dst_size);

/* Integral image of (width + 1) x (height + 1) sums: at(x, y) is the sum of
 * all pixels above and to the left of (x, y); row 0 and column 0 are 0.
 * Sums are kept modulo 2^32: an 8K frame overflows 32 bits, but every block
 * sum is far below 2^32, so the wrapped differences are still exact. */
struct IntegralImage {
    int width = 0; /* of the source image */
    int height = 0;
    std::vector<uint32_t> sums;

    uint32_t at(int x, int y) const { return sums[static_cast<size_t>(y) * (width + 1) + x]; }
    /* Sum of the w x h block whose top-left pixel is (x, y). */
    uint32_t block_sum(int x, int y, int w, int h) const
    {
        return at(x, y) - at(x + w, y) - at(x, y + h) + at(x + w, y + h);
    }
};

IntegralImage integral_image(const GrayView& src);

/* The same over squared pixels, modulo 2^32 as OpenCV's Haar detector keeps
 * it (CV_32S): a window's sum of squares is exact while it is below 2^32. */
IntegralImage squared_integral_image(const GrayView& src);

/* OpenCV's tilted integral: at(X, Y) is the sum of the pixels (x, y) with
 * y < Y and |x - X + 1| <= Y - 1 - y (the triangle whose apex is pixel
 * (X - 1, Y - 1), opening upwards), modulo 2^32. A 45-degree rectangle
 * then takes four reads, as an upright one does. */
IntegralImage tilted_integral_image(const GrayView& src);

/* Copies pixels that lie every second byte, as the luma of packed 4:2:2
 * (YUY2, UYVY) lies between its chroma, into tight rows: pixel x of row y
 * is first[y * stride + 2 * x]. Reads no byte past a row's last pixel, so
 * `first` may point into the row (UYVY's luma starts at its second byte). */
void copy_every_second_byte(const uint8_t* first, size_t stride, int width, int height, uint8_t* out);

/* rgb_to_gray() of every pixel of an 8-bit RGB image: OpenCV's gray of it,
 * to the bit (cvtColor's RGB2GRAY and BGR2GRAY), as facedetect makes it
 * from RGB frames. Pixels of `pixel_step` bytes (3 or 4: RGB, BGRx, ARGB,
 * ...) follow each other from `pixels`, rows every `stride` bytes; red,
 * green and blue are the byte offsets of the colours in a pixel. Reads no
 * byte past a row's last pixel. */
void gray_of_rgb(const uint8_t* pixels, size_t stride, int pixel_step, int red, int green, int blue, int width,
                 int height, uint8_t* out);

/* The population standard deviation of the pixels (OpenCV's meanStdDev);
 * 0 for an empty image. */
double standard_deviation(const GrayView& src);

/* RGB to gray with the ITU-R BT.601 weights in 15-bit fixed point, as
 * OpenCV's cvtColor computes them for 8-bit images. Inline: the loops over
 * a frame's pixels call it for every pixel. */
inline uint8_t rgb_to_gray(uint8_t r, uint8_t g, uint8_t b)
{
    /* 0.299, 0.587 and 0.114 in 15-bit fixed point, rounded. */
    constexpr int kR = 9798, kG = 19235, kB = 3735, kShift = 15;
    return static_cast<uint8_t>((r * kR + g * kG + b * kB + (1 << (kShift - 1))) >> kShift);
}

}  // namespace waldboost
