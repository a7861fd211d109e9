// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * parse.c - pure argument parsing and formatting for the torus tool
 */
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"

static const char *const state_names[] = {
	[TORUS_STATE_UNCONFIGURED]	= "unconfigured",
	[TORUS_STATE_DISCOVERING]	= "discovering",
	[TORUS_STATE_ORIENTED]		= "oriented",
	[TORUS_STATE_PLACED]		= "placed",
	[TORUS_STATE_FAILED]		= "failed",
};

static const char *const role_names[] = {
	[TORUS_ROLE_NONE]	= "none",
	[TORUS_ROLE_STATIC]	= "static",
	[TORUS_ROLE_LEADER]	= "leader",
	[TORUS_ROLE_FOLLOWER]	= "follower",
	[TORUS_ROLE_LAMB]	= "lamb",
};

static const char *const drop_names[] = TORUS_DROP_NAMES;
static const char *const why_names[] = TORUS_WHY_NAMES;

_Static_assert(sizeof(why_names) / sizeof(why_names[0]) == __TORUS_WHY_MAX,
	       "TORUS_WHY_NAMES out of date");

_Static_assert(sizeof(state_names) / sizeof(state_names[0]) ==
	       __TORUS_STATE_MAX, "state names out of date");
_Static_assert(sizeof(role_names) / sizeof(role_names[0]) ==
	       __TORUS_ROLE_MAX, "role names out of date");
_Static_assert(sizeof(drop_names) / sizeof(drop_names[0]) ==
	       __TORUS_DROP_MAX, "TORUS_DROP_NAMES out of date");

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* decimal digits only: no sign, no blanks, no empty string */
static int parse_dec(const char *s, size_t len, uint64_t max, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (!len)
		return -1;
	for (i = 0; i < len; i++) {
		if (!is_digit(s[i]))
			return -1;
		if ((uint64_t)(s[i] - '0') > max ||
		    v > (max - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	*out = v;
	return 0;
}

int parse_u32(const char *s, uint32_t max, uint32_t *out)
{
	uint64_t v;

	if (!s || parse_dec(s, strlen(s), max, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int hex_val(char c)
{
	if (is_digit(c))
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* decimal, or hexadecimal with a 0x prefix */
int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int d;

	if (!s)
		return -1;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		s += 2;
		if (!*s || strlen(s) > 16)
			return -1;
		for (; *s; s++) {
			d = hex_val(*s);
			if (d < 0)
				return -1;
			v = (v << 4) | (uint64_t)d;
		}
		*out = v;
		return 0;
	}
	return parse_dec(s, strlen(s), UINT64_MAX, out);
}

int parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = { "1", "on", "true", "yes" };
	static const char *const no[] = { "0", "off", "false", "no" };
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < ARRAY_SIZE(yes); i++) {
		if (!strcmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/*
 * Split @s on commas and call @one for each element; an empty element
 * ("", "1,,2", "1,") is an error.  Returns the element count or -1.
 */
static int parse_list(const char *s, unsigned int max_n,
		      int (*one)(const char *e, size_t len, unsigned int i,
				 void *priv),
		      void *priv)
{
	unsigned int n = 0;
	const char *comma;
	size_t len;

	if (!s || !*s)
		return -1;
	for (;;) {
		comma = strchr(s, ',');
		len = comma ? (size_t)(comma - s) : strlen(s);
		if (n >= max_n || one(s, len, n, priv))
			return -1;
		n++;
		if (!comma)
			break;
		s = comma + 1;
	}
	return (int)n;
}

struct u32_list {
	uint32_t min, max;
	uint32_t vals[TORUS_MAX_AXES];
};

static int one_u32(const char *e, size_t len, unsigned int i, void *priv)
{
	struct u32_list *l = priv;
	uint64_t v;

	if (parse_dec(e, len, l->max, &v) || v < l->min)
		return -1;
	l->vals[i] = (uint32_t)v;
	return 0;
}

int parse_u32_list(const char *s, uint32_t min, uint32_t max,
		   uint32_t *vals, unsigned int max_axes)
{
	struct u32_list l = { .min = min, .max = max };
	int n;

	if (max_axes > TORUS_MAX_AXES)
		max_axes = TORUS_MAX_AXES;
	n = parse_list(s, max_axes, one_u32, &l);
	if (n > 0)
		memcpy(vals, l.vals, (size_t)n * sizeof(*vals));
	return n;
}

static int rank_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

int parse_rank_list(const char *s, uint32_t *ranks, uint32_t max,
		    uint32_t *n)
{
	uint32_t i, k;

	for (*n = 0; *s; ) {
		unsigned long lo, hi;
		char *end;

		if (*s < '0' || *s > '9')
			return -1;
		lo = hi = strtoul(s, &end, 10);
		if (*end == '-') {
			s = end + 1;
			if (*s < '0' || *s > '9')
				return -1;
			hi = strtoul(s, &end, 10);
		}
		if (hi < lo || hi > UINT32_MAX || hi - lo >= max - *n)
			return -1;
		while (lo <= hi)
			ranks[(*n)++] = (uint32_t)lo++;
		if (*end == ',' && end[1])
			end++;
		else if (*end)
			return -1;
		s = end;
	}
	qsort(ranks, *n, sizeof(*ranks), rank_cmp);
	for (i = 0, k = 0; i < *n; i++)
		if (!k || ranks[i] != ranks[k - 1])
			ranks[k++] = ranks[i];
	*n = k;
	return k ? 0 : -1;
}

int parse_coord(const char *s, uint32_t *coord)
{
	return parse_u32_list(s, 0, TORUS_MAX_EXTENT - 1, coord,
			      TORUS_MAX_AXES);
}

int parse_dims(const char *s, uint32_t *dims)
{
	return parse_u32_list(s, 1, TORUS_MAX_EXTENT, dims, TORUS_MAX_AXES);
}

static int one_wrap(const char *e, size_t len, unsigned int i, void *priv)
{
	uint8_t *wrap = priv;

	if ((len == 1 && e[0] == '1') ||
	    (len == 5 && !strncmp(e, "torus", 5)))
		wrap[i] = 1;
	else if ((len == 1 && e[0] == '0') ||
		 (len == 4 && !strncmp(e, "mesh", 4)))
		wrap[i] = 0;
	else
		return -1;
	return 0;
}

int parse_wrap(const char *s, uint8_t *wrap)
{
	uint8_t tmp[TORUS_MAX_AXES];
	int n;

	n = parse_list(s, TORUS_MAX_AXES, one_wrap, tmp);
	if (n > 0)
		memcpy(wrap, tmp, (size_t)n);
	return n;
}

int parse_dir(const char *s, uint8_t *dir)
{
	const char *axis;

	if (!s || (s[0] != '+' && s[0] != '-') || !s[1] || s[2])
		return -1;
	axis = strchr(TORUS_AXIS_NAMES, s[1]);
	if (!axis)
		return -1;
	*dir = TORUS_DIR(axis - TORUS_AXIS_NAMES, s[0] == '-');
	return 0;
}

const char *format_dir(uint8_t dir, char buf[DIR_STR_LEN])
{
	if (dir == TORUS_DIR_NONE || TORUS_DIR_AXIS(dir) >= TORUS_MAX_AXES)
		return NULL;
	buf[0] = TORUS_DIR_NEG(dir) ? '-' : '+';
	buf[1] = TORUS_AXIS_NAMES[TORUS_DIR_AXIS(dir)];
	buf[2] = '\0';
	return buf;
}

/* 1% = 10000 ppm, so four decimal places are exact */
#define PPM_PER_PCT	10000u
#define PCT_DECIMALS	4

int parse_pct_ppm(const char *s, uint32_t *ppm)
{
	uint64_t ip, frac = 0;
	size_t ilen, flen = 0, i;
	const char *f;

	if (!s)
		return -1;
	ilen = strspn(s, "0123456789");
	if (!ilen || ilen > 3 || parse_dec(s, ilen, 100, &ip))
		return -1;
	f = s + ilen;
	if (*f == '.') {
		f++;
		flen = strspn(f, "0123456789");
		if (!flen)
			return -1;
		for (i = 0; i < flen; i++) {
			if (i < PCT_DECIMALS)
				frac = frac * 10 + (uint64_t)(f[i] - '0');
			else if (f[i] != '0')
				return -1;	/* finer than 1 ppm */
		}
		f += flen;
	}
	for (i = flen; i < PCT_DECIMALS; i++)
		frac *= 10;
	if (*f == '%')
		f++;
	if (*f)
		return -1;
	ip = ip * PPM_PER_PCT + frac;
	if (ip > TORUS_LOSS_PPM_MAX)
		return -1;
	*ppm = (uint32_t)ip;
	return 0;
}

const char *format_ppm_pct(uint32_t ppm, char buf[PCT_STR_LEN])
{
	unsigned int frac = ppm % PPM_PER_PCT;
	int n, i;

	n = snprintf(buf, PCT_STR_LEN, "%u", ppm / PPM_PER_PCT);
	if (frac) {
		snprintf(buf + n, (size_t)(PCT_STR_LEN - n), ".%04u", frac);
		for (i = n + PCT_DECIMALS; buf[i] == '0'; i--)
			buf[i] = '\0';
	}
	return buf;
}

const char *format_u32_list(const uint32_t *vals, unsigned int n,
			    char *buf, size_t len)
{
	size_t off = 0;
	unsigned int i;
	int w;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < n; i++) {
		w = snprintf(buf + off, len - off, "%s%u", i ? "," : "",
			     vals[i]);
		if (w < 0 || (size_t)w >= len - off)
			break;
		off += (size_t)w;
	}
	return buf;
}

static int name_lookup(const char *const *names, size_t n, const char *s,
		       uint8_t *out)
{
	size_t i;

	if (!s)
		return -1;
	for (i = 0; i < n; i++) {
		if (names[i] && !strcmp(names[i], s)) {
			*out = (uint8_t)i;
			return 0;
		}
	}
	return -1;
}

int parse_state(const char *s, uint8_t *state)
{
	return name_lookup(state_names, ARRAY_SIZE(state_names), s, state);
}

const char *format_state(uint8_t state)
{
	return state < ARRAY_SIZE(state_names) ? state_names[state] :
						 "unknown";
}

int parse_role(const char *s, uint8_t *role)
{
	return name_lookup(role_names, ARRAY_SIZE(role_names), s, role);
}

const char *format_role(uint8_t role)
{
	return role < ARRAY_SIZE(role_names) ? role_names[role] : "unknown";
}

const char *format_drop_reason(unsigned int reason)
{
	return reason < ARRAY_SIZE(drop_names) ? drop_names[reason] : NULL;
}

int parse_ifname(const char *s)
{
	size_t len;

	if (!s)
		return -1;
	len = strlen(s);
	if (!len || len >= IF_NAMESIZE || !strcmp(s, ".") || !strcmp(s, ".."))
		return -1;
	if (strpbrk(s, "/: \t\n"))
		return -1;
	return 0;
}

#define N(x)	[x] = #x

static const char *const attr_names[] = {
	N(TORUS_A_IFINDEX), N(TORUS_A_IFNAME), N(TORUS_A_NODE_ID),
	N(TORUS_A_COORD), N(TORUS_A_DIMS), N(TORUS_A_WRAP), N(TORUS_A_STATE),
	N(TORUS_A_ROLE), N(TORUS_A_REASON), N(TORUS_A_HOP_LIMIT),
	N(TORUS_A_STATS), N(TORUS_A_PORT), N(TORUS_A_PORTMAP),
	N(TORUS_A_PORT_IFINDEX), N(TORUS_A_CARRIER), N(TORUS_A_LOSS_PPM),
	N(TORUS_A_ROUTE), N(TORUS_A_GENERATION), N(TORUS_A_PAD),
};

static const char *const port_attr_names[] = {
	N(TORUS_PORT_A_IFINDEX), N(TORUS_PORT_A_IFNAME), N(TORUS_PORT_A_LABEL),
	N(TORUS_PORT_A_PEER_IFINDEX), N(TORUS_PORT_A_PEER_IFNAME),
	N(TORUS_PORT_A_PEER_NETNSID), N(TORUS_PORT_A_CARRIER),
	N(TORUS_PORT_A_GLOBAL_DIR), N(TORUS_PORT_A_LOSS_PPM),
	N(TORUS_PORT_A_STATS), N(TORUS_PORT_A_MASTER), N(TORUS_PORT_A_PAD),
};

static const char *const pme_attr_names[] = {
	N(TORUS_PME_A_DIR), N(TORUS_PME_A_IFINDEX),
};

static const char *const route_attr_names[] = {
	N(TORUS_ROUTE_A_DST), N(TORUS_ROUTE_A_VIA), N(TORUS_ROUTE_A_DIR),
	N(TORUS_ROUTE_A_NEXT_DIR), N(TORUS_ROUTE_A_NEXT_PORT),
	N(TORUS_ROUTE_A_EXCEPTION), N(TORUS_ROUTE_A_HOPS),
};

static const char *const stats_attr_names[] = {
	N(TORUS_STATS_A_RX_PACKETS), N(TORUS_STATS_A_RX_BYTES),
	N(TORUS_STATS_A_TX_PACKETS), N(TORUS_STATS_A_TX_BYTES),
	N(TORUS_STATS_A_FWD_PACKETS), N(TORUS_STATS_A_DROPS),
	N(TORUS_STATS_A_DROP), N(TORUS_STATS_A_PAD),
};

#undef N

enum name_ctx {
	CTX_TOP, CTX_AXES, CTX_PORT, CTX_PORTMAP, CTX_PME, CTX_ROUTE,
	CTX_STATS, CTX_NONE,
};

static const char *name_in(enum name_ctx ctx, uint16_t type, char *tmp,
			   size_t len)
{
	const char *const *names = NULL;
	size_t n = 0;

#define USE(t)	do { names = t; n = ARRAY_SIZE(t); } while (0)
	switch (ctx) {
	case CTX_TOP:
		USE(attr_names);
		break;
	case CTX_PORT:
		USE(port_attr_names);
		break;
	case CTX_PME:
		USE(pme_attr_names);
		break;
	case CTX_ROUTE:
		USE(route_attr_names);
		break;
	case CTX_STATS:
		USE(stats_attr_names);
		break;
	case CTX_AXES:
		if (type >= 1 && type <= TORUS_MAX_AXES) {
			snprintf(tmp, len, "%c", TORUS_AXIS_NAMES[type - 1]);
			return tmp;
		}
		break;
	case CTX_PORTMAP:
		if (type == TORUS_A_PORTMAP_ENTRY)
			return "TORUS_A_PORTMAP_ENTRY";
		break;
	case CTX_NONE:
		break;
	}
#undef USE
	if (names && type < n && names[type])
		return names[type];
	snprintf(tmp, len, "%u", type);
	return tmp;
}

static enum name_ctx name_next(enum name_ctx ctx, uint16_t type)
{
	switch (ctx) {
	case CTX_TOP:
		switch (type) {
		case TORUS_A_COORD:
		case TORUS_A_DIMS:
		case TORUS_A_WRAP:
			return CTX_AXES;
		case TORUS_A_PORT:
			return CTX_PORT;
		case TORUS_A_PORTMAP:
			return CTX_PORTMAP;
		case TORUS_A_ROUTE:
			return CTX_ROUTE;
		case TORUS_A_STATS:
			return CTX_STATS;
		}
		break;
	case CTX_PORT:
		if (type == TORUS_PORT_A_STATS)
			return CTX_STATS;
		break;
	case CTX_PORTMAP:
		return CTX_PME;
	case CTX_ROUTE:
		if (type == TORUS_ROUTE_A_DST || type == TORUS_ROUTE_A_VIA)
			return CTX_AXES;
		break;
	default:
		break;
	}
	return CTX_NONE;
}

void torus_attr_namer(const uint16_t *path, unsigned int depth, char *buf,
		      size_t len)
{
	enum name_ctx ctx = CTX_TOP;
	size_t off = 0;
	unsigned int i;
	char tmp[16];
	int w;

	if (!len)
		return;
	buf[0] = '\0';
	for (i = 0; i < depth; i++) {
		w = snprintf(buf + off, len - off, "%s%s", i ? "/" : "",
			     name_in(ctx, path[i], tmp, sizeof(tmp)));
		if (w < 0 || (size_t)w >= len - off)
			return;
		off += (size_t)w;
		ctx = name_next(ctx, path[i]);
	}
}

/*
 * Split a batch line into words: blanks separate, '...' and "..." quote,
 * a backslash escapes the next character outside single quotes, '#' at
 * the start of a word ends the line.  Returns the word count, -1 on an
 * unterminated quote, -2 on too many words.
 */
int batch_split(char *line, char **argv, int max)
{
	char *r = line, *w = line;
	int argc = 0;
	char quote;

	for (;;) {
		while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
			r++;
		if (!*r || *r == '#')
			return argc;
		if (argc >= max)
			return -2;
		argv[argc++] = w;
		quote = 0;
		for (; *r; r++) {
			if (quote) {
				if (*r == quote) {
					quote = 0;
					continue;
				}
				if (*r == '\\' && quote == '"' && r[1])
					r++;
				*w++ = *r;
				continue;
			}
			if (*r == ' ' || *r == '\t' || *r == '\n' ||
			    *r == '\r')
				break;
			if (*r == '\'' || *r == '"') {
				quote = *r;
				continue;
			}
			if (*r == '\\' && r[1])
				r++;
			*w++ = *r;
		}
		if (quote)
			return -1;
		if (*r)
			r++;
		*w++ = '\0';
	}
}

const char *format_route_why(uint8_t why)
{
	return why < ARRAY_SIZE(why_names) ? why_names[why] : "unknown";
}

int parse_plan(const char *s, uint8_t *index, uint8_t *order,
	       uint8_t *policy, unsigned int *n_policy)
{
	uint8_t o[TORUS_MAX_AXES], pol[TORUS_MAX_AXES] = { 0 };
	unsigned int n = 0, np = 0, seen = 0;
	const char *p = s, *axis;

	if (*p < '1' || *p >= '0' + TORUS_MAX_PLANS || p[1] != ':')
		return -1;
	p += 2;
	for (; *p && *p != ':'; p++) {
		axis = strchr(TORUS_AXIS_NAMES, *p);
		if (!axis || n == TORUS_MAX_AXES ||
		    seen & (1u << (axis - TORUS_AXIS_NAMES)))
			return -1;
		seen |= 1u << (axis - TORUS_AXIS_NAMES);
		o[n++] = (uint8_t)(axis - TORUS_AXIS_NAMES);
	}
	/* the order names the axes x, y, ... that the node has, once each */
	if (!n || seen != (1u << n) - 1)
		return -1;
	/* ":P,P,...": one policy letter per axis, comma separated */
	while (*p == ':' || *p == ',') {
		p++;
		if (np == n)
			return -1;
		if (*p == 's')
			pol[np++] = TORUS_PLAN_SHORTEST;
		else if (*p == '+')
			pol[np++] = TORUS_PLAN_PLUS;
		else if (*p == '-')
			pol[np++] = TORUS_PLAN_MINUS;
		else
			return -1;
		p++;
		if (*p && *p != ',')
			return -1;
	}
	if (*p)
		return -1;
	*index = (uint8_t)(s[0] - '0');
	memcpy(order, o, n);
	memcpy(policy, pol, sizeof(pol));
	*n_policy = np;
	return (int)n;
}
