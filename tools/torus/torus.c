// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torus.c - the torus control tool: global options, the object dispatch
 * table, the argument and command helpers the objects share, batch mode
 *
 *	torus [OPTIONS] OBJECT { COMMAND | help }
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/torus.h>

#include "json_print.h"
#include "parse.h"
#include "tool.h"

#define BATCH_MAX_ARGS	512

struct tool_opts opts;

struct object {
	const char	*name;
	int		(*func)(int argc, char **argv);
	void		(*usage)(FILE *f);
};

static const struct object objects[] = {
	{ "link",	do_link,	link_usage },
	{ "node",	do_node,	node_usage },
	{ "port",	do_port,	port_usage },
	{ "cable",	do_cable,	cable_usage },
	{ "route",	do_route,	route_usage },
	{ "stats",	do_stats,	stats_usage },
	{ "monitor",	do_monitor,	monitor_usage },
	{ "neighbor",	do_neighbor,	neighbor_usage },
	{ "coll",	do_coll,	coll_usage },
	{ "topo",	do_topo,	topo_usage },
};

#define N_OBJECTS	(sizeof(objects) / sizeof(objects[0]))

static void usage(FILE *f, bool full)
{
	size_t i;

	fprintf(f,
		"Usage: torus [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"       torus [ -force ] -batch FILENAME\n"
		"where  OBJECT := { link | node | port | cable | route | stats | monitor |\n"
		"                  neighbor | coll | topo }\n"
		"       OPTIONS := { -j|-json | -p|-pretty | -s|-stats | -n|-netns NAME |\n"
		"                    -b|-batch FILE | -force | -h|-help | -V|-Version }\n");
	if (!full)
		return;
	for (i = 0; i < N_OBJECTS; i++) {
		fputc('\n', f);
		objects[i].usage(f);
	}
}

int usage_error(const char *object, const char *fmt, ...)
{
	va_list ap;

	fputs("Error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	if (object)
		fprintf(stderr, ". Try \"torus %s help\".\n", object);
	else
		fputs(". Try \"torus help\".\n", stderr);
	return EXIT_USAGE;
}

int unknown_keyword(const char *object, const char *kw)
{
	return usage_error(object, "unknown keyword \"%s\"", kw);
}

int bad_value(const char *object, const char *kw, const char *val,
	      const char *what)
{
	return usage_error(object, "invalid %s \"%s\"%s%s", kw, val,
			   what ? ": expected " : "", what ? what : "");
}

int parse_dev_arg(const char *object, int argc, char **argv,
		  const char **dev)
{
	*dev = NULL;
	while (argc > 0) {
		if (!kw(argv[0], "dev"))
			return unknown_keyword(object, argv[0]);
		NEXT_IFNAME(object, "dev", *dev);
		argc--;
		argv++;
	}
	return EXIT_OK;
}

int parse_name_arg(const char *object, const char *meta, const char *what,
		   int *pargc, char ***pargv, const char **name)
{
	int argc = *pargc;
	char **argv = *pargv;

	if (argc > 0 && kw(argv[0], "dev"))
		NEXT_ARG(object);
	if (argc < 1)
		return usage_error(object, "missing %s", meta);
	if (parse_ifname(argv[0]))
		return bad_value(object, what, argv[0], "a device name");
	*name = argv[0];
	*pargc = argc - 1;
	*pargv = argv + 1;
	return EXIT_OK;
}

int do_cmds(const char *object, const struct cmd *cmds,
	    void (*usage)(FILE *f), int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "show";
	const struct cmd *c;

	for (c = cmds; c->name; c++) {
		if (!kw(name, c->name))
			continue;
		if (argc < 1)
			return c->func(0, argv);
		return c->func(argc - 1, argv + 1);
	}
	if (argc < 1)
		return usage_error(object, "missing command");
	if (kw(argv[0], "help")) {
		usage(stdout);
		return EXIT_OK;
	}
	return unknown_keyword(object, argv[0]);
}

void show_begin(void)
{
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_array(PRINT_JSON, NULL);
}

void show_end(void)
{
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
}

int show_talk(struct nlsock *nls, struct nlmsghdr *nlh, mnl_cb_t cb,
	      void *data)
{
	int ret;

	show_begin();
	ret = nlsock_talk(nls, nlh, cb, data);
	show_end();
	return ret ? EXIT_ERR : EXIT_OK;
}

static const struct object *find_object(const char *name)
{
	size_t i;

	for (i = 0; i < N_OBJECTS; i++)
		if (kw(name, objects[i].name))
			return &objects[i];
	return NULL;
}

static int do_cmd(int argc, char **argv)
{
	const struct object *o;

	if (argc < 1)
		return usage_error(NULL, "missing object");
	if (kw(argv[0], "help")) {
		usage(stdout, true);
		return EXIT_OK;
	}
	o = find_object(argv[0]);
	if (!o)
		return usage_error(NULL, "unknown object \"%s\"", argv[0]);
	if (argc > 1 && kw(argv[1], "help")) {
		o->usage(stdout);
		return EXIT_OK;
	}
	return o->func(argc - 1, argv + 1);
}

static bool opt_is(const char *arg, const char *s, const char *l)
{
	/* -s, -long and --long */
	return kw(arg, s) || kw(arg, l) || (arg[0] == '-' && kw(arg + 1, l));
}

static int batch(const char *file, bool force)
{
	char *argv[BATCH_MAX_ARGS];
	int argc, lineno = 0, ret, status = EXIT_OK;
	size_t cap = 0;
	char *line = NULL;
	const char *ns;
	FILE *f;
	int i;

	if (kw(file, "-")) {
		f = stdin;
	} else {
		f = fopen(file, "r");
		if (!f) {
			fprintf(stderr, "Error: cannot open \"%s\": %m\n",
				file);
			return EXIT_ERR;
		}
	}

	while (getline(&line, &cap, f) != -1) {
		lineno++;
		argc = batch_split(line, argv, BATCH_MAX_ARGS);
		if (!argc)
			continue;
		ns = NULL;
		i = 0;
		if (argc == -1) {
			fprintf(stderr, "Error: unterminated quote\n");
			ret = EXIT_USAGE;
		} else if (argc == -2) {
			fprintf(stderr, "Error: too many arguments\n");
			ret = EXIT_USAGE;
		} else {
			if (opt_is(argv[0], "-n", "-netns")) {
				if (argc < 2) {
					ret = usage_error(NULL,
						"missing argument after \"%s\"",
						argv[0]);
					goto failed;
				}
				ns = argv[1];
				i = 2;
			}
			ret = ns_switch(ns) ? EXIT_ERR :
					      do_cmd(argc - i, argv + i);
		}
failed:
		if (ret) {
			fprintf(stderr, "Command failed %s:%d\n", file, lineno);
			status = ret;
			if (!force)
				break;
		}
	}
	free(line);
	if (f != stdin)
		fclose(f);
	if (ns_switch(NULL) && !status)
		status = EXIT_ERR;
	return status;
}

int main(int argc, char **argv)
{
	const char *batch_file = NULL;
	const char *netns = NULL;
	bool force = false;
	int ret;

	argc--;
	argv++;
	while (argc > 0 && argv[0][0] == '-') {
		const char *opt = argv[0];

		if (opt_is(opt, "-j", "-json")) {
			opts.json = true;
		} else if (opt_is(opt, "-p", "-pretty")) {
			opts.pretty = true;
		} else if (opt_is(opt, "-s", "-stats")) {
			opts.stats++;
		} else if (opt_is(opt, "-n", "-netns")) {
			if (argc < 2)
				return usage_error(NULL,
					"missing argument after \"%s\"", opt);
			netns = argv[1];
			argc--;
			argv++;
		} else if (opt_is(opt, "-b", "-batch")) {
			if (argc < 2)
				return usage_error(NULL,
					"missing argument after \"%s\"", opt);
			batch_file = argv[1];
			argc--;
			argv++;
		} else if (opt_is(opt, "-force", "-force")) {
			force = true;
		} else if (opt_is(opt, "-h", "-help")) {
			usage(stdout, true);
			return EXIT_OK;
		} else if (opt_is(opt, "-V", "-Version")) {
			printf("torus utility, version %s (generic netlink family \"%s\" version %d)\n",
			       TORUS_TOOL_VERSION, TORUS_GENL_NAME,
			       TORUS_GENL_VERSION);
			return EXIT_OK;
		} else {
			return usage_error(NULL, "unknown option \"%s\"", opt);
		}
		argc--;
		argv++;
	}

	if (!batch_file && argc < 1) {
		usage(stderr, false);
		return EXIT_USAGE;
	}
	/* help needs neither the module nor a netns */
	if (!batch_file && (kw(argv[0], "help") ||
			    (argc > 1 && kw(argv[1], "help"))))
		return do_cmd(argc, argv);
	if (batch_file && argc > 0)
		return usage_error(NULL, "unexpected \"%s\" after -batch FILE",
				   argv[0]);

	if (ns_init(netns))
		return EXIT_ERR;
	if (batch_file)
		ret = batch(batch_file, force);
	else
		ret = do_cmd(argc, argv);
	ns_fini();
	return ret;
}
