// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * tcore link state: every placed node floods the cables it sees down,
 * so that every node of the frame knows the same fault set.
 *
 * A record is (reporter, seq, mask of the reporter's down directions).
 * A reporter with nothing down floods nothing but, when a cable comes
 * back, a tombstone (empty mask, higher seq) that ages out later.  A
 * reporter refreshes its record every refresh period; a record not
 * refreshed for the maximum age is dropped (its reporter died: its
 * neighbors now report it).  Records are flooded to every adjacent
 * port (a neighbor placed in our frame) except the one they came
 * from, and only when newer than what we held; a new adjacency is sent
 * the whole database (anti-entropy), so a node that joins late or lost
 * messages catches up.
 */
#include <errno.h>
#include <string.h>

#include "tcore_int.h"

/* room for the bound, our own record beyond it, and one free slot that
 * ends every probe */
static size_t ls_slots(uint32_t cap)
{
	return (size_t)cap + cap / 8 + 2;
}

static uint32_t ls_cap(const struct tc_config *cfg)
{
	return cfg->ls_records ? cfg->ls_records : TC_LS_RECORDS;
}

/* the header, apart from the node: the node holds a pointer to it */
static size_t ls_head(void)
{
	return (sizeof(struct tc_ls) + 7) & ~(size_t)7;
}

size_t tc_ls_size(const struct tc_config *cfg)
{
	size_t slots = ls_slots(ls_cap(cfg));

	/* the header, records, epoch and meta bytes, then per port 10 */
	return ls_head() + slots * sizeof(struct tc_ls_rec) +
	       ((2 * slots + 3) & ~(size_t)3) + 2 * (size_t)cfg->ndims * 10;
}

void tc_ls_init(struct tc_node *n, uint8_t *mem)
{
	struct tc_ls *ls = (struct tc_ls *)mem;
	struct tc_node_config *cfg = &n->cfg;
	struct tc_config size_cfg = { .ndims = cfg->ndims };
	uint32_t age;

	if (!cfg->ls_records)
		cfg->ls_records = TC_LS_RECORDS;
	if (!cfg->ls_refresh_ticks)
		cfg->ls_refresh_ticks = (uint16_t)(cfg->hello_ticks < 256 ?
						   64 * cfg->hello_ticks :
						   16384);
	if (!cfg->ls_max_age_ticks) {
		age = 3u * cfg->ls_refresh_ticks + cfg->dead_ticks;
		cfg->ls_max_age_ticks = age > UINT16_MAX ? UINT16_MAX : age;
	}
	if (!cfg->ls_settle_ticks)
		cfg->ls_settle_ticks = cfg->dead_ticks;
	/* a record must outlive the period that refreshes it */
	if (cfg->ls_max_age_ticks <= cfg->ls_refresh_ticks)
		cfg->ls_max_age_ticks = cfg->ls_refresh_ticks + 1;

	n->ls = ls;
	size_cfg.ls_records = cfg->ls_records;
	memset(mem, 0, tc_ls_size(&size_cfg));
	ls->slots = (uint32_t)ls_slots(cfg->ls_records);
	ls->nports = 2 * cfg->ndims;
	ls->rec = (struct tc_ls_rec *)(mem + ls_head());
	memset(ls->rec, 0xff, ls->slots * sizeof(struct tc_ls_rec));
	ls->epoch_in = 1;
	ls->generation = 1;
	ls->relay_port = LS_LOCAL;
}

uint64_t tc_ls_record_hash(uint32_t node, uint16_t mask)
{
	uint64_t h = ((uint64_t)node << 16 | mask) + 0x9e3779b97f4a7c15ULL;

	h = (h ^ (h >> 30)) * 0xbf58476d1ce4e5b9ULL;
	h = (h ^ (h >> 27)) * 0x94d049bb133111ebULL;
	return h ^ (h >> 31);
}

/*
 * a is newer than b.  Sequence numbers are 32-bit and never wrap (a
 * refresh every 64 hellos takes centuries to exhaust them): with
 * serial number arithmetic, three versions about a third of the space
 * apart each looked newer than the one before, and a neighbor replaying
 * them kept the frame flooding forever.
 */
static bool ls_newer(uint32_t a, uint32_t b)
{
	return a > b;
}

static uint32_t ls_home(const struct tc_ls *ls, uint32_t key)
{
	return (uint32_t)(((uint64_t)(key * 0x9e3779b1u) * ls->slots) >> 32);
}

/* the slot of @key, or of the free slot where it would go */
static uint32_t ls_find(const struct tc_ls *ls, uint32_t key)
{
	uint32_t s = ls_home(ls, key);

	while (ls->rec[s].key != key && ls->rec[s].key != LS_EMPTY)
		if (++s == ls->slots)
			s = 0;
	return s;
}

/* slots in a cache line */
#define LS_LINE	(64 / sizeof(struct tc_ls_rec))

/*
 * The first slot a lookup of @key reads: a link-state message names
 * records all over the table, so its lookups start fetching together
 * instead of waiting for each other's cache misses.
 */
static void ls_prefetch(const struct tc_ls *ls, uint32_t key, bool full)
{
	uint32_t s = ls_home(ls, key) + LS_LINE;

	if (full)
		__builtin_prefetch(&ls_meta(ls)[s - LS_LINE]);
	__builtin_prefetch(&ls->rec[s - LS_LINE]);
	/* a probe often runs into the next cache line */
	__builtin_prefetch(&ls->rec[s < ls->slots ? s : s - ls->slots]);
}

/*
 * A filter of the keys held, in the spare bits of the meta bytes: a key
 * sets one of the two LS_SEEN bits of its home slot.  Without it, a key
 * refused by a full table (up to 8/9 of its slots taken) costs a probe
 * of some 40 slots every time a neighbor floods it.  Deletions leave
 * the bits of the keys gone until ls_reseen().
 */
static uint8_t ls_seen_bit(uint32_t key)
{
	return (key * 0x85ebca6bu) >> 31 ? 0x40 : 0x20;
}

static void ls_mark_seen(struct tc_ls *ls, uint32_t key)
{
	ls_meta(ls)[ls_home(ls, key)] |= ls_seen_bit(key);
}

/* false: the table does not hold @key; true: it may */
static bool ls_may_hold(const struct tc_ls *ls, uint32_t key)
{
	return ls_meta(ls)[ls_home(ls, key)] & ls_seen_bit(key);
}

/* the filter of the keys held now (after deletions) */
static void ls_reseen(struct tc_ls *ls)
{
	uint32_t s;

	for (s = 0; s < ls->slots; s++)
		ls_meta(ls)[s] &= (uint8_t)~LS_SEEN;
	for (s = 0; s < ls->slots; s++)
		if (ls->rec[s].key != LS_EMPTY)
			ls_mark_seen(ls, ls->rec[s].key);
}

/* the fault set changes with the set of (key, mask) pairs, mask != 0 */
static void ls_account(struct tc_ls *ls, uint32_t key, uint16_t mask,
		       bool add)
{
	uint64_t h;

	if (!mask)
		return;
	h = tc_ls_record_hash(key, mask);
	ls->digest += add ? h : -h;
	ls->nfaults += add ? 1 : -1;
	ls->generation++;
}

static void ls_set_pend(struct tc_ls *ls, uint32_t s, uint8_t from)
{
	if (!(ls_meta(ls)[s] & LS_PEND))
		ls->npend++;
	ls_meta(ls)[s] = (ls_meta(ls)[s] & LS_SEEN) | LS_PEND | from;
	if (s < ls->pend_from)
		ls->pend_from = s;
}

/* remove slot @s; linear probing: pull later records of the run back */
static void ls_delete(struct tc_ls *ls, uint32_t s)
{
	uint32_t i = s, j = s, h;

	ls_account(ls, ls->rec[s].key, ls->rec[s].mask, false);
	if (ls_meta(ls)[s] & LS_PEND)
		ls->npend--;
	ls->count--;
	for (;;) {
		if (++j == ls->slots)
			j = 0;
		if (ls->rec[j].key == LS_EMPTY)
			break;
		h = ls_home(ls, ls->rec[j].key);
		/* j may move to i only if its home is not in (i, j] */
		if (i <= j ? (i < h && h <= j) : (i < h || h <= j))
			continue;
		ls->rec[i] = ls->rec[j];
		ls_epoch(ls)[i] = ls_epoch(ls)[j];
		ls_meta(ls)[i] = (ls_meta(ls)[i] & LS_SEEN) |
				 (ls_meta(ls)[j] & ~LS_SEEN);
		if ((ls_meta(ls)[i] & LS_PEND) && i < ls->pend_from)
			ls->pend_from = i;
		i = j;
	}
	ls->rec[i].key = LS_EMPTY;
	ls_meta(ls)[i] &= LS_SEEN;
}

static void ls_clear(struct tc_ls *ls)
{
	if (ls->count || ls->leader)
		ls->generation++;
	memset(ls->rec, 0xff, ls->slots * sizeof(struct tc_ls_rec));
	memset(ls_meta(ls), 0, ls->slots);
	ls->count = ls->nfaults = ls->npend = 0;
	ls->pend_from = ls->slots;
	ls->digest = 0;
	ls->leader = 0;
	ls->adj = ls->sync = 0;
	ls->was_full = false;
	ls->relay_port = LS_LOCAL;
}

/* no room for another reporter (but our own record) */
static bool ls_full(const struct tc_node *n)
{
	return n->ls->count >= n->cfg.ls_records;
}

/* a new reporter while ls_full(): the record is lost */
static void ls_refuse(struct tc_node *n, uint16_t mask)
{
	struct tc_ls *ls = n->ls;

	if (!mask)
		return;	/* an unknown tombstone: nothing lost */
	n->ls->st.overflow++;
	if (!ls->was_full)
		ls->generation++;
	ls->was_full = true;
	ls->full_at = n->now;
}

/*
 * Store a record newer than what we hold (or new) in slot @s, ls_find()
 * of @key, and flood it.  A new key beyond the bound is refused and
 * counted: the fault set is then incomplete until the refusal is one
 * maximum age old.  A tombstone of a record we never held has nothing to
 * cancel here: a full table drops it uncounted (the transient reports of
 * staggered boots leave many).
 */
static void ls_store(struct tc_node *n, uint32_t s, uint32_t key,
		     uint32_t seq, uint16_t mask, uint8_t from)
{
	struct tc_ls *ls = n->ls;

	if (ls->rec[s].key == LS_EMPTY) {
		/* the slack of the table always holds our own record */
		if (ls_full(n) && from != LS_LOCAL) {
			ls_refuse(n, mask);
			return;
		}
		ls->count++;
		ls->rec[s].key = key;
		ls->rec[s].mask = 0;
		ls_mark_seen(ls, key);
	}
	if (ls->rec[s].mask != mask) {
		ls_account(ls, key, ls->rec[s].mask, false);
		ls_account(ls, key, mask, true);
	}
	ls->rec[s].seq = seq;
	ls->rec[s].mask = mask;
	ls_epoch(ls)[s] = ls->now_epoch;
	ls_set_pend(ls, s, from);
}

static uint32_t ls_index(const struct tc_ls *ls, uint8_t ndims,
			 const uint8_t *coord)
{
	uint32_t idx = 0;
	int k;

	for (k = ndims - 1; k >= 0; k--)
		idx = idx * ls->dims[k] + coord[k];
	return idx;
}

static void ls_coord(const struct tc_ls *ls, uint8_t ndims, uint32_t idx,
		     uint8_t *coord)
{
	unsigned int k;

	for (k = 0; k < ndims; k++) {
		coord[k] = (uint8_t)(idx % ls->dims[k]);
		idx /= ls->dims[k];
	}
}

/* global direction @g leads to a node from @coord (not off a mesh edge) */
static bool ls_dir_exists(const struct tc_ls *ls, const uint8_t *coord,
			  uint8_t g)
{
	unsigned int k = g >> 1;

	if (ls->dims[k] <= 1)
		return false;
	if (ls->wrap & (1u << k))
		return true;
	return (g & 1) ? coord[k] > 0 : coord[k] + 1 < ls->dims[k];
}

/* the directions a node at @coord has cables in */
static uint16_t ls_dirs(const struct tc_ls *ls, uint8_t ndims,
			const uint8_t *coord)
{
	uint16_t m = 0;
	uint8_t g;

	for (g = 0; g < 2 * ndims; g++)
		if (ls_dir_exists(ls, coord, g))
			m |= (uint16_t)(1u << g);
	return m;
}

/* the directions every node has: along rings of two or more */
static uint16_t ls_ring_dirs(const struct tc_ls *ls, uint8_t ndims)
{
	uint16_t m = 0;
	unsigned int k;

	for (k = 0; k < ndims; k++)
		if (ls->dims[k] > 1 && (ls->wrap & (1u << k)))
			m |= (uint16_t)(3u << (2 * k));
	return m;
}

static uint32_t ls_step(const struct tc_ls *ls, uint8_t ndims, uint32_t idx,
			uint8_t g);

/* the frame index of the node across port @p, LS_EMPTY if none */
static uint32_t ls_across(const struct tc_node *n, uint8_t p)
{
	const struct tc_ls *ls = n->ls;
	uint8_t c[TC_MAX_AXES], g;

	if (tn_R(n)[p >> 1] == TC_NONE)
		return LS_EMPTY;
	g = tc_dir_apply(tn_R(n), p);
	ls_coord(ls, n->cfg.ndims, ls->self, c);
	if (!ls_dir_exists(ls, c, g))
		return LS_EMPTY;
	return ls_step(ls, n->cfg.ndims, ls->self, g);
}

/*
 * A cable's state is believed from its two ends only: a record is its
 * reporter's word on its own cables, and the node across a cable knows
 * it as well.  So a record that says an adjacent node's cable to us is
 * down, while we hold an adjacency over that very cable, is taken from
 * that node only (its copy reaches us over the adjacency); relayed by a
 * third party it is made up or stale.  Returns the port of that
 * adjacency, or LS_LOCAL when the record may be taken.
 */
/*
 * The node across @q told us, in its last hello, that it hears us on
 * that cable: its word on the cable is then that it is up, whatever a
 * third party relays.  (A node that lost our hellos says otherwise, and
 * its report of the cable reaches us through others.)
 */
static bool ls_hears_us(const struct tc_node *n, uint8_t q)
{
	const uint32_t *row;

	if (!tn_hop2(n))
		return false;
	row = tn_hop2(n) + (size_t)q * tc_nports(n);
	return row[tn_nbr(n)[q].peer_port] == tw_id_hash(n->cfg.id);
}

static uint8_t ls_hearsay(const struct tc_node *n, uint8_t port,
			  uint32_t key, uint16_t mask)
{
	const struct tc_ls *ls = n->ls;
	uint8_t q, g;
	uint16_t to_us;

	if (!mask || ls_across(n, port) == key)
		return LS_LOCAL;
	for (q = 0; q < tc_nports(n); q++) {
		if (!(ls->adj & (1u << q)) || q == port ||
		    ls_across(n, q) != key || !ls_hears_us(n, q))
			continue;
		g = tc_dir_apply(tn_R(n), q);
		/* on a ring of two both of its cables on the axis reach us */
		to_us = ls->dims[g >> 1] == 2 ? (uint16_t)(3u << (g & ~1u)) :
						(uint16_t)(1u << (g ^ 1));
		if (mask & to_us)
			return q;
	}
	return LS_LOCAL;
}

/* a neighbor we exchange link state with: placed in our frame */
static bool ls_nbr_ok(const struct tc_node *n, uint8_t p)
{
	const struct tc_nbr *nb = &tn_nbr(n)[p];

	return nb->id && (nb->flags & (NB_FRAME | NB_PLACED | NB_MISWIRED)) ==
			 (NB_FRAME | NB_PLACED) && nb->leader == n->leader;
}

int tc_ls_receive(struct tc_node *n, uint8_t port, const uint8_t *msg,
		  size_t len)
{
	uint32_t key[TW_LS_MAX_RECS], s;
	struct tc_ls *ls = n->ls;
	uint16_t every_node_has;
	struct tw_ls_msg m;
	bool full;
	unsigned int i;
	uint8_t q;

	n->stats.msgs_rx++;
	n->stats.bytes_rx += len;
	if (port >= tc_nports(n) ||
	    tw_ls_decode(msg, len, n->cfg.ndims, ls->leader ? ls->dims : NULL,
			 &m)) {
		n->ls->st.bad_rx++;
		n->stats.bad_rx++;
		return -EBADMSG;
	}
	/*
	 * only from a neighbor placed in our frame, while we are placed,
	 * and numbered as we are (a ring that grew renumbers: records in
	 * the old numbering would name the wrong reporters)
	 */
	if (!ls->leader || m.leader != ls->leader || m.geom != ls->geom ||
	    m.id != tn_nbr(n)[port].id || !ls_nbr_ok(n, port)) {
		n->ls->st.foreign++;
		return 0;
	}
	/*
	 * a mask may only name cables the reporter has (every node has
	 * the directions along rings: no need to look at its coordinates)
	 */
	every_node_has = ls_ring_dirs(ls, n->cfg.ndims);
	full = ls_full(n);	/* for the prefetch: may change below */
	for (i = 0; i < m.nrec; i++) {
		if ((m.rec[i].mask & ~every_node_has) &&
		    (m.rec[i].mask & ~ls_dirs(ls, n->cfg.ndims,
					      m.rec[i].coord))) {
			n->ls->st.bad_rx++;
			n->stats.bad_rx++;
			return -EBADMSG;
		}
		key[i] = ls_index(ls, n->cfg.ndims, m.rec[i].coord);
		if (i < LS_AHEAD)
			ls_prefetch(ls, key[i], full);
	}
	tn_nbr(n)[port].silent = 0;
	if (!m.nrec) {
		/* a new adjacency asks for the whole database */
		ls->sync |= (uint16_t)(1u << port);
		ls_sync_pos(ls)[port] = 0;
		return 0;
	}
	for (i = 0; i < m.nrec; i++) {
		const struct tw_ls_rec *r = &m.rec[i];

		if (i + LS_AHEAD < m.nrec)
			ls_prefetch(ls, key[i + LS_AHEAD], full);
		if (key[i] == ls->self) {
			/*
			 * Ours as others hold it: from an earlier life, or
			 * made up.  Jump past it, once: the next origination
			 * outbids it everywhere, and the same copy seen again
			 * is older than ours and changes nothing.
			 */
			if (ls_newer(r->seq, ls->seq) ||
			    (r->seq == ls->seq && r->mask != ls->mask)) {
				ls->seq = r->seq;
				ls->force = true;
			} else if (r->mask != ls->mask && ls->seq) {
				/*
				 * an older version, going round again (ours
				 * aged out): ours again, same number, so that
				 * whoever holds it learns better
				 */
				ls->reassert = true;
			}
			continue;
		}
		q = ls_hearsay(n, port, key[i], r->mask);
		if (q != LS_LOCAL) {
			n->ls->st.hearsay++;
			s = ls_find(ls, key[i]);
			if ((ls->rec[s].key != key[i] ||
			     ls_newer(r->seq, ls->rec[s].seq)) &&
			    (ls->relay_port == LS_LOCAL ||
			     ls_newer(r->seq, ls->relay_seq))) {
				ls->relay_seq = r->seq;
				ls->relay_mask = r->mask;
				ls->relay_port = q;
			}
			continue;
		}
		/* what ls_store() would find: a new key, refused */
		if (ls_full(n) && !ls_may_hold(ls, key[i])) {
			ls_refuse(n, r->mask);
			continue;
		}
		s = ls_find(ls, key[i]);
		if (ls->rec[s].key == key[i] &&
		    !ls_newer(r->seq, ls->rec[s].seq))
			continue;
		ls_store(n, s, key[i], r->seq, r->mask, port);
	}
	return 0;
}

/*
 * While the frame settles (its first ls_settle_ticks, by default
 * dead_ticks), only a cable without carrier is reported down.  A
 * neighbor alive is heard within that time, and a resumed node takes a
 * port back into its view only once the node across says where the
 * cable lands: until then silence and a missing port are no fault.  A
 * daemon restarted on a placed kernel reported every cable down at its
 * first tick, and its neighbors routed around it for a second.
 */
static bool ls_settling_unknown(const struct tc_node *n, uint8_t p)
{
	return n->ls->settle_in &&
	       (p == TC_NONE || (!tn_nbr(n)[p].id && (n->up & (1u << p))));
}

/*
 * The global directions whose cable is down, as this node sees them.  A
 * neighbor alive but not (yet) placed in our frame is reported only
 * when it stays so for two quiet periods: while a frame is placed, its
 * nodes are next to unplaced ones for a moment, which is no fault.
 */
static uint16_t ls_own_mask(struct tc_node *n, const struct tc_view *v)
{
	uint16_t mask = 0, hold = 2 * n->cfg.quiet_ticks;
	struct tc_ls *ls = n->ls;
	uint8_t g, p;

	ls->unknown = false;

	for (p = 0; p < tc_nports(n); p++) {
		if (!tn_nbr(n)[p].id || ls_nbr_ok(n, p))
			ls_unready(ls)[p] = 0;
		else if (ls_unready(ls)[p] <= hold)
			ls_unready(ls)[p]++;
	}
	for (g = 0; g < 2 * n->cfg.ndims; g++) {
		if (!ls_dir_exists(ls, v->coord, g))
			continue;
		p = v->portmap[g];
		if (ls_settling_unknown(n, p)) {
			ls->unknown = true;
			continue;
		}
		if (p == TC_NONE || !tn_nbr(n)[p].id ||
		    ls_unready(ls)[p] > hold)
			mask |= (uint16_t)(1u << g);
	}
	return mask;
}

/* placed in a frame that is not the database's: start over in it */
static bool ls_frame(struct tc_node *n, const struct tc_view *v)
{
	struct tc_ls *ls = n->ls;
	uint64_t nodes = 1;
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++)
		nodes *= v->dims[k] ? v->dims[k] : UINT32_MAX;
	if (v->state != TC_PLACED || nodes >= UINT32_MAX) {
		if (ls->leader)
			ls_clear(ls);
		return false;
	}
	if (ls->leader == v->leader && ls->wrap == v->wrap &&
	    !memcmp(ls->dims, v->dims, sizeof(ls->dims)) &&
	    ls->self == ls_index(ls, n->cfg.ndims, v->coord))
		return true;
	ls_clear(ls);
	ls->leader = v->leader;
	ls->wrap = v->wrap;
	memcpy(ls->dims, v->dims, sizeof(ls->dims));
	ls->self = ls_index(ls, n->cfg.ndims, v->coord);
	ls->geom = tw_ls_geom(n->cfg.ndims, ls->dims, ls->wrap);
	ls->mask = 0;
	ls->refresh_in = 0;
	ls->settle_in = n->cfg.ls_settle_ticks;
	return true;
}

/*
 * Ports with an adjacency.  A new one (or a new node on it) asks the
 * neighbor for its whole database with an empty message, and sends it
 * ours.  The two ends see the adjacency at different ticks, and a
 * neighbor drops link state from a node it does not take as placed in
 * its frame yet; requests alone left databases short after reloads
 * (keeping a dropped request to answer later did not cure it), sending
 * from both ends does.
 */
static void ls_adjacency(struct tc_node *n, const struct tc_view *v)
{
	struct tc_ls *ls = n->ls;
	uint8_t g, p, buf[TW_LS_HDR];
	uint16_t adj = 0;
	struct tw_buf b;

	for (g = 0; g < 2 * n->cfg.ndims; g++) {
		p = v->portmap[g];
		if (p != TC_NONE && ls_nbr_ok(n, p))
			adj |= (uint16_t)(1u << p);
	}
	for (p = 0; p < tc_nports(n); p++) {
		if (!(adj & (1u << p)))
			continue;
		if ((ls->adj & (1u << p)) &&
		    ls_adj_id(ls)[p] == tw_id_hash(tn_nbr(n)[p].id))
			continue;
		ls_adj_id(ls)[p] = tw_id_hash(tn_nbr(n)[p].id);
		ls->sync |= (uint16_t)(1u << p);
		ls_sync_pos(ls)[p] = 0;
		tw_ls_init(&b, buf, sizeof(buf), n->cfg.ndims, n->cfg.id,
			   ls->leader, ls->geom);
		n->ls->st.msgs_tx++;
		n->ls->st.bytes_tx += b.len;
		n->out.send(n->out.ctx, p, buf, b.len);
	}
	ls->adj = adj;
	ls->sync &= adj;
}

/*
 * Originate: a changed mask at once, a nonzero one again every refresh
 * period; a tombstone (mask back to zero) once, then it ages out.
 */
static void ls_originate(struct tc_node *n)
{
	struct tc_ls *ls = n->ls;
	uint16_t mask = ls->now_mask;
	bool force = ls->force;

	ls->force = false;
	if (ls->reassert && !force) {
		ls_store(n, ls_find(ls, ls->self), ls->self, ls->seq,
			 ls->mask, LS_LOCAL);
	}
	ls->reassert = false;
	if (ls->refresh_in)
		ls->refresh_in--;
	if (!force && mask == ls->mask && (!mask || ls->refresh_in))
		return;
	/* pushed to the last number by a record made up: it stays there */
	if (ls->seq < UINT32_MAX)
		ls->seq++;
	ls->mask = mask;
	ls->refresh_in = n->cfg.ls_refresh_ticks;
	ls_store(n, ls_find(ls, ls->self), ls->self, ls->seq, mask, LS_LOCAL);
}

static uint32_t ls_epoch_len(const struct tc_node *n)
{
	uint32_t len = n->cfg.ls_max_age_ticks / LS_EPOCHS;

	return len ? len : 1;
}

/* once per aging epoch: drop what was not refreshed for the maximum age */
static void ls_age(struct tc_node *n)
{
	struct tc_ls *ls = n->ls;
	uint32_t s, epochs, count = ls->count;

	if (--ls->epoch_in)
		return;
	ls->epoch_in = (uint16_t)ls_epoch_len(n);
	ls->now_epoch++;
	if (ls->was_full && n->now - ls->full_at > n->cfg.ls_max_age_ticks) {
		ls->was_full = false;
		ls->generation++;
	}
	/* dropped once older than max age, at most one epoch later */
	epochs = (n->cfg.ls_max_age_ticks + ls->epoch_in - 1) / ls->epoch_in;
	for (s = 0; s < ls->slots; s++)
		while (ls->rec[s].key != LS_EMPTY &&
		       (uint8_t)(ls->now_epoch - ls_epoch(ls)[s]) > epochs) {
			n->ls->st.expired++;
			ls_delete(ls, s);
		}
	if (ls->count != count)
		ls_reseen(ls);
}

struct ls_out {
	struct tw_buf b;
	unsigned int sent;	/* messages this tick */
	uint8_t buf[TC_MSG_MAX];
};

static void ls_flush(struct tc_node *n, struct ls_out *o, uint8_t port)
{
	if (!tw_ls_count(&o->b))
		return;
	n->ls->st.msgs_tx++;
	n->ls->st.bytes_tx += o->b.len;
	o->sent++;
	n->out.send(n->out.ctx, port, o->buf, o->b.len);
	tw_ls_init(&o->b, o->buf, sizeof(o->buf), n->cfg.ndims, n->cfg.id,
		   n->ls->leader, n->ls->geom);
}

static bool ls_room(const struct ls_out *o, uint8_t ndims)
{
	return o->b.len + TW_LS_REC(ndims) <= o->b.cap;
}

/* one more record would take a message beyond the port's burst */
static bool ls_spent(const struct ls_out *o, uint8_t ndims)
{
	return !ls_room(o, ndims) && o->sent + 1 >= LS_BURST;
}

/* the record of slot @s as the wire has it */
static void ls_wire_rec(const struct tc_node *n, uint32_t s,
			struct tw_ls_rec *r)
{
	const struct tc_ls *ls = n->ls;

	ls_coord(ls, n->cfg.ndims, ls->rec[s].key, r->coord);
	r->seq = ls->rec[s].seq;
	r->mask = ls->rec[s].mask;
}

static void ls_put(struct tc_node *n, struct ls_out *o, uint8_t port,
		   const struct tw_ls_rec *r)
{
	if (!ls_room(o, n->cfg.ndims))
		ls_flush(n, o, port);
	tw_ls_put(&o->b, n->cfg.ndims, r);
}

/* the first slot from @s on that is to be flooded, or ls->slots */
static uint32_t ls_next_pend(const struct tc_ls *ls, uint32_t s)
{
	const uint64_t pend8 = 0x0101010101010101ULL * LS_PEND;
	const uint8_t *meta = ls_meta(ls);
	uint64_t w;

	/* eight slots at a time: most have nothing to flood */
	for (; s + 8 <= ls->slots; s += 8) {
		memcpy(&w, meta + s, sizeof(w));
		if (w & pend8)
			break;
	}
	while (s < ls->slots && !(meta[s] & LS_PEND))
		s++;
	return s;
}

/* start fetching the next pending record from @s on; where to go on */
static uint32_t ls_fetch_pend(const struct tc_ls *ls, uint32_t s)
{
	s = ls_next_pend(ls, s);
	if (s < ls->slots)
		__builtin_prefetch(&ls->rec[s++]);
	return s;
}

/*
 * Newer records to every adjacency but their source, then the whole
 * database to neighbors that asked; at most LS_BURST messages per port
 * and tick, the rest waits for the next tick.
 */
static void ls_flood(struct tc_node *n)
{
	struct ls_out out[TC_MAX_PORTS];
	struct tc_ls *ls = n->ls;
	uint8_t p, from, nd = n->cfg.ndims;
	uint32_t s, ahead, k;
	struct tw_ls_rec r;

	if (!ls->npend && !ls->sync && ls->relay_port == LS_LOCAL)
		return;
	for (p = 0; p < tc_nports(n); p++) {
		tw_ls_init(&out[p].b, out[p].buf, sizeof(out[p].buf), nd,
			   n->cfg.id, ls->leader, ls->geom);
		out[p].sent = 0;
	}
	/* pending records lie all over the table: fetch some ahead */
	ahead = ls->pend_from;
	for (k = 0; k <= LS_AHEAD && ls->npend; k++)
		ahead = ls_fetch_pend(ls, ahead);
	for (s = ls->pend_from; ls->npend && s < ls->slots; s++) {
		s = ls_next_pend(ls, s);
		if (s == ls->slots)
			break;
		ahead = ls_fetch_pend(ls, ahead);
		for (p = 0; p < tc_nports(n); p++)
			if ((ls->adj & (1u << p)) && ls_spent(&out[p], nd))
				break;
		if (p < tc_nports(n))
			break;
		from = ls_meta(ls)[s] & LS_FROM;
		ls_meta(ls)[s] &= ~LS_PEND;
		ls->npend--;
		ls_wire_rec(n, s, &r);
		for (p = 0; p < tc_nports(n); p++)
			/* a sync still to pass this slot sends it anyway */
			if ((ls->adj & (1u << p)) && p != from &&
			    (!(ls->sync & (1u << p)) || s < ls_sync_pos(ls)[p]))
				ls_put(n, &out[p], p, &r);
	}
	/* slots before s: passed, none pending (sends do not reenter) */
	ls->pend_from = s;
	for (p = 0; p < tc_nports(n); p++) {
		if (!(ls->sync & (1u << p)))
			continue;
		for (s = ls_sync_pos(ls)[p]; s < ls->slots; s++) {
			if (ls->rec[s].key == LS_EMPTY)
				continue;
			if (ls_spent(&out[p], nd))
				break;
			ls_wire_rec(n, s, &r);
			ls_put(n, &out[p], p, &r);
		}
		ls_sync_pos(ls)[p] = s;
		if (s >= ls->slots)
			ls->sync &= (uint16_t)~(1u << p);
	}
	/* a claim about an adjacent node, to that node: see struct tc_ls */
	p = ls->relay_port;
	if (p != LS_LOCAL && !(ls->adj & (1u << p))) {
		ls->relay_port = LS_LOCAL;
	} else if (p != LS_LOCAL && !ls_spent(&out[p], nd)) {
		ls_coord(ls, nd, ls_across(n, p), r.coord);
		r.seq = ls->relay_seq;
		r.mask = ls->relay_mask;
		ls_put(n, &out[p], p, &r);
		ls->relay_port = LS_LOCAL;
	}
	for (p = 0; p < tc_nports(n); p++)
		ls_flush(n, &out[p], p);
}

/* what the view-derived state depends on beyond the view's generation */
static uint32_t ls_signature(const struct tc_node *n)
{
	uint32_t h = 2166136261u;
	unsigned int p;

	h = (h ^ n->generation) * 16777619u;
	h = (h ^ n->up) * 16777619u;
	for (p = 0; p < tc_nports(n); p++) {
		const struct tc_nbr *nb = &tn_nbr(n)[p];

		h = (h ^ (uint32_t)nb->id ^ (uint32_t)(nb->id >> 32)) *
		    16777619u;
		h = (h ^ nb->flags ^ (uint32_t)nb->leader) * 16777619u;
	}
	return h;
}

void tc_ls_tick(struct tc_node *n)
{
	struct tc_ls *ls = n->ls;
	uint32_t sig = ls_signature(n);
	uint16_t hold = 2 * n->cfg.quiet_ticks;
	struct tc_view v;
	unsigned int p;

	ls_age(n);
	if (ls->settle_in)
		ls->settle_in--;
	/* the view is costly: only when it or a neighbor may have changed */
	if (sig != ls->sig || ls->holding) {
		ls->sig = sig;
		tc_view(n, &v);
		if (!ls_frame(n, &v))
			return;
		ls_adjacency(n, &v);
		ls->now_mask = ls_own_mask(n, &v);
		/* settling: what is unknown now is reported when it ends */
		ls->holding = ls->unknown;
		for (p = 0; p < tc_nports(n); p++)
			if (ls_unready(ls)[p] && ls_unready(ls)[p] <= hold)
				ls->holding = true;
	}
	if (!ls->leader)
		return;
	ls_originate(n);
	ls_flood(n);
}

uint32_t tc_ls_next_deadline(const struct tc_node *n)
{
	const struct tc_ls *ls = n->ls;
	uint16_t hold = 2 * n->cfg.quiet_ticks, u;
	/* an empty database has nothing to age: no need to wake for it */
	uint32_t next = ls->count || ls->was_full ? ls->epoch_in : UINT32_MAX;
	unsigned int p;

	if (!ls->leader)
		return next;
	if (ls->npend || ls->sync || ls->force || ls->reassert ||
	    (ls->mask && !ls->refresh_in) || ls->relay_port != LS_LOCAL)
		return 1;
	if (ls->mask && ls->refresh_in < next)
		next = ls->refresh_in;
	/* the tick settling ends on reports the cables still unheard */
	if (ls->settle_in && ls->settle_in < next)
		next = ls->settle_in;
	/* a held neighbor is reported on the tick its count passes hold */
	for (p = 0; p < ls->nports; p++) {
		u = ls_unready(ls)[p];
		if (u && u <= hold && (uint32_t)(hold - u) + 1 < next)
			next = (uint32_t)(hold - u) + 1;
	}
	return next;
}

void tc_ls_skip(struct tc_node *n, uint32_t ticks)
{
	struct tc_ls *ls = n->ls;
	uint16_t hold = 2 * n->cfg.quiet_ticks, *u = ls_unready(ls);
	unsigned int p;

	uint32_t len = ls_epoch_len(n);

	/* epochs may pass unseen while there is nothing to age */
	if (ticks >= ls->epoch_in) {
		ls->now_epoch = (uint8_t)(ls->now_epoch + 1 +
					  (ticks - ls->epoch_in) / len);
		ls->epoch_in = (uint16_t)(len - (ticks - ls->epoch_in) % len);
	} else {
		ls->epoch_in = (uint16_t)(ls->epoch_in - ticks);
	}
	ls->settle_in = ls->settle_in > ticks ?
			(uint16_t)(ls->settle_in - ticks) : 0;
	if (!ls->leader)
		return;
	ls->refresh_in = ls->refresh_in > ticks ?
			 (uint16_t)(ls->refresh_in - ticks) : 0;
	/* while holding, every tick counts the held neighbors up */
	for (p = 0; ls->holding && p < ls->nports; p++)
		if (u[p] && u[p] <= hold)
			u[p] = (uint16_t)(u[p] + ticks);
}

/* nodes of the frame (ls_frame() refused frames of 2^32 or more) */
static uint32_t ls_nodes(const struct tc_node *n)
{
	uint32_t nodes = 1;
	unsigned int k;

	for (k = 0; k < n->cfg.ndims; k++)
		nodes *= n->ls->dims[k];
	return nodes;
}

void tc_ls_info(const struct tc_node *n, struct tc_ls_info *info)
{
	const struct tc_ls *ls = n->ls;

	memset(info, 0, sizeof(*info));
	info->active = ls->leader != 0;
	info->incomplete = ls->was_full;
	info->generation = ls->generation;
	info->nodes = ls->leader ? ls_nodes(n) : 0;
	info->records = ls->count;
	info->faults = ls->nfaults;
	info->capacity = n->cfg.ls_records;
	info->digest = ls->digest;
	info->settling = ls->leader && ls->settle_in;
}

int tc_ls_record(const struct tc_node *n, const uint8_t *coord,
		 uint32_t *seq, uint16_t *mask)
{
	const struct tc_ls *ls = n->ls;
	unsigned int k;
	uint32_t s;

	if (!ls->leader)
		return -ENOENT;
	for (k = 0; k < n->cfg.ndims; k++)
		if (coord[k] >= ls->dims[k])
			return -ENOENT;
	s = ls_find(ls, ls_index(ls, n->cfg.ndims, coord));
	if (ls->rec[s].key == LS_EMPTY)
		return -ENOENT;
	*seq = ls->rec[s].seq;
	*mask = ls->rec[s].mask;
	return 0;
}

uint32_t tc_ls_generation(const struct tc_node *n)
{
	return n->ls->generation;
}

/* the node across direction @g of @idx (which must have it) */
static uint32_t ls_step(const struct tc_ls *ls, uint8_t ndims, uint32_t idx,
			uint8_t g)
{
	uint8_t c[TC_MAX_AXES];
	unsigned int k = g >> 1;

	ls_coord(ls, ndims, idx, c);
	if (g & 1)
		c[k] = (uint8_t)(c[k] ? c[k] - 1 : ls->dims[k] - 1);
	else
		c[k] = (uint8_t)(c[k] + 1 == ls->dims[k] ? 0 : c[k] + 1);
	return ls_index(ls, ndims, c);
}

static bool ls_edge(const struct tc_ls *ls, uint8_t ndims, uint32_t idx,
		    uint8_t g, const uint16_t *cut)
{
	uint8_t c[TC_MAX_AXES];

	if (cut[idx] & (1u << g))
		return false;
	ls_coord(ls, ndims, idx, c);
	return ls_dir_exists(ls, c, g);
}

int tc_ls_faults(const struct tc_node *n, uint8_t *dead, uint16_t *cut)
{
	const struct tc_ls *ls = n->ls;
	uint8_t nd = n->cfg.ndims, g, next;
	uint32_t s, i, cur, nb, nodes;
	int ndead = 0;

	if (!ls->leader)
		return -EAGAIN;
	nodes = ls_nodes(n);
	memset(cut, 0, nodes * sizeof(*cut));
	memset(dead, 0, nodes);
	for (s = 0; s < ls->slots; s++) {
		const struct tc_ls_rec *r = &ls->rec[s];

		if (r->key == LS_EMPTY || !r->mask)
			continue;
		for (g = 0; g < 2 * nd; g++) {
			if (!(r->mask & (1u << g)))
				continue;
			cut[r->key] |= (uint16_t)(1u << g);
			nb = ls_step(ls, nd, r->key, g);
			cut[nb] |= (uint16_t)(1u << (g ^ 1));
		}
	}
	/*
	 * Depth-first from this node without a stack: dead[] holds, for a
	 * reached node, 1 + the direction that reached it, so the walk can
	 * step back and go on with the next direction.
	 */
	cur = ls->self;
	dead[cur] = 0xff;
	next = 0;
	for (;;) {
		for (g = next; g < 2 * nd; g++) {
			if (!ls_edge(ls, nd, cur, g, cut))
				continue;
			nb = ls_step(ls, nd, cur, g);
			if (!dead[nb])
				break;
		}
		if (g < 2 * nd) {
			dead[nb] = (uint8_t)(1 + g);
			cur = nb;
			next = 0;
			continue;
		}
		if (cur == ls->self)
			break;
		g = (uint8_t)(dead[cur] - 1);
		cur = ls_step(ls, nd, cur, g ^ 1);
		next = (uint8_t)(g + 1);
	}
	for (i = 0; i < nodes; i++) {
		dead[i] = !dead[i];
		ndead += dead[i];
	}
	return ls->was_full ? -ENOSPC : ndead;
}

/* a hello, a database request and a burst fit the harness's contract */
_Static_assert(2 + LS_BURST <= TC_MSGS_PER_TICK, "link-state burst");
