/* waldboost-gst — OpenCL WaldBoost object detection
 * Copyright (C) 2026 The waldboost-gst authors
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The tools' command lines: GOption entries as the main group (so that
 * --help lists them first), parsed, and anything left over refused.
 */
#pragma once

#include <glib.h>

#include <optional>
#include <string>

namespace waldboost::tools {

/* Parses argv with `entries`, whose callbacks get `user_data`; frees
 * `context`. Returns the message of a usage error (an unknown option, a
 * value that does not parse, an argument left over when `allow_arguments`
 * is false), or nothing. */
inline std::optional<std::string> parse_command_line(GOptionContext* context, const GOptionEntry* entries,
                                                     gpointer user_data, int* argc, char*** argv,
                                                     bool allow_arguments = false)
{
    GOptionGroup* group = g_option_group_new("main", "", "", user_data, nullptr);
    g_option_group_add_entries(group, entries);
    g_option_context_set_main_group(context, group);
    GError* error = nullptr;
    const bool parsed = g_option_context_parse(context, argc, argv, &error);
    g_option_context_free(context);
    if (!parsed) {
        std::string message = error->message;
        g_error_free(error);
        return message;
    }
    if (!allow_arguments && *argc > 1)
        return std::string("unexpected argument '") + (*argv)[1] + "'";
    return std::nullopt;
}

}  // namespace waldboost::tools
