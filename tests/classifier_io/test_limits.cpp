/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The loaders' limits on hostile files: entities and DTDs, the size cap,
 * FIFOs and devices that never end, tens of thousands of attributes or
 * namespace declarations, and encodings that would hide markup from their
 * count. Each refused quickly, never blocking the test itself.
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <utility>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

TEST(MalformedFiles, EntityExpansionAndExternalEntitiesAreRefusedQuickly)
{
    std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n";
    bomb += " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n";
    for (int i = 2; i <= 9; ++i) {
        std::string e = " <!ENTITY lol" + std::to_string(i) + " \"";
        for (int k = 0; k < 10; ++k)
            e += "&lol" + std::to_string(i - 1) + ";";
        bomb += e + "\">\n";
    }
    bomb += "]>\n<WaldBoostClassifier classifierName=\"&lol9;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>\n";
    const std::string xxe =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE foo [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n"
        "<WaldBoostClassifier classifierName=\"&xxe;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>\n";
    const std::string entity_only = "<WaldBoostClassifier>\n<!ENTITY x \"y\">\n</WaldBoostClassifier>";

    TempDir dir;
    for (const auto& [file, text] :
         {std::pair<std::string, std::string>{"bomb.xml", bomb}, {"xxe.xml", xxe}, {"entity.xml", entity_only}}) {
        const std::string path = dir.write(file, text);
        const auto start = std::chrono::steady_clock::now();
        const std::string message = expect_error(
            [&] {
                load_classifier_file(path);
            },
            {path + ": DTDs and entities are not allowed in classifier files"});
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
        EXPECT_EQ(message.find("root:"), std::string::npos);
    }
    /* An undeclared entity reference is simply not well-formed. */
    expect_error(
        [&] {
            load_classifier_memory(
                "<WaldBoostClassifier classifierName=\"&xxe;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>",
                "ref.xml");
        },
        {"ref.xml:1: not well-formed XML", "xxe"});
}

TEST(MalformedFiles, FileOverTheSizeCapIsNotRead)
{
    TempDir dir;
    const std::string path = dir.file("huge.xml");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    /* Sparse: costs no disk, but reading it all would take a while. */
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(ModelLimits::kMaxFileBytes) + 1), 0);
    ::close(fd);
    const auto start = std::chrono::steady_clock::now();
    expect_error(
        [&] {
            load_classifier_file(path);
        },
        {path + ": file is too large (" + std::to_string(ModelLimits::kMaxFileBytes + 1) + " bytes",
         std::to_string(ModelLimits::kMaxFileBytes)});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

namespace {

/* Runs load_classifier_file(path) in a child process and returns "KIND:
 * MESSAGE" of its Error (or "loaded"), or "hung" when it has not returned
 * within `seconds`: a test of something that used to block forever must
 * not block itself. */
std::string load_in_child(const std::string& path, int seconds)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        std::string result;
        try {
            load_classifier_file(path);
            result = "loaded";
        } catch (const Error& e) {
            result = std::string(to_string(e.kind())) + ": " + e.what();
        } catch (const std::exception& e) {
            result = std::string("other exception: ") + e.what();
        }
        if (::write(fds[1], result.data(), result.size()) < 0)
            ::_exit(2);
        ::_exit(0);
    }
    ::close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int status = 0;
    bool ended = false;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(child, &status, WNOHANG) == child) {
            ended = true;
            break;
        }
        ::usleep(10000);
    }
    if (!ended) {
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
        ::close(fds[0]);
        return "hung";
    }
    std::string result;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
        result.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    return result;
}

}  // namespace

/* A FIFO used to block the loader (and so the element's start, or the
 * streaming thread when set while PLAYING): opening it waited for a writer,
 * and with a writer that never closes, reading never ended. */
TEST(MalformedFiles, FifosAndOtherNonRegularFilesAreRefusedAtOnce)
{
    TempDir dir;
    const std::string fifo = dir.file("classifier.xml");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(load_in_child(fifo, 5), "classifier file: " + fifo + ": not a regular file");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

    /* A writer that keeps it open and writes a little: a pipe that never
     * ends. */
    const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
    ASSERT_GE(writer, 0);
    ASSERT_EQ(::write(writer, "<?xml", 5), 5);
    EXPECT_EQ(load_in_child(fifo, 5), "classifier file: " + fifo + ": not a regular file");
    ::close(writer);

    /* A device that never ends either. */
    EXPECT_EQ(load_in_child("/dev/zero", 5), "classifier file: /dev/zero: not a regular file");
}

namespace {

/* The kind of the Error that `path` gives when loaded ("none" if it loads). */
std::string load_error_kind(const std::string& path)
{
    try {
        load_classifier_file(path);
    } catch (const Error& e) {
        return to_string(e.kind());
    }
    return "none";
}

/* n attributes `prefix0="0" prefix1="1" ...`, each preceded by a space. */
std::string many_attributes(size_t n, const std::string& prefix)
{
    std::string text;
    for (size_t i = 0; i < n; ++i)
        text += " " + prefix + std::to_string(i) + "=\"" + std::to_string(i) + "\"";
    return text;
}

}  // namespace

/* libxml2's start-tag parser took time growing with the square of the
 * attributes or namespace declarations on one element (100,000 attributes
 * in 1 MB: about 15 s); they are now counted before it runs. */
TEST(MalformedFiles, TensOfThousandsOfAttributesOnOneElementAreRefused)
{
    const std::string limit = std::to_string(ModelLimits::kMaxXmlAttributesPerElement);
    TempDir dir;
    const std::string root =
        dir.write("root.xml", waldboost_doc(std::string(kRoot24) + many_attributes(100000, "a"), "  <stage/>\n"));
    const std::string message = expect_error(
        [&] {
            load_classifier_file(root);
        },
        {root + ":2: WaldBoostClassifier: too many attributes: more than " + limit + " on one element"});
    EXPECT_EQ(message.find("unknown attribute"), std::string::npos) << message;
    EXPECT_STREQ(load_error_kind(root).c_str(), to_string(ErrorKind::ClassifierFile));

    /* On an inner element, in single quotes, in an OpenCV cascade. */
    std::string quoted = many_attributes(100000, "b");
    std::replace(quoted.begin(), quoted.end(), '"', '\'');
    expect_error(
        [&] {
            load_classifier_memory(replace_once(valid_waldboost(), "<stage ", "<stage" + quoted + " "), "inner.xml");
        },
        {"inner.xml:3: stage: too many attributes: more than " + limit});
    expect_error(
        [&] {
            load_classifier_memory("<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade" +
                                       many_attributes(100000, "c") + "/>\n</opencv_storage>\n",
                                   "cascade.xml");
        },
        {"cascade.xml:3: cascade: too many attributes"});
}

TEST(MalformedFiles, TensOfThousandsOfNamespaceDeclarationsAreRefused)
{
    const std::string limit = std::to_string(ModelLimits::kMaxXmlNamespaceDeclarations);
    TempDir dir;
    const std::string path =
        dir.write("ns.xml", waldboost_doc(many_attributes(100000, "xmlns:p") + " " + kRoot24, "  <stage/>\n"));
    expect_error(
        [&] {
            load_classifier_file(path);
        },
        {path + ":2: WaldBoostClassifier: too many namespace declarations: more than " + limit + " in the file"});
    EXPECT_STREQ(load_error_kind(path).c_str(), to_string(ErrorKind::ClassifierFile));

    /* Few per element but many in scope: libxml2 looks every prefix up in
     * the list of those in scope, so the limit is for the whole file. */
    std::string nested;
    for (int level = 0; level < 100; ++level)
        nested += "<e" + many_attributes(100, "xmlns:n" + std::to_string(level) + "_") + ">";
    expect_error(
        [&] {
            load_classifier_memory("<opencv_storage>" + nested, "nested.xml");
        },
        {"nested.xml:1: e: too many namespace declarations: more than " + limit});
}

TEST(MalformedFiles, AttributeAndNamespaceLimitsAreExact)
{
    const size_t max_attributes = ModelLimits::kMaxXmlAttributesPerElement;
    const size_t max_namespaces = ModelLimits::kMaxXmlNamespaceDeclarations;
    const size_t root_attributes = 5;  // kRoot24
    ASSERT_LT(max_attributes - root_attributes, max_namespaces);
    const auto with_root = [&](const std::string& extra) {
        return replace_once(valid_waldboost(), kRoot24, std::string(kRoot24) + extra);
    };

    /* Exactly the limit passes the count: unknown attributes are then the
     * reader's error, and namespace declarations (not attributes of the
     * model) load. One more is refused. */
    std::string message = expect_error(
        [&] {
            load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes, "a")), "at.xml");
        },
        {"at.xml:2: WaldBoostClassifier: unknown attribute 'a0'"});
    EXPECT_EQ(message.find("too many"), std::string::npos) << message;
    expect_error(
        [&] {
            load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes + 1, "a")), "over.xml");
        },
        {"over.xml:2: WaldBoostClassifier: too many attributes: more than " + std::to_string(max_attributes)});
    EXPECT_EQ(
        load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes, "xmlns:p")), "ns-at.xml")
            .weak.size(),
        2u);
    expect_error(
        [&] {
            load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes + 1, "xmlns:p")),
                                   "ns-over.xml");
        },
        {"ns-over.xml:2: WaldBoostClassifier: too many attributes"});

    /* Namespace declarations in the file: exactly the limit loads, spread
     * over two elements; one more is refused. */
    const size_t on_root = max_namespaces / 2;
    const auto spread = [&](size_t on_stage) {
        return replace_once(with_root(many_attributes(on_root, "xmlns:r")), "<stage ",
                            "<stage" + many_attributes(on_stage, "xmlns:s") + " ");
    };
    EXPECT_EQ(load_classifier_memory(spread(max_namespaces - on_root), "ns-file-at.xml").weak.size(), 2u);
    expect_error(
        [&] {
            load_classifier_memory(spread(max_namespaces - on_root + 1), "ns-file-over.xml");
        },
        {"ns-file-over.xml:3: stage: too many namespace declarations: more than " + std::to_string(max_namespaces)});
}

/* The count reads bytes, so markup must be ASCII bytes: an encoding that
 * hides it (UTF-7, EBCDIC) is refused, ASCII-compatible ones still load. */
TEST(MalformedFiles, EncodingsThatHideMarkupFromTheCountAreRefused)
{
    const std::string body = valid_waldboost().substr(valid_waldboost().find('\n'));
    /* "<stage" + 300 attributes in UTF-7 ('<', '"' and '>' in base64); the
     * rest is ASCII, where only '+' needs writing as "+-". */
    std::string body7;
    for (const char c : body)
        body7 += c == '+' ? std::string("+-") : std::string(1, c);
    std::string hidden = "+ADw-stage";
    for (int i = 0; i < 300; ++i)
        hidden += " a" + std::to_string(i) + "=+ACI-1+ACI-";
    hidden += "/+AD4-";
    expect_error(
        [&] {
            load_classifier_memory("<?xml version=\"1.0\" encoding=\"UTF-7\"?>" +
                                       replace_once(body7, "</WaldBoostClassifier>", hidden + "</WaldBoostClassifier>"),
                                   "utf7.xml");
        },
        {"utf7.xml:1: not a classifier file: encoding 'UTF-7' is not supported"});
    expect_error(
        [&] {
            load_classifier_memory("<?xml version='1.0' encoding = 'ebcdic-cp-us' ?>" + body, "cp.xml");
        },
        {"cp.xml:1: not a classifier file: encoding 'ebcdic-cp-us' is not supported"});
    /* "<?xm" in EBCDIC: libxml2 switches on these four bytes alone. */
    expect_error(
        [&] {
            load_classifier_memory(std::string("\x4c\x6f\xa7\x94") + body, "ebcdic.xml");
        },
        {"ebcdic.xml: not a classifier file: EBCDIC is not supported"});

    /* UTF-7 used to be how a test reached libxml2's conversion errors, which
     * it prints on stderr; an allowed encoding reaches them too, and they
     * stay off stderr. */
    testing::internal::CaptureStderr();
    expect_error(
        [&] {
            load_classifier_memory(
                "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<WaldBoostClassifier imageSizeX=\"3\"\xff\xff/>\n",
                "sjis.xml");
        },
        {"sjis.xml:2: not well-formed XML"});
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

    for (const char* encoding :
         {"UTF-8", "utf-8", "US-ASCII", "ISO-8859-1", "iso-8859-15", "windows-1252", "Shift_JIS"}) {
        SCOPED_TRACE(encoding);
        EXPECT_EQ(load_classifier_memory(std::string("<?xml version=\"1.0\" encoding=\"") + encoding + "\"?>" + body,
                                         "ok.xml")
                      .weak.size(),
                  2u);
    }
}
