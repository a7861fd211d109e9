// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * liar.c - a neighbour that runs no core: it sends random bytes, or
 * well-formed records that lie, on every port with carrier, every tick
 *
 * The lies are the ones a core must not absorb: a frame whose leader
 * outranks everybody, a placed frame with a random orientation and
 * coordinates, and, in the frame of the neighbour it talks to (it
 * listens to learn the leader), an extent record claiming a GCD of 1.
 * Records are built with the core's own encoder (tcore_wire.h), so they
 * pass its decoder.
 */
#include <string.h>
#include "sim.h"
#include "tcore_wire.h"

void sim_liar_init(struct sim_liar *l, uint64_t id, uint64_t seed)
{
	memset(l, 0, sizeof(*l));
	l->id = id;
	l->rng = seed ^ id;
}

void sim_liar_receive(struct sim_liar *l, uint8_t ndims, uint8_t port,
		      const uint8_t *msg, size_t len)
{
	struct tw_msg m;

	if (port < TC_MAX_PORTS && !tw_decode(msg, len, ndims, &m) &&
	    m.has_frame)
		l->heard[port] = m.leader;
}

static void random_msg(struct sim_liar *l, uint8_t *buf, size_t *len)
{
	size_t i, n = 1 + sim_below(&l->rng, TC_MSG_MAX);

	for (i = 0; i < n; i++)
		buf[i] = (uint8_t)sim_splitmix(&l->rng);
	/* half of them get past the header check */
	if (n >= 2 && (sim_splitmix(&l->rng) & 1)) {
		buf[0] = TW_MAGIC;
		buf[1] = TW_VERSION;
	}
	*len = n;
}

static void lying_msg(struct sim_liar *l, const struct sim_opts *o,
		      uint8_t port, uint8_t *buf, size_t *len)
{
	unsigned int nd = o->ndims, a, lie = sim_below(&l->rng, 3);
	uint8_t labels[TC_MAX_PORTS], R[TC_MAX_AXES];
	uint32_t hashes[TC_MAX_PORTS];
	int16_t coord[TC_MAX_AXES], cmin[TC_MAX_AXES], cmax[TC_MAX_AXES];
	uint16_t gcd[TC_MAX_AXES];
	uint64_t leader;
	struct sim_rot rot;
	struct tw_buf b;

	sim_random_rot(&rot, nd, &l->rng);
	for (a = 0; a < nd; a++) {
		R[a] = rot.fwd[2 * a];
		coord[a] = (int16_t)(sim_below(&l->rng, 17)) - 8;
		gcd[a] = (uint16_t)(1 + sim_below(&l->rng, 8));
		cmin[a] = (int16_t)(-(int)sim_below(&l->rng, 8));
		cmax[a] = (int16_t)sim_below(&l->rng, 8);
	}
	for (a = 0; a < 2 * nd; a++) {
		labels[a] = (uint8_t)a;
		hashes[a] = (uint32_t)sim_splitmix(&l->rng);
	}
	switch (lie) {
	case 0:
		/* the neighbour's own frame, with an extent of 1 */
		leader = l->heard[port] ? l->heard[port] : l->id;
		gcd[sim_below(&l->rng, nd)] = 1;
		break;
	case 1:
		/* a frame that outranks every real one */
		leader = UINT64_MAX - sim_below(&l->rng, 4);
		break;
	default:
		/* a random frame whose map is no signed permutation (two
		 * axes onto one), sent as if from a port the board lacks */
		leader = sim_splitmix(&l->rng) | 1;
		if (nd > 1)
			R[1] = R[0];
		if (2 * nd < TC_MAX_PORTS)
			port = (uint8_t)(2 * nd + sim_below(&l->rng,
							    TC_MAX_PORTS - 2 * nd));
		break;
	}
	tw_init(&b, buf, TC_MSG_MAX);
	tw_put_id(&b, l->id);
	tw_put_port(&b, port);
	tw_put_nbrs(&b, (uint8_t)(2 * nd), labels, hashes);
	tw_put_frame(&b, leader, TW_FRAME_PLACED | TW_FRAME_JOINED,
		     (uint8_t)nd, R, coord);
	tw_put_extent(&b, (uint8_t)nd, gcd, cmin, cmax);
	if (o->blocks && lie == 2) {
		uint8_t bcoord[TC_MAX_AXES];
		struct tw_orient or;

		memset(&or, 0, sizeof(or));
		or.block = (uint32_t)sim_below(&l->rng, 64) + 1;
		or.normal = (uint8_t)sim_below(&l->rng, 2 * nd);
		memcpy(or.map, R, nd);
		for (a = 0; a < nd; a++)
			bcoord[a] = (uint8_t)sim_below(&l->rng, 4);
		tw_put_block(&b, or.block, (uint8_t)nd, bcoord);
		tw_put_orient(&b, (uint8_t)nd, &or);
	}
	*len = b.overflow ? 0 : b.len;
}

void sim_liar_tick(struct sim_liar *l, const struct sim_opts *o,
		   uint16_t up, const struct tc_output *out)
{
	uint8_t buf[TC_MSG_MAX];
	unsigned int p;
	size_t len;

	for (p = 0; p < 2u * o->ndims; p++) {
		if (!(up & (1u << p)))
			continue;
		if (o->liar_kind == SIM_LIAR_RANDOM)
			random_msg(l, buf, &len);
		else
			lying_msg(l, o, (uint8_t)p, buf, &len);
		if (len)
			out->send(out->ctx, (uint8_t)p, buf, len);
	}
}
