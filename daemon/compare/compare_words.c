/*
 * compare_words — the sentences a comparison writes: a number with its
 * thousands ("1,043"), a difference in the users' words ("1,043 IOPS fewer
 * (−12.4 %) on RND4K Q32T1 read"), and each side's verdict ("better on 5,
 * worse on 1, within noise on 2 of 8 tests — biggest: …"). Calls nothing of
 * compare.c.
 */
#include "compare_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void compare_fmt_num(double v, int digits, char *buf, size_t len)
{
	char raw[64], *dot, out[96];
	size_t k = 0, int_len;
	const char *p = raw;

	snprintf(raw, sizeof(raw), "%.*f", digits, fabs(v));
	dot = strchr(raw, '.');
	int_len = dot ? (size_t)(dot - raw) : strlen(raw);
	if (v < 0 && strspn(raw, "0.") != strlen(raw))
		out[k++] = '-';
	for (size_t i = 0; i < int_len; i++) {
		if (i && (int_len - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = *p++;
	}
	snprintf(out + k, sizeof(out) - k, "%s", dot ? dot : "");
	snprintf(buf, len, "%s", out);
}

/* "1,043 IOPS fewer (−12.4 %) on RND4K Q32T1 read" (rw left out for a
 * summary row, whose rw is its kind) */
void compare_phrase(const struct metric *m, json_t *vs, const char *test,
		    const char *rw, int row, char *buf, size_t len)
{
	double d = json_real_value(json_object_get(vs, "delta"));
	json_t *pct = json_object_get(vs, "delta_pct");
	json_t *ci = json_object_get(vs, "ci_pct");
	char num[64], pc[128] = "";

	compare_fmt_num(fabs(d), m->digits, num, sizeof(num));
	if (json_is_number(pct) && json_is_number(json_array_get(ci, 0))) {
		double lo = json_real_value(json_array_get(ci, 0));
		double hi = json_real_value(json_array_get(ci, 1));
		snprintf(pc, sizeof(pc),
			 " (%s%.1f %%, 95 %% CI %s%.1f … %s%.1f %%)",
			 json_real_value(pct) < 0 ? "−" : "+",
			 fabs(json_real_value(pct)), lo < 0 ? "−" : "+",
			 fabs(lo), hi < 0 ? "−" : "+", fabs(hi));
	} else if (json_is_number(pct))
		snprintf(pc, sizeof(pc), " (%s%.1f %%)",
			 json_real_value(pct) < 0 ? "−" : "+",
			 fabs(json_real_value(pct)));
	snprintf(buf, len, "%s %s %s%s on %s%s%s", num, m->what,
		 d > 0 ? m->more : m->less, pc, test, row ? "" : " ",
		 row ? "" : rw);
}

static int by_size(const void *a, const void *b)
{
	double x = ((const struct finding *)a)->abs_pct;
	double y = ((const struct finding *)b)->abs_pct;
	return x < y ? 1 : x > y ? -1 : 0;
}

static const char *plural(int n)
{
	return n == 1 ? "" : "s";
}

json_t *compare_verdict(const struct compare_side *sides, size_t s, int better,
			int worse, int noise, int untested, int unlike,
			int imported, size_t said[2], struct finding *f,
			size_t nf, struct finding *raw, size_t nr)
{
	char text[1400];
	size_t k = 0;
	int total = better + worse + noise + untested;

	k += (size_t)snprintf(text, sizeof(text), "%s vs %s: ", sides[s].label,
			      sides[0].label);
	if (total == 0) {
		k += (size_t)snprintf(text + k, sizeof(text) - k,
				      "no test to judge in common");
	} else if (better + worse == 0 && noise > 0) {
		k += (size_t)snprintf(
			text + k, sizeof(text) - k,
			"no difference bigger than the noise on %d test%s%s",
			noise, plural(noise),
			untested ? " (others cannot be told: too few runs "
				   "and no noise estimate)"
				 : "");
	} else if (better + worse + noise == 0) {
		/* the reason once, on the first side it applies to; the
		 * others point to it (the page lists the tests once,
		 * cannot_tell) */
		size_t *first = &said[imported ? 0 : 1];
		if (*first)
			k += (size_t)snprintf(text + k, sizeof(text) - k,
					      "cannot tell on %d test%s, for "
					      "the reason given "
					      "for %s",
					      untested, plural(untested),
					      sides[*first].label);
		else
			k += (size_t)snprintf(
				text + k, sizeof(text) - k,
				"cannot tell on %d test%s: %s", untested,
				plural(untested),
				imported
					? "an imported result holds only "
					  "the best of its iterations, with no "
					  "spread; two or more imported runs "
					  "per "
					  "side are tested over runs"
					: "one run per side and no run-to-run "
					  "noise estimate for these targets; "
					  "one "
					  "more run of each side made the same "
					  "way, or an interleaved job of both "
					  "targets, would tell");
		if (!*first)
			*first = s;
		qsort(raw, nr, sizeof(*raw), by_size);
		for (size_t i = 0; i < nr && i < 3 && k < sizeof(text); i++)
			k += (size_t)snprintf(
				text + k, sizeof(text) - k, "%s%s",
				i ? "; " : "; largest: ", raw[i].text);
	} else {
		k += (size_t)snprintf(
			text + k, sizeof(text) - k,
			"better on %d, worse on %d, within noise on %d", better,
			worse, noise);
		if (untested && k < sizeof(text))
			k += (size_t)snprintf(text + k, sizeof(text) - k,
					      ", cannot tell on %d", untested);
		if (k < sizeof(text))
			k += (size_t)snprintf(text + k, sizeof(text) - k,
					      " of %d test%s", total,
					      plural(total));
		qsort(f, nf, sizeof(*f), by_size);
		for (size_t i = 0; i < nf && i < 3 && k < sizeof(text); i++)
			k += (size_t)snprintf(
				text + k, sizeof(text) - k, "%s%s",
				i ? "; " : " — biggest: ", f[i].text);
	}
	if (unlike && k < sizeof(text))
		snprintf(
			text + k, sizeof(text) - k,
			" (%d test%s of the same name ran a different workload "
			"and %s not judged)",
			unlike, plural(unlike), unlike == 1 ? "is" : "are");
	return json_pack("{s:i, s:s, s:i, s:i, s:i, s:i, s:i}", "side", (int)s,
			 "text", text, "better", better, "worse", worse,
			 "within_noise", noise, "untested", untested,
			 "not_like_for_like", unlike);
}
