/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Load and soak: eight pipelines in one process share one OpenCL device and
 * must each give, for every one of their frames, the detections the CPU
 * reference gives for that frame; one long pipeline must not grow its
 * resident memory. Frame counts default to the acceptance figures (10,000
 * per pipeline, 100,000 for the soak) and can be lowered for development
 * with WALDBOOST_LOAD_FRAMES and WALDBOOST_SOAK_FRAMES. Without the test
 * images (astronaut.png) the program exits 77 (skipped).
 */
#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"
#include "test_support.h"

using namespace waldboost;

namespace {

constexpr int kWidth = 160;
constexpr int kHeight = 120;
constexpr int kDistinctFrames = 16;

int env_int(const char* name, int fallback)
{
    const std::string v = waldboost_test::env_or(name, "");
    return v.empty() ? fallback : std::atoi(v.c_str());
}

/* Distinct real frames: the astronaut's head and shoulders (a 264x180 crop
 * around the face) at 176x120, seen through a 160x120 window shifted by
 * one pixel per frame. */
std::vector<GrayImage> make_frames(const GrayImage& photo)
{
    const GrayView crop{photo.pixels.data() + 30 * static_cast<size_t>(photo.width) + 120, 264, 180,
                        static_cast<size_t>(photo.width)};
    const GrayImage base = resize_bilinear(crop, {kWidth + kDistinctFrames, kHeight});
    std::vector<GrayImage> frames;
    for (int k = 0; k < kDistinctFrames; ++k) {
        GrayImage f(kWidth, kHeight);
        for (int y = 0; y < kHeight; ++y)
            for (int x = 0; x < kWidth; ++x)
                f.at(x, y) = base.at(x + k, y);
        frames.push_back(std::move(f));
    }
    return frames;
}

using Boxes = std::vector<std::array<int, 4>>;

Boxes reference_boxes(const GrayImage& f)
{
    Boxes boxes;
    for (const Detection& d : detect(default_classifier(), f.view(), DetectParams{}))
        boxes.push_back({d.rect.x, d.rect.y, d.rect.width, d.rect.height});
    return boxes;
}

Boxes meta_boxes(GstBuffer* buffer)
{
    Boxes boxes;
    gpointer state = nullptr;
    while (GstMeta* meta =
               gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        boxes.push_back(
            {static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w), static_cast<int>(roi->h)});
    }
    return boxes;
}

/* appsrc ! waldboostdetect ! appsink, GRAY8 at 30 fps. */
struct Pipeline {
    GstElement* pipeline = nullptr;
    GstElement* src = nullptr;
    GstElement* sink = nullptr;

    explicit Pipeline(int max_inflight, const std::string& extra_properties = "")
    {
        GError* error = nullptr;
        const std::string description =
            "appsrc name=src format=time is-live=false block=true max-bytes=200000 "
            "caps=video/x-raw,format=GRAY8,width=" +
            std::to_string(kWidth) + ",height=" + std::to_string(kHeight) +
            ",framerate=30/1 ! waldboostdetect draw=none post-messages=false max-inflight=" +
            std::to_string(max_inflight) + " " + extra_properties + " ! appsink name=sink sync=false max-buffers=64";
        pipeline = gst_parse_launch(description.c_str(), &error);
        if (error) {
            ADD_FAILURE() << error->message;
            g_error_free(error);
            return;
        }
        src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
        sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
    }
    ~Pipeline()
    {
        if (pipeline)
            gst_element_set_state(pipeline, GST_STATE_NULL);
        if (src)
            gst_object_unref(src);
        if (sink)
            gst_object_unref(sink);
        if (pipeline)
            gst_object_unref(pipeline);
    }

    void push(const GrayImage& f, guint64 index)
    {
        GstBuffer* buffer = gst_buffer_new_memdup(f.pixels.data(), f.pixels.size());
        GST_BUFFER_PTS(buffer) = gst_util_uint64_scale(index, GST_SECOND, 30);
        GST_BUFFER_DURATION(buffer) = gst_util_uint64_scale(1, GST_SECOND, 30);
        GST_BUFFER_OFFSET(buffer) = index;
        gst_app_src_push_buffer(GST_APP_SRC(src), buffer);
    }
};

/* How a pipeline runs: with `extra_properties` (then only the frames'
 * order is checked, not their boxes), and resident memory sampled every
 * `rss_every` frames. */
struct RunOptions {
    std::string extra_properties;
    guint64 rss_every = 10000;
};

/* Runs `frames` frames through one pipeline and checks every output frame
 * against the reference; returns the number of frames checked. */
guint64 run_pipeline(const std::vector<GrayImage>& frames, const std::vector<Boxes>& expected, guint64 count,
                     int max_inflight, std::atomic<int>* mismatches, std::vector<long>* rss_samples = nullptr,
                     const RunOptions& options = RunOptions{})
{
    Pipeline p(max_inflight, options.extra_properties);
    const bool check_boxes = options.extra_properties.empty();
    if (!p.pipeline)
        return 0;
    gst_element_set_state(p.pipeline, GST_STATE_PLAYING);
    guint64 checked = 0;
    auto drain = [&](GstClockTime timeout) {
        while (GstSample* sample = gst_app_sink_try_pull_sample(GST_APP_SINK(p.sink), timeout)) {
            GstBuffer* buffer = gst_sample_get_buffer(sample);
            const guint64 index = GST_BUFFER_OFFSET(buffer);
            /* In order, once each, with that frame's own detections. */
            if (index != checked || (check_boxes && meta_boxes(buffer) != expected[index % frames.size()]))
                ++*mismatches;
            ++checked;
            gst_sample_unref(sample);
            timeout = 0;
        }
    };
    GstBus* bus = gst_element_get_bus(p.pipeline);
    auto failed = [&] {
        GstMessage* error = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
        if (!error)
            return false;
        GError* e = nullptr;
        gst_message_parse_error(error, &e, nullptr);
        ADD_FAILURE() << "pipeline error: " << e->message;
        g_error_free(e);
        gst_message_unref(error);
        return true;
    };
    for (guint64 i = 0; i < count; ++i) {
        if (failed())
            break;
        p.push(frames[i % frames.size()], i);
        drain(0);
        if (rss_samples && i % options.rss_every == options.rss_every - 1) {
            std::ifstream status("/proc/self/status");
            std::string line;
            while (std::getline(status, line))
                if (line.rfind("VmRSS:", 0) == 0)
                    rss_samples->push_back(std::atol(line.c_str() + 6));
        }
    }
    gst_app_src_end_of_stream(GST_APP_SRC(p.src));
    while (checked < count && !gst_app_sink_is_eos(GST_APP_SINK(p.sink)) && !failed())
        drain(5 * GST_SECOND);
    drain(0);
    gst_object_unref(bus);
    return checked;
}

class Load : public ::testing::Test {
protected:
    void SetUp() override
    {
        const std::string path = waldboost_test::test_data("astronaut.png");
        WALDBOOST_REQUIRE_FILE(path);
        frames_ = make_frames(waldboost::tools::load_gray_image(path));
        for (const GrayImage& f : frames_)
            expected_.push_back(reference_boxes(f));
        size_t faces = 0;
        for (const Boxes& b : expected_)
            faces += b.size();
        ASSERT_GT(faces, 0u) << "the test frames should hold faces";
    }
    std::vector<GrayImage> frames_;
    std::vector<Boxes> expected_;
};

}  // namespace

TEST_F(Load, EightPipelinesShareOneDeviceAndEachMatchesTheReference)
{
    const guint64 count = static_cast<guint64>(env_int("WALDBOOST_LOAD_FRAMES", 10000));
    constexpr int kPipelines = 8;
    std::atomic<int> mismatches{0};
    std::vector<guint64> checked(kPipelines, 0);
    std::vector<std::thread> threads;
    for (int i = 0; i < kPipelines; ++i)
        threads.emplace_back([&, i] {
            checked[i] = run_pipeline(frames_, expected_, count, 1 + i % 4, &mismatches);
        });
    for (std::thread& t : threads)
        t.join();
    for (int i = 0; i < kPipelines; ++i)
        EXPECT_EQ(checked[i], count) << "pipeline " << i;
    EXPECT_EQ(mismatches.load(), 0);
    std::printf("load: %d pipelines x %llu frames, %d mismatches\n", kPipelines, static_cast<unsigned long long>(count),
                mismatches.load());
}

TEST_F(Load, SoakKeepsResidentMemoryFlat)
{
    const guint64 count = static_cast<guint64>(env_int("WALDBOOST_SOAK_FRAMES", 100000));
    std::atomic<int> mismatches{0};
    std::vector<long> rss_kib;
    const guint64 checked = run_pipeline(frames_, expected_, count, 2, &mismatches, &rss_kib);
    EXPECT_EQ(checked, count);
    EXPECT_EQ(mismatches.load(), 0);
    ASSERT_GE(rss_kib.size(), 2u) << "the soak needs at least 20,000 frames to compare memory";
    /* From the first sample (after warm-up: kernels built, buffers sized) to
     * the last, resident memory must grow by less than 1 MB (a plain build
     * stays within +-16 KiB over 90,000 frames). Under ASan the allocator's
     * quarantine and stack depot swing resident memory by several MB either
     * way, so tests/sanitizers.sh raises the bound there (LeakSanitizer
     * checks for lost memory at exit). */
    const long limit_kib = env_int("WALDBOOST_SOAK_GROWTH_LIMIT_KIB", 1024);
    const long growth = rss_kib.back() - rss_kib.front();
    std::printf("soak: %llu frames, RSS %ld KiB after 10,000 and %ld KiB at the end (%+ld KiB)\n",
                static_cast<unsigned long long>(count), rss_kib.front(), rss_kib.back(), growth);
    EXPECT_LT(growth, limit_kib);
}

/* Tracking (detection on every third frame, template search between),
 * nested parts and box text burned in, over 5,000 frames: resident memory
 * stays flat from the first sample (1,000 frames) to the last. */
TEST_F(Load, SoakWithTrackingPartsAndBoxTextKeepsResidentMemoryFlat)
{
    const guint64 count = static_cast<guint64>(env_int("WALDBOOST_SOAK_FEATURES_FRAMES", 5000));
    const std::string eyes = waldboost_test::haar_dir() + "/haarcascade_eye.xml";
    WALDBOOST_REQUIRE_FILE(eyes);
    std::atomic<int> mismatches{0};
    std::vector<long> rss_kib;
    RunOptions options;
    options.extra_properties = "tracking=true interval=3 draw=burn box-text=label+id+confidence eyes-profile=\"" +
                               eyes + "\" post-messages=true updates=events";
    options.rss_every = 1000;
    const guint64 checked = run_pipeline(frames_, expected_, count, 2, &mismatches, &rss_kib, options);
    EXPECT_EQ(checked, count);
    EXPECT_EQ(mismatches.load(), 0);
    ASSERT_GE(rss_kib.size(), 2u) << "the soak needs at least 2,000 frames to compare memory";
    const long limit_kib = env_int("WALDBOOST_SOAK_GROWTH_LIMIT_KIB", 1024);
    const long growth = rss_kib.back() - rss_kib.front();
    std::printf("soak with tracking, parts and box text: %llu frames, RSS %ld KiB after 1,000 and %ld KiB at the "
                "end (%+ld KiB)\n",
                static_cast<unsigned long long>(count), rss_kib.front(), rss_kib.back(), growth);
    EXPECT_LT(growth, limit_kib);
}

int main(int argc, char** argv)
{
    gst_init(&argc, &argv);
    ::testing::InitGoogleTest(&argc, argv);
    /* Every test here needs the test images, and GoogleTest counts a run of
     * skipped tests as passed: without them the program is skipped (77),
     * unless the run requires them, where the tests fail. */
    const std::string data = waldboost_test::test_data("astronaut.png");
    if (!waldboost_test::file_exists(data) && !waldboost_test::test_data_required()) {
        std::printf("SKIP: missing test data %s (run tests/fetch-test-data.sh)\n", data.c_str());
        return 77;
    }
    return RUN_ALL_TESTS();
}
