/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Tests of the classifier model, its two file formats and waldboost-convert.
 * Expected values come from the test's own files or from an independent
 * plain-text reading of Debian's OpenCV cascades, never from the loaders.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <limits>
#include <locale>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/embedded/default_classifier.h"
#include "core/model/classifier_io.h"
#include "core/model/model.h"
#include "core/text.h"
#include "fuzz/model_difference.h"
#include "test_support.h"

using namespace waldboost;
using waldboost_test::lbp;
using waldboost_test::lbp_table;

using waldboost_test::haar_dir;

namespace {

std::string env_or(const char* name, const std::string& fallback)
{
    const char* value = std::getenv(name);
    return value && *value ? value : fallback;
}

std::string cascade_dir()
{
    return env_or("WALDBOOST_CASCADE_DIR", "/usr/share/opencv4/lbpcascades");
}

std::string read_text(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

/* A fresh directory under /tmp, removed with everything in it. */
class TempDir {
public:
    TempDir()
    {
        char name[] = "/tmp/waldboost-io-test-XXXXXX";
        if (!::mkdtemp(name))
            throw std::runtime_error("mkdtemp failed");
        path_ = name;
    }
    ~TempDir()
    {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return path_ + "/" + name; }
    std::string write(const std::string& name, const std::string& content) const
    {
        const std::string path = file(name);
        std::ofstream out(path, std::ios::binary);
        out << content;
        return path;
    }
    std::vector<std::string> entries() const
    {
        std::vector<std::string> names;
        for (const auto& e : std::filesystem::directory_iterator(path_))
            names.push_back(e.path().filename().string());
        std::sort(names.begin(), names.end());
        return names;
    }
    const std::string& path() const { return path_; }

private:
    std::string path_;
};

/* Runs `fn`, expects waldboost::Error, and checks every fragment is in the
 * message. Returns the message. */
std::string expect_error(const std::function<void()>& fn, std::initializer_list<std::string> fragments)
{
    try {
        fn();
    } catch (const Error& e) {
        const std::string message = e.what();
        for (const auto& fragment : fragments)
            EXPECT_NE(message.find(fragment), std::string::npos) << "'" << fragment << "' not in: " << message;
        return message;
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "no error thrown";
    return {};
}

uint32_t bits(float f)
{
    uint32_t u;
    std::memcpy(&u, &f, sizeof u);
    return u;
}

/* Every field, floats compared bit for bit. */
void expect_identical(const Classifier& a, const Classifier& b, bool compare_label = true)
{
    if (compare_label) {
        EXPECT_EQ(a.label, b.label);
    }
    EXPECT_EQ(a.window_width, b.window_width);
    EXPECT_EQ(a.window_height, b.window_height);
    EXPECT_EQ(bits(a.final_threshold), bits(b.final_threshold));
    ASSERT_EQ(a.weak.size(), b.weak.size());
    for (size_t i = 0; i < a.weak.size(); ++i) {
        const WeakClassifier& x = a.weak[i];
        const WeakClassifier& y = b.weak[i];
        SCOPED_TRACE("weak classifier " + std::to_string(i));
        EXPECT_EQ(waldboost_compare::feature_difference(x, y), "");
        EXPECT_EQ(bits(x.reject_threshold), bits(y.reject_threshold));
        EXPECT_EQ(x.reset_sum_after, y.reset_sum_after);
        if (std::holds_alternative<waldboost::LbpFeature>(x.feature)) {
            EXPECT_EQ(std::memcmp(lbp_table(x).data(), lbp_table(y).data(), sizeof lbp_table(x)), 0);
        }
    }
}

/* 1-based line of the first occurrence of `needle` in `text`. */
int line_of(const std::string& text, const std::string& needle)
{
    const size_t pos = text.find(needle);
    EXPECT_NE(pos, std::string::npos) << needle;
    int line = 1;
    for (size_t i = 0; i < pos && i < text.size(); ++i)
        line += text[i] == '\n';
    return line;
}

std::string at_line(const std::string& path, const std::string& text, const std::string& needle)
{
    return path + ":" + std::to_string(line_of(text, needle)) + ":";
}

std::string replace_once(std::string text, const std::string& from, const std::string& to)
{
    const size_t pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    if (pos != std::string::npos)
        text.replace(pos, from.size(), to);
    return text;
}

/* n numbers, value i = base + step * i, written plainly. */
std::string number_list(size_t n, double base, double step)
{
    std::ostringstream out;
    out.imbue(std::locale::classic());
    out.precision(17);
    for (size_t i = 0; i < n; ++i)
        out << (i ? " " : "") << base + step * static_cast<double>(i);
    return out.str();
}

std::string feature_xml(const std::string& x, const std::string& y, const std::string& w, const std::string& h)
{
    return "<LBPFeature positionX=\"" + x + "\" positionY=\"" + y + "\" blockWidth=\"" + w + "\" blockHeight=\"" + h +
           "\" binMappingType=\"NONE\"/>";
}

std::string histogram_stage(const std::string& stage_attributes, const std::string& values, const std::string& feature)
{
    return "  <stage " + stage_attributes + ">\n    <HistogramWeakHypothesis predictionValues=\"" + values +
           "\">\n      " + feature + "\n    </HistogramWeakHypothesis>\n  </stage>\n";
}

std::string waldboost_doc(const std::string& root_attributes, const std::string& stages)
{
    return "<?xml version=\"1.0\"?>\n<WaldBoostClassifier " + root_attributes + ">\n" + stages +
           "</WaldBoostClassifier>\n";
}

const char* const kRoot24 = "classifierName=\"\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"";

/* A valid two-stage file used as the base for malformed variants. */
std::string valid_waldboost()
{
    return waldboost_doc(kRoot24, histogram_stage("posT=\"1e+50\" negT=\"-0.5\"", number_list(256, -1.0, 0.0078125),
                                                  feature_xml("7", "5", "2", "2")) +
                                      histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(256, 0.25, 0.0),
                                                      feature_xml("0", "0", "8", "8")));
}

/* ---- An independent plain-text reading of an OpenCV cascade ----------- */

std::vector<std::string> raw_elements(const std::string& text, const std::string& tag)
{
    std::vector<std::string> result;
    const std::string open = "<" + tag + ">";
    const std::string close = "</" + tag + ">";
    size_t pos = 0;
    while ((pos = text.find(open, pos)) != std::string::npos) {
        const size_t start = pos + open.size();
        const size_t end = text.find(close, start);
        result.push_back(text.substr(start, end - start));
        pos = end;
    }
    return result;
}

size_t count_of(const std::string& text, const std::string& needle)
{
    size_t n = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
        ++n;
    return n;
}

template <typename T>
std::vector<T> numbers(const std::string& text)
{
    std::istringstream in(text);
    in.imbue(std::locale::classic());
    std::vector<T> values;
    T v;
    while (in >> v)
        values.push_back(v);
    return values;
}

struct RawCascade {
    int width = 0;
    int height = 0;
    std::vector<double> stage_thresholds;
    std::vector<size_t> trees_per_stage;
    std::vector<std::vector<long long>> nodes;
    std::vector<std::vector<double>> leaves;
    std::vector<std::vector<int>> rects;
};

RawCascade read_raw(const std::string& text)
{
    RawCascade raw;
    raw.width = std::stoi(raw_elements(text, "width").at(0));
    raw.height = std::stoi(raw_elements(text, "height").at(0));
    for (const auto& s : raw_elements(text, "stageThreshold"))
        raw.stage_thresholds.push_back(numbers<double>(s).at(0));
    for (const auto& s : raw_elements(text, "internalNodes"))
        raw.nodes.push_back(numbers<long long>(s));
    for (const auto& s : raw_elements(text, "leafValues"))
        raw.leaves.push_back(numbers<double>(s));
    for (const auto& s : raw_elements(text, "rect"))
        raw.rects.push_back(numbers<int>(s));
    /* Trees of stage k lie between its threshold and the next one. */
    size_t pos = text.find("<stageThreshold>");
    while (pos != std::string::npos) {
        const size_t next = text.find("<stageThreshold>", pos + 1);
        const std::string part = text.substr(pos, next == std::string::npos ? std::string::npos : next - pos);
        raw.trees_per_stage.push_back(count_of(part, "<internalNodes>"));
        pos = next;
    }
    return raw;
}

struct KnownCascade {
    const char* stem;
    int width;
    int height;
    size_t stages;
    size_t trees;
    const char* label;
};

/* Counted by hand from Debian 12's opencv-data 4.6. */
const KnownCascade kCascades[] = {
    {"lbpcascade_frontalface", 24, 24, 20, 139, "face"},
    {"lbpcascade_frontalface_improved", 45, 45, 19, 149, "face"},
    {"lbpcascade_profileface", 20, 34, 16, 130, "profile-face"},
    {"lbpcascade_silverware", 12, 80, 16, 130, "silverware"},
    {"lbpcascade_frontalcatface", 24, 24, 20, 419, "cat-face"},
};

std::string cascade_path(const std::string& stem)
{
    return cascade_dir() + "/" + stem + ".xml";
}

/* Runs a shell command; returns its exit status (-1 when it did not exit). */
int run(const std::string& command)
{
    const int status = std::system(command.c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string shell_quote(const std::string& s)
{
    std::string out = "'";
    for (char c : s)
        out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string converter()
{
    return env_or("WALDBOOST_CONVERT", "");
}

WeakClassifier make_weak(int x, int y, int w, int h)
{
    WeakClassifier weak;
    weak.feature = waldboost::LbpFeature{x, y, w, h};
    for (size_t i = 0; i < lbp_table(weak).size(); ++i)
        lbp_table(weak)[i] = static_cast<float>(i) * 0.25f - 3.0f;
    return weak;
}

Classifier make_model()
{
    Classifier c;
    c.label = "thing";
    c.window_width = 24;
    c.window_height = 24;
    c.weak.push_back(make_weak(0, 0, 8, 8));
    c.weak.push_back(make_weak(20, 3, 1, 7));
    c.weak[0].reject_threshold = -1.5f;
    return c;
}

}  // namespace

/* ===================== WaldBoost XML ===================== */

TEST(WaldBoostXml, HistogramFileGivesExactFields)
{
    TempDir dir;
    const std::string values0 = number_list(256, -1.0, 0.0078125);  // exact in float
    const std::string text = waldboost_doc(
        "classifierName=\"face\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"20\" type=\"LBP\"",
        histogram_stage("posT=\"1e+50\" negT=\"-0.0657414\"", values0, feature_xml("7", "5", "2", "3")) +
            histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(256, 0.1, 0.0), feature_xml("0", "1", "8", "6")) +
            histogram_stage("posT=\"1e+50\"", number_list(256, -2.0, 0.0), feature_xml("21", "17", "1", "1")));
    const std::string path = dir.write("histogram.xml", text);
    const Classifier c = load_classifier_file(path);

    EXPECT_EQ(c.label, "face");
    EXPECT_EQ(c.window_width, 24);
    EXPECT_EQ(c.window_height, 20);
    EXPECT_EQ(c.final_threshold, 0.0f);
    ASSERT_EQ(c.weak.size(), 3u);
    EXPECT_EQ(c.stage_count(), 1u);

    EXPECT_EQ(lbp(c.weak[0]).x, 7);
    EXPECT_EQ(lbp(c.weak[0]).y, 5);
    EXPECT_EQ(lbp(c.weak[0]).block_width, 2);
    EXPECT_EQ(lbp(c.weak[0]).block_height, 3);
    EXPECT_EQ(c.weak[0].reject_threshold, -0.0657414f);
    EXPECT_FALSE(c.weak[0].reset_sum_after);
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[0])[i], static_cast<float>(-1.0 + 0.0078125 * i)) << i;

    EXPECT_EQ(c.weak[1].reject_threshold, kNoRejection);
    EXPECT_EQ(lbp(c.weak[1]).y, 1);
    EXPECT_EQ(lbp(c.weak[1]).block_height, 6);
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[1])[i], 0.1f);
    /* A missing negT means no rejection. */
    EXPECT_EQ(c.weak[2].reject_threshold, kNoRejection);
    EXPECT_EQ(lbp_table(c.weak[2])[255], -2.0f);
    EXPECT_EQ(lbp(c.weak[2]).x, 21);
}

TEST(WaldBoostXml, SizeAliasesAndDefaultLabel)
{
    const std::string text = waldboost_doc("classifierName=\"\" sizeX=\"20\" sizeY=\"30\" type=\"LBP\"",
                                           histogram_stage("negT=\"1.25\"", number_list(256, 0, 1), feature_xml("2", "3", "6", "9")));
    const Classifier c = load_classifier_memory(text, "alias.xml");
    EXPECT_EQ(c.window_width, 20);
    EXPECT_EQ(c.window_height, 30);
    EXPECT_EQ(c.label, "object");
    EXPECT_EQ(c.weak.at(0).reject_threshold, 1.25f);
    EXPECT_EQ(lbp_table(c.weak.at(0))[200], 200.0f);

    const std::string both = replace_once(text, "sizeX=\"20\"", "sizeX=\"20\" imageSizeX=\"20\"");
    expect_error([&] { load_classifier_memory(both, "both.xml"); }, {"both.xml:2:", "imageSizeX", "sizeX"});
    const std::string neither = replace_once(text, "sizeX=\"20\"", "");
    expect_error([&] { load_classifier_memory(neither, "neither.xml"); }, {"neither.xml:2:", "missing attribute imageSizeX"});
}

TEST(WaldBoostXml, DecisionTreeUsesBinMap)
{
    std::string bin_map;
    for (int i = 0; i < 256; ++i)
        bin_map += (i ? " " : "") + std::to_string((i * 7) % 3);
    const std::string text = waldboost_doc(
        kRoot24, "  <stage posT=\"1e+50\" negT=\"-3\">\n    <DecisionTreeWeakHypothesis predictionValues=\"1.5 -2.25 3\" binMap=\"" +
                     bin_map + "\">\n      " + feature_xml("1", "2", "3", "4") +
                     "\n    </DecisionTreeWeakHypothesis>\n  </stage>\n");
    const Classifier c = load_classifier_memory(text, "tree.xml");
    ASSERT_EQ(c.weak.size(), 1u);
    const float values[] = {1.5f, -2.25f, 3.0f};
    for (int i = 0; i < 256; ++i)
        EXPECT_EQ(lbp_table(c.weak[0])[i], values[(i * 7) % 3]) << i;
    EXPECT_EQ(c.weak[0].reject_threshold, -3.0f);
    EXPECT_EQ(lbp(c.weak[0]).block_height, 4);

    const std::string bad = replace_once(text, "binMap=\"0 ", "binMap=\"3 ");
    expect_error([&] { load_classifier_memory(bad, "tree.xml"); },
                 {"tree.xml:" + std::to_string(line_of(bad, "<DecisionTree")) + ":", "DecisionTreeWeakHypothesis",
                  "binMap", "3 is out of range (0 to 2)"});
    const std::string short_map = replace_once(text, "binMap=\"0 ", "binMap=\"");
    expect_error([&] { load_classifier_memory(short_map, "tree.xml"); }, {"binMap", "expected 256 integers, found 255"});
}

TEST(WaldBoostXml, ResetSumAndFinalThreshold)
{
    const std::string text = waldboost_doc(
        "classifierName=\"x\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\" finalThreshold=\"0.75\"",
        histogram_stage("posT=\"1e+50\" negT=\"-1e+50\" resetSum=\"0\"", number_list(256, 1, 0), feature_xml("0", "0", "1", "1")) +
            histogram_stage("posT=\"1e+50\" negT=\"-0.5\" resetSum=\"1\"", number_list(256, 1, 0), feature_xml("0", "0", "1", "1")) +
            histogram_stage("posT=\"1e+50\" negT=\"0.5\"", number_list(256, 1, 0), feature_xml("0", "0", "1", "1")));
    const Classifier c = load_classifier_memory(text, "reset.xml");
    EXPECT_EQ(c.final_threshold, 0.75f);
    ASSERT_EQ(c.weak.size(), 3u);
    EXPECT_FALSE(c.weak[0].reset_sum_after);
    EXPECT_TRUE(c.weak[1].reset_sum_after);
    EXPECT_FALSE(c.weak[2].reset_sum_after);
    EXPECT_EQ(c.weak[1].reject_threshold, -0.5f);
    EXPECT_EQ(c.stage_count(), 2u);

    expect_error([&] { load_classifier_memory(replace_once(text, "resetSum=\"1\"", "resetSum=\"yes\""), "r.xml"); },
                 {"r.xml:", "stage", "resetSum"});
}

TEST(WaldBoostXml, RoundTripIsIdentical)
{
    std::string bin_map;
    for (int i = 0; i < 256; ++i)
        bin_map += (i ? " " : "") + std::to_string(i % 2);
    const std::string text = waldboost_doc(
        "classifierName=\"a &lt;&amp;&quot; b\" sizeX=\"31\" sizeY=\"17\" type=\"LBP\" finalThreshold=\"-0.333333343\"",
        histogram_stage("posT=\"1e+50\" negT=\"-0.1\" resetSum=\"1\"", number_list(256, 1.0 / 3.0, 1e-7), feature_xml("1", "2", "3", "4")) +
            "  <stage negT=\"-1e+40\">\n    <DecisionTreeWeakHypothesis predictionValues=\"1e-30 -3.4e38\" binMap=\"" + bin_map +
            "\">\n      " + feature_xml("0", "0", "10", "5") + "\n    </DecisionTreeWeakHypothesis>\n  </stage>\n");
    const Classifier original = load_classifier_memory(text, "rt.xml");
    EXPECT_EQ(original.label, "a <&\" b");
    EXPECT_EQ(original.weak.at(1).reject_threshold, kNoRejection);
    const std::string written = write_waldboost_xml(original);
    const Classifier again = load_classifier_memory(written, "written.xml");
    expect_identical(original, again);
    EXPECT_EQ(write_waldboost_xml(again), written);
}

TEST(WaldBoostXml, WriterOutput)
{
    Classifier c = make_model();
    c.label = "<cat & \"dog\">";
    c.weak[1].reset_sum_after = true;
    c.weak[1].reject_threshold = 0.1f;
    c.final_threshold = 0.1f;
    const std::string xml = write_waldboost_xml(c);
    EXPECT_EQ(xml.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u) << xml.substr(0, 60);
    EXPECT_NE(xml.find("classifierName=\"&lt;cat &amp; &quot;dog&quot;&gt;\""), std::string::npos);
    /* The shortest text that reads back as the same float. */
    EXPECT_NE(xml.find("finalThreshold=\"0.1\""), std::string::npos);
    EXPECT_NE(xml.find("negT=\"-1.5\""), std::string::npos);
    EXPECT_EQ(count_of(xml, "posT=\"1e+50\""), 2u);
    EXPECT_EQ(count_of(xml, "resetSum=\"1\""), 1u);
    EXPECT_EQ(count_of(xml, "<HistogramWeakHypothesis"), 2u);
    c.weak[0].reject_threshold = kNoRejection;
    EXPECT_NE(write_waldboost_xml(c).find("negT=\"-1e+50\""), std::string::npos);
    expect_identical(load_classifier_memory(write_waldboost_xml(c), "w.xml"), c);

    /* Every float bit pattern class survives: subnormal, extremes, -0. */
    lbp_table(c.weak[0])[0] = std::numeric_limits<float>::denorm_min();
    lbp_table(c.weak[0])[1] = std::numeric_limits<float>::max();
    lbp_table(c.weak[0])[2] = -std::numeric_limits<float>::max();
    lbp_table(c.weak[0])[3] = -0.0f;
    lbp_table(c.weak[0])[4] = std::nextafter(1.0f, 2.0f);
    expect_identical(load_classifier_memory(write_waldboost_xml(c), "w.xml"), c);

    c.weak.clear();
    expect_error([&] { write_waldboost_xml(c); }, {"no weak classifiers"});
}

/* ===================== OpenCV cascades ===================== */

TEST(OpenCvCascade, AllFiveRealCascadesMatchThePlainText)
{
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string path = cascade_path(known.stem);
        const std::string text = read_text(path);
        ASSERT_FALSE(text.empty()) << path;
        const RawCascade raw = read_raw(text);
        const Classifier c = load_classifier_file(path);

        EXPECT_EQ(c.label, known.label);
        EXPECT_EQ(c.window_width, raw.width);
        EXPECT_EQ(c.window_height, raw.height);
        EXPECT_EQ(c.window_width, known.width);
        EXPECT_EQ(c.window_height, known.height);
        EXPECT_EQ(c.stage_count(), count_of(text, "<stageThreshold>"));
        EXPECT_EQ(c.stage_count(), known.stages);
        EXPECT_EQ(c.weak.size(), count_of(text, "<internalNodes>"));
        EXPECT_EQ(c.weak.size(), known.trees);
        ASSERT_EQ(raw.nodes.size(), c.weak.size());
        ASSERT_EQ(raw.leaves.size(), c.weak.size());

        /* Stage ends: threshold, reset, and nothing inside a stage. */
        size_t tree = 0;
        for (size_t s = 0; s < raw.stage_thresholds.size(); ++s) {
            for (size_t t = 0; t < raw.trees_per_stage[s]; ++t, ++tree) {
                const bool last = t + 1 == raw.trees_per_stage[s];
                EXPECT_EQ(c.weak[tree].reset_sum_after, last) << tree;
                if (last) {
                    const float expected = static_cast<float>(raw.stage_thresholds[s]) - 1e-5f;
                    EXPECT_EQ(bits(c.weak[tree].reject_threshold), bits(expected)) << "stage " << s;
                } else {
                    EXPECT_EQ(c.weak[tree].reject_threshold, kNoRejection) << tree;
                }
            }
        }
        EXPECT_EQ(tree, c.weak.size());
        EXPECT_EQ(bits(c.final_threshold), bits(static_cast<float>(raw.stage_thresholds.back()) - 1e-5f));

        /* Every tree's table from the subset bits, and its rectangle. */
        for (size_t i = 0; i < c.weak.size(); ++i) {
            const auto& n = raw.nodes[i];
            ASSERT_EQ(n.size(), 11u);
            ASSERT_EQ(raw.leaves[i].size(), 2u);
            const auto& rect = raw.rects.at(static_cast<size_t>(n[2]));
            EXPECT_EQ(lbp(c.weak[i]).x, rect[0]);
            EXPECT_EQ(lbp(c.weak[i]).y, rect[1]);
            EXPECT_EQ(lbp(c.weak[i]).block_width, rect[2]);
            EXPECT_EQ(lbp(c.weak[i]).block_height, rect[3]);
            int mismatches = 0;
            for (int code = 0; code < 256; ++code) {
                const uint32_t word = static_cast<uint32_t>(static_cast<int32_t>(n[3 + code / 32]));
                const bool bit = (word >> (code % 32)) & 1u;
                const float expected = static_cast<float>(raw.leaves[i][bit ? 0 : 1]);
                mismatches += bits(lbp_table(c.weak[i])[code]) != bits(expected);
            }
            EXPECT_EQ(mismatches, 0) << "tree " << i;
        }
    }
}

TEST(OpenCvCascade, RoundTripThroughWaldBoostXml)
{
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const Classifier original = load_classifier_file(cascade_path(known.stem));
        const std::string xml = write_waldboost_xml(original);
        EXPECT_EQ(detect_classifier_format(xml, "x"), ClassifierFormat::WaldBoostXml);
        expect_identical(original, load_classifier_memory(xml, "converted.xml"));
    }
}

TEST(OpenCvCascade, FormatDetectionAndLabels)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    EXPECT_EQ(detect_classifier_format(text, "f.xml"), ClassifierFormat::OpenCvCascade);
    EXPECT_EQ(detect_classifier_format(valid_waldboost(), "w.xml"), ClassifierFormat::WaldBoostXml);
    expect_error([&] { detect_classifier_format("<html/>", "page.html"); },
                 {"page.html: not a classifier file: root element <html> is neither WaldBoostClassifier nor opencv_storage"});
    EXPECT_EQ(load_classifier_memory(text, "/some/dir/lbpcascade_foo.xml").label, "foo");
    EXPECT_EQ(load_classifier_memory(text, "cascade.xml").label, "cascade");
    EXPECT_EQ(load_classifier_memory(text, "/x/").label, "object");
}

/* Debian's cascades read from OpenCV's files carry the labels of their
 * converted copies (classifiers/meson.build), the embedded default's
 * among them: the same cascade never detects two different labels. */
TEST(OpenCvCascade, DebianCascadesHaveTheirConvertedCopiesLabels)
{
    EXPECT_EQ(default_classifier().label, "face");
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string converted = env_or("WALDBOOST_CONVERTED_DIR", "build/classifiers") + "/" + known.stem + ".xml";
        EXPECT_EQ(load_classifier_file(cascade_path(known.stem)).label, load_classifier_file(converted).label);
    }
    /* The rule is the file name, wherever the file is. */
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    EXPECT_EQ(load_classifier_memory(text, "/elsewhere/lbpcascade_frontalface.xml").label, "face");
    EXPECT_EQ(load_classifier_memory(text, "lbpcascade_frontalcatface.xml").label, "cat-face");
    EXPECT_EQ(load_classifier_memory(text, "lbpcascade_frontalface_v2.xml").label, "frontalface_v2");
}

TEST(OpenCvCascade, CommentsAndWhitespaceInsideValues)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const Classifier original = load_classifier_memory(text, "lbpcascade_frontalface.xml");
    std::string commented = replace_once(text, "0 -1 46 -67130709", "0 -1 <!-- split -->46\n\t -67130709");
    commented = replace_once(commented, "<stageThreshold>-0.7520892024040222",
                             "<stageThreshold><!-- c -->\n  -0.7520892024040222<!-- d -->");
    expect_identical(original, load_classifier_memory(commented, "lbpcascade_frontalface.xml"));
}

TEST(OpenCvCascade, UnsupportedKindsAreRefused)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";
    const std::string hog = replace_once(text, "<featureType>LBP", "<featureType>HOG");
    expect_error([&] { load_classifier_memory(hog, name); }, {at_line(name, hog, "<featureType>"), "HOG", "not supported"});
    const std::string gab = replace_once(text, "<stageType>BOOST", "<stageType>CASCADE");
    expect_error([&] { load_classifier_memory(gab, name); }, {at_line(name, gab, "<stageType>"), "CASCADE", "not supported"});
    const std::string cats = replace_once(text, "<maxCatCount>256", "<maxCatCount>0");
    expect_error([&] { load_classifier_memory(cats, name); }, {at_line(name, cats, "<maxCatCount>"), "maxCatCount", "not supported"});

    /* A depth-2 tree: two nodes of 11 integers and three leaves. */
    const std::string first_nodes =
        "0 -1 46 -67130709 -21569 -1426120013 -1275125205 -21585\r\n            -16385 587145899 -24005";
    const std::string deep = replace_once(text, first_nodes, "1 -1 46 1 2 3 4 5 6 7 8\n 0 -2 13 1 2 3 4 5 6 7 8");
    expect_error([&] { load_classifier_memory(deep, name); },
                 {at_line(name, deep, "<internalNodes>"), "internalNodes", "stage 0, tree 0", "2 nodes", "not supported"});
    const std::string three_leaves = replace_once(text, "-0.6543210148811340 0.8888888955116272", "-0.65 0.88 0.5");
    expect_error([&] { load_classifier_memory(three_leaves, name); }, {"leafValues", "not supported"});
}

TEST(OpenCvCascade, MalformedCascades)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";

    const std::string bad_index = replace_once(text, "0 -1 46 -67130709", "0 -1 4600 -67130709");
    expect_error([&] { load_classifier_memory(bad_index, name); },
                 {at_line(name, bad_index, "<internalNodes>"), "featureIndex 4600 is out of range", "136 features"});
    const std::string ten = replace_once(text, "0 -1 46 -67130709", "0 -1 46");
    expect_error([&] { load_classifier_memory(ten, name); }, {"internalNodes", "expected 11 integers", "found 10"});
    const std::string garbage = replace_once(text, "-67130709", "-67130709x");
    expect_error([&] { load_classifier_memory(garbage, name); }, {"internalNodes", "'-67130709x' is not an integer"});
    const std::string big = replace_once(text, "-67130709", "4294967296");
    expect_error([&] { load_classifier_memory(big, name); }, {"internalNodes", "out of range"});
    const std::string nan_leaf = replace_once(text, "-0.6543210148811340 ", "nan ");
    expect_error([&] { load_classifier_memory(nan_leaf, name); }, {"leafValues", "not a finite number"});

    /* Feature 0 is "0 0 3 5"; make it stick out of the 24x24 window. */
    const std::string outside = replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        16 0 3 5</rect>");
    expect_error([&] { load_classifier_memory(outside, name); },
                 {at_line(name, outside, "<rect>"), "feature 0", "feature (x=16, y=0, 3 blocks of 3x5) does not fit the 24x24 window"});
    const std::string zero = replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        0 0 0 5</rect>");
    expect_error([&] { load_classifier_memory(zero, name); }, {"rect", "feature 0", "empty"});
    const std::string negative = replace_once(text, "<rect>\r\n        0 0 3 5</rect>", "<rect>\r\n        -1 0 3 5</rect>");
    expect_error([&] { load_classifier_memory(negative, name); }, {"rect", "-1 is out of range"});

    /* Stage 0 without trees. */
    const size_t begin = text.find("<weakClassifiers>");
    const size_t end = text.find("</weakClassifiers>");
    std::string empty_stage = text;
    empty_stage.replace(begin, end - begin, "<weakClassifiers>");
    expect_error([&] { load_classifier_memory(empty_stage, name); }, {name + ":", "stage 0", "no trees"});

    const std::string unknown = replace_once(text, "<stageThreshold>", "<bogus/><stageThreshold>");
    expect_error([&] { load_classifier_memory(unknown, name); }, {at_line(name, unknown, "<bogus/>"), "bogus", "unknown element"});
    const std::string no_width = replace_once(text, "<width>24</width>", "");
    expect_error([&] { load_classifier_memory(no_width, name); }, {name + ":", "cascade", "missing element <width>"});
    const std::string huge = replace_once(text, "<width>24</width>", "<width>5000</width>");
    expect_error([&] { load_classifier_memory(huge, name); }, {"width", "5000 is out of range"});
}

/* ===================== OpenCV Haar cascades ===================== */

size_t occurrences(const std::string& text, const std::string& needle)
{
    size_t count = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
        ++count;
    return count;
}

std::vector<std::string> debian_haar_cascades()
{
    std::vector<std::string> paths;
    for (const auto& e : std::filesystem::directory_iterator(haar_dir())) {
        const std::string name = e.path().filename().string();
        if (name.rfind("haarcascade_", 0) == 0 && e.path().extension() == ".xml")
            paths.push_back(e.path().string());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

const HaarTree& tree_of(const Classifier& c, size_t i) { return std::get<HaarTree>(c.weak.at(i).feature); }

/* Trees and stages as the files' own text counts them; the window as
 * written; every tree a proper tree (validate() ran in the loader). */
TEST(HaarCascade, EveryDebianCascadeLoadsWithTheStructureOfItsText)
{
    const auto cascades = debian_haar_cascades();
    ASSERT_EQ(cascades.size(), 17u) << haar_dir();
    size_t tilted = 0, deep_trees = 0;
    for (const std::string& path : cascades) {
        SCOPED_TRACE(path);
        const std::string text = read_text(path);
        const Classifier c = load_classifier_file(path);
        EXPECT_TRUE(c.is_haar());
        const bool old_format = text.find("opencv-haar-classifier") != std::string::npos;
        const size_t trees = old_format ? occurrences(text, "<!-- tree ") : occurrences(text, "<internalNodes>");
        const size_t stages = old_format ? occurrences(text, "<stage_threshold>") : occurrences(text, "<stageThreshold>");
        EXPECT_EQ(c.weak.size(), trees);
        EXPECT_EQ(c.stage_count(), stages);
        if (!old_format) {
            EXPECT_NE(text.find("<width>" + std::to_string(c.window_width) + "</width>"), std::string::npos);
            EXPECT_NE(text.find("<height>" + std::to_string(c.window_height) + "</height>"), std::string::npos);
        }
        for (const WeakClassifier& w : c.weak) {
            const HaarTree& t = std::get<HaarTree>(w.feature);
            deep_trees += t.nodes.size() > 1;
            for (const HaarNode& n : t.nodes)
                tilted += n.feature.tilted;
        }
        EXPECT_NE(c.label, "object");
    }
    /* Tree cascades (alt2, eye_tree_eyeglasses, the 2splits eyes) and tilted
     * features are among them. */
    EXPECT_GT(deep_trees, 1000u);
    EXPECT_GT(tilted, 1000u);
}

/* A Haar cascade the loader reads is one the writer can write: OpenCV's
 * files store each value in 23 characters and a feature once, and the
 * writer's indented XML took about 1.16 times their bytes, so cascades from
 * 8.6 MB to the 10 MB limit loaded but could not be converted. Here 11
 * copies of haarcascade_frontalface_default (each with its own features, as
 * opencv_traincascade writes them): 9.8 MB. */
TEST(HaarCascade, LargeCascadesTheLoaderReadsCanBeWritten)
{
    const std::string text = read_text(haar_dir() + "/haarcascade_frontalface_default.xml");
    const auto inner = [&](const std::string& tag) {
        const size_t open = text.find("<" + tag + ">"), close = text.rfind("</" + tag + ">");
        EXPECT_NE(open, std::string::npos);
        EXPECT_NE(close, std::string::npos);
        const size_t start = open + tag.size() + 2;
        return std::make_pair(start, close);
    };
    const auto [stages_begin, stages_end] = inner("stages");
    const auto [features_begin, features_end] = inner("features");
    const std::string stages = text.substr(stages_begin, stages_end - stages_begin);
    const std::string features = text.substr(features_begin, features_end - features_begin);
    const Classifier one = load_classifier_memory(text, "one.xml");
    size_t feature_count = 0;
    for (size_t at = 0; (at = features.find("<rects>", at)) != std::string::npos; ++at)
        ++feature_count;
    ASSERT_EQ(feature_count, one.weak.size()); /* stumps, a feature each */

    /* Copy k's stumps name copy k's features: "0 -1 INDEX THRESHOLD". */
    const auto stages_copy = [&](size_t k) {
        std::string out;
        size_t at = 0;
        const std::string tag = "<internalNodes>";
        for (size_t open; (open = stages.find(tag, at)) != std::string::npos;) {
            const size_t close = stages.find("</internalNodes>", open);
            std::istringstream tokens(stages.substr(open + tag.size(), close - open - tag.size()));
            std::string left, right, threshold;
            size_t index = 0;
            tokens >> left >> right >> index >> threshold;
            out += stages.substr(at, open - at) + tag + left + " " + right + " " +
                   std::to_string(index + k * feature_count) + " " + threshold;
            at = close;
        }
        return out + stages.substr(at);
    };
    constexpr size_t kCopies = 11;
    std::string big_text = text.substr(0, stages_begin);
    for (size_t k = 0; k < kCopies; ++k)
        big_text += stages_copy(k);
    big_text += text.substr(stages_end, features_begin - stages_end);
    for (size_t k = 0; k < kCopies; ++k)
        big_text += features;
    big_text += text.substr(features_end);
    ASSERT_GT(big_text.size(), 9500000u);
    ASSERT_LE(big_text.size(), ModelLimits::kMaxFileBytes);

    const Classifier big = load_classifier_memory(big_text, "big.xml");
    ASSERT_EQ(big.weak.size(), kCopies * one.weak.size());
    std::string written;
    try {
        written = write_waldboost_xml(big);
    } catch (const Error& e) {
        FAIL() << "a " << big_text.size() << "-byte cascade the loader reads could not be written: " << e.what();
    }
    EXPECT_LE(written.size(), ModelLimits::kMaxFileBytes);
    expect_identical(load_classifier_memory(written, "big-converted.xml"), big);
    /* Small files keep their indentation, for readers. */
    EXPECT_NE(write_waldboost_xml(one).find("\n  <stage"), std::string::npos);
}

TEST(HaarCascade, FieldsDecodeAsWritten)
{
    /* Stump: "0 -1 0 -3.1511999666690826e-02", leaves 2.0875... -2.2172...,
     * feature 0 = "6 4 12 9 -1." and "6 7 12 3 3.". */
    const Classifier d = load_classifier_file(haar_dir() + "/haarcascade_frontalface_default.xml");
    EXPECT_EQ(d.window_width, 24);
    EXPECT_EQ(d.label, "face");
    const HaarTree& stump = tree_of(d, 0);
    ASSERT_EQ(stump.nodes.size(), 1u);
    EXPECT_EQ(bits(stump.nodes[0].threshold), bits(static_cast<float>(-3.1511999666690826e-02)));
    EXPECT_EQ(stump.leaves, (std::vector<float>{static_cast<float>(2.0875380039215088e+00),
                                               static_cast<float>(-2.2172100543975830e+00)}));
    EXPECT_EQ(stump.nodes[0].feature.rects, (std::vector<HaarRect>{{6, 4, 12, 9, -1.0f}, {6, 7, 12, 3, 3.0f}}));
    EXPECT_FALSE(stump.nodes[0].feature.tilted);

    /* Tree: "2 1 0 t0  0 -1 1 t1  -2 -3 2 t2": the root goes left to node 2
     * and right to node 1; node 1 to leaves 0 and 1; node 2 to 2 and 3. */
    const Classifier e = load_classifier_file(haar_dir() + "/haarcascade_eye_tree_eyeglasses.xml");
    const HaarTree& tree = tree_of(e, 0);
    ASSERT_EQ(tree.nodes.size(), 3u);
    ASSERT_EQ(tree.leaves.size(), 4u);
    EXPECT_TRUE((tree.nodes[0].left == HaarNode::Child{false, 2}) && (tree.nodes[0].right == HaarNode::Child{false, 1}));
    EXPECT_TRUE((tree.nodes[1].left == HaarNode::Child{true, 0}) && (tree.nodes[1].right == HaarNode::Child{true, 1}));
    EXPECT_TRUE((tree.nodes[2].left == HaarNode::Child{true, 2}) && (tree.nodes[2].right == HaarNode::Child{true, 3}));
    EXPECT_EQ(bits(tree.nodes[2].threshold), bits(static_cast<float>(-1.2915390729904175e-01)));

    /* The old format: window "64 16", tree 0's two rectangles, threshold
     * and values. */
    const Classifier p = load_classifier_file(haar_dir() + "/haarcascade_licence_plate_rus_16stages.xml");
    EXPECT_EQ(p.window_width, 64);
    EXPECT_EQ(p.window_height, 16);
    EXPECT_EQ(p.label, "licence-plate");
    const HaarTree& old = tree_of(p, 0);
    EXPECT_EQ(old.nodes[0].feature.rects, (std::vector<HaarRect>{{32, 2, 8, 6, -1.0f}, {32, 4, 8, 2, 3.0f}}));
    EXPECT_EQ(bits(old.nodes[0].threshold), bits(static_cast<float>(1.6915600746870041e-002)));
    EXPECT_EQ(old.leaves, (std::vector<float>{static_cast<float>(-9.5547717809677124e-001),
                                             static_cast<float>(8.9129137992858887e-001)}));
    /* The stage threshold, in float less OpenCV's 1e-5 epsilon. */
    EXPECT_TRUE(p.weak[0].reject_threshold == kNoRejection);
}

TEST(HaarCascade, EveryDebianCascadeRoundTripsThroughWaldBoostXml)
{
    /* 5 of the 17, spread over the list, at the small size (the sanitizer
     * run). */
    for (const std::string& path : waldboost_test::sample(debian_haar_cascades(), 5)) {
        SCOPED_TRACE(path);
        const Classifier original = load_classifier_file(path);
        const std::string xml = write_waldboost_xml(original);
        EXPECT_EQ(detect_classifier_format(xml, "x"), ClassifierFormat::WaldBoostXml);
        const Classifier back = load_classifier_memory(xml, "converted.xml");
        expect_identical(original, back);
        EXPECT_EQ(write_waldboost_xml(back), xml);
    }
}

TEST(HaarCascade, HostileFilesGetAClearErrorNamingTheFileAndLine)
{
    const std::string name = "haarcascade_frontalface_default.xml";
    const std::string text = read_text(haar_dir() + "/" + name);
    const std::string rect = "<_>\n          6 4 12 9 -1.</_>";
    ASSERT_NE(text.find(rect), std::string::npos);
    const auto with_rect = [&](const std::string& replacement) { return replace_once(text, rect, replacement); };

    const std::string outside = with_rect("<_>\n          16 4 12 9 -1.</_>");
    expect_error([&] { load_classifier_memory(outside, name); },
                 {at_line(name, outside, "<_>\n      <rects>"), "feature 0", "rectangle (x=16, y=4, 12x9) does not fit the 24x24 window"});
    const std::string not_finite = with_rect("<_>\n          6 4 12 9 nan</_>");
    expect_error([&] { load_classifier_memory(not_finite, name); }, {name + ":", "feature 0, rectangle 0: weight", "'nan' is not a finite number"});
    const std::string infinite = with_rect("<_>\n          6 4 12 9 inf</_>");
    expect_error([&] { load_classifier_memory(infinite, name); }, {name + ":", "weight", "'inf' is not a finite number"});
    const std::string huge = with_rect("<_>\n          6 4 12 9 1e308</_>");
    expect_error([&] { load_classifier_memory(huge, name); }, {name + ":", "weight", "'1e308' is outside the range of a float"});
    const std::string huge_threshold = replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 0 1e308");
    expect_error([&] { load_classifier_memory(huge_threshold, name); },
                 {name + ":", "stage 0, tree 0, node 0: threshold", "'1e308' is outside the range of a float"});
    const std::string four = with_rect(rect + rect + rect + rect);
    expect_error([&] { load_classifier_memory(four, name); }, {name + ":", "feature 0", "more than 3 rectangles"});
    const std::string short_rect = with_rect("<_>\n          6 4 12 -1.</_>");
    expect_error([&] { load_classifier_memory(short_rect, name); }, {name + ":", "expected 5 values"});
    const std::string bad_feature = replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 99999 -3.1511999666690826e-02");
    expect_error([&] { load_classifier_memory(bad_feature, name); },
                 {at_line(name, bad_feature, "<internalNodes>"), "stage 0, tree 0, node 0", "featureIndex 99999 is out of range"});
    const std::string no_threshold = replace_once(text, "0 -1 0 -3.1511999666690826e-02", "0 -1 0");
    expect_error([&] { load_classifier_memory(no_threshold, name); }, {name + ":", "groups of 4 values"});
    const std::string one_leaf = replace_once(text, "2.0875380039215088e+00 -2.2172100543975830e+00", "2.0875380039215088e+00");
    expect_error([&] { load_classifier_memory(one_leaf, name); }, {name + ":", "leafValues", "expected 2 numbers, found 1"});
    const std::string truncated = text.substr(0, text.size() / 2);
    try {
        load_classifier_memory(truncated, name);
        ADD_FAILURE() << "a truncated file loaded";
    } catch (const Error& e) {
        EXPECT_EQ(e.kind(), ErrorKind::ClassifierFile);
        EXPECT_EQ(std::string(e.what()).rfind(name + ":", 0), 0u) << e.what();
    }

    /* Trees whose nodes loop or point outside (eye_tree_eyeglasses' tree 0:
     * "2 1 0 t  0 -1 1 t  -2 -3 2 t"). */
    const std::string tree_name = "haarcascade_eye_tree_eyeglasses.xml";
    const std::string tree_text = read_text(haar_dir() + "/" + tree_name);
    const std::string first = "2 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02";
    ASSERT_NE(tree_text.find(first), std::string::npos);
    for (const auto& [nodes, fragment] : std::vector<std::pair<std::string, std::string>>{
             {"2 1 0 -2.6987109333276749e-02 1 -1 1 5.0670530647039413e-02", "node 1: child node 1 must come after its parent"},
             {"2 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02 -2 -3 2 -1.29e-01 -3", "groups of 4 values"},
             {"7 1 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02", "node 0: child node 7 must come after its parent and exist"},
             {"2 2 0 -2.6987109333276749e-02 0 -1 1 5.0670530647039413e-02", "node 1 is reached from 0 parents"},
             {"2 1 0 -2.6987109333276749e-02 0 -2 1 5.0670530647039413e-02", "leaf 1 is reached from 0 parents"},
             {"2 1 0 -2.6987109333276749e-02 0 -9 1 5.0670530647039413e-02", "leaf 9 does not exist"},
         }) {
        SCOPED_TRACE(nodes);
        const std::string bad = replace_once(tree_text, first, nodes);
        expect_error([&] { load_classifier_memory(bad, tree_name); },
                     {at_line(tree_name, bad, "<internalNodes>"), "stage 0, tree 0", fragment});
    }

    /* A tilted rectangle sticking out on the left (x - height < 0). */
    const std::string body_name = "haarcascade_fullbody.xml";
    const std::string body = read_text(haar_dir() + "/" + body_name);
    const std::string tilted = "<_>\n          8 14 3 4 2.</_></rects>\n      <tilted>1</tilted>";
    ASSERT_NE(body.find(tilted), std::string::npos);
    const std::string left = replace_once(body, tilted, "<_>\n          3 14 3 4 2.</_></rects>\n      <tilted>1</tilted>");
    expect_error([&] { load_classifier_memory(left, body_name); },
                 {body_name + ":", "tilted rectangle (x=3, y=14, 3x4) does not fit the 14x28 window"});

    /* The old format: a node with neither a value nor a node on one side,
     * and one pointing back at the root. */
    const std::string old_name = "haarcascade_licence_plate_rus_16stages.xml";
    const std::string old_text = read_text(haar_dir() + "/" + old_name);
    const std::string left_value = "<left_val>-9.5547717809677124e-001</left_val>";
    ASSERT_NE(old_text.find(left_value), std::string::npos);
    expect_error([&] { load_classifier_memory(replace_once(old_text, left_value, ""), old_name); },
                 {old_name + ":", "stage 0, tree 0, node 0", "missing <left_val> or <left_node>"});
    expect_error([&] { load_classifier_memory(replace_once(old_text, left_value, "<left_node>0</left_node>"), old_name); },
                 {old_name + ":", "left_node", "0 is out of range"});
    expect_error([&] { load_classifier_memory(replace_once(old_text, left_value, "<left_node>1</left_node>"), old_name); },
                 {old_name + ":", "stage 0, tree 0", "a Haar tree of 1 nodes has 1 leaves"});
    expect_error([&] { load_classifier_memory(replace_once(old_text, "64 16</size>", "64</size>"), old_name); },
                 {old_name + ":", "size", "expected 2"});
}

TEST(HaarCascade, WaldBoostXmlHaarFormIsStrict)
{
    const Classifier stump = load_classifier_file(haar_dir() + "/haarcascade_frontalface_default.xml");
    const std::string xml = write_waldboost_xml(stump);
    const std::string name = "wb.xml";
    const std::string node = "<HaarNode threshold=\"-0.031512\" left=\"leaf 0\" right=\"leaf 1\">";
    ASSERT_NE(xml.find(node), std::string::npos) << xml.substr(0, 600);
    for (const auto& [from, to, fragment] : std::vector<std::tuple<std::string, std::string, std::string>>{
             {"left=\"leaf 0\"", "left=\"leaf0\"", "is not \"leaf N\" or \"node N\""},
             {"left=\"leaf 0\"", "left=\"node 0\"", "child node 0 must come after its parent"},
             {"left=\"leaf 0\"", "left=\"leaf 1\"", "leaf 0 is reached from 0 parents"},
             {"<rect x=\"6\"", "<rect x=\"16\"", "does not fit the 24x24 window"},
             {"weight=\"-1\"", "weight=\"inf\"", "not a finite number"},
             {"<rect x=\"6\"", "<box/><rect x=\"6\"", "unknown element (expected <rect> inside <HaarNode>)"},
             {"threshold=\"-0.031512\"", "threshold=\"-0.03\" tilted=\"2\"", "attribute tilted: '2' is not 0 or 1"},
             {"<HaarTreeWeakHypothesis leafValues=\"2.087538 -2.21721\">", "<HaarTreeWeakHypothesis leafValues=\"2.087538\">", "expected 2 numbers, found 1"},
         }) {
        SCOPED_TRACE(from + " -> " + to);
        const std::string bad = replace_once(xml, from, to);
        expect_error([&] { load_classifier_memory(bad, name); }, {name + ":", fragment});
    }
}

/* ===================== Rank features (LRD, LRP) ===================== */

namespace {

std::string rank_feature_xml(const std::string& x, const std::string& y, const std::string& w, const std::string& h,
                             const std::string& a, const std::string& b)
{
    return "<RankFeature positionX=\"" + x + "\" positionY=\"" + y + "\" blockWidth=\"" + w + "\" blockHeight=\"" + h +
           "\" blockA=\"" + a + "\" blockB=\"" + b + "\"/>";
}

/* A valid two-stage LRD (17 values) or LRP (81 values) file. */
std::string valid_rank(const std::string& type)
{
    const size_t n = type == "LRD" ? 17 : 81;
    return waldboost_doc("classifierName=\"eye\" minStdDev=\"0\" imageSizeX=\"24\" imageSizeY=\"20\" type=\"" + type + "\"",
                         histogram_stage("posT=\"1e+50\" negT=\"-0.5\"", number_list(n, -1.0, 0.0078125),
                                         rank_feature_xml("7", "5", "2", "3", "0", "8")) +
                             histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(n, 0.25, 0.125),
                                             rank_feature_xml("21", "11", "1", "3", "4", "3")));
}

const RankFeature& rank_of(const Classifier& c, size_t i) { return std::get<RankFeature>(c.weak.at(i).feature); }

}  // namespace

TEST(RankFeatures, ValidFilesGiveExactFields)
{
    for (const std::string type : {"LRD", "LRP"}) {
        SCOPED_TRACE(type);
        const size_t n = type == "LRD" ? 17 : 81;
        const Classifier c = load_classifier_memory(valid_rank(type), "rank.xml");
        EXPECT_EQ(c.label, "eye");
        EXPECT_EQ(c.window_width, 24);
        EXPECT_EQ(c.window_height, 20);
        ASSERT_EQ(c.weak.size(), 2u);
        EXPECT_STREQ(feature_type_name(c.weak[0].feature), type.c_str());
        const RankFeature& f = rank_of(c, 0);
        EXPECT_EQ(f.kind, type == "LRD" ? RankFeature::Kind::Difference : RankFeature::Kind::Pair);
        EXPECT_EQ(f.x, 7);
        EXPECT_EQ(f.y, 5);
        EXPECT_EQ(f.block_width, 2);
        EXPECT_EQ(f.block_height, 3);
        EXPECT_EQ(f.block_a, 0);
        EXPECT_EQ(f.block_b, 8);
        ASSERT_EQ(f.responses.size(), n);
        for (size_t i = 0; i < n; ++i)
            EXPECT_EQ(f.responses[i], static_cast<float>(-1.0 + 0.0078125 * static_cast<double>(i))) << i;
        EXPECT_EQ(c.weak[0].reject_threshold, -0.5f);
        EXPECT_EQ(c.weak[1].reject_threshold, kNoRejection);
        /* A grid that ends exactly at the window's edge fits. */
        EXPECT_EQ(rank_of(c, 1).x + 3 * rank_of(c, 1).block_width, 24);
        EXPECT_EQ(rank_of(c, 1).y + 3 * rank_of(c, 1).block_height, 20);
        EXPECT_EQ(rank_of(c, 1).block_a, 4);
        EXPECT_EQ(rank_of(c, 1).block_b, 3);
        EXPECT_EQ(rank_of(c, 1).responses.back(), static_cast<float>(0.25 + 0.125 * static_cast<double>(n - 1)));
    }
}

TEST(RankFeatures, RoundTripIsIdentical)
{
    for (const std::string type : {"LRD", "LRP"}) {
        SCOPED_TRACE(type);
        Classifier original = load_classifier_memory(valid_rank(type), "rank.xml");
        /* Values that need every digit, a stage reset and a final threshold. */
        std::get<RankFeature>(original.weak[1].feature).responses[3] = 1.0f / 3.0f;
        std::get<RankFeature>(original.weak[1].feature).responses[5] = -3.4e38f;
        original.weak[0].reset_sum_after = true;
        original.final_threshold = -0.333333343f;
        const std::string written = write_waldboost_xml(original);
        EXPECT_NE(written.find("type=\"" + type + "\""), std::string::npos) << written.substr(0, 300);
        EXPECT_NE(written.find("<RankFeature positionX=\"7\" positionY=\"5\" blockWidth=\"2\" blockHeight=\"3\" "
                               "blockA=\"0\" blockB=\"8\"/>"),
                  std::string::npos)
            << written;
        const Classifier again = load_classifier_memory(written, "written.xml");
        expect_identical(original, again);
        EXPECT_EQ(write_waldboost_xml(again), written);
    }
    /* The comparison the round trips rely on sees each field. */
    const Classifier base = load_classifier_memory(valid_rank("LRP"), "rank.xml");
    for (const auto& change : std::vector<std::function<void(RankFeature&)>>{
             [](RankFeature& f) { f.block_a = 1; }, [](RankFeature& f) { f.block_b = 1; },
             [](RankFeature& f) { f.x = 1; }, [](RankFeature& f) { f.block_height = 1; },
             [](RankFeature& f) { f.kind = RankFeature::Kind::Difference; },
             [](RankFeature& f) { f.responses[80] = 0.0f; }}) {
        Classifier other = base;
        change(std::get<RankFeature>(other.weak[0].feature));
        EXPECT_NE(waldboost_compare::feature_difference(base.weak[0], other.weak[0]), "");
    }
}

TEST(RankFeatures, MalformedFilesAreRefusedNamingTheProblem)
{
    const std::string name = "rank.xml";
    struct Case {
        std::string type;
        std::string from;
        std::string to;
        std::vector<std::string> fragments;
        std::string line_needle;  // the element whose line the message names
    };
    const std::string lrd = number_list(17, 0.25, 0.125);
    const std::string lrp = number_list(81, 0.25, 0.125);
    const std::string lbp = number_list(256, 0.25, 0.125);
    const std::vector<Case> cases = {
        {"LRD", lrd, number_list(16, 0.25, 0.125), {"HistogramWeakHypothesis", "predictionValues", "expected 17 numbers, found 16"}, "predictionValues=\"0.25"},
        {"LRD", lrd, number_list(18, 0.25, 0.125), {"predictionValues", "expected 17 numbers, found 18"}, "predictionValues=\"0.25"},
        {"LRD", lrd, lrp, {"predictionValues", "expected 17 numbers, found 81"}, "predictionValues=\"0.25"},
        {"LRP", lrp, lrd, {"predictionValues", "expected 81 numbers, found 17"}, "predictionValues=\"0.25"},
        {"LRP", lrp, lbp, {"predictionValues", "expected 81 numbers, found 256"}, "predictionValues=\"0.25"},
        {"LRD", lrd, number_list(16, 0.25, 0.125) + " nan", {"predictionValues", "value 16", "'nan' is not a finite number"}, "predictionValues=\"0.25"},
        {"LRP", lrp, "inf " + number_list(80, 0.25, 0.125), {"predictionValues", "value 0", "'inf' is not a finite number"}, "predictionValues=\"inf"},
        {"LRD", "blockA=\"4\"", "blockA=\"9\"", {"RankFeature", "blockA", "9 is out of range (0 to 8)"}, "blockA=\"9\""},
        {"LRP", "blockB=\"3\"", "blockB=\"-1\"", {"RankFeature", "blockB", "-1 is out of range (0 to 8)"}, "blockB=\"-1\""},
        {"LRD", "blockA=\"4\"", "blockA=\"3\"", {"RankFeature", "blockA and blockB are both 3", "two different blocks"}, "blockA=\"3\""},
        {"LRP", "blockA=\"4\"", "blockA=\"x\"", {"blockA", "'x' is not an integer"}, "blockA=\"x\""},
        {"LRD", "blockB=\"3\"", "", {"RankFeature", "missing attribute blockB"}, "<RankFeature positionX=\"21\""},
        {"LRP", "blockA=\"4\" ", "", {"RankFeature", "missing attribute blockA"}, "<RankFeature positionX=\"21\""},
        {"LRD", "positionX=\"21\"", "positionX=\"22\"", {"feature (x=22, y=11, 3 blocks of 1x3) does not fit the 24x20 window"}, "positionX=\"22\""},
        {"LRP", "blockHeight=\"3\" blockA=\"4\"", "blockHeight=\"4\" blockA=\"4\"", {"feature (x=21, y=11, 3 blocks of 1x4) does not fit the 24x20 window"}, "blockHeight=\"4\""},
        {"LRD", "blockWidth=\"1\"", "blockWidth=\"0\"", {"blockWidth", "0 is out of range (1 to 1024)"}, "blockWidth=\"0\""},
        {"LRP", "positionY=\"11\"", "positionY=\"-2\"", {"positionY", "-2 is out of range"}, "positionY=\"-2\""},
        {"LRD", "blockB=\"3\"", "blockB=\"3\" binMappingType=\"NONE\"", {"RankFeature", "unknown attribute 'binMappingType'"}, "<RankFeature positionX=\"21\""},
        {"LRP", "blockB=\"3\"/>", "blockB=\"3\"><x/></RankFeature>", {"unknown element (RankFeature has no child elements)"}, "<x/>"},
        {"LRD", "<RankFeature positionX=\"21\"", "<LBPFeature positionX=\"21\"", {"LBPFeature", "unknown element (expected <RankFeature> inside <HistogramWeakHypothesis>)"}, "<LBPFeature"},
        {"LRP", "</HistogramWeakHypothesis>\n  </stage>\n</Wald", rank_feature_xml("0", "0", "1", "1", "0", "1") + "</HistogramWeakHypothesis>\n  </stage>\n</Wald", {"duplicate element (a weak hypothesis has exactly one <RankFeature>)"}, "<RankFeature positionX=\"0\""},
        {"LRD", rank_feature_xml("21", "11", "1", "3", "4", "3"), "", {"missing element <RankFeature>"}, "predictionValues=\"0.25"},
        {"LRP", "<HistogramWeakHypothesis predictionValues=\"0.25", "<DecisionTreeWeakHypothesis/><HistogramWeakHypothesis predictionValues=\"0.25", {"unknown element (expected <HistogramWeakHypothesis> inside <stage> of a LRP classifier)"}, "<DecisionTreeWeakHypothesis"},
        {"LRD", "minStdDev=\"0\"", "minStdDev=\"2\"", {"minStdDev", "not supported", "LRD and LRP ones never"}, "<WaldBoostClassifier"},
        {"LRD", "type=\"LRD\"", "type=\"LRX\"", {"LRX features are not supported; only LBP, HAAR, LRD and LRP"}, "<WaldBoostClassifier"},
        {"LRD", "type=\"LRD\"", "type=\"LBP\"", {"expected 256 numbers, found 17"}, "predictionValues="},
        /* LRD and LRP are two families: an LRP file with LRD tables is refused. */
        {"LRD", "type=\"LRD\"", "type=\"LRP\"", {"expected 81 numbers, found 17"}, "predictionValues="},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.type + ": " + c.from.substr(0, 40) + " -> " + c.to.substr(0, 40));
        const std::string text = replace_once(valid_rank(c.type), c.from, c.to);
        const std::string message = expect_error([&] { load_classifier_memory(text, name); }, {});
        for (const auto& f : c.fragments)
            EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
        const std::string where = at_line(name, text, c.line_needle);
        EXPECT_EQ(message.rfind(where, 0), 0u) << "expected to start with " << where << ": " << message;
    }
}

TEST(RankFeatures, ValidateRejectsEachProblem)
{
    const Classifier base = load_classifier_memory(valid_rank("LRD"), "rank.xml");
    const auto expect_invalid = [&](const std::function<void(Classifier&)>& change, const std::string& fragment) {
        Classifier c = base;
        change(c);
        SCOPED_TRACE(fragment);
        expect_error([&] { validate(c, "model.xml"); }, {"model.xml: ", fragment});
        /* Nor is it written. */
        expect_error([&] { write_waldboost_xml(c); }, {fragment});
    };
    const auto feature = [](Classifier& c, size_t i) -> RankFeature& { return std::get<RankFeature>(c.weak[i].feature); };
    expect_invalid([&](Classifier& c) { feature(c, 1).block_a = 9; }, "weak classifier 1: feature (x=21, y=11, 3 blocks of 1x3, blocks 9 and 3): block 9 does not exist");
    expect_invalid([&](Classifier& c) { feature(c, 0).block_b = -1; }, "block -1 does not exist (blocks are numbered 0 to 8)");
    expect_invalid([&](Classifier& c) { feature(c, 0).block_b = 0; }, "compares a block with itself");
    expect_invalid([&](Classifier& c) { feature(c, 0).responses.pop_back(); }, "weak classifier 0: an LRD feature has 16 responses (it needs 17)");
    expect_invalid([&](Classifier& c) { feature(c, 0).responses.resize(81); }, "an LRD feature has 81 responses (it needs 17)");
    expect_invalid([&](Classifier& c) { feature(c, 1).kind = RankFeature::Kind::Pair; },
                   "weak classifier 1: it uses LRP features, the first one LRD");
    expect_invalid([&](Classifier& c) { feature(c, 1).responses[16] = std::numeric_limits<float>::quiet_NaN(); },
                   "weak classifier 1: response 16 of the LRD table is not a finite number");
    expect_invalid([&](Classifier& c) { feature(c, 0).block_width = 0; }, "has an empty block");
    expect_invalid([&](Classifier& c) { feature(c, 0).y = -1; }, "has a negative position");
    expect_invalid([&](Classifier& c) { feature(c, 1).x = 22; }, "does not fit the 24x20 window");
    expect_invalid([&](Classifier& c) { feature(c, 1).block_height = 1000000000; }, "does not fit the 24x20 window");
    expect_invalid([&](Classifier& c) { c.weak[1].feature = waldboost::LbpFeature{0, 0, 1, 1}; },
                   "weak classifier 1: it uses LBP features, the first one LRD");
}

/* ===================== Malformed files in general ===================== */

TEST(MalformedFiles, NotClassifiersAtAll)
{
    TempDir dir;
    const std::string empty = dir.write("empty.xml", "");
    expect_error([&] { load_classifier_file(empty); }, {empty + ":", "empty"});
    const std::string prose = dir.write("prose.xml", "hello world\n");
    expect_error([&] { load_classifier_file(prose); }, {prose + ":1:", "not well-formed XML"});
    const std::string full = valid_waldboost();
    const std::string truncated = dir.write("truncated.xml", full.substr(0, full.size() / 2));
    expect_error([&] { load_classifier_file(truncated); }, {truncated + ":", "not well-formed XML"});
    const std::string wrong = dir.write("wrong.xml", "<?xml version=\"1.0\"?>\n<svg/>\n");
    expect_error([&] { load_classifier_file(wrong); }, {wrong + ": not a classifier file: root element <svg>"});
    const std::string missing = dir.file("does-not-exist.xml");
    expect_error([&] { load_classifier_file(missing); }, {missing + ": cannot open", "No such file"});
    expect_error([&] { load_classifier_file(dir.path()); }, {dir.path() + ": cannot open", "directory"});
    std::string utf16 = "\xff\xfe";
    for (char ch : std::string("<WaldBoostClassifier/>")) {
        utf16 += ch;
        utf16 += '\0';
    }
    expect_error([&] { load_classifier_memory(utf16, "u16.xml"); }, {"u16.xml:", "NUL"});
}

TEST(MalformedFiles, WaldBoostAttributeAndElementErrors)
{
    const std::string base = valid_waldboost();
    const std::string name = "wb.xml";
    struct Case {
        std::string from;
        std::string to;
        std::vector<std::string> fragments;
        std::string line_needle;  // the element whose line the message names
    };
    const std::string values = number_list(256, 0.25, 0.0);
    const std::string values255 = number_list(255, 0.25, 0.0);
    const std::string values257 = number_list(257, 0.25, 0.0);
    const std::vector<Case> cases = {
        {"positionY=\"5\" ", "", {"LBPFeature", "missing attribute positionY"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"abc\"", {"LBPFeature", "positionX", "'abc' is not an integer"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"7px\"", {"positionX", "'7px' is not an integer"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"-1\"", {"positionX", "-1 is out of range"}, "<LBPFeature"},
        {"blockWidth=\"2\"", "blockWidth=\"0\"", {"blockWidth", "0 is out of range (1 to 1024)"}, "<LBPFeature"},
        {"positionX=\"7\"", "positionX=\"20\"", {"feature (x=20, y=5, 3 blocks of 2x2) does not fit the 24x24 window"}, "<LBPFeature"},
        {"negT=\"-0.5\"", "negT=\"-0.5x\"", {"stage", "negT", "'-0.5x' is not a number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"nan\"", {"negT", "not a finite number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"inf\"", {"negT", "not a finite number"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"1e39\"", {"negT", "outside the range of a float"}, "<stage"},
        {"negT=\"-0.5\"", "negT=\"\"", {"negT", "empty value"}, "<stage"},
        {"posT=\"1e+50\" negT=\"-0.5\"", "posT=\"5\" negT=\"-0.5\"", {"stage", "posT", "early acceptance", "not supported"}, "<stage"},
        {values, values255, {"HistogramWeakHypothesis", "predictionValues", "expected 256 numbers, found 255"}, "predictionValues=\"0.25"},
        {values, values257, {"predictionValues", "expected 256 numbers, found 257"}, "predictionValues=\"0.25"},
        {values, values255 + " nan", {"predictionValues", "value 255", "'nan' is not a finite number"}, "predictionValues=\"0.25"},
        {values, "-inf " + values255, {"predictionValues", "value 0", "'-inf' is not a finite number"}, "predictionValues=\"-inf"},
        {values, "0.25;" + values, {"predictionValues", "'0.25;0.25' is not a number"}, "predictionValues=\"0.25;"},
        {"minStdDev=\"0\"", "minStdDev=\"1.5\"", {"WaldBoostClassifier", "minStdDev", "not supported"}, "<WaldBoostClassifier"},
        {"type=\"LBP\"", "type=\"HOG\"", {"HOG features are not supported; only LBP, HAAR, LRD and LRP"}, "<WaldBoostClassifier"},
        {"type=\"LBP\"", "type=\"HAAR\"", {"HistogramWeakHypothesis", "expected <HaarTreeWeakHypothesis>"}, "<HistogramWeakHypothesis"},
        {"type=\"LBP\"", "", {"missing attribute type"}, "<WaldBoostClassifier"},
        {"imageSizeX=\"24\"", "imageSizeX=\"0\"", {"imageSizeX", "0 is out of range"}, "<WaldBoostClassifier"},
        {"imageSizeX=\"24\"", "imageSizeX=\"24\" finalThreshold=\"inf\"", {"finalThreshold", "not a finite number"}, "<WaldBoostClassifier"},
        {"binMappingType=\"NONE\"", "binMappingType=\"UNIFORM\"", {"binMappingType", "not supported"}, "<LBPFeature"},
        {"negT=\"-0.5\"", "negT=\"-0.5\" negTT=\"1\"", {"stage", "unknown attribute 'negTT'"}, "<stage"},
        {"<LBPFeature", "<Feature/><LBPFeature", {"Feature", "unknown element"}, "<Feature/>"},
        {"</stage>", "<extra/></stage>", {"extra", "unknown element"}, "<extra/>"},
        {"  <stage", "  <stag/>\n  <stage", {"stag", "unknown element"}, "<stag/>"},
        {"<HistogramWeakHypothesis", "<HistogramWeakHypothesis predictionValues=\"1\"/><HistogramWeakHypothesis", {"duplicate"}, "<HistogramWeakHypothesis predictionValues=\"1\"/>"},
        {"</stage>", "oops</stage>", {"stage", "unexpected text 'oops'"}, "<stage"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.from.substr(0, 40) + " -> " + c.to.substr(0, 40));
        const std::string text = replace_once(base, c.from, c.to);
        std::vector<std::string> fragments = c.fragments;
        const std::string message = expect_error([&] { load_classifier_memory(text, name); }, {});
        for (const auto& f : fragments)
            EXPECT_NE(message.find(f), std::string::npos) << "'" << f << "' not in: " << message;
        const std::string where = at_line(name, text, c.line_needle);
        EXPECT_EQ(message.rfind(where, 0), 0u) << "expected to start with " << where << ": " << message;
    }
    expect_error([&] { load_classifier_memory(waldboost_doc(kRoot24, ""), name); }, {"wb.xml:2:", "no <stage>"});
}

TEST(MalformedFiles, EntityExpansionAndExternalEntitiesAreRefusedQuickly)
{
    std::string bomb = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n <!ENTITY lol \"lol\">\n";
    bomb += " <!ENTITY lol1 \"&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;\">\n";
    for (int i = 2; i <= 9; ++i) {
        std::string e = " <!ENTITY lol" + std::to_string(i) + " \"";
        for (int k = 0; k < 10; ++k)
            e += "&lol" + std::to_string(i - 1) + ";";
        bomb += e + "\">\n";
    }
    bomb += "]>\n<WaldBoostClassifier classifierName=\"&lol9;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>\n";
    const std::string xxe =
        "<?xml version=\"1.0\"?>\n<!DOCTYPE foo [ <!ENTITY xxe SYSTEM \"file:///etc/passwd\"> ]>\n"
        "<WaldBoostClassifier classifierName=\"&xxe;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>\n";
    const std::string entity_only = "<WaldBoostClassifier>\n<!ENTITY x \"y\">\n</WaldBoostClassifier>";

    TempDir dir;
    for (const auto& [file, text] : {std::pair<std::string, std::string>{"bomb.xml", bomb}, {"xxe.xml", xxe},
                                     {"entity.xml", entity_only}}) {
        const std::string path = dir.write(file, text);
        const auto start = std::chrono::steady_clock::now();
        const std::string message =
            expect_error([&] { load_classifier_file(path); }, {path + ": DTDs and entities are not allowed in classifier files"});
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
        EXPECT_EQ(message.find("root:"), std::string::npos);
    }
    /* An undeclared entity reference is simply not well-formed. */
    expect_error([&] {
        load_classifier_memory("<WaldBoostClassifier classifierName=\"&xxe;\" imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>", "ref.xml");
    }, {"ref.xml:1: not well-formed XML", "xxe"});
}

/* A file cannot write on our stderr (libxml2's encoding errors) nor put
 * control characters into our messages (a forged log line). */
TEST(MalformedFiles, MessagesAreOneLineAndNothingIsPrinted)
{
    const std::string cases[] = {
        std::string("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<WaldBoostClassifier imageSizeX=\"3\"+\xff/>\n"),
        std::string("<?xml version=\"1.0\"?>\n<WaldBoostClassifier imageS\xdcizeX=\"1\" type=\"X\"/>\n"),
        std::string("<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"X&#10;b.xml: loaded OK\"/>"),
        std::string("<opencv_storage><cascade><stageType>A&#13;&#10;B</stageType></cascade></opencv_storage>"),
        /* attribute values of thousands of characters */
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><stage resetSum=\"" +
            std::string(3000, '7') + "\"/></WaldBoostClassifier>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><stage posT=\"1" +
            std::string(2000, '0') + "e-2000\"/></WaldBoostClassifier>",
        /* element names of thousands of characters */
        "<W" + std::string(3000, 'x') + "/>",
        "<opencv_storage><c" + std::string(3000, 'y') + "/></opencv_storage>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><s" + std::string(2000, 'z') +
            "/></WaldBoostClassifier>",
        /* a long name whose 40th byte is inside a two-byte character */
        "<W" + std::string(38, 'x') + [] {
            std::string e;
            for (int i = 0; i < 100; ++i)
                e += "\xc3\xa9";
            return e;
        }() + "/>",
    };
    for (const std::string& text : cases) {
        testing::internal::CaptureStderr();
        std::string message;
        try {
            waldboost::load_classifier_memory(text, "bad.xml");
        } catch (const waldboost::Error& e) {
            message = e.what();
        }
        const std::string printed = testing::internal::GetCapturedStderr();
        EXPECT_EQ(printed, "") << text;
        ASSERT_FALSE(message.empty()) << text;
        EXPECT_EQ(message.rfind("bad.xml:", 0), 0u) << message;
        EXPECT_LE(message.size(), 1024u) << message.substr(0, 200);
        /* Valid UTF-8 (this test's characters take at most two bytes). */
        for (size_t i = 0; i < message.size(); ++i) {
            const unsigned char c = static_cast<unsigned char>(message[i]);
            if (c >= 0xc0) {
                ASSERT_TRUE(i + 1 < message.size() && (static_cast<unsigned char>(message[i + 1]) & 0xc0) == 0x80)
                    << "a cut character in: " << message;
                ++i;
            } else {
                ASSERT_LT(c, 0x80) << "a stray continuation byte in: " << message;
            }
        }
        for (const char c : message)
            EXPECT_FALSE(static_cast<unsigned char>(c) < 0x20 || c == 0x7f) << "control character in: " << message;
    }
}

/* No raw control character (C0, DEL, C1, bidi control) and at most
 * `limit` bytes: what a message made from a file's name or text may hold. */
void expect_printable(const std::string& message, size_t limit = 1024)
{
    EXPECT_LE(message.size(), limit) << message.substr(0, 200);
    for (size_t i = 0; i < message.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(message[i]);
        EXPECT_FALSE(c < 0x20 || c == 0x7f) << "control character at " << i << " in: " << message.substr(0, 300);
        if (c == 0xc2 && i + 1 < message.size()) {
            EXPECT_FALSE(static_cast<unsigned char>(message[i + 1]) <= 0x9f) << "C1 control in: " << message;
        }
        if (c == 0xe2 && i + 2 < message.size()) {
            const unsigned char c1 = static_cast<unsigned char>(message[i + 1]);
            const unsigned char c2 = static_cast<unsigned char>(message[i + 2]);
            EXPECT_FALSE((c1 == 0x80 && c2 >= 0xaa && c2 <= 0xae) || (c1 == 0x81 && c2 >= 0xa6 && c2 <= 0xa9))
                << "bidi control in: " << message;
        }
    }
}

/* A classifier path (the user's, or a directory listing's) used to go into
 * messages verbatim: a newline forged a log line, ESC [31m coloured the
 * terminal, and a 3 KB path made a 3 KB message. */
TEST(MalformedFiles, PathsInMessagesAreEscapedAndBounded)
{
    TempDir dir;
    const std::string forged = dir.file("a\nb\x1b[31m\xc2\x9b\xe2\x80\xae.xml");
    const std::string long_path = dir.file(std::string(3000, 'p') + ".xml");
    /* Files that do not exist, or cannot be opened. */
    for (const std::string& path : {forged, long_path}) {
        const std::string message = expect_error([&] { load_classifier_file(path); }, {"cannot open"});
        expect_printable(message, 400);
    }
    {
        const std::string message = expect_error([&] { load_classifier_file(forged); }, {"\\x0a", "\\x1b[31m"});
        EXPECT_NE(message.find("\\u{009B}\\u{202E}.xml"), std::string::npos) << message;
    }
    /* Files that exist: not a classifier, broken XML, an invalid model. */
    const std::string names[] = {"n\nx\x1b]0;t\x07.xml", std::string(200, 'q') + "\xe2\x81\xa6.xml"};
    const std::string texts[] = {
        "<svg/>",
        "<WaldBoostClassifier",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"><bogus/></WaldBoostClassifier>",
        "<WaldBoostClassifier imageSizeX=\"24\" imageSizeY=\"24\" type=\"LBP\"/>",
    };
    for (const std::string& name : names) {
        for (const std::string& text : texts) {
            SCOPED_TRACE(text);
            const std::string path = dir.write(name, text);
            expect_printable(expect_error([&] { load_classifier_file(path); }, {}), 600);
            expect_printable(expect_error([&] { load_classifier_memory(text, name); }, {}), 600);
        }
    }
    /* A path of ordinary characters is shown as it is. */
    expect_error([&] { load_classifier_file(dir.file("no such file \xc3\xa9.xml")); },
                 {dir.file("no such file \xc3\xa9.xml") + ": cannot open"});
}

TEST(Printable, EscapesControlsAndCutsLongText)
{
    EXPECT_EQ(waldboost::printable("face \xc3\xa9t\xc3\xa9 \xe4\xb8\xad"), "face \xc3\xa9t\xc3\xa9 \xe4\xb8\xad");
    EXPECT_EQ(waldboost::printable("a\nb\x1b[31m\x7f"), "a\\x0ab\\x1b[31m\\x7f");
    EXPECT_EQ(waldboost::printable("\xc2\x9b\xe2\x80\xae\xe2\x81\xa9\xc2\xa0"), "\\u{009B}\\u{202E}\\u{2069}\xc2\xa0");
    EXPECT_EQ(waldboost::printable("\xff\xc3"), "\\xff\\xc3");
    EXPECT_EQ(waldboost::printable(std::string(3000, 'x')), std::string(200, 'x') + "...");
    EXPECT_EQ(waldboost::printable("abc\xc3\xa9", 4), "abc...");
    EXPECT_EQ(waldboost::printable("ab\ncd", 4), "ab...");
}

TEST(MalformedFiles, FileOverTheSizeCapIsNotRead)
{
    TempDir dir;
    const std::string path = dir.file("huge.xml");
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    /* Sparse: costs no disk, but reading it all would take a while. */
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(ModelLimits::kMaxFileBytes) + 1), 0);
    ::close(fd);
    const auto start = std::chrono::steady_clock::now();
    expect_error([&] { load_classifier_file(path); },
                 {path + ": file is too large (" + std::to_string(ModelLimits::kMaxFileBytes + 1) + " bytes",
                  std::to_string(ModelLimits::kMaxFileBytes)});
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(200));
}

/* Runs load_classifier_file(path) in a child process and returns "KIND:
 * MESSAGE" of its Error (or "loaded"), or "hung" when it has not returned
 * within `seconds`: a test of something that used to block forever must
 * not block itself. */
std::string load_in_child(const std::string& path, int seconds)
{
    int fds[2];
    if (::pipe(fds) != 0)
        return "pipe failed";
    const pid_t child = ::fork();
    if (child == 0) {
        ::close(fds[0]);
        std::string result;
        try {
            load_classifier_file(path);
            result = "loaded";
        } catch (const Error& e) {
            result = std::string(to_string(e.kind())) + ": " + e.what();
        } catch (const std::exception& e) {
            result = std::string("other exception: ") + e.what();
        }
        if (::write(fds[1], result.data(), result.size()) < 0)
            ::_exit(2);
        ::_exit(0);
    }
    ::close(fds[1]);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    int status = 0;
    bool ended = false;
    while (std::chrono::steady_clock::now() < deadline) {
        if (::waitpid(child, &status, WNOHANG) == child) {
            ended = true;
            break;
        }
        ::usleep(10000);
    }
    if (!ended) {
        ::kill(child, SIGKILL);
        ::waitpid(child, &status, 0);
        ::close(fds[0]);
        return "hung";
    }
    std::string result;
    char buffer[4096];
    ssize_t n;
    while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0)
        result.append(buffer, static_cast<size_t>(n));
    ::close(fds[0]);
    return result;
}

/* A FIFO used to block the loader (and so the element's start, or the
 * streaming thread when set while PLAYING): opening it waited for a writer,
 * and with a writer that never closes, reading never ended. */
TEST(MalformedFiles, FifosAndOtherNonRegularFilesAreRefusedAtOnce)
{
    TempDir dir;
    const std::string fifo = dir.file("classifier.xml");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(load_in_child(fifo, 5), "classifier file: " + fifo + ": not a regular file");
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));

    /* A writer that keeps it open and writes a little: a pipe that never
     * ends. */
    const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
    ASSERT_GE(writer, 0);
    ASSERT_EQ(::write(writer, "<?xml", 5), 5);
    EXPECT_EQ(load_in_child(fifo, 5), "classifier file: " + fifo + ": not a regular file");
    ::close(writer);

    /* A device that never ends either. */
    EXPECT_EQ(load_in_child("/dev/zero", 5), "classifier file: /dev/zero: not a regular file");
}

/* The kind of the Error that `path` gives when loaded ("none" if it loads). */
std::string load_error_kind(const std::string& path)
{
    try {
        load_classifier_file(path);
    } catch (const Error& e) {
        return to_string(e.kind());
    }
    return "none";
}

/* n attributes `prefix0="0" prefix1="1" ...`, each preceded by a space. */
std::string many_attributes(size_t n, const std::string& prefix)
{
    std::string text;
    for (size_t i = 0; i < n; ++i)
        text += " " + prefix + std::to_string(i) + "=\"" + std::to_string(i) + "\"";
    return text;
}

/* libxml2's start-tag parser took time growing with the square of the
 * attributes or namespace declarations on one element (100,000 attributes
 * in 1 MB: about 15 s); they are now counted before it runs. */
TEST(MalformedFiles, TensOfThousandsOfAttributesOnOneElementAreRefused)
{
    const std::string limit = std::to_string(ModelLimits::kMaxXmlAttributesPerElement);
    TempDir dir;
    const std::string root = dir.write(
        "root.xml", waldboost_doc(std::string(kRoot24) + many_attributes(100000, "a"), "  <stage/>\n"));
    const std::string message = expect_error(
        [&] { load_classifier_file(root); },
        {root + ":2: WaldBoostClassifier: too many attributes: more than " + limit + " on one element"});
    EXPECT_EQ(message.find("unknown attribute"), std::string::npos) << message;
    EXPECT_STREQ(load_error_kind(root).c_str(), to_string(ErrorKind::ClassifierFile));

    /* On an inner element, in single quotes, in an OpenCV cascade. */
    std::string quoted = many_attributes(100000, "b");
    std::replace(quoted.begin(), quoted.end(), '"', '\'');
    expect_error([&] { load_classifier_memory(replace_once(valid_waldboost(), "<stage ", "<stage" + quoted + " "), "inner.xml"); },
                 {"inner.xml:3: stage: too many attributes: more than " + limit});
    expect_error([&] {
        load_classifier_memory("<?xml version=\"1.0\"?>\n<opencv_storage>\n<cascade" + many_attributes(100000, "c") +
                                   "/>\n</opencv_storage>\n",
                               "cascade.xml");
    }, {"cascade.xml:3: cascade: too many attributes"});
}

TEST(MalformedFiles, TensOfThousandsOfNamespaceDeclarationsAreRefused)
{
    const std::string limit = std::to_string(ModelLimits::kMaxXmlNamespaceDeclarations);
    TempDir dir;
    const std::string path =
        dir.write("ns.xml", waldboost_doc(many_attributes(100000, "xmlns:p") + " " + kRoot24, "  <stage/>\n"));
    expect_error([&] { load_classifier_file(path); },
                 {path + ":2: WaldBoostClassifier: too many namespace declarations: more than " + limit + " in the file"});
    EXPECT_STREQ(load_error_kind(path).c_str(), to_string(ErrorKind::ClassifierFile));

    /* Few per element but many in scope: libxml2 looks every prefix up in
     * the list of those in scope, so the limit is for the whole file. */
    std::string nested;
    for (int level = 0; level < 100; ++level)
        nested += "<e" + many_attributes(100, "xmlns:n" + std::to_string(level) + "_") + ">";
    expect_error([&] { load_classifier_memory("<opencv_storage>" + nested, "nested.xml"); },
                 {"nested.xml:1: e: too many namespace declarations: more than " + limit});
}

TEST(MalformedFiles, AttributeAndNamespaceLimitsAreExact)
{
    const size_t max_attributes = ModelLimits::kMaxXmlAttributesPerElement;
    const size_t max_namespaces = ModelLimits::kMaxXmlNamespaceDeclarations;
    const size_t root_attributes = 5;  // kRoot24
    ASSERT_LT(max_attributes - root_attributes, max_namespaces);
    const auto with_root = [&](const std::string& extra) {
        return replace_once(valid_waldboost(), kRoot24, std::string(kRoot24) + extra);
    };

    /* Exactly the limit passes the count: unknown attributes are then the
     * reader's error, and namespace declarations (not attributes of the
     * model) load. One more is refused. */
    std::string message = expect_error(
        [&] { load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes, "a")), "at.xml"); },
        {"at.xml:2: WaldBoostClassifier: unknown attribute 'a0'"});
    EXPECT_EQ(message.find("too many"), std::string::npos) << message;
    expect_error(
        [&] { load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes + 1, "a")), "over.xml"); },
        {"over.xml:2: WaldBoostClassifier: too many attributes: more than " + std::to_string(max_attributes)});
    EXPECT_EQ(load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes, "xmlns:p")), "ns-at.xml")
                  .weak.size(),
              2u);
    expect_error(
        [&] {
            load_classifier_memory(with_root(many_attributes(max_attributes - root_attributes + 1, "xmlns:p")),
                                   "ns-over.xml");
        },
        {"ns-over.xml:2: WaldBoostClassifier: too many attributes"});

    /* Namespace declarations in the file: exactly the limit loads, spread
     * over two elements; one more is refused. */
    const size_t on_root = max_namespaces / 2;
    const auto spread = [&](size_t on_stage) {
        return replace_once(with_root(many_attributes(on_root, "xmlns:r")), "<stage ",
                            "<stage" + many_attributes(on_stage, "xmlns:s") + " ");
    };
    EXPECT_EQ(load_classifier_memory(spread(max_namespaces - on_root), "ns-file-at.xml").weak.size(), 2u);
    expect_error([&] { load_classifier_memory(spread(max_namespaces - on_root + 1), "ns-file-over.xml"); },
                 {"ns-file-over.xml:3: stage: too many namespace declarations: more than " + std::to_string(max_namespaces)});
}

/* The count reads bytes, so markup must be ASCII bytes: an encoding that
 * hides it (UTF-7, EBCDIC) is refused, ASCII-compatible ones still load. */
TEST(MalformedFiles, EncodingsThatHideMarkupFromTheCountAreRefused)
{
    const std::string body = valid_waldboost().substr(valid_waldboost().find('\n'));
    /* "<stage" + 300 attributes in UTF-7 ('<', '"' and '>' in base64); the
     * rest is ASCII, where only '+' needs writing as "+-". */
    std::string body7;
    for (const char c : body)
        body7 += c == '+' ? std::string("+-") : std::string(1, c);
    std::string hidden = "+ADw-stage";
    for (int i = 0; i < 300; ++i)
        hidden += " a" + std::to_string(i) + "=+ACI-1+ACI-";
    hidden += "/+AD4-";
    expect_error([&] {
        load_classifier_memory("<?xml version=\"1.0\" encoding=\"UTF-7\"?>" +
                                   replace_once(body7, "</WaldBoostClassifier>", hidden + "</WaldBoostClassifier>"),
                               "utf7.xml");
    }, {"utf7.xml:1: not a classifier file: encoding 'UTF-7' is not supported"});
    expect_error([&] { load_classifier_memory("<?xml version='1.0' encoding = 'ebcdic-cp-us' ?>" + body, "cp.xml"); },
                 {"cp.xml:1: not a classifier file: encoding 'ebcdic-cp-us' is not supported"});
    /* "<?xm" in EBCDIC: libxml2 switches on these four bytes alone. */
    expect_error([&] { load_classifier_memory(std::string("\x4c\x6f\xa7\x94") + body, "ebcdic.xml"); },
                 {"ebcdic.xml: not a classifier file: EBCDIC is not supported"});

    /* UTF-7 used to be how a test reached libxml2's conversion errors, which
     * it prints on stderr; an allowed encoding reaches them too, and they
     * stay off stderr. */
    testing::internal::CaptureStderr();
    expect_error([&] {
        load_classifier_memory("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n<WaldBoostClassifier imageSizeX=\"3\"\xff\xff/>\n",
                               "sjis.xml");
    }, {"sjis.xml:2: not well-formed XML"});
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

    for (const char* encoding : {"UTF-8", "utf-8", "US-ASCII", "ISO-8859-1", "iso-8859-15", "windows-1252", "Shift_JIS"}) {
        SCOPED_TRACE(encoding);
        EXPECT_EQ(load_classifier_memory(std::string("<?xml version=\"1.0\" encoding=\"") + encoding + "\"?>" + body,
                                         "ok.xml")
                      .weak.size(),
                  2u);
    }
}

/* ===================== Error kinds ===================== */

/* Runs `fn`, expects waldboost::Error of `kind` (the element and the tools
 * choose how to report by it, never by the text). Returns the message. */
std::string expect_kind(const std::function<void()>& fn, ErrorKind kind)
{
    try {
        fn();
    } catch (const Error& e) {
        EXPECT_STREQ(to_string(e.kind()), to_string(kind)) << e.what();
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "wrong exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "no error thrown";
    return {};
}

TEST(ErrorKinds, BrokenFilesAreClassifierFile)
{
    TempDir dir;
    const auto file_kind = [](const std::string& path) {
        SCOPED_TRACE(path);
        expect_kind([&] { load_classifier_file(path); }, ErrorKind::ClassifierFile);
    };
    file_kind(dir.file("does-not-exist.xml"));
    file_kind(dir.path());
    file_kind(dir.write("empty.xml", ""));
    file_kind(dir.write("prose.xml", "hello world\n"));
    const std::string full = valid_waldboost();
    file_kind(dir.write("truncated.xml", full.substr(0, full.size() / 2)));
    file_kind(dir.write("wrong.xml", "<?xml version=\"1.0\"?>\n<svg/>\n"));
    file_kind(dir.write("dtd.xml", "<!DOCTYPE x [ <!ENTITY y \"z\"> ]>\n<WaldBoostClassifier/>\n"));

    const auto memory_kind = [](const std::string& text, const std::string& name) {
        SCOPED_TRACE(text.substr(0, 60));
        expect_kind([&] { load_classifier_memory(text, name); }, ErrorKind::ClassifierFile);
    };
    /* Element and attribute errors (xml::fail), values out of range, and a
     * classifier that loads but does not validate. */
    memory_kind(replace_once(full, "positionY=\"5\" ", ""), "wb.xml");
    memory_kind(replace_once(full, "positionX=\"7\"", "positionX=\"abc\""), "wb.xml");
    memory_kind(replace_once(full, "imageSizeX=\"24\"", "imageSizeX=\"0\""), "wb.xml");
    memory_kind(replace_once(full, "</stage>", "<extra/></stage>"), "wb.xml");
    memory_kind(waldboost_doc(kRoot24, ""), "wb.xml");
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    memory_kind(replace_once(text, "0 -1 46 -67130709", "0 -1 46"), "lbpcascade_frontalface.xml");
    memory_kind(replace_once(text, "<width>24</width>", ""), "lbpcascade_frontalface.xml");
    memory_kind(replace_once(text, "-0.6543210148811340 ", "nan "), "lbpcascade_frontalface.xml");

    Classifier c = make_model();
    c.weak.clear();
    expect_kind([&] { validate(c, "m"); }, ErrorKind::ClassifierFile);
}

TEST(ErrorKinds, ValidClassifiersThisBuildCannotRunAreUnsupportedClassifier)
{
    const std::string text = read_text(cascade_path("lbpcascade_frontalface"));
    const std::string name = "lbpcascade_frontalface.xml";
    const std::string first_nodes =
        "0 -1 46 -67130709 -21569 -1426120013 -1275125205 -21585\r\n            -16385 587145899 -24005";
    for (const auto& edit : std::vector<std::pair<std::string, std::string>>{
             {"<featureType>LBP", "<featureType>HOG"},
             {"<stageType>BOOST", "<stageType>CASCADE"},
             {"<maxCatCount>256", "<maxCatCount>0"},
             {first_nodes, "1 -1 46 1 2 3 4 5 6 7 8\n 0 -2 13 1 2 3 4 5 6 7 8"},
             {"-0.6543210148811340 0.8888888955116272", "-0.65 0.88 0.5"},
         }) {
        const std::string &from = edit.first, &to = edit.second; /* lambdas capture no bindings in C++17 */
        SCOPED_TRACE(to);
        expect_kind([&] { load_classifier_memory(replace_once(text, from, to), name); },
                    ErrorKind::UnsupportedClassifier);
    }

    const std::string base = valid_waldboost();
    for (const auto& edit : std::vector<std::pair<std::string, std::string>>{
             {"type=\"LBP\"", "type=\"HOG\""},
             {"minStdDev=\"0\"", "minStdDev=\"1.5\""},
             {"binMappingType=\"NONE\"", "binMappingType=\"UNIFORM\""},
             {"posT=\"1e+50\" negT=\"-0.5\"", "posT=\"5\" negT=\"-0.5\""},
         }) {
        const std::string &from = edit.first, &to = edit.second;
        SCOPED_TRACE(to);
        expect_kind([&] { load_classifier_memory(replace_once(base, from, to), "wb.xml"); },
                    ErrorKind::UnsupportedClassifier);
    }
}

/* ===================== validate() ===================== */

TEST(Validate, AcceptsAValidModelAndBoundaries)
{
    Classifier c = make_model();
    EXPECT_NO_THROW(validate(c, "m"));
    /* x + 3 * width == window width fits exactly. */
    c.weak[0].feature = waldboost::LbpFeature{0, 0, 8, 8};
    c.weak[1].feature = waldboost::LbpFeature{21, 21, 1, 1};
    EXPECT_NO_THROW(validate(c, "m"));
    /* Neighbours of the refused ranges stay valid. */
    for (const char* label : {"\xc2\xa0", "\xe2\x80\xa9x", "\xe2\x80\xaf", "\xe2\x81\xa5", "\xe2\x81\xaa", "visage \xc3\xa9"}) {
        c.label = label;
        EXPECT_NO_THROW(validate(c, "m")) << label;
    }
    c.label = std::string(ModelLimits::kMaxLabelLength, 'a');
    c.window_width = ModelLimits::kMaxWindowSide;
    c.weak[1].reject_threshold = kNoRejection;
    EXPECT_NO_THROW(validate(c, "m"));
}

TEST(Validate, RejectsEachProblem)
{
    const auto expect_invalid = [](const std::function<void(Classifier&)>& change, const std::string& fragment) {
        Classifier c = make_model();
        change(c);
        SCOPED_TRACE(fragment);
        expect_error([&] { validate(c, "model.xml"); }, {"model.xml: ", fragment});
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    expect_invalid([](Classifier& c) { c.weak.clear(); }, "no weak classifiers");
    expect_invalid([](Classifier& c) { c.window_width = 0; }, "window size 0x24");
    expect_invalid([](Classifier& c) { c.window_height = ModelLimits::kMaxWindowSide + 1; }, "window size 24x1025");
    expect_invalid([](Classifier& c) { c.weak.resize(ModelLimits::kMaxWeakClassifiers + 1, c.weak[0]); },
                   "65536 weak classifiers (the limit is 65535)");
    expect_invalid([](Classifier& c) { c.label = std::string(ModelLimits::kMaxLabelLength + 1, 'a'); }, "label");
    expect_invalid([](Classifier& c) { c.label = "a\nb"; }, "control character");
    expect_invalid([](Classifier& c) { c.label = "\xff"; }, "UTF-8");
    /* C1 controls (U+009B is a terminal CSI) and bidi controls, which
     * waldboost-convert and logs would otherwise show raw. */
    expect_invalid([](Classifier& c) { c.label = "face\xc2\x9b" "31m"; }, "C1 control character");
    expect_invalid([](Classifier& c) { c.label = "\xc2\x80"; }, "C1 control character");
    expect_invalid([](Classifier& c) { c.label = "eca\xe2\x80\xae" "f"; }, "bidi");
    expect_invalid([](Classifier& c) { c.label = "\xe2\x80\xaa"; }, "bidi");
    expect_invalid([](Classifier& c) { c.label = "a\xe2\x81\xa6" "b"; }, "bidi");
    expect_invalid([](Classifier& c) { c.label = "\xe2\x81\xa9"; }, "bidi");
    expect_invalid([](Classifier& c) { c.label = "face\xef\xbf\xbe"; }, "U+FFFE or U+FFFF");
    expect_invalid([](Classifier& c) { c.label = "\xef\xbf\xbf"; }, "U+FFFE or U+FFFF");
    expect_invalid([](Classifier& c) { c.label.clear(); }, "label is empty");
    {
        /* Valid, but too large to write as a file the loaders would accept. */
        Classifier big = make_model();
        lbp_table(big.weak[0]).fill(0.123456789f); /* 12 characters each when written */
        big.weak.resize(4000, big.weak[0]);       /* about 12 MB of XML */
        ASSERT_NO_THROW(validate(big, "<big>"));
        try {
            write_waldboost_xml(big);
            FAIL() << "a model over the file-size limit was written";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("limit for classifier files"), std::string::npos) << e.what();
        }
    }
    expect_invalid([nan](Classifier& c) { lbp_table(c.weak[1])[77] = nan; }, "weak classifier 1: the response for LBP code 77");
    expect_invalid([inf](Classifier& c) { lbp_table(c.weak[0])[0] = -inf; }, "weak classifier 0: the response for LBP code 0");
    expect_invalid([nan](Classifier& c) { c.weak[0].reject_threshold = nan; }, "weak classifier 0: the reject threshold");
    expect_invalid([inf](Classifier& c) { c.weak[0].reject_threshold = inf; }, "weak classifier 0: the reject threshold");
    expect_invalid([](Classifier& c) { c.weak[0].reject_threshold = -1e35f; }, "-1e30");
    expect_invalid([nan](Classifier& c) { c.final_threshold = nan; }, "final threshold");
    expect_invalid([inf](Classifier& c) { c.final_threshold = -inf; }, "final threshold");
    expect_invalid([](Classifier& c) { lbp(c.weak[0]).block_width = 0; }, "weak classifier 0: feature (x=0, y=0, 3 blocks of 0x8)");
    expect_invalid([](Classifier& c) { lbp(c.weak[0]).block_height = -2; }, "empty block");
    expect_invalid([](Classifier& c) { lbp(c.weak[1]).x = -1; }, "negative position");
    expect_invalid([](Classifier& c) { lbp(c.weak[1]).y = -5; }, "negative position");
    expect_invalid([](Classifier& c) { lbp(c.weak[0]).block_height = 9; }, "does not fit the 24x24 window");
    expect_invalid([](Classifier& c) { lbp(c.weak[0]).x = 1000000000; }, "does not fit");
    expect_invalid([](Classifier& c) { lbp(c.weak[0]).block_width = 1000000000; }, "does not fit");

    Classifier c = make_model();
    c.weak[1].feature = waldboost::LbpFeature{20, 3, 4, 2};
    try {
        validate(c, "face.xml");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "face.xml: weak classifier 1: feature (x=20, y=3, 3 blocks of 4x2) does not fit the 24x24 window");
    }
}

TEST(Validate, StageCount)
{
    Classifier c = make_model();
    EXPECT_EQ(c.stage_count(), 1u);
    c.weak[0].reset_sum_after = true;
    EXPECT_EQ(c.stage_count(), 2u);
    c.weak[1].reset_sum_after = true;
    EXPECT_EQ(c.stage_count(), 2u);
    c.weak.clear();
    EXPECT_EQ(c.stage_count(), 0u);
}

/* ===================== waldboost-convert ===================== */

class Converter : public ::testing::Test {
protected:
    void SetUp() override
    {
        tool_ = converter();
        if (tool_.empty())
            GTEST_SKIP() << "WALDBOOST_CONVERT is not set";
    }
    std::string tool_;
};

TEST_F(Converter, RealCascadesConvertToTheSameModel)
{
    TempDir dir;
    for (const KnownCascade& known : kCascades) {
        SCOPED_TRACE(known.stem);
        const std::string input = cascade_path(known.stem);
        const std::string output = dir.file(std::string(known.stem) + ".xml");
        const std::string log = dir.file("log.txt");
        ASSERT_EQ(run(shell_quote(tool_) + " --label my-label " + shell_quote(input) + " " + shell_quote(output) + " 2>" + shell_quote(log)), 0);
        const Classifier direct = load_classifier_file(input);
        const Classifier converted = load_classifier_file(output);
        EXPECT_EQ(converted.label, "my-label");
        expect_identical(direct, converted, false);
        const std::string summary = read_text(log);
        EXPECT_NE(summary.find("window " + std::to_string(known.width) + "x" + std::to_string(known.height)), std::string::npos)
            << summary;
        EXPECT_NE(summary.find(std::to_string(known.trees) + " weak classifiers"), std::string::npos) << summary;
        EXPECT_NE(summary.find(std::to_string(known.stages) + " stages"), std::string::npos) << summary;
    }
    /* Without --label the cascade's own label is kept: for Debian's
     * profile-face cascade the label its converted copy has. */
    const std::string output = dir.file("plain.xml");
    ASSERT_EQ(run(shell_quote(tool_) + " " + shell_quote(cascade_path("lbpcascade_profileface")) + " " + shell_quote(output) + " 2>/dev/null"), 0);
    EXPECT_EQ(load_classifier_file(output).label, "profile-face");
}

TEST_F(Converter, WritesToStandardOutput)
{
    FILE* pipe = ::popen((shell_quote(tool_) + " " + shell_quote(cascade_path("lbpcascade_frontalface")) + " - 2>/dev/null").c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string text;
    char buffer[65536];
    size_t n;
    while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
        text.append(buffer, n);
    const int status = ::pclose(pipe);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
    expect_identical(load_classifier_file(cascade_path("lbpcascade_frontalface")), load_classifier_memory(text, "stdout"));
}

TEST_F(Converter, UsageAndFailures)
{
    TempDir dir;
    const std::string log = dir.file("log.txt");
    EXPECT_EQ(run(shell_quote(tool_) + " --help >" + shell_quote(log)), 0);
    EXPECT_NE(read_text(log).find("Usage: waldboost-convert [--label NAME] INPUT OUTPUT"), std::string::npos);
    EXPECT_EQ(run(shell_quote(tool_) + " 2>/dev/null"), 2);
    EXPECT_EQ(run(shell_quote(tool_) + " a 2>/dev/null"), 2);
    EXPECT_EQ(run(shell_quote(tool_) + " --bogus a b 2>/dev/null"), 2);
    EXPECT_EQ(run(shell_quote(tool_) + " a b --label 2>/dev/null"), 2);

    /* A failed conversion writes nothing, not even a temporary file. */
    const std::string hog = dir.write("hog.xml", replace_once(read_text(cascade_path("lbpcascade_frontalface")),
                                                            "<featureType>LBP", "<featureType>HOG"));
    const std::string out = dir.file("out.xml");
    EXPECT_EQ(run(shell_quote(tool_) + " " + shell_quote(hog) + " " + shell_quote(out) + " 2>" + shell_quote(log)), 1);
    const std::string message = read_text(log);
    EXPECT_EQ(message.rfind("waldboost-convert: " + hog + ":", 0), 0u) << message;
    EXPECT_NE(message.find("not supported"), std::string::npos) << message;
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"hog.xml", "log.txt"}));

    EXPECT_EQ(run(shell_quote(tool_) + " --label '' " + shell_quote(cascade_path("lbpcascade_frontalface")) + " " + shell_quote(out) + " 2>" + shell_quote(log)), 1);
    EXPECT_NE(read_text(log).find("label is empty"), std::string::npos);
    EXPECT_EQ(dir.entries(), (std::vector<std::string>{"hog.xml", "log.txt"}));

    /* An existing output is replaced whole. */
    dir.write("out.xml", "old");
    EXPECT_EQ(run(shell_quote(tool_) + " --label=x " + shell_quote(cascade_path("lbpcascade_frontalface")) + " " + shell_quote(out) + " 2>/dev/null"), 0);
    EXPECT_EQ(load_classifier_file(out).label, "x");
}

/* The summary line showed the paths and the label raw: a name with ESC
 * coloured (or retitled) the user's terminal. */
TEST_F(Converter, SummaryEscapesControlCharacters)
{
    TempDir dir;
    const std::string input = dir.write("in\x1b[31m\n.xml", read_text(cascade_path("lbpcascade_frontalface")));
    const std::string output = dir.file("out\xe2\x80\xae.xml");
    const std::string log = dir.file("log.txt");
    ASSERT_EQ(run(shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(output) + " 2>" + shell_quote(log)), 0);
    const std::string summary = read_text(log);
    EXPECT_NE(summary.find("in\\x1b[31m\\x0a.xml -> "), std::string::npos) << summary;
    EXPECT_NE(summary.find("out\\u{202E}.xml: label"), std::string::npos) << summary;
    ASSERT_FALSE(summary.empty());
    EXPECT_EQ(summary.back(), '\n');
    expect_printable(summary.substr(0, summary.size() - 1));
}

/* The output used to be replaced by a new 0644 regular file whatever it
 * was: a FIFO or a device (/dev/null, as root) became a file, a 0600 file
 * 0644, a hard link was broken and a symbolic link replaced by a file. */
TEST_F(Converter, OutputKeepsWhatItIs)
{
    TempDir dir;
    const std::string input = cascade_path("lbpcascade_frontalface");
    const Classifier expected = load_classifier_file(input);
    auto convert_to = [&](const std::string& output) {
        return run("timeout 20 " + shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(output) +
                   " 2>/dev/null");
    };
    /* The converted classifier, read back; a failure, not an exception, when
     * it is not there, so that every case below is checked. */
    auto expect_converted = [&](const std::string& path) {
        try {
            expect_identical(expected, load_classifier_file(path));
        } catch (const Error& e) {
            ADD_FAILURE() << e.what();
        }
    };
    auto mode_of = [](const std::string& path) {
        struct stat st {};
        EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
        return st;
    };

    /* A FIFO (as /dev/null would be a device) is written to, not replaced. */
    {
        SCOPED_TRACE("FIFO");
        const std::string fifo = dir.file("fifo");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string copy = dir.file("from-fifo.xml");
        EXPECT_EQ(run("timeout 20 cat " + shell_quote(fifo) + " >" + shell_quote(copy) + " & " + "timeout 20 " +
                      shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(fifo) +
                      " 2>/dev/null; status=$?; wait; exit $status"),
                  0);
        EXPECT_TRUE(S_ISFIFO(mode_of(fifo).st_mode));
        expect_converted(copy);
    }

    /* A 0600 file stays 0600 (and 0640 stays 0640). */
    for (const mode_t mode : {mode_t{0600}, mode_t{0640}}) {
        SCOPED_TRACE(mode);
        const std::string path = dir.write("private-" + std::to_string(mode) + ".xml", "old");
        ASSERT_EQ(::chmod(path.c_str(), mode), 0);
        EXPECT_EQ(convert_to(path), 0);
        const struct stat st = mode_of(path);
        EXPECT_TRUE(S_ISREG(st.st_mode));
        EXPECT_EQ(st.st_mode & 07777, mode);
        expect_converted(path);
    }

    /* Both names of a hard link see the new text: the link is kept. */
    {
        SCOPED_TRACE("hard link");
        const std::string first = dir.write("first.xml", "old");
        const std::string second = dir.file("second.xml");
        ASSERT_EQ(::link(first.c_str(), second.c_str()), 0);
        EXPECT_EQ(convert_to(second), 0);
        const struct stat a = mode_of(first), b = mode_of(second);
        EXPECT_EQ(a.st_ino, b.st_ino);
        EXPECT_EQ(a.st_nlink, 2u);
        expect_converted(first);
    }

    /* A symbolic link stays a link; its target gets the text (and keeps its
     * mode); a dangling link's target is created. */
    {
        SCOPED_TRACE("symbolic link");
        const std::string target = dir.write("target.xml", "old");
        ASSERT_EQ(::chmod(target.c_str(), 0604), 0);
        const std::string link = dir.file("link.xml");
        ASSERT_EQ(::symlink("target.xml", link.c_str()), 0);
        EXPECT_EQ(convert_to(link), 0);
        EXPECT_TRUE(S_ISLNK(mode_of(link).st_mode));
        EXPECT_EQ(mode_of(target).st_mode & 07777, 0604u);
        expect_converted(target);

        const std::string dangling = dir.file("dangling.xml");
        ASSERT_EQ(::symlink("created.xml", dangling.c_str()), 0);
        EXPECT_EQ(convert_to(dangling), 0);
        EXPECT_TRUE(S_ISLNK(mode_of(dangling).st_mode));
        expect_converted(dir.file("created.xml"));

        /* A link to a FIFO writes into the FIFO. */
        const std::string fifo = dir.file("fifo2");
        ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
        const std::string to_fifo = dir.file("to-fifo");
        ASSERT_EQ(::symlink("fifo2", to_fifo.c_str()), 0);
        const std::string copy = dir.file("from-fifo2.xml");
        EXPECT_EQ(run("timeout 20 cat " + shell_quote(fifo) + " >" + shell_quote(copy) + " & " + "timeout 20 " +
                      shell_quote(tool_) + " " + shell_quote(input) + " " + shell_quote(to_fifo) +
                      " 2>/dev/null; status=$?; wait; exit $status"),
                  0);
        EXPECT_TRUE(S_ISLNK(mode_of(to_fifo).st_mode));
        EXPECT_TRUE(S_ISFIFO(mode_of(fifo).st_mode));
        expect_converted(copy);
    }

    /* No temporary file is left anywhere. */
    for (const std::string& name : dir.entries())
        EXPECT_EQ(name.find(".tmp-"), std::string::npos) << name;
}
