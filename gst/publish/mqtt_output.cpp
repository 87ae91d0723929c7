/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "mqtt_output.h"

#include <mosquitto.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <thread>

namespace waldboost_publish {

namespace {

constexpr int kMaxBackoffS = 30;
constexpr long kMaxInFlight = 64;
/* A broker that takes the connection and never answers (or a TLS
 * handshake that goes nowhere) must not hold the publisher. */
constexpr gint64 kConnectTimeoutUs = 10 * G_USEC_PER_SEC;

MqttOutput* self_of(void* user) { return static_cast<MqttOutput*>(user); }

/* The client ids this process's publishers hold, per broker: a broker
 * keeps one connection per client id and closes the older one whenever
 * another client connects with it, so two publishers of one id would end
 * each other's connections at every reconnect. */
std::mutex& ids_lock()
{
    static std::mutex lock;
    return lock;
}

std::set<std::string>& ids_in_use()
{
    static std::set<std::string> ids;
    return ids;
}

std::string id_key(const MqttSettings& s) { return s.host + ":" + std::to_string(s.port) + " " + s.client_id; }

}  // namespace

void mqtt_library_init()
{
    static gsize done = 0;
    if (g_once_init_enter(&done)) {
        mosquitto_lib_init();
        g_once_init_leave(&done, 1);
    }
}

bool mqtt_topic_valid(const std::string& topic, std::string* why)
{
    int rc = mosquitto_validate_utf8(topic.c_str(), static_cast<int>(std::min<size_t>(topic.size(), G_MAXINT)));
    if (rc == MOSQ_ERR_SUCCESS)
        rc = mosquitto_pub_topic_check(topic.c_str());
    if (rc == MOSQ_ERR_SUCCESS)
        return true;
    *why = mosquitto_strerror(rc);
    return false;
}

MqttOutput::MqttOutput(MqttSettings settings, std::function<void(const std::string&)> on_warning)
    : s_(std::move(settings)), on_warning_(std::move(on_warning))
{
}

MqttOutput::~MqttOutput()
{
    if (holds_id_) {
        std::lock_guard<std::mutex> guard(ids_lock());
        ids_in_use().erase(id_key(s_));
    }
    if (!client_)
        return;
    if (connected_) {
        mosquitto_disconnect(client_);
        mosquitto_loop(client_, 100, 1);
    }
    mosquitto_destroy(client_);
    /* Scrubbed, as little as it is worth: the copy libmosquitto held is
     * gone with the client. */
    std::fill(s_.password.begin(), s_.password.end(), '\0');
}

bool MqttOutput::init(std::string* error)
{
    mqtt_library_init();
    if (!s_.client_id.empty()) {
        std::lock_guard<std::mutex> guard(ids_lock());
        if (!ids_in_use().insert(id_key(s_)).second) {
            *error = "client-id \"" + s_.client_id + "\" is already used by another waldboostmetapublish of this " +
                     "process with the same broker. A broker keeps one connection per client id and closes the " +
                     "other whenever one connects, so the two would take turns. Give each publisher a client-id " +
                     "of its own, or leave it empty for a random one";
            return false;
        }
        holds_id_ = true;
    }
    client_ = mosquitto_new(s_.client_id.empty() ? nullptr : s_.client_id.c_str(), true, this);
    if (!client_) {
        *error = "could not create an MQTT client";
        return false;
    }
    mosquitto_int_option(client_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
    mosquitto_connect_callback_set(client_, [](struct mosquitto*, void* u, int rc) {
        self_of(u)->on_connect(rc);
    });
    mosquitto_disconnect_callback_set(client_, [](struct mosquitto*, void* u, int rc) {
        self_of(u)->on_disconnect(rc);
    });
    mosquitto_publish_callback_set(client_, [](struct mosquitto*, void* u, int mid) {
        self_of(u)->on_publish(mid);
    });
    if (!s_.user.empty() &&
        mosquitto_username_pw_set(client_, s_.user.c_str(), s_.password.empty() ? nullptr : s_.password.c_str()) !=
            MOSQ_ERR_SUCCESS) {
        *error = "the user name or password in the credentials file was refused by libmosquitto";
        return false;
    }
    if (!s_.ca_file.empty()) {
        const int rc = mosquitto_tls_set(client_, s_.ca_file.c_str(), nullptr,
                                         s_.cert_file.empty() ? nullptr : s_.cert_file.c_str(),
                                         s_.key_file.empty() ? nullptr : s_.key_file.c_str(), nullptr);
        if (rc != MOSQ_ERR_SUCCESS) {
            *error = std::string("TLS set-up failed (ca-file, cert-file, key-file): ") + mosquitto_strerror(rc);
            return false;
        }
    }
    return true;
}

void MqttOutput::connection_failed(const std::string& why)
{
    connecting_ = connected_ = false;
    next_attempt_us_ = g_get_monotonic_time() + static_cast<gint64>(backoff_s_) * G_USEC_PER_SEC;
    if (!warned_ && on_warning_)
        on_warning_("MQTT broker " + s_.host + ":" + std::to_string(s_.port) + ": " + why +
                    ". Retrying with a growing delay (1 s up to 30 s); documents are queued, then dropped.");
    warned_ = true;
    backoff_s_ = std::min(backoff_s_ * 2, kMaxBackoffS);
}

bool MqttOutput::service(int wait_ms)
{
    if (!connecting_ && !connected_) {
        if (g_get_monotonic_time() < next_attempt_us_) {
            /* Nothing to do until the next attempt: wait a little, as a
             * socket would. */
            std::this_thread::sleep_for(std::chrono::milliseconds(wait_ms));
            return true;
        }
        const int rc = started_ ? mosquitto_reconnect_async(client_)
                                : mosquitto_connect_async(client_, s_.host.c_str(), s_.port, s_.keepalive);
        started_ = true;
        if (rc != MOSQ_ERR_SUCCESS) {
            connection_failed(rc == MOSQ_ERR_ERRNO ? g_strerror(errno) : mosquitto_strerror(rc));
            return true;
        }
        connecting_ = true;
        connect_deadline_us_ = g_get_monotonic_time() + kConnectTimeoutUs;
    }
    const int rc = mosquitto_loop(client_, wait_ms, 1);
    if (rc != MOSQ_ERR_SUCCESS && (connecting_ || connected_)) {
        connection_failed(rc == MOSQ_ERR_ERRNO ? g_strerror(errno) : mosquitto_strerror(rc));
    } else if (connecting_ && g_get_monotonic_time() > connect_deadline_us_) {
        mosquitto_disconnect(client_);
        connection_failed("no answer to the connection within 10 s");
    }
    return true;
}

bool MqttOutput::ready() { return connected_ && in_flight_ < kMaxInFlight; }

bool MqttOutput::deliver(const Document& d)
{
    int mid = 0;
    const int rc = mosquitto_publish(client_, &mid, d.topic.c_str(), static_cast<int>(d.payload.size()),
                                     d.payload.data(), s_.qos, false);
    if (rc != MOSQ_ERR_SUCCESS) {
        /* Refused here, not by the broker (a topic made from a source id
         * that MQTT does not allow, a document too large): said once for
         * each kind of refusal, as every document after it may fail so. */
        if (rc != MOSQ_ERR_NO_CONN && publish_errors_.insert(rc).second && on_warning_)
            on_warning_("MQTT: a document for topic \"" + d.topic + "\" (" + std::to_string(d.payload.size()) +
                        " bytes) could not be published: " + mosquitto_strerror(rc) +
                        ". Such documents are dropped (counted in stats).");
        return false;
    }
    if (s_.qos > 0)
        ++in_flight_;
    return true;
}

void MqttOutput::on_connect(int rc)
{
    if (rc != 0) {
        /* CONNACK's refusals: 4 bad user name or password, 5 not
         * authorised (MQTT 3.1.1). */
        const std::string why = rc == 4 || rc == 5
                                    ? "the broker refused the user name or password (" +
                                          std::string(mosquitto_connack_string(rc)) + "); check credentials-file"
                                    : std::string("the broker refused the connection: ") + mosquitto_connack_string(rc);
        mosquitto_disconnect(client_);
        connection_failed(why);
        return;
    }
    connecting_ = false;
    connected_ = true;
    warned_ = false;
    backoff_s_ = 1;
    ++connections_;
    /* Unconfirmed messages of the last connection are sent again by
     * libmosquitto, or lost with the broker's session; either way the
     * window starts afresh. */
    in_flight_ = 0;
}

void MqttOutput::on_disconnect(int rc)
{
    if (connecting_)
        /* Before any CONNACK: what answered sent something that is not
         * MQTT, or closed (a TLS listener, another service). */
        connection_failed("the connection ended before an MQTT answer; check that an MQTT broker listens there "
                          "(with TLS exactly when ca-file is set)");
    else if (connected_)
        connection_failed(rc == 0                ? "disconnected"
                          : s_.client_id.empty() ? "the connection was lost"
                                                 : "the connection was lost (a broker also closes it when another "
                                                   "client connects with the same client-id \"" +
                                                       s_.client_id + "\": give each client an id of its own)");
}

void MqttOutput::on_publish(int)
{
    if (in_flight_ > 0)
        --in_flight_;
    ++confirmed_;
}

}  // namespace waldboost_publish
