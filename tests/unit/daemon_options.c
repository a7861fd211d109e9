// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_options.c - unit tests of daemon/options.c (torusd settings)
 */
#include <stdio.h>
#include <unistd.h>

#include "options.h"
#include "unit.h"

static int set(struct td_opts *o, const char *name, const char *value)
{
	char err[256];

	return td_opt_set(o, name, value, err, sizeof(err));
}

/* write @text to a temporary file; returns its name (static buffer) */
static const char *tmpconf(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/daemon_options.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return NULL;
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

UNIT_TEST(opts_defaults)
{
	struct td_opts o;

	td_opts_init(&o);
	UNIT_CHECK(o.tick_ms == 50 && o.hello_ms == 500);
	UNIT_CHECK(o.dead_ms == 2000 && o.quiet_ms == 1500);
	UNIT_CHECK(o.orient_ms == 0 && o.id == 0 && o.axes == 0);
	UNIT_CHECK(!o.block_id && !o.foreground && !o.debug);
}

UNIT_TEST(opts_numbers)
{
	struct td_opts o;

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "tick", "10") == 0 && o.tick_ms == 10);
	UNIT_CHECK(set(&o, "tick", "0") == -1 && o.tick_ms == 10);
	UNIT_CHECK(set(&o, "tick", "10001") == -1);
	UNIT_CHECK(set(&o, "hello", "-5") == -1);
	UNIT_CHECK(set(&o, "hello", "5ms") == -1);
	UNIT_CHECK(set(&o, "hello", "") == -1);
	UNIT_CHECK(set(&o, "hello", " 5") == -1);
	UNIT_CHECK(set(&o, "orient", "0") == 0 && o.orient_ms == 0);
	UNIT_CHECK(set(&o, "axes", "3") == 0 && o.axes == 3);
	UNIT_CHECK(set(&o, "axes", "9") == -1 && o.axes == 3);
	UNIT_CHECK(set(&o, "axes", "0") == -1);
}

UNIT_TEST(opts_id)
{
	struct td_opts o;

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "id", "0x10") == 0 && o.id == 16);
	UNIT_CHECK(set(&o, "id", "18446744073709551615") == 0 &&
		   o.id == UINT64_MAX);
	UNIT_CHECK(set(&o, "id", "18446744073709551616") == -1);
	UNIT_CHECK(set(&o, "id", "0") == -1);
	UNIT_CHECK(set(&o, "id", "-1") == -1);
	UNIT_CHECK(set(&o, "id", NULL) == -1);
}

UNIT_TEST(opts_flags)
{
	struct td_opts o;

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "debug", NULL) == 0 && o.debug == 1);
	UNIT_CHECK(set(&o, "debug", NULL) == 0 && o.debug == 2);
	UNIT_CHECK(set(&o, "debug", "no") == 0 && o.debug == 0);
	UNIT_CHECK(set(&o, "debug", "2") == 0 && o.debug == 2);
	UNIT_CHECK(set(&o, "foreground", "yes") == 0 && o.foreground);
	UNIT_CHECK(set(&o, "foreground", "off") == 0 && !o.foreground);
	UNIT_CHECK(set(&o, "foreground", "maybe") == -1);
	UNIT_CHECK(set(&o, "nonsense", "1") == -1);
}

UNIT_TEST(opts_interface)
{
	struct td_opts o;

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "interface", "tor0") == 0);
	UNIT_STREQ(o.ifname, "tor0");
	UNIT_CHECK(set(&o, "interface", "0123456789abcdef") == -1);
	UNIT_CHECK(set(&o, "interface", "a/b") == -1);
	UNIT_CHECK(set(&o, "interface", "") == -1);
}

UNIT_TEST(opts_block)
{
	struct td_opts o;
	char err[256];

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "interface", "tor0") == 0);
	UNIT_CHECK(set(&o, "block", "7") == 0 && o.block_id == 7);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	UNIT_CHECK(set(&o, "block-coord", "0,1,1") == 0 &&
		   o.block_ncoord == 3 && o.block_coord[2] == 1);
	UNIT_CHECK(set(&o, "block-dims", "2x2x3") == 0 &&
		   o.block_ndims == 3 && o.block_dims[2] == 3);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == 0);
	UNIT_CHECK(set(&o, "block-dims", "2,2,1") == 0);
	/* z = 1 is outside an extent of 1 */
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	UNIT_CHECK(set(&o, "block-dims", "2x2") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	UNIT_CHECK(set(&o, "block-dims", "2x0x2") == -1);
	UNIT_CHECK(set(&o, "block-dims", "2x257") == -1);
	UNIT_CHECK(set(&o, "block-coord", "1,,1") == -1);
	UNIT_CHECK(set(&o, "block-coord", "1,2,") == -1);
	UNIT_CHECK(set(&o, "block-coord", "1,2,3,4,5,6,7,8,9") == -1);
	UNIT_CHECK(set(&o, "block", "0") == -1);
	UNIT_CHECK(set(&o, "block", "4294967296") == -1);
}

UNIT_TEST(opts_check_interface)
{
	struct td_opts o;
	char err[256];

	td_opts_init(&o);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	td_opts_init(&o);
	UNIT_CHECK(set(&o, "interface", "tor0") == 0);
	UNIT_CHECK(set(&o, "block-coord", "0") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
}

/* --hello 2000 --dead 500 must be refused: the dead timer outlasts a hello */
UNIT_TEST(opts_dead_longer_than_hello)
{
	struct td_opts o;
	char err[256];

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "interface", "tor0") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == 0);
	UNIT_CHECK(set(&o, "hello", "2000") == 0);
	UNIT_CHECK(set(&o, "dead", "500") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	UNIT_CHECK(strstr(err, "--dead") != NULL);
	UNIT_CHECK(set(&o, "dead", "2000") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == -1);
	UNIT_CHECK(set(&o, "dead", "6000") == 0);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == 0);
}

UNIT_TEST(opts_ticks)
{
	UNIT_CHECK(td_ms_to_ticks(500, 50) == 10);
	UNIT_CHECK(td_ms_to_ticks(501, 50) == 11);
	UNIT_CHECK(td_ms_to_ticks(1, 50) == 1);
	UNIT_CHECK(td_ms_to_ticks(0, 50) == 0);
	UNIT_CHECK(td_ms_to_ticks(65535, 1) == 65535);
	UNIT_CHECK(td_ms_to_ticks(65536, 1) == -1);
	UNIT_CHECK(td_ms_to_ticks(3600000, 10000) == 360);
}

UNIT_TEST(opts_to_config)
{
	struct tc_config cfg = { 0 };
	struct td_opts o;
	char err[256];

	td_opts_init(&o);
	UNIT_CHECK(td_opts_to_config(&o, 3, &cfg, err, sizeof(err)) == 0);
	UNIT_CHECK(cfg.ndims == 3 && cfg.hello_ticks == 10);
	UNIT_CHECK(cfg.dead_ticks == 40 && cfg.quiet_ticks == 30);
	UNIT_CHECK(cfg.orient_ticks == 0 && !cfg.block_mode);

	UNIT_CHECK(set(&o, "tick", "1") == 0);
	UNIT_CHECK(set(&o, "dead", "70000") == 0);
	UNIT_CHECK(td_opts_to_config(&o, 3, &cfg, err, sizeof(err)) == -1);

	td_opts_init(&o);
	UNIT_CHECK(set(&o, "block", "5") == 0);
	UNIT_CHECK(set(&o, "block-coord", "1,0") == 0);
	UNIT_CHECK(set(&o, "block-dims", "2x2") == 0);
	UNIT_CHECK(td_opts_to_config(&o, 3, &cfg, err, sizeof(err)) == -1);
	UNIT_CHECK(td_opts_to_config(&o, 2, &cfg, err, sizeof(err)) == 0);
	UNIT_CHECK(cfg.block_mode && cfg.block_id == 5);
	UNIT_CHECK(cfg.block_coord[0] == 1 && cfg.block_dims[1] == 2);
}

UNIT_TEST(opts_config_file)
{
	struct td_opts o;
	const char *path;
	char err[256];

	td_opts_init(&o);
	path = tmpconf("# torusd.conf\n"
		       "\n"
		       "interface = tor0\n"
		       "  tick=20  \n"
		       "hello = 200\n"
		       "; a comment\n"
		       "state-file = \"/run/torusd.json\"\n"
		       "debug = yes\n"
		       "block = 3\n"
		       "block-coord = 0,1\n"
		       "block-dims = 2x2\n");
	UNIT_CHECK(path != NULL);
	UNIT_CHECK(td_opts_load(&o, path, err, sizeof(err)) == 0);
	unlink(path);
	UNIT_STREQ(o.ifname, "tor0");
	UNIT_CHECK(o.tick_ms == 20 && o.hello_ms == 200 && o.debug == 1);
	UNIT_STREQ(o.statefile, "/run/torusd.json");
	UNIT_CHECK(o.block_id == 3 && o.block_ndims == 2);
	UNIT_CHECK(td_opts_check(&o, err, sizeof(err)) == 0);
}

UNIT_TEST(opts_config_file_errors)
{
	struct td_opts o;
	const char *path;
	char err[256];

	td_opts_init(&o);
	path = tmpconf("tick = 20\nbogus = 1\n");
	UNIT_CHECK(td_opts_load(&o, path, err, sizeof(err)) == -1);
	UNIT_CHECK(strstr(err, ":2: ") != NULL);
	unlink(path);

	path = tmpconf("tick 20\n");
	UNIT_CHECK(td_opts_load(&o, path, err, sizeof(err)) == -1);
	UNIT_CHECK(strstr(err, ":1: ") != NULL);
	unlink(path);

	path = tmpconf("config = /etc/other.conf\n");
	UNIT_CHECK(td_opts_load(&o, path, err, sizeof(err)) == -1);
	unlink(path);

	path = tmpconf("hello = 0\n");
	UNIT_CHECK(td_opts_load(&o, path, err, sizeof(err)) == -1);
	unlink(path);

	UNIT_CHECK(td_opts_load(&o, "/nonexistent/torusd.conf", err,
				sizeof(err)) == -1);
}

UNIT_TEST(opts_addresses_and_sleep)
{
	struct td_opts o;
	const char *path;
	char err[256];

	td_opts_init(&o);
	UNIT_CHECK(o.addresses && o.sleep);
	/* the command line's flags */
	UNIT_CHECK(set(&o, "no-addresses", NULL) == 0 && !o.addresses);
	UNIT_CHECK(set(&o, "no-sleep", NULL) == 0 && !o.sleep);
	UNIT_CHECK(set(&o, "no-sleep", "yes") == -1);
	/* the config file's keys */
	UNIT_CHECK(set(&o, "addresses", "yes") == 0 && o.addresses);
	UNIT_CHECK(set(&o, "sleep", "on") == 0 && o.sleep);
	UNIT_CHECK(set(&o, "addresses", "maybe") == -1 && o.addresses);
	path = tmpconf("interface = tor0\naddresses = no\nsleep = no\n");
	td_opts_init(&o);
	UNIT_CHECK(path && td_opts_load(&o, path, err, sizeof(err)) == 0);
	UNIT_CHECK(!o.addresses && !o.sleep);
	if (path)
		unlink(path);
}

static const struct unit_case cases[] = {
	UNIT_CASE(opts_defaults),
	UNIT_CASE(opts_numbers),
	UNIT_CASE(opts_id),
	UNIT_CASE(opts_flags),
	UNIT_CASE(opts_interface),
	UNIT_CASE(opts_block),
	UNIT_CASE(opts_check_interface),
	UNIT_CASE(opts_dead_longer_than_hello),
	UNIT_CASE(opts_ticks),
	UNIT_CASE(opts_to_config),
	UNIT_CASE(opts_config_file),
	UNIT_CASE(opts_config_file_errors),
	UNIT_CASE(opts_addresses_and_sleep),
};

UNIT_MAIN(cases)
