/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker's template search: the CPU reference on cases whose answer
 * is known by construction, and the OpenCL search (kernels/track.cl)
 * against the reference on many random frames and requests, on the device
 * "auto" picks (PoCL in CI; WALDBOOST_TEST_DEVICE picks another).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "core/error.h"
#include "core/opencl/device/device.h"
#include "core/opencl/device/program_cache.h"
#include "core/opencl/engine/shared_device.h"
#include "core/opencl/search/template_search.h"
#include "core/tracking/template_search.h"
#include "test_support.h"

using namespace waldboost;
using namespace waldboost::tracking;
using waldboost::opencl::FrameSearch;
using waldboost::opencl::OpenClSearcher;

namespace {

/* A frame that owns its pixels, rows `stride` bytes apart; the padding
 * holds noise, and the buffer ends right after the last row's pixels, so a
 * search that reads either gets caught (by its results or by ASan). */
struct Frame {
    int width = 0, height = 0;
    size_t stride = 0;
    std::vector<uint8_t> bytes;

    Frame(int w, int h, size_t row_stride, std::mt19937& rng) : width(w), height(h), stride(row_stride)
    {
        bytes.resize(h > 0 ? (h - 1) * stride + w : 0);
        for (uint8_t& b : bytes)
            b = static_cast<uint8_t>(rng());
    }
    uint8_t& at(int x, int y) { return bytes[y * stride + x]; }
    GrayView view() const { return GrayView{bytes.empty() ? nullptr : bytes.data(), width, height, stride}; }
};

/* A smooth random image: random values on a lattice of `cell` pixels,
 * interpolated bilinearly, plus noise of up to +-`noise`. */
void fill_smooth(Frame& f, int cell, int noise, std::mt19937& rng)
{
    const int gw = f.width / cell + 2, gh = f.height / cell + 2;
    std::vector<int> grid(static_cast<size_t>(gw) * gh);
    for (int& v : grid)
        v = static_cast<int>(rng() % 256);
    for (int y = 0; y < f.height; ++y)
        for (int x = 0; x < f.width; ++x) {
            const int gx = x / cell, gy = y / cell, fx = x % cell, fy = y % cell;
            auto g = [&](int i, int j) {
                return grid[static_cast<size_t>(gy + j) * gw + gx + i];
            };
            const int top = g(0, 0) * (cell - fx) + g(1, 0) * fx, bottom = g(0, 1) * (cell - fx) + g(1, 1) * fx;
            int v = (top * (cell - fy) + bottom * fy) / (cell * cell);
            if (noise > 0)
                v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
            f.at(x, y) = static_cast<uint8_t>(std::clamp(v, 0, 255));
        }
}

void fill_flat(Frame& f, uint8_t value)
{
    for (int y = 0; y < f.height; ++y)
        for (int x = 0; x < f.width; ++x)
            f.at(x, y) = value;
}

/* `src` moved by (dx, dy): dst(x, y) = src(x - dx, y - dy), `fill` where
 * that falls outside. */
void shift_into(const Frame& src, Frame& dst, int dx, int dy, uint8_t fill)
{
    for (int y = 0; y < dst.height; ++y)
        for (int x = 0; x < dst.width; ++x) {
            const int sx = x - dx, sy = y - dy;
            dst.at(x, y) = sx >= 0 && sy >= 0 && sx < src.width && sy < src.height ? src.view().at(sx, sy) : fill;
        }
}

/* The best position over every offset in range (what the search is when
 * both grid steps are 1): the lowest SAD, a tie to the smallest dy, then
 * dx. Written independently of the reference. */
SearchResult exhaustive(const GrayView& frame, const SearchRequest& r)
{
    SearchResult best;
    const Template& t = *r.appearance;
    for (int dy = -r.radius; dy <= r.radius; ++dy)
        for (int dx = -r.radius; dx <= r.radius; ++dx) {
            const int x = r.x + dx, y = r.y + dy;
            if (x < 0 || y < 0 || x + t.span_x() > frame.width || y + t.span_y() > frame.height)
                continue;
            const uint32_t sad = template_sad(frame, t, x, y);
            if (!best.found || sad < best.sad) /* row order: the first of equals stays */
                best = SearchResult{true, x, y, sad};
        }
    return best;
}

std::string describe(const GrayView& frame, const SearchRequest& r)
{
    std::string s = "frame " + std::to_string(frame.width) + "x" + std::to_string(frame.height) + " stride " +
                    std::to_string(frame.stride) + ", request at " + std::to_string(r.x) + "," + std::to_string(r.y) +
                    " radius " + std::to_string(r.radius);
    if (r.appearance)
        s += ", template " + std::to_string(r.appearance->columns) + "x" + std::to_string(r.appearance->rows) +
             " step " + std::to_string(r.appearance->step_x) + "x" + std::to_string(r.appearance->step_y);
    return s;
}

/* The device under test: WALDBOOST_TEST_DEVICE, else "auto". */
using waldboost_test::test_device;

}  // namespace

/* ===================== the reference on known answers ===================== */

TEST(ReferenceSearch, AxisRange)
{
    /* Start 10, span 5 in 20 pixels: offsets -10..5 keep [10 + d, 15 + d) in [0, 20). */
    AxisRange r = axis_range(10, 5, 20, 60);
    EXPECT_EQ(r.lo, -10);
    EXPECT_EQ(r.hi, 5);
    r = axis_range(10, 5, 20, 3);
    EXPECT_EQ(r.lo, -3);
    EXPECT_EQ(r.hi, 3);
    EXPECT_TRUE(axis_range(0, 21, 20, 60).empty()); /* wider than the frame */
    EXPECT_TRUE(axis_range(-10, 5, 20, 3).empty()); /* too far left for the radius */
    r = axis_range(-2, 5, 20, 3);
    EXPECT_EQ(r.lo, 2);
    EXPECT_EQ(r.hi, 3);
}

/* A template cut from a textured frame, searched in the frame moved by a
 * known offset within the radius: found where the content moved, with SAD 0
 * (smooth texture, and noise, whose SAD has no slope to follow from an
 * offset on the grid's lattice to the true one). */
TEST(ReferenceSearch, FindsShiftedContentExactly)
{
    std::mt19937 rng(7);
    struct Case {
        Rect box;
        int dx, dy, radius;
    };
    for (int cell : {8, 1}) {
        Frame before(200, 150, 200, rng), after(200, 150, 200, rng);
        fill_smooth(before, cell, 20, rng);
        /* Steps of 1 (small boxes) and larger, with shifts on and
         * off the multiples of the grid step. */
        for (const Case& c :
             {Case{{60, 50, 20, 16}, 7, -4, 10}, Case{{60, 50, 32, 32}, -10, 10, 10}, Case{{40, 30, 64, 64}, 4, -6, 12},
              Case{{40, 30, 64, 64}, 3, -5, 12}, Case{{50, 40, 90, 70}, 7, 2, 15}, Case{{10, 20, 1, 1}, 0, 0, 0}}) {
            shift_into(before, after, c.dx, c.dy, 0);
            Rect sampled;
            const Template t = sample_template(before.view(), c.box, &sampled);
            ASSERT_FALSE(t.empty());
            const SearchRequest request{&t, sampled.x, sampled.y, c.radius};
            const SearchResult r = search_template(after.view(), request);
            EXPECT_TRUE(r.found);
            EXPECT_EQ(r.x, sampled.x + c.dx) << "cell " << cell << ", " << describe(after.view(), request);
            EXPECT_EQ(r.y, sampled.y + c.dy) << "cell " << cell << ", " << describe(after.view(), request);
            EXPECT_EQ(r.sad, 0u) << "cell " << cell << ", " << describe(after.view(), request);
        }
    }
}

/* Content moved further than the radius is not found where it went: the
 * best is some other position within the radius, with a positive SAD. */
TEST(ReferenceSearch, ShiftBeyondTheRadiusIsNotFoundThere)
{
    std::mt19937 rng(8);
    Frame before(200, 150, 200, rng), after(200, 150, 200, rng);
    fill_smooth(before, 8, 20, rng);
    shift_into(before, after, 9, -2, 0);
    Rect sampled;
    const Template t = sample_template(before.view(), Rect{70, 60, 24, 24}, &sampled);
    for (int radius : {4, 8}) {
        const SearchResult r = search_template(after.view(), SearchRequest{&t, sampled.x, sampled.y, radius});
        ASSERT_TRUE(r.found);
        EXPECT_FALSE(r.x == sampled.x + 9 && r.y == sampled.y - 2);
        EXPECT_LE(std::abs(r.x - sampled.x), radius);
        EXPECT_LE(std::abs(r.y - sampled.y), radius);
        EXPECT_GT(r.sad, 0u);
    }
    const SearchResult r = search_template(after.view(), SearchRequest{&t, sampled.x, sampled.y, 9});
    EXPECT_EQ(r.x, sampled.x + 9);
    EXPECT_EQ(r.y, sampled.y - 2);
    EXPECT_EQ(r.sad, 0u);
}

/* On a flat frame every position scores the same: the tie goes to the
 * smallest dy, then dx, i.e. the top-left offset in range. */
TEST(ReferenceSearch, TiesGoToTheTopLeftOffset)
{
    std::mt19937 rng(9);
    Frame flat(120, 100, 128, rng);
    fill_flat(flat, 100);
    Frame source(120, 100, 120, rng);
    fill_flat(source, 90);
    const Template small = sample_template(source.view(), Rect{0, 0, 10, 10}); /* step 1, 100 samples */
    const Template large =
        sample_template(source.view(), Rect{0, 0, 2 * kTemplateSide, 2 * kTemplateSide}); /* step 2 */
    ASSERT_EQ(small.step_x, 1);
    ASSERT_EQ(large.step_x, 2);
    SearchResult r = search_template(flat.view(), SearchRequest{&small, 20, 30, 5});
    EXPECT_TRUE(r.found && r.x == 15 && r.y == 25 && r.sad == 1000u) << r.x << "," << r.y << " " << r.sad;
    r = search_template(flat.view(), SearchRequest{&small, 2, 3, 5});
    EXPECT_TRUE(r.found && r.x == 0 && r.y == 0) << r.x << "," << r.y;
    /* The same with a grid step of 2. */
    r = search_template(flat.view(), SearchRequest{&large, 20, 30, 5});
    EXPECT_TRUE(r.found && r.x == 15 && r.y == 25 && r.sad == 10u * kTemplateSide * kTemplateSide)
        << r.x << "," << r.y << " " << r.sad;
    /* Radius 0 is the expected position itself. */
    r = search_template(flat.view(), SearchRequest{&large, 20, 30, 0});
    EXPECT_TRUE(r.found && r.x == 20 && r.y == 30);
}

TEST(ReferenceSearch, NotFoundWhenTheGridCannotStayInTheFrame)
{
    std::mt19937 rng(10);
    Frame big(100, 100, 100, rng), small(40, 30, 48, rng);
    const Template t = sample_template(big.view(), Rect{0, 0, 50, 20});
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&t, 0, 0, 60}).found); /* wider than the frame */
    const Template fits = sample_template(big.view(), Rect{0, 0, 10, 10});
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&fits, -20, 5, 10}).found);
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&fits, 35, 5, 4}).found);
    EXPECT_TRUE(search_template(small.view(), SearchRequest{&fits, 35, 5, 5}).found);
    const SearchResult r = search_template(small.view(), SearchRequest{&fits, 31, 5, 0});
    EXPECT_FALSE(r.found); /* radius 0 and the grid sticks out by one */
    const Template empty;
    EXPECT_FALSE(search_template(small.view(), SearchRequest{&empty, 5, 5, 5}).found);
    EXPECT_FALSE(search_template(small.view(), SearchRequest{nullptr, 5, 5, 5}).found);
    EXPECT_TRUE(sample_template(small.view(), Rect{40, 0, 5, 5}).empty()); /* outside the frame */
    EXPECT_TRUE(sample_template(small.view(), Rect{-5, 0, 5, 5}).empty());
}

/* The reference against a plain search over every offset, written apart. */
TEST(ReferenceSearch, MatchesAnIndependentExhaustiveSearch)
{
    std::mt19937 rng(11);
    int compared = 0;
    for (int round = 0; round < 40; ++round) {
        const int w = 1 + static_cast<int>(rng() % 90), h = 1 + static_cast<int>(rng() % 70);
        Frame a(w, h, w + rng() % 3, rng), b(w, h, w, rng);
        if (round % 4 == 0)
            fill_flat(a, 50);
        else
            fill_smooth(a, 1 + static_cast<int>(rng() % 8), static_cast<int>(rng() % 4), rng);
        shift_into(a, b, static_cast<int>(rng() % 9) - 4, static_cast<int>(rng() % 9) - 4, 50);
        for (int k = 0; k < 20; ++k) {
            const Rect box{static_cast<int>(rng() % (w + 10)) - 5, static_cast<int>(rng() % (h + 10)) - 5,
                           1 + static_cast<int>(rng() % 100), 1 + static_cast<int>(rng() % 100)};
            Rect sampled;
            const Template t = sample_template(a.view(), box, &sampled);
            if (t.empty())
                continue;
            const SearchRequest request{&t, sampled.x + static_cast<int>(rng() % 7) - 3,
                                        sampled.y + static_cast<int>(rng() % 7) - 3, static_cast<int>(rng() % 12)};
            const SearchResult want = exhaustive(b.view(), request), got = search_template(b.view(), request);
            ASSERT_EQ(got.found, want.found) << describe(b.view(), request);
            if (want.found) {
                EXPECT_EQ(got.x, want.x) << describe(b.view(), request);
                EXPECT_EQ(got.y, want.y) << describe(b.view(), request);
                EXPECT_EQ(got.sad, want.sad) << describe(b.view(), request);
            }
            ++compared;
        }
    }
    std::cout << "[ reference ] " << compared << " searches agree with the exhaustive search" << std::endl;
}

/* ===================== the OpenCL search against the reference ===================== */

namespace {

size_t total_compared = 0; /* over every test, printed at the end */

/* Every result field for field; returns how many requests were compared. */
size_t expect_same(OpenClSearcher& device, const GrayView& frame, const std::vector<SearchRequest>& requests,
                   size_t* found = nullptr)
{
    ReferenceSearcher reference;
    const std::vector<SearchResult> want = reference.search(frame, requests);
    const std::vector<SearchResult> got = device.search(frame, requests);
    EXPECT_EQ(got.size(), requests.size());
    if (got.size() != requests.size())
        return 0;
    size_t mismatches = 0;
    for (size_t i = 0; i < requests.size(); ++i) {
        /* Unfound results too: both leave the other fields at 0. */
        const bool same = got[i].found == want[i].found && got[i].x == want[i].x && got[i].y == want[i].y &&
                          got[i].sad == want[i].sad;
        if (!same && ++mismatches <= 10)
            ADD_FAILURE() << "request " << i << ": " << describe(frame, requests[i]) << ": reference " << want[i].found
                          << " " << want[i].x << "," << want[i].y << " sad " << want[i].sad << ", device "
                          << got[i].found << " " << got[i].x << "," << got[i].y << " sad " << got[i].sad;
        if (found && want[i].found)
            ++*found;
    }
    total_compared += requests.size();
    return requests.size();
}

class DeviceSearch : public ::testing::Test {
protected:
    static void SetUpTestSuite() { searcher = std::make_unique<OpenClSearcher>(test_device()); }
    static void TearDownTestSuite()
    {
        searcher.reset();
        std::cout << "[ device    ] " << total_compared << " requests compared with the reference in all" << std::endl;
    }
    static std::unique_ptr<OpenClSearcher> searcher;
};
std::unique_ptr<OpenClSearcher> DeviceSearch::searcher;

int random_in(std::mt19937& rng, int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); }

}  // namespace

TEST_F(DeviceSearch, EmptyAndUnfoundCallsLaunchNothing)
{
    std::cout << "[ device    ] " << searcher->device_name() << ", " << searcher->work_group_size()
              << " work-items per request" << std::endl;
    std::mt19937 rng(20);
    Frame frame(64, 48, 80, rng);
    fill_smooth(frame, 4, 2, rng);
    const size_t before = searcher->launches();
    EXPECT_TRUE(searcher->search(frame.view(), {}).empty());
    const Template empty;
    const Template wide = sample_template(Frame(100, 10, 100, rng).view(), Rect{0, 0, 100, 10});
    const std::vector<SearchRequest> unfound{
        {nullptr, 0, 0, 5}, {&empty, 3, 3, 10}, {&wide, 0, 0, 60}, {&wide, -50, 0, 0}};
    expect_same(*searcher, frame.view(), unfound);
    for (const SearchResult& r : searcher->search(frame.view(), unfound))
        EXPECT_FALSE(r.found);
    /* A frame of no pixels: nothing fits, nothing is launched, and its null
     * data is never read. */
    expect_same(*searcher, GrayView{nullptr, 0, 0, 0}, {{&wide, 0, 0, 10}});
    EXPECT_EQ(searcher->launches(), before);
    /* One request that is found among them launches once. */
    const Template small = sample_template(frame.view(), Rect{10, 10, 8, 8});
    std::vector<SearchRequest> mixed = unfound;
    mixed.push_back({&small, 10, 10, 3});
    expect_same(*searcher, frame.view(), mixed);
    EXPECT_EQ(searcher->launches(), before + 1);
}

TEST_F(DeviceSearch, InconsistentTemplatesAreRejected)
{
    std::mt19937 rng(21);
    Frame frame(64, 48, 64, rng);
    Template t = sample_template(frame.view(), Rect{0, 0, 10, 10});
    t.columns = 11; /* 100 samples for 11 x 10 */
    try {
        searcher->search(frame.view(), {{&t, 5, 5, 3}});
        ADD_FAILURE() << "an inconsistent template was searched";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::BadParameter) << e.what();
    }
    t.columns = 10;
    t.step_x = 0;
    EXPECT_THROW(searcher->search(frame.view(), {{&t, 5, 5, 3}}), Error);
}

/* A searcher on the device state an engine holds (the same context). */
TEST_F(DeviceSearch, SharesAnEnginesDevice)
{
    const opencl::SelectedDevice selected = opencl::select_device(test_device());
    size_t chosen = 0;
    auto shared = opencl::SharedDevice::least_used({selected.device}, &chosen);
    OpenClSearcher on_shared(shared);
    std::mt19937 rng(22);
    Frame frame(97, 61, 101, rng);
    fill_smooth(frame, 6, 3, rng);
    const Template t = sample_template(frame.view(), Rect{30, 20, 40, 30});
    EXPECT_EQ(expect_same(on_shared, frame.view(), {{&t, 31, 18, 7}, {&t, 0, 0, 60}}), 2u);
}

/* Many random frames and requests, compared field for field. */
TEST_F(DeviceSearch, MatchesTheReferenceOnRandomSearches)
{
    std::mt19937 rng(12345);
    const Size sizes[] = {{1, 1}, {2, 3}, {5, 4}, {17, 9}, {33, 64}, {64, 48}, {160, 120}, {333, 211}, {640, 360}};
    size_t compared = 0, found = 0, calls = 0;
    for (int round = 0; round < 8; ++round)
        for (const Size& size : sizes) {
            const int w = size.width, h = size.height;
            const size_t stride = w + (rng() % 2 ? 0 : 1 + rng() % 17);
            Frame previous(w, h, w, rng), frame(w, h, stride, rng);
            /* Textured, flat (every position ties) or of few levels (many ties). */
            const int kind = random_in(rng, 0, 3);
            if (kind == 0) {
                fill_flat(previous, static_cast<uint8_t>(rng()));
                fill_flat(frame, static_cast<uint8_t>(rng()));
            } else {
                fill_smooth(previous, random_in(rng, 1, 24), kind == 3 ? 0 : random_in(rng, 0, 6), rng);
                if (kind == 3)
                    for (uint8_t& b : previous.bytes)
                        b = b < 128 ? 40 : 200;
                shift_into(previous, frame, random_in(rng, -20, 20), random_in(rng, -20, 20),
                           static_cast<uint8_t>(rng()));
            }
            /* Templates of boxes 1x1 up to 300x200 (grid steps up to 10x7),
             * some partly outside the frame. */
            std::vector<std::unique_ptr<Template>> templates;
            std::vector<Rect> sampled_boxes;
            for (int k = 0; k < 24; ++k) {
                const int bw = k % 6 == 0 ? random_in(rng, 1, 3) : random_in(rng, 1, 300);
                const int bh = k % 6 == 0 ? random_in(rng, 1, 3) : random_in(rng, 1, 200);
                const Rect box{random_in(rng, -bw / 2, w - 1 + bw / 4), random_in(rng, -bh / 2, h - 1 + bh / 4), bw,
                               bh};
                Rect sampled;
                auto t = std::make_unique<Template>(sample_template(previous.view(), box, &sampled));
                if (t->empty())
                    continue;
                templates.push_back(std::move(t));
                sampled_boxes.push_back(sampled);
            }
            templates.push_back(std::make_unique<Template>()); /* empty */
            sampled_boxes.push_back(Rect{});
            /* Requests near where the template came from, near every border
             * of the frame, and anywhere (often not found). Calls of a few
             * requests only leave the top rows out of the uploaded band. */
            std::vector<SearchRequest> requests;
            const int count = round % 2 ? random_in(rng, 1, 4) : random_in(rng, 40, 160);
            for (int k = 0; k < count; ++k) {
                const size_t which = rng() % templates.size();
                const Template* t = templates[which].get();
                const Rect& box = sampled_boxes[which];
                const int sx = t->empty() ? 1 : t->span_x(), sy = t->empty() ? 1 : t->span_y();
                const int radius = k % 10 == 0 ? 0 : random_in(rng, 0, 60);
                SearchRequest r{t, box.x + random_in(rng, -8, 8), box.y + random_in(rng, -8, 8), radius};
                const int border_x[] = {-sx - radius, -radius, -1, 0, 1, w - sx - 1, w - sx, w - sx + 1, w, w + radius};
                const int border_y[] = {-sy - radius, -radius, -1, 0, 1, h - sy - 1, h - sy, h - sy + 1, h, h + radius};
                switch (k % 4) {
                case 1: r.x = border_x[rng() % 10] + random_in(rng, -2, 2); break;
                case 2: r.y = border_y[rng() % 10] + random_in(rng, -2, 2); break;
                case 3:
                    r.x = random_in(rng, -w / 2 - 70, w + 70);
                    r.y = random_in(rng, -h / 2 - 70, h + 70);
                    break;
                default: break;
                }
                if (k % 37 == 5)
                    r.appearance = nullptr;
                requests.push_back(r);
            }
            compared += expect_same(*searcher, frame.view(), requests, &found);
            ++calls;
            if (HasFailure())
                return;
        }
    std::cout << "[ device    ] compared " << compared << " requests (" << found << " found) in " << calls
              << " calls with the reference" << std::endl;
    EXPECT_GT(found, compared / 4);
}

/* Requests at the frame's edges: grids that barely fit or stick out by a
 * few pixels, ranges cut on one side, large steps, one-sample-wide grids,
 * and radius 0. */
TEST_F(DeviceSearch, MatchesTheReferenceAtTheFrameEdges)
{
    std::mt19937 rng(99);
    Frame previous(400, 260, 400, rng), frame(400, 260, 413, rng);
    fill_smooth(previous, 12, 4, rng);
    shift_into(previous, frame, 5, -3, 0);
    std::vector<std::unique_ptr<Template>> templates;
    for (const Rect& box : {Rect{0, 0, 300, 200}, Rect{50, 30, 128, 96}, Rect{10, 10, 33, 65}, Rect{100, 100, 1, 200},
                            Rect{100, 100, 300, 1}, Rect{390, 250, 10, 10}})
        templates.push_back(std::make_unique<Template>(sample_template(previous.view(), box)));
    std::vector<SearchRequest> requests;
    for (const auto& t : templates)
        for (int x = -12; x <= 12; x += 3)
            for (int y : {-7, -1, 0, 2, 5})
                for (int radius : {0, 1, 2, 3, 7, 13, 60}) {
                    requests.push_back({t.get(), x, y, radius});
                    requests.push_back({t.get(), 400 - t->span_x() + x, 260 - t->span_y() + y, radius});
                    requests.push_back({t.get(), 50 + x, 30 + y, radius});
                }
    size_t found = 0;
    const size_t compared = expect_same(*searcher, frame.view(), requests, &found);
    std::cout << "[ device    ] compared " << compared << " frame-edge requests (" << found << " found)" << std::endl;
}

/* A hand-made template larger than the tracker's (read from global memory
 * on the device) and a template used by many requests at once. */
TEST_F(DeviceSearch, MatchesTheReferenceForLargeHandMadeTemplates)
{
    std::mt19937 rng(5);
    Frame frame(300, 200, 300, rng);
    fill_smooth(frame, 10, 3, rng);
    Template big;
    big.columns = 70;
    big.rows = 40;
    big.step_x = 2;
    big.step_y = 3;
    big.samples.resize(70 * 40);
    for (int j = 0; j < big.rows; ++j)
        for (int i = 0; i < big.columns; ++i)
            big.samples[j * 70 + i] = frame.view().at(60 + i * 2, 40 + j * 3);
    std::vector<SearchRequest> requests;
    for (int k = 0; k < 30; ++k)
        requests.push_back({&big, 60 + random_in(rng, -15, 15), 40 + random_in(rng, -15, 15), random_in(rng, 0, 20)});
    size_t found = 0;
    EXPECT_EQ(expect_same(*searcher, frame.view(), requests, &found), requests.size());
    EXPECT_EQ(found, requests.size());
}

/* ===================== several streams' searches in one launch ===================== */

namespace {

/* A stream's frame and its searches: its own size, stride and content, so
 * that a request reading another stream's band (a wrong offset, stride or
 * first row) gets caught by its result. */
struct StreamCase {
    Frame previous, frame;
    std::vector<std::unique_ptr<Template>> templates;
    std::vector<SearchRequest> requests;

    StreamCase(int w, int h, size_t stride, std::mt19937& rng) : previous(w, h, w, rng), frame(w, h, stride, rng)
    {
        fill_smooth(previous, random_in(rng, 3, 16), random_in(rng, 0, 4), rng);
        shift_into(previous, frame, random_in(rng, -6, 6), random_in(rng, -6, 6), static_cast<uint8_t>(rng()));
        for (int k = 0; k < 6; ++k) {
            const int bw = random_in(rng, 8, std::min(w, 120)), bh = random_in(rng, 8, std::min(h, 120));
            const Rect box{random_in(rng, 0, w - bw), random_in(rng, 0, h - bh), bw, bh};
            templates.push_back(std::make_unique<Template>(sample_template(previous.view(), box)));
            /* Some requests reach only rows far down, so that the bands
             * start at different rows in different streams. */
            requests.push_back({templates.back().get(), box.x + random_in(rng, -3, 3), box.y + random_in(rng, -3, 3),
                                random_in(rng, 0, 9)});
        }
    }
};

}  // namespace

/* Frames of different sizes and strides in one launch: each request gets
 * the reference's answer on its own frame. */
TEST_F(DeviceSearch, SeveralFramesInOneLaunchMatchTheReference)
{
    std::mt19937 rng(4242);
    std::vector<std::unique_ptr<StreamCase>> streams;
    for (const auto& [w, h, pad] : {std::tuple{160, 120, 0}, std::tuple{333, 211, 13}, std::tuple{64, 300, 5},
                                    std::tuple{640, 360, 64}, std::tuple{97, 61, 1}})
        streams.push_back(std::make_unique<StreamCase>(w, h, static_cast<size_t>(w + pad), rng));
    std::vector<FrameSearch> frames;
    for (const auto& s : streams)
        frames.push_back(FrameSearch{s->frame.view(), &s->requests});
    /* A frame with nothing to search among them launches nothing of its own. */
    const std::vector<SearchRequest> none;
    frames.insert(frames.begin() + 2, FrameSearch{GrayView{nullptr, 0, 0, 0}, &none});
    const size_t before = searcher->device_launches();
    const std::vector<std::vector<SearchResult>> got = searcher->search_frames(frames);
    EXPECT_EQ(searcher->device_launches(), before + 1) << "the frames' searches were not launched together";
    ASSERT_EQ(got.size(), frames.size());
    EXPECT_TRUE(got[2].empty());
    ReferenceSearcher reference;
    size_t compared = 0, found = 0;
    for (size_t f = 0; f < frames.size(); ++f) {
        const std::vector<SearchResult> want = reference.search(frames[f].frame, *frames[f].requests);
        ASSERT_EQ(got[f].size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            EXPECT_TRUE(got[f][i].found == want[i].found && got[f][i].x == want[i].x && got[f][i].y == want[i].y &&
                        got[f][i].sad == want[i].sad)
                << "frame " << f << ", " << describe(frames[f].frame, (*frames[f].requests)[i]) << ": reference "
                << want[i].x << "," << want[i].y << " sad " << want[i].sad << ", device " << got[f][i].x << ","
                << got[f][i].y << " sad " << got[f][i].sad;
            found += want[i].found;
            ++compared;
        }
    }
    total_compared += compared;
    EXPECT_GT(found, compared / 2);
    /* A bad template in one frame fails the call before anything is launched. */
    Template bad = *streams[0]->templates[0];
    bad.rows += 1;
    const std::vector<SearchRequest> bad_requests{{&bad, 5, 5, 2}};
    frames.push_back(FrameSearch{streams[0]->frame.view(), &bad_requests});
    EXPECT_THROW(searcher->search_frames(frames), Error);
    EXPECT_EQ(searcher->device_launches(), before + 1);
}

/* Streams searching from their own threads through their own searchers on
 * one device, as the element's workers do: every result is the reference's,
 * a bad call fails alone, and calls that meet go in one launch. */
TEST_F(DeviceSearch, StreamsSearchingAtOnceGetTheirOwnResults)
{
    constexpr int kStreams = 6, kCalls = 15;
    std::mt19937 rng(777);
    std::vector<std::unique_ptr<StreamCase>> cases;
    for (int s = 0; s < kStreams; ++s) {
        const int w = random_in(rng, 40, 400), h = random_in(rng, 40, 300);
        cases.push_back(std::make_unique<StreamCase>(w, h, static_cast<size_t>(random_in(rng, 0, 1) ? 401 : w), rng));
    }
    std::vector<std::vector<SearchResult>> want;
    ReferenceSearcher reference;
    for (const auto& c : cases)
        want.push_back(reference.search(c->frame.view(), c->requests));
    const size_t before = searcher->device_launches();
    std::vector<std::unique_ptr<OpenClSearcher>> own;
    for (int s = 0; s < kStreams; ++s)
        own.push_back(std::make_unique<OpenClSearcher>(test_device()));
    std::atomic<int> wrong{0}, bad_refused{0};
    std::vector<std::thread> threads;
    for (int s = 0; s < kStreams; ++s)
        threads.emplace_back([&, s] {
            const StreamCase& c = *cases[s];
            Template bad = *c.templates[0];
            bad.step_x = 0;
            const std::vector<SearchRequest> bad_requests{{&bad, 1, 1, 1}};
            for (int k = 0; k < kCalls; ++k) {
                if (k == 7) {
                    try {
                        own[s]->search(c.frame.view(), bad_requests);
                    } catch (const Error&) {
                        ++bad_refused;
                    }
                }
                const std::vector<SearchResult> got = own[s]->search(c.frame.view(), c.requests);
                for (size_t i = 0; i < got.size(); ++i)
                    if (!(got[i].found == want[s][i].found && got[i].x == want[s][i].x && got[i].y == want[s][i].y &&
                          got[i].sad == want[s][i].sad))
                        ++wrong;
            }
        });
    for (std::thread& t : threads)
        t.join();
    EXPECT_EQ(wrong.load(), 0);
    EXPECT_EQ(bad_refused.load(), kStreams);
    size_t calls = 0;
    for (const auto& s : own)
        calls += s->launches();
    EXPECT_EQ(calls, static_cast<size_t>(kStreams * kCalls));
    const size_t launched = searcher->device_launches() - before;
    EXPECT_LE(launched, calls);
    EXPECT_GE(launched, 1u);
    std::cout << "[ device    ] " << calls << " calls from " << kStreams << " threads went in " << launched
              << " launches" << std::endl;
}
