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
static json_t *lat_object(json_t *s, double *unit, const char **of)
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
			return o;
		}
	return NULL;
}

/* json+'s bins of o ({"ns": count}) as t's histogram; min and max the
 * file's (ns). 0, or -ENOMEM. No bins, or one that is not a count of a
 * value: no histogram. */
static int bins(json_t *o, struct import_test *t, double min_ns, double max_ns)
{
	json_t *b = json_object_get(o, "bins"), *c;
	struct hist *h;
	const char *key;
	size_t need;
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
		if (*end || end == key || !json_is_integer(c) || n < 0 ||
		    ns > (1ULL << 50)) {
			h->count = 0; /* not fio's bins: none */
			break;
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
	free(h);
	return rc;
}

int import_fio_stated(json_t *s, struct import_test *t, double io_bytes)
{
	json_t *o, *p, *v;
	const char *key, *of = "";
	double x, unit = 1, min = -1, max = -1;

	if (json_is_number(json_object_get(s, "io_bytes")) && io_bytes >= 0) {
		t->bytes = (uint64_t)llround(io_bytes);
		t->has |= IMPORT_HAS_BYTES;
	}
	if (number(s, "total_ios", &x) && x == floor(x)) {
		t->ios = (uint64_t)x;
		t->has |= IMPORT_HAS_IOS;
	}
	if (number(s, "runtime", &x) && x > 0) {
		t->seconds = x / 1e3; /* ms */
		t->has |= IMPORT_HAS_SECONDS;
	}
	/* no I/O, no latency: fio prints zeros */
	if (!(o = lat_object(s, &unit, &of)) ||
	    (number(o, "N", &x) && x == 0) || (number(o, "max", &x) && x == 0))
		return 0;
	snprintf(t->lat_of, sizeof(t->lat_of), "%s", of);
	if (number(o, "min", &min)) {
		t->lat_min_us = min / unit;
		t->has |= IMPORT_HAS_MIN;
	}
	if (number(o, "max", &max)) {
		t->lat_max_us = max / unit;
		t->has |= IMPORT_HAS_MAX;
	}
	if (number(o, "stddev", &x) || number(o, "stdev", &x)) {
		t->lat_stdev_us = x / unit;
		t->has |= IMPORT_HAS_STDEV;
	}
	p = json_object_get(o, "percentile");
	json_object_foreach(p, key, v)
	{
		char *end;
		double level = strtod(key, &end);
		/* "99.900000": fio's level, kept as printed (99.9) */
		if (*end || end == key || !(level > 0 && level < 100) ||
		    !json_is_number(v) || json_number_value(v) < 0)
			continue;
		if (import_pct_add(t, level, json_number_value(v) / unit) < 0)
			break;
	}
	/* bins are nanoseconds (3.x json+) */
	return unit == 1 ? 0 : bins(o, t, min, max);
}
