/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "streams.h"

#include <gst/app/gstappsrc.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cstdio>
#include <functional>

#include "element.h"

namespace pipeline_bench {

namespace {

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
    if (index != n || got != want)
        stream->mismatches.add([&] {
            return "stream " + std::to_string(stream->index) + " buffer " + std::to_string(n) + " (frame " +
                   std::to_string(index) + "): " + boxes_text(got) + " instead of " + boxes_text(want);
        });
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
        /* Only a stream's first EOS counts: a pipeline can post two. GstBin
         * checks for EOS both when it reaches PLAYING and when a sink's EOS
         * comes, and when the two meet each can post (a one-frame stream
         * under AddressSanitizer in CI: "2 of 1 streams finished"). */
        if (!stream->ended) {
            stream->ended = true;
            stream->eos_at = now;
            ++run->eos;
        }
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
    default: break;
    }
    gst_message_unref(message);
    return GST_BUS_DROP;
}

/* Frame k of a stream: its timestamp, and its number as the offset, which
 * the check reads at the sink. */
void stamp(GstBuffer* b, int k)
{
    GST_BUFFER_PTS(b) = gst_util_uint64_scale(static_cast<guint64>(k), GST_SECOND, kFps);
    GST_BUFFER_DURATION(b) = gst_util_uint64_scale(1, GST_SECOND, kFps);
    GST_BUFFER_OFFSET(b) = static_cast<guint64>(k);
}

/* The body of start_writer's thread. */
void write_frames(Stream* st, const FrameSet& set, const Settings& s)
{
    const size_t distinct = set.images.size();
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
        size = static_cast<guint>(gst_buffer_get_size(set.buffers[0]));
    }
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, size, std::max(min, 8u), 0);
    gst_buffer_pool_set_config(pool, config);
    gst_buffer_pool_set_active(pool, TRUE);
    for (int k = 1; k < s.frames; ++k) {
        GstBuffer* b = nullptr;
        if (gst_buffer_pool_acquire_buffer(pool, &b, nullptr) != GST_FLOW_OK)
            break;
        GstBuffer* source = set.buffers[static_cast<size_t>(k) % distinct];
        GstMapInfo frame;
        gst_buffer_map(source, &frame, GST_MAP_READ);
        gst_buffer_fill(b, 0, frame.data, frame.size);
        gst_buffer_unmap(source, &frame);
        stamp(b, k);
        if (gst_app_src_push_buffer(GST_APP_SRC(st->src), b) != GST_FLOW_OK)
            break;
    }
    gst_app_src_end_of_stream(GST_APP_SRC(st->src));
    gst_buffer_pool_set_active(pool, FALSE);
    gst_object_unref(pool);
    gst_caps_unref(caps);
    gst_object_unref(pad);
}

/* --after's elements for stream `index`, "{stream}" replaced by it, as one
 * bin with ghost pads; null, after `fail`, when they cannot be made. */
GstElement* make_after(const std::string& description, size_t index,
                       const std::function<void(const std::string&)>& fail)
{
    std::string text = description;
    const std::string key = "{stream}";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at))
        text.replace(at, key.size(), std::to_string(index));
    GError* e = nullptr;
    GstElement* bin = gst_parse_bin_from_description(text.c_str(), TRUE, &e);
    if (!bin || e) {
        fail("--after \"" + text + "\": " + (e ? e->message : "cannot be made"));
        g_clear_error(&e);
        if (bin)
            gst_object_unref(bin);
        return nullptr;
    }
    return bin;
}

}  // namespace

std::unique_ptr<Stream> make_stream(RunState& run, size_t index, GstCaps* caps, const Settings& s, bool with_detector,
                                    std::string* error)
{
    auto fail = [&](const std::string& why) {
        if (error->empty())
            *error = why;
    };
    auto stream = std::make_unique<Stream>();
    stream->run = &run;
    stream->index = index;
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
        return nullptr;
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
        stream->after = s.after.empty() ? nullptr : make_after(s.after, index, fail);
        if (stream->after) {
            gst_bin_add(GST_BIN(stream->pipeline), stream->after);
            linked = gst_element_link_many(stream->src, stream->detect, stream->after, sink, nullptr);
        } else {
            linked = s.after.empty() && gst_element_link_many(stream->src, stream->detect, sink, nullptr);
        }
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
    return stream;
}

std::string feed_up_front(Stream& stream, const FrameSet& set, const Settings& s)
{
    std::string error;
    const size_t distinct = set.buffers.size();
    for (int k = 0; k < s.frames; ++k) {
        GstBuffer* b = gst_buffer_copy(set.buffers[static_cast<size_t>(k) % distinct]);
        stamp(b, k);
        if (gst_app_src_push_buffer(GST_APP_SRC(stream.src), b) != GST_FLOW_OK) {
            error = "stream " + std::to_string(stream.index) + ": appsrc refused a buffer";
            break;
        }
    }
    gst_app_src_end_of_stream(GST_APP_SRC(stream.src));
    return error;
}

std::thread start_writer(Stream& stream, const FrameSet& set, const Settings& s)
{
    g_object_set(stream.src, "max-bytes", static_cast<guint64>(set.images[0].pixels.size() * 4), "block", TRUE,
                 nullptr);
    return std::thread(write_frames, &stream, std::cref(set), std::cref(s));
}

}  // namespace pipeline_bench
