/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboostmetaconvert in a GstHarness: region-of-interest metas and track
 * events meta made here, as the detector makes them (docs/user-guide.md,
 * "Region-of-interest metadata") and with GStreamer 1.24 and later
 * GstAnalytics ODMtds, and the documents read back with
 * json-glib's parser. Every document seen is validated at the end against
 * data/waldboost-metadata.schema.json by validate_documents.py
 * (python3-jsonschema).
 */
#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#if WALDBOOST_HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

constexpr int kWidth = 320, kHeight = 240;
const char* kCaps = "video/x-raw,format=GRAY8,width=320,height=240,framerate=30/1";

/* Every document the tests saw goes to this file, for the schema check in
 * main(): check runs each test in a process of its own. */
std::string g_seen_path;

void seen(const std::string& doc)
{
    FILE* f = fopen(g_seen_path.c_str(), "a");
    fail_unless(f != nullptr);
    /* JSON lines: a pretty document becomes one line. */
    std::string line = doc;
    for (char& ch : line)
        if (ch == '\n')
            ch = ' ';
    fprintf(f, "%s\n", line.c_str());
    fclose(f);
}

GstHarness* converter()
{
    GstHarness* h = gst_harness_new("waldboostmetaconvert");
    gst_harness_set_src_caps_str(h, kCaps);
    return h;
}

GstBuffer* frame(GstClockTime pts)
{
    GstBuffer* b = gst_buffer_new_allocate(nullptr, kWidth * kHeight, nullptr);
    gst_buffer_memset(b, 0, 0x80, kWidth * kHeight);
    GST_BUFFER_PTS(b) = pts;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    return b;
}

/* An object as the detector attaches it; `track` >= 1 adds the track
 * fields. */
GstVideoRegionOfInterestMeta* add_object(GstBuffer* b, const char* label, guint x, guint y, guint w, guint h, int id,
                                         int parent, double confidence, int track_age = -1)
{
    GstVideoRegionOfInterestMeta* m = gst_buffer_add_video_region_of_interest_meta(b, label, x, y, w, h);
    m->id = id;
    m->parent_id = parent;
    GstStructure* s = gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, confidence, "neighbors", G_TYPE_INT,
                                        12, "score", G_TYPE_DOUBLE, 1.5, "id", G_TYPE_INT, id, nullptr);
    if (track_age >= 0)
        gst_structure_set(s, "age", G_TYPE_INT, track_age, "hits", G_TYPE_INT, track_age + 1, "detected",
                          G_TYPE_BOOLEAN, TRUE, nullptr);
    gst_video_region_of_interest_meta_add_param(m, s);
    return m;
}

/* The structure of the buffer's events meta, added if it has none. */
GstStructure* events_meta(GstBuffer* b)
{
    GstCustomMeta* meta = gst_buffer_get_custom_meta(b, "WaldboostTrackEventsMeta");
    if (!meta)
        meta = gst_buffer_add_custom_meta(b, "WaldboostTrackEventsMeta");
    fail_unless(meta != nullptr, "the events meta is registered by the plugin");
    return gst_custom_meta_get_structure(meta);
}

/* Appends an "event" to the events meta's structure `s`. */
void append_event(GstStructure* s, const char* kind, int id, const char* label, int x, int y, int w, int h)
{
    GValue list = G_VALUE_INIT;
    if (const GValue* old = gst_structure_get_value(s, "events"))
        g_value_init(&list, GST_TYPE_LIST), g_value_copy(old, &list);
    else
        g_value_init(&list, GST_TYPE_LIST);
    GValue item = G_VALUE_INIT;
    g_value_init(&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed(&item, gst_structure_new("event", "kind", G_TYPE_STRING, kind, "id", G_TYPE_INT, id, "x",
                                                G_TYPE_INT, x, "y", G_TYPE_INT, y, "width", G_TYPE_INT, w, "height",
                                                G_TYPE_INT, h, "label", G_TYPE_STRING, label, nullptr));
    gst_value_list_append_and_take_value(&list, &item);
    gst_structure_take_value(s, "events", &list);
}

void add_event(GstBuffer* b, const char* kind, int id, const char* label, int x, int y, int w, int h)
{
    append_event(events_meta(b), kind, id, label, x, y, w, h);
}

/* Sets the detector's open tracks after the frame in the events meta's
 * structure `s`, for `label`: {id, x, y, w, h} each. */
void set_open_list(GstStructure* s, const char* label, const std::vector<std::array<int, 5>>& tracks)
{
    GValue list = G_VALUE_INIT;
    g_value_init(&list, GST_TYPE_LIST);
    for (const std::array<int, 5>& t : tracks) {
        GValue item = G_VALUE_INIT;
        g_value_init(&item, GST_TYPE_STRUCTURE);
        g_value_take_boxed(&item,
                           gst_structure_new("track", "id", G_TYPE_INT, t[0], "x", G_TYPE_INT, t[1], "y", G_TYPE_INT,
                                             t[2], "width", G_TYPE_INT, t[3], "height", G_TYPE_INT, t[4], nullptr));
        gst_value_list_append_and_take_value(&list, &item);
    }
    gst_structure_set(s, "label", G_TYPE_STRING, label, nullptr);
    gst_structure_take_value(s, "open", &list);
}

void set_open(GstBuffer* b, const char* label, const std::vector<std::array<int, 5>>& tracks)
{
    set_open_list(events_meta(b), label, tracks);
}

std::vector<std::string> documents_of(GstBuffer* b)
{
    std::vector<std::string> docs;
    GstCustomMeta* meta = gst_buffer_get_custom_meta(b, "WaldboostJsonMeta");
    if (!meta)
        return docs;
    const GValue* array = gst_structure_get_value(gst_custom_meta_get_structure(meta), "documents");
    for (guint i = 0; array && i < gst_value_array_get_size(array); ++i)
        docs.emplace_back(g_value_get_string(gst_value_array_get_value(array, i)));
    for (const std::string& d : docs)
        seen(d);
    return docs;
}

/* The documents of the next buffer out of `h`. */
std::vector<std::string> pull_documents(GstHarness* h)
{
    GstBuffer* b = gst_harness_pull(h);
    fail_unless(b != nullptr);
    std::vector<std::string> docs = documents_of(b);
    gst_buffer_unref(b);
    return docs;
}

/* Pushes EOS; the documents of the custom event the converter sends ahead
 * of it (the tracks still open leave). */
std::vector<std::string> eos_documents(GstHarness* h)
{
    fail_unless(gst_harness_push_event(h, gst_event_new_eos()));
    GstEvent* ev = nullptr;
    while ((ev = gst_harness_try_pull_event(h)) && GST_EVENT_TYPE(ev) != GST_EVENT_CUSTOM_DOWNSTREAM)
        gst_event_unref(ev);
    fail_unless(ev != nullptr, "a custom event carries the left events at EOS");
    std::vector<std::string> docs;
    const GValue* array = gst_structure_get_value(gst_event_get_structure(ev), "documents");
    for (guint i = 0; array && i < gst_value_array_get_size(array); ++i)
        docs.emplace_back(g_value_get_string(gst_value_array_get_value(array, i)));
    gst_event_unref(ev);
    for (const std::string& d : docs)
        seen(d);
    return docs;
}

/* A parsed document, freed with the parser. */
struct Doc {
    JsonParser* parser = json_parser_new();
    JsonObject* root = nullptr;
    explicit Doc(const std::string& text)
    {
        GError* error = nullptr;
        fail_unless(json_parser_load_from_data(parser, text.c_str(), -1, &error), "not JSON: %s", text.c_str());
        root = json_node_get_object(json_parser_get_root(parser));
    }
    ~Doc() { g_object_unref(parser); }
    gint64 integer(const char* name) const { return json_object_get_int_member(root, name); }
    const char* string(const char* name) const { return json_object_get_string_member(root, name); }
};

gint64 parse_iso8601_ns(const std::string& text)
{
    GDateTime* t = g_date_time_new_from_iso8601(text.c_str(), nullptr);
    fail_unless(t != nullptr, "not ISO 8601: %s", text.c_str());
    const gint64 ns = g_date_time_to_unix(t) * GST_SECOND + g_date_time_get_microsecond(t) * GST_USECOND;
    g_date_time_unref(t);
    return ns;
}

gint64 thread_cpu_ns()
{
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<gint64>(t.tv_sec) * GST_SECOND + t.tv_nsec;
}

/* Lines in `path` now. */
int lines_in(const std::string& path)
{
    gchar* text = nullptr;
    gsize size = 0;
    if (!g_file_get_contents(path.c_str(), &text, &size, nullptr))
        return 0;
    int n = 0;
    for (gsize i = 0; i < size; ++i)
        n += text[i] == '\n';
    g_free(text);
    return n;
}

double stats_double(GstElement* e, const char* field)
{
    GstStructure* st = nullptr;
    g_object_get(e, "stats", &st, nullptr);
    double v = -1;
    fail_unless(st && gst_structure_get_double(st, field, &v), "stats has no %s", field);
    gst_structure_free(st);
    return v;
}

guint64 stats_uint64(GstElement* e, const char* field)
{
    GstStructure* st = nullptr;
    g_object_get(e, "stats", &st, nullptr);
    guint64 v = 0;
    fail_unless(st && gst_structure_get_uint64(st, field, &v), "stats has no %s", field);
    gst_structure_free(st);
    return v;
}

}  // namespace

/* The cost both publish elements report (what waldboost-pipeline-bench
 * --after sets beside the detector's host time): their streaming threads'
 * CPU time is this thread's (the harness pushes here), so it is above 0
 * and together at most what this thread spent pushing; the worker's is
 * there too, and all of it stays after the elements stop. The worker,
 * which no document wakes, still writes them all while the stream plays. */
GST_START_TEST(test_cost_stats)
{
    gchar* dir = g_dir_make_tmp("waldboost-cost-XXXXXX", nullptr);
    const std::string path = std::string(dir) + "/docs.jsonl";
    const std::string launch =
        "waldboostmetaconvert name=convert ! waldboostmetapublish name=publish file-path=" + path;
    GstHarness* h = gst_harness_new_parse(launch.c_str());
    gst_harness_set_src_caps_str(h, kCaps);
    GstElement* convert = gst_bin_get_by_name(GST_BIN(h->element), "convert");
    GstElement* publish = gst_bin_get_by_name(GST_BIN(h->element), "publish");
    constexpr int kFrames = 40, kObjects = 200;
    const gint64 before = thread_cpu_ns();
    for (int f = 0; f < kFrames; ++f) {
        GstBuffer* b = frame(static_cast<GstClockTime>(f) * GST_SECOND / 30);
        for (int k = 0; k < kObjects; ++k)
            add_object(b, "face", k % 300, k % 200, 20, 20, k, -1, 0.5);
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    }
    const double pushing_ms = static_cast<double>(thread_cpu_ns() - before) * 1e-6;
    for (int f = 0; f < kFrames; ++f)
        gst_buffer_unref(gst_harness_pull(h));
    fail_unless_equals_int(stats_uint64(convert, "frames"), kFrames);
    fail_unless_equals_int(stats_uint64(convert, "documents"), kFrames);
    fail_unless_equals_int(stats_uint64(publish, "frames"), kFrames);
    const double convert_ms = stats_double(convert, "host-total-ms");
    const double publish_ms = stats_double(publish, "host-total-ms");
    fail_unless(convert_ms > 0 && publish_ms > 0, "converter %.3f ms, publisher %.3f ms", convert_ms, publish_ms);
    fail_unless(convert_ms + publish_ms <= pushing_ms, "%.3f + %.3f ms counted of the %.3f ms this thread spent",
                convert_ms, publish_ms, pushing_ms);
    const gint64 deadline = g_get_monotonic_time() + 5 * G_USEC_PER_SEC;
    while (lines_in(path) < kFrames && g_get_monotonic_time() < deadline)
        g_usleep(10000);
    fail_unless_equals_int(lines_in(path), kFrames);
    gst_element_set_state(h->element, GST_STATE_NULL);
    fail_unless_equals_int(stats_uint64(publish, "frames"), kFrames);
    fail_unless_equals_float(stats_double(publish, "host-total-ms"), publish_ms);
    fail_unless(stats_double(publish, "worker-total-ms") > 0, "the worker wrote %d documents", kFrames);
    fail_unless_equals_float(stats_double(convert, "host-total-ms"), convert_ms);
    gst_object_unref(convert);
    gst_object_unref(publish);
    gst_harness_teardown(h);
    g_unlink(path.c_str());
    g_rmdir(dir);
    g_free(dir);
}
GST_END_TEST;

/* Objects, parts and track fields as the detector attaches them. */
GST_START_TEST(test_frame_document_objects)
{
    GstHarness* h = converter();
    g_object_set(h->element, "source-id", "cam-7", nullptr);
    GstBuffer* b = frame(2 * GST_SECOND);
    add_object(b, "face", 40, 30, 80, 96, 3, -1, 0.86, 5);
    add_object(b, "eye", 60, 50, 20, 12, 1 << 30, 3, 0.39);
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
    GstBuffer* out = gst_harness_pull(h);
    std::vector<std::string> docs = documents_of(out);
    fail_unless_equals_int(docs.size(), 1);
    fail_if(docs[0].find('\n') != std::string::npos, "compact is one line");
    Doc d(docs[0]);
    fail_unless_equals_string(d.string("schema"), "waldboost-metadata/1");
    fail_unless_equals_string(d.string("type"), "frame");
    fail_unless_equals_string(d.string("source"), "cam-7");
    fail_unless_equals_int64(d.integer("pts"), 2 * GST_SECOND);
    fail_unless_equals_int64(d.integer("timestamp"), 2 * GST_SECOND);
    fail_unless_equals_int64(d.integer("frame"), 0);
    JsonObject* res = json_object_get_object_member(d.root, "resolution");
    fail_unless_equals_int(json_object_get_int_member(res, "width"), kWidth);
    fail_unless_equals_int(json_object_get_int_member(res, "height"), kHeight);
    JsonArray* objects = json_object_get_array_member(d.root, "objects");
    fail_unless_equals_int(json_array_get_length(objects), 2);

    JsonObject* face = json_array_get_object_element(objects, 0);
    fail_unless_equals_int(json_object_get_int_member(face, "region_id"), 3);
    fail_unless_equals_int(json_object_get_int_member(face, "id"), 3);
    fail_if(json_object_has_member(face, "parent_id"), "an object has no parent");
    fail_unless_equals_int(json_object_get_int_member(face, "x"), 40);
    fail_unless_equals_int(json_object_get_int_member(face, "y"), 30);
    fail_unless_equals_int(json_object_get_int_member(face, "w"), 80);
    fail_unless_equals_int(json_object_get_int_member(face, "h"), 96);
    JsonObject* det = json_object_get_object_member(face, "detection");
    fail_unless_equals_string(json_object_get_string_member(det, "label"), "face");
    fail_unless_equals_float(json_object_get_double_member(det, "confidence"), 0.86);
    JsonObject* box = json_object_get_object_member(det, "bounding_box");
    fail_unless_equals_float(json_object_get_double_member(box, "x_min"), 40.0 / kWidth);
    fail_unless_equals_float(json_object_get_double_member(box, "x_max"), 120.0 / kWidth);
    fail_unless_equals_float(json_object_get_double_member(box, "y_min"), 30.0 / kHeight);
    fail_unless_equals_float(json_object_get_double_member(box, "y_max"), 126.0 / kHeight);
    JsonObject* track = json_object_get_object_member(face, "track");
    fail_unless_equals_int(json_object_get_int_member(track, "age"), 5);
    fail_unless_equals_int(json_object_get_int_member(track, "hits"), 6);
    fail_unless(json_object_get_boolean_member(track, "detected"));

    JsonObject* eye = json_array_get_object_element(objects, 1);
    fail_unless_equals_int(json_object_get_int_member(eye, "parent_id"), 3);
    fail_unless_equals_int(json_object_get_int_member(eye, "region_id"), 1 << 30);
    fail_if(json_object_has_member(eye, "id"), "a part is no track");
    fail_if(json_object_has_member(eye, "track"), "a part is no track");
    fail_unless_equals_string(json_object_get_string_member(json_object_get_object_member(eye, "detection"), "label"),
                              "eye");
    gst_buffer_unref(out);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* Each detector upstream leaves a search meta saying whether it passed the
 * frame without detection (element/search_meta.h, by its documented name):
 * the frame's document says detection_skipped true when one of them did,
 * false when each searched it, and nothing without a detector. The metas
 * of chained detectors: one that searched after one that skipped, and the
 * other way round. */
GST_START_TEST(test_detection_skipped)
{
    GstHarness* h = converter();
    /* -1: no member wanted. */
    const std::vector<std::pair<std::vector<bool>, int>> frames = {
        {{}, -1}, {{false}, 0}, {{true}, 1}, {{true, false}, 1}, {{false, true}, 1}, {{false, false}, 0}};
    for (size_t k = 0; k < frames.size(); ++k) {
        GstBuffer* b = frame(k * GST_SECOND);
        const std::vector<bool>& skipped = frames[k].first;
        for (size_t i = 0; i < skipped.size(); ++i) {
            GstStructure* s = gst_custom_meta_get_structure(gst_buffer_add_custom_meta(b, "WaldboostSearchMeta"));
            gst_structure_set_name(s, "waldboostdetect-search");
            gst_structure_set(s, "detector-name", G_TYPE_STRING, i == 0 ? "first" : "second", "skipped", G_TYPE_BOOLEAN,
                              static_cast<gboolean>(skipped[i]), nullptr);
        }
        fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);
        GstBuffer* out = gst_harness_pull(h);
        const std::vector<std::string> docs = documents_of(out);
        fail_unless_equals_int(docs.size(), 1);
        Doc d(docs[0]);
        const int wanted = frames[k].second;
        if (wanted < 0)
            fail_if(json_object_has_member(d.root, "detection_skipped"), "frame %zu: %s", k, docs[0].c_str());
        else
            fail_unless(json_object_has_member(d.root, "detection_skipped") &&
                            json_object_get_boolean_member(d.root, "detection_skipped") == (wanted == 1),
                        "frame %zu: %s", k, docs[0].c_str());
        gst_buffer_unref(out);
    }
    gst_harness_teardown(h);
}
GST_END_TEST;

/* One document per event after the frame's; the tracks still open leave
 * at EOS, in an event ahead of it and on json_src. */
GST_START_TEST(test_event_documents_and_eos)
{
    GstElement* element = gst_element_factory_make("waldboostmetaconvert", nullptr);
    GstHarness* h = gst_harness_new_with_element(element, "sink", "src");
    GstHarness* json = gst_harness_new_with_element(element, nullptr, "json_src");
    gst_object_unref(element);
    gst_harness_set_src_caps_str(h, kCaps);

    GstBuffer* b = frame(0);
    add_object(b, "face", 10, 10, 40, 40, 1, -1, 0.9, 0);
    add_object(b, "face", 100, 10, 40, 40, 2, -1, 0.9, 0);
    add_event(b, "appeared", 1, "face", 10, 10, 40, 40);
    add_event(b, "appeared", 2, "face", 100, 10, 40, 40);
    gst_harness_push(h, b);
    b = frame(GST_SECOND / 30);
    add_object(b, "face", 12, 11, 40, 40, 2, -1, 0.9, 1); /* track 2 moved */
    add_event(b, "left", 1, "face", 11, 10, 40, 40);
    gst_harness_push(h, b);

    std::vector<std::string> frame0 = pull_documents(h);
    std::vector<std::string> second = pull_documents(h);
    fail_unless_equals_int(frame0.size(), 3);
    fail_unless_equals_int(second.size(), 2);
    Doc appeared(frame0[1]), left(second[1]);
    fail_unless_equals_string(appeared.string("type"), "event");
    JsonObject* e = json_object_get_object_member(appeared.root, "event");
    fail_unless_equals_string(json_object_get_string_member(e, "kind"), "appeared");
    fail_unless_equals_int(json_object_get_int_member(e, "id"), 1);
    fail_unless_equals_int(json_object_get_int_member(Doc(frame0[2]).root, "frame"), 0);
    e = json_object_get_object_member(left.root, "event");
    fail_unless_equals_string(json_object_get_string_member(e, "kind"), "left");
    fail_unless_equals_int(json_object_get_int_member(e, "x"), 11);
    fail_unless_equals_int64(left.integer("frame"), 1);

    /* json_src: the same five documents, one a buffer, in order. */
    for (const std::string& expected : {frame0[0], frame0[1], frame0[2], second[0], second[1]}) {
        GstBuffer* j = gst_harness_pull(json);
        GstMapInfo map;
        gst_buffer_map(j, &map, GST_MAP_READ);
        const std::string got(reinterpret_cast<char*>(map.data), map.size);
        fail_unless_equals_string(got.c_str(), expected.c_str());
        gst_buffer_unmap(j, &map);
        gst_buffer_unref(j);
    }
    GstCaps* caps = gst_pad_get_current_caps(json->sinkpad);
    fail_unless(gst_structure_has_name(gst_caps_get_structure(caps, 0), "application/x-json"));
    gst_caps_unref(caps);

    /* EOS: track 2 leaves, at its last box, in a custom event. */
    const std::vector<std::string> at_eos = eos_documents(h);
    fail_unless_equals_int(at_eos.size(), 1);
    Doc d(at_eos[0]);
    e = json_object_get_object_member(d.root, "event");
    fail_unless_equals_string(json_object_get_string_member(e, "kind"), "left");
    fail_unless_equals_int(json_object_get_int_member(e, "id"), 2);
    fail_unless_equals_int(json_object_get_int_member(e, "x"), 12);
    fail_unless_equals_int64(d.integer("frame"), 1);
    gst_harness_teardown(json);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A seek (flush): the detector ends its tracks at the next frame, whose
 * events meta says they left. The converter keeps them open until then,
 * and a track no left came for leaves at EOS, never forgotten. */
GST_START_TEST(test_tracks_stay_open_through_a_flush)
{
    GstHarness* h = converter();
    GstBuffer* b = frame(3 * GST_SECOND);
    add_object(b, "face", 10, 10, 40, 40, 1, -1, 0.9, 0);
    add_object(b, "face", 100, 10, 40, 40, 3, -1, 0.9, 0);
    add_event(b, "appeared", 1, "face", 10, 10, 40, 40);
    add_event(b, "appeared", 3, "face", 100, 10, 40, 40);
    gst_harness_push(h, b);
    fail_unless_equals_int(pull_documents(h).size(), 3);

    fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)));
    b = frame(0);
    add_object(b, "face", 200, 20, 40, 40, 2, -1, 0.9, 0);
    add_event(b, "left", 1, "face", 10, 10, 40, 40);
    add_event(b, "appeared", 2, "face", 200, 20, 40, 40);
    gst_harness_push(h, b);
    const std::vector<std::string> after = pull_documents(h);
    fail_unless_equals_int(after.size(), 3);
    Doc left(after[1]);
    JsonObject* e = json_object_get_object_member(left.root, "event");
    fail_unless_equals_string(json_object_get_string_member(e, "kind"), "left");
    fail_unless_equals_int(json_object_get_int_member(e, "id"), 1);

    /* Track 1 left once; 3 and 2 leave at EOS, in id order. */
    const std::vector<std::string> at_eos = eos_documents(h);
    fail_unless_equals_int(at_eos.size(), 2);
    Doc two(at_eos[0]), three(at_eos[1]);
    fail_unless_equals_int(json_object_get_int_member(json_object_get_object_member(two.root, "event"), "id"), 2);
    fail_unless_equals_int(json_object_get_int_member(json_object_get_object_member(three.root, "event"), "id"), 3);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* The event documents of `docs`: "kind id x" each, in order, or with
 * `detector` "kind id detector". */
std::vector<std::string> events_in(const std::vector<std::string>& docs, bool detector = false)
{
    std::vector<std::string> events;
    for (const std::string& text : docs) {
        Doc d(text);
        if (!g_str_equal(d.string("type"), "event"))
            continue;
        JsonObject* e = json_object_get_object_member(d.root, "event");
        events.push_back(std::string(json_object_get_string_member(e, "kind")) + " " +
                         std::to_string(json_object_get_int_member(e, "id")) + " " +
                         (detector ? json_object_get_string_member_with_default(e, "detector", "(none)")
                                   : std::to_string(json_object_get_int_member(e, "x"))));
    }
    return events;
}

/* An element between the detector and the converter that repeats frames
 * (videorate, a copy of the buffer and its metas) or drops them: each
 * track still appears and leaves once, the dropped frames' events on the
 * next frame from the detector's open tracks, a left one at its last box.
 * Another label's open tracks are left alone. */
GST_START_TEST(test_events_of_repeated_and_dropped_frames)
{
    using Events = std::vector<std::string>;
    GstHarness* h = converter();
    GstBuffer* b = frame(0);
    add_object(b, "face", 10, 10, 40, 40, 1, -1, 0.9, 0);
    add_event(b, "appeared", 1, "face", 10, 10, 40, 40);
    set_open(b, "face", {{1, 10, 10, 40, 40}});
    GstBuffer* car = frame(0);
    add_event(car, "appeared", 7, "car", 300, 10, 60, 30);
    set_open(car, "car", {{7, 300, 10, 60, 30}});
    gst_harness_push(h, car);
    fail_unless(events_in(pull_documents(h)) == Events{"appeared 7 300"});
    gst_harness_push(h, gst_buffer_copy(b));
    gst_harness_push(h, b); /* repeated */
    fail_unless(events_in(pull_documents(h)) == Events{"appeared 1 10"});
    fail_unless(events_in(pull_documents(h)).empty());

    /* Dropped: the frame on which 2 appeared and the one on which 1 left
     * (after it moved to x=14). */
    b = frame(3 * GST_SECOND / 30);
    add_object(b, "face", 100, 10, 40, 40, 2, -1, 0.9, 2);
    set_open(b, "face", {{2, 100, 10, 40, 40}});
    gst_harness_push(h, b);
    const Events dropped = events_in(pull_documents(h));
    fail_unless(dropped == (Events{"left 1 10", "appeared 2 100"}), "got %zu events", dropped.size());

    /* 2 coasts, out of the objects but open, and moves; then it leaves on
     * a dropped frame: at the last box the detector gave. */
    b = frame(4 * GST_SECOND / 30);
    set_open(b, "face", {{2, 120, 10, 40, 40}});
    gst_harness_push(h, b);
    fail_unless(events_in(pull_documents(h)).empty());
    b = frame(6 * GST_SECOND / 30);
    set_open(b, "face", {});
    gst_harness_push(h, b);
    fail_unless(events_in(pull_documents(h)) == Events{"left 2 120"});

    /* A left the converter has sent already (a repeated frame) is not sent
     * again; the car never left. */
    b = frame(7 * GST_SECOND / 30);
    add_event(b, "left", 2, "face", 120, 10, 40, 40);
    gst_harness_push(h, b);
    fail_unless(events_in(pull_documents(h)).empty());
    fail_unless(events_in(eos_documents(h)) == Events{"left 7 300"});
    gst_harness_teardown(h);
}
GST_END_TEST;

const char* const kChainedDetectors[] = {"frontal", "profile"};

/* A frame of two chained detectors of label face, named frontal and
 * profile, as each attaches its events meta: `first` and `second` open
 * after it (ids), with "appeared" events for `appeared_first` and
 * `appeared_second`, at x 100 and 200. */
GstBuffer* chained_frame(GstClockTime pts, const std::vector<int>& first, const std::vector<int>& second,
                         const std::vector<int>& appeared_first, const std::vector<int>& appeared_second)
{
    GstBuffer* b = frame(pts);
    const std::vector<int>* open[] = {&first, &second};
    const std::vector<int>* appeared[] = {&appeared_first, &appeared_second};
    for (guint detector = 1; detector <= 2; ++detector) {
        const char* name = kChainedDetectors[detector - 1];
        GstStructure* s = gst_custom_meta_get_structure(gst_buffer_add_custom_meta(b, "WaldboostTrackEventsMeta"));
        const int x = 100 * static_cast<int>(detector);
        for (int id : *appeared[detector - 1])
            append_event(s, "appeared", id, "face", x, 0, 40, 40);
        std::vector<std::array<int, 5>> tracks;
        for (int id : *open[detector - 1])
            tracks.push_back({id, x, 0, 40, 40});
        set_open_list(s, "face", tracks);
        gst_structure_set(s, "detector", G_TYPE_UINT, detector, "detector-name", G_TYPE_STRING, name, nullptr);
    }
    return b;
}

/* Two chained detectors of one label (a frontal and a profile cascade,
 * both label=face) count their track ids apart: their tracks 1 both
 * appear, one's list does not end the other's, and each leaves once,
 * its documents naming its detector. */
GST_START_TEST(test_events_of_chained_detectors_of_one_label)
{
    using Events = std::vector<std::string>;
    GstHarness* h = converter();
    gst_harness_push(h, chained_frame(0, {1}, {1}, {1}, {1}));
    const std::vector<std::string> first = pull_documents(h);
    fail_unless(events_in(first) == (Events{"appeared 1 100", "appeared 1 200"}));
    fail_unless(events_in(first, true) == (Events{"appeared 1 frontal", "appeared 1 profile"}));
    gst_harness_push(h, chained_frame(GST_SECOND / 30, {1}, {}, {}, {}));
    const std::vector<std::string> second = pull_documents(h);
    fail_unless(events_in(second) == Events{"left 1 200"});
    fail_unless(events_in(second, true) == Events{"left 1 profile"});
    gst_harness_push(h, chained_frame(2 * GST_SECOND / 30, {1}, {}, {}, {}));
    fail_unless(events_in(pull_documents(h)).empty());
    const std::vector<std::string> last = eos_documents(h);
    fail_unless(events_in(last) == Events{"left 1 100"});
    fail_unless(events_in(last, true) == Events{"left 1 frontal"});
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A frame of the chained detectors frontal and profile (label face),
 * each with its track 1's object at x + `shift` (x 100 and 200), named,
 * and, when `appeared`, its appeared event there; no "open" list, as
 * from a detector that gives none. */
GstBuffer* chained_objects_frame(GstClockTime pts, int shift, bool appeared)
{
    GstBuffer* b = frame(pts);
    for (guint detector = 1; detector <= 2; ++detector) {
        const int x = 100 * static_cast<int>(detector) + shift;
        GstVideoRegionOfInterestMeta* m = add_object(b, "face", x, 0, 40, 40, 1, -1, 0.9, 3);
        gst_structure_set(gst_video_region_of_interest_meta_get_param(m, "detection"), "detector", G_TYPE_STRING,
                          kChainedDetectors[detector - 1], nullptr);
        GstStructure* s = gst_custom_meta_get_structure(gst_buffer_add_custom_meta(b, "WaldboostTrackEventsMeta"));
        if (appeared)
            append_event(s, "appeared", 1, "face", x, 0, 40, 40);
        gst_structure_set(s, "label", G_TYPE_STRING, "face", "detector", G_TYPE_UINT, detector, "detector-name",
                          G_TYPE_STRING, kChainedDetectors[detector - 1], nullptr);
    }
    return b;
}

/* The objects of chained detectors of one label name their detector, and
 * each detector's track follows its own object, not the other detector's
 * object of the same track id: without an "open" list the tracks leave
 * at the end at their objects' last boxes. */
GST_START_TEST(test_objects_of_chained_detectors_of_one_label)
{
    using Events = std::vector<std::string>;
    GstHarness* h = converter();
    gst_harness_push(h, chained_objects_frame(0, 10, true));
    const std::vector<std::string> docs = pull_documents(h);
    Doc d(docs.at(0));
    JsonArray* objects = json_object_get_array_member(d.root, "objects");
    fail_unless_equals_int(json_array_get_length(objects), 2);
    for (guint i = 0; i < 2; ++i) {
        JsonObject* o = json_array_get_object_element(objects, i);
        fail_unless_equals_int(json_object_get_int_member(o, "x"), 110 + 100 * static_cast<int>(i));
        fail_unless_equals_int(json_object_get_int_member(o, "id"), 1);
        fail_unless_equals_string(
            json_object_get_string_member(json_object_get_object_member(o, "detection"), "detector"),
            kChainedDetectors[i]);
    }
    fail_unless(events_in(docs, true) == (Events{"appeared 1 frontal", "appeared 1 profile"}));
    gst_harness_push(h, chained_objects_frame(GST_SECOND / 30, 20, false));
    fail_unless(events_in(pull_documents(h)).empty());
    const std::vector<std::string> last = eos_documents(h);
    fail_unless(events_in(last) == (Events{"left 1 120", "left 1 220"}));
    fail_unless(events_in(last, true) == (Events{"left 1 frontal", "left 1 profile"}));
    gst_harness_teardown(h);
}
GST_END_TEST;

GstBuffer* with_reference(GstBuffer* b, const char* caps_name, GstClockTime t)
{
    GstCaps* caps = gst_caps_new_empty_simple(caps_name);
    gst_buffer_add_reference_timestamp_meta(b, caps, t, GST_CLOCK_TIME_NONE);
    gst_caps_unref(caps);
    return b;
}

/* The wall-clock time: from timestamp/x-unix, from timestamp/x-ntp (also
 * as rtp.sender_ntp_unix_timestamp_ns), from the pipeline clock. */
GST_START_TEST(test_system_timestamp)
{
    GstHarness* h = converter();
    /* 2026-01-02T03:04:05.678Z */
    const GstClockTime unix_ns = G_GUINT64_CONSTANT(1767323045678) * GST_MSECOND;
    gst_harness_push(h, with_reference(frame(0), "timestamp/x-unix", unix_ns));
    gst_harness_push(
        h, with_reference(frame(GST_SECOND), "timestamp/x-ntp", unix_ns + G_GUINT64_CONSTANT(2208988800) * GST_SECOND));
    Doc u(pull_documents(h).at(0));
    fail_unless_equals_string(u.string("system_timestamp"), "2026-01-02T03:04:05.678Z");
    fail_if(json_object_has_member(u.root, "rtp"));
    Doc n(pull_documents(h).at(0));
    fail_unless_equals_string(n.string("system_timestamp"), "2026-01-02T03:04:05.678Z");
    fail_unless_equals_int64(
        json_object_get_int_member(json_object_get_object_member(n.root, "rtp"), "sender_ntp_unix_timestamp_ns"),
        unix_ns);

    /* The clock at 10 s, a frame due at 4 s: 6 s before now. */
    gst_harness_use_testclock(h);
    gst_harness_set_time(h, 10 * GST_SECOND);
    gst_harness_push(h, frame(4 * GST_SECOND));
    const gint64 now = g_get_real_time() * 1000;
    Doc c(pull_documents(h).at(0));
    const gint64 got = parse_iso8601_ns(c.string("system_timestamp"));
    fail_unless(std::llabs(got - (now - 6 * static_cast<gint64>(GST_SECOND))) < 500 * GST_MSECOND, "clock mapping: %s",
                c.string("system_timestamp"));

    /* A seek's flush resets the running time, and this element stays
     * PLAYING while the sinks preroll again: until the pipeline gives a
     * new base time, a frame's time is now, not the first play's start
     * plus its running time (here 19 s back). */
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_start()));
    fail_unless(gst_harness_push_event(h, gst_event_new_flush_stop(TRUE)));
    GstSegment segment;
    gst_segment_init(&segment, GST_FORMAT_TIME);
    fail_unless(gst_harness_push_event(h, gst_event_new_segment(&segment)));
    gst_harness_set_time(h, 20 * GST_SECOND);
    gst_harness_push(h, frame(GST_SECOND));
    const gint64 flushed_now = g_get_real_time() * 1000;
    Doc f(pull_documents(h).at(0));
    const gint64 flushed_got = parse_iso8601_ns(f.string("system_timestamp"));
    fail_unless(std::llabs(flushed_got - flushed_now) < 500 * GST_MSECOND, "a frame after a flush: %s",
                f.string("system_timestamp"));
    /* The new base time (18 s): the frame at 2 s is due at 20 s, a second
     * before the clock's 21 s. */
    gst_element_set_base_time(h->element, 18 * GST_SECOND);
    gst_harness_set_time(h, 21 * GST_SECOND);
    gst_harness_push(h, frame(2 * GST_SECOND));
    const gint64 replay_now = g_get_real_time() * 1000;
    Doc r(pull_documents(h).at(0));
    const gint64 replay_got = parse_iso8601_ns(r.string("system_timestamp"));
    fail_unless(std::llabs(replay_got - (replay_now - static_cast<gint64>(GST_SECOND))) < 500 * GST_MSECOND,
                "the clock again after the flush: %s", r.string("system_timestamp"));

    /* Prerolling: a bin hands its children the clock before their base
     * time, so a frame that passes in PAUSED (before a muxer or an encoder
     * downstream fills) has a clock but no base time yet. Its time is now,
     * not the clock's start (here 11 hours back). */
    gst_harness_set_time(h, 11 * 3600 * GST_SECOND);
    gst_element_set_base_time(h->element, 0);
    fail_unless_equals_int(gst_element_set_state(h->element, GST_STATE_PAUSED), GST_STATE_CHANGE_SUCCESS);
    gst_harness_push(h, frame(5 * GST_SECOND));
    const gint64 paused_now = g_get_real_time() * 1000;
    Doc p(pull_documents(h).at(0));
    const gint64 paused_got = parse_iso8601_ns(p.string("system_timestamp"));
    fail_unless(std::llabs(paused_got - paused_now) < 500 * GST_MSECOND, "a frame while prerolling: %s",
                p.string("system_timestamp"));
    gst_harness_teardown(h);
}
GST_END_TEST;

/* skip-empty-frames, format=pretty and post-messages. */
GST_START_TEST(test_options)
{
    GstHarness* h = converter();
    g_object_set(h->element, "skip-empty-frames", TRUE, "format", 1, "post-messages", TRUE, nullptr);
    GstBus* bus = gst_bus_new();
    gst_element_set_bus(h->element, bus);
    gst_harness_push(h, frame(0));
    GstBuffer* b = frame(GST_SECOND / 30);
    add_object(b, "face", 1, 2, 30, 30, 0, -1, 0.5);
    gst_harness_push(h, b);
    GstBuffer* empty = gst_harness_pull(h);
    fail_unless(documents_of(empty).empty(), "no document for an empty frame");
    gst_buffer_unref(empty);
    std::vector<std::string> docs = pull_documents(h);
    fail_unless_equals_int(docs.size(), 1);
    fail_unless(docs[0].find('\n') != std::string::npos, "pretty spans lines");
    Doc d(docs[0]);
    fail_unless_equals_int64(d.integer("frame"), 1);
    GstMessage* m = gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT);
    fail_unless(m != nullptr);
    const GstStructure* s = gst_message_get_structure(m);
    fail_unless(gst_structure_has_name(s, "waldboostmetaconvert"));
    fail_unless_equals_string(gst_structure_get_string(s, "json"), docs[0].c_str());
    gst_message_unref(m);
    fail_unless(gst_bus_pop_filtered(bus, GST_MESSAGE_ELEMENT) == nullptr, "one message, one document");
    gst_element_set_bus(h->element, nullptr);
    gst_object_unref(bus);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A hostile string: quotes, a backslash, every C0 control, U+202E, text
 * after them, and invalid UTF-8 (a lone 0xff, a surrogate's encoding, and a
 * sequence cut at the end). `expected` is what a document must carry: the
 * valid characters as they are, each invalid byte as U+FFFD. `valid` has
 * no invalid UTF-8, for a GstStructure (which refuses it). */
struct Hostile {
    std::string raw, expected, valid;
};

Hostile hostile(const char* tag)
{
    std::string valid = std::string(tag) + " \"q\" \\ ";
    for (char c = 0x01; c < 0x20; ++c)
        valid += c;
    valid += "\xe2\x80\xae"
             "rtl \xe4\xb8\xad";
    const std::string fffd = "\xef\xbf\xbd";
    return {valid + "\xff" + "x" + "\xed\xa0\x80" + "\xc3", valid + fffd + "x" + fffd + fffd + fffd + fffd, valid};
}

/* Strings from metas and source-id come out as valid, escaped JSON: one
 * line, and the valid characters round-trip. */
GST_START_TEST(test_hostile_strings)
{
    GstHarness* h = converter();
    const Hostile source = hostile("source"), label = hostile("label"), event_label = hostile("event");
    g_object_set(h->element, "source-id", source.raw.c_str(), nullptr);
    GstBuffer* b = frame(0);
    add_object(b, label.raw.c_str(), 1, 2, 3, 4, 0, -1, 0.5);
    add_event(b, "appeared", 1, event_label.valid.c_str(), 1, 2, 3, 4);
    gst_harness_push(h, b);
    std::vector<std::string> docs = pull_documents(h);
    fail_unless_equals_int(docs.size(), 2);
    for (const std::string& text : docs) {
        fail_unless(g_utf8_validate(text.c_str(), -1, nullptr), "not UTF-8: %s", text.c_str());
        for (unsigned char c : text)
            fail_if(c < 0x20, "a raw control character 0x%02x in %s", c, text.c_str());
        Doc d(text);
        fail_unless(d.string("source") == source.expected, "source: %s", d.string("source"));
    }
    Doc frame_doc(docs[0]), event_doc(docs[1]);
    JsonObject* object = json_array_get_object_element(json_object_get_array_member(frame_doc.root, "objects"), 0);
    const char* got = json_object_get_string_member(json_object_get_object_member(object, "detection"), "label");
    fail_unless(got == label.expected, "label: %s", got);
    got = json_object_get_string_member(json_object_get_object_member(event_doc.root, "event"), "label");
    fail_unless(got == event_label.valid, "event label: %s", got);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* Numbers JSON has no words for: a NaN or infinite confidence or score in
 * the metas of another element must not make a document no parser takes. */
GST_START_TEST(test_not_finite_numbers)
{
    GstHarness* h = converter();
    GstBuffer* b = frame(0);
    GstVideoRegionOfInterestMeta* m = add_object(b, "face", 1, 2, 3, 4, 0, -1, NAN);
    gst_structure_set(gst_video_region_of_interest_meta_get_param(m, "detection"), "score", G_TYPE_DOUBLE, INFINITY,
                      nullptr);
    add_object(b, "face", 5, 6, 7, 8, 1, -1, -INFINITY);
    gst_harness_push(h, b);
    std::vector<std::string> docs = pull_documents(h);
    Doc d(docs.at(0));
    JsonArray* objects = json_object_get_array_member(d.root, "objects");
    fail_unless_equals_int(json_array_get_length(objects), 2);
    for (guint i = 0; i < 2; ++i) {
        JsonObject* det = json_object_get_object_member(json_array_get_object_element(objects, i), "detection");
        fail_if(json_object_has_member(det, "confidence"), "no confidence rather than %s", docs[0].c_str());
        fail_unless(json_object_has_member(det, "score") == (i == 1), "score only where finite: %s", docs[0].c_str());
        fail_unless_equals_int(json_object_get_int_member(det, "neighbors"), 12);
    }
    gst_harness_teardown(h);
}
GST_END_TEST;

/* 10,000 objects on one frame: one document with all of them. */
GST_START_TEST(test_many_objects)
{
    GstHarness* h = converter();
    GstBuffer* b = frame(0);
    constexpr int kObjects = 10000;
    for (int i = 0; i < kObjects; ++i)
        add_object(b, "face", i % 300, (i / 300) % 220, 20, 20, i, -1, 0.5);
    const gint64 start = g_get_monotonic_time();
    gst_harness_push(h, b);
    std::vector<std::string> docs = pull_documents(h);
    /* "Within a few seconds" (issue 53), with room for a loaded machine
     * and the sanitizers. */
    const gint64 took_us = g_get_monotonic_time() - start;
    fail_unless(took_us < 15 * G_USEC_PER_SEC, "10,000 objects took %" G_GINT64_FORMAT " ms", took_us / 1000);
    Doc d(docs.at(0));
    JsonArray* objects = json_object_get_array_member(d.root, "objects");
    fail_unless_equals_int(json_array_get_length(objects), kObjects);
    fail_unless_equals_int(
        json_object_get_int_member(json_array_get_object_element(objects, kObjects - 1), "region_id"), kObjects - 1);
    gst_harness_teardown(h);
}
GST_END_TEST;

#if WALDBOOST_HAVE_GST_ANALYTICS
namespace {

/* An ODMtd of `label` at the box, with `confidence`; its id. */
guint add_od(GstAnalyticsRelationMeta* relations, const char* label, gint x, gint y, gint w, gint h, gfloat confidence)
{
    GstAnalyticsODMtd od;
    fail_unless(
        gst_analytics_relation_meta_add_od_mtd(relations, g_quark_from_string(label), x, y, w, h, confidence, &od));
    return od.id;
}

/* A TrackingMtd of `id` that the ODMtd `od` RELATE_TOs. */
void add_track(GstAnalyticsRelationMeta* relations, guint od, guint64 id, gboolean lost = FALSE)
{
    GstAnalyticsTrackingMtd track;
    fail_unless(gst_analytics_relation_meta_add_tracking_mtd(relations, id, 0, &track));
    if (lost)
        fail_unless(gst_analytics_tracking_mtd_set_lost(&track));
    fail_unless(gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_RELATE_TO, od, track.id));
}

/* The objects of the frame's document, pushed through a converter. */
struct FrameObjects {
    std::vector<std::string> docs;
    Doc doc;
    JsonArray* array;
    explicit FrameObjects(GstHarness* h) : docs(pull_documents(h)), doc(docs.at(0))
    {
        array = json_object_get_array_member(doc.root, "objects");
    }
    guint size() const { return json_array_get_length(array); }
    JsonObject* at(guint i) const { return json_array_get_object_element(array, i); }
};

gint64 member_or(JsonObject* o, const char* name, gint64 missing)
{
    return json_object_has_member(o, name) ? json_object_get_int_member(o, name) : missing;
}

}  // namespace

/* Objects given as ODMtds alone (GStreamer's analytics elements,
 * waldboostdetect metadata=analytics), beside a meta and its ODMtd twin
 * (metadata=both): every object once, the ODMtds' after the metas with
 * region ids above the metas', their track ids from their TrackingMtds,
 * their parents from their relations, their boxes clipped at 0. */
GST_START_TEST(test_analytics_objects)
{
    GstHarness* h = converter();
    GstBuffer* b = frame(0);
    add_object(b, "face", 40, 30, 80, 96, 3, -1, 0.86, 5);
    GstAnalyticsRelationMeta* relations = gst_buffer_add_analytics_relation_meta(b);
    const guint person = add_od(relations, "person", 20, 10, 150, 220, 0.7f);
    add_track(relations, person, 9);
    const guint twin = add_od(relations, "face", 40, 30, 80, 96, 0.86f);
    fail_unless(gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_IS_PART_OF, twin, person));
    const guint hand = add_od(relations, "hand", -8, 150, 30, 20, 1.5f); /* confidence outside [0, 1] */
    fail_unless(gst_analytics_relation_meta_set_relation(relations, GST_ANALYTICS_REL_TYPE_CONTAIN, person, hand));
    const guint bag = add_od(relations, "bag", 200, 100, 40, 40, 0.4f);
    add_track(relations, bag, 4, TRUE); /* a lost track is no id */
    fail_unless_equals_int(gst_harness_push(h, b), GST_FLOW_OK);

    FrameObjects objects(h);
    fail_unless_equals_int(objects.size(), 4);
    JsonObject* face = objects.at(0);
    fail_unless_equals_int(json_object_get_int_member(face, "region_id"), 3);
    fail_unless_equals_int(json_object_get_int_member(face, "analytics_id"), twin);
    fail_unless_equals_int(json_object_get_int_member(face, "id"), 3);
    fail_unless(json_object_has_member(face, "track"), "the meta's track fields are kept");
    /* The meta says no parent; its ODMtd IS_PART_OF the person's. */
    fail_unless_equals_int(member_or(face, "parent_id", -1), 4);

    JsonObject* p = objects.at(1);
    fail_unless_equals_int(json_object_get_int_member(p, "region_id"), 4);
    fail_unless_equals_int(json_object_get_int_member(p, "analytics_id"), person);
    fail_unless_equals_int(member_or(p, "id", -1), 9);
    fail_if(json_object_has_member(p, "track"), "an ODMtd has no age nor hits");
    fail_if(json_object_has_member(p, "parent_id"));
    fail_unless_equals_int(json_object_get_int_member(p, "x"), 20);
    fail_unless_equals_int(json_object_get_int_member(p, "h"), 220);
    JsonObject* det = json_object_get_object_member(p, "detection");
    fail_unless_equals_string(json_object_get_string_member(det, "label"), "person");
    fail_unless(std::fabs(json_object_get_double_member(det, "confidence") - 0.7) < 1e-6);
    fail_if(json_object_has_member(det, "label_id"), "an ODMtd carries no class id");
    JsonObject* box = json_object_get_object_member(det, "bounding_box");
    fail_unless_equals_float(json_object_get_double_member(box, "x_max"), 170.0 / kWidth);

    JsonObject* hand_object = objects.at(2);
    fail_unless_equals_int(json_object_get_int_member(hand_object, "region_id"), 5);
    fail_unless_equals_int(member_or(hand_object, "parent_id", -1), 4);
    fail_unless_equals_int(json_object_get_int_member(hand_object, "x"), 0);
    fail_unless_equals_int(json_object_get_int_member(hand_object, "w"), 22);
    fail_if(json_object_has_member(json_object_get_object_member(hand_object, "detection"), "confidence"),
            "a confidence outside [0, 1] is left out");

    JsonObject* bag_object = objects.at(3);
    fail_unless_equals_int(json_object_get_int_member(bag_object, "region_id"), 6);
    fail_if(json_object_has_member(bag_object, "id"), "a lost track's id");
    gst_harness_teardown(h);
}
GST_END_TEST;

/* An ODMtd joins one meta of its type and box, the first not joined: two
 * metas and one ODMtd of the same box are two objects, as are one meta and
 * two ODMtds; a box of another type is another object. */
GST_START_TEST(test_analytics_twins_one_to_one)
{
    GstHarness* h = converter();
    GstBuffer* b = frame(0);
    add_object(b, "face", 10, 10, 40, 40, 0, -1, 0.5);
    add_object(b, "face", 10, 10, 40, 40, 1, -1, 0.5);
    add_object(b, "eye", 60, 60, 10, 10, 2, -1, 0.5);
    GstAnalyticsRelationMeta* relations = gst_buffer_add_analytics_relation_meta(b);
    const guint face = add_od(relations, "face", 10, 10, 40, 40, 0.5f);
    const guint eye = add_od(relations, "eye", 60, 60, 10, 10, 0.5f);
    const guint eye_again = add_od(relations, "eye", 60, 60, 10, 10, 0.5f);
    const guint other_type = add_od(relations, "mouth", 60, 60, 10, 10, 0.5f);
    gst_harness_push(h, b);

    FrameObjects objects(h);
    fail_unless_equals_int(objects.size(), 5);
    fail_unless_equals_int(member_or(objects.at(0), "analytics_id", -1), face);
    fail_unless_equals_int(member_or(objects.at(1), "analytics_id", -1), -1);
    fail_unless_equals_int(member_or(objects.at(2), "analytics_id", -1), eye);
    fail_unless_equals_int(member_or(objects.at(3), "analytics_id", -1), eye_again);
    fail_unless_equals_int(json_object_get_int_member(objects.at(3), "region_id"), 3);
    fail_unless_equals_int(member_or(objects.at(4), "analytics_id", -1), other_type);
    fail_unless_equals_int(json_object_get_int_member(objects.at(4), "region_id"), 4);
    gst_harness_teardown(h);
}
GST_END_TEST;

/* A track given only by TrackingMtds: its appeared event opens it, its
 * ODMtd moves it, and it leaves at EOS from where it was last. Frames of
 * ODMtds alone count for skip-empty-frames. */
GST_START_TEST(test_analytics_tracks_followed)
{
    GstHarness* h = converter();
    g_object_set(h->element, "skip-empty-frames", TRUE, nullptr);
    for (int f = 0; f < 2; ++f) {
        GstBuffer* b = frame(static_cast<GstClockTime>(f) * GST_SECOND / 30);
        GstAnalyticsRelationMeta* relations = gst_buffer_add_analytics_relation_meta(b);
        add_track(relations, add_od(relations, "car", 100 + 7 * f, 50, 60, 30, 0.9f), 12);
        if (f == 0)
            add_event(b, "appeared", 12, "car", 100, 50, 60, 30);
        gst_harness_push(h, b);
    }
    fail_unless_equals_int(pull_documents(h).size(), 2);
    FrameObjects second(h);
    fail_unless_equals_int(second.size(), 1);
    fail_unless_equals_int(json_object_get_int_member(second.at(0), "id"), 12);
    const std::vector<std::string> at_eos = eos_documents(h);
    fail_unless_equals_int(at_eos.size(), 1);
    Doc left(at_eos[0]);
    JsonObject* e = json_object_get_object_member(left.root, "event");
    fail_unless_equals_int(json_object_get_int_member(e, "id"), 12);
    fail_unless_equals_int(json_object_get_int_member(e, "x"), 107);
    gst_harness_teardown(h);
}
GST_END_TEST;
#endif

static Suite* convert_suite()
{
    Suite* s = suite_create("waldboostmetaconvert");
    TCase* tc = tcase_create("convert");
    /* check's default of 4 s is short on a loaded CI machine (10,000
     * objects take 1.5 s on an idle one). */
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_frame_document_objects);
    tcase_add_test(tc, test_detection_skipped);
    tcase_add_test(tc, test_event_documents_and_eos);
    tcase_add_test(tc, test_system_timestamp);
    tcase_add_test(tc, test_tracks_stay_open_through_a_flush);
    tcase_add_test(tc, test_events_of_repeated_and_dropped_frames);
    tcase_add_test(tc, test_events_of_chained_detectors_of_one_label);
    tcase_add_test(tc, test_objects_of_chained_detectors_of_one_label);
    tcase_add_test(tc, test_options);
    tcase_add_test(tc, test_hostile_strings);
    tcase_add_test(tc, test_not_finite_numbers);
    tcase_add_test(tc, test_many_objects);
    tcase_add_test(tc, test_cost_stats);
#if WALDBOOST_HAVE_GST_ANALYTICS
    tcase_add_test(tc, test_analytics_objects);
    tcase_add_test(tc, test_analytics_twins_one_to_one);
    tcase_add_test(tc, test_analytics_tracks_followed);
#endif
    suite_add_tcase(s, tc);
    return s;
}

/* The documents seen, against the schema (validate_documents.py). */
static bool documents_valid()
{
    const char* script = g_getenv("WALDBOOST_VALIDATE_DOCUMENTS");
    if (!script || !*script)
        return true;
    const char* python = g_getenv("WALDBOOST_PYTHON") ? g_getenv("WALDBOOST_PYTHON") : "python3";
    gchar* argv[] = {const_cast<gchar*>(python), const_cast<gchar*>(script), const_cast<gchar*>(g_seen_path.c_str()),
                     nullptr};
    gint status = 0;
    const gboolean ran =
        g_spawn_sync(nullptr, argv, nullptr, G_SPAWN_SEARCH_PATH, nullptr, nullptr, nullptr, nullptr, &status, nullptr);
    return ran && g_spawn_check_wait_status(status, nullptr);
}

int main(int argc, char** argv)
{
    gst_check_init(&argc, &argv);
    gchar* path = nullptr;
    const int fd = g_file_open_tmp("waldboost-docs-XXXXXX.jsonl", &path, nullptr);
    close(fd);
    g_seen_path = path;
    g_free(path);
    int failed = gst_check_run_suite(convert_suite(), "waldboostmetaconvert", __FILE__);
    gchar* text = nullptr;
    g_file_get_contents(g_seen_path.c_str(), &text, nullptr, nullptr);
    const bool any = text && *text;
    g_free(text);
    if (!failed && (!any || !documents_valid())) {
        g_printerr("the documents seen are missing or do not match the schema\n");
        failed = 1;
    }
    g_unlink(g_seen_path.c_str());
    return failed;
}
