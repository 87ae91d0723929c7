/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
/**
 * SECTION:element-waldboostmetapublish
 *
 * Sends the JSON documents of waldboostmetaconvert (the meta on each frame,
 * or application/x-json buffers from its json_src pad) to a file as JSON
 * lines, or to an MQTT broker. Buffers pass unchanged. A bounded queue and
 * a worker thread keep the output off the video path: when the queue is
 * full, documents are dropped and counted (stats), never waited for. The
 * worker comes round for them every 250 ms for a file, 100 ms for MQTT
 * (Output::round_ms()).
 *
 * gst-launch-1.0 ... ! waldboostmetaconvert source-id=cam1 ! waldboostmetapublish method=mqtt
 *     host=broker.lan topic="cameras/{source-id}" ! fakesink
 */
#include "gstwaldboostmetapublish.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/text.h"
#include "file_output.h"
#include "fragment_router.h"
#include "gstwaldboostmetaconvert.h"
#include "host_cost.h"
#include "json_meta.h"
#include "pad_walk.h"
#include "publish_worker.h"
#ifdef HAVE_MOSQUITTO
#include "mqtt_output.h"
#endif

using namespace waldboost_publish;

GST_DEBUG_CATEGORY_STATIC(gst_waldboost_meta_publish_debug);
#define GST_CAT_DEFAULT gst_waldboost_meta_publish_debug

enum {
    PROP_0,
    PROP_METHOD,
    PROP_FILE_PATH,
    PROP_MAX_FILE_SIZE,
    PROP_SPLITMUXSINK,
    PROP_HOST,
    PROP_PORT,
    PROP_TOPIC,
    PROP_QOS,
    PROP_CLIENT_ID,
    PROP_CA_FILE,
    PROP_CERT_FILE,
    PROP_KEY_FILE,
    PROP_CREDENTIALS_FILE,
    PROP_MAX_QUEUE,
    PROP_FLUSH_TIMEOUT,
    PROP_STATS,
};

constexpr guint kDefaultMaxQueue = 1000;
constexpr guint kDefaultFlushTimeoutMs = 5000;

struct PublishSettings {
    GstWaldboostPublishMethod method = GST_WALDBOOST_PUBLISH_FILE;
    std::string file_path;
    guint64 max_file_size = 0;
    std::string splitmuxsink;
    std::string host = "localhost";
    int port = 1883;
    std::string topic = "waldboost/{source-id}";
    int qos = 1;
    std::string client_id;
    std::string ca_file, cert_file, key_file, credentials_file;
    guint max_queue = kDefaultMaxQueue;
    guint flush_timeout_ms = kDefaultFlushTimeoutMs;
};

struct _GstWaldboostMetaPublish {
    GstBaseTransform parent;
    PublishSettings* settings; /* under the object lock */
    std::shared_ptr<PublishWorker>* worker;
    /* With splitmuxsink: which sidecar each document goes to. */
    std::shared_ptr<FragmentRouter>* router;
    std::string* topic;   /* the topic pattern of this run */
    GstElement* splitmux; /* followed, with its deep-notify handler */
    gulong splitmux_handler;
    GstBus* bus; /* the pipeline's, for splitmuxsink's messages */
    gulong bus_handler;
    HostCost* cost; /* for stats, kept after a stop */
    /* Whether a frame without documents was looked into since the start
     * (streaming thread). */
    gboolean source_checked;
    gboolean topic_source_checked; /* the same, for an empty source in a topic */
};

G_DEFINE_TYPE(GstWaldboostMetaPublish, gst_waldboost_meta_publish, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE(waldboostmetapublish, "waldboostmetapublish", GST_RANK_NONE,
                            GST_TYPE_WALDBOOST_META_PUBLISH);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static GType gst_waldboost_publish_method_get_type()
{
    static GType type = 0;
    static const GEnumValue values[] = {
        {GST_WALDBOOST_PUBLISH_FILE, "JSON lines in a file (file-path)", "file"},
        {GST_WALDBOOST_PUBLISH_MQTT, "Messages to an MQTT broker (host, port, topic)", "mqtt"},
        {0, nullptr, nullptr},
    };
    if (g_once_init_enter(&type))
        g_once_init_leave(&type, g_enum_register_static("GstWaldboostPublishMethod", values));
    return type;
}

/* A topic for `source` (valid UTF-8, the converter sees to it): the
 * pattern's {source-id} replaced by it, with what MQTT refuses in a topic
 * name made '_': the wildcards + and #, control characters (C0, DEL, C1)
 * and non-characters (libmosquitto's mosquitto_validate_utf8). */
static std::string topic_for(const std::string& pattern, const std::string& source)
{
    static const std::string key = "{source-id}";
    std::string clean;
    for (const gchar* p = source.c_str(); *p; p = g_utf8_next_char(p)) {
        const gunichar c = g_utf8_get_char(p);
        if (c == '+' || c == '#' || c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= 0xfdd0 && c <= 0xfdef) ||
            (c & 0xfffe) == 0xfffe)
            clean += '_';
        else
            clean.append(p, g_utf8_next_char(p) - p);
    }
    std::string out = pattern;
    for (size_t at = out.find(key); at != std::string::npos; at = out.find(key, at + clean.size()))
        out.replace(at, key.size(), clean);
    return out;
}

/* Cameras whose converters have no source-id all publish to one topic
 * ("waldboost/"), each document's "source" empty: nothing tells them
 * apart. Said once per start. */
static void check_topic_source(GstWaldboostMetaPublish* self, const std::string& source)
{
    if (self->topic_source_checked || !source.empty() || self->topic->find("{source-id}") == std::string::npos)
        return;
    self->topic_source_checked = TRUE;
    const std::string topic = topic_for(*self->topic, source);
    GST_ELEMENT_WARNING(self, RESOURCE, SETTINGS,
                        ("The documents have no source (waldboostmetaconvert's source-id is empty), so topic=\"%s\" "
                         "is \"%s\", the same for every camera without one. Set source-id on the converter.",
                         waldboost::printable(*self->topic).c_str(), waldboost::printable(topic).c_str()),
                        (nullptr));
}

/* `time`: the running time of the frame the documents are of (NONE for
 * an event's), for the sidecar of its splitmuxsink fragment. */
static void enqueue(GstWaldboostMetaPublish* self, const std::string& source, std::vector<std::string>& docs,
                    GstClockTime time)
{
    if (!*self->worker)
        return;
    if (*self->router) {
        for (std::string& d : docs)
            (*self->router)->route(time, std::move(d));
        return;
    }
    /* A file has no topic. */
    const std::string topic = self->topic->empty() ? std::string() : topic_for(*self->topic, source);
    for (std::string& d : docs)
        (*self->worker)->push(Document{topic, std::move(d), {}});
}

/* Whether a waldboostmetaconvert lies upstream of `sink_pad`. */
static bool converter_upstream(GstPad* sink_pad)
{
    return element_along(sink_pad, GST_PAD_SINK, [](GstElement* element) {
        return G_TYPE_CHECK_INSTANCE_TYPE(element, GST_TYPE_WALDBOOST_META_CONVERT);
    });
}

/* A frame without documents: fine behind a converter (skip-empty-frames
 * makes none for frames without objects), but with no converter upstream
 * nothing will ever be published, and the file would stay empty without a
 * word. Looked into once per start. */
static void check_source(GstWaldboostMetaPublish* self, GstBaseTransform* trans)
{
    if (self->source_checked)
        return;
    self->source_checked = TRUE;
    if (converter_upstream(GST_BASE_TRANSFORM_SINK_PAD(trans)))
        return;
    const gchar* name = GST_OBJECT_NAME(self);
    GST_ELEMENT_WARNING(self, STREAM, WRONG_TYPE,
                        ("%s has no waldboostmetaconvert before it, so it has no documents to publish. Put one "
                         "before it: ... ! waldboostmetaconvert ! %s ! fakesink",
                         name, name),
                        ("a frame came with neither the converter's documents meta nor application/x-json caps"));
}

/* The documents of a buffer into the queue. */
static GstFlowReturn take_documents(GstBaseTransform* trans, GstBuffer* buffer)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(trans);
    std::string source;
    std::vector<std::string> docs;
    const GstClockTime time =
        trans->segment.format == GST_FORMAT_TIME
            ? gst_segment_to_running_time(&trans->segment, GST_FORMAT_TIME, GST_BUFFER_PTS(buffer))
            : GST_CLOCK_TIME_NONE;
    if (get_json_fields(json_meta_structure(buffer), &source, &docs)) {
        /* The converter's source (its json_src buffers carry the meta as well). */
        if (!self->topic->empty())
            check_topic_source(self, source);
        enqueue(self, source, docs, time);
        return GST_FLOW_OK;
    }
    /* application/x-json from elsewhere: the buffer is the document. */
    GstCaps* caps = gst_pad_get_current_caps(GST_BASE_TRANSFORM_SINK_PAD(trans));
    const bool json = caps && gst_structure_has_name(gst_caps_get_structure(caps, 0), "application/x-json");
    if (caps)
        gst_caps_unref(caps);
    GstMapInfo map;
    if (json && gst_buffer_map(buffer, &map, GST_MAP_READ)) {
        docs.emplace_back(reinterpret_cast<const char*>(map.data), map.size);
        gst_buffer_unmap(buffer, &map);
        enqueue(self, "", docs, time);
    }
    if (!json)
        check_source(self, trans);
    return GST_FLOW_OK;
}

/* The publisher writes, as filesink does, but it is a filter (as DL
 * Streamer's gvametapublish): with nothing linked after it the frame
 * comes back NOT_LINKED, and its branch stops after the first document.
 * GStreamer then names the source and "not-linked" only, and behind a tee
 * (whose other branches go on) nothing at all: the documents just stop.
 * Say what is missing at once. */
static bool check_linked(GstBaseTransform* trans)
{
    if (gst_pad_is_linked(GST_BASE_TRANSFORM_SRC_PAD(trans)))
        return true;
    const gchar* name = GST_OBJECT_NAME(trans);
    GST_ELEMENT_ERROR(trans, CORE, PAD,
                      ("%s has nothing linked after it, so its branch would stop at the first frame and no more "
                       "documents would be published. End its branch with a sink: ... ! %s ! fakesink",
                       name, name),
                      ("its source pad has no peer"));
    return false;
}

/* The streaming thread's share of the cost: taking the documents. */
static GstFlowReturn publish_transform_ip(GstBaseTransform* trans, GstBuffer* buffer)
{
    StreamingTime timed(*GST_WALDBOOST_META_PUBLISH(trans)->cost);
    if (!check_linked(trans))
        return GST_FLOW_ERROR;
    return take_documents(trans, buffer);
}

static gboolean publish_sink_event(GstBaseTransform* trans, GstEvent* event)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(trans);
    if (GST_EVENT_TYPE(event) == GST_EVENT_CUSTOM_DOWNSTREAM) {
        std::string source;
        std::vector<std::string> docs;
        if (get_json_fields(gst_event_get_structure(event), &source, &docs))
            enqueue(self, source, docs, GST_CLOCK_TIME_NONE);
    } else if (GST_EVENT_TYPE(event) == GST_EVENT_FLUSH_STOP && *self->router) {
        /* Running time starts again: what waits goes where it can. */
        (*self->router)->release_all();
    } else if (GST_EVENT_TYPE(event) == GST_EVENT_EOS && *self->worker) {
        /* The documents of splitmuxsink's last fragment may wait for it
         * to end (FragmentRouter::closed drains them then). */
        if (*self->router)
            (*self->router)->end_of_stream();
        GST_OBJECT_LOCK(self);
        const guint timeout = self->settings->flush_timeout_ms;
        const bool mqtt = self->settings->method == GST_WALDBOOST_PUBLISH_MQTT;
        const std::string broker = self->settings->host + ":" + std::to_string(self->settings->port);
        GST_OBJECT_UNLOCK(self);
        const size_t left = (*self->worker)->drain(timeout);
        if (left > 0) {
            /* Why they wait: a broker that was never reached (one that
             * takes the connection and says nothing, or is no broker) is
             * otherwise said only after the connection timeout. */
            const PublishWorker::Counts c = (*self->worker)->counts();
            std::string why = "a larger flush-timeout waits longer";
            if (mqtt && !c.connected && c.connections == 0)
                why = "no MQTT connection to " + broker +
                      " was made in this stream: check host and port, and that an MQTT broker (not another "
                      "service) answers there";
            else if (mqtt && !c.connected)
                why = "the connection to the MQTT broker " + broker + " is lost";
            GST_ELEMENT_WARNING(self, RESOURCE, WRITE,
                                ("%zu documents were not delivered within flush-timeout=%u ms at the end of the "
                                 "stream; %s.",
                                 left, timeout, why.c_str()),
                                (nullptr));
        }
        GST_INFO_OBJECT(self, "end of stream: %zu documents left after the drain", left);
    }
    const bool eos = GST_EVENT_TYPE(event) == GST_EVENT_EOS;
    const gboolean passed = GST_BASE_TRANSFORM_CLASS(gst_waldboost_meta_publish_parent_class)->sink_event(trans, event);
    /* Where a stream's end went, for a pipeline that never ends. */
    if (eos)
        GST_INFO_OBJECT(self, "end of stream %s downstream", passed ? "passed" : "not taken");
    return passed;
}

/* A splitmuxsink fragment's sidecar: its file name with the extension
 * replaced by .jsonl. */
static std::string sidecar_of(const std::string& fragment)
{
    const size_t slash = fragment.rfind('/');
    const size_t dot = fragment.rfind('.');
    const size_t stem = dot != std::string::npos && (slash == std::string::npos || dot > slash) ? dot : fragment.size();
    return fragment.substr(0, stem) + ".jsonl";
}

/* What a handler of splitmuxsink's signals and messages holds: its own
 * reference to the router, so that a handler still running on
 * splitmuxsink's thread when the publisher stops has one. */
struct SplitmuxFollower {
    std::shared_ptr<FragmentRouter> router;
    GstObject* splitmux;
};

static void free_follower(gpointer data, GClosure*)
{
    auto* follower = static_cast<SplitmuxFollower*>(data);
    gst_object_unref(follower->splitmux);
    delete follower;
}

static SplitmuxFollower* new_follower(GstWaldboostMetaPublish* self)
{
    return new SplitmuxFollower{*self->router, GST_OBJECT(gst_object_ref(self->splitmux))};
}

/* splitmuxsink sets its file sink's location as each fragment opens. */
static void on_splitmux_location(GstObject* splitmux, GstObject* prop_object, GParamSpec*, gpointer data)
{
    if (prop_object == splitmux)
        return;
    gchar* location = nullptr;
    g_object_get(prop_object, "location", &location, nullptr);
    if (!location)
        return;
    GST_INFO_OBJECT(splitmux, "fragment %s: sidecar %s", location, sidecar_of(location).c_str());
    static_cast<SplitmuxFollower*>(data)->router->announced(sidecar_of(location));
    g_free(location);
}

/* Then it says where the fragment starts, and later where it ends, in an
 * element message, taken on the thread that posts it (the pipeline's
 * bus emits sync-message for it). */
static void on_bus_message(GstBus*, GstMessage* message, gpointer data)
{
    auto* follower = static_cast<SplitmuxFollower*>(data);
    const GstStructure* s = gst_message_get_structure(message);
    if (GST_MESSAGE_SRC(message) != follower->splitmux || !s)
        return;
    const gchar* location = gst_structure_get_string(s, "location");
    GstClockTime time = GST_CLOCK_TIME_NONE;
    if (!location || !gst_structure_get_clock_time(s, "running-time", &time))
        return;
    GST_INFO_OBJECT(follower->splitmux, "%s %s at %" GST_TIME_FORMAT, gst_structure_get_name(s), location,
                    GST_TIME_ARGS(time));
    if (gst_structure_has_name(s, "splitmuxsink-fragment-opened"))
        follower->router->opened(sidecar_of(location), time);
    else if (gst_structure_has_name(s, "splitmuxsink-fragment-closed"))
        follower->router->closed(sidecar_of(location), time);
}

static bool follow_splitmuxsink(GstWaldboostMetaPublish* self, const std::string& name)
{
    GstObject* top = GST_OBJECT(gst_object_ref(self));
    while (GstObject* parent = gst_object_get_parent(top)) {
        gst_object_unref(top);
        top = parent;
    }
    GstElement* found = GST_IS_BIN(top) ? gst_bin_get_by_name(GST_BIN(top), name.c_str()) : nullptr;
    if (!found) {
        gst_object_unref(top);
        GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                          ("No element named \"%s\" in the pipeline for splitmuxsink; name the splitmuxsink "
                           "(splitmuxsink name=%s ...) or clear the property.",
                           name.c_str(), name.c_str()),
                          (nullptr));
        return false;
    }
    self->splitmux = found;
    self->splitmux_handler = g_signal_connect_data(found, "deep-notify::location", G_CALLBACK(on_splitmux_location),
                                                   new_follower(self), free_follower, GConnectFlags(0));
    /* Without the messages (a bus handler of the application's that drops
     * them), the sidecars change when the fragments are announced. */
    self->bus = gst_element_get_bus(GST_ELEMENT(top));
    gst_object_unref(top);
    if (self->bus) {
        gst_bus_enable_sync_message_emission(self->bus);
        self->bus_handler = g_signal_connect_data(self->bus, "sync-message::element", G_CALLBACK(on_bus_message),
                                                  new_follower(self), free_follower, GConnectFlags(0));
    }
    return true;
}

/* The widest number a file-path conversion may ask for: a guint's ten
 * digits and then some. printf pads to any width, and %999999999d made a
 * name of a gigabyte (%2147483647d aborted the process). */
static constexpr int kMaxPatternWidth = 20;

/* Whether `pattern` holds at most one conversion, an integer one (as
 * %05d or %u) no wider than kMaxPatternWidth, so that it can name
 * numbered files. */
static bool valid_pattern(const std::string& pattern)
{
    int conversions = 0;
    for (size_t i = 0; i < pattern.size(); ++i) {
        if (pattern[i] != '%')
            continue;
        if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
            ++i;
            continue;
        }
        size_t j = i + 1;
        int width = 0;
        while (j < pattern.size() && g_ascii_isdigit(pattern[j])) {
            width = width * 10 + (pattern[j] - '0');
            if (width > kMaxPatternWidth)
                return false;
            ++j;
        }
        if (j >= pattern.size() || (pattern[j] != 'd' && pattern[j] != 'u'))
            return false;
        ++conversions;
        i = j;
    }
    return conversions <= 1;
}

#ifdef HAVE_MOSQUITTO
static std::string trim_line(const std::string& line)
{
    size_t end = line.size();
    while (end > 0 && (line[end - 1] == '\r' || line[end - 1] == '\n'))
        --end;
    return line.substr(0, end);
}

/* The most a credentials file may hold: two lines, a user name and a
 * password, are far less. */
static constexpr size_t kMaxCredentialsBytes = 64 * 1024;

/* The file's text, at most kMaxCredentialsBytes, read through the core's
 * InputFile: a FIFO (which would block the start for a writer that never
 * comes) or a device (/dev/zero, read without end) is refused. The buffer
 * is wiped before it is freed. */
static bool read_small_file(const std::string& path, std::string* text, std::string* why)
{
    try {
        waldboost::io::InputFile file = waldboost::io::InputFile::open(path);
        std::vector<char> buffer(kMaxCredentialsBytes + 1);
        size_t used = 0;
        for (size_t n; used < buffer.size() && (n = file.read(buffer.data() + used, buffer.size() - used)) > 0;)
            used += n;
        const bool too_large = used > kMaxCredentialsBytes;
        if (!too_large)
            text->assign(buffer.data(), used);
        std::fill(buffer.begin(), buffer.end(), '\0');
        if (too_large)
            *why = "it holds more than " + std::to_string(kMaxCredentialsBytes / 1024) + " KiB";
        return !too_large;
    } catch (const waldboost::Error& error) {
        *why = error.what();
        return false;
    }
}

/* Whether the TLS file a property names is a regular file that can be
 * opened, checked as the core checks every file a user names: libmosquitto
 * opens it with fopen(), which waits for a writer when it is a FIFO, so
 * that the start hung; a device gave only "A TLS error occurred" later. */
static bool tls_file_readable(GstWaldboostMetaPublish* self, const char* property, const std::string& path)
{
    try {
        waldboost::io::InputFile::open(path);
        return true;
    } catch (const waldboost::Error& error) {
        GST_ELEMENT_ERROR(
            self, RESOURCE, OPEN_READ,
            ("Could not read %s \"%s\": %s. It must be a regular file (PEM).", property, path.c_str(), error.what()),
            (nullptr));
        return false;
    }
}

/* The user name and password: the file's first and second lines. Only
 * the file's name is ever said. */
static bool read_credentials(GstWaldboostMetaPublish* self, const std::string& path, std::string* user,
                             std::string* password)
{
    std::string text, why;
    if (!read_small_file(path, &text, &why)) {
        GST_ELEMENT_ERROR(self, RESOURCE, OPEN_READ,
                          ("Could not read credentials-file \"%s\": %s. It must be a regular file whose first line is "
                           "the user name and whose second is the password.",
                           path.c_str(), why.c_str()),
                          (nullptr));
        return false;
    }
    const size_t first_end = std::min(text.find('\n'), text.size());
    *user = trim_line(text.substr(0, first_end));
    const size_t second_start = std::min(first_end + 1, text.size());
    *password = trim_line(text.substr(second_start, text.find('\n', second_start) - second_start));
    std::fill(text.begin(), text.end(), '\0');
    if (user->empty()) {
        GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                          ("credentials-file \"%s\" has no user name: its first line is the user name, its second "
                           "the password.",
                           path.c_str()),
                          (nullptr));
        return false;
    }
    return true;
}
#endif

static gboolean publish_stop(GstBaseTransform* trans);

static gboolean publish_start(GstBaseTransform* trans)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(trans);
    self->source_checked = FALSE;
    self->topic_source_checked = FALSE;
    GST_OBJECT_LOCK(self);
    const PublishSettings s = *self->settings;
    GST_OBJECT_UNLOCK(self);
    *self->topic = s.method == GST_WALDBOOST_PUBLISH_MQTT ? s.topic : std::string();
    auto warn = [self](const std::string& message) {
        GST_ELEMENT_WARNING(self, RESOURCE, WRITE, ("%s", message.c_str()), (nullptr));
    };
    std::unique_ptr<Output> output;
    if (s.method == GST_WALDBOOST_PUBLISH_FILE) {
        if (s.file_path.empty() && s.splitmuxsink.empty()) {
            /* file is the default: a broker's settings without method=mqtt
             * are the likely slip. */
            const PublishSettings defaults;
            const bool broker_set = s.host != defaults.host || s.port != defaults.port || s.topic != defaults.topic ||
                                    !s.ca_file.empty() || !s.credentials_file.empty();
            GST_ELEMENT_ERROR(self, RESOURCE, NOT_FOUND,
                              ("method=file needs file-path (or splitmuxsink, whose fragments name the files).%s",
                               broker_set ? " The broker's settings are set: for MQTT, set method=mqtt." : ""),
                              (nullptr));
            return FALSE;
        }
        if (!valid_pattern(s.file_path)) {
            GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                              ("file-path \"%s\" may hold one integer conversion (as %%05d, at most %d wide) to "
                               "number the files, and no other %%; write %%%% for a %% sign.",
                               s.file_path.c_str(), kMaxPatternWidth),
                              (nullptr));
            return FALSE;
        }
        auto file = std::make_unique<FileOutput>(s.file_path, s.max_file_size, warn);
        if (!s.file_path.empty() && !file->open_first()) {
            const int error = errno;
            if (file->taken())
                GST_ELEMENT_ERROR(self, RESOURCE, BUSY,
                                  ("file-path \"%s\" is being written by another waldboostmetapublish: give each "
                                   "publisher a file of its own.",
                                   s.file_path.c_str()),
                                  ("another open file description holds the file's flock() lock"));
            else
                GST_ELEMENT_ERROR(self, RESOURCE, OPEN_WRITE,
                                  ("Could not open file-path \"%s\" for writing.", s.file_path.c_str()),
                                  ("%s", g_strerror(error)));
            return FALSE;
        }
        output = std::move(file);
    } else {
#ifdef HAVE_MOSQUITTO
        MqttSettings m;
        m.host = s.host;
        m.port = s.port;
        m.qos = s.qos;
        m.client_id = s.client_id;
        m.ca_file = s.ca_file;
        m.cert_file = s.cert_file;
        m.key_file = s.key_file;
        if (!s.credentials_file.empty() && !read_credentials(self, s.credentials_file, &m.user, &m.password))
            return FALSE;
        const std::pair<const char*, const std::string*> tls_files[] = {
            {"ca-file", &s.ca_file}, {"cert-file", &s.cert_file}, {"key-file", &s.key_file}};
        for (const auto& [name, path] : tls_files) {
            if (!path->empty() && !tls_file_readable(self, name, *path))
                return FALSE;
        }
        std::string why;
        if (!mqtt_topic_valid(topic_for(s.topic, "source"), &why)) {
            GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS,
                              ("topic \"%s\" is not a topic MQTT publishes to (%s): + and # are wildcards for "
                               "subscriptions only, and control characters are not allowed.",
                               s.topic.c_str(), why.c_str()),
                              (nullptr));
            return FALSE;
        }
        auto mqtt = std::make_unique<MqttOutput>(std::move(m), warn);
        std::string error;
        if (!mqtt->init(&error)) {
            GST_ELEMENT_ERROR(self, RESOURCE, SETTINGS, ("MQTT: %s.", error.c_str()), (nullptr));
            return FALSE;
        }
        output = std::move(mqtt);
#else
        GST_ELEMENT_ERROR(self, CORE, NOT_IMPLEMENTED,
                          ("This build of waldboostmetapublish has no MQTT support: it was built without "
                           "libmosquitto (Debian's libmosquitto-dev, meson option -Dmqtt=enabled)."),
                          (nullptr));
        return FALSE;
#endif
    }
    auto on_drop = [self](guint64 dropped) {
        GST_ELEMENT_WARNING(self, RESOURCE, WRITE,
                            ("The output does not keep up (or is disconnected): the queue of max-queue documents "
                             "is full and documents are being dropped (%" G_GUINT64_FORMAT " so far; see stats). "
                             "Said again at the next drop after the queue runs empty.",
                             dropped),
                            (nullptr));
    };
    self->cost->reset();
    auto worker = std::make_shared<PublishWorker>(std::move(output), s.max_queue, on_drop, &self->cost->worker_ns);
    if (s.method == GST_WALDBOOST_PUBLISH_FILE && !s.splitmuxsink.empty()) {
        /* As many documents wait for their fragment as the queue holds. */
        const guint timeout = s.flush_timeout_ms;
        auto router = std::make_shared<FragmentRouter>(
            s.max_queue,
            [worker](Document d) {
                worker->push(std::move(d));
            },
            [worker, timeout] {
                worker->drain(timeout);
            });
        GST_OBJECT_LOCK(self);
        *self->router = std::move(router);
        GST_OBJECT_UNLOCK(self);
    }
    GST_OBJECT_LOCK(self);
    *self->worker = std::move(worker);
    GST_OBJECT_UNLOCK(self);
    if (*self->router && !follow_splitmuxsink(self, s.splitmuxsink)) {
        publish_stop(trans);
        return FALSE;
    }
    return TRUE;
}

static gboolean publish_stop(GstBaseTransform* trans)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(trans);
    if (self->bus) {
        g_signal_handler_disconnect(self->bus, self->bus_handler);
        gst_bus_disable_sync_message_emission(self->bus);
        gst_object_unref(self->bus);
        self->bus = nullptr;
    }
    if (self->splitmux) {
        g_signal_handler_disconnect(self->splitmux, self->splitmux_handler);
        gst_object_unref(self->splitmux);
        self->splitmux = nullptr;
    }
    /* A handler still running keeps the router, which sends nothing
     * more. */
    GST_OBJECT_LOCK(self);
    std::shared_ptr<FragmentRouter> router = std::move(*self->router);
    GST_OBJECT_UNLOCK(self);
    if (router)
        router->finish();
    /* Taken out under the lock (stats reads it), stopped outside it: the
     * worker may be posting a warning, which takes the element's lock. */
    GST_OBJECT_LOCK(self);
    std::shared_ptr<PublishWorker> worker = std::move(*self->worker);
    const bool file = self->settings->method == GST_WALDBOOST_PUBLISH_FILE;
    const guint timeout = self->settings->flush_timeout_ms;
    GST_OBJECT_UNLOCK(self);
    /* A stop without an end of stream (an error: gst-launch-1.0 stops on
     * one without an EOS) still writes what was taken, as filesink keeps
     * what it was given; a broker that may be away is not waited for. */
    if (worker && file)
        worker->drain(timeout);
    worker.reset();
    return TRUE;
}

static GstStructure* publish_stats(GstWaldboostMetaPublish* self)
{
    PublishWorker::Counts c;
    gint64 worker_ns = 0;
    auto read = [&](size_t held) {
        GST_OBJECT_LOCK(self);
        if (*self->worker) {
            c = (*self->worker)->counts();
            worker_ns = (*self->worker)->cpu_ns();
        }
        GST_OBJECT_UNLOCK(self);
        c.documents += held;
        c.queued += held;
    };
    /* Documents waiting for their splitmuxsink fragment are taken and
     * queued too, counted under the router's lock, which they move to the
     * worker under. The element's lock comes after it there too: a
     * document handed to the worker may post its drop warning. */
    GST_OBJECT_LOCK(self);
    std::shared_ptr<FragmentRouter> router = *self->router;
    GST_OBJECT_UNLOCK(self);
    if (router)
        router->read_held(read);
    else
        read(0);
    worker_ns += self->cost->worker_ns;
    return gst_structure_new("stats", "documents", G_TYPE_UINT64, c.documents, "published", G_TYPE_UINT64, c.published,
                             "dropped", G_TYPE_UINT64, c.dropped, "queued", G_TYPE_UINT64, c.queued, "in-flight",
                             G_TYPE_UINT64, c.in_flight, "connected", G_TYPE_BOOLEAN, c.connected, "connections",
                             G_TYPE_UINT64, c.connections, "frames", G_TYPE_UINT64, self->cost->frames.load(),
                             "host-total-ms", G_TYPE_DOUBLE, HostCost::ms(self->cost->streaming_ns.load()),
                             "worker-total-ms", G_TYPE_DOUBLE, HostCost::ms(worker_ns), nullptr);
}

static void publish_set_property(GObject* object, guint id, const GValue* value, GParamSpec* pspec)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(object);
    const char* text = G_VALUE_HOLDS_STRING(value) && g_value_get_string(value) ? g_value_get_string(value) : "";
    GST_OBJECT_LOCK(self);
    PublishSettings& s = *self->settings;
    switch (id) {
    case PROP_METHOD: s.method = static_cast<GstWaldboostPublishMethod>(g_value_get_enum(value)); break;
    case PROP_FILE_PATH: s.file_path = text; break;
    case PROP_MAX_FILE_SIZE: s.max_file_size = g_value_get_uint64(value); break;
    case PROP_SPLITMUXSINK: s.splitmuxsink = text; break;
    case PROP_HOST: s.host = text; break;
    case PROP_PORT: s.port = g_value_get_int(value); break;
    case PROP_TOPIC: s.topic = text; break;
    case PROP_QOS: s.qos = g_value_get_int(value); break;
    case PROP_CLIENT_ID: s.client_id = text; break;
    case PROP_CA_FILE: s.ca_file = text; break;
    case PROP_CERT_FILE: s.cert_file = text; break;
    case PROP_KEY_FILE: s.key_file = text; break;
    case PROP_CREDENTIALS_FILE: s.credentials_file = text; break;
    case PROP_MAX_QUEUE: s.max_queue = g_value_get_uint(value); break;
    case PROP_FLUSH_TIMEOUT: s.flush_timeout_ms = g_value_get_uint(value); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void publish_get_property(GObject* object, guint id, GValue* value, GParamSpec* pspec)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(object);
    if (id == PROP_STATS) {
        g_value_take_boxed(value, publish_stats(self));
        return;
    }
    GST_OBJECT_LOCK(self);
    const PublishSettings& s = *self->settings;
    switch (id) {
    case PROP_METHOD: g_value_set_enum(value, s.method); break;
    case PROP_FILE_PATH: g_value_set_string(value, s.file_path.c_str()); break;
    case PROP_MAX_FILE_SIZE: g_value_set_uint64(value, s.max_file_size); break;
    case PROP_SPLITMUXSINK: g_value_set_string(value, s.splitmuxsink.c_str()); break;
    case PROP_HOST: g_value_set_string(value, s.host.c_str()); break;
    case PROP_PORT: g_value_set_int(value, s.port); break;
    case PROP_TOPIC: g_value_set_string(value, s.topic.c_str()); break;
    case PROP_QOS: g_value_set_int(value, s.qos); break;
    case PROP_CLIENT_ID: g_value_set_string(value, s.client_id.c_str()); break;
    case PROP_CA_FILE: g_value_set_string(value, s.ca_file.c_str()); break;
    case PROP_CERT_FILE: g_value_set_string(value, s.cert_file.c_str()); break;
    case PROP_KEY_FILE: g_value_set_string(value, s.key_file.c_str()); break;
    case PROP_CREDENTIALS_FILE: g_value_set_string(value, s.credentials_file.c_str()); break;
    case PROP_MAX_QUEUE: g_value_set_uint(value, s.max_queue); break;
    case PROP_FLUSH_TIMEOUT: g_value_set_uint(value, s.flush_timeout_ms); break;
    default: G_OBJECT_WARN_INVALID_PROPERTY_ID(object, id, pspec); break;
    }
    GST_OBJECT_UNLOCK(self);
}

static void publish_finalize(GObject* object)
{
    auto* self = GST_WALDBOOST_META_PUBLISH(object);
    delete self->worker;
    delete self->router;
    delete self->settings;
    delete self->topic;
    delete self->cost;
    G_OBJECT_CLASS(gst_waldboost_meta_publish_parent_class)->finalize(object);
}

static void gst_waldboost_meta_publish_class_init(GstWaldboostMetaPublishClass* klass)
{
    GObjectClass* gobject_class = G_OBJECT_CLASS(klass);
    GstElementClass* element_class = GST_ELEMENT_CLASS(klass);
    GstBaseTransformClass* trans_class = GST_BASE_TRANSFORM_CLASS(klass);
    gobject_class->set_property = publish_set_property;
    gobject_class->get_property = publish_get_property;
    gobject_class->finalize = publish_finalize;
    trans_class->transform_ip = publish_transform_ip;
    trans_class->transform_ip_on_passthrough = TRUE;
    trans_class->sink_event = publish_sink_event;
    trans_class->start = publish_start;
    trans_class->stop = publish_stop;

    /* Settings are read when the element starts (READY to PAUSED). */
    const auto flags = static_cast<GParamFlags>(G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
    g_object_class_install_property(
        gobject_class, PROP_METHOD,
        g_param_spec_enum("method", "Method", "Where documents go: file (JSON lines) or mqtt (a broker)",
                          gst_waldboost_publish_method_get_type(), GST_WALDBOOST_PUBLISH_FILE, flags));
    g_object_class_install_property(
        gobject_class, PROP_FILE_PATH,
        g_param_spec_string("file-path", "File path",
                            "method=file: the JSON lines file; with max-file-size, a %05d in it numbers the files "
                            "(else .1, .2 ... are appended)",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_MAX_FILE_SIZE,
        g_param_spec_uint64("max-file-size", "Max file size",
                            "method=file: start the next file before one would pass this many bytes (0 = never)", 0,
                            G_MAXUINT64, 0, flags));
    g_object_class_install_property(
        gobject_class, PROP_SPLITMUXSINK,
        g_param_spec_string("splitmuxsink", "splitmuxsink",
                            "method=file: the name of a splitmuxsink in the pipeline; each of its fragments gets a "
                            "sidecar of its own, the fragment's name with .jsonl for its extension, holding the "
                            "documents of the fragment's frames (by running time; a document waits until the next "
                            "fragment opens, at most max-queue of them)",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_HOST,
        g_param_spec_string("host", "Host", "method=mqtt: the broker's host name or address", "localhost", flags));
    g_object_class_install_property(gobject_class, PROP_PORT,
                                    g_param_spec_int("port", "Port",
                                                     "method=mqtt: the broker's port (8883 is usual with TLS)", 1,
                                                     65535, 1883, flags));
    g_object_class_install_property(
        gobject_class, PROP_TOPIC,
        g_param_spec_string("topic", "Topic",
                            "method=mqtt: the topic of every document; {source-id} becomes the document's source",
                            "waldboost/{source-id}", flags));
    g_object_class_install_property(
        gobject_class, PROP_QOS,
        g_param_spec_int("qos", "QoS",
                         "method=mqtt: 0 at most once, 1 at least once (confirmed by the broker), 2 exactly once", 0, 2,
                         1, flags));
    g_object_class_install_property(
        gobject_class, PROP_CLIENT_ID,
        g_param_spec_string("client-id", "Client id",
                            "method=mqtt: the MQTT client id, one per publisher (a broker closes the older of two "
                            "connections with one id); empty = a random one",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_CA_FILE,
        g_param_spec_string("ca-file", "CA file",
                            "method=mqtt: a PEM file of the certificate authorities the broker's certificate is "
                            "checked against; set = TLS",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_CERT_FILE,
        g_param_spec_string("cert-file", "Certificate file",
                            "method=mqtt with TLS: this client's certificate (PEM), for brokers that ask for one", "",
                            flags));
    g_object_class_install_property(gobject_class, PROP_KEY_FILE,
                                    g_param_spec_string("key-file", "Key file",
                                                        "method=mqtt with TLS: the private key of cert-file (PEM)", "",
                                                        flags));
    g_object_class_install_property(
        gobject_class, PROP_CREDENTIALS_FILE,
        g_param_spec_string("credentials-file", "Credentials file",
                            "method=mqtt: a file whose first line is the user name and second line the password; "
                            "they are never shown nor logged. A refusal by the broker is a warning, and the "
                            "publisher retries",
                            "", flags));
    g_object_class_install_property(
        gobject_class, PROP_MAX_QUEUE,
        g_param_spec_uint("max-queue", "Max queue",
                          "Documents waiting for the output at most; more are dropped (counted in stats, with a "
                          "warning), so that the video never waits",
                          1, 1000000, kDefaultMaxQueue, flags));
    g_object_class_install_property(
        gobject_class, PROP_FLUSH_TIMEOUT,
        g_param_spec_uint("flush-timeout", "Flush timeout",
                          "At the end of the stream, how long (ms) to wait for queued documents to be delivered "
                          "before the EOS goes on (with method=file, at a stop without an end of stream too)",
                          0, 600000, kDefaultFlushTimeoutMs, flags));
    g_object_class_install_property(
        gobject_class, PROP_STATS,
        g_param_spec_boxed("stats", "Statistics",
                           "documents (taken), published (written; with MQTT QoS 1 and 2, confirmed by the "
                           "broker), dropped, queued (with those waiting for their splitmuxsink fragment), "
                           "in-flight, connected, connections; and since the element "
                           "last started, kept after it stops: frames (buffers taken), host-total-ms (the streaming "
                           "thread's CPU time on them, as waldboostdetect's host-total-ms) and worker-total-ms (the "
                           "worker thread's: writing, sending, the connection's upkeep)",
                           GST_TYPE_STRUCTURE, static_cast<GParamFlags>(G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

    gst_element_class_add_static_pad_template(element_class, &sink_template);
    gst_element_class_add_static_pad_template(element_class, &src_template);
    gst_element_class_set_static_metadata(
        element_class, "WaldBoost metadata publisher", "Filter/Metadata",
        "Sends waldboostmetaconvert's JSON documents to a file (JSON lines, rotated by size or with "
        "splitmuxsink's fragments) or to an MQTT broker, through a bounded queue that never holds the video up; "
        "the frames pass on, so a sink follows it (... ! waldboostmetapublish ! fakesink)",
        "waldboost-gst developers");
    gst_type_mark_as_plugin_api(gst_waldboost_publish_method_get_type(), static_cast<GstPluginAPIFlags>(0));
    GST_DEBUG_CATEGORY_INIT(gst_waldboost_meta_publish_debug, "waldboostmetapublish", 0,
                            "WaldBoost metadata publisher");
}

static void gst_waldboost_meta_publish_init(GstWaldboostMetaPublish* self)
{
    self->settings = new PublishSettings();
    self->worker = new std::shared_ptr<PublishWorker>();
    self->router = new std::shared_ptr<FragmentRouter>();
    self->topic = new std::string();
    self->splitmux = nullptr;
    self->splitmux_handler = 0;
    self->bus = nullptr;
    self->bus_handler = 0;
    self->cost = new HostCost();
    gst_base_transform_set_passthrough(GST_BASE_TRANSFORM(self), TRUE);
    gst_base_transform_set_in_place(GST_BASE_TRANSFORM(self), TRUE);
}
