/*
 * import_store — see import.h: an import's arguments checked, and a parsed
 * file's runs stored in the archive (archive_import) with its original.
 */
#include "import.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "archive/archive.h"
#include "platform/utf8.h"

/* The run's labels: "imported", the tool, what the file says (filesystem,
 * cluster, cache, a fio client's host), and the caller's; as a JSON array
 * text. */
static char *labels_for(const struct import_run *r, const char *extra)
{
	char buf[64], *out;
	json_t *l;

	for (size_t i = 0; i < sizeof(buf) - 1 &&
			   (buf[i] = (char)tolower((unsigned char)r->tool[i]));
	     i++)
		;
	buf[sizeof(buf) - 1] = '\0';
	l = json_pack("[s, s]", "imported", buf);
	if (r->fs_type[0])
		json_array_append_new(l, json_string(r->fs_type));
	if (r->cluster > 0) {
		snprintf(buf, sizeof(buf), "cluster-%lld",
			 (long long)r->cluster);
		json_array_append_new(l, json_string(buf));
	}
	import_labels_add(l, r->label); /* each once */
	if (r->write_cache[0]) {
		snprintf(buf, sizeof(buf), "cache-%s", r->write_cache);
		json_array_append_new(l, json_string(buf));
	}
	import_labels_add(l, extra);
	out = json_dumps(l, JSON_COMPACT);
	json_decref(l);
	return out;
}

/* The run's warnings as a JSON array text (malloc'd). */
static char *warnings_for(const struct import_run *r)
{
	json_t *w = json_array();
	char *out;

	for (size_t i = 0; i < r->n_warn; i++)
		json_array_append_new(w, json_string(r->warn[i]));
	out = json_dumps(w, JSON_COMPACT);
	json_decref(w);
	return out;
}

/*
 * What test t's file states beside its rates, as the API serves it
 * (archive_stated_put): {bytes, ios, seconds, latency_us: {of, min, max,
 * stdev, p50, p90, p99, "p99.9", "p99.99", percentiles: {"1": µs, …,
 * "99.99999": µs}}}, each member only when the file states it (a standard
 * pNN only from a level printed as exactly NN). A JSON text (malloc'd) or
 * NULL for nothing; *rc -ENOMEM when out of memory.
 */
static char *stated_for(const struct import_test *t, int *rc)
{
	static const struct {
		double level;
		const char *key;
	} std[] = { { 50, "p50" },
		    { 90, "p90" },
		    { 99, "p99" },
		    { 99.9, "p99.9" },
		    { 99.99, "p99.99" } };
	json_t *o = json_object(), *lat = json_object(), *pct = json_object();
	char key[32], *out = NULL;

	*rc = -ENOMEM;
	if (!o || !lat || !pct)
		goto out;
	if (t->has & IMPORT_HAS_BYTES)
		json_object_set_new(o, "bytes",
				    json_integer((json_int_t)t->bytes));
	if (t->has & IMPORT_HAS_IOS)
		json_object_set_new(o, "ios", json_integer((json_int_t)t->ios));
	if (t->has & IMPORT_HAS_SECONDS)
		json_object_set_new(o, "seconds", json_real(t->seconds));
	if (t->lat_of[0])
		json_object_set_new(lat, "of", json_string(t->lat_of));
	if (t->has & IMPORT_HAS_MIN)
		json_object_set_new(lat, "min", json_real(t->lat_min_us));
	if (t->has & IMPORT_HAS_MAX)
		json_object_set_new(lat, "max", json_real(t->lat_max_us));
	if (t->has & IMPORT_HAS_STDEV)
		json_object_set_new(lat, "stdev", json_real(t->lat_stdev_us));
	for (size_t i = 0; i < t->n_pct; i++) {
		for (size_t k = 0; k < sizeof(std) / sizeof(std[0]); k++)
			if (t->pct[i].level == std[k].level)
				json_object_set_new(lat, std[k].key,
						    json_real(t->pct[i].us));
		snprintf(key, sizeof(key), "%.10g", t->pct[i].level);
		json_object_set_new(pct, key, json_real(t->pct[i].us));
	}
	if (t->n_pct)
		json_object_set(lat, "percentiles", pct);
	if (json_object_size(lat) > (t->lat_of[0] ? 1u : 0u))
		json_object_set(o, "latency_us", lat);
	*rc = 0;
	if (json_object_size(o) && !(out = json_dumps(o, JSON_COMPACT)))
		*rc = -ENOMEM;
out:
	json_decref(o);
	json_decref(lat);
	json_decref(pct);
	return out;
}

/* Stores run r, the part-th of the file original (sha its SHA-256). */
static int store_one(struct archive *a, const struct import_run *r,
		     const char *format, const void *original, size_t len,
		     const char *sha, int part, const char *filename,
		     const char *labels_extra, int64_t *id)
{
	const struct import_format *f = import_format_find(format);
	struct archive_import_result res[IMPORT_MAX_TESTS];
	struct archive_import_in in;
	char target[IMPORT_TARGET_LEN], *labels = NULL, *spec = NULL,
					*probe = NULL, *warn = NULL;
	char *stated[IMPORT_MAX_TESTS] = { 0 };
	json_t *p, *sp;
	int rc = 0;

	for (size_t i = 0; i < r->n && rc == 0; i++) {
		stated[i] = stated_for(&r->t[i], &rc);
		res[i] = (struct archive_import_result){
			.name = r->t[i].name,
			.rw = r->t[i].rw,
			.pattern = r->t[i].pattern,
			.block_size = r->t[i].block_size,
			.queue_depth = r->t[i].queue_depth,
			.threads = r->t[i].threads,
			.mb_s = r->t[i].mb_s,
			.iops = r->t[i].iops,
			.lat_mean_us = r->t[i].lat_mean_us,
			.stated = stated[i],
			.hist = r->t[i].hist,
			.hist_len = r->t[i].hist_len
		};
	}
	if (rc < 0)
		goto out;
	/* what was tested: DiskSpd's path, fio's file, device or directory,
	   CrystalDiskMark's drive (never the comment: fio's sum of clients
	   says what it is there) */
	snprintf(target, sizeof(target), "%s",
		 r->target[0]  ? r->target
		 : r->drive[0] ? r->drive
			       : "(unknown)");
	labels = labels_for(r, labels_extra);
	warn = warnings_for(r);
	p = json_pack(
		"{s:s?, s:s?, s:s?, s:o, s:s?, s:s, s:s?}", "hostname",
		r->host[0] ? r->host : NULL, "os", r->os[0] ? r->os : NULL,
		"fs_type", r->fs_type[0] ? r->fs_type : NULL, "fs_block_size",
		r->cluster > 0 ? json_integer(r->cluster) : json_null(),
		"write_cache", r->write_cache[0] ? r->write_cache : NULL,
		"device", target, "comment", r->comment[0] ? r->comment : NULL);
	sp = json_pack("{s:{s:s, s:s, s:s, s:s?, s:I, s:i, s:s?, s:s?, s:s?}}",
		       "imported", "tool", r->tool, "version", r->version,
		       "format", format, "profile",
		       r->profile[0] ? r->profile : NULL, "test_size",
		       (json_int_t)r->test_size, "best_of", r->iterations,
		       "date", r->date[0] ? r->date : NULL, "test_line",
		       r->test_line[0] ? r->test_line : NULL, "mode",
		       r->mode[0] ? r->mode : NULL);
	probe = p ? json_dumps(p, JSON_COMPACT) : NULL;
	spec = sp ? json_dumps(sp, JSON_COMPACT) : NULL;
	json_decref(p);
	json_decref(sp);
	if (!labels || !probe || !spec || !warn) {
		rc = -ENOMEM;
		goto out;
	}
	in = (struct archive_import_in){ .tool = r->tool,
					 .version = r->version,
					 .format = format,
					 .profile = f ? f->profile : format,
					 .target = target,
					 .notes = r->comment,
					 .spec_json = spec,
					 .labels_json = labels,
					 .probe_json = probe,
					 .started_at = r->date,
					 .sha256 = sha,
					 .part = part,
					 .warnings_json = warn,
					 .filename = filename ? filename : "",
					 .original = original,
					 .len = len,
					 .results = res,
					 .n = r->n };
	rc = archive_import(a, &in, id);
out:
	free(labels);
	free(spec);
	free(probe);
	free(warn);
	for (size_t i = 0; i < r->n; i++)
		free(stated[i]);
	return rc;
}

int import_store(struct archive *a, const struct import_run *r,
		 const char *format, const void *original, size_t len,
		 const char *filename, const char *labels_extra, int64_t *id)
{
	char sha[65];

	import_sha256_hex(original, len, sha);
	return store_one(a, r, format, original, len, sha, 0, filename,
			 labels_extra, id);
}

int import_file(struct archive *a, const char *format, const char *buf,
		size_t len, const char *filename, const char *labels,
		struct import_done *done, size_t *n, char *err, size_t err_len)
{
	struct import_runs runs;
	char sha[65];
	int rc;

	*n = 0;
	if (!format && !(format = import_detect(buf, len))) {
		snprintf(err, err_len,
			 "not a result file storbench recognises "
			 "(CrystalDiskMark "
			 "text, fio JSON, DiskSpd XML or text, a storbench run "
			 "document)");
		return -EPROTO;
	}
	if (strcmp(format, "storbench") == 0)
		return import_native(a, buf, len, filename, labels, done, n,
				     err, err_len);
	if ((rc = import_parse(format, buf, len, &runs, err, err_len)) < 0)
		return rc;
	import_sha256_hex(buf, len, sha);
	if ((rc = archive_batch_begin(a)) < 0)
		goto out;
	for (size_t i = 0; i < runs.n && rc >= 0; i++) {
		rc = store_one(a, &runs.v[i], format, buf, len, sha, (int)i,
			       filename, labels, &done[i].id);
		done[i].duplicate = rc == -EEXIST;
		done[i].tests = runs.v[i].n;
		snprintf(done[i].tool, sizeof(done[i].tool), "%s %s",
			 runs.v[i].tool, runs.v[i].version);
		if (rc == -EEXIST)
			rc = 0;
	}
	if ((rc = archive_batch_end(a, rc)) == 0)
		*n = runs.n;
	else
		snprintf(err, err_len, "the archive: %s", strerror(-rc));
out:
	import_runs_free(&runs);
	return rc;
}
