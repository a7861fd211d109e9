/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ip_plugin.h - the part of iproute2's link plugin ABI that torus uses
 *
 * Stock `ip` (iproute2 6.1, Debian 12) looks a link kind up as the
 * symbol KIND_link_util in $IP_LIB_DIR/link_KIND.so (default
 * /usr/lib/x86_64-linux-gnu/ip), and for a port enslaved to a device of
 * kind KIND as KIND_slave_link_util in link_KIND_slave.so.  The plugin
 * calls back into `ip`, which is linked with -export-dynamic.
 * iproute2 installs no headers, so the declarations below restate what
 * ip/ip_common.h, include/libnetlink.h, include/json_print.h and
 * include/utils.h of iproute2 6.1 declare; a change there breaks
 * every out-of-tree plugin alike.
 */
#ifndef TORUS_IP_PLUGIN_H
#define TORUS_IP_PLUGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

/* ip/ip_common.h */
struct link_util {
	struct link_util *next;
	const char *id;
	int maxattr;
	int (*parse_opt)(struct link_util *lu, int argc, char **argv,
			 struct nlmsghdr *n);
	void (*print_opt)(struct link_util *lu, FILE *f, struct rtattr *tb[]);
	void (*print_xstats)(struct link_util *lu, FILE *f,
			     struct rtattr *xstats);
	void (*print_help)(struct link_util *lu, int argc, char **argv,
			   FILE *f);
	int (*parse_ifla_xstats)(struct link_util *lu, int argc, char **argv);
	int (*print_ifla_xstats)(struct nlmsghdr *n, void *arg);
};

/* the request `ip link add` builds; its parse_opt gets &req->n */
struct iplink_req {
	struct nlmsghdr n;
	struct ifinfomsg i;
	char buf[1024];
};

/*
 * Parses the generic link arguments (name, netns, address, mtu, ...)
 * into @req; returns the index of "type" or argc, <0 on error.
 */
int iplink_parse(int argc, char **argv, struct iplink_req *req, char **type);

/* include/libnetlink.h */
int addattr8(struct nlmsghdr *n, int maxlen, int type, uint8_t data);
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type);
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest);

/* include/utils.h */
void invarg(const char *msg, const char *arg) __attribute__((noreturn));
void duparg(const char *key, const char *arg) __attribute__((noreturn));

/* include/json_print.h and include/color.h */
enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 4,
};

enum color_attr {
	COLOR_IFNAME,
	COLOR_MAC,
	COLOR_INET,
	COLOR_INET6,
	COLOR_OPERSTATE_UP,
	COLOR_OPERSTATE_DOWN,
	COLOR_NONE
};

bool is_json_context(void);
void open_json_array(enum output_type type, const char *delim);
void close_json_array(enum output_type type, const char *delim);
int print_color_string(enum output_type t, enum color_attr color,
		       const char *key, const char *fmt, const char *value);
int print_color_uint(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, unsigned int value);
int print_color_bool(enum output_type t, enum color_attr color,
		     const char *key, const char *fmt, bool value);

/* the buffer parse_opt may fill: struct iplink_req's, after the header */
#define IP_PLUGIN_REQ_MAX	(sizeof(struct iplink_req))

#endif /* TORUS_IP_PLUGIN_H */
