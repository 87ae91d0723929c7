/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The converter's JSON text, written straight into one string. json-glib
 * built a tree of nodes and hash tables for every document and then walked
 * it: behind 64 streams on the H200 that cost a fifth of the detector's own
 * host time per frame (docs/performance.md, "The publish elements beside
 * the detector"), where issue 53 allows a twentieth. Writing is all the
 * converter needs: the tests still parse every document with json-glib and
 * validate it against the schema with Python's jsonschema.
 */
#pragma once

#include <glib.h>

#include <string>
#include <vector>

namespace waldboost_publish {

class JsonWriter {
public:
    /* Pretty: one member or element per line, indented by two spaces. */
    explicit JsonWriter(bool pretty) : pretty_(pretty) { out_.reserve(kInitialBytes); }

    void begin_object() { open('{'); }
    void end_object() { close('}'); }
    void begin_array() { open('['); }
    void end_array() { close(']'); }
    /* An object's member name; its value comes next. */
    void key(const char* name);

    /* Made valid UTF-8 (each invalid byte U+FFFD, as g_utf8_make_valid
     * does), then escaped: quotes, backslashes and every control
     * character below U+0020. */
    void string(const char* value);
    void integer(gint64 value);
    /* JSON has no NaN nor infinity: the caller leaves such a value out. */
    void number(double value);
    void boolean(bool value);

    /* key() and the value in one call; a number that is not finite is left
     * out, member and all. */
    void member(const char* name, const char* value)
    {
        key(name);
        string(value);
    }
    void member(const char* name, gint64 value)
    {
        key(name);
        integer(value);
    }
    void member(const char* name, int value) { member(name, static_cast<gint64>(value)); }
    void member(const char* name, guint value) { member(name, static_cast<gint64>(value)); }
    void member_number(const char* name, double value);
    void member_boolean(const char* name, bool value)
    {
        key(name);
        boolean(value);
    }

    std::string take() { return std::move(out_); }

private:
    /* A frame document with a few objects fits without growing. */
    static constexpr size_t kInitialBytes = 1024;
    void open(char bracket);
    void close(char bracket);
    void value_start(); /* the comma and line before a value in an array */
    void newline();
    void escaped(const char* text, size_t length);

    std::string out_;
    const bool pretty_;
    std::vector<bool> empty_; /* per open object or array: nothing in it yet */
    bool after_key_ = false;
};

}  // namespace waldboost_publish
