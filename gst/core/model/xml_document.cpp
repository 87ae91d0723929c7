/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/model/xml_document.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <system_error>

#include <libxml/parser.h>
#include <libxml/xmlerror.h>

#include "core/io/input_file.h"
#include "core/text.h"

namespace waldboost::xml {

namespace {

struct ParserCtxtFree {
    void operator()(xmlParserCtxtPtr ctxt) const { xmlFreeParserCtxt(ctxt); }
};

/* libxml2's message on one line ("...encoding !\nBytes: 0xFF" becomes
 * "...encoding !; Bytes: 0xFF"), without control characters, and short:
 * part of it may be the file's own bytes. */
std::string one_line(const std::string& text)
{
    constexpr size_t kMax = 300;
    std::string out;
    for (size_t i = 0; i < text.size() && out.size() < kMax; ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '\n')
            out += "; ";
        else
            out += (c < 0x20 || c == 0x7f) ? '?' : static_cast<char>(c);
    }
    if (out.size() >= kMax)
        out += "...";
    return out;
}

/* libxml2 2.9 reports some errors (a failed encoding conversion, say)
 * through the thread's generic error handler, which prints on stderr
 * whatever XML_PARSE_NOERROR says. Silenced on this thread while we parse
 * and restored afterwards, so an application's own handler stays. */
void ignore_message(void*, const char*, ...) {}

class QuietGenericErrors {
public:
    QuietGenericErrors() : handler_(xmlGenericError), context_(xmlGenericErrorContext)
    {
        xmlSetGenericErrorFunc(nullptr, ignore_message);
    }
    ~QuietGenericErrors() { xmlSetGenericErrorFunc(context_, handler_); }
    QuietGenericErrors(const QuietGenericErrors&) = delete;
    QuietGenericErrors& operator=(const QuietGenericErrors&) = delete;

private:
    xmlGenericErrorFunc handler_;
    void* context_;
};

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

std::string trim(std::string s)
{
    while (!s.empty() && is_space(s.back()))
        s.pop_back();
    size_t start = 0;
    while (start < s.size() && is_space(s[start]))
        ++start;
    return s.substr(start);
}

const char* as_chars(const xmlChar* s) { return reinterpret_cast<const char*>(s); }

const xmlChar* as_xml(const char* s) { return reinterpret_cast<const xmlChar*>(s); }

/* from_chars does not take a leading '+', which some writers emit. */
std::string_view strip_plus(std::string_view token)
{
    if (token.size() > 1 && token[0] == '+' && token[1] != '-' && token[1] != '+')
        token.remove_prefix(1);
    return token;
}

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

bool equals_ignoring_ascii_case(std::string_view a, std::string_view b)
{
    if (a.size() != b.size())
        return false;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto lower = [](char c) {
            return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c;
        };
        if (lower(a[i]) != lower(b[i]))
            return false;
    }
    return true;
}

/* Encodings in which every byte below 0x80 that is markup ('<', '>', '/',
 * '=', quotes, whitespace) is that character: single-byte ASCII supersets
 * and the multibyte ones whose continuation bytes are 0x40 or above (or
 * digits, GB18030). Not UTF-7, EBCDIC or ISO-2022, which hide markup from a
 * byte scan; UTF-16 and UTF-32 are refused for their NUL bytes. */
bool keeps_ascii_markup(std::string_view encoding)
{
    static const char* const kNames[] = {"UTF-8",     "UTF8", "US-ASCII", "ASCII",  "ISO-LATIN-1", "LATIN1",
                                         "SHIFT_JIS", "SJIS", "EUC-JP",   "EUC-KR", "GB2312",      "GBK",
                                         "GB18030",   "BIG5", "KOI8-R",   "KOI8-U", nullptr};
    for (const char* const* name = kNames; *name; ++name) {
        if (equals_ignoring_ascii_case(encoding, *name))
            return true;
    }
    for (int n = 1; n <= 16; ++n) {
        for (const char* prefix : {"ISO-8859-", "ISO8859-", "ISO_8859-"}) {
            if (equals_ignoring_ascii_case(encoding, prefix + std::to_string(n)))
                return true;
        }
    }
    for (int n = 1250; n <= 1258; ++n) {
        if (equals_ignoring_ascii_case(encoding, "WINDOWS-" + std::to_string(n)) ||
            equals_ignoring_ascii_case(encoding, "CP" + std::to_string(n)))
            return true;
    }
    return false;
}

/* count_attributes reads bytes: refuse a file whose markup libxml2 would
 * decode from other bytes. libxml2 recognises EBCDIC by its first four
 * bytes and otherwise follows the XML declaration's encoding, which cannot
 * lie past the first '>'. Every "encoding" there is checked, even one that
 * libxml2 would not take, so that no spelling slips through. */
void check_encoding(std::string_view buffer, const std::string& source)
{
    if (starts_with(buffer, "\x4c\x6f\xa7\x94"))
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) + ": not a classifier file: EBCDIC is not supported (use UTF-8)");
    std::string_view text = buffer;
    if (starts_with(text, "\xef\xbb\xbf"))
        text.remove_prefix(3);
    if (!starts_with(text, "<?xml"))
        return;
    const std::string_view declaration = text.substr(0, text.find('>'));
    for (size_t at = declaration.find("encoding"); at != std::string_view::npos;
         at = declaration.find("encoding", at + 1)) {
        size_t i = at + 8;
        while (i < declaration.size() && is_space(declaration[i]))
            ++i;
        if (i >= declaration.size() || declaration[i] != '=')
            continue;
        ++i;
        while (i < declaration.size() && is_space(declaration[i]))
            ++i;
        if (i >= declaration.size() || (declaration[i] != '"' && declaration[i] != '\''))
            continue;
        const size_t close = declaration.find(declaration[i], i + 1);
        if (close == std::string_view::npos)
            continue;
        const std::string_view name = declaration.substr(i + 1, close - i - 1);
        if (!keeps_ascii_markup(name)) {
            throw Error(ErrorKind::ClassifierFile,
                        waldboost::printable(source) + ":1: not a classifier file: encoding " + quote(name) +
                            " is not supported (use UTF-8, ASCII, ISO-8859-*, windows-125*, or an East Asian "
                            "encoding that leaves ASCII bytes as they are)");
        }
    }
}

/* Ends a name, or an attribute, in a start tag. */
bool ends_name(char c) { return is_space(c) || c == '=' || c == '>' || c == '/' || c == '<' || c == '"' || c == '\''; }

/* Counts attributes and namespace declarations before libxml2 parses, since
 * its cost is inside the start-tag parser: a callback after the tag comes
 * too late. Rather than following the document's structure (comments,
 * CDATA, processing instructions, quoted values), which libxml2 leaves in
 * its own ways after an error and then goes on parsing, every '<' is read
 * as if a start tag began there, the way libxml2's start-tag parser reads
 * one: a name, then name = "value" pairs, a value ending at its quote or at
 * a '<' (not allowed in values; libxml2 keeps that attribute and stops). A
 * tag never extends past the next '<', so the scan is linear, and it counts
 * at least what libxml2 can meet at any '<' in any state; a well-formed
 * file's quoted values hold no '<', so they are respected. The price: a
 * comment or CDATA section holding text shaped like a tag with hundreds of
 * attributes is refused too, which no classifier has. */
void count_attributes(std::string_view buffer, const std::string& source)
{
    size_t namespaces = 0;
    long line = 1;
    size_t counted_to = 0;
    const auto line_at = [&](size_t pos) {
        line += static_cast<long>(std::count(buffer.begin() + static_cast<std::ptrdiff_t>(counted_to),
                                             buffer.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
        counted_to = pos;
        return line;
    };
    const size_t n = buffer.size();
    for (size_t lt = buffer.find('<'); lt != std::string_view::npos; lt = buffer.find('<', lt + 1)) {
        size_t i = lt + 1;
        while (i < n && !ends_name(buffer[i]))
            ++i;
        const std::string_view element = buffer.substr(lt + 1, i - lt - 1);
        size_t attributes = 0;
        for (;;) {
            while (i < n && is_space(buffer[i]))
                ++i;
            const size_t name_start = i;
            while (i < n && !ends_name(buffer[i]))
                ++i;
            if (i == name_start)
                break;
            const std::string_view name = buffer.substr(name_start, i - name_start);
            while (i < n && is_space(buffer[i]))
                ++i;
            if (i >= n || buffer[i] != '=')
                break;
            ++i;
            while (i < n && is_space(buffer[i]))
                ++i;
            if (i >= n || (buffer[i] != '"' && buffer[i] != '\''))
                break;
            const size_t close = buffer.find_first_of(buffer[i] == '"' ? "\"<" : "'<", i + 1);
            ++attributes;
            if (name == "xmlns" || starts_with(name, "xmlns:")) {
                if (++namespaces > ModelLimits::kMaxXmlNamespaceDeclarations) {
                    throw Error(ErrorKind::ClassifierFile,
                                waldboost::printable(source) + ":" + std::to_string(line_at(lt)) + ": " +
                                    printable(element) + ": too many namespace declarations: more than " +
                                    std::to_string(ModelLimits::kMaxXmlNamespaceDeclarations) +
                                    " in the file (the limit for classifier files)");
                }
            }
            if (attributes > ModelLimits::kMaxXmlAttributesPerElement) {
                throw Error(ErrorKind::ClassifierFile,
                            waldboost::printable(source) + ":" + std::to_string(line_at(lt)) + ": " +
                                printable(element) + ": too many attributes: more than " +
                                std::to_string(ModelLimits::kMaxXmlAttributesPerElement) +
                                " on one element (the limit for classifier files, namespace declarations "
                                "included)");
            }
            if (close == std::string_view::npos || buffer[close] == '<')
                break;
            i = close + 1;
        }
        /* Nothing read above passed a '<'; the next tag starts at one. */
        lt = i - 1;
    }
}

}  // namespace

void ensure_initialized()
{
    static std::once_flag once;
    std::call_once(once, [] {
        xmlInitParser();
    });
}

std::string read_file_capped(const std::string& path, size_t max_bytes)
{
    return io::read_input_file(path, max_bytes, "classifier files", ErrorKind::ClassifierFile);
}

Document::Document(xmlDocPtr doc, std::string source) : doc_(doc), source_(std::move(source)) {}

Document::Document(Document&& other) noexcept : doc_(other.doc_), source_(std::move(other.source_))
{
    other.doc_ = nullptr;
}

Document& Document::operator=(Document&& other) noexcept
{
    if (this != &other) {
        if (doc_)
            xmlFreeDoc(doc_);
        doc_ = other.doc_;
        source_ = std::move(other.source_);
        other.doc_ = nullptr;
    }
    return *this;
}

Document::~Document()
{
    if (doc_)
        xmlFreeDoc(doc_);
}

const xmlNode* Document::root() const { return xmlDocGetRootElement(doc_); }

Document Document::parse(std::string_view buffer, const std::string& source)
{
    if (buffer.size() > ModelLimits::kMaxFileBytes) {
        throw Error(ErrorKind::ClassifierFile, waldboost::printable(source) + ": too large (" +
                                                   std::to_string(buffer.size()) +
                                                   " bytes; the limit for classifier files is " +
                                                   std::to_string(ModelLimits::kMaxFileBytes) + " bytes)");
    }
    if (buffer.find_first_not_of(" \t\r\n") == std::string_view::npos)
        throw Error(ErrorKind::ClassifierFile, waldboost::printable(source) + ": empty file (not a classifier)");
    /* UTF-16/32 text would hide the markup checked below from a byte search. */
    if (buffer.find('\0') != std::string_view::npos)
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) +
                        ": not a classifier file: contains NUL bytes (UTF-16 and UTF-32 are not supported)");
    /* Refused before parsing: no external entities, no entity expansion. */
    if (buffer.find("<!DOCTYPE") != std::string_view::npos || buffer.find("<!ENTITY") != std::string_view::npos)
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) + ": DTDs and entities are not allowed in classifier files");
    check_encoding(buffer, source);
    count_attributes(buffer, source);

    ensure_initialized();
    std::unique_ptr<xmlParserCtxt, ParserCtxtFree> ctxt(xmlNewParserCtxt());
    if (!ctxt)
        throw Error(ErrorKind::OutOfResources,
                    waldboost::printable(source) + ": out of memory creating the XML parser");

    /* No NOENT, DTDLOAD or HUGE: entities stay unexpanded and libxml2's
     * size limits stay on. BIG_LINES keeps line numbers past 65535. */
    const int options = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
    const QuietGenericErrors quiet;
    xmlDocPtr doc =
        xmlCtxtReadMemory(ctxt.get(), buffer.data(), static_cast<int>(buffer.size()), nullptr, nullptr, options);
    if (!doc) {
        const xmlError* err = xmlCtxtGetLastError(ctxt.get());
        std::string message = "not well-formed XML";
        long line = 0;
        if (err) {
            line = err->line;
            if (err->message) {
                const std::string detail = one_line(trim(err->message));
                if (!detail.empty())
                    message += ": " + detail;
            }
        }
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) + ":" + std::to_string(line) + ": " + message);
    }
    Document result(doc, source);
    /* Belt and braces: an encoding trick must not slip a DTD through. */
    if (doc->intSubset || doc->extSubset)
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) + ": DTDs and entities are not allowed in classifier files");
    if (!result.root())
        throw Error(ErrorKind::ClassifierFile,
                    waldboost::printable(source) + ": not a classifier file: no root element");
    return result;
}

std::string printable(std::string_view text)
{
    /* Short: these are names and values inside a longer message. */
    return waldboost::printable(text, 40);
}

std::string quote(std::string_view text) { return "'" + printable(text) + "'"; }

std::string name_of(const xmlNode* node) { return node && node->name ? as_chars(node->name) : ""; }

long line_of(const xmlNode* node)
{
    const long line = xmlGetLineNo(node);
    return line > 0 ? line : 0;
}

void fail(const std::string& source, const xmlNode* node, const std::string& problem, ErrorKind kind)
{
    /* Element names are the file's text too (up to 50,000 characters). */
    throw Error(kind, waldboost::printable(source) + ":" + std::to_string(line_of(node)) + ": " +
                          printable(name_of(node)) + ": " + problem);
}

std::vector<const xmlNode*> child_elements(const std::string& source, const xmlNode* node)
{
    std::vector<const xmlNode*> result;
    for (const xmlNode* child = node->children; child; child = child->next) {
        switch (child->type) {
        case XML_ELEMENT_NODE: result.push_back(child); break;
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE: {
            const std::string text = trim(child->content ? as_chars(child->content) : "");
            if (!text.empty())
                fail(source, node, "unexpected text " + quote(text));
            break;
        }
        case XML_ENTITY_REF_NODE: fail(source, node, "entity references are not allowed");
        default:
            /* Comments and processing instructions carry no data. */
            break;
        }
    }
    return result;
}

std::vector<const xmlNode*> children_named(const xmlNode* node, const char* name)
{
    std::vector<const xmlNode*> result;
    for (const xmlNode* child = node->children; child; child = child->next) {
        if (child->type == XML_ELEMENT_NODE && xmlStrEqual(child->name, as_xml(name)))
            result.push_back(child);
    }
    return result;
}

const xmlNode* optional_child(const std::string& source, const xmlNode* node, const char* name)
{
    const auto children = children_named(node, name);
    if (children.size() > 1)
        fail(source, children[1], std::string("duplicate element (only one <") + name + "> is allowed here)");
    return children.empty() ? nullptr : children[0];
}

const xmlNode* required_child(const std::string& source, const xmlNode* node, const char* name)
{
    const xmlNode* child = optional_child(source, node, name);
    if (!child)
        fail(source, node, std::string("missing element <") + name + ">");
    return child;
}

std::optional<std::string> optional_attribute(const xmlNode* node, const char* name)
{
    /* xmlHasProp also looks at DTD defaults, which are refused anyway. */
    for (const xmlAttr* attr = node->properties; attr; attr = attr->next) {
        if (attr->ns == nullptr && xmlStrEqual(attr->name, as_xml(name))) {
            std::string value;
            for (const xmlNode* part = attr->children; part; part = part->next) {
                if (part->content)
                    value += as_chars(part->content);
            }
            return value;
        }
    }
    return std::nullopt;
}

std::string required_attribute(const std::string& source, const xmlNode* node, const char* name)
{
    auto value = optional_attribute(node, name);
    if (!value)
        fail(source, node, std::string("missing attribute ") + name);
    return *value;
}

void check_attributes(const std::string& source, const xmlNode* node, const char* const* allowed)
{
    for (const xmlAttr* attr = node->properties; attr; attr = attr->next) {
        bool known = attr->ns == nullptr;
        if (known) {
            known = false;
            for (const char* const* a = allowed; *a; ++a) {
                if (xmlStrEqual(attr->name, as_xml(*a))) {
                    known = true;
                    break;
                }
            }
        }
        if (!known)
            fail(source, node, "unknown attribute " + quote(as_chars(attr->name)));
    }
}

std::string element_text(const std::string& source, const xmlNode* node)
{
    std::string text;
    for (const xmlNode* child = node->children; child; child = child->next) {
        switch (child->type) {
        case XML_TEXT_NODE:
        case XML_CDATA_SECTION_NODE:
            if (child->content)
                text += as_chars(child->content);
            /* A comment between two parts must not glue numbers together. */
            text += ' ';
            break;
        case XML_ELEMENT_NODE:
            fail(source, node,
                 "unexpected child element <" + printable(name_of(child)) + "> on line " +
                     std::to_string(line_of(child)));
        case XML_ENTITY_REF_NODE: fail(source, node, "entity references are not allowed");
        default: break;
        }
    }
    return text;
}

std::vector<std::string_view> split_tokens(std::string_view text)
{
    std::vector<std::string_view> tokens;
    size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i]))
            ++i;
        const size_t start = i;
        while (i < text.size() && !is_space(text[i]))
            ++i;
        if (i > start)
            tokens.push_back(text.substr(start, i - start));
    }
    return tokens;
}

namespace {

/* The parsers report a problem text instead of throwing, so that list
 * parsing builds a message only for the value that failed. */
std::string integer_problem(std::string_view token, long long min_value, long long max_value, long long& value)
{
    const std::string_view digits = strip_plus(token);
    if (digits.empty())
        return "empty value (expected an integer)";
    const auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec == std::errc::result_out_of_range)
        return quote(token) + " is out of range";
    if (ec != std::errc() || ptr != digits.data() + digits.size())
        return quote(token) + " is not an integer";
    if (value < min_value || value > max_value) {
        return std::to_string(value) + " is out of range (" + std::to_string(min_value) + " to " +
               std::to_string(max_value) + ")";
    }
    return {};
}

std::string double_problem(std::string_view token, double& value)
{
    const std::string_view digits = strip_plus(token);
    if (digits.empty())
        return "empty value (expected a number)";
    const auto [ptr, ec] =
        std::from_chars(digits.data(), digits.data() + digits.size(), value, std::chars_format::general);
    if (ec == std::errc::result_out_of_range)
        return quote(token) + " is out of range for a double";
    if (ec != std::errc() || ptr != digits.data() + digits.size())
        return quote(token) + " is not a number";
    return {};
}

std::string float_problem(std::string_view token, float& result)
{
    double value = 0.0;
    std::string problem = double_problem(token, value);
    if (!problem.empty())
        return problem;
    if (!std::isfinite(value))
        return quote(token) + " is not a finite number";
    /* Values up to half a unit past FLT_MAX round to it ("3.40282347e+38"
     * is how FLT_MAX is written); the cast itself would be undefined for
     * them, so they are mapped by hand. */
    constexpr double kFloatMax = std::numeric_limits<float>::max();
    constexpr double kRoundsToInfinity = 0x1.ffffffp+127;
    const double magnitude = std::fabs(value);
    if (magnitude >= kRoundsToInfinity)
        return quote(token) + " is outside the range of a float";
    if (magnitude > kFloatMax)
        result = value > 0 ? std::numeric_limits<float>::max() : -std::numeric_limits<float>::max();
    else
        result = static_cast<float>(value);
    return {};
}

}  // namespace

long long parse_integer(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token,
                        long long min_value, long long max_value)
{
    long long value = 0;
    const std::string problem = integer_problem(token, min_value, max_value, value);
    if (!problem.empty())
        fail(source, node, what + ": " + problem);
    return value;
}

int parse_int(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token)
{
    return static_cast<int>(
        parse_integer(source, node, what, token, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()));
}

double parse_double(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token)
{
    double value = 0.0;
    const std::string problem = double_problem(token, value);
    if (!problem.empty())
        fail(source, node, what + ": " + problem);
    return value;
}

float parse_float(const std::string& source, const xmlNode* node, const std::string& what, std::string_view token)
{
    float value = 0.0f;
    const std::string problem = float_problem(token, value);
    if (!problem.empty())
        fail(source, node, what + ": " + problem);
    return value;
}

std::vector<float> parse_float_list(const std::string& source, const xmlNode* node, const std::string& what,
                                    std::string_view text, size_t expected)
{
    const auto tokens = split_tokens(text);
    if (tokens.size() != expected) {
        fail(source, node,
             what + ": expected " + std::to_string(expected) + " numbers, found " + std::to_string(tokens.size()));
    }
    std::vector<float> values(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string problem = float_problem(tokens[i], values[i]);
        if (!problem.empty())
            fail(source, node, what + ": value " + std::to_string(i) + ": " + problem);
    }
    return values;
}

std::vector<long long> parse_integer_list(const std::string& source, const xmlNode* node, const std::string& what,
                                          std::string_view text, size_t expected, long long min_value,
                                          long long max_value)
{
    const auto tokens = split_tokens(text);
    if (tokens.size() != expected) {
        fail(source, node,
             what + ": expected " + std::to_string(expected) + " integers, found " + std::to_string(tokens.size()));
    }
    std::vector<long long> values(tokens.size());
    for (size_t i = 0; i < tokens.size(); ++i) {
        const std::string problem = integer_problem(tokens[i], min_value, max_value, values[i]);
        if (!problem.empty())
            fail(source, node, what + ": value " + std::to_string(i) + ": " + problem);
    }
    return values;
}

}  // namespace waldboost::xml
