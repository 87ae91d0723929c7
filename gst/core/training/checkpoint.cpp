/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "core/training/checkpoint.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <sstream>
#include <type_traits>
#include <variant>

#include "core/error.h"
#include "core/io/input_file.h"
#include "core/io/output_file.h"
#include "core/text.h"

namespace waldboost::training {

namespace {

constexpr char kMagic[8] = {'W', 'B', 'T', 'R', 'A', 'I', 'N', '\n'};
/* magic, version, payload length; then the payload and its hash */
constexpr size_t kHeaderBytes = 8 + 4 + 8;
constexpr size_t kTrailerBytes = 8;
constexpr size_t kMaxRngText = 1 << 16;

enum : uint8_t { kLbp = 0, kLrd = 1, kLrp = 2 };

/* Little-endian whatever the host, so that a file moves between machines. */
class Writer {
public:
    void u8(uint8_t v) { out_.push_back(static_cast<char>(v)); }
    void u32(uint32_t v)
    {
        for (int i = 0; i < 4; ++i)
            u8(static_cast<uint8_t>(v >> (8 * i)));
    }
    void u64(uint64_t v)
    {
        for (int i = 0; i < 8; ++i)
            u8(static_cast<uint8_t>(v >> (8 * i)));
    }
    void i32(int v) { u32(static_cast<uint32_t>(v)); }
    void f32(float v)
    {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        u32(bits);
    }
    void f64(double v)
    {
        uint64_t bits;
        std::memcpy(&bits, &v, 8);
        u64(bits);
    }
    void bytes(const void* data, size_t size) { out_.append(static_cast<const char*>(data), size); }
    std::string& text() { return out_; }

private:
    std::string out_;
};

class Reader {
public:
    Reader(const std::string& bytes, size_t begin, size_t end, const std::string& source)
        : bytes_(bytes), at_(begin), end_(end), source_(source)
    {
    }
    [[noreturn]] void fail(const std::string& what) const
    {
        throw Error(ErrorKind::BadParameter,
                    "checkpoint " + source_ + ": malformed at byte " + std::to_string(at_) + ": " + what);
    }
    size_t left() const { return end_ - at_; }
    void need(size_t n, const char* what) const
    {
        if (left() < n)
            fail(std::string("it ends inside ") + what);
    }
    uint8_t u8(const char* what)
    {
        need(1, what);
        return static_cast<uint8_t>(bytes_[at_++]);
    }
    uint32_t u32(const char* what)
    {
        need(4, what);
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i)
            v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes_[at_++])) << (8 * i);
        return v;
    }
    uint64_t u64(const char* what)
    {
        need(8, what);
        uint64_t v = 0;
        for (int i = 0; i < 8; ++i)
            v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes_[at_++])) << (8 * i);
        return v;
    }
    int i32(const char* what) { return static_cast<int32_t>(u32(what)); }
    float f32(const char* what)
    {
        const uint32_t bits = u32(what);
        float v;
        std::memcpy(&v, &bits, 4);
        return v;
    }
    double f64(const char* what)
    {
        const uint64_t bits = u64(what);
        double v;
        std::memcpy(&v, &bits, 8);
        return v;
    }
    void bytes(void* out, size_t size, const char* what)
    {
        need(size, what);
        std::memcpy(out, bytes_.data() + at_, size);
        at_ += size;
    }

private:
    const std::string& bytes_;
    size_t at_, end_;
    const std::string& source_;
};

uint64_t read_u64_at(const std::string& bytes, size_t at)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= static_cast<uint64_t>(static_cast<uint8_t>(bytes[at + i])) << (8 * i);
    return v;
}

void write_weak(Writer& w, const WeakClassifier& weak)
{
    if (const auto* lbp = std::get_if<LbpFeature>(&weak.feature)) {
        w.u8(kLbp);
        for (int v : {lbp->x, lbp->y, lbp->block_width, lbp->block_height})
            w.i32(v);
        for (float r : lbp->responses)
            w.f32(r);
    } else if (const auto* rank = std::get_if<RankFeature>(&weak.feature)) {
        w.u8(rank->kind == RankFeature::Kind::Difference ? kLrd : kLrp);
        for (int v : {rank->x, rank->y, rank->block_width, rank->block_height, rank->block_a, rank->block_b})
            w.i32(v);
        for (float r : rank->responses)
            w.f32(r);
    } else {
        throw Error(ErrorKind::BadParameter, "checkpoint: the trainer made a Haar weak classifier");
    }
    w.f32(weak.reject_threshold);
}

WeakClassifier read_weak(Reader& r)
{
    WeakClassifier weak;
    const uint8_t type = r.u8("a weak classifier's type");
    if (type == kLbp) {
        LbpFeature f;
        for (int* v : {&f.x, &f.y, &f.block_width, &f.block_height})
            *v = r.i32("an LBP feature");
        for (float& v : f.responses)
            v = r.f32("an LBP feature's responses");
        weak.feature = f;
    } else if (type == kLrd || type == kLrp) {
        RankFeature f;
        f.kind = type == kLrd ? RankFeature::Kind::Difference : RankFeature::Kind::Pair;
        for (int* v : {&f.x, &f.y, &f.block_width, &f.block_height, &f.block_a, &f.block_b})
            *v = r.i32("a rank feature");
        f.responses.resize(f.table_size());
        for (float& v : f.responses)
            v = r.f32("a rank feature's responses");
        weak.feature = f;
    } else {
        r.fail("a weak classifier of unknown type " + std::to_string(type));
    }
    weak.reject_threshold = r.f32("a rejection threshold");
    return weak;
}

}  // namespace

void Fingerprint::add(const void* data, size_t size)
{
    const auto* p = static_cast<const uint8_t*>(data);
    for (size_t i = 0; i < size; ++i) {
        hash_ ^= p[i];
        hash_ *= 0x100000001b3ull;
    }
}

void Fingerprint::add_u64(uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; ++i)
        b[i] = static_cast<uint8_t>(v >> (8 * i));
    add(b, 8);
}

void Fingerprint::add_double(double v)
{
    uint64_t bits;
    std::memcpy(&bits, &v, 8);
    add_u64(bits);
}

void Fingerprint::add_string(const std::string& s)
{
    add_u64(s.size());
    add(s.data(), s.size());
}

void Fingerprint::add_image(const GrayImage& image)
{
    add_u64(static_cast<uint64_t>(image.width));
    add_u64(static_cast<uint64_t>(image.height));
    add(image.pixels.data(), image.pixels.size());
}

std::string encode_checkpoint(const CheckpointState& state)
{
    Writer p; /* the payload */
    p.u64(state.settings);
    p.u64(state.positives);
    p.u64(state.backgrounds);
    p.i32(state.classifier.window_width);
    p.i32(state.classifier.window_height);
    p.u32(static_cast<uint32_t>(state.classifier.weak.size()));
    for (const WeakClassifier& weak : state.classifier.weak)
        write_weak(p, weak);
    p.u32(static_cast<uint32_t>(state.rng.size()));
    p.bytes(state.rng.data(), state.rng.size());
    p.f64(state.negative_survival);
    p.u64(state.refill_level);
    p.u64(state.samples.size());
    for (const CheckpointSample& s : state.samples) {
        p.u8(static_cast<uint8_t>(s.kind));
        if (s.kind == CheckpointSample::Kind::Positive)
            p.u64(s.positive_index);
        else
            p.bytes(s.window.pixels.data(), s.window.pixels.size());
        p.f64(s.running_sum);
    }
    return frame_checkpoint_payload(p.text());
}

std::string frame_checkpoint_payload(const std::string& payload)
{
    Fingerprint check;
    check.add(payload.data(), payload.size());
    Writer file;
    file.bytes(kMagic, sizeof kMagic);
    file.u32(kCheckpointVersion);
    file.u64(payload.size());
    file.bytes(payload.data(), payload.size());
    file.u64(check.value());
    return std::move(file.text());
}

CheckpointState decode_checkpoint(const std::string& bytes, Size window, const std::string& source)
{
    const std::string where = "checkpoint " + printable(source) + ": ";
    if (bytes.size() < sizeof kMagic && std::memcmp(bytes.data(), kMagic, bytes.size()) == 0)
        throw Error(ErrorKind::BadParameter, where + "truncated (" + std::to_string(bytes.size()) + " bytes)");
    if (bytes.size() < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
        throw Error(ErrorKind::BadParameter, where + "not a waldboost-train checkpoint (no WBTRAIN magic)");
    if (bytes.size() < kHeaderBytes)
        throw Error(ErrorKind::BadParameter,
                    where + "truncated (" + std::to_string(bytes.size()) + " bytes, shorter than the header)");
    Reader header(bytes, sizeof kMagic, kHeaderBytes, source);
    const uint32_t version = header.u32("the version");
    if (version != kCheckpointVersion)
        throw Error(ErrorKind::BadParameter, where + "version " + std::to_string(version) +
                                                 ", this build reads version " + std::to_string(kCheckpointVersion));
    const uint64_t payload = header.u64("the length");
    const uint64_t available = bytes.size() - kHeaderBytes;
    if (available < kTrailerBytes || payload > available - kTrailerBytes)
        throw Error(ErrorKind::BadParameter,
                    where + "truncated (" + std::to_string(bytes.size()) + " bytes, " + "the header announces " +
                        std::to_string(kHeaderBytes + kTrailerBytes) + " + " + std::to_string(payload) + ")");
    if (payload != available - kTrailerBytes)
        throw Error(ErrorKind::BadParameter,
                    where + std::to_string(available - kTrailerBytes - payload) + " bytes after its end");
    Fingerprint check;
    check.add(bytes.data() + kHeaderBytes, payload);
    if (check.value() != read_u64_at(bytes, kHeaderBytes + payload))
        throw Error(ErrorKind::BadParameter, where + "corrupted (its checksum does not match its contents)");

    /* A checksum that matches does not make a crafted file sound: every
     * count is still checked against the bytes left and the model limits. */
    Reader r(bytes, kHeaderBytes, kHeaderBytes + payload, source);
    CheckpointState s;
    s.settings = r.u64("the fingerprints");
    s.positives = r.u64("the fingerprints");
    s.backgrounds = r.u64("the fingerprints");
    s.classifier.window_width = r.i32("the window");
    s.classifier.window_height = r.i32("the window");
    if (s.classifier.window_width != window.width || s.classifier.window_height != window.height)
        r.fail("a window of " + std::to_string(s.classifier.window_width) + "x" +
               std::to_string(s.classifier.window_height) + ", the run's is " + std::to_string(window.width) + "x" +
               std::to_string(window.height));
    const uint32_t weak_count = r.u32("the weak classifier count");
    if (weak_count > ModelLimits::kMaxWeakClassifiers)
        r.fail(std::to_string(weak_count) + " weak classifiers");
    for (uint32_t t = 0; t < weak_count; ++t)
        s.classifier.weak.push_back(read_weak(r));
    if (!s.classifier.weak.empty()) {
        s.classifier.final_threshold = 0.0f;
        try {
            validate(s.classifier, source);
        } catch (const Error& e) {
            r.fail(e.what());
        }
    }
    const uint32_t rng_size = r.u32("the random state");
    if (rng_size > kMaxRngText)
        r.fail("a random state of " + std::to_string(rng_size) + " bytes");
    s.rng.resize(rng_size);
    r.bytes(s.rng.data(), rng_size, "the random state");
    s.negative_survival = r.f64("the negative survival");
    s.refill_level = r.u64("the refill level");
    const uint64_t count = r.u64("the sample count");
    const size_t window_bytes = static_cast<size_t>(window.width) * static_cast<size_t>(window.height);
    if (count > r.left() / 9) /* every sample takes at least 9 bytes */
        r.fail(std::to_string(count) + " samples in " + std::to_string(r.left()) + " bytes");
    s.samples.resize(count);
    for (CheckpointSample& sample : s.samples) {
        const uint8_t kind = r.u8("a sample's kind");
        if (kind == static_cast<uint8_t>(CheckpointSample::Kind::Positive)) {
            sample.kind = CheckpointSample::Kind::Positive;
            sample.positive_index = r.u64("a positive's index");
        } else if (kind == static_cast<uint8_t>(CheckpointSample::Kind::Negative)) {
            sample.kind = CheckpointSample::Kind::Negative;
            sample.window = GrayImage(window.width, window.height);
            r.bytes(sample.window.pixels.data(), window_bytes, "a negative's pixels");
        } else {
            r.fail("a sample of unknown kind " + std::to_string(kind));
        }
        sample.running_sum = r.f64("a running sum");
    }
    if (r.left() != 0)
        r.fail(std::to_string(r.left()) + " bytes after the last sample");
    return s;
}

uint64_t settings_fingerprint(const TrainerConfig& config, const std::vector<Grid>& grids)
{
    Fingerprint f;
    f.add_u64(static_cast<uint64_t>(config.window.width));
    f.add_u64(static_cast<uint64_t>(config.window.height));
    f.add_string(config.label);
    f.add_u64(static_cast<uint64_t>(config.feature_type));
    f.add_u64(grids.size());
    for (const Grid& g : grids)
        for (int v : {g.x, g.y, g.block_width, g.block_height})
            f.add_u64(static_cast<uint64_t>(v));
    f.add_u64(static_cast<uint64_t>(config.weak_count));
    f.add_double(config.alpha);
    if (config.first_share != 1.0) /* checkpoints written before the option still match */
        f.add_double(config.first_share);
    f.add_double(config.calibration_share);
    f.add_u64(static_cast<uint64_t>(config.negatives));
    f.add_u64(config.seed);
    return f.value();
}

uint64_t positives_fingerprint(const std::vector<GrayImage>& positives)
{
    Fingerprint f;
    f.add_u64(positives.size());
    for (const GrayImage& p : positives)
        f.add_image(p);
    return f.value();
}

void write_checkpoint_file(const std::string& path, const CheckpointState& state)
{
    try {
        io::write_output_file(path, encode_checkpoint(state));
    } catch (const Error& e) {
        throw Error(ErrorKind::Io, std::string("cannot write the checkpoint: ") + e.what());
    }
}

uint64_t largest_checkpoint(const TrainerConfig& config, size_t positives, size_t working_negatives)
{
    const size_t window_bytes = static_cast<size_t>(config.window.width) * config.window.height;
    const uint64_t weak_bytes = 64 + 4 * LbpFeature::kTableSize; /* LBP's table is the largest */
    return (1u << 20) + static_cast<uint64_t>(config.weak_count) * weak_bytes +
           static_cast<uint64_t>(positives + working_negatives) * (17 + window_bytes);
}

CheckpointState read_checkpoint_file(const std::string& path, uint64_t largest, Size window)
{
    /* A FIFO or a device (/dev/zero has no size to check) is refused. */
    std::optional<io::InputFile> file;
    try {
        file.emplace(io::InputFile::open(path));
    } catch (const Error& e) {
        throw Error(e.kind(), std::string("cannot read the checkpoint ") + e.what());
    }
    /* A wrong file named by mistake (a video, say) is refused before it is
     * read into memory. */
    if (file->size() > largest)
        throw Error(ErrorKind::BadParameter, "checkpoint " + printable(path) + ": " + std::to_string(file->size()) +
                                                 " bytes, more than this run's state can take (" +
                                                 std::to_string(largest) + "): not a checkpoint of this run");
    const size_t cap = static_cast<size_t>(std::min<uint64_t>(largest, std::numeric_limits<size_t>::max()));
    return decode_checkpoint(file->read_all(cap, "this run's checkpoint"), window, path);
}

std::mt19937_64 check_checkpoint_run(const CheckpointState& state, const CheckpointRun& run, const std::string& path)
{
    const std::string where = "checkpoint " + path + ": ";
    if (state.settings != run.settings)
        throw Error(ErrorKind::BadParameter,
                    where + "it was made with other settings (window, label, feature family, block sizes, "
                            "position step, weak classifiers, alpha, negatives or seed) than this run's");
    if (state.positives != run.positives)
        throw Error(ErrorKind::BadParameter, where + "it was made from other positives than this run's (" +
                                                 std::to_string(run.positive_count) + " now)");
    if (state.backgrounds != run.backgrounds)
        throw Error(ErrorKind::BadParameter,
                    where + "it was made from other background images or mining settings than this run's");
    if (state.classifier.weak.size() > static_cast<size_t>(run.weak_count))
        throw Error(ErrorKind::BadParameter, where + "it holds more weak classifiers than this run trains");
    for (const WeakClassifier& weak : state.classifier.weak)
        if (feature_type_name(weak.feature) != run.feature_name)
            throw Error(ErrorKind::BadParameter, where + "a weak classifier of another feature family");
    if (!(state.negative_survival >= 0.0 && state.negative_survival <= 1.0))
        throw Error(ErrorKind::BadParameter, where + "a negative survival outside 0 to 1");
    if (state.refill_level > run.working_negatives)
        throw Error(ErrorKind::BadParameter, where + "a refill level of " + std::to_string(state.refill_level) +
                                                 " negatives, more than this run's working set holds (" +
                                                 std::to_string(run.working_negatives) + ")");
    std::mt19937_64 rng;
    std::istringstream rng_text(state.rng);
    rng_text >> rng;
    if (rng_text.fail())
        throw Error(ErrorKind::BadParameter, where + "its random state does not parse");
    /* A state whose bits that count are all zero parses, but the generator
     * then returns 0 forever and std::shuffle's rejection loop never ends.
     * Any other state is on Mersenne Twister's one full-period orbit, which
     * never holds a whole state's worth of zero words in a row; the first
     * words drawn may be leftovers that are not state, hence the discard. */
    std::mt19937_64 probe = rng;
    probe.discard(std::mt19937_64::state_size);
    bool zero = true;
    for (size_t i = 0; i < std::mt19937_64::state_size && zero; ++i)
        zero = probe() == 0;
    if (zero)
        throw Error(ErrorKind::BadParameter,
                    where + "its random state is all zero, which no run writes: a crafted or damaged file");
    return rng;
}

}  // namespace waldboost::training
