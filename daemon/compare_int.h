/*
 * compare_int — what compare.c and compare_words.c share: the findings a
 * verdict sums up, and the sentences (compare_words.c).
 */
#ifndef STORBENCH_COMPARE_INT_H
#define STORBENCH_COMPARE_INT_H

#include <stddef.h>

#include <jansson.h>

#include "compare.h"
#include "preset.h"

/* A significant (or, with too few iterations, a raw) difference: its size
 * and its sentence. */
struct finding {
	double abs_pct;
	char text[256];
};

/* "1,043 IOPS fewer (−12.4 %) on RND4K Q32T1 read" from metric m and its
 * delta object vs; rw left out for a summary row (row). */
void compare_phrase(const struct metric *m, json_t *vs, const char *test,
		    const char *rw, int row, char *buf, size_t len);

/* Side s's verdict against the baseline from its counts and findings (f:
 * significant, raw: untested; both sorted here): {side, text, better,
 * worse, within_noise, untested, not_like_for_like}. A new reference. */
json_t *compare_verdict(const struct compare_side *sides, size_t s, int better,
			int worse, int noise, int untested, int unlike,
			int imported, struct finding *f, size_t nf,
			struct finding *raw, size_t nr);

#endif
