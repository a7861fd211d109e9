// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * install.c - the install decision: what torusd writes into torus.ko
 *
 * Rules, in the order they apply:
 *  - A placed view is installed: port map, then node id, state, role,
 *    leader, coordinates, extents and wrap flags; only what differs
 *    from the kernel is written.
 *  - A port serves the global direction discovery gives it unless its
 *    cable is refuted: its evidence conflicts, the node across is in
 *    our frame but not at our offset plus one step that way (a cable
 *    plugged into the wrong node), or it stayed unresolved longer than
 *    the grace.  A refuted cable is left out of the map: the kernel
 *    drops what would go that way and counts it (no_port).  The node
 *    across in our frame at the right place verifies a cable whether or
 *    not the core resolved its axis map (near faults the squares that
 *    resolve it may be missing).  A cable not verified yet (nobody
 *    heard, a node in another frame, unresolved within the grace) is
 *    installed: the port map is also the orientation a restarted daemon
 *    resumes from, and leaving such ports out made resumed nodes
 *    re-follow and move during power-up.  A direction the view gives no
 *    port keeps the kernel's port unless its cable is refuted (a
 *    restarted daemon before its neighbors' records hold still, a
 *    neighbor whose daemon died): transit goes on.
 *  - An unplaced view never unplaces a placed kernel (a restart that
 *    has not found the fabric again, or discovery re-running): the
 *    kernel keeps forwarding.  Otherwise the state and reason go in.
 *  - The plan addresses follow the placement the kernel holds after
 *    the node set: IPv4 10.x.y.z/8 (up to three axes) and IPv6
 *    fd74:6f72:7573::/64 with one byte per axis; any other address in
 *    those prefixes on the node device is removed.  None when the
 *    kernel is not placed or the daemon exits.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "install.h"

static const uint8_t plan6_prefix[8] = TORUS_IPV6_PREFIX;

int td_plan_addr4(const uint8_t *coord, uint8_t ndims, struct td_addr *a)
{
	unsigned int k;

	if (ndims > TORUS_IPV4_MAX_AXES)
		return -1;
	memset(a, 0, sizeof(*a));
	a->family = AF_INET;
	a->prefixlen = TORUS_IPV4_PREFIX_LEN;
	a->addr[0] = (uint8_t)(TORUS_IPV4_PREFIX >> 24);
	for (k = 0; k < ndims; k++)
		a->addr[1 + k] = coord[k];
	return 0;
}

void td_plan_addr6(const uint8_t *coord, uint8_t ndims, struct td_addr *a)
{
	unsigned int k;

	memset(a, 0, sizeof(*a));
	a->family = AF_INET6;
	a->prefixlen = TORUS_IPV6_PREFIX_LEN;
	memcpy(a->addr, plan6_prefix, sizeof(plan6_prefix));
	for (k = 0; k < ndims && k < TC_MAX_AXES; k++)
		a->addr[8 + k] = coord[k];
}

bool td_addr_in_plan(const struct td_addr *a)
{
	if (a->family == AF_INET)
		return a->addr[0] == (uint8_t)(TORUS_IPV4_PREFIX >> 24);
	if (a->family == AF_INET6)
		return !memcmp(a->addr, plan6_prefix, sizeof(plan6_prefix));
	return false;
}

void td_addr_fmt(const struct td_addr *a, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (!inet_ntop(a->family, a->addr, ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "?");
	snprintf(buf, len, "%s/%u", ip, a->prefixlen);
}

const char *td_refusal_name(uint8_t why)
{
	switch (why) {
	case TD_REFUSE_NONE:
		return "";
	case TD_REFUSE_ABSENT:
		return "absent";
	case TD_REFUSE_UNRESOLVED:
		return "unresolved";
	case TD_REFUSE_CONFLICT:
		return "conflict";
	case TD_REFUSE_MISPLACED:
		return "misplaced";
	}
	return "?";
}

static bool addr_eq(const struct td_addr *a, const struct td_addr *b)
{
	size_t len = a->family == AF_INET ? 4 : 16;

	return a->family == b->family && a->prefixlen == b->prefixlen &&
	       !memcmp(a->addr, b->addr, len);
}

/* the neighbor's offset is ours plus one step along global dir @g */
static bool offset_fits(const struct tc_view *v, const struct tc_nbr_info *nb,
			uint8_t g)
{
	unsigned int k;

	for (k = 0; k < v->ndims; k++) {
		int want = v->offset[k], got = nb->offset[k];

		if (k == TORUS_DIR_AXIS(g))
			want += TORUS_DIR_NEG(g) ? -1 : 1;
		if ((v->wrap & (1u << k)) && v->dims[k]) {
			int e = v->dims[k];

			want = ((want % e) + e) % e;
			got = ((got % e) + e) % e;
		}
		if (want != got)
			return false;
	}
	return true;
}

/*
 * May port @p serve global direction @g?  Yes unless the cable is
 * refuted (*@why says how): the kernel's port map also records the
 * node's orientation, which a restarted daemon resumes from, so a cable
 * not verified yet (nobody heard, a node in another frame, unresolved
 * for less than the grace) is installed as discovery oriented it.
 */
static bool port_serves(const struct td_install_in *in, uint8_t g,
			const struct td_iport *p, uint8_t *why)
{
	const struct tc_view *v = in->view;

	*why = TD_REFUSE_NONE;
	if (!p->present) {
		*why = TD_REFUSE_ABSENT;
		return false;
	}
	if (p->nbr.status == TC_NBR_CONFLICT) {
		*why = TD_REFUSE_CONFLICT;
		return false;
	}
	/*
	 * The node across is in our frame: its own position says whether
	 * the cable leads where the direction does, resolved or not (near
	 * faults a cable may lack the squares that resolve it).
	 */
	if (p->nbr.status != TC_NBR_NONE && p->nbr.has_frame &&
	    p->nbr.leader == v->leader) {
		if (offset_fits(v, &p->nbr, g))
			return true;
		*why = TD_REFUSE_MISPLACED;
		return false;
	}
	if (p->nbr.status == TC_NBR_UNRESOLVED &&
	    p->unresolved_ticks >= in->unresolved_grace) {
		*why = TD_REFUSE_UNRESOLVED;
		return false;
	}
	return true;
}

/*
 * A direction the view gives no port, served in the kernel by a port
 * whose cable is not refuted (port_serves()): keep it.  That is a
 * restarted daemon before its neighbors' records are back and held
 * still, or a neighbor whose daemon died while its kernel forwards:
 * transit goes on.  A refuted cable goes.
 */
static void keep_unrefuted(const struct td_install_in *in,
			   uint32_t map[TORUS_MAX_DIRS])
{
	unsigned int g, l, h;
	uint8_t why;

	for (g = 0; g < TORUS_MAX_DIRS; g++) {
		if (map[g] || !in->kmap[g] ||
		    in->view->portmap[g] < TC_MAX_PORTS)
			continue;
		for (l = 0; l < TC_MAX_PORTS; l++) {
			const struct td_iport *p = &in->ports[l];
			bool used = false;

			if (!p->present || p->ifindex != in->kmap[g] ||
			    !port_serves(in, (uint8_t)g, p, &why))
				continue;
			for (h = 0; h < TORUS_MAX_DIRS; h++)
				used |= map[h] == p->ifindex;
			if (!used)
				map[g] = p->ifindex;
		}
	}
}

static bool node_matches(const struct td_knode *kn,
			 const struct td_node_req *r)
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
	return true;
}

static struct td_action *add_action(struct td_install_plan *plan,
				    uint8_t kind)
{
	struct td_action *a;

	if (plan->n >= TD_MAX_ACTIONS)
		return NULL;
	a = &plan->act[plan->n++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	return a;
}

static void decide_addresses(const struct td_install_in *in,
			     const uint8_t *coord, uint8_t ndims,
			     struct td_install_plan *plan)
{
	struct td_addr want[2];
	unsigned int nwant = 0, i, j;
	struct td_action *a;

	if (coord && !in->exiting) {
		if (!td_plan_addr4(coord, ndims, &want[nwant]))
			nwant++;
		td_plan_addr6(coord, ndims, &want[nwant++]);
	}
	for (i = 0; i < in->nkaddrs; i++) {
		bool keep = false;

		if (!td_addr_in_plan(&in->kaddrs[i]))
			continue;
		for (j = 0; j < nwant; j++)
			keep |= addr_eq(&in->kaddrs[i], &want[j]);
		if (!keep && (a = add_action(plan, TD_ACT_ADDR_DEL)))
			a->addr = in->kaddrs[i];
	}
	for (j = 0; j < nwant; j++) {
		bool have = false;

		for (i = 0; i < in->nkaddrs; i++)
			have |= addr_eq(&in->kaddrs[i], &want[j]);
		if (!have && (a = add_action(plan, TD_ACT_ADDR_ADD)))
			a->addr = want[j];
	}
}

void td_install_decide(const struct td_install_in *in,
		       struct td_install_plan *plan)
{
	const struct tc_view *v = in->view;
	const struct td_knode *kn = in->kn;
	const uint8_t *placed_coord = NULL;
	uint8_t placed_ndims = 0;
	struct td_node_req r;
	struct td_action *a;
	unsigned int i;

	memset(plan, 0, sizeof(*plan));
	memcpy(plan->reason, v->reason, TC_REASON_LEN);
	plan->reason[TC_REASON_LEN - 1] = '\0';
	memset(&r, 0, sizeof(r));
	r.id = in->id;
	r.state = v->state;
	r.role = v->role;

	if (v->state == TC_PLACED) {
		uint32_t map[TORUS_MAX_DIRS] = { 0 };

		/* the routes made it a lamb: it forwards, it is no endpoint */
		if (in->lamb)
			r.role = TORUS_ROLE_LAMB;
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
			if (port_serves(in, (uint8_t)i, &in->ports[label],
					&plan->refused[i]))
				map[i] = in->ports[label].ifindex;
		}
		keep_unrefuted(in, map);
		if (memcmp(map, in->kmap, sizeof(map))) {
			a = add_action(plan, TD_ACT_PORTMAP);
			memcpy(a->map, map, sizeof(map));
		}
		if (!node_matches(kn, &r)) {
			a = add_action(plan, TD_ACT_NODE);
			a->node = r;
		}
		plan->installed = true;
		placed_coord = v->coord;
		placed_ndims = v->ndims;
	} else if (kn->state == TORUS_STATE_PLACED) {
		/* discovery re-runs or has not found the fabric again */
		plan->kept = true;
		placed_coord = kn->coord;
		placed_ndims = kn->ndims;
	} else {
		if (v->state == TC_FAILED)
			r.role = TORUS_ROLE_NONE;
		r.reason = plan->reason;
		if (!node_matches(kn, &r)) {
			a = add_action(plan, TD_ACT_NODE);
			a->node = r;
		}
	}
	if (in->addresses)
		decide_addresses(in, placed_coord, placed_ndims, plan);
}
