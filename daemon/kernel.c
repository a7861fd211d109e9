// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * kernel.c - torusd's side of torus.ko: what the core's view becomes in
 * the kernel.  The decision is install.c's (pure); here the kernel's
 * state, the ports, the cables and the addresses are read, the plan is
 * carried out and logged, and the state file and neighbor table are
 * filled.  A node device or module that went away ends the daemon.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "holdoff.h"
#include "notify.h"
#include "statefile.h"
#include "torusd.h"

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

/* the view and the neighbor table, for the state file and queries */
void state_info(struct torusd *d, struct td_state_info *si,
		struct td_state_nbr *nbrs)
{
	unsigned int l, g;

	memset(si, 0, sizeof(*si));
	memset(nbrs, 0, sizeof(*nbrs) * TC_MAX_PORTS);
	si->ifname = d->opts.ifname;
	si->id = d->id;
	si->view = &d->view;
	si->installed = d->installed;
	if (d->routes.info.computed)
		si->routes = &d->routes.info;
	si->nbrs = nbrs;
	for (l = 0; l < TC_MAX_PORTS; l++) {
		struct td_state_nbr *n = &nbrs[l];

		if (!d->ports[l].present)
			continue;
		si->port_names[l] = d->ports[l].ifname;
		n->present = true;
		n->ifname = d->ports[l].ifname;
		n->dir = n->want = TORUS_DIR_NONE;
		if (d->node)
			tc_nbr_info(d->node, (uint8_t)l, &n->nbr);
		for (g = 0; g < TORUS_MAX_DIRS; g++) {
			if (d->kmap[g] == d->ports[l].ifindex)
				n->dir = (uint8_t)g;
			if (d->have_view && d->view.portmap[g] == l &&
			    (d->view.state == TC_ORIENTED ||
			     d->view.state == TC_PLACED)) {
				n->want = (uint8_t)g;
				n->refused = d->refused[g];
			}
		}
	}
}

void write_state(struct torusd *d)
{
	struct td_state_nbr nbrs[TC_MAX_PORTS];
	struct td_state_info si;
	int err;

	if (!d->opts.statefile[0] || !d->have_view)
		return;
	state_info(d, &si, nbrs);
	err = td_state_write(d->opts.statefile, &si);
	if (err)
		log_warn("state file %s: %s", d->opts.statefile,
			 strerror(-err));
}

/*
 * A request failed.  If the node device or the module is gone, say so
 * once and exit: retrying would only log the same error every tick.
 */
void node_gone(struct torusd *d, int err)
{
	if (err == -EPERM || err == -EACCES)
		return;		/* a packet socket: said already */
	if (if_nametoindex(d->opts.ifname) != d->ifindex) {
		log_err("node device %s is gone%s: exiting", d->opts.ifname,
			td_nl_family_gone(&d->nl) ?
			" (torus.ko was unloaded)" : "");
	} else if (td_nl_family_gone(&d->nl)) {
		log_err("the \"%s\" generic netlink family is gone (torus.ko was unloaded): exiting",
			TORUS_GENL_NAME);
	} else {
		log_err("%s: %s", d->opts.ifname, d->nl.err);
		return;
	}
	d->stop = true;
	d->exit_code = 1;
}

/* what the core knows of each port's cable, for the install decision */
static void gather_ports(struct torusd *d, struct td_iport *ip)
{
	unsigned int l;

	memset(ip, 0, sizeof(*ip) * TC_MAX_PORTS);
	for (l = 0; l < TC_MAX_PORTS; l++) {
		struct td_port *p = &d->ports[l];

		ip[l].present = p->present;
		ip[l].ifindex = p->ifindex;
		if (d->node)
			tc_nbr_info(d->node, (uint8_t)l, &ip[l].nbr);
		if (ip[l].nbr.status == TC_NBR_UNRESOLVED &&
		    p->unresolved_since)
			ip[l].unresolved_ticks =
				(uint32_t)(d->ticks + 1 - p->unresolved_since);
	}
}

/*
 * Follow each cable's resolution; a change (or an unresolved cable
 * running out of its grace) calls for a new install decision.
 */
void watch_nbrs(struct torusd *d)
{
	uint32_t h = 2166136261u, grace = d->cfg.dead_ticks;
	struct tc_nbr_info nb;
	unsigned int l, k;

	if (!d->node)
		return;
	for (l = 0; l < TC_MAX_PORTS; l++) {
		struct td_port *p = &d->ports[l];
		uint32_t v[4 + TC_MAX_AXES];

		tc_nbr_info(d->node, (uint8_t)l, &nb);
		if (nb.status != TC_NBR_UNRESOLVED)
			p->unresolved_since = 0;
		else if (!p->unresolved_since)
			p->unresolved_since = d->ticks + 1;
		v[0] = nb.status | (uint32_t)nb.has_frame << 8 |
		       (uint32_t)(p->unresolved_since &&
				  d->ticks + 1 - p->unresolved_since >= grace)
		       << 9;
		v[1] = (uint32_t)nb.id ^ (uint32_t)(nb.id >> 32);
		v[2] = (uint32_t)nb.leader ^ (uint32_t)(nb.leader >> 32);
		v[3] = nb.peer_port;
		for (k = 0; k < TC_MAX_AXES; k++)
			v[4 + k] = (uint16_t)nb.offset[k];
		for (k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			h = (h ^ v[k]) * 16777619u;
	}
	if (h != d->nbr_sum) {
		d->nbr_sum = h;
		d->need_sync = true;
		d->state_dirty = true;
	}
}

static void log_refusals(struct torusd *d, const struct td_install_plan *pl)
{
	unsigned int g;

	for (g = 0; g < TORUS_MAX_DIRS; g++) {
		uint8_t label = d->view.portmap[g];
		const char *name = label < TC_MAX_PORTS &&
				   d->ports[label].present ?
				   d->ports[label].ifname : "?";

		if (pl->refused[g] == d->refused[g])
			continue;
		if (pl->refused[g])
			log_warn("port %s does not serve %s: its cable is %s (traffic that way is dropped and counted as no_port)",
				 name, td_dir_name((uint8_t)g),
				 td_refusal_name(pl->refused[g]));
		else if (d->refused[g])
			log_info("direction %s: %s", td_dir_name((uint8_t)g),
				 label < TC_MAX_PORTS ?
				 "the cable is verified" :
				 "no longer mapped by discovery");
	}
	memcpy(d->refused, pl->refused, sizeof(d->refused));
}

/* carry out the plan in its order; 0, or -1 (logged) to retry */
static int apply_plan(struct torusd *d, const struct td_install_plan *pl)
{
	char buf[96], dm[96], pm[200];
	unsigned int i;
	int err;

	for (i = 0; i < pl->n; i++) {
		const struct td_action *a = &pl->act[i];

		switch (a->kind) {
		case TD_ACT_PORTMAP:
			err = td_nl_portmap_set(&d->nl, d->ifindex, a->map);
			if (!err)
				memcpy(d->kmap, a->map, sizeof(d->kmap));
			break;
		case TD_ACT_NODE:
			err = td_nl_node_set(&d->nl, d->ifindex, &a->node);
			if (err)
				break;
			if (a->node.state == TC_PLACED) {
				td_fmt_coord(buf, sizeof(buf), a->node.coord,
					  a->node.ndims);
				td_fmt_dims(dm, sizeof(dm), a->node.dims,
					 a->node.wrap, a->node.ndims);
				fmt_portmap(d, &d->view, pm, sizeof(pm));
				log_notice("installed %s: coordinates (%s) in %s, role %s, port map %s",
					   d->opts.ifname, buf, dm,
					   td_role_name(a->node.role), pm);
			} else if (a->node.state == TC_FAILED) {
				log_notice("installed %s: state failed (%s)",
					   d->opts.ifname, a->node.reason);
			} else {
				log_debug("installed %s: state %s",
					  d->opts.ifname,
					  td_state_name(a->node.state));
			}
			break;
		case TD_ACT_ADDR_ADD:
		case TD_ACT_ADDR_DEL:
			err = td_nl_addr_change(&d->nl, d->ifindex, &a->addr,
						a->kind == TD_ACT_ADDR_ADD);
			/* gone already, or there already: the goal holds */
			if ((a->kind == TD_ACT_ADDR_DEL &&
			     err == -EADDRNOTAVAIL) ||
			    (a->kind == TD_ACT_ADDR_ADD && err == -EEXIST))
				err = 0;
			if (!err) {
				bool add = a->kind == TD_ACT_ADDR_ADD;

				td_addr_fmt(&a->addr, buf, sizeof(buf));
				log_notice("%s %s %s",
					   add ? "address" : "removed address",
					   buf, add ? "added" : "by the plan");
			}
			break;
		default:
			err = 0;
			break;
		}
		if (err) {
			node_gone(d, err);	/* says what failed */
			return -1;
		}
	}
	return 0;
}

/*
 * Make the kernel hold what the install decision (install.c) says from
 * the core's view, the kernel's state, the ports and their cables.
 */
void kernel_sync(struct torusd *d)
{
	struct td_addr kaddrs[TD_MAX_ADDRS];
	struct td_iport ip[TC_MAX_PORTS];
	struct td_install_plan plan;
	struct td_install_in in;
	unsigned int nkaddrs = 0;
	struct td_knode kn;
	uint16_t new_labels;
	int err;

	d->need_sync = false;
	d->retry_tick = 0;
	if (!d->have_view)
		return;
	err = td_nl_node_get(&d->nl, d->ifindex, &kn);
	if (err) {
		node_gone(d, err);
		goto retry;
	}
	err = ports_resync(d, &new_labels);
	if (err) {
		node_gone(d, err);
		goto retry;
	}
	if (new_labels & ~d->bad_labels) {
		/* picked up by the loop: the core is rebuilt there */
		d->need_resync = true;
	}
	if (d->opts.addresses) {
		err = td_nl_addr_dump(&d->nl, d->ifindex, kaddrs, TD_MAX_ADDRS,
				      &nkaddrs);
		if (err == -E2BIG)
			log_warn("%s: %s", d->opts.ifname, d->nl.err);
		else if (err) {
			node_gone(d, err);
			goto retry;
		}
	}
	gather_ports(d, ip);
	memset(&in, 0, sizeof(in));
	in.id = d->id;
	in.view = &d->view;
	in.kn = &kn;
	in.kmap = d->kmap;
	in.ports = ip;
	in.kaddrs = kaddrs;
	in.nkaddrs = nkaddrs;
	in.addresses = d->opts.addresses;
	in.unresolved_grace = d->cfg.dead_ticks;
	in.exiting = d->stop && !d->exit_code;
	in.lamb = d->routes.info.lamb;
	td_install_decide(&in, &plan);
	if (apply_plan(d, &plan))
		goto retry;
	if (d->view.state == TC_PLACED)
		log_refusals(d, &plan);
	if (plan.kept && !d->installed)
		log_debug("kernel keeps its placement while discovery runs (%s)",
			  td_state_name(d->view.state));
	if (plan.installed && !plan.n && !d->installed)
		log_info("the kernel already holds this placement: nothing to install");
	if (plan.installed != d->installed || plan.n)
		d->state_dirty = true;
	d->installed = plan.installed;
	if (!d->installed || in.exiting || !routes_audit_tree(d)) {
		d->sync_fails = 0;
		return;
	}

retry:
	/* a kernel that keeps failing is asked less and less often */
	d->sync_fails++;
	if (!d->stop)
		d->retry_tick = d->ticks +
			td_backoff_ticks(d->sync_fails,
				(uint64_t)td_ms_to_ticks(TD_RETRY_MS,
							 d->opts.tick_ms),
				(uint64_t)td_ms_to_ticks(TD_RETRY_MAX_MS,
							 d->opts.tick_ms));
}

/*
 * The service manager's STATUS= line (Type=notify): the state, and where
 * or why.  READY=1 goes with it once the first kernel state is written.
 */
void notify_status(struct torusd *d)
{
	const struct tc_view *v = &d->view;
	char msg[384], c[64], dm[96];
	int err;

	if (!d->have_view)
		return;
	if (v->state == TC_PLACED && d->routes.info.refused) {
		/* placed, but the kernel does not hold this set's routes */
		td_fmt_coord(c, sizeof(c), v->coord, v->ndims);
		td_fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
		snprintf(msg, sizeof(msg),
			 "%sSTATUS=routes refused: %s; previous routes kept at (%s) in %s, %s",
			 d->ready_sent ? "" : "READY=1\n",
			 d->routes.info.refused_why, c, dm,
			 td_role_name(v->role));
	} else if (v->state == TC_PLACED) {
		td_fmt_coord(c, sizeof(c), v->coord, v->ndims);
		td_fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
		snprintf(msg, sizeof(msg), "%sSTATUS=placed at (%s) in %s, %s",
			 d->ready_sent ? "" : "READY=1\n", c, dm,
			 td_role_name(v->role));
	} else {
		snprintf(msg, sizeof(msg), "%sSTATUS=%s%s%.*s",
			 d->ready_sent ? "" : "READY=1\n",
			 td_state_name(v->state), v->reason[0] ? ": " : "",
			 TC_REASON_LEN, v->reason);
	}
	err = td_notify(msg);
	if (err < 0)
		log_debug("sd_notify: %s", strerror(-err));
	d->ready_sent = true;
}

/*
 * A cable that contradicts the frame leaves the port map (and is
 * reported down in link state); it comes back once its far end has
 * checked out for a quiet period.  Both are said, per port.
 */
static void log_miswired(struct torusd *d, uint16_t old, bool had)
{
	uint16_t now = d->view.miswired, diff = had ? old ^ now : now;
	unsigned int l;

	for (l = 0; l < TC_MAX_PORTS; l++) {
		const char *name = d->ports[l].present ? d->ports[l].ifname :
							 "?";

		if (!(diff & (1u << l)))
			continue;
		if (now & (1u << l))
			log_warn("port %s (%s): its cable contradicts the frame: out of the port map, reported down",
				 name, td_dir_name((uint8_t)l));
		else
			log_notice("port %s (%s): its cable checked out: back in the port map",
				   name, td_dir_name((uint8_t)l));
	}
}

static void view_changed(struct torusd *d, const struct tc_view *old,
			 bool had)
{
	const struct tc_view *v = &d->view;
	char c[64], dm[96], pm[200];

	if (!had || old->state != v->state || old->role != v->role ||
	    old->leader != v->leader) {
		if (v->state == TC_PLACED) {
			td_fmt_coord(c, sizeof(c), v->coord, v->ndims);
			td_fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
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
		td_fmt_coord(c, sizeof(c), v->coord, v->ndims);
		td_fmt_dims(dm, sizeof(dm), v->dims, v->wrap, v->ndims);
		log_notice("placement changed: (%s) in %s", c, dm);
	}
	log_miswired(d, old->miswired, had);
	if (v->state == TC_ORIENTED || v->state == TC_PLACED) {
		fmt_portmap(d, v, pm, sizeof(pm));
		log_debug("port map: %s", pm);
	}
}

void check_view(struct torusd *d)
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
	if (!had || old.state != d->view.state ||
	    memcmp(old.coord, d->view.coord, sizeof(old.coord)) ||
	    memcmp(old.dims, d->view.dims, sizeof(old.dims)) ||
	    strncmp(old.reason, d->view.reason, TC_REASON_LEN))
		notify_status(d);
}
