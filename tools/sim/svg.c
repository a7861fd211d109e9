// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * svg.c - torus-sim --svg FILE: the picture of a run's fabric, drawn by
 * the same code as "torus topo" (lib/topology.c)
 *
 * Nodes stand at their true coordinates; dead nodes and cut cables are
 * the world's; a live node left unplaced is drawn so, with its own
 * reason, from its view at the end of the run (a liar, which runs no
 * core, as not running).
 */
#include <stdio.h>
#include <string.h>

#include "sim.h"
#include "topology.h"

static int world_topo(struct topo *t, const struct sim_world *w,
		      const struct sim_result *r)
{
	const struct sim_opts *o = w->o;
	unsigned int a, c[TC_MAX_AXES];
	uint32_t u, i;

	t->n_axes = o->ndims;
	for (a = 0; a < o->ndims; a++) {
		t->dims[a] = o->dims[a];
		t->wrap[a] = o->wrap & (1u << a);
	}
	for (u = 0; u < w->nnodes; u++) {
		const struct sim_rot *ru = &w->rots[w->rot_of[u]];
		struct topo_node *nd = topo_add_node(t);

		if (!nd)
			return -1;
		sim_coords(w, u, c);
		snprintf(nd->name, sizeof(nd->name), "node %u", u);
		nd->n_coord = o->ndims;
		for (a = 0; a < o->ndims; a++)
			nd->coord[a] = c[a];
		nd->state = w->alive[u] ? TOPO_PLACED : TOPO_DEAD;
		snprintf(nd->role, sizeof(nd->role), "%s",
			 w->alive[u] ? "member" : "");
		if (w->alive[u] && r->final && (!r->final[u].running ||
						r->final[u].state != TC_PLACED)) {
			nd->state = TOPO_UNPLACED;
			snprintf(nd->reason, sizeof(nd->reason), "%s",
				 r->final[u].running ? r->final[u].reason :
						       "not running");
		}
		for (a = 0; a < o->ndims; a++) {
			uint8_t lu = ru->inv[TORUS_DIR(a, 0)];
			struct topo_cable *cb;

			if (o->dims[a] < 2 ||
			    (c[a] + 1 == o->dims[a] && !(o->wrap & (1u << a))))
				continue;
			cb = topo_add_cable(t);
			if (!cb)
				return -1;
			memcpy(cb->from, nd->coord, sizeof(cb->from));
			cb->axis = (uint8_t)a;
			cb->cut = w->peer[u * w->nports + lu] == SIM_NO_PEER;
		}
	}
	/* without the views, the reasons and how many had each */
	for (i = 0; i <= SIM_MAX_REASONS && !r->final; i++) {
		struct topo_node *nd;

		if (!r->reasons[i].count)
			continue;
		nd = topo_add_node(t);
		if (!nd)
			return -1;
		snprintf(nd->name, sizeof(nd->name), "%u node%s",
			 r->reasons[i].count, r->reasons[i].count > 1 ? "s" : "");
		nd->state = TOPO_UNPLACED;
		snprintf(nd->reason, sizeof(nd->reason), "%s",
			 r->reasons[i].text);
	}
	return 0;
}

int sim_write_svg(const struct sim_world *w, const struct sim_result *r,
		  const char *file)
{
	struct topo t;
	FILE *f;
	int ret;

	topo_init(&t);
	ret = world_topo(&t, w, r);
	if (ret) {
		fprintf(stderr, "torus-sim: out of memory\n");
		goto out;
	}
	f = fopen(file, "w");
	if (!f) {
		fprintf(stderr, "torus-sim: cannot write \"%s\": %m\n", file);
		ret = -1;
		goto out;
	}
	ret = topo_write_svg(&t, f);
	if (fclose(f))
		ret = -1;
out:
	topo_free(&t);
	return ret;
}
