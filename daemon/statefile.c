// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statefile.c - the daemon's view as JSON, for scripts (--state-file)
 *
 * Written by the shared JSON printer (lib/json_print.c).  Keys (all always
 * present):
 *   ifname, state, role, reason, generation, installed,
 *   id, leader           decimal strings (64-bit), leader "0" if none
 *   coord, dims, wrap    arrays, one entry per axis, empty unless placed
 *   portmap              object: global direction -> port name, from
 *                        the oriented state on, {} before
 *   neighbors            array, one object per port of the node: port,
 *                        label, carrier, status, id, peer_port, leader,
 *                        placed, silent, miswired, serves, want,
 *                        refused (see td_state_nbr_text())
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "install.h"
#include "json_print.h"
#include "statefile.h"

const char *td_state_name(uint8_t state)
{
	switch (state) {
	case TORUS_STATE_UNCONFIGURED:
		return "unconfigured";
	case TORUS_STATE_DISCOVERING:
		return "discovering";
	case TORUS_STATE_ORIENTED:
		return "oriented";
	case TORUS_STATE_PLACED:
		return "placed";
	case TORUS_STATE_FAILED:
		return "failed";
	}
	return "unknown";
}

const char *td_role_name(uint8_t role)
{
	switch (role) {
	case TORUS_ROLE_NONE:
		return "none";
	case TORUS_ROLE_STATIC:
		return "static";
	case TORUS_ROLE_LEADER:
		return "leader";
	case TORUS_ROLE_FOLLOWER:
		return "follower";
	case TORUS_ROLE_LAMB:
		return "lamb";
	}
	return "unknown";
}

const char *td_dir_name(uint8_t dir)
{
	static const char names[TORUS_MAX_DIRS][3] = {
		"+x", "-x", "+y", "-y", "+z", "-z", "+a", "-a",
		"+b", "-b", "+c", "-c", "+d", "-d", "+e", "-e",
	};

	return dir < TORUS_MAX_DIRS ? names[dir] : "?";
}

const char *td_nbr_status_name(uint8_t status)
{
	switch (status) {
	case TC_NBR_NONE:
		return "none";
	case TC_NBR_UNRESOLVED:
		return "unresolved";
	case TC_NBR_CONFLICT:
		return "conflict";
	case TC_NBR_RESOLVED:
		return "resolved";
	}
	return "unknown";
}

static const char *dir_or_dash(uint8_t dir)
{
	return dir < TORUS_MAX_DIRS ? td_dir_name(dir) : "-";
}

static void nbr_json(struct json_writer *jw, uint8_t label,
		     const struct td_state_nbr *n)
{
	if (!n->present)
		return;
	jsonw_start_object(jw);
	jsonw_name(jw, "port");
	jsonw_string(jw, n->ifname ? n->ifname : "");
	jsonw_name(jw, "label");
	jsonw_string(jw, td_dir_name(label));
	jsonw_name(jw, "carrier");
	jsonw_bool(jw, n->nbr.carrier);
	jsonw_name(jw, "status");
	jsonw_string(jw, td_nbr_status_name(n->nbr.status));
	jsonw_name(jw, "id");
	jsonw_u64_string(jw, n->nbr.id);
	jsonw_name(jw, "peer_port");
	jsonw_string(jw, dir_or_dash(n->nbr.peer_port));
	jsonw_name(jw, "leader");
	jsonw_u64_string(jw, n->nbr.leader);
	jsonw_name(jw, "placed");
	jsonw_bool(jw, n->nbr.placed);
	jsonw_name(jw, "silent");
	jsonw_u64(jw, n->nbr.silent);
	jsonw_name(jw, "miswired");
	jsonw_bool(jw, n->nbr.miswired);
	jsonw_name(jw, "serves");
	jsonw_string(jw, dir_or_dash(n->dir));
	jsonw_name(jw, "want");
	jsonw_string(jw, dir_or_dash(n->want));
	jsonw_name(jw, "refused");
	jsonw_string(jw, n->refused ? td_refusal_name(n->refused) : "-");
	jsonw_end_object(jw);
}

void td_state_nbr_text(FILE *f, const struct td_state_info *si)
{
	unsigned int l;

	for (l = 0; si->nbrs && l < TC_MAX_PORTS; l++) {
		const struct td_state_nbr *n = &si->nbrs[l];

		if (!n->present)
			continue;
		fprintf(f, "port=%s label=%s carrier=%s status=%s id=%" PRIu64
			" peer_port=%s leader=%" PRIu64 " placed=%s silent=%u"
			" miswired=%s serves=%s want=%s refused=%s\n",
			n->ifname ? n->ifname : "?", td_dir_name((uint8_t)l),
			n->nbr.carrier ? "up" : "down",
			td_nbr_status_name(n->nbr.status), n->nbr.id,
			dir_or_dash(n->nbr.peer_port), n->nbr.leader,
			n->nbr.placed ? "yes" : "no", n->nbr.silent,
			n->nbr.miswired ? "yes" : "no", dir_or_dash(n->dir), dir_or_dash(n->want),
			n->refused ? td_refusal_name(n->refused) : "-");
	}
}

void td_fmt_coord(char *buf, size_t len, const uint8_t *v, unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u",
					i ? "," : "", v[i]);
}

void td_fmt_dims(char *buf, size_t len, const uint16_t *v, uint8_t wrap,
		     unsigned int n)
{
	size_t off = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u%s",
					i ? "x" : "", v[i],
					wrap & (1u << i) ? "" : "(mesh)");
}

static void coll_json(struct json_writer *jw, const struct td_state_coll *c)
{
	unsigned int dir;

	jsonw_name(jw, "coll_tree");
	jsonw_start_object(jw);
	jsonw_name(jw, "installed");
	jsonw_bool(jw, c->installed);
	jsonw_name(jw, "default");
	jsonw_bool(jw, c->fault_free);
	jsonw_name(jw, "parent");
	if (c->parent == TORUS_DIR_NONE)
		jsonw_null(jw);
	else
		jsonw_string(jw, td_dir_name(c->parent));
	jsonw_name(jw, "children");
	jsonw_start_array(jw);
	for (dir = 0; dir < TORUS_MAX_DIRS; dir++)
		if (c->children & (1u << dir))
			jsonw_string(jw, td_dir_name((uint8_t)dir));
	jsonw_end_array(jw);
	jsonw_name(jw, "depth");
	jsonw_u64(jw, c->depth);
	jsonw_name(jw, "members");
	jsonw_u64(jw, c->members);
	jsonw_name(jw, "roots");
	jsonw_u64(jw, c->roots);
	jsonw_name(jw, "max_depth");
	jsonw_u64(jw, c->max_depth);
	jsonw_name(jw, "max_fan_in");
	jsonw_u64(jw, c->max_fan_in);
	jsonw_end_object(jw);
}

static void routes_json(struct json_writer *jw,
			const struct td_state_routes *r)
{
	jsonw_name(jw, "routes");
	jsonw_start_object(jw);
	jsonw_name(jw, "computed");
	jsonw_bool(jw, r->computed);
	jsonw_name(jw, "generation");
	jsonw_u64(jw, r->generation);
	jsonw_name(jw, "ls_generation");
	jsonw_u64(jw, r->ls_generation);
	jsonw_name(jw, "installs");
	jsonw_u64(jw, r->installs);
	jsonw_name(jw, "lamb");
	jsonw_bool(jw, r->lamb);
	jsonw_name(jw, "refused");
	jsonw_bool(jw, r->refused);
	jsonw_name(jw, "refused_why");
	if (r->refused)
		jsonw_string(jw, r->refused_why);
	else
		jsonw_null(jw);
	jsonw_name(jw, "lambs");
	jsonw_u64(jw, r->lambs);
	jsonw_name(jw, "exceptions");
	jsonw_u64(jw, r->exceptions);
	jsonw_name(jw, "dead");
	jsonw_u64(jw, r->dead);
	jsonw_name(jw, "cut");
	jsonw_u64(jw, r->cuts);
	jsonw_name(jw, "compute_ms");
	jsonw_float(jw, "%.3f", r->compute_ms);
	jsonw_name(jw, "compute_cpu_ms");
	jsonw_float(jw, "%.3f", r->compute_cpu_ms);
	jsonw_name(jw, "computed_at_ms");
	jsonw_u64(jw, r->computed_at_ms);
	coll_json(jw, &r->coll);
	jsonw_end_object(jw);
}

const char *td_state_status(const struct td_state_info *si)
{
	if (si->view->state == TC_PLACED && si->routes && si->routes->refused)
		return "routes refused";
	return td_state_name(si->view->state);
}

void td_state_json(FILE *f, const struct td_state_info *si)
{
	const struct tc_view *v = si->view;
	bool placed = v->state == TC_PLACED;
	unsigned int n = placed ? v->ndims : 0, i;
	char reason[TC_REASON_LEN + 1];
	struct json_writer *jw;

	if (n > TC_MAX_AXES)
		n = TC_MAX_AXES;
	memcpy(reason, v->reason, TC_REASON_LEN);
	reason[TC_REASON_LEN] = '\0';

	jw = jsonw_new(f);
	if (!jw)
		return;
	jsonw_start_object(jw);
	jsonw_name(jw, "ifname");
	jsonw_string(jw, si->ifname ? si->ifname : "");
	jsonw_name(jw, "id");
	jsonw_u64_string(jw, si->id);
	jsonw_name(jw, "state");
	jsonw_string(jw, td_state_name(v->state));
	jsonw_name(jw, "role");
	jsonw_string(jw, td_role_name(v->role));
	jsonw_name(jw, "reason");
	jsonw_string(jw, reason);
	jsonw_name(jw, "leader");
	jsonw_u64_string(jw, v->leader);
	jsonw_name(jw, "generation");
	jsonw_u64(jw, v->generation);
	jsonw_name(jw, "installed");
	jsonw_bool(jw, si->installed);
	jsonw_name(jw, "status");
	jsonw_string(jw, td_state_status(si));
	jsonw_name(jw, "coord");
	jsonw_start_array(jw);
	for (i = 0; i < n; i++)
		jsonw_u64(jw, v->coord[i]);
	jsonw_end_array(jw);
	jsonw_name(jw, "dims");
	jsonw_start_array(jw);
	for (i = 0; i < n; i++)
		jsonw_u64(jw, v->dims[i]);
	jsonw_end_array(jw);
	jsonw_name(jw, "wrap");
	jsonw_start_array(jw);
	for (i = 0; i < n; i++)
		jsonw_bool(jw, v->wrap & (1u << i));
	jsonw_end_array(jw);
	jsonw_name(jw, "portmap");
	jsonw_start_object(jw);
	if (v->state == TC_ORIENTED || placed) {
		for (i = 0; i < TC_MAX_PORTS; i++) {
			uint8_t label = v->portmap[i];

			if (label >= TC_MAX_PORTS || !si->port_names[label])
				continue;
			jsonw_name(jw, td_dir_name((uint8_t)i));
			jsonw_string(jw, si->port_names[label]);
		}
	}
	jsonw_end_object(jw);
	if (si->routes)
		routes_json(jw, si->routes);
	if (si->nbrs) {
		jsonw_name(jw, "neighbors");
		jsonw_start_array(jw);
		for (i = 0; i < TC_MAX_PORTS; i++)
			nbr_json(jw, (uint8_t)i, &si->nbrs[i]);
		jsonw_end_array(jw);
	}
	jsonw_end_object(jw);
	/* ends the line */
	jsonw_destroy(&jw);
}

int td_state_write(const char *path, const struct td_state_info *si)
{
	size_t len = strlen(path);
	char *tmp;
	FILE *f;
	int fd, err = 0;

	tmp = malloc(len + sizeof(".XXXXXX"));
	if (!tmp)
		return -ENOMEM;
	memcpy(tmp, path, len);
	memcpy(tmp + len, ".XXXXXX", sizeof(".XXXXXX"));
	fd = mkstemp(tmp);
	if (fd < 0) {
		err = -errno;
		goto out;
	}
	f = fdopen(fd, "w");
	if (!f) {
		err = -errno;
		close(fd);
		unlink(tmp);
		goto out;
	}
	/* readable by the lab's checks: like any file under /run */
	fchmod(fd, 0644);
	td_state_json(f, si);
	if (fflush(f) || ferror(f))
		err = -EIO;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err)
		unlink(tmp);
out:
	free(tmp);
	return err;
}
