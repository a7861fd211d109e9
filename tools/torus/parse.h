/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h - pure argument parsing and formatting for the torus tool
 *
 * Nothing here touches sockets, files or globals, so every function can
 * be unit-tested on its own.  Parsers return 0 on success and -1 on bad
 * input, leaving the output untouched on failure.
 */
#ifndef TORUS_PARSE_H
#define TORUS_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/torus.h>

/* "+x" plus NUL */
#define DIR_STR_LEN	3
/* "100.0000" plus NUL, with room to spare */
#define PCT_STR_LEN	16

int parse_u32(const char *s, uint32_t max, uint32_t *out);
int parse_u64(const char *s, uint64_t *out);
int parse_bool(const char *s, bool *out);

/*
 * parse_u32_list - "1,2,3" into vals[]; each value in [min, max], at most
 * @max_axes values.  Returns the number of values, or -1.
 */
int parse_u32_list(const char *s, uint32_t min, uint32_t max,
		   uint32_t *vals, unsigned int max_axes);

/*
 * parse_rank_list - "0,5,9-12" into @ranks, ascending, each once; at most
 * @max before duplicates go.  Returns 0 (*@n set), or -1 (not ranks and
 * ranges, a range backwards, more than @max, nothing).
 */
int parse_rank_list(const char *s, uint32_t *ranks, uint32_t max,
		    uint32_t *n);

/* coordinates: 0..TORUS_MAX_EXTENT-1 per axis, 1..TORUS_MAX_AXES axes */
int parse_coord(const char *s, uint32_t *coord);
/* extents: 1..TORUS_MAX_EXTENT per axis */
int parse_dims(const char *s, uint32_t *dims);
/* wrap flags: "1", "0", "torus", "mesh" per axis */
int parse_wrap(const char *s, uint8_t *wrap);

/* direction labels "+x" .. "-e" <-> TORUS_DIR() values */
int parse_dir(const char *s, uint8_t *dir);
/* NULL for TORUS_DIR_NONE or an out-of-range value */
const char *format_dir(uint8_t dir, char buf[DIR_STR_LEN]);

/* percentages "12.5" (optionally "12.5%") -> parts per million */
int parse_pct_ppm(const char *s, uint32_t *ppm);
/* ppm -> shortest exact decimal percentage ("12.5", "0.0001", "100") */
const char *format_ppm_pct(uint32_t ppm, char buf[PCT_STR_LEN]);

/* "1,2,3" from a list of values; returns buf */
const char *format_u32_list(const uint32_t *vals, unsigned int n,
			    char *buf, size_t len);

int parse_state(const char *s, uint8_t *state);
const char *format_state(uint8_t state);
int parse_role(const char *s, uint8_t *role);
const char *format_role(uint8_t role);
/* NULL for an unknown reason */
const char *format_drop_reason(unsigned int reason);
/* "dor", "exception", ... for enum torus_route_why; "unknown" */
const char *format_route_why(uint8_t why);
/*
 * a plan "ID:ORDER[:POLICY,...]", e.g. "1:zyx:+,s,-": index 1..7, the
 * axis letters in the order they are corrected, per axis (x first) "s"
 * shortest, "+" or "-".  Returns the number of axes of the order, or -1.
 */
int parse_plan(const char *s, uint8_t *index, uint8_t *order,
	       uint8_t *policy, unsigned int *n_policy);

/* a device name that fits IFNAMSIZ and is not "", "." or ".." */
int parse_ifname(const char *s);

/*
 * name an attribute of the torus family for error messages, from the
 * types on the way to it: "TORUS_A_ROUTE/TORUS_ROUTE_A_DST/y"
 */
void torus_attr_namer(const uint16_t *path, unsigned int depth, char *buf,
		      size_t len);

/*
 * split a batch line into words in place: blanks separate, '...' and
 * "..." quote, a backslash escapes the next character outside single
 * quotes, '#' at the start of a word ends the line.  Returns the word
 * count, -1 on an unterminated quote, -2 on more than @max words.
 */
int batch_split(char *line, char **argv, int max);

#endif /* TORUS_PARSE_H */
