// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_parse.c - unit tests of tools/torus/parse.c
 */
#include "parse.h"
#include "unit.h"

UNIT_TEST(parse_coord_valid)
{
	uint32_t c[TORUS_MAX_AXES] = {};

	UNIT_CHECK(parse_coord("1,2,3", c) == 3);
	UNIT_CHECK(c[0] == 1 && c[1] == 2 && c[2] == 3);
	UNIT_CHECK(parse_coord("0", c) == 1 && c[0] == 0);
	UNIT_CHECK(parse_coord("255,0", c) == 2 && c[0] == 255);
	UNIT_CHECK(parse_coord("1,2,3,4,5,6,7,8", c) == 8 && c[7] == 8);
	UNIT_CHECK(parse_coord("007", c) == 1 && c[0] == 7);
}

UNIT_TEST(parse_coord_empty)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("", c) == -1);
	UNIT_CHECK(parse_coord(NULL, c) == -1);
	UNIT_CHECK(parse_coord(",", c) == -1);
}

UNIT_TEST(parse_coord_empty_element)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("1,,2", c) == -1);
	UNIT_CHECK(parse_coord(",1", c) == -1);
	UNIT_CHECK(parse_coord("1,", c) == -1);
}

UNIT_TEST(parse_coord_too_many_axes)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("1,2,3,4,5,6,7,8,9", c) == -1);
	UNIT_CHECK(parse_coord("0,0,0,0,0,0,0,0,0,0,0,0", c) == -1);
}

UNIT_TEST(parse_coord_out_of_range)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("256", c) == -1);
	UNIT_CHECK(parse_coord("1,300", c) == -1);
	UNIT_CHECK(parse_coord("99999999999999999999999", c) == -1);
	UNIT_CHECK(parse_coord("4294967296", c) == -1);
}

UNIT_TEST(parse_coord_negative)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("-1", c) == -1);
	UNIT_CHECK(parse_coord("1,-2", c) == -1);
	UNIT_CHECK(parse_coord("+1", c) == -1);
}

UNIT_TEST(parse_coord_trailing_junk)
{
	uint32_t c[TORUS_MAX_AXES];

	UNIT_CHECK(parse_coord("1,2x", c) == -1);
	UNIT_CHECK(parse_coord("1 ,2", c) == -1);
	UNIT_CHECK(parse_coord("1,2 ", c) == -1);
	UNIT_CHECK(parse_coord(" 1", c) == -1);
	UNIT_CHECK(parse_coord("0x1", c) == -1);
	UNIT_CHECK(parse_coord("1.5", c) == -1);
	UNIT_CHECK(parse_coord("1;2", c) == -1);
}

UNIT_TEST(parse_coord_untouched_on_error)
{
	uint32_t c[TORUS_MAX_AXES] = { 7, 7, 7 };

	UNIT_CHECK(parse_coord("1,2,x", c) == -1);
	UNIT_CHECK(c[0] == 7 && c[1] == 7 && c[2] == 7);
}

UNIT_TEST(parse_dims_range)
{
	uint32_t d[TORUS_MAX_AXES];

	UNIT_CHECK(parse_dims("256,1", d) == 2 && d[0] == 256 && d[1] == 1);
	UNIT_CHECK(parse_dims("0", d) == -1);
	UNIT_CHECK(parse_dims("257", d) == -1);
	UNIT_CHECK(parse_dims("4,4,0", d) == -1);
}

UNIT_TEST(parse_dir_all_labels)
{
	static const char *const labels[] = {
		"+x", "-x", "+y", "-y", "+z", "-z", "+a", "-a",
		"+b", "-b", "+c", "-c", "+d", "-d", "+e", "-e",
	};
	char buf[DIR_STR_LEN];
	unsigned int i;
	uint8_t dir;

	for (i = 0; i < TORUS_MAX_DIRS; i++) {
		dir = 0xaa;
		UNIT_CHECK(parse_dir(labels[i], &dir) == 0);
		UNIT_CHECK(dir == i);
		UNIT_CHECK(TORUS_DIR_AXIS(dir) == i / 2);
		UNIT_CHECK(TORUS_DIR_NEG(dir) == (i & 1));
		UNIT_STREQ(format_dir((uint8_t)i, buf), labels[i]);
	}
}

UNIT_TEST(parse_dir_bad)
{
	static const char *const bad[] = {
		"+q", "x", "++x", "+", "-", "", "+xx", "-X", "x+", "+ x",
		"+0", "+f",
	};
	unsigned int i;
	uint8_t dir = 42;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_dir(bad[i], &dir) != -1) {
			fprintf(stderr, "    accepted \"%s\"\n", bad[i]);
			*unit_ok = false;
		}
	}
	UNIT_CHECK(parse_dir(NULL, &dir) == -1);
	UNIT_CHECK(dir == 42);
}

UNIT_TEST(format_dir_none)
{
	char buf[DIR_STR_LEN];

	UNIT_CHECK(format_dir(TORUS_DIR_NONE, buf) == NULL);
	UNIT_CHECK(format_dir(TORUS_MAX_DIRS, buf) == NULL);
	UNIT_STREQ(format_dir(TORUS_DIR(2, 1), buf), "-z");
}

UNIT_TEST(parse_pct_valid)
{
	uint32_t ppm = 99;

	UNIT_CHECK(parse_pct_ppm("100", &ppm) == 0 && ppm == 1000000);
	UNIT_CHECK(parse_pct_ppm("0", &ppm) == 0 && ppm == 0);
	UNIT_CHECK(parse_pct_ppm("12.5", &ppm) == 0 && ppm == 125000);
	UNIT_CHECK(parse_pct_ppm("0.0001", &ppm) == 0 && ppm == 1);
	UNIT_CHECK(parse_pct_ppm("12.5%", &ppm) == 0 && ppm == 125000);
	UNIT_CHECK(parse_pct_ppm("100.0", &ppm) == 0 && ppm == 1000000);
	UNIT_CHECK(parse_pct_ppm("33.3333", &ppm) == 0 && ppm == 333333);
	UNIT_CHECK(parse_pct_ppm("1.50000", &ppm) == 0 && ppm == 15000);
	UNIT_CHECK(parse_pct_ppm("050", &ppm) == 0 && ppm == 500000);
}

UNIT_TEST(parse_pct_bad)
{
	static const char *const bad[] = {
		"101", "100.0001", "abc", "", "-1", "0.00001", "12.", ".5",
		"1e2", "12.5%%", " 1", "1 ", "12,5", "1000", "0x10", "%",
	};
	uint32_t ppm = 7;
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse_pct_ppm(bad[i], &ppm) != -1) {
			fprintf(stderr, "    accepted \"%s\"\n", bad[i]);
			*unit_ok = false;
		}
	}
	UNIT_CHECK(ppm == 7);
}

UNIT_TEST(format_ppm_pct)
{
	char buf[PCT_STR_LEN];

	UNIT_STREQ(format_ppm_pct(125000, buf), "12.5");
	UNIT_STREQ(format_ppm_pct(1, buf), "0.0001");
	UNIT_STREQ(format_ppm_pct(1000000, buf), "100");
	UNIT_STREQ(format_ppm_pct(0, buf), "0");
	UNIT_STREQ(format_ppm_pct(333333, buf), "33.3333");
	UNIT_STREQ(format_ppm_pct(100, buf), "0.01");
	UNIT_STREQ(format_ppm_pct(10000, buf), "1");
}

UNIT_TEST(pct_roundtrip)
{
	char buf[PCT_STR_LEN];
	uint32_t ppm, back;

	for (ppm = 0; ppm <= TORUS_LOSS_PPM_MAX; ppm += 997) {
		back = ~0u;
		if (parse_pct_ppm(format_ppm_pct(ppm, buf), &back) ||
		    back != ppm) {
			fprintf(stderr, "    %u -> \"%s\" -> %u\n", ppm, buf,
				back);
			*unit_ok = false;
			break;
		}
	}
}

UNIT_TEST(parse_wrap)
{
	uint8_t w[TORUS_MAX_AXES] = {};

	UNIT_CHECK(parse_wrap("1,0,torus,mesh", w) == 4);
	UNIT_CHECK(w[0] == 1 && w[1] == 0 && w[2] == 1 && w[3] == 0);
	UNIT_CHECK(parse_wrap("torus", w) == 1 && w[0] == 1);
	UNIT_CHECK(parse_wrap("2", w) == -1);
	UNIT_CHECK(parse_wrap("tor", w) == -1);
	UNIT_CHECK(parse_wrap("toruss", w) == -1);
	UNIT_CHECK(parse_wrap("1,,0", w) == -1);
	UNIT_CHECK(parse_wrap("", w) == -1);
	UNIT_CHECK(parse_wrap("yes", w) == -1);
	UNIT_CHECK(parse_wrap("1,1,1,1,1,1,1,1,1", w) == -1);
}

UNIT_TEST(parse_bool)
{
	bool b = false;

	UNIT_CHECK(parse_bool("on", &b) == 0 && b);
	UNIT_CHECK(parse_bool("0", &b) == 0 && !b);
	UNIT_CHECK(parse_bool("true", &b) == 0 && b);
	UNIT_CHECK(parse_bool("no", &b) == 0 && !b);
	UNIT_CHECK(parse_bool("2", &b) == -1);
	UNIT_CHECK(parse_bool("On", &b) == -1);
	UNIT_CHECK(parse_bool("", &b) == -1);
}

UNIT_TEST(parse_u64)
{
	uint64_t v = 0;

	UNIT_CHECK(parse_u64("0", &v) == 0 && v == 0);
	UNIT_CHECK(parse_u64("18446744073709551615", &v) == 0 &&
		   v == UINT64_MAX);
	UNIT_CHECK(parse_u64("0xffffffffffffffff", &v) == 0 &&
		   v == UINT64_MAX);
	UNIT_CHECK(parse_u64("0x2A", &v) == 0 && v == 42);
	UNIT_CHECK(parse_u64("18446744073709551616", &v) == -1);
	UNIT_CHECK(parse_u64("0x1ffffffffffffffff", &v) == -1);
	UNIT_CHECK(parse_u64("0x", &v) == -1);
	UNIT_CHECK(parse_u64("-1", &v) == -1);
	UNIT_CHECK(parse_u64("12a", &v) == -1);
	UNIT_CHECK(parse_u64("", &v) == -1);
}

UNIT_TEST(parse_u32_max)
{
	uint32_t v = 0;

	UNIT_CHECK(parse_u32("255", 255, &v) == 0 && v == 255);
	UNIT_CHECK(parse_u32("256", 255, &v) == -1);
	UNIT_CHECK(parse_u32("4294967295", UINT32_MAX, &v) == 0 &&
		   v == UINT32_MAX);
	UNIT_CHECK(parse_u32("4294967296", UINT32_MAX, &v) == -1);
	UNIT_CHECK(parse_u32("5", 1, &v) == -1);
}

UNIT_TEST(parse_rank_list)
{
	static const char *const bad[] = {
		"", ",", "1,", ",1", "3-1", "1-", "-1", "a", "1-2-3", "1,,2",
		"0x5", "1 2", "4294967296", "0-4", "1,2,3,4,5",
	};
	uint32_t r[4], n = 99;
	unsigned int i;

	UNIT_CHECK(parse_rank_list("9-10,0,5", r, 4, &n) == 0 && n == 4);
	UNIT_CHECK(r[0] == 0 && r[1] == 5 && r[2] == 9 && r[3] == 10);
	/* repeats count once, in any order */
	UNIT_CHECK(parse_rank_list("3,1,1,3", r, 4, &n) == 0 && n == 2);
	UNIT_CHECK(r[0] == 1 && r[1] == 3);
	UNIT_CHECK(parse_rank_list("4294967295", r, 4, &n) == 0 && n == 1 &&
		   r[0] == UINT32_MAX);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		UNIT_CHECK(parse_rank_list(bad[i], r, 4, &n) == -1);
}

UNIT_TEST(state_role_names)
{
	uint8_t v;

	UNIT_CHECK(parse_state("placed", &v) == 0 && v == TORUS_STATE_PLACED);
	UNIT_CHECK(parse_state("unconfigured", &v) == 0 &&
		   v == TORUS_STATE_UNCONFIGURED);
	UNIT_CHECK(parse_state("place", &v) == -1);
	UNIT_STREQ(format_state(TORUS_STATE_FAILED), "failed");
	UNIT_STREQ(format_state(200), "unknown");
	UNIT_CHECK(parse_role("follower", &v) == 0 &&
		   v == TORUS_ROLE_FOLLOWER);
	UNIT_CHECK(parse_role("Leader", &v) == -1);
	UNIT_STREQ(format_role(TORUS_ROLE_STATIC), "static");
	UNIT_STREQ(format_role(TORUS_ROLE_MAX + 1), "unknown");
	UNIT_CHECK(parse_role("lamb", &v) == 0 && v == TORUS_ROLE_LAMB);
	UNIT_STREQ(format_role(TORUS_ROLE_LAMB), "lamb");
}

UNIT_TEST(plans_and_why)
{
	uint8_t index, order[TORUS_MAX_AXES], policy[TORUS_MAX_AXES];
	unsigned int np;

	UNIT_CHECK(parse_plan("1:zyx:+,s,-", &index, order, policy, &np) == 3);
	UNIT_CHECK(index == 1 && order[0] == 2 && order[1] == 1 &&
		   order[2] == 0 && np == 3);
	UNIT_CHECK(policy[0] == TORUS_PLAN_PLUS &&
		   policy[1] == TORUS_PLAN_SHORTEST &&
		   policy[2] == TORUS_PLAN_MINUS);
	UNIT_CHECK(parse_plan("7:yx", &index, order, policy, &np) == 2);
	UNIT_CHECK(index == 7 && np == 0 && policy[0] == TORUS_PLAN_SHORTEST);
	/* plan 0 is fixed; 8 is too many; an axis twice, a gap, bad policy */
	UNIT_CHECK(parse_plan("0:xy", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("8:xy", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:xx", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:xz", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:xy:+", &index, order, policy, &np) == 2 &&
		   np == 1);
	UNIT_CHECK(parse_plan("1:xy:+,-,+", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:xy:+,", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:xy:p", &index, order, policy, &np) == -1);
	UNIT_CHECK(parse_plan("1:", &index, order, policy, &np) == -1);
	UNIT_STREQ(format_route_why(TORUS_WHY_EXCEPTION), "exception");
	UNIT_STREQ(format_route_why(TORUS_WHY_MAX + 1), "unknown");
}

UNIT_TEST(drop_reason_names)
{
	UNIT_STREQ(format_drop_reason(TORUS_DROP_MALFORMED), "malformed");
	UNIT_STREQ(format_drop_reason(TORUS_DROP_LINK_DOWN), "link_down");
	UNIT_STREQ(format_drop_reason(TORUS_DROP_TOO_BIG), "too_big");
	UNIT_STREQ(format_drop_reason(TORUS_DROP_VLAN), "vlan");
	UNIT_STREQ(format_drop_reason(TORUS_DROP_OTHER_HOST), "other_host");
	UNIT_STREQ(format_drop_reason(TORUS_DROP_SPOOFED), "spoofed");
	UNIT_CHECK(format_drop_reason(__TORUS_DROP_MAX) == NULL);
}

UNIT_TEST(format_u32_list)
{
	uint32_t v[] = { 1, 22, 255 };
	char buf[32], tiny[5];

	UNIT_STREQ(format_u32_list(v, 3, buf, sizeof(buf)), "1,22,255");
	UNIT_STREQ(format_u32_list(v, 0, buf, sizeof(buf)), "");
	/* truncates at an element boundary */
	UNIT_STREQ(format_u32_list(v, 3, tiny, sizeof(tiny)), "1,22");
}

UNIT_TEST(parse_ifname)
{
	UNIT_CHECK(parse_ifname("tor0") == 0);
	UNIT_CHECK(parse_ifname("abcdefghijklmno") == 0);	/* 15 */
	UNIT_CHECK(parse_ifname("abcdefghijklmnop") == -1);	/* 16 */
	UNIT_CHECK(parse_ifname("") == -1);
	UNIT_CHECK(parse_ifname("a/b") == -1);
	UNIT_CHECK(parse_ifname("..") == -1);
	UNIT_CHECK(parse_ifname("a b") == -1);
}

UNIT_TEST(batch_split)
{
	char line[] = "  node set reason \"two words\" 'a\"b' c\\ d # x y\n";
	char quote[] = "link add \"oops\n";
	char many[] = "a b c d";
	char empty[] = "   # only a comment\n";
	char *argv[8];

	UNIT_CHECK(batch_split(line, argv, 8) == 6);
	UNIT_STREQ(argv[0], "node");
	UNIT_STREQ(argv[3], "two words");
	UNIT_STREQ(argv[4], "a\"b");
	UNIT_STREQ(argv[5], "c d");
	UNIT_CHECK(batch_split(quote, argv, 8) == -1);
	UNIT_CHECK(batch_split(many, argv, 3) == -2);
	UNIT_CHECK(batch_split(empty, argv, 8) == 0);
}

UNIT_TEST(attr_namer)
{
	uint16_t route[] = { TORUS_A_ROUTE, TORUS_ROUTE_A_DST, 2 };
	uint16_t pme[] = { TORUS_A_PORTMAP, TORUS_A_PORTMAP_ENTRY,
			   TORUS_PME_A_IFINDEX };
	uint16_t coord[] = { TORUS_A_COORD, 4 };
	uint16_t unknown[] = { 999, 1 };
	char buf[128];

	torus_attr_namer(route, 3, buf, sizeof(buf));
	UNIT_STREQ(buf, "TORUS_A_ROUTE/TORUS_ROUTE_A_DST/y");
	torus_attr_namer(pme, 3, buf, sizeof(buf));
	UNIT_STREQ(buf,
		   "TORUS_A_PORTMAP/TORUS_A_PORTMAP_ENTRY/TORUS_PME_A_IFINDEX");
	torus_attr_namer(coord, 2, buf, sizeof(buf));
	UNIT_STREQ(buf, "TORUS_A_COORD/a");
	torus_attr_namer(unknown, 2, buf, sizeof(buf));
	UNIT_STREQ(buf, "999/1");
	torus_attr_namer(route, 1, buf, 5);
	UNIT_CHECK(strlen(buf) < 5);
}

static const struct unit_case cases[] = {
	UNIT_CASE(parse_coord_valid),
	UNIT_CASE(parse_coord_empty),
	UNIT_CASE(parse_coord_empty_element),
	UNIT_CASE(parse_coord_too_many_axes),
	UNIT_CASE(parse_coord_out_of_range),
	UNIT_CASE(parse_coord_negative),
	UNIT_CASE(parse_coord_trailing_junk),
	UNIT_CASE(parse_coord_untouched_on_error),
	UNIT_CASE(parse_dims_range),
	UNIT_CASE(parse_dir_all_labels),
	UNIT_CASE(parse_dir_bad),
	UNIT_CASE(format_dir_none),
	UNIT_CASE(parse_pct_valid),
	UNIT_CASE(parse_pct_bad),
	UNIT_CASE(format_ppm_pct),
	UNIT_CASE(pct_roundtrip),
	UNIT_CASE(parse_wrap),
	UNIT_CASE(parse_bool),
	UNIT_CASE(parse_u64),
	UNIT_CASE(parse_u32_max),
	UNIT_CASE(parse_rank_list),
	UNIT_CASE(state_role_names),
	UNIT_CASE(plans_and_why),
	UNIT_CASE(drop_reason_names),
	UNIT_CASE(format_u32_list),
	UNIT_CASE(parse_ifname),
	UNIT_CASE(batch_split),
	UNIT_CASE(attr_namer),
};

UNIT_MAIN(cases)
