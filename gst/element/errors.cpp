/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "errors.h"

#include <new>
#include <vector>

#include "core/opencl/device/device.h"
#include "core/text.h"
#include "debug.h"

namespace waldboost_element {

using waldboost::ErrorKind;
namespace wcl = waldboost::opencl;

ErrorKind kind_of(const std::exception& e, ErrorKind otherwise)
{
    if (const auto* error = dynamic_cast<const waldboost::Error*>(&e))
        return error->kind();
    if (const auto* cl_error = dynamic_cast<const cl::Error*>(&e))
        return wcl::error_kind(cl_error->err());
    if (dynamic_cast<const std::bad_alloc*>(&e))
        return ErrorKind::OutOfResources;
    return otherwise;
}

/* Whether another device of the list may succeed where one failed with
 * `kind`: not for a classifier, a file or a frame, which every device would
 * refuse alike. Parameters only at set-up, where the reduction's limits are
 * the device's (its largest work group). */
bool another_device_may_help(ErrorKind kind, Phase phase)
{
    switch (kind) {
    case ErrorKind::NoDevice:
    case ErrorKind::KernelBuild:
    case ErrorKind::OutOfResources:
    case ErrorKind::Device: return true;
    case ErrorKind::BadParameter: return phase == Phase::Setup;
    case ErrorKind::ClassifierFile:
    case ErrorKind::UnsupportedClassifier:
    case ErrorKind::FrameTooLarge:
    case ErrorKind::Io: return false;
    }
    return false;
}

/* A core message for a main (user-visible) message: one line, short. A
 * kernel build failure is "... failed on DEVICE:" and then the build log;
 * its first line joins the first line of the log. The whole text stays in
 * the debug string. */
std::string reason_of(const std::string& what)
{
    constexpr size_t kMax = 300;
    std::vector<std::string> lines;
    size_t start = 0;
    while (start <= what.size() && lines.size() < 2) {
        size_t end = what.find('\n', start);
        if (end == std::string::npos)
            end = what.size();
        std::string line = what.substr(start, end - start);
        while (!line.empty() && g_ascii_isspace(line.back()))
            line.pop_back();
        if (!line.empty())
            lines.push_back(line);
        start = end + 1;
    }
    std::string reason = lines.empty() ? std::string("unknown error") : lines[0];
    if (lines.size() > 1 && reason.back() == ':')
        reason += " " + lines[1];
    if (reason.size() > kMax) {
        /* Never cut a UTF-8 sequence in two. */
        size_t cut = kMax;
        while (cut > 0 && (static_cast<unsigned char>(reason[cut]) & 0xc0) == 0x80)
            --cut;
        reason = reason.substr(0, cut) + "...";
    }
    return reason;
}

/* The loaders' messages start with the file name, which the main message
 * gives already: "PATH: cannot open: ..." -> "cannot open: ...",
 * "PATH:12: featureType: ..." -> "line 12: featureType: ...". */
static std::string without_path(const std::string& reason, const std::string& path)
{
    if (path.empty() || reason.compare(0, path.size(), path) != 0 || reason.size() <= path.size() ||
        reason[path.size()] != ':')
        return reason;
    const size_t rest = path.size() + 1;
    size_t digits = rest;
    while (digits < reason.size() && g_ascii_isdigit(reason[digits]))
        ++digits;
    if (digits > rest && reason.compare(digits, 2, ": ") == 0)
        return "line " + reason.substr(rest, digits - rest) + reason.substr(digits);
    return reason.substr(reason[rest] == ' ' ? rest + 1 : rest);
}

/* Posts the GStreamer error for a failure of kind `kind` with the core's
 * message `what` (`device`: the device spec it happened on). The error's
 * domain and code follow the kind, never the message's text; the main
 * message says what failed and the core's reason (on one line), the debug
 * string the whole core message (a kernel build log included).
 *
 *   ClassifierFile         RESOURCE NOT_FOUND when the file is not there (as
 *                          filesrc), else RESOURCE OPEN_READ: it cannot be
 *                          read or holds no valid classifier.
 *   UnsupportedClassifier  RESOURCE SETTINGS: the file is a valid classifier
 *                          and was read; the setting that names it is what
 *                          must change. Not STREAM WRONG_TYPE, which would
 *                          blame the video stream (an application may
 *                          treat STREAM errors as "cannot play this media").
 *   NoDevice               RESOURCE NOT_FOUND; the core's reason says what to install only
 *                          when there is no device at all.
 *   KernelBuild            LIBRARY INIT: the OpenCL compiler (a library)
 *                          could not make the kernels.
 *   OutOfResources         RESOURCE NO_SPACE_LEFT.
 *   BadParameter           RESOURCE SETTINGS: a property value, or one the
 *                          device's limits refuse (reduction group sizes).
 *   FrameTooLarge          STREAM FORMAT: the caps negotiated, but frames of
 *                          this size are beyond what the engine can index;
 *                          the stream must change (scale it down, or roi).
 *   Device                 RESOURCE FAILED: an OpenCL call failed.
 *   Io                     RESOURCE OPEN_READ: a file detection needs (the
 *                          kernel sources of WALDBOOST_KERNEL_DIR). */
/* How to get back a missing file that a package installs, by the folder it
 * is in: the converted classifiers (package waldboost-classifiers, or
 * `ninja install` in a source build, under any prefix) and OpenCV's
 * cascades (Debian's opencv-data), as a sentence to follow the message.
 * Empty for any other file. */
static std::string how_to_restore(const std::string& path)
{
    gchar* dir = g_path_get_dirname(path.c_str());
    const std::string folder = dir;
    g_free(dir);
    if (g_str_has_suffix(folder.c_str(), "/share/waldboost/classifiers"))
        return ". It is one of the converted classifiers: reinstall them with \"apt-get install --reinstall "
               "waldboost-classifiers\" (in a source build: ninja install).";
    if (folder.find("/share/opencv4/") != std::string::npos)
        return ". OpenCV's cascades come with Debian's opencv-data: \"apt-get install --reinstall opencv-data\".";
    return "";
}

/* Posts a failure: an error, or with `kept` (a change while playing that
 * could not be applied, see errors.h) a warning whose message ends with
 * it. */
static void post(GstElement* self, const std::string& kept, GQuark domain, gint code, const std::string& text,
                 const std::string& debug)
{
    std::string message = text;
    if (!kept.empty())
        message += (message.back() == '.' ? " " : ". ") + kept;
    gst_element_message_full(self, kept.empty() ? GST_MESSAGE_ERROR : GST_MESSAGE_WARNING, domain, code,
                             g_strdup(message.c_str()), g_strdup(debug.c_str()), __FILE__, GST_FUNCTION, __LINE__);
}

void post_load_error(GstElement* self, const std::string& what_failed, const std::string& path, const std::string& what,
                     const std::string& kept)
{
    const std::string why = without_path(reason_of(what), waldboost::printable(path));
    if (!path.empty() && !g_file_test(path.c_str(), G_FILE_TEST_EXISTS))
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
             "Could not load " + what_failed + ": " + why + how_to_restore(path), what);
    else
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ, "Could not load " + what_failed + ": " + why,
             what);
}

void post_error(GstElement* self, const std::string& classifier_path, ErrorKind kind, const std::string& what,
                const std::string& device_spec, Phase phase, const std::string& kept)
{
    const std::string& path = classifier_path;
    /* The path as the core's messages show it: control characters escaped,
     * a long one cut (it is the user's text, and may come from a file). */
    const std::string shown_path = path.empty() ? std::string() : waldboost::printable(path);
    const std::string classifier = path.empty() ? "the embedded classifier" : "\"" + shown_path + "\"";
    const std::string reason = reason_of(what);
    GST_INFO_OBJECT(self, "error of kind \"%s\": %s", waldboost::to_string(kind), what.c_str());
    /* The device text is the user's, as the path is: escaped and cut. */
    const std::string device = "\"" + waldboost::printable(device_spec) + "\"";
    switch (kind) {
    case ErrorKind::ClassifierFile: post_load_error(self, "the classifier " + classifier, path, what, kept); break;
    case ErrorKind::UnsupportedClassifier:
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
             "The classifier " + classifier + " cannot be used: " + without_path(reason, shown_path), what);
        break;
    case ErrorKind::NoDevice:
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND,
             "No usable OpenCL device for device=" + device + ": " + reason +
                 ". List the devices with waldboost-devices or clinfo.",
             what);
        break;
    case ErrorKind::KernelBuild:
        GST_ERROR_OBJECT(self, "kernel build log: %s", what.c_str());
        post(self, kept, GST_LIBRARY_ERROR, GST_LIBRARY_ERROR_INIT,
             "Could not build the OpenCL kernels for the device " + device + ": " + reason, what);
        break;
    case ErrorKind::OutOfResources:
        if (phase == Phase::Load)
            post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
                 "Out of memory loading the classifier " + classifier + ": " + reason, what);
        else
            post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NO_SPACE_LEFT,
                 "Out of memory or other OpenCL resources on the device " + device +
                     " (a lower max-inflight, smaller frames or another device may help): " + reason,
                 what);
        break;
    case ErrorKind::BadParameter:
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS,
             (phase == Phase::Streaming ? "Could not detect with the current settings: "
                                        : "Could not set up detection: ") +
                 reason,
             what);
        break;
    case ErrorKind::FrameTooLarge:
        post(self, kept, GST_STREAM_ERROR, GST_STREAM_ERROR_FORMAT,
             "The frame is too large for detection: " + reason + ". Scale the video down or set a smaller roi.", what);
        break;
    case ErrorKind::Device:
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_FAILED,
             (phase == Phase::Streaming ? "OpenCL detection failed on the device " + device + ": "
                                        : "Could not set up detection on the OpenCL device " + device + ": ") +
                 reason,
             what);
        break;
    case ErrorKind::Io:
        post(self, kept, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_OPEN_READ,
             "Could not read a file detection needs: " + reason, what);
        break;
    }
}

/* At most one warning about unreadable frames this often. */
constexpr gint64 kUnreadableWarningInterval = 10 * G_TIME_SPAN_SECOND;

void UnreadableWarnings::reset()
{
    unreported_ = 0;
    warned_at_ = -1;
}

void UnreadableWarnings::warn(GstElement* self, const std::string& why)
{
    ++unreported_;
    const gint64 now = g_get_monotonic_time();
    if (warned_at_ >= 0 && now - warned_at_ < kUnreadableWarningInterval) {
        GST_WARNING_OBJECT(self, "a frame could not be read; it passes without detection: %s", why.c_str());
        return;
    }
    const guint64 count = unreported_;
    unreported_ = 0;
    warned_at_ = now;
    if (count > 1)
        GST_ELEMENT_WARNING(self, STREAM, FORMAT, ("A frame could not be read; it passes without detection."),
                            ("%s (%" G_GUINT64_FORMAT " such frames since the last warning)", why.c_str(), count));
    else
        GST_ELEMENT_WARNING(self, STREAM, FORMAT, ("A frame could not be read; it passes without detection."),
                            ("%s", why.c_str()));
}

}  // namespace waldboost_element
