/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Text from files (paths, labels, names) made safe for messages: a message
 * may end up in a terminal or a log, where a newline forges a line, ESC
 * starts a terminal sequence and a bidi override reorders what is shown.
 */
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace waldboost {

/* A code point and the bytes of its UTF-8 sequence. */
struct Utf8Char {
    uint32_t code = 0;
    size_t length = 0; /* 0: not valid UTF-8 there */
};

/* The character whose UTF-8 sequence starts at text[i]; length 0 when the
 * bytes there are not valid UTF-8 (a stray or cut-short sequence, an
 * overlong form, a surrogate, or beyond U+10FFFF). */
inline Utf8Char decode_utf8(std::string_view text, size_t i)
{
    const auto byte = [&](size_t k) {
        return static_cast<unsigned char>(text[k]);
    };
    const unsigned char c = byte(i);
    if (c < 0x80)
        return {c, 1};
    size_t length = 0;
    uint32_t code = 0;
    if ((c & 0xe0) == 0xc0) {
        length = 2;
        code = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        length = 3;
        code = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        length = 4;
        code = c & 0x07;
    } else {
        return {};
    }
    if (i + length > text.size())
        return {};
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80)
            return {};
        code = (code << 6) | (byte(i + k) & 0x3f);
    }
    static const uint32_t kMinCode[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < kMinCode[length] || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return {};
    return {code, length};
}

/* `text` with control characters escaped: C0 controls and DEL as \xNN,
 * C1 controls (U+0080-U+009F), bidi embeddings, overrides and isolates
 * (U+202A-U+202E, U+2066-U+2069), the marks U+200E, U+200F, U+061C and the
 * separators U+2028, U+2029 as \u{NNNN}; bytes that are not UTF-8 as \xNN.
 * At most `max_bytes` bytes of output (escapes and UTF-8 sequences are never
 * cut), then "..." when something was left off. */
inline std::string printable(std::string_view text, size_t max_bytes = 200)
{
    std::string out;
    size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        const Utf8Char ch = decode_utf8(text, i);
        const bool valid = ch.length != 0;
        const size_t length = valid ? ch.length : 1;
        const uint32_t code = ch.code;
        char escape[16];
        std::string_view piece;
        if (!valid || c < 0x20 || c == 0x7f) {
            std::snprintf(escape, sizeof escape, "\\x%02x", c);
            piece = escape;
        } else if ((code >= 0x80 && code <= 0x9f) || (code >= 0x202a && code <= 0x202e) ||
                   (code >= 0x2066 && code <= 0x2069) || code == 0x200e || code == 0x200f || code == 0x061c ||
                   code == 0x2028 || code == 0x2029) {
            std::snprintf(escape, sizeof escape, "\\u{%04lX}", static_cast<unsigned long>(code));
            piece = escape;
        } else {
            piece = text.substr(i, length);
        }
        if (out.size() + piece.size() > max_bytes) {
            out += "...";
            return out;
        }
        out += piece;
        i += length;
    }
    return out;
}

}  // namespace waldboost
