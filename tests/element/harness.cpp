/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared harness of the element tests (harness.h says what is in it).
 */
#include "harness.h"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include <gst/video/gstvideometa.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/model/classifier_io.h"
#include "tools/common/image_file.h"

namespace element_test {

/* ------------------------------------------------------------------------ */
/* Environment and data                                                     */

bool have_test_data() { return file_exists(test_data("astronaut.png")); }

bool cpu_device_case(const char* test)
{
    if (env_or("WALDBOOST_TEST_NO_CPU_DEVICE", "0") != "1")
        return true;
    g_print("%s: not run, it asks for device=cpu and this machine has none (WALDBOOST_TEST_NO_CPU_DEVICE=1)\n", test);
    return false;
}

const GrayImage& astronaut()
{
    static const GrayImage image = waldboost::tools::load_gray_image(test_data("astronaut.png"));
    return image;
}

GrayImage crop(const GrayImage& src, int x, int y, int w, int h, uint8_t fill)
{
    GrayImage out(w, h, fill);
    for (int yy = 0; yy < h; ++yy)
        for (int xx = 0; xx < w; ++xx)
            if (x + xx >= 0 && x + xx < src.width && y + yy >= 0 && y + yy < src.height)
                out.at(xx, yy) = src.at(x + xx, y + yy);
    return out;
}

GrayImage face_frame(int k) { return crop(astronaut(), 110 + 3 * k, 25 + 2 * k, 200, 160); }

GrayImage faces_side_by_side()
{
    GrayImage img(400, 160);
    const GrayImage left = face_frame(0), right = face_frame(6);
    for (int y = 0; y < 160; ++y)
        for (int x = 0; x < 200; ++x) {
            img.at(x, y) = left.at(x, y);
            img.at(200 + x, y) = right.at(x, y);
        }
    return img;
}

GrayImage synthetic(int w, int h, int seed)
{
    GrayImage img(w, h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            img.at(x, y) = static_cast<uint8_t>((x * 3 + y * 5 + seed * 17 + ((x * y) % 7) * 9) & 0xff);
    return img;
}

std::string temporary_text_file(const std::string& text)
{
    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-test-XXXXXX.xml", &path, nullptr);
    fail_unless(fd >= 0, "no temporary file");
    fail_unless(write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()));
    close(fd);
    const std::string result = path;
    g_free(path);
    return result;
}

std::string temporary_classifier_file(const Classifier& c)
{
    return temporary_text_file(waldboost::write_waldboost_xml(c));
}

std::string uniform_classifier_file(const std::string& label, int weak, float final_threshold)
{
    Classifier c;
    c.label = label;
    c.window_width = 24;
    c.window_height = 24;
    c.final_threshold = final_threshold;
    waldboost::WeakClassifier w;
    w.feature = waldboost::LbpFeature{0, 0, 1, 1};
    std::get<waldboost::LbpFeature>(w.feature).responses.fill(1.0f);
    w.reject_threshold = waldboost::kNoRejection;
    c.weak.assign(static_cast<size_t>(weak), w);
    return temporary_classifier_file(c);
}

/* ------------------------------------------------------------------------ */
/* The core's answer                                                         */

std::vector<Detection> core(const GrayView& view, const DetectParams& params, const Classifier& classifier)
{
    return waldboost::detect(classifier, view, params);
}

std::vector<Detection> core(const GrayImage& img, const DetectParams& params, const Classifier& classifier)
{
    return core(img.view(), params, classifier);
}

DetectParams params_mn(int min_neighbors)
{
    DetectParams p;
    p.min_neighbors = min_neighbors;
    return p;
}

waldboost::Size size_for_width(const Classifier& c, int width)
{
    return waldboost::Size{
        width, static_cast<int>(std::lround(static_cast<double>(width) * c.window_height / c.window_width))};
}

std::string describe(const std::vector<Box>& boxes)
{
    if (boxes.empty())
        return "(none)";
    std::string s;
    char line[200];
    for (const Box& b : boxes) {
        g_snprintf(line, sizeof line, "[%s %d,%d %dx%d n=%d c=%.9g] ", b.label.c_str(), b.x, b.y, b.w, b.h, b.neighbors,
                   b.confidence);
        s += line;
    }
    return s;
}

std::vector<Box> expected_boxes(const std::vector<Detection>& detections, const std::string& label, int dx, int dy)
{
    std::vector<Box> boxes;
    for (const Detection& d : detections) {
        Box b;
        b.label = label;
        b.x = d.rect.x + dx;
        b.y = d.rect.y + dy;
        b.w = d.rect.width;
        b.h = d.rect.height;
        b.neighbors = d.neighbors;
        b.confidence = static_cast<double>(waldboost::confidence_from_neighbors(d.neighbors));
        boxes.push_back(b);
    }
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

std::vector<Box> roi_boxes(GstBuffer* buffer)
{
    std::vector<Box> boxes;
    gpointer state = nullptr;
    GstMeta* meta;
    while ((meta = gst_buffer_iterate_meta_filtered(buffer, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
        auto* roi = reinterpret_cast<GstVideoRegionOfInterestMeta*>(meta);
        Box b;
        b.label = g_quark_to_string(roi->roi_type);
        b.x = static_cast<int>(roi->x);
        b.y = static_cast<int>(roi->y);
        b.w = static_cast<int>(roi->w);
        b.h = static_cast<int>(roi->h);
        const GstStructure* s = gst_video_region_of_interest_meta_get_param(roi, "detection");
        if (s) {
            gst_structure_get_int(s, "neighbors", &b.neighbors);
            gst_structure_get_double(s, "confidence", &b.confidence);
        }
        boxes.push_back(b);
    }
    std::sort(boxes.begin(), boxes.end());
    return boxes;
}

/* ------------------------------------------------------------------------ */
/* Harness, frames, recording                                               */

GstElement* make_element(const Props& props)
{
    GstElement* e = gst_element_factory_make("waldboostdetect", nullptr);
    fail_unless(e != nullptr, "no waldboostdetect element (is GST_PLUGIN_PATH the plugin's build folder?)");
    /* As gst-launch-1.0 reads a value, but a property the element lacks or a
     * text it cannot take fails the test: gst_util_set_object_arg would
     * only log it, and the case would run at the default. */
    for (const auto& [name, value] : props) {
        GParamSpec* pspec = g_object_class_find_property(G_OBJECT_GET_CLASS(e), name.c_str());
        fail_unless(pspec != nullptr, "waldboostdetect has no property %s", name.c_str());
        GValue v = G_VALUE_INIT;
        g_value_init(&v, G_PARAM_SPEC_VALUE_TYPE(pspec));
        fail_unless(gst_value_deserialize_with_pspec(&v, value.c_str(), pspec), "%s=%s is not a value of %s",
                    name.c_str(), value.c_str(), name.c_str());
        g_object_set_property(G_OBJECT(e), name.c_str(), &v);
        g_value_unset(&v);
    }
    return e;
}

GstHarness* harness_with(const Props& props)
{
    GstElement* e = make_element(props);
    GstHarness* h = gst_harness_new_with_element(e, "sink", "src");
    gst_object_unref(e);
    return h;
}

GstBus* attach_bus(GstHarness* h)
{
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    return bus;
}

void teardown_with_bus(GstHarness* h, GstBus* bus)
{
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}

GstCaps* caps_for(GstVideoFormat format, int width, int height, int fps_n, int fps_d)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, width, height);
    GST_VIDEO_INFO_FPS_N(&info) = fps_n;
    GST_VIDEO_INFO_FPS_D(&info) = fps_d;
    return gst_video_info_to_caps(&info);
}

void set_caps(GstHarness* h, GstVideoFormat format, int width, int height, int fps_n, int fps_d)
{
    gst_harness_set_src_caps(h, caps_for(format, width, height, fps_n, fps_d));
}

GstBuffer* make_frame(const GrayImage& image, GstVideoFormat format, GstClockTime pts, int pad_bytes, Sent* sent)
{
    GstVideoInfo info;
    gst_video_info_set_format(&info, format, image.width, image.height);
    if (pad_bytes > 0) {
        GstVideoAlignment align;
        gst_video_alignment_reset(&align);
        align.padding_right = static_cast<guint>(pad_bytes);
        /* g_assert, not fail_unless: the fault helper runs outside libcheck. */
        const gboolean aligned = gst_video_info_align(&info, &align);
        g_assert(aligned);
    }
    GstBuffer* buffer = gst_buffer_new_allocate(nullptr, GST_VIDEO_INFO_SIZE(&info), nullptr);
    {
        GstMapInfo map;
        gst_buffer_map(buffer, &map, GST_MAP_WRITE);
        for (gsize i = 0; i < map.size; ++i)
            map.data[i] = static_cast<guint8>((i * 37 + 11) & 0xff);
        gst_buffer_unmap(buffer, &map);
    }
    if (pad_bytes > 0)
        gst_buffer_add_video_meta_full(buffer, GST_VIDEO_FRAME_FLAG_NONE, format, image.width, image.height,
                                       GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
    GstVideoFrame frame;
    const gboolean mapped = gst_video_frame_map(&frame, &info, buffer, GST_MAP_WRITE);
    g_assert(mapped);
    for (int y = 0; y < image.height; ++y) {
        guint8* row = static_cast<guint8*>(GST_VIDEO_FRAME_COMP_DATA(&frame, 0)) +
                      static_cast<gsize>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&frame, 0);
        const int pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0);
        for (int x = 0; x < image.width; ++x)
            row[x * pstride] = image.at(x, y);
    }
    const bool rgb = GST_VIDEO_INFO_IS_RGB(&info);
    for (guint c = 1; c < GST_VIDEO_FRAME_N_COMPONENTS(&frame); ++c) {
        const int cw = GST_VIDEO_FRAME_COMP_WIDTH(&frame, c), ch = GST_VIDEO_FRAME_COMP_HEIGHT(&frame, c);
        const int pstride = GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, c);
        for (int y = 0; y < ch; ++y) {
            guint8* row = static_cast<guint8*>(GST_VIDEO_FRAME_COMP_DATA(&frame, c)) +
                          static_cast<gsize>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&frame, c);
            for (int x = 0; x < cw; ++x)
                row[x * pstride] = !rgb ? 128 : c < 3 ? image.at(x, y) : 255;
        }
    }
    gst_video_frame_unmap(&frame);
    GST_BUFFER_PTS(buffer) = pts;
    GST_BUFFER_DURATION(buffer) = kFrameDuration;
    if (sent) {
        sent->image = image;
        sent->format = format;
        sent->info = info;
        sent->has_meta = pad_bytes > 0;
        sent->pts = pts;
        sent->bytes.resize(gst_buffer_get_size(buffer));
        gst_buffer_extract(buffer, 0, sent->bytes.data(), sent->bytes.size());
    }
    return buffer;
}

GstClockTime pts_of(int index) { return static_cast<GstClockTime>(index) * kFrameDuration; }

GstFlowReturn push_frame(GstHarness* h, const GrayImage& image, GstVideoFormat format, int index,
                         std::vector<Sent>* sent, int pad_bytes)
{
    Sent s;
    GstBuffer* b = make_frame(image, format, pts_of(index), pad_bytes, &s);
    if (sent)
        sent->push_back(std::move(s));
    return gst_harness_push(h, b);
}

std::vector<GstBuffer*> pull_all(GstHarness* h)
{
    std::vector<GstBuffer*> out;
    while (GstBuffer* b = gst_harness_try_pull(h))
        out.push_back(b);
    return out;
}

std::vector<GstBuffer*> run_frames(const Props& props, const std::vector<GrayImage>& frames, GstBus** bus)
{
    GstHarness* h = harness_with(props);
    GstBus* b = attach_bus(h);
    set_caps(h, GST_VIDEO_FORMAT_GRAY8, frames.at(0).width, frames.at(0).height);
    for (size_t k = 0; k < frames.size(); ++k)
        fail_unless_equals_int(push_frame(h, frames[k], GST_VIDEO_FORMAT_GRAY8, static_cast<int>(k)), GST_FLOW_OK);
    push_eos(h);
    std::vector<GstBuffer*> out = pull_all(h);
    fail_unless_equals_int(out.size(), frames.size());
    gst_element_set_bus(h->element, nullptr);
    if (bus)
        *bus = b;
    else
        gst_object_unref(b);
    gst_harness_teardown(h);
    return out;
}

void unref_all(std::vector<GstBuffer*>& buffers)
{
    for (GstBuffer* b : buffers)
        gst_buffer_unref(b);
    buffers.clear();
}

void push_eos(GstHarness* h) { fail_unless(gst_harness_push_event(h, gst_event_new_eos()), "EOS refused"); }

void push_flush(GstHarness* h)
{
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()), "FLUSH_START refused");
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)), "FLUSH_STOP refused");
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)), "SEGMENT refused");
}

std::vector<uint8_t> bytes_of(GstBuffer* b)
{
    std::vector<uint8_t> bytes(gst_buffer_get_size(b));
    gst_buffer_extract(b, 0, bytes.data(), bytes.size());
    return bytes;
}

static GstPadProbeReturn record_probe(GstPad*, GstPadProbeInfo* info, gpointer data)
{
    auto* r = static_cast<Recorder*>(data);
    Item item;
    if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER) {
        item.buffer = true;
        item.pts = GST_BUFFER_PTS(GST_PAD_PROBE_INFO_BUFFER(info));
    } else if (GST_PAD_PROBE_INFO_TYPE(info) & (GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM | GST_PAD_PROBE_TYPE_EVENT_FLUSH)) {
        GstEvent* e = GST_PAD_PROBE_INFO_EVENT(info);
        item.event = GST_EVENT_TYPE(e);
        if (item.event == GST_EVENT_CAPS) {
            GstCaps* caps;
            gst_event_parse_caps(e, &caps);
            const GstStructure* s = gst_caps_get_structure(caps, 0);
            gst_structure_get_int(s, "width", &item.width);
            gst_structure_get_int(s, "height", &item.height);
        }
    } else {
        return GST_PAD_PROBE_OK;
    }
    std::lock_guard<std::mutex> g(r->lock);
    r->items.push_back(item);
    return GST_PAD_PROBE_OK;
}

void record(GstHarness* h, Recorder* r)
{
    gst_pad_add_probe(h->sinkpad,
                      static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                                                   GST_PAD_PROBE_TYPE_EVENT_FLUSH),
                      record_probe, r, nullptr);
}

int check_buffers_under_their_caps(const std::vector<Item>& items, const std::vector<std::pair<int, int>>& sizes)
{
    int w = 0, h = 0, seen = 0;
    for (const Item& i : items) {
        if (i.event == GST_EVENT_CAPS) {
            w = i.width;
            h = i.height;
        } else if (i.buffer) {
            const int k = static_cast<int>(i.pts / kFrameDuration);
            fail_unless_equals_int(k, seen);
            fail_unless(k < static_cast<int>(sizes.size()), "frame %d left, of %zu sent", k, sizes.size());
            fail_unless(w == sizes[k].first && h == sizes[k].second, "frame %d (%dx%d) left under caps %dx%d", k,
                        sizes[k].first, sizes[k].second, w, h);
            ++seen;
        }
    }
    return seen;
}

std::vector<GstClockTime> buffer_pts(const std::vector<Item>& items)
{
    std::vector<GstClockTime> pts;
    for (const Item& i : items)
        if (i.buffer)
            pts.push_back(i.pts);
    return pts;
}

std::string describe_pts(const std::vector<GstClockTime>& pts)
{
    std::string s;
    for (GstClockTime t : pts) {
        s += GST_CLOCK_TIME_IS_VALID(t) ? std::to_string(t / (kFrameDuration ? kFrameDuration : 1)) : "none";
        s += " ";
    }
    return s.empty() ? "(none)" : s;
}

int frame_index(GstBuffer* b) { return static_cast<int>(GST_BUFFER_PTS(b) / kFrameDuration); }

std::vector<GstMessage*> pop_element_messages(GstBus* bus, const char* name)
{
    std::vector<GstMessage*> out;
    while (GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT)) {
        if (gst_message_has_name(m, name))
            out.push_back(m);
        else
            gst_message_unref(m);
    }
    return out;
}

ErrorInfo pop_message(GstBus* bus, GstMessageType type)
{
    ErrorInfo info;
    GstMessage* m = gst_bus_pop_filtered(bus, type);
    if (!m)
        return info;
    GError* error = nullptr;
    gchar* debug = nullptr;
    if (type == GST_MESSAGE_ERROR)
        gst_message_parse_error(m, &error, &debug);
    else
        gst_message_parse_warning(m, &error, &debug);
    info.found = true;
    info.domain = error->domain;
    info.code = error->code;
    info.message = error->message ? error->message : "";
    info.debug = debug ? debug : "";
    g_error_free(error);
    g_free(debug);
    gst_message_unref(m);
    return info;
}

ErrorInfo pop_error(GstBus* bus) { return pop_message(bus, GST_MESSAGE_ERROR); }

bool contains(const std::string& haystack, const std::string& needle)
{
    return haystack.find(needle) != std::string::npos;
}

ErrorInfo start_failure(const Props& props)
{
    GstElement* e = make_element(props);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(e, bus);
    const GstStateChangeReturn ret = gst_element_set_state(e, GST_STATE_PLAYING);
    fail_unless_equals_int(ret, GST_STATE_CHANGE_FAILURE);
    ErrorInfo info = pop_error(bus);
    fail_unless(info.found, "the failed start posted no error message");
    fail_unless_equals_int(gst_element_set_state(e, GST_STATE_NULL), GST_STATE_CHANGE_SUCCESS);
    gst_element_set_bus(e, nullptr);
    gst_object_unref(bus);
    gst_object_unref(e);
    return info;
}

BusLog drain_bus(GstBus* bus)
{
    BusLog log;
    while (GstMessage* m = gst_bus_pop(bus)) {
        const GstMessageType type = GST_MESSAGE_TYPE(m);
        if (type == GST_MESSAGE_WARNING || type == GST_MESSAGE_ERROR) {
            GError* error = nullptr;
            gchar* debug = nullptr;
            if (type == GST_MESSAGE_ERROR)
                gst_message_parse_error(m, &error, &debug);
            else
                gst_message_parse_warning(m, &error, &debug);
            ErrorInfo info;
            info.found = true;
            info.domain = error->domain;
            info.code = error->code;
            info.message = error->message ? error->message : "";
            info.debug = debug ? debug : "";
            g_error_free(error);
            g_free(debug);
            (type == GST_MESSAGE_ERROR ? log.errors : log.warnings).push_back(info);
        }
        gst_message_unref(m);
    }
    return log;
}

guint64 stats_uint64(GstElement* e, const char* field)
{
    GstStructure* st = nullptr;
    g_object_get(e, "stats", &st, nullptr);
    guint64 value = G_MAXUINT64;
    if (st)
        gst_structure_get_uint64(st, field, &value);
    if (st)
        gst_structure_free(st);
    return value;
}

int int_property(GstElement* e, const char* name)
{
    int v = 0;
    g_object_get(e, name, &v, nullptr);
    return v;
}

/* ------------------------------------------------------------------------ */
/* Box outlines (draw=burn / meta)                                          */

std::vector<Rect> outline_rects(const std::vector<Box>& boxes, int frame_w, int frame_h, int line_width)
{
    std::vector<Rect> rects;
    auto add = [&](int x, int y, int w, int h) {
        x = std::clamp(x, 0, frame_w);
        y = std::clamp(y, 0, frame_h);
        w = std::min(w, frame_w - x);
        h = std::min(h, frame_h - y);
        if (w > 0 && h > 0)
            rects.push_back(Rect{x, y, w, h});
    };
    for (const Box& b : boxes) {
        const int lw = std::min({line_width, b.w / 2, b.h / 2});
        if (lw <= 0)
            continue;
        add(b.x, b.y, b.w, lw);
        add(b.x, b.y + b.h - lw, b.w, lw);
        add(b.x, b.y + lw, lw, b.h - 2 * lw);
        add(b.x + b.w - lw, b.y + lw, lw, b.h - 2 * lw);
    }
    std::sort(rects.begin(), rects.end());
    return rects;
}

std::vector<bool> outline_mask(const std::vector<Rect>& rects, int w, int h)
{
    std::vector<bool> mask(static_cast<size_t>(w) * h, false);
    for (const Rect& r : rects)
        for (int y = r.y; y < r.y + r.h; ++y)
            for (int x = r.x; x < r.x + r.w; ++x)
                mask[static_cast<size_t>(y) * w + x] = true;
    return mask;
}

PlanePair component(const Sent& sent, GstBuffer* out, guint c)
{
    PlanePair p;
    GstBuffer* in = gst_buffer_new_allocate(nullptr, sent.bytes.size(), nullptr);
    gst_buffer_fill(in, 0, sent.bytes.data(), sent.bytes.size());
    if (sent.has_meta) {
        GstVideoInfo info = sent.info;
        gst_buffer_add_video_meta_full(in, GST_VIDEO_FRAME_FLAG_NONE, sent.format, sent.image.width, sent.image.height,
                                       GST_VIDEO_INFO_N_PLANES(&info), info.offset, info.stride);
    }
    GstVideoFrame fin, fout;
    fail_unless(gst_video_frame_map(&fin, &sent.info, in, GST_MAP_READ));
    fail_unless(gst_video_frame_map(&fout, &sent.info, out, GST_MAP_READ));
    p.w = GST_VIDEO_FRAME_COMP_WIDTH(&fin, c);
    p.h = GST_VIDEO_FRAME_COMP_HEIGHT(&fin, c);
    const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&fin, c);
    for (int y = 0; y < p.h; ++y) {
        const guint8* a = static_cast<const guint8*>(GST_VIDEO_FRAME_COMP_DATA(&fin, c)) +
                          static_cast<gsize>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&fin, c);
        const guint8* b = static_cast<const guint8*>(GST_VIDEO_FRAME_COMP_DATA(&fout, c)) +
                          static_cast<gsize>(y) * GST_VIDEO_FRAME_COMP_STRIDE(&fout, c);
        for (int x = 0; x < p.w; ++x) {
            p.before.push_back(a[x * ps]);
            p.after.push_back(b[x * ps]);
        }
    }
    gst_video_frame_unmap(&fin);
    gst_video_frame_unmap(&fout);
    gst_buffer_unref(in);
    return p;
}

int check_burn(const Sent& sent, GstBuffer* out, const std::vector<Box>& boxes, int line_width, const char* what)
{
    const int W = sent.image.width, H = sent.image.height;
    const std::vector<Rect> rects = outline_rects(boxes, W, H, line_width);
    fail_unless(!rects.empty(), "%s: no outline to check (the test needs detections)", what);
    const std::vector<bool> mask = outline_mask(rects, W, H);
    const PlanePair luma = component(sent, out, 0);
    int value = -1;
    size_t changed = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            const size_t i = static_cast<size_t>(y) * W + x;
            if (mask[i]) {
                if (value < 0)
                    value = luma.after[i];
                fail_unless(luma.after[i] == value,
                            "%s: outline pixel (%d,%d) is %d, other outline pixels are %d (colour not uniform)", what,
                            x, y, luma.after[i], value);
                changed += luma.after[i] != luma.before[i];
            } else {
                fail_unless(luma.after[i] == luma.before[i],
                            "%s: luma pixel (%d,%d) outside every box outline changed from %d to %d", what, x, y,
                            luma.before[i], luma.after[i]);
            }
        }
    fail_unless(changed > 0, "%s: no outline pixel changed: nothing was drawn", what);
    for (guint c = 1; c < GST_VIDEO_INFO_N_COMPONENTS(&sent.info); ++c) {
        const PlanePair chroma = component(sent, out, c);
        const int sx = (W + chroma.w - 1) / chroma.w, sy = (H + chroma.h - 1) / chroma.h;
        for (int cy = 0; cy < chroma.h; ++cy)
            for (int cx = 0; cx < chroma.w; ++cx) {
                const size_t i = static_cast<size_t>(cy) * chroma.w + cx;
                if (chroma.after[i] == chroma.before[i])
                    continue;
                bool touches = false;
                for (int y = cy * sy; y < std::min(H, cy * sy + sy) && !touches; ++y)
                    for (int x = cx * sx; x < std::min(W, cx * sx + sx) && !touches; ++x)
                        touches = mask[static_cast<size_t>(y) * W + x];
                fail_unless(touches, "%s: chroma %u sample (%d,%d) changed away from every outline", what, c, cx, cy);
            }
    }
    return value;
}
DrawRun run_draw(const Props& props, const GrayImage& img, GstVideoFormat format, bool downstream_overlay_meta)
{
    DrawRun r;
    GstHarness* h = harness_with(props);
    if (downstream_overlay_meta)
        gst_harness_add_propose_allocation_meta(h, GST_VIDEO_OVERLAY_COMPOSITION_META_API_TYPE, nullptr);
    set_caps(h, format, img.width, img.height);
    fail_unless_equals_int(push_frame(h, img, format, 0, &r.sent), GST_FLOW_OK);
    push_eos(h);
    r.out = pull_all(h);
    fail_unless_equals_int(r.out.size(), 1);
    gst_harness_teardown(h);
    return r;
}

/* ------------------------------------------------------------------------ */
/* Fault injection (a separate process per fault)                           */

/* The fault helper program, element-fault-helper: meson gives its path. */
static std::string fault_helper_exe()
{
    const std::string path = env_or("WALDBOOST_FAULT_HELPER", "");
    fail_unless(!path.empty(), "WALDBOOST_FAULT_HELPER is not set: it names the element-fault-helper program "
                               "(meson test sets it)");
    return path;
}

int run_fault_helper(const char* mode, const char* fault, std::string* output)
{
    const std::string exe = fault_helper_exe();
    gchar* argv[] = {const_cast<gchar*>(exe.c_str()), const_cast<gchar*>(mode), nullptr};
    gchar** envp = g_get_environ();
    envp = g_environ_setenv(envp, "WALDBOOST_CL_FAULT", fault, TRUE);
    gchar *out = nullptr, *err = nullptr;
    gint status = -1;
    GError* error = nullptr;
    const gboolean ok =
        g_spawn_sync(nullptr, argv, envp, G_SPAWN_DEFAULT, nullptr, nullptr, &out, &err, &status, &error);
    g_strfreev(envp);
    fail_unless(ok, "could not run the fault helper: %s", error ? error->message : "?");
    *output = std::string(out ? out : "") + std::string(err ? err : "");
    g_free(out);
    g_free(err);
    return g_spawn_check_wait_status(status, nullptr) ? 0 : (WIFEXITED(status) ? WEXITSTATUS(status) : 128);
}

}  // namespace element_test
