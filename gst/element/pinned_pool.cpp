/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pinned_pool.h"

#include <gst/video/video.h>

#include "core/opencl/engine/pinned_memory.h"

namespace wcl = waldboost::opencl;

struct WaldboostPinnedPool {
    GstBufferPool parent;
    std::shared_ptr<wcl::SharedDevice>* device;
    GstVideoInfo info;
    gsize block_size; /* a frame's size, or more when upstream asked for more */
    gboolean video_meta;
};
struct WaldboostPinnedPoolClass {
    GstBufferPoolClass parent_class;
};

G_DEFINE_TYPE(WaldboostPinnedPool, waldboost_pinned_pool, GST_TYPE_BUFFER_POOL)

static const gchar** pinned_pool_get_options(GstBufferPool*)
{
    static const gchar* options[] = {GST_BUFFER_POOL_OPTION_VIDEO_META, nullptr};
    return options;
}

/* gst_buffer_pool_set_config's contract: TRUE for a config taken as it is,
 * else FALSE with the config changed to what the pool can do, for upstream
 * to read back, validate (gst_buffer_pool_config_validate_params) and set
 * again. A size of at least a frame is honoured: each block is that long,
 * so an upstream that asks for more (padding, trailing data) and is told
 * TRUE writes inside it, as in a GstVideoBufferPool. Refusing it would cost
 * that upstream the pool: a frame's size is less than it asked for, which
 * does not validate, and it would drop the pool and its zero-copy path. A
 * smaller size cannot hold a frame: refused, with the config's size raised
 * to a frame's. The pool takes that raised config as its state all the
 * same: gst_buffer_pool_set_config keeps a refused config, and a pool
 * configured before takes a second config equal to it as set without
 * asking the pool, so the retry must find the pool already so. */
static gboolean pinned_pool_set_config(GstBufferPool* pool, GstStructure* config)
{
    auto* self = reinterpret_cast<WaldboostPinnedPool*>(pool);
    GstCaps* caps = nullptr;
    guint size, min, max;
    GstVideoInfo info;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_video_info_from_caps(&info, caps))
        return FALSE;
    const auto frame_size = static_cast<guint>(GST_VIDEO_INFO_SIZE(&info));
    const gboolean honoured = size >= frame_size;
    if (!honoured) {
        GST_DEBUG_OBJECT(pool, "refusing buffers of %u bytes: a frame takes %u", size, frame_size);
        size = frame_size;
        gst_buffer_pool_config_set_params(config, caps, size, min, max);
    }
    if (!GST_BUFFER_POOL_CLASS(waldboost_pinned_pool_parent_class)->set_config(pool, config))
        return FALSE;
    self->info = info;
    self->block_size = size;
    self->video_meta = gst_buffer_pool_config_has_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    return honoured;
}

static GstFlowReturn pinned_pool_alloc_buffer(GstBufferPool* pool, GstBuffer** buffer, GstBufferPoolAcquireParams*)
{
    auto* self = reinterpret_cast<WaldboostPinnedPool*>(pool);
    const gsize size = self->block_size;
    std::shared_ptr<wcl::PinnedBlock> block;
    try {
        block = std::make_shared<wcl::PinnedBlock>(*self->device, size);
    } catch (const std::exception& e) {
        GST_WARNING_OBJECT(pool, "no pinned memory for a buffer of %" G_GSIZE_FORMAT " bytes: %s", size, e.what());
        return GST_FLOW_ERROR;
    }
    uint8_t* data = block->data();
    auto* keep = new std::shared_ptr<wcl::PinnedBlock>(std::move(block));
    GstMemory* memory =
        gst_memory_new_wrapped(static_cast<GstMemoryFlags>(0), data, size, 0, size, keep, [](gpointer p) {
            delete static_cast<std::shared_ptr<wcl::PinnedBlock>*>(p);
        });
    *buffer = gst_buffer_new();
    gst_buffer_append_memory(*buffer, memory);
    if (self->video_meta)
        gst_buffer_add_video_meta_full(*buffer, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_INFO_FORMAT(&self->info),
                                       GST_VIDEO_INFO_WIDTH(&self->info), GST_VIDEO_INFO_HEIGHT(&self->info),
                                       GST_VIDEO_INFO_N_PLANES(&self->info), self->info.offset, self->info.stride);
    return GST_FLOW_OK;
}

static void pinned_pool_finalize(GObject* object)
{
    delete reinterpret_cast<WaldboostPinnedPool*>(object)->device;
    G_OBJECT_CLASS(waldboost_pinned_pool_parent_class)->finalize(object);
}

static void waldboost_pinned_pool_class_init(WaldboostPinnedPoolClass* klass)
{
    G_OBJECT_CLASS(klass)->finalize = pinned_pool_finalize;
    GstBufferPoolClass* pool_class = GST_BUFFER_POOL_CLASS(klass);
    pool_class->get_options = pinned_pool_get_options;
    pool_class->set_config = pinned_pool_set_config;
    pool_class->alloc_buffer = pinned_pool_alloc_buffer;
}

static void waldboost_pinned_pool_init(WaldboostPinnedPool* self)
{
    self->device = nullptr;
    self->block_size = 0;
    self->video_meta = FALSE;
}

static GstBufferPool* pinned_pool_new(std::shared_ptr<wcl::SharedDevice> device)
{
    auto* pool = static_cast<WaldboostPinnedPool*>(g_object_new(waldboost_pinned_pool_get_type(), nullptr));
    pool->device = new std::shared_ptr<wcl::SharedDevice>(std::move(device));
    gst_object_ref_sink(pool);
    return GST_BUFFER_POOL(pool);
}

GstBufferPool* waldboost_pinned_pool_new_for_frames(std::shared_ptr<wcl::SharedDevice> device, GstCaps* caps,
                                                    guint min_buffers)
{
    GstVideoInfo info;
    if (!gst_video_info_from_caps(&info, caps))
        return nullptr;
    GstBufferPool* pool = pinned_pool_new(std::move(device));
    GstStructure* config = gst_buffer_pool_get_config(pool);
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&info)), min_buffers, 0);
    gst_buffer_pool_config_add_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    if (!gst_buffer_pool_set_config(pool, config))
        gst_clear_object(&pool);
    return pool;
}
