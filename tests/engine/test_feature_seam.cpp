/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The engine's feature seam (gst/core/opencl/features/feature_kind.h,
 * kernels/cascade.cl): a feature type the model does not have, defined here
 * as a kind with its kernel source and its reference, runs on the reduction
 * and the row scan unchanged and matches its reference exactly; a kind
 * that needs an extension the device lacks is a device problem. Shows that
 * a feature type is a kind and one kernel file. meson.build runs it twice:
 * as the device picks, and with the GPU kernels' band layout.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/model/feature_types.h"
#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/features/feature_kind.h"
#include "core/reference/detector.h"
#include "support.h"

using namespace waldboost;
using namespace waldboost_test;
using waldboost::opencl::Engine;
using waldboost::opencl::EngineConfig;
using waldboost::opencl::ReductionParams;

namespace {

/* A feature type the model does not have, plugged in as the engine's seam
 * allows (gst/core/opencl/features/feature_kind.h, kernels/cascade.cl): the
 * centre block of an LBP feature's grid against a constant mean, whose bit
 * picks response 0 or 1 of the table. It shows that a feature type is a kind
 * and one kernel file: the reduction and the row scan run it unchanged. */
constexpr int kCentreMean = 128;

const char* const kCentreBlockKernels = R"CL(
#define FEATURE_NORMALISES 0
#define FEATURE_UNROLLS 1

/* features[t]: the centre block's x, y, width and height. */
static int centre_bit(const Cascade* c, int origin, int4 f)
{
    __global const integral_t* p = c->integral + origin + f.y * c->pitch + f.x;
    const uint sum = (p[0] - p[f.z] - p[f.w * c->pitch] + p[f.w * c->pitch + f.z]) & INTEGRAL_MASK;
    return sum >= (uint)(CENTRE_MEAN * f.z * f.w) ? 1 : 0;
}

static float feature_window_norm(const Cascade* c, int origin) { return 1.0f; }

static long feature_response(const Cascade* c, int origin, int t)
{
    return c->responses[2 * t + centre_bit(c, origin, c->features[t])];
}

static int feature_segment_end(const Cascade* c, int t, int stop) { return threshold_segment_end(c, t, stop); }

#ifdef ROW_SCAN
static float16 feature_window_norms(const Cascade* c, int origin, int step) { return (float16)1.0f; }

static long16 feature_responses(const Cascade* c, int origin, int step, int t, float16 norm)
{
    return responses_window_by_window(c, origin, step, t, norm);
}
#endif
)CL";

class CentreBlockKind : public waldboost::opencl::FeatureKind {
public:
    const char* name() const override { return "CENTRE"; }
    const char* kernel_file() const override { return "centre_block.cl (test)"; }
    std::string_view kernel_source() const override { return kCentreBlockKernels; }
    size_t table_size() const override { return 2; }
    waldboost::ResponseValues responses(const WeakClassifier& weak) const override
    {
        return {lbp_table(weak).data(), table_size()};
    }
    void pack(const Classifier& classifier, waldboost::opencl::PackedClassifier& p) const override
    {
        for (size_t t = 0; t < p.weak_count; ++t) {
            const LbpFeature& f = std::get<LbpFeature>(classifier.weak[t].feature);
            p.features[t] = {{f.x + f.block_width, f.y + f.block_height, f.block_width, f.block_height}};
            p.largest_block = std::max(p.largest_block, int64_t{f.block_width} * f.block_height);
            for (size_t i = 0; i < table_size(); ++i)
                p.responses.push_back(p.fixed_ceil(f.responses[i]));
        }
    }
    std::string build_defines(const waldboost::opencl::PackedClassifier&) const override
    {
        return " -D CENTRE_MEAN=" + std::to_string(kCentreMean);
    }
    waldboost::opencl::IntegralNeeds integrals(const waldboost::opencl::PackedClassifier&) const override { return {}; }
    bool narrow_sums_serve(const waldboost::opencl::PackedClassifier& p) const override
    {
        return p.largest_block * 255 <= 0xFFFF;
    }
};

/* The same feature in the reference's terms. */
float centre_block_response(const WeakClassifier& weak, const waldboost::LevelIntegrals& integrals, int wx, int wy,
                            float /*norm_factor*/)
{
    const LbpFeature& f = std::get<LbpFeature>(weak.feature);
    const int64_t sum =
        integrals.sum.block_sum(wx + f.x + f.block_width, wy + f.y + f.block_height, f.block_width, f.block_height);
    return lbp_table(weak)[sum >= int64_t{kCentreMean} * f.block_width * f.block_height ? 1 : 0];
}

}  // namespace

TEST(EngineFeatureSeam, AFeatureKindOfATestMatchesItsReferenceExactly)
{
    const CentreBlockKind kind;
    const waldboost::FeatureResponse reference_response = centre_block_response;
    std::mt19937 rng(20261126);
    const std::vector<Size> windows = {{24, 24}, {9, 9}, {20, 34}};
    const std::vector<Size> images = {{23, 30}, {97, 61}, {333, 250}};
    const std::vector<ReductionParams> sets = parameter_sets();
    size_t compared = 0;
    for (size_t k = 0; k < windows.size(); ++k) {
        const bool stages = k % 2 == 1;
        Classifier c = random_classifier(rng, windows[k].width, windows[k].height, 8 + 4 * static_cast<int>(k), stages);
        EngineConfig reduction = config_with(sets[k % sets.size()]);
        reduction.feature_kind = &kind;
        EngineConfig rows = rows_config();
        rows.feature_kind = &kind;
        Engine reduction_engine(c, reduction);
        Engine rows_engine(c, rows);
        bool differs_from_lbp = false;
        for (const Size& s : images) {
            const GrayImage img = random_image(rng, s.width, s.height);
            for (int stride : {0, 2}) {
                DetectParams params;
                params.stride = stride;
                params.min_neighbors = 0;
                params.scale_factor = 1.25;
                const auto reference = detect_raw(c, img.view(), params, nullptr, &reference_response);
                std::ostringstream what;
                what << "classifier " << k << ", image " << s.width << "x" << s.height << ", stride " << stride;
                expect_same_windows(reduction_engine.detect(img.view(), params).windows, reference,
                                    what.str() + ", reduction");
                expect_same_windows(rows_engine.detect(img.view(), params).windows, reference, what.str() + ", rows");
                /* Not the LBP feature's windows: the test's feature is another. */
                differs_from_lbp = differs_from_lbp || detect_raw(c, img.view(), params).size() != reference.size();
                compared += reference.size();
            }
        }
        EXPECT_TRUE(differs_from_lbp) << "classifier " << k << ": the test kind found what the LBP kind finds";
    }
    std::printf("accepted windows compared: %zu\n", compared);
    EXPECT_GT(compared, 100u) << "the classifiers accept too little for the comparison to mean much";
}

/* A feature kind the device cannot run (an extension it lacks, as Haar's
 * fp64 on Intel's Xe GPUs) is a device problem: NoDevice, which a fallback
 * list answers with its next device. */
TEST(EngineFeatureSeam, AnExtensionTheDeviceLacksIsADeviceProblem)
{
    class NeedsAnExtension final : public CentreBlockKind {
    public:
        const char* required_extension() const override { return "cl_waldboost_no_such_extension"; }
    };
    const NeedsAnExtension kind;
    std::mt19937 rng(7);
    EngineConfig config = rows_config();
    config.feature_kind = &kind;
    try {
        Engine engine(random_classifier(rng, 24, 24, 4, false), config);
        FAIL() << "an engine started without the extension its feature kind needs";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::NoDevice) << e.what();
        EXPECT_NE(std::string(e.what()).find("cl_waldboost_no_such_extension"), std::string::npos) << e.what();
    }
}

/* The engine picks a classifier's kind by its FeatureType, and each kind
 * takes its name and table size from the one list of feature types
 * (core/model/feature_types.h): a different kind per type. */
TEST(EngineFeatureSeam, EachFeatureTypeHasTheKindTheListNames)
{
    std::vector<const opencl::FeatureKind*> kinds;
    for (const FeatureTypeInfo& t : feature_types()) {
        SCOPED_TRACE(t.name);
        Classifier classifier;
        WeakClassifier weak;
        weak.feature = make_feature(t.type);
        classifier.weak.push_back(weak);
        const opencl::FeatureKind& kind = opencl::feature_kind(classifier);
        EXPECT_STREQ(kind.name(), t.name);
        EXPECT_EQ(kind.table_size(), t.table_size);
        EXPECT_EQ(std::count(kinds.begin(), kinds.end(), &kind), 0);
        kinds.push_back(&kind);
    }
}
