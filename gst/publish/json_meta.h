/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * How waldboostmetaconvert hands its JSON documents to a publisher: a
 * GstCustomMeta named "WaldboostJsonMeta" on the frame's buffer (its
 * structure has the meta's name), and at the end of a stream (tracks that
 * leave then have no frame) a custom downstream event with the structure
 * "waldboost-json"; both structures hold "source" (string, the source-id)
 * and "documents" (a GstValueArray of strings, in the order they were
 * made).
 */
#pragma once

#include <gst/gst.h>

#include <string>
#include <vector>

#define WALDBOOST_JSON_META_NAME "WaldboostJsonMeta"
#define WALDBOOST_JSON_STRUCTURE "waldboost-json"

namespace waldboost_publish {

void json_meta_register();

/* Fills `s` ("source", "documents") */
void set_json_fields(GstStructure* s, const std::string& source, const std::vector<std::string>& documents);
/* Reads them back; false when `s` is neither the meta's structure nor a
 * "waldboost-json" one. */
bool get_json_fields(const GstStructure* s, std::string* source, std::vector<std::string>* documents);

/* Attaches the meta to `buffer` (writable). */
void add_json_meta(GstBuffer* buffer, const std::string& source, const std::vector<std::string>& documents);
/* The meta's structure, or null. */
const GstStructure* json_meta_structure(GstBuffer* buffer);

}  // namespace waldboost_publish
