// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * daemon_frame.c - unit tests of daemon/frame.c (control frames, node id)
 * and daemon/statefile.c (the --state-file JSON)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "frame.h"
#include "install.h"
#include "statefile.h"
#include "unit.h"

static const uint8_t mac[TD_ETH_ALEN] = { 0x02, 0, 0, 0, 0, 0x01 };

UNIT_TEST(frame_build_layout)
{
	const uint8_t msg[3] = { 0xaa, 0xbb, 0xcc };
	uint8_t buf[128];
	size_t n;

	n = td_frame_build(buf, sizeof(buf), mac, msg, sizeof(msg));
	UNIT_CHECK(n == TD_FRAME_HLEN + 3);
	UNIT_CHECK(TD_FRAME_HLEN == 46);
	UNIT_CHECK(!memcmp(buf, "\xff\xff\xff\xff\xff\xff", 6));
	UNIT_CHECK(!memcmp(buf + 6, mac, 6));
	UNIT_CHECK(buf[12] == 0x88 && buf[13] == 0xb5);
	UNIT_CHECK(buf[14] == TORUS_HDR_VERSION);	/* version */
	UNIT_CHECK(buf[15] == TORUS_T_CTRL);		/* type */
	UNIT_CHECK(buf[16] == 1);			/* hop limit */
	for (n = 17; n < TD_FRAME_HLEN; n++)
		UNIT_CHECK(buf[n] == 0);
	UNIT_CHECK(!memcmp(buf + TD_FRAME_HLEN, msg, 3));
}

UNIT_TEST(frame_build_too_big)
{
	uint8_t buf[64], msg[32] = { 0 };

	UNIT_CHECK(td_frame_build(buf, sizeof(buf), mac, msg, 18) == 64);
	UNIT_CHECK(td_frame_build(buf, sizeof(buf), mac, msg, 19) == 0);
	UNIT_CHECK(td_frame_build(buf, 10, mac, msg, 0) == 0);
	UNIT_CHECK(td_frame_build(buf, sizeof(buf), mac, msg,
				  (size_t)-1) == 0);
}

UNIT_TEST(frame_roundtrip)
{
	const uint8_t msg[5] = "hello";
	const uint8_t *got = NULL;
	uint8_t buf[128];
	size_t n, len = 0;

	n = td_frame_build(buf, sizeof(buf), mac, msg, sizeof(msg));
	UNIT_CHECK(td_frame_parse(buf, n, &got, &len) == TD_FRAME_OK);
	UNIT_CHECK(got == buf + TD_FRAME_HLEN && len == 5);
}

UNIT_TEST(frame_parse_rejects)
{
	const uint8_t msg[4] = { 1, 2, 3, 4 };
	const uint8_t *got;
	uint8_t buf[128];
	size_t n, len, i;

	n = td_frame_build(buf, sizeof(buf), mac, msg, sizeof(msg));
	/* every truncation is refused, never read past the end */
	for (i = 0; i < TD_FRAME_HLEN; i++)
		UNIT_CHECK(td_frame_parse(buf, i, &got, &len) ==
			   TD_FRAME_SHORT);
	UNIT_CHECK(td_frame_parse(buf, TD_FRAME_HLEN, &got, &len) ==
		   TD_FRAME_EMPTY);
	buf[13] = 0xb6;
	UNIT_CHECK(td_frame_parse(buf, n, &got, &len) == TD_FRAME_ETHERTYPE);
	buf[13] = 0xb5;
	buf[14] = 2;
	UNIT_CHECK(td_frame_parse(buf, n, &got, &len) == TD_FRAME_VERSION);
	buf[14] = TORUS_HDR_VERSION;
	buf[15] = TORUS_T_DATA;
	UNIT_CHECK(td_frame_parse(buf, n, &got, &len) == TD_FRAME_TYPE);
	UNIT_STREQ(td_frame_strerror(TD_FRAME_TYPE), "not a control frame");
	UNIT_STREQ(td_frame_strerror(-1), "?");
}

UNIT_TEST(frame_parse_garbage)
{
	const uint8_t *got;
	uint8_t buf[256];
	size_t len, n;
	unsigned int seed = 1, i, j, ok = 0;

	/* random bytes: refused or parsed, but inside the buffer */
	for (i = 0; i < 10000; i++) {
		n = (size_t)(rand_r(&seed) % (int)sizeof(buf));
		for (j = 0; j < n; j++)
			buf[j] = (uint8_t)rand_r(&seed);
		if (i & 1) {
			buf[12] = 0x88;
			buf[13] = 0xb5;
			buf[14] = 1;
			buf[15] = 2;
		}
		if (td_frame_parse(buf, n, &got, &len) == TD_FRAME_OK) {
			UNIT_CHECK(got + len == buf + n);
			ok++;
		}
	}
	UNIT_CHECK(ok > 0);
}

UNIT_TEST(mac_id_order_independent)
{
	uint8_t a[3][TD_ETH_ALEN] = {
		{ 2, 0, 0, 0, 0, 3 }, { 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 },
	};
	uint8_t b[3][TD_ETH_ALEN] = {
		{ 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 }, { 2, 0, 0, 0, 0, 3 },
	};
	uint8_t c[3][TD_ETH_ALEN] = {
		{ 2, 0, 0, 0, 0, 1 }, { 2, 0, 0, 0, 0, 2 }, { 2, 0, 0, 0, 0, 4 },
	};
	uint64_t ia = td_mac_id(a, 3);

	UNIT_CHECK(ia != 0);
	UNIT_CHECK(ia == td_mac_id(b, 3));
	UNIT_CHECK(ia != td_mac_id(c, 3));
	UNIT_CHECK(td_mac_id(a, 2) != ia);
	UNIT_CHECK(td_mac_id(NULL, 0) != 0);
}

static char *state_json(const struct tc_view *v, const char *const *names)
{
	struct td_state_info si = { .ifname = "tor0", .id = 42, .view = v };
	struct unit_capture cap;
	unsigned int i;

	for (i = 0; i < TC_MAX_PORTS; i++)
		si.port_names[i] = names[i];
	si.installed = v->state == TC_PLACED;
	td_state_json(unit_capture_begin(&cap), &si);
	return unit_capture_end(&cap);
}

UNIT_TEST(state_json_placed)
{
	const char *names[TC_MAX_PORTS] = { "px", "mx", "py", "my" };
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_PLACED;
	v.role = TC_ROLE_FOLLOWER;
	v.leader = 7;
	v.ndims = 2;
	v.coord[0] = 1;
	v.dims[0] = 2;
	v.dims[1] = 3;
	v.wrap = 1;
	v.generation = 9;
	/* global +x is served by the port labelled -y */
	v.portmap[0] = 3;
	v.portmap[3] = 0;
	s = state_json(&v, names);
	UNIT_STREQ(s, "{\"ifname\":\"tor0\",\"id\":\"42\",\"state\":\"placed\","
		   "\"role\":\"follower\",\"reason\":\"\",\"leader\":\"7\","
		   "\"generation\":9,\"installed\":true,"
		   "\"status\":\"placed\",\"coord\":[1,0],"
		   "\"dims\":[2,3],\"wrap\":[true,false],"
		   "\"portmap\":{\"+x\":\"my\",\"-y\":\"px\"}}\n");
	free(s);
}

/*
 * A placed node whose last route set was refused (by the kernel, or for
 * a cycle) reports "routes refused", not "placed", and why
 */
UNIT_TEST(state_status_routes_refused)
{
	struct td_state_routes r = { .computed = true };
	struct td_state_info si = { .ifname = "tor0" };
	struct unit_capture cap;
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_PLACED;
	si.view = &v;
	si.routes = &r;
	UNIT_STREQ(td_state_status(&si), "placed");
	r.refused = true;
	snprintf(r.refused_why, sizeof(r.refused_why),
		 "by the kernel: No space left on device");
	UNIT_STREQ(td_state_status(&si), "routes refused");
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(strstr(s, "\"status\":\"routes refused\"") != NULL);
	UNIT_CHECK(strstr(s, "\"refused\":true,\"refused_why\":"
			  "\"by the kernel: No space left on device\"") != NULL);
	free(s);
	/* not placed: the state, whatever the routes */
	v.state = TC_DISCOVERING;
	UNIT_STREQ(td_state_status(&si), "discovering");
}

UNIT_TEST(state_neighbors)
{
	struct td_state_nbr nbrs[TC_MAX_PORTS];
	struct td_state_info si;
	struct unit_capture cap;
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_PLACED;
	memset(nbrs, 0, sizeof(nbrs));
	memset(&si, 0, sizeof(si));
	si.ifname = "tor0";
	si.view = &v;
	si.nbrs = nbrs;
	nbrs[0] = (struct td_state_nbr){
		.present = true, .ifname = "px", .dir = 0, .want = 0,
		.nbr = { .status = TC_NBR_RESOLVED, .carrier = true, .id = 5,
			 .peer_port = 3, .silent = 2, .has_frame = true,
			 .placed = true, .leader = 9 },
	};
	nbrs[1] = (struct td_state_nbr){
		.present = true, .ifname = "mx", .dir = TORUS_DIR_NONE,
		.want = 1, .refused = TD_REFUSE_MISPLACED,
		.nbr = { .status = TC_NBR_UNRESOLVED, .carrier = true,
			 .id = 6, .peer_port = TORUS_DIR_NONE,
			 .miswired = true },
	};
	td_state_nbr_text(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_STREQ(s, "port=px label=+x carrier=up status=resolved id=5 "
		   "peer_port=-y leader=9 placed=yes silent=2 miswired=no "
		   "serves=+x want=+x refused=-\n"
		   "port=mx label=-x carrier=up status=unresolved id=6 "
		   "peer_port=- leader=0 placed=no silent=0 miswired=yes "
		   "serves=- want=-x refused=misplaced\n");
	free(s);
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(strstr(s, "\"neighbors\":[{\"port\":\"px\",\"label\":"
			  "\"+x\",\"carrier\":true,\"status\":\"resolved\","
			  "\"id\":\"5\",\"peer_port\":\"-y\"") != NULL);
	UNIT_CHECK(strstr(s, "\"refused\":\"misplaced\"}]}") != NULL);
	UNIT_CHECK(strstr(s, "\"silent\":2,\"miswired\":false,") != NULL);
	UNIT_CHECK(strstr(s, "\"silent\":0,\"miswired\":true,") != NULL);
	free(s);
}

UNIT_TEST(state_json_failed)
{
	const char *names[TC_MAX_PORTS] = { NULL };
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_FAILED;
	v.ndims = 3;
	v.coord[0] = 5;		/* not shown: not placed */
	/* a full, unterminated reason with characters to escape */
	memset(v.reason, 'x', sizeof(v.reason));
	v.reason[0] = '"';
	v.reason[1] = '\n';
	s = state_json(&v, names);
	UNIT_CHECK(strstr(s, "\"state\":\"failed\",\"role\":\"none\"") != NULL);
	UNIT_CHECK(strstr(s, "\"reason\":\"\\\"\\nxxx") != NULL);
	UNIT_CHECK(strstr(s, "\"coord\":[],\"dims\":[],\"wrap\":[],"
			  "\"portmap\":{}}") != NULL);
	free(s);
}

/*
 * 64-bit ids beyond 2^53 are strings (jq and JavaScript round numbers),
 * and an interface name that is not UTF-8 still gives valid JSON.
 */
UNIT_TEST(state_json_big_id_raw_ifname)
{
	struct td_state_info si = { .ifname = "p\xe9\x01x", .id = UINT64_MAX };
	struct unit_capture cap;
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_DISCOVERING;
	v.leader = 13441520399186018479ull;
	si.view = &v;
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(strstr(s, "{\"ifname\":\"p\\u00e9\\u0001x\","
			  "\"id\":\"18446744073709551615\",") == s);
	UNIT_CHECK(strstr(s, ",\"leader\":\"13441520399186018479\","));
	free(s);
}

/* the routes torusd installed: an object of their own, absent before */
UNIT_TEST(state_json_routes)
{
	struct td_state_routes r = {
		.computed = true, .lamb = true, .generation = 7,
		.ls_generation = 42, .installs = 3, .lambs = 1,
		.exceptions = 12, .dead = 2, .cuts = 15, .compute_ms = 1.5,
		.compute_cpu_ms = 0.25, .computed_at_ms = 1764000000123ull,
		.coll = { .installed = true, .parent = TORUS_DIR(1, 1),
			  .children = 1u << TORUS_DIR(0, 0) |
				      1u << TORUS_DIR(2, 1),
			  .depth = 3, .members = 62, .roots = 1,
			  .max_depth = 6, .max_fan_in = 5 },
	};
	struct td_state_info si = { .ifname = "tor0" };
	struct unit_capture cap;
	struct tc_view v;
	char *s;

	memset(&v, 0, sizeof(v));
	memset(v.portmap, TORUS_DIR_NONE, sizeof(v.portmap));
	v.state = TC_PLACED;
	si.view = &v;
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(!strstr(s, "\"routes\""));
	free(s);
	si.routes = &r;
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(strstr(s, ",\"routes\":{\"computed\":true,"
			  "\"generation\":7,\"ls_generation\":42,"
			  "\"installs\":3,\"lamb\":true,\"refused\":false,"
			  "\"refused_why\":null,"
			  "\"lambs\":1,\"exceptions\":12,\"dead\":2,"
			  "\"cut\":15,\"compute_ms\":1.500,"
			  "\"compute_cpu_ms\":0.250,"
			  "\"computed_at_ms\":1764000000123,"
			  "\"coll_tree\":{\"installed\":true,"
			  "\"default\":false,\"parent\":\"-y\","
			  "\"children\":[\"+x\",\"-z\"],\"depth\":3,"
			  "\"members\":62,\"roots\":1,\"max_depth\":6,"
			  "\"max_fan_in\":5}}"));
	/* a root has no parent */
	free(s);
	r.coll.parent = TORUS_DIR_NONE;
	td_state_json(unit_capture_begin(&cap), &si);
	s = unit_capture_end(&cap);
	UNIT_CHECK(strstr(s, "\"parent\":null,\"children\":[\"+x\","));
	free(s);
}

UNIT_TEST(state_names)
{
	UNIT_STREQ(td_state_name(TORUS_STATE_ORIENTED), "oriented");
	UNIT_STREQ(td_state_name(200), "unknown");
	UNIT_STREQ(td_role_name(TORUS_ROLE_LEADER), "leader");
	UNIT_STREQ(td_role_name(TORUS_ROLE_LAMB), "lamb");
	UNIT_STREQ(td_dir_name(TORUS_DIR(2, 1)), "-z");
	UNIT_STREQ(td_dir_name(15), "-e");
	UNIT_STREQ(td_dir_name(TORUS_DIR_NONE), "?");
}

UNIT_TEST(state_write_atomic)
{
	char path[] = "/tmp/daemon_state.XXXXXX", buf[512];
	struct td_state_info si = { .ifname = "tor0", .id = 1 };
	struct tc_view v;
	FILE *f;
	int fd;
	size_t n;

	memset(&v, 0, sizeof(v));
	v.state = TC_DISCOVERING;
	si.view = &v;
	fd = mkstemp(path);
	UNIT_CHECK(fd >= 0);
	close(fd);
	UNIT_CHECK(td_state_write(path, &si) == 0);
	f = fopen(path, "r");
	UNIT_CHECK(f != NULL);
	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		buf[n] = '\0';
		fclose(f);
		UNIT_CHECK(strstr(buf, "\"state\":\"discovering\"") != NULL);
	}
	unlink(path);
	UNIT_CHECK(td_state_write("/nonexistent/dir/state.json", &si) < 0);
}

static const struct unit_case cases[] = {
	UNIT_CASE(frame_build_layout),
	UNIT_CASE(frame_build_too_big),
	UNIT_CASE(frame_roundtrip),
	UNIT_CASE(frame_parse_rejects),
	UNIT_CASE(frame_parse_garbage),
	UNIT_CASE(mac_id_order_independent),
	UNIT_CASE(state_json_placed),
	UNIT_CASE(state_json_failed),
	UNIT_CASE(state_json_big_id_raw_ifname),
	UNIT_CASE(state_json_routes),
	UNIT_CASE(state_names),
	UNIT_CASE(state_status_routes_refused),
	UNIT_CASE(state_neighbors),
	UNIT_CASE(state_write_atomic),
};

UNIT_MAIN(cases)
