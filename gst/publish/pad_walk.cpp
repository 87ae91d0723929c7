/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "pad_walk.h"

#include <cstring>
#include <set>
#include <vector>

namespace waldboost_publish {

bool element_along(GstPad* pad, GstPadDirection toward, const std::function<bool(GstElement*)>& match)
{
    std::vector<GstPad*> todo{GST_PAD(gst_object_ref(pad))};
    std::set<GstElement*> seen;
    bool found = false;
    for (int steps = 0; !todo.empty() && !found && steps < 1000; ++steps) {
        GstPad* next = todo.back();
        todo.pop_back();
        GstPad* peer = gst_pad_get_peer(next);
        gst_object_unref(next);
        /* Into a bin: the pad its ghost pad stands for. */
        while (peer && GST_IS_GHOST_PAD(peer)) {
            GstPad* target = gst_ghost_pad_get_target(GST_GHOST_PAD(peer));
            gst_object_unref(peer);
            peer = target;
        }
        /* Out of a bin: the inside of a ghost pad; go on from the ghost
         * pad itself. */
        if (peer && GST_IS_PROXY_PAD(peer)) {
            if (GstProxyPad* ghost = gst_proxy_pad_get_internal(GST_PROXY_PAD(peer)))
                todo.push_back(GST_PAD(ghost));
            gst_object_unref(peer);
            continue;
        }
        GstElement* element = peer ? gst_pad_get_parent_element(peer) : nullptr;
        if (peer)
            gst_object_unref(peer);
        if (!element)
            continue;
        if (match(element)) {
            found = true;
        } else if (seen.insert(element).second) {
            GstIterator* it =
                toward == GST_PAD_SINK ? gst_element_iterate_sink_pads(element) : gst_element_iterate_src_pads(element);
            GValue item = G_VALUE_INIT;
            while (gst_iterator_next(it, &item) == GST_ITERATOR_OK) {
                todo.push_back(GST_PAD(g_value_dup_object(&item)));
                g_value_reset(&item);
            }
            g_value_unset(&item);
            gst_iterator_free(it);
        }
        gst_object_unref(element);
    }
    for (GstPad* left : todo)
        gst_object_unref(left);
    return found;
}

bool made_by(GstElement* element, const char* factory_name)
{
    GstElementFactory* factory = gst_element_get_factory(element);
    return factory && std::strcmp(GST_OBJECT_NAME(factory), factory_name) == 0;
}

}  // namespace waldboost_publish
