// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * plugin_print.c - printers shared by the torus iproute2 plugins
 */
#include <string.h>

#include <linux/torus.h>

#include "parse.h"
#include "plugin_print.h"

void plugin_print_dir(const struct rtattr *attr, const char *key)
{
	char fmt[32], buf[DIR_STR_LEN];
	const char *dir;

	if (!attr || RTA_PAYLOAD(attr) < sizeof(uint8_t))
		return;
	dir = format_dir(*(const uint8_t *)RTA_DATA(attr), buf);
	snprintf(fmt, sizeof(fmt), "%s %%s ", key);
	print_color_string(PRINT_ANY, COLOR_NONE, key, fmt, dir ? dir : "none");
}

void plugin_print_axes(const struct rtattr *nest, const char *key)
{
	uint32_t vals[TORUS_MAX_AXES] = { 0 };
	const struct rtattr *a;
	unsigned int n = 0, i;
	int len;

	if (!nest)
		return;
	len = RTA_PAYLOAD(nest);
	for (a = RTA_DATA(nest); RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		unsigned int axis = a->rta_type - TORUS_AXIS_A(0);

		if (axis >= TORUS_MAX_AXES)
			continue;
		/* wrap flags are u8, coordinates and extents u32 */
		if (RTA_PAYLOAD(a) == sizeof(uint8_t))
			vals[axis] = *(const uint8_t *)RTA_DATA(a);
		else if (RTA_PAYLOAD(a) == sizeof(uint32_t))
			vals[axis] = *(const uint32_t *)RTA_DATA(a);
		else
			continue;
		if (axis + 1 > n)
			n = axis + 1;
	}
	if (!n)
		return;
	if (is_json_context()) {
		open_json_array(PRINT_JSON, key);
		for (i = 0; i < n; i++)
			print_color_uint(PRINT_JSON, COLOR_NONE, NULL, NULL,
					 vals[i]);
		close_json_array(PRINT_JSON, NULL);
	} else {
		char buf[TORUS_MAX_AXES * 11 + 1], fmt[32];

		format_u32_list(vals, n, buf, sizeof(buf));
		snprintf(fmt, sizeof(fmt), "%s %%s ", key);
		print_color_string(PRINT_FP, COLOR_NONE, NULL, fmt, buf);
	}
}
