/*
 * probe_cow — the portable half of the copy-on-write question (probe.h):
 * "cow" and "nocow" in a probe's fs_features. The question itself is asked
 * per system, probe_file_cow in probe_linux.c and probe_win.c.
 */
#include "probe.h"

#include <stdio.h>
#include <string.h>

void probe_set_cow(struct probe *p, enum probe_cow c)
{
	const char *add = c == PROBE_COW_ON    ? "cow"
			  : c == PROBE_COW_OFF ? "nocow"
					       : NULL;
	char out[sizeof(p->fs_features)];
	const char *s = p->fs_features;
	size_t len = 0;

	out[0] = '\0';
	/* every token of the list but "cow" and "nocow", in order */
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t n = comma ? (size_t)(comma - s) : strlen(s);
		int keep = !(n == 3 && strncmp(s, "cow", 3) == 0) &&
			   !(n == 5 && strncmp(s, "nocow", 5) == 0) && n > 0;
		if (keep && len + n + 2 <= sizeof(out)) {
			len += (size_t)snprintf(out + len, sizeof(out) - len,
						"%s%.*s", len ? "," : "",
						(int)n, s);
		}
		s += n + (comma ? 1 : 0);
	}
	if (add && len + strlen(add) + 2 <= sizeof(out))
		snprintf(out + len, sizeof(out) - len, "%s%s", len ? "," : "",
			 add);
	memcpy(p->fs_features, out, sizeof(out));
}
