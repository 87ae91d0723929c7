/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-convert (WALDBOOST_CONVERT): Debian's cascades converted to the
 * model the loader reads, standard output, usage and failures, the summary
 * escaped, and an output file that keeps what it is (FIFO, mode, links).
 */
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include "core/model/classifier_io.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;

namespace {

std::string converter() { return env_or("WALDBOOST_CONVERT", ""); }

}  // namespace

class Converter : public ::testing::Test {
protected:
    void SetUp() override
    {
        tool_ = converter();
        if (tool_.empty())
            GTEST_SKIP() << "WALDBOOST_CONVERT is not set";
    }
    std::string tool_;
};

TEST_F(Converter, RealCascadesConvertToTheSameModel)
{
    TempDir dir;
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string input = cascade_path(known.stem);
        const std::string output = dir.file(std::string(known.stem) + ".xml");
        const std::string log = dir.file("log.txt");
        ASSERT_EQ(run_status(shell_quote(tool_) + " --label my-label " + shell_quote(input) + " " +
                             shell_quote(output) + " 2>" + shell_quote(log)),
                  0);
        const Classifier direct = load_classifier_file(input);
        const Classifier converted = load_classifier_file(output);
        EXPECT_EQ(converted.label, "my-label");
        expect_identical(direct, converted, false);
        const std::string summary = read_text(log);
        EXPECT_NE(summary.find("window " + std::to_string(known.width) + "x" + std::to_string(known.height)),
                  std::string::npos)
            << summary;
        EXPECT_NE(summary.find(std::to_string(known.trees) + " weak classifiers"), std::string::npos) << summary;
        EXPECT_NE(summary.find(std::to_string(known.stages) + " stages"), std::string::npos) << summary;
    }
    /* Without --label the cascade's own label is kept: for Debian's
     * profile-face cascade the label its converted copy has. */
    const std::string output = dir.file("plain.xml");
    ASSERT_EQ(run_status(shell_quote(tool_) + " " + shell_quote(cascade_path("lbpcascade_profileface")) + " " +
                         shell_quote(output) + " 2>/dev/null"),
              0);
    EXPECT_EQ(load_classifier_file(output).label, "profile-face");
}

TEST_F(Converter, WritesToStandardOutput)
{
    FILE* pipe = ::popen(
        (shell_quote(tool_) + " " + shell_quote(cascade_path("lbpcascade_frontalface")) + " - 2>/dev/null").c_str(),
        "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        text.append(buffer, n);
    const int status = ::pclose(pipe);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    expect_identical(load_classifier_file(cascade_path("lbpcascade_frontalface")),
                     load_classifier_memory(text, "stdout"));
}

TEST_F(Converter, UsageAndFailures)
{
    TempDir dir;
    const std::string log = dir.file("log.txt");
    EXPECT_EQ(run_status(shell_quote(tool_) + " --help >" + shell_quote(log)), 0);
    EXPECT_NE(read_text(log).find("Usage: waldboost-convert [--label NAME] INPUT OUTPUT"), std::string::npos);
    EXPECT_EQ(run_status(shell_quote(tool_) + " 2>/dev/null"), 2);
    EXPECT_EQ(run_status(shell_quote(tool_) + " a 2>/dev/null"), 2);
    EXPECT_EQ(run_status(shell_quote(tool_) + " --bogus a b 2>/dev/null"), 2);
    EXPECT_EQ(run_status(shell_quote(tool_) + " a b --label 2>/dev/null"), 2);

    /* A failed conversion writes nothing, not even a temporary file. */
    const std::string hog = dir.write("hog.xml", replace_once(read_text(cascade_path("lbpcascade_frontalface")),
                                                              "<featureType>LBP", "<featureType>HOG"));
    const std::string out = dir.file("out.xml");
    EXPECT_EQ(
        run_status(shell_quote(tool_) + " " + shell_quote(hog) + " " + shell_quote(out) + " 2>" + shell_quote(log)), 1);
    const std::string message = read_text(log);
    EXPECT_EQ(message.rfind("waldboost-convert: " + hog + ":", 0), 0u) << message;
    EXPECT_NE(message.find("not supported"), std::string::npos) << message;
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"hog.xml", "log.txt"}));

    EXPECT_EQ(run_status(shell_quote(tool_) + " --label '' " + shell_quote(cascade_path("lbpcascade_frontalface")) +
                         " " + shell_quote(out) + " 2>" + shell_quote(log)),
              1);
    EXPECT_NE(read_text(log).find("label is empty"), std::string::npos);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"hog.xml", "log.txt"}));

    /* An existing output is replaced whole. */
    dir.write("out.xml", "old");
    EXPECT_EQ(run_status(shell_quote(tool_) + " --label=x " + shell_quote(cascade_path("lbpcascade_frontalface")) +
                         " " + shell_quote(out) + " 2>/dev/null"),
              0);
    EXPECT_EQ(load_classifier_file(out).label, "x");
}

/* The summary line showed the paths and the label raw: a name with ESC
 * coloured (or retitled) the user's terminal. */
TEST_F(Converter, SummaryEscapesControlCharacters)
{
    TempDir dir;
    const std::string input = dir.write("in\x1b[31m\n.xml", read_text(cascade_path("lbpcascade_frontalface")));
    const std::string output = dir.file("out\xe2\x80\xae.xml");
    const std::string log = dir.file("log.txt");
    ASSERT_EQ(run_status(shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(output) + " 2>" +
                         shell_quote(log)),
              0);
    const std::string summary = read_text(log);
    EXPECT_NE(summary.find("in\\x1b[31m\\x0a.xml -> "), std::string::npos) << summary;
    EXPECT_NE(summary.find("out\\u{202E}.xml: label"), std::string::npos) << summary;
    ASSERT_FALSE(summary.empty());
    EXPECT_EQ(summary.back(), '\n');
    expect_printable(summary.substr(0, summary.size() - 1));
}

/* The output used to be replaced by a new 0644 regular file whatever it
 * was: a FIFO or a device (/dev/null, as root) became a file, a 0600 file
 * 0644, a hard link was broken and a symbolic link replaced by a file. */
TEST_F(Converter, OutputKeepsWhatItIs)
{
    TempDir dir;
    const std::string input = cascade_path("lbpcascade_frontalface");
    const Classifier expected = load_classifier_file(input);
    auto convert_to = [&](const std::string& output) {
        return run_status("timeout 20 " + shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(output) +
                          " 2>/dev/null");
    };
    /* The converted classifier, read back; a failure, not an exception, when
     * it is not there, so that every case below is checked. */
    auto expect_converted = [&](const std::string& path) {
        try {
            expect_identical(expected, load_classifier_file(path));
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
        }
    };
    auto mode_of = [](const std::string& path) {
        struct stat st {};
        EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
        return st;
    };

    /* A FIFO (as /dev/null would be a device) is written to, not replaced. */
    {
        SCOPED_TRACE("FIFO");
        const std::string fifo = dir.file("fifo");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string copy = dir.file("from-fifo.xml");
        EXPECT_EQ(run_status("timeout 20 cat " + shell_quote(fifo) + " >" + shell_quote(copy) + " & " + "timeout 20 " +
                             shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(fifo) +
                             " 2>/dev/null; status=$?; wait; exit $status"),
                  0);
        EXPECT_TRUE(S_ISFIFO(mode_of(fifo).st_mode));
        expect_converted(copy);
    }

    /* A 0600 file stays 0600 (and 0640 stays 0640). */
    for (const mode_t mode : {mode_t{0600}, mode_t{0640}}) {
        SCOPED_TRACE(mode);
        const std::string path = dir.write("private-" + std::to_string(mode) + ".xml", "old");
        ASSERT_EQ(::chmod(path.c_str(), mode), 0);
        EXPECT_EQ(convert_to(path), 0);
        const struct stat st = mode_of(path);
        EXPECT_TRUE(S_ISREG(st.st_mode));
        EXPECT_EQ(st.st_mode & 07777, mode);
        expect_converted(path);
    }

    /* Both names of a hard link see the new text: the link is kept. */
    {
        SCOPED_TRACE("hard link");
        const std::string first = dir.write("first.xml", "old");
        const std::string second = dir.file("second.xml");
        ASSERT_EQ(::link(first.c_str(), second.c_str()), 0);
        EXPECT_EQ(convert_to(second), 0);
        const struct stat a = mode_of(first), b = mode_of(second);
        EXPECT_EQ(a.st_ino, b.st_ino);
        EXPECT_EQ(a.st_nlink, 2u);
        expect_converted(first);
    }

    /* A symbolic link stays a link; its target gets the text (and keeps its
     * mode); a dangling link's target is created. */
    {
        SCOPED_TRACE("symbolic link");
        const std::string target = dir.write("target.xml", "old");
        ASSERT_EQ(::chmod(target.c_str(), 0604), 0);
        const std::string link = dir.file("link.xml");
        ASSERT_EQ(::symlink("target.xml", link.c_str()), 0);
        EXPECT_EQ(convert_to(link), 0);
        EXPECT_TRUE(S_ISLNK(mode_of(link).st_mode));
        EXPECT_EQ(mode_of(target).st_mode & 07777, 0604u);
        expect_converted(target);

        const std::string dangling = dir.file("dangling.xml");
        ASSERT_EQ(::symlink("created.xml", dangling.c_str()), 0);
        EXPECT_EQ(convert_to(dangling), 0);
        EXPECT_TRUE(S_ISLNK(mode_of(dangling).st_mode));
        expect_converted(dir.file("created.xml"));

        /* A link to a FIFO writes into the FIFO. */
        const std::string fifo = dir.file("fifo2");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string to_fifo = dir.file("to-fifo");
        ASSERT_EQ(::symlink("fifo2", to_fifo.c_str()), 0);
        const std::string copy = dir.file("from-fifo2.xml");
        EXPECT_EQ(run_status("timeout 20 cat " + shell_quote(fifo) + " >" + shell_quote(copy) + " & " + "timeout 20 " +
                             shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(to_fifo) +
                             " 2>/dev/null; status=$?; wait; exit $status"),
                  0);
        EXPECT_TRUE(S_ISLNK(mode_of(to_fifo).st_mode));
        EXPECT_TRUE(S_ISFIFO(mode_of(fifo).st_mode));
        expect_converted(copy);
    }

    /* No temporary file is left anywhere. */
    for (const std::string& name : dir.entries())
        EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}
