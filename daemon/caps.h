/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * caps.h - keep only the capabilities torusd needs
 */
#ifndef TORUSD_CAPS_H
#define TORUSD_CAPS_H

/*
 * Keep CAP_NET_ADMIN and CAP_NET_RAW alone in the permitted and
 * effective sets (those of them we have), empty the inheritable and
 * ambient sets, and drop every other capability from the bounding set
 * when CAP_SETPCAP allows it (it does not under torusd@.service, whose
 * bounding set is already those two).  0, also when there was nothing
 * to drop; -errno only when the capabilities could not be set.
 */
int td_caps_drop(void);

#endif /* TORUSD_CAPS_H */
