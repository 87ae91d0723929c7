/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's set-up and its frame queue: frames go through max_in_flight
 * slots (frame_slot.h) in submission order; each is prepared on the host,
 * its launches enqueued (launches.cpp), and collected when its read-back is
 * done. Geometry, classifier packing and the launches live in their own
 * files.
 */
#include "core/opencl/engine/engine.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cmath>
#include <deque>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>
#include <string_view>
#include <variant>
#include <vector>

#include "core/opencl/engine/batch_queue.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/device/environment.h"
#include "core/opencl/engine/frame_slot.h"
#include "core/opencl/engine/geometry.h"
#include "core/opencl/engine/launches.h"
#include "core/opencl/device/program_cache.h"
#include "core/opencl/engine/queue_waits.h"
#include "core/opencl/engine/shared_device.h"
#include "core/opencl/engine/pinned_memory.h"
#include "core/opencl/engine/tuning_cache.h"
#include "core/opencl/engine/stop_flag.h"

namespace waldboost::opencl {

/* Generated at build time from the kernels folder by build-aux/embed.py,
 * and put together in this order. */
extern const std::string_view kSharedKernelHeader;
extern const std::string_view kCommonKernels;
extern const std::string_view kPyramidKernels;
extern const std::string_view kCascadeKernels;
extern const std::string_view kWaldboostKernels;
extern const std::string_view kScanRowsKernels;

namespace {

/* The most node evaluations one window may cost: each weak classifier's
 * longest walk through its tree (one for features without a tree), summed. */
uint64_t worst_window_nodes(const Classifier& classifier)
{
    uint64_t total = 0;
    for (const WeakClassifier& weak : classifier.weak) {
        const auto* tree = std::get_if<HaarTree>(&weak.feature);
        if (!tree || tree->nodes.empty()) {
            ++total;
            continue;
        }
        /* A child node comes after its parent (validate()): one pass back. */
        std::vector<uint64_t> depth(tree->nodes.size(), 1);
        for (size_t i = tree->nodes.size(); i-- > 0;)
            for (const HaarNode::Child& child : {tree->nodes[i].left, tree->nodes[i].right})
                if (!child.leaf)
                    depth[i] = std::max(depth[i], 1 + depth[static_cast<size_t>(child.index)]);
        total += depth[0];
    }
    return total;
}

/* Above this many node evaluations per window the kernels read the stop
 * flag while windows run (STOP_CHECKS). Real cascades stay far below it
 * (haarcascade_frontalface_default: 2,913 stumps), so their kernels are
 * built as before. Below it a frame costs at most 16,384 / 2,913 (about
 * 5.6) times the worst case of that cascade at the same size, which a stop
 * may as well wait for, as it waits for that cascade's frames. */
constexpr uint64_t kStopCheckNodes = 16384;

}  // namespace

struct Engine::Impl {
    Classifier classifier;
    SelectedDevice selected;
    EnginePlan plan;
    std::shared_ptr<SharedDevice> shared; /* context, program and classifier, with other engines */
    SharingReport sharing;
    cl::Context context;
    std::shared_ptr<const cl::Program> program;
    BuildReport build_report;
    PackedClassifier packed;
    std::shared_ptr<const DeviceClassifier> device_classifier;
    std::vector<std::unique_ptr<FrameSlot>> slots;
    /* The stop flag (abandon_frames); null where no kernel reads it
     * (EnginePlan::reads_stop_flag). */
    std::unique_ptr<StopFlag> stop_flag;
    std::deque<size_t> order; /* slots in flight, oldest first */
    /* Guards `order`, `early` and `collecting`: submit() runs in one thread
     * while collect() and wait_for_oldest() run in another. */
    mutable std::mutex order_lock;
    /* The slot collect() is finishing (out of `order`, not yet free), or
     * SIZE_MAX when none is. */
    size_t collecting = SIZE_MAX;
    /* Held by collect() while it finishes a frame, and by submit() when it
     * finishes the oldest frame itself after an allocation failed. */
    std::mutex collect_lock;
    /* Frames finished before collect() asked for them (to free a slot after
     * an allocation failed); older than every frame in `order`. */
    struct Early {
        std::optional<FrameResult> result;
        std::exception_ptr error;
    };
    std::deque<Early> early;
    uint64_t next_frame = 0;
    std::shared_ptr<const Geometry> geometry; /* of the last frame submitted */
    uint64_t memory_budget = 0;
    bool budget_is_default = true;             /* EngineConfig::memory_budget was 0 */
    std::atomic<uint64_t> frame_memory{0};     /* slot_sizes() of geometry */
    std::atomic<size_t> limit{1};              /* in_flight_limit() */
    std::atomic<bool> limit_by_failure{false}; /* in_flight_limited_by_failure() */
    /* Batching (EngineConfig::batching): the queue shared with the other
     * batching engines, and per slot its frame's request there. */
    std::shared_ptr<BatchQueue> batch;
    std::vector<std::shared_ptr<BatchRequest>> requests;
    /* Per slot: its frame goes through the batch queue. An engine alone on
     * its queue launches its own frames: nothing to batch with, and no
     * hand-over to the queue's thread and back. */
    std::vector<bool> batched;
    /* Per slot: the areas of a frame of submit_areas(), null for a whole
     * frame. */
    struct AreaFrame {
        std::shared_ptr<const BatchGeometry> layout; /* null when no area has a window to scan */
        std::vector<Rect> rects;                     /* the areas scanned, clipped to the image */
        std::vector<int> index;                      /* their places in the caller's list */
        size_t searched = 0;                         /* the caller's areas searched, from the first */
    };
    std::vector<std::shared_ptr<const AreaFrame>> area_frames;
    std::chrono::nanoseconds batch_wait{0};
    /* EngineConfig::batch_max_windows; 0: the device's default for the
     * engines attached to the queue, looked up per frame. The engine counts
     * on the queue (joined) only while its frames are no larger. */
    uint64_t batch_max_windows = 0;
    uint64_t batch_windows_per_engine = 0; /* EngineConfig's */
    uint64_t batch_windows = UINT64_MAX;   /* EngineConfig::batch_windows, resolved */
    bool batch_member = false;
    /* EngineConfig::reduction was left to the engine: a whole frame of its
     * own launches gets only the step-2 launches its list needs
     * (step2_launches_for()), judged by the last such frame collected. */
    bool step2_follows_lists = false;
    /* That frame's step-1 list per window position; negative: none yet. */
    std::atomic<double> list_per_position{-1.0};

    void choose_plan(const EngineConfig& config);
    std::string build_options() const;
    void use_geometry(Size size, const DetectParams& params);
    void follow_batch_limit();
    bool slot_busy(size_t slot) const; /* holds order_lock */
    size_t free_slot() const;
    size_t slot_after_allocation_failure(size_t failed);
    void release_idle_slots_above_limit();
    void prepare(size_t index, const GrayView& image, const DetectParams& params);
    void set_final_threshold(FrameSlot& slot, const DetectParams& params) const;
    std::shared_ptr<const AreaFrame> area_frame(const GrayView& image, const std::vector<Rect>& areas,
                                                const DetectParams& params) const;
    void prepare_areas(size_t index, const GrayView& image, const std::shared_ptr<const AreaFrame>& frame,
                       const DetectParams& params);
    FrameResult areas_result(FrameSlot& slot, const AreaFrame& frame, std::vector<shared::Accepted>& accepted,
                             const std::vector<cl_uint>& counters) const;
    void enqueue(size_t index);
    uint64_t queue_frame(size_t index);
    FrameResult finish(size_t index);
    FrameResult finish_batched(size_t index);
    FrameResult result_of(FrameSlot& slot, const Geometry& g, std::vector<shared::Accepted>& accepted,
                          const std::vector<cl_uint>& counters) const;
};

void Engine::Impl::choose_plan(const EngineConfig& config)
{
    const DeviceInfo& device = selected.info;
    plan.profiling = config.profiling;
    plan.compute_units = std::max(1u, device.compute_units);
    plan.device_is_cpu = device.type == "CPU";
    /* The band-parallel integral image needs groups of INTEGRAL_GROUP items. */
    const bool small_groups = device.max_work_group_size < INTEGRAL_GROUP;
    plan.rows_layout = plan.device_is_cpu || small_groups;
    const std::string layout = environment::kernel_layout();
    if (layout == "rows")
        plan.rows_layout = true;
    else if (layout == "bands")
        plan.rows_layout = small_groups;
    plan.reduction = config.reduction ? *config.reduction : preferred_reduction(classifier, device);
    validate(plan.reduction, device);
    plan.scan_by_rows = config.scan == ScanMethod::Rows || (config.scan == ScanMethod::Auto && plan.device_is_cpu);
    step2_follows_lists = !config.reduction && !plan.scan_by_rows;
    plan.stop_checks = worst_window_nodes(classifier) > kStopCheckNodes;
    /* 16-bit integral values halve the bytes every window reads (docs/engine.md),
     * where the feature kind's block sums fit them. Only the GPU layout and
     * the reduction read them; the CPU kernels keep 32 bits. */
    if (!plan.rows_layout && !plan.scan_by_rows && packed.kind->narrow_sums_serve(packed))
        plan.integral_bits = 16;
    const IntegralNeeds needs = packed.kind->integrals(packed);
    plan.squares = needs.squares;
    plan.tilted = needs.tilted;
}

std::string Engine::Impl::build_options() const
{
    std::string options = "-cl-std=CL1.2";
    auto define = [&](const char* name, long value) {
        options += std::string(" -D ") + name + "=" + std::to_string(value);
    };
    options += build_defines(plan.reduction);
    define("WEAK_COUNT", static_cast<long>(packed.weak_count));
    define("FIRST_TEST", packed.first_test);
    options += packed.kind->build_defines(packed);
    define("INTEGRAL_BITS", plan.integral_bits);
    if (plan.rows_layout)
        options += " -D PYRAMID_BY_ROWS";
    if (plan.scan_by_rows)
        options += " -D ROW_SCAN";
    if (plan.stop_checks)
        options += " -D STOP_CHECKS";
    const std::string extra = environment::extra_cl_options();
    if (!extra.empty())
        options += " " + extra;
    return options;
}

std::string kernel_program_source(const FeatureKind& kind, bool with_row_scan)
{
    return kernel_source(kSharedKernelHeader, "shared.h") + "\n" + kernel_source(kCommonKernels, "common.cl") + "\n" +
           kernel_source(kPyramidKernels, "pyramid.cl") + "\n" + kernel_source(kCascadeKernels, "cascade.cl") + "\n" +
           kernel_source(kind.kernel_source(), kind.kernel_file()) + "\n" +
           kernel_source(kWaldboostKernels, "waldboost.cl") +
           (with_row_scan ? "\n" + kernel_source(kScanRowsKernels, "scan_rows.cl") : "");
}

Engine::Engine(const Classifier& classifier, const EngineConfig& config) : impl_(std::make_unique<Impl>())
{
    Impl& m = *impl_;
    validate(classifier, "<classifier>");
    if (config.max_in_flight < 1 || config.max_in_flight > 16)
        throw Error(ErrorKind::BadParameter,
                    "max in flight must be 1 to 16, not " + std::to_string(config.max_in_flight));
    m.classifier = classifier;
    m.packed = pack_classifier(classifier, config.feature_kind);
    /* One device, or ("all-gpus") the one the fewest engines use. */
    const std::vector<SelectedDevice> candidates = select_devices(config.device);
    std::vector<cl::Device> devices;
    for (const SelectedDevice& candidate : candidates)
        devices.push_back(candidate.device);
    size_t chosen = 0;
    try {
        m.shared = SharedDevice::least_used(devices, &chosen, &m.sharing.context_shared);
    } catch (const cl::Error& e) {
        throw to_error(e, "making an OpenCL context on " + candidates[chosen].info.device_name);
    }
    m.selected = candidates[chosen];
    const std::string extension = m.packed.kind->required_extension();
    /* A device problem, not the classifier's: another device may have it
     * (Intel's Xe and Arc GPUs have no fp64), so a fallback list moves on. */
    if (!extension.empty() && m.selected.info.extensions.find(extension) == std::string::npos)
        throw Error(ErrorKind::NoDevice, m.packed.kind->missing_extension_message(m.selected.info.device_name));
    m.choose_plan(config);
    m.memory_budget = config.memory_budget ? config.memory_budget : m.selected.info.global_memory / 4 * 3;
    m.budget_is_default = config.memory_budget == 0;
    m.limit = static_cast<size_t>(config.max_in_flight);
    try {
        m.context = m.shared->context();
        /* One model packed by two kinds makes two device classifiers. */
        const std::string classifier_key =
            std::string(m.packed.kind->name()) + "/" + tuning_key(m.selected.info, classifier);
        m.device_classifier = m.shared->classifier(classifier_key, m.packed, &m.sharing.classifier_shared);
        const std::string source = kernel_program_source(*m.packed.kind, m.plan.scan_by_rows);
        const std::string options = m.build_options();
        m.program = m.shared->program(
            source, options,
            [&] {
                return build_program(m.context, m.selected.device, source, options, &m.build_report);
            },
            &m.sharing.program_shared);
        if (m.sharing.program_shared)
            m.build_report.note = "shared with another engine on this device";
        if (m.plan.reads_stop_flag())
            m.stop_flag = std::make_unique<StopFlag>(m.context, m.selected.device);
        for (int i = 0; i < config.max_in_flight; ++i) {
            m.slots.push_back(std::make_unique<FrameSlot>(m.shared->slot_queue(m.plan.profiling), *m.program, m.plan));
            if (m.stop_flag)
                m.slots.back()->stop = m.stop_flag->buffer();
        }
        m.requests.resize(m.slots.size());
        m.batched.assign(m.slots.size(), false);
        m.area_frames.resize(m.slots.size());
        /* A classifier with stop checks launches its own frames: a batch's
         * launches serve several engines, and one engine's stop may not end
         * the others' frames, so a batched frame would hold its engine's
         * stop. Windows that costly fill a device alone anyway. */
        if (config.batching && !m.plan.stop_checks) {
            /* Pointers name the program and the classifier: the queue holds
             * both, so neither address is reused while it exists. */
            const std::string key = std::to_string(reinterpret_cast<uintptr_t>(m.program.get())) + "/" +
                                    std::to_string(reinterpret_cast<uintptr_t>(m.device_classifier.get())) +
                                    (m.plan.profiling ? "/profiled" : "");
            m.batch = m.shared->batch_queue(key, [&] {
                return std::make_shared<BatchQueue>(*m.shared, m.program, m.device_classifier, m.plan, m.memory_budget,
                                                    2 * config.max_in_flight);
            });
            m.batch->attach();
            m.batch->join();
            m.batch_member = true;
            m.batch_wait = std::chrono::nanoseconds(config.batch_wait_ns);
            m.batch_max_windows = config.batch_max_windows;
            m.batch_windows_per_engine = config.batch_windows_per_engine;
            m.batch_windows = config.batch_windows ? config.batch_windows : default_batch_windows(m.selected.info);
        }
    } catch (const cl::Error& e) {
        throw to_error(e, "setting up the OpenCL engine on " + m.selected.info.device_name);
    }
}

Engine::~Engine()
{
    Impl& m = *impl_;
    if (!m.batch)
        return;
    /* The queue reads the frames from this engine's staging copies. */
    for (const auto& request : m.requests)
        if (request && !m.batch->withdraw(request))
            m.batch->wait(*request);
    if (m.batch_member)
        m.batch->leave();
    m.batch->detach();
}

const DeviceInfo& Engine::device() const { return impl_->selected.info; }

std::shared_ptr<SharedDevice> Engine::shared_device() const { return impl_->shared; }
std::shared_ptr<PinnedBlock> Engine::allocate_pinned(size_t bytes) const
{
    return std::make_shared<PinnedBlock>(impl_->shared, bytes);
}
const ReductionParams& Engine::reduction() const { return impl_->plan.reduction; }
ScanMethod Engine::scan_method() const { return impl_->plan.scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction; }
const BuildReport& Engine::build_report() const { return impl_->build_report; }
SharingReport Engine::sharing() const
{
    SharingReport report = impl_->sharing;
    report.engines_on_device = impl_->shared->users();
    return report;
}
uint64_t Engine::device_busy_ns() const { return impl_->shared->busy().total_ns(); }
std::weak_ptr<const BusyTime> Engine::device_busy_counter() const { return impl_->shared->busy_handle(); }
size_t Engine::in_flight() const
{
    std::lock_guard<std::mutex> guard(impl_->order_lock);
    return impl_->order.size() + impl_->early.size();
}

bool Engine::can_submit() const
{
    std::lock_guard<std::mutex> guard(impl_->order_lock);
    return impl_->order.size() + (impl_->collecting != SIZE_MAX ? 1 : 0) < impl_->slots.size();
}

size_t Engine::in_flight_limit() const { return impl_->limit; }
bool Engine::in_flight_limited_by_failure() const { return impl_->limit_by_failure; }
uint64_t Engine::frame_memory_bytes() const { return impl_->frame_memory; }

/* A new frame size (or scan) decides how many frames in flight fit: each
 * holds its own pyramid, integral image and lists (about 300 MB at 4K on a
 * CPU device), and an embedded box has 1-2 GB in all. */
void Engine::Impl::use_geometry(Size size, const DetectParams& params)
{
    check_max_windows(params); /* a cached geometry below skips make_geometry's check */
    if (geometry && geometry->matches(size, params))
        return;
    auto next = std::make_shared<const Geometry>(make_geometry(size, classifier, params, plan.band_layout()));
    const uint64_t bytes = slot_sizes(*next, plan).total_bytes();
    /* Checked before anything is allocated: PoCL takes a buffer beyond the
     * device's memory from the host's and runs on, where the budget promises
     * an out-of-memory error. The cached geometry stays the last one that
     * fits. */
    if (bytes > memory_budget) {
        const auto mib = [](uint64_t b) {
            return std::to_string((b + (1u << 20) - 1) >> 20) + " MiB";
        };
        throw Error(ErrorKind::OutOfResources,
                    "a " + std::to_string(size.width) + "x" + std::to_string(size.height) + " frame needs " +
                        mib(bytes) + " of device memory (pyramid, integral images and lists), more than the memory " +
                        "budget of " + mib(memory_budget) + " on " + selected.info.device_name +
                        (budget_is_default
                             ? " (three quarters of its " + mib(selected.info.global_memory) + " of global memory)"
                             : std::string()) +
                        "; scale the frames down or use a device with more memory");
    }
    geometry = std::move(next);
    frame_memory = bytes;
    const uint64_t fit = frame_memory ? memory_budget / frame_memory : slots.size();
    limit = static_cast<size_t>(std::clamp<uint64_t>(fit, 1, slots.size()));
    limit_by_failure = false;
    release_idle_slots_above_limit();
    follow_batch_limit();
}

/* Frames above batch_max_windows fill the device alone: the engine leaves
 * the queue while its frames are that large, so that the other engines'
 * frames do not wait for its companions, and joins again when they shrink
 * (or, with the default limit, when more engines attach). */
void Engine::Impl::follow_batch_limit()
{
    if (!batch)
        return;
    const long attached = batch->attached();
    const uint64_t limit = batch_max_windows          ? batch_max_windows
                           : batch_windows_per_engine ? batch_windows_per_engine * static_cast<uint64_t>(attached)
                                                      : default_batch_max_windows(selected.info, attached);
    const bool member = geometry->positions <= limit;
    if (member == batch_member)
        return;
    if (member)
        batch->join();
    else
        batch->leave();
    batch_member = member;
}

/* Busy: in flight, or being finished by collect() in another thread. */
bool Engine::Impl::slot_busy(size_t slot) const
{
    return slot == collecting || std::find(order.begin(), order.end(), slot) != order.end();
}

/* Only submit() reuses an idle slot, so freeing one here races with nothing. */
void Engine::Impl::release_idle_slots_above_limit()
{
    std::lock_guard<std::mutex> guard(order_lock);
    for (size_t i = limit; i < slots.size(); ++i)
        if (!slot_busy(i))
            slots[i]->release_buffers();
}

/* The lowest free slot: frames stay in the first in_flight_limit() slots
 * while the caller keeps to that limit. */
size_t Engine::Impl::free_slot() const
{
    std::lock_guard<std::mutex> guard(order_lock);
    for (size_t i = 0; i < slots.size(); ++i)
        if (!slot_busy(i))
            return i;
    throw std::logic_error("Engine: no free slot");
}

/* An allocation for slot `failed` failed. When other slots already hold
 * buffers for this frame size, the queue shrinks to them instead of
 * failing: the limit drops, and if none of them is free the oldest frame
 * is finished now (collect() returns it first). Returns the slot to use,
 * or slots.size() when nothing smaller would work. */
size_t Engine::Impl::slot_after_allocation_failure(size_t failed)
{
    slots[failed]->release_buffers();
    size_t ready = 0;
    for (const auto& slot : slots)
        ready += slot->has_buffers_for(geometry) ? 1 : 0;
    if (ready == 0)
        return slots.size();
    if (ready < limit) {
        limit = ready;
        limit_by_failure = true;
    }
    /* No collect() may finish a frame meanwhile: the oldest may be finished here. */
    std::lock_guard<std::mutex> collecting_guard(collect_lock);
    size_t oldest = slots.size();
    {
        std::lock_guard<std::mutex> guard(order_lock);
        for (size_t i = 0; i < slots.size(); ++i)
            if (slots[i]->has_buffers_for(geometry) && !slot_busy(i))
                return i;
        if (order.empty())
            return slots.size();
        oldest = order.front();
    }
    Early done;
    try {
        done.result = finish(oldest);
    } catch (const cl::Error& e) {
        done.error = std::make_exception_ptr(to_error(e, "collecting a frame"));
    } catch (...) {
        done.error = std::current_exception();
    }
    std::lock_guard<std::mutex> guard(order_lock);
    order.pop_front();
    early.push_back(std::move(done));
    return oldest;
}

/* Making the slot's buffers failed, or a launch could not get their memory
 * (drivers that allocate at first use). CL_OUT_OF_RESOURCES from a launch
 * is left alone: drivers also report a failing device that way. */
static bool is_memory_shortage(const FrameSlot& slot, const cl::Error& e)
{
    return slot.allocation_failed || e.err() == CL_MEM_OBJECT_ALLOCATION_FAILURE;
}

void Engine::Impl::set_final_threshold(FrameSlot& slot, const DetectParams& params) const
{
    slot.params = params;
    const float final = params.final_threshold.value_or(classifier.final_threshold);
    if (!std::isfinite(final))
        throw Error(ErrorKind::BadParameter, "final threshold " + std::to_string(final) + " is not a finite number");
    slot.final_threshold = packed.fixed_final_threshold(final);
    slot.reruns = 0;
}

void Engine::Impl::prepare(size_t index, const GrayView& image, const DetectParams& params)
{
    FrameSlot& slot = *slots[index];
    area_frames[index].reset();
    set_final_threshold(slot, params);
    follow_batch_limit();
    batched[index] = batch && batch_member && batch->engines() > 1;
    if (batched[index])
        slot.prepare_staging(context, plan, geometry, image);
    else
        slot.prepare(context, plan, geometry, image);
}

/* The areas of submit_areas(), clipped, each a member of one batch layout;
 * those without a window to scan are left out. The members stop at the
 * first that would pass the 32-bit indices (batch_fits()), and the layout
 * must fit the memory budget. */
std::shared_ptr<const Engine::Impl::AreaFrame>
Engine::Impl::area_frame(const GrayView& image, const std::vector<Rect>& areas, const DetectParams& params) const
{
    if (areas.size() > Engine::kMaxAreas)
        throw Error(ErrorKind::BadParameter, "at most " + std::to_string(Engine::kMaxAreas) +
                                                 " areas of a frame are searched together, not " +
                                                 std::to_string(areas.size()));
    auto frame = std::make_shared<AreaFrame>();
    std::vector<std::shared_ptr<const Geometry>> members;
    for (size_t i = 0; i < areas.size(); ++i) {
        const Rect& a = areas[i];
        const int x0 = std::clamp(a.x, 0, image.width), y0 = std::clamp(a.y, 0, image.height);
        const int x1 = std::clamp(a.x + std::max(a.width, 0), x0, image.width);
        const int y1 = std::clamp(a.y + std::max(a.height, 0), y0, image.height);
        if (x1 - x0 >= classifier.window_width && y1 - y0 >= classifier.window_height) {
            auto g = std::make_shared<const Geometry>(
                make_geometry({x1 - x0, y1 - y0}, classifier, params, plan.band_layout()));
            if (!g->scan_levels.empty()) {
                members.push_back(std::move(g));
                if (!batch_fits(members, plan.band_layout())) {
                    members.pop_back();
                    break;
                }
                frame->rects.push_back({x0, y0, x1 - x0, y1 - y0});
                frame->index.push_back(static_cast<int>(i));
            }
        }
        frame->searched = i + 1;
    }
    if (members.empty())
        return frame;
    static std::atomic<uint64_t> next_areas_id{1};
    BatchGeometry layout = combine_geometries(members, plan.band_layout());
    layout.combined.areas_id = next_areas_id++;
    frame->layout = std::make_shared<const BatchGeometry>(std::move(layout));
    const uint64_t bytes = slot_sizes(frame->layout->combined, plan).total_bytes();
    if (bytes > memory_budget)
        throw Error(ErrorKind::OutOfResources, std::to_string(frame->rects.size()) + " areas need " +
                                                   std::to_string((bytes + (1u << 20) - 1) >> 20) +
                                                   " MiB of device memory, more than the memory budget of " +
                                                   std::to_string((memory_budget + (1u << 20) - 1) >> 20) + " MiB on " +
                                                   selected.info.device_name + "; search fewer or smaller areas");
    return frame;
}

/* The areas stacked as the batch layout places them (member m's rows from
 * source_offset[m], at the layout's pitch), prepared as one frame of that
 * size: the launches read it as they read a batch's source. With other
 * engines on the batch queue it goes there as a frame (a layout nested in
 * the batch's), so that the streams' areas share launches as their whole
 * frames do. */
void Engine::Impl::prepare_areas(size_t index, const GrayView& image, const std::shared_ptr<const AreaFrame>& frame,
                                 const DetectParams& params)
{
    FrameSlot& slot = *slots[index];
    area_frames[index] = frame;
    set_final_threshold(slot, params);
    batched[index] = batch && batch_member && batch->engines() > 1;
    if (!frame->layout) {
        slot.geometry = std::make_shared<const Geometry>(); /* nothing to scan */
        return;
    }
    const BatchGeometry& layout = *frame->layout;
    const size_t pitch = static_cast<size_t>(layout.source_pitch);
    std::vector<uint8_t> stacked(pitch * static_cast<size_t>(layout.combined.image.height));
    for (size_t m = 0; m < frame->rects.size(); ++m) {
        const Rect& r = frame->rects[m];
        for (int y = 0; y < r.height; ++y)
            std::copy_n(image.row(r.y + y) + r.x, r.width,
                        stacked.data() + layout.source_offset[m] + static_cast<size_t>(y) * pitch);
    }
    std::shared_ptr<const Geometry> combined(frame->layout, &layout.combined);
    const GrayView view{stacked.data(), layout.combined.image.width, layout.combined.image.height, pitch};
    if (batched[index])
        slot.prepare_staging(context, plan, std::move(combined), view);
    else
        slot.prepare(context, plan, std::move(combined), view, true);
}

/* The prepared frame in slot `index` to the device: its own launches, or a
 * request to the batch queue. A frame with nothing to scan still takes its
 * turn, so order holds. */
void Engine::Impl::enqueue(size_t index)
{
    FrameSlot& slot = *slots[index];
    requests[index].reset();
    if (slot.geometry->scan_levels.empty())
        return;
    slot.step2_launches = plan.reduction.step2_repeats;
    if (!batched[index]) {
        const double per_position = list_per_position.load();
        if (step2_follows_lists && !area_frames[index] && per_position >= 0)
            slot.step2_launches = step2_launches_for(
                plan.reduction, static_cast<uint64_t>(per_position * slot.geometry->positions), step4_wave(plan));
        enqueue_frame(slot, plan, *device_classifier);
        return;
    }
    auto request = std::make_shared<BatchRequest>();
    request->geometry = slot.geometry;
    request->pixels = slot.upload_from ? slot.upload_from : slot.staging_data;
    request->final_threshold = slot.final_threshold;
    request->memory_bytes = area_frames[index] ? slot_sizes(*slot.geometry, plan).total_bytes() : frame_memory.load();
    request->batch_max_positions = std::max<uint64_t>(batch_windows, 2 * uint64_t{slot.geometry->positions});
    request->deadline = std::chrono::steady_clock::now() + batch_wait;
    requests[index] = request;
    batch->submit(request);
}

FrameResult Engine::Impl::finish(size_t index)
{
    FrameSlot& slot = *slots[index];
    if (slot.geometry->scan_levels.empty()) {
        FrameResult result;
        result.frame = slot.frame;
        if (area_frames[index])
            result.areas_searched = area_frames[index]->searched;
        return result; /* nothing to scan: the image is smaller than the window */
    }
    if (requests[index])
        return finish_batched(index);
    const std::shared_ptr<const Geometry> geometry_ref = slot.geometry;
    const Geometry& g = *geometry_ref;
    slot.done.wait();

    /* The accepted list is the only one without a static bound: when it
     * overflowed, enlarge it and run the frame again. Nothing is lost. */
    const size_t accepted_count = slot.host_counters[COUNT_ACCEPTED];
    if (accepted_count > slot.accepted_capacity) {
        slot.grow_accepted(context, accepted_count);
        ++slot.reruns;
        enqueue_frame(slot, plan, *device_classifier);
        return finish(index);
    }
    if (accepted_count > slot.host_accepted.size()) {
        const size_t have = slot.host_accepted.size();
        slot.host_accepted.resize(accepted_count);
        read_and_wait(slot.queue, slot.accepted, sizeof(shared::Accepted) * have,
                      sizeof(shared::Accepted) * (accepted_count - have), slot.host_accepted.data() + have);
    }
    slot.host_accepted.resize(accepted_count);
    if (!area_frames[index] && !plan.scan_by_rows && g.positions)
        list_per_position.store(static_cast<double>(slot.host_counters[COUNT_LISTS]) / g.positions);
    FrameResult result = area_frames[index]
                             ? areas_result(slot, *area_frames[index], slot.host_accepted, slot.host_counters)
                             : result_of(slot, g, slot.host_accepted, slot.host_counters);
    FrameStats& st = result.stats;
    st.reruns = slot.reruns;
    cl_ulong first = std::numeric_limits<cl_ulong>::max(), last = 0;
    auto timed = [](const std::string& name, cl::Event& event) {
        /* The frame's last command is done, so this one is too, but NVIDIA's
         * driver may not have marked it complete yet, and answers
         * CL_PROFILING_INFO_NOT_AVAILABLE until it has (seen with 16 engines
         * in 16 threads on an H200). */
        event.wait();
        const cl_ulong start = event.getProfilingInfo<CL_PROFILING_COMMAND_START>();
        const cl_ulong end = event.getProfilingInfo<CL_PROFILING_COMMAND_END>();
        return KernelTime{name, static_cast<double>(end - start) * 1e-6, start, end};
    };
    std::vector<BusyTime::Interval> busy;
    for (auto& [name, event] : slot.kernel_events) {
        st.kernels.push_back(timed(name, event));
        first = std::min<cl_ulong>(first, st.kernels.back().start_ns);
        last = std::max<cl_ulong>(last, st.kernels.back().end_ns);
        busy.emplace_back(st.kernels.back().start_ns, st.kernels.back().end_ns);
    }
    if (!busy.empty())
        shared->busy().add(busy);
    for (auto& [name, event] : slot.transfer_events)
        st.transfers.push_back(timed(name, event));
    st.device_milliseconds = last > first ? static_cast<double>(last - first) * 1e-6 : 0;
    return result;
}

/* A batched frame: its windows came back through the batch queue, which
 * also counted the batch's kernel time on the device. */
FrameResult Engine::Impl::finish_batched(size_t index)
{
    FrameSlot& slot = *slots[index];
    const std::shared_ptr<BatchRequest> request = requests[index];
    batch->wait(*request);
    requests[index].reset();
    if (request->error)
        std::rethrow_exception(request->error);
    FrameResult result = area_frames[index]
                             ? areas_result(slot, *area_frames[index], request->accepted, request->counters)
                             : result_of(slot, *slot.geometry, request->accepted, request->counters);
    FrameStats& st = result.stats;
    st.reruns = request->reruns;
    st.batch_frames = request->batch_frames;
    uint64_t first = std::numeric_limits<uint64_t>::max(), last = 0;
    for (const auto& [name, span] : request->kernels) {
        st.kernels.push_back({name, static_cast<double>(span.second - span.first) * 1e-6, span.first, span.second});
        first = std::min(first, span.first);
        last = std::max(last, span.second);
    }
    for (const auto& [name, span] : request->transfers)
        st.transfers.push_back({name, static_cast<double>(span.second - span.first) * 1e-6, span.first, span.second});
    st.device_milliseconds = last > first ? static_cast<double>(last - first) * 1e-6 : 0;
    return result;
}

/* A frame's windows in scan order (level, row, column), as the CPU
 * reference reports them, grouped; and the counts of its launches. */
FrameResult Engine::Impl::result_of(FrameSlot& slot, const Geometry& g, std::vector<shared::Accepted>& accepted,
                                    const std::vector<cl_uint>& counters) const
{
    FrameResult result;
    result.frame = slot.frame;
    std::sort(accepted.begin(), accepted.end(), [](const shared::Accepted& x, const shared::Accepted& y) {
        return x.index < y.index;
    });
    /* The kernels' score is relative to the rounded-up threshold; the sum
     * minus the threshold itself is the reference's score, whatever the
     * threshold's finest bit. */
    const double final = slot.params.final_threshold.value_or(classifier.final_threshold);
    for (const shared::Accepted& a : accepted)
        if (!a.hidden)
            result.windows.push_back(
                window_at(g, a.index, static_cast<float>(packed.from_fixed(a.score + slot.final_threshold) - final)));
    const uint64_t cut = cap_windows(result.windows, slot.params.max_windows);
    result.detections = detections_of(result.windows, slot.params, g.image);
    clip_windows(result.windows, g.image);

    FrameStats& st = result.stats;
    st.windows = g.positions;
    st.scan = plan.scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction;
    for (int i = 0; !plan.scan_by_rows && i <= slot.step2_launches; ++i)
        st.candidates_after_step.push_back(counters[COUNT_LISTS + i]);
    st.weak_evaluated = counters[COUNT_WEAK_EVALUATED];
    st.weak_per_window = g.positions ? static_cast<double>(st.weak_evaluated) / g.positions : 0;
    st.accepted = result.windows.size();
    st.discarded = 0;
    st.cut = cut;
    return result;
}

/* A frame of areas: each member's windows as result_of() gives a frame's
 * (capped, grouped and clipped in its area), moved to the image's pixels;
 * the counts are the whole launch's. */
FrameResult Engine::Impl::areas_result(FrameSlot& slot, const AreaFrame& frame, std::vector<shared::Accepted>& accepted,
                                       const std::vector<cl_uint>& counters) const
{
    const BatchGeometry& layout = *frame.layout;
    std::vector<std::vector<shared::Accepted>> per_area(layout.members.size());
    for (shared::Accepted a : accepted) {
        const size_t m = batch_member_of(layout, a.index);
        a.index -= layout.first_position[m];
        per_area[m].push_back(a);
    }
    std::vector<shared::Accepted> none;
    FrameResult result = result_of(slot, layout.combined, none, counters);
    for (size_t m = 0; m < per_area.size(); ++m) {
        FrameResult area = result_of(slot, *layout.members[m], per_area[m], counters);
        const Rect& r = frame.rects[m];
        for (RawWindow& w : area.windows) {
            w.rect.x += r.x;
            w.rect.y += r.y;
            result.windows.push_back(w);
        }
        for (Detection& d : area.detections) {
            d.rect.x += r.x;
            d.rect.y += r.y;
            result.detections.push_back(d);
            result.detection_areas.push_back(frame.index[m]);
        }
        result.stats.cut += area.stats.cut;
    }
    result.stats.accepted = result.windows.size();
    result.areas_searched = frame.searched;
    return result;
}

/* The frame enqueued in slot `index` joins the frames in flight. */
uint64_t Engine::Impl::queue_frame(size_t index)
{
    FrameSlot& slot = *slots[index];
    slot.frame = next_frame++;
    std::lock_guard<std::mutex> guard(order_lock);
    order.push_back(index);
    return slot.frame;
}

uint64_t Engine::submit(const GrayView& image, const DetectParams& params)
{
    Impl& m = *impl_;
    if (!can_submit())
        throw std::logic_error("Engine::submit: max_in_flight frames are already in flight; collect() first");
    m.use_geometry({image.width, image.height}, params);
    size_t index = m.free_slot();
    auto prepare_and_enqueue = [&](size_t slot) {
        m.prepare(slot, image, params);
        m.enqueue(slot);
    };
    try {
        try {
            prepare_and_enqueue(index);
        } catch (const cl::Error& e) {
            if (!is_memory_shortage(*m.slots[index], e))
                throw;
            index = m.slot_after_allocation_failure(index);
            if (index == m.slots.size())
                throw;
            prepare_and_enqueue(index);
        }
    } catch (const cl::Error& e) {
        throw to_error(e, "submitting a frame");
    }
    return m.queue_frame(index);
}

uint64_t Engine::submit_areas(const GrayView& image, const std::vector<Rect>& areas, const DetectParams& params)
{
    Impl& m = *impl_;
    if (!can_submit())
        throw std::logic_error("Engine::submit_areas: max_in_flight frames are already in flight; collect() first");
    check_max_windows(params);
    const std::shared_ptr<const Impl::AreaFrame> frame = m.area_frame(image, areas, params);
    const size_t index = m.free_slot();
    try {
        m.prepare_areas(index, image, frame, params);
        m.enqueue(index);
    } catch (const cl::Error& e) {
        throw to_error(e, "submitting a frame's areas");
    }
    return m.queue_frame(index);
}

std::optional<FrameResult> Engine::collect()
{
    Impl& m = *impl_;
    std::lock_guard<std::mutex> collecting_guard(m.collect_lock);
    std::unique_lock<std::mutex> guard(m.order_lock);
    if (!m.early.empty()) {
        Impl::Early done = std::move(m.early.front());
        m.early.pop_front();
        guard.unlock();
        if (done.error)
            std::rethrow_exception(done.error);
        return std::move(done.result);
    }
    if (m.order.empty())
        return std::nullopt;
    const size_t index = m.order.front();
    m.order.pop_front();
    m.collecting = index; /* not free until finished */
    guard.unlock();
    struct Done {
        Impl& m;
        ~Done()
        {
            std::lock_guard<std::mutex> guard(m.order_lock);
            m.collecting = SIZE_MAX;
        }
    } done{m};
    try {
        /* Where a lost device shows: waiting for the frame's results. */
        maybe_inject_fault("wait");
        FrameResult result = m.finish(index);
        if (index >= m.limit)
            m.slots[index]->release_buffers();
        return result;
    } catch (const cl::Error& e) {
        throw to_error(e, "collecting a frame");
    }
}

void Engine::wait_for_oldest() const
{
    const Impl& m = *impl_;
    cl::Event done;
    std::shared_ptr<BatchRequest> request;
    {
        std::lock_guard<std::mutex> guard(m.order_lock);
        if (!m.early.empty() || m.order.empty())
            return;
        done = m.slots[m.order.front()]->done;
        request = m.requests[m.order.front()];
    }
    if (request) {
        m.batch->wait(*request);
        return;
    }
    if (!done())
        return; /* nothing to scan: no device work */
    try {
        done.wait();
    } catch (const cl::Error&) {
        /* collect() waits again and reports it. */
    }
}

void Engine::abandon_frames()
{
    if (impl_->stop_flag)
        impl_->stop_flag->raise();
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
