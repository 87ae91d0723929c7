/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Frames in the engine's pinned blocks (what the element's pool hands
 * upstream) give the reference's windows, alone and batched, and blocks are
 * found by their context and address range. Exactness only: these may
 * share the machine.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/opencl/engine/pinned_memory.h"
#include "core/opencl/engine/shared_device.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;

/* Frames written into the engine's pinned blocks (what the element's pool
 * hands upstream): on a GPU they are uploaded from there without a copy,
 * alone or batched; on CPU devices they are copied like any frame. Either
 * way the windows are the reference's. A view with a stride is copied. */
TEST(Engine, FramesInPinnedBlocksMatchTheReference)
{
    std::mt19937 rng(35);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    DetectParams params;
    params.min_neighbors = 0;
    for (const bool batching : {false, true}) {
        EngineConfig config;
        config.device = test_device();
        config.max_in_flight = 3;
        config.batching = batching;
        config.batch_wait_ns = batching ? 2'000'000'000 : 0; /* the test submits the companions */
        Engine a(c, config), b(c, config);
        std::vector<GrayImage> frames;
        std::vector<std::shared_ptr<waldboost::opencl::PinnedBlock>> blocks;
        std::vector<GrayView> views;
        for (int i = 0; i < 6; ++i) {
            frames.push_back(random_image(rng, 120 + 16 * (i % 3), 90 + 6 * (i % 3)));
            const GrayImage& f = frames.back();
            const bool strided = i == 5;
            const size_t stride = static_cast<size_t>(strided ? f.width + 8 : f.width);
            blocks.push_back(a.allocate_pinned(stride * f.height));
            uint8_t* data = blocks.back()->data();
            for (int y = 0; y < f.height; ++y)
                std::copy(f.view().row(y), f.view().row(y) + f.width, data + static_cast<size_t>(y) * stride);
            views.push_back(GrayView{data, f.width, f.height, stride});
        }
        const std::string what = batching ? "batched" : "alone";
        /* Pairs: a's frame and b's frame in flight together. */
        for (size_t i = 0; i + 1 < views.size(); i += 2) {
            a.submit(views[i], params);
            b.submit(views[i + 1], params);
            const auto ra = a.collect(), rb = b.collect();
            ASSERT_TRUE(ra && rb);
            expect_same_windows(ra->windows, detect_raw(c, frames[i].view(), params),
                                what + ", frame " + std::to_string(i));
            expect_same_windows(rb->windows, detect_raw(c, frames[i + 1].view(), params),
                                what + ", frame " + std::to_string(i + 1));
        }
    }
}

TEST(PinnedMemory, BlocksAreFoundByContextAndRange)
{
    std::mt19937 rng(36);
    const Classifier c = random_classifier(rng, 20, 20, 10, false);
    EngineConfig config;
    config.device = test_device();
    Engine engine(c, config);
    const cl::Context& context = engine.shared_device()->context();
    std::vector<uint8_t> plain(4096);
    const uint8_t* first;
    {
        const auto block = engine.allocate_pinned(4096);
        first = block->data();
        EXPECT_TRUE(waldboost::opencl::find_pinned(context, block->data(), 4096));
        EXPECT_TRUE(waldboost::opencl::find_pinned(context, block->data() + 1000, 3096));
        EXPECT_FALSE(waldboost::opencl::find_pinned(context, block->data() + 1000, 3097)) << "past its end";
        EXPECT_FALSE(waldboost::opencl::find_pinned(context, plain.data(), plain.size())) << "not a block";
        const cl::Context other(context.getInfo<CL_CONTEXT_DEVICES>());
        EXPECT_FALSE(waldboost::opencl::find_pinned(other, block->data(), 4096)) << "another context";
    }
    EXPECT_FALSE(waldboost::opencl::find_pinned(context, first, 1)) << "a block that is gone";
}
