/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Documents to an MQTT broker with libmosquitto, driven by the publisher's
 * worker thread alone (mosquitto_loop there, no thread of libmosquitto's):
 * it connects without blocking, reconnects after 1 s, 2 s, 4 s ... up to
 * 30 s, and keeps at most max_in_flight QoS 1 or 2 messages unconfirmed,
 * so that the bounded queue, not libmosquitto's unbounded one, holds what
 * waits.
 */
#pragma once

#include <functional>
#include <set>
#include <string>

#include "publish_worker.h"

struct mosquitto;

namespace waldboost_publish {

struct MqttSettings {
    std::string host = "localhost";
    int port = 1883;
    int qos = 1;
    std::string client_id;
    int keepalive = 30;
    std::string ca_file, cert_file, key_file;
    std::string user, password; /* from the credentials file; never logged */
};

class MqttOutput : public Output {
public:
    /* `on_warning` gets messages a user can act on (no credentials in
     * them). */
    MqttOutput(MqttSettings settings, std::function<void(const std::string&)> on_warning);
    ~MqttOutput() override;

    /* Creates the client; false with `*error` set when the settings are
     * refused (a TLS file that cannot be read, say). */
    bool init(std::string* error);

    bool service(int wait_ms) override;
    bool ready() override;
    bool deliver(const Document& d) override;
    size_t in_flight() override { return static_cast<size_t>(in_flight_); }
    guint64 confirmed() override { return confirmed_; }
    bool connected() override { return connected_; }
    guint64 connections() override { return connections_; }

    /* libmosquitto's callbacks. */
    void on_connect(int rc);
    void on_disconnect(int rc);
    void on_publish(int mid);

private:
    void connection_failed(const std::string& why);

    MqttSettings s_;
    std::function<void(const std::string&)> on_warning_;
    struct mosquitto* client_ = nullptr;
    bool started_ = false;    /* the first connect was attempted */
    bool connecting_ = false; /* a socket is open, CONNACK not yet in */
    bool connected_ = false;
    bool holds_id_ = false;        /* client_id is in this process's set of ids in use */
    bool warned_ = false;          /* a failure was said since the last connection */
    std::set<int> publish_errors_; /* the refusals of publishes said so far */
    gint64 next_attempt_us_ = 0;
    gint64 connect_deadline_us_ = 0; /* no CONNACK by then: a failure */
    int backoff_s_ = 1;
    long in_flight_ = 0;
    guint64 confirmed_ = 0;
    guint64 connections_ = 0;
};

/* libmosquitto's process-wide set-up, once. */
void mqtt_library_init();

/* Whether libmosquitto publishes to `topic`: no wildcard, valid UTF-8
 * without control characters, at most 65535 bytes; else why not. */
bool mqtt_topic_valid(const std::string& topic, std::string* why);

}  // namespace waldboost_publish
