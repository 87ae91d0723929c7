/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The kind of waldboost::Error the loaders throw, which the element and the
 * tools report by (never by the text): broken files are ClassifierFile,
 * valid classifiers this build cannot run UnsupportedClassifier.
 */
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

namespace {

/* Runs `fn`, expects waldboost::Error of `kind` (the element and the tools
 * choose how to report by it, never by the text). Returns the message. */
std::string expect_kind(const std::function<void()>& fn, ErrorKind kind)
{
    try {
        fn();
    } catch (const Error& e) {
        EXPECT_STREQ(to_string(e.kind()), to_string(kind)) << e.what();
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "no error thrown";
    return {};
}

}  // namespace

TEST(ErrorKinds, BrokenFilesAreClassifierFile)
{
    TempDir dir;
    const auto file_kind = [](const std::string& path) {
        SCOPED_TRACE(path);
        expect_kind(
            [&] {
                load_classifier_file(path);
            },
            ErrorKind::ClassifierFile);
    };
    file_kind(dir.file("does-not-exist.xml"));
    file_kind(dir.path());
    file_kind(dir.write("empty.xml", ""));
    file_kind(dir.write("prose.xml", "hello world\n"));
    const std::string full = valid_waldboost();
    file_kind(dir.write("truncated.xml", full.substr(0, full.size() / 2)));
    file_kind(dir.write("wrong.xml", "<?xml version=\"1.0\"?>\n<svg/>\n"));
    file_kind(dir.write("dtd.xml", "<!DOCTYPE x [ <!ENTITY y \"z\"> ]>\n<WaldBoostClassifier/>\n"));

    const auto memory_kind = [](const std::string& text, const std::string& name) {
        SCOPED_TRACE(text.substr(0, 60));
        expect_kind(
            [&] {
                load_classifier_memory(text, name);
            },
            ErrorKind::ClassifierFile);
    };
    /* Element and attribute errors (xml::fail), values out of range, and a
     * classifier that loads but does not validate. */
    memory_kind(replace_once(full, "positionY=\"5\" ", ""), "wb.xml");
    memory_kind(replace_once(full, "positionX=\"7\"", "positionX=\"abc\""), "wb.xml");
    memory_kind(replace_once(full, "imageSizeX=\"24\"", "imageSizeX=\"0\""), "wb.xml");
    memory_kind(replace_once(full, "</stage>", "<extra/></stage>"), "wb.xml");
    memory_kind(waldboost_doc(kRoot24, ""), "wb.xml");
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    memory_kind(replace_once(text, "0 -1 46 -67130709", "0 -1 46"), "lbpcascade_frontalface.xml");
    memory_kind(replace_once(text, "<width>24</width>", ""), "lbpcascade_frontalface.xml");
    memory_kind(replace_once(text, "-0.6543210148811340 ", "nan "), "lbpcascade_frontalface.xml");

    Classifier c = make_model();
    c.weak.clear();
    expect_kind(
        [&] {
            validate(c, "m");
        },
        ErrorKind::ClassifierFile);
}

/* A classifier named by its file name alone (as OpenCV's samples name
 * them) is read from the current folder, where it seldom is: the error
 * names the installed file of that name, for every tool and the element;
 * nothing for a name with a folder, one installed nowhere, or a file that
 * is there but broken. The kind stays ClassifierFile. */
TEST(ErrorKinds, AMissingBareNameSaysWhereTheInstalledFileIs)
{
    const std::string debian = "/usr/share/opencv4/lbpcascades/lbpcascade_frontalface.xml";
    if (!std::filesystem::is_regular_file(debian))
        GTEST_SKIP() << debian << " is not installed (opencv-data)";
    TempDir dir;
    const std::filesystem::path before = std::filesystem::current_path();
    std::filesystem::current_path(dir.path());
    const auto message = [](const std::string& path) {
        SCOPED_TRACE(path);
        return expect_kind(
            [&] {
                load_classifier_file(path);
            },
            ErrorKind::ClassifierFile);
    };
    const std::string hint = "give the whole path: " + debian;
    EXPECT_NE(message("lbpcascade_frontalface.xml").find(hint), std::string::npos);
    EXPECT_NE(message("lbpcascade_frontalface").find(hint), std::string::npos);
    EXPECT_EQ(installed_classifier("lbpcascade_frontalface"), debian);
    for (const char* path : {"sub/lbpcascade_frontalface.xml", "waldboost-test-nowhere.xml"})
        EXPECT_EQ(message(path).find("whole path"), std::string::npos) << path;
    dir.write("lbpcascade_frontalface.xml", "");
    EXPECT_EQ(message("lbpcascade_frontalface.xml").find("whole path"), std::string::npos);
    std::filesystem::current_path(before);
}

TEST(ErrorKinds, ValidClassifiersThisBuildCannotRunAreUnsupportedClassifier)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";
    const std::string first_nodes =
        "0 -1 46 -67130709 -21569 -1426120013 -1275125205 -21585\r\n            -16385 587145899 -24005";
    for (const auto& edit : std::vector<std::pair<std::string, std::string>>{
             {"<featureType>LBP", "<featureType>HOG"},
             {"<stageType>BOOST", "<stageType>CASCADE"},
             {"<maxCatCount>256", "<maxCatCount>0"},
             {first_nodes, "1 -1 46 1 2 3 4 5 6 7 8\n 0 -2 13 1 2 3 4 5 6 7 8"},
             {"-0.6543210148811340 0.8888888955116272", "-0.65 0.88 0.5"},
         }) {
        const std::string &from = edit.first, &to = edit.second; /* lambdas capture no bindings in C++17 */
        SCOPED_TRACE(to);
        expect_kind(
            [&] {
                load_classifier_memory(replace_once(text, from, to), name);
            },
            ErrorKind::UnsupportedClassifier);
    }

    const std::string base = valid_waldboost();
    for (const auto& edit : std::vector<std::pair<std::string, std::string>>{
             {"type=\"LBP\"", "type=\"HOG\""},
             {"minStdDev=\"0\"", "minStdDev=\"1.5\""},
             {"binMappingType=\"NONE\"", "binMappingType=\"UNIFORM\""},
             {"posT=\"1e+50\" negT=\"-0.5\"", "posT=\"5\" negT=\"-0.5\""},
         }) {
        const std::string &from = edit.first, &to = edit.second;
        SCOPED_TRACE(to);
        expect_kind(
            [&] {
                load_classifier_memory(replace_once(base, from, to), "wb.xml");
            },
            ErrorKind::UnsupportedClassifier);
    }
}
