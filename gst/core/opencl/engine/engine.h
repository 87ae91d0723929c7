/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The OpenCL detection engine: the pyramid and its integral image built on
 * the device, then the lossless multi-kernel WaldBoost reduction
 * (kernels/waldboost.cl). Results equal the CPU reference's
 * (core/reference/detector.h) window for window.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/model/model.h"
#include "core/opencl/device/device.h"
#include "core/opencl/features/feature_kind.h"
#include "core/opencl/device/program_cache.h"
#include "core/opencl/engine/reduction.h"
#include "core/opencl/engine/shared_device.h"
#include "core/detection/grouping.h"
#include "core/detection/scales.h"
#include "core/detection/types.h"

namespace waldboost::opencl {

class PinnedBlock;

/* How the windows are scanned. The reduction (kernels/waldboost.cl) suits
 * GPUs; CPU devices run a work-group as a loop, and there a row-by-row walk
 * with SIMD over neighbouring windows and OpenCV's early exits is faster
 * (kernels/scan_rows.cl). Both give the same windows. */
enum class ScanMethod {
    Auto, /* rows on CPU devices, the reduction elsewhere */
    Reduction,
    Rows,
};

struct EngineConfig {
    std::string device = "auto"; /* see select_device(); "all-gpus" spreads engines */
    /* Empty: the cached tuned parameters for this device and classifier, else
     * default_reduction() (see tuning_cache.h). */
    std::optional<ReductionParams> reduction;
    int max_in_flight = 2; /* frames submitted and not yet collected */
    /* Bytes the frames in flight may take on the device (0: three quarters
     * of its global memory). When max_in_flight frames of a size do not
     * fit, in_flight_limit() says how many do. */
    uint64_t memory_budget = 0;
    /* OpenCL profiling of every kernel (FrameStats::kernels and
     * device_milliseconds). Off, the stats carry no kernel times, and the
     * driver is free to overlap the frames in flight. */
    bool profiling = true;
    ScanMethod scan = ScanMethod::Auto;
    /* Batched launches (batch_queue.h): this engine's frames go to the
     * device together with those of the other batching engines of the
     * process that share its device, program, classifier and profiling.
     * A frame waits for companions up to batch_wait_ns (0: it goes with
     * those already waiting, never waits for more); with one engine on
     * the queue nothing waits. */
    bool batching = false;
    uint64_t batch_wait_ns = 0;
    /* With batching, frames of more window positions than this (all
     * levels, Geometry::positions) are launched alone, and the engine
     * leaves the queue while its frames are that large: such a frame
     * fills the device by itself, and batching it lost frame rate.
     * 0: the device's default, default_batch_max_windows(), which on a
     * GPU grows with the engines attached to the queue. */
    uint64_t batch_max_windows = 0;
    /* When batch_max_windows is 0 and this is not: the limit is this many
     * positions per engine attached to the queue, on any device (the GPU
     * default's rule, with another rate; for tests). */
    uint64_t batch_windows_per_engine = 0;
    /* With batching, the window positions a batch holds at most, or two
     * of its oldest frame, whichever is more (the first frame always
     * goes). 0: the device's default, default_batch_windows(). */
    uint64_t batch_windows = 0;
    /* The feature kind that packs the classifier and gives the kernels
     * their feature code (feature_kind.h); null: the classifier's own.
     * Tests plug in kinds of their own through it. */
    const FeatureKind* feature_kind = nullptr;
};

/* What an engine got from the other engines of the process on its device
 * (shared_device.h) and what it had to make. */
struct SharingReport {
    bool context_shared = false;    /* another engine made the context */
    bool program_shared = false;    /* another engine built the program */
    bool classifier_shared = false; /* another engine uploaded the classifier */
    long engines_on_device = 0;     /* engines holding this device, this one included */
};

struct KernelTime {
    std::string name;
    double milliseconds = 0;
    /* Start and end on the device's clock (nanoseconds), shared by every
     * queue of the device: frames in flight can be laid on one timeline. */
    uint64_t start_ns = 0, end_ns = 0;
};

struct FrameStats {
    std::vector<KernelTime> kernels;             /* OpenCL profiling, in launch order (empty without) */
    std::vector<KernelTime> transfers;           /* the frame's upload, fills and read-backs, likewise */
    uint64_t windows = 0;                        /* positions scanned */
    ScanMethod scan = ScanMethod::Reduction;     /* Rows or Reduction */
    std::vector<uint64_t> candidates_after_step; /* list lengths after step 1 and each step 2 (reduction only) */
    uint64_t weak_evaluated = 0;
    double weak_per_window = 0;
    uint64_t accepted = 0;  /* windows accepted, before grouping */
    uint64_t discarded = 0; /* candidates lost: always 0 (lossless) */
    uint64_t cut = 0;       /* accepted windows past DetectParams::max_windows, dropped */
    int reruns = 0;         /* frames re-run after a list outgrew its buffer */
    /* Frames launched together with this one (1 without batching). In a
     * batch, weak_evaluated, candidates_after_step, kernels, transfers and
     * device_milliseconds are the whole batch's. */
    int batch_frames = 1;
    double device_milliseconds = 0; /* first kernel start to last kernel end */
};

struct FrameResult {
    uint64_t frame = 0;                /* submission number, from 0 */
    std::vector<RawWindow> windows;    /* accepted windows, as detect_raw() gives them */
    std::vector<Detection> detections; /* grouped with the frame's DetectParams */
    FrameStats stats;
    /* A frame of Engine::submit_areas(): each detection's area (its place
     * in the caller's list), and how many of the areas, from the first,
     * were searched (those past them did not fit the engine's 32-bit
     * indices together). Empty and 0 for a whole frame. */
    std::vector<int> detection_areas;
    size_t areas_searched = 0;
};

/* The engine's OpenCL program: kernels/shared.h and the .cl files in build
 * order, with the feature kind's kernels/<feature>.cl between cascade.cl
 * and the scans that call it (scan_rows.cl only when scanning by rows). */
std::string kernel_program_source(const FeatureKind& kind, bool with_row_scan);

class Engine {
public:
    /* Selects the device, builds the kernels (through the binary cache) and
     * uploads the classifier. Throws Error with an actionable message. */
    Engine(const Classifier& classifier, const EngineConfig& config);
    ~Engine();
    Engine(const Engine&) = delete;
    Engine& operator=(const Engine&) = delete;

    const DeviceInfo& device() const;
    /* The process's state for the engine's device (context, queue on
     * PoCL, programs), for other work on the same device, such as the
     * tracker's template search. */
    std::shared_ptr<SharedDevice> shared_device() const;
    /* The reduction's parameters; unused when scanning by rows. */
    const ReductionParams& reduction() const;
    /* Auto resolved: Rows or Reduction. */
    ScanMethod scan_method() const;
    /* How the kernels were built: from the binary cache or from source
     * (neither when another engine on the device had built them). */
    const BuildReport& build_report() const;
    /* What this engine shares with the other engines of the process on its
     * device (shared_device.h): the context, the program, the classifier. */
    SharingReport sharing() const;
    /* How long the device ran kernels of this process's engines on it (the
     * union of their intervals, shared_device.h's BusyTime), since the
     * first engine still holding the device was made. Frames count when
     * collected, and only with profiling on. */
    uint64_t device_busy_ns() const;
    /* The same counter, to read later without holding the engine or the
     * device: a weak reference stays safe after both are gone. */
    std::weak_ptr<const BusyTime> device_busy_counter() const;

    /* Synchronous: submit, then collect. */
    FrameResult detect(const GrayView& image, const DetectParams& params);

    /* Asynchronous: copies the frame, enqueues its upload and every kernel
     * and returns at once. Frames leave collect() in submission order; while
     * frame n is detected, frame n + 1 is uploaded on its own queue. Throws
     * std::logic_error when max_in_flight frames are already in flight. */
    uint64_t submit(const GrayView& image, const DetectParams& params);
    /* Asynchronous, as submit(): each of `areas` (rectangles of `image`,
     * clipped to it) searched as an image of its own, as detect_in_area()
     * (core/parts/nested.h) searches it on the CPU: a window never reaches
     * outside its area, and each area's windows are grouped apart. The
     * areas go to the device as one set of launches (the batch layout,
     * geometry.h), however many there are. The result's windows and
     * detections are in the image's pixels, area after area. At most
     * kMaxAreas areas (Error, BadParameter); an area smaller than the
     * window gives nothing. For detection inside the boxes of another
     * detector: one set of launches a frame, not one per box. */
    static constexpr size_t kMaxAreas = 256;
    uint64_t submit_areas(const GrayView& image, const std::vector<Rect>& areas, const DetectParams& params);
    size_t in_flight() const;
    bool can_submit() const;
    /* How many frames of the size submitted last may be in flight: the
     * configured max_in_flight, or fewer when that many do not fit the
     * memory budget or an allocation for one more failed. Callers that keep
     * at most this many in flight never wait for memory; submit() still
     * takes up to max_in_flight. */
    size_t in_flight_limit() const;
    /* True when in_flight_limit() is below max_in_flight because an
     * allocation failed (the device refused memory), not because of the
     * budget; a new frame size tries max_in_flight again. */
    bool in_flight_limited_by_failure() const;
    /* The memory one frame in flight of the size submitted last takes
     * (device buffers and the host staging copy; 0 before the first). */
    uint64_t frame_memory_bytes() const;

    /* Host memory the device reads directly (pinned_memory.h). A
     * frame submitted from inside such a block (stride equal to its width)
     * is uploaded from there, not copied: the caller keeps it unchanged
     * until the frame is collected. */
    std::shared_ptr<PinnedBlock> allocate_pinned(size_t bytes) const;

    /* The oldest frame in flight, waiting for it; nullopt when none is. */
    std::optional<FrameResult> collect();

    /* Waits until the oldest frame in flight is done on the device (or
     * failed: collect() then reports it), so that collect() returns at
     * once.
     *
     * Threads: one thread may submit() while another waits and collects
     * (wait_for_oldest(), collect()): a streaming thread copying the next
     * frame while a worker reads the last one's results. can_submit(),
     * in_flight(), in_flight_limit() and frame_memory_bytes() may be called
     * from either. Everything else, and two submitters or two collectors,
     * needs the caller's serialisation. */
    void wait_for_oldest() const;

    /* For a stop: the frames in flight end early where their kernels read
     * the stop flag (stop_flag.h): the row scan between steps of 16
     * windows, and with a classifier costly enough (STOP_CHECKS,
     * kernels/waldboost.cl) the reduction, on any device, and the row scan
     * every 16 weak classifiers of a window. A stop then does not wait for a
     * frame a hostile classifier makes last minutes. Their results, and
     * those of any frame submitted later, are incomplete: drop them, and the
     * engine with them. Such classifiers are never batched with other
     * engines' frames, whose launches no one engine may end. May be
     * called from any thread. */
    void abandon_frames();

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace waldboost::opencl
