/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * caps.h - keep only the capabilities torusd needs
 */
#ifndef TORUSD_CAPS_H
#define TORUSD_CAPS_H

/*
 * Drop every capability but CAP_NET_ADMIN and CAP_NET_RAW from the
 * bounding, permitted and effective sets.  0, or -errno (nothing is
 * dropped when the daemon was not started with capabilities).
 */
int td_caps_drop(void);

#endif /* TORUSD_CAPS_H */
