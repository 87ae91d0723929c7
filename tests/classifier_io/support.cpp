/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The shared helpers of the classifier file tests (support.h says what is
 * in it).
 */
#include "support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <locale>
#include <sstream>

#include "core/error.h"
#include "../fuzz/model_difference.h"

using namespace waldboost;

namespace waldboost_test {

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

void expect_identical(const Classifier& a, const Classifier& b, bool compare_label)
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

size_t count_of(const std::string& text, const std::string& needle)
{
    size_t n = 0;
    for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + 1))
        ++n;
    return n;
}

void expect_printable(const std::string& message, size_t limit)
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

std::string valid_waldboost()
{
    return waldboost_doc(kRoot24, histogram_stage("posT=\"1e+50\" negT=\"-0.5\"", number_list(256, -1.0, 0.0078125),
                                                  feature_xml("7", "5", "2", "2")) +
                                      histogram_stage("posT=\"1e+50\" negT=\"-1e+50\"", number_list(256, 0.25, 0.0),
                                                      feature_xml("0", "0", "8", "8")));
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

}  // namespace waldboost_test
