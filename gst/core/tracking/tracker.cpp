/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/tracking/tracker.h"

#include <algorithm>
#include <cmath>

#include "core/detection/grouping.h"
#include "core/tracking/assignment.h"

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
    t.template_width = t.box.width;
    t.template_height = t.box.height;
}

/* A detection placed the track on this frame. */
void place(Track& t, const TrackerInput& d, const GrayView& frame)
{
    t.motion.correct(d.box);
    t.box = d.box; /* the detector's box, not the filtered one */
    t.confidence = d.confidence;
    ++t.hits;
    t.since_hit = 0;
    t.state = Track::State::Detected; /* misses: counted by update() */
    take_appearance(t, frame);
}

/* IoU, or for a tentative track on a confirmed one, the share of the
 * smaller box that the other covers (the detector's second box on one
 * object, at another scale, lies within or around the first). */
float overlap(const Rect& a, const Rect& b, bool covering)
{
    if (!covering)
        return static_cast<float>(intersection_over_union(a, b));
    const int64_t smaller = std::min(area(a), area(b));
    return smaller > 0 ? static_cast<float>(static_cast<double>(area(intersection(a, b))) / smaller) : 0.f;
}

double centre_distance(const Rect& a, const Rect& b)
{
    const double dx = (a.x + a.width / 2.0) - (b.x + b.width / 2.0);
    const double dy = (a.y + a.height / 2.0) - (b.y + b.height / 2.0);
    return std::sqrt(dx * dx + dy * dy);
}

}  // namespace

Tracker::Tracker(const TrackerConfig& config) : config_(config), next_id_(std::max<int64_t>(1, config.first_id))
{
    config_.confirm_hits = std::max(1, config_.confirm_hits);
    config_.confirm_window = std::max(config_.confirm_hits, config_.confirm_window);
}

bool Tracker::visible(const Rect& box, const GrayView& frame) const
{
    const int64_t inside = area(intersection(box, Rect{0, 0, frame.width, frame.height}));
    return area(box) > 0 && static_cast<double>(inside) >= config_.min_visible_share * static_cast<double>(area(box));
}

void Tracker::predict()
{
    for (Track& t : tracks_) {
        ++t.age;
        ++t.since_hit;
        t.motion.predict(t.state == Track::State::Detected || t.state == Track::State::Followed);
        t.box = t.motion.box();
        t.state = Track::State::Coasting;
    }
}

void Tracker::search(const GrayView& frame, const std::vector<size_t>& indexes, TemplateSearcher& searcher)
{
    std::vector<SearchRequest> requests;
    requests.reserve(indexes.size());
    for (size_t i : indexes) {
        const Track& t = tracks_[i];
        const int side = std::max(t.box.width, t.box.height);
        SearchRequest r;
        r.appearance = &t.appearance;
        r.x = t.box.x + t.template_dx;
        r.y = t.box.y + t.template_dy;
        r.radius = std::clamp(static_cast<int>(std::lround(config_.search_share * side)), config_.min_radius,
                              std::max(config_.min_radius, config_.max_radius));
        requests.push_back(r);
    }
    const std::vector<SearchResult> results =
        requests.empty() ? std::vector<SearchResult>{} : searcher.search(frame, requests);
    for (size_t k = 0; k < indexes.size(); ++k) {
        Track& t = tracks_[indexes[k]];
        const SearchResult& r = results[k];
        const uint64_t samples = t.appearance.samples.size();
        if (r.found && samples > 0 && uint64_t{r.sad} <= samples * static_cast<uint64_t>(config_.max_mean_difference)) {
            /* The template's centre, where the predicted box (of the size
             * the object has grown or shrunk to) is centred. */
            const double cx = r.x - t.template_dx + t.template_width / 2.0;
            const double cy = r.y - t.template_dy + t.template_height / 2.0;
            t.motion.correct_centre(cx, cy);
            t.box.x = static_cast<int>(std::lround(cx - t.box.width / 2.0));
            t.box.y = static_cast<int>(std::lround(cy - t.box.height / 2.0));
            t.state = Track::State::Followed;
        }
    }
}

void Tracker::assign(const GrayView& frame, const std::vector<TrackerInput>& detections,
                     const std::vector<size_t>& candidates, bool second, std::vector<bool>& detection_matched)
{
    CostMatrix cost(candidates.size(), detections.size());
    for (size_t r = 0; r < candidates.size(); ++r) {
        const Track& t = tracks_[candidates[r]];
        for (size_t j = 0; j < detections.size(); ++j) {
            const TrackerInput& d = detections[j];
            if (detection_matched[j] || t.label != d.label)
                continue;
            if (!second) {
                const double iou = intersection_over_union(t.box, d.box);
                if (iou >= config_.match_iou && iou > 0)
                    cost.at(r, j) = 1 - iou;
                continue;
            }
            /* By distance: the gate widens while the track is unseen. */
            const double width = std::max(1, t.box.width);
            const double ratio = std::max(1, d.box.width) / width;
            const double distance = centre_distance(t.box, d.box) / width;
            const double gate = config_.reid_gate + config_.reid_growth * t.since_hit;
            if (distance <= gate && ratio <= config_.reid_scale && ratio * config_.reid_scale >= 1)
                cost.at(r, j) = distance;
        }
    }
    const std::vector<int> col_of = assign_optimally(cost);
    for (size_t r = 0; r < candidates.size(); ++r)
        if (col_of[r] >= 0) {
            const auto j = static_cast<size_t>(col_of[r]);
            detection_matched[j] = true;
            place(tracks_[candidates[r]], detections[j], frame);
        }
}

std::vector<Rect> Tracker::reported_detected() const
{
    std::vector<Rect> boxes;
    for (const Track& t : tracks_)
        if (t.reported() && t.state == Track::State::Detected)
            boxes.push_back(t.box);
    return boxes;
}

bool Tracker::covers(const std::vector<Rect>& shown, const Rect& box) const
{
    return std::any_of(shown.begin(), shown.end(), [&](const Rect& s) {
        return overlap(box, s, true) >= config_.duplicate_iou;
    });
}

bool Tracker::settle_pending(Track& t, bool hit, std::vector<TrackEvent>& appeared)
{
    ++t.pending_frames;
    t.pending_hits += hit ? 1 : 0;
    if (t.pending_hits >= config_.confirm_hits) {
        t.pending = false;
        if (!t.confirmed)
            confirm(t, appeared);
        return false;
    }
    if (t.pending_hits + (config_.confirm_window - t.pending_frames) >= config_.confirm_hits)
        return false; /* may still be confirmed in time */
    t.pending = false;
    return !t.confirmed; /* a confirmed one stays lost (unreported) */
}

void Tracker::confirm(Track& t, std::vector<TrackEvent>& events)
{
    t.confirmed = true;
    t.id = next_id_++;
    events.push_back(TrackEvent{TrackEvent::Kind::Appeared, t.id, t.box, t.label});
}

void Tracker::merge_duplicates(std::vector<bool>& ending)
{
    using State = Track::State;
    for (size_t i = 0; i < tracks_.size(); ++i)
        for (size_t j = i + 1; j < tracks_.size(); ++j) {
            if (ending[i] || ending[j])
                continue;
            /* The confirmed one goes on, or the older of two alike. */
            const bool keep_older = tracks_[i].confirmed || !tracks_[j].confirmed;
            Track &kept = keep_older ? tracks_[i] : tracks_[j], &dropped = keep_older ? tracks_[j] : tracks_[i];
            /* Only boxes placed on this frame (by a detection or the
             * search), not both by detections (which the detector says are
             * two objects): a predicted box on another object is a hidden
             * object passing behind it, not the same one. */
            const auto placed = [](const Track& t) {
                return t.state == State::Detected || t.state == State::Followed;
            };
            if (kept.label != dropped.label || !placed(kept) || !placed(dropped) ||
                (kept.state == State::Detected && dropped.state == State::Detected) ||
                overlap(kept.box, dropped.box, !dropped.confirmed) < config_.duplicate_iou)
                continue;
            if (dropped.state == State::Detected) {
                kept.motion.correct(dropped.box);
                kept.box = dropped.box;
                kept.confidence = dropped.confidence;
                kept.appearance = std::move(dropped.appearance);
                kept.template_dx = dropped.template_dx;
                kept.template_dy = dropped.template_dy;
                kept.template_width = dropped.template_width;
                kept.template_height = dropped.template_height;
                kept.state = State::Detected;
                kept.hits += 1;
                kept.since_hit = 0;
                kept.misses = 0;
            }
            ending[keep_older ? j : i] = true;
        }
}

void Tracker::end_tracks(const std::vector<bool>& ending, std::vector<TrackEvent>& events)
{
    std::vector<Track> kept;
    kept.reserve(tracks_.size());
    for (size_t i = 0; i < tracks_.size(); ++i) {
        if (!ending[i])
            kept.push_back(std::move(tracks_[i]));
        else if (tracks_[i].confirmed)
            events.push_back(TrackEvent{TrackEvent::Kind::Left, tracks_[i].id, tracks_[i].box, tracks_[i].label});
    }
    tracks_ = std::move(kept);
}

std::vector<TrackEvent> Tracker::update(const GrayView& frame, const std::vector<TrackerInput>& detections)
{
    predict();
    std::vector<bool> detection_matched(detections.size(), false);
    /* The confirmed tracks first, by overlap; those left over (hidden,
     * missed, faster than their box) by distance; then the tentative ones
     * the same way, which never take a detection from a confirmed track. */
    const auto tracks_where = [&](auto&& wanted) {
        std::vector<size_t> indexes;
        for (size_t i = 0; i < tracks_.size(); ++i)
            if (wanted(tracks_[i]))
                indexes.push_back(i);
        return indexes;
    };
    /* By overlap only the tracks the last frame with detection saw: the
     * predicted box of one hidden since then may lie on the object in front
     * of it, and the overlap round, which pairs as many as it can, would
     * give it that object's detection (issue 55, item 14). */
    assign(frame, detections, tracks_where([](const Track& t) {
               return t.confirmed && t.misses == 0;
           }),
           false, detection_matched);
    assign(frame, detections, tracks_where([](const Track& t) {
               return t.confirmed && t.state != Track::State::Detected;
           }),
           true, detection_matched);
    assign(frame, detections, tracks_where([](const Track& t) {
               return !t.confirmed;
           }),
           false, detection_matched);
    /* A tentative track has no velocity yet: an object faster than its
     * box's overlap allows is found by distance, or it would never be
     * confirmed. */
    assign(frame, detections, tracks_where([](const Track& t) {
               return !t.confirmed && t.state != Track::State::Detected;
           }),
           true, detection_matched);

    std::vector<bool> ending(tracks_.size(), false);
    for (size_t i = 0; i < tracks_.size(); ++i) {
        Track& t = tracks_[i];
        const bool hit = t.state == Track::State::Detected;
        if (hit && t.confirmed && !t.pending && t.misses > config_.report_misses && config_.confirm_hits > 1) {
            /* Found again after it was lost: confirmed again first. */
            t.pending = true;
            t.pending_hits = t.pending_frames = 0;
        }
        if (hit) {
            t.misses = 0;
        } else {
            ++t.misses;
            if (t.confirmed && !t.pending && t.misses <= config_.report_misses)
                t.state = Track::State::Predicted;
        }
        if (t.since_hit >= config_.lost_after || !visible(t.box, frame))
            ending[i] = true;
    }
    merge_duplicates(ending);
    std::vector<TrackEvent> events, appeared;
    /* A new track's hits on the box of one reported before do not count. */
    const std::vector<Rect> shown = reported_detected();
    for (size_t i = 0; i < tracks_.size(); ++i) {
        Track& t = tracks_[i];
        if (ending[i] || !t.pending)
            continue;
        const bool hit = t.state == Track::State::Detected;
        if (settle_pending(t, hit && (t.confirmed || !covers(shown, t.box)), appeared))
            ending[i] = true;
    }
    end_tracks(ending, events);

    refused_.clear();
    for (size_t j = 0; j < detections.size(); ++j) {
        if (detection_matched[j])
            continue;
        if (config_.max_tracks > 0 && tracks_.size() >= config_.max_tracks) {
            refused_.push_back(detections[j].box);
            continue;
        }
        Track t;
        t.box = detections[j].box;
        t.label = detections[j].label;
        t.confidence = detections[j].confidence;
        t.hits = 1;
        t.motion = BoxMotion(t.box, config_.motion);
        take_appearance(t, frame);
        if (t.appearance.empty())
            continue; /* wholly outside the frame: nothing to follow */
        if (config_.confirm_hits <= 1) {
            confirm(t, appeared);
        } else {
            t.pending = true;
            t.pending_hits = covers(shown, t.box) ? 0 : 1;
            t.pending_frames = 1;
        }
        tracks_.push_back(std::move(t));
    }
    events.insert(events.end(), appeared.begin(), appeared.end());
    return events;
}

std::vector<TrackEvent> Tracker::follow(const GrayView& frame, TemplateSearcher& searcher)
{
    predict();
    /* Only what the last detection saw is searched for: a track missed
     * there (hidden, gone) would stick to the occluder or the background. */
    std::vector<size_t> seen;
    for (size_t i = 0; i < tracks_.size(); ++i)
        if (tracks_[i].misses == 0)
            seen.push_back(i);
    search(frame, seen, searcher);
    std::vector<bool> ending(tracks_.size(), false);
    for (size_t i = 0; i < tracks_.size(); ++i)
        ending[i] = !visible(tracks_[i].box, frame);
    merge_duplicates(ending);
    std::vector<TrackEvent> events;
    end_tracks(ending, events);
    return events;
}

void Tracker::rescale(const GrayView& frame, double sx, double sy)
{
    if (!(sx > 0) || !(sy > 0))
        return;
    const auto scaled = [](int v, double s) {
        return static_cast<int>(std::lround(v * s));
    };
    for (Track& t : tracks_) {
        t.box = Rect{scaled(t.box.x, sx), scaled(t.box.y, sy), std::max(1, scaled(t.box.width, sx)),
                     std::max(1, scaled(t.box.height, sy))};
        t.motion.rescale(sx, sy);
        take_appearance(t, frame);
    }
}

std::vector<TrackEvent> Tracker::clear()
{
    std::vector<TrackEvent> events;
    end_tracks(std::vector<bool>(tracks_.size(), true), events);
    return events;
}

}  // namespace waldboost::tracking
