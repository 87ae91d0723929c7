/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Engines spread over every device of a type ("all-gpus", "all-cpus"):
 * each takes the device the fewest engines use, and a type that is not
 * there is a clear error. With one device of the type the spreading test
 * skips: meson.build runs this program as engine-spread, as the device
 * picks, and as engine-two-devices with two PoCL CPU devices, where it
 * must run.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <exception>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/opencl/device/device.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;

/* "all-gpus" ("all-cpus" when the test device is a CPU) puts each engine on
 * the device of that type the fewest engines of the process use. Needs two
 * such devices: the meson test engine-two-devices gets two CPU devices from
 * PoCL (POCL_DEVICES="pthread pthread") and sets
 * WALDBOOST_REQUIRE_TWO_DEVICES, so that there it fails rather than skips;
 * on a host with two GPUs, WALDBOOST_TEST_DEVICE=gpu runs it there. Frames run one at a time: PoCL releases cached kernel
 * code wrongly when launches of one kernel with different sizes run at once
 * (shared_device.h), and two devices would be two queues. */
TEST(EngineSpread, EnginesOnAllOfATypeTakeTheLeastUsedDevice)
{
    using waldboost::opencl::select_devices;
    const std::string type = waldboost::opencl::select_device(test_device()).info.type;
    const std::string kind = type == "GPU" ? "gpu" : type == "CPU" ? "cpu" : "accelerator";
    const auto devices = select_devices("all-" + kind + "s");
    if (devices.size() < 2) {
        if (!waldboost_test::env_or("WALDBOOST_REQUIRE_TWO_DEVICES", "").empty())
            FAIL() << "WALDBOOST_REQUIRE_TWO_DEVICES is set but there are " << devices.size() << " " << type
                   << " devices";
        GTEST_SKIP() << "one " << type << " device; the meson test engine-two-devices runs this with two CPU devices";
    }
    auto index_of = [&](const Engine& e) {
        for (size_t i = 0; i < devices.size(); ++i)
            if (devices[i].info.platform_index == e.device().platform_index &&
                devices[i].info.device_index == e.device().device_index)
                return static_cast<int>(i);
        return -1;
    };
    std::mt19937 rng(41);
    const Classifier c = random_classifier(rng, 20, 20, 30, true);
    EngineConfig config = rows_config(2);
    config.device = " ALL-" + kind + "s "; /* any case, spaces ignored */

    /* Made at once in four threads: two on each device. */
    std::vector<std::unique_ptr<Engine>> engines(4);
    std::vector<std::thread> threads;
    std::atomic<int> failures{0};
    for (size_t t = 0; t < engines.size(); ++t)
        threads.emplace_back([&, t] {
            try {
                engines[t] = std::make_unique<Engine>(c, config);
            } catch (const std::exception& e) {
                std::fprintf(stderr, "thread %zu: %s\n", t, e.what());
                ++failures;
            }
        });
    for (std::thread& thread : threads)
        thread.join();
    ASSERT_EQ(failures.load(), 0);
    std::vector<int> per_device(devices.size(), 0);
    for (const auto& e : engines) {
        const int i = index_of(*e);
        ASSERT_GE(i, 0) << "an engine on a device that is not a CPU: " << e->device().device_name;
        ++per_device[static_cast<size_t>(i)];
        EXPECT_EQ(e->sharing().engines_on_device, 2);
    }
    EXPECT_EQ(per_device[0], 2);
    EXPECT_EQ(per_device[1], 2);

    /* Every engine finds the reference's windows on its device. */
    DetectParams params;
    params.min_neighbors = 0;
    const GrayImage image = random_image(rng, 200, 150);
    const auto want = detect_raw(c, image.view(), params);
    for (const auto& e : engines)
        expect_same_windows(e->detect(image.view(), params).windows, want, e->device().device_name.c_str());

    /* Two engines of device 1 go: the next engine takes device 1. */
    const int first_on_0 = index_of(*engines[0]);
    for (auto& e : engines)
        if (e && index_of(*e) != first_on_0)
            e.reset();
    Engine next(c, config);
    EXPECT_NE(index_of(next), first_on_0);
    EXPECT_EQ(next.sharing().engines_on_device, 1);
    expect_same_windows(next.detect(image.view(), params).windows, want, "the engine made after two left");

    /* A fixed device is never spread. */
    config.device = kind;
    Engine fixed(c, config);
    EXPECT_EQ(index_of(fixed), 0);
}

TEST(EngineSpread, AllOfATypeThatIsNotThereIsAClearError)
{
    using waldboost::opencl::select_devices;
    EXPECT_EQ(waldboost::opencl::spread_type(" ALL-gpus"), "GPU");
    EXPECT_EQ(waldboost::opencl::spread_type("all-accelerators"), "accelerator");
    EXPECT_EQ(waldboost::opencl::spread_type("gpu"), "");
    EXPECT_EQ(waldboost::opencl::spread_type("all-gpu"), "") << "only the plural is a spread spec";
    for (const char* spec : {"all-gpus", "all-cpus", "all-accelerators"}) {
        const std::string type = waldboost::opencl::spread_type(spec);
        bool any = false;
        for (const auto& info : waldboost::opencl::list_devices())
            any = any || info.type == type;
        if (any) {
            const auto devices = select_devices(spec);
            ASSERT_FALSE(devices.empty());
            for (const auto& d : devices)
                EXPECT_EQ(d.info.type, type);
            EXPECT_EQ(devices.front().info.device_name, waldboost::opencl::select_device(spec).info.device_name);
            continue;
        }
        try {
            select_devices(spec);
            ADD_FAILURE() << spec << " selected a device on a host without one";
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), ErrorKind::NoDevice);
            EXPECT_NE(std::string(e.what()).find("there is no " + type + " device"), std::string::npos) << e.what();
        }
    }
}
