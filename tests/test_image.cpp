/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Integral image and resize, checked against brute force and invariants.
 * (Agreement of the resize with OpenCV is in test_opencv_agreement.cpp.)
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "core/detection/image.h"

using namespace waldboost;

static GrayImage random_image(int w, int h, unsigned seed)
{
    std::mt19937 rng(seed);
    GrayImage img(w, h);
    for (auto& p : img.pixels)
        p = static_cast<uint8_t>(rng() & 0xff);
    return img;
}

TEST(IntegralImage, EveryBlockSumMatchesBruteForce)
{
    const GrayImage img = random_image(13, 9, 1);
    const IntegralImage ii = integral_image(img.view());
    ASSERT_EQ(ii.sums.size(), 14u * 10u);
    for (int y = 0; y < 9; ++y)
        for (int x = 0; x < 13; ++x)
            for (int h = 1; y + h <= 9; ++h)
                for (int w = 1; x + w <= 13; ++w) {
                    uint32_t expected = 0;
                    for (int yy = y; yy < y + h; ++yy)
                        for (int xx = x; xx < x + w; ++xx)
                            expected += img.at(xx, yy);
                    ASSERT_EQ(ii.block_sum(x, y, w, h), expected) << x << "," << y << " " << w << "x" << h;
                }
}

TEST(IntegralImage, BlockSumsStayExactWhenTheTotalOverflows32Bits)
{
    /* 4200 x 4200 x 255 = 4.5e9 > 2^32: the running sums wrap. */
    const GrayImage img(4200, 4200, 255);
    const IntegralImage ii = integral_image(img.view());
    EXPECT_EQ(ii.block_sum(4100, 4100, 100, 100), 255u * 100u * 100u);
    EXPECT_EQ(ii.block_sum(4199, 4199, 1, 1), 255u);
    EXPECT_EQ(ii.block_sum(0, 0, 1, 1), 255u);
}

TEST(IntegralImage, HonoursTheViewStride)
{
    /* A 3x2 view inside rows of 5 bytes: the padding must be ignored. */
    const uint8_t padded[] = {1, 2, 3, 99, 99, 4, 5, 6, 99, 99};
    const GrayView view{padded, 3, 2, 5};
    const IntegralImage ii = integral_image(view);
    EXPECT_EQ(ii.block_sum(0, 0, 3, 2), 21u);
    EXPECT_EQ(ii.block_sum(2, 0, 1, 2), 9u);
}

TEST(Resize, SameSizeIsAnExactCopy)
{
    const GrayImage img = random_image(31, 17, 2);
    const GrayImage out = resize_bilinear(img.view(), {31, 17});
    EXPECT_EQ(out.pixels, img.pixels);
}

TEST(Resize, ConstantImageStaysConstant)
{
    const GrayImage img(97, 61, 173);
    for (Size s : {Size{88, 55}, Size{50, 30}, Size{1, 1}, Size{97, 1}, Size{3, 61}}) {
        const GrayImage out = resize_bilinear(img.view(), s);
        ASSERT_EQ(out.width, s.width);
        ASSERT_EQ(out.height, s.height);
        for (uint8_t p : out.pixels)
            ASSERT_EQ(p, 173);
    }
}

TEST(Resize, HalvingAveragesPixelPairs)
{
    /* At exactly half size every output pixel centre falls midway between
     * two input pixels in each axis: the output is the 2x2 mean. */
    const GrayImage img = random_image(40, 20, 3);
    const GrayImage out = resize_bilinear(img.view(), {20, 10});
    for (int y = 0; y < 10; ++y)
        for (int x = 0; x < 20; ++x) {
            const int sum = img.at(2 * x, 2 * y) + img.at(2 * x + 1, 2 * y) + img.at(2 * x, 2 * y + 1) +
                            img.at(2 * x + 1, 2 * y + 1);
            EXPECT_NEAR(out.at(x, y), sum / 4.0, 0.51) << x << "," << y;
        }
}

TEST(Resize, OutputStaysWithinTheRangeOfItsNeighbourhood)
{
    const GrayImage img = random_image(101, 77, 4);
    const GrayImage out = resize_bilinear(img.view(), {83, 64});
    const double sx = 101.0 / 83, sy = 77.0 / 64;
    for (int y = 0; y < 64; ++y)
        for (int x = 0; x < 83; ++x) {
            const int x0 = std::max(0, static_cast<int>((x + 0.5) * sx - 0.5));
            const int y0 = std::max(0, static_cast<int>((y + 0.5) * sy - 0.5));
            int lo = 255, hi = 0;
            /* One pixel of slack each side for rounding of the coordinate. */
            for (int yy = std::max(0, y0 - 1); yy <= std::min(y0 + 2, 76); ++yy)
                for (int xx = std::max(0, x0 - 1); xx <= std::min(x0 + 2, 100); ++xx) {
                    lo = std::min<int>(lo, img.at(xx, yy));
                    hi = std::max<int>(hi, img.at(xx, yy));
                }
            ASSERT_GE(out.at(x, y), lo);
            ASSERT_LE(out.at(x, y), hi);
        }
}

TEST(Gray, Bt601Weights)
{
    EXPECT_EQ(rgb_to_gray(0, 0, 0), 0);
    EXPECT_EQ(rgb_to_gray(255, 255, 255), 255);
    /* 0.299 * 255 = 76.2, 0.587 * 255 = 149.7, 0.114 * 255 = 29.1 */
    EXPECT_EQ(rgb_to_gray(255, 0, 0), 76);
    EXPECT_EQ(rgb_to_gray(0, 255, 0), 150);
    EXPECT_EQ(rgb_to_gray(0, 0, 255), 29);
}

TEST(StandardDeviation, MatchesTwoPassDoubleArithmetic)
{
    /* Population standard deviation (OpenCV's meanStdDev), by the textbook
     * two-pass formula, on views with padding between the rows. */
    /* Narrow rows, and rows long enough for the vector loops (with a tail
     * and rows that start off alignment). */
    for (unsigned seed : {1u, 2u, 3u, 4u, 5u}) {
        const int width = seed <= 3 ? 37 + static_cast<int>(seed) : 600 + 13 * static_cast<int>(seed);
        const GrayImage img = random_image(width, 23, seed);
        const GrayView view{img.pixels.data() + 3, img.width - 5, img.height - 2, static_cast<size_t>(img.width)};
        double mean = 0;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x)
                mean += view.at(x, y);
        mean /= static_cast<double>(view.width) * view.height;
        double squares = 0;
        for (int y = 0; y < view.height; ++y)
            for (int x = 0; x < view.width; ++x)
                squares += (view.at(x, y) - mean) * (view.at(x, y) - mean);
        const double expected = std::sqrt(squares / (static_cast<double>(view.width) * view.height));
        EXPECT_NEAR(standard_deviation(view), expected, 1e-9) << "seed " << seed;
    }
}

TEST(StandardDeviation, ConstantAndTwoLevelImages)
{
    EXPECT_EQ(standard_deviation(GrayImage(9, 7, 200).view()), 0.0);
    EXPECT_EQ(standard_deviation(GrayView{}), 0.0);
    /* Half 0, half 255: the deviation is 127.5 exactly. */
    GrayImage img(10, 4, 0);
    for (int y = 0; y < 2; ++y)
        for (int x = 0; x < 10; ++x)
            img.at(x, y) = 255;
    EXPECT_DOUBLE_EQ(standard_deviation(img.view()), 127.5);
}

TEST(StandardDeviation, RowsLongerThanThirtyTwoBitSumsHold)
{
    /* Rows of 70,000 pixels, all 255 but every 70th (0): a row's squares
     * add up past 2^32, which sums over whole rows in 32 bits would wrap.
     * A fraction p of 255s gives 255 * sqrt(p * (1 - p)). */
    constexpr int kWidth = 70000, kEvery = 70;
    GrayImage img(kWidth, 3, 255);
    for (int y = 0; y < img.height; ++y)
        for (int x = 0; x < kWidth; x += kEvery)
            img.at(x, y) = 0;
    const double p = 1.0 - 1.0 / kEvery;
    EXPECT_NEAR(standard_deviation(img.view()), 255.0 * std::sqrt(p * (1.0 - p)), 1e-9);
    EXPECT_EQ(standard_deviation(GrayImage(kWidth, 2, 255).view()), 0.0);
}

/* Packed 4:2:2's luma (every second byte), against a plain loop, at every
 * width around the 16-pixel blocks, with padded rows and UYVY's odd start;
 * the source ends at the last row's last pixel, so a read past it is one
 * past the allocation (the sanitizer build catches it). */
TEST(CopyEverySecondByte, MatchesAPlainLoopAtEveryWidth)
{
    std::mt19937 rng(3);
    for (int width = 1; width <= 70; ++width)
        for (int start : {0, 1})
            for (size_t padding : {size_t{0}, size_t{6}}) {
                const int height = 3;
                const size_t stride = 2 * static_cast<size_t>(width) + padding;
                const size_t used = stride * (height - 1) + 2 * static_cast<size_t>(width - 1) + 1;
                std::vector<uint8_t> packed(start + used);
                for (auto& b : packed)
                    b = static_cast<uint8_t>(rng() & 0xff);
                std::vector<uint8_t> out(static_cast<size_t>(width) * height, 0);
                copy_every_second_byte(packed.data() + start, stride, width, height, out.data());
                for (int y = 0; y < height; ++y)
                    for (int x = 0; x < width; ++x)
                        ASSERT_EQ(out[static_cast<size_t>(y) * width + x], packed[start + y * stride + 2 * x])
                            << "width " << width << " start " << start << " padding " << padding << " at " << x << ","
                            << y;
            }
}

/* Every layout of 3- and 4-byte pixels: each pixel's gray is rgb_to_gray
 * of its own colours, whatever the order, the pixel step or the padding;
 * the buffer ends at the last row's last colour byte, so a read past it
 * shows under ASan. */
TEST(GrayOfRgb, ReadsEachPixelsColoursInEveryLayout)
{
    std::mt19937 rng(7);
    const int layouts[][4] = {{3, 0, 1, 2}, {3, 2, 1, 0}, {4, 0, 1, 2}, {4, 2, 1, 0}, {4, 1, 2, 3}, {4, 3, 2, 1}};
    for (const auto& l : layouts)
        for (int width = 1; width <= 9; ++width)
            for (size_t padding : {size_t{0}, size_t{5}}) {
                const int step = l[0], height = 3;
                const size_t stride = static_cast<size_t>(step) * width + padding;
                const int last = std::max({l[1], l[2], l[3]});
                const size_t used = stride * (height - 1) + static_cast<size_t>(step) * (width - 1) + last + 1;
                std::vector<uint8_t> pixels(used);
                for (auto& b : pixels)
                    b = static_cast<uint8_t>(rng() & 0xff);
                std::vector<uint8_t> out(static_cast<size_t>(width) * height, 0);
                gray_of_rgb(pixels.data(), stride, step, l[1], l[2], l[3], width, height, out.data());
                for (int y = 0; y < height; ++y)
                    for (int x = 0; x < width; ++x) {
                        const uint8_t* p = pixels.data() + y * stride + static_cast<size_t>(x) * step;
                        ASSERT_EQ(out[static_cast<size_t>(y) * width + x], rgb_to_gray(p[l[1]], p[l[2]], p[l[3]]))
                            << "step " << step << " red at " << l[1] << " width " << width << " at " << x << "," << y;
                    }
            }
}
