/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * PublishWorker, the publisher's bounded queue, with an output that takes
 * nothing until the test lets it: what a full queue drops, what it never
 * drops (a sidecar's switch), and what the counts say meanwhile.
 */
#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "publish_worker.h"

using waldboost_publish::Document;
using waldboost_publish::Output;
using waldboost_publish::PublishWorker;

namespace {

/* Records what it is given ("open NAME" for a sidecar's switch), once the
 * test opens it. */
class GatedOutput : public Output {
public:
    std::atomic<bool> open{false};
    std::mutex lock;
    std::vector<std::string> got;
    std::atomic<guint64> delivered{0};

    bool service(int) override { return false; }
    bool ready() override { return open; }
    bool deliver(const Document& d) override
    {
        std::lock_guard<std::mutex> guard(lock);
        if (d.rotate_to.empty()) {
            got.push_back(d.payload);
            ++delivered;
        } else {
            got.push_back("open " + d.rotate_to);
        }
        return true;
    }
    size_t in_flight() override { return 0; }
    guint64 confirmed() override { return delivered; }
    int round_ms() override { return 5; }
};

Document document(const std::string& payload) { return Document{{}, payload, {}}; }
Document switch_to(const std::string& sidecar) { return Document{{}, {}, sidecar}; }

TEST(PublishWorker, AFullQueueDropsDocumentsButNeverASidecarsSwitch)
{
    auto owned = std::make_unique<GatedOutput>();
    GatedOutput* output = owned.get();
    std::vector<guint64> drops;
    PublishWorker worker(std::move(owned), 4, [&drops](guint64 n) {
        drops.push_back(n);
    });
    worker.push(switch_to("a.jsonl"));
    for (const char* p : {"1", "2", "3", "4", "5"})
        worker.push(document(p));
    /* The queue is full: "5" was dropped; the switch is still taken, and so
     * the documents after it cannot go to the sidecar before. */
    worker.push(switch_to("b.jsonl"));
    worker.push(document("6"));

    PublishWorker::Counts c = worker.counts();
    EXPECT_EQ(c.documents, 6u) << "a sidecar's switch is no document";
    EXPECT_EQ(c.dropped, 2u);
    EXPECT_EQ(c.queued, 4u) << "the switches are not counted as queued";
    EXPECT_EQ(drops, std::vector<guint64>({1}));

    output->open = true;
    EXPECT_EQ(worker.drain(5000), 0u);
    c = worker.counts();
    EXPECT_EQ(c.published, 4u);
    EXPECT_EQ(c.queued, 0u);
    EXPECT_EQ(c.published + c.dropped, c.documents);
    std::lock_guard<std::mutex> guard(output->lock);
    EXPECT_EQ(output->got, std::vector<std::string>({"open a.jsonl", "1", "2", "3", "4", "open b.jsonl"}));
}

TEST(PublishWorker, SwitchesDoNotTakeTheDocumentsPlaces)
{
    auto owned = std::make_unique<GatedOutput>();
    GatedOutput* output = owned.get();
    PublishWorker worker(std::move(owned), 3, nullptr);
    worker.push(document("1"));
    worker.push(switch_to("b.jsonl"));
    worker.push(document("2"));
    worker.push(switch_to("c.jsonl"));
    worker.push(document("3"));
    EXPECT_EQ(worker.counts().dropped, 0u);
    output->open = true;
    EXPECT_EQ(worker.drain(5000), 0u);
    std::lock_guard<std::mutex> guard(output->lock);
    EXPECT_EQ(output->got, std::vector<std::string>({"1", "open b.jsonl", "2", "open c.jsonl", "3"}));
}

}  // namespace
