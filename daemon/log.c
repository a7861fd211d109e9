// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * log.c - torusd logging
 *
 * In the foreground (-f) everything goes to stderr, each line opened by
 * its syslog priority as "<N>" (sd-daemon(3)), so the journal files it
 * at the right level when a service manager runs torusd -f; the
 * journal stamps lines itself (JOURNAL_STREAM is set), a terminal or a
 * log file gets a timestamp after the prefix.  Otherwise to syslog
 * (facility daemon), and until the daemon has detached its warnings and
 * errors also to stderr, so that a start-up failure reaches whoever
 * started it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static const char *log_ident = "torusd";
static bool log_stderr = true;
static bool log_syslog;
static bool log_foreground;
static int log_debug;
static bool log_journal;

void td_log_init(const char *ident, int foreground, int debug)
{
	log_ident = ident;
	log_foreground = foreground;
	log_debug = debug;
	log_stderr = true;
	log_journal = getenv("JOURNAL_STREAM") != NULL;
	if (!foreground && !log_syslog) {
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
		log_syslog = true;
	}
}

void td_log_daemonized(void)
{
	if (log_foreground)
		return;
	log_stderr = false;
}

void td_log_close(void)
{
	if (log_syslog)
		closelog();
	log_syslog = false;
	log_stderr = true;
}

void td_log_set_debug(int debug)
{
	log_debug = debug;
}

int td_log_debug_level(void)
{
	return log_debug;
}

/* local time to the millisecond, as the stderr lines start */
static void log_now(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char when[32];

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03ld", when, ts.tv_nsec / 1000000);
}

static const char *prio_name(int prio)
{
	switch (prio) {
	case LOG_EMERG:
	case LOG_ALERT:
	case LOG_CRIT:
	case LOG_ERR:
		return "error";
	case LOG_WARNING:
		return "warning";
	case LOG_NOTICE:
		return "notice";
	case LOG_INFO:
		return "info";
	default:
		return "debug";
	}
}

void td_log(int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	if (prio == LOG_DEBUG && !log_debug)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (log_syslog)
		syslog(prio, "%s", msg);
	/* a daemon still starting says only what went wrong on stderr */
	if (log_stderr && log_foreground && log_journal) {
		fprintf(stderr, "<%d>%s\n", prio, msg);
	} else if (log_stderr && log_foreground) {
		char when[48];

		log_now(when, sizeof(when));
		fprintf(stderr, "<%d>%s %s[%s]: %s\n", prio, when, log_ident,
			prio_name(prio), msg);
	} else if (log_stderr && prio <= LOG_WARNING) {
		char when[48];

		log_now(when, sizeof(when));
		fprintf(stderr, "%s %s[%s]: %s\n", when, log_ident,
			prio_name(prio), msg);
	}
}
