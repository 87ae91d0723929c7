/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * waldboost-devices: lists the OpenCL devices the engine can see, and with
 * --select SPEC shows which one a device spec picks (the same rules as the
 * element's "device" property), or why none does.
 */
#include <glib.h>

#include <cstdint>
#include <cstdio>
#include <string>

#include "core/opencl/device/device.h"

namespace {

std::string bytes(uint64_t n)
{
    char text[32];
    if (n >= 1024u * 1024u * 1024u)
        std::snprintf(text, sizeof text, "%.1f GiB", static_cast<double>(n) / (1024.0 * 1024.0 * 1024.0));
    else if (n >= 1024u * 1024u)
        std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(n) / (1024.0 * 1024.0));
    else
        std::snprintf(text, sizeof text, "%.1f KiB", static_cast<double>(n) / 1024.0);
    return text;
}

void print_device(const waldboost::opencl::DeviceInfo& d, bool extensions)
{
    std::printf("%s\n", waldboost::opencl::describe(d).c_str());
    std::printf("    vendor: %s; driver %s; %s; %s\n", d.vendor.c_str(), d.driver_version.c_str(),
                d.device_version.c_str(), d.opencl_c_version.c_str());
    std::printf("    global memory %s (largest allocation %s), local memory %s, constant memory %s\n",
                bytes(d.global_memory).c_str(), bytes(d.max_alloc).c_str(), bytes(d.local_memory).c_str(),
                bytes(d.constant_memory).c_str());
    std::printf("    max work-group size %zu, image support %s, %s profile\n", d.max_work_group_size,
                d.image_support ? "yes" : "no", d.profile_full ? "full" : "embedded");
    if (extensions)
        std::printf("    extensions: %s\n", d.extensions.c_str());
}

}  // namespace

int main(int argc, char** argv)
{
    gchar* select = nullptr;
    gboolean extensions = FALSE;
    const GOptionEntry entries[] = {
        {"select", 's', 0, G_OPTION_ARG_STRING, &select,
         "Show the device SPEC picks: auto, gpu, cpu, accelerator, P:D, or part of a name", "SPEC"},
        {"extensions", 'e', 0, G_OPTION_ARG_NONE, &extensions, "Also list each device's extensions", nullptr},
        {nullptr, 0, 0, G_OPTION_ARG_NONE, nullptr, nullptr, nullptr},
    };
    GOptionContext* context = g_option_context_new("- list OpenCL devices for waldboost-gst");
    g_option_context_add_main_entries(context, entries, nullptr);
    GError* error = nullptr;
    const bool parsed = g_option_context_parse(context, &argc, &argv, &error);
    g_option_context_free(context);
    if (!parsed) {
        std::fprintf(stderr, "waldboost-devices: %s (see --help)\n", error->message);
        g_error_free(error);
        return 2;
    }

    int status = 0;
    try {
        if (select) {
            const waldboost::opencl::SelectedDevice chosen = waldboost::opencl::select_device(select);
            std::printf("'%s' selects:\n", select);
            print_device(chosen.info, extensions);
        } else {
            const auto devices = waldboost::opencl::list_devices();
            if (devices.empty())
                waldboost::opencl::select_device("auto");  // throws the "install a driver" advice
            for (const auto& device : devices)
                print_device(device, extensions);
        }
    } catch (const waldboost::Error& e) {
        std::fprintf(stderr, "waldboost-devices: %s\n", e.what());
        status = 1;
    }
    g_free(select);
    return status;
}
