/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * FragmentRouter, the publisher's choice of a splitmuxsink fragment's
 * sidecar for each document, on made-up sequences of what splitmuxsink
 * says and what the detection sends: each document is of the frame at
 * second N and says N; the expected sidecar of each follows from the
 * fragments' starts alone. tests/publish/test_publish_file.py runs the
 * same with a real splitmuxsink.
 */
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "fragment_router.h"

using waldboost_publish::Document;
using waldboost_publish::FragmentRouter;

namespace {

constexpr GstClockTime kSecond = GST_SECOND;

/* What the router sent: "open NAME" for a new sidecar, the payload for a
 * document, and "drain" where it drained. */
struct Recorder {
    std::vector<std::string> out;
    FragmentRouter router;

    explicit Recorder(size_t max_held = 1000)
        : router(
              max_held,
              [this](Document d) {
                  out.push_back(d.rotate_to.empty() ? d.payload : "open " + d.rotate_to);
              },
              [this] {
                  out.push_back("drain");
              })
    {
    }
    /* Documents of the frames at seconds `first` to `last`. */
    void frames(int first, int last)
    {
        for (int s = first; s <= last; ++s)
            router.route(s * kSecond, std::to_string(s));
    }
    /* splitmuxsink opens `name` at second `start`, as it does: the
     * location first, then its message. */
    void fragment(const std::string& name, int start)
    {
        router.announced(name);
        router.opened(name, start * kSecond);
    }
};

std::vector<std::string> numbers(int first, int last)
{
    std::vector<std::string> v;
    for (int s = first; s <= last; ++s)
        v.push_back(std::to_string(s));
    return v;
}

std::vector<std::string> join(std::initializer_list<std::vector<std::string>> parts)
{
    std::vector<std::string> v;
    for (const auto& p : parts)
        v.insert(v.end(), p.begin(), p.end());
    return v;
}

}  // namespace

/* The detection ahead of the recording: documents wait for the fragment
 * after theirs, and those of the last go when splitmuxsink closes it at
 * the last frame, drained before the close returns. */
TEST(FragmentRouter, DocumentsBeforeTheirFragmentWaitForIt)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.frames(0, 9);
    EXPECT_TRUE(r.out.empty()) << "nothing is known until the next fragment opens";
    r.router.end_of_stream();
    r.fragment("b.jsonl", 5);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4)}));
    EXPECT_EQ(r.router.held(), 5u);
    r.router.closed("b.jsonl", 9 * kSecond);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4), {"open b.jsonl"}, numbers(5, 9), {"drain"}}));
}

/* The detection behind: every fragment is known when its documents come,
 * but the newest's wait for the next (or the end). */
TEST(FragmentRouter, DocumentsAfterTheNextFragmentOpenedGoToTheirOwn)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.fragment("b.jsonl", 5);
    r.fragment("c.jsonl", 10);
    r.router.closed("c.jsonl", 12 * kSecond);
    r.frames(0, 12);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4), {"open b.jsonl"}, numbers(5, 9)}));
    r.router.end_of_stream();
    EXPECT_EQ(
        r.out,
        join({{"open a.jsonl"}, numbers(0, 4), {"open b.jsonl"}, numbers(5, 9), {"open c.jsonl"}, numbers(10, 12)}));
}

/* A fragment closed when splitmuxsink moves on ends where the next
 * starts: after the end of stream, the documents before it go, those
 * after it wait for the next fragment. */
TEST(FragmentRouter, ACloseWhileMovingOnIsNotTheEnd)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.frames(0, 9);
    r.router.end_of_stream();
    r.router.closed("a.jsonl", 5 * kSecond);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4), {"drain"}}));
    r.fragment("b.jsonl", 5);
    EXPECT_EQ(r.router.held(), 5u);
    r.router.closed("b.jsonl", 9 * kSecond);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4), {"drain", "open b.jsonl"}, numbers(5, 9), {"drain"}}));
}

/* A fragment with no document still gets its sidecar, in its turn. */
TEST(FragmentRouter, AFragmentWithoutDocumentsGetsItsSidecar)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.fragment("b.jsonl", 5);
    r.fragment("c.jsonl", 10);
    r.fragment("d.jsonl", 15);
    r.router.route(1 * kSecond, "1");
    r.router.route(12 * kSecond, "12");
    r.router.end_of_stream();
    r.router.closed("d.jsonl", 16 * kSecond);
    EXPECT_EQ(r.out, (std::vector<std::string>{"open a.jsonl", "1", "open b.jsonl", "open c.jsonl", "12",
                                               "open d.jsonl", "drain"}));
}

/* Frames before the first fragment's start are in it. */
TEST(FragmentRouter, FramesBeforeTheFirstStartGoToIt)
{
    Recorder r;
    r.frames(0, 2);
    r.fragment("a.jsonl", 3);
    r.fragment("b.jsonl", 6);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 2)}));
}

/* Without splitmuxsink's messages (an application's bus handler that
 * drops them), a fragment starts at the newest document when it was
 * announced, as known once the next one is. */
TEST(FragmentRouter, WithoutMessagesTheAnnouncementsSplit)
{
    Recorder r;
    r.router.announced("a.jsonl");
    r.frames(0, 4);
    EXPECT_TRUE(r.out.empty());
    r.router.announced("b.jsonl");
    r.frames(5, 7);
    r.router.announced("c.jsonl");
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 3)})) << "b's wait for c's start, known when d is announced";
    r.router.end_of_stream();
    r.router.finish();
    EXPECT_EQ(r.out,
              join({{"open a.jsonl"}, numbers(0, 3), {"open b.jsonl"}, numbers(4, 6), {"open c.jsonl", "7", "drain"}}));
}

/* At most max_held documents wait: the oldest goes to the newest fragment
 * known, in order, none lost. */
TEST(FragmentRouter, AtMostMaxHeldWait)
{
    Recorder r(3);
    r.fragment("a.jsonl", 0);
    r.frames(0, 9);
    EXPECT_EQ(r.router.held(), 3u);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 6)}));
    r.fragment("b.jsonl", 8);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 7)}));
}

/* A sidecar opens once: a frame of an earlier fragment after a later
 * one's sidecar opened (its running time went back) goes to the current
 * one. */
TEST(FragmentRouter, NeverBackToAnEarlierSidecar)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.fragment("b.jsonl", 5);
    r.fragment("c.jsonl", 10);
    r.router.route(6 * kSecond, "6");
    r.router.route(1 * kSecond, "1");
    EXPECT_EQ(r.out, (std::vector<std::string>{"open a.jsonl", "open b.jsonl", "6", "1"}));
}

/* With async-finalize, an older fragment closes after the next opened:
 * not the newest, it ends nothing. */
TEST(FragmentRouter, AnOlderFragmentsCloseEndsNothing)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.frames(0, 6);
    r.router.end_of_stream();
    r.fragment("b.jsonl", 5);
    r.router.closed("a.jsonl", 5 * kSecond);
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 4)}));
    EXPECT_EQ(r.router.held(), 2u);
}

/* A flush: what waits goes where it can, and the stream starts again. */
TEST(FragmentRouter, AFlushReleasesWhatWaits)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.frames(0, 2);
    r.router.release_all();
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 2)}));
    EXPECT_EQ(r.router.held(), 0u);
}

/* The stop without an end of stream (an error): what waits leaves, each
 * to its frame's fragment as far as is known, and is drained, as the
 * segments keep what splitmuxsink wrote of them; after it, nothing more is
 * sent, whatever a late handler calls. */
TEST(FragmentRouter, NothingIsSentAfterTheStop)
{
    Recorder r;
    r.fragment("a.jsonl", 0);
    r.frames(0, 2);
    r.fragment("b.jsonl", 2);
    r.frames(3, 4);
    r.router.finish();
    EXPECT_EQ(r.out, join({{"open a.jsonl"}, numbers(0, 1), {"open b.jsonl"}, numbers(2, 4), {"drain"}}));
    r.out.clear();
    r.fragment("c.jsonl", 5);
    r.router.closed("c.jsonl", 6 * kSecond);
    r.router.route(6 * kSecond, "6");
    r.router.end_of_stream();
    r.router.finish();
    EXPECT_TRUE(r.out.empty());
}
