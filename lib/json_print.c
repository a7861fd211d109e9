// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * json_print.c - a small JSON writer and the text/JSON print layer,
 * shared by torus, torusd (its state file) and torus-sim
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "json_print.h"

#define JSONW_MAX_DEPTH	32
#define JSONW_INDENT	4

struct json_writer {
	FILE		*out;
	unsigned int	depth;
	bool		pretty;
	bool		after_name;	/* a member name awaits its value */
	bool		wrote;		/* anything written at all */
	bool		first[JSONW_MAX_DEPTH + 1];
};

struct json_writer *jsonw_new(FILE *f)
{
	struct json_writer *self = calloc(1, sizeof(*self));

	if (!self)
		return NULL;
	self->out = f;
	self->first[0] = true;
	return self;
}

void jsonw_destroy(struct json_writer **self)
{
	if (!self || !*self)
		return;
	if ((*self)->wrote)
		fputc('\n', (*self)->out);
	fflush((*self)->out);
	free(*self);
	*self = NULL;
}

void jsonw_pretty(struct json_writer *self, bool on)
{
	self->pretty = on;
}

static void jsonw_indent(struct json_writer *self)
{
	unsigned int i;

	fputc('\n', self->out);
	for (i = 0; i < self->depth * JSONW_INDENT; i++)
		fputc(' ', self->out);
}

/* separator and indentation before a member or an element */
static void jsonw_eor(struct json_writer *self)
{
	self->wrote = true;
	if (self->after_name) {
		self->after_name = false;
		return;
	}
	if (!self->depth)
		return;
	if (!self->first[self->depth])
		fputc(',', self->out);
	self->first[self->depth] = false;
	if (self->pretty)
		jsonw_indent(self);
}

/*
 * Length of the well-formed UTF-8 sequence at @p (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), 0 if there is none.
 */
static size_t utf8_seq_len(const unsigned char *p)
{
	size_t len, i;
	unsigned int cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf) {
		len = 2;
		cp = p[0] & 0x1f;
	} else if (p[0] >= 0xe0 && p[0] <= 0xef) {
		len = 3;
		cp = p[0] & 0x0f;
	} else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
		len = 4;
		cp = p[0] & 0x07;
	} else {
		return 0;
	}
	/* a NUL terminator is not a continuation byte: no overread */
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

/*
 * A JSON string that is valid UTF-8 whatever @s holds: well-formed UTF-8
 * passes through, control characters are escaped, and each byte that is
 * not part of well-formed UTF-8 becomes \u00XX, the code point of the
 * same value (Latin-1), so no byte is lost.
 */
static void jsonw_puts(struct json_writer *self, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len;

	fputc('"', self->out);
	while (*p) {
		switch (*p) {
		case '"':
			fputs("\\\"", self->out);
			break;
		case '\\':
			fputs("\\\\", self->out);
			break;
		case '\b':
			fputs("\\b", self->out);
			break;
		case '\f':
			fputs("\\f", self->out);
			break;
		case '\n':
			fputs("\\n", self->out);
			break;
		case '\r':
			fputs("\\r", self->out);
			break;
		case '\t':
			fputs("\\t", self->out);
			break;
		default:
			len = utf8_seq_len(p);
			if (*p < 0x20 || *p == 0x7f || !len) {
				fprintf(self->out, "\\u%04x", *p);
				break;
			}
			fwrite(p, 1, len, self->out);
			p += len;
			continue;
		}
		p++;
	}
	fputc('"', self->out);
}

void jsonw_name(struct json_writer *self, const char *name)
{
	jsonw_eor(self);
	jsonw_puts(self, name);
	fputc(':', self->out);
	if (self->pretty)
		fputc(' ', self->out);
	self->after_name = true;
}

static void jsonw_open(struct json_writer *self, char c)
{
	jsonw_eor(self);
	fputc(c, self->out);
	if (self->depth < JSONW_MAX_DEPTH)
		self->depth++;
	self->first[self->depth] = true;
}

static void jsonw_close(struct json_writer *self, char c)
{
	bool empty = self->first[self->depth];

	if (self->depth)
		self->depth--;
	if (!empty && self->pretty)
		jsonw_indent(self);
	fputc(c, self->out);
}

void jsonw_start_object(struct json_writer *self)
{
	jsonw_open(self, '{');
}

void jsonw_end_object(struct json_writer *self)
{
	jsonw_close(self, '}');
}

void jsonw_start_array(struct json_writer *self)
{
	jsonw_open(self, '[');
}

void jsonw_end_array(struct json_writer *self)
{
	jsonw_close(self, ']');
}

void jsonw_string(struct json_writer *self, const char *value)
{
	jsonw_eor(self);
	jsonw_puts(self, value);
}

void jsonw_u64(struct json_writer *self, uint64_t value)
{
	jsonw_eor(self);
	fprintf(self->out, "%" PRIu64, value);
}

void jsonw_s64(struct json_writer *self, int64_t value)
{
	jsonw_eor(self);
	fprintf(self->out, "%" PRId64, value);
}

void jsonw_float(struct json_writer *self, const char *fmt, double value)
{
	jsonw_eor(self);
	if (isfinite(value))
		fprintf(self->out, fmt, value);
	else
		fputs("null", self->out);
}

void jsonw_u64_string(struct json_writer *self, uint64_t value)
{
	jsonw_eor(self);
	fprintf(self->out, "\"%" PRIu64 "\"", value);
}

void jsonw_bool(struct json_writer *self, bool value)
{
	jsonw_eor(self);
	fputs(value ? "true" : "false", self->out);
}

void jsonw_null(struct json_writer *self)
{
	jsonw_eor(self);
	fputs("null", self->out);
}

void jsonw_number(struct json_writer *self, const char *num)
{
	jsonw_eor(self);
	fputs(num, self->out);
}

/* the print layer */

static struct json_writer *jw;
static FILE *fp_out;

void new_json_obj(FILE *f, bool json, bool pretty)
{
	fp_out = f ? f : stdout;
	jsonw_destroy(&jw);
	if (!json)
		return;
	jw = jsonw_new(fp_out);
	if (!jw) {
		perror("json writer");
		exit(1);
	}
	jsonw_pretty(jw, pretty);
}

void delete_json_obj(void)
{
	if (jw)
		jsonw_destroy(&jw);
	else if (fp_out)
		fflush(fp_out);
}

bool is_json_context(void)
{
	return jw != NULL;
}

static FILE *out(void)
{
	return fp_out ? fp_out : stdout;
}

static bool want_json(enum output_type type)
{
	return jw && (type & (PRINT_JSON | PRINT_ANY));
}

static bool want_fp(enum output_type type, const char *fmt)
{
	return !jw && fmt && (type & (PRINT_FP | PRINT_ANY));
}

static void json_key(const char *key)
{
	if (key)
		jsonw_name(jw, key);
}

void open_json_object(const char *name)
{
	if (!jw)
		return;
	json_key(name);
	jsonw_start_object(jw);
}

void close_json_object(void)
{
	if (jw)
		jsonw_end_object(jw);
}

void open_json_array(enum output_type type, const char *name)
{
	if (!want_json(type))
		return;
	json_key(name);
	jsonw_start_array(jw);
}

void close_json_array(enum output_type type, const char *delim)
{
	if (want_json(type))
		jsonw_end_array(jw);
	else if (want_fp(type, delim))
		fputs(delim, out());
}

void print_string(enum output_type type, const char *key, const char *fmt,
		  const char *value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_string(jw, value ? value : "");
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value ? value : "");
	}
}

void print_string_or_null(enum output_type type, const char *key,
			  const char *fmt, const char *value)
{
	if (want_json(type)) {
		json_key(key);
		if (value)
			jsonw_string(jw, value);
		else
			jsonw_null(jw);
	} else if (value && want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_uint(enum output_type type, const char *key, const char *fmt,
		unsigned int value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_u64(jw, value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_u64(enum output_type type, const char *key, const char *fmt,
	       uint64_t value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_u64(jw, value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_u64_as_string(enum output_type type, const char *key,
			 const char *fmt, uint64_t value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_u64_string(jw, value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_float(enum output_type type, const char *key, const char *fmt,
		 double value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_float(jw, "%.17g", value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_int(enum output_type type, const char *key, const char *fmt,
	       int value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_s64(jw, value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value);
	}
}

void print_bool(enum output_type type, const char *key, const char *fmt,
		bool value)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_bool(jw, value);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, value ? "true" : "false");
	}
}

void print_null(enum output_type type, const char *key, const char *fmt,
		const char *text)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_null(jw);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, text ? text : "");
	}
}

void print_number(enum output_type type, const char *key, const char *fmt,
		  const char *num)
{
	if (want_json(type)) {
		json_key(key);
		jsonw_number(jw, num);
	} else if (want_fp(type, fmt)) {
		fprintf(out(), fmt, num);
	}
}

void print_nl(void)
{
	if (!jw)
		fputc('\n', out());
}
