/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/model/classifier_io.h"

#include <charconv>
#include <memory>

#include <libxml/tree.h>
#include <sys/stat.h>

#include "core/model/formats.h"
#include "core/model/xml_document.h"
#include "core/text.h"

namespace waldboost {

namespace {

ClassifierFormat format_of(const xml::Document& doc)
{
    const std::string root = xml::name_of(doc.root());
    if (root == "WaldBoostClassifier")
        return ClassifierFormat::WaldBoostXml;
    if (root == "opencv_storage")
        return ClassifierFormat::OpenCvCascade;
    throw Error(ErrorKind::ClassifierFile, printable(doc.source()) + ": not a classifier file: root element <" +
                                               xml::printable(root) +
                                               "> is neither WaldBoostClassifier nor opencv_storage");
}

/* Locale independent; the shortest text that reads back as the same float
 * (9 significant digits for every value had made a converted Haar cascade
 * larger than OpenCV's file). */
std::string format_float(float value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, result.ptr);
}

/* The document as UTF-8 text, indented or not; empty when libxml2 fails. */
std::string serialise(xmlDocPtr doc, bool indent)
{
    xmlChar* memory = nullptr;
    int size = 0;
    xmlDocDumpFormatMemoryEnc(doc, &memory, &size, "UTF-8", indent ? 1 : 0);
    std::string text;
    if (memory && size > 0)
        text.assign(reinterpret_cast<const char*>(memory), static_cast<size_t>(size));
    xmlFree(memory);
    return text;
}

struct DocFree {
    void operator()(xmlDocPtr doc) const { xmlFreeDoc(doc); }
};

const xmlChar* x(const char* s) { return reinterpret_cast<const xmlChar*>(s); }

void set(xmlNodePtr node, const char* name, const std::string& value)
{
    if (!xmlNewProp(node, x(name), x(value.c_str())))
        throw Error(ErrorKind::OutOfResources, "write_waldboost_xml: out of memory");
}

xmlNodePtr add_child(xmlNodePtr parent, const char* name)
{
    xmlNodePtr child = xmlNewChild(parent, nullptr, x(name), nullptr);
    if (!child)
        throw Error(ErrorKind::OutOfResources, "write_waldboost_xml: out of memory");
    return child;
}

}  // namespace

ClassifierFormat detect_classifier_format(const std::string& xml, const std::string& source_name)
{
    return format_of(xml::Document::parse(xml, source_name));
}

Classifier load_classifier_memory(const std::string& xml, const std::string& source_name)
{
    const xml::Document doc = xml::Document::parse(xml, source_name);
    Classifier classifier =
        format_of(doc) == ClassifierFormat::WaldBoostXml ? parse_waldboost_xml(doc) : parse_opencv_cascade(doc);
    validate(classifier, source_name);
    return classifier;
}

std::string installed_classifier(const std::string& path)
{
    if (path.empty() || path.find('/') != std::string::npos)
        return "";
    const bool has_extension = path.size() > 4 && path.compare(path.size() - 4, 4, ".xml") == 0;
    const std::string name = has_extension ? path : path + ".xml";
    for (const char* folder : {"/usr/share/opencv4/haarcascades", "/usr/share/opencv4/lbpcascades",
                               "/usr/share/waldboost/classifiers", WALDBOOST_CLASSIFIER_DIR}) {
        const std::string full = std::string(folder) + "/" + name;
        struct stat st {};
        if (::stat(full.c_str(), &st) == 0 && S_ISREG(st.st_mode))
            return full;
    }
    return "";
}

Classifier load_classifier_file(const std::string& path)
{
    std::string bytes;
    try {
        bytes = xml::read_file_capped(path, ModelLimits::kMaxFileBytes);
    } catch (const Error& e) {
        struct stat st {};
        const std::string there = ::stat(path.c_str(), &st) != 0 ? installed_classifier(path) : std::string();
        if (there.empty())
            throw;
        throw Error(e.kind(), std::string(e.what()) +
                                  ". A file name alone is read from the current folder; give the whole path: " +
                                  printable(there));
    }
    return load_classifier_memory(bytes, path);
}

std::string write_waldboost_xml(const Classifier& classifier)
{
    /* An invalid model would give a file that cannot be read back. */
    validate(classifier, "classifier to write");
    xml::ensure_initialized();

    std::unique_ptr<xmlDoc, DocFree> doc(xmlNewDoc(x("1.0")));
    if (!doc)
        throw Error(ErrorKind::OutOfResources, "write_waldboost_xml: out of memory");
    xmlNodePtr root = xmlNewDocNode(doc.get(), nullptr, x("WaldBoostClassifier"), nullptr);
    if (!root)
        throw Error(ErrorKind::OutOfResources, "write_waldboost_xml: out of memory");
    xmlDocSetRootElement(doc.get(), root);

    /* xmlNewProp stores raw text; the serialiser escapes it. */
    set(root, "classifierName", classifier.label);
    set(root, "minStdDev", "0");
    set(root, "imageSizeX", std::to_string(classifier.window_width));
    set(root, "imageSizeY", std::to_string(classifier.window_height));
    set(root, "type", feature_type_name(classifier.weak.front().feature));
    set(root, "finalThreshold", format_float(classifier.final_threshold));

    /* The prediction values (and a Haar tree's nodes) are nearly all of the
     * file: stop as soon as they alone exceed the file limit, rather than
     * format a huge model. */
    const auto too_large = [](size_t bytes) {
        return Error(ErrorKind::ClassifierFile, "classifier to write: it would take more than " +
                                                    std::to_string(bytes) + " bytes, more than the " +
                                                    std::to_string(ModelLimits::kMaxFileBytes) +
                                                    "-byte limit for classifier files");
    };
    size_t value_bytes = 0;
    std::string values;
    for (const WeakClassifier& weak : classifier.weak) {
        xmlNodePtr stage = add_child(root, "stage");
        set(stage, "posT", "1e+50");
        set(stage, "negT", weak.reject_threshold == kNoRejection ? "-1e+50" : format_float(weak.reject_threshold));
        if (weak.reset_sum_after)
            set(stage, "resetSum", "1");

        struct Write {
            xmlNodePtr stage;
            const WeakClassifier& weak;
            std::string& values;
            size_t& bytes;
            void operator()(const LbpFeature& f) const
            {
                xmlNodePtr hypothesis = add_child(stage, "HistogramWeakHypothesis");
                join(f.responses.data(), f.responses.data() + f.responses.size());
                set(hypothesis, "predictionValues", values);
                xmlNodePtr feature = add_child(hypothesis, "LBPFeature");
                set(feature, "positionX", std::to_string(f.x));
                set(feature, "positionY", std::to_string(f.y));
                set(feature, "blockWidth", std::to_string(f.block_width));
                set(feature, "blockHeight", std::to_string(f.block_height));
                set(feature, "binMappingType", "NONE");
            }
            void operator()(const RankFeature& f) const
            {
                xmlNodePtr hypothesis = add_child(stage, "HistogramWeakHypothesis");
                join(f.responses.data(), f.responses.data() + f.responses.size());
                set(hypothesis, "predictionValues", values);
                xmlNodePtr feature = add_child(hypothesis, "RankFeature");
                set(feature, "positionX", std::to_string(f.x));
                set(feature, "positionY", std::to_string(f.y));
                set(feature, "blockWidth", std::to_string(f.block_width));
                set(feature, "blockHeight", std::to_string(f.block_height));
                set(feature, "blockA", std::to_string(f.block_a));
                set(feature, "blockB", std::to_string(f.block_b));
            }
            void operator()(const HaarTree& tree) const
            {
                xmlNodePtr hypothesis = add_child(stage, "HaarTreeWeakHypothesis");
                join(tree.leaves.data(), tree.leaves.data() + tree.leaves.size());
                set(hypothesis, "leafValues", values);
                const auto child = [](const HaarNode::Child& c) {
                    return std::string(c.leaf ? "leaf " : "node ") + std::to_string(c.index);
                };
                for (const HaarNode& n : tree.nodes) {
                    xmlNodePtr node = add_child(hypothesis, "HaarNode");
                    set(node, "threshold", format_float(n.threshold));
                    set(node, "left", child(n.left));
                    set(node, "right", child(n.right));
                    if (n.feature.tilted)
                        set(node, "tilted", "1");
                    for (const HaarRect& r : n.feature.rects) {
                        xmlNodePtr rect = add_child(node, "rect");
                        set(rect, "x", std::to_string(r.x));
                        set(rect, "y", std::to_string(r.y));
                        set(rect, "width", std::to_string(r.width));
                        set(rect, "height", std::to_string(r.height));
                        set(rect, "weight", format_float(r.weight));
                    }
                    /* At least what a node and its rectangles take in the file. */
                    bytes += 40 + 50 * n.feature.rects.size();
                }
            }
            void join(const float* begin, const float* end) const
            {
                values.clear();
                for (const float* i = begin; i != end; ++i) {
                    if (i != begin)
                        values += ' ';
                    values += format_float(*i);
                }
                bytes += values.size();
            }
        };
        std::visit(Write{stage, weak, values, value_bytes}, weak.feature);
        if (value_bytes > ModelLimits::kMaxFileBytes)
            throw too_large(value_bytes);
    }

    std::string text = serialise(doc.get(), true);
    /* Indentation is about a seventh of a Haar cascade's file: without it,
     * every cascade the OpenCV loader reads from a file within the limit
     * that has a feature per node (as opencv_traincascade writes them) fits
     * too. */
    if (text.size() > ModelLimits::kMaxFileBytes)
        text = serialise(doc.get(), false);
    if (text.empty())
        throw Error(ErrorKind::ClassifierFile, "write_waldboost_xml: serialising the classifier failed");
    /* What the loaders would refuse must not be written (found by fuzzing). */
    if (text.size() > ModelLimits::kMaxFileBytes)
        throw too_large(text.size());
    return text;
}

}  // namespace waldboost
