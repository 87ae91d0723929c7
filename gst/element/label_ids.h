/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Class ids (label-id, the metas' and documents' label_id): a cascade
 * detects one class, so the id follows from its label, the same in every
 * process and every release, so that consumers can key on it.
 */
#pragma once

#include <glib.h>

#include <string>

namespace waldboost_element {

/* label-id's "from the classifier" value. */
inline constexpr gint kLabelIdFromLabel = -1;
/* Ids of labels outside the table start here (see label_id_for). */
inline constexpr gint kFirstHashedLabelId = 1000;

/* The id of a label: the table's for the labels Debian's cascades and the
 * embedded default get (face 1, profile-face 2, eye 3, ... in
 * docs/user-guide.md; "object", a classifier without a label, 0), any
 * other label kFirstHashedLabelId + its FNV-1a hash modulo the ints above
 * that, so distinct labels get distinct ids without a registry. */
gint label_id_for(const std::string& label);

}  // namespace waldboost_element
