/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host side of kernels/track.cl. What decides which offsets a search
 * tries (axis_range()) runs here, through the reference's own function;
 * the device scores them all and picks the best.
 */
#include "core/opencl/search/template_search.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <iterator>
#include <limits>
#include <map>
#include <mutex>
#include <string_view>
#include <type_traits>
#include <unordered_map>

#include "core/opencl/device/device.h"
#include "core/opencl/device/environment.h"
#include "core/opencl/device/kernel_args.h"
#include "core/opencl/engine/queue_waits.h"
#include "core/opencl/engine/shared_device.h"

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
    int32_t band, stride, first_row;
};
static_assert(sizeof(TrackRequest) == 14 * sizeof(int32_t) && std::is_standard_layout_v<TrackRequest>);

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

/* One caller's searches, checked and packed in the caller's thread (so
 * that a bad request fails its own call only), then launched by whichever
 * caller runs the next launch, together with the others waiting. */
struct PackedCall {
    std::vector<tracking::SearchResult> results;
    std::vector<TrackRequest> packed; /* template offsets into `template_bytes`, band 0 */
    std::vector<size_t> launched;     /* the request each packed one answers */
    std::vector<uint8_t> template_bytes;
    const uint8_t* band = nullptr; /* the frame rows the requests reach */
    size_t band_bytes = 0;
    bool done = false;
    bool launched_here = false; /* this call went to the device */
    std::exception_ptr error;
};

/* Checks and packs `requests` on `frame`: the requests answered without the
 * device are left as not found, the others go into `call.packed`. Throws
 * Error (BadParameter) as OpenClSearcher::search() says. */
void pack_call(const GrayView& frame, const std::vector<SearchRequest>& requests, PackedCall& call)
{
    call.results.assign(requests.size(), SearchResult{});
    std::unordered_map<const Template*, int32_t> offsets;           /* a template searched for twice is uploaded once */
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
        auto [at, added] = offsets.emplace(t, static_cast<int32_t>(call.template_bytes.size()));
        if (added) {
            if (call.template_bytes.size() + t->samples.size() >
                static_cast<size_t>(std::numeric_limits<int32_t>::max()))
                throw Error(ErrorKind::BadParameter, "template search: more than 2 GiB of template samples in a call");
            call.template_bytes.insert(call.template_bytes.end(), t->samples.begin(), t->samples.end());
        }
        call.packed.push_back(TrackRequest{at->second, t->columns, t->rows, t->step_x, t->step_y, request.x, request.y,
                                           rx.lo, rx.hi, ry.lo, ry.hi, 0, 0, 0});
        call.launched.push_back(i);
        first_row = std::min(first_row, request.y + ry.lo);
        last_row = std::max(last_row, request.y + ry.hi + t->span_y() - 1);
    }
    if (call.packed.empty())
        return;
    if (!frame.data || frame.stride < static_cast<size_t>(frame.width) ||
        frame.stride > static_cast<size_t>(std::numeric_limits<int>::max()))
        throw Error(ErrorKind::BadParameter, "template search: a frame of " + std::to_string(frame.width) + "x" +
                                                 std::to_string(frame.height) + " with a stride of " +
                                                 std::to_string(frame.stride) + " bytes cannot be searched");
    /* Only the rows some request can reach, and of the last one only its
     * pixels (a view need not own the padding after them). */
    call.band = frame.row(first_row);
    call.band_bytes = static_cast<size_t>(last_row - first_row) * frame.stride + frame.width;
    for (TrackRequest& r : call.packed) {
        r.stride = static_cast<int32_t>(frame.stride);
        r.first_row = first_row;
    }
}

/* What one launch may hold: byte offsets into the frame bands and the
 * templates are 32-bit on the device. A call larger than that alone still
 * goes (its own offsets start at 0). */
constexpr size_t kLaunchBytes = static_cast<size_t>(std::numeric_limits<int32_t>::max());

/* The device's template search, one per device in the process: the
 * program, the buffers and the launches, shared by every OpenClSearcher on
 * that device (one per stream in the element), so that the calls of
 * several streams that are ready together go in one launch. */
class SearchLauncher {
public:
    explicit SearchLauncher(std::shared_ptr<SharedDevice> device_state);

    /* The launcher of `device`, made on first use and kept while some
     * searcher holds it. */
    static std::shared_ptr<SearchLauncher> of(std::shared_ptr<SharedDevice> device);

    /* Runs `calls` with those waiting with them: the first caller to find
     * no launch under way launches everything waiting, the others wait for
     * that launch (a group commit: no call waits for companions that are not
     * there yet). Returns when `calls` are done; their errors, if any, are
     * in them. */
    void run(const std::vector<PackedCall*>& calls);

    std::string device_name() const { return device.getInfo<CL_DEVICE_NAME>().c_str(); }
    size_t launches() const
    {
        std::lock_guard<std::mutex> guard(lock);
        return launches_;
    }

    std::shared_ptr<SharedDevice> shared;
    cl::Device device;
    cl::Context context;
    BuildReport build_report;
    size_t group_size = 1;

private:
    void build(size_t group, size_t local_samples);
    /* Launches `calls` (the one launcher that runs, without the lock). */
    void launch(const std::vector<PackedCall*>& calls);
    void launch_chunk(const std::vector<PackedCall*>& calls);

    cl::CommandQueue queue_;
    std::shared_ptr<const cl::Program> program_;
    BoundKernel kernel_;

    mutable std::mutex lock;
    std::condition_variable done_;
    std::vector<PackedCall*> waiting_;
    bool running_ = false;
    size_t launches_ = 0;

    /* The running launcher's (running_): buffers and host copies kept
     * between launches so that their memory is reused. */
    cl::Buffer frame_buffer_, template_buffer_, request_buffer_, result_buffer_;
    size_t frame_capacity_ = 0, template_capacity_ = 0, request_capacity_ = 0, result_capacity_ = 0;
    std::vector<uint8_t> template_bytes_;
    std::vector<TrackRequest> packed_;
    std::vector<TrackResult> found_;
};

SearchLauncher::SearchLauncher(std::shared_ptr<SharedDevice> device_state)
    : shared(std::move(device_state)), device(shared->device()), context(shared->context())
{
    const std::string name = device_name();
    try {
        /* On PoCL this is the process's one queue (shared_device.h says why). */
        queue_ = shared->slot_queue(false);
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
            cl::Kernel(*program_, "template_search").getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device);
        if (allowed < group_size)
            build(floor_power_of_two(std::max<size_t>(allowed, 1)), local_samples);
    } catch (const cl::Error& e) {
        throw to_error(e, "setting up the template search on " + name);
    }
}

void SearchLauncher::build(size_t group, size_t local_samples)
{
    const std::string source = track_program_source();
    std::string options = "-cl-std=CL1.2 -D TRACK_GROUP_SIZE=" + std::to_string(group) +
                          " -D TRACK_LOCAL_SAMPLES=" + std::to_string(local_samples);
    const std::string extra = environment::extra_cl_options();
    if (!extra.empty())
        options += " " + extra;
    bool program_shared = false;
    build_report = BuildReport{};
    program_ = shared->program(
        source, options,
        [&] {
            return build_program(context, device, source, options, &build_report);
        },
        &program_shared);
    if (program_shared)
        build_report.note = "shared with another template search on this device";
    kernel_ = BoundKernel(*program_, "template_search");
    group_size = group;
}

std::shared_ptr<SearchLauncher> SearchLauncher::of(std::shared_ptr<SharedDevice> device)
{
    /* Keyed by the device state, which the launcher keeps alive: an expired
     * entry's address may be reused by a later device state only after
     * its launcher has gone. */
    static std::mutex registry_lock;
    static std::map<const SharedDevice*, std::weak_ptr<SearchLauncher>> registry;
    std::lock_guard<std::mutex> guard(registry_lock);
    for (auto it = registry.begin(); it != registry.end();)
        it = it->second.expired() ? registry.erase(it) : std::next(it);
    std::weak_ptr<SearchLauncher>& slot = registry[device.get()];
    if (std::shared_ptr<SearchLauncher> existing = slot.lock())
        return existing;
    auto made = std::make_shared<SearchLauncher>(std::move(device));
    slot = made;
    return made;
}

void SearchLauncher::run(const std::vector<PackedCall*>& mine)
{
    std::unique_lock<std::mutex> guard(lock);
    waiting_.insert(waiting_.end(), mine.begin(), mine.end());
    /* The last of them is done when all are: a launch takes all waiting. */
    while (!mine.back()->done) {
        if (running_) {
            done_.wait(guard);
            continue;
        }
        running_ = true;
        std::vector<PackedCall*> calls;
        calls.swap(waiting_);
        guard.unlock();
        launch(calls);
        guard.lock();
        for (PackedCall* c : calls)
            c->done = true;
        running_ = false;
        done_.notify_all();
    }
}

void SearchLauncher::launch(const std::vector<PackedCall*>& calls)
{
    std::vector<PackedCall*> chunk;
    size_t band_bytes = 0, template_bytes = 0;
    for (PackedCall* call : calls) {
        if (!chunk.empty() && (band_bytes + call->band_bytes > kLaunchBytes ||
                               template_bytes + call->template_bytes.size() > kLaunchBytes)) {
            launch_chunk(chunk);
            chunk.clear();
            band_bytes = template_bytes = 0;
        }
        chunk.push_back(call);
        band_bytes += call->band_bytes;
        template_bytes += call->template_bytes.size();
    }
    if (!chunk.empty())
        launch_chunk(chunk);
}

void SearchLauncher::launch_chunk(const std::vector<PackedCall*>& calls)
{
    /* The calls' bands one after the other in the frame buffer, their
     * templates likewise, each request pointing into its own. */
    template_bytes_.clear();
    packed_.clear();
    size_t band_bytes = 0;
    for (PackedCall* call : calls) {
        for (TrackRequest r : call->packed) {
            r.samples += static_cast<int32_t>(template_bytes_.size());
            r.band = static_cast<int32_t>(band_bytes);
            packed_.push_back(r);
        }
        template_bytes_.insert(template_bytes_.end(), call->template_bytes.begin(), call->template_bytes.end());
        band_bytes += call->band_bytes;
    }
    const size_t count = packed_.size();
    found_.resize(count);
    try {
        try {
            reserve(context, frame_buffer_, frame_capacity_, band_bytes, CL_MEM_READ_ONLY);
            reserve(context, template_buffer_, template_capacity_, template_bytes_.size(), CL_MEM_READ_ONLY);
            reserve(context, request_buffer_, request_capacity_, count * sizeof(TrackRequest), CL_MEM_READ_ONLY);
            reserve(context, result_buffer_, result_capacity_, count * sizeof(TrackResult), CL_MEM_WRITE_ONLY);
            kernel_.set("frames", frame_buffer_)
                .set("templates", template_buffer_)
                .set("requests", request_buffer_)
                .set("results", result_buffer_);
            try {
                /* Writes need not block: the in-order queue runs them before
                 * the kernel, and the read waited for after it. */
                maybe_inject_fault("enqueue");
                size_t at = 0;
                for (PackedCall* call : calls) {
                    queue_.enqueueWriteBuffer(frame_buffer_, CL_FALSE, at, call->band_bytes, call->band);
                    at += call->band_bytes;
                }
                queue_.enqueueWriteBuffer(template_buffer_, CL_FALSE, 0, template_bytes_.size(),
                                          template_bytes_.data());
                queue_.enqueueWriteBuffer(request_buffer_, CL_FALSE, 0, count * sizeof(TrackRequest), packed_.data());
                queue_.enqueueNDRangeKernel(kernel_.ready(), cl::NullRange, cl::NDRange(count * group_size),
                                            cl::NDRange(group_size));
                {
                    std::lock_guard<std::mutex> guard(lock);
                    ++launches_;
                }
                read_and_wait(queue_, result_buffer_, 0, count * sizeof(TrackResult), found_.data());
            } catch (...) {
                /* A write already enqueued reads the callers' frames and our
                 * vectors: let it finish before they may go away. */
                try {
                    wait_for_enqueued(queue_);
                } catch (const cl::Error&) {
                }
                throw;
            }
        } catch (const cl::Error& e) {
            throw to_error(e, "searching " + std::to_string(count) + " templates");
        }
    } catch (...) {
        for (PackedCall* call : calls)
            call->error = std::current_exception();
        return;
    }
    size_t k = 0;
    for (PackedCall* call : calls) {
        call->launched_here = true;
        for (size_t request : call->launched) {
            tracking::SearchResult& r = call->results[request];
            r.found = true;
            r.x = found_[k].x;
            r.y = found_[k].y;
            r.sad = found_[k].sad;
            ++k;
        }
    }
}

}  // namespace

std::string track_program_source() { return kernel_source(kTrackKernels, "track.cl"); }

struct OpenClSearcher::Impl {
    std::shared_ptr<SearchLauncher> launcher;
    std::atomic<size_t> launches{0}; /* launches this searcher's calls went in */
};

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
    impl_ = std::make_unique<Impl>();
    impl_->launcher = SearchLauncher::of(std::move(shared));
}

OpenClSearcher::OpenClSearcher(std::shared_ptr<SharedDevice> device)
{
    if (!device)
        throw Error(ErrorKind::BadParameter, "template search: no OpenCL device given");
    impl_ = std::make_unique<Impl>();
    impl_->launcher = SearchLauncher::of(std::move(device));
}

OpenClSearcher::~OpenClSearcher() = default;

std::string OpenClSearcher::device_name() const { return impl_->launcher->device_name(); }
const BuildReport& OpenClSearcher::build_report() const { return impl_->launcher->build_report; }
size_t OpenClSearcher::work_group_size() const { return impl_->launcher->group_size; }
size_t OpenClSearcher::launches() const { return impl_->launches; }
size_t OpenClSearcher::device_launches() const { return impl_->launcher->launches(); }

std::vector<SearchResult> OpenClSearcher::search(const GrayView& frame, const std::vector<SearchRequest>& requests)
{
    PackedCall call;
    pack_call(frame, requests, call);
    if (call.packed.empty())
        return std::move(call.results);
    impl_->launcher->run({&call});
    if (call.error)
        std::rethrow_exception(call.error);
    ++impl_->launches;
    return std::move(call.results);
}

std::vector<std::vector<SearchResult>> OpenClSearcher::search_frames(const std::vector<FrameSearch>& frames)
{
    std::vector<PackedCall> calls(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
        if (!frames[i].requests)
            throw Error(ErrorKind::BadParameter, "template search: frame " + std::to_string(i) + " has no requests");
        pack_call(frames[i].frame, *frames[i].requests, calls[i]);
    }
    /* Into the launcher's queue as one group: they go in one launch. */
    std::vector<PackedCall*> to_launch;
    for (PackedCall& call : calls)
        if (!call.packed.empty())
            to_launch.push_back(&call);
    if (!to_launch.empty()) {
        impl_->launcher->run(to_launch);
        for (PackedCall* call : to_launch)
            if (call->error)
                std::rethrow_exception(call->error);
        ++impl_->launches;
    }
    std::vector<std::vector<SearchResult>> results;
    results.reserve(calls.size());
    for (PackedCall& call : calls)
        results.push_back(std::move(call.results));
    return results;
}

}  // namespace waldboost::opencl
