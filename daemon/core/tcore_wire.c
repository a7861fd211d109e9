// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcore wire format: encoder and a defensive decoder.
 */
#include <errno.h>
#include <string.h>

#include "tcore_wire.h"

void tw_init(struct tw_buf *b, uint8_t *mem, size_t cap)
{
	b->p = mem;
	b->cap = cap;
	b->len = 0;
	b->overflow = cap < 2;
	if (!b->overflow) {
		mem[0] = TW_MAGIC;
		mem[1] = TW_VERSION;
		b->len = 2;
	}
}

static uint8_t *tw_tlv(struct tw_buf *b, uint8_t type, size_t vlen)
{
	uint8_t *v;

	if (b->overflow || vlen > 255 || b->len + 2 + vlen > b->cap) {
		b->overflow = true;
		return NULL;
	}
	v = b->p + b->len;
	v[0] = type;
	v[1] = (uint8_t)vlen;
	b->len += 2 + vlen;
	return v + 2;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, v >> 16);
	put16(p + 2, v & 0xffff);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, v >> 32);
	put32(p + 4, v & 0xffffffff);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

void tw_put_id(struct tw_buf *b, uint64_t id)
{
	uint8_t *v = tw_tlv(b, TW_ID, 8);

	if (v)
		put64(v, id);
}

void tw_put_port(struct tw_buf *b, uint8_t port)
{
	uint8_t *v = tw_tlv(b, TW_PORT, 1);

	if (v)
		v[0] = port;
}

void tw_put_nbrs(struct tw_buf *b, uint8_t n, const uint8_t *label,
		 const uint32_t *hash)
{
	uint8_t *v = tw_tlv(b, TW_NBRS, 5 * (size_t)n);
	unsigned int i;

	for (i = 0; v && i < n; i++) {
		v[5 * i] = label[i];
		put32(v + 5 * i + 1, hash[i]);
	}
}

void tw_put_block(struct tw_buf *b, uint32_t block, uint8_t ndims,
		  const uint8_t *coord)
{
	uint8_t *v = tw_tlv(b, TW_BLOCK, 5 + (size_t)ndims);

	if (!v)
		return;
	put32(v, block);
	v[4] = ndims;
	memcpy(v + 5, coord, ndims);
}

void tw_put_frame(struct tw_buf *b, uint64_t leader, uint8_t flags,
		  uint8_t ndims, const uint8_t *R, const int16_t *coord)
{
	uint8_t *v = tw_tlv(b, TW_FRAME, 10 + 3 * (size_t)ndims);
	unsigned int i;

	if (!v)
		return;
	put64(v, leader);
	v[8] = flags;
	v[9] = ndims;
	memcpy(v + 10, R, ndims);
	for (i = 0; i < ndims; i++)
		put16(v + 10 + ndims + 2 * i, (uint16_t)coord[i]);
}

void tw_put_extent(struct tw_buf *b, uint8_t ndims, const uint16_t *gcd,
		   const int16_t *cmin, const int16_t *cmax)
{
	uint8_t *v = tw_tlv(b, TW_EXTENT, 1 + 6 * (size_t)ndims);
	unsigned int i;

	if (!v)
		return;
	v[0] = ndims;
	for (i = 0; i < ndims; i++) {
		put16(v + 1 + 6 * i, gcd[i]);
		put16(v + 3 + 6 * i, (uint16_t)cmin[i]);
		put16(v + 5 + 6 * i, (uint16_t)cmax[i]);
	}
}

void tw_put_face(struct tw_buf *b, uint8_t ndims, const struct tw_face *f)
{
	uint8_t *v = tw_tlv(b, TW_FACE, 7 + 2 * (size_t)ndims);

	if (!v)
		return;
	put32(v, f->block);
	v[4] = f->normal;
	v[5] = f->peer_label;
	v[6] = ndims;
	memcpy(v + 7, f->a, ndims);
	memcpy(v + 7 + ndims, f->b, ndims);
}

void tw_put_open(struct tw_buf *b, uint8_t ndims, const int16_t *omin,
		 const int16_t *omax, const int16_t *clmin,
		 const int16_t *clmax)
{
	uint8_t *v = tw_tlv(b, TW_OPEN, 1 + 8 * (size_t)ndims);
	unsigned int i;

	if (!v)
		return;
	v[0] = ndims;
	for (i = 0; i < ndims; i++) {
		put16(v + 1 + 8 * i, (uint16_t)omin[i]);
		put16(v + 3 + 8 * i, (uint16_t)omax[i]);
		put16(v + 5 + 8 * i, (uint16_t)clmin[i]);
		put16(v + 7 + 8 * i, (uint16_t)clmax[i]);
	}
}

void tw_put_epoch(struct tw_buf *b, uint8_t ndims, const uint16_t *epoch,
		  uint8_t cur)
{
	uint8_t *v = tw_tlv(b, TW_EPOCH, 2 + 2 * (size_t)ndims);
	unsigned int i;

	if (!v)
		return;
	v[0] = ndims;
	for (i = 0; i < ndims; i++)
		put16(v + 1 + 2 * i, epoch[i]);
	v[1 + 2 * ndims] = cur;
}

void tw_put_kview(struct tw_buf *b, uint8_t ndims, uint8_t kview)
{
	uint8_t *v = tw_tlv(b, TW_KVIEW, 2);

	if (!v)
		return;
	v[0] = ndims;
	v[1] = kview;
}

void tw_put_trusted(struct tw_buf *b, uint16_t labels)
{
	uint8_t *v = tw_tlv(b, TW_TRUSTED, 2);

	if (v)
		put16(v, labels);
}

void tw_put_orient(struct tw_buf *b, uint8_t ndims,
		   const struct tw_orient *o)
{
	uint8_t *v;

	if (o->fail) {
		v = tw_tlv(b, TW_FAIL, 5);
		if (!v)
			return;
		put32(v, o->block);
		v[4] = o->normal;
		return;
	}
	v = tw_tlv(b, TW_ORIENT, 6 + (size_t)ndims);
	if (!v)
		return;
	put32(v, o->block);
	v[4] = o->normal;
	v[5] = ndims;
	memcpy(v + 6, o->map, ndims);
}

static bool tw_dir_ok(uint8_t dir, uint8_t ndims)
{
	return dir < 2 * ndims;
}

/* One TLV into @m; false if it is malformed. */
static bool tw_decode_tlv(uint8_t type, const uint8_t *v, uint8_t vlen,
			  uint8_t ndims, struct tw_msg *m)
{
	unsigned int i, axes = 0;

	switch (type) {
	case TW_ID:
		if (vlen != 8 || m->has_id)
			return false;
		m->id = get64(v);
		m->has_id = m->id != 0;
		return m->has_id;
	case TW_PORT:
		if (vlen != 1 || m->has_port || !tw_dir_ok(v[0], ndims))
			return false;
		m->port = v[0];
		m->has_port = true;
		return true;
	case TW_NBRS:
		if (vlen % 5 || vlen / 5 > TC_MAX_PORTS || m->has_nbrs)
			return false;
		m->nnbrs = vlen / 5;
		for (i = 0; i < m->nnbrs; i++) {
			m->nbr_label[i] = v[5 * i];
			m->nbr_hash[i] = get32(v + 5 * i + 1);
			if (!tw_dir_ok(m->nbr_label[i], ndims))
				return false;
		}
		m->has_nbrs = true;
		return true;
	case TW_BLOCK:
		if (vlen != 5 + ndims || v[4] != ndims || m->has_block)
			return false;
		m->block = get32(v);
		memcpy(m->block_coord, v + 5, ndims);
		m->has_block = m->block != 0;
		return m->has_block;
	case TW_FRAME:
		if (vlen != 10 + 3 * ndims || v[9] != ndims || m->has_frame)
			return false;
		m->leader = get64(v);
		m->frame_flags = v[8];
		for (i = 0; i < ndims; i++) {
			m->R[i] = v[10 + i];
			m->coord[i] = (int16_t)get16(v + 10 + ndims + 2 * i);
			/* an axis the sender cannot orient is 0xff */
			if (m->R[i] == 0xff)
				continue;
			/* a signed permutation: two axes never share an image */
			if (!tw_dir_ok(m->R[i], ndims) || 
			    (axes & (1u << (m->R[i] >> 1))))
				return false;
			axes |= 1u << (m->R[i] >> 1);
		}
		m->has_frame = m->leader != 0;
		return m->has_frame;
	case TW_EXTENT:
		if (vlen != 1 + 6 * ndims || v[0] != ndims || m->has_extent)
			return false;
		for (i = 0; i < ndims; i++) {
			m->gcd[i] = get16(v + 1 + 6 * i);
			m->cmin[i] = (int16_t)get16(v + 3 + 6 * i);
			m->cmax[i] = (int16_t)get16(v + 5 + 6 * i);
			if (m->cmin[i] > m->cmax[i])
				return false;
		}
		m->has_extent = true;
		return true;
	case TW_OPEN:
		if (vlen != 1 + 8 * ndims || v[0] != ndims || m->has_open)
			return false;
		for (i = 0; i < ndims; i++) {
			m->omin[i] = (int16_t)get16(v + 1 + 8 * i);
			m->omax[i] = (int16_t)get16(v + 3 + 8 * i);
			m->clmin[i] = (int16_t)get16(v + 5 + 8 * i);
			m->clmax[i] = (int16_t)get16(v + 7 + 8 * i);
		}
		m->has_open = true;
		return true;
	case TW_EPOCH:
		if (vlen != 2 + 2 * ndims || v[0] != ndims || m->has_epoch ||
		    (v[1 + 2 * ndims] & ~((1u << ndims) - 1)))
			return false;
		memset(m->epoch, 0, sizeof(m->epoch));
		for (i = 0; i < ndims; i++)
			m->epoch[i] = get16(v + 1 + 2 * i);
		m->cur = v[1 + 2 * ndims];
		m->has_epoch = true;
		return true;
	case TW_KVIEW:
		if (vlen != 2 || v[0] != ndims ||
		    (v[1] & ~((1u << ndims) - 1)))
			return false;
		m->kview = v[1];
		return true;
	case TW_TRUSTED:
		if (vlen != 2 || m->has_trusted ||
		    (get16(v) & ~((1u << (2 * ndims)) - 1)))
			return false;
		m->trusted = get16(v);
		m->has_trusted = true;
		return true;
	case TW_FACE: {
		struct tw_face *f;

		if (vlen != 7 + 2 * ndims || v[6] != ndims)
			return false;
		if (m->nface >= TW_MAX_FACE)
			return true;	/* more than we take: ignore */
		f = &m->face[m->nface];
		f->block = get32(v);
		f->normal = v[4];
		f->peer_label = v[5];
		if (!f->block || !tw_dir_ok(f->normal, ndims) ||
		    !tw_dir_ok(f->peer_label, ndims))
			return false;
		memcpy(f->a, v + 7, ndims);
		memcpy(f->b, v + 7 + ndims, ndims);
		m->nface++;
		return true;
	}
	case TW_ORIENT:
	case TW_FAIL: {
		struct tw_orient *o;

		if (type == TW_ORIENT ? vlen != 6 + ndims || v[5] != ndims :
					vlen != 5)
			return false;
		if (m->norient >= TW_MAX_FACE)
			return true;
		o = &m->orient[m->norient];
		memset(o, 0, sizeof(*o));
		o->block = get32(v);
		o->normal = v[4];
		o->fail = type == TW_FAIL;
		if (!o->block || !tw_dir_ok(o->normal, ndims))
			return false;
		for (i = 0; !o->fail && i < ndims; i++) {
			o->map[i] = v[6 + i];
			if (!tw_dir_ok(o->map[i], ndims))
				return false;
		}
		m->norient++;
		return true;
	}
	default:
		return true;	/* a later version's TLV */
	}
}

int tw_decode(const uint8_t *msg, size_t len, uint8_t ndims,
	      struct tw_msg *m)
{
	size_t off = 2;

	/* only the presence flags and counts: arrays are read up to them */
	m->has_id = m->has_port = m->has_nbrs = false;
	m->has_block = m->has_frame = m->has_extent = m->has_open = false;
	m->has_epoch = m->has_trusted = false;
	m->kview = 0;
	m->nnbrs = m->nface = m->norient = 0;
	if (!msg || len < 2 || msg[0] != TW_MAGIC || msg[1] != TW_VERSION ||
	    !ndims || ndims > TC_MAX_AXES)
		return -EBADMSG;
	while (off < len) {
		uint8_t type, vlen;

		/* type 0 never occurs: Ethernet padding starts here */
		if (!msg[off])
			break;
		if (len - off < 2)
			return -EBADMSG;
		type = msg[off];
		vlen = msg[off + 1];
		if (len - off - 2 < vlen)
			return -EBADMSG;
		if (!tw_decode_tlv(type, msg + off + 2, vlen, ndims, m))
			return -EBADMSG;
		off += 2 + (size_t)vlen;
	}
	return m->has_id && m->has_port ? 0 : -EBADMSG;
}

uint32_t tw_ls_geom(uint8_t ndims, const uint16_t *dims, uint8_t wrap)
{
	uint64_t h = wrap;
	unsigned int k;

	for (k = 0; k < ndims && k < TC_MAX_AXES; k++)
		h = (h << 16 | dims[k]) ^ (h >> 48);
	return tw_id_hash(h ^ ndims);
}

bool tw_ls_init(struct tw_buf *b, uint8_t *mem, size_t cap, uint8_t ndims,
		uint64_t id, uint64_t leader, uint32_t geom)
{
	b->p = mem;
	b->cap = cap;
	b->len = 0;
	b->overflow = cap < TW_LS_HDR;
	if (b->overflow)
		return false;
	mem[0] = TW_LS_MAGIC;
	mem[1] = TW_LS_VERSION;
	mem[2] = ndims;
	mem[3] = 0;
	put64(mem + 4, id);
	put64(mem + 12, leader);
	put32(mem + 20, geom);
	b->len = TW_LS_HDR;
	return true;
}

bool tw_ls_put(struct tw_buf *b, uint8_t ndims, const struct tw_ls_rec *r)
{
	uint8_t *v;

	if (b->overflow || b->len + TW_LS_REC(ndims) > b->cap ||
	    b->p[3] == UINT8_MAX)
		return false;
	v = b->p + b->len;
	memcpy(v, r->coord, ndims);
	put32(v + ndims, r->seq);
	put16(v + ndims + 4, r->mask);
	b->len += TW_LS_REC(ndims);
	b->p[3]++;
	return true;
}

unsigned int tw_ls_count(const struct tw_buf *b)
{
	return b->len >= TW_LS_HDR ? b->p[3] : 0;
}

int tw_ls_decode(const uint8_t *msg, size_t len, uint8_t ndims,
		 const uint16_t *dims, struct tw_ls_msg *m)
{
	const uint8_t *v;
	size_t need, i;
	unsigned int k;

	m->nrec = 0;
	if (!msg || len < TW_LS_HDR || msg[0] != TW_LS_MAGIC ||
	    msg[1] != TW_LS_VERSION || !ndims || ndims > TC_MAX_AXES ||
	    msg[2] != ndims || msg[3] > TW_LS_MAX_RECS)
		return -EBADMSG;
	need = TW_LS_HDR + msg[3] * TW_LS_REC(ndims);
	if (len < need)
		return -EBADMSG;
	for (i = need; i < len; i++)
		if (msg[i])
			return -EBADMSG;	/* only padding may follow */
	m->id = get64(msg + 4);
	m->leader = get64(msg + 12);
	m->geom = get32(msg + 20);
	if (!m->id || !m->leader)
		return -EBADMSG;
	v = msg + TW_LS_HDR;
	for (i = 0; i < msg[3]; i++, v += TW_LS_REC(ndims)) {
		struct tw_ls_rec *r = &m->rec[i];

		memset(r->coord, 0, sizeof(r->coord));
		memcpy(r->coord, v, ndims);
		r->seq = get32(v + ndims);
		r->mask = get16(v + ndims + 4);
		if (r->mask >> (2 * ndims))
			return -EBADMSG;
		for (k = 0; dims && k < ndims; k++)
			if (r->coord[k] >= dims[k])
				return -EBADMSG;
	}
	m->nrec = msg[3];
	return 0;
}

uint32_t tw_id_hash(uint64_t id)
{
	id ^= id >> 33;
	id *= 0xff51afd7ed558ccdULL;
	id ^= id >> 33;
	id *= 0xc4ceb9fe1a85ec53ULL;
	id ^= id >> 33;
	return (uint32_t)id | 1;	/* never 0: 0 means "none" */
}
