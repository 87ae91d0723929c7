/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/detection/image.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace waldboost {

std::vector<LinearTap> linear_taps(int src_len, int dst_len)
{
    std::vector<LinearTap> taps(dst_len > 0 ? dst_len : 0);
    if (src_len <= 0)
        return taps;
    /* The same double operations as OpenCV, in the same order: the scale is
     * the reciprocal of dst/src, not src/dst, which can differ in the last bit. */
    const double inverse_scale = static_cast<double>(dst_len) / src_len;
    const double scale = 1.0 / inverse_scale;
    for (int d = 0; d < dst_len; ++d) {
        const double position = scale * (d + 0.5) - 0.5;
        const double floor_position = std::floor(position);
        LinearTap& tap = taps[d];
        if (position < 0.0 || src_len == 1) {
            tap = {0, 0, 256, 0}; /* left of the source */
        } else if (floor_position >= src_len - 1) {
            tap = {src_len - 1, src_len - 1, 256, 0}; /* right of the source */
        } else {
            const int index = static_cast<int>(floor_position);
            const int weight1 = static_cast<int>(std::nearbyint((position - floor_position) * 256.0));
            tap = {index, index + 1, 256 - weight1, weight1};
        }
    }
    return taps;
}

GrayImage::GrayImage(int w, int h, uint8_t fill)
    : width(w), height(h), pixels(static_cast<size_t>(w) * static_cast<size_t>(h), fill)
{
}

GrayImage copy_image(const GrayView& src)
{
    GrayImage out(src.width, src.height);
    for (int y = 0; y < src.height; ++y)
        std::memcpy(out.row(y), src.row(y), static_cast<size_t>(src.width));
    return out;
}

void copy_every_second_byte(const uint8_t* first, size_t stride, int width, int height, uint8_t* out)
{
    for (int y = 0; y < height; ++y) {
        const uint8_t* in = first + static_cast<size_t>(y) * stride;
        uint8_t* row = out + static_cast<size_t>(y) * static_cast<size_t>(width);
        int x = 0;
#if defined(__has_builtin)
#if __has_builtin(__builtin_shufflevector)
        /* 16 pixels from 32 bytes in one shuffle (SSE2, NEON): GCC's -O2
         * leaves the plain loop unvectorised, at 4-5x the time. A block's
         * 32 bytes end one byte past its last pixel, so a pixel must
         * follow the block (x + 16 < width) for that byte to be the row's. */
        typedef uint8_t Bytes16 __attribute__((vector_size(16)));
        for (; x + 16 < width; x += 16) {
            Bytes16 low, high;
            std::memcpy(&low, in + 2 * x, sizeof low);
            std::memcpy(&high, in + 2 * x + 16, sizeof high);
            const Bytes16 pixels =
                __builtin_shufflevector(low, high, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
            std::memcpy(row + x, &pixels, sizeof pixels);
        }
#endif
#endif
        for (; x < width; ++x)
            row[x] = in[2 * x];
    }
}

GrayImage resize_bilinear(const GrayView& src, Size dst_size)
{
    if (dst_size.width <= 0 || dst_size.height <= 0 || src.width <= 0 || src.height <= 0)
        return GrayImage(std::max(dst_size.width, 0), std::max(dst_size.height, 0));
    if (dst_size.width == src.width && dst_size.height == src.height)
        return copy_image(src);

    const std::vector<LinearTap> xtaps = linear_taps(src.width, dst_size.width);
    const std::vector<LinearTap> ytaps = linear_taps(src.height, dst_size.height);

    /* Horizontal pass into 16-bit rows with 8 fraction bits. */
    auto horizontal = [&](int sy, std::vector<int>& out) {
        const uint8_t* row = src.row(sy);
        for (int dx = 0; dx < dst_size.width; ++dx) {
            const LinearTap& t = xtaps[dx];
            out[dx] = row[t.index0] * t.weight0 + row[t.index1] * t.weight1;
        }
    };

    GrayImage dst(dst_size.width, dst_size.height);
    std::vector<int> row0(dst_size.width), row1(dst_size.width);
    for (int dy = 0; dy < dst_size.height; ++dy) {
        const LinearTap& t = ytaps[dy];
        horizontal(t.index0, row0);
        horizontal(t.index1, row1);
        uint8_t* out = dst.row(dy);
        for (int dx = 0; dx < dst_size.width; ++dx)
            out[dx] = static_cast<uint8_t>((row0[dx] * t.weight0 + row1[dx] * t.weight1 + (1 << 15)) >> 16);
    }
    return dst;
}

namespace {

template <class PixelValue>
IntegralImage upright_integral(const GrayView& src, PixelValue value)
{
    IntegralImage ii;
    ii.width = src.width;
    ii.height = src.height;
    const size_t stride = static_cast<size_t>(src.width) + 1;
    ii.sums.assign(stride * (static_cast<size_t>(src.height) + 1), 0);
    for (int y = 0; y < src.height; ++y) {
        const uint8_t* row = src.row(y);
        uint32_t row_sum = 0;
        uint32_t* above = &ii.sums[static_cast<size_t>(y) * stride];
        uint32_t* here = above + stride;
        for (int x = 0; x < src.width; ++x) {
            row_sum += value(row[x]);
            here[x + 1] = above[x + 1] + row_sum;
        }
    }
    return ii;
}

}  // namespace

IntegralImage integral_image(const GrayView& src)
{
    return upright_integral(src, [](uint32_t p) {
        return p;
    });
}

IntegralImage squared_integral_image(const GrayView& src)
{
    return upright_integral(src, [](uint32_t p) {
        return p * p;
    });
}

IntegralImage tilted_integral_image(const GrayView& src)
{
    const int w = src.width, h = src.height;
    IntegralImage ii;
    ii.width = w;
    ii.height = h;
    const size_t stride = static_cast<size_t>(w) + 1;
    ii.sums.assign(stride * (static_cast<size_t>(h) + 1), 0);
    /* T(X, Y) = T(X - 1, Y - 1) + T(X + 1, Y - 1) - T(X, Y - 2)
     *           + I(X - 1, Y - 1) + I(X - 1, Y - 2):
     * the two triangles of the row above overlap in the one two rows up, and
     * miss the apex and the pixel under it. The triangles reach past the
     * image sides, so columns run over an extended range, past which every
     * triangle is outside the image (0). Three rows are kept. */
    const int pad = h + 2;
    const size_t extended = static_cast<size_t>(w) + 1 + 2 * static_cast<size_t>(pad);
    std::vector<uint32_t> rows[3];
    for (auto& r : rows)
        r.assign(extended, 0);
    const auto pixel = [&](int x, int y) -> uint32_t {
        return x >= 0 && x < w && y >= 0 && y < h ? src.at(x, y) : 0;
    };
    for (int y = 1; y <= h; ++y) {
        std::vector<uint32_t>& here = rows[y % 3];
        const std::vector<uint32_t>& above = rows[(y + 2) % 3];
        const std::vector<uint32_t>& two_above = rows[(y + 1) % 3]; /* row 0 and row -1 are 0 */
        for (size_t e = 0; e < extended; ++e) {
            const int x = static_cast<int>(e) - pad;
            const uint32_t left = e > 0 ? above[e - 1] : 0;
            const uint32_t right = e + 1 < extended ? above[e + 1] : 0;
            here[e] = left + right - (y >= 2 ? two_above[e] : 0) + pixel(x - 1, y - 1) + pixel(x - 1, y - 2);
        }
        std::copy(here.begin() + pad, here.begin() + pad + w + 1, ii.sums.begin() + static_cast<ptrdiff_t>(y * stride));
    }
    return ii;
}

}  // namespace waldboost
