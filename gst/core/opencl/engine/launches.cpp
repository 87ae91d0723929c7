/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/launches.h"

#include <algorithm>

#include "core/opencl/device/device.h"

namespace waldboost::opencl {

namespace {

/* Groups per core of steps 2 and 4 on CPU devices. */
constexpr int kStep2CpuGroups = 4;
constexpr int kStep4CpuGroups = 8;

/* Work-groups of a persistent list step (steps 2 and 4). GPUs get as many
 * per compute unit as keep 2,048 work-items resident (an NVIDIA SM's
 * limit; AMD's CU holds 2,560): the candidates' reads wait on memory, and
 * only more resident groups hide that (docs/history.md, round 10). CPU
 * devices run a group as a loop: a few per core. */
size_t list_step_groups(const EnginePlan& plan, int cpu_groups, int group_size)
{
    const size_t units = std::max<size_t>(1, plan.compute_units);
    if (plan.device_is_cpu)
        return units * static_cast<size_t>(cpu_groups);
    constexpr size_t kResidentWorkItems = 2048;
    return units * std::max<size_t>(1, kResidentWorkItems / static_cast<size_t>(group_size));
}

}  // namespace

uint64_t step4_wave(const EnginePlan& plan)
{
    return list_step_groups(plan, kStep4CpuGroups, plan.reduction.step4_group_size);
}

namespace {

/* One frame's launches on its slot's queue, with their events kept when
 * profiling. */
class FrameLaunches {
public:
    FrameLaunches(FrameSlot& slot, const EnginePlan& plan, const DeviceClassifier& classifier)
        : slot_(slot), plan_(plan), classifier_(classifier), g_(*slot.geometry)
    {
        slot_.kernel_events.clear();
        slot_.transfer_events.clear();
    }

    void run()
    {
        upload();
        if (plan_.rows_layout)
            rows_integral();
        else
            band_integral();
        if (plan_.tilted)
            tilted_integral();
        /* The frame is read: the host may have its staging again. */
        if (slot_.reads_staging(plan_))
            map_staging();
        if (plan_.scan_by_rows)
            row_scan();
        else
            reduction();
        read_back();
    }

private:
    FrameSlot& slot_;
    const EnginePlan& plan_;
    const DeviceClassifier& classifier_;
    const Geometry& g_;

    /* The event of a transfer, when profiling. */
    cl::Event* transfer(const char* name)
    {
        if (!plan_.profiling)
            return nullptr;
        slot_.transfer_events.emplace_back(name, cl::Event());
        return &slot_.transfer_events.back().second;
    }

    void launch(BoundKernel& kernel, const cl::NDRange& global, const cl::NDRange& local)
    {
        maybe_inject_fault("enqueue");
        cl::Kernel& ready = kernel.ready();
        cl::Event event;
        slot_.queue.enqueueNDRangeKernel(ready, cl::NullRange, global, local, nullptr,
                                         plan_.profiling ? &event : nullptr);
        if (plan_.profiling)
            slot_.kernel_events.emplace_back(std::string(kernel.name()), event);
    }

    void launch(BoundKernel& kernel, size_t global, size_t local)
    {
        launch(kernel, cl::NDRange(global), local ? cl::NDRange(local) : cl::NullRange);
    }

    /* The classifier and the integral image, as every scan kernel takes them. */
    BoundKernel& cascade_args(BoundKernel& k)
    {
        return k.set("integral", slot_.integral)
            .set("pitch", static_cast<cl_int>(g_.integral_pitch))
            .set("features", classifier_.features)
            .set("responses", classifier_.responses)
            .set("thresholds", classifier_.thresholds)
            .set("resets", classifier_.resets)
            /* Kernels of a feature that reads no squared or tilted integral
             * never touch those buffers: any buffer will do. */
            .set("squares", plan_.squares ? slot_.squares : slot_.integral)
            .set("tilted", plan_.tilted ? slot_.tilted : slot_.integral)
            .set("nodes", classifier_.nodes)
            .set("final_threshold", static_cast<cl_long>(slot_.final_threshold))
            .set("levels", slot_.scan_levels)
            .set("level_count", static_cast<cl_int>(g_.scan_levels.size()))
            .set("accepted", slot_.accepted)
            .set("accepted_capacity", static_cast<cl_uint>(slot_.accepted_capacity))
            .set("counters", slot_.counters)
            .set("first_stage_rejected", slot_.first_stage_rejected)
            /* Read only where the plan says: else any buffer will do. */
            .set("stop", plan_.reads_stop_flag() ? slot_.stop : slot_.counters);
    }

    void upload()
    {
        cl::CommandQueue& q = slot_.queue;
        maybe_inject_fault("enqueue");
        /* On a CPU device the upload is the unmap: the kernels read the
         * staging buffer in place. */
        if (slot_.reads_staging(plan_)) {
            q.enqueueUnmapMemObject(slot_.staging, slot_.staging_data, nullptr, transfer("upload"));
            slot_.staging_mapped = false;
        } else if (slot_.uploads.empty()) {
            q.enqueueWriteBuffer(slot_.source, CL_FALSE, 0, slot_.frame_bytes,
                                 slot_.upload_from ? slot_.upload_from : slot_.staging_data, nullptr,
                                 transfer("upload"));
        }
        /* A batch: each frame from its engine's staging copy into its rows
         * of the source buffer. */
        for (const FrameSlot::Upload& u : slot_.uploads) {
            const size_t width = static_cast<size_t>(u.width), height = static_cast<size_t>(u.height);
            if (u.width == u.pitch)
                q.enqueueWriteBuffer(slot_.source, CL_FALSE, u.offset, width * height, u.pixels, nullptr,
                                     transfer("upload"));
            else
                q.enqueueWriteBufferRect(slot_.source, CL_FALSE, {u.offset, 0, 0}, {0, 0, 0}, {width, height, 1},
                                         static_cast<size_t>(u.pitch), 0, width, 0, u.pixels, nullptr,
                                         transfer("upload"));
        }
        q.enqueueFillBuffer(slot_.counters, cl_uint{0}, 0, sizeof(cl_uint) * kCounterCount, nullptr,
                            transfer("fill counters"));
        if (!plan_.scan_by_rows)
            q.enqueueFillBuffer(slot_.first_stage_rejected, cl_uchar{0}, 0, g_.positions, nullptr,
                                transfer("fill first_stage_rejected"));
    }

    /* CPU layout: the pyramid into a canvas, a row per work-item, then the
     * integral image of the canvas (and with squares the squared one) over bands
     * of rows: the bands' column sums, their prefix sums down the columns,
     * then each band's rows (kernels/pyramid.cl). */
    void rows_integral()
    {
        const cl_int width = static_cast<cl_int>(g_.canvas_width);
        const cl_int height = static_cast<cl_int>(g_.canvas_height);
        const cl_int integral_pitch = static_cast<cl_int>(g_.integral_pitch);
        slot_.pyramid.set("src", slot_.frame_source(plan_))
            .set("src_pitch", static_cast<cl_int>(g_.image.width))
            .set("canvas", slot_.canvas)
            .set("canvas_pitch", width)
            .set("levels", slot_.resize_levels)
            .set("level_count", static_cast<cl_int>(g_.resize_levels.size()))
            .set("total", g_.pyramid_rows)
            .set("taps", slot_.taps);
        launch(slot_.pyramid, round_up(g_.pyramid_rows, 16), 16);

        const size_t bands = static_cast<size_t>(rows_band_count(g_));
        const cl_int band_pitch = rows_band_pitch(g_, plan_.squares);
        slot_.band_column_sums.set("canvas", slot_.canvas)
            .set("width", width)
            .set("height", height)
            .set("band_sums", slot_.band_totals)
            .set("band_pitch", band_pitch)
            .set("squares", cl_int{plan_.squares});
        launch(slot_.band_column_sums, bands, 1);

        slot_.column_strips.set("integral", slot_.band_totals)
            .set("width", band_pitch - 1)
            .set("height", static_cast<cl_int>(bands))
            .set("integral_pitch", band_pitch);
        launch(slot_.column_strips, round_up(static_cast<size_t>(band_pitch + 14) / 16, 4), 4);

        /* Without squares the kernel takes a squares buffer too, and never reads it. */
        slot_.band_rows.set("canvas", slot_.canvas)
            .set("width", width)
            .set("height", height)
            .set("band_sums", slot_.band_totals)
            .set("band_pitch", band_pitch)
            .set("integral", slot_.integral)
            .set("squares", plan_.squares ? slot_.squares : slot_.integral)
            .set("integral_pitch", integral_pitch)
            .set("with_squares", cl_int{plan_.squares});
        launch(slot_.band_rows, bands, 1);
    }

    /* GPU layout: the integral image straight from the source frame in three
     * launches; the pyramid is never stored (kernels/pyramid.cl). */
    void band_integral()
    {
        const cl_int width = static_cast<cl_int>(g_.canvas_width);
        const cl_int height = static_cast<cl_int>(g_.canvas_height);
        const cl_int band_count = (height + INTEGRAL_BAND - 1) / INTEGRAL_BAND;
        const cl_int pitch = static_cast<cl_int>(canvas_pitch(g_, true));
        slot_.band_sums.set("src", slot_.frame_source(plan_))
            .set("src_pitch", static_cast<cl_int>(g_.image.width))
            .set("levels", slot_.resize_levels)
            .set("level_map", slot_.level_map)
            .set("row_shelf", slot_.row_shelf)
            .set("taps", slot_.taps)
            .set("width", width)
            .set("height", height)
            .set("canvas", slot_.canvas)
            .set("canvas_pitch", pitch)
            .set("band_sums", slot_.band_totals);
        launch(slot_.band_sums, cl::NDRange(round_up((g_.canvas_width + 3) / 4, 64), band_count), cl::NDRange(64, 1));

        if (plan_.squares) {
            /* The band sums of squares, from the canvas pass 1 has written. */
            slot_.square_band_sums.set("canvas", slot_.canvas)
                .set("canvas_pitch", pitch)
                .set("width", width)
                .set("height", height)
                .set("band_sums", slot_.square_band_totals);
            launch(slot_.square_band_sums, cl::NDRange(round_up(g_.canvas_width, 64), band_count), cl::NDRange(64, 1));
        }
        /* Passes 2 and 3, then with squares again over them. */
        for (const bool squared : {false, true}) {
            if (squared && !plan_.squares)
                break;
            const cl::Buffer& totals = squared ? slot_.square_band_totals : slot_.band_totals;
            slot_.band_prefix.set("band_sums", totals).set("width", width).set("bands", band_count);
            launch(slot_.band_prefix, (g_.canvas_width + 31) / 32 * INTEGRAL_GROUP, INTEGRAL_GROUP);

            slot_.bands.set("canvas", slot_.canvas)
                .set("canvas_pitch", pitch)
                .set("width", width)
                .set("height", height)
                .set("band_offsets", totals)
                .set("row_widths", slot_.row_widths)
                .set("integral", squared ? slot_.squares : slot_.integral)
                .set("integral_origin", static_cast<cl_int>(g_.integral_origin))
                .set("integral_pitch", static_cast<cl_int>(g_.integral_pitch))
                .set("squared", cl_int{squared});
            launch(slot_.bands, static_cast<size_t>(band_count) * INTEGRAL_GROUP, INTEGRAL_GROUP);
        }
    }

    /* Tilted features: OpenCV's tilted integral of the canvas, from the
     * integral image (kernels/pyramid.cl): a work-item per diagonal, on CPU
     * devices per 16 neighbouring diagonals. */
    void tilted_integral()
    {
        const size_t all = g_.canvas_width + g_.canvas_height;
        const size_t diagonals = plan_.rows_layout ? (all + TILTED_LANES - 1) / TILTED_LANES : all;
        /* A few hundred work-items on CPU devices: small groups keep the
         * cores evenly busy. */
        const size_t group = plan_.rows_layout ? 4 : 64;
        for (BoundKernel* k : {&slot_.tilted_rising, &slot_.tilted_falling}) {
            k->set("integral", slot_.integral)
                .set("tilted", slot_.tilted)
                .set("origin", static_cast<cl_int>(g_.integral_origin))
                .set("pitch", static_cast<cl_int>(g_.integral_pitch))
                .set("width", static_cast<cl_int>(g_.canvas_width))
                .set("height", static_cast<cl_int>(g_.canvas_height));
            launch(*k, round_up(diagonals, group), group);
        }
    }

    void row_scan()
    {
        cascade_args(slot_.scan_rows).set("total_rows", g_.scan_rows);
        launch(slot_.scan_rows, round_up(g_.scan_rows, SCAN_ROWS_GROUP), SCAN_ROWS_GROUP);
    }

    void reduction()
    {
        const ReductionParams& r = plan_.reduction;
        const cl_uint list_capacity = static_cast<cl_uint>(slot_.list_capacity);

        cascade_args(slot_.step1)
            .set("total", g_.positions)
            .set("out", slot_.lists[0])
            .set("out_capacity", list_capacity)
            .set("out_counter", static_cast<cl_int>(COUNT_LISTS))
            .set("group_levels", slot_.group_levels);
        launch(slot_.step1, round_up(g_.positions, r.group_size), r.group_size);

        /* Persistent launches for the list steps: enough groups to fill the
         * device; each loops over a list whose length only the device knows.
         * List i's length is counter COUNT_LISTS + i. */
        int in_list = 0, counter = COUNT_LISTS;
        for (int i = 0; i < slot_.step2_launches; ++i, ++counter, in_list = 1 - in_list) {
            cascade_args(slot_.step2)
                .set("in", slot_.lists[in_list])
                .set("in_capacity", list_capacity)
                .set("in_counter", static_cast<cl_int>(counter))
                .set("out", slot_.lists[1 - in_list])
                .set("out_capacity", list_capacity)
                .set("out_counter", static_cast<cl_int>(counter + 1));
            launch(slot_.step2, list_step_groups(plan_, kStep2CpuGroups, r.group_size) * r.group_size, r.group_size);
        }

        cascade_args(slot_.step4)
            .set("in", slot_.lists[in_list])
            .set("in_capacity", list_capacity)
            .set("in_counter", static_cast<cl_int>(counter));
        launch(slot_.step4, step4_wave(plan_) * r.step4_group_size, r.step4_group_size);

        slot_.skip.set("levels", slot_.scan_levels)
            .set("level_count", static_cast<cl_int>(g_.scan_levels.size()))
            .set("accepted", slot_.accepted)
            .set("accepted_capacity", static_cast<cl_uint>(slot_.accepted_capacity))
            .set("counters", slot_.counters)
            .set("first_stage_rejected", slot_.first_stage_rejected);
        launch(slot_.skip, round_up(slot_.accepted_capacity, 64), 0);
    }

    /* Non-blocking: the next prepare() of this slot waits for it (the
     * frame's read-backs come after it on the in-order queue anyway). */
    void map_staging()
    {
        maybe_inject_fault("map");
        slot_.staging_data =
            static_cast<uint8_t*>(slot_.queue.enqueueMapBuffer(slot_.staging, CL_FALSE, CL_MAP_WRITE_INVALIDATE_REGION,
                                                               0, slot_.staging_capacity, nullptr, &slot_.staging_map));
        slot_.staging_mapped = true;
        if (cl::Event* event = transfer("map staging"))
            *event = slot_.staging_map;
    }

    /* Counters and the head of the accepted list come back with the frame;
     * the rest only when there are more accepted windows. */
    void read_back()
    {
        cl::CommandQueue& q = slot_.queue;
        slot_.host_counters.assign(kCounterCount, 0);
        slot_.host_accepted.resize(std::min<size_t>(slot_.accepted_capacity, 4096));
        maybe_inject_fault("map");
        q.enqueueReadBuffer(slot_.counters, CL_FALSE, 0, sizeof(cl_uint) * slot_.host_counters.size(),
                            slot_.host_counters.data(), nullptr, transfer("read counters"));
        q.enqueueReadBuffer(slot_.accepted, CL_FALSE, 0, sizeof(shared::Accepted) * slot_.host_accepted.size(),
                            slot_.host_accepted.data(), nullptr, &slot_.done);
        if (cl::Event* event = transfer("read accepted"))
            *event = slot_.done;
        q.flush();
    }
};

}  // namespace

void enqueue_frame(FrameSlot& slot, const EnginePlan& plan, const DeviceClassifier& classifier)
{
    FrameLaunches(slot, plan, classifier).run();
}

}  // namespace waldboost::opencl
