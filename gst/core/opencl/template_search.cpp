/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host side of kernels/track.cl. What decides which offsets a search
 * tries (axis_range()) runs here, through the reference's own function;
 * the device scores them all and picks the best.
 */
#include "core/opencl/template_search.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "core/opencl/device.h"
#include "core/opencl/environment.h"
#include "core/opencl/kernel_args.h"
#include "core/opencl/queue_waits.h"
#include "core/opencl/shared_device.h"

namespace waldboost::opencl {

/* Generated at build time from kernels/track.cl by build-aux/embed.py. */
extern const std::string_view kTrackKernels;

namespace {

using tracking::AxisRange;
using tracking::SearchRequest;
using tracking::SearchResult;
using tracking::Template;

/* TrackRequest and TrackResult of kernels/track.cl, field for field. */
struct TrackRequest {
    int32_t samples;
    int32_t columns, rows;
    int32_t step_x, step_y;
    int32_t x, y;
    int32_t lo_x, hi_x, lo_y, hi_y;
};
static_assert(sizeof(TrackRequest) == 11 * sizeof(int32_t) && std::is_standard_layout_v<TrackRequest>);

struct TrackResult {
    int32_t x, y;
    uint32_t sad;
};
static_assert(sizeof(TrackResult) == 3 * sizeof(int32_t) && std::is_standard_layout_v<TrackResult>);

/* Samples a request's template keeps in local memory: a whole template of
 * the tracker's (kTemplateSide squared). Larger hand-made ones are read
 * from global memory. */
constexpr size_t kLocalSamples = size_t{tracking::kTemplateSide} * tracking::kTemplateSide;

/* Work-items per request: GPUs hide latency with many; a CPU device runs a
 * work-group on one core, where more work-items only add loop overhead. */
constexpr size_t kGpuGroupSize = 256;
constexpr size_t kCpuGroupSize = 64;

size_t floor_power_of_two(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

Error bad_template(size_t index, const std::string& why)
{
    return Error(ErrorKind::BadParameter, "template search: request " + std::to_string(index) + ": " + why);
}

/* The template's fields must agree before the device indexes its samples
 * (the reference would read out of bounds or divide by zero). */
void check_template(const Template& t, size_t index)
{
    if (t.step_x < 1 || t.step_y < 1)
        throw bad_template(index, "grid steps must be at least 1, not " + std::to_string(t.step_x) + "x" +
                                      std::to_string(t.step_y));
    if (t.columns < 1 || t.rows < 1 ||
        static_cast<uint64_t>(t.columns) * static_cast<uint64_t>(t.rows) != t.samples.size())
        throw bad_template(index, std::to_string(t.samples.size()) + " samples for a grid of " +
                                      std::to_string(t.columns) + "x" + std::to_string(t.rows));
    const int64_t span_x = int64_t{t.columns - 1} * t.step_x + 1, span_y = int64_t{t.rows - 1} * t.step_y + 1;
    if (span_x > std::numeric_limits<int>::max() || span_y > std::numeric_limits<int>::max())
        throw bad_template(index, "the grid spans more pixels than an int holds");
}

/* A device buffer of at least `bytes`, grown (never shrunk) as calls need. */
void reserve(const cl::Context& context, cl::Buffer& buffer, size_t& capacity, size_t bytes, cl_mem_flags flags)
{
    bytes = std::max<size_t>(bytes, 1);
    if (buffer() && capacity >= bytes)
        return;
    const size_t grown = std::max(bytes, capacity + capacity / 2);
    maybe_inject_fault("buffer-create");
    buffer = cl::Buffer(context, flags, grown);
    capacity = grown;
}

}  // namespace

struct OpenClSearcher::Impl {
    std::shared_ptr<SharedDevice> shared;
    cl::Device device;
    cl::Context context;
    cl::CommandQueue queue;
    std::shared_ptr<const cl::Program> program;
    BoundKernel kernel;
    BuildReport build_report;
    size_t group_size = 1;
    size_t launches = 0;

    std::mutex lock; /* one search at a time: the kernel's arguments and the buffers are this searcher's */
    cl::Buffer frame_buffer, template_buffer, request_buffer, result_buffer;
    size_t frame_capacity = 0, template_capacity = 0, request_capacity = 0, result_capacity = 0;
    /* Host copies, kept between calls so that their memory is reused. */
    std::vector<uint8_t> template_bytes;
    std::vector<TrackRequest> packed;
    std::vector<size_t> launched; /* the request each packed one answers */
    std::vector<TrackResult> found;

    explicit Impl(std::shared_ptr<SharedDevice> device_state);
    void build(size_t group, size_t local_samples);
};

OpenClSearcher::Impl::Impl(std::shared_ptr<SharedDevice> device_state)
    : shared(std::move(device_state)), device(shared->device()), context(shared->context())
{
    const std::string name = device.getInfo<CL_DEVICE_NAME>().c_str();
    try {
        /* On PoCL this is the process's one queue (shared_device.h says why). */
        queue = shared->slot_queue(false);
        const bool cpu = (device.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
        size_t group = cpu ? kCpuGroupSize : kGpuGroupSize;
        group = std::min({group, device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(),
                          device.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(0)});
        group = floor_power_of_two(std::max<size_t>(group, 1));
        /* The keys (8 bytes a work-item) and the samples must fit in local
         * memory (1.2's embedded profile promises only 1 KiB). */
        const size_t local_memory = static_cast<size_t>(device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
        while (group > 1 && group * 8 * 2 > local_memory)
            group /= 2;
        const size_t local_samples =
            std::clamp<size_t>(local_memory > group * 8 + 256 ? local_memory - group * 8 - 256 : 1, 1, kLocalSamples);
        build(group, local_samples);
        /* The compiler may allow fewer work-items than the device (registers,
         * local memory): build again for what it allows. */
        const size_t allowed =
            cl::Kernel(*program, "template_search").getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
        if (allowed < group_size)
            build(floor_power_of_two(std::max<size_t>(allowed, 1)), local_samples);
    } catch (const cl::Error& e) {
        throw to_error(e, "setting up the template search on " + name);
    }
}

std::string track_program_source() { return kernel_source(kTrackKernels, "track.cl"); }

void OpenClSearcher::Impl::build(size_t group, size_t local_samples)
{
    const std::string source = track_program_source();
    std::string options = "-cl-std=CL1.2 -D TRACK_GROUP_SIZE=" + std::to_string(group) +
                          " -D TRACK_LOCAL_SAMPLES=" + std::to_string(local_samples);
    const std::string extra = environment::extra_cl_options();
    if (!extra.empty())
        options += " " + extra;
    bool program_shared = false;
    build_report = BuildReport{};
    program = shared->program(
        source, options, [&] { return build_program(context, device, source, options, &build_report); },
        &program_shared);
    if (program_shared)
        build_report.note = "shared with another template search on this device";
    kernel = BoundKernel(*program, "template_search");
    group_size = group;
}

OpenClSearcher::OpenClSearcher(const std::string& device_spec)
{
    const std::vector<SelectedDevice> candidates = select_devices(device_spec);
    std::vector<cl::Device> devices;
    for (const SelectedDevice& candidate : candidates)
        devices.push_back(candidate.device);
    size_t chosen = 0;
    std::shared_ptr<SharedDevice> shared;
    try {
        shared = SharedDevice::least_used(devices, &chosen);
    } catch (const cl::Error& e) {
        throw to_error(e, "making an OpenCL context on " + candidates[chosen].info.device_name);
    }
    impl_ = std::make_unique<Impl>(std::move(shared));
}

OpenClSearcher::OpenClSearcher(std::shared_ptr<SharedDevice> device)
{
    if (!device)
        throw Error(ErrorKind::BadParameter, "template search: no OpenCL device given");
    impl_ = std::make_unique<Impl>(std::move(device));
}

OpenClSearcher::~OpenClSearcher() = default;

std::string OpenClSearcher::device_name() const { return impl_->device.getInfo<CL_DEVICE_NAME>().c_str(); }
const BuildReport& OpenClSearcher::build_report() const { return impl_->build_report; }
size_t OpenClSearcher::work_group_size() const { return impl_->group_size; }
size_t OpenClSearcher::launches() const
{
    std::lock_guard<std::mutex> guard(impl_->lock);
    return impl_->launches;
}

std::vector<SearchResult> OpenClSearcher::search(const GrayView& frame, const std::vector<SearchRequest>& requests)
{
    Impl& m = *impl_;
    std::lock_guard<std::mutex> guard(m.lock);
    std::vector<SearchResult> results(requests.size());
    m.template_bytes.clear();
    m.packed.clear();
    m.launched.clear();
    std::unordered_map<const Template*, int32_t> offsets; /* a template searched for twice is uploaded once */
    int first_row = std::numeric_limits<int>::max(), last_row = -1; /* the frame rows any request reaches */
    for (size_t i = 0; i < requests.size(); ++i) {
        const SearchRequest& request = requests[i];
        const Template* t = request.appearance;
        if (!t || t->empty())
            continue; /* not found, as the reference says */
        check_template(*t, i);
        const AxisRange rx = tracking::axis_range(request.x, t->span_x(), frame.width, request.radius);
        const AxisRange ry = tracking::axis_range(request.y, t->span_y(), frame.height, request.radius);
        if (rx.empty() || ry.empty())
            continue; /* the grid cannot stay in the frame: not found */
        /* Candidates are numbered in 32 bits on the device. */
        if (static_cast<uint64_t>(int64_t{rx.hi} - rx.lo + 1) * static_cast<uint64_t>(int64_t{ry.hi} - ry.lo + 1) >=
            std::numeric_limits<uint32_t>::max())
            throw bad_template(i, "more than 2^32 offsets in range");
        auto [at, added] = offsets.emplace(t, static_cast<int32_t>(m.template_bytes.size()));
        if (added) {
            if (m.template_bytes.size() + t->samples.size() > static_cast<size_t>(std::numeric_limits<int32_t>::max()))
                throw Error(ErrorKind::BadParameter, "template search: more than 2 GiB of template samples in a call");
            m.template_bytes.insert(m.template_bytes.end(), t->samples.begin(), t->samples.end());
        }
        m.packed.push_back(TrackRequest{at->second, t->columns, t->rows, t->step_x, t->step_y, request.x, request.y,
                                        rx.lo, rx.hi, ry.lo, ry.hi});
        m.launched.push_back(i);
        first_row = std::min(first_row, request.y + ry.lo);
        last_row = std::max(last_row, request.y + ry.hi + t->span_y() - 1);
    }
    if (m.packed.empty())
        return results;
    if (!frame.data || frame.stride < static_cast<size_t>(frame.width) ||
        frame.stride > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw Error(ErrorKind::BadParameter, "template search: a frame of " + std::to_string(frame.width) + "x" +
                                                 std::to_string(frame.height) + " with a stride of " +
                                                 std::to_string(frame.stride) + " bytes cannot be searched");
    /* Only the rows some request can reach, and of the last one only its
     * pixels (a view need not own the padding after them). */
    const uint8_t* band = frame.row(first_row);
    const size_t band_bytes = static_cast<size_t>(last_row - first_row) * frame.stride + frame.width;
    const size_t count = m.packed.size();
    m.found.resize(count);
    try {
        reserve(m.context, m.frame_buffer, m.frame_capacity, band_bytes, CL_MEM_READ_ONLY);
        reserve(m.context, m.template_buffer, m.template_capacity, m.template_bytes.size(), CL_MEM_READ_ONLY);
        reserve(m.context, m.request_buffer, m.request_capacity, count * sizeof(TrackRequest), CL_MEM_READ_ONLY);
        reserve(m.context, m.result_buffer, m.result_capacity, count * sizeof(TrackResult), CL_MEM_WRITE_ONLY);
        m.kernel.set("frame", m.frame_buffer)
            .set("frame_stride", static_cast<cl_int>(frame.stride))
            .set("first_row", static_cast<cl_int>(first_row))
            .set("templates", m.template_buffer)
            .set("requests", m.request_buffer)
            .set("results", m.result_buffer);
        try {
            /* Writes need not block: the in-order queue runs them before the
             * kernel, and the read waited for after it. */
            maybe_inject_fault("enqueue");
            m.queue.enqueueWriteBuffer(m.frame_buffer, CL_FALSE, 0, band_bytes, band);
            m.queue.enqueueWriteBuffer(m.template_buffer, CL_FALSE, 0, m.template_bytes.size(),
                                       m.template_bytes.data());
            m.queue.enqueueWriteBuffer(m.request_buffer, CL_FALSE, 0, count * sizeof(TrackRequest), m.packed.data());
            m.queue.enqueueNDRangeKernel(m.kernel.ready(), cl::NullRange, cl::NDRange(count * m.group_size),
                                         cl::NDRange(m.group_size));
            ++m.launches;
            read_and_wait(m.queue, m.result_buffer, 0, count * sizeof(TrackResult), m.found.data());
        } catch (...) {
            /* A write already enqueued reads the caller's frame and our
             * vectors: let it finish before they may go away. */
            try {
                wait_for_enqueued(m.queue);
            } catch (const cl::Error&) {
            }
            throw;
        }
    } catch (const cl::Error& e) {
        throw to_error(e, "searching " + std::to_string(count) + " templates");
    }
    for (size_t k = 0; k < count; ++k) {
        SearchResult& r = results[m.launched[k]];
        r.found = true;
        r.x = m.found[k].x;
        r.y = m.found[k].y;
        r.sad = m.found[k].sad;
    }
    return results;
}

}  // namespace waldboost::opencl
