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
#include "core/opencl/engine.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "core/opencl/classifier_pack.h"
#include "core/opencl/environment.h"
#include "core/opencl/frame_slot.h"
#include "core/opencl/geometry.h"
#include "core/opencl/launches.h"
#include "core/opencl/program_cache.h"
#include "core/opencl/tuner.h"

namespace waldboost::opencl {

/* Generated at build time from the kernels folder by build-aux/embed.py,
 * and put together in this order. */
extern const std::string_view kSharedKernelHeader;
extern const std::string_view kCommonKernels;
extern const std::string_view kLbpKernels;
extern const std::string_view kPyramidKernels;
extern const std::string_view kWaldboostKernels;
extern const std::string_view kScanRowsKernels;

struct Engine::Impl {
    Classifier classifier;
    SelectedDevice selected;
    EnginePlan plan;
    cl::Context context;
    cl::Program program;
    BuildReport build_report;
    PackedClassifier packed;
    DeviceClassifier device_classifier;
    std::vector<std::unique_ptr<FrameSlot>> slots;
    std::deque<size_t> order; /* slots in flight, oldest first */
    size_t next_slot = 0;
    uint64_t next_frame = 0;
    std::shared_ptr<const Geometry> geometry; /* of the last frame submitted */

    void choose_plan(const EngineConfig& config);
    std::string build_options() const;
    void prepare(FrameSlot& slot, const GrayView& image, const DetectParams& params);
    FrameResult finish(FrameSlot& slot);
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
    /* 16-bit integral values halve the bytes every window reads (docs/engine.md).
     * Block sums are taken modulo 2^16, exact while a block holds at most
     * 257 pixels (257 x 255 < 2^16): OpenCV's 24x24 and 45x45 face cascades
     * qualify. Only the GPU layout and the reduction read them; the CPU
     * kernels keep 32 bits. */
    if (!plan.rows_layout && !plan.scan_by_rows && packed.largest_block * 255 <= 0xFFFF)
        plan.integral_bits = 16;
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
    if (packed.stumps)
        options += " -D STUMPS";
    define("INTEGRAL_BITS", plan.integral_bits);
    if (plan.rows_layout)
        options += " -D PYRAMID_BY_ROWS";
    const std::string extra = environment::extra_cl_options();
    if (!extra.empty())
        options += " " + extra;
    return options;
}

std::string kernel_program_source(bool with_row_scan)
{
    return kernel_source(kSharedKernelHeader, "shared.h") + "\n" + kernel_source(kCommonKernels, "common.cl") +
           "\n" + kernel_source(kLbpKernels, "lbp.cl") + "\n" + kernel_source(kPyramidKernels, "pyramid.cl") + "\n" +
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
    m.packed = pack_classifier(classifier);
    m.selected = select_device(config.device);
    m.choose_plan(config);
    try {
        m.context = cl::Context(m.selected.device);
        m.device_classifier = upload_classifier(m.context, m.packed);
        m.program = build_program(m.context, m.selected.device, kernel_program_source(m.plan.scan_by_rows),
                                  m.build_options(), &m.build_report);
        for (int i = 0; i < config.max_in_flight; ++i)
            m.slots.push_back(std::make_unique<FrameSlot>(m.context, m.selected.device, m.program, m.plan));
    } catch (const cl::Error& e) {
        throw to_error(e, "setting up the OpenCL engine on " + m.selected.info.device_name);
    }
}

Engine::~Engine() = default;

const DeviceInfo& Engine::device() const { return impl_->selected.info; }
const ReductionParams& Engine::reduction() const { return impl_->plan.reduction; }
ScanMethod Engine::scan_method() const { return impl_->plan.scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction; }
const BuildReport& Engine::build_report() const { return impl_->build_report; }
size_t Engine::in_flight() const { return impl_->order.size(); }
bool Engine::can_submit() const { return impl_->order.size() < impl_->slots.size(); }

void Engine::Impl::prepare(FrameSlot& slot, const GrayView& image, const DetectParams& params)
{
    const Size size{image.width, image.height};
    if (!geometry || !geometry->matches(size, params))
        geometry = std::make_shared<const Geometry>(make_geometry(size, classifier, params, plan.band_layout()));
    check_max_windows(params); /* the geometry above may be a cached one */
    slot.params = params;
    const float final = params.final_threshold.value_or(classifier.final_threshold);
    if (!std::isfinite(final) || std::fabs(final) >= kFixedLimit)
        throw Error(ErrorKind::BadParameter, "final threshold " + std::to_string(final) + " is out of range");
    slot.final_threshold = to_fixed_ceil(final);
    slot.reruns = 0;
    slot.prepare(context, plan, geometry, image);
}

FrameResult Engine::Impl::finish(FrameSlot& slot)
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
    const size_t accepted_count = slot.host_counters[COUNT_ACCEPTED];
    if (accepted_count > slot.accepted_capacity) {
        slot.grow_accepted(context, accepted_count);
        ++slot.reruns;
        enqueue_frame(slot, plan, device_classifier);
        return finish(slot);
    }
    if (accepted_count > slot.host_accepted.size()) {
        const size_t have = slot.host_accepted.size();
        slot.host_accepted.resize(accepted_count);
        slot.queue.enqueueReadBuffer(slot.accepted, CL_TRUE, sizeof(shared::Accepted) * have,
                                     sizeof(shared::Accepted) * (accepted_count - have),
                                     slot.host_accepted.data() + have);
    }
    slot.host_accepted.resize(accepted_count);

    /* Scan order (level, row, column), as the CPU reference reports them. */
    std::sort(slot.host_accepted.begin(), slot.host_accepted.end(),
              [](const shared::Accepted& x, const shared::Accepted& y) { return x.index < y.index; });
    for (const shared::Accepted& a : slot.host_accepted)
        if (!a.hidden)
            result.windows.push_back(
                window_at(g, a.index, static_cast<float>(static_cast<double>(a.score) / kFixedScale)));
    const uint64_t cut = cap_windows(result.windows, slot.params.max_windows);
    clip_windows(result.windows, g.image);
    result.detections = group_windows(result.windows, slot.params);

    FrameStats& st = result.stats;
    st.windows = g.positions;
    st.scan = plan.scan_by_rows ? ScanMethod::Rows : ScanMethod::Reduction;
    for (int i = 0; !plan.scan_by_rows && i < plan.list_count(); ++i)
        st.candidates_after_step.push_back(slot.host_counters[COUNT_LISTS + i]);
    st.weak_evaluated = slot.host_counters[COUNT_WEAK_EVALUATED];
    st.weak_per_window = g.positions ? static_cast<double>(st.weak_evaluated) / g.positions : 0;
    st.accepted = result.windows.size();
    st.discarded = 0;
    st.cut = cut;
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
    FrameSlot& slot = *m.slots[index];
    try {
        m.prepare(slot, image, params);
        /* A frame with nothing to scan still takes its turn, so order holds. */
        if (!slot.geometry->scan_levels.empty())
            enqueue_frame(slot, m.plan, m.device_classifier);
    } catch (const cl::Error& e) {
        throw to_error(e, "submitting a frame");
    }
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
    FrameSlot& slot = *m.slots[m.order.front()];
    m.order.pop_front();
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
