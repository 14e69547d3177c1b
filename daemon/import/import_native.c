/*
 * import_native — storbench's own run document imported (import.h): the
 * run another storbench archive had, with its identity (uuid), probe, spec,
 * labels, notes, warnings, every iteration and, when the document carries
 * them (GET /api/v1/runs/{id}?format=storbench, `storbench run --json`),
 * each iteration's counts and latency histogram and the per-second samples
 * (archive_run_raw). Restored by archive_run_restore: the same counts give
 * the same rates, byte for byte.
 *
 * The field tables below, and import_native_tests.c's for the tests and
 * their iterations, say what is read and its limits (fields.h: refusals
 * name the path, "tests[2].iterations[0].raw.window_ns: …"); members the
 * API computes on read (best, units, latency over the iterations, a
 * preset's summary) are not read: the archive computes them again. A
 * native iteration's rates must follow from its counts (a document edited
 * by hand is refused, not stored). A document without raw counts (the
 * API's plain GET) is imported from its printed numbers: counts rounded
 * back from them, no histograms, no samples; the run says so in a warning.
 */
#include "import_native.h"
#include "import.h"
#include "os/os.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "archive/archive.h"
#include "platform/fields.h"
#include "platform/utf8.h"
#include "wire/wire.h"

static const char *const ended_states[] = { "done", "failed", "cancelled",
					    "interrupted", NULL };

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
	{ "free_bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "total_bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "cpus", FIELD_INT, .min = 1, .max = 65536, .flags = FIELD_NULLABLE },
	{ "memory_bytes", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
};

static const struct field spec_fields[] = {
	{ "size", FIELD_INT, "B", .min = 0, .max = FIELD_EXACT_MAX,
	  .flags = FIELD_NULLABLE },
	{ "iterations", FIELD_INT, .min = 1, .max = 1000,
	  .flags = FIELD_NULLABLE },
	{ "duration_s", FIELD_NUMBER, "s", .min = 0, .max = 86400,
	  .flags = FIELD_NULLABLE },
};

static const struct field sample_fields[] = {
	{ "test", FIELD_STRING, .min = 1, .max = 95 },
	{ "rw", FIELD_STRING, .min = 1, .max = 32 },
	{ "iteration", FIELD_INT, .min = 1, .max = 1000 },
	{ "second", FIELD_INT, .min = 0, .max = 86400 },
	{ "length_s", FIELD_NUMBER, "s", .min = 0, .max = 2,
	  .flags = FIELD_ABOVE_MIN },
	{ "read_ios", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "read_bytes", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "read_lat_sum_ns", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_ios", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_bytes", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
	{ "write_lat_sum_ns", FIELD_INT, .min = 0, .max = FIELD_EXACT_MAX },
};

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

static void doc_free(struct import_native_doc *d)
{
	for (size_t i = 0; d->hists && i < d->cap_rows; i++)
		free(d->hists[i]);
	for (size_t i = 0; d->stated && i < d->cap_rows; i++)
		free(d->stated[i]);
	free(d->hists);
	free(d->stated);
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

/* read_samples' loop over the list. */
static int samples_each(struct import_native_doc *d, json_t *samples,
			int64_t *last, struct field_error *e)
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

static int read_samples(struct import_native_doc *d, json_t *samples,
			struct field_error *e)
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
static char *warnings_of(const struct import_native_doc *d, json_t *warnings)
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
static int read_doc(struct import_native_doc *d, const char *buf, size_t len,
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
	if ((rc = import_native_tests(d, json_object_get(r, "tests"), e)) < 0 ||
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
	struct import_native_doc d = { 0 };
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
