/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/tracking/tracker.h"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "core/detection/grouping.h"

namespace waldboost::tracking {

namespace {

int64_t area(const Rect& r) { return r.width > 0 && r.height > 0 ? int64_t{r.width} * r.height : 0; }

Rect intersection(const Rect& a, const Rect& b)
{
    const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const int x1 = std::min(a.x + a.width, b.x + b.width), y1 = std::min(a.y + a.height, b.y + b.height);
    return x1 > x0 && y1 > y0 ? Rect{x0, y0, x1 - x0, y1 - y0} : Rect{};
}

/* Samples the track's template at its current box. */
void take_appearance(Track& t, const GrayView& frame)
{
    Rect sampled;
    t.appearance = sample_template(frame, t.box, &sampled);
    t.template_dx = sampled.x - t.box.x;
    t.template_dy = sampled.y - t.box.y;
}

bool visible_enough(const Rect& box, const GrayView& frame, float share)
{
    const int64_t inside = area(intersection(box, Rect{0, 0, frame.width, frame.height}));
    return area(box) > 0 && static_cast<double>(inside) >= share * static_cast<double>(area(box));
}

}  // namespace

Tracker::Tracker(const TrackerConfig& config) : config_(config), next_id_(std::max<int64_t>(1, config.first_id)) {}

std::vector<bool> Tracker::search(const GrayView& frame, const std::vector<size_t>& indexes,
                                  TemplateSearcher& searcher)
{
    std::vector<SearchRequest> requests;
    requests.reserve(indexes.size());
    for (size_t i : indexes) {
        const Track& t = tracks_[i];
        const int side = std::max(t.box.width, t.box.height);
        SearchRequest r;
        r.appearance = &t.appearance;
        r.x = t.box.x + t.vx + t.template_dx;
        r.y = t.box.y + t.vy + t.template_dy;
        r.radius = std::clamp(static_cast<int>(std::lround(config_.search_share * side)), config_.min_radius,
                              std::max(config_.min_radius, config_.max_radius));
        requests.push_back(r);
    }
    const std::vector<SearchResult> results = requests.empty() ? std::vector<SearchResult>{}
                                                                : searcher.search(frame, requests);
    std::vector<bool> left(tracks_.size(), false);
    for (size_t k = 0; k < indexes.size(); ++k) {
        Track& t = tracks_[indexes[k]];
        const SearchResult& r = results[k];
        const uint64_t samples = t.appearance.samples.size();
        if (r.found && uint64_t{r.sad} <= samples * static_cast<uint64_t>(config_.max_mean_difference)) {
            const int x = r.x - t.template_dx, y = r.y - t.template_dy;
            t.vx = x - t.box.x;
            t.vy = y - t.box.y;
            t.box.x = x;
            t.box.y = y;
            t.state = Track::State::Followed;
        } else {
            t.box.x += t.vx;
            t.box.y += t.vy;
            t.state = Track::State::Coasting;
        }
        left[indexes[k]] = !visible_enough(t.box, frame, config_.min_visible_share);
    }
    return left;
}

void Tracker::assign(const GrayView& frame, const std::vector<TrackerInput>& detections,
                     const std::vector<size_t>& candidates, bool searched, std::vector<bool>& track_matched,
                     std::vector<bool>& detection_matched)
{
    /* Greedy assignment: every (track, detection) pair of equal labels with
     * an IoU of at least match_iou, best IoU first (ties: the older track,
     * then the earlier detection), each track and detection taken once.
     * Unlike an optimal (Hungarian) assignment it never trades a pair's
     * overlap for another's, which suits boxes that barely move between
     * frames; crossing objects keep their ids while their boxes overlap
     * each other's less than their own previous ones. */
    std::vector<std::tuple<float, size_t, size_t>> pairs;
    for (size_t i : candidates)
        for (size_t j = 0; j < detections.size(); ++j) {
            if (track_matched[i] || detection_matched[j] || tracks_[i].label != detections[j].label)
                continue;
            const auto iou = static_cast<float>(intersection_over_union(tracks_[i].box, detections[j].box));
            if (iou >= config_.match_iou && iou > 0)
                pairs.emplace_back(iou, i, j);
        }
    std::sort(pairs.begin(), pairs.end(), [](const auto& a, const auto& b) {
        if (std::get<0>(a) != std::get<0>(b))
            return std::get<0>(a) > std::get<0>(b);
        return std::tie(std::get<1>(a), std::get<2>(a)) < std::tie(std::get<1>(b), std::get<2>(b));
    });
    for (const auto& [iou, i, j] : pairs) {
        if (track_matched[i] || detection_matched[j])
            continue;
        track_matched[i] = detection_matched[j] = true;
        Track& t = tracks_[i];
        const TrackerInput& d = detections[j];
        /* The motion since the last frame: from the last box, or after this
         * frame's search, from the box it had before the search moved it. */
        t.vx = (searched ? t.vx : 0) + d.box.x - t.box.x;
        t.vy = (searched ? t.vy : 0) + d.box.y - t.box.y;
        t.box = d.box;
        t.confidence = d.confidence;
        ++t.hits;
        t.since_hit = 0;
        t.state = Track::State::Detected;
        take_appearance(t, frame);
    }
}

void Tracker::merge_duplicates(std::vector<bool>& ending)
{
    using State = Track::State;
    for (size_t i = 0; i < tracks_.size(); ++i)
        for (size_t j = i + 1; j < tracks_.size(); ++j) {
            Track &older = tracks_[i], &younger = tracks_[j];
            if (ending[i] || ending[j] || (older.state == State::Detected && younger.state == State::Detected) ||
                static_cast<float>(intersection_over_union(older.box, younger.box)) < config_.duplicate_iou)
                continue;
            /* The older id goes on, where a detection put either. */
            if (younger.state == State::Detected) {
                older.vx += younger.box.x - older.box.x;
                older.vy += younger.box.y - older.box.y;
                older.box = younger.box;
                older.confidence = younger.confidence;
                older.appearance = std::move(younger.appearance);
                older.template_dx = younger.template_dx;
                older.template_dy = younger.template_dy;
                older.state = State::Detected;
                older.hits += 1;
                older.since_hit = 0;
            }
            ending[j] = true;
        }
}

void Tracker::end_tracks(const std::vector<bool>& ending, std::vector<TrackEvent>& events)
{
    std::vector<Track> kept;
    kept.reserve(tracks_.size());
    for (size_t i = 0; i < tracks_.size(); ++i) {
        if (ending[i])
            events.push_back(TrackEvent{TrackEvent::Kind::Left, tracks_[i].id, tracks_[i].box, tracks_[i].label});
        else
            kept.push_back(std::move(tracks_[i]));
    }
    tracks_ = std::move(kept);
}

std::vector<TrackEvent> Tracker::update(const GrayView& frame, const std::vector<TrackerInput>& detections,
                                        TemplateSearcher& searcher)
{
    for (Track& t : tracks_) {
        ++t.age;
        ++t.since_hit;
    }
    std::vector<bool> track_matched(tracks_.size(), false), detection_matched(detections.size(), false);
    std::vector<size_t> all(tracks_.size());
    for (size_t i = 0; i < tracks_.size(); ++i)
        all[i] = i;
    assign(frame, detections, all, false, track_matched, detection_matched);

    std::vector<size_t> unmatched;
    for (size_t i = 0; i < tracks_.size(); ++i)
        if (!track_matched[i])
            unmatched.push_back(i);
    std::vector<bool> ending = search(frame, unmatched, searcher);
    /* A track the search found where a detection that matched nothing lies
     * (an object that moved further than its box's overlap allows) takes
     * that detection. */
    std::vector<size_t> found;
    for (size_t i : unmatched)
        if (!ending[i] && tracks_[i].state == Track::State::Followed)
            found.push_back(i);
    assign(frame, detections, found, true, track_matched, detection_matched);
    for (size_t i = 0; i < tracks_.size(); ++i)
        if (tracks_[i].since_hit >= config_.lost_after)
            ending[i] = true;
    merge_duplicates(ending);
    std::vector<TrackEvent> events;
    end_tracks(ending, events);

    refused_ = 0;
    for (size_t j = 0; j < detections.size(); ++j) {
        if (detection_matched[j])
            continue;
        if (config_.max_tracks > 0 && tracks_.size() >= config_.max_tracks) {
            ++refused_;
            continue;
        }
        Track t;
        t.id = next_id_++;
        t.box = detections[j].box;
        t.label = detections[j].label;
        t.confidence = detections[j].confidence;
        t.hits = 1;
        take_appearance(t, frame);
        if (t.appearance.empty())
            continue; /* wholly outside the frame: nothing to follow */
        events.push_back(TrackEvent{TrackEvent::Kind::Appeared, t.id, t.box, t.label});
        tracks_.push_back(std::move(t));
    }
    return events;
}

std::vector<TrackEvent> Tracker::follow(const GrayView& frame, TemplateSearcher& searcher)
{
    std::vector<size_t> all(tracks_.size());
    for (size_t i = 0; i < tracks_.size(); ++i) {
        ++tracks_[i].age;
        ++tracks_[i].since_hit;
        all[i] = i;
    }
    std::vector<bool> ending = search(frame, all, searcher);
    merge_duplicates(ending);
    std::vector<TrackEvent> events;
    end_tracks(ending, events);
    return events;
}

std::vector<TrackEvent> Tracker::clear()
{
    std::vector<TrackEvent> events;
    end_tracks(std::vector<bool>(tracks_.size(), true), events);
    return events;
}

}  // namespace waldboost::tracking
