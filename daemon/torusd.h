/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * torusd.h - the daemon's state: one node device, its ports, the
 * protocol core and the event loop's descriptors
 */
#ifndef TORUSD_H
#define TORUSD_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "frame.h"
#include "install.h"
#include "options.h"
#include "routes.h"
#include "tcore.h"
#include "tnl.h"

#define TORUSD_VERSION		"0.1"
#define TD_MAX_KPORTS		64	/* ports of one node in a dump */
#define TD_AUDIT_MS		5000	/* re-read the kernel this often */
#define TD_RETRY_MS		1000	/* retry a failed install ... */
#define TD_RETRY_MAX_MS		60000	/* ... doubling up to this */
#define TD_MAX_CATCHUP		10	/* ticks past the armed one run after a stall */
#define TD_RX_BUDGET		64	/* frames read per port per wakeup */
#define TD_FRAME_BUF		9216

/* one port of the node, indexed by its label */
struct td_port {
	bool		present;	/* enslaved to our node, in cfg.ports */
	uint32_t	ifindex;
	char		ifname[IFNAMSIZ];
	uint8_t		mac[TD_ETH_ALEN];
	bool		carrier;	/* as last told to the core */
	int		fd;		/* packet socket, -1 if none */
	uint64_t	tx, tx_err, rx, rx_bad;
	uint64_t	unresolved_since;	/* tick + 1, 0: not unresolved */
};

struct torusd {
	struct td_opts	opts;
	int		argc;
	char		**argv;
	char		cwd[PATH_MAX];

	struct td_nl	nl;
	uint32_t	ifindex;
	uint64_t	auto_id;	/* the kernel's or the MACs' id */
	uint64_t	id;

	struct tc_config cfg;
	struct tc_node	*node;
	struct tc_view	view;
	bool		have_view;
	bool		ready_sent;	/* READY=1 told the service manager */

	struct td_port	ports[TC_MAX_PORTS];
	uint32_t	kmap[TORUS_MAX_DIRS];	/* the kernel's port map */
	uint8_t		refused[TORUS_MAX_DIRS];	/* enum td_refusal */
	uint32_t	nbr_sum;	/* the neighbors as the install saw them */
	uint16_t	warned_labels;	/* labels ignored, said once */
	uint16_t	bad_labels;	/* new labels the core refused */

	/* the kernel holds our placed view */
	bool		installed;
	struct td_routes routes;	/* fault-tolerant routes (routes.c) */
	bool		need_sync;	/* compare with the kernel, fix it */
	bool		need_resync;	/* re-dump the ports */
	bool		state_dirty;	/* rewrite the --state-file */
	uint64_t	retry_tick;	/* 0, or when to retry a failed sync */
	unsigned int	sync_fails;	/* failed syncs in a row */
	uint64_t	ticks;		/* ticks run since the core started */
	uint64_t	epoch_ns;	/* CLOCK_MONOTONIC of tick 0 */
	uint64_t	wake_tick;	/* the tick the timer is armed for */
	bool		input;		/* input since the last tick */
	uint64_t	wakeups;	/* epoll_wait returns */
	uint64_t	timer_wakeups;	/* ... for the timer */

	int		epfd;
	int		tfd;		/* timerfd: the tick */
	int		sfd;		/* signalfd */
	int		lockfd;		/* control socket (lib/ctlsock.h) */
	int		ctl_lockfd;	/* its lock: one daemon per node */
	char		ctl_path[108];	/* its path, unlinked at exit */
	int		pidfd;
	int		readyfd;	/* pipe to the parent until ready, -1 */
	bool		stop;
	int		exit_code;
};

struct td_state_info;
struct td_state_nbr;

/* torusd.c: re-read the node's ports; labels new to the core in *new */
int ports_resync(struct torusd *d, uint16_t *new_labels);

/* kernel.c: the kernel side */
/* the core's view changed? log it and install it */
void check_view(struct torusd *d);
/* make the kernel hold what install.c decides; retried on failure */
void kernel_sync(struct torusd *d);
/* follow each cable's resolution: a change calls for kernel_sync() */
void watch_nbrs(struct torusd *d);
/* a request failed: exit if the node device or the module is gone */
void node_gone(struct torusd *d, int err);
void state_info(struct torusd *d, struct td_state_info *si,
		struct td_state_nbr *nbrs);
void write_state(struct torusd *d);
/* STATUS= (and READY=1 the first time) for the service manager */
void notify_status(struct torusd *d);

#endif /* TORUSD_H */
