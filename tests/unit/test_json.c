// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * test_json.c - unit tests of lib/json_print.c, the JSON printer shared by
 * torus, torusd's state file and torus-sim
 */
#include <inttypes.h>
#include <math.h>
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

/* bytes that are not well-formed UTF-8 become \u00XX, one per byte */
UNIT_TEST(json_invalid_utf8)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		/* a lone high byte: Latin-1 e-acute from an old tool */
		{ "tor\xe9", "\"tor\\u00e9\"\n" },
		/* a stray continuation byte, then valid 2-byte UTF-8 */
		{ "\x80\xc3\xa9", "\"\\u0080\xc3\xa9\"\n" },
		/* a truncated 3-byte sequence before ASCII and at the end */
		{ "\xe2\x82x\xe2\x82", "\"\\u00e2\\u0082x\\u00e2\\u0082\"\n" },
		/* overlong '/' (C0 AF) and overlong NUL (C0 80) */
		{ "\xc0\xaf\xc0\x80", "\"\\u00c0\\u00af\\u00c0\\u0080\"\n" },
		/* overlong 3-byte form of U+007F */
		{ "\xe0\x81\xbf", "\"\\u00e0\\u0081\\u00bf\"\n" },
		/* a UTF-16 surrogate (U+D800) encoded in UTF-8 */
		{ "\xed\xa0\x80", "\"\\u00ed\\u00a0\\u0080\"\n" },
		/* above U+10FFFF, and bytes that never occur */
		{ "\xf4\x90\x80\x80\xfe\xff",
		  "\"\\u00f4\\u0090\\u0080\\u0080\\u00fe\\u00ff\"\n" },
		/* valid 3- and 4-byte forms pass: euro sign, U+1F600 */
		{ "\xe2\x82\xac\xf0\x9f\x98\x80",
		  "\"\xe2\x82\xac\xf0\x9f\x98\x80\"\n" },
		/* the largest code point, U+10FFFF */
		{ "\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\"\n" },
	};
	unsigned int i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = WRITE_JSON(false, jsonw_string(jw, cases[i].in));

		UNIT_STREQ(s, cases[i].out);
		free(s);
	}
}

UNIT_TEST(json_float)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_array(jw);
		jsonw_float(jw, "%.3f", 1.5);
		jsonw_float(jw, "%.6g", 1e-9);
		jsonw_float(jw, "%.17g", NAN);
		jsonw_float(jw, "%.17g", -NAN);
		jsonw_float(jw, "%g", INFINITY);
		jsonw_float(jw, "%g", -INFINITY);
		jsonw_float(jw, "%.0f", 0.0);
		jsonw_end_array(jw);
	});

	UNIT_STREQ(s, "[1.500,1e-09,null,null,null,null,0]\n");
	free(s);
}

/* 64-bit identifiers are strings: jq 1.6 rounds numbers above 2^53 */
UNIT_TEST(json_u64_string)
{
	char *s = WRITE_JSON(false, {
		jsonw_start_object(jw);
		jsonw_name(jw, "id");
		jsonw_u64_string(jw, 13441520399186018479ull);
		jsonw_name(jw, "max");
		jsonw_u64_string(jw, UINT64_MAX);
		jsonw_name(jw, "zero");
		jsonw_u64_string(jw, 0);
		jsonw_end_object(jw);
	});

	UNIT_STREQ(s, "{\"id\":\"13441520399186018479\","
		      "\"max\":\"18446744073709551615\",\"zero\":\"0\"}\n");
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
	print_u64_as_string(PRINT_ANY, "id", " id %" PRIu64,
			    13441520399186018479ull);
	print_float(PRINT_ANY, "ratio", " ratio %.2f", 0.25);
	print_float(PRINT_ANY, "bound", " bound %.2f", NAN);
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
		      "nsid -1 big 18446744073709551615 "
		      "id 13441520399186018479 ratio 0.25 bound nan "
		      "carrier false\n");
	free(s);
}

UNIT_TEST(print_json)
{
	char *s = capture_print(true, false);

	UNIT_STREQ(s, "[{\"ifindex\":5,\"ifname\":\"tor0\",\"json_only\":true,"
		      "\"peer\":null,\"master\":\"tor1\",\"dir\":null,"
		      "\"loss_pct\":0.0001,\"netnsid\":-1,"
		      "\"big\":18446744073709551615,"
		      "\"id\":\"13441520399186018479\",\"ratio\":0.25,"
		      "\"bound\":null,\"carrier\":false}]\n");
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
	UNIT_CASE(json_invalid_utf8),
	UNIT_CASE(json_float),
	UNIT_CASE(json_u64_string),
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
