/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "tracking.h"

#include <algorithm>

namespace waldboost_element {

namespace wt = waldboost::tracking;

std::vector<ReportedObject> untracked_objects(const std::vector<waldboost::Detection>& detections)
{
    std::vector<ReportedObject> objects(detections.size());
    for (size_t i = 0; i < detections.size(); ++i) {
        objects[i].detection = detections[i];
        objects[i].id = static_cast<gint>(i);
    }
    return objects;
}

StreamTracker::FallbackSearcher::FallbackSearcher(std::unique_ptr<wt::TemplateSearcher> on_device)
    : device(std::move(on_device))
{
}

std::vector<wt::SearchResult> StreamTracker::FallbackSearcher::search(const waldboost::GrayView& frame,
                                                                      const std::vector<wt::SearchRequest>& requests)
{
    if (device && waldboost::tracking::search_work(frame, requests) > kHostSearchWork) {
        try {
            return device->search(frame, requests);
        } catch (const std::exception& e) {
            failure = e.what();
            device.reset();
        }
    }
    return reference.search(frame, requests);
}

StreamTracker::StreamTracker(const wt::TrackerConfig& config, std::unique_ptr<wt::TemplateSearcher> searcher)
    : tracker_(config), searcher_(std::move(searcher))
{
}

std::vector<waldboost::Rect> StreamTracker::unreported_boxes() const
{
    std::vector<waldboost::Rect> boxes;
    for (const waldboost::tracking::Track& t : tracker_.tracks())
        if (!t.reported())
            boxes.push_back(t.box);
    return boxes;
}

std::vector<OpenTrack> StreamTracker::open_tracks() const
{
    std::vector<OpenTrack> open;
    for (const wt::Track& t : tracker_.tracks())
        if (t.confirmed)
            open.push_back(OpenTrack{static_cast<gint>(t.id & (kFirstPartId - 1)), t.box});
    return open;
}

std::string StreamTracker::take_search_failure()
{
    std::string failure;
    failure.swap(searcher_.failure);
    return failure;
}

std::vector<ReportedObject> StreamTracker::frame(const waldboost::GrayView& luma, bool detected,
                                                 const std::vector<waldboost::Detection>& detections,
                                                 std::vector<wt::TrackEvent>* events)
{
    std::vector<wt::TrackerInput> inputs;
    inputs.reserve(detections.size());
    for (const waldboost::Detection& d : detections)
        inputs.push_back(wt::TrackerInput{d.rect, 0, d.confidence});
    *events = detected ? tracker_.update(luma, inputs) : tracker_.follow(luma, searcher_);

    std::vector<ReportedObject> objects;
    for (const wt::Track& t : tracker_.tracks()) {
        if (!t.reported())
            continue; /* tentative, or not seen on this frame */
        ReportedObject o;
        o.detected = t.state == wt::Track::State::Detected;
        const auto same = std::find_if(detections.begin(), detections.end(), [&](const waldboost::Detection& d) {
            return d.rect == t.box;
        });
        if (o.detected && same != detections.end()) {
            o.detection = *same;
        } else {
            o.detection.rect = t.box;
            o.detection.neighbors = 0; /* no windows: placed by the search */
            o.detection.confidence = t.confidence;
        }
        /* GstVideoRegionOfInterestMeta ids are gint, and the parts' are
         * from kFirstPartId up: a stream would need 2^30 tracks to wrap. */
        o.id = static_cast<gint>(t.id & (kFirstPartId - 1));
        o.tracked = true;
        o.age = t.age;
        o.hits = t.hits;
        objects.push_back(o);
    }
    return objects;
}

std::vector<LostTrack> StreamTracker::stamp(std::vector<ReportedObject>& objects,
                                            const std::vector<wt::TrackEvent>& events, GstClockTime now)
{
    for (ReportedObject& o : objects) {
        if (!o.tracked)
            continue;
        SeenTimes& seen = seen_[o.id];
        if (seen.first == GST_CLOCK_TIME_NONE)
            seen.first = now;
        seen.last = now;
        o.first_seen = seen.first;
    }
    std::vector<LostTrack> lost;
    for (const wt::TrackEvent& e : events) {
        if (e.kind != wt::TrackEvent::Kind::Left)
            continue;
        const gint id = static_cast<gint>(e.id & (kFirstPartId - 1));
        const auto found = seen_.find(id);
        if (found == seen_.end())
            continue; /* never reported: nothing of it was attached */
        lost.push_back(LostTrack{id, found->second.first, found->second.last});
        seen_.erase(found);
    }
    return lost;
}

}  // namespace waldboost_element
