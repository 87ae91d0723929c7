/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Files that are not classifiers or break WaldBoost XML's rules: each
 * refused with a message naming the file and line, on one line, nothing
 * printed, paths and text shown through waldboost::printable.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/model/classifier_io.h"
#include "core/text.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

TEST(MalformedFiles, NotClassifiersAtAll)
{
    TempDir dir;
    const std::string empty = dir.write("empty.xml", "");
    expect_error(
        [&] {
            load_classifier_file(empty);
        },
        {empty + ":", "empty"});
    const std::string prose = dir.write("prose.xml", "hello world\n");
    expect_error(
        [&] {
            load_classifier_file(prose);
        },
        {prose + ":1:", "not well-formed XML"});
    const std::string full = valid_waldboost();
    const std::string truncated = dir.write("truncated.xml", full.substr(0, full.size() / 2));
    expect_error(
        [&] {
            load_classifier_file(truncated);
        },
        {truncated + ":", "not well-formed XML"});
    const std::string wrong = dir.write("wrong.xml", "<?xml version=\"1.0\"?>\n<svg/>\n");
    expect_error(
        [&] {
            load_classifier_file(wrong);
        },
        {wrong + ": not a classifier file: root element <svg>"});
    const std::string missing = dir.file("does-not-exist.xml");
    expect_error(
        [&] {
            load_classifier_file(missing);
        },
        {missing + ": cannot open", "No such file"});
    expect_error(
        [&] {
            load_classifier_file(dir.path());
        },
        {dir.path() + ": cannot open", "directory"});
    std::string utf16 = "\xff\xfe";
    for (char ch : std::string("<WaldBoostClassifier/>")) {
        utf16 += ch;
        utf16 += '\0';
    }
    expect_error(
        [&] {
            load_classifier_memory(utf16, "u16.xml");
        },
        {"u16.xml:", "NUL"});
}

TEST(MalformedFiles, WaldBoostAttributeAndElementErrors)
{
    const std::string base = valid_waldboost();
    const std::string name = "wb.xml";
    struct Case {
        std::string from;
        std::string to;
        std::vector<std::string> fragments;
        std::string line_needle;  // the element whose line the message names
    };
    const std::string values = number_list(256, 0.25, 0.0);
    const std::string values255 = number_list(255, 0.25, 0.0);
    const std::string values257 = number_list(257, 0.25, 0.0);
    const std::vector<Case> cases = {
        {"positionY=\"5\" ", "", {"LBPFeature", "missing attribute positionY"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"abc\"", {"LBPFeature", "positionX", "'abc' is not an integer"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"7px\"", {"positionX", "'7px' is not an integer"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"-1\"", {"positionX", "-1 is out of range"}, "<LBPFeature"},
        {"blockWidth=\"2\"", "blockWidth=\"0\"", {"blockWidth", "0 is out of range (1 to 1024)"}, "<LBPFeature"},
        {"positionX=\"7\"",
         "positionX=\"20\"",
         {"feature (x=20, y=5, 3 blocks of 2x2) does not fit the 24x24 window"},
         "<LBPFeature"},
        {"negT=\"-0.5\"", "negT=\"-0.5x\"", {"stage", "negT", "'-0.5x' is not a number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"nan\"", {"negT", "not a finite number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"inf\"", {"negT", "not a finite number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"1e39\"", {"negT", "outside the range of a float"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"\"", {"negT", "empty value"}, "<stage"},
        {"posT=\"1e+50\" negT=\"-0.5\"",
         "posT=\"5\" negT=\"-0.5\"",
         {"stage", "posT", "early acceptance", "not supported"},
         "<stage"},
        {values,
         values255,
         {"HistogramWeakHypothesis", "predictionValues", "expected 256 numbers, found 255"},
         "predictionValues=\"0.25"},
        {values, values257, {"predictionValues", "expected 256 numbers, found 257"}, "predictionValues=\"0.25"},
        {values,
         values255 + " nan",
         {"predictionValues", "value 255", "'nan' is not a finite number"},
         "predictionValues=\"0.25"},
        {values,
         "-inf " + values255,
         {"predictionValues", "value 0", "'-inf' is not a finite number"},
         "predictionValues=\"-inf"},
        {values, "0.25;" + values, {"predictionValues", "'0.25;0.25' is not a number"}, "predictionValues=\"0.25;"},
        {"minStdDev=\"0\"",
         "minStdDev=\"1.5\"",
         {"WaldBoostClassifier", "minStdDev", "not supported"},
         "<WaldBoostClassifier"},
        {"type=\"LBP\"",
         "type=\"HOG\"",
         {"HOG features are not supported; only LBP, HAAR, LRD and LRP"},
         "<WaldBoostClassifier"},
        {"type=\"LBP\"",
         "type=\"HAAR\"",
         {"HistogramWeakHypothesis", "expected <HaarTreeWeakHypothesis>"},
         "<HistogramWeakHypothesis"},
        {"type=\"LBP\"", "", {"missing attribute type"}, "<WaldBoostClassifier"},
        {"imageSizeX=\"24\"", "imageSizeX=\"0\"", {"imageSizeX", "0 is out of range"}, "<WaldBoostClassifier"},
        {"imageSizeX=\"24\"",
         "imageSizeX=\"24\" finalThreshold=\"inf\"",
         {"finalThreshold", "not a finite number"},
         "<WaldBoostClassifier"},
        {"binMappingType=\"NONE\"", "binMappingType=\"UNIFORM\"", {"binMappingType", "not supported"}, "<LBPFeature"},
        {"negT=\"-0.5\"", "negT=\"-0.5\" negTT=\"1\"", {"stage", "unknown attribute 'negTT'"}, "<stage"},
        {"<LBPFeature", "<Feature/><LBPFeature", {"Feature", "unknown element"}, "<Feature/>"},
        {"</stage>", "<extra/></stage>", {"extra", "unknown element"}, "<extra/>"},
        {"  <stage", "  <stag/>\n  <stage", {"stag", "unknown element"}, "<stag/>"},
        {"<HistogramWeakHypothesis",
         "<HistogramWeakHypothesis predictionValues=\"1\"/><HistogramWeakHypothesis",
         {"duplicate"},
         "<HistogramWeakHypothesis predictionValues=\"1\"/>"},
        {"</stage>", "oops</stage>", {"stage", "unexpected text 'oops'"}, "<stage"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.from.substr(0, 40) + " -> " + c.to.substr(0, 40));
        const std::string text = replace_once(base, c.from, c.to);
        std::vector<std::string> fragments = c.fragments;
        const std::string message = expect_error(
            [&] {
                load_classifier_memory(text, name);
            },
            {});
        for (const auto& f : fragments)
            EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
        const std::string where = at_line(name, text, c.line_needle);
        EXPECT_EQ(message.rfind(where, 0), 0u) << "expected to start with " << where << ": " << message;
    }
    expect_error(
        [&] {
            load_classifier_memory(waldboost_doc(kRoot24, ""), name);
        },
        {"wb.xml:2:", "no <stage>"});
}

/* A file cannot write on our stderr (libxml2's encoding errors) nor put
 * control characters into our messages (a forged log line). */
TEST(MalformedFiles, MessagesAreOneLineAndNothingIsPrinted)
{
    const std::string cases[] = {
        std::string("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<WaldBoostClassifier imageSizeX=\"3\"+\xff/>\n"),
        std::string("<?xml version=\"1.0\"?>\n<WaldBoostClassifier imageS\xdcizeX=\"1\" type=\"X\"/>\n"),
        std::string("<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"X&#10;b.xml: loaded OK\"/>"),
        std::string("<opencv_storage><cascade><stageType>A&#13;&#10;B</stageType></cascade></opencv_storage>"),
        /* attribute values of thousands of characters */
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><stage resetSum=\"" +
            std::string(3000, '7') + "\"/></WaldBoostClassifier>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><stage posT=\"1" +
            std::string(2000, '0') + "e-2000\"/></WaldBoostClassifier>",
        /* element names of thousands of characters */
        "<W" + std::string(3000, 'x') + "/>",
        "<opencv_storage><c" + std::string(3000, 'y') + "/></opencv_storage>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><s" + std::string(2000, 'z') +
            "/></WaldBoostClassifier>",
        /* a long name whose 40th byte is inside a two-byte character */
        "<W" + std::string(38, 'x') +
            [] {
                std::string e;
                for (int i = 0; i < 100; ++i)
                    e += "\xc3\xa9";
                return e;
            }() +
            "/>",
    };
    for (const std::string& text : cases) {
        testing::internal::CaptureStderr();
        std::string message;
        try {
            waldboost::load_classifier_memory(text, "bad.xml");
        } catch (const waldboost::Error& e) {
            message = e.what();
        }
        const std::string printed = testing::internal::GetCapturedStderr();
        EXPECT_EQ(printed, "") << text;
        ASSERT_FALSE(message.empty()) << text;
        EXPECT_EQ(message.rfind("bad.xml:", 0), 0u) << message;
        EXPECT_LE(message.size(), 1024u) << message.substr(0, 200);
        /* Valid UTF-8 (this test's characters take at most two bytes). */
        for (size_t i = 0; i < message.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(message[i]);
            if (c >= 0xc0) {
                ASSERT_TRUE(i + 1 < message.size() && (static_cast<unsigned char>(message[i + 1]) & 0xc0) == 0x80)
                    << "a cut character in: " << message;
                ++i;
            } else {
                ASSERT_LT(c, 0x80) << "a stray continuation byte in: " << message;
            }
        }
        for (const char c : message)
            EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << "control character in: " << message;
    }
}

/* A classifier path (the user's, or a directory listing's) used to go into
 * messages verbatim: a newline forged a log line, ESC [31m coloured the
 * terminal, and a 3 KB path made a 3 KB message. */
TEST(MalformedFiles, PathsInMessagesAreEscapedAndBounded)
{
    TempDir dir;
    const std::string forged = dir.file("a\nb\x1b[31m\xc2\x9b\xe2\x80\xae.xml");
    const std::string long_path = dir.file(std::string(3000, 'p') + ".xml");
    /* Files that do not exist, or cannot be opened. */
    for (const std::string& path : {forged, long_path}) {
        const std::string message = expect_error(
            [&] {
                load_classifier_file(path);
            },
            {"cannot open"});
        expect_printable(message, 400);
    }
    {
        const std::string message = expect_error(
            [&] {
                load_classifier_file(forged);
            },
            {"\\x0a", "\\x1b[31m"});
        EXPECT_NE(message.find("\\u{009B}\\u{202E}.xml"), std::string::npos) << message;
    }
    /* Files that exist: not a classifier, broken XML, an invalid model. */
    const std::string names[] = {"n\nx\x1b]0;t\x07.xml", std::string(200, 'q') + "\xe2\x81\xa6.xml"};
    const std::string texts[] = {
        "<svg/>",
        "<WaldBoostClassifier",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><bogus/></WaldBoostClassifier>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>",
    };
    for (const std::string& name : names) {
        for (const std::string& text : texts) {
            SCOPED_TRACE(text);
            const std::string path = dir.write(name, text);
            expect_printable(expect_error(
                                 [&] {
                                     load_classifier_file(path);
                                 },
                                 {}),
                             600);
            expect_printable(expect_error(
                                 [&] {
                                     load_classifier_memory(text, name);
                                 },
                                 {}),
                             600);
        }
    }
    /* A path of ordinary characters is shown as it is. */
    expect_error(
        [&] {
            load_classifier_file(dir.file("no such file \xc3\xa9.xml"));
        },
        {dir.file("no such file \xc3\xa9.xml") + ": cannot open"});
}

TEST(Printable, EscapesControlsAndCutsLongText)
{
    EXPECT_EQ(waldboost::printable("face \xc3\xa9t\xc3\xa9 \xe4\xb8\xad"), "face \xc3\xa9t\xc3\xa9 \xe4\xb8\xad");
    EXPECT_EQ(waldboost::printable("a\nb\x1b[31m\x7f"), "a\\x0ab\\x1b[31m\\x7f");
    EXPECT_EQ(waldboost::printable("\xc2\x9b\xe2\x80\xae\xe2\x81\xa9\xc2\xa0"), "\\u{009B}\\u{202E}\\u{2069}\xc2\xa0");
    EXPECT_EQ(waldboost::printable("\xff\xc3"), "\\xff\\xc3");
    EXPECT_EQ(waldboost::printable(std::string(3000, 'x')), std::string(200, 'x') + "...");
    EXPECT_EQ(waldboost::printable("abc\xc3\xa9", 4), "abc...");
    EXPECT_EQ(waldboost::printable("ab\ncd", 4), "ab...");
}
