/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The parameters of the multi-kernel reduction (kernels/waldboost.cl): one
 * table (kReductionParams) that names each parameter and gives its range,
 * and what is derived from it: comparison, validation, the kernels' build
 * options, the text form ("256,7,1,16,4,3,32,65535" or "group-size=128,...") and
 * partial overrides. The tuner's files and search, the bench's --reduction
 * and the element's `reduction` property and its aliases all go through the
 * table; the defaults per device class are here too.
 */
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/model/model.h"
#include "core/opencl/device/device.h"

namespace waldboost::opencl {

/* The reduction's parameters (algorithm.md). Each step stops once at most
 * 1/divisor of a work-group's windows are left and compacts the survivors. */
struct ReductionParams {
    /* GPU defaults, measured on an H100 at 1920x1080 and 3840x2160 with both
     * OpenCV LBP face cascades (docs/history.md, "Figures behind the code's
     * choices"): step 1 runs the first
     * weak classifiers of every window without synchronising and compacts
     * its survivors at once (divisor 1); the synchronised rounds of the
     * thesis' settings (4/8, 8/4 x2) cost more there than they save. */
    int group_size = 256; /* work-items per group in steps 1 and 2 (a power of two) */
    int step1_unsync = 7; /* weak classifiers before step 1's first synchronisation
                                 (on GPUs: through the second stage, see below) */
    int step1_divisor = 1;
    int step2_unsync = 16;
    int step2_divisor = 4;
    int step2_repeats = 3;     /* launches of step 2 */
    int step4_group_size = 32; /* work-items per candidate in step 4 (a power of two) */
    int step2_rounds = 65535;  /* synchronised rounds of each step-2 launch at most: bounds
                                 how long a group walks its deepest windows one rejection
                                 test at a time before step 4 takes them (see below) */

    bool operator==(const ReductionParams& o) const;
    bool operator!=(const ReductionParams& o) const { return !(*this == o); }
};

/* One parameter of the reduction. */
struct ReductionParam {
    const char* name;  /* kebab-case: the element's field and alias property, the tuning
                          file's key, the name in "name=value" text */
    const char* nick;  /* a few words: the alias property's nick; messages use it in lower case */
    const char* blurb; /* one sentence, as gst-inspect shows it */
    int min;
    int max; /* the device-independent limit; see work_group */
    bool power_of_two;
    bool work_group;               /* a work-group size: also at most the device's maximum work-group size */
    int ReductionParams::*at_most; /* also at most this other parameter (nullptr: none) */
    int ReductionParams::*member;
    const char* define; /* the OpenCL build option (-D DEFINE=value); nullptr: none, the
                           host uses the value (a launch count) */

    int get(const ReductionParams& p) const { return p.*member; }
    void set(ReductionParams& p, int value) const { p.*member = value; }
};

/* THE table. To add a parameter: a field in ReductionParams, a row here
 * (its place is its place in the comma form), its use in kernels/waldboost.cl
 * (through the define) or in the engine, and its candidate values in the
 * tuner's search (tune_reduction refuses to run without them). Everything
 * else (comparison, validation, build options, tuning files, the bench's
 * --reduction, the element's `reduction` field and alias property) follows
 * from the row. */
inline constexpr std::array<ReductionParam, 8> kReductionParams = {{
    {"group-size", "Group size", "Work-items per work-group in reduction steps 1 and 2, a power of two", 8, 4096, true,
     true, nullptr, &ReductionParams::group_size, "GROUP_SIZE"},
    {"step1-unsync", "Step 1 unsynchronised count",
     "Weak classifiers step 1 evaluates for each window before its first synchronisation", 0, 65535, false, false,
     nullptr, &ReductionParams::step1_unsync, "STEP1_UNSYNC"},
    {"step1-divisor", "Step 1 divisor",
     "Step 1 stops once at most 1/divisor of a group's windows are left; at most the group size", 1, 4096, false, false,
     &ReductionParams::group_size, &ReductionParams::step1_divisor, "STEP1_DIVISOR"},
    {"step2-unsync", "Step 2 unsynchronised count",
     "Weak classifiers step 2 evaluates for each window before its first synchronisation", 0, 65535, false, false,
     nullptr, &ReductionParams::step2_unsync, "STEP2_UNSYNC"},
    {"step2-divisor", "Step 2 divisor",
     "Step 2 stops once at most 1/divisor of a group's windows are left; at most the group size", 1, 4096, false, false,
     &ReductionParams::group_size, &ReductionParams::step2_divisor, "STEP2_DIVISOR"},
    {"step2-repeats", "Step 2 repeats",
     "Launches of step 2 over the candidate list (left to the engine: at most, fewer for short lists)", 0, 16, false,
     false, nullptr, &ReductionParams::step2_repeats, nullptr},
    {"step4-group-size", "Step 4 group size", "Work-items per remaining window in reduction step 4, a power of two", 1,
     4096, true, true, nullptr, &ReductionParams::step4_group_size, "STEP4_GROUP_SIZE"},
    {"step2-rounds", "Step 2 rounds",
     "Synchronised rounds each step-2 launch runs at most before it passes its survivors on (65535: until "
     "the divisor's share is left)",
     0, 65535, false, false, nullptr, &ReductionParams::step2_rounds, "STEP2_ROUNDS"},
}};

/* The row named `name` (kebab-case), or nullptr. */
const ReductionParam* find_reduction_param(std::string_view name);

/* Some of the parameters, in table order: what a user set on top of the
 * engine's choice (tuned or default). Unset entries keep the base's value. */
struct ReductionOverrides {
    std::array<std::optional<int>, kReductionParams.size()> values;

    bool empty() const;
    bool operator==(const ReductionOverrides& o) const { return values == o.values; }
    bool operator!=(const ReductionOverrides& o) const { return !(*this == o); }
};

/* `base` with the overrides that are set. */
ReductionParams apply(ReductionParams base, const ReductionOverrides& overrides);
/* Every parameter of `params` set. */
ReductionOverrides overrides_of(const ReductionParams& params);

/* Defaults by device class: GPUs want wide groups; a CPU device runs a
 * work-group as a loop, where small groups and short steps cost less. */
ReductionParams default_reduction(const DeviceInfo& device);
/* The same, with step 1's unsynchronised count fitted to the classifier's
 * stages on GPUs. What the engine uses when nothing was tuned. */
ReductionParams default_reduction(const DeviceInfo& device, const Classifier& classifier);

/* Step-2 launches for a frame whose step-1 list should hold about
 * `expected_list` candidates (the previous frame's, engine.cpp): as many of
 * params.step2_repeats as it takes, each taken to shrink the list
 * kStep2Shrink-fold, to leave step 4 at most kStep4Waves waves of
 * `step4_wave` candidates (a group each, as many groups as the device keeps
 * resident). A list that step 4 takes in a wave or two loses more to step
 * 2's launches than they save; longer lists need them (docs/history.md,
 * "Figures behind the code's choices"). The count never changes what is
 * found. */
inline constexpr uint64_t kStep2Shrink = 4;
inline constexpr uint64_t kStep4Waves = 2;
int step2_launches_for(const ReductionParams& params, uint64_t expected_list, uint64_t step4_wave);

/* Throws Error (BadParameter) naming the first parameter out of range: the
 * table's range and power of two with each work-group size at most the
 * device's maximum work-group size, then the rows' at_most rules (divisors
 * at most the group size). */
void validate(const ReductionParams& params, const DeviceInfo& device);
/* The same without throwing. */
bool is_valid(const ReductionParams& params, const DeviceInfo& device);

/* Throws Error (BadParameter) unless `value` is in the table's range for
 * `param` (and a power of two where it must be); what can be checked
 * without a device and the other parameters. */
void check_reduction_value(const ReductionParam& param, int value);
/* The table's range as text, e.g. "a power of two from 8 to 4096". */
std::string describe_range(const ReductionParam& param);

/* The OpenCL build options of the parameters that have a define, in table
 * order: " -D GROUP_SIZE=256 -D STEP1_UNSYNC=7 ..." (each with a leading
 * space, to append to the other options). */
std::string build_defines(const ReductionParams& params);

/* The comma form, every parameter in table order: "256,7,1,16,4,3,32,65535". */
std::string to_string(const ReductionParams& params);
/* The set overrides as "name=value" pairs in table order:
 * "group-size=128,step2-unsync=64"; "" when none is set. */
std::string to_string(const ReductionOverrides& overrides);
/* The table's names in order, comma-separated (the comma form's legend). */
std::string reduction_names();

/* Reads either form: the comma form (every parameter, in table order: all
 * set) or comma-separated "name=value" pairs (any of them, each once); ""
 * sets none. Each value must be in the table's range (check_reduction_value);
 * the rules between parameters and the device's limits are validate()'s.
 * Throws Error (BadParameter) saying what is wrong. */
ReductionOverrides parse_reduction_overrides(std::string_view text);
/* apply(base, parse_reduction_overrides(text)). */
ReductionParams parse_reduction(std::string_view text, const ReductionParams& base = ReductionParams{});

}  // namespace waldboost::opencl
