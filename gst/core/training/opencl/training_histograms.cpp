/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The host side of kernels/train.cl.
 */
#include "core/training/opencl/training_histograms.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <string_view>

#include "core/error.h"
#include "core/opencl/device/device.h"
#include "core/opencl/device/environment.h"
#include "core/opencl/device/kernel_args.h"
#include "core/opencl/device/program_cache.h"
#include "core/opencl/engine/queue_waits.h"
#include "core/opencl/engine/shared_device.h"

namespace waldboost::opencl {

/* Generated at build time from kernels/train.cl by build-aux/embed.py. */
extern const std::string_view kTrainKernels;

std::string train_program_source() { return kernel_source(kTrainKernels, "train.cl"); }

namespace {

using training::CandidateSet;
using training::Choice;

/* Work-items per work-group: GPUs hide latency with many, which share
 * the group's histograms through local atomics; a CPU device runs a
 * work-group on one core, where one work-item sums without atomics (PoCL's
 * local atomics made many work-items far slower than the CPU backend;
 * docs/history.md, "Figures behind the code's choices"). */
constexpr size_t kGpuGroupSize = 256;
/* Local memory a work-group's histograms may use: on a GPU small enough
 * for several groups per core; on a CPU, where the one work-item takes the
 * candidates one by one over a tile of samples, enough groups to share
 * the cores evenly. */
constexpr size_t kGpuGroupHistogramBytes = 16 * 1024;
constexpr size_t kCpuGroupHistogramBytes = 32 * 1024;
/* Windows whose integral images are on the device at once: up to 4096,
 * and up to about 64 MiB of them. */
constexpr size_t kUploadBatch = 4096;
constexpr size_t kUploadBytes = size_t{64} << 20;
/* Bytes of sums read back per launch. */
constexpr size_t kChunkBytes = size_t{16} << 20;

size_t floor_power_of_two(size_t n)
{
    size_t p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

class OpenClHistograms final : public training::HistogramBackend {
public:
    OpenClHistograms(CandidateSet set, std::shared_ptr<SharedDevice> shared, size_t work_group_size);

    std::string name() const override { return "opencl (" + device_name_ + ")"; }
    void add(const GrayImage& window, bool positive) override;
    void keep(const std::vector<bool>& kept) override;
    void clear() override;
    size_t count() const override { return labels_.size(); }
    std::vector<uint8_t> bins(size_t candidate) override;
    void histograms(const std::vector<uint64_t>& weights, size_t first, size_t n, uint64_t* out) override;
    Choice best(const std::vector<uint64_t>& weights) override;

private:
    void build(size_t group);
    /* Computes the values of the samples added since the last call. */
    void flush();
    /* Moves the values to buffers of at least `samples` samples. */
    void grow(size_t samples);
    void upload_weights(const std::vector<uint64_t>& weights);
    /* A launch of at least width x height work-items in groups of a fixed
     * shape (the kernels skip those outside): PoCL compiles a kernel anew
     * for every group shape, which sizes it picks itself would vary with
     * the number of samples. */
    void launch_2d(BoundKernel& kernel, size_t width, size_t height)
    {
        const size_t gx = height > 1 ? 8 : 64, gy = height > 1 ? 8 : 1;
        const size_t local_x = std::min(gx, small_group_), local_y = std::min(gy, small_group_ / local_x);
        queue_.enqueueNDRangeKernel(
            kernel.ready(), cl::NullRange,
            cl::NDRange((width + local_x - 1) / local_x * local_x, (height + local_y - 1) / local_y * local_y),
            cl::NDRange(local_x, local_y));
    }
    /* Candidates per launch. */
    size_t chunk_candidates() const;
    /* Enqueues the sums of candidates first .. first + n - 1 (at most
     * chunk_candidates(), after upload_weights()) in sums buffer `buffer`,
     * and their reading into `out`: the read's event. */
    cl::Event enqueue_chunk(size_t first, size_t n, int buffer, uint64_t* out);
    size_t planes() const { return set_.grids.size() * layout_.bytes_per_grid; }
    Error failed(const cl::Error& e, const std::string& doing) const
    {
        return to_error(e, "training histograms on " + device_name_ + ": " + doing);
    }

    std::shared_ptr<SharedDevice> shared_;
    cl::Device device_;
    cl::Context context_;
    cl::CommandQueue queue_;
    std::string device_name_;
    std::shared_ptr<const cl::Program> program_;
    BoundKernel integrals_kernel_, values_kernel_, gather_kernel_, histogram_kernel_;
    size_t group_size_ = 0, group_candidates_ = 0;
    size_t small_group_ = 1; /* work-items per group of the other kernels: up to 64 */
    size_t max_alloc_ = 0;

    cl::Buffer grids_;
    cl::Buffer values_, spare_values_;
    size_t capacity_ = 0;  /* samples the value planes hold */
    size_t on_device_ = 0; /* samples whose values are computed */
    cl::Buffer labels_buffer_, weights_buffer_, sums_buffers_[2], windows_buffer_, integrals_buffer_, source_buffer_;
    size_t labels_capacity_ = 0, weights_capacity_ = 0, source_capacity_ = 0;
    bool labels_stale_ = true;

    std::vector<uint8_t> labels_;  /* every sample's class (1: positive) */
    std::vector<uint8_t> pending_; /* pixels of the samples added since flush() */
};

OpenClHistograms::OpenClHistograms(CandidateSet set, std::shared_ptr<SharedDevice> shared, size_t work_group_size)
    : HistogramBackend(std::move(set)), shared_(std::move(shared))
{
    if (!shared_)
        throw Error(ErrorKind::BadParameter, "training histograms: no OpenCL device given");
    device_ = shared_->device();
    context_ = shared_->context();
    try {
        device_name_ = device_.getInfo<CL_DEVICE_NAME>();
        /* 64-bit integers (the weights) are core in the full profile only. */
        const std::string profile = device_.getInfo<CL_DEVICE_PROFILE>();
        const std::string extensions = device_.getInfo<CL_DEVICE_EXTENSIONS>();
        if (profile != "FULL_PROFILE" && extensions.find("cles_khr_int64") == std::string::npos)
            throw Error(ErrorKind::NoDevice, "training histograms: " + device_name_ +
                                                 " has no 64-bit integers (an embedded profile without "
                                                 "cles_khr_int64); use the CPU backend");
        max_alloc_ = static_cast<size_t>(device_.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>());
        /* On PoCL this is the process's one queue (shared_device.h says why). */
        queue_ = shared_->slot_queue(false);
        const bool cpu = (device_.getInfo<CL_DEVICE_TYPE>() & CL_DEVICE_TYPE_CPU) != 0;
        size_t group = work_group_size ? work_group_size : cpu ? 1 : kGpuGroupSize;
        group = std::min({group, device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(),
                          device_.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(0)});
        small_group_ = floor_power_of_two(std::min({size_t{64}, device_.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>(),
                                                    device_.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(0),
                                                    device_.getInfo<CL_DEVICE_MAX_WORK_ITEM_SIZES>().at(1)}));
        const size_t local_memory = static_cast<size_t>(device_.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>());
        const size_t per_candidate = 2 * layout_.bins * sizeof(cl_ulong); /* as two halves, or one ulong */
        const size_t budget = std::min(cpu ? kCpuGroupHistogramBytes : kGpuGroupHistogramBytes, local_memory / 2);
        if (budget < per_candidate)
            throw Error(ErrorKind::NoDevice, "training histograms: " + device_name_ + " has " +
                                                 std::to_string(local_memory) + " bytes of local memory, " +
                                                 std::to_string(2 * per_candidate) + " needed");
        group_candidates_ = budget / per_candidate;
        build(floor_power_of_two(std::max<size_t>(group, 1)));
        /* The compiler may allow fewer work-items than the device. */
        const size_t allowed =
            cl::Kernel(*program_, "train_histograms").getWorkGroupInfo<CL_KERNEL_WORK_GROUP_SIZE>(device_);
        if (allowed < group_size_)
            build(floor_power_of_two(std::max<size_t>(allowed, 1)));

        std::vector<cl_int> grids;
        for (const training::Grid& g : set_.grids)
            grids.insert(grids.end(), {g.x, g.y, g.block_width, g.block_height});
        grids_ =
            cl::Buffer(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, grids.size() * sizeof(cl_int), grids.data());
        for (cl::Buffer& sums : sums_buffers_)
            sums = cl::Buffer(context_, CL_MEM_WRITE_ONLY, chunk_candidates() * 2 * layout_.bins * sizeof(cl_ulong));
    } catch (const cl::Error& e) {
        throw failed(e, "setting up");
    }
}

void OpenClHistograms::build(size_t group)
{
    const std::string source = train_program_source();
    const int family = set_.feature_type == FeatureType::Lbp ? 0 : set_.feature_type == FeatureType::Lrd ? 1 : 2;
    std::string options = "-cl-std=CL1.2 -D TRAIN_FAMILY=" + std::to_string(family) +
                          " -D TRAIN_BINS=" + std::to_string(layout_.bins) +
                          " -D TRAIN_GROUP_CANDIDATES=" + std::to_string(group_candidates_) +
                          " -D TRAIN_GROUP_SIZE=" + std::to_string(group);
    const std::string extra = environment::extra_cl_options();
    if (!extra.empty())
        options += " " + extra;
    bool program_shared = false;
    program_ = shared_->program(
        source, options,
        [&] {
            return build_program(context_, device_, source, options);
        },
        &program_shared);
    integrals_kernel_ = BoundKernel(*program_, "train_integrals");
    values_kernel_ = BoundKernel(*program_, "train_grid_values");
    gather_kernel_ = BoundKernel(*program_, "train_gather");
    histogram_kernel_ = BoundKernel(*program_, "train_histograms");
    group_size_ = group;
}

void OpenClHistograms::add(const GrayImage& window, bool positive)
{
    if (window.width != set_.window.width || window.height != set_.window.height)
        throw Error(ErrorKind::BadParameter, "training histograms: a sample of " + std::to_string(window.width) + "x" +
                                                 std::to_string(window.height) + " for a window of " +
                                                 std::to_string(set_.window.width) + "x" +
                                                 std::to_string(set_.window.height));
    for (int y = 0; y < window.height; ++y)
        pending_.insert(pending_.end(), window.row(y), window.row(y) + window.width);
    labels_.push_back(positive ? 1 : 0);
    labels_stale_ = true;
}

void OpenClHistograms::grow(size_t samples)
{
    if (values_() && capacity_ >= samples)
        return;
    const size_t capacity = std::max({samples, capacity_ + capacity_ / 2, size_t{1024}});
    if (capacity > static_cast<size_t>(std::numeric_limits<cl_int>::max()) || planes() * capacity > max_alloc_)
        throw Error(ErrorKind::OutOfResources,
                    "training histograms: " + std::to_string(capacity) + " samples of " + std::to_string(planes()) +
                        " bytes need more than the " + std::to_string(max_alloc_ >> 20) + " MiB " + device_name_ +
                        " allocates at once; use fewer samples, fewer candidates or the CPU backend");
    cl::Buffer grown(context_, CL_MEM_READ_WRITE, planes() * capacity);
    if (on_device_ > 0) {
        std::vector<cl_int> identity(on_device_);
        std::iota(identity.begin(), identity.end(), 0);
        cl::Buffer source(context_, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, identity.size() * sizeof(cl_int),
                          identity.data());
        gather_kernel_.set("values_in", values_)
            .set("values_out", grown)
            .set("capacity_in", static_cast<cl_int>(capacity_))
            .set("capacity_out", static_cast<cl_int>(capacity))
            .set("planes", static_cast<cl_int>(planes()))
            .set("source", source)
            .set("count", static_cast<cl_int>(on_device_));
        launch_2d(gather_kernel_, on_device_, planes());
        queue_.finish();
    }
    values_ = grown;
    spare_values_ = cl::Buffer(); /* made at the size of the next keep() */
    capacity_ = capacity;
}

void OpenClHistograms::flush()
{
    try {
        const size_t pixels = static_cast<size_t>(set_.window.width) * set_.window.height;
        const size_t integral = static_cast<size_t>(set_.window.width + 1) * (set_.window.height + 1);
        const size_t batch = std::clamp<size_t>(kUploadBytes / (integral * sizeof(cl_uint)), 1, kUploadBatch);
        if (on_device_ < count()) {
            grow(count());
            if (!windows_buffer_()) {
                windows_buffer_ = cl::Buffer(context_, CL_MEM_READ_ONLY, batch * pixels);
                integrals_buffer_ = cl::Buffer(context_, CL_MEM_READ_WRITE, batch * integral * sizeof(cl_uint));
            }
            while (on_device_ < count()) {
                const size_t n = std::min(batch, count() - on_device_);
                const size_t done = on_device_ - (count() - pending_.size() / pixels);
                queue_.enqueueWriteBuffer(windows_buffer_, CL_FALSE, 0, n * pixels, pending_.data() + done * pixels);
                integrals_kernel_.set("windows", windows_buffer_)
                    .set("integrals", integrals_buffer_)
                    .set("width", static_cast<cl_int>(set_.window.width))
                    .set("height", static_cast<cl_int>(set_.window.height))
                    .set("count", static_cast<cl_int>(n));
                launch_2d(integrals_kernel_, n, 1);
                values_kernel_.set("integrals", integrals_buffer_)
                    .set("width", static_cast<cl_int>(set_.window.width))
                    .set("height", static_cast<cl_int>(set_.window.height))
                    .set("grids", grids_)
                    .set("grid_count", static_cast<cl_int>(set_.grids.size()))
                    .set("values", values_)
                    .set("capacity", static_cast<cl_int>(capacity_))
                    .set("first_sample", static_cast<cl_int>(on_device_))
                    .set("count", static_cast<cl_int>(n));
                launch_2d(values_kernel_, n, set_.grids.size());
                /* The next batch overwrites the windows and integrals. */
                queue_.finish();
                on_device_ += n;
            }
            pending_.clear();
        }
        if (labels_stale_ && count() > 0) {
            if (labels_capacity_ < count()) {
                labels_capacity_ = std::max(count(), capacity_);
                labels_buffer_ = cl::Buffer(context_, CL_MEM_READ_ONLY, labels_capacity_);
            }
            queue_.enqueueWriteBuffer(labels_buffer_, CL_TRUE, 0, count(), labels_.data());
            labels_stale_ = false;
        }
    } catch (const cl::Error& e) {
        throw failed(e, "computing the feature values");
    }
}

void OpenClHistograms::keep(const std::vector<bool>& kept)
{
    if (kept.size() != count())
        throw Error(ErrorKind::BadParameter, "training histograms: " + std::to_string(kept.size()) +
                                                 " flags to keep for " + std::to_string(count()) + " samples");
    flush();
    std::vector<cl_int> source;
    for (size_t i = 0; i < kept.size(); ++i)
        if (kept[i])
            source.push_back(static_cast<cl_int>(i));
    if (source.size() == count())
        return;
    std::vector<uint8_t> labels(source.size());
    for (size_t k = 0; k < source.size(); ++k)
        labels[k] = labels_[static_cast<size_t>(source[k])];
    labels_.swap(labels);
    labels_stale_ = true;
    on_device_ = source.size();
    if (source.empty())
        return;
    try {
        if (!spare_values_())
            spare_values_ = cl::Buffer(context_, CL_MEM_READ_WRITE, planes() * capacity_);
        if (source_capacity_ < source.size()) {
            source_capacity_ = std::max(source.size(), capacity_);
            source_buffer_ = cl::Buffer(context_, CL_MEM_READ_ONLY, source_capacity_ * sizeof(cl_int));
        }
        queue_.enqueueWriteBuffer(source_buffer_, CL_FALSE, 0, source.size() * sizeof(cl_int), source.data());
        gather_kernel_.set("values_in", values_)
            .set("values_out", spare_values_)
            .set("capacity_in", static_cast<cl_int>(capacity_))
            .set("capacity_out", static_cast<cl_int>(capacity_))
            .set("planes", static_cast<cl_int>(planes()))
            .set("source", source_buffer_)
            .set("count", static_cast<cl_int>(source.size()));
        launch_2d(gather_kernel_, source.size(), planes());
        queue_.finish(); /* `source` is read before it goes */
        std::swap(values_, spare_values_);
    } catch (const cl::Error& e) {
        throw failed(e, "removing samples");
    }
}

void OpenClHistograms::clear()
{
    labels_.clear();
    pending_.clear();
    on_device_ = 0;
    labels_stale_ = true;
}

std::vector<uint8_t> OpenClHistograms::bins(size_t candidate)
{
    if (candidate >= set_.count())
        throw Error(ErrorKind::BadParameter, "training histograms: no candidate " + std::to_string(candidate));
    flush();
    const size_t n = count(), g = candidate / layout_.per_grid, k = candidate % layout_.per_grid;
    std::vector<uint8_t> out(n);
    if (n == 0)
        return out;
    try {
        if (set_.feature_type == FeatureType::Lbp) {
            read_and_wait(queue_, values_, g * capacity_, n, out.data());
            return out;
        }
        /* The pair's two rank planes, as FeatureLayout::bin() reads a grid's nine bytes. */
        const training::BlockPair& p = training::block_pairs()[k];
        std::vector<uint8_t> a(n), b(n);
        read_and_wait(queue_, values_, (g * 9 + static_cast<size_t>(p.a)) * capacity_, n, a.data());
        read_and_wait(queue_, values_, (g * 9 + static_cast<size_t>(p.b)) * capacity_, n, b.data());
        for (size_t i = 0; i < n; ++i) {
            uint8_t v[9] = {};
            v[p.a] = a[i];
            v[p.b] = b[i];
            out[i] = static_cast<uint8_t>(layout_.bin(v, k));
        }
    } catch (const cl::Error& e) {
        throw failed(e, "reading a candidate's values");
    }
    return out;
}

void OpenClHistograms::upload_weights(const std::vector<uint64_t>& weights)
{
    if (weights.size() != count())
        throw Error(ErrorKind::BadParameter, "training histograms: " + std::to_string(weights.size()) +
                                                 " weights for " + std::to_string(count()) + " samples");
    flush();
    if (weights.empty())
        return;
    try {
        if (weights_capacity_ < weights.size()) {
            weights_capacity_ = std::max(weights.size(), capacity_);
            weights_buffer_ = cl::Buffer(context_, CL_MEM_READ_ONLY, weights_capacity_ * sizeof(cl_ulong));
        }
        queue_.enqueueWriteBuffer(weights_buffer_, CL_TRUE, 0, weights.size() * sizeof(cl_ulong), weights.data());
    } catch (const cl::Error& e) {
        throw failed(e, "uploading the weights");
    }
}

size_t OpenClHistograms::chunk_candidates() const
{
    /* A whole number of work-groups' candidates, about kChunkBytes of sums. */
    const size_t per_chunk =
        std::max<size_t>(1, kChunkBytes / (2 * layout_.bins * sizeof(cl_ulong)) / group_candidates_);
    return per_chunk * group_candidates_;
}

cl::Event OpenClHistograms::enqueue_chunk(size_t first, size_t n, int buffer, uint64_t* out)
{
    const size_t groups = (n + group_candidates_ - 1) / group_candidates_;
    histogram_kernel_.set("values", values_)
        .set("labels", labels_buffer_)
        .set("weights", weights_buffer_)
        .set("capacity", static_cast<cl_int>(capacity_))
        .set("count", static_cast<cl_int>(count()))
        .set("first_candidate", static_cast<cl_int>(first))
        .set("candidates", static_cast<cl_int>(n))
        .set("sums", sums_buffers_[buffer]);
    queue_.enqueueNDRangeKernel(histogram_kernel_.ready(), cl::NullRange, cl::NDRange(groups * group_size_),
                                cl::NDRange(group_size_));
    cl::Event read;
    queue_.enqueueReadBuffer(sums_buffers_[buffer], CL_FALSE, 0, n * 2 * layout_.bins * sizeof(cl_ulong), out, nullptr,
                             &read);
    queue_.flush();
    return read;
}

void OpenClHistograms::histograms(const std::vector<uint64_t>& weights, size_t first, size_t n, uint64_t* out)
{
    if (first > set_.count() || n > set_.count() - first)
        throw Error(ErrorKind::BadParameter, "training histograms: candidates " + std::to_string(first) + " to " +
                                                 std::to_string(first + n) + " of " + std::to_string(set_.count()));
    upload_weights(weights);
    const size_t bins = layout_.bins;
    if (count() == 0) {
        std::fill(out, out + n * 2 * bins, uint64_t{0});
        return;
    }
    try {
        for (size_t at = first; at < first + n; at += chunk_candidates())
            enqueue_chunk(at, std::min(chunk_candidates(), first + n - at), 0, out + (at - first) * 2 * bins).wait();
    } catch (const cl::Error& e) {
        throw failed(e, "summing the weights per bin");
    }
}

Choice OpenClHistograms::best(const std::vector<uint64_t>& weights)
{
    upload_weights(weights); /* once for every chunk */
    const size_t bins = layout_.bins, total = set_.count(), chunk = chunk_candidates();
    Choice chosen;
    if (count() == 0) {
        const std::vector<uint64_t> zeros(2 * bins, 0);
        return Choice{training::real_adaboost_z(zeros.data(), zeros.data() + bins, bins), 0};
    }
    /* Two chunks in flight: the device sums one while the host computes
     * the previous one's Z. */
    std::vector<uint64_t> sums[2];
    cl::Event read[2];
    size_t first_of[2] = {0, 0}, count_of[2] = {0, 0};
    auto reduce = [&](int b) {
        read[b].wait();
        for (size_t c = 0; c < count_of[b]; ++c) {
            const uint64_t* neg = sums[b].data() + c * 2 * bins;
            const Choice candidate{training::real_adaboost_z(neg, neg + bins, bins), first_of[b] + c};
            if (candidate.better_than(chosen))
                chosen = candidate;
        }
    };
    try {
        int b = 0;
        for (size_t first = 0; first < total; first += chunk, b ^= 1) {
            const size_t n = std::min(chunk, total - first);
            sums[b].resize(n * 2 * bins);
            first_of[b] = first;
            count_of[b] = n;
            read[b] = enqueue_chunk(first, n, b, sums[b].data());
            if (first > 0)
                reduce(b ^ 1);
        }
        reduce(b ^ 1);
    } catch (const cl::Error& e) {
        throw failed(e, "summing the weights per bin");
    }
    return chosen;
}

}  // namespace

std::unique_ptr<training::HistogramBackend>
make_opencl_histograms(CandidateSet set, std::shared_ptr<SharedDevice> device, size_t work_group_size)
{
    return std::make_unique<OpenClHistograms>(std::move(set), std::move(device), work_group_size);
}

std::function<std::unique_ptr<training::HistogramBackend>(const CandidateSet&)>
opencl_histograms(const std::string& device_spec, std::string* device_name, size_t work_group_size)
{
    const SelectedDevice selected = select_device(device_spec);
    size_t chosen = 0;
    std::shared_ptr<SharedDevice> shared;
    try {
        shared = SharedDevice::least_used({selected.device}, &chosen);
    } catch (const cl::Error& e) {
        throw to_error(e, "making an OpenCL context on " + selected.info.device_name);
    }
    if (device_name)
        *device_name = selected.info.device_name;
    return [shared, work_group_size](const CandidateSet& set) {
        return make_opencl_histograms(set, shared, work_group_size);
    };
}

}  // namespace waldboost::opencl
