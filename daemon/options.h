/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * options.h - torusd settings: command line options and the config file
 *
 * The config file holds "key = value" lines whose keys are the long
 * option names; the command line wins over the file.  Pure functions,
 * unit-tested in tests/unit/daemon_options.c.
 */
#ifndef TORUSD_OPTIONS_H
#define TORUSD_OPTIONS_H

#include <limits.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tcore.h"

#define TD_TICK_MS_DEFAULT	50
#define TD_HELLO_MS_DEFAULT	500
#define TD_DEAD_MS_DEFAULT	2000
#define TD_QUIET_MS_DEFAULT	1500
#define TD_ORIENT_MS_DEFAULT	0	/* 2d+2 ticks + 3 hellos, see options.c */
#define TD_MS_MAX		3600000	/* one hour */
#define TD_TICK_MS_MAX		10000

struct td_opts {
	char		ifname[IFNAMSIZ];
	bool		foreground;
	int		debug;
	uint64_t	id;		/* 0: derive */
	unsigned int	tick_ms;
	unsigned int	hello_ms;
	unsigned int	dead_ms;
	unsigned int	quiet_ms;
	unsigned int	orient_ms;
	unsigned int	axes;		/* 0: from the port labels */
	uint32_t	block_id;	/* nonzero: block mode */
	unsigned int	block_ncoord;
	uint8_t		block_coord[TC_MAX_AXES];
	unsigned int	block_ndims;
	uint16_t	block_dims[TC_MAX_AXES];
	bool		addresses;	/* install the plan addresses */
	bool		sleep;		/* sleep to the core's next deadline */
	/* test knob: every plan in one channel class, a set to refuse */
	bool		test_one_channel_class;
	char		config[PATH_MAX];
	char		pidfile[PATH_MAX];
	char		statefile[PATH_MAX];
};

void td_opts_init(struct td_opts *o);

/*
 * Set the option called @name (long name, no dashes) from @value (NULL
 * for flags given without a value).  Returns 0, or -1 with a message in
 * @err.
 */
int td_opt_set(struct td_opts *o, const char *name, const char *value,
	       char *err, size_t errlen);

/* Apply the config file @path: 0, or -1 with "path:line: why" in @err */
int td_opts_load(struct td_opts *o, const char *path, char *err,
		 size_t errlen);

/* Consistency of the whole set (interface given, block options): 0/-1 */
int td_opts_check(const struct td_opts *o, char *err, size_t errlen);

/*
 * Fill the timer and block fields of @cfg for a board with @ndims axes.
 * 0, or -1 with a message (a timer does not fit, block axes mismatch).
 */
int td_opts_to_config(const struct td_opts *o, uint8_t ndims,
		      struct tc_config *cfg, char *err, size_t errlen);

/* ms -> ticks, rounded up, at least 1 (0 stays 0): -1 if > 65535 */
long td_ms_to_ticks(unsigned int ms, unsigned int tick_ms);

/* parse "1,2,3" (@sep_x also accepts 'x': "4x4x4"); count or -1 */
int td_parse_list(const char *s, bool sep_x, unsigned long min,
		  unsigned long max, unsigned long *vals, unsigned int maxn);

#endif /* TORUSD_OPTIONS_H */
