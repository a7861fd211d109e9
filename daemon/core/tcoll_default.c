// SPDX-License-Identifier: GPL-2.0
/*
 * tcoll_default.c - torus.ko's default combining tree, the kernel's own
 * file (kernel/torus_coll_tree.c) built into the core: tcoll_tree.c
 * takes every parent it can from it, so the module, the torus tool and
 * torusd share one implementation of the tree.
 */
#include "../../kernel/torus_coll_tree.c"
