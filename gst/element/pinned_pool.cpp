/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include "pinned_pool.h"

#include <gst/video/video.h>

#include "core/opencl/engine/pinned_memory.h"

namespace wcl = waldboost::opencl;

struct WaldboostPinnedPool {
    GstBufferPool parent;
    std::shared_ptr<wcl::SharedDevice>* device;
    GstVideoInfo info;
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

static gboolean pinned_pool_set_config(GstBufferPool* pool, GstStructure* config)
{
    auto* self = reinterpret_cast<WaldboostPinnedPool*>(pool);
    GstCaps* caps = nullptr;
    guint size, min, max;
    if (!gst_buffer_pool_config_get_params(config, &caps, &size, &min, &max) || !caps ||
        !gst_video_info_from_caps(&self->info, caps))
        return FALSE;
    self->video_meta = gst_buffer_pool_config_has_option(config, GST_BUFFER_POOL_OPTION_VIDEO_META);
    gst_buffer_pool_config_set_params(config, caps, static_cast<guint>(GST_VIDEO_INFO_SIZE(&self->info)), min, max);
    return GST_BUFFER_POOL_CLASS(waldboost_pinned_pool_parent_class)->set_config(pool, config);
}

static GstFlowReturn pinned_pool_alloc_buffer(GstBufferPool* pool, GstBuffer** buffer, GstBufferPoolAcquireParams*)
{
    auto* self = reinterpret_cast<WaldboostPinnedPool*>(pool);
    const gsize size = GST_VIDEO_INFO_SIZE(&self->info);
    std::shared_ptr<wcl::PinnedBlock> block;
    try {
        block = std::make_shared<wcl::PinnedBlock>(*self->device, size);
    } catch (const std::exception& e) {
        GST_WARNING_OBJECT(pool, "no pinned memory for a frame of %" G_GSIZE_FORMAT " bytes: %s", size, e.what());
        return GST_FLOW_ERROR;
    }
    uint8_t* data = block->data();
    auto* keep = new std::shared_ptr<wcl::PinnedBlock>(std::move(block));
    GstMemory* memory = gst_memory_new_wrapped(static_cast<GstMemoryFlags>(0), data, size, 0, size, keep, [](gpointer p) {
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
