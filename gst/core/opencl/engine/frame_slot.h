/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * One frame in flight: its own command queue, kernel objects and buffers,
 * so that the upload of the next frame overlaps this one's kernels. The
 * engine (engine.cpp) keeps max_in_flight slots and queues frames through
 * them; launches.cpp enqueues a prepared slot's work.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/detection/image.h"
#include "core/detection/types.h"
#include "core/opencl/device/cl.h"
#include "core/opencl/engine/geometry.h"
#include "core/opencl/device/kernel_args.h"
#include "core/opencl/engine/reduction.h"
#include "shared.h"

namespace waldboost::opencl {

/* What the engine decided at set-up; every frame's buffers and launches
 * follow it. */
struct EnginePlan {
    ReductionParams reduction;
    /* CPU layout: the pyramid into a canvas and the integral image a row per
     * work-item (plain loops suit CPU devices); else the GPU's band-parallel
     * integral image straight from the frame. */
    bool rows_layout = false;
    /* Scan by rows (kernels/scan_rows.cl) instead of the reduction. */
    bool scan_by_rows = false;
    /* The kernels read the stop flag while windows run (-D STOP_CHECKS,
     * kernels/waldboost.cl): for classifiers whose windows may cost more
     * than any real cascade's (engine.cpp, kStopCheckNodes). */
    bool stop_checks = false;
    bool device_is_cpu = false;
    /* Bits per integral-image value: 16 where every block sum fits
     * (kernels/common.cl), else 32. */
    int integral_bits = 32;
    /* The integral images the feature kind reads besides the plain one
     * (feature_kind.h): of the squared pixels, and OpenCV's tilted one. */
    bool squares = false;
    bool tilted = false;
    bool profiling = true;
    size_t compute_units = 1;

    bool band_layout() const { return !rows_layout; }
    size_t integral_value_bytes() const { return static_cast<size_t>(integral_bits / 8); }
    /* A kernel reads the stop flag (stop_flag.h): the row scan always, the
     * reduction with the stop checks. */
    bool reads_stop_flag() const { return scan_by_rows || stop_checks; }
};

/* The memory one frame in flight takes: every buffer size_buffers() makes
 * for a geometry, and the staging copy. The engine compares the total with
 * its memory budget to tell how many frames in flight fit. */
struct SlotSizes {
    size_t frame = 0;                /* the staging copy, and again the source buffer on GPUs */
    size_t canvas = 0;               /* the packed pyramid levels */
    size_t band_totals = 0;          /* the integral image's band sums */
    size_t integral = 0;             /* the integral image of the canvas */
    size_t extra_integrals = 0;      /* the squared and tilted ones, and band sums of squares */
    size_t list_capacity = 0;        /* candidates per list (two lists) */
    size_t accepted_capacity = 0;    /* accepted windows before the list grows */
    size_t first_stage_rejected = 0; /* a byte per window position (the reduction) */
    size_t tables = 0;               /* the geometry's level, tap and map tables */
    size_t frame_copies = 2;         /* 1 on CPU devices (no source buffer) */

    size_t total_bytes() const;
};

SlotSizes slot_sizes(const Geometry& g, const EnginePlan& plan);

/* The counter buffer: totals, list lengths, then accepted windows per frame
 * of a batch (kernels/shared.h). */
inline constexpr size_t kCounterCount = COUNT_FRAMES + kMaxBatchMembers;
static_assert(COUNT_FRAMES >= COUNT_LISTS + 17, "one counter per list: 1 + at most 16 step-2 repeats");

struct FrameSlot {
    cl::CommandQueue queue;
    /* Created once per slot: clCreateKernel is not free, and a slot is only
     * ever used by one thread at a time. CPU layout: pyramid,
     * band_column_sums, column_strips, band_rows; GPU layout: band_sums,
     * band_prefix, bands. The
     * reduction: step1, step2, step4, skip; or scan_rows. */
    BoundKernel pyramid, band_column_sums, column_strips, band_rows, band_sums, band_prefix, bands;
    /* With squares: square_band_sums (GPU layout); tilted: tilted_rising, tilted_falling. */
    BoundKernel square_band_sums, tilted_rising, tilted_falling;
    BoundKernel step1, step2, step4, skip, scan_rows;

    std::shared_ptr<const Geometry> geometry;    /* of the frame in the slot */
    std::shared_ptr<const Geometry> buffers_for; /* the buffers below were sized for */
    cl::Buffer resize_levels, scan_levels, taps, row_shelf, level_map, row_widths, group_levels;
    cl::Buffer source, canvas, integral, band_totals, lists[2], accepted, counters, first_stage_rejected;
    /* When the feature kind reads them (else empty): the squared and tilted
     * integral images, with the integral's layout, and the squares' band
     * sums (GPU layout). */
    cl::Buffer squares, tilted, square_band_totals;
    /* The stop flag (stop_flag.h) where a kernel reads it
     * (EnginePlan::reads_stop_flag): the engine's, or the batch queue's,
     * which is never raised. */
    cl::Buffer stop;
    size_t list_capacity = 0;
    size_t accepted_capacity = 0;
    /* Step-2 launches of the frame in the slot: the plan's step2_repeats,
     * or fewer for a short list (step2_launches_for()). */
    int step2_launches = 0;

    /* The frame's tight copy, in host-allocated memory that stays mapped
     * while the host owns it: the only copy the frame takes on the host.
     * On GPUs it is pinned (page-locked), so the upload into `source` is a
     * plain DMA without the driver's own copy (NVIDIA's recommended
     * pattern). On CPU devices the kernels read it in place: a single
     * frame's launches unmap it first and map it again after the last
     * kernel that reads it (staging_map), so there is no `source` and no
     * second copy. */
    cl::Buffer staging;
    uint8_t* staging_data = nullptr; /* valid while staging_mapped */
    /* A frame in pinned memory the caller keeps until collect:
     * uploaded from there by DMA instead of through the staging copy. */
    const uint8_t* upload_from = nullptr;
    bool staging_mapped = false;
    cl::Event staging_map; /* a pending non-blocking map */
    size_t staging_capacity = 0;
    size_t frame_bytes = 0;

    std::vector<cl_uint> host_counters;
    std::vector<shared::Accepted> host_accepted;
    std::vector<std::pair<std::string, cl::Event>> kernel_events;
    std::vector<std::pair<std::string, cl::Event>> transfer_events;
    cl::Event done;

    /* A batch slot (batch_queue.h): the frames to upload into the source
     * buffer, each from its own engine's staging copy. Empty for one
     * frame, which is uploaded from `staging`. */
    struct Upload {
        const uint8_t* pixels = nullptr;
        int width = 0, height = 0;
        size_t offset = 0; /* of its row 0 in the source buffer */
        int pitch = 0;     /* of the source buffer */
    };
    std::vector<Upload> uploads;

    uint64_t frame = 0;
    DetectParams params;
    int64_t final_threshold = 0;
    int reruns = 0;
    /* The last prepare() failed making this slot's memory (not a launch). */
    bool allocation_failed = false;

    /* `queue`: SharedDevice::slot_queue()'s, this slot's own or, on PoCL,
     * the one every slot of the device shares. */
    FrameSlot(cl::CommandQueue queue, const cl::Program& program, const EnginePlan& plan);
    ~FrameSlot();
    FrameSlot(const FrameSlot&) = delete;
    FrameSlot& operator=(const FrameSlot&) = delete;

    /* Copies the frame into the staging memory (the caller's buffer may go
     * away) and sizes the buffers for its geometry; with `reuse_larger`,
     * buffers made for a geometry at least as large serve (the areas of
     * Engine::submit_areas(), whose layout changes every frame). */
    void prepare(const cl::Context& context, const EnginePlan& plan, std::shared_ptr<const Geometry> frame_geometry,
                 const GrayView& image, bool reuse_larger = false);
    /* Only the staging copy, for a frame that a batch will upload: its
     * device buffers are the batch slot's. */
    void prepare_staging(const cl::Context& context, const EnginePlan& plan,
                         std::shared_ptr<const Geometry> frame_geometry, const GrayView& image);
    /* A batch slot: buffers and tables for `layout` (made again only when
     * the layout changes), launches over `launch`, whose tables are a
     * prefix of the layout's. */
    void prepare_batch(const cl::Context& context, const EnginePlan& plan, std::shared_ptr<const Geometry> layout,
                       std::shared_ptr<const Geometry> launch, std::vector<Upload> frames);
    /* A larger accepted list, after it overflowed. */
    void grow_accepted(const cl::Context& context, size_t count);
    /* Gives the frame buffers back (the slot is idle and above the engine's
     * in-flight limit, or its allocation failed); the next prepare() makes
     * them again. */
    void release_buffers();
    bool has_buffers_for(const std::shared_ptr<const Geometry>& g) const { return buffers_for == g; }
    /* The kernels read the frame from the staging buffer itself (a single
     * frame on a CPU device) rather than from `source`. */
    bool reads_staging(const EnginePlan& plan) const { return plan.device_is_cpu && uploads.empty(); }
    /* The buffer the kernels read the frame from. */
    const cl::Buffer& frame_source(const EnginePlan& plan) const { return reads_staging(plan) ? staging : source; }

private:
    /* What size_buffers() made: the buffers' sizes, whether there is a
     * `source`, and each table's bytes (in the plan's order of tables). */
    SlotSizes made;
    bool made_with_source = false;
    std::vector<size_t> table_bytes;
    std::vector<std::pair<cl::Buffer FrameSlot::*, std::vector<uint8_t>>> written_tables;

    void write_tables(const cl::Context& context, const EnginePlan& plan, bool reuse);
    void zero_buffers(const EnginePlan& plan, const SlotSizes& sizes);
    bool refit_buffers(const cl::Context& context, const EnginePlan& plan, bool batch);
    void make_staging(const cl::Context& context, const EnginePlan& plan);
    template <typename Allocate>
    void take_frame(const cl::Context& context, const EnginePlan& plan, const GrayView& image, Allocate&& allocate);
    /* staging_data usable by the host: waits for a pending map, or maps
     * again after launches that failed between unmap and map. */
    void own_staging();
    void size_buffers(const cl::Context& context, const EnginePlan& plan, bool batch);
    void unmap_staging();
};

/* The frame's tight copy; large frames by a few threads. */
void copy_frame(uint8_t* dst, const GrayView& image);

}  // namespace waldboost::opencl
