// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * options.c - torusd settings from the command line and the config file
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

void td_opts_init(struct td_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tick_ms = TD_TICK_MS_DEFAULT;
	o->hello_ms = TD_HELLO_MS_DEFAULT;
	o->dead_ms = TD_DEAD_MS_DEFAULT;
	o->quiet_ms = TD_QUIET_MS_DEFAULT;
	o->orient_ms = TD_ORIENT_MS_DEFAULT;
	o->addresses = true;
	o->sleep = true;
}

/* an unsigned number, decimal or 0x hex, the whole string */
static int parse_u64(const char *s, uint64_t *v)
{
	unsigned long long x;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*v = x;
	return 0;
}

static int parse_range(const char *s, unsigned long min, unsigned long max,
		       unsigned long *v)
{
	uint64_t x;

	if (parse_u64(s, &x) || x < min || x > max)
		return -1;
	*v = (unsigned long)x;
	return 0;
}

static int parse_bool(const char *s, bool *v)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	if (!s) {
		*v = true;
		return 0;
	}
	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*v = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*v = false;
			return 0;
		}
	}
	return -1;
}

int td_parse_list(const char *s, bool sep_x, unsigned long min,
		  unsigned long max, unsigned long *vals, unsigned int maxn)
{
	unsigned int n = 0;
	const char *p = s;
	char num[32];

	if (!s || !*s)
		return -1;
	for (;;) {
		size_t len = strcspn(p, sep_x ? ",xX" : ",");

		if (!len || len >= sizeof(num) || n >= maxn)
			return -1;
		memcpy(num, p, len);
		num[len] = '\0';
		if (parse_range(num, min, max, &vals[n]))
			return -1;
		n++;
		p += len;
		if (!*p)
			return (int)n;
		p++;		/* the separator; a trailing one fails above */
	}
}

static int set_ms(unsigned int *field, const char *name, const char *value,
		  unsigned long min, unsigned long max, char *err,
		  size_t errlen)
{
	unsigned long v;

	if (parse_range(value, min, max, &v)) {
		snprintf(err, errlen, "%s: milliseconds from %lu to %lu expected, not '%s'",
			 name, min, max, value ? value : "");
		return -1;
	}
	*field = (unsigned int)v;
	return 0;
}

static int set_path(char *field, size_t size, const char *name,
		    const char *value, char *err, size_t errlen)
{
	if (!value || strlen(value) >= size) {
		snprintf(err, errlen, "%s: a file name is needed", name);
		return -1;
	}
	strcpy(field, value);
	return 0;
}

/* the options that are yes or no (a flag given alone is yes) */
static bool *bool_field(struct td_opts *o, const char *name)
{
	if (!strcmp(name, "addresses"))
		return &o->addresses;
	if (!strcmp(name, "sleep"))
		return &o->sleep;
	if (!strcmp(name, "test-one-channel-class"))
		return &o->test_one_channel_class;
	return NULL;
}

int td_opt_set(struct td_opts *o, const char *name, const char *value,
	       char *err, size_t errlen)
{
	unsigned long vals[TC_MAX_AXES], v;
	uint64_t x;
	bool b, *flag;
	int n, i;

	if (!strcmp(name, "interface")) {
		if (!value || !*value || strlen(value) >= IFNAMSIZ ||
		    strpbrk(value, "/ \t")) {
			snprintf(err, errlen, "interface: bad device name '%s'",
				 value ? value : "");
			return -1;
		}
		strcpy(o->ifname, value);
	} else if ((flag = bool_field(o, name))) {
		if (parse_bool(value, &b)) {
			snprintf(err, errlen, "%s: yes or no expected, not '%s'",
				 name, value);
			return -1;
		}
		*flag = b;
	} else if (!strcmp(name, "no-addresses") || !strcmp(name, "no-sleep")) {
		if (value) {
			snprintf(err, errlen, "%s takes no value", name);
			return -1;
		}
		*(!strcmp(name, "no-sleep") ? &o->sleep : &o->addresses) = false;
	} else if (!strcmp(name, "foreground") || !strcmp(name, "debug")) {
		if (!strcmp(name, "debug") && value &&
		    !parse_range(value, 0, 2, &v)) {
			o->debug = (int)v;
			return 0;
		}
		if (parse_bool(value, &b)) {
			snprintf(err, errlen, "%s: yes or no expected, not '%s'",
				 name, value);
			return -1;
		}
		if (!strcmp(name, "foreground"))
			o->foreground = b;
		else if (!value)
			o->debug++;	/* -d, -dd */
		else
			o->debug = b;
	} else if (!strcmp(name, "id")) {
		if (parse_u64(value, &x) || !x) {
			snprintf(err, errlen, "id: a nonzero 64-bit number expected, not '%s'",
				 value ? value : "");
			return -1;
		}
		o->id = x;
	} else if (!strcmp(name, "tick")) {
		return set_ms(&o->tick_ms, name, value, 1, TD_TICK_MS_MAX,
			      err, errlen);
	} else if (!strcmp(name, "hello")) {
		return set_ms(&o->hello_ms, name, value, 1, TD_MS_MAX,
			      err, errlen);
	} else if (!strcmp(name, "dead")) {
		return set_ms(&o->dead_ms, name, value, 1, TD_MS_MAX,
			      err, errlen);
	} else if (!strcmp(name, "quiet")) {
		return set_ms(&o->quiet_ms, name, value, 1, TD_MS_MAX,
			      err, errlen);
	} else if (!strcmp(name, "orient")) {
		return set_ms(&o->orient_ms, name, value, 0, TD_MS_MAX,
			      err, errlen);
	} else if (!strcmp(name, "axes")) {
		if (parse_range(value, 1, TC_MAX_AXES, &v)) {
			snprintf(err, errlen, "axes: 1 to %d expected, not '%s'",
				 TC_MAX_AXES, value ? value : "");
			return -1;
		}
		o->axes = (unsigned int)v;
	} else if (!strcmp(name, "block")) {
		if (parse_u64(value, &x) || !x || x > UINT32_MAX) {
			snprintf(err, errlen, "block: a nonzero 32-bit block id expected, not '%s'",
				 value ? value : "");
			return -1;
		}
		o->block_id = (uint32_t)x;
	} else if (!strcmp(name, "block-coord")) {
		n = td_parse_list(value, false, 0, TORUS_MAX_EXTENT - 1, vals,
				  TC_MAX_AXES);
		if (n < 0) {
			snprintf(err, errlen, "block-coord: 1 to %d values 0..%d separated by commas expected, not '%s'",
				 TC_MAX_AXES, TORUS_MAX_EXTENT - 1,
				 value ? value : "");
			return -1;
		}
		for (i = 0; i < n; i++)
			o->block_coord[i] = (uint8_t)vals[i];
		o->block_ncoord = (unsigned int)n;
	} else if (!strcmp(name, "block-dims")) {
		n = td_parse_list(value, true, 1, TORUS_MAX_EXTENT, vals,
				  TC_MAX_AXES);
		if (n < 0) {
			snprintf(err, errlen, "block-dims: 1 to %d extents 1..%d like 2x2x2 expected, not '%s'",
				 TC_MAX_AXES, TORUS_MAX_EXTENT,
				 value ? value : "");
			return -1;
		}
		for (i = 0; i < n; i++)
			o->block_dims[i] = (uint16_t)vals[i];
		o->block_ndims = (unsigned int)n;
	} else if (!strcmp(name, "config")) {
		return set_path(o->config, sizeof(o->config), name, value,
				err, errlen);
	} else if (!strcmp(name, "pidfile")) {
		return set_path(o->pidfile, sizeof(o->pidfile), name, value,
				err, errlen);
	} else if (!strcmp(name, "state-file")) {
		return set_path(o->statefile, sizeof(o->statefile), name,
				value, err, errlen);
	} else {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -1;
	}
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

int td_opts_load(struct td_opts *o, const char *path, char *err,
		 size_t errlen)
{
	char line[1024], why[256];
	unsigned int lineno = 0;
	char *key, *val, *eq;
	size_t len;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		len = strlen(line);
		if (len == sizeof(line) - 1 && line[len - 1] != '\n') {
			snprintf(err, errlen, "%s:%u: line too long", path,
				 lineno);
			goto fail;
		}
		key = trim(line);
		if (!*key || *key == '#' || *key == ';')
			continue;
		eq = strchr(key, '=');
		if (!eq) {
			snprintf(err, errlen, "%s:%u: 'key = value' expected",
				 path, lineno);
			goto fail;
		}
		*eq = '\0';
		key = trim(key);
		val = trim(eq + 1);
		len = strlen(val);
		if (len >= 2 && val[0] == '"' && val[len - 1] == '"') {
			val[len - 1] = '\0';
			val++;
		}
		if (!strcmp(key, "config")) {
			snprintf(err, errlen, "%s:%u: 'config' cannot be set in a config file",
				 path, lineno);
			goto fail;
		}
		if (td_opt_set(o, key, val, why, sizeof(why))) {
			snprintf(err, errlen, "%s:%u: %s", path, lineno, why);
			goto fail;
		}
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		goto fail;
	}
	fclose(f);
	return 0;

fail:
	fclose(f);
	return -1;
}

int td_opts_check(const struct td_opts *o, char *err, size_t errlen)
{
	unsigned int i;

	if (!o->ifname[0]) {
		snprintf(err, errlen, "no node device: give -i DEV (e.g. -i tor0)");
		return -1;
	}
	/* a neighbor must be able to miss a hello before it is dead */
	if (o->dead_ms <= o->hello_ms) {
		snprintf(err, errlen, "--dead (%u ms) must be longer than --hello (%u ms)",
			 o->dead_ms, o->hello_ms);
		return -1;
	}
	if (!o->block_id && (o->block_ncoord || o->block_ndims)) {
		snprintf(err, errlen, "block-coord and block-dims need --block ID");
		return -1;
	}
	if (o->block_id) {
		if (!o->block_ncoord || !o->block_ndims) {
			snprintf(err, errlen, "--block needs --block-coord and --block-dims");
			return -1;
		}
		if (o->block_ncoord != o->block_ndims) {
			snprintf(err, errlen, "block-coord has %u axes, block-dims %u",
				 o->block_ncoord, o->block_ndims);
			return -1;
		}
		for (i = 0; i < o->block_ncoord; i++) {
			if (o->block_coord[i] >= o->block_dims[i]) {
				snprintf(err, errlen, "block-coord: %c = %u is outside the block's extent %u",
					 TORUS_AXIS_NAMES[i],
					 o->block_coord[i], o->block_dims[i]);
				return -1;
			}
		}
		if (o->axes && o->block_ndims != o->axes) {
			snprintf(err, errlen, "block-dims has %u axes, --axes says %u",
				 o->block_ndims, o->axes);
			return -1;
		}
	}
	return 0;
}

long td_ms_to_ticks(unsigned int ms, unsigned int tick_ms)
{
	unsigned long t;

	if (!ms)
		return 0;
	if (!tick_ms)
		return -1;
	t = ((unsigned long)ms + tick_ms - 1) / tick_ms;
	if (t > UINT16_MAX)
		return -1;
	return (long)t;
}

int td_opts_to_config(const struct td_opts *o, uint8_t ndims,
		      struct tc_config *cfg, char *err, size_t errlen)
{
	const struct {
		const char *name;
		unsigned int ms;
		uint16_t *ticks;
	} timers[] = {
		{ "hello", o->hello_ms, &cfg->hello_ticks },
		{ "dead", o->dead_ms, &cfg->dead_ticks },
		{ "quiet", o->quiet_ms, &cfg->quiet_ticks },
		{ "orient", o->orient_ms, &cfg->orient_ticks },
	};
	unsigned int i;
	long t;

	for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
		t = td_ms_to_ticks(timers[i].ms, o->tick_ms);
		if (t < 0) {
			snprintf(err, errlen, "%s: %u ms is more than 65535 ticks of %u ms",
				 timers[i].name, timers[i].ms, o->tick_ms);
			return -1;
		}
		*timers[i].ticks = (uint16_t)t;
	}
	cfg->ndims = ndims;
	cfg->block_mode = o->block_id != 0;
	cfg->block_id = o->block_id;
	memset(cfg->block_coord, 0, sizeof(cfg->block_coord));
	memset(cfg->block_dims, 0, sizeof(cfg->block_dims));
	if (cfg->block_mode) {
		if (o->block_ndims != ndims) {
			snprintf(err, errlen, "block-dims has %u axes, the node has %u (its port labels, or --axes)",
				 o->block_ndims, ndims);
			return -1;
		}
		for (i = 0; i < ndims; i++) {
			cfg->block_coord[i] = o->block_coord[i];
			cfg->block_dims[i] = o->block_dims[i];
		}
		/*
		 * The paper's 2d+2 steps assume every node starts at once;
		 * daemons start one by one and face records are re-sent
		 * with the hellos, so give the face three hellos more.
		 */
		if (!o->orient_ms) {
			unsigned int d = 0;

			for (i = 0; i < ndims; i++)
				d += o->block_dims[i] - 1;
			t = 2 * (long)d + 2 + 3L * cfg->hello_ticks;
			cfg->orient_ticks = t > UINT16_MAX ? UINT16_MAX :
							     (uint16_t)t;
		}
	}
	return 0;
}
