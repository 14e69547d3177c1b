/*
 * import_native — storbench's own run document imported (import.h): the
 * run another storbench archive had, with its identity (uuid), probe, spec,
 * labels, notes, warnings, every iteration and, when the document carries
 * them (GET /api/v1/runs/{id}?format=storbench, `storbench run --json`),
 * each iteration's counts and latency histogram and the per-second samples
 * (archive_run_raw). Restored by archive_run_restore: the same counts give
 * the same rates, byte for byte.
 *
 * The field tables below say what is read and its limits (fields.h:
 * refusals name the path, "tests[2].iterations[0].raw.window_ns: …");
 * members the API computes on read (best, units, latency over the
 * iterations, a preset's summary) are not read: the archive computes them
 * again. A native iteration's rates must follow from its counts (a
 * document edited by hand is refused, not stored). A document without
 * raw counts (the API's plain GET) is imported from its printed numbers:
 * counts rounded back from them, no histograms, no samples; the run says
 * so in a warning.
 */
#include "import_native.h"
#include "import.h"
#include "os/os.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/base64.h>

#include "archive/archive.h"
#include "engine/result.h"
#include "platform/fields.h"
#include "platform/utf8.h"
#include "wire/wire.h"

static const char *const ended_states[] = { "done", "failed", "cancelled",
					    "interrupted", NULL };
static const char *const patterns[] = { "sequential", "random", NULL };

static const struct field label_item = { "label", FIELD_STRING, .min = 1,
					 .max = 64, .flags = FIELD_CLEAN };
static const struct field warning_item = { "warning", FIELD_STRING,
					   .max = 4096 };

/* The run's members that are read. */
static const struct field run_fields[] = {
	{ "uuid", FIELD_STRING, .min = 36, .max = 36,
	  .help = "the run's identity: the same on every server" },
	{ "state", FIELD_ENUM, .choices = ended_states,
	  .help = "a run moves once it has ended" },
	{ "profile", FIELD_STRING, .min = 1, .max = 64, .flags = FIELD_CLEAN },
	{ "target", FIELD_STRING, .min = 1, .max = 4096 },
	/* a job's 32 and an import's 24 more */
	{ "labels", FIELD_LIST, .item = &label_item, .max_items = 56,
	  .flags = FIELD_UNIQUE },
	{ "notes", FIELD_STRING, .max = 4096 },
	{ "started_at", FIELD_STRING, .min = 19, .max = 20 },
	{ "finished_at", FIELD_STRING, .min = 19, .max = 20 },
	{ "warnings", FIELD_LIST, .item = &warning_item, .max_items = 1000 },
};

static const struct field engine_fields[] = {
	{ "version", FIELD_STRING, .min = 1, .max = 32, .flags = FIELD_CLEAN },
	{ "target", FIELD_STRING, .min = 1, .max = 32, .flags = FIELD_CLEAN },
	{ "direct", FIELD_BOOL, .help = "unbuffered I/O" },
};

static const struct field test_fields[] = {
	{ "test", FIELD_STRING, .min = 1, .max = 95, .flags = FIELD_CLEAN },
	/* read, write, mix; a preset's own ("log write", "create") */
	{ "rw", FIELD_STRING, .min = 1, .max = 32, .flags = FIELD_CLEAN },
	{ "pattern", FIELD_ENUM, .choices = patterns },
	/* 0: an imported file that does not say */
	{ "block_size", FIELD_INT, "B", .min = 0, .max = 4294967296.0 },
	{ "queue_depth", FIELD_INT, .min = 1, .max = 65536 },
	{ "threads", FIELD_INT, .min = 1, .max = 65536 },
};

/* The document's own header, when it has one (the plain GET has none). */
static const char *const doc_formats[] = { "storbench-run", NULL };
static const struct field document_fields[] = {
	{ "format", FIELD_ENUM, .choices = doc_formats },
	{ "version", FIELD_INT, .min = 1, .max = 1,
	  .help = "a newer storbench's document: import it there, or upgrade" },
	{ "storbench", FIELD_STRING, .min = 1, .max = 32,
	  .flags = FIELD_NULLABLE | FIELD_CLEAN },
};

/* What the archive and compare read of a probe and a spec (other members
 * are kept as they are). FIELD_NULLABLE: may be absent or null. */
static const struct field probe_fields[] = {
	{ "hostname", FIELD_STRING, .max = 255, .flags = FIELD_NULLABLE },
	{ "fs_type", FIELD_STRING, .max = 32,
	  .flags = FIELD_NULLABLE | FIELD_CLEAN },
	{ "fs_block_size", FIELD_INT, "B", .min = 512, .max = 1 << 30,
	  .flags = FIELD_NULLABLE },
	{ "write_cache", FIELD_STRING, .max = 32, .flags = FIELD_NULLABLE },
	{ "free_bytes", FIELD_INT, "B", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
	{ "total_bytes", FIELD_INT, "B", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
	{ "cpus", FIELD_INT, .min = 1, .max = 65536, .flags = FIELD_NULLABLE },
	{ "memory_bytes", FIELD_INT, "B", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
};

static const struct field spec_fields[] = {
	{ "size", FIELD_INT, "B", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
	{ "iterations", FIELD_INT, .min = 1, .max = 1000,
	  .flags = FIELD_NULLABLE },
	{ "duration_s", FIELD_NUMBER, "s", .min = 0, .max = 86400,
	  .flags = FIELD_NULLABLE },
};

static const struct field sweep_fields[] = {
	{ "group", FIELD_STRING, .min = 1, .max = 64 },
	{ "field", FIELD_STRING, .min = 1, .max = 64 },
	{ "value", FIELD_NUMBER, .min = -IMPORT_BIG, .max = IMPORT_BIG },
};

static const struct field iter_fields[] = {
	{ "iteration", FIELD_INT, .min = 1, .max = 1000 },
	{ "mb_s", FIELD_NUMBER, "MB/s", .min = 0, .max = 1e7 },
	{ "iops", FIELD_NUMBER, "I/O/s", .min = 0, .max = 1e9 },
	{ "lat_mean_us", FIELD_NUMBER, "µs", .min = 0, .max = 1e10,
	  .flags = FIELD_NULLABLE },
	{ "bytes", FIELD_INT, "B", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
	{ "ios", FIELD_INT, "I/Os", .min = 0, .max = IMPORT_BIG,
	  .flags = FIELD_NULLABLE },
	{ "seconds", FIELD_NUMBER, "s", .min = 0, .max = 1e9,
	  .flags = FIELD_NULLABLE },
	{ "cpu_user_s", FIELD_NUMBER, "s", .min = 0, .max = 1e12,
	  .flags = FIELD_NULLABLE },
	{ "cpu_sys_s", FIELD_NUMBER, "s", .min = 0, .max = 1e12,
	  .flags = FIELD_NULLABLE },
};

static const struct field raw_fields[] = {
	{ "window_ns", FIELD_INT, "ns", .min = 0, .max = IMPORT_BIG },
	{ "lat_sum_ns", FIELD_INT, "ns", .min = 0, .max = IMPORT_BIG },
	{ "histogram", FIELD_STRING, .max = 1 << 20, .flags = FIELD_NULLABLE },
	{ "imported", FIELD_BOOL, .help = "another tool's numbers" },
};

/* The latency summary's members, in struct lat_summary's order after the
 * mean (µs). */
static const char *const lat_keys[] = { "stdev", "p50",	   "p90", "p99",
					"p99.9", "p99.99", "max", "min" };

static const struct field sample_fields[] = {
	{ "test", FIELD_STRING, .min = 1, .max = 95 },
	{ "rw", FIELD_STRING, .min = 1, .max = 32 },
	{ "iteration", FIELD_INT, .min = 1, .max = 1000 },
	{ "second", FIELD_INT, .min = 0, .max = 86400 },
	{ "length_s", FIELD_NUMBER, "s", .min = 0, .max = 2,
	  .flags = FIELD_ABOVE_MIN },
	{ "read_ios", FIELD_INT, .min = 0, .max = IMPORT_BIG },
	{ "read_bytes", FIELD_INT, .min = 0, .max = IMPORT_BIG },
	{ "read_lat_sum_ns", FIELD_INT, .min = 0, .max = IMPORT_BIG },
	{ "write_ios", FIELD_INT, .min = 0, .max = IMPORT_BIG },
	{ "write_bytes", FIELD_INT, .min = 0, .max = IMPORT_BIG },
	{ "write_lat_sum_ns", FIELD_INT, .min = 0, .max = IMPORT_BIG },
};

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

/* What a document's run becomes; freed by doc_free. */
struct doc {
	json_t *root;
	struct archive_restore in;
	struct archive_restore_row *rows;
	struct archive_restore_sample *samples;
	struct archive_restore_cond *conds;
	size_t n_conds;
	void **hists; /* cap_rows of them, NULL or each row's decoded bytes */
	size_t n_rows, cap_rows, n_samples;
	char *spec, *probe, *labels, *warnings, *wire;
	int no_raw;
};

static void doc_free(struct doc *d)
{
	for (size_t i = 0; d->hists && i < d->cap_rows; i++)
		free(d->hists[i]);
	free(d->hists);
	free(d->rows);
	/* read_samples' calloc leaves one entry past the last filled */
	import_native_counters_free(d->samples,
				    d->samples ? d->n_samples + 1 : 0);
	import_native_conds_free(d->conds, d->n_conds);
	free(d->spec);
	free(d->probe);
	free(d->labels);
	free(d->warnings);
	free(d->wire);
	json_decref(d->root);
}

/* Does a native iteration's printed rate follow from its counts? */
static int follows(double printed, double computed)
{
	return fabs(printed - computed) <= 1e-9 * fmax(1.0, fabs(computed));
}

/* Fills row r from iteration it of test t (path names it). */
static int read_iteration(struct doc *d, json_t *t, json_t *it, size_t k,
			  const char *path, struct field_error *e)
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
		.imported = raw ? json_is_true(json_object_get(raw, "imported"))
				: json_is_null(json_object_get(it, "bytes")),
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
	if (r->imported && !json_is_null(json_object_get(it, "bytes")))
		return field_fail(e, path,
				  "raw.imported, yet bytes: another tool's "
				  "iteration has no counts");
	if (r->imported) {
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
			hist_summary(h, &r->lat);
			r->hist = d->hists[k];
			r->has_lat = 1;
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
	} else if (json_is_object(lat = json_object_get(it, "latency_us"))) {
		double *dst[] = { &r->lat.stdev, &r->lat.p50,  &r->lat.p90,
				  &r->lat.p99,	 &r->lat.p999, &r->lat.p9999,
				  &r->lat.max,	 &r->lat.min };
		for (size_t i = 0; i < FIELDS_N(lat_keys); i++)
			*dst[i] = num_of(lat, lat_keys[i]);
		r->has_lat = 1;
	}
	return 0;
}

/* The tests and their iterations into d->rows. */
static int read_tests(struct doc *d, json_t *tests, struct field_error *e)
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
	if (!d->rows || !d->hists)
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

/* read_samples' loop over the list. */
static int samples_each(struct doc *d, json_t *samples, int64_t *last,
			struct field_error *e)
{
	json_t *s;
	size_t i, row;
	char at[96];
	int rc;

	json_array_foreach(samples, i, s)
	{
		struct archive_restore_sample *o = &d->samples[i];
		snprintf(at, sizeof(at), "samples[%zu]", i);
		if (fields_check_members(sample_fields, FIELDS_N(sample_fields),
					 s, at, e) < 0)
			return -EINVAL;
		o->test = str_of(s, "test");
		o->rw = str_of(s, "rw");
		o->iteration = (int)int_of(s, "iteration");
		o->second = int_of(s, "second");
		o->length_s = num_of(s, "length_s");
		for (int c = 0; c < 6; c++)
			o->counts[c] = int_of(s, sample_fields[5 + c].name);
		if ((rc = import_native_counters(s, at, (char **)&o->ctr[0],
						 (char **)&o->ctr[1], e)) < 0)
			return rc;
		/* a second of an iteration the document has, after the
		 * one before it */
		for (row = 0; row < d->n_rows; row++)
			if (d->rows[row].iteration == o->iteration &&
			    strcmp(d->rows[row].test, o->test) == 0 &&
			    strcmp(d->rows[row].rw, o->rw) == 0)
				break;
		if (row == d->n_rows)
			return field_fail(e, at,
					  "a second of test \"%.95s\" %.32s "
					  "iteration %d, which the document "
					  "does not have",
					  o->test, o->rw, o->iteration);
		if (d->rows[row].res.window_ns > 0 &&
		    (double)o->second >
			    (double)d->rows[row].res.window_ns / 1e9 + 1)
			return field_fail(e, at,
					  "second %lld of an iteration of "
					  "%.3f s",
					  (long long)o->second,
					  (double)d->rows[row].res.window_ns /
						  1e9);
		if (last[row] >= o->second)
			return field_fail(e, at,
					  "second %lld after second %lld of "
					  "its iteration: each once, in order",
					  (long long)o->second,
					  (long long)last[row]);
		last[row] = o->second;
		d->n_samples++;
	}
	return 0;
}

static int read_samples(struct doc *d, json_t *samples, struct field_error *e)
{
	size_t row;
	int64_t *last; /* each row's last second so far */
	int rc;

	if (!samples)
		return 0;
	if (!json_is_array(samples) || json_array_size(samples) > 1000000)
		return field_fail(e, "samples",
				  "must be a list of the run's seconds");
	d->samples = calloc(json_array_size(samples) + 1, sizeof(*d->samples));
	last = malloc((d->n_rows + 1) * sizeof(*last));
	if (!d->samples || !last) {
		free(last);
		return -ENOMEM;
	}
	for (row = 0; row < d->n_rows; row++)
		last[row] = -1;
	rc = samples_each(d, samples, last, e);
	free(last);
	return rc;
}

/* The run's labels: the document's, then the caller's not among them. */
static char *labels_of(json_t *labels, const char *extra)
{
	json_t *l = json_copy(labels);
	char *out = NULL;

	if (l && import_labels_add(l, extra) == 0)
		out = json_dumps(l, JSON_COMPACT);
	json_decref(l);
	return out;
}

/* The warnings: the document's, and what this import could not carry. */
static char *warnings_of(const struct doc *d, json_t *warnings)
{
	json_t *w = json_copy(warnings);
	char *out;

	if (d->no_raw)
		json_array_append_new(
			w, json_string("imported from a run document without "
				       "its raw counts (GET /api/v1/runs/{id} "
				       "rather than ?format=storbench): the "
				       "counts are rounded back from the "
				       "printed rates, and the latency "
				       "histograms and per-second samples "
				       "were not carried"));
	out = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	return out;
}

/* Reads the document into d; 0, -EINVAL (err), -ENOMEM. */
static int read_doc(struct doc *d, const char *buf, size_t len,
		    const char *labels, struct field_error *e)
{
	json_error_t jerr;
	json_t *r, *eng, *probe;
	int rc;

	d->root = r = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!r) {
		snprintf(e->detail, sizeof(e->detail), "line %d, column %d: %s",
			 jerr.line, jerr.column,
			 strstr(jerr.text, "JSON_ALLOW_NUL")
				 ? "a \\u0000 in a string"
				 : jerr.text);
		return -EINVAL;
	}
	if (fields_check_members(run_fields, FIELDS_N(run_fields), r, "", e) <
		    0 ||
	    fields_check_members(engine_fields, FIELDS_N(engine_fields),
				 json_object_get(r, "engine"), "engine",
				 e) < 0 ||
	    (json_object_get(r, "document") &&
	     fields_check_members(document_fields, FIELDS_N(document_fields),
				  json_object_get(r, "document"), "document",
				  e) < 0) ||
	    fields_check_members(probe_fields, FIELDS_N(probe_fields),
				 json_object_get(r, "probe"), "probe", e) < 0 ||
	    fields_check_members(spec_fields, FIELDS_N(spec_fields),
				 json_object_get(r, "spec"), "spec", e) < 0 ||
	    import_native_check(r, e) < 0)
		return -EINVAL;
	if ((rc = read_tests(d, json_object_get(r, "tests"), e)) < 0 ||
	    (rc = read_samples(d, json_object_get(r, "samples"), e)) < 0 ||
	    (rc = wire_from_doc(r, &d->wire, e)) < 0 ||
	    (rc = import_native_conds(json_object_get(r, "tests"), &d->conds,
				      &d->n_conds, e)) < 0)
		return rc;
	eng = json_object_get(r, "engine");
	d->spec = json_dumps(json_object_get(r, "spec"), JSON_COMPACT);
	probe = json_object_get(r, "probe");
	d->probe = json_dumps(probe, JSON_COMPACT);
	d->labels = labels_of(json_object_get(r, "labels"), labels);
	d->warnings = warnings_of(d, json_object_get(r, "warnings"));
	if (!d->spec || !d->probe || !d->labels || !d->warnings)
		return -ENOMEM;
	d->in = (struct archive_restore){
		.uuid = str_of(r, "uuid"),
		.state = str_of(r, "state"),
		.finished_at = str_of(r, "finished_at"),
		.engine_version = str_of(eng, "version"),
		.engine_target = str_of(eng, "target"),
		.direct = json_is_true(json_object_get(eng, "direct")),
		.wire_json = d->wire,
		.rows = d->rows,
		.n_rows = d->n_rows,
		.samples = d->samples,
		.n_samples = d->n_samples,
		.conds = d->conds,
		.n_conds = d->n_conds,
	};
	d->in.import = (struct archive_import_in){
		.tool = "storbench",
		/* the storbench that wrote the document (the plain GET does
		 * not say: then the run's engine's, for a run measured by
		 * storbench, else unknown) */
		.version = str_of(json_object_get(r, "document"), "storbench")
				   ? str_of(json_object_get(r, "document"),
					    "storbench")
			   : json_object_get(r, "import") &&
					   !json_is_null(
						   json_object_get(r, "import"))
				   ? "unknown"
				   : d->in.engine_version,
		.format = "storbench",
		.profile = str_of(r, "profile"),
		.target = str_of(r, "target"),
		.notes = str_of(r, "notes") ? str_of(r, "notes") : "",
		.spec_json = d->spec,
		.labels_json = d->labels,
		.probe_json = d->probe,
		.warnings_json = d->warnings,
		.started_at = str_of(r, "started_at"),
		.original = buf,
		.len = len,
	};
	return 0;
}

int import_native(struct archive *a, const char *buf, size_t len,
		  const char *filename, const char *labels,
		  struct import_done *done, size_t *n, char *err,
		  size_t err_len)
{
	struct doc d = { 0 };
	struct field_error e = { 0 };
	char sha[65];
	int rc;

	*n = 0;
	if ((rc = read_doc(&d, buf, len, labels, &e)) < 0) {
		snprintf(err, err_len, "%s", rc == -EINVAL ? e.detail : "");
		doc_free(&d);
		return rc;
	}
	import_sha256_hex(buf, len, sha);
	d.in.import.sha256 = sha;
	d.in.import.filename = filename ? filename : "";
	rc = archive_run_restore(a, &d.in, &done[0].id);
	if (rc == -ENOTUNIQ) {
		snprintf(err, err_len,
			 "uuid %s is run %lld here, which has other "
			 "iterations than this document: not the same run",
			 d.in.uuid, (long long)done[0].id);
		doc_free(&d);
		return rc;
	}
	if (rc == 0 || rc == -EEXIST) {
		done[0].duplicate = rc == -EEXIST;
		done[0].tests =
			json_array_size(json_object_get(d.root, "tests"));
		snprintf(done[0].tool, sizeof(done[0].tool), "storbench %s",
			 d.in.import.version);
		*n = 1;
		rc = 0;
	} else {
		snprintf(err, err_len, "the archive: %s", strerror(-rc));
	}
	doc_free(&d);
	return rc;
}
