/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_print.h - printers shared by the torus iproute2 plugins: one
 * call prints text and JSON through ip's own printer
 */
#ifndef TORUS_PLUGIN_PRINT_H
#define TORUS_PLUGIN_PRINT_H

#include "ip_plugin.h"

/* plugins are built with -fvisibility=hidden: only link_util is ip's */
#define PLUGIN_EXPORT	__attribute__((visibility("default")))

/* "KEY +x" (text), "KEY": "+x" (JSON); "none" for TORUS_DIR_NONE */
void plugin_print_dir(const struct rtattr *attr, const char *key);
/* a nest of u32 per axis: "KEY 1,2,3" (text), "KEY": [1, 2, 3] (JSON) */
void plugin_print_axes(const struct rtattr *nest, const char *key);

#endif /* TORUS_PLUGIN_PRINT_H */
