/*
 * units — see units.h. Parsing is strict: a size that a person could read two
 * ways is refused rather than guessed.
 */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <strings.h>

struct unit {
	const char *name;
	uint64_t mult;
};

static const struct unit units[] = {
	{ "", 1 },
	{ "b", 1 },
	{ "k", 1ULL << 10 },
	{ "kib", 1ULL << 10 },
	{ "m", 1ULL << 20 },
	{ "mib", 1ULL << 20 },
	{ "g", 1ULL << 30 },
	{ "gib", 1ULL << 30 },
	{ "t", 1ULL << 40 },
	{ "tib", 1ULL << 40 },
	{ "kb", 1000ULL },
	{ "mb", 1000ULL * 1000 },
	{ "gb", 1000ULL * 1000 * 1000 },
	{ "tb", 1000ULL * 1000 * 1000 * 1000 },
};

int units_parse_size(const char *s, uint64_t *bytes)
{
	uint64_t v = 0;
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');
		if (v > ((uint64_t)INT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	if (*p == ' ' && p[1] != '\0')
		p++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(p, units[i].name) != 0)
			continue;
		if (v > (uint64_t)INT64_MAX / units[i].mult)
			return -ERANGE;
		*bytes = v * units[i].mult;
		return 0;
	}
	return -EINVAL;
}

int units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int i = 0;
	uint64_t v = bytes;
	int n;

	while (i < 4 && v != 0 && v % 1024 == 0) {
		v /= 1024;
		i++;
	}
	n = snprintf(buf, len, "%llu%s", (unsigned long long)v, names[i]);
	return (n < 0 || (size_t)n >= len) ? -ENOSPC : 0;
}
