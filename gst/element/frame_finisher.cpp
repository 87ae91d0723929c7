/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "frame_finisher.h"

#include <algorithm>
#include <cmath>

#include "core/opencl/search/template_search.h"
#include "core/parts/nested.h"
#include "core/text.h"
#include "debug.h"
#include "frame_bounds.h"
#include "privacy.h"

namespace waldboost_element {

namespace wcl = waldboost::opencl;
using waldboost::Detection;

guint next_detector_number()
{
    static std::atomic<guint> made{0};
    return ++made;
}

void FrameFinisher::reset()
{
    /* Named by now: an element in a bin cannot be renamed. */
    gchar* name = gst_object_get_name(GST_OBJECT(element_));
    name_ = name ? name : "";
    g_free(name);
    tracker_.reset(); /* a new stream: nothing of the last one is reported */
    followed_parts_.clear();
    snapshots_.clear();
    last_settings_.reset();
    updates_.reset();
    max_windows_warned_ = false;
    tracks_warned_ = false;
    parts_warned_ = false;
    tags_warned_ = false;
    analytics_warned_ = false;
    regions_warned_ = false;
    events_warned_ = false;
    snapshots_warned_ = false;
    privacy_warned_ = false;
    privacy_labels_warned_.clear();
    label_colors_warned_.clear();
    parts_given_ = 0;
    next_track_id_ = 1;
    tracker_reset_ = true;
    tracked_width_ = tracked_height_ = 0;
    closed_.clear();
    closed_lost_.clear();
}

/* Runs the tracker on a frame, in frame order; returns the objects to
 * report, and in `untracked` the boxes of the detections the tracker did
 * not take (past the bounds of frame_bounds.h). A frame that cannot be read
 * leaves the tracker as it is. */
std::vector<ReportedObject> FrameFinisher::track(const PendingFrame& pending, FrameAccess& frame,
                                                 const GstVideoInfo& info, const std::vector<Detection>& detections,
                                                 std::vector<waldboost::tracking::TrackEvent>* events,
                                                 const std::shared_ptr<wcl::Engine>& engine,
                                                 std::vector<waldboost::Rect>* untracked)
{
    untracked->clear();
    GstElement* self = GST_ELEMENT(element_);
    waldboost::tracking::TrackerConfig config;
    config.lost_after = pending.settings->detection.lost_after;
    config.confirm_hits = pending.settings->detection.confirm_hits;
    config.confirm_window = std::max(config.confirm_hits, pending.settings->detection.confirm_window);
    config.max_tracks = kMaxTracks;
    const auto changed = [&](const waldboost::tracking::TrackerConfig& now) {
        return now.lost_after != config.lost_after || now.confirm_hits != config.confirm_hits ||
               now.confirm_window != config.confirm_window;
    };
    /* New caps of another size (the frames before have all left). With the
     * same display aspect (within 2%: 854x480 beside 1280x720) it is the
     * same scene scaled, a camera or an adaptive stream changing its
     * resolution: the tracks keep their ids and scale, below, rather than
     * ending at boxes in the old frame's coordinates. Another aspect is
     * another picture (rotated by videoflip, another source): its tracks
     * end, as at a seek. */
    const int width = GST_VIDEO_INFO_WIDTH(&info), height = GST_VIDEO_INFO_HEIGHT(&info);
    const double aspect = static_cast<double>(width) * std::max(1, GST_VIDEO_INFO_PAR_N(&info)) /
                          (static_cast<double>(std::max(1, height)) * std::max(1, GST_VIDEO_INFO_PAR_D(&info)));
    const bool new_size = tracked_width_ > 0 && (width != tracked_width_ || height != tracked_height_);
    if (new_size && std::abs(aspect / tracked_aspect_ - 1) > 0.02) {
        tracker_reset_ = true;
        tracked_width_ = 0;
    }
    /* A track has one class for its life: a new label or class id (a
     * classifier of another label, `label` set while playing) ends the
     * tracks, as a seek does, and their `left` events keep the old label. */
    if (last_settings_ && (last_settings_->output.label != pending.settings->output.label ||
                           last_settings_->output.label_id != pending.settings->output.label_id))
        tracker_reset_ = true;
    if (tracker_reset_.exchange(false) || !tracker_ || changed(tracker_->config())) {
        close_tracks(); /* every track that appeared also leaves */
        config.first_id = next_track_id_;
        /* The search runs on the engine's device, in its context. */
        std::unique_ptr<waldboost::tracking::TemplateSearcher> searcher;
        try {
            if (engine)
                searcher = std::make_unique<wcl::OpenClSearcher>(engine->shared_device());
        } catch (const std::exception& e) {
            GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                                ("Tracking searches on the CPU: the OpenCL device could not run the template search."),
                                ("%s", e.what()));
        }
        tracker_ = std::make_unique<StreamTracker>(config, std::move(searcher));
    }
    const waldboost::GrayView* luma = frame.luma();
    if (!luma)
        return untracked_objects(detections);
    if (tracked_width_ > 0 && (width != tracked_width_ || height != tracked_height_))
        tracker_->rescale(*luma, static_cast<double>(width) / tracked_width_,
                          static_cast<double>(height) / tracked_height_);
    tracked_width_ = width;
    tracked_height_ = height;
    tracked_aspect_ = aspect;
    /* Matching costs tracks x detections: the tracker takes the first
     * kMaxTracks detections and keeps at most kMaxTracks tracks. */
    std::vector<ReportedObject> objects;
    if (detections.size() > kMaxTracks) {
        const std::vector<Detection> first(detections.begin(), detections.begin() + kMaxTracks);
        objects = tracker_->frame(*luma, pending.detect, first, events);
        for (size_t i = kMaxTracks; i < detections.size(); ++i)
            untracked->push_back(detections[i].rect);
    } else {
        objects = tracker_->frame(*luma, pending.detect, detections, events);
    }
    const std::vector<waldboost::Rect>& refused = tracker_->refused();
    untracked->insert(untracked->end(), refused.begin(), refused.end());
    const std::string failure = tracker_->take_search_failure();
    if (!failure.empty())
        GST_ELEMENT_WARNING(self, RESOURCE, FAILED,
                            ("Tracking searches on the CPU from now on: the template search failed on the OpenCL "
                             "device."),
                            ("frame %" G_GUINT64_FORMAT ": %s", pending.frame, failure.c_str()));
    return objects;
}

/* With inference-region=roi-list: the engine searched inside the first
 * kMaxRegionSearches upstream regions, each as a frame of its own (what the
 * classifier finds there, grouped there), all in one submission. The
 * region each detection was found in goes to `parents`; regions past
 * the bound (or past what the device's indices hold together) are said on
 * the bus once per stream. */
void FrameFinisher::region_parents(const PendingFrame& pending, const waldboost::opencl::FrameResult* result,
                                   std::vector<UpstreamRegion>* parents)
{
    if (!result)
        return; /* not searched: unreadable (said when it came), or no region */
    for (int area : result->detection_areas)
        parents->push_back(pending.regions[static_cast<size_t>(area)]);
    const size_t searched = result->areas_searched;
    if (searched < pending.regions.size() && !regions_warned_) {
        regions_warned_ = true;
        /* On the bus, as the other bounds: what is not searched is neither
         * reported nor hidden by privacy. */
        GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                            ("inference-region=roi-list searches at most %zu upstream regions per frame: in frame "
                             "%" G_GUINT64_FORMAT ", %zu of %zu were not searched, and nothing inside them is "
                             "reported or hidden. region-labels can name fewer of them, or a stricter upstream "
                             "detector gives fewer. Said once per stream.",
                             kMaxRegionSearches, pending.frame, pending.regions.size() - searched,
                             pending.regions.size()),
                            ("frame %" G_GUINT64_FORMAT ": the first %zu of %zu upstream regions searched (at most "
                             "%zu, and no more than the engine's 32-bit indices hold together)",
                             pending.frame, searched, pending.regions.size(), kMaxRegionSearches));
    }
}

/* The parts the nested cascades find inside the objects, on the CPU (see
 * nested_cascades.h). */
std::vector<FoundPart> FrameFinisher::find_nested_parts(const PendingFrame& pending, FrameAccess& frame,
                                                        const std::vector<ReportedObject>& objects, bool* cut)
{
    *cut = false;
    const FrameSettings& fs = *pending.settings;
    if (!fs.nested || objects.empty())
        return {};
    const waldboost::GrayView* luma = frame.luma();
    if (!luma) {
        /* The frame was read a moment ago, so this does not happen. */
        GST_WARNING_OBJECT(element_, "frame %" G_GUINT64_FORMAT ": not searched for parts: %s", pending.frame,
                           frame.why().c_str());
        return {};
    }
    /* A search per object: the first kMaxPartSearches objects, up to
     * kMaxParts parts. */
    std::vector<Detection> detections;
    const size_t searched = std::min(objects.size(), kMaxPartSearches);
    detections.reserve(searched);
    for (size_t i = 0; i < searched; ++i)
        detections.push_back(objects[i].detection);
    std::vector<FoundPart> parts = find_parts(*fs.nested, fs.nested_params, *luma, detections,
                                              fs.detection.parts == GST_WALDBOOST_PARTS_FIRST, kMaxParts, cut);
    *cut = *cut || searched < objects.size();
    return parts;
}

/* The parts of a frame's objects, with their ids. Searched on detection
 * frames; with tracking, a frame without detection (interval) carries each
 * track's parts of its last detection frame along with the track's box,
 * with their ids, instead of searching on the CPU again (issue: at
 * interval=3 the parts cost more than the detections saved). Ids: after
 * the objects' without tracking (ids are per frame then); with tracking,
 * stream-wide from kFirstPartId, apart from every track id. */
std::vector<FoundPart> FrameFinisher::parts_of_frame(const PendingFrame& pending, FrameAccess& frame,
                                                     const std::vector<ReportedObject>& objects, bool* cut)
{
    *cut = false;
    const bool tracking = pending.settings->detection.tracking;
    if (!tracking)
        followed_parts_.clear();
    std::vector<FoundPart> parts;
    if (tracking && !pending.detect && pending.settings->nested) {
        for (size_t i = 0; i < objects.size(); ++i) {
            const auto kept = followed_parts_.find(objects[i].id);
            if (kept == followed_parts_.end())
                continue;
            const waldboost::Rect& box = objects[i].detection.rect;
            for (const FollowedPart& p : kept->second) {
                FoundPart f{i, p.part, p.detection, p.id};
                f.detection.rect = {box.x + static_cast<int>(std::lround(p.x * box.width)),
                                    box.y + static_cast<int>(std::lround(p.y * box.height)),
                                    std::max(1, static_cast<int>(std::lround(p.width * box.width))),
                                    std::max(1, static_cast<int>(std::lround(p.height * box.height)))};
                parts.push_back(f);
            }
        }
        return parts;
    }
    parts = find_nested_parts(pending, frame, objects, cut);
    gint next_id = 0;
    for (const ReportedObject& o : objects)
        next_id = std::max(next_id, o.id + 1);
    for (FoundPart& f : parts)
        f.id = tracking ? kFirstPartId + static_cast<gint>(parts_given_++ % kFirstPartId) : next_id++;
    if (tracking) {
        followed_parts_.clear();
        for (const FoundPart& f : parts) {
            const waldboost::Rect &box = objects[f.parent].detection.rect, &r = f.detection.rect;
            const double w = std::max(1, box.width), h = std::max(1, box.height);
            followed_parts_[objects[f.parent].id].push_back(
                {f.part, f.detection, (r.x - box.x) / w, (r.y - box.y) / h, r.width / w, r.height / h, f.id});
        }
    }
    return parts;
}

/* Once per stream: events come from tracks, so without tracking
 * updates=events would post nothing, and say nothing. */
void FrameFinisher::warn_events_without_tracking(const FrameSettings& fs)
{
    if (events_warned_ || fs.detection.tracking || !fs.output.post_messages ||
        fs.output.updates != GST_WALDBOOST_UPDATES_EVENTS)
        return;
    events_warned_ = true;
    GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                        ("updates=events posts the appeared and left events of tracks, and tracking is off, so no "
                         "message is posted. Set tracking=true, or updates=every-frame (or on-change, "
                         "on-object) for the per-frame messages. Said once per stream."),
                        ("updates=events with tracking=false"));
}

/* Once per stream, as for updates=events: snapshots are per track. */
void FrameFinisher::warn_snapshots_without_tracking(const FrameSettings& fs)
{
    if (snapshots_warned_ || fs.detection.tracking || !takes_snapshots(fs.output))
        return;
    snapshots_warned_ = true;
    GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                        ("snapshot-folder and snapshot-message take one snapshot per track, and tracking is off, "
                         "so none is taken. Set tracking=true. Said once per stream."),
                        ("snapshots with tracking=false"));
}

/* Once per stream: without tracking the frames between searches report
 * nothing, so privacy leaves what it should hide on them (two frames of
 * three at interval=3), and a recording shows the faces without a word. */
void FrameFinisher::warn_privacy_between_searches(const FrameSettings& fs)
{
    if (privacy_warned_ || fs.detection.tracking || fs.detection.interval <= 1 ||
        fs.output.privacy == GST_WALDBOOST_PRIVACY_NONE)
        return;
    privacy_warned_ = true;
    const char* mode = fs.output.privacy == GST_WALDBOOST_PRIVACY_BLUR ? "blur" : "pixelate";
    GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                        ("privacy=%s hides what is detected, and with interval=%d and tracking off one frame in "
                         "%d is searched: the objects on the frames between are not hidden. Set tracking=true, so "
                         "that those frames hide the tracked objects, or interval=1. Said once per stream.",
                         mode, fs.detection.interval, fs.detection.interval),
                        ("privacy=%s, interval=%d, tracking=false", mode, fs.detection.interval));
}

/* A label named in privacy-labels or label-colors that none of this
 * element's objects carries does nothing, without a word: a recording
 * shows what was meant to be hidden ("eyes" for the eye cascade, whose
 * label is "eye"), or a colour is never used. Said again when the unknown
 * names change. */
void FrameFinisher::warn_unknown_labels(const FrameSettings& fs)
{
    const OutputSettings& s = fs.output;
    std::vector<std::string> labels{s.label};
    if (fs.nested)
        for (size_t part = 0; part < kNestedParts.size(); ++part)
            if (fs.nested->classifiers[part])
                labels.push_back(part_label(*fs.nested, part));
    auto quoted = [](const std::string& text) {
        return "\"" + waldboost::printable(text) + "\"";
    };
    auto check = [&](const char* property, const std::vector<std::string>& names, const char* effect,
                     std::string* warned) {
        std::string unknown;
        for (const std::string& name : names)
            if (std::find(labels.begin(), labels.end(), name) == labels.end())
                unknown += (unknown.empty() ? "" : ", ") + quoted(name);
        if (unknown == *warned)
            return;
        *warned = unknown;
        if (unknown.empty())
            return;
        std::string known;
        for (const std::string& label : labels)
            known += (known.empty() ? "" : ", ") + quoted(label);
        GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                            ("%s names %s, which none of this element's objects carries, so %s. %s %s (%s).", property,
                             unknown.c_str(), effect, labels.size() == 1 ? "Its label is" : "Its labels are",
                             known.c_str(),
                             labels.size() == 1 ? "the detector's" : "the detector's, then its nested cascades'"),
                            ("%s names %s", property, unknown.c_str()));
    };
    if (s.privacy != GST_WALDBOOST_PRIVACY_NONE)
        check("privacy-labels", s.privacy_labels, "nothing is hidden by that name", &privacy_labels_warned_);
    std::vector<std::string> coloured;
    for (const auto& named : s.label_colors)
        coloured.push_back(named.first);
    check("label-colors", coloured, "that colour is never used", &label_colors_warned_);
}

void FrameFinisher::close_tracks()
{
    followed_parts_.clear();
    if (!tracker_) {
        snapshots_.clear();
        return;
    }
    FrameReport report;
    next_track_id_ = tracker_->next_id();
    report.events = tracker_->clear();
    std::vector<ReportedObject> none;
    const std::vector<LostTrack> lost = tracker_->stamp(none, report.events, GST_CLOCK_TIME_NONE);
    tracker_.reset();
    closed_.insert(closed_.end(), report.events.begin(), report.events.end());
    closed_lost_.insert(closed_lost_.end(), lost.begin(), lost.end());
    if (!last_settings_) {
        snapshots_.clear();
        return;
    }
    closed_label_ = last_settings_->output.label;
    report.frame = last_frame_;
    report.label = last_settings_->output.label;
    report.label_id = last_settings_->output.label_id;
    report.detector_name = name_;
    if (takes_snapshots(last_settings_->output))
        snapshots_.deliver(GST_ELEMENT(element_), report.events, report, last_settings_->output);
    snapshots_.clear();
    post_events_message(element_, report, last_settings_->output, last_times_);
}

/* Once per stream: a classifier this permissive cuts nearly every frame,
 * and one warning per frame would flood the bus. The count of every frame
 * is in its message and in the stats. */
void FrameFinisher::warn_windows_cut(const PendingFrame& pending, guint64 windows_cut)
{
    if (windows_cut == 0 || max_windows_warned_)
        return;
    max_windows_warned_ = true;
    const int max_windows = pending.settings->params.max_windows;
    /* The windows left out never reach privacy: what they would have found
     * goes out unhidden, which a privacy user must hear. */
    const GstWaldboostPrivacy privacy = pending.settings->output.privacy;
    const char* unhidden = privacy == GST_WALDBOOST_PRIVACY_NONE ? ""
                           : privacy == GST_WALDBOOST_PRIVACY_BLUR
                               ? ", and privacy=blur does not hide what they would have found"
                               : ", and privacy=pixelate does not hide what they would have found";
    GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                        ("The classifier accepted more windows than max-windows=%d in frame %" G_GUINT64_FORMAT
                         ": %" G_GUINT64_FORMAT " were left out, so detections may be missing%s. A stricter "
                         "classifier, a higher threshold or a larger min-size keeps fewer windows; a larger "
                         "max-windows (0 = no limit) keeps them all. Said once per stream.",
                         max_windows, pending.frame, windows_cut, unhidden),
                        ("frame %" G_GUINT64_FORMAT ": %" G_GUINT64_FORMAT " accepted windows past the first %d "
                         "in scan order were left out before grouping; the \"waldboostdetect\" messages' "
                         "windows-cut field and the stats' windows-cut count every frame",
                         pending.frame, windows_cut, max_windows));
}

/* Once per stream each, as for max-windows: a frame that reaches one of
 * the bounds of frame_bounds.h. */
void FrameFinisher::warn_caps(const PendingFrame& pending, size_t untracked, size_t objects, bool parts_cut,
                              size_t tags_cut, size_t analytics_cut)
{
    if (untracked > 0 && !tracks_warned_) {
        tracks_warned_ = true;
        GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                            ("Tracking follows at most %zu objects: in frame %" G_GUINT64_FORMAT ", %zu detections "
                             "were left untracked and are not reported (privacy still hides them). A stricter "
                             "classifier, a higher threshold, a larger min-size or grouping=opencv keeps fewer "
                             "detections; tracking=false reports them all. Said once per stream.",
                             kMaxTracks, pending.frame, untracked),
                            ("frame %" G_GUINT64_FORMAT ": the tracker takes the first %zu detections and keeps at "
                             "most %zu tracks (a fixed bound: matching costs tracks x detections)",
                             pending.frame, kMaxTracks, kMaxTracks));
    }
    if (parts_cut && !parts_warned_) {
        parts_warned_ = true;
        GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                            ("Parts (eyes-profile, nose-profile, mouth-profile) are searched in at most %zu objects "
                             "and at most %zu are kept per frame: frame %" G_GUINT64_FORMAT " had %zu objects, and "
                             "some parts are missing. A stricter classifier, a larger min-size or grouping=opencv "
                             "gives fewer objects; a stricter part cascade fewer parts. Said once per stream.",
                             kMaxPartSearches, kMaxParts, pending.frame, objects),
                            ("frame %" G_GUINT64_FORMAT ": parts searched in the first %zu objects, up to %zu parts "
                             "(fixed bounds: a search per object)",
                             pending.frame, kMaxPartSearches, kMaxParts));
    }
    if (tags_cut > 0 && !tags_warned_) {
        tags_warned_ = true;
        GST_ELEMENT_WARNING(element_, RESOURCE, SETTINGS,
                            ("box-text puts a tag on at most %zu boxes per frame: in frame %" G_GUINT64_FORMAT
                             ", %zu boxes have no tag (their outlines are drawn). Fewer detections (a stricter "
                             "classifier, grouping=opencv) or box-text= (none) avoid this. Said once per stream.",
                             kMaxTextTags, pending.frame, tags_cut),
                            ("frame %" G_GUINT64_FORMAT ": the first %zu boxes (objects, then parts) get a tag (a "
                             "fixed bound: a tag costs a Pango layout)",
                             pending.frame, kMaxTextTags));
    }
    if (analytics_cut > 0 && !analytics_warned_) {
        /* In the log only: the crowds that reach it (a classifier that
         * accepts nearly every window) already post the max-windows or the
         * tracks warning, which say what to change. */
        analytics_warned_ = true;
        GST_WARNING_OBJECT(element_,
                           "frame %" G_GUINT64_FORMAT ": the GstAnalytics metadata carries the first %zu objects "
                           "(with their parts); %zu more are only in the region-of-interest metas and the messages "
                           "(a fixed bound: a GstAnalyticsRelationMeta's relation matrix grows with the square of "
                           "its Mtds). Said once per stream.",
                           pending.frame, kMaxAnalyticsObjects, analytics_cut);
    }
}

GstBuffer* FrameFinisher::finish(PendingFrame& pending, const wcl::FrameResult* result, const GstVideoInfo& info,
                                 const std::shared_ptr<wcl::Engine>& engine)
{
    const gint64 started = thread_cpu_ns();
    const FrameSettings& fs = *pending.settings;
    const OutputSettings& s = fs.output;
    std::vector<Detection> detections;
    if (result) {
        detections = result->detections;
        /* From the searched region's coordinates to the visible frame's. */
        for (Detection& d : detections) {
            d.rect.x += pending.roi.x - pending.visible.x;
            d.rect.y += pending.roi.y - pending.visible.y;
        }
    }
    GstBuffer* buffer = gst_buffer_make_writable(pending.buffer);
    pending.buffer = nullptr;
    const bool searched_regions = fs.search_regions && pending.detect;

    std::vector<waldboost::Rect> untracked;
    bool parts_cut = false;
    FrameReport report;
    report.frame = pending.frame;
    report.detection_skipped = !pending.detect || pending.unreadable;
    report.label = s.label;
    report.detector = detector_;
    report.detector_name = name_;
    report.label_id = s.label_id;
    report.nested = fs.nested.get();
    report.windows_cut = result ? result->stats.cut : 0;
    report.visible = pending.visible;
    report.running_time = message_times(element_, buffer).running_time;
    {
        /* One map of the frame for the tracker, the parts and burning;
         * unmapped before metas go on the buffer (a mapped frame holds a
         * reference, which makes the buffer read-only). */
        FrameAccess frame(buffer, info, pending.draw == DrawMode::Burn || hides_objects(s), pending.visible);
        std::vector<UpstreamRegion> parents;
        if (searched_regions)
            region_parents(pending, result, &parents);
        if (fs.detection.tracking) {
            report.objects = track(pending, frame, info, detections, &report.events, engine, &untracked);
            if (hides_objects(s) && tracker_) {
                report.unreported = tracker_->unreported_boxes();
                report.unreported.insert(report.unreported.end(), untracked.begin(), untracked.end());
            }
            /* A track matched to a detection of this frame keeps its region. */
            for (ReportedObject& o : report.objects)
                for (size_t i = 0; i < parents.size() && o.detected; ++i)
                    if (o.detection.rect == detections[i].rect) {
                        o.parent_id = parents[i].id;
                        o.parent_od_id = parents[i].od_id;
                        break;
                    }
            report.lost = tracker_->stamp(report.objects, report.events, report.running_time);
            report.tracking = true;
            report.open = tracker_->open_tracks();
        } else {
            close_tracks();
            report.objects = untracked_objects(detections);
            for (size_t i = 0; i < parents.size(); ++i) {
                report.objects[i].parent_id = parents[i].id;
                report.objects[i].parent_od_id = parents[i].od_id;
            }
        }
        report.closed.swap(closed_);
        report.closed_label = closed_label_;
        closed_.clear();
        report.lost.insert(report.lost.begin(), closed_lost_.begin(), closed_lost_.end());
        closed_lost_.clear();
        report.parts = parts_of_frame(pending, frame, report.objects, &parts_cut);
        /* The views are taken from the frame as it arrived. */
        if (fs.detection.tracking && takes_snapshots(s))
            snapshots_.offer(GST_ELEMENT(element_), frame, report, info, GST_BUFFER_PTS(buffer));
        hide_report(GST_ELEMENT(element_), frame, report, s);
        if (pending.draw == DrawMode::Burn)
            burn_report(GST_ELEMENT(element_), frame, report, s, info);
    }
    attach_report_metas(buffer, report, s, pending.draw, info);
    warn_windows_cut(pending, report.windows_cut);
    const size_t boxes = report.objects.size() + report.parts.size();
    const bool tagged = s.box_text && pending.draw != DrawMode::None;
    const bool analytics = HAVE_GST_ANALYTICS && s.metadata != GST_WALDBOOST_METADATA_ROI;
    warn_caps(pending, untracked.size(), report.objects.size(), parts_cut,
              tagged && boxes > kMaxTextTags ? boxes - kMaxTextTags : 0,
              analytics && report.objects.size() > kMaxAnalyticsObjects ? report.objects.size() - kMaxAnalyticsObjects
                                                                        : 0);
    warn_events_without_tracking(fs);
    warn_snapshots_without_tracking(fs);
    warn_privacy_between_searches(fs);
    warn_unknown_labels(fs);
    if (fs.detection.tracking && takes_snapshots(s))
        snapshots_.deliver(GST_ELEMENT(element_), report.events, report, s);
    else
        snapshots_.clear();
    /* The on-change state follows every frame, messages posted or not. */
    const bool due = updates_.due(s.updates, !report.objects.empty());
    post_report_messages(element_, buffer, report, s, due);
    last_settings_ = pending.settings;
    last_times_ = message_times(element_, buffer);
    last_frame_ = pending.frame;

    const double host_ms = static_cast<double>(pending.host_ns + (thread_cpu_ns() - started)) * 1e-6;
    stats_.update([&](Stats& st) {
        ++st.frames;
        st.host_ms = host_ms;
        st.host_total_ms += host_ms;
        st.detections += report.objects.size();
        if (result || searched_regions) {
            ++st.detected_frames;
            st.host_detected_total_ms += host_ms;
        }
        if (result) {
            st.device_ms = result->stats.device_milliseconds;
            st.weak_per_window = result->stats.weak_per_window;
            st.windows = result->stats.windows;
            st.candidates = result->stats.candidates_after_step;
            st.scan = result->stats.scan == wcl::ScanMethod::Rows ? "rows" : "reduction";
            st.discarded += result->stats.discarded;
            st.windows_cut += result->stats.cut;
            st.batch_frames = result->stats.batch_frames;
        }
    });
    return buffer;
}

}  // namespace waldboost_element
