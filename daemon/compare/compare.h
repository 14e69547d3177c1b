/*
 * compare — "which is better, and is it real?": two or more sides (a side is
 * one run or several pooled), the first the baseline. Tests are matched by
 * name and direction (a sweep point is part of the name); for each metric
 * both sides' mean ± sd over iterations, the delta with its 95 % interval
 * and noise band, and a verdict ("significant", "within noise", "cannot
 * tell") from a test at the level of runs: paired over the rounds of an
 * interleaved job, Welch's over runs with ≥ 2 per side, or against the
 * targets' run-to-run noise from repeated runs (compare_int.h); unmatched
 * tests are listed; sides that ran under different conditions are warned
 * of; one verdict sentence per side against the baseline. docs/api.md has
 * the shape.
 */
#ifndef STORBENCH_COMPARE_H
#define STORBENCH_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct archive;

struct compare_side {
	const char *label;   /* what the side is called: "run 12", "xfs";
				UTF-8, owned by the caller */
	const int64_t *runs; /* run ids pooled into this side */
	size_t n;
};

/*
 * Builds the comparison of sides[0..n) (n ≥ 2; sides[0] the baseline) from
 * the archive into *out. grouped_by: the condition the sides were grouped
 * by ("write_cache", …, or NULL), which is not warned of. Returns 0, -ENOENT (a
 * run does not exist: err names it), or another negative errno.
 */
int compare_json(struct archive *a, const struct compare_side *sides, size_t n,
		 const char *grouped_by, json_t **out, char *err,
		 size_t err_len);

/*
 * What changed between sides[0..n) (compare_changed.c): *out = a new array
 * with an entry per field of the run documents whose value differs between
 * the sides, {field: its dotted path in the run document ("probe.kernel"),
 * label: a short human name ("kernel"), values: one per side in the order
 * of sides — a string or number as the runs state it, null where a side's
 * runs do not, a pooled side's distinct values sorted and joined with
 * ", "}; nothing for a field the same everywhere. Returns 0, -ENOENT (a
 * run does not exist) or another negative errno (*out NULL then).
 */
int compare_changed(struct archive *a, const struct compare_side *sides,
		    size_t n, json_t **out);

/* "1,043" — v rounded to digits decimals with thousands separators. */
void compare_fmt_num(double v, int digits, char *buf, size_t len);

#endif
