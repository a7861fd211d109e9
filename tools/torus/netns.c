// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * netns.c - network namespaces by name (/run/netns/NAME), and the netlink
 * sockets opened in each, cached so a batch of commands over many
 * namespaces opens each namespace and socket once
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <linux/torus.h>

#include "linkmsg.h"
#include "parse.h"
#include "tool.h"

#define NETNS_RUN_DIR	"/run/netns"

struct ns_ent {
	struct ns_ent	*next;
	char		*name;	/* NULL: the netns the tool started in */
	int		fd;
	struct nlsock	*genl;
	struct nlsock	*rtnl;
};

static struct ns_ent *ents;
static struct ns_ent *cur;	/* the netns we are in */
static struct ns_ent *base;	/* where lines without -n run */

static int open_ns(const char *name)
{
	char path[4096];
	int fd;

	if (!name)
		return open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	if (strchr(name, '/'))
		snprintf(path, sizeof(path), "%s", name);
	else
		snprintf(path, sizeof(path), "%s/%s", NETNS_RUN_DIR, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fprintf(stderr, "Error: cannot open network namespace \"%s\": %s\n",
			name, strerror(errno));
	return fd;
}

static struct ns_ent *lookup(const char *name, bool create)
{
	struct ns_ent *e;
	int fd;

	for (e = ents; e; e = e->next) {
		if ((!name && !e->name) ||
		    (name && e->name && !strcmp(name, e->name)))
			return e;
	}
	if (!create)
		return NULL;
	fd = open_ns(name);
	if (fd < 0 && name)
		return NULL;
	e = calloc(1, sizeof(*e));
	if (!e || (name && !(e->name = strdup(name)))) {
		free(e);
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "Error: out of memory\n");
		return NULL;
	}
	e->fd = fd;
	e->next = ents;
	ents = e;
	return e;
}

static int enter(struct ns_ent *e)
{
	if (e == cur)
		return 0;
	if (e->fd < 0) {
		fprintf(stderr, "Error: cannot return to the initial network namespace\n");
		return -1;
	}
	if (setns(e->fd, CLONE_NEWNET) < 0) {
		fprintf(stderr, "Error: cannot enter network namespace \"%s\": %s\n",
			e->name ? e->name : "(initial)", strerror(errno));
		return -1;
	}
	cur = e;
	return 0;
}

int ns_init(const char *name)
{
	cur = lookup(NULL, true);
	if (!cur)
		return -1;
	base = cur;
	if (!name)
		return 0;
	base = lookup(name, true);
	if (!base)
		return -1;
	return enter(base);
}

int ns_switch(const char *name)
{
	struct ns_ent *e = name ? lookup(name, true) : base;

	if (!e)
		return -1;
	return enter(e);
}

void *ns_save(void)
{
	return cur;
}

int ns_restore(void *saved)
{
	return enter(saved);
}

int ns_fd(const char *name)
{
	struct ns_ent *e = lookup(name, true);

	return e ? e->fd : -1;
}

struct nlsock *ns_genl(void)
{
	if (!cur->genl) {
		cur->genl = mnlg_open(TORUS_GENL_NAME, TORUS_GENL_VERSION);
		if (cur->genl)
			cur->genl->namer = torus_attr_namer;
	}
	return cur->genl;
}

struct nlsock *ns_rtnl(void)
{
	if (!cur->rtnl) {
		cur->rtnl = nlsock_open(NETLINK_ROUTE);
		if (cur->rtnl) {
			cur->rtnl->hdrlen = sizeof(struct ifinfomsg);
			cur->rtnl->namer = rtnl_attr_namer;
		}
	}
	return cur->rtnl;
}

void ns_fini(void)
{
	struct ns_ent *e;

	while ((e = ents)) {
		ents = e->next;
		nlsock_close(e->genl);
		nlsock_close(e->rtnl);
		if (e->fd >= 0)
			close(e->fd);
		free(e->name);
		free(e);
	}
	cur = base = NULL;
}
