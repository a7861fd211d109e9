/* SPDX-License-Identifier: GPL-2.0 */
/* kernel <net/ipv6.h> for the fuzz harnesses: see ../kshim.h */
#ifndef TORUS_KSHIM_NET_IPV6_H
#define TORUS_KSHIM_NET_IPV6_H
#include "../kshim.h"
#endif
