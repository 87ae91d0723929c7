/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * libFuzzer target: the trainer's checkpoint decoder, decode_checkpoint
 * (docs/training.md, "Checkpoints"). Random bytes almost never match the
 * file's FNV-1a checksum, so the first byte picks how the rest is used:
 *   - first byte % 8 == 7: the rest is a whole file (the magic, version,
 *     length and checksum checks get fuzzed too);
 *   - otherwise: the rest is the payload, framed with a valid header and
 *     checksum by frame_checkpoint_payload (the parser behind the checksum
 *     gets fuzzed: a file crafted to pass it).
 * The run's window is 12x12, as in the seeds (tests/fuzz/seeds/checkpoint).
 *
 * Properties: decode_checkpoint returns a state, or throws waldboost::Error
 * of kind BadParameter whose message starts with "checkpoint <source>:"
 * (printable, at most 1024 bytes: fuzz_common.h). Anything else (another
 * exception, a crash, a leak, undefined behaviour, a hang, an allocation
 * over -malloc_limit_mb) is a finding. A state it returns has the run's
 * window, at most ModelLimits::kMaxWeakClassifiers weak classifiers and
 * window-sized negatives, and encoding it gives the same file back byte
 * for byte (every field is read, nothing is ignored).
 */
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.h"
#include "core/training/checkpoint.h"
#include "fuzz_common.h"

using namespace waldboost_fuzz;
using waldboost::training::CheckpointSample;
using waldboost::training::CheckpointState;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
    if (size == 0)
        return 0;
    const waldboost::Size window{12, 12};
    const std::string source = "fuzz.ckpt";
    const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
    const bool whole_file = data[0] % 8 == 7;
    const std::string file = whole_file ? rest : waldboost::training::frame_checkpoint_payload(rest);

    CheckpointState state;
    const bool decoded = completes("checkpoint " + source, "decode_checkpoint", [&] {
        try {
            state = waldboost::training::decode_checkpoint(file, window, source);
        } catch (const waldboost::Error& e) {
            if (e.kind() != waldboost::ErrorKind::BadParameter)
                finding(std::string("decode_checkpoint threw Error of kind ") + waldboost::to_string(e.kind()) +
                        " instead of BadParameter: " + std::string(e.what()).substr(0, 300));
            throw;
        }
    });
    if (!decoded)
        return 0;

    if (state.classifier.window_width != window.width || state.classifier.window_height != window.height)
        finding("decode_checkpoint returned a state for another window");
    if (state.classifier.weak.size() > waldboost::ModelLimits::kMaxWeakClassifiers)
        finding("decode_checkpoint returned " + std::to_string(state.classifier.weak.size()) + " weak classifiers");
    for (const CheckpointSample& s : state.samples) {
        if (s.kind == CheckpointSample::Kind::Negative &&
            (s.window.width != window.width || s.window.height != window.height ||
             s.window.pixels.size() != static_cast<size_t>(window.width) * static_cast<size_t>(window.height)))
            finding("decode_checkpoint returned a negative that is not window-sized");
        if (s.kind != CheckpointSample::Kind::Negative && s.kind != CheckpointSample::Kind::Positive)
            finding("decode_checkpoint returned a sample of unknown kind");
    }
    std::string encoded;
    completes("checkpoint " + source, "encode_checkpoint", [&] {
        encoded = waldboost::training::encode_checkpoint(state);
    });
    if (encoded != file)
        finding("encoding the decoded state does not give the file back (" + std::to_string(encoded.size()) +
                " bytes vs " + std::to_string(file.size()) + ")");
    return 0;
}
