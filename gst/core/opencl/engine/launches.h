/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Every launch of one frame, in order, on its slot's queue: the upload, the
 * pyramid and its integral image (CPU or GPU layout), the scan (the
 * reduction's steps 1, 2 and 4 and the skip rule, or the row scan), and the
 * read-back of the counters and the head of the accepted list.
 */
#pragma once

#include <cstdint>

#include "core/opencl/features/classifier_pack.h"
#include "core/opencl/engine/frame_slot.h"

namespace waldboost::opencl {

/* Enqueues the prepared frame in `slot` and flushes its queue; slot.done is
 * the event of its last read-back. */
void enqueue_frame(FrameSlot& slot, const EnginePlan& plan, const DeviceClassifier& classifier);

/* Step 4's work-groups, each taking one candidate at a time: the
 * candidates of a list one step-4 launch works on at once. */
uint64_t step4_wave(const EnginePlan& plan);

}  // namespace waldboost::opencl
