/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/frame_slot.h"

#include <algorithm>
#include <cstring>
#include <system_error>
#include <thread>

#include "core/opencl/device/device.h"
#include "core/opencl/device/environment.h"
#include "core/opencl/engine/pinned_memory.h"
#include "core/opencl/engine/queue_waits.h"

namespace waldboost::opencl {

FrameSlot::FrameSlot(cl::CommandQueue slot_queue, const cl::Program& program, const EnginePlan& plan)
    : queue(std::move(slot_queue))
{
    if (plan.rows_layout) {
        pyramid = BoundKernel(program, "build_pyramid");
        band_column_sums = BoundKernel(program, "integral_band_column_sums");
        band_rows = BoundKernel(program, "integral_band_rows");
        column_strips = BoundKernel(program, "integral_column_strips");
    } else {
        band_sums = BoundKernel(program, "integral_band_sums");
        band_prefix = BoundKernel(program, "integral_band_prefix");
        bands = BoundKernel(program, "integral_bands");
        if (plan.squares)
            square_band_sums = BoundKernel(program, "square_band_sums");
    }
    if (plan.tilted) {
        tilted_rising = BoundKernel(program, "tilted_rising");
        tilted_falling = BoundKernel(program, "tilted_falling");
    }
    if (plan.scan_by_rows) {
        scan_rows = BoundKernel(program, "scan_rows");
    } else {
        step1 = BoundKernel(program, "step1_scan");
        step2 = BoundKernel(program, "step2_reduce");
        step4 = BoundKernel(program, "step4_finish");
        skip = BoundKernel(program, "apply_skip_rule");
    }
}

FrameSlot::~FrameSlot()
{
    /* Let this slot's queued work finish before its buffers go away. */
    try {
        if (queue()) {
            wait_for_enqueued(queue);
            unmap_staging();
        }
    } catch (const cl::Error&) {
    }
}

void FrameSlot::unmap_staging()
{
    if (staging_mapped && staging())
        unmap_and_wait(queue, staging, staging_data);
    staging_data = nullptr;
    staging_mapped = false;
    staging_map = cl::Event();
    staging_capacity = 0;
}

void FrameSlot::own_staging()
{
    if (!staging_mapped) {
        staging_data = static_cast<uint8_t*>(map_and_wait(queue, staging, CL_MAP_WRITE, 0, staging_capacity));
        staging_mapped = true;
    } else if (staging_map()) {
        staging_map.wait();
    }
    staging_map = cl::Event();
}

/* Host-allocated staging, mapped (frame_slot.h), grown to frame_bytes. */
void FrameSlot::make_staging(const cl::Context& context, const EnginePlan& plan)
{
    if (frame_bytes <= staging_capacity) {
        own_staging();
        return;
    }
    unmap_staging();
    const size_t capacity = std::max<size_t>(frame_bytes, 1);
    /* Read-only for the kernels that read it in place on CPU devices. */
    const cl_mem_flags access = plan.device_is_cpu ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
    staging = cl::Buffer(context, access | CL_MEM_ALLOC_HOST_PTR, capacity);
    staging_capacity = capacity;
    own_staging();
}

/* Runs `allocate` (the slot's memory for a new frame), marking the slot
 * when it fails, then gives the frame to the slot: the caller's memory
 * itself when it is pinned and a GPU reads it (no copy), else a copy in the
 * staging memory. */
template <typename Allocate>
void FrameSlot::take_frame(const cl::Context& context, const EnginePlan& plan, const GrayView& image,
                           Allocate&& allocate)
{
    frame_bytes = static_cast<size_t>(image.width) * static_cast<size_t>(image.height);
    allocation_failed = false;
    try {
        allocate();
    } catch (const cl::Error&) {
        allocation_failed = true;
        throw;
    }
    upload_from = nullptr;
    if (!plan.device_is_cpu && image.stride == static_cast<size_t>(image.width) &&
        find_pinned(context, image.data, frame_bytes))
        upload_from = image.data;
    else
        copy_frame(staging_data, image);
}

void FrameSlot::prepare(const cl::Context& context, const EnginePlan& plan,
                        std::shared_ptr<const Geometry> frame_geometry, const GrayView& image, bool reuse_larger)
{
    geometry = std::move(frame_geometry);
    uploads.clear();
    take_frame(context, plan, image, [&] {
        const bool new_staging = frame_bytes > staging_capacity;
        const bool new_buffers = !geometry->scan_levels.empty() && buffers_for != geometry;
        /* One fault point per frame that allocates, on every kind of device. */
        if (new_buffers || new_staging)
            maybe_inject_fault("buffer-create");
        make_staging(context, plan);
        if (new_buffers && !(reuse_larger && refit_buffers(context, plan, false))) {
            /* Frees the old size's buffers before making the new ones. */
            release_buffers();
            size_buffers(context, plan, false);
        }
    });
}

void FrameSlot::prepare_staging(const cl::Context& context, const EnginePlan& plan,
                                std::shared_ptr<const Geometry> frame_geometry, const GrayView& image)
{
    geometry = std::move(frame_geometry);
    take_frame(context, plan, image, [&] {
        if (frame_bytes > staging_capacity)
            maybe_inject_fault("buffer-create");
        make_staging(context, plan);
    });
}

void FrameSlot::prepare_batch(const cl::Context& context, const EnginePlan& plan,
                              std::shared_ptr<const Geometry> layout, std::shared_ptr<const Geometry> launch,
                              std::vector<Upload> frames)
{
    uploads = std::move(frames);
    frame_bytes = 0;
    if (buffers_for != layout) {
        maybe_inject_fault("buffer-create");
        geometry = std::move(layout);
        if (!refit_buffers(context, plan, true)) {
            release_buffers();
            size_buffers(context, plan, true);
        }
    }
    geometry = std::move(launch);
}

size_t SlotSizes::total_bytes() const
{
    return frame_copies * frame + canvas + band_totals + integral + extra_integrals +
           2 * sizeof(shared::Candidate) * list_capacity + sizeof(shared::Accepted) * accepted_capacity +
           first_stage_rejected + tables;
}

SlotSizes slot_sizes(const Geometry& g, const EnginePlan& plan)
{
    const ReductionParams& r = plan.reduction;
    SlotSizes s;
    s.frame = static_cast<size_t>(g.image.width) * static_cast<size_t>(g.image.height);
    s.frame_copies = plan.device_is_cpu ? 1 : 2;
    s.canvas = static_cast<size_t>(canvas_pitch(g, plan.band_layout())) * g.canvas_height;
    s.integral = plan.integral_value_bytes() * integral_buffer_values(g);
    if (plan.band_layout()) {
        const size_t band_count = (g.canvas_height + INTEGRAL_BAND - 1) / INTEGRAL_BAND;
        s.band_totals = sizeof(cl_uint) * band_count * g.canvas_width;
        if (plan.squares) /* and as many for the squares */
            s.extra_integrals = s.band_totals;
    } else {
        /* Row 0 and then a row per band, with the squares' sums too. */
        s.band_totals = sizeof(cl_uint) * (rows_band_count(g) + 1) * rows_band_pitch(g, plan.squares);
    }
    s.extra_integrals += s.integral * ((plan.squares ? 1 : 0) + (plan.tilted ? 1 : 0));
    /* Each step keeps at most group / divisor windows of every group, so
     * this bounds every list: no list can overflow. */
    const size_t groups = (g.positions + r.group_size - 1) / r.group_size;
    s.list_capacity = plan.scan_by_rows ? 1 : std::max<size_t>(1, groups * (r.group_size / r.step1_divisor));
    s.accepted_capacity = std::max<size_t>(1024, g.positions / 256);
    /* The row scan applies the skip rule itself and never touches it. */
    s.first_stage_rejected = plan.scan_by_rows ? 1 : g.positions;
    auto bytes = [](const auto& table) {
        return sizeof(table[0]) * table.size();
    };
    s.tables = bytes(g.resize_levels) + bytes(g.scan_levels) + bytes(g.taps) + bytes(g.row_shelf) + bytes(g.level_map) +
               bytes(g.row_widths) + sizeof(cl_int) * (plan.scan_by_rows ? 1 : groups);
    return s;
}

/* The geometry's tables, as the kernels read them. */
static std::vector<std::pair<cl::Buffer FrameSlot::*, std::vector<uint8_t>>> tables_of(const Geometry& g,
                                                                                       const EnginePlan& plan)
{
    std::vector<std::pair<cl::Buffer FrameSlot::*, std::vector<uint8_t>>> tables;
    const auto add = [&](cl::Buffer FrameSlot::*buffer, const auto& values) {
        const auto* bytes = reinterpret_cast<const uint8_t*>(values.data());
        tables.emplace_back(buffer, std::vector<uint8_t>(bytes, bytes + sizeof(values[0]) * values.size()));
    };
    add(&FrameSlot::resize_levels, g.resize_levels);
    add(&FrameSlot::scan_levels, g.scan_levels);
    add(&FrameSlot::taps, g.taps);
    if (!plan.rows_layout) {
        add(&FrameSlot::row_shelf, g.row_shelf);
        add(&FrameSlot::level_map, g.level_map);
        /* The tilted integral is made from every column of the integral
         * image, gaps included (kernels/pyramid.cl). */
        add(&FrameSlot::row_widths,
            plan.tilted ? std::vector<cl_int>(g.row_widths.size(), static_cast<cl_int>(g.canvas_width)) : g.row_widths);
    }
    add(&FrameSlot::group_levels,
        plan.scan_by_rows ? std::vector<cl_int>(1, 0) : group_first_levels(g, plan.reduction.group_size));
    return tables;
}

/* The tables of `geometry` into the slot's buffers: written into those
 * large enough (refit_buffers()), made again otherwise. */
void FrameSlot::write_tables(const cl::Context& context, const EnginePlan& plan, bool reuse)
{
    /* Kept until the slot's next frame, by when the writes are done: a
     * blocking write would wait for the frames before it on the queue. */
    written_tables = tables_of(*geometry, plan);
    table_bytes.resize(written_tables.size(), 0);
    for (size_t i = 0; i < written_tables.size(); ++i) {
        const auto& [buffer, bytes] = written_tables[i];
        size_t& capacity = table_bytes[i];
        if (reuse && bytes.size() <= capacity) {
            queue.enqueueWriteBuffer(this->*buffer, CL_FALSE, 0, bytes.size(), bytes.data());
        } else {
            this->*buffer = read_only_buffer(context, bytes);
            capacity = bytes.size();
        }
    }
}

/* Row 0 and column 0 of the integral images stay zero (the kernels never
 * write them), and so do the CPU layout's band sums' and the canvas's gaps
 * (their values cancel out of every block sum, but must not be
 * uninitialised memory). */
void FrameSlot::zero_buffers(const EnginePlan& plan, const SlotSizes& sizes)
{
    if (plan.rows_layout) {
        queue.enqueueFillBuffer(canvas, cl_uchar{0}, 0, sizes.canvas);
        queue.enqueueFillBuffer(band_totals, cl_uint{0}, 0, sizes.band_totals);
    }
    for (cl::Buffer* b : {&integral, &squares, &tilted}) {
        if (!(*b)())
            continue;
        if (plan.integral_bits == 16)
            queue.enqueueFillBuffer(*b, cl_ushort{0}, 0, sizes.integral);
        else
            queue.enqueueFillBuffer(*b, cl_uint{0}, 0, sizes.integral);
    }
}

void FrameSlot::size_buffers(const cl::Context& context, const EnginePlan& plan, bool batch)
{
    const Geometry& g = *geometry;
    const SlotSizes sizes = slot_sizes(g, plan);
    /* A batch gathers its frames in `source`; a single frame on a CPU
     * device is read from its staging buffer. */
    if (batch || !plan.device_is_cpu)
        source = cl::Buffer(context, CL_MEM_READ_ONLY, sizes.frame);
    canvas = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.canvas);
    band_totals = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.band_totals);
    if (!plan.rows_layout && plan.squares)
        square_band_totals = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.band_totals);
    integral = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.integral);
    if (plan.squares)
        squares = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.integral);
    if (plan.tilted)
        tilted = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.integral);
    zero_buffers(plan, sizes);
    list_capacity = sizes.list_capacity;
    for (cl::Buffer& list : lists)
        list = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(shared::Candidate) * list_capacity);
    accepted_capacity = sizes.accepted_capacity;
    accepted = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(shared::Accepted) * accepted_capacity);
    counters = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(cl_uint) * kCounterCount);
    first_stage_rejected = cl::Buffer(context, CL_MEM_READ_WRITE, sizes.first_stage_rejected);
    table_bytes.clear();
    write_tables(context, plan, false);
    made = sizes;
    made_with_source = source() != nullptr;
    buffers_for = geometry;
}

/* The buffers made for a larger geometry serve `geometry` (every one at
 * least as large): its tables are written into them and the zeroed parts
 * zeroed again, instead of making every buffer anew. False when one is too
 * small. */
bool FrameSlot::refit_buffers(const cl::Context& context, const EnginePlan& plan, bool batch)
{
    const SlotSizes sizes = slot_sizes(*geometry, plan);
    const bool with_source = batch || !plan.device_is_cpu;
    if (!buffers_for || with_source != made_with_source || sizes.frame > made.frame || sizes.canvas > made.canvas ||
        sizes.band_totals > made.band_totals || sizes.integral > made.integral ||
        sizes.list_capacity > made.list_capacity || sizes.first_stage_rejected > made.first_stage_rejected)
        return false;
    zero_buffers(plan, sizes);
    list_capacity = sizes.list_capacity;
    if (accepted_capacity < sizes.accepted_capacity)
        grow_accepted(context, sizes.accepted_capacity);
    write_tables(context, plan, true);
    buffers_for = geometry;
    return true;
}

void FrameSlot::release_buffers()
{
    for (cl::Buffer* b : {&resize_levels, &scan_levels, &taps, &row_shelf, &level_map, &row_widths, &group_levels,
                          &source, &canvas, &integral, &band_totals, &lists[0], &lists[1], &accepted, &counters,
                          &first_stage_rejected, &squares, &tilted, &square_band_totals})
        *b = cl::Buffer();
    list_capacity = accepted_capacity = 0;
    table_bytes.clear();
    made = SlotSizes();
    buffers_for.reset();
}

void FrameSlot::grow_accepted(const cl::Context& context, size_t count)
{
    maybe_inject_fault("buffer-create");
    accepted_capacity = round_up(count + count / 4, 1024);
    accepted = cl::Buffer(context, CL_MEM_READ_WRITE, sizeof(shared::Accepted) * accepted_capacity);
}

/* One thread's copy of a 4K frame took about as long as the device's work
 * on it (docs/history.md, "Figures behind the code's choices"), so large
 * frames are copied by a few threads, one band of rows each. */
void copy_frame(uint8_t* dst, const GrayView& image)
{
    const size_t width = static_cast<size_t>(image.width);
    auto copy_rows = [&](int y0, int y1) {
        for (int y = y0; y < y1; ++y)
            std::memcpy(dst + static_cast<size_t>(y) * width, image.row(y), width);
    };
    /* Read once: this runs for every frame. */
    static const int max_threads =
        environment::copy_threads(static_cast<int>(std::clamp(std::thread::hardware_concurrency() / 2, 1u, 4u)));
    constexpr size_t kBytesPerThread = size_t{2} << 20;
    const int threads =
        static_cast<int>(std::min<size_t>(max_threads, std::max<size_t>(1, width * image.height / kBytesPerThread)));
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

}  // namespace waldboost::opencl
