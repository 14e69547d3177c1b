/*
 * import_fio_lat — what a fio direction states beside its rates
 * (import.h: import_fio_stated): the bytes, I/Os and time it ran, and its
 * latency distribution: every percentile fio printed at its own level, the
 * minimum, maximum and standard deviation, and json+'s bins as a storbench
 * histogram.
 *
 * Which latency: fio prints percentiles of the completion latency (clat,
 * without submission) unless the job sets lat_percentiles=1, when lat
 * (the whole I/O, as storbench times it) has them. The object that has
 * percentiles is used, lat before clat, and min, max and stdev come from
 * the same object, so the numbers are of one kind; "of" names it. fio 3.x
 * keys are nanoseconds (clat_ns), 2.x microseconds (clat).
 *
 * The histogram: json+ prints each of fio's latency bins (64 per power of
 * two, each under 1/64 of its value wide) as one value, in ns, with its
 * count. Each value is added with its count into the storbench bucket
 * holding it (1/128 of a power of two), so the histogram knows each I/O
 * exactly as fio's bins did (within fio's 1.6 %, not storbench's 0.4 %);
 * count is exact, min and max are the file's exact ones, the sum (mean,
 * stdev) is of the bins' values. The percentiles shown for the iteration
 * are the file's own, never the histogram's.
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "engine/histogram.h"

/* o[key] as a finite number ≥ 0 into *v: 1, else 0. */
static int number(json_t *o, const char *key, double *v)
{
	json_t *x = json_object_get(o, key);

	if (!json_is_number(x) || !isfinite(json_number_value(x)) ||
	    json_number_value(x) < 0)
		return 0;
	*v = json_number_value(x);
	return 1;
}

/* The latency object of s with percentiles (lat before clat), else clat,
 * else lat; *unit what its numbers are divided by to be µs (1e3 for
 * ns, so µs are the file's numbers / 1000 exactly), *of its name. */
static json_t *lat_object(json_t *s, double *unit, const char **of,
			  const char **key)
{
	static const struct {
		const char *key, *of;
		double unit;
	} k[] = { { "lat_ns", "lat", 1e3 },
		  { "lat", "lat", 1 },
		  { "clat_ns", "clat", 1e3 },
		  { "clat", "clat", 1 } };
	json_t *o;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
			size_t at = pass ? (i + 2) % 4 : i;
			o = json_object_get(s, k[at].key);
			if (!json_is_object(o) ||
			    (pass == 0 &&
			     !json_is_object(json_object_get(o, "percentile"))))
				continue;
			*unit = k[at].unit;
			*of = k[at].of;
			*key = k[at].key;
			return o;
		}
	return NULL;
}

/* json+'s bins of o ({"ns": count}) as t's histogram; min and max the
 * file's (ns); their counts must sum to o's N, else to want (the
 * direction's total_ios; < 0: unknown). 0, -ENOMEM, or -EINVAL with err
 * (at: "jobs[0] (name) read.clat_ns"). No bins: no histogram. */
static int bins(json_t *o, struct import_test *t, double min_ns, double max_ns,
		double want, const char *at, char *err, size_t err_len)
{
	json_t *b = json_object_get(o, "bins"), *c;
	struct hist *h;
	const char *key;
	size_t need;
	double x;
	int rc = 0;

	if (!json_is_object(b) || json_object_size(b) == 0)
		return 0;
	if (!(h = malloc(sizeof(*h))))
		return -ENOMEM;
	hist_init(h);
	json_object_foreach(b, key, c)
	{
		char *end;
		unsigned long long ns = strtoull(key, &end, 10);
		json_int_t n = json_integer_value(c);
		if (*end || end == key || !isdigit((unsigned char)*key) ||
		    !json_is_integer(c) || n < 0 || ns > (1ULL << 50)) {
			snprintf(err, err_len,
				 "%s.bins.%.32s: not a count (a whole number "
				 "from 0) of a latency in ns",
				 at, key);
			rc = -EINVAL;
			goto out;
		}
		h->buckets[hist_index(ns)] += (uint64_t)n;
		h->count += (uint64_t)n;
		h->sum_ns += (double)ns * (double)n;
		h->sum_sq_ns += (double)ns * (double)ns * (double)n;
		if (n && ns < h->min_ns)
			h->min_ns = ns;
		if (n && ns > h->max_ns)
			h->max_ns = ns;
	}
	if (number(o, "N", &x))
		want = x;
	if (want >= 0 && (double)h->count != want) {
		snprintf(err, err_len,
			 "%s.bins: the counts sum to %llu, not the %.0f I/Os "
			 "of %s",
			 at, (unsigned long long)h->count, want,
			 json_object_get(o, "N") ? "N" : "total_ios");
		rc = -EINVAL;
		goto out;
	}
	if (h->count && min_ns >= 0 && max_ns >= min_ns) {
		h->min_ns = (uint64_t)llround(min_ns);
		h->max_ns = (uint64_t)llround(max_ns);
	}
	if (h->count) {
		need = hist_encode(h, NULL, 0);
		if (!(t->hist = malloc(need)))
			rc = -ENOMEM;
		else
			t->hist_len = hist_encode(h, t->hist, need);
	}
out:
	free(h);
	return rc;
}

/* A level and its value, as the file printed them. */
struct pct {
	double level, v;
	const char *key;
};

static int by_level(const void *a, const void *b)
{
	const struct pct *x = a, *y = b;

	return (x->level > y->level) - (x->level < y->level);
}

/*
 * o's percentiles into t (unit: what they are divided by to be µs), after
 * checking each is a number from 0, they do not fall as the level rises,
 * and they lie within [min, max] (< 0: not stated) — fio's values are its
 * bins', which may pass the extremes by a bin: 1/8 is allowed. 0, or
 * -EINVAL with err naming the key (at: "jobs[0] (name) read.clat_ns").
 */
static int percentiles(json_t *o, struct import_test *t, double unit,
		       double min, double max, const char *at, char *err,
		       size_t err_len)
{
	json_t *p = json_object_get(o, "percentile"), *v;
	struct pct a[64];
	const char *key, *why = NULL;
	size_t n = 0;

	json_object_foreach(p, key, v)
	{
		char *end;
		double level = strtod(key, &end);
		/* "99.900000": fio's level, kept as printed (99.9) */
		if (*end || end == key || !(level > 0 && level < 100))
			continue;
		if (!json_is_number(v) || !isfinite(json_number_value(v)) ||
		    json_number_value(v) < 0)
			why = "not a latency (a number from 0)";
		else if (min >= 0 && json_number_value(v) < min - min / 8)
			why = "below the minimum";
		else if (max >= 0 && json_number_value(v) > max + max / 8)
			why = "above the maximum";
		if (why) {
			snprintf(err, err_len, "%s.percentile.%.32s: %s", at,
				 key, why);
			return -EINVAL;
		}
		if (n < sizeof(a) / sizeof(a[0]))
			a[n++] = (struct pct){ level, json_number_value(v),
					       key };
	}
	qsort(a, n, sizeof(a[0]), by_level);
	for (size_t i = 1; i < n; i++)
		if (a[i].v < a[i - 1].v) {
			snprintf(err, err_len,
				 "%s.percentile.%.32s: below a lower level's "
				 "value",
				 at, a[i].key);
			return -EINVAL;
		}
	for (size_t i = 0; i < n; i++)
		if (import_pct_add(t, a[i].level, a[i].v / unit) < 0)
			break;
	return 0;
}

/* o[key] absent (0), a number from 0 (1, in *v), else -1. */
static int stated(json_t *o, const char *key, double *v)
{
	if (!json_object_get(o, key))
		return 0;
	return number(o, key, v) ? 1 : -1;
}

int import_fio_stated(json_t *s, struct import_test *t, double io_bytes,
		      const char *where, char *err, size_t err_len)
{
	json_t *o;
	const char *of = "", *lk = "", *bad;
	char at[128];
	double x, unit = 1, min = -1, max = -1, ios = -1;
	int rc;

	if (json_is_number(json_object_get(s, "io_bytes")) && io_bytes >= 0) {
		t->bytes = (uint64_t)llround(io_bytes);
		t->has |= IMPORT_HAS_BYTES;
	}
	if (number(s, "total_ios", &x) && x == floor(x)) {
		t->ios = (uint64_t)x;
		t->has |= IMPORT_HAS_IOS;
		ios = x;
	}
	if (number(s, "runtime", &x) && x > 0) {
		t->seconds = x / 1e3; /* ms */
		t->has |= IMPORT_HAS_SECONDS;
	}
	if (!(o = lat_object(s, &unit, &of, &lk)))
		return 0;
	snprintf(at, sizeof(at), "%s.%s", where, lk);
	bad = stated(o, "min", &min) < 0
		      ? "min: not a latency (a number from 0)"
	      : stated(o, "max", &max) < 0
		      ? "max: not a latency (a number from 0)"
	      : min >= 0 && max >= 0 && min > max ? "max: below min"
						  : NULL;
	if (bad) {
		snprintf(err, err_len, "%s.%s", at, bad);
		return -EINVAL;
	}
	/* no I/O, no latency: fio prints zeros */
	if ((number(o, "N", &x) && x == 0) || max == 0)
		return 0;
	snprintf(t->lat_of, sizeof(t->lat_of), "%s", of);
	if (min >= 0) {
		t->lat_min_us = min / unit;
		t->has |= IMPORT_HAS_MIN;
	}
	if (max >= 0) {
		t->lat_max_us = max / unit;
		t->has |= IMPORT_HAS_MAX;
	}
	if (number(o, "stddev", &x) || number(o, "stdev", &x)) {
		t->lat_stdev_us = x / unit;
		t->has |= IMPORT_HAS_STDEV;
	}
	if ((rc = percentiles(o, t, unit, min, max, at, err, err_len)) < 0)
		return rc;
	/* bins are nanoseconds (3.x json+) */
	return unit == 1 ? 0 : bins(o, t, min, max, ios, at, err, err_len);
}
