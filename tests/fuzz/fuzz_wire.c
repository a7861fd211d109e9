// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fuzz_wire.c - the core's control message decoders (tw_decode and
 * tw_ls_decode in daemon/core/tcore_wire.c).
 *
 * Input: u8 receiver's ndims (1 + b mod TC_MAX_AXES), then the message.
 * Beyond the sanitizers: a message that decodes is encoded again with
 * the tw_put_* encoders and must decode to the same fields (what the
 * decoder accepts, the encoder can say, and nothing is lost).
 */
#include <string.h>

#include "fuzz_input.h"
#include "tcore_wire.h"

static void wire_encode(const struct tw_msg *m, uint8_t ndims,
			struct tw_buf *b)
{
	unsigned int i;

	tw_put_id(b, m->id);
	tw_put_port(b, m->port);
	if (m->has_nbrs)
		tw_put_nbrs(b, m->nnbrs, m->nbr_label, m->nbr_hash);
	if (m->has_block)
		tw_put_block(b, m->block, ndims, m->block_coord);
	if (m->has_frame)
		tw_put_frame(b, m->leader, m->frame_flags, ndims, m->R,
			     m->coord);
	if (m->has_extent)
		tw_put_extent(b, ndims, m->gcd, m->cmin, m->cmax);
	for (i = 0; i < m->nface; i++)
		tw_put_face(b, ndims, &m->face[i]);
	for (i = 0; i < m->norient; i++)
		tw_put_orient(b, ndims, &m->orient[i]);
}

#define SAME(field) FZ_ASSERT(!memcmp(&a->field, &b->field, sizeof(a->field)))
#define SAME_N(field, n) \
	FZ_ASSERT(!memcmp(a->field, b->field, (n) * sizeof(a->field[0])))

static void wire_same(const struct tw_msg *a, const struct tw_msg *b,
		      uint8_t ndims)
{
	unsigned int i;

	SAME(id);
	SAME(port);
	SAME(has_nbrs);
	SAME(has_block);
	SAME(has_frame);
	SAME(has_extent);
	SAME(nface);
	SAME(norient);
	if (a->has_nbrs) {
		SAME(nnbrs);
		SAME_N(nbr_label, a->nnbrs);
		SAME_N(nbr_hash, a->nnbrs);
	}
	if (a->has_block) {
		SAME(block);
		SAME_N(block_coord, ndims);
	}
	if (a->has_frame) {
		SAME(leader);
		SAME(frame_flags);
		SAME_N(R, ndims);
		SAME_N(coord, ndims);
	}
	if (a->has_extent) {
		SAME_N(gcd, ndims);
		SAME_N(cmin, ndims);
		SAME_N(cmax, ndims);
	}
	for (i = 0; i < a->nface; i++) {
		SAME(face[i].block);
		SAME(face[i].normal);
		SAME(face[i].peer_label);
		SAME_N(face[i].a, ndims);
		SAME_N(face[i].b, ndims);
	}
	for (i = 0; i < a->norient; i++) {
		SAME(orient[i].block);
		SAME(orient[i].normal);
		SAME(orient[i].fail);
		if (!a->orient[i].fail)
			SAME_N(orient[i].map, ndims);
	}
}

/* a link-state message that decodes says the same once encoded again */
static void wire_ls(const uint8_t *msg, size_t len, uint8_t ndims)
{
	static struct tw_ls_msg m, again;
	static uint8_t out[TC_MSG_MAX];
	struct tw_buf b;
	unsigned int i;

	if (tw_ls_decode(msg, len, ndims, NULL, &m))
		return;
	FZ_ASSERT(m.id && m.leader && m.nrec <= TW_LS_MAX_RECS);
	tw_ls_init(&b, out, sizeof(out), ndims, m.id, m.leader, m.geom);
	for (i = 0; i < m.nrec; i++)
		FZ_ASSERT(tw_ls_put(&b, ndims, &m.rec[i]));
	FZ_ASSERT(tw_ls_decode(out, b.len, ndims, NULL, &again) == 0);
	FZ_ASSERT(again.id == m.id && again.leader == m.leader &&
		  again.nrec == m.nrec && again.geom == m.geom);
	FZ_ASSERT(!memcmp(again.rec, m.rec, m.nrec * sizeof(m.rec[0])));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { .p = data, .n = size };
	static struct tw_msg m, again;
	static uint8_t out[2048];
	uint8_t ndims = 1 + fz_u8(&f) % TC_MAX_AXES;
	struct tw_buf b;
	uint8_t *msg;

	/* exactly the message's bytes, so ASan sees any read past them */
	msg = malloc(f.n ? f.n : 1);
	if (!msg)
		return 0;
	memcpy(msg, f.p, f.n);
	if (!tw_decode(msg, f.n, ndims, &m)) {
		FZ_ASSERT(m.has_id && m.has_port && m.id);
		FZ_ASSERT(m.nnbrs <= TC_MAX_PORTS);
		FZ_ASSERT(m.nface <= TW_MAX_FACE && m.norient <= TW_MAX_FACE);
		tw_init(&b, out, sizeof(out));
		wire_encode(&m, ndims, &b);
		FZ_ASSERT(!b.overflow);
		FZ_ASSERT(tw_decode(out, b.len, ndims, &again) == 0);
		wire_same(&m, &again, ndims);
	}
	wire_ls(msg, f.n, ndims);
	free(msg);
	return 0;
}
