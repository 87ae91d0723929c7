/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Ground truth for tracking: synthetic GRAY8 sequences made of real faces
 * moving on known paths over real face-free backgrounds, with the exact box
 * of every face on every frame.
 *
 *   make-sequences TESTDATA MEGAMIND_FRAMES OUT
 *
 * TESTDATA holds the images tests/fetch-test-data.sh fetches (astronaut.png,
 * messi5.jpg and the backgrounds); MEGAMIND_FRAMES holds megamind-NNN.pgm,
 * frames of Megamind.avi the test decodes (the video needs a decoder the
 * core has not). Each face is cut from its source around the box the CPU
 * reference detector (embedded classifier) finds there, so the truth box is
 * the detector's own box carried through the known scale and position; a
 * face the detector does not find again at the sizes used stops the
 * program, so a sequence never holds a face the detector cannot see. Two
 * mirrored faces make up the crowd's ten.
 *
 * OUT gets, per sequence, NAME.gray (the frames, raw, one after the other),
 * NAME.truth.csv (frame,id,x,y,w,h,visibility,counted) and a line of
 * manifest.csv (name,width,height,frames). "counted" is 1 where at least 90%
 * of the face box is in the frame and uncovered: a scorer counts those as
 * objects; other boxes of a face still in the scene (partly cut, hidden)
 * are 0, "don't care" (neither a miss nor a false box). Everything is a
 * function of the inputs and fixed seeds.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "core/detection/image.h"
#include "core/embedded/default_classifier.h"
#include "core/reference/detector.h"
#include "tools/common/image_file.h"

using namespace waldboost;

namespace {

constexpr int kWidth = 640;
constexpr int kHeight = 480;
constexpr double kPi = 3.14159265358979323846;
constexpr double kMargin = 0.3;  /* crop margin around the face, of its width */
constexpr double kCounted = 0.9; /* visible fraction from which a face counts */

double iou(const Rect& a, const Rect& b)
{
    const int x0 = std::max(a.x, b.x), y0 = std::max(a.y, b.y);
    const int x1 = std::min(a.x + a.width, b.x + b.width), y1 = std::min(a.y + a.height, b.y + b.height);
    if (x1 <= x0 || y1 <= y0)
        return 0.0;
    const double inter = double(x1 - x0) * (y1 - y0);
    return inter / (double(a.width) * a.height + double(b.width) * b.height - inter);
}

GrayImage crop(const GrayImage& src, int x, int y, int w, int h)
{
    GrayImage out(w, h);
    for (int r = 0; r < h; ++r)
        for (int c = 0; c < w; ++c) {
            const int sx = std::clamp(x + c, 0, src.width - 1), sy = std::clamp(y + r, 0, src.height - 1);
            out.at(c, r) = src.at(sx, sy);
        }
    return out;
}

/* A face cut from its source: the crop and the detector's box inside it. */
struct Sprite {
    std::string name;
    GrayImage image;
    Rect face;
};

/* The detection nearest `hint` (IoU >= 0.5), searched in a window around it
 * so that the slow reference detector sees a small image. */
Sprite cut_face(const std::string& name, const GrayImage& src, Rect hint)
{
    const int pad = std::max(hint.width, 100);
    const int x0 = std::max(0, hint.x - pad), y0 = std::max(0, hint.y - pad);
    const int x1 = std::min(src.width, hint.x + hint.width + pad),
              y1 = std::min(src.height, hint.y + hint.height + pad);
    const GrayImage region = crop(src, x0, y0, x1 - x0, y1 - y0);
    DetectParams params;
    Rect best{};
    double best_iou = 0.5;
    for (const Detection& d : detect(default_classifier(), region.view(), params)) {
        const Rect r{d.rect.x + x0, d.rect.y + y0, d.rect.width, d.rect.height};
        if (iou(r, hint) >= best_iou) {
            best_iou = iou(r, hint);
            best = r;
        }
    }
    if (best.width == 0) {
        std::fprintf(stderr, "make-sequences: the detector finds no face near the hint of %s\n", name.c_str());
        std::exit(1);
    }
    const int m = static_cast<int>(std::lround(best.width * kMargin));
    Sprite s{name, crop(src, best.x - m, best.y - m, best.width + 2 * m, best.height + 2 * m),
             Rect{m, m, best.width, best.height}};
    std::printf("face %-14s %dx%d at (%d,%d) in its source\n", name.c_str(), best.width, best.height, best.x, best.y);
    return s;
}

/* The face seen in a mirror: another appearance for the crowd. */
Sprite mirrored(const Sprite& s)
{
    Sprite m{s.name + "-mirror", GrayImage(s.image.width, s.image.height), s.face};
    for (int y = 0; y < s.image.height; ++y)
        for (int x = 0; x < s.image.width; ++x)
            m.image.at(x, y) = s.image.at(s.image.width - 1 - x, y);
    m.face.x = s.image.width - s.face.x - s.face.width;
    return m;
}

/* A sprite at a face width: the image, its opacity (feathered margin, so
 * that no hard crop edge is pasted) and the face's offset in it. */
struct Scaled {
    GrayImage image;
    std::vector<uint8_t> alpha; /* 0..255 */
    int face_x = 0, face_y = 0, face_size = 0;
};

Scaled scale_sprite(const Sprite& s, int face_width)
{
    const double k = double(face_width) / s.face.width;
    Scaled out;
    const int w = std::max(1, static_cast<int>(std::lround(s.image.width * k)));
    const int h = std::max(1, static_cast<int>(std::lround(s.image.height * k)));
    out.image = resize_bilinear(s.image.view(), Size{w, h});
    out.face_x = static_cast<int>(std::lround(s.face.x * k));
    out.face_y = static_cast<int>(std::lround(s.face.y * k));
    out.face_size = face_width;
    const double feather = std::max(2.0, s.face.x * k * 0.6);
    out.alpha.resize(static_cast<size_t>(w) * h);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double d = std::min({x + 0.5, w - x - 0.5, y + 0.5, h - y - 0.5});
            out.alpha[static_cast<size_t>(y) * w + x] =
                static_cast<uint8_t>(std::lround(255.0 * std::min(1.0, d / feather)));
        }
    return out;
}

/* Where a face is on one frame: the face box's top-left and width; absent
 * frames have w == 0. */
struct Place {
    double x = 0, y = 0;
    int w = 0;
};

struct Face {
    int id;
    int sprite;
    int z; /* drawn in z order, larger in front */
    std::function<Place(int)> at;
};

/* A rectangle of texture from another real image standing in front. */
struct Bar {
    int z;
    int w, h;
    int texture;
    std::function<std::pair<int, int>(int)> at; /* top-left per frame */
};

struct Sequence {
    std::string name;
    int frames;
    int background;
    std::vector<Face> faces;
    std::vector<Bar> bars;
};

class Writer {
public:
    Writer(std::vector<Sprite> sprites, std::vector<GrayImage> backgrounds, std::string out)
        : sprites_(std::move(sprites)), backgrounds_(std::move(backgrounds)), out_(std::move(out))
    {
    }

    const Scaled& scaled(int sprite, int w)
    {
        auto key = std::make_pair(sprite, w);
        auto it = cache_.find(key);
        if (it == cache_.end())
            it = cache_.emplace(key, scale_sprite(sprites_[sprite], w)).first;
        return it->second;
    }

    void write(const Sequence& seq, uint32_t seed, std::ofstream& manifest)
    {
        std::ofstream frames(out_ + "/" + seq.name + ".gray", std::ios::binary);
        std::ofstream truth(out_ + "/" + seq.name + ".truth.csv");
        truth << "frame,id,x,y,w,h,visibility,counted\n";
        std::mt19937 rng(seed);
        GrayImage frame;
        std::vector<int> owner(static_cast<size_t>(kWidth) * kHeight);
        int counted = 0, dont_care = 0;
        for (int t = 0; t < seq.frames; ++t) {
            frame = backgrounds_[seq.background];
            std::fill(owner.begin(), owner.end(), 0);
            /* Faces and bars, back to front; owner[] keeps who is seen at
             * each pixel (a face's id, -1 a bar) for the visibility. */
            struct Item {
                int z;
                int face;
                int bar;
            };
            std::vector<Item> items;
            for (size_t i = 0; i < seq.faces.size(); ++i)
                items.push_back({seq.faces[i].z, static_cast<int>(i), -1});
            for (size_t i = 0; i < seq.bars.size(); ++i)
                items.push_back({seq.bars[i].z, -1, static_cast<int>(i)});
            std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
                return a.z < b.z;
            });
            std::vector<Rect> boxes(seq.faces.size());
            for (const Item& item : items) {
                if (item.bar >= 0) {
                    const Bar& bar = seq.bars[item.bar];
                    const auto [bx, by] = bar.at(t);
                    const GrayImage& tex = backgrounds_[bar.texture];
                    for (int y = std::max(0, by); y < std::min(kHeight, by + bar.h); ++y)
                        for (int x = std::max(0, bx); x < std::min(kWidth, bx + bar.w); ++x) {
                            frame.at(x, y) = tex.at(x, y);
                            owner[static_cast<size_t>(y) * kWidth + x] = -1;
                        }
                    continue;
                }
                const Face& face = seq.faces[item.face];
                const Place p = face.at(t);
                if (p.w <= 0)
                    continue;
                const Scaled& s = scaled(face.sprite, p.w);
                const int fx = static_cast<int>(std::lround(p.x)), fy = static_cast<int>(std::lround(p.y));
                const int ox = fx - s.face_x, oy = fy - s.face_y;
                boxes[item.face] = Rect{fx, fy, p.w, p.w};
                for (int y = 0; y < s.image.height; ++y)
                    for (int x = 0; x < s.image.width; ++x) {
                        const int X = ox + x, Y = oy + y;
                        if (X < 0 || Y < 0 || X >= kWidth || Y >= kHeight)
                            continue;
                        const int a = s.alpha[static_cast<size_t>(y) * s.image.width + x];
                        uint8_t& dst = frame.at(X, Y);
                        dst = static_cast<uint8_t>((s.image.at(x, y) * a + dst * (255 - a) + 127) / 255);
                        if (a >= 128)
                            owner[static_cast<size_t>(Y) * kWidth + X] = face.id;
                    }
            }
            /* Sensor noise, -3..3, from the fixed seed (mt19937's sequence
             * is the same everywhere; the modulo keeps it so). */
            for (uint8_t& v : frame.pixels)
                v = static_cast<uint8_t>(std::clamp(int(v) + int(rng() % 7) - 3, 0, 255));
            frames.write(reinterpret_cast<const char*>(frame.pixels.data()),
                         static_cast<std::streamsize>(frame.pixels.size()));
            for (size_t i = 0; i < seq.faces.size(); ++i) {
                const Rect& b = boxes[i];
                if (b.width == 0)
                    continue;
                const int x0 = std::max(0, b.x), y0 = std::max(0, b.y);
                const int x1 = std::min(kWidth, b.x + b.width), y1 = std::min(kHeight, b.y + b.height);
                if (x1 <= x0 || y1 <= y0)
                    continue; /* out of the frame: not in the scene */
                int seen = 0;
                for (int y = y0; y < y1; ++y)
                    for (int x = x0; x < x1; ++x)
                        seen += owner[static_cast<size_t>(y) * kWidth + x] == seq.faces[i].id;
                const double visibility = double(seen) / (double(b.width) * b.height);
                const bool counts = visibility >= kCounted;
                (counts ? counted : dont_care)++;
                char line[160];
                std::snprintf(line, sizeof line, "%d,%d,%d,%d,%d,%d,%.3f,%d\n", t, seq.faces[i].id, x0, y0, x1 - x0,
                              y1 - y0, visibility, counts ? 1 : 0);
                truth << line;
            }
        }
        manifest << seq.name << "," << kWidth << "," << kHeight << "," << seq.frames << "\n";
        std::printf("sequence %-10s %3d frames, %zu faces, %d counted boxes, %d don't-care\n", seq.name.c_str(),
                    seq.frames, seq.faces.size(), counted, dont_care);
    }

private:
    std::vector<Sprite> sprites_;
    std::vector<GrayImage> backgrounds_;
    std::string out_;
    std::map<std::pair<int, int>, Scaled> cache_;
};

/* Linear motion from (x0, y0) at frame t0 to (x1, y1) at t1, width w; absent
 * outside [t0, t1]. */
std::function<Place(int)> line(int t0, int t1, double x0, double y0, double x1, double y1, int w)
{
    return [=](int t) {
        if (t < t0 || t > t1)
            return Place{};
        const double k = t1 > t0 ? double(t - t0) / (t1 - t0) : 0.0;
        return Place{x0 + (x1 - x0) * k, y0 + (y1 - y0) * k, w};
    };
}

std::function<std::pair<int, int>(int)> bar_line(int t0, int x0, double vx, int y)
{
    return [=](int t) {
        return std::make_pair(static_cast<int>(std::lround(x0 + vx * (t - t0))), y);
    };
}

/* Checks that the detector finds each face again, pasted on a background at
 * the sizes the sequences use; stops the program if not. For choosing
 * faces: MAKE_SEQUENCES_PROBE=1 tries every face at widths 36 to 168, and
 * MAKE_SEQUENCES_DUMP=DIR writes each missed one as a PGM image. */
void check_visible(Writer& writer, const std::vector<Sprite>& sprites, const GrayImage& background,
                   const std::vector<Sequence>& seqs)
{
    /* Each face at the smallest and largest widths it has, and about six
     * between (the checks take the slow reference detector). */
    std::map<int, std::vector<int>> widths;
    bool missed = false;
    for (const Sequence& seq : seqs)
        for (const Face& f : seq.faces)
            for (int t = 0; t < seq.frames; ++t)
                if (const int w = f.at(t).w; w > 0)
                    widths[f.sprite].push_back(w);
    if (std::getenv("MAKE_SEQUENCES_PROBE"))
        for (size_t i = 0; i < sprites.size(); ++i)
            for (int w = 36; w <= 168; w += 4)
                widths[static_cast<int>(i)].push_back(w);
    for (auto& [i, all] : widths) {
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        std::vector<int> sizes;
        const size_t step = std::getenv("MAKE_SEQUENCES_PROBE") ? 1 : std::max<size_t>(1, all.size() / 6);
        for (size_t k = 0; k < all.size(); k += step)
            sizes.push_back(all[k]);
        sizes.push_back(all.back());
        for (int w : sizes) {
            const Scaled& s = writer.scaled(i, w);
            const int border = 16;
            GrayImage canvas = crop(background, 100, 100, s.image.width + 2 * border, s.image.height + 2 * border);
            for (int y = 0; y < s.image.height; ++y)
                for (int x = 0; x < s.image.width; ++x) {
                    const int a = s.alpha[static_cast<size_t>(y) * s.image.width + x];
                    uint8_t& dst = canvas.at(x + border, y + border);
                    dst = static_cast<uint8_t>((s.image.at(x, y) * a + dst * (255 - a) + 127) / 255);
                }
            const Rect truth{border + s.face_x, border + s.face_y, w, w};
            double best = 0;
            for (const Detection& d : detect(default_classifier(), canvas.view(), DetectParams{}))
                best = std::max(best, iou(d.rect, truth));
            if (best < 0.5) {
                std::fprintf(stderr, "make-sequences: the detector misses %s at width %d (best IoU %.2f)\n",
                             sprites[static_cast<size_t>(i)].name.c_str(), w, best);
                if (std::getenv("MAKE_SEQUENCES_DUMP")) {
                    std::ofstream pgm(std::string(std::getenv("MAKE_SEQUENCES_DUMP")) + "/" +
                                      sprites[static_cast<size_t>(i)].name + "-" + std::to_string(w) + ".pgm");
                    pgm << "P5\n" << canvas.width << " " << canvas.height << "\n255\n";
                    pgm.write(reinterpret_cast<const char*>(canvas.pixels.data()), canvas.pixels.size());
                }
                missed = true;
            }
        }
    }
    if (missed)
        std::exit(1);
}

}  // namespace

int main(int argc, char** argv)
{
    if (argc != 4) {
        std::fprintf(stderr, "usage: make-sequences TESTDATA MEGAMIND_FRAMES OUT\n");
        return 2;
    }
    const std::string data = argv[1], frames = argv[2], out = argv[3];
    try {
        auto load = [](const std::string& path) {
            return tools::load_gray_image(path);
        };
        auto frame = [&](int n) {
            char name[64];
            std::snprintf(name, sizeof name, "/megamind-%03d.pgm", n);
            return load(frames + name);
        };
        /* Hints: where each face is in its source (boxes the reference
         * detector gave there); the cut uses the box found now. */
        std::vector<Sprite> sprites;
        sprites.push_back(cut_face("astronaut", load(data + "/astronaut.png"), {171, 64, 104, 104}));
        sprites.push_back(cut_face("messi", load(data + "/messi5.jpg"), {228, 95, 35, 35}));
        const GrayImage m20 = frame(20), m40 = frame(40), m60 = frame(60), m80 = frame(80), m240 = frame(240);
        sprites.push_back(cut_face("megamind20-a", m20, {269, 200, 169, 169}));
        sprites.push_back(cut_face("megamind20-b", m20, {439, 192, 78, 78}));
        sprites.push_back(cut_face("megamind60-a", m60, {222, 203, 169, 169}));
        sprites.push_back(cut_face("megamind60-b", m60, {471, 175, 76, 76}));
        /* The detector misses the large faces of frames 80 and 260 at
         * several of the sizes used (and messi below 48 pixels): mirrors of
         * two faces it finds at every size from 40 to 168 stand in. */
        sprites.push_back(mirrored(sprites[0]));
        sprites.push_back(cut_face("megamind80-b", m80, {478, 173, 71, 71}));
        sprites.push_back(mirrored(sprites[2]));
        sprites.push_back(cut_face("megamind40-b", m40, {454, 185, 81, 81}));
        sprites.push_back(cut_face("megamind240", m240, {218, 92, 307, 307}));

        /* Face-free backgrounds (the detector finds nothing on them),
         * scaled to the frame. */
        std::vector<GrayImage> backgrounds;
        for (const char* name : {"building.jpg", "leuvenA.jpg", "board.jpg", "fruits.jpg", "aero3.jpg", "coffee.png",
                                 "gravel.png", "brick.png"})
            backgrounds.push_back(resize_bilinear(load(data + "/" + name).view(), Size{kWidth, kHeight}));
        enum { kBuilding, kLeuven, kBoard, kFruits, kAero, kCoffee, kGravel, kBrick };

        Writer writer(sprites, backgrounds, out);

        std::vector<Sequence> seqs;
        /* Smooth motion: a sweep with a sway, a circle, an up-and-down. */
        seqs.push_back(
            {"smooth",
             120,
             kBuilding,
             {
                 {1, 0, 0,
                  [](int t) {
                      return Place{60 + 3.5 * t, 90 + 30 * std::sin(2 * kPi * t / 60), 80};
                  }},
                 {2, 2, 0,
                  [](int t) {
                      return Place{268 + 90 * std::cos(2 * kPi * t / 120), 300 + 90 * std::sin(2 * kPi * t / 120), 64};
                  }},
                 {3, 1, 0,
                  [](int t) {
                      return Place{540, 240 + 100 * std::sin(2 * kPi * t / 90), 56};
                  }},
             },
             {}});
        /* Two faces crossing head-on (one passes in front of the other),
         * and two passing close with a vertical offset. */
        seqs.push_back({"crossing",
                        100,
                        kLeuven,
                        {
                            {1, 4, 0, line(0, 99, 40, 100, 530, 100, 72)},
                            {2, 7, 1, line(0, 99, 530, 110, 40, 110, 72)},
                            {3, 0, 0, line(0, 99, 40, 290, 540, 290, 64)},
                            {4, 3, 1, line(0, 99, 540, 345, 40, 345, 64)},
                        },
                        {}});
        /* Hidden: a face behind a bar sweeping over it (about 20 frames
         * not counted), another behind a slower bar (about 28), and a
         * face passing behind a larger face (about 25). */
        seqs.push_back({"occlusion",
                        150,
                        kFruits,
                        {
                            {1, 5, 0, line(0, 149, 80, 40, 140, 40, 64)},
                            {2, 0, 0, line(0, 149, 80, 175, 160, 175, 64)},
                            {3, 3, 0, line(0, 149, 560, 340, 110, 340, 56)},
                            {4, 1, 1, line(0, 149, 100, 320, 550, 320, 72)},
                        },
                        {
                            {2, 120, 130, kGravel, bar_line(20, -130, 8, 10)},
                            {2, 130, 110, kBrick, bar_line(60, -140, 7, 155)},
                        }});
        /* Approach and retreat: one face grows 40 -> 160 -> 40 while another
         * shrinks 100 -> 40 -> 100, about their centres. */
        seqs.push_back({"scale",
                        120,
                        kCoffee,
                        {
                            {1, 2, 0,
                             [](int t) {
                                 const int w = static_cast<int>(std::lround(40 + 120 * std::sin(kPi * t / 119)));
                                 return Place{220 - w / 2.0, 240 - w / 2.0, w};
                             }},
                            {2, 0, 0,
                             [](int t) {
                                 const int w = static_cast<int>(std::lround(100 - 60 * std::sin(kPi * t / 119)));
                                 return Place{500 - w / 2.0, 240 - w / 2.0, w};
                             }},
                        },
                        {}});
        /* Entering and leaving at the edges: left to right, top to bottom,
         * in from the right, and out at the bottom. */
        seqs.push_back({"edges",
                        120,
                        kAero,
                        {
                            {1, 6, 0, line(0, 119, -80, 60, 640, 60, 64)},
                            {2, 2, 0, line(0, 119, 300, -80, 300, 515, 64)},
                            {3, 5, 0, line(30, 119, 640, 330, 284, 330, 72)},
                            {4, 9, 0, line(0, 119, 60, 300, 60, 657, 56)},
                        },
                        {}});
        /* A crowd: 10 faces at once, each swaying in its cell. */
        {
            Sequence crowd{"crowd", 100, kBuilding, {}, {}};
            for (int k = 0; k < 10; ++k) {
                const double cx = 64 + 128 * (k % 5), cy = 120 + 240 * (k / 5);
                const int w = 52 + 2 * (k % 4);
                const double px = 40 + 7 * k, py = 55 + 5 * k, phase = 0.7 * k;
                crowd.faces.push_back({k + 1, k == 0 ? 0 : k + 1, 0, [=](int t) {
                                           /* all but messi */
                                           return Place{cx - w / 2.0 + 22 * std::sin(2 * kPi * t / px + phase),
                                                        cy - w / 2.0 + 40 * std::sin(2 * kPi * t / py + 2 * phase), w};
                                       }});
            }
            seqs.push_back(crowd);
        }
        /* Faces passing behind faces of about their size, still or moving
         * either way, hidden 25 to 35 frames: the last boxes before each is
         * hidden are those of a partly covered face, smaller than it, and
         * at interval 5 one of the four came back with a new id while the
         * coasting box went on shrinking (issue 55, item 14). */
        seqs.push_back({"passing",
                        140,
                        kAero,
                        {
                            {1, 2, 1, line(0, 139, 290, 30, 290, 30, 64)},
                            {2, 6, 0, line(0, 119, 60, 30, 560, 30, 64)},
                            {3, 4, 1, line(0, 139, 200, 150, 380, 150, 68)},
                            {4, 8, 0, line(0, 119, 580, 150, 40, 150, 64)},
                            {5, 9, 1, line(0, 139, 150, 270, 360, 270, 64)},
                            {6, 0, 0, line(0, 109, 0, 270, 620, 270, 64)},
                            {7, 7, 1, line(0, 139, 420, 390, 420, 390, 60)},
                            {8, 5, 0, line(0, 139, 600, 390, 20, 390, 60)},
                        },
                        {}});
        /* A still background with no faces: nothing may be reported. */
        seqs.push_back({"empty", 90, kBoard, {}, {}});

        check_visible(writer, sprites, backgrounds[kCoffee], seqs);
        std::ofstream manifest(out + "/manifest.csv");
        manifest << "name,width,height,frames\n";
        uint32_t seed = 20261126;
        for (const Sequence& s : seqs)
            writer.write(s, seed++, manifest);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "make-sequences: %s\n", e.what());
        return 1;
    }
    return 0;
}
