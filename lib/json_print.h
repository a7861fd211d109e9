/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * json_print.h - a small JSON writer, and a print layer on top of it so
 * that one print_*() call serves both text and JSON output (iproute2
 * style).
 *
 * PRINT_FP prints only in text mode, PRINT_JSON only in JSON mode,
 * PRINT_ANY in both: @key names the JSON member (NULL inside arrays),
 * @fmt is the printf format used for text (NULL prints nothing).
 *
 * Shared by torus, torusd's state file and torus-sim, so all three write
 * the same JSON: strings are valid UTF-8 whatever bytes they are given
 * (control characters escaped, a byte that is not part of well-formed
 * UTF-8 written as \u00XX, the code point of the same value), doubles
 * that are not finite are null, and 64-bit identifiers are decimal
 * strings (jq and JavaScript round numbers above 2^53).
 */
#ifndef TORUS_JSON_PRINT_H
#define TORUS_JSON_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* the writer: compact ({"a":1}) or pretty (4-space indent) */
struct json_writer;

struct json_writer *jsonw_new(FILE *f);
/* ends any open line with a newline and flushes; NULL is a no-op */
void jsonw_destroy(struct json_writer **self);
void jsonw_pretty(struct json_writer *self, bool on);
void jsonw_name(struct json_writer *self, const char *name);
void jsonw_start_object(struct json_writer *self);
void jsonw_end_object(struct json_writer *self);
void jsonw_start_array(struct json_writer *self);
void jsonw_end_array(struct json_writer *self);
void jsonw_string(struct json_writer *self, const char *value);
void jsonw_u64(struct json_writer *self, uint64_t value);
void jsonw_s64(struct json_writer *self, int64_t value);
/* a 64-bit identifier as a decimal string: "13441520399186018479" */
void jsonw_u64_string(struct json_writer *self, uint64_t value);
/* @fmt formats one double (e.g. "%.3f"); NaN and infinities are null */
void jsonw_float(struct json_writer *self, const char *fmt, double value);
void jsonw_bool(struct json_writer *self, bool value);
void jsonw_null(struct json_writer *self);
/* a number already formatted by the caller, e.g. "12.5" */
void jsonw_number(struct json_writer *self, const char *num);

/* the print layer */
enum output_type {
	PRINT_FP	= 1,
	PRINT_JSON	= 2,
	PRINT_ANY	= 4,
};

/* select the output (stdout if NULL) and the mode for what follows */
void new_json_obj(FILE *f, bool json, bool pretty);
/* end the JSON document with a newline and flush */
void delete_json_obj(void);
bool is_json_context(void);

void open_json_object(const char *name);
void close_json_object(void);
void open_json_array(enum output_type type, const char *name);
void close_json_array(enum output_type type, const char *delim);

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value);
/* a NULL @value is JSON null and prints nothing in text */
void print_string_or_null(enum output_type type, const char *key,
			  const char *fmt, const char *value);
void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value);
void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value);
/* JSON: a decimal string (see jsonw_u64_string) */
void print_u64_as_string(enum output_type type, const char *key,
			 const char *fmt, uint64_t value);
/* JSON: %.17g, null if not finite; text: @fmt */
void print_float(enum output_type type, const char *key, const char *fmt,
		 double value);
void print_int(enum output_type type, const char *key, const char *fmt,
	       int value);
/* text: @fmt receives "true" or "false" */
void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value);
/* text: @fmt receives @text */
void print_null(enum output_type type, const char *key, const char *fmt,
		const char *text);
/* a preformatted number: unquoted in JSON, @fmt with the string in text */
void print_number(enum output_type type, const char *key, const char *fmt,
		  const char *num);
/* text only: a newline */
void print_nl(void);

#endif /* TORUS_JSON_PRINT_H */
