/*
 * confine_reserve — the room a job must leave free on its filesystem
 * (confine.h: --reserve, a percentage of the filesystem or a size; 10 % by
 * default), and whether a job's bytes fit beside it.
 */
#include "confine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/units.h"

static double reserve_pct = CONFINE_RESERVE_PCT;
static uint64_t reserve_fixed; /* bytes, when set as a size */

void confine_reserve_reset(void)
{
	reserve_pct = CONFINE_RESERVE_PCT;
	reserve_fixed = 0;
}

int confine_set_reserve(const char *text, char *why, size_t len)
{
	size_t n = strlen(text);
	uint64_t b;

	if (n > 1 && text[n - 1] == '%') {
		char *end;
		double v;
		errno = 0;
		v = strtod(text, &end);
		if (errno == 0 && end == text + n - 1 && v >= 0 && v <= 90) {
			reserve_pct = v;
			reserve_fixed = 0;
			return 0;
		}
	} else if (units_parse_size(text, &b) == 0) {
		reserve_pct = 0;
		reserve_fixed = b;
		return 0;
	}
	snprintf(
		why, len,
		"--reserve %s: a percentage of the filesystem from 0%% to 90%% "
		"(\"10%%\") or a size (\"20GiB\")",
		text);
	return -EINVAL;
}

uint64_t confine_reserve_bytes(uint64_t total_bytes)
{
	if (reserve_fixed)
		return reserve_fixed;
	return (uint64_t)((double)total_bytes * reserve_pct / 100.0);
}

void confine_reserve_text(char *buf, size_t len)
{
	if (reserve_fixed)
		units_format_size(reserve_fixed, buf, len);
	else
		snprintf(buf, len, "%g %%", reserve_pct);
}

int confine_room(const char *path, int64_t free_bytes, int64_t total_bytes,
		 uint64_t need, char *why, size_t len)
{
	uint64_t keep = confine_reserve_bytes(
		total_bytes > 0 ? (uint64_t)total_bytes : 0);
	char r[32];

	if (free_bytes >= 0 && need + keep <= (uint64_t)free_bytes)
		return 1;
	confine_reserve_text(r, sizeof(r));
	snprintf(
		why, len,
		"%s has %.2f GiB free and the job needs %.2f GiB more, keeping "
		"the reserve (%s) free (%.2f GiB; the daemon's --reserve)",
		path, (double)free_bytes / (1 << 30), (double)need / (1 << 30),
		r, (double)keep / (1 << 30));
	return 0;
}
