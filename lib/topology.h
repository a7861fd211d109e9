/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * topology.h - a fabric's picture: the topology document (JSON) that
 * "torus -j topo", torus-sim and torus-lab write, read back, and drawn as
 * SVG or Graphviz DOT.  One implementation for the three programs.
 *
 * The document:
 *   { "dims": [4,4,2], "wrap": [true,true,false],
 *     "nodes": [ { "name": "n0-0-0", "coord": [0,0,0], "state": "placed",
 *                  "role": "leader", "reason": "" }, ... ],
 *     "cables": [ { "from": [0,0,0], "axis": 0, "cut": false }, ... ],
 *     "path": [ [0,0,0], [1,0,0], ... ] }
 * state is placed, unplaced or dead; unplaced and dead nodes may lack a
 * coordinate.  A cable joins "from" to its neighbour on "axis" in the +
 * direction (round the ring on a wrapped axis).  A coordinate inside the
 * extents that no node occupies is drawn as missing.
 */
#ifndef TORUS_TOPO_H
#define TORUS_TOPO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TOPO_MAX_AXES	8
#define TOPO_NAME_LEN	64
#define TOPO_REASON_LEN	256
/* SVG and DOT refuse larger fabrics: nobody reads a bigger picture */
#define TOPO_MAX_DRAWN	4096

enum topo_state {
	TOPO_PLACED,
	TOPO_UNPLACED,
	TOPO_DEAD,
};

struct topo_node {
	char		name[TOPO_NAME_LEN];
	unsigned int	n_coord;	/* 0: no coordinate */
	uint32_t	coord[TOPO_MAX_AXES];
	uint8_t		state;		/* enum topo_state */
	char		role[16];	/* "member", "leader", "lamb", ... */
	char		reason[TOPO_REASON_LEN];
};

struct topo_cable {
	uint32_t	from[TOPO_MAX_AXES];
	uint8_t		axis;
	bool		cut;
};

struct topo {
	unsigned int	n_axes;		/* 0: extents unknown */
	uint32_t	dims[TOPO_MAX_AXES];
	bool		wrap[TOPO_MAX_AXES];
	struct topo_node *nodes;
	size_t		n_nodes, cap_nodes;
	struct topo_cable *cables;
	size_t		n_cables, cap_cables;
	uint32_t	(*path)[TOPO_MAX_AXES];
	size_t		n_path, cap_path;
};

void topo_init(struct topo *t);
void topo_free(struct topo *t);
/*
 * @arr with room for element @n (of @size bytes), the new part zeroed
 * and *@cap updated; NULL when out of memory (@arr is left as it was)
 */
void *topo_grow(void *arr, size_t *cap, size_t n, size_t size);
/* appended zeroed, or NULL when out of memory */
struct topo_node *topo_add_node(struct topo *t);
struct topo_cable *topo_add_cable(struct topo *t);
int topo_add_hop(struct topo *t, const uint32_t *coord);
const char *topo_state_name(uint8_t state);

/*
 * @text: a topology document, or any object with one in its "topo"
 * member (torus-sim's and torus-lab's -j results).  0, or -1 with the
 * reason in @err.
 */
int topo_parse(struct topo *t, const char *text, char *err, size_t errlen);
/* the document, through the JSON printer's current context */
void topo_print_json(const struct topo *t);
/* 0, or -1 (fabric too large to draw, written to stderr) */
int topo_write_svg(const struct topo *t, FILE *f);
int topo_write_dot(const struct topo *t, FILE *f);

#endif /* TORUS_TOPO_H */
