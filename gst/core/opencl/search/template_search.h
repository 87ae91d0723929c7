/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tracker's template search on an OpenCL device (kernels/track.cl):
 * the searches of one frame in one launch, and those of every searcher on
 * the device that are ready at the same time too (one per stream in the
 * element), with the same results as the CPU reference
 * (core/tracking/template_search.h) bit for bit, found or not.
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/opencl/device/program_cache.h"
#include "core/tracking/template_search.h"

namespace waldboost::opencl {

class SharedDevice;

/* kernels/track.cl (embedded, or from WALDBOOST_KERNEL_DIR): a program of
 * its own, not part of the detector's. */
std::string track_program_source();

/* One frame's searches, for OpenClSearcher::search_frames(). */
struct FrameSearch {
    GrayView frame;
    const std::vector<tracking::SearchRequest>* requests = nullptr;
};

class OpenClSearcher final : public tracking::TemplateSearcher {
public:
    /* On the device `device_spec` picks (select_devices(): "all-gpus" takes
     * the one the fewest engines use; a fallback list such as "gpu,cpu" is
     * not taken here), sharing its context (and on PoCL its one queue) with
     * the engines of the process on that device; the program is built once
     * per device, through the kernel binary cache. Throws Error as
     * select_device() does, and when the program does not build. */
    explicit OpenClSearcher(const std::string& device_spec = "auto");
    /* On a device an engine already holds (SharedDevice::least_used()). */
    explicit OpenClSearcher(std::shared_ptr<SharedDevice> device);
    ~OpenClSearcher() override;
    OpenClSearcher(const OpenClSearcher&) = delete;
    OpenClSearcher& operator=(const OpenClSearcher&) = delete;

    /* The reference's results for every request, in order. Requests with an
     * empty template or no offset in range are answered on the host; a call
     * where none is left launches nothing. Throws Error (BadParameter) for a
     * template whose fields disagree (a step or side below 1, a sample count
     * other than columns x rows) or a frame the device cannot index, and
     * Error for a failed OpenCL call. Calls from several threads, through
     * any searchers on the same device, go together: whoever finds no
     * launch under way launches every call waiting (without waiting for
     * more), and a failed launch fails each of its calls. */
    std::vector<tracking::SearchResult> search(const GrayView& frame,
                                               const std::vector<tracking::SearchRequest>& requests) override;
    /* The searches of several frames in one launch (up to 2 GiB of frame
     * rows and of templates; more take several): the results of each as
     * search() gives them. Throws as search() does, for any of them. */
    std::vector<std::vector<tracking::SearchResult>> search_frames(const std::vector<FrameSearch>& frames);

    std::string device_name() const;
    const BuildReport& build_report() const;
    /* Work-items per request. */
    size_t work_group_size() const;
    /* Launches this searcher's calls went in (for tests: an empty call
     * launches none). */
    size_t launches() const;
    /* Launches on this searcher's device by all searchers of the process. */
    size_t device_launches() const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace waldboost::opencl
