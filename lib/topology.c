// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * topology.c - the topology document: model, JSON reader and writer, SVG and
 * DOT drawings (see topology.h)
 *
 * The reader is a small strict JSON parser into a tree: the documents are
 * our own, a few thousand values at most, and no JSON library is in the
 * tool's dependencies.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "json_print.h"
#include "topology.h"

void topo_init(struct topo *t)
{
	memset(t, 0, sizeof(*t));
}

void topo_free(struct topo *t)
{
	free(t->nodes);
	free(t->cables);
	free(t->path);
	topo_init(t);
}

void *topo_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	size_t ncap = *cap ? *cap * 2 : 16;
	void *p;

	if (n < *cap)
		return arr;
	p = realloc(arr, ncap * size);
	if (!p)
		return NULL;
	memset((char *)p + *cap * size, 0, (ncap - *cap) * size);
	*cap = ncap;
	return p;
}

struct topo_node *topo_add_node(struct topo *t)
{
	struct topo_node *p = topo_grow(t->nodes, &t->cap_nodes, t->n_nodes,
				   sizeof(*p));

	if (!p)
		return NULL;
	t->nodes = p;
	return &t->nodes[t->n_nodes++];
}

struct topo_cable *topo_add_cable(struct topo *t)
{
	struct topo_cable *p = topo_grow(t->cables, &t->cap_cables, t->n_cables,
				    sizeof(*p));

	if (!p)
		return NULL;
	t->cables = p;
	return &t->cables[t->n_cables++];
}

int topo_add_hop(struct topo *t, const uint32_t *coord)
{
	uint32_t (*p)[TOPO_MAX_AXES] = topo_grow(t->path, &t->cap_path, t->n_path,
					    sizeof(*p));

	if (!p)
		return -1;
	t->path = p;
	memcpy(t->path[t->n_path++], coord, sizeof(*p));
	return 0;
}

static const char *const state_names[] = {
	[TOPO_PLACED]	= "placed",
	[TOPO_UNPLACED]	= "unplaced",
	[TOPO_DEAD]	= "dead",
};

const char *topo_state_name(uint8_t state)
{
	return state <= TOPO_DEAD ? state_names[state] : "unplaced";
}

/* ---- JSON reader ---- */

enum jv_kind { JV_NULL, JV_BOOL, JV_NUM, JV_STR, JV_ARR, JV_OBJ };

struct jv {
	enum jv_kind	kind;
	bool		b;
	double		num;
	char		*str;		/* JV_STR; the key in an object */
	char		*key;
	struct jv	*child;		/* JV_ARR, JV_OBJ: first member */
	struct jv	*next;
};

struct jparser {
	const char	*p;
	char		*err;
	size_t		errlen;
	int		depth;
};

static void jv_free(struct jv *v)
{
	while (v) {
		struct jv *next = v->next;

		jv_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = next;
	}
}

static int jerr(struct jparser *jp, const char *fmt, ...)
{
	va_list ap;

	if (jp->err[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(jp->err, jp->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static void skip_ws(struct jparser *jp)
{
	while (*jp->p == ' ' || *jp->p == '\t' || *jp->p == '\n' ||
	       *jp->p == '\r')
		jp->p++;
}

static void put_utf8(char **o, unsigned int cp)
{
	char *q = *o;

	if (cp < 0x80) {
		*q++ = (char)cp;
	} else if (cp < 0x800) {
		*q++ = (char)(0xc0 | cp >> 6);
		*q++ = (char)(0x80 | (cp & 0x3f));
	} else {
		*q++ = (char)(0xe0 | cp >> 12);
		*q++ = (char)(0x80 | ((cp >> 6) & 0x3f));
		*q++ = (char)(0x80 | (cp & 0x3f));
	}
	*o = q;
}

/* a string at jp->p (on its quote); escapes decoded, \u to UTF-8 */
static char *parse_str(struct jparser *jp)
{
	const char *s = ++jp->p;
	char *out, *o;

	while (*jp->p && *jp->p != '"')
		jp->p += *jp->p == '\\' && jp->p[1] ? 2 : 1;
	if (*jp->p != '"') {
		jerr(jp, "unterminated string");
		return NULL;
	}
	/* escapes never grow: \uXXXX (6 bytes) is at most 3 of UTF-8 */
	out = malloc((size_t)(jp->p - s) + 1);
	if (!out) {
		jerr(jp, "out of memory");
		return NULL;
	}
	for (o = out; s < jp->p; s++) {
		unsigned int cp;

		if ((unsigned char)*s < 0x20)
			goto bad;
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case '"': case '\\': case '/':
			*o++ = *s;
			break;
		case 'b': *o++ = '\b'; break;
		case 'f': *o++ = '\f'; break;
		case 'n': *o++ = '\n'; break;
		case 'r': *o++ = '\r'; break;
		case 't': *o++ = '\t'; break;
		case 'u':
			if (sscanf(s + 1, "%4x", &cp) != 1 || jp->p - s < 5)
				goto bad;
			put_utf8(&o, cp);
			s += 4;
			break;
		default:
			goto bad;
		}
	}
	*o = '\0';
	jp->p++;
	return out;
bad:
	free(out);
	jerr(jp, "bad character or escape in a string");
	return NULL;
}

static struct jv *parse_value(struct jparser *jp);

static struct jv *parse_members(struct jparser *jp, struct jv *v, char end)
{
	struct jv **tail = &v->child;

	jp->p++;
	skip_ws(jp);
	if (*jp->p == end) {
		jp->p++;
		return v;
	}
	for (;;) {
		char *key = NULL;
		struct jv *m;

		skip_ws(jp);
		if (end == '}') {
			if (*jp->p != '"')
				goto bad;
			key = parse_str(jp);
			if (!key)
				goto bad;
			skip_ws(jp);
			if (*jp->p++ != ':') {
				free(key);
				goto bad;
			}
		}
		m = parse_value(jp);
		if (!m) {
			free(key);
			goto bad;
		}
		m->key = key;
		*tail = m;
		tail = &m->next;
		skip_ws(jp);
		if (*jp->p == ',') {
			jp->p++;
			continue;
		}
		if (*jp->p == end) {
			jp->p++;
			return v;
		}
		goto bad;
	}
bad:
	jerr(jp, "malformed %s", end == '}' ? "object" : "array");
	jv_free(v);
	return NULL;
}

static struct jv *parse_value(struct jparser *jp)
{
	struct jv *v;
	char *end;

	skip_ws(jp);
	if (++jp->depth > 32) {
		jerr(jp, "nested too deeply");
		return NULL;
	}
	v = calloc(1, sizeof(*v));
	if (!v) {
		jerr(jp, "out of memory");
		return NULL;
	}
	switch (*jp->p) {
	case '{':
		v->kind = JV_OBJ;
		v = parse_members(jp, v, '}');
		break;
	case '[':
		v->kind = JV_ARR;
		v = parse_members(jp, v, ']');
		break;
	case '"':
		v->kind = JV_STR;
		v->str = parse_str(jp);
		if (!v->str) {
			free(v);
			v = NULL;
		}
		break;
	default:
		if (!strncmp(jp->p, "true", 4) || !strncmp(jp->p, "false", 5)) {
			v->kind = JV_BOOL;
			v->b = *jp->p == 't';
			jp->p += v->b ? 4 : 5;
		} else if (!strncmp(jp->p, "null", 4)) {
			jp->p += 4;
		} else if (*jp->p == '-' || (*jp->p >= '0' && *jp->p <= '9')) {
			v->kind = JV_NUM;
			v->num = strtod(jp->p, &end);
			jp->p = end;
		} else {
			jerr(jp, "unexpected character '%c'", *jp->p ? *jp->p : ' ');
			free(v);
			v = NULL;
		}
	}
	jp->depth--;
	return v;
}

static const struct jv *member(const struct jv *obj, const char *key)
{
	const struct jv *m;

	if (!obj || obj->kind != JV_OBJ)
		return NULL;
	for (m = obj->child; m; m = m->next)
		if (!strcmp(m->key, key))
			return m;
	return NULL;
}

/* an array of small non-negative integers; its length, or -1 */
static int uint_array(const struct jv *a, uint32_t *out, unsigned int max,
		      uint32_t limit)
{
	const struct jv *e;
	unsigned int n = 0;

	if (!a || a->kind != JV_ARR)
		return -1;
	for (e = a->child; e; e = e->next) {
		if (n == max || e->kind != JV_NUM || e->num < 0 ||
		    e->num >= limit || e->num != (uint32_t)e->num)
			return -1;
		out[n++] = (uint32_t)e->num;
	}
	return (int)n;
}

static void copy_str(char *dst, size_t size, const struct jv *v)
{
	snprintf(dst, size, "%s", v && v->kind == JV_STR ? v->str : "");
}

static int read_nodes(struct topo *t, const struct jv *arr, char *err,
		      size_t errlen)
{
	const struct jv *e;

	if (arr->kind != JV_ARR) {
		snprintf(err, errlen, "\"nodes\" is not an array");
		return -1;
	}
	for (e = arr->child; e; e = e->next) {
		const struct jv *c = member(e, "coord");
		const struct jv *st = member(e, "state");
		struct topo_node *nd;
		int n = 0;

		if (e->kind != JV_OBJ)
			goto bad;
		if (c && c->kind != JV_NULL) {
			n = uint_array(c, (uint32_t[TOPO_MAX_AXES]){}, TOPO_MAX_AXES,
				       256);
			if (n < 0)
				goto bad;
		}
		nd = topo_add_node(t);
		if (!nd) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (n)
			uint_array(c, nd->coord, TOPO_MAX_AXES, 256);
		nd->n_coord = (unsigned int)n;
		copy_str(nd->name, sizeof(nd->name), member(e, "name"));
		copy_str(nd->role, sizeof(nd->role), member(e, "role"));
		copy_str(nd->reason, sizeof(nd->reason), member(e, "reason"));
		nd->state = TOPO_UNPLACED;
		if (st && st->kind == JV_STR && !strcmp(st->str, "placed"))
			nd->state = TOPO_PLACED;
		else if (st && st->kind == JV_STR && !strcmp(st->str, "dead"))
			nd->state = TOPO_DEAD;
		if (nd->state == TOPO_PLACED && !n)
			goto bad;
	}
	return 0;
bad:
	snprintf(err, errlen, "bad node in \"nodes\"");
	return -1;
}

static int read_cables(struct topo *t, const struct jv *arr, char *err,
		       size_t errlen)
{
	const struct jv *e;

	if (arr && arr->kind != JV_ARR) {
		snprintf(err, errlen, "\"cables\" is not an array");
		return -1;
	}
	for (e = arr ? arr->child : NULL; e; e = e->next) {
		uint32_t from[TOPO_MAX_AXES] = { 0 }, axis;
		const struct jv *cut = member(e, "cut");
		const struct jv *ax = member(e, "axis");
		struct topo_cable *cb;

		if (uint_array(member(e, "from"), from, TOPO_MAX_AXES, 256) < 1 ||
		    !ax || ax->kind != JV_NUM || ax->num < 0 ||
		    ax->num >= TOPO_MAX_AXES) {
			snprintf(err, errlen, "bad cable in \"cables\"");
			return -1;
		}
		axis = (uint32_t)ax->num;
		cb = topo_add_cable(t);
		if (!cb) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(cb->from, from, sizeof(from));
		cb->axis = (uint8_t)axis;
		cb->cut = cut && cut->kind == JV_BOOL && cut->b;
	}
	return 0;
}

static int read_doc(struct topo *t, const struct jv *doc, char *err,
		    size_t errlen)
{
	const struct jv *w, *e, *path;
	unsigned int i;
	int n;

	if (member(doc, "topo"))
		doc = member(doc, "topo");
	if (!doc || doc->kind != JV_OBJ || !member(doc, "nodes")) {
		snprintf(err, errlen, "not a topology document (no \"nodes\")");
		return -1;
	}
	w = member(doc, "wrap");
	n = member(doc, "dims") && member(doc, "dims")->kind != JV_NULL ?
		uint_array(member(doc, "dims"), t->dims, TOPO_MAX_AXES, 257) : 0;
	if (n < 0) {
		snprintf(err, errlen, "bad \"dims\"");
		return -1;
	}
	t->n_axes = (unsigned int)n;
	for (i = 0; i < t->n_axes; i++)
		if (!t->dims[i]) {
			snprintf(err, errlen, "bad \"dims\"");
			return -1;
		}
	for (e = w && w->kind == JV_ARR ? w->child : NULL, i = 0;
	     e && i < TOPO_MAX_AXES; e = e->next, i++)
		t->wrap[i] = e->kind == JV_BOOL ? e->b : e->num != 0;
	if (read_nodes(t, member(doc, "nodes"), err, errlen) ||
	    read_cables(t, member(doc, "cables"), err, errlen))
		return -1;
	path = member(doc, "path");
	for (e = path && path->kind == JV_ARR ? path->child : NULL; e;
	     e = e->next) {
		uint32_t c[TOPO_MAX_AXES] = { 0 };

		if (uint_array(e, c, TOPO_MAX_AXES, 256) < 1) {
			snprintf(err, errlen, "bad hop in \"path\"");
			return -1;
		}
		if (topo_add_hop(t, c)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return 0;
}

int topo_parse(struct topo *t, const char *text, char *err, size_t errlen)
{
	struct jparser jp = { .p = text, .err = err, .errlen = errlen };
	struct jv *doc;
	int ret;

	err[0] = '\0';
	doc = parse_value(&jp);
	if (doc) {
		skip_ws(&jp);
		if (*jp.p) {
			jerr(&jp, "text after the document");
			jv_free(doc);
			doc = NULL;
		}
	}
	if (!doc) {
		if (!err[0])
			snprintf(err, errlen, "malformed JSON");
		return -1;
	}
	ret = read_doc(t, doc, err, errlen);
	jv_free(doc);
	return ret;
}

/* ---- JSON writer ---- */

static void print_coord(const char *key, const uint32_t *c, unsigned int n)
{
	unsigned int i;

	open_json_array(PRINT_JSON, key);
	for (i = 0; i < n; i++)
		print_uint(PRINT_JSON, NULL, NULL, c[i]);
	close_json_array(PRINT_JSON, NULL);
}

void topo_print_json(const struct topo *t)
{
	unsigned int i;
	size_t k;

	open_json_object(NULL);
	if (t->n_axes) {
		print_coord("dims", t->dims, t->n_axes);
		open_json_array(PRINT_JSON, "wrap");
		for (i = 0; i < t->n_axes; i++)
			print_bool(PRINT_JSON, NULL, NULL, t->wrap[i]);
		close_json_array(PRINT_JSON, NULL);
	} else {
		print_null(PRINT_JSON, "dims", NULL, NULL);
		print_null(PRINT_JSON, "wrap", NULL, NULL);
	}
	open_json_array(PRINT_JSON, "nodes");
	for (k = 0; k < t->n_nodes; k++) {
		const struct topo_node *nd = &t->nodes[k];

		open_json_object(NULL);
		print_string(PRINT_JSON, "name", NULL, nd->name);
		if (nd->n_coord)
			print_coord("coord", nd->coord, nd->n_coord);
		else
			print_null(PRINT_JSON, "coord", NULL, NULL);
		print_string(PRINT_JSON, "state", NULL,
			     topo_state_name(nd->state));
		print_string(PRINT_JSON, "role", NULL, nd->role);
		print_string(PRINT_JSON, "reason", NULL, nd->reason);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "cables");
	for (k = 0; k < t->n_cables; k++) {
		open_json_object(NULL);
		print_coord("from", t->cables[k].from,
			    t->n_axes ? t->n_axes : 1);
		print_uint(PRINT_JSON, "axis", NULL, t->cables[k].axis);
		print_bool(PRINT_JSON, "cut", NULL, t->cables[k].cut);
		close_json_object();
	}
	close_json_array(PRINT_JSON, NULL);
	open_json_array(PRINT_JSON, "path");
	for (k = 0; k < t->n_path; k++)
		print_coord(NULL, t->path[k], t->n_axes ? t->n_axes : 1);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

/* ---- drawing ---- */

/*
 * Axes 0 and 1 are a slice's columns and rows; every other axis picks the
 * slice: slices are laid out in a grid, axis 2 along a row of slices,
 * axes 3 and up down the rows.
 */
#define CELL		56
#define RADIUS		15
#define MARGIN		36
#define GAP		28
#define SIDE_W		380
#define LINE_H		16

struct layout {
	const struct topo *t;
	uint32_t cols, rows;		/* nodes per slice */
	uint32_t slice_cols, slice_rows;
	uint32_t slice_w, slice_h;
	uint32_t width, height;
	size_t n_cells;
	const struct topo_node **at;	/* per coordinate, or NULL */
};

static uint32_t dim(const struct topo *t, unsigned int axis)
{
	return axis < t->n_axes ? t->dims[axis] : 1;
}

static size_t cell_index(const struct topo *t, const uint32_t *c)
{
	size_t idx = 0;
	unsigned int a;

	for (a = t->n_axes; a-- > 0;)
		idx = idx * t->dims[a] + c[a];
	return idx;
}

static bool in_extents(const struct topo *t, const uint32_t *c,
		       unsigned int n)
{
	unsigned int a;

	if (n < t->n_axes)
		return false;
	for (a = 0; a < t->n_axes; a++)
		if (c[a] >= t->dims[a])
			return false;
	return true;
}

static int layout_init(struct layout *l, const struct topo *t)
{
	unsigned int a;
	size_t k;

	memset(l, 0, sizeof(*l));
	l->t = t;
	l->n_cells = 1;
	for (a = 0; a < t->n_axes; a++)
		l->n_cells *= t->dims[a];
	if (l->n_cells > TOPO_MAX_DRAWN) {
		fprintf(stderr, "Error: %zu nodes are too many to draw (at most %u)\n",
			l->n_cells, TOPO_MAX_DRAWN);
		return -1;
	}
	l->cols = dim(t, 0);
	l->rows = dim(t, 1);
	l->slice_cols = dim(t, 2);
	l->slice_rows = 1;
	for (a = 3; a < t->n_axes; a++)
		l->slice_rows *= t->dims[a];
	l->slice_w = l->cols * CELL + 2 * MARGIN;
	l->slice_h = l->rows * CELL + 2 * MARGIN;
	l->width = l->slice_cols * (l->slice_w + GAP) + SIDE_W;
	l->height = l->slice_rows * (l->slice_h + GAP) + 60;
	l->at = calloc(l->n_cells, sizeof(*l->at));
	if (!l->at)
		return -1;
	for (k = 0; k < t->n_nodes; k++) {
		const struct topo_node *nd = &t->nodes[k];

		if (!nd->n_coord || !in_extents(t, nd->coord, nd->n_coord))
			continue;
		/* a placed node wins over a dead one claiming its spot */
		if (!l->at[cell_index(t, nd->coord)] ||
		    nd->state == TOPO_PLACED)
			l->at[cell_index(t, nd->coord)] = nd;
	}
	return 0;
}

/* centre of coordinate @c in the picture */
static void centre(const struct layout *l, const uint32_t *c, double *x,
		   double *y)
{
	const struct topo *t = l->t;
	uint32_t srow = 0, scol = t->n_axes > 2 ? c[2] : 0;
	unsigned int a;

	for (a = t->n_axes; a-- > 3;)
		srow = srow * t->dims[a] + c[a];
	*x = scol * (l->slice_w + GAP) + MARGIN + CELL / 2.0 +
	     (t->n_axes > 0 ? c[0] : 0) * CELL + 10;
	*y = srow * (l->slice_h + GAP) + MARGIN + CELL / 2.0 +
	     (t->n_axes > 1 ? c[1] : 0) * CELL + 50;
}

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default:
			if ((unsigned char)*s >= 0x20)
				fputc(*s, f);
		}
	}
}

static void coord_text(char *buf, size_t size, const uint32_t *c,
		       unsigned int n)
{
	size_t len = 0;
	unsigned int a;

	buf[0] = '\0';
	for (a = 0; a < n && len < size; a++)
		len += (size_t)snprintf(buf + len, size - len, a ? ",%u" : "%u",
					c[a]);
}

static const char axis_names[] = "xyzabcde";

static void draw_slices(FILE *f, const struct layout *l)
{
	const struct topo *t = l->t;
	uint32_t s, n_slices = l->slice_cols * l->slice_rows;
	unsigned int a;

	for (s = 0; s < n_slices; s++) {
		uint32_t c[TOPO_MAX_AXES] = { 0 }, rest = s / l->slice_cols;
		double x, y;

		if (t->n_axes > 2)
			c[2] = s % l->slice_cols;
		for (a = 3; a < t->n_axes; a++) {
			c[a] = rest % t->dims[a];
			rest /= t->dims[a];
		}
		centre(l, c, &x, &y);
		fprintf(f, "<rect class=\"slice\" x=\"%.0f\" y=\"%.0f\" width=\"%u\" height=\"%u\"/>\n",
			x - CELL / 2.0 - MARGIN + 8, y - CELL / 2.0 - MARGIN + 8,
			l->slice_w - 16, l->slice_h - 16);
		fprintf(f, "<text class=\"title\" x=\"%.0f\" y=\"%.0f\">",
			x - CELL / 2.0 - MARGIN + 14, y - CELL / 2.0 - MARGIN + 24);
		if (t->n_axes <= 2)
			fputs("x right, y down", f);
		for (a = 2; a < t->n_axes; a++)
			fprintf(f, "%s%c=%u", a > 2 ? " " : "", axis_names[a],
				c[a]);
		fputs("</text>\n", f);
	}
}

static void draw_cable(FILE *f, const struct layout *l,
		       const struct topo_cable *cb)
{
	const struct topo *t = l->t;
	uint32_t to[TOPO_MAX_AXES];
	bool wraps;
	double x0, y0, x1, y1;

	if (cb->axis >= t->n_axes || !in_extents(t, cb->from, t->n_axes))
		return;
	memcpy(to, cb->from, sizeof(to));
	wraps = to[cb->axis] + 1 == t->dims[cb->axis];
	to[cb->axis] = wraps ? 0 : to[cb->axis] + 1;
	centre(l, cb->from, &x0, &y0);
	centre(l, to, &x1, &y1);
	if (cb->axis >= 2) {
		/* between slices: only a cut one is drawn, as a mark */
		if (cb->cut)
			fprintf(f, "<text class=\"cutmark\" x=\"%.0f\" y=\"%.0f\">&#x2715;+%c</text>\n",
				x0 + RADIUS - 2, y0 - RADIUS + 2,
				axis_names[cb->axis]);
		return;
	}
	if (wraps) {
		/* the wrap cable leaves the slice's edge, half a cell out */
		double dx = cb->axis == 0 ? CELL / 2.0 : 0;
		double dy = cb->axis == 1 ? CELL / 2.0 : 0;

		fprintf(f, "<path class=\"cable%s\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>\n",
			cb->cut ? " cut" : "", x0, y0, x0 + dx, y0 + dy,
			x1, y1, x1 - dx, y1 - dy);
		x1 = x0 + dx;
		y1 = y0 + dy;
	} else {
		fprintf(f, "<line class=\"cable%s\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
			cb->cut ? " cut" : "", x0, y0, x1, y1);
	}
	if (cb->cut)
		fprintf(f, "<text class=\"cutmark\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">&#x2715;</text>\n",
			(x0 + x1) / 2, (y0 + y1) / 2 + 5);
}

static const char *node_class(const struct topo_node *nd)
{
	if (!nd)
		return "missing";
	if (nd->state == TOPO_DEAD)
		return "dead";
	if (nd->state == TOPO_UNPLACED)
		return "unplaced";
	if (!strcmp(nd->role, "lamb"))
		return "lamb";
	if (!strcmp(nd->role, "leader"))
		return "leader";
	return "placed";
}

static void draw_node(FILE *f, const struct layout *l, const uint32_t *c,
		      const struct topo_node *nd)
{
	char label[48];
	double x, y;

	centre(l, c, &x, &y);
	coord_text(label, sizeof(label), c, l->t->n_axes);
	fprintf(f, "<g class=\"node %s\"><title>", node_class(nd));
	xml_text(f, nd ? nd->name : "no node");
	fprintf(f, " (%s)%s", label, nd ? "" : ": no live node here");
	if (nd && nd->reason[0]) {
		fputs(": ", f);
		xml_text(f, nd->reason);
	}
	fprintf(f, "</title><circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\"/>",
		x, y, RADIUS);
	if (!nd || nd->state == TOPO_DEAD)
		fprintf(f, "<path class=\"cross\" d=\"M%.1f %.1fL%.1f %.1fM%.1f %.1fL%.1f %.1f\"/>",
			x - 8, y - 8, x + 8, y + 8, x - 8, y + 8, x + 8, y - 8);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text></g>\n",
		x, y + RADIUS + 11, label);
}

/* hops within a slice are straight; between slices they arch above */
static void draw_path(FILE *f, const struct layout *l)
{
	const struct topo *t = l->t;
	size_t k;

	if (t->n_path < 2)
		return;
	fputs("<path class=\"path\" d=\"", f);
	for (k = 0; k < t->n_path; k++) {
		double x, y, px, py;

		if (!in_extents(t, t->path[k], t->n_axes))
			continue;
		centre(l, t->path[k], &x, &y);
		if (!k || !in_extents(t, t->path[k - 1], t->n_axes)) {
			fprintf(f, "M%.1f %.1f", x, y);
			continue;
		}
		centre(l, t->path[k - 1], &px, &py);
		if (t->n_axes > 2 &&
		    memcmp(t->path[k] + 2, t->path[k - 1] + 2,
			   (t->n_axes - 2) * sizeof(t->path[k][0])))
			fprintf(f, "Q%.1f %.1f %.1f %.1f", (px + x) / 2,
				(py < y ? py : y) - CELL, x, y);
		else if (px - x > CELL * 1.5 || x - px > CELL * 1.5 ||
			 py - y > CELL * 1.5 || y - py > CELL * 1.5)
			/* round the ring: out of one edge, in at the other */
			fprintf(f, "L%.1f %.1fM%.1f %.1fL%.1f %.1f",
				px + (x < px ? 1 : x > px ? -1 : 0) * CELL / 2.0,
				py + (y < py ? 1 : y > py ? -1 : 0) * CELL / 2.0,
				x - (x < px ? 1 : x > px ? -1 : 0) * CELL / 2.0,
				y - (y < py ? 1 : y > py ? -1 : 0) * CELL / 2.0,
				x, y);
		else
			fprintf(f, "L%.1f %.1f", x, y);
	}
	fputs("\"/>\n", f);
}

static void side_line(FILE *f, double x, double *y, const char *cls,
		      const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fprintf(f, "<text class=\"%s\" x=\"%.0f\" y=\"%.0f\">", cls, x, *y);
	xml_text(f, buf);
	fputs("</text>\n", f);
	*y += LINE_H;
}

static void draw_side(FILE *f, const struct layout *l)
{
	static const char *const legend[][2] = {
		{ "placed", "placed" }, { "leader", "leader" },
		{ "lamb", "lamb (forwards, never an endpoint)" },
		{ "unplaced", "unplaced" },
		{ "dead", "dead" },
		{ "missing", "no live node at the coordinate" },
	};
	const struct topo *t = l->t;
	double x = l->width - SIDE_W + 10, y = 60;
	size_t k, cut = 0, placed = 0, unplaced = 0, dead = 0, missing = 0;
	char buf[64];
	unsigned int i;

	for (k = 0; k < t->n_nodes; k++) {
		placed += t->nodes[k].state == TOPO_PLACED;
		unplaced += t->nodes[k].state == TOPO_UNPLACED;
		dead += t->nodes[k].state == TOPO_DEAD;
	}
	for (k = 0; k < l->n_cells && t->n_axes; k++)
		missing += !l->at[k];
	for (k = 0; k < t->n_cables; k++)
		cut += t->cables[k].cut;
	for (i = 0; i < sizeof(legend) / sizeof(legend[0]); i++) {
		fprintf(f, "<g class=\"node %s\"><circle cx=\"%.0f\" cy=\"%.0f\" r=\"7\"/></g>",
			legend[i][0], x + 7, y - 4);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", x + 20, y,
			legend[i][1]);
		y += LINE_H + 2;
	}
	fprintf(f, "<line class=\"cable cut\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
		x, y - 4, x + 14, y - 4);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">cut cable (&#x2715;+z: between slices)</text>\n",
		x + 20, y);
	y += LINE_H + 2;
	fprintf(f, "<line class=\"path\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
		x, y - 4, x + 14, y - 4);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\">path</text>\n", x + 20, y);
	y += 2 * LINE_H;
	side_line(f, x, &y, "head",
		  "%zu placed, %zu unplaced, %zu dead, %zu missing, %zu cut",
		  placed, unplaced, dead, missing, cut);
	if (t->n_path) {
		coord_text(buf, sizeof(buf), t->path[0], t->n_axes);
		side_line(f, x, &y, "", "path from %s, %zu hops", buf,
			  t->n_path - 1);
	}
	if (unplaced) {
		y += LINE_H / 2;
		side_line(f, x, &y, "head", "unplaced nodes:");
		for (k = 0; k < t->n_nodes; k++) {
			const struct topo_node *nd = &t->nodes[k];

			if (nd->state != TOPO_UNPLACED)
				continue;
			side_line(f, x, &y, "", "%s: %s", nd->name,
				  nd->reason[0] ? nd->reason : "no reason given");
		}
	}
	if (dead) {
		y += LINE_H / 2;
		side_line(f, x, &y, "head", "dead nodes:");
		for (k = 0; k < t->n_nodes; k++) {
			const struct topo_node *nd = &t->nodes[k];

			if (nd->state != TOPO_DEAD)
				continue;
			coord_text(buf, sizeof(buf), nd->coord, nd->n_coord);
			side_line(f, x, &y, "", "%s%s%s%s", nd->name,
				  nd->n_coord ? " (" : "", buf,
				  nd->n_coord ? ")" : "");
		}
	}
}

static const char svg_style[] =
	"<style>\n"
	"text { font: 12px sans-serif; fill: #222; }\n"
	"text.title, text.head { font-weight: bold; }\n"
	"rect.slice { fill: #f7f7f7; stroke: #bbb; }\n"
	".cable { stroke: #777; stroke-width: 3; fill: none; }\n"
	".cable.cut { stroke: #e02020; stroke-dasharray: 6 4; }\n"
	"text.cutmark { fill: #e02020; font-weight: bold; }\n"
	".node circle { stroke: #222; stroke-width: 1.5; }\n"
	".node.placed circle { fill: #4a90d9; }\n"
	".node.leader circle { fill: #1f5fa8; stroke-width: 4; }\n"
	".node.lamb circle { fill: #f5a623; }\n"
	".node.unplaced circle { fill: #ffffff; stroke-dasharray: 3 2; }\n"
	".node.dead circle { fill: #ff0000; }\n"
	".node.missing circle { fill: #d0d0d0; stroke: #888; }\n"
	".cross { stroke: #000; stroke-width: 2.5; }\n"
	".node.missing .cross { stroke: #a00000; stroke-width: 1.5; }\n"
	".path { stroke: #00b050; stroke-width: 6; fill: none; }\n"
	"</style>\n";

int topo_write_svg(const struct topo *t, FILE *f)
{
	struct layout l;
	size_t k;

	if (layout_init(&l, t))
		return -1;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%u\" height=\"%u\" viewBox=\"0 0 %u %u\">\n",
		l.width, l.height, l.width, l.height);
	fputs(svg_style, f);
	fprintf(f, "<rect width=\"%u\" height=\"%u\" fill=\"#ffffff\"/>\n",
		l.width, l.height);
	fputs("<text class=\"head\" x=\"10\" y=\"24\">torus fabric ", f);
	for (k = 0; k < t->n_axes; k++)
		fprintf(f, "%s%u", k ? "x" : "", t->dims[k]);
	if (!t->n_axes)
		fputs("(extents unknown: no placed node)", f);
	for (k = 0; k < t->n_axes; k++)
		fprintf(f, "%s%s", k ? "," : " wrap ", t->wrap[k] ? "1" : "0");
	fputs("</text>\n", f);
	if (t->n_axes) {
		uint32_t c[TOPO_MAX_AXES] = { 0 };

		draw_slices(f, &l);
		for (k = 0; k < t->n_cables; k++)
			draw_cable(f, &l, &t->cables[k]);
		draw_path(f, &l);
		for (k = 0; k < l.n_cells; k++) {
			size_t idx = k;
			unsigned int a;

			for (a = 0; a < t->n_axes; a++) {
				c[a] = (uint32_t)(idx % t->dims[a]);
				idx /= t->dims[a];
			}
			draw_node(f, &l, c, l.at[k]);
		}
	}
	draw_side(f, &l);
	fputs("</svg>\n", f);
	free(l.at);
	return ferror(f) ? -1 : 0;
}

static const char *dot_colour(const struct topo_node *nd)
{
	const char *cls = node_class(nd);

	if (!strcmp(cls, "dead"))
		return "red";
	if (!strcmp(cls, "missing"))
		return "gray80";
	if (!strcmp(cls, "unplaced"))
		return "white";
	if (!strcmp(cls, "lamb"))
		return "orange";
	if (!strcmp(cls, "leader"))
		return "steelblue4";
	return "steelblue";
}

int topo_write_dot(const struct topo *t, FILE *f)
{
	uint32_t c[TOPO_MAX_AXES] = { 0 };
	char a[48], b[48];
	struct layout l;
	size_t k;

	if (layout_init(&l, t))
		return -1;
	fputs("graph torus {\n\tnode [shape=circle style=filled fontsize=9];\n",
	      f);
	for (k = 0; k < l.n_cells && t->n_axes; k++) {
		size_t idx = k;
		unsigned int ax;
		double x, y;

		for (ax = 0; ax < t->n_axes; ax++) {
			c[ax] = (uint32_t)(idx % t->dims[ax]);
			idx /= t->dims[ax];
		}
		coord_text(a, sizeof(a), c, t->n_axes);
		centre(&l, c, &x, &y);
		fprintf(f, "\t\"%s\" [pos=\"%.0f,%.0f!\" fillcolor=%s tooltip=\"",
			a, x, -y, dot_colour(l.at[k]));
		xml_text(f, l.at[k] ? l.at[k]->name : "no node");
		fputs("\"];\n", f);
	}
	for (k = 0; k < t->n_cables; k++) {
		const struct topo_cable *cb = &t->cables[k];

		if (cb->axis >= t->n_axes || !in_extents(t, cb->from, t->n_axes))
			continue;
		memcpy(c, cb->from, sizeof(c));
		c[cb->axis] = (c[cb->axis] + 1) % t->dims[cb->axis];
		coord_text(a, sizeof(a), cb->from, t->n_axes);
		coord_text(b, sizeof(b), c, t->n_axes);
		fprintf(f, "\t\"%s\" -- \"%s\" [label=\"%c\"%s];\n", a, b,
			axis_names[cb->axis],
			cb->cut ? " color=red style=dashed" : "");
	}
	for (k = 1; k < t->n_path; k++) {
		coord_text(a, sizeof(a), t->path[k - 1], t->n_axes);
		coord_text(b, sizeof(b), t->path[k], t->n_axes);
		fprintf(f, "\t\"%s\" -- \"%s\" [color=green3 penwidth=4];\n",
			a, b);
	}
	for (k = 0; k < t->n_nodes; k++) {
		const struct topo_node *nd = &t->nodes[k];

		if (nd->state != TOPO_UNPLACED && nd->n_coord)
			continue;
		fputs("\t\"", f);
		xml_text(f, nd->name);
		fprintf(f, "\" [shape=box fillcolor=%s label=\"", dot_colour(nd));
		xml_text(f, nd->name);
		fputs("\\n", f);
		xml_text(f, nd->reason);
		fputs("\"];\n", f);
	}
	fputs("}\n", f);
	free(l.at);
	return ferror(f) ? -1 : 0;
}
