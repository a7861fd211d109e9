// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * neighbor.c - torus neighbor: the node's neighbor table, as torusd sees
 * it (in the spirit of lldpcli show neighbors)
 *
 *	torus neighbor show [ dev DEV ]
 *
 * The kernel knows ports and cables, not who is across them: torusd
 * does.  The tool asks the daemon of the node device on its control
 * socket /run/torusd/ctl-NETNS-DEV (one per network namespace, so -n
 * NETNS works; a reply not from torusd, root or the user that owns
 * /run/torusd, is refused: ctlsock.h) and
 * prints each port with the node across it, the state of the cable's
 * orientation (none, unresolved, conflict, resolved), the direction the
 * port serves in the kernel and, for a cable discovery refuses, why.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <net/if.h>

#include "ctlsock.h"
#include "json_print.h"
#include "tool.h"

#define OBJ		"neighbor"
#define REPLY_MAX	16384
#define REPLY_WAIT_MS	3000

void neighbor_usage(FILE *f)
{
	fprintf(f,
		"Usage: torus neighbor show [ dev DEV ]\n"
		"       (asks the torusd running on DEV in this network namespace)\n");
}

/* the value of "key=" in a line of words, copied into @val */
const char *torusd_word(const char *line, const char *key, char *val,
			size_t size)
{
	size_t klen = strlen(key);
	const char *p = line;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == '=') {
			size_t n = strcspn(p + klen + 1, " \n");

			if (n >= size)
				n = size - 1;
			memcpy(val, p + klen + 1, n);
			val[n] = '\0';
			return val;
		}
		p = strchr(p, ' ');
		if (p)
			p++;
	}
	snprintf(val, size, "-");
	return val;
}

static void print_line(const char *line)
{
	char port[32], label[8], carrier[8], status[16], id[24], peer[8];
	char leader[24], placed[8], silent[16], serves[8], want[8];
	char refused[16], miswired[8];

	torusd_word(line, "port", port, sizeof(port));
	torusd_word(line, "label", label, sizeof(label));
	torusd_word(line, "carrier", carrier, sizeof(carrier));
	torusd_word(line, "status", status, sizeof(status));
	torusd_word(line, "id", id, sizeof(id));
	torusd_word(line, "peer_port", peer, sizeof(peer));
	torusd_word(line, "leader", leader, sizeof(leader));
	torusd_word(line, "placed", placed, sizeof(placed));
	torusd_word(line, "silent", silent, sizeof(silent));
	torusd_word(line, "miswired", miswired, sizeof(miswired));
	torusd_word(line, "serves", serves, sizeof(serves));
	torusd_word(line, "want", want, sizeof(want));
	torusd_word(line, "refused", refused, sizeof(refused));

	open_json_object(NULL);
	print_string(PRINT_ANY, "port", "%s", port);
	print_string(PRINT_ANY, "label", " (%s)", label);
	print_bool(PRINT_JSON, "carrier", NULL, !strcmp(carrier, "up"));
	print_string(PRINT_FP, NULL, " carrier %s", carrier);
	print_string(PRINT_ANY, "status", ": %s", status);
	print_u64_as_string(PRINT_ANY, "id", " neighbor %" PRIu64,
			    strtoull(id, NULL, 10));
	print_string(PRINT_ANY, "peer_port", " port %s", peer);
	print_u64_as_string(PRINT_ANY, "leader", " leader %" PRIu64,
			    strtoull(leader, NULL, 10));
	print_bool(PRINT_JSON, "placed", NULL, !strcmp(placed, "yes"));
	print_string(PRINT_FP, NULL, "%s", !strcmp(placed, "yes") ?
		     " placed" : "");
	print_u64(PRINT_ANY, "silent", " silent %" PRIu64 " ticks",
		  strtoull(silent, NULL, 10));
	/* an older torusd does not say: "-" */
	print_bool(PRINT_JSON, "miswired", NULL, !strcmp(miswired, "yes"));
	print_string(PRINT_FP, NULL, "%s", !strcmp(miswired, "yes") ?
		     " miswired (out of the port map)" : "");
	print_string_or_null(PRINT_ANY, "serves", " serves %s",
			     strcmp(serves, "-") ? serves : NULL);
	print_string_or_null(PRINT_ANY, "want", " (discovery: %s)",
			     strcmp(want, "-") ? want : NULL);
	print_string_or_null(PRINT_ANY, "refused", " refused: %s",
			     strcmp(refused, "-") ? refused : NULL);
	print_nl();
	close_json_object();
}

int torusd_ask(const char *dev, const char *req, char *buf, size_t size)
{
	char err[256];

	if (torusd_ctl_ask(TORUSD_RUN_DIR, dev, req, buf, size, REPLY_WAIT_MS,
			   err, sizeof(err))) {
		fprintf(stderr, "Error: %s\n", err);
		return -1;
	}
	return 0;
}

/*
 * Ask torusd on @dev and check its "ok" line: the reply (allocated, at
 * most @size bytes, the caller frees it) or NULL, the error printed.
 */
char *torusd_query(const char *dev, const char *req, size_t size)
{
	char *buf = malloc(size);

	if (!buf)
		return NULL;
	if (torusd_ask(dev, req, buf, size)) {
		free(buf);
		return NULL;
	}
	if (strncmp(buf, "ok\n", 3)) {
		fprintf(stderr, "Error: torusd on %s: %.*s\n", dev,
			(int)strcspn(buf, "\n"), buf);
		free(buf);
		return NULL;
	}
	return buf;
}

static int neighbor_show(int argc, char **argv)
{
	char name[IF_NAMESIZE], *buf, *line, *next;
	const char *dev;
	uint32_t ifindex;
	int ret;

	ret = parse_dev_arg(OBJ, argc, argv, &dev);
	if (ret)
		return ret;
	if (node_ifindex(dev, &ifindex) || !if_indextoname(ifindex, name)) {
		if (!dev)
			return EXIT_ERR;
		snprintf(name, sizeof(name), "%s", dev);
	}
	buf = torusd_query(name, "neighbors", REPLY_MAX);
	if (!buf)
		return EXIT_ERR;
	new_json_obj(stdout, opts.json, opts.pretty);
	open_json_array(PRINT_JSON, NULL);
	for (line = buf + 3; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (*line)
			print_line(line);
	}
	close_json_array(PRINT_JSON, NULL);
	delete_json_obj();
	free(buf);
	return EXIT_OK;
}

static const struct cmd neighbor_cmds[] = {
	{ "show",	neighbor_show },
	{}
};

int do_neighbor(int argc, char **argv)
{
	return do_cmds(OBJ, neighbor_cmds, neighbor_usage, argc, argv);
}
