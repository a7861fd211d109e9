/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.h - torusd logging: stderr in the foreground, syslog otherwise
 */
#ifndef TORUSD_LOG_H
#define TORUSD_LOG_H

#include <syslog.h>

/* @foreground: log to stderr; @debug: 0 info, 1 debug, 2 frame traces */
void td_log_init(const char *ident, int foreground, int debug);
/* stop writing to stderr after daemonizing (unless in the foreground) */
void td_log_daemonized(void);
void td_log_close(void);
void td_log_set_debug(int debug);
int td_log_debug_level(void);

void td_log(int prio, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define log_err(...)	td_log(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	td_log(LOG_WARNING, __VA_ARGS__)
#define log_notice(...)	td_log(LOG_NOTICE, __VA_ARGS__)
#define log_info(...)	td_log(LOG_INFO, __VA_ARGS__)
#define log_debug(...)	td_log(LOG_DEBUG, __VA_ARGS__)
/* frame-level traces, only with -dd */
#define log_trace(...)							\
	do {								\
		if (td_log_debug_level() > 1)				\
			td_log(LOG_DEBUG, __VA_ARGS__);			\
	} while (0)

#endif /* TORUSD_LOG_H */
