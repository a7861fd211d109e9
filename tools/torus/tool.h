/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * tool.h - what the torus tool's object files share: global options,
 * argument helpers, per-netns sockets, the object entry points
 */
#ifndef TORUS_TOOL_H
#define TORUS_TOOL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <net/if.h>

#include "mnlg.h"

#ifndef TORUS_TOOL_VERSION
#define TORUS_TOOL_VERSION	"0.1"
#endif

/* exit status */
#define EXIT_OK		0
#define EXIT_ERR	1
#define EXIT_USAGE	2

struct tool_opts {
	bool	json;
	bool	pretty;
	int	stats;
};

extern struct tool_opts opts;

/* argument helpers; they print "Error: ..." and return EXIT_USAGE */
int usage_error(const char *object, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int unknown_keyword(const char *object, const char *kw);
int bad_value(const char *object, const char *kw, const char *val,
	      const char *what);

static inline bool kw(const char *arg, const char *keyword)
{
	return !__builtin_strcmp(arg, keyword);
}

/* take the value after the keyword at *argv, or fail with a usage error */
#define NEXT_ARG(object)						\
	do {								\
		argc--;							\
		argv++;							\
		if (argc <= 0)						\
			return usage_error(object,			\
					   "missing argument after \"%s\"", \
					   argv[-1]);			\
	} while (0)

/* netns.c: network namespaces and the sockets opened in each */
int ns_init(const char *base);		/* the -n NETNS option, or NULL */
int ns_switch(const char *name);	/* NULL: back to the base netns */
int ns_fd(const char *name);		/* cached fd, for IFLA_NET_NS_FD */
void *ns_save(void);			/* the current netns ... */
int ns_restore(void *saved);		/* ... to go back to */
struct nlsock *ns_genl(void);		/* the torus family, current netns */
struct nlsock *ns_rtnl(void);
void ns_fini(void);

/* node.c: resolve "dev DEV", or the only node device if @name is NULL */
int node_ifindex(const char *name, uint32_t *ifindex);
/* a device in the current netns; prints the error */
int dev_ifindex(const char *name, uint32_t *ifindex);


/* objects: @argv starts after the object name */
int do_link(int argc, char **argv);
int do_node(int argc, char **argv);
int do_port(int argc, char **argv);
int do_cable(int argc, char **argv);
int do_route(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_monitor(int argc, char **argv);

void link_usage(FILE *f);
void node_usage(FILE *f);
void port_usage(FILE *f);
void cable_usage(FILE *f);
void route_usage(FILE *f);
void stats_usage(FILE *f);
void monitor_usage(FILE *f);

#endif /* TORUS_TOOL_H */
