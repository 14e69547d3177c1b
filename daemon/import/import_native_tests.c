/*
 * import_native_tests — a storbench run document's tests and their
 * iterations (import_native.h: import_native_tests) read into the result
 * rows archive_run_restore stores: each test and iteration checked by its
 * field table (test_fields, iter_fields, raw_fields), a test and direction
 * once in a run, its iterations counting up.
 *
 * A native iteration's rates must follow from its counts (a document
 * edited by hand is refused, not stored) and its latency histogram (base64
 * of hist_encode) must hold its I/Os; an imported one (raw.imported)
 * carries another tool's printed numbers, within the importers' ranges
 * (import.h). An iteration without raw counts (the API's plain GET) has
 * its counts rounded back from its printed rates.
 */
#include "import_native.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/base64.h>

#include "archive/archive.h"
#include "engine/result.h"
#include "import.h"
#include "platform/fields.h"

static const char *const patterns[] = { "sequential", "random", NULL };

static const struct field test_fields[] = {
	{ "test", FIELD_STRING, .min = 1, .max = 95, .flags = FIELD_CLEAN },
	/* read, write, mix; a preset's own ("log write", "create") */
	{ "rw", FIELD_STRING, .min = 1, .max = 32, .flags = FIELD_CLEAN },
	{ "pattern", FIELD_ENUM, .choices = patterns },
	/* null (or 0, as older documents say it): an imported file that
	 * does not say */
	{ "block_size", FIELD_INT, "B", .min = 0, .max = 4294967296.0,
	  .flags = FIELD_NULLABLE },
	{ "queue_depth", FIELD_INT, .min = 1, .max = 65536 },
	{ "threads", FIELD_INT, .min = 1, .max = 65536 },
};

static const struct field sweep_fields[] = {
	{ "group", FIELD_STRING, .min = 1, .max = 64 },
	{ "field", FIELD_STRING, .min = 1, .max = 64 },
	{ "value", FIELD_NUMBER, .min = -FIELD_EXACT_MAX,
	  .max = FIELD_EXACT_MAX },
};

static const struct field iter_fields[] = {
	{ "iteration", FIELD_INT, .min = 1, .max = 1000 },
	{ "mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = 1e7 },
	{ "iops", FIELD_NUMBER, "I/O/s", .min = 0, .max = 1e9 },
	{ "lat_mean_us", FIELD_NUMBER, "µs", .min = 0, .max = 1e10,
	  .flags = FIELD_NULLABLE },
	{ "bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "ios", FIELD_INT, "I/Os", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "seconds", FIELD_NUMBER, "s", .min = 0, .max = 1e9,
	  .flags = FIELD_NULLABLE },
	{ "cpu_user_s", FIELD_NUMBER, "s", .min = 0, .max = 1e12,
	  .flags = FIELD_NULLABLE },
	{ "cpu_sys_s", FIELD_NUMBER, "s", .min = 0, .max = 1e12,
	  .flags = FIELD_NULLABLE },
};

static const struct field raw_fields[] = {
	{ "window_ns", FIELD_INT, "ns", .min = 0, .max = FIELD_EXACT_MAX },
	{ "lat_sum_ns", FIELD_INT, "ns", .min = 0, .max = FIELD_EXACT_MAX },
	{ "histogram", FIELD_STRING, .max = 1 << 20, .flags = FIELD_NULLABLE },
	{ "imported", FIELD_BOOL, .help = "another tool's numbers" },
	{ "start_unix_ns", FIELD_INT, "ns",
	  .help = "the wall clock at the window's opening (ns since 1970 UTC)",
	  .min = 0, .max = 4.1e18 /* 2099 */, .flags = FIELD_NULLABLE },
};

/* The latency summary's members, in struct lat_summary's order after the
 * mean (µs). */
static const char *const lat_keys[] = { "stdev", "p50",	   "p90", "p99",
					"p99.9", "p99.99", "max", "min" };

/* base64 text → bytes (malloc'd into *out): 0, -EINVAL or -ENOMEM. */
static int b64_decode(const char *text, void **out, size_t *len)
{
	struct base64_decode_ctx c;
	size_t n = strlen(text), cap = BASE64_DECODE_LENGTH(n);
	uint8_t *buf = malloc(cap ? cap : 1);

	*out = NULL;
	if (!buf)
		return -ENOMEM;
	base64_decode_init(&c);
	*len = cap;
	if (!base64_decode_update(&c, len, buf, n, text) ||
	    !base64_decode_final(&c)) {
		free(buf);
		return -EINVAL;
	}
	*out = buf;
	return 0;
}

static int64_t int_of(json_t *o, const char *key)
{
	return (int64_t)json_integer_value(json_object_get(o, key));
}

static double num_of(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static const char *str_of(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* Does a native iteration's printed rate follow from its counts? */
static int follows(double printed, double computed)
{
	return fabs(printed - computed) <= 1e-9 * fmax(1.0, fabs(computed));
}

/* Fills row r from iteration it of test t (path names it). */
static int read_iteration(struct import_native_doc *d, json_t *t, json_t *it,
			  size_t k, const char *path, struct field_error *e)
{
	struct archive_restore_row *r = &d->rows[k];
	json_t *raw = json_object_get(it, "raw"), *lat, *sw, *v;
	char at[128];

	if (fields_check_members(iter_fields, FIELDS_N(iter_fields), it, path,
				 e) < 0)
		return -EINVAL;
	snprintf(at, sizeof(at), "%s.raw", path);
	if (raw && fields_check_members(raw_fields, FIELDS_N(raw_fields), raw,
					at, e) < 0)
		return -EINVAL;
	d->no_raw |= !raw;
	sw = json_object_get(t, "sweep");
	*r = (struct archive_restore_row){
		.test = str_of(t, "test"),
		.rw = str_of(t, "rw"),
		.pattern = str_of(t, "pattern"),
		.block_size = int_of(t, "block_size"),
		.queue_depth = int_of(t, "queue_depth"),
		.threads = int_of(t, "threads"),
		.iteration = (int)int_of(it, "iteration"),
		/* without raw (the API's plain GET): an imported run's (its
		 * spec says) or, as older runs show it, one without bytes */
		.imported = raw ? json_is_true(json_object_get(raw, "imported"))
				: json_is_null(json_object_get(it, "bytes")) ||
					    json_is_object(json_object_get(
						    json_object_get(d->root,
								    "spec"),
						    "imported")),
		.error = str_of(it, "error"),
		.allocated_bytes =
			json_is_integer(
				v = json_object_get(it, "allocated_bytes"))
				? json_integer_value(v)
				: -1,
		.sweep_group = json_is_object(sw) ? str_of(sw, "group") : NULL,
		.sweep_field = json_is_object(sw) ? str_of(sw, "field") : NULL,
		.sweep_value = json_is_object(sw) ? num_of(sw, "value") : 0,
	};
	r->res.ios = (uint64_t)int_of(it, "ios");
	r->res.bytes = (uint64_t)int_of(it, "bytes");
	r->res.cpu_user_s = num_of(it, "cpu_user_s");
	r->res.cpu_sys_s = num_of(it, "cpu_sys_s");
	r->has_cpu = json_is_number(json_object_get(it, "cpu_user_s"));
	if (r->imported &&
	    !json_is_object(json_object_get(json_object_get(d->root, "spec"),
					    "imported")))
		return field_fail(e, path,
				  "raw.imported, yet the run is no import (it "
				  "has no spec.imported): a measured "
				  "iteration is not another tool's");
	if (r->imported) {
		int rc = import_native_stated(it, path, &d->stated[k], e);
		if (rc < 0)
			return rc;
		r->stated = d->stated[k];
		/* another tool's numbers, as it printed them: within what
		 * the importers take (import.h) */
		r->res.mb_s = num_of(it, "mb_s");
		r->res.mib_s = r->res.mb_s * 1e6 / (1 << 20);
		r->res.iops = num_of(it, "iops");
		v = json_object_get(it, "lat_mean_us");
		r->res.lat_mean_us =
			json_is_number(v) ? json_number_value(v) : -1;
		if (!import_in_range(IMPORT_MB_S, r->res.mb_s) ||
		    !import_in_range(IMPORT_IOPS, r->res.iops) ||
		    (r->res.lat_mean_us >= 0 &&
		     !import_in_range(IMPORT_LAT_US, r->res.lat_mean_us)))
			return field_fail(e, path,
					  "MB/s, IOPS or latency out of what "
					  "an importer takes (import ranges)");
	} else {
		v = json_object_get(raw, "start_unix_ns");
		r->res.start_unix_ns =
			json_is_integer(v) ? json_integer_value(v) : 0;
		r->res.window_ns =
			raw ? (uint64_t)int_of(raw, "window_ns")
			    : (uint64_t)llround(num_of(it, "seconds") * 1e9);
		r->res.lat_sum_ns =
			raw ? (uint64_t)int_of(raw, "lat_sum_ns")
			    : (uint64_t)llround(num_of(it, "lat_mean_us") *
						1e3 * (double)r->res.ios);
		result_finish(&r->res);
		if (r->block_size < 1 ||
		    json_is_null(json_object_get(it, "bytes")))
			return field_fail(e, path,
					  "a block size of 0 or no bytes: only "
					  "an imported file's iteration "
					  "(raw.imported) lacks them");
		v = json_object_get(it, "lat_mean_us");
		if (!follows(num_of(it, "mb_s"), r->res.mb_s) ||
		    !follows(num_of(it, "iops"), r->res.iops) ||
		    !follows(num_of(it, "seconds"), r->res.seconds) ||
		    (json_is_number(json_object_get(it, "mib_s")) &&
		     !follows(num_of(it, "mib_s"), r->res.mib_s)) ||
		    (json_is_number(v) &&
		     !follows(json_number_value(v), r->res.lat_mean_us)))
			return field_fail(e, path,
					  "MB/s %.17g, IOPS %.17g, its seconds "
					  "or the mean "
					  "latency do not follow from its "
					  "counts (%.17g and "
					  "%.17g): the document was changed",
					  num_of(it, "mb_s"),
					  num_of(it, "iops"), r->res.mb_s,
					  r->res.iops);
	}
	if (raw && json_is_string(v = json_object_get(raw, "histogram"))) {
		struct hist *h = malloc(sizeof(*h));
		int rc = h ? b64_decode(json_string_value(v), &d->hists[k],
					&r->hist_len)
			   : -ENOMEM;
		if (rc == 0 && hist_decode(h, d->hists[k], r->hist_len) < 0)
			rc = -EINVAL;
		/* the histogram holds the iteration's I/Os, their latencies
		 * summing to its lat_sum_ns */
		if (rc == 0 && !r->imported &&
		    (h->count != r->res.ios ||
		     !follows(h->sum_ns, (double)r->res.lat_sum_ns)))
			rc = -ERANGE;
		if (rc == 0) {
			/* an imported one's latency is what its file states
			 * (r->stated), not its histogram's */
			hist_summary(h, &r->lat);
			r->hist = d->hists[k];
			r->has_lat = !r->imported;
		}
		free(h);
		if (rc == -ENOMEM)
			return rc;
		if (rc == -ERANGE)
			return field_fail(e, at,
					  "histogram: its I/Os or their "
					  "latencies are not the iteration's "
					  "(ios, lat_sum_ns)");
		if (rc < 0)
			return field_fail(e, at,
					  "histogram: not a storbench "
					  "latency histogram (base64 of "
					  "hist_encode)");
	} else if (!r->imported &&
		   json_is_object(lat = json_object_get(it, "latency_us"))) {
		double *dst[] = { &r->lat.stdev, &r->lat.p50,  &r->lat.p90,
				  &r->lat.p99,	 &r->lat.p999, &r->lat.p9999,
				  &r->lat.max,	 &r->lat.min };
		for (size_t i = 0; i < FIELDS_N(lat_keys); i++)
			*dst[i] = num_of(lat, lat_keys[i]);
		r->has_lat = 1;
	}
	return 0;
}

/* The tests and their iterations into d->rows (import_native.h). */
int import_native_tests(struct import_native_doc *d, json_t *tests,
			struct field_error *e)
{
	json_t *t, *it;
	size_t i, k, n = 0;
	char at[96];
	int rc;

	if (!json_is_array(tests))
		return field_fail(e, "tests", "must be a list of the tests");
	json_array_foreach(tests, i, t)
	{
		snprintf(at, sizeof(at), "tests[%zu]", i);
		if (fields_check_members(test_fields, FIELDS_N(test_fields), t,
					 at, e) < 0)
			return -EINVAL;
		if (!json_is_array(json_object_get(t, "iterations"))) {
			snprintf(at, sizeof(at), "tests[%zu].iterations", i);
			return field_fail(e, at, "must be a list");
		}
		for (size_t j = 0; j < i; j++) {
			json_t *u = json_array_get(tests, j);
			if (strcmp(str_of(u, "test"), str_of(t, "test")) == 0 &&
			    strcmp(str_of(u, "rw"), str_of(t, "rw")) == 0)
				return field_fail(e, at,
						  "test \"%.95s\" %.32s is "
						  "tests[%zu] too: a run holds "
						  "a test and direction once",
						  str_of(t, "test"),
						  str_of(t, "rw"), j);
		}
		if (json_is_object(json_object_get(t, "sweep"))) {
			snprintf(at, sizeof(at), "tests[%zu].sweep", i);
			if (fields_check_members(
				    sweep_fields, FIELDS_N(sweep_fields),
				    json_object_get(t, "sweep"), at, e) < 0)
				return -EINVAL;
		}
		n += json_array_size(json_object_get(t, "iterations"));
	}
	if (n > 100000)
		return field_fail(e, "tests", "more than 100000 iterations");
	d->rows = calloc(n ? n : 1, sizeof(*d->rows));
	d->hists = calloc(n ? n : 1, sizeof(*d->hists));
	d->stated = calloc(n ? n : 1, sizeof(*d->stated));
	if (!d->rows || !d->hists || !d->stated)
		return -ENOMEM;
	d->cap_rows = n;
	json_array_foreach(tests, i, t)
	{
		json_array_foreach(json_object_get(t, "iterations"), k, it)
		{
			snprintf(at, sizeof(at), "tests[%zu].iterations[%zu]",
				 i, k);
			if ((rc = read_iteration(d, t, it, d->n_rows, at, e)) <
			    0)
				return rc;
			if (k > 0 && d->rows[d->n_rows].iteration <=
					     d->rows[d->n_rows - 1].iteration)
				return field_fail(
					e, at,
					"iteration %d after %d: "
					"iterations count up, each "
					"once",
					d->rows[d->n_rows].iteration,
					d->rows[d->n_rows - 1].iteration);
			d->n_rows++;
		}
	}
	return 0;
}
