/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string_view>
#include <system_error>
#include <thread>

#include "core/opencl/program_cache.h"
#include "core/opencl/tuner.h"

namespace waldboost::opencl {

/* Generated at build time from the kernels folder by build-aux/embed.py. */
extern const std::string_view kCommonKernels;
extern const std::string_view kPyramidKernels;
extern const std::string_view kWaldboostKernels;
extern const std::string_view kScanRowsKernels;

namespace {

/* Running sums are int64 with this many fraction bits: exact (and so
 * order-independent) for every response that is a multiple of 2^-40, which
 * covers any float of magnitude >= 2^-17, and room for sums up to 2^23. */
constexpr int kFixedShift = 40;
constexpr double kFixedScale = 1099511627776.0; /* 2^40 */
constexpr double kFixedLimit = 4194304.0;       /* 2^22: headroom below 2^23 */

/* Counter slots, mirrored in kernels/waldboost.cl. */
constexpr int kCountAccepted = 0;
constexpr int kCountWeakEvaluated = 1;
constexpr int kCountLists = 3; /* slot 2 is unused */

/* Canvas rows per band of the GPU integral image (kernels/pyramid.cl). */
constexpr int kIntegralBand = 16;
/* Work-group size of the GPU integral kernels. */
constexpr size_t kIntegralGroup = 256;
/* Rows per work-group of the row scan, and its windows per vector
 * (scan_rows.cl). */
constexpr size_t kScanRowsGroup = 4;
constexpr size_t kScanLanes = 16;
/* Longs per stump record (scan_rows.cl). */
constexpr size_t kStumpLongs = 6;

/* Mirrors ResizeLevel in kernels/pyramid.cl. */
struct ResizeLevel {
    cl_uint first;
    cl_int width;
    cl_int height;
    cl_int canvas_offset;
    cl_int xtap;
    cl_int ytap;
    cl_int canvas_x;
    cl_int canvas_y;
};

/* Mirrors ScanLevel in kernels/waldboost.cl. */
struct ScanLevel {
    cl_uint first;
    cl_int columns;
    cl_int rows;
    cl_int step;
    cl_int origin;
    cl_int skip_rule;
    cl_int first_row;
    cl_int pad1;
};

/* Mirrors Candidate and Accepted. */
struct CandidateRecord {
    cl_uint index;
    cl_uint next;
    cl_long sum;
};
struct AcceptedRecord {
    cl_uint index;
    cl_uint hidden;
    cl_long score;
};
static_assert(sizeof(CandidateRecord) == 16 && sizeof(AcceptedRecord) == 16, "records must match the kernels");

int64_t to_fixed_ceil(double value)
{
    return static_cast<int64_t>(std::ceil(value * kFixedScale));
}

size_t round_up(size_t value, size_t multiple)
{
    return (value + multiple - 1) / multiple * multiple;
}

/* Everything that depends on the frame size and the scan parameters. */
struct Geometry {
    Size image;
    double scale_factor = 0;
    Size min_size, max_size;
    int stride = 0;

    std::vector<ScaleLevel> levels;
    std::vector<int> scan_to_level; /* scan-table entry -> index into levels */
    std::vector<ResizeLevel> resize_levels;
    /* GPU layout: the shelf of every canvas row, and per shelf and canvas
     * column the level there (-1 in a gap). */
    std::vector<cl_int> row_shelf;
    std::vector<cl_int> level_map;
    /* GPU layout: per canvas row y, the columns of integral row y + 1 that
     * any level reads (a multiple of 4); the shelves' tails are gaps. */
    std::vector<cl_int> row_widths;
    std::vector<ScanLevel> scan_levels;
    std::vector<cl_int4> taps;
    int canvas_width = 0, canvas_height = 0;
    /* Where the integral image's row 0, column 0 lies in its buffer, and
     * values per row. The GPU layout aligns column 1 of every row to 16
     * bytes for vector stores (kernels/pyramid.cl). */
    int integral_origin = 0;
    int integral_pitch = 0;
    cl_uint pyramid_rows = 0;
    cl_uint positions = 0;  /* window positions scanned */
    cl_uint scan_rows = 0;  /* rows of window positions, all levels (scan_rows.cl) */

    bool matches(Size size, const DetectParams& p) const
    {
        return image == size && scale_factor == p.scale_factor && min_size == p.min_size &&
               max_size == p.max_size && stride == p.stride;
    }
};

Geometry make_geometry(Size size, const Classifier& classifier, const DetectParams& params, bool band_layout)
{
    Geometry g;
    g.image = size;
    g.scale_factor = params.scale_factor;
    g.min_size = params.min_size;
    g.max_size = params.max_size;
    g.stride = params.stride;
    g.levels = plan_scales(size, classifier, params);
    if (g.levels.empty())
        return g;

    /* Shelf packing: levels left to right, a new shelf when one is full. */
    g.canvas_width = g.levels.front().image_size.width;
    int x = 0, y = 0, shelf_height = 0;
    std::vector<std::pair<int, int>> placement;
    std::vector<int> shelf_of_level, shelf_top;
    for (const ScaleLevel& level : g.levels) {
        if (x + level.image_size.width > g.canvas_width) {
            x = 0;
            y += shelf_height;
            shelf_height = 0;
        }
        if (x == 0)
            shelf_top.push_back(y);
        placement.emplace_back(x, y);
        shelf_of_level.push_back(static_cast<int>(shelf_top.size()) - 1);
        x += level.image_size.width;
        shelf_height = std::max(shelf_height, level.image_size.height);
    }
    g.canvas_height = y + shelf_height;
    if (band_layout) {
        /* Row pitch a multiple of 32 values (128 bytes) with room for the
         * last item's 4 columns; column 1 of row 0 at value 4. */
        g.integral_origin = 3;
        g.integral_pitch = static_cast<int>(round_up(static_cast<size_t>(g.canvas_width) + 4, 32));
    } else {
        g.integral_pitch = g.canvas_width + 1;
    }
    g.row_shelf.resize(static_cast<size_t>(g.canvas_height));
    for (size_t s = 0; s < shelf_top.size(); ++s) {
        const int end = s + 1 < shelf_top.size() ? shelf_top[s + 1] : g.canvas_height;
        std::fill(g.row_shelf.begin() + shelf_top[s], g.row_shelf.begin() + end, static_cast<cl_int>(s));
    }
    g.level_map.assign(shelf_top.size() * static_cast<size_t>(g.canvas_width), -1);
    for (size_t i = 0; i < g.levels.size(); ++i) {
        const size_t row = static_cast<size_t>(shelf_of_level[i]) * g.canvas_width;
        std::fill(g.level_map.begin() + row + placement[i].first,
                  g.level_map.begin() + row + placement[i].first + g.levels[i].image_size.width,
                  static_cast<cl_int>(i));
    }

    uint64_t pixels = 0, positions = 0, rows = 0, scan_rows = 0;
    for (size_t i = 0; i < g.levels.size(); ++i) {
        const ScaleLevel& level = g.levels[i];
        const auto [cx, cy] = placement[i];
        ResizeLevel r{};
        r.first = static_cast<cl_uint>(rows);
        r.width = level.image_size.width;
        r.height = level.image_size.height;
        r.canvas_offset = cy * g.canvas_width + cx;
        r.canvas_x = cx;
        r.canvas_y = cy;
        r.xtap = static_cast<cl_int>(g.taps.size());
        for (const LinearTap& t : linear_taps(size.width, level.image_size.width))
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        r.ytap = static_cast<cl_int>(g.taps.size());
        for (const LinearTap& t : linear_taps(size.height, level.image_size.height))
            g.taps.push_back({{t.index0, t.index1, t.weight0, t.weight1}});
        g.resize_levels.push_back(r);
        pixels += static_cast<uint64_t>(r.width) * static_cast<uint64_t>(r.height);
        rows += static_cast<uint64_t>(r.height);

        const int span_x = level.image_size.width - classifier.window_width + 1;
        const int span_y = level.image_size.height - classifier.window_height + 1;
        if (span_x <= 0 || span_y <= 0)
            continue;
        ScanLevel s{};
        s.first = static_cast<cl_uint>(positions);
        s.columns = (span_x + level.step - 1) / level.step;
        s.rows = (span_y + level.step - 1) / level.step;
        s.step = level.step;
        s.origin = g.integral_origin + cy * g.integral_pitch + cx;
        s.skip_rule = level.skip_after_first_stage_rejection ? 1 : 0;
        s.first_row = static_cast<cl_int>(scan_rows);
        scan_rows += static_cast<uint64_t>(s.rows);
        g.scan_levels.push_back(s);
        g.scan_to_level.push_back(static_cast<int>(i));
        positions += static_cast<uint64_t>(s.columns) * static_cast<uint64_t>(s.rows);
    }
    if (band_layout) {
        /* A level at (cx, cy) of size w x h reads integral rows cy to cy + h,
         * columns up to cx + w: integral row y + 1 is canvas row y's. */
        g.row_widths.assign(static_cast<size_t>(g.canvas_height), 0);
        for (size_t i = 0; i < g.levels.size(); ++i) {
            const auto [cx, cy] = placement[i];
            const int right = static_cast<int>(round_up(static_cast<size_t>(cx + g.levels[i].image_size.width), 4));
            for (int row = std::max(cy - 1, 0); row < cy + g.levels[i].image_size.height; ++row)
                g.row_widths[static_cast<size_t>(row)] = std::max(g.row_widths[static_cast<size_t>(row)], right);
        }
    }
    const uint64_t integral_size =
        static_cast<uint64_t>(g.integral_origin) + static_cast<uint64_t>(g.integral_pitch) * (g.canvas_height + 1);
    if (positions > std::numeric_limits<cl_uint>::max() / 2 || pixels > std::numeric_limits<cl_int>::max() ||
        integral_size > std::numeric_limits<cl_int>::max())
        throw Error("frame of " + std::to_string(size.width) + "x" + std::to_string(size.height) +
                    " is too large for the OpenCL engine's 32-bit indices");
    g.pyramid_rows = static_cast<cl_uint>(rows);
    g.positions = static_cast<cl_uint>(positions);
    g.scan_rows = static_cast<cl_uint>(scan_rows);
    return g;
}

/* The frame's tight copy into the staging buffer. One thread's copy took
 * 1.0-1.5 ms of a 4K frame's submit() on the H100 host, about as long as
 * the device's work on it, so large frames are copied by a few threads,
 * one band of rows each (WALDBOOST_COPY_THREADS caps their number). */
void copy_frame(uint8_t* dst, const GrayView& image)
{
    const size_t width = static_cast<size_t>(image.width);
    auto copy_rows = [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            std::memcpy(dst + static_cast<size_t>(y) * width, image.row(y), width);
    };
    static const int max_threads = [] {
        if (const char* text = std::getenv("WALDBOOST_COPY_THREADS"))
            return std::max(1, std::atoi(text));
        return static_cast<int>(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 4u));
    }();
    constexpr size_t kBytesPerThread = size_t{2} << 20;
    const int threads = static_cast<int>(
        std::min<size_t>(max_threads, std::max<size_t>(1, width * image.height / kBytesPerThread)));
    if (threads <= 1) {
        copy_rows(0, image.height);
        return;
    }
    std::vector<std::thread> helpers;
    const int band = (image.height + threads - 1) / threads;
    try {
        for (int i = 1; i < threads; ++i)
            helpers.emplace_back(copy_rows, std::min(i * band, image.height), std::min((i + 1) * band, image.height));
    } catch (const std::system_error&) {
        /* No thread to be had: the rest is copied here. */
    }
    const int done_by_helpers = static_cast<int>(helpers.size());
    copy_rows(0, band);
    copy_rows(std::min((done_by_helpers + 1) * band, image.height), image.height);
    for (std::thread& helper : helpers)
        helper.join();
}

}  // namespace

/* One frame in flight: its own queue and buffers, so the upload of the next
 * frame overlaps this one's kernels. */
struct Slot {
    cl::CommandQueue queue;
    /* Created once: clCreateKernel is not free, and a slot is only ever
     * used by one thread at a time. */
    /* CPU layout: pyramid, rows, column_strips;
     * GPU layout: band_sums, band_prefix, bands. */
    cl::Kernel pyramid, rows, column_strips, band_sums, band_prefix, bands;
    cl::Kernel step1, step2, step4, skip;
    cl::Kernel scan_rows; /* instead of the four above when scanning by rows */
    std::shared_ptr<const Geometry> geometry;       /* of the frame in the slot */
    std::shared_ptr<const Geometry> buffers_for;    /* the buffers below were sized for */
    cl::Buffer resize_levels, scan_levels, taps, row_shelf, level_map, row_widths, group_levels;
    cl::Buffer source, canvas, integral, band_totals, lists[2], accepted, counters, first_stage_rejected;
    size_t list_capacity = 0;
    size_t accepted_capacity = 0;
    size_t source_bytes = 0;

    /* The frame's tight copy, in pinned (page-locked) host memory mapped
     * once: the upload is then a plain DMA, without the driver's own copy
     * into a staging area (NVIDIA's recommended pattern). */
    cl::Buffer staging;
    uint8_t* staging_data = nullptr;
    size_t staging_capacity = 0;
    /* On CPU devices a plain host copy: pinning buys nothing there, and a
     * buffer mapped for the engine's lifetime made LeakSanitizer's exit
     * check crash under PoCL. */
    std::vector<uint8_t> host_staging;
    size_t frame_bytes = 0;
    std::vector<cl_uint> host_counters;
    std::vector<AcceptedRecord> host_accepted;
    std::vector<std::pair<std::string, cl::Event>> kernel_events;
    std::vector<std::pair<std::string, cl::Event>> transfer_events;
    cl::Event done;

    bool busy = false;
    uint64_t frame = 0;
    DetectParams params;
    int64_t final_threshold = 0;
    int reruns = 0;
};

struct Engine::Impl {
    Classifier classifier;
    SelectedDevice selected;
    ReductionParams reduction;
    cl::Context context;
    cl::Program program;
    BuildReport build_report;
    cl::Buffer features, responses, thresholds, resets;
    int first_test = 0;
    /* Every weak classifier has at most two response values (OpenCV's
     * stumps): the row scan then reads 48-byte stump records instead of
     * 2 KiB tables (scan_rows.cl). */
    bool stumps = false;
    int max_in_flight = 2;
    bool profiling = true;
    std::vector<Slot> slots;
    std::deque<size_t> order; /* slots in flight, oldest first */
    size_t next_slot = 0;
    uint64_t next_frame = 0;
    std::shared_ptr<const Geometry> geometry;

    int list_count() const { return 1 + reduction.step2_repeats; }
    /* CPU devices build the pyramid and the row sums a row per work-item:
     * plain loops suit them better than wide parallel kernels. */
    bool rows_layout = false;
    bool device_is_cpu = false;
    bool by_rows() const { return rows_layout; }
    /* Scan by rows (kernels/scan_rows.cl) instead of the reduction. */
    bool scan_by_rows = false;
    /* Bits per integral-image value: 16 where every block sum fits
     * (kernels/common.cl), else 32. */
    int integral_bits = 32;
    size_t integral_value_bytes() const { return static_cast<size_t>(integral_bits / 8); }

    /* The GPU layout writes the canvas 4 pixels at a time. */
    int canvas_pitch(const Geometry& g) const
    {
        return by_rows() ? g.canvas_width : static_cast<int>(round_up(g.canvas_width, 4));
    }

    void upload_classifier();
    void prepare(Slot& slot, const GrayView& image, const DetectParams& params);
    void enqueue(Slot& slot);
    template <typename Launch, typename CascadeArgs>
    void enqueue_reduction(Slot& slot, Launch& launch, CascadeArgs& set_cascade_args);
    template <typename Transfer>
    void read_back(Slot& slot, Transfer& transfer);
    static void unmap_staging(Slot& slot);
    template <typename Launch>
    void enqueue_rows_integral(Slot& slot, Launch& launch);
    template <typename Launch>
    void enqueue_band_integral(Slot& slot, Launch& launch);
    FrameResult finish(Slot& slot);
};

void Engine::Impl::upload_classifier()
{
    const size_t n = classifier.weak.size();
    std::vector<cl_int4> feature_data(n);
    std::vector<cl_long> response_data(n * 256);
    std::vector<cl_long> threshold_data(n);
    std::vector<cl_uchar> reset_data(n);
    double worst_sum = 0;
    first_test = static_cast<int>(n);
    for (size_t t = 0; t < n; ++t) {
        const WeakClassifier& w = classifier.weak[t];
        feature_data[t] = {{w.feature.x, w.feature.y, w.feature.block_width, w.feature.block_height}};
        float largest = 0;
        for (int code = 0; code < 256; ++code) {
            largest = std::max(largest, std::fabs(w.responses[code]));
            response_data[t * 256 + code] = std::llround(static_cast<double>(w.responses[code]) * kFixedScale);
        }
        worst_sum += largest;
        if (w.reject_threshold == kNoRejection) {
            threshold_data[t] = std::numeric_limits<cl_long>::min();
        } else {
            if (std::fabs(w.reject_threshold) >= kFixedLimit)
                throw Error("classifier threshold " + std::to_string(w.reject_threshold) +
                            " is beyond the OpenCL engine's range (|threshold| < 2^22)");
            threshold_data[t] = to_fixed_ceil(w.reject_threshold);
            if (first_test == static_cast<int>(n))
                first_test = static_cast<int>(t);
        }
        reset_data[t] = w.reset_sum_after ? 1 : 0;
    }
    /* Stump records after the tables: per weak classifier 256 bits (set:
     * the code gives the second value) and the two values, 6 longs. */
    std::vector<cl_long> stump_data(n * kStumpLongs);
    stumps = true;
    for (size_t t = 0; t < n && stumps; ++t) {
        const cl_long* table = &response_data[t * 256];
        const cl_long first = table[0];
        cl_long second = first;
        uint32_t bits[8] = {};
        for (int code = 0; code < 256; ++code) {
            if (table[code] == first)
                continue;
            if (second == first)
                second = table[code];
            if (table[code] != second) {
                stumps = false;
                break;
            }
            bits[code >> 5] |= uint32_t{1} << (code & 31);
        }
        std::memcpy(&stump_data[t * kStumpLongs], bits, sizeof bits);
        stump_data[t * kStumpLongs + 4] = first;
        stump_data[t * kStumpLongs + 5] = second;
    }
    if (stumps)
        response_data.insert(response_data.end(), stump_data.begin(), stump_data.end());
    if (worst_sum >= kFixedLimit)
        throw Error("classifier responses are too large for the OpenCL engine (the sum of the largest responses "
                    "must stay below 2^22)");
    maybe_inject_fault("buffer-create");
    const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
    features = cl::Buffer(context, ro, sizeof(cl_int4) * n, feature_data.data());
    responses = cl::Buffer(context, ro, sizeof(cl_long) * response_data.size(), response_data.data());
    thresholds = cl::Buffer(context, ro, sizeof(cl_long) * n, threshold_data.data());
    resets = cl::Buffer(context, ro, n, reset_data.data());
}

Engine::Engine(const Classifier& classifier, const EngineConfig& config) : impl_(std::make_unique<Impl>())
{
    Impl& m = *impl_;
    validate(classifier, "<classifier>");
    if (config.max_in_flight < 1 || config.max_in_flight > 16)
        throw Error("max in flight must be 1 to 16, not " + std::to_string(config.max_in_flight));
    m.classifier = classifier;
    m.max_in_flight = config.max_in_flight;
    m.profiling = config.profiling;
    m.selected = select_device(config.device);
    /* The band-parallel integral image needs groups of kIntegralGroup items. */
    m.device_is_cpu = m.selected.info.type == "CPU";
    m.rows_layout = m.selected.info.type == "CPU" || m.selected.info.max_work_group_size < kIntegralGroup;
    /* Development aid: force a layout ("rows" or "bands"), e.g. to test the
     * GPU kernels on PoCL. */
    if (const char* layout = std::getenv("WALDBOOST_KERNEL_LAYOUT")) {
        if (std::string_view(layout) == "rows")
            m.rows_layout = true;
        else if (std::string_view(layout) == "bands")
            m.rows_layout = m.selected.info.max_work_group_size < kIntegralGroup;
    }
    m.reduction = config.reduction ? *config.reduction : preferred_reduction(classifier, m.selected.info);
    validate(m.reduction, m.selected.info);
    m.scan_by_rows = config.scan == ScanMethod::Rows || (config.scan == ScanMethod::Auto && m.device_is_cpu);
    /* 16-bit integral values halve the bytes every window reads (on the
     * H100 at 4K, frontalface: see docs/engine.md). Block sums are taken
     * modulo 2^16, exact while a block holds at most 257 pixels (257 x 255
     * < 2^16): OpenCV's 24x24 and 45x45 face cascades qualify. Only the GPU
     * layout and the reduction read them; the CPU kernels keep 32 bits. */
    int64_t largest_block = 0;
    for (const WeakClassifier& w : classifier.weak)
        largest_block = std::max(largest_block, int64_t{w.feature.block_width} * w.feature.block_height);
    if (!m.rows_layout && !m.scan_by_rows && largest_block * 255 <= 0xFFFF)
        m.integral_bits = 16;
    /* Development aid: WALDBOOST_INTEGRAL_BITS=32 keeps 32-bit values, for
     * measurements. */
    if (const char* bits = std::getenv("WALDBOOST_INTEGRAL_BITS"); bits && std::string_view(bits) == "32")
        m.integral_bits = 32;

    try {
        m.context = cl::Context(m.selected.device);
        const std::string source = kernel_source(kCommonKernels, "common.cl") + "\n" +
                                   kernel_source(kPyramidKernels, "pyramid.cl") + "\n" +
                                   kernel_source(kWaldboostKernels, "waldboost.cl") +
                                   (m.scan_by_rows ? "\n" + kernel_source(kScanRowsKernels, "scan_rows.cl") : "");
        const ReductionParams& r = m.reduction;
        std::string options = "-cl-std=CL1.2";
        auto define = [&](const char* name, long value) {
            options += std::string(" -D ") + name + "=" + std::to_string(value);
        };
        m.upload_classifier();
        define("GROUP_SIZE", r.group_size);
        define("STEP4_GROUP_SIZE", r.step4_group_size);
        define("STEP1_UNSYNC", r.step1_unsync);
        define("STEP1_DIVISOR", r.step1_divisor);
        define("STEP2_UNSYNC", r.step2_unsync);
        define("STEP2_DIVISOR", r.step2_divisor);
        define("WEAK_COUNT", static_cast<long>(classifier.weak.size()));
        define("FIRST_TEST", m.first_test);
        if (m.stumps)
            options += " -D STUMPS";
        define("INTEGRAL_BAND", kIntegralBand);
        define("INTEGRAL_BITS", m.integral_bits);
        if (m.by_rows())
            options += " -D PYRAMID_BY_ROWS";
        /* Development aid: extra compiler options, e.g. -cl-opt-disable. */
        if (const char* extra = std::getenv("WALDBOOST_CL_OPTIONS"))
            options += std::string(" ") + extra;
        m.program = build_program(m.context, m.selected.device, source, options, &m.build_report);
        m.slots.resize(static_cast<size_t>(m.max_in_flight));
        for (Slot& slot : m.slots) {
            slot.queue = cl::CommandQueue(m.context, m.selected.device,
                                          m.profiling ? CL_QUEUE_PROFILING_ENABLE : cl_command_queue_properties{0});
            if (m.by_rows()) {
                slot.pyramid = cl::Kernel(m.program, "build_pyramid");
                slot.rows = cl::Kernel(m.program, "integral_rows");
                slot.column_strips = cl::Kernel(m.program, "integral_column_strips");
            } else {
                slot.band_sums = cl::Kernel(m.program, "integral_band_sums");
                slot.band_prefix = cl::Kernel(m.program, "integral_band_prefix");
                slot.bands = cl::Kernel(m.program, "integral_bands");
            }
            if (m.scan_by_rows) {
                slot.scan_rows = cl::Kernel(m.program, "scan_rows");
            } else {
                slot.step1 = cl::Kernel(m.program, "step1_scan");
                slot.step2 = cl::Kernel(m.program, "step2_reduce");
                slot.step4 = cl::Kernel(m.program, "step4_finish");
                slot.skip = cl::Kernel(m.program, "apply_skip_rule");
            }
        }
    } catch (const cl::Error& e) {
        throw to_error(e, "setting up the OpenCL engine on " + m.selected.info.device_name);
    }
}

void Engine::Impl::unmap_staging(Slot& slot)
{
    if (!slot.staging_data || !slot.staging())
        return;
    slot.queue.enqueueUnmapMemObject(slot.staging, slot.staging_data);
    slot.queue.finish();
    slot.staging_data = nullptr;
    slot.staging_capacity = 0;
}

Engine::~Engine()
{
    /* Let queued work finish before its buffers go away. */
    for (Slot& slot : impl_->slots) {
        try {
            if (slot.queue()) {
                slot.queue.finish();
                Impl::unmap_staging(slot);
            }
        } catch (const cl::Error&) {
        }
    }
}

const DeviceInfo& Engine::device() const { return impl_->selected.info; }
const ReductionParams& Engine::reduction() const { return impl_->reduction; }
ScanMethod Engine::scan_method() const { return impl_->scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction; }
const BuildReport& Engine::build_report() const { return impl_->build_report; }
size_t Engine::in_flight() const { return impl_->order.size(); }
bool Engine::can_submit() const { return impl_->order.size() < impl_->slots.size(); }

void Engine::Impl::prepare(Slot& slot, const GrayView& image, const DetectParams& params)
{
    const Size size{image.width, image.height};
    if (!geometry || !geometry->matches(size, params))
        geometry = std::make_shared<const Geometry>(make_geometry(size, classifier, params, !by_rows()));
    const Geometry& g = *geometry;

    slot.params = params;
    const float final = params.final_threshold.value_or(classifier.final_threshold);
    if (!std::isfinite(final) || std::fabs(final) >= kFixedLimit)
        throw Error("final threshold " + std::to_string(final) + " is out of range");
    slot.final_threshold = to_fixed_ceil(final);
    slot.reruns = 0;
    slot.geometry = geometry;

    /* A tight copy of the frame: the caller's buffer may go away. */
    slot.frame_bytes = static_cast<size_t>(image.width) * static_cast<size_t>(image.height);
    if (device_is_cpu && slot.frame_bytes > slot.staging_capacity) {
        slot.host_staging.resize(slot.frame_bytes);
        slot.staging_data = slot.host_staging.data();
        slot.staging_capacity = slot.frame_bytes;
    } else if (slot.frame_bytes > slot.staging_capacity) {
        unmap_staging(slot);
        maybe_inject_fault("buffer-create");
        const size_t capacity = std::max<size_t>(slot.frame_bytes, 1);
        slot.staging = cl::Buffer(context, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR, capacity);
        slot.staging_data = static_cast<uint8_t*>(
            slot.queue.enqueueMapBuffer(slot.staging, CL_TRUE, CL_MAP_WRITE, 0, capacity));
        slot.staging_capacity = capacity;
    }
    copy_frame(slot.staging_data, image);
    if (g.scan_levels.empty())
        return;

    maybe_inject_fault("buffer-create");
    if (slot.buffers_for != geometry) {
        const cl_mem_flags ro = CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR;
        const std::vector<ResizeLevel>& resize = g.resize_levels;
        slot.resize_levels = cl::Buffer(context, ro, sizeof(ResizeLevel) * resize.size(),
                                        const_cast<ResizeLevel*>(resize.data()));
        slot.scan_levels = cl::Buffer(context, ro, sizeof(ScanLevel) * g.scan_levels.size(),
                                      const_cast<ScanLevel*>(g.scan_levels.data()));
        slot.taps = cl::Buffer(context, ro, sizeof(cl_int4) * g.taps.size(), const_cast<cl_int4*>(g.taps.data()));
        slot.source_bytes = slot.frame_bytes;
        slot.source = cl::Buffer(context, CL_MEM_READ_ONLY, slot.source_bytes);
        const size_t canvas_bytes = static_cast<size_t>(canvas_pitch(g)) * g.canvas_height;
        slot.canvas = cl::Buffer(context, CL_MEM_READ_WRITE, canvas_bytes);
        if (by_rows()) {
            /* The gaps between packed levels are never written; their values
             * cancel out of every block sum, but they must not be
             * uninitialised memory. */
            slot.queue.enqueueFillBuffer(slot.canvas, cl_uchar{0}, 0, canvas_bytes);
        } else {
            slot.row_shelf = cl::Buffer(context, ro, sizeof(cl_int) * g.row_shelf.size(),
                                        const_cast<cl_int*>(g.row_shelf.data()));
            slot.level_map = cl::Buffer(context, ro, sizeof(cl_int) * g.level_map.size(),
                                        const_cast<cl_int*>(g.level_map.data()));
            slot.row_widths = cl::Buffer(context, ro, sizeof(cl_int) * g.row_widths.size(),
                                         const_cast<cl_int*>(g.row_widths.data()));
        }
        /* Padded: the row scan reads 16 windows' corners at once, up to 16
         * steps past a row's last window (31 values at step 2). */
        int max_step = 1;
        for (const ScanLevel& s : g.scan_levels)
            max_step = std::max(max_step, static_cast<int>(s.step));
        const size_t padding = kScanLanes * (static_cast<size_t>(max_step) + 1);
        const size_t integral_bytes =
            integral_value_bytes() * (static_cast<size_t>(g.integral_origin) +
                                      static_cast<size_t>(g.integral_pitch) * (g.canvas_height + 1) + padding);
        slot.integral = cl::Buffer(context, CL_MEM_READ_WRITE, integral_bytes);
        if (!by_rows()) {
            const size_t bands = (g.canvas_height + kIntegralBand - 1) / kIntegralBand;
            slot.band_totals = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(cl_uint) * bands * g.canvas_width);
        }
        /* Row 0 and column 0 of the integral image stay zero; the kernels
         * never write them. */
        if (integral_bits == 16)
            slot.queue.enqueueFillBuffer(slot.integral, cl_ushort{0}, 0, integral_bytes);
        else
            slot.queue.enqueueFillBuffer(slot.integral, cl_uint{0}, 0, integral_bytes);

        /* Each step keeps at most group / divisor windows of every group, so
         * this bounds every list: no list can overflow. */
        const size_t groups = (g.positions + reduction.group_size - 1) / reduction.group_size;
        slot.list_capacity =
            scan_by_rows ? 1 : std::max<size_t>(1, groups * (reduction.group_size / reduction.step1_divisor));
        for (cl::Buffer& list : slot.lists)
            list = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(CandidateRecord) * slot.list_capacity);
        slot.accepted_capacity = std::max<size_t>(1024, g.positions / 256);
        slot.accepted = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(AcceptedRecord) * slot.accepted_capacity);
        slot.counters = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(cl_uint) * (kCountLists + list_count()));
        /* The row scan applies the skip rule itself and never touches it. */
        slot.first_stage_rejected = cl::Buffer(context, CL_MEM_READ_WRITE, scan_by_rows ? 1 : g.positions);
        /* The level of every step-1 group's first window (step1_scan). */
        std::vector<cl_int> group_levels(scan_by_rows ? 1 : groups, 0);
        for (size_t i = 0; !scan_by_rows && i < groups; ++i) {
            const cl_uint first = static_cast<cl_uint>(i * reduction.group_size);
            const auto it = std::upper_bound(g.scan_levels.begin(), g.scan_levels.end(), first,
                                             [](cl_uint index, const ScanLevel& s) { return index < s.first; });
            group_levels[i] = static_cast<cl_int>(it - g.scan_levels.begin()) - 1;
        }
        slot.group_levels = cl::Buffer(context, ro, sizeof(cl_int) * group_levels.size(), group_levels.data());
        slot.buffers_for = geometry;
    }
}

/* CPU layout: the pyramid into a canvas, a row per work-item, then the
 * integral image of the canvas: row sums, then column sums in strips of 16
 * columns. */
template <typename Launch>
void Engine::Impl::enqueue_rows_integral(Slot& slot, Launch& launch)
{
    const Geometry& g = *slot.geometry;
    cl::Kernel& pyramid = slot.pyramid;
    pyramid.setArg(0, slot.source);
    pyramid.setArg(1, static_cast<cl_int>(g.image.width));
    pyramid.setArg(2, slot.canvas);
    pyramid.setArg(3, static_cast<cl_int>(g.canvas_width));
    pyramid.setArg(4, slot.resize_levels);
    pyramid.setArg(5, static_cast<cl_int>(g.resize_levels.size()));
    pyramid.setArg(6, g.pyramid_rows);
    pyramid.setArg(7, slot.taps);
    launch("build_pyramid", pyramid, round_up(g.pyramid_rows, 16), 16);

    cl::Kernel& rows = slot.rows;
    rows.setArg(0, slot.canvas);
    rows.setArg(1, static_cast<cl_int>(g.canvas_width));
    rows.setArg(2, static_cast<cl_int>(g.canvas_width));
    rows.setArg(3, slot.integral);
    rows.setArg(4, static_cast<cl_int>(g.integral_pitch));
    rows.setArg(5, static_cast<cl_int>(g.canvas_height));
    launch("integral_rows", rows, round_up(g.canvas_height, 16), 16);

    cl::Kernel& strips = slot.column_strips;
    strips.setArg(0, slot.integral);
    strips.setArg(1, static_cast<cl_int>(g.canvas_width));
    strips.setArg(2, static_cast<cl_int>(g.canvas_height));
    strips.setArg(3, static_cast<cl_int>(g.integral_pitch));
    launch("integral_column_strips", strips, round_up((g.canvas_width + 15) / 16, 4), 4);
}

/* GPU layout: the integral image straight from the source frame in three
 * launches; the pyramid is never stored (kernels/pyramid.cl). */
template <typename Launch>
void Engine::Impl::enqueue_band_integral(Slot& slot, Launch& launch)
{
    const Geometry& g = *slot.geometry;
    cl::CommandQueue& q = slot.queue;
    const cl_int width = static_cast<cl_int>(g.canvas_width);
    const cl_int height = static_cast<cl_int>(g.canvas_height);
    const cl_int bands = (height + kIntegralBand - 1) / kIntegralBand;
    auto pixel_args = [&](cl::Kernel& k) {
        k.setArg(0, slot.source);
        k.setArg(1, static_cast<cl_int>(g.image.width));
        k.setArg(2, slot.resize_levels);
        k.setArg(3, slot.level_map);
        k.setArg(4, slot.row_shelf);
        k.setArg(5, slot.taps);
        k.setArg(6, width);
        k.setArg(7, height);
        return 8;
    };
    int a = pixel_args(slot.band_sums);
    slot.band_sums.setArg(a++, slot.canvas);
    slot.band_sums.setArg(a++, static_cast<cl_int>(canvas_pitch(g)));
    slot.band_sums.setArg(a++, slot.band_totals);
    {
        maybe_inject_fault("enqueue");
        cl::Event event;
        q.enqueueNDRangeKernel(slot.band_sums, cl::NullRange, cl::NDRange(round_up((g.canvas_width + 3) / 4, 64), bands),
                               cl::NDRange(64, 1), nullptr, profiling ? &event : nullptr);
        if (profiling)
            slot.kernel_events.emplace_back("integral_band_sums", event);
    }
    slot.band_prefix.setArg(0, slot.band_totals);
    slot.band_prefix.setArg(1, width);
    slot.band_prefix.setArg(2, bands);
    launch("integral_band_prefix", slot.band_prefix, (g.canvas_width + 31) / 32 * kIntegralGroup, kIntegralGroup);
    a = 0;
    slot.bands.setArg(a++, slot.canvas);
    slot.bands.setArg(a++, static_cast<cl_int>(canvas_pitch(g)));
    slot.bands.setArg(a++, width);
    slot.bands.setArg(a++, height);
    slot.bands.setArg(a++, slot.band_totals);
    slot.bands.setArg(a++, slot.row_widths);
    slot.bands.setArg(a++, slot.integral);
    slot.bands.setArg(a++, static_cast<cl_int>(g.integral_origin));
    slot.bands.setArg(a++, static_cast<cl_int>(g.integral_pitch));
    launch("integral_bands", slot.bands, static_cast<size_t>(bands) * kIntegralGroup, kIntegralGroup);
}

void Engine::Impl::enqueue(Slot& slot)
{
    const Geometry& g = *slot.geometry;
    cl::CommandQueue& q = slot.queue;
    slot.kernel_events.clear();
    slot.transfer_events.clear();
    /* The event of a transfer, when profiling. */
    auto transfer = [&](const char* name) -> cl::Event* {
        if (!profiling)
            return nullptr;
        slot.transfer_events.emplace_back(name, cl::Event());
        return &slot.transfer_events.back().second;
    };
    auto launch = [&](const char* name, cl::Kernel& kernel, size_t global, size_t local) {
        maybe_inject_fault("enqueue");
        cl::Event event;
        q.enqueueNDRangeKernel(kernel, cl::NullRange, cl::NDRange(global),
                               local ? cl::NDRange(local) : cl::NullRange, nullptr, profiling ? &event : nullptr);
        if (profiling)
            slot.kernel_events.emplace_back(name, event);
    };
    auto set_cascade_args = [&](cl::Kernel& k) {
        k.setArg(0, slot.integral);
        k.setArg(1, static_cast<cl_int>(g.integral_pitch));
        k.setArg(2, features);
        k.setArg(3, responses);
        k.setArg(4, thresholds);
        k.setArg(5, resets);
        k.setArg(6, static_cast<cl_long>(slot.final_threshold));
        return 7;
    };
    const cl_int level_count = static_cast<cl_int>(g.scan_levels.size());
    const cl_uint accepted_capacity = static_cast<cl_uint>(slot.accepted_capacity);

    maybe_inject_fault("enqueue");
    q.enqueueWriteBuffer(slot.source, CL_FALSE, 0, slot.frame_bytes, slot.staging_data, nullptr, transfer("upload"));
    q.enqueueFillBuffer(slot.counters, cl_uint{0}, 0, sizeof(cl_uint) * (kCountLists + list_count()), nullptr,
                        transfer("fill counters"));
    if (!scan_by_rows)
        q.enqueueFillBuffer(slot.first_stage_rejected, cl_uchar{0}, 0, g.positions, nullptr,
                            transfer("fill first_stage_rejected"));

    if (by_rows())
        enqueue_rows_integral(slot, launch);
    else
        enqueue_band_integral(slot, launch);

    if (scan_by_rows) {
        cl::Kernel& k = slot.scan_rows;
        int i = set_cascade_args(k);
        k.setArg(i++, slot.scan_levels);
        k.setArg(i++, level_count);
        k.setArg(i++, g.scan_rows);
        k.setArg(i++, slot.accepted);
        k.setArg(i++, accepted_capacity);
        k.setArg(i++, slot.counters);
        k.setArg(i++, slot.first_stage_rejected);
        launch("scan_rows", k, round_up(g.scan_rows, kScanRowsGroup), kScanRowsGroup);
    } else {
        enqueue_reduction(slot, launch, set_cascade_args);
    }
    read_back(slot, transfer);
}

template <typename Launch, typename CascadeArgs>
void Engine::Impl::enqueue_reduction(Slot& slot, Launch& launch, CascadeArgs& set_cascade_args)
{
    const Geometry& g = *slot.geometry;
    const ReductionParams& r = reduction;
    const cl_int level_count = static_cast<cl_int>(g.scan_levels.size());
    const cl_uint list_capacity = static_cast<cl_uint>(slot.list_capacity);
    const cl_uint accepted_capacity = static_cast<cl_uint>(slot.accepted_capacity);

    cl::Kernel& step1 = slot.step1;
    int a = set_cascade_args(step1);
    step1.setArg(a++, slot.scan_levels);
    step1.setArg(a++, level_count);
    step1.setArg(a++, g.positions);
    step1.setArg(a++, slot.lists[0]);
    step1.setArg(a++, list_capacity);
    step1.setArg(a++, static_cast<cl_int>(kCountLists));
    step1.setArg(a++, slot.accepted);
    step1.setArg(a++, accepted_capacity);
    step1.setArg(a++, slot.counters);
    step1.setArg(a++, slot.first_stage_rejected);
    step1.setArg(a++, slot.group_levels);
    launch("step1_scan", step1, round_up(g.positions, r.group_size), r.group_size);

    /* Persistent launches for the list steps: enough groups to fill the
     * device; each loops over a list whose length only the device knows. */
    const size_t compute_units = std::max(1u, selected.info.compute_units);
    const size_t list_groups = compute_units * 4;
    int in_list = 0;
    auto list_step = [&](cl::Kernel& k, const char* label, int step_index) {
        int i = set_cascade_args(k);
        k.setArg(i++, slot.scan_levels);
        k.setArg(i++, level_count);
        k.setArg(i++, slot.lists[in_list]);
        k.setArg(i++, list_capacity);
        k.setArg(i++, static_cast<cl_int>(kCountLists + step_index - 1));
        k.setArg(i++, slot.lists[1 - in_list]);
        k.setArg(i++, list_capacity);
        k.setArg(i++, static_cast<cl_int>(kCountLists + step_index));
        k.setArg(i++, slot.accepted);
        k.setArg(i++, accepted_capacity);
        k.setArg(i++, slot.counters);
        k.setArg(i++, slot.first_stage_rejected);
        launch(label, k, list_groups * r.group_size, r.group_size);
        in_list = 1 - in_list;
    };
    int step_index = 1;
    for (int i = 0; i < r.step2_repeats; ++i)
        list_step(slot.step2, "step2_reduce", step_index++);

    cl::Kernel& step4 = slot.step4;
    a = set_cascade_args(step4);
    step4.setArg(a++, slot.scan_levels);
    step4.setArg(a++, level_count);
    step4.setArg(a++, slot.lists[in_list]);
    step4.setArg(a++, list_capacity);
    step4.setArg(a++, static_cast<cl_int>(kCountLists + step_index - 1));
    step4.setArg(a++, slot.accepted);
    step4.setArg(a++, accepted_capacity);
    step4.setArg(a++, slot.counters);
    step4.setArg(a++, slot.first_stage_rejected);
    launch("step4_finish", step4, compute_units * 8 * r.step4_group_size, r.step4_group_size);

    cl::Kernel& skip = slot.skip;
    skip.setArg(0, slot.scan_levels);
    skip.setArg(1, level_count);
    skip.setArg(2, slot.accepted);
    skip.setArg(3, accepted_capacity);
    skip.setArg(4, slot.counters);
    skip.setArg(5, slot.first_stage_rejected);
    launch("apply_skip_rule", skip, round_up(slot.accepted_capacity, 64), 0);
}

template <typename Transfer>
void Engine::Impl::read_back(Slot& slot, Transfer& transfer)
{
    cl::CommandQueue& q = slot.queue;
    /* Counters and the head of the accepted list come back with the frame;
     * the rest only when there are more accepted windows. */
    slot.host_counters.assign(kCountLists + list_count(), 0);
    slot.host_accepted.resize(std::min<size_t>(slot.accepted_capacity, 4096));
    maybe_inject_fault("map");
    q.enqueueReadBuffer(slot.counters, CL_FALSE, 0, sizeof(cl_uint) * slot.host_counters.size(),
                        slot.host_counters.data(), nullptr, transfer("read counters"));
    q.enqueueReadBuffer(slot.accepted, CL_FALSE, 0, sizeof(AcceptedRecord) * slot.host_accepted.size(),
                        slot.host_accepted.data(), nullptr, &slot.done);
    if (cl::Event* event = transfer("read accepted"))
        *event = slot.done;
    q.flush();
}

FrameResult Engine::Impl::finish(Slot& slot)
{
    FrameResult result;
    result.frame = slot.frame;
    const std::shared_ptr<const Geometry> geometry_ref = slot.geometry;
    if (geometry_ref->scan_levels.empty())
        return result; /* nothing to scan: the image is smaller than the window */
    const Geometry& g = *geometry_ref;
    slot.done.wait();

    /* The accepted list is the only one without a static bound: when it
     * overflowed, enlarge it and run the frame again. Nothing is lost. */
    const size_t accepted_count = slot.host_counters[kCountAccepted];
    if (accepted_count > slot.accepted_capacity) {
        maybe_inject_fault("buffer-create");
        slot.accepted_capacity = round_up(accepted_count + accepted_count / 4, 1024);
        slot.accepted = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(AcceptedRecord) * slot.accepted_capacity);
        ++slot.reruns;
        const int reruns = slot.reruns;
        enqueue(slot);
        slot.reruns = reruns;
        return finish(slot);
    }
    if (accepted_count > slot.host_accepted.size()) {
        const size_t have = slot.host_accepted.size();
        slot.host_accepted.resize(accepted_count);
        slot.queue.enqueueReadBuffer(slot.accepted, CL_TRUE, sizeof(AcceptedRecord) * have,
                                     sizeof(AcceptedRecord) * (accepted_count - have), slot.host_accepted.data() + have);
    }
    slot.host_accepted.resize(accepted_count);

    /* Scan order (level, row, column), as the CPU reference reports them. */
    std::sort(slot.host_accepted.begin(), slot.host_accepted.end(),
              [](const AcceptedRecord& x, const AcceptedRecord& y) { return x.index < y.index; });
    for (const AcceptedRecord& a : slot.host_accepted) {
        if (a.hidden)
            continue;
        const auto it = std::upper_bound(g.scan_levels.begin(), g.scan_levels.end(), a.index,
                                         [](cl_uint index, const ScanLevel& s) { return index < s.first; });
        const size_t scan = static_cast<size_t>(it - g.scan_levels.begin()) - 1;
        const ScanLevel& s = g.scan_levels[scan];
        const int level_index = g.scan_to_level[scan];
        const ScaleLevel& level = g.levels[level_index];
        const int local = static_cast<int>(a.index - s.first);
        RawWindow w;
        w.level = level_index;
        w.x = (local % s.columns) * s.step;
        w.y = (local / s.columns) * s.step;
        w.rect = {static_cast<int>(std::lrint(w.x * level.scale)), static_cast<int>(std::lrint(w.y * level.scale)),
                  level.window_size.width, level.window_size.height};
        w.score = static_cast<float>(static_cast<double>(a.score) / kFixedScale);
        result.windows.push_back(w);
    }
    clip_windows(result.windows, g.image);
    result.detections = group_windows(result.windows, slot.params);

    FrameStats& st = result.stats;
    st.windows = g.positions;
    st.scan = scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction;
    for (int i = 0; !scan_by_rows && i < list_count(); ++i)
        st.candidates_after_step.push_back(slot.host_counters[kCountLists + i]);
    st.weak_evaluated = slot.host_counters[kCountWeakEvaluated];
    st.weak_per_window = g.positions ? static_cast<double>(st.weak_evaluated) / g.positions : 0;
    st.accepted = result.windows.size();
    st.discarded = 0;
    st.reruns = slot.reruns;
    cl_ulong first = std::numeric_limits<cl_ulong>::max(), last = 0;
    auto timed = [](const std::string& name, cl::Event& event) {
        const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
        const cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        return KernelTime{name, static_cast<double>(end - start) * 1e-6, start, end};
    };
    for (auto& [name, event] : slot.kernel_events) {
        st.kernels.push_back(timed(name, event));
        first = std::min<cl_ulong>(first, st.kernels.back().start_ns);
        last = std::max<cl_ulong>(last, st.kernels.back().end_ns);
    }
    for (auto& [name, event] : slot.transfer_events)
        st.transfers.push_back(timed(name, event));
    st.device_milliseconds = last > first ? static_cast<double>(last - first) * 1e-6 : 0;
    return result;
}

uint64_t Engine::submit(const GrayView& image, const DetectParams& params)
{
    Impl& m = *impl_;
    if (!can_submit())
        throw std::logic_error("Engine::submit: max_in_flight frames are already in flight; collect() first");
    const size_t index = m.next_slot;
    Slot& slot = m.slots[index];
    try {
        m.prepare(slot, image, params);
        /* A frame with nothing to scan still takes its turn, so order holds. */
        if (!slot.geometry->scan_levels.empty())
            m.enqueue(slot);
    } catch (const cl::Error& e) {
        throw to_error(e, "submitting a frame");
    }
    slot.busy = true;
    slot.frame = m.next_frame++;
    m.order.push_back(index);
    m.next_slot = (m.next_slot + 1) % m.slots.size();
    return slot.frame;
}

std::optional<FrameResult> Engine::collect()
{
    Impl& m = *impl_;
    if (m.order.empty())
        return std::nullopt;
    Slot& slot = m.slots[m.order.front()];
    m.order.pop_front();
    slot.busy = false;
    try {
        /* Where a lost device shows: waiting for the frame's results. */
        maybe_inject_fault("wait");
        return m.finish(slot);
    } catch (const cl::Error& e) {
        throw to_error(e, "collecting a frame");
    }
}

FrameResult Engine::detect(const GrayView& image, const DetectParams& params)
{
    while (!can_submit())
        collect();
    submit(image, params);
    /* Results of frames submitted earlier are dropped here: detect() is the
     * synchronous interface, not to be mixed with submit(). */
    std::optional<FrameResult> result;
    while (in_flight())
        result = collect();
    return std::move(*result);
}

}  // namespace waldboost::opencl
