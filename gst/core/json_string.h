/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A JSON string literal, for the documents the publish elements write and
 * the tools' JSON output alike: quotes and backslashes escaped, control
 * characters by their short forms (\n \r \t \b \f) or as \u00XX, every
 * other byte as it is. The caller hands in valid UTF-8.
 */
#pragma once

#include <string>
#include <string_view>

namespace waldboost {

inline void append_json_string(std::string& out, std::string_view text)
{
    static const char hex[] = "0123456789abcdef";
    out += '"';
    size_t plain = 0; /* the start of the bytes not appended yet */
    for (size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        out.append(text, plain, i - plain);
        plain = i + 1;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        default:
            out += "\\u00";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    out.append(text, plain, text.size() - plain);
    out += '"';
}

}  // namespace waldboost
