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
#include "parse.h"

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

/*
 * take the device name after the keyword at *argv into @name, or fail
 * with a usage error about an invalid @what
 */
#define NEXT_IFNAME(object, what, name)					\
	do {								\
		NEXT_ARG(object);					\
		if (parse_ifname(argv[0]))				\
			return bad_value(object, what, argv[0],		\
					 "a device name");		\
		name = argv[0];						\
	} while (0)

/* "[ dev DEV ]" and nothing else; *dev is NULL without it */
int parse_dev_arg(const char *object, int argc, char **argv,
		  const char **dev);
/*
 * "[ dev ] NAME ...": the device a command names first, into *name, with
 * *pargc and *pargv moved past it; @meta and @what name it in the errors
 * ("missing NAME", "invalid name ...")
 */
int parse_name_arg(const char *object, const char *meta, const char *what,
		   int *pargc, char ***pargv, const char **name);

/* an object's commands, ending with an empty entry */
struct cmd {
	const char	*name;
	int		(*func)(int argc, char **argv);
};

/*
 * run the command at argv[0] with the arguments after it; "help" prints
 * @usage.  Without a command a "show" entry runs, if @cmds has one.
 */
int do_cmds(const char *object, const struct cmd *cmds,
	    void (*usage)(FILE *f), int argc, char **argv);

/*
 * send @nlh and print the records of the replies with @cb: a JSON array,
 * one after another in text.  show_begin() and show_end() around several
 * requests.  Returns the exit status.
 */
void show_begin(void);
void show_end(void);
int show_talk(struct nlsock *nls, struct nlmsghdr *nlh, mnl_cb_t cb,
	      void *data);

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
/*
 * a @cmd request for the node device (see node_ifindex()) with its
 * TORUS_A_IFINDEX, on the torus socket put in *genl; NULL after printing
 * the error
 */
struct nlmsghdr *node_msg(const char *dev, uint8_t cmd,
			  struct nlsock **genl);
/* "OBJECT VERB [ dev DEV ]": send @cmd for the node, no reply but ack */
int node_request(const char *object, int argc, char **argv, uint8_t cmd);
/* a per-axis nest (type = axis + 1) of u32 values */
void put_axes_u32(struct nlmsghdr *nlh, uint16_t type, const uint32_t *vals,
		  int n);


/* objects: @argv starts after the object name */
int do_link(int argc, char **argv);
int do_node(int argc, char **argv);
int do_port(int argc, char **argv);
int do_cable(int argc, char **argv);
int do_route(int argc, char **argv);
int do_stats(int argc, char **argv);
int do_monitor(int argc, char **argv);
int do_coll(int argc, char **argv);
void coll_usage(FILE *f);
int do_neighbor(int argc, char **argv);
int do_topo(int argc, char **argv);

/*
 * Ask the torusd of node device @dev (its socket /run/torusd/ctl-NETNS-DEV
 * for this network namespace, answered by torusd alone: a process of
 * root or of the directory's owner, the unit's dynamic user; ctlsock.h): the reply, NUL-terminated, in @buf; or -1 said
 */
int torusd_ask(const char *dev, const char *req, char *buf, size_t size);
char *torusd_query(const char *dev, const char *req, size_t size);
/* the value of "key=" in a line of torusd's words ("-" if absent) */
const char *torusd_word(const char *line, const char *key, char *val,
			size_t size);
/* torus route path (route_path.c) */
int route_path(int argc, char **argv);

void link_usage(FILE *f);
void node_usage(FILE *f);
void port_usage(FILE *f);
void cable_usage(FILE *f);
void route_usage(FILE *f);
void stats_usage(FILE *f);
void monitor_usage(FILE *f);
void neighbor_usage(FILE *f);
void topo_usage(FILE *f);

#endif /* TORUS_TOOL_H */
