/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A small RAII layer over libxml2 shared by the classifier loaders. Files
 * are untrusted: reads are size-capped, DTDs and entities are refused before
 * libxml2 sees the buffer, and the network is off. Every error is a
 * waldboost::Error of the form "<source>:<line>: <element>: <problem>", of
 * kind ClassifierFile unless said otherwise.
 */
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <libxml/tree.h>

#include "core/model/model.h"

namespace waldboost::xml {

/* Initialises libxml2 once per process (thread-safe). Document::parse
 * calls it; call it before using other libxml2 functions directly. */
void ensure_initialized();

/* Reads a whole classifier file with io::read_input_file: a regular file
 * of at most `max_bytes` (checked before reading, and the read itself is
 * bounded too); errors are ClassifierFile. */
std::string read_file_capped(const std::string& path, size_t max_bytes);

/* A parsed, well-formed document. Move-only; frees the tree on destruction. */
class Document {
public:
    /* Parses `buffer`; `source` names it in every message. Throws Error for
     * an empty buffer, a DTD or entity declaration, a buffer over
     * ModelLimits::kMaxFileBytes, more attributes on an element or namespace
     * declarations in the file than ModelLimits allows (counted before
     * libxml2 parses), an encoding that hides markup from that count
     * (UTF-7, EBCDIC), or XML that is not well-formed. */
    static Document parse(std::string_view buffer, const std::string& source);

    Document(Document&& other) noexcept;
    Document& operator=(Document&& other) noexcept;
    Document(const Document&) = delete;
    Document& operator=(const Document&) = delete;
    ~Document();

    const xmlNode* root() const;
    const std::string& source() const { return source_; }

private:
    Document(xmlDocPtr doc, std::string source);
    xmlDocPtr doc_ = nullptr;
    std::string source_;
};

/* Untrusted text for an error message: at most 40 bytes (then "..."), each
 * control character as '?', so a file cannot forge log lines. */
std::string printable(std::string_view text);

/* The same in single quotes. */
std::string quote(std::string_view text);

/* The element's name as UTF-8. */
std::string name_of(const xmlNode* node);

/* The element's line number in the source (0 when unknown). */
long line_of(const xmlNode* node);

/* Throws Error "<source>:<line>: <element>: <problem>" of the given kind:
 * ClassifierFile for a file that is broken, UnsupportedClassifier for a
 * valid classifier this build cannot run (a Haar cascade, say). */
[[noreturn]] void fail(const std::string& source, const xmlNode* node, const std::string& problem,
                       ErrorKind kind = ErrorKind::ClassifierFile);

/* All element children in document order. Comments and whitespace are
 * skipped; any other text between child elements is an error. */
std::vector<const xmlNode*> child_elements(const std::string& source, const xmlNode* node);

/* Element children with the given name. */
std::vector<const xmlNode*> children_named(const xmlNode* node, const char* name);

/* The single child named `name`; an error when there are none or several. */
const xmlNode* required_child(const std::string& source, const xmlNode* node, const char* name);

/* The single child named `name`, nullptr when there is none; an error when
 * there are several. */
const xmlNode* optional_child(const std::string& source, const xmlNode* node, const char* name);

/* Attribute values. required_attribute throws "missing attribute <name>". */
std::optional<std::string> optional_attribute(const xmlNode* node, const char* name);
std::string required_attribute(const std::string& source, const xmlNode* node, const char* name);

/* Throws for any attribute whose name is not in `allowed` (nullptr-ended). */
void check_attributes(const std::string& source, const xmlNode* node, const char* const* allowed);

/* The element's text: its text and CDATA children joined by a space, so
 * comments act as separators. Child elements are an error. */
std::string element_text(const std::string& source, const xmlNode* node);

/* Splits at ASCII whitespace. */
std::vector<std::string_view> split_tokens(std::string_view text);

/* Locale-independent number parsing of one whole token (std::from_chars;
 * an optional leading '+' is accepted). `what` names the value in messages,
 * e.g. "attribute positionX". */
long long parse_integer(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token,
                        long long min_value, long long max_value);
int parse_int(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token);
double parse_double(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token);

/* A double that must be finite and representable as a float. */
float parse_float(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token);

/* A whitespace-separated list of exactly `expected` values. */
std::vector<float> parse_float_list(const std::string& source, const xmlNode* node, const std::string& what,
                                    std::string_view text, size_t expected);
std::vector<long long> parse_integer_list(const std::string& source, const xmlNode* node, const std::string& what,
                                          std::string_view text, size_t expected, long long min_value,
                                          long long max_value);

}  // namespace waldboost::xml
