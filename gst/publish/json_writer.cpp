/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string_view>

#include "core/json_string.h"

namespace waldboost_publish {

void JsonWriter::newline()
{
    if (!pretty_)
        return;
    out_ += '\n';
    out_.append(2 * empty_.size(), ' ');
}

void JsonWriter::value_start()
{
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (empty_.empty())
        return;
    if (!empty_.back())
        out_ += ',';
    empty_.back() = false;
    newline();
}

void JsonWriter::open(char bracket)
{
    value_start();
    out_ += bracket;
    empty_.push_back(true);
}

void JsonWriter::close(char bracket)
{
    const bool was_empty = empty_.back();
    empty_.pop_back();
    if (!was_empty)
        newline();
    out_ += bracket;
}

void JsonWriter::key(const char* name)
{
    value_start();
    escaped(name, std::strlen(name));
    out_ += pretty_ ? ": " : ":";
    after_key_ = true;
}

void JsonWriter::escaped(const char* text, size_t length)
{
    waldboost::append_json_string(out_, std::string_view(text, length));
}

void JsonWriter::string(const char* value)
{
    value_start();
    value = value ? value : "";
    const size_t length = std::strlen(value);
    if (g_utf8_validate(value, static_cast<gssize>(length), nullptr)) {
        escaped(value, length);
        return;
    }
    gchar* valid = g_utf8_make_valid(value, static_cast<gssize>(length));
    escaped(valid, std::strlen(valid));
    g_free(valid);
}

void JsonWriter::integer(gint64 value)
{
    value_start();
    char text[24];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out_.append(text, end);
}

void JsonWriter::number(double value)
{
    value_start();
    /* The shortest text that reads back as the same double, always with a
     * fraction or an exponent, so that it reads back as a number with one. */
    char text[32];
    const auto end = std::to_chars(text, text + sizeof text, value).ptr;
    out_.append(text, end);
    if (std::find_if(text, end, [](char c) {
            return c == '.' || c == 'e';
        }) == end)
        out_ += ".0";
}

void JsonWriter::boolean(bool value)
{
    value_start();
    out_ += value ? "true" : "false";
}

void JsonWriter::member_number(const char* name, double value)
{
    if (!std::isfinite(value))
        return;
    key(name);
    number(value);
}

}  // namespace waldboost_publish
