/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Where an element stands in its pipeline, for the publish elements'
 * warnings about their own placement: whether an element of a kind lies
 * upstream or downstream of a pad, through queues, tees, elements of
 * several inputs or outputs and the ghost pads of bins.
 */
#pragma once

#include <gst/gst.h>

#include <functional>

namespace waldboost_publish {

/* Whether an element that `match` accepts lies upstream of `pad` (a sink
 * pad: toward GST_PAD_SINK follows each element's sink pads) or downstream
 * of it (a source pad: toward GST_PAD_SRC follows their source pads), at
 * most 1,000 pads away. Links as they are now: pads that appear later
 * (decodebin's) are not followed. */
bool element_along(GstPad* pad, GstPadDirection toward, const std::function<bool(GstElement*)>& match);

/* Whether `element` was made by the factory of this name. */
bool made_by(GstElement* element, const char* factory_name);

}  // namespace waldboost_publish
