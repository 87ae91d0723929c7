/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The reduction parameter table (core/opencl/engine/reduction.h) and what is
 * derived from it: validation, build options, the text forms, overrides and
 * the defaults per device class. No OpenCL device needed.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/opencl/engine/reduction.h"

using namespace waldboost;
using namespace waldboost::opencl;

namespace {

DeviceInfo gpu(size_t max_work_group_size = 1024)
{
    DeviceInfo d;
    d.type = "GPU";
    d.max_work_group_size = max_work_group_size;
    d.global_memory = uint64_t{16} << 30;
    return d;
}

DeviceInfo cpu()
{
    DeviceInfo d;
    d.type = "CPU";
    d.max_work_group_size = 4096;
    return d;
}

/* The Error `f` throws; fails the test when it throws none. */
std::string error_of(const std::function<void()>& f, ErrorKind kind = ErrorKind::BadParameter)
{
    try {
        f();
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), kind) << e.what();
        return e.what();
    }
    ADD_FAILURE() << "no error";
    return "";
}

bool power_of_two(int v) { return v > 0 && (v & (v - 1)) == 0; }

size_t count(const std::string& text, const std::string& part)
{
    size_t n = 0;
    for (size_t pos = text.find(part); pos != std::string::npos; pos = text.find(part, pos + 1))
        ++n;
    return n;
}

}  // namespace

TEST(Reduction, TableIsConsistent)
{
    std::set<std::string> names, defines;
    std::vector<int ReductionParams::*> members;
    for (const ReductionParam& r : kReductionParams) {
        SCOPED_TRACE(r.name);
        EXPECT_TRUE(names.insert(r.name).second) << "name twice";
        EXPECT_EQ(std::count(members.begin(), members.end(), r.member), 0) << "member twice";
        members.push_back(r.member);
        if (r.define) {
            EXPECT_TRUE(defines.insert(r.define).second) << "define twice";
        }
        for (char c : std::string(r.name))
            EXPECT_TRUE((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-') << "not kebab-case";
        EXPECT_TRUE(r.nick && *r.nick && r.blurb && *r.blurb);
        EXPECT_LE(r.min, r.max);
        if (r.power_of_two) {
            EXPECT_TRUE(power_of_two(r.min) && power_of_two(r.max));
        }
        if (r.at_most) {
            EXPECT_NE(r.at_most, r.member);
        }
        EXPECT_EQ(find_reduction_param(r.name), &r);
    }
    EXPECT_EQ(members.size(), sizeof(ReductionParams) / sizeof(int)) << "a field of ReductionParams has no row";
    EXPECT_EQ(find_reduction_param("no-such-parameter"), nullptr);
    /* The table's order is the comma form's, as --reduction has always taken it. */
    EXPECT_EQ(reduction_names(),
              "group-size,step1-unsync,step1-divisor,step2-unsync,step2-divisor,step2-repeats,step4-group-size,"
              "step2-rounds");
    EXPECT_EQ(to_string(ReductionParams{}), "256,7,1,16,4,3,32,65535");
}

TEST(Reduction, EqualityComparesEveryParameter)
{
    const ReductionParams a;
    EXPECT_TRUE(a == ReductionParams{});
    for (const ReductionParam& r : kReductionParams) {
        ReductionParams b = a;
        r.set(b, r.get(a) + 1);
        EXPECT_FALSE(a == b) << r.name;
        EXPECT_TRUE(a != b) << r.name;
    }
}

TEST(Reduction, DefaultsAreValid)
{
    EXPECT_NO_THROW(validate(ReductionParams{}, gpu()));
    EXPECT_NO_THROW(validate(default_reduction(gpu()), gpu()));
    EXPECT_NO_THROW(validate(default_reduction(cpu()), cpu()));
    /* Work-group sizes halved to a small device's limit. */
    const ReductionParams small = default_reduction(gpu(16));
    EXPECT_EQ(small.group_size, 16);
    EXPECT_EQ(small.step4_group_size, 16);
    EXPECT_NO_THROW(validate(small, gpu(16)));
}

TEST(Reduction, ValidateRefusesEachParameterOutOfRangeByName)
{
    for (const ReductionParam& r : kReductionParams) {
        SCOPED_TRACE(r.name);
        for (int bad : {r.min - 1, r.max + 1}) {
            ReductionParams p;
            r.set(p, bad);
            const std::string what = error_of([&] {
                validate(p, gpu(8192));
            });
            EXPECT_NE(what.find(std::string("reduction parameter ") + r.name + " "), std::string::npos) << what;
            EXPECT_NE(what.find("not " + std::to_string(bad)), std::string::npos) << what;
            EXPECT_NE(what.find(std::to_string(r.min) + " to " + std::to_string(r.max)), std::string::npos) << what;
            EXPECT_FALSE(is_valid(p, gpu(8192)));
            /* The same value is refused without a device. */
            EXPECT_NE(error_of([&] {
                          check_reduction_value(r, bad);
                      }).find(r.name),
                      std::string::npos);
        }
        EXPECT_NO_THROW(check_reduction_value(r, r.min));
        EXPECT_NO_THROW(check_reduction_value(r, r.max));
        if (r.power_of_two) {
            ReductionParams p;
            r.set(p, r.min * 3);
            const std::string what = error_of([&] {
                validate(p, gpu());
            });
            EXPECT_NE(what.find(r.name), std::string::npos) << what;
            EXPECT_NE(what.find("power of two"), std::string::npos) << what;
        }
    }
    /* The message keeps the words users and the element tests look for. */
    ReductionParams p;
    p.group_size = 100;
    const std::string what = error_of([&] {
        validate(p, gpu());
    });
    EXPECT_NE(what.find("group size"), std::string::npos) << what;
}

TEST(Reduction, ValidateAppliesTheDeviceLimitAndTheRulesBetweenParameters)
{
    /* Work-group sizes up to the device's limit. */
    for (const ReductionParam& r : kReductionParams) {
        if (!r.work_group)
            continue;
        ReductionParams p;
        p.group_size = 64;
        p.step4_group_size = 32;
        r.set(p, 128);
        const std::string what = error_of([&] {
            validate(p, gpu(64));
        });
        EXPECT_NE(what.find(r.name), std::string::npos) << what;
        EXPECT_NE(what.find("to 64,"), std::string::npos) << what;
        EXPECT_NO_THROW(validate(p, gpu(128)));
    }
    /* Divisors up to the group size, naming both. */
    for (const ReductionParam& r : kReductionParams) {
        if (!r.at_most)
            continue;
        ReductionParams p;
        p.group_size = 32;
        r.set(p, 32);
        EXPECT_NO_THROW(validate(p, gpu()));
        r.set(p, 64);
        const std::string what = error_of([&] {
            validate(p, gpu());
        });
        EXPECT_NE(what.find(std::string("reduction parameter ") + r.name), std::string::npos) << what;
        EXPECT_NE(what.find("at most group-size (32), not 64"), std::string::npos) << what;
    }
}

TEST(Reduction, BuildDefinesHaveEachDefineOnce)
{
    ReductionParams p;
    int value = 1;
    for (const ReductionParam& r : kReductionParams)
        r.set(p, value++ * 1000 + 1); /* distinct values */
    const std::string defines = build_defines(p);
    /* " -D NAME=VALUE" items. */
    std::multiset<std::string> items;
    for (size_t pos = 0; pos < defines.size();) {
        ASSERT_EQ(defines.compare(pos, 4, " -D "), 0) << defines;
        const size_t next = defines.find(" -D ", pos + 4);
        items.insert(defines.substr(pos + 4, next == std::string::npos ? std::string::npos : next - pos - 4));
        pos = next == std::string::npos ? defines.size() : next;
    }
    size_t with_define = 0;
    for (const ReductionParam& r : kReductionParams) {
        if (!r.define)
            continue;
        ++with_define;
        EXPECT_EQ(items.count(std::string(r.define) + "=" + std::to_string(r.get(p))), 1u) << defines;
        EXPECT_EQ(count(defines, std::string(" ") + r.define + "="), 1u) << defines;
    }
    EXPECT_EQ(items.size(), with_define);
    EXPECT_EQ(with_define, kReductionParams.size() - 1) << "all but step2-repeats, a launch count";
    EXPECT_EQ(defines.find("REPEATS"), std::string::npos) << defines;
    EXPECT_EQ(build_defines(ReductionParams{}), " -D GROUP_SIZE=256 -D STEP1_UNSYNC=7 -D STEP1_DIVISOR=1 "
                                                "-D STEP2_UNSYNC=16 -D STEP2_DIVISOR=4 -D STEP4_GROUP_SIZE=32 "
                                                "-D STEP2_ROUNDS=65535");
}

TEST(Reduction, CommaFormRoundTrips)
{
    for (const ReductionParams& p : {ReductionParams{}, default_reduction(cpu()), default_reduction(gpu(64))}) {
        const std::string text = to_string(p);
        EXPECT_TRUE(parse_reduction(text) == p) << text;
        EXPECT_EQ(to_string(parse_reduction(text)), text);
        const ReductionOverrides o = parse_reduction_overrides(text);
        for (const auto& v : o.values)
            EXPECT_TRUE(v.has_value()) << "the comma form sets every parameter";
        EXPECT_TRUE(o == overrides_of(p));
    }
    const ReductionParams p = parse_reduction("128, 7, 1, 64, 4, 3, 32, 16");
    EXPECT_EQ(p.group_size, 128);
    EXPECT_EQ(p.step2_unsync, 64);
    EXPECT_EQ(p.step2_rounds, 16);
    EXPECT_EQ(to_string(p), "128,7,1,64,4,3,32,16");
}

TEST(Reduction, NamedFormOverridesSomeParameters)
{
    ReductionParams base = default_reduction(cpu());
    const ReductionOverrides o = parse_reduction_overrides("group-size=128,step2-unsync=64");
    EXPECT_FALSE(o.empty());
    EXPECT_EQ(to_string(o), "group-size=128,step2-unsync=64");
    EXPECT_TRUE(parse_reduction_overrides(to_string(o)) == o);
    const ReductionParams p = apply(base, o);
    EXPECT_EQ(p.group_size, 128);
    EXPECT_EQ(p.step2_unsync, 64);
    base.group_size = 128;
    base.step2_unsync = 64;
    EXPECT_TRUE(p == base) << "the others keep the base's values";
    EXPECT_TRUE(parse_reduction(" step2-unsync = 64 , group-size=128 ", default_reduction(cpu())) == p)
        << "any order, spaces";
    /* Nothing set. */
    EXPECT_TRUE(parse_reduction_overrides("").empty());
    EXPECT_EQ(to_string(ReductionOverrides{}), "");
    EXPECT_TRUE(apply(default_reduction(cpu()), ReductionOverrides{}) == default_reduction(cpu()));
}

TEST(Reduction, ParseRefusesBadTextSayingWhy)
{
    EXPECT_NE(error_of([] {
                  parse_reduction("256,7,1,16,4,3,32");
              }).find("8 comma-separated numbers"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("256,7,1,16,4,3,32,16,1");
              }).find("group-size,step1-unsync"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("256,7,x,16,4,3,32,16");
              }).find("step1-divisor"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("256,7,1.5,16,4,3,32,16");
              }).find("step1-divisor"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("256,7,1,16,4,17,32,16");
              }).find("step2-repeats"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("100,7,1,16,4,3,32,16");
              }).find("power of two"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("group-sise=128");
              }).find("\"group-sise\""),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("group-size=128,group-size=64");
              }).find("twice"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("group-size=128,64");
              }).find("\"64\" is not name=value"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("step2-unsync=70000");
              }).find("step2-unsync"),
              std::string::npos);
    EXPECT_NE(error_of([] {
                  parse_reduction("step4-group-size=");
              }).find("step4-group-size"),
              std::string::npos);
}
