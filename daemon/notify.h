/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * notify.h - the service manager's readiness protocol (sd_notify(3))
 */
#ifndef TORUSD_NOTIFY_H
#define TORUSD_NOTIFY_H

/*
 * Send @msg ("READY=1", "STATUS=...", newline separated) to the socket
 * named by $NOTIFY_SOCKET (a path, or an abstract name after '@').
 * 0 sent; 1 not run by a service manager (no $NOTIFY_SOCKET); -errno.
 */
int td_notify(const char *msg);

#endif /* TORUSD_NOTIFY_H */
