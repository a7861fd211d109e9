// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_json.c - unit tests of tools/torus/json_print.c
 */
#include <inttypes.h>
#include <stdint.h>

#include "json_print.h"
#include "unit.h"

/* run @body against a fresh writer, return the text written */
#define WRITE_JSON(pretty, body)					\
	({								\
		struct unit_capture c_;					\
		struct json_writer *jw = jsonw_new(unit_capture_begin(&c_)); \
		jsonw_pretty(jw, pretty);				\
		body;							\
		jsonw_destroy(&jw);					\
		unit_capture_end(&c_);					\
	})

UNIT_TEST(json_escape)
{
	char *s;

	s = WRITE_JSON(false,
		       jsonw_string(jw, "q\"b\\s/n\nt\tr\rb\bf\f\x01\x1f\x7f"));
	UNIT_STREQ(s,
		   "\"q\\\"b\\\\s/n\\nt\\tr\\rb\\bf\\f\\u0001\\u001f\\u007f\"\n");
	free(s);
	/* UTF-8 passes through */
	s = WRITE_JSON(false, jsonw_string(jw, "\xc3\xa9t\xc3\xa9"));
	UNIT_STREQ(s, "\"\xc3\xa9t\xc3\xa9\"\n");
	free(s);
}

UNIT_TEST(json_escape_key)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_object(jw);
		jsonw_name(jw, "a\"b");
		jsonw_u64(jw, 1);
		jsonw_end_object(jw);
	});

	UNIT_STREQ(s, "{\"a\\\"b\":1}\n");
	free(s);
}

UNIT_TEST(json_nested)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_object(jw);
		jsonw_name(jw, "a");
		jsonw_start_array(jw);
		jsonw_u64(jw, 1);
		jsonw_start_array(jw);
		jsonw_u64(jw, 2);
		jsonw_u64(jw, 3);
		jsonw_end_array(jw);
		jsonw_start_object(jw);
		jsonw_name(jw, "b");
		jsonw_null(jw);
		jsonw_end_object(jw);
		jsonw_end_array(jw);
		jsonw_name(jw, "c");
		jsonw_start_object(jw);
		jsonw_end_object(jw);
		jsonw_name(jw, "d");
		jsonw_start_array(jw);
		jsonw_end_array(jw);
		jsonw_end_object(jw);
	});

	UNIT_STREQ(s, "{\"a\":[1,[2,3],{\"b\":null}],\"c\":{},\"d\":[]}\n");
	free(s);
}

UNIT_TEST(json_commas)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_array(jw);
		jsonw_string(jw, "a");
		jsonw_string(jw, "");
		jsonw_u64(jw, 0);
		jsonw_start_object(jw);
		jsonw_end_object(jw);
		jsonw_start_object(jw);
		jsonw_name(jw, "x");
		jsonw_u64(jw, 1);
		jsonw_name(jw, "y");
		jsonw_u64(jw, 2);
		jsonw_end_object(jw);
		jsonw_end_array(jw);
	});

	UNIT_STREQ(s, "[\"a\",\"\",0,{},{\"x\":1,\"y\":2}]\n");
	free(s);
}

UNIT_TEST(json_bool_null)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_array(jw);
		jsonw_bool(jw, true);
		jsonw_bool(jw, false);
		jsonw_null(jw);
		jsonw_end_array(jw);
	});

	UNIT_STREQ(s, "[true,false,null]\n");
	free(s);
}

UNIT_TEST(json_numbers)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_array(jw);
		jsonw_u64(jw, UINT64_MAX);
		jsonw_s64(jw, INT64_MIN);
		jsonw_s64(jw, -1);
		jsonw_number(jw, "12.5");
		jsonw_end_array(jw);
	});

	UNIT_STREQ(s,
		   "[18446744073709551615,-9223372036854775808,-1,12.5]\n");
	free(s);
}

UNIT_TEST(json_pretty)
{
	char *s = WRITE_JSON(true, {
		jsonw_start_array(jw);
		jsonw_start_object(jw);
		jsonw_name(jw, "ifname");
		jsonw_string(jw, "tor0");
		jsonw_name(jw, "coord");
		jsonw_start_array(jw);
		jsonw_u64(jw, 1);
		jsonw_u64(jw, 2);
		jsonw_end_array(jw);
		jsonw_name(jw, "empty");
		jsonw_start_array(jw);
		jsonw_end_array(jw);
		jsonw_name(jw, "drop");
		jsonw_start_object(jw);
		jsonw_end_object(jw);
		jsonw_end_object(jw);
		jsonw_end_array(jw);
	});

	UNIT_STREQ(s,
		   "[\n"
		   "    {\n"
		   "        \"ifname\": \"tor0\",\n"
		   "        \"coord\": [\n"
		   "            1,\n"
		   "            2\n"
		   "        ],\n"
		   "        \"empty\": [],\n"
		   "        \"drop\": {}\n"
		   "    }\n"
		   "]\n");
	free(s);
}

UNIT_TEST(json_compact_vs_pretty)
{
	char *c = WRITE_JSON(false, {
		jsonw_start_object(jw);
		jsonw_name(jw, "a");
		jsonw_u64(jw, 1);
		jsonw_end_object(jw);
	});
	char *p = WRITE_JSON(true, {
		jsonw_start_object(jw);
		jsonw_name(jw, "a");
		jsonw_u64(jw, 1);
		jsonw_end_object(jw);
	});

	UNIT_STREQ(c, "{\"a\":1}\n");
	UNIT_STREQ(p, "{\n    \"a\": 1\n}\n");
	free(c);
	free(p);
}

UNIT_TEST(json_nothing_written)
{
	char *s = WRITE_JSON(false, (void)jw);

	UNIT_STREQ(s, "");
	free(s);
}

/* the print layer: the same calls in text and JSON mode */
static void print_sample(void)
{
	open_json_array(PRINT_JSON, NULL);
	open_json_object(NULL);
	print_uint(PRINT_ANY, "ifindex", "%u: ", 5);
	print_string(PRINT_ANY, "ifname", "%s:", "tor0");
	print_string(PRINT_FP, NULL, " %s", "text-only");
	print_bool(PRINT_JSON, "json_only", " never %s", true);
	print_string_or_null(PRINT_ANY, "peer", " peer %s", NULL);
	print_string_or_null(PRINT_ANY, "master", " master %s", "tor1");
	print_null(PRINT_ANY, "dir", " dir %s", "none");
	print_number(PRINT_ANY, "loss_pct", " loss %s%%", "0.0001");
	print_int(PRINT_ANY, "netnsid", " nsid %d", -1);
	print_u64(PRINT_ANY, "big", " big %" PRIu64, UINT64_MAX);
	print_bool(PRINT_ANY, "carrier", " carrier %s", false);
	print_nl();
	close_json_object();
	close_json_array(PRINT_JSON, NULL);
}

static char *capture_print(bool json, bool pretty)
{
	struct unit_capture c;

	new_json_obj(unit_capture_begin(&c), json, pretty);
	print_sample();
	delete_json_obj();
	return unit_capture_end(&c);
}

UNIT_TEST(print_text)
{
	char *s = capture_print(false, false);

	UNIT_STREQ(s, "5: tor0: text-only master tor1 dir none loss 0.0001% "
		      "nsid -1 big 18446744073709551615 carrier false\n");
	free(s);
}

UNIT_TEST(print_json)
{
	char *s = capture_print(true, false);

	UNIT_STREQ(s, "[{\"ifindex\":5,\"ifname\":\"tor0\",\"json_only\":true,"
		      "\"peer\":null,\"master\":\"tor1\",\"dir\":null,"
		      "\"loss_pct\":0.0001,\"netnsid\":-1,"
		      "\"big\":18446744073709551615,\"carrier\":false}]\n");
	free(s);
}

UNIT_TEST(print_json_pretty)
{
	char *s = capture_print(true, true);

	UNIT_CHECK(strstr(s, "[\n    {\n        \"ifindex\": 5,\n") == s);
	UNIT_CHECK(strstr(s, "\n        \"carrier\": false\n    }\n]\n"));
	free(s);
}

UNIT_TEST(print_context)
{
	struct unit_capture c;

	new_json_obj(unit_capture_begin(&c), true, false);
	UNIT_CHECK(is_json_context());
	delete_json_obj();
	UNIT_CHECK(!is_json_context());
	new_json_obj(c.f, false, false);
	UNIT_CHECK(!is_json_context());
	delete_json_obj();
	free(unit_capture_end(&c));
}

static const struct unit_case cases[] = {
	UNIT_CASE(json_escape),
	UNIT_CASE(json_escape_key),
	UNIT_CASE(json_nested),
	UNIT_CASE(json_commas),
	UNIT_CASE(json_bool_null),
	UNIT_CASE(json_numbers),
	UNIT_CASE(json_pretty),
	UNIT_CASE(json_compact_vs_pretty),
	UNIT_CASE(json_nothing_written),
	UNIT_CASE(print_text),
	UNIT_CASE(print_json),
	UNIT_CASE(print_json_pretty),
	UNIT_CASE(print_context),
};

UNIT_MAIN(cases)
