// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * statefile.c - the daemon's view as JSON, for scripts (--state-file)
 *
 * Keys (all always present):
 *   ifname, id, state, role, reason, leader, generation, installed,
 *   coord, dims, wrap    arrays, one entry per axis, empty unless placed
 *   portmap              object: global direction -> port name, from
 *                        the oriented state on, {} before
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	for (; *p; p++) {
		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20 || *p == 0x7f)
			fprintf(f, "\\u%04x", *p);
		else
			fputc(*p, f);
	}
	fputc('"', f);
}

void td_state_json(FILE *f, const struct td_state_info *si)
{
	const struct tc_view *v = si->view;
	bool placed = v->state == TC_PLACED;
	unsigned int n = placed ? v->ndims : 0, i;
	char reason[TC_REASON_LEN + 1];
	bool first = true;

	memcpy(reason, v->reason, TC_REASON_LEN);
	reason[TC_REASON_LEN] = '\0';

	fputs("{\"ifname\":", f);
	json_str(f, si->ifname ? si->ifname : "");
	fprintf(f, ",\"id\":%" PRIu64 ",\"state\":\"%s\",\"role\":\"%s\",\"reason\":",
		si->id, td_state_name(v->state), td_role_name(v->role));
	json_str(f, reason);
	fprintf(f, ",\"leader\":%" PRIu64 ",\"generation\":%" PRIu32
		",\"installed\":%s", v->leader, v->generation,
		si->installed ? "true" : "false");

	fputs(",\"coord\":[", f);
	for (i = 0; i < n && i < TC_MAX_AXES; i++)
		fprintf(f, "%s%u", i ? "," : "", v->coord[i]);
	fputs("],\"dims\":[", f);
	for (i = 0; i < n && i < TC_MAX_AXES; i++)
		fprintf(f, "%s%u", i ? "," : "", v->dims[i]);
	fputs("],\"wrap\":[", f);
	for (i = 0; i < n && i < TC_MAX_AXES; i++)
		fprintf(f, "%s%s", i ? "," : "",
			v->wrap & (1u << i) ? "true" : "false");
	fputs("],\"portmap\":{", f);
	if (v->state == TC_ORIENTED || placed) {
		for (i = 0; i < TC_MAX_PORTS; i++) {
			uint8_t label = v->portmap[i];

			if (label >= TC_MAX_PORTS || !si->port_names[label])
				continue;
			fprintf(f, "%s\"%s\":", first ? "" : ",",
				td_dir_name((uint8_t)i));
			json_str(f, si->port_names[label]);
			first = false;
		}
	}
	fputs("}}\n", f);
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
