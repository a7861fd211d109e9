// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_core.c - one discovery core node (daemon/core) fed an arbitrary
 * sequence of carrier changes, received control messages and clock
 * ticks, as torusd and torus-sim feed it.
 *
 * Input: the node's configuration, an optional restored placement,
 * then operations until the input ends:
 *   config: u8 ndims (1 + b mod 4), u8 flags (bit 0 block mode, bit 1
 *     restore), u16 ports, u8 hello, u8 dead, u8 quiet, u8 orient ticks,
 *     u8 block id, per axis u8 block extent (1 + b mod 4), u8 block coord
 *   restore: u64 leader (8 x u8), per axis u8 coord, u8 extent - 1,
 *     u8 wrap, per global direction u8 port
 *   op u8, by op mod 4: 0 tick (1 + (op >> 2) mod 8 ticks, at most
 *     CORE_MAX_TICKS per input), 1 carrier of port
 *     (op >> 2) mod 16 up or down (next u8 bit 0), 2 receive on port
 *     (op >> 2) mod 16 a message of u16 length (mod 1024) taken from the
 *     input, 3 read the view.
 * Beyond the sanitizers: every message the node sends goes out of a
 * port it has, fits TC_MSG_MAX and decodes (link-state messages with
 * their own decoder; a repeat of the last message
 * decoded on that port is not decoded again); a placed view has its
 * coordinates inside its extents (or both 0 while not yet consistent).
 */
#include <string.h>

#include "fuzz_input.h"
#include "tcore.h"
#include "tcore_wire.h"

#define CORE_AXES_MAX	4	/* enough for every code path, keeps it fast */
/* per input, so one input stays fast; the seeds are placed in 80 */
#define CORE_MAX_TICKS	128
#define CORE_MSG_MAX	1024

static struct tc_config core_cfg;
static uint8_t core_buf[CORE_MSG_MAX];

/* the last message decoded per port: a node repeats itself every tick */
static struct {
	size_t len;
	uint8_t msg[TC_MSG_MAX];
} core_sent[TC_MAX_PORTS];

static void core_send(void *ctx, uint8_t port, const uint8_t *msg,
		      size_t len)
{
	static struct tw_ls_msg lsm;
	static struct tw_msg m;

	(void)ctx;
	FZ_ASSERT(port < 2 * core_cfg.ndims);
	FZ_ASSERT(core_cfg.ports & (1u << port));
	FZ_ASSERT(len <= TC_MSG_MAX);
	if (len && msg[0] == TW_LS_MAGIC) {
		/* link state: its own decoder */
		FZ_ASSERT(tw_ls_decode(msg, len, core_cfg.ndims, NULL,
				       &lsm) == 0);
		FZ_ASSERT(lsm.id == core_cfg.id);
		return;
	}
	/* the decoder is deterministic: a repeat decodes as it did */
	if (core_sent[port].len == len && !memcmp(core_sent[port].msg, msg, len))
		return;
	FZ_ASSERT(tw_decode(msg, len, core_cfg.ndims, &m) == 0);
	FZ_ASSERT(m.id == core_cfg.id && m.port == port);
	core_sent[port].len = len;
	memcpy(core_sent[port].msg, msg, len);
}

static void core_read_config(struct fz *f, struct tc_config *cfg,
			     bool *restore)
{
	unsigned int axis;
	uint8_t flags;

	memset(cfg, 0, sizeof(*cfg));
	cfg->id = 0x7000;
	cfg->ndims = 1 + fz_u8(f) % CORE_AXES_MAX;
	flags = fz_u8(f);
	cfg->ports = fz_u16(f) & ((1u << (2 * cfg->ndims)) - 1);
	cfg->hello_ticks = fz_u8(f) % 16;
	cfg->dead_ticks = fz_u8(f) % 64;
	cfg->quiet_ticks = fz_u8(f) % 64;
	cfg->orient_ticks = fz_u8(f) % 32;
	cfg->block_mode = flags & 1;
	*restore = flags & 2;
	cfg->block_id = 1 + fz_u8(f);
	for (axis = 0; axis < cfg->ndims; axis++) {
		cfg->block_dims[axis] = 1 + fz_u8(f) % 4;
		cfg->block_coord[axis] = fz_u8(f) % cfg->block_dims[axis];
	}
}

static void core_restore(struct fz *f, struct tc_node *n)
{
	struct tc_view v = { .ndims = core_cfg.ndims };
	unsigned int i;

	for (i = 0; i < 8; i++)
		v.leader = v.leader << 8 | fz_u8(f);
	for (i = 0; i < v.ndims; i++) {
		v.coord[i] = fz_u8(f);
		v.dims[i] = 1 + fz_u8(f);	/* the kernel's extents */
	}
	v.wrap = fz_u8(f);
	for (i = 0; i < TC_MAX_PORTS; i++)
		v.portmap[i] = fz_u8(f);
	tc_node_restore(n, &v);
}

static void core_check_view(const struct tc_node *n)
{
	struct tc_view v;
	unsigned int axis;

	tc_view(n, &v);
	FZ_ASSERT(v.state <= TC_FAILED && v.role <= TC_ROLE_FOLLOWER);
	FZ_ASSERT(memchr(v.reason, '\0', sizeof(v.reason)));
	if (v.state != TC_PLACED)
		return;
	FZ_ASSERT(v.ndims == core_cfg.ndims);
	/* extents of 0 (and coordinate 0) say "not yet consistent" */
	for (axis = 0; axis < v.ndims; axis++)
		FZ_ASSERT(v.dims[axis] <= TORUS_MAX_EXTENT &&
			  (v.dims[axis] ? v.coord[axis] < v.dims[axis] :
					  !v.coord[axis]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct tc_output out = { .send = core_send };
	struct fz f = { .p = data, .n = size };
	unsigned int ticks = 0, i;
	struct tc_node *n;
	bool restore;

	core_read_config(&f, &core_cfg, &restore);
	for (i = 0; i < TC_MAX_PORTS; i++)
		core_sent[i].len = 0;
	n = calloc(1, tc_node_size(&core_cfg));
	if (!n)
		return 0;
	FZ_ASSERT(tc_node_init(n, &core_cfg, &out) == 0);
	if (restore)
		core_restore(&f, n);

	while (f.n) {
		uint8_t op = fz_u8(&f), arg = op >> 2;
		const uint8_t *p;
		size_t len;

		switch (op & 3) {
		case 0:
			for (i = 0; i <= arg % 8 && ticks < CORE_MAX_TICKS;
			     i++, ticks++)
				tc_tick(n);
			break;
		case 1:
			tc_port_state(n, arg % TC_MAX_PORTS, fz_u8(&f) & 1);
			break;
		case 2:
			len = fz_u16(&f) % CORE_MSG_MAX;
			p = fz_bytes(&f, len, &len);
			/* exactly the message, so ASan sees reads past it */
			memcpy(core_buf + CORE_MSG_MAX - len, p, len);
			tc_receive(n, arg % TC_MAX_PORTS,
				   core_buf + CORE_MSG_MAX - len, len);
			break;
		case 3:
			core_check_view(n);
			break;
		}
	}
	core_check_view(n);
	free(n);
	return 0;
}
