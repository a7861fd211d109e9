// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * torusd - the torus fabric discovery daemon
 *
 * One daemon per node device.  It wraps the sans-I/O protocol core
 * (daemon/core) in one epoll loop that owns every descriptor: a timerfd
 * for the core's clock tick, one AF_PACKET socket per port for control
 * frames, a generic netlink socket for the module's events and a
 * signalfd.  Whenever the core's view changes the result is installed
 * into torus.ko (node id, coordinates, extents, wrap flags, state, role
 * and the port map) and only what differs from the kernel is rewritten,
 * so the daemon can be restarted without disturbing forwarding.
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
#include "log.h"
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
"              [--pidfile FILE] [--state-file FILE]\n"
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
"  -h, --help            this text\n"
"  -V, --version         the version\n"
"\n"
"Needs CAP_NET_ADMIN and CAP_NET_RAW.  See torusd(8).\n",
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

/* ---- printing ---- */

static void fmt_coord(char *buf, size_t len, const uint8_t *v, unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
					i ? "," : "", v[i]);
}

static void fmt_dims(char *buf, size_t len, const uint16_t *v, uint8_t wrap,
		     unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u%s",
					i ? "x" : "", v[i],
					wrap & (1u << i) ? "" : "(mesh)");
}

static void fmt_portmap(const struct torusd *d, const struct tc_view *v,
			char *buf, size_t len)
{
	size_t off = 0;
	unsigned int dir;

	buf[0] = '\0';
	for (dir = 0; dir < TC_MAX_PORTS && off < len; dir++) {
		uint8_t label = v->portmap[dir];

		if (label >= TC_MAX_PORTS)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s=%s",
					off ? " " : "",
					td_dir_name((uint8_t)dir),
					d->ports[label].present ?
					d->ports[label].ifname : "?");
	}
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
	if (d->node && (d->cfg.ports & (1u << label)))
		tc_port_state(d->node, label, up);
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
static int ports_resync(struct torusd *d, uint16_t *new_labels)
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

		fmt_coord(c, sizeof(c), cfg.block_coord, cfg.ndims);
		fmt_dims(dm, sizeof(dm), cfg.block_dims, 0xff, cfg.ndims);
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

/* ---- the kernel ---- */

static bool kernel_matches(const struct torusd *d, const struct td_knode *kn,
			   const struct td_node_req *r,
			   const uint32_t map[TORUS_MAX_DIRS])
{
	unsigned int i;

	if (kn->state != r->state || kn->id != r->id || kn->role != r->role ||
	    (r->leader && kn->leader != r->leader))
		return false;
	if (r->reason && strncmp(kn->reason, r->reason, TC_REASON_LEN - 1))
		return false;
	if (!r->geom)
		return true;
	if (kn->ndims != r->ndims || kn->wrap != r->wrap)
		return false;
	for (i = 0; i < r->ndims; i++)
		if (kn->coord[i] != r->coord[i] || kn->dims[i] != r->dims[i])
			return false;
	return !memcmp(map, d->kmap, sizeof(d->kmap));
}

static void write_state(struct torusd *d)
{
	struct td_state_info si;
	unsigned int i;
	int err;

	if (!d->opts.statefile[0] || !d->have_view)
		return;
	memset(&si, 0, sizeof(si));
	si.ifname = d->opts.ifname;
	si.id = d->id;
	si.view = &d->view;
	si.installed = d->installed;
	for (i = 0; i < TC_MAX_PORTS; i++)
		if (d->ports[i].present)
			si.port_names[i] = d->ports[i].ifname;
	err = td_state_write(d->opts.statefile, &si);
	if (err)
		log_warn("state file %s: %s", d->opts.statefile,
			 strerror(-err));
}

static void fatal_node_gone(struct torusd *d, int err)
{
	if (err == -EPERM || err == -EACCES)
		return;		/* a packet socket: said already */
	log_err("%s: %s", d->opts.ifname, d->nl.err);
	if (err == -ENODEV || err == -EOPNOTSUPP) {
		log_err("node device %s is gone: exiting", d->opts.ifname);
		d->stop = true;
		d->exit_code = 1;
	}
}

/*
 * Make the kernel hold what the core's view says, touching only what
 * differs.  A kernel that is placed (by us, or by a torusd before a
 * restart) keeps forwarding until the core is placed again or fails.
 */
static void kernel_sync(struct torusd *d)
{
	const struct tc_view *v = &d->view;
	uint32_t map[TORUS_MAX_DIRS] = { 0 };
	char reason[TC_REASON_LEN];
	struct td_node_req r;
	struct td_knode kn;
	uint16_t new_labels;
	unsigned int i;
	int err;

	d->need_sync = false;
	d->retry_tick = 0;
	if (!d->have_view)
		return;
	err = td_nl_node_get(&d->nl, d->ifindex, &kn);
	if (err) {
		fatal_node_gone(d, err);
		goto retry;
	}
	err = ports_resync(d, &new_labels);
	if (err) {
		fatal_node_gone(d, err);
		goto retry;
	}
	if (new_labels & ~d->bad_labels) {
		/* picked up by the tick: the core is rebuilt there */
		d->need_resync = true;
	}

	memcpy(reason, v->reason, TC_REASON_LEN);
	reason[TC_REASON_LEN - 1] = '\0';
	memset(&r, 0, sizeof(r));
	r.id = d->id;
	r.state = v->state;
	r.role = v->role;
	switch (v->state) {
	case TC_PLACED:
		r.reason = "";
		r.leader = v->leader;
		r.geom = true;
		r.ndims = v->ndims;
		for (i = 0; i < v->ndims && i < TC_MAX_AXES; i++) {
			r.coord[i] = v->coord[i];
			r.dims[i] = v->dims[i];
		}
		r.wrap = (uint8_t)(v->wrap & ((1u << r.ndims) - 1));
		for (i = 0; i < TORUS_MAX_DIRS; i++) {
			uint8_t label = v->portmap[i];

			if (label >= TC_MAX_PORTS)
				continue;
			if (!d->ports[label].present) {
				log_warn("port map: %s is served by port %s, which the node lacks",
					 td_dir_name((uint8_t)i),
					 td_dir_name(label));
				continue;
			}
			map[i] = d->ports[label].ifindex;
		}
		break;
	case TC_FAILED:
		/*
		 * A placed core never fails (placement is sticky), so this
		 * is a restart that has not found the fabric again: do not
		 * stop a kernel that forwards.
		 */
		if (kn.state == TORUS_STATE_PLACED) {
			log_info("kernel keeps its placement although discovery failed (%s)",
				 reason);
			return;
		}
		r.role = TORUS_ROLE_NONE;
		r.reason = reason;
		break;
	default:
		if (kn.state == TORUS_STATE_PLACED) {
			log_debug("kernel keeps its placement while discovery runs (%s)",
				  td_state_name(v->state));
			return;
		}
		r.reason = reason;
		break;
	}

	if (kernel_matches(d, &kn, &r, map)) {
		if (v->state == TC_PLACED && !d->installed) {
			log_info("the kernel already holds this placement: nothing to install");
			d->installed = true;
			d->state_dirty = true;
		}
		return;
	}

	if (v->state == TC_PLACED) {
		char c[64], dm[96], pm[200];

		/* the map first: coordinates never go live without it */
		if (memcmp(map, d->kmap, sizeof(map))) {
			err = td_nl_portmap_set(&d->nl, d->ifindex, map);
			if (err) {
				log_err("%s: %s", d->opts.ifname, d->nl.err);
				goto retry;
			}
		}
		err = td_nl_node_set(&d->nl, d->ifindex, &r);
		if (err) {
			log_err("%s: %s", d->opts.ifname, d->nl.err);
			goto retry;
		}
		memcpy(d->kmap, map, sizeof(map));
		fmt_coord(c, sizeof(c), r.coord, r.ndims);
		fmt_dims(dm, sizeof(dm), r.dims, r.wrap, r.ndims);
		fmt_portmap(d, v, pm, sizeof(pm));
		log_notice("installed %s: coordinates (%s) in %s, role %s, port map %s",
			   d->opts.ifname, c, dm, td_role_name(r.role), pm);
		d->installed = true;
	} else {
		err = td_nl_node_set(&d->nl, d->ifindex, &r);
		if (err) {
			log_err("%s: %s", d->opts.ifname, d->nl.err);
			goto retry;
		}
		if (v->state == TC_FAILED)
			log_notice("installed %s: state failed (%s)",
				   d->opts.ifname, reason);
		else
			log_debug("installed %s: state %s", d->opts.ifname,
				  td_state_name(v->state));
		d->installed = false;
	}
	d->state_dirty = true;
	return;

retry:
	if (!d->stop)
		d->retry_tick = d->ticks +
			td_ms_to_ticks(TD_RETRY_MS, d->opts.tick_ms);
}

static void view_changed(struct torusd *d, const struct tc_view *old,
			 bool had)
{
	const struct tc_view *v = &d->view;
	char c[64], dm[96], pm[200];

	if (!had || old->state != v->state || old->role != v->role ||
	    old->leader != v->leader) {
		if (v->state == TC_PLACED) {
			fmt_coord(c, sizeof(c), v->coord, v->ndims);
			fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
			log_notice("placed: (%s) in %s, role %s, leader %#" PRIx64,
				   c, dm, td_role_name(v->role), v->leader);
		} else if (v->state == TC_FAILED) {
			log_notice("discovery failed: %.*s", TC_REASON_LEN,
				   v->reason);
		} else {
			log_info("%s%s%.*s%s, role %s, leader %#" PRIx64,
				 td_state_name(v->state),
				 v->reason[0] ? " (" : "", TC_REASON_LEN,
				 v->reason, v->reason[0] ? ")" : "",
				 td_role_name(v->role), v->leader);
		}
	} else if (v->state == TC_PLACED) {
		fmt_coord(c, sizeof(c), v->coord, v->ndims);
		fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
		log_notice("placement changed: (%s) in %s", c, dm);
	}
	if (v->state == TC_ORIENTED || v->state == TC_PLACED) {
		fmt_portmap(d, v, pm, sizeof(pm));
		log_debug("port map: %s", pm);
	}
}

static void check_view(struct torusd *d)
{
	struct tc_view old = d->view;
	bool had = d->have_view;

	tc_view(d->node, &d->view);
	if (had && d->view.generation == old.generation)
		return;
	d->have_view = true;
	d->state_dirty = true;
	view_changed(d, &old, had);
	if (d->view.state != TC_PLACED)
		d->installed = false;
	kernel_sync(d);
}

/* ---- event handlers ---- */

static void resync(struct torusd *d)
{
	uint16_t new_labels;
	int err;

	d->need_resync = false;
	err = ports_resync(d, &new_labels);
	if (err) {
		fatal_node_gone(d, err);
		d->need_resync = !d->stop;
		return;
	}
	new_labels &= (uint16_t)~d->bad_labels;
	if (new_labels) {
		log_notice("new port labels %#x: restarting discovery (the kernel keeps forwarding meanwhile)",
			   new_labels);
		if (core_start(d)) {
			log_err("discovery goes on without them");
			d->bad_labels |= new_labels;
		}
	}
	d->need_sync = true;
}

static void on_tick(struct torusd *d)
{
	uint64_t expired = 0, i;

	if (read(d->tfd, &expired, sizeof(expired)) != sizeof(expired))
		return;
	if (expired > TD_MAX_CATCHUP) {
		log_debug("the loop stalled for %" PRIu64 " ticks", expired);
		expired = TD_MAX_CATCHUP;
	}
	if (d->need_resync)
		resync(d);
	for (i = 0; i < expired && d->node; i++) {
		tc_tick(d->node);
		d->ticks++;
		if (d->ticks % (uint64_t)td_ms_to_ticks(TD_AUDIT_MS,
						 d->opts.tick_ms) == 0)
			d->need_sync = true;
	}
	if (!d->node)
		return;
	check_view(d);
	if (d->need_sync || (d->retry_tick && d->ticks >= d->retry_tick))
		kernel_sync(d);
	if (d->state_dirty) {
		d->state_dirty = false;
		write_state(d);
	}
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
		}
	}
}

static void on_event(void *arg, const struct td_event *ev)
{
	struct torusd *d = arg;
	unsigned int i;

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
	int err = td_nl_events(&d->nl, on_event, d);

	if (err == -ENOBUFS) {
		log_warn("netlink events were lost: resyncing from a dump");
		d->need_resync = true;
		d->need_sync = true;
	} else if (err) {
		log_warn("%s", d->nl.err);
	}
	/* carrier changes reach the core at once, not at the next tick */
	if (d->need_resync)
		resync(d);
}

static int arm_timer(struct torusd *d)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	its.it_interval.tv_sec = d->opts.tick_ms / 1000;
	its.it_interval.tv_nsec = (long)(d->opts.tick_ms % 1000) * 1000000L;
	its.it_value = its.it_interval;
	return timerfd_settime(d->tfd, 0, &its, NULL);
}

static void reload(struct torusd *d)
{
	struct td_opts o, old = d->opts;
	bool restart;

	log_info("SIGHUP: re-reading the settings");
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

	if (o.tick_ms != old.tick_ms && arm_timer(d))
		log_err("timerfd: %s", strerror(errno));
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
		if (core_start(d)) {
			log_err("keeping the previous settings");
			d->opts = old;
			d->id = old.id ? old.id : d->auto_id;
			if (arm_timer(d))
				log_err("timerfd: %s", strerror(errno));
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
			log_info("%s: exiting; the kernel keeps its state",
				 strsignal((int)si.ssi_signo));
			d->stop = true;
			break;
		case SIGHUP:
			reload(d);
			break;
		}
	}
}

/* ---- start and stop ---- */

/* one daemon per node device and network namespace */
static int take_lock(struct torusd *d)
{
	struct sockaddr_un sun;
	socklen_t len;
	int fd, n;

	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;	/* no guard, not fatal */
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	/* abstract names are per network namespace */
	n = snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1,
		     "torusd/%s", d->opts.ifname);
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	if (bind(fd, (struct sockaddr *)&sun, len)) {
		int e = errno;

		close(fd);
		if (e == EADDRINUSE) {
			log_err("another torusd runs on %s in this network namespace",
				d->opts.ifname);
			return -1;
		}
		return 0;
	}
	d->lockfd = fd;
	return 0;
}

static int write_pidfile(struct torusd *d)
{
	char buf[32];
	int fd, n;

	if (!d->opts.pidfile[0])
		return 0;
	fd = open(d->opts.pidfile, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
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
	if (core_start(d))
		return -1;

	if (kn.state == TORUS_STATE_PLACED) {
		char c[64], dm[96];

		fmt_coord(c, sizeof(c), kn.coord, kn.ndims);
		fmt_dims(dm, sizeof(dm), kn.dims, kn.wrap, kn.ndims);
		if (core_resume(d, &kn))
			log_notice("%s is placed at (%s) in %s already: discovery resumes from there",
				   d->opts.ifname, c, dm);
		else
			log_notice("%s is placed at (%s) in %s already: it keeps forwarding until discovery completes",
				   d->opts.ifname, c, dm);
	} else {
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
 * The loop's descriptors, made after daemon(): a signalfd polled through
 * an epoll set created before a fork would not wake the child.
 */
static int setup_loop(struct torusd *d)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	d->sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	d->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	d->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (d->sfd < 0 || d->tfd < 0 || d->epfd < 0 || arm_timer(d)) {
		log_err("event loop: %s", strerror(errno));
		return -1;
	}
	if (epoll_add(d, d->tfd, TAG(TAG_TIMER, 0)) ||
	    epoll_add(d, d->sfd, TAG(TAG_SIGNAL, 0)) ||
	    epoll_add(d, td_nl_event_fd(&d->nl), TAG(TAG_NETLINK, 0))) {
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
	/* events may have come between the dump and the subscription */
	d->need_resync = true;
	return 0;
}

static void teardown(struct torusd *d)
{
	unsigned int i;

	for (i = 0; i < TC_MAX_PORTS; i++)
		port_close(d, &d->ports[i]);
	if (d->epfd >= 0)
		close(d->epfd);
	if (d->tfd >= 0)
		close(d->tfd);
	if (d->sfd >= 0)
		close(d->sfd);
	if (d->lockfd >= 0)
		close(d->lockfd);
	if (d->pidfd >= 0) {
		unlink(d->opts.pidfile);
		close(d->pidfd);
	}
	/* the view dies with the daemon; the kernel's state stays */
	if (d->opts.statefile[0] && d->have_view)
		unlink(d->opts.statefile);
	td_nl_close(&d->nl);
	free(d->node);
	d->node = NULL;
}

static void run(struct torusd *d)
{
	struct epoll_event evs[32];
	int n, i;

	while (!d->stop) {
		n = epoll_wait(d->epfd, evs, 32, -1);
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
	d->epfd = d->tfd = d->sfd = d->lockfd = d->pidfd = -1;
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
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);

	if (setup(d)) {
		teardown(d);
		return 1;
	}
	if (!d->opts.foreground) {
		if (daemon(0, 0)) {
			log_err("daemon: %s", strerror(errno));
			teardown(d);
			return 1;
		}
		td_log_daemonized();
	}
	if (setup_loop(d) || write_pidfile(d)) {
		teardown(d);
		return 1;
	}
	ret = td_caps_drop();
	if (ret)
		log_warn("cannot drop capabilities: %s", strerror(-ret));
	log_info("torusd %s running on %s (ifindex %u)", TORUSD_VERSION,
		 d->opts.ifname, d->ifindex);
	run(d);
	teardown(d);
	td_log_close();
	return d->exit_code;
}
