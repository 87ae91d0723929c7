/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The opener of input files (core/io/input_file.h) that the classifier
 * loader, the trainer's checkpoint and the tools' lists, annotation files
 * and images share: regular files only, opened without blocking, read with
 * a size limit. The tools run the same cases in tool-inputs.
 */
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/io/input_file.h"

using waldboost::Error;
using waldboost::ErrorKind;
using waldboost::io::InputFile;
using waldboost::io::read_input_file;
using waldboost::io::without_bom;

namespace {

class InputFileTest : public ::testing::Test {
protected:
    void SetUp() override
    {
        std::string pattern = ::testing::TempDir() + "waldboost-input-file-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        ASSERT_NE(::mkdtemp(name.data()), nullptr);
        folder_ = name.data();
    }
    void TearDown() override
    {
        std::error_code ec;
        std::filesystem::remove_all(folder_, ec);
    }
    std::string write(const std::string& name, const std::string& content) const
    {
        const std::string path = folder_ + "/" + name;
        std::ofstream(path, std::ios::binary) << content;
        return path;
    }
    /* The message of what reading `path` with a limit of `max_bytes`
     * throws, or "" when it reads. */
    static std::string read_error(const std::string& path, size_t max_bytes = 100, ErrorKind kind = ErrorKind::Io)
    {
        try {
            read_input_file(path, max_bytes, "tests", kind);
        } catch (const Error& e) {
            EXPECT_EQ(e.kind(), kind);
            return e.what();
        }
        return "";
    }
    std::string folder_;
};

TEST_F(InputFileTest, ReadsARegularFileWhole)
{
    const std::string path = write("a.txt", "one\ntwo\n");
    EXPECT_EQ(read_input_file(path, 100, "tests"), "one\ntwo\n");
    EXPECT_EQ(read_input_file(path, 8, "tests"), "one\ntwo\n");
    InputFile file = InputFile::open(path);
    EXPECT_EQ(file.size(), 8u);
    char buffer[3];
    EXPECT_EQ(file.read(buffer, sizeof buffer), 3u);
    EXPECT_EQ(file.read_all(100, "tests"), "\ntwo\n");
}

TEST_F(InputFileTest, RefusesAFifoAtOnceWithoutAWriter)
{
    const std::string fifo = folder_ + "/fifo";
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(read_error(fifo), fifo + ": not a regular file");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST_F(InputFileTest, RefusesDevicesDirectoriesAndMissingFiles)
{
    /* /dev/zero never ends; its size (0) would pass any size check. */
    EXPECT_EQ(read_error("/dev/zero"), "/dev/zero: not a regular file");
    EXPECT_EQ(read_error("/dev/null"), "/dev/null: not a regular file");
    EXPECT_EQ(read_error(folder_), folder_ + ": cannot open: is a directory");
    EXPECT_EQ(read_error(folder_ + "/missing"), folder_ + "/missing: cannot open: No such file or directory");
    EXPECT_EQ(read_error("/dev/zero", 100, ErrorKind::ClassifierFile), "/dev/zero: not a regular file");
}

TEST_F(InputFileTest, RefusesAFileOverTheLimitBeforeReadingIt)
{
    const std::string path = write("big.txt", std::string(101, 'x'));
    EXPECT_EQ(read_error(path), path + ": file is too large (101 bytes; the limit for tests is 100 bytes)");
    EXPECT_EQ(read_error(path, 101), "");
}

TEST_F(InputFileTest, EscapesThePathInMessages)
{
    const std::string odd = folder_ + "/a\x1b]0;t\x07\xe2\x80\xae.txt";
    EXPECT_EQ(read_error(odd), folder_ + "/a\\x1b]0;t\\x07\\u{202E}.txt: cannot open: No such file or directory");
}

TEST(WithoutBom, SkipsOnlyALeadingMark)
{
    EXPECT_EQ(without_bom("\xEF\xBB\xBF"
                          "a.png\n"),
              "a.png\n");
    EXPECT_EQ(without_bom("a.png\n"), "a.png\n");
    EXPECT_EQ(without_bom("\xEF\xBB"), "\xEF\xBB");
    EXPECT_EQ(without_bom("a\xEF\xBB\xBF"), "a\xEF\xBB\xBF");
    EXPECT_EQ(without_bom(""), "");
}

}  // namespace
