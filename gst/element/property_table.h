/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <glib-object.h>

namespace waldboost_element {

/* Installs the element's properties (ids: properties.h) on its class. */
void install_properties(GObjectClass* gobject_class);

}  // namespace waldboost_element
