/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/opencl/engine/reduction.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "core/error.h"

namespace waldboost::opencl {

bool ReductionParams::operator==(const ReductionParams& o) const
{
    for (const ReductionParam& param : kReductionParams)
        if (param.get(*this) != param.get(o))
            return false;
    return true;
}

const ReductionParam* find_reduction_param(std::string_view name)
{
    for (const ReductionParam& param : kReductionParams)
        if (name == param.name)
            return &param;
    return nullptr;
}

bool ReductionOverrides::empty() const
{
    return std::none_of(values.begin(), values.end(), [](const std::optional<int>& v) {
        return v.has_value();
    });
}

ReductionParams apply(ReductionParams base, const ReductionOverrides& overrides)
{
    for (size_t i = 0; i < kReductionParams.size(); ++i)
        if (overrides.values[i])
            kReductionParams[i].set(base, *overrides.values[i]);
    return base;
}

ReductionOverrides overrides_of(const ReductionParams& params)
{
    ReductionOverrides o;
    for (size_t i = 0; i < kReductionParams.size(); ++i)
        o.values[i] = kReductionParams[i].get(params);
    return o;
}

ReductionParams default_reduction(const DeviceInfo& device)
{
    ReductionParams p;
    if (device.type == "CPU") {
        /* PoCL and other CPU drivers run a work-group as loops between
         * barriers, so every synchronised round costs a pass over the group:
         * small groups, and long unsynchronised runs, so that on a CPU the
         * reduction mostly happens in step 1 (docs/history.md, round 1). */
        p.group_size = 16;
        p.step1_unsync = 64;
        p.step1_divisor = 8;
        p.step2_unsync = 64;
        p.step2_repeats = 2;
        p.step4_group_size = 16;
    }
    /* Work-group sizes (powers of two) halved to what the device runs. */
    const size_t max_group = std::max<size_t>(device.max_work_group_size, 1);
    for (const ReductionParam& param : kReductionParams)
        if (param.work_group)
            while (static_cast<size_t>(param.get(p)) > max_group && param.get(p) > 1)
                param.set(p, param.get(p) / 2);
    return p;
}

ReductionParams default_reduction(const DeviceInfo& device, const Classifier& classifier)
{
    ReductionParams p = default_reduction(device);
    if (device.type == "CPU")
        return p;
    /* Step 1 runs through the classifier's second rejection test: most
     * windows die in the first two stages (7 weak classifiers in
     * lbpcascade_frontalface, 12 in lbpcascade_frontalface_improved, the
     * counts the H100 measurements favour), and what is left is a list short
     * enough for step 2. At least 4 for sequences with a test after every
     * weak classifier. */
    /* Haar cascades: their stumps cost several times an LBP one, and after
     * the first stage their stages are long (27 to 211 stumps in
     * haarcascade_frontalface_default), which favours step 1 through the
     * first test only, halving lists in step 2 and wider step-4 groups
     * (the tuner's choice on the H200, docs/history.md, round 7). */
    const bool haar = classifier.is_haar();
    int tests = 0;
    for (size_t t = 0; t < classifier.weak.size(); ++t) {
        if (classifier.weak[t].reject_threshold != kNoRejection && ++tests == (haar ? 1 : 2)) {
            p.step1_unsync = std::clamp(static_cast<int>(t) + 1, 4, 32);
            break;
        }
    }
    /* WaldBoost sequences (one running sum over the whole classifier, never
     * reset as a stage cascade's is; waldboost-train writes them): two
     * step-2 launches, then step 4. Their deepest windows run hundreds of
     * weak classifiers, which step 4 spreads over a group while step 2 walks
     * them one by one. At the element on the H200 this made the trained
     * face detectors of docs/performance.md much faster at one stream and
     * kept 16 streams' throughput; one launch was faster still at one
     * stream and lost throughput with the LRD detector (docs/history.md,
     * "Figures behind the code's choices"). */
    const bool resets = !classifier.weak.empty() &&
                        std::any_of(classifier.weak.begin(), classifier.weak.end() - 1, [](const WeakClassifier& w) {
                            return w.reset_sum_after;
                        });
    /* Each step-2 launch also stops its groups after 4 synchronised rounds
     * (a weak classifier each in a sequence), so that a group of deep
     * windows does not walk them one by one through the whole classifier
     * while the launch, and the frame, wait for it: on the H200 a frame's
     * kernels took less time with 4 rounds than unbounded or with 16, for
     * both trained face detectors (docs/history.md, "Figures behind the
     * code's choices"). A stage cascade's rounds are its stages
     * (20 to 25 in OpenCV's): they keep no bound, as their defaults were
     * measured. */
    if (!haar && !classifier.weak.empty() && !resets) {
        p.step2_repeats = 2;
        p.step2_rounds = 4;
    }
    if (haar) {
        p.step2_divisor = 2;
        p.step4_group_size = 64;
        while (p.step4_group_size > 1 && static_cast<size_t>(p.step4_group_size) > device.max_work_group_size)
            p.step4_group_size /= 2;
    }
    /* Divisor 1 sizes step 1's lists for every window (about 144 MB per
     * frame in flight at 1080p, 2.3 GB at 8K). Small and embedded GPUs get
     * lists an eighth of that; step 1 then compacts as in the thesis. */
    constexpr uint64_t kLargeDeviceMemory = uint64_t{4} << 30;
    if (device.global_memory < kLargeDeviceMemory)
        p.step1_divisor = 8;
    return p;
}

int step2_launches_for(const ReductionParams& params, uint64_t expected_list, uint64_t step4_wave)
{
    const uint64_t enough = kStep4Waves * std::max<uint64_t>(step4_wave, 1);
    int launches = 0;
    for (uint64_t list = expected_list; launches < params.step2_repeats && list > enough; list /= kStep2Shrink)
        ++launches;
    return launches;
}

namespace {

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

std::string lower(std::string text)
{
    for (char& c : text)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return text;
}

/* "reduction parameter group-size (group size)" */
std::string subject(const ReductionParam& param)
{
    return std::string("reduction parameter ") + param.name + " (" + lower(param.nick) + ")";
}

std::string range_text(const ReductionParam& param, int max)
{
    return std::string(param.power_of_two ? "a power of two from " : "from ") + std::to_string(param.min) + " to " +
           std::to_string(max);
}

void check_range(const ReductionParam& param, int value, int max)
{
    if (value < param.min || value > max || (param.power_of_two && !power_of_two(value)))
        throw Error(ErrorKind::BadParameter,
                    subject(param) + " must be " + range_text(param, max) + ", not " + std::to_string(value));
}

const ReductionParam& row_of(int ReductionParams::*member)
{
    for (const ReductionParam& param : kReductionParams)
        if (param.member == member)
            return param;
    throw Error(ErrorKind::BadParameter, "reduction parameter table: a rule names a parameter not in the table");
}

std::string_view trim(std::string_view text)
{
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
        text.remove_prefix(1);
    while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
        text.remove_suffix(1);
    return text;
}

std::optional<int> parse_int(std::string_view text)
{
    text = trim(text);
    if (!text.empty() && text.front() == '+')
        text.remove_prefix(1);
    int value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || error != std::errc() || end != text.data() + text.size())
        return std::nullopt;
    return value;
}

std::vector<std::string_view> split(std::string_view text, char separator)
{
    std::vector<std::string_view> items;
    size_t pos = 0;
    while (true) {
        const size_t next = text.find(separator, pos);
        items.push_back(text.substr(pos, next == std::string_view::npos ? std::string_view::npos : next - pos));
        if (next == std::string_view::npos)
            return items;
        pos = next + 1;
    }
}

}  // namespace

void check_reduction_value(const ReductionParam& param, int value) { check_range(param, value, param.max); }

std::string describe_range(const ReductionParam& param) { return range_text(param, param.max); }

void validate(const ReductionParams& p, const DeviceInfo& device)
{
    const int max_group = static_cast<int>(std::min<size_t>(device.max_work_group_size, INT32_MAX));
    /* Each parameter on its own, then the rules between them, so that a bad
     * group size is named before a divisor compared with it. */
    for (const ReductionParam& param : kReductionParams)
        check_range(param, param.get(p), param.work_group ? std::min(param.max, max_group) : param.max);
    for (const ReductionParam& param : kReductionParams) {
        if (!param.at_most || param.get(p) <= p.*param.at_most)
            continue;
        const ReductionParam& bound = row_of(param.at_most);
        throw Error(ErrorKind::BadParameter, subject(param) + " must be at most " + bound.name + " (" +
                                                 std::to_string(bound.get(p)) + "), not " +
                                                 std::to_string(param.get(p)));
    }
}

bool is_valid(const ReductionParams& params, const DeviceInfo& device)
{
    try {
        validate(params, device);
        return true;
    } catch (const Error&) {
        return false;
    }
}

std::string build_defines(const ReductionParams& params)
{
    std::string options;
    for (const ReductionParam& param : kReductionParams)
        if (param.define)
            options += std::string(" -D ") + param.define + "=" + std::to_string(param.get(params));
    return options;
}

std::string to_string(const ReductionParams& params)
{
    std::string text;
    for (const ReductionParam& param : kReductionParams)
        text += (text.empty() ? "" : ",") + std::to_string(param.get(params));
    return text;
}

std::string to_string(const ReductionOverrides& overrides)
{
    std::string text;
    for (size_t i = 0; i < kReductionParams.size(); ++i)
        if (overrides.values[i])
            text += (text.empty() ? "" : ",") + std::string(kReductionParams[i].name) + "=" +
                    std::to_string(*overrides.values[i]);
    return text;
}

std::string reduction_names()
{
    std::string text;
    for (const ReductionParam& param : kReductionParams)
        text += (text.empty() ? "" : ",") + std::string(param.name);
    return text;
}

ReductionOverrides parse_reduction_overrides(std::string_view text)
{
    ReductionOverrides overrides;
    if (trim(text).empty())
        return overrides;
    const std::string quoted = "\"" + std::string(text) + "\"";
    const std::vector<std::string_view> items = split(text, ',');
    const bool named = text.find('=') != std::string_view::npos;
    if (!named) {
        if (items.size() != kReductionParams.size())
            throw Error(ErrorKind::BadParameter,
                        "reduction parameters: give " + std::to_string(kReductionParams.size()) +
                            " comma-separated numbers (" + reduction_names() + ") or name=value pairs, not " + quoted);
        for (size_t i = 0; i < items.size(); ++i) {
            const std::optional<int> value = parse_int(items[i]);
            if (!value)
                throw Error(ErrorKind::BadParameter, subject(kReductionParams[i]) + ": \"" +
                                                         std::string(trim(items[i])) + "\" is not a whole number");
            check_reduction_value(kReductionParams[i], *value);
            overrides.values[i] = *value;
        }
        return overrides;
    }
    for (std::string_view item : items) {
        const size_t eq = item.find('=');
        if (eq == std::string_view::npos)
            throw Error(ErrorKind::BadParameter, "reduction parameters: \"" + std::string(trim(item)) +
                                                     "\" is not name=value (in " + quoted +
                                                     "; the names: " + reduction_names() + ")");
        const std::string_view name = trim(item.substr(0, eq));
        const ReductionParam* param = find_reduction_param(name);
        if (!param)
            throw Error(ErrorKind::BadParameter, "reduction parameters: no parameter \"" + std::string(name) +
                                                     "\" (the names: " + reduction_names() + ")");
        const size_t i = static_cast<size_t>(param - kReductionParams.data());
        if (overrides.values[i])
            throw Error(ErrorKind::BadParameter, subject(*param) + " is given twice in " + quoted);
        const std::optional<int> value = parse_int(item.substr(eq + 1));
        if (!value)
            throw Error(ErrorKind::BadParameter,
                        subject(*param) + ": \"" + std::string(trim(item.substr(eq + 1))) + "\" is not a whole number");
        check_reduction_value(*param, *value);
        overrides.values[i] = *value;
    }
    return overrides;
}

ReductionParams parse_reduction(std::string_view text, const ReductionParams& base)
{
    return apply(base, parse_reduction_overrides(text));
}

}  // namespace waldboost::opencl
