/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The CPU reference against the detector users know, OpenCV's
 * CascadeClassifier, on real images from Debian packages (messi5.jpg and
 * frames of Megamind.avi from opencv-doc, astronaut.png from python3-skimage)
 * with all five LBP cascades of opencv-data:
 *  - on the same scaled images, the raw windows before grouping are
 *    identical to detectMultiScale(minNeighbors = 0);
 *  - end to end (our own resize), grouped detections reach F1 >= 0.99 at
 *    IoU >= 0.5 against detectMultiScale(1.1, 3, min size = window);
 *  - groupRectangles, the resize and the gray conversion agree with OpenCV;
 * and with all seventeen Haar cascades of opencv-data (stumps, trees, tilted
 * features, the old opencv-haar-classifier format):
 *  - the squared and tilted integral images equal cv::integral's;
 *  - raw windows are identical to detectMultiScale(minNeighbors = 0) and
 *    grouped detections identical to detectMultiScale(1.1, 3, min size =
 *    window), end to end;
 *  - nested cascades (eyes, smile) searched in facedetect's areas of each
 *    face give what detectMultiScale gives on those areas as Mat ROIs;
 *  - minimum and maximum sizes of another shape than the window's pick
 *    detectMultiScale's levels (also on frames of vtest.avi);
 *  - detections and raw windows come in detectMultiScale's order when it
 *    runs on one thread.
 */
#include <gtest/gtest.h>

#include <opencv2/core/ocl.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/objdetect.hpp>
#include <opencv2/videoio.hpp>

#include <dirent.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <random>

#include "core/model/classifier_io.h"
#include "core/reference/detector.h"
#include "core/parts/nested.h"
#include "test_support.h"

using namespace waldboost;

using waldboost_test::haar_dir;

namespace {

const char* const kCascades[] = {"lbpcascade_frontalface", "lbpcascade_frontalface_improved", "lbpcascade_profileface",
                                 "lbpcascade_silverware", "lbpcascade_frontalcatface"};

/* Every haarcascade_*.xml Debian ships, sorted. */
std::vector<std::string> haar_cascades()
{
    std::vector<std::string> paths;
    if (DIR* dir = opendir(haar_dir().c_str())) {
        while (const dirent* entry = readdir(dir)) {
            const std::string name = entry->d_name;
            if (name.rfind("haarcascade_", 0) == 0 && name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0)
                paths.push_back(haar_dir() + "/" + name);
        }
        closedir(dir);
    }
    std::sort(paths.begin(), paths.end());
    return paths;
}

struct NamedImage {
    std::string name;
    cv::Mat gray;
};

GrayView view_of(const cv::Mat& gray) { return GrayView{gray.data, gray.cols, gray.rows, gray.step[0]}; }

/* The real images, read and converted to gray by OpenCV (the same pixels go
 * to both detectors). Empty when the data is missing. */
std::vector<NamedImage> real_images()
{
    std::vector<NamedImage> images;
    for (const char* name : {"messi5.jpg", "astronaut.png"}) {
        cv::Mat bgr = cv::imread(waldboost_test::test_data(name), cv::IMREAD_COLOR);
        if (bgr.empty())
            return {};
        cv::Mat gray;
        cv::cvtColor(bgr, gray, cv::COLOR_BGR2GRAY);
        images.push_back({name, gray});
    }
    cv::VideoCapture video(waldboost_test::test_data("Megamind.avi"));
    if (!video.isOpened())
        return {};
    cv::Mat frame;
    for (int index = 0; video.read(frame); ++index) {
        if (index % 30 != 0)
            continue;
        cv::Mat gray;
        cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
        images.push_back({"Megamind.avi#" + std::to_string(index), gray});
    }
    return images;
}

class OpenCvAgreement : public ::testing::Test {
protected:
    static void SetUpTestSuite()
    {
        /* OpenCV's CPU path is the reference; keep its OpenCL path out. */
        cv::ocl::setUseOpenCL(false);
        images_ = new std::vector<NamedImage>(real_images());
    }
    static void TearDownTestSuite()
    {
        delete images_;
        images_ = nullptr;
    }
    void SetUp() override
    {
        WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("messi5.jpg"));
        WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("astronaut.png"));
        WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("Megamind.avi"));
        ASSERT_GE(images_->size(), 2u + 5u) << "could not decode the test images";
    }
    static std::vector<NamedImage>* images_;
};
std::vector<NamedImage>* OpenCvAgreement::images_ = nullptr;

std::vector<Rect> to_rects(const std::vector<cv::Rect>& v)
{
    std::vector<Rect> out;
    for (const cv::Rect& r : v)
        out.push_back({r.x, r.y, r.width, r.height});
    std::sort(out.begin(), out.end());
    return out;
}

struct Matching {
    int true_positives = 0;
    int ours = 0;
    int theirs = 0;
};

/* Greedy one-to-one matching at IoU >= 0.5. */
Matching match(const std::vector<Rect>& ours, const std::vector<Rect>& theirs)
{
    Matching m;
    m.ours = static_cast<int>(ours.size());
    m.theirs = static_cast<int>(theirs.size());
    std::vector<bool> used(theirs.size(), false);
    for (const Rect& a : ours) {
        double best = 0.5;
        int best_index = -1;
        for (size_t j = 0; j < theirs.size(); ++j) {
            const double iou = intersection_over_union(a, theirs[j]);
            if (!used[j] && iou >= best) {
                best = iou;
                best_index = static_cast<int>(j);
            }
        }
        if (best_index >= 0) {
            used[best_index] = true;
            ++m.true_positives;
        }
    }
    return m;
}

}  // namespace

TEST_F(OpenCvAgreement, RawWindowsAreIdenticalOnTheSameScaledImages)
{
    size_t total_windows = 0;
    for (const char* stem : kCascades) {
        const std::string path = waldboost_test::cascade_path(stem);
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        ASSERT_FALSE(opencv.empty()) << path;
        const cv::Size window(classifier.window_width, classifier.window_height);

        DetectParams params;
        params.min_neighbors = 0;
        for (const NamedImage& image : *images_) {
            std::vector<cv::Rect> theirs;
            opencv.detectMultiScale(image.gray, theirs, 1.1, 0, 0, window);

            /* Scale exactly as OpenCV's cascade detector does internally
             * (bit-exact bilinear), then scan each level. */
            std::vector<RawWindow> ours;
            const auto levels = plan_scales({image.gray.cols, image.gray.rows}, classifier, params);
            for (size_t i = 0; i < levels.size(); ++i) {
                const cv::Size size(levels[i].image_size.width, levels[i].image_size.height);
                cv::Mat scaled(size, CV_8U);
                cv::resize(image.gray, scaled, size, 1.0 / levels[i].scale, 1.0 / levels[i].scale,
                           cv::INTER_LINEAR_EXACT);
                const auto found = detect_level(classifier, view_of(scaled), levels[i], static_cast<int>(i), params);
                ours.insert(ours.end(), found.begin(), found.end());
            }
            clip_windows(ours, {image.gray.cols, image.gray.rows});
            std::vector<Rect> our_rects;
            for (const RawWindow& w : ours)
                our_rects.push_back(w.rect);
            std::sort(our_rects.begin(), our_rects.end());
            EXPECT_EQ(our_rects, to_rects(theirs)) << stem << " on " << image.name;
            total_windows += our_rects.size();
        }
    }
    /* The comparison must not be vacuous. */
    EXPECT_GT(total_windows, 300u);
    std::printf("raw windows compared: %zu\n", total_windows);
}

TEST_F(OpenCvAgreement, GroupedDetectionsReachF1OfAtLeast099)
{
    Matching overall;
    for (const char* stem : kCascades) {
        const std::string path = waldboost_test::cascade_path(stem);
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        const cv::Size window(classifier.window_width, classifier.window_height);

        Matching per_cascade;
        for (const NamedImage& image : *images_) {
            std::vector<cv::Rect> theirs;
            opencv.detectMultiScale(image.gray, theirs, 1.1, 3, 0, window);
            DetectParams params; /* scale 1.1, min-neighbors 3, min size = window */
            std::vector<Rect> ours;
            for (const Detection& d : detect(classifier, view_of(image.gray), params))
                ours.push_back(d.rect);
            const Matching m = match(ours, to_rects(theirs));
            per_cascade.true_positives += m.true_positives;
            per_cascade.ours += m.ours;
            per_cascade.theirs += m.theirs;
        }
        const double f1 = per_cascade.ours + per_cascade.theirs == 0
                              ? 1.0
                              : 2.0 * per_cascade.true_positives / (per_cascade.ours + per_cascade.theirs);
        std::printf("%-34s ours %3d  opencv %3d  matched %3d  F1 %.4f\n", stem, per_cascade.ours, per_cascade.theirs,
                    per_cascade.true_positives, f1);
        EXPECT_GE(f1, 0.99) << stem;
        overall.true_positives += per_cascade.true_positives;
        overall.ours += per_cascade.ours;
        overall.theirs += per_cascade.theirs;
    }
    /* Real faces in these images: a detector finding nothing would "agree"
     * only if OpenCV also found nothing, so insist on real detections. */
    EXPECT_GE(overall.theirs, 10);
}

TEST_F(OpenCvAgreement, ResizeIsBitExactWithOpenCv)
{
    /* Every pyramid size detectMultiScale would make, plus odd ones. */
    size_t pixels = 0;
    std::mt19937 rng(7);
    for (const NamedImage& image : *images_) {
        std::vector<cv::Size> sizes;
        for (double f = 1.1; f < 12; f *= 1.1)
            sizes.emplace_back(static_cast<int>(std::lrint(image.gray.cols / static_cast<float>(f))),
                               static_cast<int>(std::lrint(image.gray.rows / static_cast<float>(f))));
        for (int i = 0; i < 5; ++i)
            sizes.emplace_back(1 + static_cast<int>(rng() % (2 * image.gray.cols)),
                               1 + static_cast<int>(rng() % (2 * image.gray.rows)));
        sizes.emplace_back(1, 1);
        for (const cv::Size& size : sizes) {
            cv::Mat theirs;
            cv::resize(image.gray, theirs, size, 0, 0, cv::INTER_LINEAR_EXACT);
            const GrayImage ours = resize_bilinear(view_of(image.gray), {size.width, size.height});
            ASSERT_EQ(ours.width, theirs.cols);
            ASSERT_EQ(ours.height, theirs.rows);
            for (int y = 0; y < size.height; ++y)
                ASSERT_EQ(0, std::memcmp(ours.row(y), theirs.ptr(y), static_cast<size_t>(size.width)))
                    << image.name << " at " << size.width << "x" << size.height << ", row " << y;
            pixels += ours.pixels.size();
        }
    }
    std::printf("resize: %zu pixels identical to cv::resize(INTER_LINEAR_EXACT)\n", pixels);
}

TEST_F(OpenCvAgreement, EndToEndRawWindowsAreIdentical)
{
    /* With a bit-exact pyramid the whole detector matches, not only per level. */
    size_t total = 0;
    for (const char* stem : kCascades) {
        const std::string path = waldboost_test::cascade_path(stem);
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        const cv::Size window(classifier.window_width, classifier.window_height);
        DetectParams params;
        params.min_neighbors = 0;
        for (const NamedImage& image : *images_) {
            std::vector<cv::Rect> theirs;
            opencv.detectMultiScale(image.gray, theirs, 1.1, 0, 0, window);
            std::vector<Rect> ours;
            for (const RawWindow& w : detect_raw(classifier, view_of(image.gray), params))
                ours.push_back(w.rect);
            std::sort(ours.begin(), ours.end());
            EXPECT_EQ(ours, to_rects(theirs)) << stem << " on " << image.name;
            total += ours.size();
        }
    }
    EXPECT_GT(total, 300u);
}

TEST_F(OpenCvAgreement, GrayConversionIsIdentical)
{
    cv::Mat rgb = cv::imread(waldboost_test::test_data("astronaut.png"), cv::IMREAD_COLOR);
    cv::cvtColor(rgb, rgb, cv::COLOR_BGR2RGB);
    cv::Mat theirs;
    cv::cvtColor(rgb, theirs, cv::COLOR_RGB2GRAY);
    for (int y = 0; y < rgb.rows; ++y)
        for (int x = 0; x < rgb.cols; ++x) {
            const cv::Vec3b p = rgb.at<cv::Vec3b>(y, x);
            ASSERT_EQ(rgb_to_gray(p[0], p[1], p[2]), theirs.at<uint8_t>(y, x)) << x << "," << y;
        }
}

/* The element's gray of RGB frames (every byte order of GStreamer's 3- and
 * 4-byte formats, and one no format has) is cvtColor's of the same colours:
 * whole frames, and crops of odd width at odd columns, so that the vector
 * loops' tails and rows off alignment are covered. */
TEST_F(OpenCvAgreement, GrayOfRgbFramesIsCvtColors)
{
    const cv::Mat bgr = cv::imread(waldboost_test::test_data("astronaut.png"), cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    cv::Mat theirs;
    cv::cvtColor(bgr, theirs, cv::COLOR_BGR2GRAY);
    struct Layout {
        int step, red, green, blue;
    };
    for (const Layout& l : {Layout{3, 2, 1, 0}, Layout{3, 0, 1, 2}, Layout{4, 2, 1, 0}, Layout{4, 0, 1, 2},
                            Layout{4, 1, 2, 3}, Layout{4, 3, 2, 1}, Layout{4, 3, 0, 1}}) {
        /* The colours where the layout puts them; the fourth byte the
         * inverse of blue, which no gray may read. */
        cv::Mat frame(bgr.size(), CV_8UC(l.step));
        cv::Mat inverse_blue;
        cv::extractChannel(bgr, inverse_blue, 0);
        inverse_blue = 255 - inverse_blue;
        const cv::Mat sources[] = {bgr, inverse_blue};
        std::vector<int> from_to = {2, l.red, 1, l.green, 0, l.blue};
        if (l.step == 4)
            from_to.insert(from_to.end(), {3, 6 - l.red - l.green - l.blue});
        cv::mixChannels(sources, 2, &frame, 1, from_to.data(), from_to.size() / 2);
        for (const cv::Rect& area : {cv::Rect(0, 0, frame.cols, frame.rows), cv::Rect(3, 5, 461, 17)}) {
            const cv::Mat part = frame(area);
            std::vector<uint8_t> ours(static_cast<size_t>(part.cols) * part.rows);
            gray_of_rgb(part.data, part.step, l.step, l.red, l.green, l.blue, part.cols, part.rows, ours.data());
            for (int y = 0; y < part.rows; ++y)
                for (int x = 0; x < part.cols; ++x)
                    ASSERT_EQ(ours[static_cast<size_t>(y) * part.cols + x], theirs.at<uint8_t>(y + area.y, x + area.x))
                        << l.step << "-byte pixels, red at " << l.red << ", green at " << l.green << ", crop "
                        << area.width << ": " << x << "," << y;
        }
    }
}

TEST(GroupRectanglesAgreement, RandomClustersGroupLikeOpenCv)
{
    std::mt19937 rng(2026);
    for (int trial = 0; trial < 300; ++trial) {
        /* A few clusters of jittered rectangles, some nested. */
        std::vector<cv::Rect> rects;
        std::vector<RawWindow> windows;
        const int clusters = 1 + static_cast<int>(rng() % 5);
        for (int c = 0; c < clusters; ++c) {
            const int size = 20 + static_cast<int>(rng() % 80);
            const int cx = static_cast<int>(rng() % 300), cy = static_cast<int>(rng() % 300);
            const int members = 1 + static_cast<int>(rng() % 9);
            for (int m = 0; m < members; ++m) {
                const int j = size / 6 + 1;
                const cv::Rect r(cx + static_cast<int>(rng() % j), cy + static_cast<int>(rng() % j),
                                 size + static_cast<int>(rng() % j), size + static_cast<int>(rng() % j));
                rects.push_back(r);
                RawWindow w;
                w.rect = {r.x, r.y, r.width, r.height};
                windows.push_back(w);
            }
        }
        const int min_neighbors = static_cast<int>(rng() % 5);
        std::vector<int> weights;
        cv::groupRectangles(rects, weights, min_neighbors, 0.2);

        std::map<std::tuple<int, int, int, int>, int> theirs, ours;
        for (size_t i = 0; i < rects.size(); ++i)
            theirs[{rects[i].x, rects[i].y, rects[i].width, rects[i].height}] += min_neighbors > 0 ? weights[i] : 1;
        for (const Detection& d : group_opencv(windows, min_neighbors))
            ours[{d.rect.x, d.rect.y, d.rect.width, d.rect.height}] += d.neighbors;
        ASSERT_EQ(ours, theirs) << "trial " << trial;
    }
}

TEST_F(OpenCvAgreement, SquaredAndTiltedIntegralsAreIdentical)
{
    size_t values = 0;
    for (const NamedImage& image : *images_) {
        for (const double factor : {1.0, 2.7}) {
            cv::Mat scaled;
            cv::resize(image.gray, scaled, cv::Size(), 1 / factor, 1 / factor, cv::INTER_LINEAR_EXACT);
            /* As OpenCV's Haar detector asks for them: 32-bit sums and squares. */
            cv::Mat sum, squares, tilted;
            cv::integral(scaled, sum, squares, tilted, CV_32S, CV_32S);
            const IntegralImage our_squares = squared_integral_image(view_of(scaled));
            const IntegralImage our_tilted = tilted_integral_image(view_of(scaled));
            for (int y = 0; y <= scaled.rows; ++y)
                for (int x = 0; x <= scaled.cols; ++x) {
                    ASSERT_EQ(our_squares.at(x, y), static_cast<uint32_t>(squares.at<int32_t>(y, x)))
                        << image.name << " squares at " << x << "," << y;
                    ASSERT_EQ(our_tilted.at(x, y), static_cast<uint32_t>(tilted.at<int32_t>(y, x)))
                        << image.name << " tilted at " << x << "," << y;
                }
            values += 2 * sum.total();
        }
    }
    std::printf("integrals: %zu squared and tilted sums identical to cv::integral\n", values);
}

TEST_F(OpenCvAgreement, HaarCascadesGiveIdenticalRawAndGroupedDetections)
{
    const std::vector<std::string> cascades = haar_cascades();
    ASSERT_GE(cascades.size(), 17u) << "Debian's opencv-data ships 17 Haar cascades in " << haar_dir();
    size_t raw_total = 0, grouped_total = 0;
    for (const std::string& path : cascades) {
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        ASSERT_FALSE(opencv.empty()) << path;
        const cv::Size window(classifier.window_width, classifier.window_height);
        ASSERT_EQ(opencv.getOriginalWindowSize(), window) << path;
        size_t raw = 0, grouped = 0;
        for (const NamedImage& image : *images_) {
            DetectParams params; /* scale 1.1, min-neighbors 3, min size = window */
            /* One scan gives both: the raw windows are the unclipped ones
             * clipped, the detections the unclipped ones grouped (which is
             * how detect_raw and detect are made). */
            std::vector<RawWindow> windows = detect_unclipped(classifier, view_of(image.gray), params);
            const std::vector<Detection> detections =
                detections_of(windows, params, {image.gray.cols, image.gray.rows});
            clip_windows(windows, {image.gray.cols, image.gray.rows});

            std::vector<cv::Rect> theirs_raw, theirs_grouped;
            opencv.detectMultiScale(image.gray, theirs_raw, 1.1, 0, 0, window);
            opencv.detectMultiScale(image.gray, theirs_grouped, 1.1, 3, 0, window);

            std::vector<Rect> ours_raw, ours_grouped;
            for (const RawWindow& w : windows)
                ours_raw.push_back(w.rect);
            std::sort(ours_raw.begin(), ours_raw.end());
            for (const Detection& d : detections)
                ours_grouped.push_back(d.rect);
            std::sort(ours_grouped.begin(), ours_grouped.end());
            EXPECT_EQ(ours_raw, to_rects(theirs_raw)) << path << " on " << image.name << " (raw windows)";
            EXPECT_EQ(ours_grouped, to_rects(theirs_grouped)) << path << " on " << image.name << " (grouped)";
            raw += ours_raw.size();
            grouped += ours_grouped.size();
        }
        std::printf("%-44s raw windows %6zu  grouped %4zu\n", path.substr(path.find_last_of('/') + 1).c_str(), raw,
                    grouped);
        raw_total += raw;
        grouped_total += grouped;
    }
    /* Not vacuous: real faces, eyes and bodies in these images. */
    EXPECT_GT(raw_total, 2000u);
    EXPECT_GT(grouped_total, 50u);
}

/* Not only the same detections: the same order. detectMultiScale scans
 * with several threads, whose windows come in the order they finish, and
 * numbers its groups by their first window; on one thread its order is
 * level, row, column, which is ours. That order is what parts=first takes
 * as facedetect's "first part" of a face. */
TEST_F(OpenCvAgreement, DetectionsComeInDetectMultiScalesOrderOnOneThread)
{
    const int threads = cv::getNumThreads();
    cv::setNumThreads(1);
    const std::string paths[] = {
        waldboost_test::cascade_path("lbpcascade_frontalface"),
        waldboost_test::cascade_path("lbpcascade_profileface"),
        waldboost_test::cascade_path("lbpcascade_frontalface_improved"),
        haar_dir() + "/haarcascade_frontalface_default.xml",
        haar_dir() + "/haarcascade_eye.xml",
        haar_dir() + "/haarcascade_smile.xml",
    };
    size_t ordered = 0;
    for (const std::string& path : paths) {
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        ASSERT_FALSE(opencv.empty()) << path;
        const cv::Size window(classifier.window_width, classifier.window_height);
        for (size_t i = 0; i < images_->size(); i += 2) {
            const NamedImage& image = (*images_)[i];
            /* One scan gives both: the raw windows in their order, and
             * groupRectangles' numbering of them. */
            DetectParams raw, grouped;
            raw.min_neighbors = 0;
            const Size size{image.gray.cols, image.gray.rows};
            std::vector<RawWindow> windows = detect_unclipped(classifier, view_of(image.gray), raw);
            for (const DetectParams& params : {raw, grouped}) {
                std::vector<cv::Rect> found;
                opencv.detectMultiScale(image.gray, found, 1.1, params.min_neighbors, 0, window);
                std::vector<Rect> ours, theirs;
                for (const Detection& d : detections_of(windows, params, size))
                    ours.push_back(d.rect);
                for (const cv::Rect& r : found)
                    theirs.push_back({r.x, r.y, r.width, r.height});
                EXPECT_EQ(ours, theirs) << path << " on " << image.name << ", min neighbours " << params.min_neighbors;
                ordered += ours.size() > 1 ? ours.size() : 0;
            }
        }
    }
    cv::setNumThreads(threads);
    EXPECT_GT(ordered, 100u); /* lists of more than one, whose order can be wrong */
}

/* detectMultiScale's minSize and maxSize are a width and a height each: a
 * level is skipped when its window is narrower or lower than minSize, and
 * the scan stops at the first wider or higher than maxSize. With windows
 * that are not square (upperbody 22x18, fullbody 14x28) a size that is not
 * the window's shape picks other levels than a width alone would: the
 * element's min-size with min-height, waldboost-detect's --min-size WxH. */
TEST_F(OpenCvAgreement, MinAndMaxSizesPickOpenCvsLevels)
{
    struct Sizes {
        cv::Size min, max;
    };
    const Sizes sizes[] = {{{0, 40}, {}}, {{60, 20}, {}}, {{30, 30}, {160, 90}}};
    /* Faces, and people walking (vtest.avi, from opencv-doc). */
    std::vector<NamedImage> images;
    for (size_t i = 0; i < images_->size(); i += 3)
        images.push_back((*images_)[i]);
    WALDBOOST_REQUIRE_FILE(waldboost_test::test_data("vtest.avi"));
    cv::VideoCapture video(waldboost_test::test_data("vtest.avi"));
    cv::Mat frame;
    for (int index = 0; index <= 300 && video.read(frame); ++index) {
        if (index % 300 != 0)
            continue;
        cv::Mat gray;
        cv::cvtColor(frame, gray, cv::COLOR_BGR2GRAY);
        images.push_back({"vtest.avi#" + std::to_string(index), gray});
    }
    ASSERT_EQ(images.size(), (images_->size() + 2) / 3 + 2) << "could not decode vtest.avi";
    for (const char* stem : {"haarcascade_upperbody", "haarcascade_fullbody", "haarcascade_frontalface_default"}) {
        const std::string path = haar_dir() + "/" + stem + ".xml";
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        ASSERT_FALSE(opencv.empty()) << path;
        for (const Sizes& size : sizes) {
            size_t found = 0;
            for (const NamedImage& image : images) {
                std::vector<cv::Rect> theirs;
                opencv.detectMultiScale(image.gray, theirs, 1.1, 0, 0, size.min, size.max);
                DetectParams params;
                params.min_neighbors = 0;
                params.min_size = {size.min.width, size.min.height};
                params.max_size = {size.max.width, size.max.height};
                std::vector<RawWindow> windows = detect_unclipped(classifier, view_of(image.gray), params);
                clip_windows(windows, {image.gray.cols, image.gray.rows});
                std::vector<Rect> ours;
                for (const RawWindow& w : windows)
                    ours.push_back(w.rect);
                std::sort(ours.begin(), ours.end());
                EXPECT_EQ(ours, to_rects(theirs))
                    << stem << " on " << image.name << ", min size " << size.min << ", max size " << size.max;
                found += ours.size();
            }
            std::printf("%-32s min %3dx%-3d max %3dx%-3d: %5zu raw windows\n", stem, size.min.width, size.min.height,
                        size.max.width, size.max.height, found);
            EXPECT_GT(found, 10u) << stem << ": too few windows to compare";
        }
    }
}

TEST_F(OpenCvAgreement, NestedCascadesInFaceAreasEqualOpenCvOnMatRois)
{
    /* What GStreamer's facedetect does with eyes-profile, nose-profile and
     * mouth-profile: faces from haarcascade_frontalface_default, then each
     * part cascade on a cv::Mat ROI of the face (eyes: the upper half;
     * nose: x + w/4, y + h/4, w/2, h/2; mouth: the lower half) with the
     * same scale factor and min neighbours and min size (min face / 8). */
    const Classifier face = load_classifier_file(haar_dir() + "/haarcascade_frontalface_default.xml");
    cv::CascadeClassifier opencv_face(haar_dir() + "/haarcascade_frontalface_default.xml");
    ASSERT_FALSE(opencv_face.empty());
    struct Part {
        const char* cascade;
        PartArea area;
        cv::Rect (*facedetect_area)(const cv::Rect&);
    };
    const Part parts[] = {
        {"haarcascade_eye.xml", PartArea::UpperHalf,
         [](const cv::Rect& r) {
             return cv::Rect(r.x, r.y, r.width, r.height / 2);
         }},
        {"haarcascade_eye_tree_eyeglasses.xml", PartArea::Centre,
         [](const cv::Rect& r) {
             return cv::Rect(r.x + r.width / 4, r.y + r.height / 4, r.width / 2, r.height / 2);
         }},
        {"haarcascade_smile.xml", PartArea::LowerHalf,
         [](const cv::Rect& r) {
             return cv::Rect(r.x, r.y + r.height / 2, r.width, r.height / 2);
         }},
    };
    const int min_face = 30;
    size_t faces_total = 0, parts_total = 0;
    for (const Part& part : parts) {
        const std::string path = haar_dir() + "/" + part.cascade;
        const Classifier classifier = load_classifier_file(path);
        cv::CascadeClassifier opencv(path);
        ASSERT_FALSE(opencv.empty()) << path;
        DetectParams params;
        params.min_size = Size{min_face / 8, min_face / 8};
        for (const NamedImage& image : *images_) {
            std::vector<cv::Rect> faces;
            opencv_face.detectMultiScale(image.gray, faces, 1.1, 3, 0, cv::Size(min_face, min_face));
            faces_total += faces.size();
            for (const cv::Rect& f : faces) {
                const cv::Rect area = part.facedetect_area(f);
                std::vector<cv::Rect> theirs;
                opencv.detectMultiScale(cv::Mat(image.gray, area), theirs, 1.1, 3, 0,
                                        cv::Size(min_face / 8, min_face / 8));
                for (cv::Rect& r : theirs)
                    r += area.tl();
                const Rect ours_area = part_area(part.area, Rect{f.x, f.y, f.width, f.height});
                EXPECT_EQ(ours_area, (Rect{area.x, area.y, area.width, area.height})) << part.cascade;
                std::vector<Rect> ours;
                for (const Detection& d : detect_in_area(classifier, view_of(image.gray), ours_area, params))
                    ours.push_back(d.rect);
                std::sort(ours.begin(), ours.end());
                EXPECT_EQ(ours, to_rects(theirs)) << part.cascade << " in the face at " << f.x << "," << f.y << " "
                                                  << f.width << "x" << f.height << " of " << image.name;
                parts_total += ours.size();
            }
        }
    }
    std::printf("nested: %zu face areas searched, %zu parts found\n", faces_total, parts_total);
    /* Not vacuous: eyes and smiles are found in these faces. */
    EXPECT_GT(parts_total, 10u);
}
