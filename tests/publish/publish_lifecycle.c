/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A lifecycle program of the publish plugin, for the sanitizer run (test
 * publish-lifecycle) and for valgrind (publish-lifecycle-valgrind, through
 * tests/run-valgrind-lifecycle.sh): appsrc ! waldboostmetaconvert !
 * waldboostmetapublish with the hostile input of issue 53 item 8, made
 * here without OpenCL (the detector's own lifecycle is
 * element-lifecycle-valgrind):
 * - labels and a source id with quotes, backslashes, every C0 control,
 *   U+202E and invalid UTF-8, a NaN confidence, an event's label, and
 *   10,000 objects on one frame, to a JSON lines file read back with
 *   json-glib;
 * - method=file to /dev/full (a full disk);
 * - method=mqtt to a listener that never answers and to one that sends
 *   garbage, each EOS within flush-timeout;
 * - settings refused at the start (no file-path; a topic with a
 *   wildcard), and a pipeline started twice;
 * - splitmuxsink=rec: a sidecar per segment, every document once; and
 *   stopped mid-stream (the handlers of splitmuxsink's signals and
 *   messages run on its threads).
 * Exits 0 when every step did what it should; valgrind and ASan judge the
 * memory.
 */
#include <gst/gst.h>
#include <gst/video/video.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include <math.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#define W 64
#define H 48
#define MANY 10000

static int failures = 0;

#define CHECK(cond, ...)                                                    \
    do {                                                                    \
        if (!(cond)) {                                                      \
            g_printerr("publish-lifecycle: FAILED at line %d: ", __LINE__); \
            g_printerr(__VA_ARGS__);                                        \
            g_printerr("\n");                                               \
            failures++;                                                     \
        }                                                                   \
    } while (0)

/* Quotes, a backslash, every C0 control, U+202E, then invalid UTF-8. */
static gchar* hostile(const char* tag)
{
    GString* s = g_string_new(tag);
    char c;
    g_string_append(s, " \"q\" \\ ");
    for (c = 0x01; c < 0x20; c++)
        g_string_append_c(s, c);
    g_string_append(s, "\xe2\x80\xae"
                       "rtl\xff\xc3");
    return g_string_free(s, FALSE);
}

static GstBuffer* frame(int n)
{
    GstBuffer* b = gst_buffer_new_allocate(NULL, W * H, NULL);
    gst_buffer_memset(b, 0, 0x80, W * H);
    GST_BUFFER_PTS(b) = n * GST_SECOND / 30;
    GST_BUFFER_DURATION(b) = GST_SECOND / 30;
    return b;
}

static void add_object(GstBuffer* b, const char* label, int id, double confidence)
{
    GstVideoRegionOfInterestMeta* m = gst_buffer_add_video_region_of_interest_meta(b, label, id % 40, id % 30, 8, 8);
    m->id = id;
    m->parent_id = -1;
    gst_video_region_of_interest_meta_add_param(
        m, gst_structure_new("detection", "confidence", G_TYPE_DOUBLE, confidence, "id", G_TYPE_INT, id + 1, "age",
                             G_TYPE_INT, 0, "hits", G_TYPE_INT, 1, "detected", G_TYPE_BOOLEAN, TRUE, NULL));
}

/* A track event, as the detector attaches it; GstStructure takes valid
 * UTF-8 only, so the label's controls and U+202E without the bad bytes. */
static void add_appeared(GstBuffer* b, const char* label)
{
    GstCustomMeta* meta = gst_buffer_add_custom_meta(b, "WaldboostTrackEventsMeta");
    GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
    if (!meta) {
        CHECK(FALSE, "the events meta is registered by the plugin");
        return;
    }
    g_value_init(&list, GST_TYPE_LIST);
    g_value_init(&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed(&item, gst_structure_new("event", "kind", G_TYPE_STRING, "appeared", "id", G_TYPE_INT, 1, "x",
                                                G_TYPE_INT, 0, "y", G_TYPE_INT, 0, "width", G_TYPE_INT, 8, "height",
                                                G_TYPE_INT, 8, "label", G_TYPE_STRING, label, NULL));
    gst_value_list_append_and_take_value(&list, &item);
    gst_structure_take_value(gst_custom_meta_get_structure(meta), "events", &list);
}

static guint64 stat_of(GstElement* pipeline, const char* name)
{
    GstElement* publish = gst_bin_get_by_name(GST_BIN(pipeline), "publish");
    GstStructure* stats = NULL;
    guint64 value = 0;
    g_object_get(publish, "stats", &stats, NULL);
    if (stats)
        gst_structure_get_uint64(stats, name, &value);
    if (stats)
        gst_structure_free(stats);
    gst_object_unref(publish);
    return value;
}

typedef struct {
    gboolean eos, error;
    guint64 documents, published, dropped; /* the publisher's stats at the end */
    gint64 eos_us;                         /* from the appsrc's EOS to the bus's */
    GString* warnings;
    GString* errors;
} Outcome;

/* Plays `pipeline` (whose appsrc is "src") with `frames` pushed by
 * `fill`, to EOS or an error, within `timeout`. */
static Outcome run(GstElement* pipeline, int frames, void (*fill)(GstBuffer*, int), GstClockTime timeout)
{
    Outcome o = {FALSE, FALSE, 0, 0, 0, 0, g_string_new(NULL), g_string_new(NULL)};
    gint64 end = 0;
    GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
    GstBus* bus = gst_element_get_bus(pipeline);
    GstFlowReturn flow = GST_FLOW_OK;
    int i;
    if (gst_element_set_state(pipeline, GST_STATE_PLAYING) != GST_STATE_CHANGE_FAILURE) {
        for (i = 0; i < frames; i++) {
            GstBuffer* b = frame(i);
            if (fill)
                fill(b, i);
            g_signal_emit_by_name(src, "push-buffer", b, &flow);
            gst_buffer_unref(b);
        }
        end = g_get_monotonic_time();
        g_signal_emit_by_name(src, "end-of-stream", &flow);
    }
    for (;;) {
        GstMessage* m =
            gst_bus_timed_pop_filtered(bus, timeout, GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_WARNING);
        GError* error = NULL;
        if (!m)
            break;
        if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_WARNING) {
            gst_message_parse_warning(m, &error, NULL);
            g_string_append_printf(o.warnings, "%s\n", error->message);
        } else if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) {
            gst_message_parse_error(m, &error, NULL);
            g_string_append_printf(o.errors, "%s\n", error->message);
            o.error = TRUE;
        } else {
            o.eos = TRUE;
            o.eos_us = g_get_monotonic_time() - end;
        }
        g_clear_error(&error);
        gst_message_unref(m);
        if (o.eos || o.error)
            break;
    }
    o.documents = stat_of(pipeline, "documents");
    o.published = stat_of(pipeline, "published");
    o.dropped = stat_of(pipeline, "dropped");
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(bus);
    gst_object_unref(src);
    return o;
}

static void outcome_clear(Outcome* o)
{
    g_string_free(o->warnings, TRUE);
    g_string_free(o->errors, TRUE);
}

static GstElement* pipeline_with(const char* publish)
{
    gchar* description =
        g_strdup_printf("appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,framerate=30/1 "
                        "! waldboostmetaconvert name=convert ! waldboostmetapublish name=publish %s ! fakesink",
                        W, H, publish);
    GError* error = NULL;
    GstElement* p = gst_parse_launch(description, &error);
    CHECK(p && !error, "parse %s: %s", description, error ? error->message : "");
    g_clear_error(&error);
    g_free(description);
    return p;
}

static char* g_label;
static char* g_event_label;

static void fill_hostile(GstBuffer* b, int n)
{
    int i;
    if (n == 0) {
        add_object(b, g_label, 0, NAN);
        add_appeared(b, g_event_label);
    } else if (n == 1) {
        for (i = 0; i < MANY; i++)
            add_object(b, "face", i, 0.5);
    }
}

/* Hostile strings and 10,000 objects to a file, read back. */
static void hostile_to_file(void)
{
    gchar* folder = g_dir_make_tmp("waldboost-publish-XXXXXX", NULL);
    gchar* path = g_build_filename(folder, "docs.jsonl", NULL);
    gchar* publish = g_strdup_printf("file-path=%s", path);
    GstElement* p = pipeline_with(publish);
    GstElement* convert = gst_bin_get_by_name(GST_BIN(p), "convert");
    gchar* source = hostile("source");
    gchar *text = NULL, **lines;
    int round, docs = 0, many = 0;
    g_object_set(convert, "source-id", source, NULL);
    gst_object_unref(convert);
    /* Twice: the second start reopens the file, the converter counts
     * frames from 0 again. */
    for (round = 0; round < 2; round++) {
        Outcome o = run(p, 3, fill_hostile, 120 * GST_SECOND);
        CHECK(o.eos && !o.error && o.warnings->len == 0, "file round %d: eos %d, errors %s, warnings %s", round, o.eos,
              o.errors->str, o.warnings->str);
        outcome_clear(&o);
    }
    CHECK(g_file_get_contents(path, &text, NULL, NULL), "no file %s", path);
    lines = g_strsplit(text ? text : "", "\n", -1);
    for (gchar** line = lines; *line; line++) {
        JsonParser* parser;
        GError* error = NULL;
        if (!**line)
            continue;
        parser = json_parser_new();
        CHECK(g_utf8_validate(*line, -1, NULL), "document %d is not UTF-8", docs);
        CHECK(json_parser_load_from_data(parser, *line, -1, &error), "document %d is not JSON: %s", docs,
              error ? error->message : "");
        if (!error) {
            JsonObject* root = json_node_get_object(json_parser_get_root(parser));
            if (json_object_has_member(root, "objects") &&
                json_array_get_length(json_object_get_array_member(root, "objects")) == MANY)
                many++;
        }
        g_clear_error(&error);
        g_object_unref(parser);
        docs++;
    }
    /* Frames 0 to 2, the appeared event, the left event at EOS. */
    CHECK(docs == 5, "%d documents, not 5", docs);
    CHECK(many == 1, "%d documents with %d objects, not 1", many, MANY);
    g_strfreev(lines);
    g_free(text);
    g_free(source);
    gst_object_unref(p);
    g_unlink(path);
    g_rmdir(folder);
    g_free(publish);
    g_free(path);
    g_free(folder);
}

/* A full disk: every write fails; a warning, everything dropped. */
static void full_disk(void)
{
    GstElement* p = pipeline_with("file-path=/dev/full");
    Outcome o = run(p, 10, NULL, 60 * GST_SECOND);
    CHECK(o.eos && !o.error, "/dev/full: eos %d, errors %s", o.eos, o.errors->str);
    CHECK(strstr(o.warnings->str, "No space left on device") != NULL, "/dev/full: warnings %s", o.warnings->str);
    CHECK(o.documents == 10 && o.dropped == 10 && o.published == 0,
          "/dev/full: %" G_GUINT64_FORMAT " documents, %" G_GUINT64_FORMAT " dropped", o.documents, o.dropped);
    outcome_clear(&o);
    gst_object_unref(p);
}

static int listener(guint16* port)
{
    struct sockaddr_in a;
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || bind(fd, (struct sockaddr*)&a, sizeof a) != 0 || listen(fd, 4) != 0 ||
        getsockname(fd, (struct sockaddr*)&a, &len) != 0) {
        CHECK(FALSE, "no loopback listener");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    *port = ntohs(a.sin_port);
    return fd;
}

/* Accepts one connection and sends it garbage. */
static gpointer garbage_server(gpointer data)
{
    int fd = GPOINTER_TO_INT(data);
    int client = accept(fd, NULL, NULL);
    unsigned char bytes[1024];
    int i;
    for (i = 0; i < (int)sizeof bytes; i++)
        bytes[i] = (unsigned char)i;
    if (client >= 0) {
        if (write(client, bytes, sizeof bytes) < 0) {
            /* the publisher went away first */
        }
        g_usleep(G_USEC_PER_SEC / 2);
        close(client);
    }
    return NULL;
}

/* A listener that never answers (the kernel takes the connection, nobody
 * accepts it), and one that sends garbage: EOS within flush-timeout, a
 * warning that no connection was made. */
static void hostile_brokers(void)
{
    int garbage;
    for (garbage = 0; garbage < 2; garbage++) {
        guint16 port = 0;
        int fd = listener(&port);
        GThread* thread = NULL;
        gchar* publish;
        GstElement* p;
        Outcome o;
        if (fd < 0)
            return;
        if (garbage)
            thread = g_thread_new("garbage", garbage_server, GINT_TO_POINTER(fd));
        publish = g_strdup_printf("method=mqtt host=127.0.0.1 port=%u flush-timeout=300", port);
        p = pipeline_with(publish);
        o = run(p, 10, NULL, 60 * GST_SECOND);
        CHECK(o.eos && !o.error, "broker %d: eos %d, errors %s", garbage, o.eos, o.errors->str);
        /* flush-timeout, and time for the frames before the EOS under
         * valgrind on a loaded machine; not the 10 s connection timeout. */
        CHECK(o.eos_us < 8 * G_USEC_PER_SEC, "broker %d: %" G_GINT64_FORMAT " us from the EOS to the bus", garbage,
              o.eos_us);
        CHECK(strstr(o.warnings->str, "no MQTT connection") != NULL, "broker %d: warnings %s", garbage,
              o.warnings->str);
        CHECK(o.documents > 0 && o.published == 0,
              "broker %d: %" G_GUINT64_FORMAT " documents, %" G_GUINT64_FORMAT " published", garbage, o.documents,
              o.published);
        outcome_clear(&o);
        gst_object_unref(p);
        g_free(publish);
        /* The publisher may have given up before it connected (the run is
         * short, and slower under the sanitizers): shutting the listener
         * down wakes the server's accept() so that the join cannot hang. */
        shutdown(fd, SHUT_RDWR);
        if (thread)
            g_thread_join(thread);
        close(fd);
    }
}

/* How many files of `folder` end with `suffix`, and how many lines they
 * hold in all. */
static int files_and_lines(const char* folder, const char* suffix, int* lines)
{
    GDir* dir = g_dir_open(folder, 0, NULL);
    const gchar* name;
    int files = 0;
    *lines = 0;
    while (dir && (name = g_dir_read_name(dir))) {
        gchar *path, *text = NULL;
        if (!g_str_has_suffix(name, suffix))
            continue;
        files++;
        path = g_build_filename(folder, name, NULL);
        if (g_file_get_contents(path, &text, NULL, NULL))
            for (const gchar* c = text; *c; c++)
                *lines += *c == '\n';
        g_free(text);
        g_free(path);
    }
    if (dir)
        g_dir_close(dir);
    return files;
}

/* appsrc frames recorded in 1 s segments of `folder` with a sidecar each. */
static GstElement* recording_pipeline(const char* folder)
{
    GError* error = NULL;
    gchar* description = g_strdup_printf(
        "appsrc name=src format=time caps=video/x-raw,format=GRAY8,width=%d,height=%d,framerate=30/1 "
        "! waldboostmetaconvert ! waldboostmetapublish name=publish splitmuxsink=rec ! videoconvert ! jpegenc "
        "! splitmuxsink name=rec muxer-factory=matroskamux location=%s/seg%%02d.mkv max-size-time=1000000000",
        W, H, folder);
    GstElement* p = gst_parse_launch(description, &error);
    CHECK(p && !error, "parse %s: %s", description, error ? error->message : "");
    g_clear_error(&error);
    g_free(description);
    return p;
}

/* A recording to its end, then one stopped after 40 frames without an
 * end of stream, documents still waiting for their fragment. Each its own
 * pipeline: GStreamer 1.22's splitmuxsink started again after NULL
 * sometimes stops with "Timestamping error on input streams", with or
 * without the publisher. */
static void splitmux_recording(void)
{
    const char* needed[] = {"jpegenc", "splitmuxsink", "matroskamux", "videoconvert"};
    gchar* folder;
    GstElement *p, *src;
    GstFlowReturn flow;
    int i, lines = 0, segments, sidecars;
    for (i = 0; i < 4; i++) {
        GstElementFactory* factory = gst_element_factory_find(needed[i]);
        if (!factory) {
            g_print("publish-lifecycle: splitmuxsink case not run, no %s\n", needed[i]);
            return;
        }
        gst_object_unref(factory);
    }
    folder = g_dir_make_tmp("waldboost-splitmux-XXXXXX", NULL);
    p = recording_pipeline(folder);
    if (p) {
        Outcome o = run(p, 95, NULL, 120 * GST_SECOND);
        CHECK(o.eos && !o.error && o.warnings->len == 0, "splitmuxsink: eos %d, errors %s, warnings %s", o.eos,
              o.errors->str, o.warnings->str);
        segments = files_and_lines(folder, ".mkv", &i);
        sidecars = files_and_lines(folder, ".jsonl", &lines);
        CHECK(segments == 4 && sidecars == 4 && lines == 95,
              "splitmuxsink: %d segments, %d sidecars, %d documents (4, 4, 95)", segments, sidecars, lines);
        outcome_clear(&o);
        gst_object_unref(p);
    }
    p = recording_pipeline(folder);
    if (p) {
        src = gst_bin_get_by_name(GST_BIN(p), "src");
        gst_element_set_state(p, GST_STATE_PLAYING);
        for (i = 0; i < 40; i++) {
            GstBuffer* b = frame(i);
            g_signal_emit_by_name(src, "push-buffer", b, &flow);
            gst_buffer_unref(b);
        }
        g_usleep(G_USEC_PER_SEC / 5);
        gst_element_set_state(p, GST_STATE_NULL);
        gst_object_unref(src);
        gst_object_unref(p);
    }
    {
        GDir* dir = g_dir_open(folder, 0, NULL);
        const gchar* name;
        while (dir && (name = g_dir_read_name(dir))) {
            gchar* path = g_build_filename(folder, name, NULL);
            g_unlink(path);
            g_free(path);
        }
        if (dir)
            g_dir_close(dir);
    }
    g_rmdir(folder);
    g_free(folder);
}

/* Settings refused at the start: an error, and the pipeline goes back. */
static void refused(void)
{
    const char* settings[] = {"method=file", "method=mqtt topic=cameras/+/x port=1"};
    const char* expected[] = {"needs file-path", "is not a topic MQTT publishes to"};
    int i;
#ifdef HAVE_MOSQUITTO
    const int count = 2;
#else
    const int count = 1;
#endif
    for (i = 0; i < count; i++) {
        GstElement* p = pipeline_with(settings[i]);
        Outcome o = run(p, 1, NULL, 30 * GST_SECOND);
        CHECK(o.error && strstr(o.errors->str, expected[i]) != NULL, "%s: errors %s", settings[i], o.errors->str);
        outcome_clear(&o);
        gst_object_unref(p);
    }
}

int main(int argc, char** argv)
{
    gst_init(&argc, &argv);
    g_label = hostile("label");
    g_event_label = g_strndup(g_label, strlen(g_label) - 2); /* without the two invalid bytes */
    hostile_to_file();
    full_disk();
#ifdef HAVE_MOSQUITTO
    hostile_brokers();
#endif
    refused();
    splitmux_recording();
    g_free(g_label);
    g_free(g_event_label);
    gst_deinit();
    if (failures)
        g_printerr("publish-lifecycle: %d failures\n", failures);
    else
        g_print("publish-lifecycle: every step as it should\n");
    return failures ? 1 : 0;
}
