// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torusd - the torus fabric discovery daemon
 *
 * One daemon per node device.  It wraps the sans-I/O protocol core
 * (daemon/core) in one epoll loop that owns every descriptor: a timerfd
 * armed for the core's next deadline (it sleeps through ticks that have
 * nothing to do), one AF_PACKET socket per port for control frames, a
 * generic netlink socket for the module's events, a signalfd and the
 * control socket /run/torusd/ctl-NETNS-DEV that answers queries.
 * Whenever the core's view changes the result is installed into
 * torus.ko (kernel.c carries out what install.c decides), and only what
 * differs from the kernel is rewritten, so the daemon can be restarted
 * without disturbing forwarding.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <linux/if_packet.h>

#include "caps.h"
#include "ctlsock.h"
#include "log.h"
#include "notify.h"
#include "statefile.h"
#include "torusd.h"

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING	23
#endif

enum {
	TAG_TIMER = 1,
	TAG_SIGNAL,
	TAG_NETLINK,
	TAG_PORT,
	TAG_CTRL,
	TAG_ROUTES,
};

#define TAG(kind, label)	(((uint64_t)(kind) << 32) | (label))
#define TAG_KIND(tag)		((uint32_t)((tag) >> 32))
#define TAG_LABEL(tag)		((uint8_t)(tag))

/* ---- command line ---- */

static const char short_opts[] = "i:fdc:hV";

static const struct option long_opts[] = {
	{ "interface",	required_argument,	NULL, 'i' },
	{ "foreground",	no_argument,		NULL, 'f' },
	{ "debug",	no_argument,		NULL, 'd' },
	{ "config",	required_argument,	NULL, 'c' },
	{ "id",		required_argument,	NULL, 0 },
	{ "tick",	required_argument,	NULL, 0 },
	{ "hello",	required_argument,	NULL, 0 },
	{ "dead",	required_argument,	NULL, 0 },
	{ "quiet",	required_argument,	NULL, 0 },
	{ "orient",	required_argument,	NULL, 0 },
	{ "axes",	required_argument,	NULL, 0 },
	{ "block",	required_argument,	NULL, 0 },
	{ "block-coord", required_argument,	NULL, 0 },
	{ "block-dims",	required_argument,	NULL, 0 },
	{ "pidfile",	required_argument,	NULL, 0 },
	{ "state-file",	required_argument,	NULL, 0 },
	{ "no-addresses", no_argument,		NULL, 0 },
	{ "no-sleep",	no_argument,		NULL, 0 },
	{ "test-one-channel-class", no_argument, NULL, 0 },
	{ "help",	no_argument,		NULL, 'h' },
	{ "version",	no_argument,		NULL, 'V' },
	{ NULL, 0, NULL, 0 }
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: torusd -i DEV [-f] [-d[d]] [-c CONFIG] [--id ID]\n"
"              [--tick MS] [--hello MS] [--dead MS] [--quiet MS] [--orient MS]\n"
"              [--axes N] [--block ID --block-coord COORD --block-dims DIMS]\n"
"              [--pidfile FILE] [--state-file FILE] [--no-addresses]\n"
"              [--no-sleep] [--test-one-channel-class]\n"
"       torusd {-h | --help | -V | --version}\n"
"\n"
"Discovers the node's coordinates in a torus/mesh fabric and installs them\n"
"(with extents, wrap flags and the port map) into torus.ko.\n"
"\n"
"  -i, --interface DEV   the node device (e.g. tor0); required\n"
"  -f, --foreground      stay in the foreground, log to stderr\n"
"  -d, --debug           debug messages; twice: also every bad frame\n"
"  -c, --config FILE     read 'key = value' lines (long option names)\n"
"      --id ID           node id, nonzero (default: the kernel's, else a\n"
"                        hash of the ports' MAC addresses)\n"
"      --tick MS         protocol clock tick (default %u)\n"
"      --hello MS        hello period (default %u)\n"
"      --dead MS         a silent neighbor is dead after (default %u)\n"
"      --quiet MS        placed after this long without change (default %u)\n"
"      --orient MS       block mode: orientation deadline (default: 2d+2\n"
"                        ticks and three hello periods)\n"
"      --axes N          axes of the fabric (default: from the port labels)\n"
"      --block ID        the node's block (midplane) id, nonzero\n"
"      --block-coord C   the node's coordinates in its block, e.g. 0,1,0\n"
"      --block-dims D    the block's extents, e.g. 2x2x2\n"
"      --pidfile FILE    write the daemon's pid there\n"
"      --state-file FILE write the daemon's view there as JSON\n"
"      --no-addresses    do not install the plan addresses on DEV\n"
"      --no-sleep        run every tick instead of sleeping to the next\n"
"                        deadline (to compare wake-ups)\n"
"      --test-one-channel-class  test knob: check the routes with every plan\n"
"                        in one virtual channel class, a cyclic set that\n"
"                        torusd must refuse (the kernel keeps its routes)\n"
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Signals: SIGHUP re-reads the settings (resuming the placement), SIGUSR1\n"
"(or \"torus node rediscover\") rediscovers from scratch (after\n"
"recabling), SIGTERM exits.  Needs\n"
"CAP_NET_ADMIN and CAP_NET_RAW.  See torusd(8).\n",
		TD_TICK_MS_DEFAULT, TD_HELLO_MS_DEFAULT, TD_DEAD_MS_DEFAULT,
		TD_QUIET_MS_DEFAULT);
}

/* a path relative to the directory torusd was started in */
static int absolutize(char *path, size_t size, const char *cwd)
{
	char buf[PATH_MAX];

	if (!path[0] || path[0] == '/')
		return 0;
	if ((size_t)snprintf(buf, sizeof(buf), "%s/%s", cwd, path) >= size)
		return -1;
	strcpy(path, buf);
	return 0;
}

/*
 * Defaults, then the config file, then the command line over it.
 * Returns 0, 1 if --help/--version was handled, -1 on a usage error.
 */
static int parse_settings(struct td_opts *o, int argc, char **argv,
			  const char *cwd, bool quiet)
{
	char err[512], config[PATH_MAX] = "";
	int c, idx, pass;

	td_opts_init(o);
	for (pass = 0; pass < 2; pass++) {
		optind = 0;	/* rescan: GNU getopt reinitializes */
		opterr = !quiet && pass == 0;
		while ((c = getopt_long(argc, argv, short_opts, long_opts,
					&idx)) != -1) {
			const char *name = NULL;

			switch (c) {
			case 'h':
				if (pass == 0) {
					usage(stdout);
					return 1;
				}
				continue;
			case 'V':
				if (pass == 0) {
					printf("torusd %s\n", TORUSD_VERSION);
					return 1;
				}
				continue;
			case 'c':
				if (pass == 0)
					snprintf(config, sizeof(config), "%s",
						 optarg);
				name = "config";
				break;
			case 'i':
				name = "interface";
				break;
			case 'f':
				name = "foreground";
				break;
			case 'd':
				name = "debug";
				break;
			case 0:
				name = long_opts[idx].name;
				break;
			default:
				return -1;
			}
			/* pass 0 only finds the config file */
			if (pass == 0)
				continue;
			if (td_opt_set(o, name, optarg, err, sizeof(err))) {
				if (!quiet)
					fprintf(stderr, "torusd: %s\n", err);
				return -1;
			}
		}
		if (optind < argc) {
			if (!quiet)
				fprintf(stderr, "torusd: unexpected argument '%s'\n",
					argv[optind]);
			return -1;
		}
		if (pass == 0 && config[0]) {
			if (absolutize(config, sizeof(config), cwd) ||
			    td_opts_load(o, config, err, sizeof(err))) {
				if (!quiet)
					fprintf(stderr, "torusd: %s\n", err);
				else
					log_err("%s", err);
				return -1;
			}
		}
	}
	if (absolutize(o->config, sizeof(o->config), cwd) ||
	    absolutize(o->pidfile, sizeof(o->pidfile), cwd) ||
	    absolutize(o->statefile, sizeof(o->statefile), cwd) ||
	    td_opts_check(o, err, sizeof(err))) {
		if (!quiet)
			fprintf(stderr, "torusd: %s\n", err[0] ? err :
				"file name too long");
		else
			log_err("%s", err);
		return -1;
	}
	return 0;
}

/* ---- ports and packet sockets ---- */

static int epoll_add(struct torusd *d, int fd, uint64_t tag)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.u64 = tag };

	return epoll_ctl(d->epfd, EPOLL_CTL_ADD, fd, &ev);
}

static int port_open(struct torusd *d, struct td_port *p, uint8_t label)
{
	struct sockaddr_ll sll;
	socklen_t slen = sizeof(sll);
	int fd, one = 1;

	/* protocol 0 until bound: no frames from other devices meanwhile */
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		int e = errno;

		log_err("%s: packet socket: %s%s", p->ifname, strerror(e),
			e == EPERM ? " (torusd needs CAP_NET_RAW)" : "");
		return -e;
	}
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_TORUS);
	sll.sll_ifindex = (int)p->ifindex;
	if (bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		log_err("%s: bind packet socket: %s", p->ifname,
			strerror(errno));
		close(fd);
		return -1;
	}
	/* our own frames never come back to us (kernel >= 4.20) */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	if (d->epfd >= 0 && epoll_add(d, fd, TAG(TAG_PORT, label))) {
		log_err("%s: epoll: %s", p->ifname, strerror(errno));
		close(fd);
		return -1;
	}
	p->fd = fd;
	/* the bound socket's address is the device's MAC address */
	memset(p->mac, 0, sizeof(p->mac));
	if (!getsockname(fd, (struct sockaddr *)&sll, &slen) &&
	    sll.sll_halen == TD_ETH_ALEN)
		memcpy(p->mac, sll.sll_addr, TD_ETH_ALEN);
	return 0;
}

static void port_refresh_mac(struct td_port *p)
{
	struct sockaddr_ll sll;
	socklen_t slen = sizeof(sll);

	if (p->fd >= 0 && !getsockname(p->fd, (struct sockaddr *)&sll, &slen) &&
	    sll.sll_halen == TD_ETH_ALEN)
		memcpy(p->mac, sll.sll_addr, TD_ETH_ALEN);
}

static void port_close(struct torusd *d, struct td_port *p)
{
	if (p->fd >= 0) {
		if (d->epfd >= 0)
			epoll_ctl(d->epfd, EPOLL_CTL_DEL, p->fd, NULL);
		close(p->fd);
	}
	p->fd = -1;
}

static void core_port_state(struct torusd *d, uint8_t label, bool up)
{
	struct td_port *p = &d->ports[label];

	if (p->carrier == up)
		return;
	p->carrier = up;
	log_info("port %s (%s): carrier %s", p->ifname, td_dir_name(label),
		 up ? "up" : "down");
	if (d->node && (d->cfg.ports & (1u << label))) {
		tc_port_state(d->node, label, up);
		d->input = true;
	}
}

/* the axes of the fabric: --axes, else the highest port label's axis + 1 */
static uint8_t board_ndims(const struct torusd *d,
			   const struct td_kport *kp, unsigned int n)
{
	unsigned int i, nd = 0;

	if (d->opts.axes)
		return (uint8_t)d->opts.axes;
	for (i = 0; i < n; i++)
		if (kp[i].label < TC_MAX_PORTS &&
		    TORUS_DIR_AXIS(kp[i].label) + 1u > nd)
			nd = TORUS_DIR_AXIS(kp[i].label) + 1u;
	return (uint8_t)nd;
}

/*
 * Re-read the node's ports from the kernel and bring the table, the
 * packet sockets and the core's carrier states in line.  *@new_labels
 * gets the labels that appeared and the core does not know.  0, or
 * -errno if the dump failed.
 */
int ports_resync(struct torusd *d, uint16_t *new_labels)
{
	struct td_kport kp[TD_MAX_KPORTS];
	bool seen[TC_MAX_PORTS] = { false };
	unsigned int n, i;
	uint8_t ndims;
	int err;

	*new_labels = 0;
	err = td_nl_port_dump(&d->nl, d->ifindex, kp, TD_MAX_KPORTS, &n);
	if (err && err != -E2BIG)
		return err;
	if (err)
		log_warn("%s", d->nl.err);

	ndims = d->node ? d->cfg.ndims : board_ndims(d, kp, n);
	memset(d->kmap, 0, sizeof(d->kmap));
	for (i = 0; i < n; i++) {
		struct td_kport *k = &kp[i];
		struct td_port *p;
		uint8_t label = k->label;

		if (k->master != d->ifindex)
			continue;
		if (k->global_dir < TORUS_MAX_DIRS)
			d->kmap[k->global_dir] = k->ifindex;
		if (label >= TC_MAX_PORTS) {
			log_debug("port %s has no direction label: not used for discovery",
				  k->ifname);
			continue;
		}
		/* without --axes a new axis just rebuilds the core */
		if (TORUS_DIR_AXIS(label) >= ndims &&
		    (d->opts.axes || !d->node)) {
			if (!(d->warned_labels & (1u << label)))
				log_warn("port %s (%s) is beyond the fabric's %u axes: ignored",
					 k->ifname, td_dir_name(label), ndims);
			d->warned_labels |= 1u << label;
			continue;
		}
		if (seen[label]) {
			if (!(d->warned_labels & (1u << label)))
				log_warn("port %s has the label %s of port %s too: ignored",
					 k->ifname, td_dir_name(label),
					 d->ports[label].ifname);
			d->warned_labels |= 1u << label;
			continue;
		}
		seen[label] = true;
		p = &d->ports[label];
		if (p->present && p->ifindex != k->ifindex) {
			log_info("port %s (%s) replaced by %s", p->ifname,
				 td_dir_name(label), k->ifname);
			core_port_state(d, label, false);
			port_close(d, p);
			p->present = false;
		}
		if (!p->present) {
			p->ifindex = k->ifindex;
			snprintf(p->ifname, sizeof(p->ifname), "%s", k->ifname);
			p->carrier = false;
			err = port_open(d, p, label);
			if (err == -EPERM || err == -EACCES)
				return err;
			if (err)
				continue;
			p->present = true;
			log_debug("port %s (%s), ifindex %u, %02x:%02x:%02x:%02x:%02x:%02x",
				  p->ifname, td_dir_name(label), p->ifindex,
				  p->mac[0], p->mac[1], p->mac[2], p->mac[3],
				  p->mac[4], p->mac[5]);
		} else {
			snprintf(p->ifname, sizeof(p->ifname), "%s", k->ifname);
			port_refresh_mac(p);
		}
		core_port_state(d, label, k->carrier);
	}
	for (i = 0; i < TC_MAX_PORTS; i++) {
		struct td_port *p = &d->ports[i];

		if (!p->present || seen[i])
			continue;
		log_info("port %s (%s) is gone", p->ifname,
			 td_dir_name((uint8_t)i));
		core_port_state(d, (uint8_t)i, false);
		port_close(d, p);
		p->present = false;
	}
	/* labels the core was not built with: it has to be rebuilt */
	if (d->node)
		for (i = 0; i < TC_MAX_PORTS; i++)
			if (d->ports[i].present &&
			    !(d->cfg.ports & (1u << i)))
				*new_labels |= (uint16_t)(1u << i);
	return 0;
}

/* ---- the protocol core ---- */

static void core_send(void *ctx, uint8_t label, const uint8_t *msg,
		      size_t len)
{
	static uint8_t buf[TD_FRAME_BUF];
	struct torusd *d = ctx;
	struct td_port *p;
	size_t n;

	if (label >= TC_MAX_PORTS || !d->ports[label].present ||
	    d->ports[label].fd < 0) {
		log_trace("core sent %zu bytes to port %s, which we do not have",
			  len, td_dir_name(label));
		return;
	}
	p = &d->ports[label];
	n = td_frame_build(buf, sizeof(buf), p->mac, msg, len);
	if (!n) {
		log_warn("core message of %zu bytes does not fit a frame", len);
		p->tx_err++;
		return;
	}
	if (send(p->fd, buf, n, MSG_DONTWAIT) < 0) {
		p->tx_err++;
		/* a port without carrier: the core learns it from events */
		if (errno == ENETDOWN || errno == ENXIO || errno == EAGAIN ||
		    errno == ENOBUFS)
			log_trace("%s: send: %s", p->ifname, strerror(errno));
		else
			log_warn("%s: send: %s", p->ifname, strerror(errno));
		return;
	}
	p->tx++;
}

/* Build and start a fresh core for the current ports and settings. */
static int core_start(struct torusd *d)
{
	struct tc_output out = { .ctx = d, .send = core_send };
	struct tc_config cfg;
	struct tc_node *node;
	unsigned int i;
	uint8_t ndims = 0;
	char err[256];
	int ret;

	memset(&cfg, 0, sizeof(cfg));
	cfg.id = d->id;
	if (d->opts.axes) {
		ndims = (uint8_t)d->opts.axes;
	} else {
		for (i = 0; i < TC_MAX_PORTS; i++)
			if (d->ports[i].present &&
			    TORUS_DIR_AXIS(i) + 1u > ndims)
				ndims = (uint8_t)(TORUS_DIR_AXIS(i) + 1u);
	}
	if (!ndims) {
		log_err("%s has no ports with a direction label",
			d->opts.ifname);
		return -1;
	}
	for (i = 0; i < TC_MAX_PORTS; i++)
		if (d->ports[i].present && TORUS_DIR_AXIS(i) < ndims)
			cfg.ports |= (uint16_t)(1u << i);
	if (td_opts_to_config(&d->opts, ndims, &cfg, err, sizeof(err))) {
		log_err("%s", err);
		return -1;
	}

	node = malloc(tc_node_size(&cfg));
	if (!node) {
		log_err("out of memory for the protocol core");
		return -1;
	}
	ret = tc_node_init(node, &cfg, &out);
	if (ret) {
		log_err("the protocol core refused the configuration (%s): id %#" PRIx64 ", %u axes, ports %#x%s",
			strerror(-ret), cfg.id, cfg.ndims, cfg.ports,
			cfg.block_mode ? ", block mode" : "");
		free(node);
		return -1;
	}
	free(d->node);
	d->node = node;
	d->cfg = cfg;
	d->have_view = false;
	for (i = 0; i < TC_MAX_PORTS; i++) {
		if (!(cfg.ports & (1u << i)))
			continue;
		if (d->ports[i].carrier)
			tc_port_state(node, (uint8_t)i, true);
	}
	log_info("discovery on %s: id %#" PRIx64 ", %u axes, %u ports, tick %u ms, hello %u, dead %u, quiet %u ticks%s",
		 d->opts.ifname, cfg.id, cfg.ndims,
		 (unsigned int)__builtin_popcount(cfg.ports), d->opts.tick_ms,
		 cfg.hello_ticks, cfg.dead_ticks, cfg.quiet_ticks,
		 cfg.block_mode ? ", block mode" : "");
	if (cfg.block_mode) {
		char c[64], dm[64];

		td_fmt_coord(c, sizeof(c), cfg.block_coord, cfg.ndims);
		td_fmt_dims(dm, sizeof(dm), cfg.block_dims, 0xff, cfg.ndims);
		log_info("block %" PRIu32 ": the node is at (%s) in a %s block",
			 cfg.block_id, c, dm);
	}
	return 0;
}

/*
 * The kernel still holds a placement from before a restart: start the
 * core in it (its leader, coordinates, extents and port map), so the
 * fabric does not move.  False if it cannot be resumed.
 */
static bool core_resume(struct torusd *d, const struct td_knode *kn)
{
	struct tc_view v;
	unsigned int i, l;
	int err;

	if (!kn->leader || !kn->ndims)
		return false;
	memset(&v, 0, sizeof(v));
	v.leader = kn->leader;
	v.ndims = kn->ndims;
	v.wrap = kn->wrap;
	memcpy(v.coord, kn->coord, sizeof(v.coord));
	memcpy(v.dims, kn->dims, sizeof(v.dims));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	for (i = 0; i < TORUS_MAX_DIRS; i++) {
		if (!d->kmap[i])
			continue;
		for (l = 0; l < TC_MAX_PORTS; l++)
			if (d->ports[l].present &&
			    d->ports[l].ifindex == d->kmap[i])
				v.portmap[i] = (uint8_t)l;
	}
	err = tc_node_restore(d->node, &v);
	if (err)
		log_warn("cannot resume the kernel's placement (%s): discovering anew",
			 strerror(-err));
	return !err;
}

/*
 * Start a fresh core and, when the kernel holds a placement, resume it:
 * start-up, a reload and new port labels all go through here, so none
 * of them renumbers a placed fabric.  A forced rediscovery does not
 * resume.  0, or -1 if the core could not be started.
 */
static int core_restart(struct torusd *d, bool resume)
{
	struct td_knode kn;
	char c[64], dm[96];

	if (core_start(d))
		return -1;
	d->routes.resumed = false;
	if (!resume)
		return 0;
	if (td_nl_node_get(&d->nl, d->ifindex, &kn)) {
		node_gone(d, -EIO);
		return 0;
	}
	if (kn.state != TORUS_STATE_PLACED)
		return 0;
	td_fmt_coord(c, sizeof(c), kn.coord, kn.ndims);
	td_fmt_dims(dm, sizeof(dm), kn.dims, kn.wrap, kn.ndims);
	d->routes.resumed = core_resume(d, &kn);
	if (d->routes.resumed)
		log_notice("%s is placed at (%s) in %s already: discovery resumes from there",
			   d->opts.ifname, c, dm);
	else
		log_notice("%s is placed at (%s) in %s already: it keeps forwarding until discovery completes",
			   d->opts.ifname, c, dm);
	return 0;
}

/*
 * The route computations' worker thread (routes.c, rworker.h), its
 * eventfd in the loop's epoll set; without it (a thread or descriptor
 * refused) routes are computed in the loop, as they were before.
 */
static void routes_worker_start(struct torusd *d)
{
	int fd;

	if (routes_start(d))
		return;
	fd = routes_worker_fd(d);
	if (epoll_add(d, fd, TAG(TAG_ROUTES, 0))) {
		log_warn("routes: epoll: %s: routes are computed in the event loop",
			 strerror(errno));
		routes_stop(d);
	}
}

/* ---- the clock ---- */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tick_ns(const struct torusd *d)
{
	return (uint64_t)d->opts.tick_ms * 1000000ull;
}

/*
 * Run the ticks that are due by the clock.  The core may sleep through
 * many (tc_next_deadline()); they are run at once on waking, which is
 * the same as running them on time since nothing arrived meanwhile.  A
 * loop that stalled well past its timer (a starved or suspended machine)
 * is forgiven the stall rather than aging every neighbor at once.
 */
static void run_due_ticks(struct torusd *d)
{
	uint64_t due = (now_ns() - d->epoch_ns) / tick_ns(d);
	uint64_t limit = d->wake_tick + TD_MAX_CATCHUP;
	uint64_t audit = (uint64_t)td_ms_to_ticks(TD_AUDIT_MS,
						  d->opts.tick_ms);

	if (due > limit) {
		log_debug("the loop stalled for %" PRIu64 " ticks",
			  due - d->wake_tick);
		d->epoch_ns += (due - limit) * tick_ns(d);
		due = limit;
	}
	while (d->node && d->ticks < due) {
		tc_tick(d->node);
		d->ticks++;
		d->input = false;
		if (d->ticks % audit == 0)
			d->need_sync = true;
	}
}

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * Arm the timer for the next tick that has work: the next one after any
 * input, the core's next deadline otherwise (every tick with --no-sleep),
 * and never later than the next audit of the kernel or a retry.
 */
static void arm_next(struct torusd *d)
{
	uint64_t audit = (uint64_t)td_ms_to_ticks(TD_AUDIT_MS,
						  d->opts.tick_ms);
	uint64_t next = d->ticks + 1, at;
	struct itimerspec its;

	if (d->node && d->opts.sleep && !d->input && !d->need_sync &&
	    !d->need_resync)
		next = d->ticks + tc_next_deadline(d->node);
	next = min_u64(next, (d->ticks / audit + 1) * audit);
	if (d->retry_tick)
		next = min_u64(next, d->retry_tick > d->ticks ?
				     d->retry_tick : d->ticks + 1);
	next = min_u64(next, routes_next_tick(d) > d->ticks ?
			     routes_next_tick(d) : d->ticks + 1);
	at = d->epoch_ns + next * tick_ns(d);
	/* armed for that tick already, and it has not fired yet */
	if (next == d->wake_tick && at > now_ns())
		return;
	d->wake_tick = next;
	memset(&its, 0, sizeof(its));
	its.it_value.tv_sec = (time_t)(at / 1000000000ull);
	its.it_value.tv_nsec = (long)(at % 1000000000ull);
	if (timerfd_settime(d->tfd, TFD_TIMER_ABSTIME, &its, NULL))
		log_err("timerfd: %s", strerror(errno));
}

/* ---- event handlers ---- */

static void resync(struct torusd *d)
{
	uint16_t new_labels;
	int err;

	d->need_resync = false;
	err = ports_resync(d, &new_labels);
	if (err) {
		node_gone(d, err);
		d->need_resync = !d->stop;
		return;
	}
	new_labels &= (uint16_t)~d->bad_labels;
	if (new_labels) {
		log_notice("new port labels %#x: restarting discovery (the kernel keeps forwarding meanwhile)",
			   new_labels);
		if (core_restart(d, true)) {
			log_err("discovery goes on without them");
			d->bad_labels |= new_labels;
		}
	}
	d->need_sync = true;
}

/* what the loop does after every batch of events */
static void service(struct torusd *d)
{
	uint64_t before = d->ticks;

	if (d->need_resync)
		resync(d);
	run_due_ticks(d);
	if (!d->node || d->stop)
		return;
	if (d->ticks != before || !d->have_view)
		check_view(d);
	watch_nbrs(d);
	if (d->need_sync || (d->retry_tick && d->ticks >= d->retry_tick))
		kernel_sync(d);
	routes_service(d);
	if (d->state_dirty) {
		d->state_dirty = false;
		write_state(d);
	}
	arm_next(d);
}

static void on_tick(struct torusd *d)
{
	uint64_t expired;

	/* the ticks themselves are counted by the clock in service() */
	if (read(d->tfd, &expired, sizeof(expired)) < 0 && errno != EAGAIN)
		log_debug("timerfd: %s", strerror(errno));
}

/*
 * Does the message just received leave work for the next tick?  Yes if
 * it changed what the core tells its neighbors (tc_next_deadline() says
 * 1), or while a cable is unresolved: a neighbor's table may complete
 * the square that resolves it.  A hello that only says "still here" to
 * a resolved node needs no tick: the node sleeps on.
 */
static bool core_wants_tick(struct torusd *d)
{
	struct tc_nbr_info nb;
	unsigned int l;

	if (tc_next_deadline(d->node) <= 1)
		return true;
	for (l = 0; l < TC_MAX_PORTS; l++) {
		if (!(d->cfg.ports & (1u << l)))
			continue;
		tc_nbr_info(d->node, (uint8_t)l, &nb);
		if (nb.status == TC_NBR_UNRESOLVED)
			return true;
	}
	return false;
}

static void on_port(struct torusd *d, uint8_t label)
{
	static uint8_t buf[TD_FRAME_BUF];
	struct td_port *p = &d->ports[label];
	struct sockaddr_ll sll;
	const uint8_t *msg;
	socklen_t slen;
	ssize_t len;
	size_t mlen;
	int i, err;

	/* the frame arrives at the current tick, not at the last one run */
	run_due_ticks(d);
	for (i = 0; i < TD_RX_BUDGET && p->fd >= 0; i++) {
		slen = sizeof(sll);
		len = recvfrom(p->fd, buf, sizeof(buf), MSG_TRUNC,
			       (struct sockaddr *)&sll, &slen);
		if (len < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return;
			/* the device went away: the dump will tell */
			log_debug("%s: receive: %s", p->ifname,
				  strerror(errno));
			d->need_resync = true;
			return;
		}
		if (sll.sll_pkttype == PACKET_OUTGOING)
			continue;
		if ((size_t)len > sizeof(buf)) {
			p->rx_bad++;
			log_trace("%s: %zd byte frame truncated: dropped",
				  p->ifname, len);
			continue;
		}
		err = td_frame_parse(buf, (size_t)len, &msg, &mlen);
		if (err) {
			p->rx_bad++;
			log_trace("%s: %zd byte frame: %s", p->ifname, len,
				  td_frame_strerror(err));
			continue;
		}
		p->rx++;
		if (!d->node || !(d->cfg.ports & (1u << label)))
			continue;
		if (tc_receive(d->node, label, msg, mlen)) {
			p->rx_bad++;
			log_trace("%s: the core refused a %zu byte message",
				  p->ifname, mlen);
			continue;
		}
		if (!d->input)
			d->input = core_wants_tick(d);
	}
}

/* after recabling: the kernel forwards meanwhile */
static void rediscover(struct torusd *d, const char *why)
{
	log_notice("%s: rediscovering from scratch (the kernel keeps its placement until discovery places the node again)",
		   why);
	if (core_restart(d, false))
		log_err("cannot restart discovery");
	d->need_sync = true;
}

static void on_event(void *arg, const struct td_event *ev)
{
	struct torusd *d = arg;
	unsigned int i;

	if (ev->cmd == TORUS_CMD_NODE_REDISCOVER) {
		if (ev->ifindex == d->ifindex)
			rediscover(d, "torus node rediscover");
		return;
	}
	if (ev->cmd == TORUS_CMD_NODE_EVENT) {
		if (ev->ifindex == d->ifindex)
			d->need_sync = true;
		return;
	}
	if (!ev->has_port)
		return;
	if (ev->ifindex == d->ifindex || ev->port.master == d->ifindex) {
		d->need_resync = true;
		return;
	}
	/* a port released from our node carries no master any more */
	for (i = 0; i < TC_MAX_PORTS; i++)
		if (d->ports[i].present &&
		    d->ports[i].ifindex == ev->port.ifindex)
			d->need_resync = true;
}

static void on_netlink(struct torusd *d)
{
	int err;

	run_due_ticks(d);
	err = td_nl_events(&d->nl, on_event, d);
	if (err == -ENOBUFS) {
		log_warn("netlink events were lost: resyncing from a dump");
		d->need_resync = true;
		d->need_sync = true;
	} else if (err) {
		log_warn("%s", d->nl.err);
	}
	/* carrier changes reach the core at once, not at the next tick */
	if (d->need_resync) {
		resync(d);
		d->input = true;
	}
}

/*
 * A query on the daemon's socket (/run/torusd/ctl-NETNS-DEV, per node
 * device and network namespace; lib/ctlsock.h): "neighbors" is answered
 * with the neighbor table, one line per port, "stats" with the loop's
 * wake-ups (all, and by the timer) and ticks, "path COORD" with the
 * route to COORD hop by hop (routes.c).  These only read, and are
 * answered to whoever may open the socket (mode 0660: root and the
 * daemon's group); any other request is refused to a sender that is
 * neither root nor the daemon's user (its credentials come with the
 * datagram), so a request that changes state is the privileged's alone.
 */
static void on_ctrl(struct torusd *d)
{
	struct td_state_nbr nbrs[TC_MAX_PORTS];
	struct td_state_info si;
	struct sockaddr_un from;
	struct torusd_cred cred;
	socklen_t flen;
	char req[64], *out = NULL;
	size_t olen = 0;
	ssize_t n;
	FILE *f;

	for (;;) {
		flen = sizeof(from);
		n = torusd_ctl_recv(d->lockfd, req, sizeof(req), &from, &flen,
				    &cred);
		if (n < 0)
			return;
		req[strcspn(req, "\n")] = '\0';
		f = open_memstream(&out, &olen);
		if (!f)
			return;
		if (!strcmp(req, "neighbors")) {
			fprintf(f, "ok\n");
			state_info(d, &si, nbrs);
			td_state_nbr_text(f, &si);
		} else if (!strncmp(req, "path ", 5)) {
			routes_path_reply(d, req + 5, f);
		} else if (!strcmp(req, "stats")) {
			fprintf(f, "ok\nwakeups=%" PRIu64 " timer_wakeups=%" PRIu64
				" ticks=%" PRIu64 " sleep=%s\n", d->wakeups,
				d->timer_wakeups, d->ticks,
				d->opts.sleep ? "yes" : "no");
		} else if (!torusd_ctl_privileged(&cred)) {
			log_debug("control socket: request from pid %d, uid %d refused",
				 (int)cred.pid, (int)cred.uid);
			fprintf(f, "error permission denied\n");
		} else {
			fprintf(f, "error unknown request '%s'\n", req);
		}
		fclose(f);
		if (flen > sizeof(sa_family_t) &&
		    sendto(d->lockfd, out, olen, MSG_DONTWAIT,
			   (struct sockaddr *)&from, flen) < 0)
			log_debug("query reply: %s", strerror(errno));
		free(out);
		out = NULL;
	}
}

static void reload(struct torusd *d)
{
	struct td_opts o, old = d->opts;
	bool restart;

	log_info("SIGHUP: re-reading the settings");
	/* a computation under way is joined, thrown away and made again */
	routes_stop(d);
	routes_worker_start(d);
	if (parse_settings(&o, d->argc, d->argv, d->cwd, true)) {
		log_err("settings unchanged");
		return;
	}
	if (strcmp(o.ifname, old.ifname)) {
		log_warn("the node device cannot change (%s): restart torusd",
			 o.ifname);
		snprintf(o.ifname, sizeof(o.ifname), "%s", old.ifname);
	}
	/* these are fixed at start */
	o.foreground = old.foreground;
	memcpy(o.pidfile, old.pidfile, sizeof(o.pidfile));
	d->opts = o;
	td_log_set_debug(o.debug);

	/* the clock keeps its count of ticks at the new length */
	if (o.tick_ms != old.tick_ms) {
		d->epoch_ns = now_ns() - d->ticks * tick_ns(d);
		d->wake_tick = 0;
	}
	d->id = o.id ? o.id : d->auto_id;
	restart = o.id != old.id || o.tick_ms != old.tick_ms ||
		  o.hello_ms != old.hello_ms || o.dead_ms != old.dead_ms ||
		  o.quiet_ms != old.quiet_ms || o.orient_ms != old.orient_ms ||
		  o.axes != old.axes || o.block_id != old.block_id ||
		  o.block_ncoord != old.block_ncoord ||
		  o.block_ndims != old.block_ndims ||
		  memcmp(o.block_coord, old.block_coord,
			 sizeof(o.block_coord)) ||
		  memcmp(o.block_dims, old.block_dims, sizeof(o.block_dims));
	resync(d);
	if (restart) {
		log_notice("settings changed: restarting discovery (the kernel keeps forwarding meanwhile)");
		/* as at start-up: a placed kernel is resumed, not renumbered */
		if (core_restart(d, true)) {
			log_err("keeping the previous settings");
			d->opts = old;
			d->id = old.id ? old.id : d->auto_id;
			d->epoch_ns = now_ns() - d->ticks * tick_ns(d);
			d->wake_tick = 0;
			if (core_restart(d, true))
				log_err("no discovery: the previous settings fail too");
		}
	}
	d->need_sync = true;
}

static void on_signal(struct torusd *d)
{
	struct signalfd_siginfo si;

	while (read(d->sfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGTERM:
		case SIGINT:
			log_info("%s: exiting; the kernel keeps its placement, the plan addresses go",
				 strsignal((int)si.ssi_signo));
			d->stop = true;
			break;
		case SIGHUP:
			td_notify("RELOADING=1");
			reload(d);
			d->ready_sent = false;
			notify_status(d);
			break;
		case SIGUSR1:
			rediscover(d, "SIGUSR1");
			break;
		}
	}
}

/* ---- start and stop ---- */

/*
 * One daemon per node device and network namespace: the control socket
 * /run/torusd/ctl-NETNS-DEV, under a lock only a running daemon holds
 * (lib/ctlsock.h), is both the guard and where queries arrive.
 */
static int take_lock(struct torusd *d)
{
	char err[256] = "";
	int fd;

	fd = torusd_ctl_listen(TORUSD_RUN_DIR, d->opts.ifname, &d->ctl_lockfd,
			       err, sizeof(err));
	if (fd == -EADDRINUSE) {
		log_err("another torusd runs on %s in this network namespace (%s)",
			d->opts.ifname, err);
		return -1;
	}
	if (fd == -EPERM) {
		log_err("control socket: %s", err);
		return -1;
	}
	if (fd < 0) {
		/* no queries and no guard: not fatal, as without /run */
		log_warn("control socket: %s", err);
		return 0;
	}
	torusd_ctl_path(TORUSD_RUN_DIR, d->opts.ifname, false, d->ctl_path,
			sizeof(d->ctl_path));
	d->lockfd = fd;
	return 0;
}

static int write_pidfile(struct torusd *d)
{
	char buf[32];
	int fd, n;

	if (!d->opts.pidfile[0])
		return 0;
	fd = open(d->opts.pidfile, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW,
		  0644);
	if (fd < 0) {
		log_err("pidfile %s: %s", d->opts.pidfile, strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB)) {
		log_err("pidfile %s is locked: is torusd running already?",
			d->opts.pidfile);
		close(fd);
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) || write(fd, buf, (size_t)n) != n) {
		log_err("pidfile %s: %s", d->opts.pidfile, strerror(errno));
		close(fd);
		return -1;
	}
	d->pidfd = fd;
	return 0;
}

static uint64_t derive_id(struct torusd *d, const struct td_knode *kn)
{
	uint8_t macs[TC_MAX_PORTS][TD_ETH_ALEN];
	unsigned int i, n = 0;

	if (kn->id) {
		log_debug("node id %#" PRIx64 " from the kernel", kn->id);
		return kn->id;
	}
	for (i = 0; i < TC_MAX_PORTS; i++)
		if (d->ports[i].present)
			memcpy(macs[n++], d->ports[i].mac, TD_ETH_ALEN);
	if (!n)
		return 0;
	log_debug("node id from the MAC addresses of %u ports", n);
	return td_mac_id(macs, n);
}

static int setup(struct torusd *d)
{
	struct td_knode kn;
	uint16_t new_labels;
	int err;

	d->ifindex = if_nametoindex(d->opts.ifname);
	if (!d->ifindex) {
		log_err("%s: %s", d->opts.ifname, strerror(errno));
		return -1;
	}
	if (take_lock(d))
		return -1;
	if (td_nl_open(&d->nl)) {
		log_err("%s", d->nl.err);
		return -1;
	}
	err = td_nl_node_get(&d->nl, d->ifindex, &kn);
	if (err) {
		log_err("%s: %s", d->opts.ifname, d->nl.err);
		return -1;
	}
	err = ports_resync(d, &new_labels);
	if (err == -EPERM || err == -EACCES)
		return -1;	/* said by port_open() */
	if (err) {
		log_err("%s: %s", d->opts.ifname, d->nl.err);
		return -1;
	}

	d->auto_id = derive_id(d, &kn);
	d->id = d->opts.id ? d->opts.id : d->auto_id;
	if (!d->id) {
		log_err("no node id: %s has no ports and no id; give --id",
			d->opts.ifname);
		return -1;
	}
	if (core_restart(d, true))
		return -1;

	if (kn.state != TORUS_STATE_PLACED) {
		struct td_node_req r = {
			.id = d->id,
			.state = TORUS_STATE_DISCOVERING,
			.role = TORUS_ROLE_NONE,
			.reason = "",
		};

		if (td_nl_node_set(&d->nl, d->ifindex, &r)) {
			log_err("%s: %s", d->opts.ifname, d->nl.err);
			return -1;
		}
	}

	return 0;
}

/*
 * Detach, but let the parent return only when the child is ready (or
 * has failed and said why on the stderr they share): whoever started
 * torusd learns the outcome from its exit status.
 */
static int daemonize(struct torusd *d)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) || fcntl(fds[0], F_SETFD, FD_CLOEXEC) ||
	    fcntl(fds[1], F_SETFD, FD_CLOEXEC)) {
		log_err("pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		log_err("fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	if (pid > 0) {
		uint8_t status = 1;
		ssize_t n;

		close(fds[1]);
		do {
			n = read(fds[0], &status, 1);
		} while (n < 0 && errno == EINTR);
		/* EOF without a status: the child died before it was ready */
		_exit(n == 1 ? status : 1);
	}
	close(fds[0]);
	d->readyfd = fds[1];
	if (setsid() < 0)
		log_warn("setsid: %s", strerror(errno));
	if (chdir("/"))
		log_warn("chdir /: %s", strerror(errno));
	return 0;
}

/* tell the waiting parent (if any) how start-up ended, then detach */
static void report_ready(struct torusd *d, uint8_t status)
{
	int fd;

	if (d->readyfd < 0)
		return;
	if (write(d->readyfd, &status, 1) != 1)
		log_warn("cannot report readiness: %s", strerror(errno));
	close(d->readyfd);
	d->readyfd = -1;
	if (status)
		return;
	fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	td_log_daemonized();
}

/*
 * The loop's descriptors, made after forking: a signalfd polled through
 * an epoll set created before a fork would not wake the child.
 */
static int setup_loop(struct torusd *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	d->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->sfd < 0 || d->tfd < 0 || d->epfd < 0) {
		log_err("event loop: %s", strerror(errno));
		return -1;
	}
	if (epoll_add(d, d->tfd, TAG(TAG_TIMER, 0)) ||
	    epoll_add(d, d->sfd, TAG(TAG_SIGNAL, 0)) ||
	    epoll_add(d, td_nl_event_fd(&d->nl), TAG(TAG_NETLINK, 0)) ||
	    (d->lockfd >= 0 && epoll_add(d, d->lockfd, TAG(TAG_CTRL, 0)))) {
		log_err("epoll: %s", strerror(errno));
		return -1;
	}
	for (unsigned int i = 0; i < TC_MAX_PORTS; i++) {
		struct td_port *p = &d->ports[i];

		if (p->fd >= 0 && epoll_add(d, p->fd, TAG(TAG_PORT, i))) {
			log_err("epoll: %s", strerror(errno));
			return -1;
		}
	}
	d->epoch_ns = now_ns();
	d->ticks = 0;
	d->wake_tick = 0;
	/* events may have come between the dump and the subscription */
	d->need_resync = true;
	return 0;
}

static void teardown(struct torusd *d)
{
	unsigned int i;

	/* a clean exit takes the plan addresses away (install.c) */
	if (d->stop && !d->exit_code && d->opts.addresses && d->nl.req)
		kernel_sync(d);
	for (i = 0; i < TC_MAX_PORTS; i++)
		port_close(d, &d->ports[i]);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->sfd >= 0)
		close(d->sfd);
	if (d->lockfd >= 0) {
		/* still under the lock: nobody else's socket */
		if (d->ctl_path[0])
			unlink(d->ctl_path);
		close(d->lockfd);
	}
	if (d->ctl_lockfd >= 0)
		close(d->ctl_lockfd);
	if (d->pidfd >= 0) {
		unlink(d->opts.pidfile);
		close(d->pidfd);
	}
	/* the view dies with the daemon; the kernel's state stays */
	if (d->opts.statefile[0] && d->have_view)
		unlink(d->opts.statefile);
	routes_stop(d);
	td_nl_close(&d->nl);
	free(d->node);
	d->node = NULL;
	routes_free(d);
}

static void run(struct torusd *d)
{
	struct epoll_event evs[32];
	int n, i;

	while (!d->stop) {
		service(d);
		if (d->stop)
			break;
		n = epoll_wait(d->epfd, evs, 32, -1);
		d->wakeups++;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			log_err("epoll_wait: %s", strerror(errno));
			d->exit_code = 1;
			return;
		}
		for (i = 0; i < n && !d->stop; i++) {
			uint64_t tag = evs[i].data.u64;

			switch (TAG_KIND(tag)) {
			case TAG_TIMER:
				d->timer_wakeups++;
				on_tick(d);
				break;
			case TAG_SIGNAL:
				on_signal(d);
				break;
			case TAG_NETLINK:
				on_netlink(d);
				break;
			case TAG_PORT:
				on_port(d, TAG_LABEL(tag));
				break;
			case TAG_CTRL:
				on_ctrl(d);
				break;
			case TAG_ROUTES:
				/* installed by routes_service() */
				routes_collect(d);
				break;
			}
		}
	}
}

int main(int argc, char **argv)
{
	static struct torusd daemon_state;
	struct torusd *d = &daemon_state;
	sigset_t mask;
	unsigned int i;
	int ret;

	d->argc = argc;
	d->argv = argv;
	d->epfd = d->tfd = d->sfd = d->lockfd = d->pidfd = d->readyfd = -1;
	d->ctl_lockfd = -1;
	for (i = 0; i < TC_MAX_PORTS; i++)
		d->ports[i].fd = -1;
	if (!getcwd(d->cwd, sizeof(d->cwd)))
		strcpy(d->cwd, "/");

	ret = parse_settings(&d->opts, argc, argv, d->cwd, false);
	if (ret > 0)
		return 0;
	if (ret < 0) {
		fprintf(stderr, "Try 'torusd --help'.\n");
		return 2;
	}
	td_log_init("torusd", d->opts.foreground, d->opts.debug);

	/* signals are read from a signalfd, never delivered */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGUSR1);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (setup(d)) {
		teardown(d);
		return 1;
	}
	if (!d->opts.foreground && daemonize(d)) {
		teardown(d);
		return 1;
	}
	if (setup_loop(d) || write_pidfile(d)) {
		report_ready(d, 1);
		teardown(d);
		return 1;
	}
	/*
	 * Quiet when there is nothing to drop (the unit's dynamic user has
	 * just the two) or the bounding set is not ours to change: only a
	 * capset that fails leaves us with more than we need.
	 */
	ret = td_caps_drop();
	if (ret)
		log_warn("cannot drop capabilities but CAP_NET_ADMIN and CAP_NET_RAW: %s",
			 strerror(-ret));
	/* after the drop: a thread keeps the capabilities it was made with */
	routes_worker_start(d);
	log_info("torusd %s running on %s (ifindex %u)", TORUSD_VERSION,
		 d->opts.ifname, d->ifindex);
	report_ready(d, 0);
	run(d);
	td_notify("STOPPING=1");
	teardown(d);
	log_info("torusd exits after %" PRIu64 " wake-ups in %" PRIu64 " ticks",
		 d->wakeups, d->ticks);
	td_log_close();
	return d->exit_code;
}
