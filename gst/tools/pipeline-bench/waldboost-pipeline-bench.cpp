/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-pipeline-bench: many streams in one process. For every frame
 * size and every number of streams N it times, in one run on the same real
 * frames, classifier and device:
 *
 *   engine   N engines (core/opencl/engine.h) on the device, one thread
 *            each, with as many frames in flight as the element keeps
 *   source   N pipelines appsrc ! fakesink sync=false: what feeding the
 *            frames costs without detection
 *   element  N pipelines appsrc ! waldboostdetect ! fakesink sync=false,
 *            one per stream, all started together
 *
 * and, during the element run, the fraction of the wall time in which the
 * device ran kernels of some instance (the element's stats, device-busy-ms).
 * Every output buffer of every stream must carry, as region-of-interest
 * metas, the boxes one engine gives for that frame on its own; the tool
 * counts the frames that do not and exits non-zero when there are any.
 *
 * Frames are real images (PNG, JPEG... through gdk-pixbuf) and/or raw GRAY8
 * files of concatenated frames, stretched to each size with the core's
 * bit-exact resize as waldboost-bench does. They become GstBuffers once,
 * before anything is timed; each appsrc gets its whole stream up front
 * (buffers that share the frames' memory, timestamped, then EOS), so the
 * source costs a queue pop per frame.
 */
#include <gst/app/gstappsrc.h>
#include <gst/gst.h>
#include <gst/video/video.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <numeric>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/embedded/default_classifier.h"
#include "core/error.h"
#include "core/model/classifier_io.h"
#include "core/opencl/detector_settings.h"
#include "core/opencl/engine.h"
#include "options.h"
#include "pipeline_bench_version.h"
#include "tools/common/image_file.h"
#include "tools/common/json_text.h"

namespace {

using Clock = std::chrono::steady_clock;
using waldboost::GrayImage;
namespace wcl = waldboost::opencl;
using Boxes = std::vector<std::array<int, 4>>;
using pipeline_bench::kFps;
using pipeline_bench::kTool;
using pipeline_bench::Settings;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

using waldboost::tools::json_string;

std::string fmt(double v, const char* f = "%.1f")
{
    if (v < 0)
        return "n/a";
    char b[32];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

/* Boxes in a canonical order, so that only the set of boxes counts. */
Boxes boxes_of(const std::vector<waldboost::Detection>& detections)
{
    Boxes boxes;
    for (const waldboost::Detection& d : detections)
        boxes.push_back({d.rect.x, d.rect.y, d.rect.width, d.rect.height});
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

/* The objects' boxes: parts (eyes-profile, mouth-profile) name their object
 * as parent_id and are not the engine's to compare with. */
Boxes meta_boxes(GstBuffer* buffer)
{
    Boxes boxes;
    gpointer state = nullptr;
    while (GstMeta* meta = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE)) {
        const auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        if (roi->parent_id >= 0)
            continue;
        boxes.push_back({static_cast<int>(roi->x), static_cast<int>(roi->y), static_cast<int>(roi->w),
                         static_cast<int>(roi->h)});
    }
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

std::string boxes_text(const Boxes& boxes)
{
    std::string text = "[";
    for (const auto& b : boxes)
        text += (text.size() > 1 ? " " : "") + std::to_string(b[0]) + "," + std::to_string(b[1]) + "," +
                std::to_string(b[2]) + "x" + std::to_string(b[3]);
    return text + "]";
}

/* The frames of one size: images, GRAY8 buffers that wrap them (no copy),
 * and the boxes one engine gives for each. */
struct FrameSet {
    waldboost::Size size;
    std::vector<GrayImage> images;
    std::vector<Boxes> expected;
    std::vector<GstBuffer*> buffers;
    std::string device; /* the reference engine's, described */

    FrameSet() = default;
    FrameSet(const FrameSet&) = delete;
    FrameSet& operator=(const FrameSet&) = delete;
    ~FrameSet()
    {
        for (GstBuffer* b : buffers)
            gst_buffer_unref(b);
    }
};

/* One part (engine, source or element) of one row. */
struct Part {
    bool ran = false;
    std::string error;            /* empty: it ran to the end */
    std::vector<std::string> warnings;
    double wall_s = 0;            /* start to the last stream's end */
    uint64_t frames = 0;          /* frames timed, all streams */
    std::vector<double> stream_fps;
    double busy_ms = -1;          /* device kernel time during the run (union), -1: unknown */
    double host_ms = -1;          /* the element's host time per frame (stats host-total-ms / frames), -1: unknown */
    double host_detected_ms = -1; /* per frame the engine searched, -1: none */
    double host_other_ms = -1;    /* per frame that skipped detection (interval), -1: none */
    uint64_t mismatches = 0;      /* frames whose boxes differ from the reference, or lost */
    std::string first_mismatch;

    bool ok() const { return ran && error.empty(); }
    double total_fps() const { return wall_s > 0 ? static_cast<double>(frames) / wall_s : 0; }
    double min_fps() const { return stream_fps.empty() ? 0 : *std::min_element(stream_fps.begin(), stream_fps.end()); }
    double mean_fps() const
    {
        return stream_fps.empty() ? 0
                                  : std::accumulate(stream_fps.begin(), stream_fps.end(), 0.0) /
                                        static_cast<double>(stream_fps.size());
    }
    double busy_fraction() const { return busy_ms >= 0 && wall_s > 0 ? busy_ms * 1e-3 / wall_s : -1; }
};

struct Row {
    waldboost::Size size;
    int streams = 0;
    size_t distinct = 0; /* frames the streams go round */
    Part engine, source, element;
};

/* ------------------------------------------------------------------------ */
/* The engine alone                                                         */

/* N engines, one thread each: set up and warmed (every distinct frame once,
 * checked), then started together; each keeps up to the element's
 * max-inflight frames in flight (fewer when they do not fit the device, as
 * the element does) and checks every frame it collects. */
Part run_engines(const Settings& s, const waldboost::Classifier& classifier, const FrameSet& set, int streams)
{
    Part part;
    part.ran = true;
    std::mutex lock;
    std::condition_variable cv;
    int ready = 0, finished = 0;
    bool go = false, stop = false, release = false;
    std::weak_ptr<const wcl::BusyTime> busy;
    std::vector<std::string> errors(static_cast<size_t>(streams));
    std::vector<uint64_t> done(static_cast<size_t>(streams), 0), mismatches(static_cast<size_t>(streams), 0);
    std::vector<Clock::time_point> ended(static_cast<size_t>(streams));
    std::vector<std::string> first_mismatch(static_cast<size_t>(streams));
    Clock::time_point start;
    const size_t distinct = set.images.size();
    const uint64_t frames = static_cast<uint64_t>(s.frames);

    auto worker = [&](size_t i) {
        std::unique_ptr<wcl::Engine> engine;
        auto check = [&](const wcl::FrameResult& r, uint64_t n) {
            if (boxes_of(r.detections) != set.expected[n % distinct]) {
                if (!mismatches[i]++)
                    first_mismatch[i] = "engine " + std::to_string(i) + " frame " + std::to_string(n) + ": " +
                                        boxes_text(boxes_of(r.detections)) + " instead of " +
                                        boxes_text(set.expected[n % distinct]);
            }
        };
        try {
            engine = std::make_unique<wcl::Engine>(classifier, s.engine);
            for (size_t k = 0; k < distinct; ++k)
                check(engine->detect(set.images[k].view(), s.params), k);
        } catch (const std::exception& e) {
            errors[i] = e.what();
        }
        {
            std::unique_lock<std::mutex> guard(lock);
            if (engine && busy.expired())
                busy = engine->device_busy_counter();
            ++ready;
            cv.notify_all();
            cv.wait(guard, [&] { return go || stop; });
        }
        if (engine && !stop) {
            try {
                uint64_t submitted = 0, collected = 0;
                while (collected < frames) {
                    const size_t limit =
                        std::max<size_t>(1, std::min(engine->in_flight_limit(),
                                                     static_cast<size_t>(s.engine.max_in_flight)));
                    if (submitted < frames && engine->in_flight() < limit) {
                        engine->submit(set.images[submitted % distinct].view(), s.params);
                        ++submitted;
                    } else {
                        const std::optional<wcl::FrameResult> r = engine->collect();
                        check(*r, collected);
                        ++collected;
                    }
                }
                done[i] = collected;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
            ended[i] = Clock::now();
        }
        std::unique_lock<std::mutex> guard(lock);
        ++finished;
        cv.notify_all();
        /* The engines stay until the device's busy time is read. */
        cv.wait(guard, [&] { return release; });
    };

    std::vector<std::thread> threads;
    for (int i = 0; i < streams; ++i)
        threads.emplace_back(worker, static_cast<size_t>(i));
    double busy_before = 0;
    {
        std::unique_lock<std::mutex> guard(lock);
        cv.wait(guard, [&] { return ready == streams; });
        for (const std::string& e : errors)
            if (!e.empty())
                stop = true;
        if (const auto counter = busy.lock())
            busy_before = static_cast<double>(counter->total_ns()) * 1e-6;
        start = Clock::now();
        go = true;
        cv.notify_all();
        cv.wait(guard, [&] { return finished == streams; });
        const auto counter = busy.lock();
        if (counter && !stop && s.element.profiling)
            part.busy_ms = static_cast<double>(counter->total_ns()) * 1e-6 - busy_before;
        release = true;
        cv.notify_all();
    }
    for (std::thread& t : threads)
        t.join();

    for (size_t i = 0; i < errors.size(); ++i)
        if (!errors[i].empty() && part.error.empty())
            part.error = "engine " + std::to_string(i) + ": " + errors[i];
    for (size_t i = 0; i < mismatches.size(); ++i) {
        part.mismatches += mismatches[i];
        if (part.first_mismatch.empty())
            part.first_mismatch = first_mismatch[i];
    }
    if (!part.error.empty())
        return part;
    Clock::time_point last = start;
    for (size_t i = 0; i < done.size(); ++i) {
        const double t = seconds(ended[i] - start);
        part.stream_fps.push_back(t > 0 ? static_cast<double>(done[i]) / t : 0);
        part.frames += done[i];
        last = std::max(last, ended[i]);
    }
    part.wall_s = seconds(last - start);
    return part;
}

/* ------------------------------------------------------------------------ */
/* Pipelines                                                                */

struct RunState;

/* One stream: appsrc ! [waldboostdetect !] fakesink. Its counters are
 * written by its streaming thread and read after its EOS. */
struct Stream {
    RunState* run = nullptr;
    size_t index = 0;
    GstElement* pipeline = nullptr;
    GstElement* src = nullptr;
    GstElement* detect = nullptr;
    uint64_t seen = 0;       /* buffers at the sink */
    uint64_t timed = 0;      /* buffers that left the source after the start */
    uint64_t mismatches = 0;
    std::string first_mismatch;
    Clock::time_point eos_at;
};

struct RunState {
    const FrameSet* set = nullptr;
    bool check = false;
    std::atomic<bool> timing{false};
    std::mutex lock;
    std::condition_variable cv;
    int eos = 0;
    std::string error;
    std::vector<std::string> warnings;
};

/* At the source's pad: the frames that count are those that leave the
 * source after the start. The frames the preroll left in flight were done
 * on the device before it (the preroll of every stream is waited for), so
 * the frames counted are the frames whose work the timed run holds. */
GstPadProbeReturn on_source_buffer(GstPad*, GstPadProbeInfo*, gpointer data)
{
    Stream* stream = static_cast<Stream*>(data);
    if (stream->run->timing.load(std::memory_order_relaxed))
        ++stream->timed;
    return GST_PAD_PROBE_OK;
}

/* At the sink's pad: the check. */
GstPadProbeReturn on_buffer(GstPad*, GstPadProbeInfo* info, gpointer data)
{
    Stream* stream = static_cast<Stream*>(data);
    RunState* run = stream->run;
    GstBuffer* buffer = GST_PAD_PROBE_INFO_BUFFER(info);
    const uint64_t n = stream->seen++;
    if (!run->check)
        return GST_PAD_PROBE_OK;
    /* In order, once each, with its own frame's boxes. */
    const uint64_t index = GST_BUFFER_OFFSET(buffer);
    const Boxes& want = run->set->expected[index % run->set->expected.size()];
    const Boxes got = meta_boxes(buffer);
    if (index != n || got != want) {
        if (!stream->mismatches++)
            stream->first_mismatch = "stream " + std::to_string(stream->index) + " buffer " + std::to_string(n) +
                                     " (frame " + std::to_string(index) + "): " + boxes_text(got) + " instead of " +
                                     boxes_text(want);
    }
    return GST_PAD_PROBE_OK;
}

/* Called in the thread that posts: the EOS time is the last sink's own. */
GstBusSyncReply on_message(GstBus*, GstMessage* message, gpointer data)
{
    Stream* stream = static_cast<Stream*>(data);
    RunState* run = stream->run;
    auto describe = [&](bool error) {
        GError* e = nullptr;
        gchar* debug = nullptr;
        if (error)
            gst_message_parse_error(message, &e, &debug);
        else
            gst_message_parse_warning(message, &e, &debug);
        std::string text = "stream " + std::to_string(stream->index) + ", " +
                           (GST_MESSAGE_SRC(message) ? GST_OBJECT_NAME(GST_MESSAGE_SRC(message)) : "?") + ": " +
                           (e ? e->message : "?");
        if (debug)
            text += std::string(" (") + debug + ")";
        g_clear_error(&e);
        g_free(debug);
        return text;
    };
    switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_EOS: {
        const Clock::time_point now = Clock::now();
        std::lock_guard<std::mutex> guard(run->lock);
        stream->eos_at = now;
        ++run->eos;
        run->cv.notify_all();
        break;
    }
    case GST_MESSAGE_ERROR: {
        const std::string text = describe(true);
        std::lock_guard<std::mutex> guard(run->lock);
        if (run->error.empty())
            run->error = text;
        run->cv.notify_all();
        break;
    }
    case GST_MESSAGE_WARNING: {
        const std::string text = describe(false);
        std::lock_guard<std::mutex> guard(run->lock);
        if (run->warnings.size() < 8)
            run->warnings.push_back(text);
        break;
    }
    default:
        break;
    }
    gst_message_unref(message);
    return GST_BUS_DROP;
}

/* The element's host time and frames (stats host-total-ms, frames), and
 * those of the frames it searched (host-detected-total-ms,
 * detected-frames), summed over instances. */
struct HostTime {
    double total_ms = 0, detected_ms = 0;
    uint64_t frames = 0, detected = 0;

    void add(GstElement* detect)
    {
        GstStructure* st = nullptr;
        g_object_get(detect, "stats", &st, nullptr);
        double ms = 0, detected_total = 0;
        guint64 n = 0, searched = 0;
        if (st && gst_structure_get_double(st, "host-total-ms", &ms) && gst_structure_get_uint64(st, "frames", &n) &&
            gst_structure_get_double(st, "host-detected-total-ms", &detected_total) &&
            gst_structure_get_uint64(st, "detected-frames", &searched)) {
            total_ms += ms;
            frames += n;
            detected_ms += detected_total;
            detected += searched;
        }
        if (st)
            gst_structure_free(st);
    }
    static double per(double ms, uint64_t n) { return n ? ms / static_cast<double>(n) : -1; }
};

double device_busy_ms(GstElement* detect)
{
    GstStructure* st = nullptr;
    g_object_get(detect, "stats", &st, nullptr);
    double ms = -1;
    if (!st || !gst_structure_get_double(st, "device-busy-ms", &ms))
        ms = -1;
    if (st)
        gst_structure_free(st);
    return ms;
}

/* Applies --props to a waldboostdetect; "" or why not. */
std::string apply_props(GstElement* detect, const Settings& s)
{
    g_object_set(detect, "device", s.device.c_str(), "post-messages", FALSE, nullptr);
    gst_util_set_object_arg(G_OBJECT(detect), "draw", "none");
    if (!s.classifier_path.empty())
        g_object_set(detect, "classifier", s.classifier_path.c_str(), nullptr);
    for (const auto& [name, value] : s.props) {
        if (!g_object_class_find_property(G_OBJECT_GET_CLASS(detect), name.c_str()))
            return "waldboostdetect has no property '" + name + "'";
        gst_util_set_object_arg(G_OBJECT(detect), name.c_str(), value.c_str());
    }
    return "";
}

/* N pipelines, each given its whole stream up front; prerolled (the
 * element's engine set up, its first frame through), then all set to
 * PLAYING at once and timed until the last EOS. */
Part run_pipelines(const Settings& s, const FrameSet& set, int streams, bool with_detector)
{
    Part part;
    part.ran = true;
    RunState run;
    run.set = &set;
    run.check = with_detector && s.compare_boxes;
    std::vector<std::unique_ptr<Stream>> list;
    GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT,
                                        set.size.width, "height", G_TYPE_INT, set.size.height, "framerate",
                                        GST_TYPE_FRACTION, kFps, 1, nullptr);
    auto fail = [&](const std::string& why) {
        if (part.error.empty())
            part.error = why;
    };
    for (int i = 0; i < streams && part.error.empty(); ++i) {
        auto stream = std::make_unique<Stream>();
        stream->run = &run;
        stream->index = static_cast<size_t>(i);
        stream->pipeline = gst_pipeline_new(nullptr);
        stream->src = gst_element_factory_make("appsrc", nullptr);
        GstElement* sink = gst_element_factory_make("fakesink", nullptr);
        if (with_detector)
            stream->detect = gst_element_factory_make("waldboostdetect", nullptr);
        if (!stream->src || !sink || (with_detector && !stream->detect)) {
            fail("could not make appsrc, fakesink or waldboostdetect");
            for (GstElement* e : {stream->src, sink, stream->detect})
                if (e)
                    gst_object_unref(e);
            gst_object_unref(stream->pipeline);
            break;
        }
        g_object_set(stream->src, "caps", caps, "format", GST_FORMAT_TIME, "is-live", FALSE, "max-bytes",
                     static_cast<guint64>(0), nullptr);
        g_object_set(sink, "sync", FALSE, nullptr);
        gst_bin_add_many(GST_BIN(stream->pipeline), stream->src, sink, nullptr);
        bool linked;
        if (with_detector) {
            gst_bin_add(GST_BIN(stream->pipeline), stream->detect);
            const std::string why = apply_props(stream->detect, s);
            if (!why.empty())
                fail(why);
            linked = gst_element_link_many(stream->src, stream->detect, sink, nullptr);
        } else {
            linked = gst_element_link(stream->src, sink);
        }
        if (!linked)
            fail("could not link the pipeline");
        GstPad* pad = gst_element_get_static_pad(sink, "sink");
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, stream.get(), nullptr);
        gst_object_unref(pad);
        pad = gst_element_get_static_pad(stream->src, "src");
        gst_pad_add_probe(pad, GST_PAD_PROBE_TYPE_BUFFER, on_source_buffer, stream.get(), nullptr);
        gst_object_unref(pad);
        GstBus* bus = gst_element_get_bus(stream->pipeline);
        gst_bus_set_sync_handler(bus, on_message, stream.get(), nullptr);
        gst_object_unref(bus);
        list.push_back(std::move(stream));
    }
    gst_caps_unref(caps);

    std::vector<std::thread> feeders; /* --source-writes */
    struct JoinFeeders {
        std::vector<std::thread>& t;
        ~JoinFeeders()
        {
            for (std::thread& f : t)
                if (f.joinable())
                    f.join();
        }
    } join_feeders{feeders};
    const gint64 deadline = g_get_monotonic_time() + static_cast<gint64>(s.timeout_s * G_USEC_PER_SEC);
    auto left = [&] { return static_cast<GstClockTime>(std::max<gint64>(0, deadline - g_get_monotonic_time())) * 1000; };
    for (auto& stream : list) {
        if (!part.error.empty())
            break;
        if (gst_element_set_state(stream->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE) {
            fail("stream " + std::to_string(stream->index) + " could not pause");
            break;
        }
        /* The whole stream, round-robin over the frames: new buffers that
         * share the frames' memory, each with its own timestamp. */
        const size_t distinct = set.buffers.size();
        if (s.source_writes != "none") {
            /* A decoder-like source on a thread of its own, writing each
             * frame during the run into a buffer of the pool downstream
             * proposes ("proposed") or of a video pool of its own. */
            g_object_set(stream->src, "max-bytes", static_cast<guint64>(set.images[0].pixels.size() * 4), "block",
                         TRUE, nullptr);
            feeders.emplace_back([&set, &s, st = stream.get()] {
                const size_t distinct = set.images.size();
                auto stamp = [&](GstBuffer* b, int k) {
                    GST_BUFFER_PTS(b) = gst_util_uint64_scale(static_cast<guint64>(k), GST_SECOND, kFps);
                    GST_BUFFER_DURATION(b) = gst_util_uint64_scale(1, GST_SECOND, kFps);
                    GST_BUFFER_OFFSET(b) = static_cast<guint64>(k);
                };
                /* The first frame as a plain buffer: the caps go down with it. */
                GstBuffer* first = gst_buffer_copy(set.buffers[0]);
                stamp(first, 0);
                if (gst_app_src_push_buffer(GST_APP_SRC(st->src), first) != GST_FLOW_OK)
                    return;
                GstPad* pad = gst_element_get_static_pad(st->src, "src");
                GstCaps* caps = nullptr;
                g_object_get(st->src, "caps", &caps, nullptr);
                GstBufferPool* pool = nullptr;
                guint size = 0, min = 0, max = 0;
                /* Negotiated first: the element answers for its caps. */
                GstPad* peer = gst_pad_get_peer(pad);
                for (int tries = 0; tries < 5000 && peer && !gst_pad_has_current_caps(peer); ++tries)
                    g_usleep(200);
                if (peer)
                    gst_object_unref(peer);
                if (s.source_writes == "proposed") {
                    GstQuery* q = gst_query_new_allocation(caps, TRUE);
                    if (gst_pad_peer_query(pad, q) && gst_query_get_n_allocation_pools(q) > 0)
                        gst_query_parse_nth_allocation_pool(q, 0, &pool, &size, &min, &max);
                    gst_query_unref(q);
                }
                if (st->index == 0)
                    std::fprintf(stderr, "%s: the source writes into %s\n", kTool,
                                 pool ? G_OBJECT_TYPE_NAME(pool) : "a video pool of its own");
                if (!pool) {
                    pool = gst_video_buffer_pool_new();
                    size = static_cast<guint>(set.images[0].pixels.size());
                }
                GstStructure* config = gst_buffer_pool_get_config(pool);
                gst_buffer_pool_config_set_params(config, caps, size, std::max(min, 8u), 0);
                gst_buffer_pool_set_config(pool, config);
                gst_buffer_pool_set_active(pool, TRUE);
                for (int k = 1; k < s.frames; ++k) {
                    GstBuffer* b = nullptr;
                    if (gst_buffer_pool_acquire_buffer(pool, &b, nullptr) != GST_FLOW_OK)
                        break;
                    const GrayImage& image = set.images[static_cast<size_t>(k) % distinct];
                    gst_buffer_fill(b, 0, image.pixels.data(), image.pixels.size());
                    stamp(b, k);
                    if (gst_app_src_push_buffer(GST_APP_SRC(st->src), b) != GST_FLOW_OK)
                        break;
                }
                gst_app_src_end_of_stream(GST_APP_SRC(st->src));
                gst_buffer_pool_set_active(pool, FALSE);
                gst_object_unref(pool);
                gst_caps_unref(caps);
                gst_object_unref(pad);
            });
            continue;
        }
        for (int k = 0; k < s.frames; ++k) {
            GstBuffer* b = gst_buffer_copy(set.buffers[static_cast<size_t>(k) % distinct]);
            GST_BUFFER_PTS(b) = gst_util_uint64_scale(static_cast<guint64>(k), GST_SECOND, kFps);
            GST_BUFFER_DURATION(b) = gst_util_uint64_scale(1, GST_SECOND, kFps);
            GST_BUFFER_OFFSET(b) = static_cast<guint64>(k);
            if (gst_app_src_push_buffer(GST_APP_SRC(stream->src), b) != GST_FLOW_OK) {
                fail("stream " + std::to_string(stream->index) + ": appsrc refused a buffer");
                break;
            }
        }
        gst_app_src_end_of_stream(GST_APP_SRC(stream->src));
    }
    for (auto& stream : list) {
        if (!part.error.empty())
            break;
        const GstStateChangeReturn r = gst_element_get_state(stream->pipeline, nullptr, nullptr, left());
        if (r != GST_STATE_CHANGE_SUCCESS && r != GST_STATE_CHANGE_NO_PREROLL) {
            std::lock_guard<std::mutex> guard(run.lock);
            fail(!run.error.empty() ? run.error
                 : r == GST_STATE_CHANGE_ASYNC
                     ? "stream " + std::to_string(stream->index) + " did not preroll within the timeout"
                     : "stream " + std::to_string(stream->index) + " failed to preroll");
        }
    }
    {
        std::lock_guard<std::mutex> guard(run.lock);
        if (!run.error.empty())
            fail(run.error);
    }

    Clock::time_point start;
    double busy_before = -1;
    if (part.error.empty()) {
        if (with_detector)
            busy_before = device_busy_ms(list.front()->detect);
        start = Clock::now();
        run.timing = true;
        for (auto& stream : list)
            if (gst_element_set_state(stream->pipeline, GST_STATE_PLAYING) == GST_STATE_CHANGE_FAILURE)
                fail("stream " + std::to_string(stream->index) + " could not play");
        std::unique_lock<std::mutex> guard(run.lock);
        const bool done = run.cv.wait_for(guard, std::chrono::microseconds(left() / 1000), [&] {
            return run.eos == static_cast<int>(list.size()) || !run.error.empty();
        });
        if (!run.error.empty())
            fail(run.error);
        else if (!done)
            fail("timed out after " + fmt(s.timeout_s, "%.0f") + " s (" + std::to_string(run.eos) + " of " +
                 std::to_string(list.size()) + " streams finished)");
    }
    if (part.error.empty() && with_detector && s.element.profiling) {
        const double busy_after = device_busy_ms(list.front()->detect);
        if (busy_before >= 0 && busy_after >= 0)
            part.busy_ms = busy_after - busy_before;
    }
    for (auto& stream : list)
        gst_element_set_state(stream->pipeline, GST_STATE_NULL);
    for (std::thread& f : feeders)
        f.join();
    feeders.clear();
    if (part.error.empty() && with_detector) {
        HostTime host;
        for (auto& stream : list)
            host.add(stream->detect);
        part.host_ms = HostTime::per(host.total_ms, host.frames);
        part.host_detected_ms = HostTime::per(host.detected_ms, host.detected);
        part.host_other_ms = HostTime::per(host.total_ms - host.detected_ms, host.frames - host.detected);
    }
    {
        std::lock_guard<std::mutex> guard(run.lock);
        part.warnings = run.warnings;
    }
    if (part.error.empty()) {
        Clock::time_point last = start;
        for (auto& stream : list) {
            const double t = seconds(stream->eos_at - start);
            part.stream_fps.push_back(t > 0 ? static_cast<double>(stream->timed) / t : 0);
            part.frames += stream->timed;
            last = std::max(last, stream->eos_at);
            /* A frame that never came out is a mismatch too. */
            const uint64_t lost = stream->seen < static_cast<uint64_t>(s.frames)
                                      ? static_cast<uint64_t>(s.frames) - stream->seen
                                      : 0;
            if (lost && stream->first_mismatch.empty())
                stream->first_mismatch = "stream " + std::to_string(stream->index) + ": " + std::to_string(lost) +
                                         " frames lost";
            part.mismatches += stream->mismatches + lost;
            if (part.first_mismatch.empty())
                part.first_mismatch = stream->first_mismatch;
        }
        part.wall_s = seconds(last - start);
    }
    for (auto& stream : list)
        gst_object_unref(stream->pipeline);
    return part;
}

/* ------------------------------------------------------------------------ */
/* Frames and the reference                                                 */

/* What a waldboostdetect configured with --props is set to, read back from
 * its properties, for the engines alone. Its device and reduction
 * overrides are left out: the engines run on --device with the engine's
 * own reduction parameters. */
wcl::DetectorSettings element_settings(GstElement* detect, const std::string& device)
{
    gdouble scale = 1.1, nms_iou = 0.3, threshold = 0;
    gint stride = 0, min_neighbors = 3, min_size = 0, max_size = 0, grouping = 0, max_windows = 0, max_inflight = 2;
    gboolean batching = FALSE, profiling = FALSE;
    guint64 batch_wait = 0;
    g_object_get(detect, "scale-factor", &scale, "stride", &stride, "min-neighbors", &min_neighbors, "nms-iou",
                 &nms_iou, "threshold", &threshold, "min-size", &min_size, "max-size", &max_size, "grouping",
                 &grouping, "max-windows", &max_windows, "max-inflight", &max_inflight, "batching", &batching,
                 "batch-wait", &batch_wait, "profiling", &profiling, nullptr);
    GEnumClass* groupings = G_ENUM_CLASS(g_type_class_ref(
        G_PARAM_SPEC_VALUE_TYPE(g_object_class_find_property(G_OBJECT_GET_CLASS(detect), "grouping"))));
    const GEnumValue* nick = g_enum_get_value(groupings, grouping);
    const std::string grouping_nick = nick ? nick->value_nick : "opencv";
    g_type_class_unref(groupings);

    wcl::DetectorSettings settings;
    settings.scale_factor = scale;
    settings.stride = stride;
    settings.min_neighbors = min_neighbors;
    settings.nms_iou = nms_iou;
    settings.grouping = grouping_nick == "nms"    ? waldboost::Grouping::Nms
                        : grouping_nick == "none" ? waldboost::Grouping::None
                                                  : waldboost::Grouping::OpenCv;
    settings.min_size.width = min_size; /* widths: heights follow the window */
    settings.max_size.width = max_size;
    settings.threshold_offset = threshold;
    settings.max_windows = max_windows;
    settings.device = device;
    settings.max_inflight = max_inflight;
    settings.batching = batching;
    settings.batch_wait_ns = batch_wait;
    settings.profiling = profiling;
    return settings;
}

/* Reads a raw GRAY8 file of concatenated WxH frames. */
std::vector<GrayImage> load_raw(const std::string& path, waldboost::Size size)
{
    FILE* f = std::fopen(path.c_str(), "rb");
    if (!f)
        throw waldboost::Error(waldboost::ErrorKind::Io, "cannot open " + path);
    std::vector<GrayImage> frames;
    for (;;) {
        GrayImage frame(size.width, size.height);
        const size_t got = std::fread(frame.pixels.data(), 1, frame.pixels.size(), f);
        if (got == 0)
            break;
        if (got != frame.pixels.size()) {
            std::fclose(f);
            throw waldboost::Error(waldboost::ErrorKind::Io, path + " does not hold whole " +
                                                                 std::to_string(size.width) + "x" +
                                                                 std::to_string(size.height) + " GRAY8 frames");
        }
        frames.push_back(std::move(frame));
    }
    std::fclose(f);
    if (frames.empty())
        throw waldboost::Error(waldboost::ErrorKind::Io, path + " is empty");
    return frames;
}

/* The frames of a size: the source frames already of that size when there
 * are any (the raw files packed for the GPU machine hold each size's own),
 * else every source frame stretched to it. */
void prepare_frames(FrameSet& set, const std::vector<GrayImage>& sources, const Settings& s,
                    const waldboost::Classifier& classifier)
{
    for (const GrayImage& src : sources)
        if (src.width == set.size.width && src.height == set.size.height)
            set.images.push_back(src);
    if (set.images.empty())
        for (const GrayImage& src : sources)
            set.images.push_back(waldboost::resize_bilinear(src.view(), set.size));
    for (GrayImage& image : set.images)
        set.buffers.push_back(gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, image.pixels.data(),
                                                          image.pixels.size(), 0, image.pixels.size(), nullptr,
                                                          nullptr));
    /* The reference: one engine, one frame at a time. */
    wcl::EngineConfig config;
    config.device = s.device;
    config.max_in_flight = 1;
    wcl::Engine engine(classifier, config);
    set.device = wcl::describe(engine.device());
    for (const GrayImage& image : set.images)
        set.expected.push_back(boxes_of(engine.detect(image.view(), s.params).detections));
}

/* Loads the plugin: GST_PLUGIN_PATH when set (gst_init reads it), else the
 * build tree it was built in, else --plugin-dir; the registry may also hold
 * an installed one. */
bool find_plugin(const std::optional<std::string>& plugin_dir)
{
    GstRegistry* registry = gst_registry_get();
    if (plugin_dir)
        gst_registry_scan_path(registry, plugin_dir->c_str());
#ifdef WALDBOOST_PLUGIN_BUILD_DIR
    else if (!g_getenv("GST_PLUGIN_PATH") && !g_getenv("GST_PLUGIN_PATH_1_0") &&
             g_file_test(WALDBOOST_PLUGIN_BUILD_DIR, G_FILE_TEST_IS_DIR))
        gst_registry_scan_path(registry, WALDBOOST_PLUGIN_BUILD_DIR);
#endif
    GstElementFactory* factory = gst_element_factory_find("waldboostdetect");
    if (!factory)
        return false;
    gst_object_unref(factory);
    return true;
}

}  // namespace

int main(int argc, char** argv)
{
    pipeline_bench::Options options;
    if (!pipeline_bench::parse_options(&argc, &argv, &options))
        return 2;
    Settings& s = options.settings;

    if (!find_plugin(options.plugin_dir)) {
        std::fprintf(stderr, "%s: the waldboostdetect element was not found: set GST_PLUGIN_PATH to the folder "
                             "with libgstwaldboost.so, or give --plugin-dir\n", kTool);
        return 1;
    }

    std::vector<Row> rows;
    std::string device_name, classifier_name = s.classifier_path.empty() ? "embedded default (face)" : "";
    if (!s.classifier_path.empty())
        classifier_name = s.classifier_path.substr(s.classifier_path.find_last_of('/') + 1);
    /* The table (stdout and --markdown) and the JSON: written again after
     * every row, so that a run cut short by a timeout leaves its rows. */
    uint64_t mismatches = 0;
    bool failed = false;
    auto report = [&](bool print) {
        /* The table, on stdout and in --markdown. */
        std::string props_line = "draw=none post-messages=false";
        for (const auto& [name, value] : s.props)
            props_line += " " + name + "=" + value;
        std::string md;
        auto add = [&](const std::string& text) { md += text; };
        char line[1024];
        std::snprintf(line, sizeof line,
                      "Device: %s (spec \"%s\"); classifier: %s; %d frames per stream, round-robin over the frames of the size; "
                      "source writes %s; max-inflight %d; batching %s (wait %.3f ms); profiling %s; waldboostdetect %s; "
                      "commit %s%s\n\n",
                      device_name.c_str(), s.device.c_str(), classifier_name.c_str(), s.frames,
                      s.source_writes.c_str(),
                      s.element.max_inflight, s.element.batching ? "on" : "off",
                      static_cast<double>(s.element.batch_wait_ns) * 1e-6,
                      s.element.profiling ? "on" : "off",
                      props_line.c_str(), WALDBOOST_PIPELINE_BENCH_VERSION,
                      s.compare_boxes ? "; the objects' boxes compared with the engine's (parts are not)"
                                      : "; boxes not compared with the engine's (tracking or interval): mismatches "
                                        "are lost frames only");
        add(line);
        add("| frame | streams | engine fps | source fps | element fps/stream min | mean | element fps total | "
            "ms/frame | host ms/frame | host ms detection / other | % of engine | device busy | mismatches | status |\n");
        add("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        mismatches = 0;
        failed = false;
        for (const Row& r : rows) {
            const Part& e = r.element;
            std::string status = "ok";
            for (const auto& [name, p] : {std::pair<const char*, const Part*>{"engine", &r.engine},
                                          {"source", &r.source}, {"element", &r.element}})
                if (p->ran && !p->error.empty()) {
                    status = std::string(name) + " failed: " + p->error;
                    break;
                }
            if (status == "ok" && !e.warnings.empty())
                status = "ok; warning: " + e.warnings.front();
            for (char& c : status)
                if (c == '|' || c == '\n')
                    c = c == '|' ? '/' : ' ';
            const uint64_t bad = r.engine.mismatches + e.mismatches;
            mismatches += bad;
            failed = failed || (r.engine.ran && !r.engine.ok()) || (r.source.ran && !r.source.ok()) || !e.ok();
            const double engine_fps = r.engine.ok() ? r.engine.total_fps() : -1;
            std::snprintf(line, sizeof line,
                          "| %dx%d | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %llu | %s |\n",
                          r.size.width, r.size.height, r.streams, fmt(engine_fps).c_str(),
                          fmt(r.source.ok() ? r.source.total_fps() : -1, "%.0f").c_str(),
                          fmt(e.ok() ? e.min_fps() : -1).c_str(), fmt(e.ok() ? e.mean_fps() : -1).c_str(),
                          fmt(e.ok() ? e.total_fps() : -1).c_str(),
                          fmt(e.ok() && e.total_fps() > 0 ? 1000.0 / e.total_fps() : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_detected_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() ? e.host_other_ms : -1, "%.3f").c_str(),
                          fmt(e.ok() && engine_fps > 0 ? 100.0 * e.total_fps() / engine_fps : -1, "%.0f%%").c_str(),
                          fmt(e.ok() ? 100.0 * e.busy_fraction() : -1, "%.0f%%").c_str(),
                          static_cast<unsigned long long>(bad), status.c_str());
            md += line;
        }
        std::string per_size;
        for (size_t i = 0; i < rows.size(); ++i)
            if (i == 0 || rows[i].size != rows[i - 1].size)
                per_size += std::string(per_size.empty() ? "" : ", ") + std::to_string(rows[i].size.width) + "x" +
                            std::to_string(rows[i].size.height) + ": " + std::to_string(rows[i].distinct);
        if (!per_size.empty())
            md += "\nDistinct frames per size (each stream goes round them): " + per_size + "\n";
        for (const Row& r : rows)
            for (const Part* p : {&r.engine, &r.element})
                if (!p->first_mismatch.empty())
                    md += "\nFirst mismatch at " + std::to_string(r.size.width) + "x" + std::to_string(r.size.height) +
                          " x" + std::to_string(r.streams) + ": " + p->first_mismatch + "\n";
        if (print)
            std::fputs(md.c_str(), stdout);
        if (options.markdown_path) {
            FILE* f = std::fopen(options.markdown_path->c_str(), "w");
            if (!f || std::fputs(md.c_str(), f) < 0 || std::fclose(f) != 0) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.markdown_path->c_str());
                return false;
            }
        }

        if (options.json_path) {
            FILE* f = std::fopen(options.json_path->c_str(), "w");
            if (!f) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.json_path->c_str());
                return false;
            }
            auto part_json = [&](const Part& p) {
                std::string j = "{\"ran\": " + std::string(p.ran ? "true" : "false");
                if (!p.ran)
                    return j + "}";
                char b[512];
                std::snprintf(b, sizeof b,
                              ", \"ok\": %s, \"wall_s\": %.6f, \"frames\": %llu, \"fps_total\": %.3f, "
                              "\"fps_stream_min\": %.3f, \"fps_stream_mean\": %.3f, \"busy_ms\": %.4f, "
                              "\"busy_fraction\": %.4f, \"host_ms_per_frame\": %.4f, \"host_ms_per_detected_frame\": %.4f, "
                              "\"host_ms_per_other_frame\": %.4f, \"mismatches\": %llu",
                              p.ok() ? "true" : "false", p.wall_s, static_cast<unsigned long long>(p.frames),
                              p.total_fps(), p.min_fps(), p.mean_fps(), p.busy_ms, p.busy_fraction(), p.host_ms,
                              p.host_detected_ms, p.host_other_ms,
                              static_cast<unsigned long long>(p.mismatches));
                j += b;
                j += ", \"error\": " + json_string(p.error) + ", \"first_mismatch\": " + json_string(p.first_mismatch) +
                     ", \"warnings\": [";
                for (size_t i = 0; i < p.warnings.size(); ++i)
                    j += (i ? ", " : "") + json_string(p.warnings[i]);
                j += "], \"fps_per_stream\": [";
                for (size_t i = 0; i < p.stream_fps.size(); ++i) {
                    std::snprintf(b, sizeof b, "%s%.3f", i ? ", " : "", p.stream_fps[i]);
                    j += b;
                }
                return j + "]}";
            };
            std::fprintf(f,
                         "{\"tool\": \"%s\", \"commit\": %s, \"device\": %s, \"device_spec\": %s, \"classifier\": %s, "
                         "\"frames_per_stream\": %d, \"max_inflight\": %d, \"batching\": %s, \"batch_wait_ns\": %llu, "
                         "\"profiling\": %s, \"element_props\": %s, \"timeout_s\": %.1f, \"rows\": [\n",
                         kTool, json_string(WALDBOOST_PIPELINE_BENCH_VERSION).c_str(), json_string(device_name).c_str(),
                         json_string(s.device).c_str(), json_string(classifier_name).c_str(), s.frames,
                         s.element.max_inflight, s.element.batching ? "true" : "false",
                         static_cast<unsigned long long>(s.element.batch_wait_ns),
                         s.element.profiling ? "true" : "false", json_string(props_line).c_str(), s.timeout_s);
            for (size_t i = 0; i < rows.size(); ++i) {
                const Row& r = rows[i];
                const double engine_fps = r.engine.ok() ? r.engine.total_fps() : 0;
                std::fprintf(f,
                             "  {\"width\": %d, \"height\": %d, \"streams\": %d, \"distinct_frames\": %zu, "
                             "\"element_percent_of_engine\": %.2f, "
                             "\"engine\": %s,\n   \"source\": %s,\n   \"element\": %s}%s\n",
                             r.size.width, r.size.height, r.streams, r.distinct,
                             engine_fps > 0 && r.element.ok() ? 100.0 * r.element.total_fps() / engine_fps : -1.0,
                             part_json(r.engine).c_str(), part_json(r.source).c_str(), part_json(r.element).c_str(),
                             i + 1 < rows.size() ? "," : "");
            }
            std::fprintf(f, "]}\n");
            if (std::fclose(f) != 0) {
                std::fprintf(stderr, "%s: cannot write %s\n", kTool, options.json_path->c_str());
                return false;
            }
        }
        return true;
    };
    try {
        const waldboost::Classifier classifier = s.classifier_path.empty()
                                                     ? waldboost::default_classifier()
                                                     : waldboost::load_classifier_file(s.classifier_path);
        {
            /* The element's own defaults with --props on top. */
            GstElement* probe = gst_element_factory_make("waldboostdetect", nullptr);
            const std::string why = apply_props(probe, s);
            if (!why.empty()) {
                gst_object_unref(probe);
                std::fprintf(stderr, "%s: --props: %s\n", kTool, why.c_str());
                return 2;
            }
            s.element = element_settings(probe, s.device);
            gboolean tracking = FALSE;
            gint interval = 1;
            g_object_get(probe, "tracking", &tracking, "interval", &interval, nullptr);
            s.compare_boxes = !tracking && interval == 1;
            const wcl::DetectorParameters resolved = wcl::resolve_settings(s.element, classifier);
            s.params = resolved.detect;
            s.engine = resolved.engine;
            gst_object_unref(probe);
        }
        std::vector<GrayImage> sources;
        for (const std::string& image : options.images)
            sources.push_back(waldboost::tools::load_gray_image(image));
        for (size_t i = 0; i < options.raw_files.size(); ++i) {
            const std::string& text = options.raw_sizes[options.raw_sizes.size() == 1 ? 0 : i];
            const auto raw_size = pipeline_bench::parse_size(text);
            if (!raw_size) {
                std::fprintf(stderr, "%s: --raw-size: bad size '%s'\n", kTool, text.c_str());
                return 2;
            }
            for (GrayImage& f : load_raw(options.raw_files[i], *raw_size))
                sources.push_back(std::move(f));
        }

        for (size_t k = 0; k < options.sizes.size(); ++k) {
            FrameSet set;
            set.size = options.sizes[k];
            prepare_frames(set, sources, s, classifier);
            device_name = set.device;
            size_t faces = 0;
            for (const Boxes& b : set.expected)
                faces += b.size();
            std::fprintf(stderr, "%s: %dx%d: %zu frames, %zu boxes in all (reference: one engine on %s)\n", kTool,
                         set.size.width, set.size.height, set.images.size(), faces, set.device.c_str());
            for (const int n : options.streams_at[k]) {
                Row row;
                row.size = set.size;
                row.streams = n;
                row.distinct = set.images.size();
                if (options.time_engines)
                    row.engine = run_engines(s, classifier, set, n);
                if (options.time_source)
                    row.source = run_pipelines(s, set, n, false);
                row.element = run_pipelines(s, set, n, true);
                for (const Part* p : {&row.engine, &row.source, &row.element})
                    if (p->ran && !p->error.empty())
                        std::fprintf(stderr, "%s: %dx%d x%d failed: %s\n", kTool, set.size.width, set.size.height, n,
                                     p->error.c_str());
                std::fprintf(stderr, "%s: %dx%d x%d done: element %.1f fps in total, %llu mismatches\n", kTool,
                             set.size.width, set.size.height, n, row.element.total_fps(),
                             static_cast<unsigned long long>(row.element.mismatches + row.engine.mismatches));
                rows.push_back(std::move(row));
                report(false);
            }
        }
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", kTool, e.what());
        return 1;
    }

    if (!report(true))
        return 1;
    if (mismatches) {
        std::fprintf(stderr, "%s: %llu frames mismatched\n", kTool, static_cast<unsigned long long>(mismatches));
        return 1;
    }
    return failed ? 3 : 0;
}
