// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_install.c - unit tests of daemon/install.c: what torusd writes
 * into the kernel, from the core's view, the kernel's state, the ports
 * and what the core knows of each cable
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/socket.h>

#include "install.h"
#include "unit.h"

#define LEADER	0x99

/* a 4x4x4 torus node at (1,2,3) with six ports, labels = directions */
struct fixture {
	struct tc_view		view;
	struct td_knode		kn;
	uint32_t		kmap[TORUS_MAX_DIRS];
	struct td_iport		ports[TC_MAX_PORTS];
	struct td_addr		kaddrs[TD_MAX_ADDRS];
	struct td_install_in	in;
	struct td_install_plan	plan;
};

static void placed_view(struct tc_view *v, uint8_t x, uint8_t y, uint8_t z)
{
	unsigned int k, g;

	memset(v, 0, sizeof(*v));
	v->state = TC_PLACED;
	v->role = TC_ROLE_FOLLOWER;
	v->leader = LEADER;
	v->ndims = 3;
	v->coord[0] = x;
	v->coord[1] = y;
	v->coord[2] = z;
	v->wrap = 7;
	for (k = 0; k < 3; k++) {
		v->dims[k] = 4;
		v->offset[k] = v->coord[k];
	}
	memset(v->portmap, TORUS_DIR_NONE, sizeof(v->portmap));
	for (g = 0; g < 6; g++)
		v->portmap[g] = (uint8_t)g;
}

/* each neighbor one step from the view's offset the way its port leads */
static void nbrs_follow(struct fixture *f)
{
	unsigned int l, k;

	for (l = 0; l < 6; l++) {
		struct td_iport *p = &f->ports[l];

		for (k = 0; k < TC_MAX_AXES; k++)
			p->nbr.offset[k] = f->view.offset[k];
		p->nbr.offset[TORUS_DIR_AXIS(l)] += TORUS_DIR_NEG(l) ? -1 : 1;
	}
}

/* every cable resolved to the neighbor the direction leads to */
static void fixture_init(struct fixture *f)
{
	unsigned int l;

	memset(f, 0, sizeof(*f));
	placed_view(&f->view, 1, 2, 3);
	f->kn.state = TORUS_STATE_DISCOVERING;
	for (l = 0; l < 6; l++) {
		struct td_iport *p = &f->ports[l];

		p->present = true;
		p->ifindex = 10 + l;
		p->nbr.status = TC_NBR_RESOLVED;
		p->nbr.carrier = true;
		p->nbr.id = 100 + l;
		p->nbr.has_frame = true;
		p->nbr.placed = true;
		p->nbr.leader = LEADER;
	}
	nbrs_follow(f);
	f->in.id = 7;
	f->in.view = &f->view;
	f->in.kn = &f->kn;
	f->in.kmap = f->kmap;
	f->in.ports = f->ports;
	f->in.kaddrs = f->kaddrs;
	f->in.addresses = true;
	f->in.unresolved_grace = 40;
}

static void addr_of(struct td_addr *a, const char *text, uint8_t plen)
{
	memset(a, 0, sizeof(*a));
	a->family = strchr(text, ':') ? AF_INET6 : AF_INET;
	a->prefixlen = plen;
	inet_pton(a->family, text, a->addr);
}

static void decide(struct fixture *f)
{
	td_install_decide(&f->in, &f->plan);
}

/* the plan's actions as one line: "map node +10.1.2.3/8 -..." */
static const char *actions(const struct fixture *f)
{
	static char buf[1024];
	size_t off = 0;
	unsigned int i;
	char a[80];

	buf[0] = '\0';
	for (i = 0; i < f->plan.n && off < sizeof(buf); i++) {
		const struct td_action *x = &f->plan.act[i];

		switch (x->kind) {
		case TD_ACT_PORTMAP:
			snprintf(a, sizeof(a), "map");
			break;
		case TD_ACT_NODE:
			snprintf(a, sizeof(a), "node");
			break;
		default:
			a[0] = x->kind == TD_ACT_ADDR_ADD ? '+' : '-';
			td_addr_fmt(&x->addr, a + 1, sizeof(a) - 1);
		}
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s",
					i ? " " : "", a);
	}
	return buf;
}

/* the kernel after the plan: what a second decision starts from */
static void apply(struct fixture *f)
{
	unsigned int i, j;

	for (i = 0; i < f->plan.n; i++) {
		const struct td_action *x = &f->plan.act[i];

		switch (x->kind) {
		case TD_ACT_PORTMAP:
			memcpy(f->kmap, x->map, sizeof(f->kmap));
			break;
		case TD_ACT_NODE:
			f->kn.id = x->node.id;
			f->kn.state = x->node.state;
			f->kn.role = x->node.role;
			if (x->node.leader)
				f->kn.leader = x->node.leader;
			if (x->node.reason)
				snprintf(f->kn.reason, sizeof(f->kn.reason),
					 "%s", x->node.reason);
			if (x->node.geom) {
				f->kn.ndims = x->node.ndims;
				memcpy(f->kn.coord, x->node.coord,
				       sizeof(f->kn.coord));
				memcpy(f->kn.dims, x->node.dims,
				       sizeof(f->kn.dims));
				f->kn.wrap = x->node.wrap;
			}
			break;
		case TD_ACT_ADDR_ADD:
			f->kaddrs[f->in.nkaddrs++] = x->addr;
			break;
		case TD_ACT_ADDR_DEL:
			for (j = 0; j < f->in.nkaddrs; j++) {
				if (!memcmp(&f->kaddrs[j], &x->addr,
					    sizeof(x->addr))) {
					f->kaddrs[j] =
						f->kaddrs[--f->in.nkaddrs];
					break;
				}
			}
			break;
		}
	}
}

UNIT_TEST(install_plan_addresses)
{
	struct td_addr a;
	uint8_t c5[5] = { 1, 2, 3, 4, 5 };
	char buf[80];

	UNIT_CHECK(td_plan_addr4((const uint8_t[]){ 1, 2, 3 }, 3, &a) == 0);
	td_addr_fmt(&a, buf, sizeof(buf));
	UNIT_STREQ(buf, "10.1.2.3/8");
	td_plan_addr6((const uint8_t[]){ 1, 2, 3 }, 3, &a);
	td_addr_fmt(&a, buf, sizeof(buf));
	UNIT_STREQ(buf, "fd74:6f72:7573:0:102:300::/64");
	/* more than three axes: IPv6 only */
	UNIT_CHECK(td_plan_addr4(c5, 5, &a) == -1);
	td_plan_addr6(c5, 5, &a);
	td_addr_fmt(&a, buf, sizeof(buf));
	UNIT_STREQ(buf, "fd74:6f72:7573:0:102:304:500:0/64");
	addr_of(&a, "10.200.0.1", 16);
	UNIT_CHECK(td_addr_in_plan(&a));
	addr_of(&a, "192.168.0.1", 24);
	UNIT_CHECK(!td_addr_in_plan(&a));
	addr_of(&a, "fe80::1", 64);
	UNIT_CHECK(!td_addr_in_plan(&a));
	addr_of(&a, "fd74:6f72:7573:0:1::", 64);
	UNIT_CHECK(td_addr_in_plan(&a));
}

UNIT_TEST(install_placed_fresh)
{
	struct fixture f;

	fixture_init(&f);
	decide(&f);
	/* the map before the coordinates, addresses last */
	UNIT_STREQ(actions(&f), "map node +10.1.2.3/8 "
		   "+fd74:6f72:7573:0:102:300::/64");
	UNIT_CHECK(f.plan.installed && !f.plan.kept);
	UNIT_CHECK(f.plan.act[0].map[TORUS_DIR(0, 0)] == 10);
	UNIT_CHECK(f.plan.act[0].map[TORUS_DIR(2, 1)] == 15);
	UNIT_CHECK(f.plan.act[1].node.geom && f.plan.act[1].node.id == 7 &&
		   f.plan.act[1].node.coord[2] == 3 &&
		   f.plan.act[1].node.leader == LEADER);
	/* done: nothing more to write */
	apply(&f);
	decide(&f);
	UNIT_STREQ(actions(&f), "");
	UNIT_CHECK(f.plan.installed);
}

/* the routes make the node a lamb, then release it: only the role moves */
UNIT_TEST(install_lamb_role_follows_routes)
{
	struct fixture f;

	fixture_init(&f);
	decide(&f);
	apply(&f);
	f.in.lamb = true;
	decide(&f);
	UNIT_STREQ(actions(&f), "node");
	UNIT_CHECK(f.plan.act[0].node.role == TORUS_ROLE_LAMB);
	apply(&f);
	decide(&f);
	UNIT_STREQ(actions(&f), "");
	f.in.lamb = false;
	decide(&f);
	UNIT_STREQ(actions(&f), "node");
	UNIT_CHECK(f.plan.act[0].node.role == TC_ROLE_FOLLOWER);
}

UNIT_TEST(install_coordinates_change_replaces_addresses)
{
	struct fixture f;

	fixture_init(&f);
	decide(&f);
	apply(&f);
	addr_of(&f.kaddrs[f.in.nkaddrs++], "192.168.7.1", 24);
	placed_view(&f.view, 2, 2, 3);
	nbrs_follow(&f);
	decide(&f);
	UNIT_STREQ(actions(&f), "node -10.1.2.3/8 "
		   "-fd74:6f72:7573:0:102:300::/64 +10.2.2.3/8 "
		   "+fd74:6f72:7573:0:202:300::/64");
	apply(&f);
	/* the address outside the plan stays */
	UNIT_CHECK(f.in.nkaddrs == 3);
}

UNIT_TEST(install_unplaced_removes_addresses)
{
	struct fixture f;

	fixture_init(&f);
	addr_of(&f.kaddrs[f.in.nkaddrs++], "10.3.3.3", 8);
	addr_of(&f.kaddrs[f.in.nkaddrs++], "fd74:6f72:7573::303:300:0:0", 64);
	addr_of(&f.kaddrs[f.in.nkaddrs++], "fe80::1", 64);
	memset(&f.view, 0, sizeof(f.view));
	f.view.state = TC_DISCOVERING;
	snprintf(f.view.reason, sizeof(f.view.reason), "waiting for a frame");
	decide(&f);
	UNIT_STREQ(actions(&f), "node -10.3.3.3/8 "
		   "-fd74:6f72:7573:0:303:300::/64");
	UNIT_STREQ(f.plan.act[0].node.reason, "waiting for a frame");
	UNIT_CHECK(!f.plan.installed && !f.plan.kept);
}

UNIT_TEST(install_failed_view)
{
	struct fixture f;

	fixture_init(&f);
	memset(&f.view, 0, sizeof(f.view));
	f.view.state = TC_FAILED;
	f.view.role = TC_ROLE_FOLLOWER;
	snprintf(f.view.reason, sizeof(f.view.reason), "no live neighbor");
	decide(&f);
	UNIT_STREQ(actions(&f), "node");
	UNIT_CHECK(f.plan.act[0].node.state == TC_FAILED &&
		   f.plan.act[0].node.role == TORUS_ROLE_NONE);
	UNIT_STREQ(f.plan.act[0].node.reason, "no live neighbor");
}

UNIT_TEST(install_kernel_placement_kept)
{
	struct fixture f;

	fixture_init(&f);
	decide(&f);
	apply(&f);
	/* the daemon restarted (or rediscovers): the kernel keeps forwarding
	 * and the addresses stay those of its placement */
	memset(&f.view, 0, sizeof(f.view));
	f.view.state = TC_ORIENTED;
	decide(&f);
	UNIT_STREQ(actions(&f), "");
	UNIT_CHECK(f.plan.kept && !f.plan.installed);
	/* a restart after SIGKILL with the addresses gone: they come back */
	f.in.nkaddrs = 0;
	decide(&f);
	UNIT_STREQ(actions(&f), "+10.1.2.3/8 +fd74:6f72:7573:0:102:300::/64");
}

UNIT_TEST(install_exit_removes_plan_addresses_only)
{
	struct fixture f;

	fixture_init(&f);
	decide(&f);
	apply(&f);
	addr_of(&f.kaddrs[f.in.nkaddrs++], "fe80::1", 64);
	f.in.exiting = true;
	decide(&f);
	UNIT_STREQ(actions(&f), "-10.1.2.3/8 "
		   "-fd74:6f72:7573:0:102:300::/64");
	/* the kernel keeps its placement */
	UNIT_CHECK(f.plan.installed);
}

UNIT_TEST(install_no_addresses_option)
{
	struct fixture f;

	fixture_init(&f);
	f.in.addresses = false;
	addr_of(&f.kaddrs[f.in.nkaddrs++], "10.3.3.3", 8);
	decide(&f);
	UNIT_STREQ(actions(&f), "map node");
}

UNIT_TEST(install_four_axes_ipv6_only)
{
	struct fixture f;

	fixture_init(&f);
	f.view.ndims = 4;
	f.view.coord[3] = 1;
	f.view.offset[3] = 1;
	f.view.dims[3] = 2;
	nbrs_follow(&f);
	decide(&f);
	UNIT_STREQ(actions(&f), "map node +fd74:6f72:7573:0:102:301::/64");
}

UNIT_TEST(install_conflicting_cable_not_mapped)
{
	struct fixture f;
	uint8_t px = TORUS_DIR(0, 0);

	fixture_init(&f);
	f.ports[px].nbr.status = TC_NBR_CONFLICT;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].kind == TD_ACT_PORTMAP);
	UNIT_CHECK(f.plan.act[0].map[px] == 0);
	UNIT_CHECK(f.plan.act[0].map[TORUS_DIR(0, 1)] == 11);
	UNIT_CHECK(f.plan.refused[px] == TD_REFUSE_CONFLICT);
	UNIT_STREQ(td_refusal_name(f.plan.refused[px]), "conflict");
	/* even when the kernel had it: proven wrong, it goes */
	apply(&f);
	f.kmap[px] = 10;
	decide(&f);
	UNIT_STREQ(actions(&f), "map");
	UNIT_CHECK(f.plan.act[0].map[px] == 0);
}

UNIT_TEST(install_wrong_node_not_mapped)
{
	struct fixture f;
	uint8_t py = TORUS_DIR(1, 0);

	fixture_init(&f);
	/* resolved, in our frame, but not at (1,3,3): a cable plugged into
	 * the wrong node */
	f.ports[py].nbr.offset[0] = 3;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[py] == 0);
	UNIT_CHECK(f.plan.refused[py] == TD_REFUSE_MISPLACED);
	/* around the ring: offset -1 is 3 on a 4-ring */
	fixture_init(&f);
	f.view.coord[0] = f.view.offset[0] = 0;
	nbrs_follow(&f);
	f.ports[TORUS_DIR(0, 1)].nbr.offset[0] = 3;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[TORUS_DIR(0, 1)] == 11);
	UNIT_CHECK(!f.plan.refused[TORUS_DIR(0, 1)]);
	/* on a mesh axis there is no way around */
	f.view.wrap = 6;
	decide(&f);
	UNIT_CHECK(f.plan.refused[TORUS_DIR(0, 1)] == TD_REFUSE_MISPLACED);
}

UNIT_TEST(install_unresolved_cable_grace)
{
	struct fixture f;
	uint8_t pz = TORUS_DIR(2, 0);

	fixture_init(&f);
	/* unresolved, and the node across has not told its frame: not
	 * refuted yet, installed as discovery oriented it (a restarted
	 * daemon resumes its orientation from the kernel's map) */
	f.ports[pz].nbr.status = TC_NBR_UNRESOLVED;
	f.ports[pz].nbr.has_frame = false;
	f.ports[pz].unresolved_ticks = 5;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[pz] == f.ports[pz].ifindex);
	UNIT_CHECK(!f.plan.refused[pz]);
	/* nobody heard yet, or a node in another frame: the same */
	f.ports[pz].nbr.status = TC_NBR_NONE;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[pz] == f.ports[pz].ifindex);
	f.ports[pz].nbr.status = TC_NBR_RESOLVED;
	f.ports[pz].nbr.has_frame = true;
	f.ports[pz].nbr.leader = LEADER + 1;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[pz] == f.ports[pz].ifindex);
	apply(&f);
	/* unresolved past the grace: it goes, dropped and counted */
	f.ports[pz].nbr.status = TC_NBR_UNRESOLVED;
	f.ports[pz].nbr.has_frame = false;
	f.ports[pz].unresolved_ticks = 40;
	decide(&f);
	UNIT_STREQ(actions(&f), "map");
	UNIT_CHECK(f.plan.act[0].map[pz] == 0);
	UNIT_CHECK(f.plan.refused[pz] == TD_REFUSE_UNRESOLVED);
}

UNIT_TEST(install_unresolved_cable_in_place)
{
	struct fixture f;
	uint8_t pz = TORUS_DIR(2, 0);

	/* no square resolves it (next to a fault), but the node across sits
	 * one step along +z in our frame: the cable leads there */
	fixture_init(&f);
	f.ports[pz].nbr.status = TC_NBR_UNRESOLVED;
	f.ports[pz].unresolved_ticks = 400;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[pz] == f.ports[pz].ifindex);
	UNIT_CHECK(!f.plan.refused[pz]);
	/* elsewhere in our frame: a cable into the wrong node */
	f.ports[pz].nbr.offset[1] += 1;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[pz] == 0);
	UNIT_CHECK(f.plan.refused[pz] == TD_REFUSE_MISPLACED);
}

UNIT_TEST(install_keeps_kernel_port_until_refuted)
{
	struct fixture f;
	uint8_t pz = TORUS_DIR(2, 0);

	fixture_init(&f);
	decide(&f);
	apply(&f);
	/* restarted: the view has no direction for +z yet, nobody heard */
	f.view.portmap[pz] = TORUS_DIR_NONE;
	f.ports[pz].nbr.status = TC_NBR_NONE;
	decide(&f);
	UNIT_STREQ(actions(&f), "");
	/* heard, at the right place, records not held still yet: kept */
	f.ports[pz].nbr.status = TC_NBR_UNRESOLVED;
	f.ports[pz].unresolved_ticks = 3;
	decide(&f);
	UNIT_STREQ(actions(&f), "");
	/* elsewhere in the frame: refuted, it goes */
	f.ports[pz].nbr.offset[0] += 1;
	decide(&f);
	UNIT_STREQ(actions(&f), "map");
	UNIT_CHECK(f.plan.act[0].map[pz] == 0);
}

UNIT_TEST(install_absent_port)
{
	struct fixture f;

	fixture_init(&f);
	f.ports[TORUS_DIR(1, 1)].present = false;
	decide(&f);
	UNIT_CHECK(f.plan.act[0].map[TORUS_DIR(1, 1)] == 0);
	UNIT_CHECK(f.plan.refused[TORUS_DIR(1, 1)] == TD_REFUSE_ABSENT);
}

static const struct unit_case cases[] = {
	UNIT_CASE(install_plan_addresses),
	UNIT_CASE(install_placed_fresh),
	UNIT_CASE(install_lamb_role_follows_routes),
	UNIT_CASE(install_coordinates_change_replaces_addresses),
	UNIT_CASE(install_unplaced_removes_addresses),
	UNIT_CASE(install_failed_view),
	UNIT_CASE(install_kernel_placement_kept),
	UNIT_CASE(install_exit_removes_plan_addresses_only),
	UNIT_CASE(install_no_addresses_option),
	UNIT_CASE(install_four_axes_ipv6_only),
	UNIT_CASE(install_conflicting_cable_not_mapped),
	UNIT_CASE(install_wrong_node_not_mapped),
	UNIT_CASE(install_unresolved_cable_grace),
	UNIT_CASE(install_unresolved_cable_in_place),
	UNIT_CASE(install_keeps_kernel_port_until_refuted),
	UNIT_CASE(install_absent_port),
};

UNIT_MAIN(cases)
