/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The writer of output files (core/io/output_file.h) that waldboost-convert,
 * waldboost-train's -o and the trainer's checkpoint share: a regular file
 * replaced atomically and keeping its mode, and whatever else the name is
 * (a link, a device, a FIFO, a file with other hard links) kept what it is.
 * The tools' own tests run the same cases through the tools
 * (classifier-io's Converter.OutputKeepsWhatItIs, train-tool).
 */
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "core/error.h"
#include "core/io/output_file.h"

using waldboost::Error;
using waldboost::ErrorKind;
using waldboost::io::write_all;
using waldboost::io::write_output_file;

namespace {

/* A fresh folder under the test's temporary folder, removed with
 * everything in it. */
class Folder {
public:
    Folder()
    {
        std::string pattern = ::testing::TempDir() + "waldboost-output-file-XXXXXX";
        std::vector<char> name(pattern.begin(), pattern.end());
        name.push_back('\0');
        if (!::mkdtemp(name.data()))
            throw std::runtime_error("mkdtemp failed");
        path_ = name.data();
    }
    ~Folder()
    {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::string write(const std::string& name, const std::string& content, mode_t mode = 0644) const
    {
        const std::string path = file(name);
        std::ofstream(path, std::ios::binary) << content;
        EXPECT_EQ(::chmod(path.c_str(), mode), 0) << path;
        return path;
    }
    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path_))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    std::string path_;
};

std::string read_text(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

struct stat status_of(const std::string& path)
{
    struct stat st {};
    EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
    return st;
}

/* The message write_output_file() throws (an Io error), "" when it does not. */
std::string write_error(const std::string& path, const std::string& bytes)
{
    try {
        write_output_file(path, bytes);
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io) << e.what();
        return e.what();
    }
    return "";
}

/* Sets the umask for a test and puts the old one back. */
class Umask {
public:
    explicit Umask(mode_t mask) : old_(::umask(mask)) {}
    ~Umask() { ::umask(old_); }

private:
    mode_t old_;
};

}  // namespace

/* A new file gets 0666 less the umask, as a plain open would give it. */
TEST(OutputFile, ANewFileGetsTheUsualModeAndNothingElseIsLeft)
{
    Folder dir;
    const Umask mask(027);
    const std::string path = dir.file("new.xml");
    write_output_file(path, "new text");
    EXPECT_EQ(read_text(path), "new text");
    const struct stat st = status_of(path);
    EXPECT_TRUE(S_ISREG(st.st_mode));
    EXPECT_EQ(st.st_mode & 07777, 0640u);
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"new.xml"});
}

/* A regular file is replaced by a new one (a reader holding the old one
 * keeps reading whole old text), which keeps the old one's mode. */
TEST(OutputFile, ARegularFileIsReplacedAndKeepsItsMode)
{
    Folder dir;
    for (const mode_t mode : {mode_t{0600}, mode_t{0640}, mode_t{0604}}) {
        SCOPED_TRACE(mode);
        const std::string path = dir.write("private.xml", "old text", mode);
        const ino_t old_inode = status_of(path).st_ino;
        const int reader = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        ASSERT_GE(reader, 0);
        write_output_file(path, "new text");
        const struct stat st = status_of(path);
        EXPECT_TRUE(S_ISREG(st.st_mode));
        EXPECT_EQ(st.st_mode & 07777, mode);
        EXPECT_NE(st.st_ino, old_inode);
        EXPECT_EQ(read_text(path), "new text");
        char old[16] = {};
        EXPECT_EQ(::read(reader, old, sizeof old), 8);
        EXPECT_EQ(std::string(old), "old text");
        ::close(reader);
    }
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"private.xml"});
}

/* The temporary file's name is mkstemp's: a link planted under the name
 * the tools used to write first (NAME.part) is never opened, nor is one
 * under a name of mkstemp's pattern. */
TEST(OutputFile, ALinkPlantedInTheFolderIsNeverWrittenThrough)
{
    Folder dir;
    const std::string victim = dir.write("victim", "precious");
    const std::string path = dir.file("out.xml");
    ASSERT_EQ(::symlink(victim.c_str(), (path + ".part").c_str()), 0);
    ASSERT_EQ(::symlink(victim.c_str(), (path + ".tmp-XXXXXX").c_str()), 0);
    write_output_file(path, "new text");
    EXPECT_EQ(read_text(victim), "precious");
    EXPECT_EQ(read_text(path), "new text");
    EXPECT_FALSE(S_ISLNK(status_of(path).st_mode));
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"out.xml", "out.xml.part", "out.xml.tmp-XXXXXX", "victim"}));
}

/* A symbolic link stays a link: its target gets the text (replaced next to
 * the target, keeping its mode), a dangling link's target is created. */
TEST(OutputFile, ASymbolicLinkStaysALinkAndItsTargetIsWritten)
{
    Folder dir, elsewhere;
    const std::string target = elsewhere.write("target.xml", "old text", 0600);
    const std::string link = dir.file("link.xml");
    ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
    write_output_file(link, "new text");
    EXPECT_TRUE(S_ISLNK(status_of(link).st_mode));
    EXPECT_EQ(status_of(target).st_mode & 07777, 0600u);
    EXPECT_EQ(read_text(target), "new text");
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"link.xml"});
    EXPECT_EQ(elsewhere.entries(), std::vector<std::string>{"target.xml"});

    /* A link to a link. */
    const std::string second = dir.file("second.xml");
    ASSERT_EQ(::symlink("link.xml", second.c_str()), 0);
    write_output_file(second, "third text");
    EXPECT_TRUE(S_ISLNK(status_of(second).st_mode));
    EXPECT_EQ(read_text(target), "third text");

    const std::string dangling = dir.file("dangling.xml");
    ASSERT_EQ(::symlink("created.xml", dangling.c_str()), 0);
    write_output_file(dangling, "created text");
    EXPECT_TRUE(S_ISLNK(status_of(dangling).st_mode));
    EXPECT_EQ(read_text(dir.file("created.xml")), "created text");
}

/* A character device is written to, never replaced by a file (as root,
 * /dev/null itself was). The node is made in the test's folder with
 * /dev/null's numbers, so that a writer gone wrong replaces nothing of the
 * machine's; without the right to make one, /dev/null itself (which only
 * root could replace). */
TEST(OutputFile, ACharacterDeviceIsWrittenToNotReplaced)
{
    Folder dir;
    std::string device = dir.file("null");
    if (::mknod(device.c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) {
        if (::geteuid() == 0)
            GTEST_SKIP() << "root cannot make a device node here: " << std::strerror(errno);
        device = "/dev/null";
    }
    const struct stat before = status_of(device);
    ASSERT_TRUE(S_ISCHR(before.st_mode));
    write_output_file(device, "into the void");
    const struct stat after = status_of(device);
    EXPECT_TRUE(S_ISCHR(after.st_mode));
    EXPECT_EQ(after.st_rdev, before.st_rdev);
    EXPECT_EQ(after.st_ino, before.st_ino);

    /* Through a link too. */
    const std::string link = dir.file("to-null");
    ASSERT_EQ(::symlink(device.c_str(), link.c_str()), 0);
    write_output_file(link, "into the void");
    EXPECT_TRUE(S_ISLNK(status_of(link).st_mode));
    EXPECT_TRUE(S_ISCHR(status_of(device).st_mode));
    for (const std::string& name : dir.entries())
        EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}

/* A FIFO is written to: a reader at its other end gets the text. */
TEST(OutputFile, AFifoIsWrittenTo)
{
    Folder dir;
    const std::string fifo = dir.file("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    std::string received;
    std::thread reader([&] {
        received = read_text(fifo);
    });
    write_output_file(fifo, "through the pipe");
    reader.join();
    EXPECT_EQ(received, "through the pipe");
    EXPECT_TRUE(S_ISFIFO(status_of(fifo).st_mode));
    EXPECT_EQ(dir.entries(), std::vector<std::string>{"fifo"});
}

/* Every name of a file with hard links sees the new text. */
TEST(OutputFile, AFileWithOtherHardLinksIsOverwrittenInPlace)
{
    Folder dir;
    const std::string first = dir.write("first.xml", "old text, longer than the new one");
    const std::string second = dir.file("second.xml");
    ASSERT_EQ(::link(first.c_str(), second.c_str()), 0);
    write_output_file(second, "new text");
    const struct stat a = status_of(first), b = status_of(second);
    EXPECT_EQ(a.st_ino, b.st_ino);
    EXPECT_EQ(a.st_nlink, 2u);
    EXPECT_EQ(read_text(first), "new text");
}

/* A failure says which file and why, leaves no temporary file and the old
 * contents as they were. */
TEST(OutputFile, FailuresNameTheFileAndTheReason)
{
    Folder dir;
    const std::string missing = dir.file("missing/out.xml");
    EXPECT_EQ(write_error(missing, "x"), missing + ": cannot create a temporary file: No such file or directory");

    const std::string file = dir.write("file", "old text");
    EXPECT_EQ(write_error(file + "/out.xml", "x"), file + "/out.xml: cannot write: Not a directory");
    EXPECT_EQ(read_text(file), "old text");

    const std::string folder = dir.file("folder");
    ASSERT_EQ(::mkdir(folder.c_str(), 0755), 0);
    EXPECT_EQ(write_error(folder, "x"), folder + ": cannot open: Is a directory");

    /* A name with control characters is shown escaped. */
    const std::string odd = dir.file("no\nsuch\x1b[31m/out.xml");
    EXPECT_EQ(write_error(odd, "x"),
              dir.file("no\\x0asuch\\x1b[31m/out.xml") + ": cannot create a temporary file: No such file or directory");

    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"file", "folder"}));
}

/* write_all() writes everything, and says what failed. */
TEST(OutputFile, WriteAllWritesEverythingOrSaysWhy)
{
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const std::string text(200000, 'w'); /* more than a pipe holds: several writes */
    std::string received;
    std::thread reader([&] {
        char buffer[8192];
        ssize_t n;
        while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
            received.append(buffer, static_cast<size_t>(n));
    });
    write_all(fds[1], text, "the pipe");
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    EXPECT_EQ(received, text);

    try {
        write_all(-1, "x", "standard output");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::Io);
        EXPECT_EQ(std::string(e.what()), "standard output: write failed: Bad file descriptor");
    }
}
